"""Statements of the "Running at scale" page (book/running_at_scale.md) checked against the code
and the committed records they describe, so that the page fails a test when either changes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from script_loader import load_script

from memnb import cli
from memnb.results import device_kind

REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "book" / "running_at_scale.md"


@pytest.fixture(scope="module")
def page() -> str:
    return re.sub(r"\s+", " ", PAGE.read_text())  # sentences broken over lines read as one


def test_the_example_of_a_table_of_several_gpu_models_holds(page: str) -> None:
    assert ("the `invocations` of `data/results/full/mahdavi.heads.json` ran on more than one "
            "GPU model") in page
    provenance = json.loads((REPO / "data" / "results" / "full" / "mahdavi.heads.json")
                            .read_text())
    names = {run["device_name"] for run in provenance["invocations"]}
    assert len(names) > 1, names
    assert device_kind(provenance["device"]) == "cuda"


def test_the_quick_start_exit_codes_are_the_commands(page: str, monkeypatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from memnb import results
    from memnb.experiments import registry
    from memnb.profiles import PROFILES

    stopped = re.search(r"A run stopped at its limit exits with code (\d+)", page)
    refused = re.search(r"refuses to compute it again \(exit code (\d+),", page)
    assert stopped and refused, "the quick start no longer states the two exit codes"
    assert int(stopped.group(1)) == cli.PARTIAL  # what `memnb run --time-limit` returns
    # the refusal itself: a complete full table of today's code is not computed again, rc 2
    calls: list = []

    def never(params, **kwargs):
        calls.append(kwargs)
        raise AssertionError("no point may be computed")

    monkeypatch.setitem(registry._REGISTRY, "tiny.done", registry.Experiment(
        "tiny.done", "test", "none", {p: {"seeds": 1} for p in PROFILES}, never))
    monkeypatch.setattr(results, "complete_already", lambda *a, **k: "a complete result")
    assert cli.main(["run", "tiny.done", "--profile", "full"]) == int(refused.group(1))
    assert calls == []
    assert "a complete result" in capsys.readouterr().err
    assert "`MEMNB_DATA_DIR=PATH` names a folder of your own" in page
    assert "MEMNB_DATA_DIR" in (REPO / "memnb" / "paths.py").read_text()


def test_the_quick_start_names_the_commands_that_exist(page: str) -> None:
    usage = cli.build_parser().format_usage()  # "usage: memnb [-h] {list,run,plan,scorecard} ..."
    commands = re.search(r"\{([\w,]+)\}", usage).group(1).split(",")
    used = re.findall(r"^memnb (\w+)", PAGE.read_text(), flags=re.MULTILINE)
    assert {"list", "plan", "run"} <= set(used)
    for command in used:
        assert command in commands, command


def test_the_rekey_option_takes_a_label(page: str, capsys: pytest.CaptureFixture[str]) -> None:
    rekey = load_script("scripts/rekey_cache.py", "rekey_cache")
    with pytest.raises(SystemExit):
        rekey.main(["--help"])
    assert "--reviewed LABEL" in capsys.readouterr().out
    assert "`--reviewed LABEL`" in page


def test_the_precision_record_is_written_where_the_page_says(
        page: str, capsys: pytest.CaptureFixture[str]) -> None:
    check = load_script("scripts/precision_check.py", "precision_check")
    with pytest.raises(SystemExit):
        check.main(["--help"])
    assert "--out OUT" in capsys.readouterr().out
    source = (REPO / "scripts" / "precision_check.py").read_text()
    assert re.search(r'"--out", type=Path, default=Path\("precision_check"\)', source)
    assert "`precision_check/precision_check.json`" in page
    assert "copied into `data/precision/`" in page
    assert any((REPO / "data" / "precision").glob("*.json"))
