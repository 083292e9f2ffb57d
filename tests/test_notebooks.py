"""Tests of the chapters and of the book pipeline (book/build.py).

- Every source notebook in ``notebooks/`` is stored without outputs and has a papermill
  ``parameters`` cell that sets ``profile = "quick"``.
- Every notebook executes with papermill in the ``ci`` profile, exactly as the book build does,
  and the executed copy passes ``pytest --nbval-lax``: nbval runs it again in a fresh kernel and
  every cell marked ``# NBVAL_CHECK_OUTPUT`` must reproduce its output exactly.
- The book pipeline orders the chapters, writes a valid table of contents and detects pages that
  would load resources from another host (keys, reading flow, the reproducibility page and the
  citations: tests/test_build_*.py).

The environment variable ``MEMNB_NOTEBOOKS_DIR`` points the notebook tests at another folder;
``MEMNB_TEST_DEVICE=cuda`` executes (and nbval re-runs) them on a GPU.
"""

from __future__ import annotations

import ast
import os
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
