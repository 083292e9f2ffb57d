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
