"""Docstrings leave the code fingerprint alone, and ``scripts/rekey_cache.py`` carries results
and cached points of today's code from the fingerprint that counted them to the one that does
not, losing no point."""

from __future__ import annotations

import json
import textwrap

import pytest
from script_loader import load_script

from memnb.fingerprint import without_docstrings
from memnb.sweep import read_point, write_point

_SOURCE = textwrap.dedent('''
    """Module docstring."""
    X = 1
    """An attribute's docstring,
    over two lines."""


    def f(a):
        """What f computes."""
        return a + X


    def g(): "kept: it shares its line with code"


    class C:
        """A class."""

        def h(self):
            s = "a string that is a value, not a statement"
            return s
''')


def test_docstrings_are_left_out_and_code_is_not():
    bare = without_docstrings(_SOURCE)
    for doc in ("Module docstring", "attribute's docstring", "over two lines", "What f",
                "A class."):
        assert doc not in bare, doc
    for code in ("X = 1", "return a + X", 'def g(): "kept', "a string that is a value"):
        assert code in bare, code
    assert without_docstrings(_SOURCE.replace("What f computes", "What f returns")) == bare
    assert without_docstrings(_SOURCE.replace("a + X", "a - X")) != bare
    assert without_docstrings("def broken(:\n") == "def broken(:\n"  # no parse: as it is


@pytest.fixture(scope="module")
def rekey():
    return load_script("scripts/rekey_cache.py", "rekey_cache")


def test_rekey_moves_todays_results_and_leaves_earlier_code(rekey, tmp_path):
    old, new, earlier = "a" * 16, "b" * 16, "c" * 16
    full = tmp_path / "full"
    cache = full / ".cache" / "demo.run"
    point = {"x": 1}
    write_point(cache, point, [{"y": 2}], code=old)
    write_point(cache, {"x": 2}, [{"y": 3}], code=earlier)
    (cache / "paused").mkdir()
    (cache / "paused" / f"0123.{old}.pt").write_bytes(b"state")
    (full / "demo.run.json").write_text(json.dumps({"code_fingerprint": old, "seeds": 1,
                                                    "rerun_of": {"code_fingerprint": old}}))
    (full / "demo.other.json").write_text(json.dumps({"code_fingerprint": earlier}))
    mapping = {"demo.run": (old, new), "demo.other": (old, new)}

    assert rekey.rekey(tmp_path, mapping, dry_run=True)
    assert read_point(cache, point, code=old) == [{"y": 2}]  # a dry run changes nothing

    done = rekey.rekey(tmp_path, mapping)
    assert len(done) == 2, done
    assert read_point(cache, point, code=new) == [{"y": 2}]
    assert not list(cache.glob(f"*.{old}.json"))
    assert (cache / "paused" / f"0123.{new}.pt").read_bytes() == b"state"
    assert read_point(cache, {"x": 2}, code=earlier) == [{"y": 3}]  # earlier code stays
    provenance = json.loads((full / "demo.run.json").read_text())
    assert provenance["code_fingerprint"] == new and provenance["seeds"] == 1
    assert provenance[rekey.REKEYED_FROM] == old
    assert provenance["rerun_of"] == {"code_fingerprint": new, rekey.REKEYED_FROM: old}
    assert json.loads((full / "demo.other.json").read_text()) == {"code_fingerprint": earlier}
    assert rekey.rekey(tmp_path, mapping) == []  # once is enough


def test_the_map_reproduces_the_fingerprints_recorded_before(rekey):
    mapping = rekey.fingerprint_map()
    assert {name.split(".")[0] for name in mapping} >= {"dana", "mahdavi", "kajitsuka"}
    for old, new in mapping.values():
        assert old != new and len(old) == len(new) == 16


# --- re-keying from an earlier commit: an edit that computes nothing differently ------------------
_CORE = textwrap.dedent('''
    """A core module."""
    import math

    import pandas as pd

    RATE = 0.5
    NAMES = ["a", "b"]
    __all__ = ["step", "table"]


    def step(x):
        """One step."""
        return math.exp(-RATE * x)


    def table(x):
        return pd.DataFrame({"label": [f"step at {x}"], "value": [step(x)]})
''')


def _edited(*pairs: tuple[str, str]) -> str:
    source = _CORE
    for old, new in pairs:
        assert old in source, old
        source = source.replace(old, new)
    return source


def test_a_reworded_label_or_docstring_computes_nothing_differently(rekey):
    reworded = _edited(('f"step at {x}"', 'f"the step at x = {x:g}"'), ('"One step."', '"A step."'),
                       ('["a", "b"]', '["c", "d"]'))
    assert rekey.display_only_problems({"m.py": _CORE}, {"m.py": reworded}) == []


def test_a_changed_number_or_expression_is_refused(rekey):
    for pair in (("RATE = 0.5", "RATE = 0.25"), ("-RATE * x", "-RATE * x * x"),
                 ('"value": [step(x)]', '"value": [step(x + 1)]')):
        problems = rekey.display_only_problems({"m.py": _CORE}, {"m.py": _edited(pair)})
        assert problems and problems[0].startswith("m.py: replace"), pair


def test_removed_code_passes_only_when_nothing_uses_it(rekey):
    moved = _edited(('''

    def table(x):
        return pd.DataFrame({"label": [f"step at {x}"], "value": [step(x)]})
'''.replace("\n    ", "\n"), "\n"), ("import pandas as pd\n", ""), ('"step", "table"', '"step"'))
    assert "def table" not in moved and "pandas" not in moved
    # the presentation function moved to a module outside the fingerprint, with its import
    assert rekey.display_only_problems({"m.py": _CORE}, {"m.py": moved}) == []
    # ... but not while another fingerprinted file still calls it
    caller = "from m import table\nx = table(1)\n"
    assert rekey.display_only_problems({"m.py": _CORE, "n.py": caller},
                                       {"m.py": moved, "n.py": caller}) == [
        "m.py: removed a statement whose names are still used: table"]
    # an import still used in its own file cannot go
    kept_use = _edited(("import math\n", ""))
    assert rekey.display_only_problems({"m.py": _CORE}, {"m.py": kept_use}) == [
        "m.py: removed a statement whose names are still used: math"]
    # added code is refused: it may compute
    added = _CORE + "\nEXTRA = step(2)\n"
    assert rekey.display_only_problems({"m.py": _CORE}, {"m.py": added})


def test_the_probe_reports_the_fingerprints_this_process_computes(rekey):
    from memnb.fingerprint import code_fingerprint, code_modules

    found = rekey.probe(rekey.REPO)
    module = "memnb.experiments.mahdavi"
    assert found["fingerprints"][module] == code_fingerprint(code_modules(module))
    assert found["experiments"]["mahdavi.heads"] == module
    assert "memnb.constructions/mha.py" in found["sources"]


def test_a_second_rekey_keeps_the_computing_fingerprint_and_lists_each_rekey(rekey, tmp_path):
    first, second, third = "a" * 16, "b" * 16, "c" * 16
    path = tmp_path / "demo.run.json"
    path.write_text(json.dumps({"code_fingerprint": second, rekey.REKEYED_FROM: first}))
    assert rekey.rekey_provenance(path, second, third, why="labels reworded")
    record = json.loads(path.read_text())
    assert record["code_fingerprint"] == third and record[rekey.REKEYED_FROM] == first
    assert record[rekey.REKEYS] == [{"from": second, "to": third, "why": "labels reworded"}]


def test_a_reviewed_change_must_say_what_it_was(rekey, tmp_path, capsys):
    with pytest.raises(SystemExit):
        rekey.main(["--root", str(tmp_path), "--from-commit", "HEAD",
                    "--reviewed", "memnb.data/images.py"])
    assert "--note must say what the --reviewed change was" in capsys.readouterr().err


def test_a_rekey_from_a_commit_records_its_hash_not_the_name_typed(rekey, tmp_path, monkeypatch):
    """`--from-commit HEAD` is recorded as the commit HEAD named then: "HEAD" names another
    commit as soon as one more lands."""
    import subprocess

    seen = []
    monkeypatch.setattr(rekey, "commit_mapping", lambda rev, reviewed: ({}, []))
    monkeypatch.setattr(rekey, "rekey", lambda root, mapping, dry, why: seen.append(why) or [])
    assert rekey.main(["--root", str(tmp_path), "--from-commit", "HEAD"]) == 0
    head = subprocess.run(["git", "-C", str(rekey.REPO), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert seen == [f"the code of commit {head} with labels and wording changed"]
