"""Tests of the chapters and of the book pipeline (book/build.py).

- Every source notebook in ``notebooks/`` is stored without outputs and has a papermill
  ``parameters`` cell that sets ``profile = "quick"``.
- Every notebook executes with papermill in the ``ci`` profile, exactly as the book build does,
  and the executed copy passes ``pytest --nbval-lax``: nbval runs it again in a fresh kernel and
  every cell marked ``# NBVAL_CHECK_OUTPUT`` must reproduce its output exactly. Source
  notebooks are stored without outputs, so nbval only compares a rerun with itself: every
  invariant such a cell prints as ``<text>: True`` must also say True in the executed copy
  (:data:`PRINTED_FALSE_ALLOWED` lists the lines meant to print False).
- The book pipeline orders the chapters, writes a valid table of contents and detects pages that
  would load resources from another host (keys, reading flow, the reproducibility page and the
  citations: tests/test_build_*.py).

The environment variable ``MEMNB_NOTEBOOKS_DIR`` points the notebook tests at another folder;
``MEMNB_TEST_DEVICE=cuda`` executes (and nbval re-runs) them on a GPU.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from script_loader import load_script

REPO = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = Path(os.environ.get("MEMNB_NOTEBOOKS_DIR", REPO / "notebooks"))
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
CELL_TIMEOUT_S = 600


def _load_build():
    return load_script("book/build.py", "memnb_book_build")


build = _load_build()


def _parameters_cells(nb) -> list:
    return [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]


def _assigned(source: str) -> dict[str, object]:
    """Names assigned to literals in a cell, e.g. {'profile': 'quick'}."""
    values = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values[target.id] = node.value.value
    return values


# ------------------------------------------------------------------ source notebooks


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_source_notebook_is_stored_clean(path: Path):
    nb = nbformat.read(path, as_version=4)
    dirty = [i for i, c in enumerate(nb.cells)
             if c.cell_type == "code" and (c.get("outputs") or c.get("execution_count"))]
    assert not dirty, f"{path.name}: cells {dirty} have outputs; clear them before committing"
    assert "widgets" not in nb.metadata, f"{path.name}: stored widget state; clear it"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_run_note_is_shown_as_markdown_not_printed(path: Path):
    """A run's note (memnb.results.fresh_and_cached) is Markdown, with `code` spans: printed,
    a reader would see its backticks; chapters display it as Markdown."""
    import re

    nb = nbformat.read(path, as_version=4)
    printed = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
               and re.search(r"print\(\w+\.note\)", c.source)]
    assert not printed, f"{path.name}: cells {printed} print a run's note; display(Markdown(...))"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_source_notebook_has_a_profile_parameter(path: Path):
    nb = nbformat.read(path, as_version=4)
    cells = _parameters_cells(nb)
    assert len(cells) == 1, f"{path.name}: needs exactly one cell tagged 'parameters'"
    values = _assigned(cells[0].source)
    assert values.get("profile") == "quick", (
        f"{path.name}: the parameters cell must set profile = \"quick\" (got {values})")


# ------------------------------------------------------------------ execution + nbval

#: Printed invariants of ``# NBVAL_CHECK_OUTPUT`` cells meant to print False, as
#: ``(notebook stem, text before the colon): reason``. None today: every check prints True.
PRINTED_FALSE_ALLOWED: dict[tuple[str, str], str] = {}

#: ``<text>: True`` or ``<text>: False``; several per line, separated by `` | `` or ``; ``
#: (e.g. "T0 = 12 = H*d_h + d: True; every target is the argmax: True").
_VERDICT = re.compile(r"([^|;\n]*?):[ \t]*(True|False)\b")


def _checked_lines(nb) -> list[tuple[str, str]]:
    """``(cell id, line)`` for every line a ``# NBVAL_CHECK_OUTPUT`` code cell of the executed
    notebook ``nb`` printed to a stream."""
    return [(c.get("id", "?"), line) for c in nb.cells
            if c.cell_type == "code" and "# NBVAL_CHECK_OUTPUT" in c.source
            for o in c.get("outputs", []) if o.get("output_type") == "stream"
            for line in o.get("text", "").splitlines()]


def printed_invariants_not_true(nb, stem: str,
                                allowed: dict[tuple[str, str], str] = PRINTED_FALSE_ALLOWED,
                                ) -> tuple[list[str], int]:
    """The printed invariants of the executed notebook ``nb`` (named ``stem``) that break the
    rule, and how many invariants it printed. Each ``<text>: True|False`` printed by a
    ``# NBVAL_CHECK_OUTPUT`` cell must say True unless ``(stem, text)`` is in ``allowed``
    (:data:`PRINTED_FALSE_ALLOWED`); a True or False printed without such a label cannot be
    judged or allowed and breaks it too (one after ``=``, as in an error message quoting
    ``positional=True``, is not an invariant), as does an allowed line that prints True."""
    bad, count = [], 0
    for cell, line in _checked_lines(nb):
        found = _VERDICT.findall(line)
        count += len(found)
        # a boolean standing alone, not an argument quoted in a message ("positional=True")
        if len(found) != len(re.findall(r"(?<![=\w.])(?:True|False)\b", line)):
            bad.append(f"cell {cell}: a boolean without a '<text>: ' label in {line!r}")
        for text, value in found:
            meant_false = (stem, text.strip()) in allowed
            if (value == "False") != meant_false:
                bad.append(f"cell {cell}: {text.strip()!r} prints {value}"
                           + (" (allowed False)" if meant_false else "") + f" in {line!r}")
    return bad, count


def test_printed_invariants_check_flags_false_and_unlabelled_booleans():
    """The check the notebook test applies to its executed copy, on a hand-made notebook."""
    def notebook(text: str, marked: bool = True):
        source = ("# NBVAL_CHECK_OUTPUT\n" if marked else "") + "print(...)"
        cell = nbformat.v4.new_code_cell(source, outputs=[
            nbformat.v4.new_output("stream", name="stdout", text=text)])
        return nbformat.v4.new_notebook(cells=[cell])

    fine = "a: True | b holds: True\nT0 = 12 = H*d_h + d: True; argmax: True\nshape: (2, 5)\n"
    assert printed_invariants_not_true(notebook(fine), "x") == ([], 4)
    bad, count = printed_invariants_not_true(notebook("a: True | rank(Z) == T: False\n"), "x")
    assert count == 2 and len(bad) == 1 and "'rank(Z) == T' prints False" in bad[0]
    assert printed_invariants_not_true(notebook("x: False\n", marked=False), "x") == ([], 0)
    bad, _ = printed_invariants_not_true(notebook("holds True\n"), "x")
    assert bad and "without a '<text>: ' label" in bad[0]
    assert printed_invariants_not_true(notebook("ValueError: (use positional=True)\n"),
                                       "x") == ([], 0)
    meant = {("x", "meant"): "a line that should print False"}
    assert printed_invariants_not_true(notebook("meant: False\n"), "x", meant) == ([], 1)
    assert "allowed False" in printed_invariants_not_true(notebook("meant: True\n"), "x",
                                                          meant)[0][0]
    assert printed_invariants_not_true(notebook("meant: False\n"), "y", meant)[0]


def _nbval(executed: Path, workdir: Path) -> subprocess.CompletedProcess:
    """Run ``pytest --nbval-lax`` on an executed notebook in a subprocess, isolated from the
    project's pytest configuration, with the kernel of this Python."""
    ini = workdir / "pytest.ini"
    ini.write_text("[pytest]\n")
    env = dict(os.environ)
    env["MEMNB_SLIDER"] = "static"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    cmd = [sys.executable, "-m", "pytest", "-c", str(ini), "--rootdir", str(workdir),
           "-p", "no:cacheprovider", "-q", "--nbval-lax", "--nbval-current-env",
           f"--nbval-cell-timeout={CELL_TIMEOUT_S}", str(executed)]
    return subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True)


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_in_ci_profile_and_checked_outputs_reproduce(path: Path, tmp_path: Path,
                                                                   monkeypatch):
    # results of this run go to a scratch folder, never into the checkout's data/results
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path / "results"))
    executed = tmp_path / path.name
    device = os.environ.get("MEMNB_TEST_DEVICE", "cpu")
    build.execute_notebook(path, executed, "ci", timeout=CELL_TIMEOUT_S, cwd=tmp_path,
                           device=device)
    nb = nbformat.read(executed, as_version=4)
    assert nb.metadata["papermill"]["parameters"] == build.notebook_parameters(path, "ci", device)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors, f"{path.name}: error outputs {[e.ename for e in errors]}"
    # a figure or caption built inside a block is shown only through display(): a cell that
    # builds one and shows nothing left the reader an empty section
    silent = [c.get("id") for c in nb.cells if c.cell_type == "code" and not c.outputs
              and any(call in c.source for call in ("show(", "caption(", "Markdown("))]
    assert not silent, f"{path.name}: cells {silent} build a display but show nothing"
    # nbval compares a rerun with this run only: the invariants printed must say True
    bad, _ = printed_invariants_not_true(nb, path.stem)
    assert not bad, f"{path.name}: printed invariants not True:\n" + "\n".join(bad)
    done = _nbval(executed, tmp_path)
    assert done.returncode == 0, (
        f"nbval failed on {path.name} (ci profile):\n{done.stdout[-6000:]}\n{done.stderr[-2000:]}")


# ------------------------------------------------------------------ book pipeline


def test_chapters_are_ordered_scorecard_dana_mahdavi_kajitsuka_sato_compare_then_others():
    names = ["zeta", "kajitsuka_sato", "cross_paper", "dana", "mahdavi", "compare", "scorecard"]
    assert build.ordered_names(names) == [
        "scorecard", "dana", "mahdavi", "kajitsuka_sato", "compare", "cross_paper", "zeta"]
    assert build.ordered_names(["mahdavi"]) == ["mahdavi"]


def test_generated_toc_is_valid_and_lists_only_given_pages(tmp_path: Path):
    from sphinx_external_toc.parsing import parse_toc_yaml

    def files(text: str) -> list[str]:
        path = tmp_path / "_toc.yml"
        path.write_text(text)
        return list(parse_toc_yaml(path))

    full = build.toc_text(["dana", "extra"], ["running_at_scale"])
    assert files(full) == ["intro", "chapters/dana", "chapters/extra", "running_at_scale"]
    assert files(build.toc_text([], [])) == ["intro"]
    assert "parts" not in build.toc_text([], [])


def test_committed_toc_lists_only_existing_pages():
    from sphinx_external_toc.parsing import parse_toc_yaml

    site = parse_toc_yaml(REPO / "book" / "_toc.yml")
    for name in site:
        assert any((REPO / "book" / f"{name}{ext}").is_file() for ext in (".md", ".ipynb")), name


def test_remote_resources_flags_cdn_scripts_but_not_links(tmp_path: Path):
    (tmp_path / "_static").mkdir()
    (tmp_path / "ok.html").write_text(
        '<a href="https://arxiv.org/abs/2411.10115">paper</a>'
        '<script src="_static/widgets/require.js"></script>'
        '<link rel="canonical" href="https://example.org/book/"/>'
        '<script>const URL = "https://unpkg.com/never-loaded.js"</script>')
    (tmp_path / "bad.html").write_text(
        '<script src="https://cdn.jsdelivr.net/npm/x/embed-amd.js"></script>'
        '<link rel="stylesheet" href="//fonts.example.com/a.css">')
    (tmp_path / "_static" / "theme.css").write_text("@font-face{src:url(https://f.example/x.woff)}")
    found = build.remote_resources(tmp_path)
    assert set(found) == {"bad.html", "_static/theme.css"}
    assert found["bad.html"] == ["https://cdn.jsdelivr.net/npm/x/embed-amd.js",
                                 "//fonts.example.com/a.css"]
