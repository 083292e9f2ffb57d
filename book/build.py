"""Build the Memorization Book: execute the chapters, vendor the JavaScript, run Jupyter Book.

    python book/build.py [--profile quick] [--device cpu|cuda] [--only NAME] [--force]
                         [--skip-execute] [--no-html]
                         [--strict] [--notebooks DIR]

1. Every ``notebooks/*.ipynb`` (stored without outputs) is executed with papermill, with the
   parameter ``profile`` injected, into ``book/chapters/<name>.ipynb``, the chapters in reading
   order and the scorecard last (it reads every chapter's results). A chapter is executed again
   only when its key changed: its notebook, the ``memnb`` code, the profile or the cached results
   it reads (``buildtools/keys.py``; the key is stored beside the executed copy). Progress goes to
   the terminal, a line per code cell (``buildtools/progress.py``). The kernel is a kernelspec named
   ``memnb`` that runs *this* Python (registered inside the environment, so a fresh clone needs
   no user-level kernels). Kernels get ``MEMNB_SLIDER=static``, so sliders are the pre-computed
   kind that works without a kernel, and ``TQDM_DISABLE=1``, so no progress bar reaches a page.
   A cell error stops the build (exit 1).
2. Each executed copy is prepared for reading (``buildtools/reading.py``): the parameters cells
   are removed from the page and one line states their values; progress bars drawn anyway are
   removed. The page "How each page was
   produced" is generated (``buildtools/reproducibility.py``).
3. The JavaScript the HTML pages need (RequireJS and the ipywidgets HTML manager for embedded
   widgets, MathJax for the equations) is installed once with npm into ``book/.cache/npm`` and
   copied into ``book/_vendor/``, which Sphinx publishes as ``_static/``; the pages load it from
   there, never from a CDN.
4. The table of contents is generated from the executed chapters present (order: intro,
   scorecard, dana, mahdavi, kajitsuka_sato, compare, then any others alphabetically; absent
   ones are left out) plus the static pages ``book/*.md`` (running_at_scale, reproducibility,
   bibliography first), and ``jupyter-book build`` runs with ``execute_notebooks: "off"``,
   incrementally (Sphinx rereads only changed pages) unless the list of pages changed.
5. The build fails on unresolved citations, and the built HTML is checked: no page may load a
   script, stylesheet or font from another host.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

BOOK = Path(__file__).resolve().parent
REPO = BOOK.parent
CHAPTERS = BOOK / "chapters"
VENDOR = BOOK / "_vendor"
CACHE = BOOK / ".cache"
NPM_DIR = CACHE / "npm"
HTML_DIR = BOOK / "_build" / "html"
GENERATED_TOC = BOOK / "_build" / "_toc.generated.yml"
FAILED = BOOK / "_build" / "failed"  # where a notebook is executed; it stays there if it fails
REPRODUCIBILITY_PAGE = BOOK / "reproducibility.md"  # generated at every build (not committed)
FULL_RUNS_SECTION = BOOK / "generated" / "full_runs.md"  # generated at every build (not committed)
BENCHMARKS_SECTION = BOOK / "generated" / "benchmarks.md"  # likewise, from data/benchmarks/
BENCHMARK_RECORDS = REPO / "data" / "benchmarks"
PLANS_SECTION = BOOK / "generated" / "plans.md"  # likewise, from data/plans/
PRECISION_SECTION = BOOK / "generated" / "precision.md"  # likewise, from data/precision/
STILL_TO_RUN_SECTION = BOOK / "generated" / "still_to_run.md"  # likewise (buildtools/still_to_run)
GLANCE_SECTION = BOOK / "generated" / "glance.md"  # likewise, from the executed scorecard
PRECISION_RECORDS = REPO / "data" / "precision"
PACKAGE = REPO / "memnb"  # its code is part of every chapter's key

for _path in (REPO, BOOK):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from buildtools import glance, keys, reading, reproducibility, still_to_run  # noqa: E402
from buildtools.progress import register as register_progress_engine  # noqa: E402

from memnb.paths import plans_dir, results_dir  # noqa: E402
from memnb.profiles import PROFILES  # noqa: E402

#: Chapters in reading order; any other executed notebook follows, alphabetically.
CHAPTER_ORDER: tuple[str, ...] = ("scorecard", "dana", "mahdavi", "kajitsuka_sato", "compare")
#: Chapters executed after all others, whatever their place in the reading order: they read
#: the results every other chapter writes.
EXECUTE_LAST: tuple[str, ...] = ("scorecard",)
#: Static pages (``book/<name>.md``) listed first in the reference part, in this order.
STATIC_ORDER: tuple[str, ...] = ("running_at_scale", "reproducibility", "bibliography")
KERNEL_NAME = "memnb"

#: npm packages the offline pages need, pinned.
NPM_PACKAGES: dict[str, str] = {
    "@jupyter-widgets/html-manager": "1.0.6",
    "requirejs": "2.3.7",
    "mathjax": "3.2.2",
}
#: vendored file (relative to book/_vendor) -> file in node_modules
VENDOR_FILES: dict[str, str] = {
    "widgets/require.js": "requirejs/require.js",
    "widgets/embed-amd.js": "@jupyter-widgets/html-manager/dist/embed-amd.js",
    "mathjax/tex-chtml.js": "mathjax/es5/tex-chtml.js",
}
#: folders of MathJax loaded on demand (TeX extensions, fonts, menu, accessibility)
VENDOR_DIRS: dict[str, str] = {
    f"mathjax/{d}": f"mathjax/es5/{d}" for d in ("input", "output", "ui", "a11y", "sre", "adaptors")
}


class BuildError(RuntimeError):
    """A step of the build failed; the message says which and what to do."""


def log(message: str) -> None:
    """Print one progress line (flushed, so it interleaves with subprocess output)."""
    print(f"[book] {message}", flush=True)


# --------------------------------------------------------------------------------------------
# Kernel and notebook execution
# --------------------------------------------------------------------------------------------


def ensure_kernel() -> str:
    """Register a kernelspec ``memnb`` that runs this Python, and make it the one found.

    The spec is written into ``<sys.prefix>/share/jupyter/kernels/memnb`` (inside the virtual
    environment; ``book/.cache/jupyter`` if that is not writable), and that folder is put first
    on ``JUPYTER_PATH`` so that a user-level kernel of the same name cannot shadow it.
    Returns the kernel name.
    """
    try:
        import ipykernel  # noqa: F401
    except ImportError as err:
        raise BuildError(f"ipykernel is not installed in {sys.executable}; install it") from err
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python (memnb)",
        "language": "python",
        "metadata": {"debugger": False},
    }
    for root in (Path(sys.prefix) / "share" / "jupyter", CACHE / "jupyter"):
        kernel_dir = root / "kernels" / KERNEL_NAME
        try:
            kernel_dir.mkdir(parents=True, exist_ok=True)
            target = kernel_dir / "kernel.json"
            if not _runs_this_python(target):  # keep a spec installed by `ipykernel install`
                target.write_text(json.dumps(spec, indent=1) + "\n")
        except OSError:
            continue
        paths = [p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p]
        if str(root) not in paths:
            os.environ["JUPYTER_PATH"] = os.pathsep.join([str(root), *paths])
        return KERNEL_NAME
    raise BuildError("could not write the memnb kernelspec (no writable folder)")


def _runs_this_python(kernel_json: Path) -> bool:
    """Whether ``kernel_json`` is a kernelspec that starts this very Python."""
    try:
        argv = json.loads(kernel_json.read_text()).get("argv", [])
    except (OSError, ValueError):
        return False
    return bool(argv) and Path(argv[0]) == Path(sys.executable)


@contextlib.contextmanager
def kernel_environment() -> Iterator[None]:
    """Environment given to the kernels that execute notebooks (restored afterwards).

    ``MEMNB_SLIDER=static`` makes :func:`memnb.viz.slider` embed pre-computed frames; the
    repository is put on ``PYTHONPATH`` so ``import memnb`` works from the checkout.
    """
    saved = dict(os.environ)
    python_path = [str(REPO), *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                if p and p != str(REPO)]]
    os.environ.update({
        "MEMNB_SLIDER": "static",
        "TQDM_DISABLE": "1",  # a headless run has nobody to watch progress bars
        "PYTHONPATH": os.pathsep.join(python_path),
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
    })
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def execute_notebook(
    source: Path,
    output: Path,
    profile: str,
    *,
    timeout: float | None = None,
    cwd: Path | None = None,
    progress: bool = False,
    device: str = "cpu",
) -> float:
    """Execute ``source`` with papermill (parameters ``profile`` and ``device``) into ``output``;
    return seconds.

    The kernel's working directory is ``cwd``, by default the source notebook's folder, as when
    a reader opens it in Jupyter. ``timeout`` limits each cell (seconds; None: no limit).
    With ``progress``, each code cell is reported on the terminal (stderr) as it starts.
    Raises :class:`BuildError` naming the failing cell if any cell raises.
    """
    import papermill
    from papermill.exceptions import PapermillExecutionError

    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}; got {profile!r}")
    device = check_device(device)
    kernel = ensure_kernel()
    output.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with kernel_environment():
        try:
            papermill.execute_notebook(
                str(source), str(output), parameters=notebook_parameters(source, profile, device),
                kernel_name=kernel,
                language="python", cwd=str(cwd or source.parent), progress_bar=False,
                engine_name=register_progress_engine() if progress else None,
                log_output=False, execution_timeout=timeout,
            )
        except PapermillExecutionError as err:
            raise BuildError(
                f"{source.name}: the cell executed as [{err.exec_count}] raised {err.ename}: "
                f"{err.evalue}\n"
                f"the partly executed notebook is at {output}"
            ) from err
    return time.perf_counter() - start


def ordered_names(names: Sequence[str]) -> list[str]:
    """Chapter names in reading order: :data:`CHAPTER_ORDER` first, then the rest sorted."""
    known = [n for n in CHAPTER_ORDER if n in names]
    return known + sorted(n for n in names if n not in CHAPTER_ORDER)


def execution_order(names: Sequence[str]) -> list[str]:
    """Chapter names in the order they are executed: reading order, :data:`EXECUTE_LAST` last."""
    ordered = ordered_names(names)
    return ([n for n in ordered if n not in EXECUTE_LAST]
            + [n for n in EXECUTE_LAST if n in ordered])


def check_device(device: str) -> str:
    """``device`` if the chapters can run on it here (``cpu``, or ``cuda[:N]`` with a visible
    GPU); else a :class:`BuildError` saying why."""
    from memnb.results import check_device as usable

    try:
        return usable(device)
    except ValueError as err:
        raise BuildError(f"--device {device}: {err}") from err


def notebook_parameters(source: Path, profile: str, device: str) -> dict[str, str]:
    """The papermill parameters for ``source``: ``profile`` always, ``device`` for a notebook
    whose parameters cell declares one (the scorecard trains nothing and has none)."""
    params = {"profile": profile}
    import nbformat

    nb = nbformat.read(source, as_version=4)
    declared = "".join(c.source for c in nb.cells
                       if "parameters" in c.get("metadata", {}).get("tags", []))
    if "device" in declared:
        params["device"] = device
    elif device != "cpu":
        log(f"{source.name} declares no device parameter; it runs as written")
    return params


#: How the log names a field of a chapter's key that changed (the others by their name).
FIELD_WORDS = {"inputs": "datasets, papers' files or packages"}


def outside_inputs() -> str:
    """:func:`buildtools.keys.inputs_digest` of this build: the dataset files found (a data
    folder that cannot be read leaves its error in the digest instead), the papers' folders and
    the packages installed beside this Python."""
    import warnings

    from memnb import dataset_files
    from memnb.paths import DataDirFallbackWarning, papers_dir_candidates
    from memnb.provenance import installed_packages

    try:
        with warnings.catch_warnings():  # a file taken from the next data folder: the
            warnings.simplefilter("ignore", DataDirFallbackWarning)  # chapter reading it warns
            data = dataset_files.digests(dataset_files.DATASETS)
    except (OSError, ValueError) as err:  # e.g. MEMNB_DATA_DIR naming no folder
        data = {"error": f"{type(err).__name__}: {err}"}
    try:
        papers = papers_dir_candidates()
    except OSError as err:  # MEMNB_PAPERS_DIR naming no folder: the chapters say so
        papers, data = [], {**data, "papers error": str(err)}
    return keys.inputs_digest(data, papers, installed_packages())


def chapter_key(name: str, source: Path, profile: str, device: str, inputs: str) -> dict:
    """The key of chapter ``name`` as its inputs are now (see ``buildtools/keys.py``), with
    ``inputs`` the build's :func:`outside_inputs`."""
    return keys.compute_key(name, source, profile, device=device, package=PACKAGE,
                            results_root=results_dir(), reads_all=name in EXECUTE_LAST,
                            inputs=inputs)


def source_notebooks(folder: Path) -> dict[str, Path]:
    """``{name: path}`` of the source notebooks in ``folder``, in reading order."""
    found = {p.stem: p for p in folder.glob("*.ipynb") if not p.name.startswith(".")}
    return {name: found[name] for name in ordered_names(list(found))}


def execute_all(
    notebooks: dict[str, Path], profile: str, *, only: str | None = None, prune: bool = True,
    force: bool = False, device: str = "cpu",
) -> dict[str, str]:
    """Execute the chosen notebooks into ``book/chapters/`` where their key changed.

    Chapters whose executed copy is current (same key) are reused unless ``force``. With
    ``prune`` (a full run), executed copies whose source notebook is gone are deleted.
    Returns ``{name: "executed" | "reused"}``.
    """
    if only is not None:
        if only not in notebooks:
            raise BuildError(f"--only {only}: no notebook {only}.ipynb (have: {list(notebooks)})")
        notebooks = {only: notebooks[only]}
    CHAPTERS.mkdir(parents=True, exist_ok=True)
    if prune and only is None:
        for stale in CHAPTERS.glob("*.ipynb"):
            if stale.stem not in notebooks:
                log(f"removing {stale.relative_to(REPO)} (its source notebook is gone)")
                stale.unlink()
                keys.key_path(stale).unlink(missing_ok=True)
    names = execution_order(list(notebooks))
    inputs = outside_inputs()  # once: the same for every chapter of this build
    failures, outcome = [], {}
    for i, name in enumerate(names, start=1):
        path, executed = notebooks[name], CHAPTERS / f"{name}.ipynb"
        step = f"[{i}/{len(names)}] {name}"
        before = chapter_key(name, path, profile, device, inputs)
        changed = keys.changed_fields(executed, before)
        if not changed and not force:
            log(f"{step}: up to date (notebook, memnb code, profile {profile}, device {device}, "
                "the results it reads, datasets, papers' files and packages unchanged); reusing "
                f"{executed.relative_to(REPO)}")
            outcome[name] = "reused"
            continue
        reason = "; ".join(f if f.startswith("no ") else f"{FIELD_WORDS.get(f, f)} changed"
                           for f in changed)
        log(f"{step}: executing {path.name} with profile={profile}, device={device} "
            f"({reason or 'forced'}) ...")
        # Execute beside the book; only a notebook that ran through replaces its chapter.
        partial = FAILED / f"{name}.ipynb"
        # the commit and versions it starts from: a commit made while it runs did not execute it
        started_in = reproducibility.environment(REPO)
        try:
            seconds = execute_notebook(path, partial, profile, progress=True, device=device)
        except BuildError as err:
            log(f"{step}: FAILED {err}")
            failures.append(name)
            continue
        shutil.move(partial, executed)
        # the results it wrote are among its inputs
        after = chapter_key(name, path, profile, device, inputs)
        keys.write_key(executed, {**before, "experiments": after["experiments"],
                                  "results": after["results"]},
                       executed_utc=datetime.now(UTC).isoformat(timespec="seconds"),
                       seconds=round(seconds, 1),
                       environment=started_in)
        outcome[name] = "executed"
        log(f"{step}: done in {seconds:.1f} s")
    if failures:
        raise BuildError(f"notebook errors in: {', '.join(failures)} (the book was not built)")
    return outcome


def prepare_chapters() -> list[str]:
    """Prepare every executed chapter for reading; return the names of those rewritten."""
    return [p.stem for p in sorted(CHAPTERS.glob("*.ipynb")) if reading.prepare_file(p)]


def write_full_runs_section() -> bool:
    """Generate ``book/generated/full_runs.md`` (included by the "Running at scale" page) from
    the committed full results' provenance; True if it changed."""
    from memnb.experiments.registry import load_all

    text = reproducibility.full_runs_markdown(sorted(load_all()), results_dir())
    return reproducibility.write_page(FULL_RUNS_SECTION, text)


def write_still_to_run_section() -> bool:
    """Generate ``book/generated/still_to_run.md`` (the "Still to run" section of the "Running at
    scale" page) from the committed full results, the plan records and the GPU queue; True if it
    changed."""
    from memnb.experiments.registry import load_all

    text = still_to_run.still_to_run_markdown(sorted(load_all()), results_dir(), plans_dir())
    return reproducibility.write_page(STILL_TO_RUN_SECTION, text)


def write_glance_section() -> bool:
    """Generate ``book/generated/glance.md`` (the introduction's "at a glance" table) from the
    executed scorecard chapter; True if it changed."""
    return reproducibility.write_page(GLANCE_SECTION,
                                      glance.glance_markdown(CHAPTERS / "scorecard.ipynb"))


def write_benchmarks_section() -> bool:
    """Generate ``book/generated/benchmarks.md`` (the "Measured speed" tables of the "Running at
    scale" page) from the committed benchmark records; True if it changed."""
    return reproducibility.write_page(BENCHMARKS_SECTION,
                                      reproducibility.benchmarks_markdown(BENCHMARK_RECORDS))


def write_plans_section() -> bool:
    """Generate ``book/generated/plans.md`` (the cost plans of the "Running at scale" page) from
    the committed plan records and today's provenance; True if it changed."""
    return reproducibility.write_page(PLANS_SECTION,
                                      reproducibility.plans_markdown(plans_dir(), results_dir()))


def write_precision_section() -> bool:
    """Generate ``book/generated/precision.md`` (the TF32 comparison of the "Running at scale"
    page) from the committed ``scripts/precision_check.py`` records; True if it changed."""
    return reproducibility.write_page(PRECISION_SECTION,
                                      reproducibility.precision_markdown(PRECISION_RECORDS))


def write_reproducibility_page() -> bool:
    """Generate ``book/reproducibility.md`` from the executed chapters; True if it changed."""
    executed = [CHAPTERS / f"{n}.ipynb" for n in
                ordered_names([p.stem for p in CHAPTERS.glob("*.ipynb")])]
    text = reproducibility.page_markdown(executed, results_dir())
    return reproducibility.write_page(REPRODUCIBILITY_PAGE, text)


# --------------------------------------------------------------------------------------------
# Offline JavaScript
# --------------------------------------------------------------------------------------------


def _installed_version(package: str) -> str | None:
    manifest = NPM_DIR / "node_modules" / package / "package.json"
    if not manifest.is_file():
        return None
    return json.loads(manifest.read_text()).get("version")


def vendor_javascript() -> None:
    """Install the pinned npm packages (once) and copy what the pages load into book/_vendor/."""
    wanted = {p: v for p, v in NPM_PACKAGES.items() if _installed_version(p) != v}
    if wanted:
        npm = shutil.which("npm")
        if npm is None:
            raise BuildError(
                "npm was not found. The book serves the widget and MathJax JavaScript itself "
                "(no CDN), so the first build needs npm (Node.js) to fetch "
                + ", ".join(f"{p}@{v}" for p, v in NPM_PACKAGES.items())
                + ". Install Node.js (e.g. `apt-get install npm` or `conda install nodejs`) and "
                "rerun; later builds reuse book/.cache/npm and need neither npm nor a network."
            )
        NPM_DIR.mkdir(parents=True, exist_ok=True)
        specs = [f"{p}@{v}" for p, v in NPM_PACKAGES.items()]
        log(f"npm install {' '.join(specs)} into {NPM_DIR.relative_to(REPO)} ...")
        cmd = [npm, "install", "--prefix", str(NPM_DIR), "--no-save", "--no-audit", "--no-fund",
               "--ignore-scripts", "--loglevel=error", *specs]
        done = subprocess.run(cmd, cwd=NPM_DIR, capture_output=True, text=True)
        if done.returncode != 0:
            raise BuildError(f"npm install failed ({done.returncode}):\n{done.stderr[-3000:]}")
        still = [p for p, v in NPM_PACKAGES.items() if _installed_version(p) != v]
        if still:
            raise BuildError(f"npm install did not produce the pinned versions of {still}")
    stamp = VENDOR / "versions.json"
    expected = json.dumps(NPM_PACKAGES, indent=1, sort_keys=True) + "\n"
    complete = all((VENDOR / f).is_file() for f in VENDOR_FILES) and all(
        (VENDOR / d).is_dir() for d in VENDOR_DIRS)
    if complete and stamp.is_file() and stamp.read_text() == expected:
        log("vendored JavaScript is up to date (book/_vendor)")
        return
    modules = NPM_DIR / "node_modules"
    for target, source in VENDOR_FILES.items():
        (VENDOR / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(modules / source, VENDOR / target)
    for target, source in VENDOR_DIRS.items():
        if (VENDOR / target).exists():
            shutil.rmtree(VENDOR / target)
        shutil.copytree(modules / source, VENDOR / target)
    stamp.write_text(expected)
    log("vendored RequireJS, the ipywidgets HTML manager and MathJax into book/_vendor")


# --------------------------------------------------------------------------------------------
# Table of contents, Jupyter Book, checks
# --------------------------------------------------------------------------------------------


def static_pages() -> list[str]:
    """Names of the static pages ``book/*.md`` other than the landing page, in TOC order."""
    names = [p.stem for p in BOOK.glob("*.md") if p.stem not in ("intro", "README")]
    first = [n for n in STATIC_ORDER if n in names]
    return first + sorted(n for n in names if n not in STATIC_ORDER)


def toc_text(chapters: Sequence[str], pages: Sequence[str]) -> str:
    """The ``_toc.yml`` (jb-book format) for the given executed chapters and static pages."""
    lines = [
        "# Generated by book/build.py from the executed chapters in book/chapters/.",
        "format: jb-book",
        "root: intro",
    ]
    parts = [("Chapters", [f"chapters/{c}" for c in chapters]), ("Reference", list(pages))]
    parts = [(caption, files) for caption, files in parts if files]
    if parts:
        lines.append("parts:")
        for caption, files in parts:
            lines += [f"  - caption: {caption}", "    chapters:"]
            lines += [f"      - file: {f}" for f in files]
    return "\n".join(lines) + "\n"


def write_toc() -> tuple[list[str], bool]:
    """Write the generated TOC to ``book/_build/``; return the chapters it lists and whether the
    TOC changed since the last build."""
    chapters = ordered_names([p.stem for p in CHAPTERS.glob("*.ipynb")])
    GENERATED_TOC.parent.mkdir(parents=True, exist_ok=True)
    text = toc_text(chapters, static_pages())
    changed = not GENERATED_TOC.is_file() or GENERATED_TOC.read_text() != text
    if changed:
        GENERATED_TOC.write_text(text)
    return chapters, changed


def jupyter_book_command() -> list[str]:
    """The ``jupyter-book`` command of this environment."""
    script = Path(sys.executable).with_name("jupyter-book")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from jupyter_book.cli.main import main; "
            "sys.exit(main())"]


#: Sphinx warnings that mean a citation did not resolve (sphinxcontrib-bibtex, docutils).
_CITATION_WARNING = re.compile(
    r"WARNING: .*(could not find bibtex key|citation not found|bibtex|Unknown interpreted text "
    r"role \"cite)", re.I)


#: How sphinxcontrib-bibtex renders a citation whose key it could not find: empty brackets.
_EMPTY_CITATION = re.compile(r'<span class="bibtex-citation"[^>]*>\s*[\[(]\s*[\])]\s*</span>')


def citation_warnings(output: str) -> list[str]:
    """The lines of a Sphinx build log that report an unresolved citation."""
    return [line.strip() for line in output.splitlines() if _CITATION_WARNING.search(line)]


def unresolved_citations(html_dir: Path = HTML_DIR) -> dict[str, int]:
    """``{page: count}`` of citations rendered without a reference in the built HTML.

    This catches what the log of an incremental build no longer reports (a page with a bad key
    that was not reread).
    """
    found = {}
    for page in sorted(html_dir.rglob("*.html")):
        count = len(_EMPTY_CITATION.findall(page.read_text(errors="replace")))
        if count:
            found[str(page.relative_to(html_dir))] = count
    return found


def run_jupyter_book(*, strict: bool = False, rebuild_all: bool = True) -> None:
    """``jupyter-book build book/`` with the generated TOC; raise on failure.

    With ``rebuild_all`` every page is rebuilt from scratch (``--all``, after removing the old
    HTML); otherwise Sphinx rereads only the pages whose source changed. With ``strict``, Sphinx
    warnings (broken references, bad markup) fail the build too; unresolved citations always do.
    """
    if (BOOK / "_static").is_dir():
        # Jupyter Book adds every .js under all static paths to every page once _static exists,
        # which would load the 5 MB widget bundle everywhere.
        raise BuildError("book/_static exists: put page assets elsewhere (see book/_config.yml)")
    cmd = [*jupyter_book_command(), "build", str(BOOK), "--toc", str(GENERATED_TOC)]
    if rebuild_all:
        cmd.append("--all")
        if HTML_DIR.exists():
            shutil.rmtree(HTML_DIR)  # no stale pages of removed chapters
    if strict:
        cmd += ["-W", "--keep-going"]
    log(f"jupyter-book build ({'all pages' if rebuild_all else 'changed pages only'}) ...")
    start = time.perf_counter()
    lines = []
    with subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, bufsize=1) as proc:
        for line in proc.stdout:  # echoed as it comes, kept for the citation check
            sys.stdout.write(line)
            lines.append(line)
    sys.stdout.flush()
    if proc.returncode != 0:
        raise BuildError(f"jupyter-book build failed with exit code {proc.returncode}")
    unresolved = citation_warnings("".join(lines)) + [
        f"{page}: {count} citation(s) without a reference"
        for page, count in unresolved_citations().items()]
    if unresolved:
        raise BuildError("unresolved citations (add the work to book/references.bib or fix "
                         "the key):\n  " + "\n  ".join(unresolved))
    if not (HTML_DIR / "index.html").is_file():
        raise BuildError(f"jupyter-book did not produce {HTML_DIR / 'index.html'}")
    log(f"jupyter-book build done in {time.perf_counter() - start:.1f} s")


_REMOTE = re.compile(r"""(?:src|href)\s*=\s*["']((?:https?:)?//[^"']+)["']""", re.I)
_TAG = re.compile(r"<(script|link|img|iframe|source)\b[^>]*>", re.I)
_CSS_URL = re.compile(r"""url\(\s*["']?((?:https?:)?//[^)"']+)""", re.I)


def remote_resources(html_dir: Path = HTML_DIR) -> dict[str, list[str]]:
    """``{file: [url, ...]}`` of scripts, stylesheets, images, fonts loaded from other hosts.

    Plain hyperlinks (``<a href>``) and ``<link rel="canonical">``-style metadata are allowed;
    anything the browser would fetch to render the page is not.
    """
    found: dict[str, list[str]] = {}
    for page in sorted(html_dir.rglob("*.html")):
        urls = []
        for tag in _TAG.finditer(page.read_text(errors="replace")):
            text = tag.group(0)
            if tag.group(1).lower() == "link" and not re.search(
                    r"""rel\s*=\s*["'][^"']*(stylesheet|preload|modulepreload|icon)""", text, re.I):
                continue
            urls += [m.group(1) for m in _REMOTE.finditer(text)]
        if urls:
            found[str(page.relative_to(html_dir))] = urls
    for sheet in sorted((html_dir / "_static").rglob("*.css")):
        urls = [m.group(1) for m in _CSS_URL.finditer(sheet.read_text(errors="replace"))]
        if urls:
            found[str(sheet.relative_to(html_dir))] = urls
    return found


def check_offline() -> None:
    """Fail if any built page loads a resource from another host (a CDN, a font service)."""
    remote = remote_resources()
    if remote:
        listing = "\n".join(f"  {f}: {', '.join(sorted(set(u)))}" for f, u in remote.items())
        raise BuildError(f"the built book loads resources from other hosts:\n{listing}")
    widget_pages = [p for p in HTML_DIR.rglob("*.html") if "widgets/embed-amd.js" in p.read_text()]
    log(f"offline check passed ({len(widget_pages)} page(s) with embedded ipywidgets)")


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=PROFILES, default="quick",
                        help="experiment sizes injected into every notebook (default: quick)")
    parser.add_argument("--device", default="cpu",
                        help="where the chapters train: cpu (default) or cuda[:N] (a GPU)")
    parser.add_argument("--only", metavar="NAME",
                        help="execute only notebooks/NAME.ipynb (other chapters: their last "
                             "executed copy)")
    parser.add_argument("--force", action="store_true",
                        help="execute the chosen notebooks even where their key is unchanged")
    parser.add_argument("--skip-execute", action="store_true",
                        help="do not execute; build from the executed copies in book/chapters/")
    parser.add_argument("--no-html", "--skip-html", dest="no_html", action="store_true",
                        help="execute the notebooks only: no JavaScript vendoring, no "
                             "jupyter-book build")
    parser.add_argument("--strict", action="store_true",
                        help="turn Sphinx warnings into errors")
    parser.add_argument("--notebooks", type=Path, default=REPO / "notebooks",
                        help="folder of the source notebooks (default: notebooks/)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        if not args.skip_execute:
            notebooks = source_notebooks(args.notebooks)
            if not notebooks:
                log(f"no notebooks in {args.notebooks}; building the static pages only")
            outcome = execute_all(notebooks, args.profile, only=args.only, force=args.force,
                                  device=check_device(args.device))
            executed = [n for n, how in outcome.items() if how == "executed"]
            log(f"chapters executed: {', '.join(executed) or 'none'}; reused: "
                f"{', '.join(n for n in outcome if n not in executed) or 'none'}")
        rewritten = prepare_chapters()
        if rewritten:
            log(f"prepared for reading (parameters cells hidden, progress bars removed): "
                f"{', '.join(rewritten)}")
        if args.no_html:
            log(f"done in {time.perf_counter() - start:.0f} s (--no-html: no HTML built)")
            return 0
        vendor_javascript()
        if write_reproducibility_page():
            log(f"generated {REPRODUCIBILITY_PAGE.relative_to(REPO)}")
        if write_full_runs_section():
            log(f"generated {FULL_RUNS_SECTION.relative_to(REPO)}")
        if write_still_to_run_section():
            log(f"generated {STILL_TO_RUN_SECTION.relative_to(REPO)}")
        if write_glance_section():
            log(f"generated {GLANCE_SECTION.relative_to(REPO)}")
        if write_benchmarks_section():
            log(f"generated {BENCHMARKS_SECTION.relative_to(REPO)}")
        if write_plans_section():
            log(f"generated {PLANS_SECTION.relative_to(REPO)}")
        if write_precision_section():
            log(f"generated {PRECISION_SECTION.relative_to(REPO)}")
        chapters, toc_changed = write_toc()
        log(f"table of contents: intro, {', '.join(chapters) or '(no chapters)'}"
            f"{', ' if static_pages() else ''}{', '.join(static_pages())}")
        # --strict rebuilds every page, since an incremental build repeats no old warning
        run_jupyter_book(strict=args.strict, rebuild_all=args.strict or toc_changed
                         or not (HTML_DIR / "index.html").is_file())
        check_offline()
    except BuildError as err:
        log(f"ERROR: {err}")
        return 1
    log(f"book built in {time.perf_counter() - start:.0f} s: {HTML_DIR / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
