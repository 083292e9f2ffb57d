"""Run the full-scale queue on a lent GPU in slices that fit one command, losing nothing.

One call of this script, run from the repository root on the GPU machine:

1. restores ``data/results/full/`` and ``data/results/rerun/full/`` (tables, provenance, the
   point cache and the paused loop states; :data:`PACKED_TREES`) from the archives a previous
   call packed, when they were carried along (``--restore PATH ...``);
2. runs the CUDA tests first (``pytest -m cuda``) when a GPU is present, and stops if they fail;
3. runs the queue in order (:data:`QUEUE`: Mahdavi et al. Figs. 2a, 2b, 2c, 4, 3, 5; Kajitsuka &
   Sato Fig. 7, Figs. 1/2 and 4/5, the sweep over n; Dana et al. Experiment 5 and App. B; then
   Mahdavi et al. Tables 1 and 3, whose rank tests use the machine's CPU cores), each experiment
   with ``memnb run ... --time-limit`` set to the time left, so that the whole call ends within
   ``--budget`` seconds; an experiment stopped at its limit keeps every finished point in the
   cache and the queue stops there;
4. packs both folders into one archive under ``--out`` (``$OUT`` on the device machine), with
   a log of what ran and the list of files the call removed (a rerun adopted: its table,
   provenance and point cache leave ``rerun/full/``), which the restore removes too. The loop
   states of groups paused at the time limit
   (``.cache/<experiment>/paused/`` of either folder, :mod:`memnb.resume`) go into a second archive,
   ``paused.tar.gz``, cut into parts that each fit what one file can bring back; states too large
   to be carried to the next call are left out (logged), and their groups restart there. One
   packed Mahdavi et al. Fig. 2a group at T = 40,000 pauses at 62 MiB: packed with the results,
   it made the one archive too large to come back, and every point of that call was lost.

Rerun the same call, carrying the archives it packed, until the log says the queue is done. An
experiment whose full result is already complete (here, or in the checkout, e.g. a CPU run) is
skipped: the queue neither spends GPU time recomputing it nor replaces its table with a partial
one when its slice runs out. So is one whose run was computed by today's code on the CPU with
its points committed (a CPU run continued across sessions): a GPU would add its own arithmetic to
that table (:func:`memnb.results.mixed_device_error`). One whose committed table is partial and
of earlier code, or was computed under an earlier profile (:func:`rerun_due`), is run as a rerun
(``memnb run ... --rerun``, :mod:`memnb.reruns`); a complete table of earlier code under today's
profile counts as complete, and is replaced only by hand (``memnb run NAME --profile full
--rerun``). A rerun computes in ``data/results/rerun/full/``, which travels
between calls like ``full/``, while the committed table stays where the chapters read it; the
call that completes the rerun adopts it. A plain run would move the committed table aside at its
first partial write. A rerun continued on the CPU (its points committed) is skipped too.

    python3 scripts/gpu_queue.py --restore .cache/gpu_queue/results_full.tar.gz \
        .cache/gpu_queue/paused.tar.gz --out "$OUT"
    (carry .cache/gpu_queue; any ignored path works, e.g. one listed in .git/info/exclude)
    python3 scripts/gpu_queue.py --unpack-only --restore PATH ...   # here, after a call

``--bench`` first runs ``benchmarks/bench_sweep.py`` on the device and ``--plan`` writes the cost
plan of every experiment there (``scripts/plan_table.py``), both into ``--out``; their time comes
out of the budget.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "data" / "results"
RESULTS_FULL = RESULTS / "full"
PACKED_TREES: tuple[str, ...] = ("full", "rerun/full")
"""The folders under ``data/results/`` a call restores and packs: the full-scale results, and
the reruns of full-scale results under way (:func:`memnb.reruns.rerun_root`)."""
REMOVED_NAME = "removed.json"
"""The archive member listing the files (paths under ``data/results/``) the call removed, so
that a restore removes them too: e.g. the rerun folder's table and point cache once adopted."""
ARCHIVE_NAME = "results_full.tar.gz"
PAUSED_NAME = "paused.tar.gz"  # the loop states of paused groups, packed apart from the results
RETURN_FILE_BYTES = 16 * 2**20  # the most one file under $OUT can bring back
PART_BYTES = 15 * 2**20  # a part of the paused archive, under RETURN_FILE_BYTES
PAUSED_MAX_BYTES = 40 * 2**20
"""The largest paused archive kept when :func:`travel_room` cannot measure the room (no git
checkout here): a call sends at most 64 MiB (the checkout, the wheels and the archives
together), so a larger state could come back but never travel to the next call."""
SEND_LIMIT_BYTES = 64 * 2**20  # what one call may send: the checkout and the carried paths
RETURN_FILES = 8  # the most files one call can bring back from $OUT
TRAVEL_MARGIN_BYTES = 2 * 2**20
"""Room kept for what the next call sends beyond this one: the point files and provenance of
the commit that records this call's results (a few hundred KiB for a Mahdavi et al. group)."""

QUEUE: tuple[str, ...] = (
    "mahdavi.heads",         # Fig. 2a
    "mahdavi.context",       # Fig. 2b
    "mahdavi.head_dim",      # Fig. 2c
    "mahdavi.nonshared",     # Fig. 4
    "mahdavi.saturation",    # Fig. 3
    "mahdavi.regression",    # Fig. 5
    "kajitsuka.capacity",    # Fig. 7
    "kajitsuka.mnli_curves",  # Figs. 1 and 2
    "kajitsuka.imdb_curves",  # Figs. 4 and 5
    "kajitsuka.seq_len",     # the sweep over n
    "dana.exp5",             # Experiment 5
    "dana.appendix_dim",     # App. B.1, Figs. 5-7
    "dana.appendix_depth",   # App. B.2, Figs. 8-10
    # CPU-bound rank tests (5,000 draws, Fig. 1's k grid): hours on a 2-core CPU, and the lent
    # machine's 16 cores are idle while it holds the GPU; they need the ImageNet sample and the
    # IMDb text under data/external/ and the offline ViT/BERT weights in the carried venv
    "mahdavi.table1",        # Table 1, Fig. 1
    "mahdavi.table3",        # Table 3
)
"""The order of issue "paper-scale results": the experiments no CPU run can reach."""

PARTIAL = 3  # exit code of `memnb run` stopped at its time limit


def is_paused_state(path: Path, tree: Path) -> bool:
    """Whether ``path`` is the loop state of a paused group (``.cache/<name>/paused/...`` of
    ``tree``)."""
    return "paused" in path.relative_to(tree).parts[:-1]


def files_to_pack(results: Path, *, paused: bool = False) -> list[Path]:
    """The files of the :data:`PACKED_TREES` below ``results`` (``data/results/``) that
    :func:`pack` writes, sorted: the tables, provenance and point cache, or with ``paused`` only
    the loop states of paused groups; never the records of this machine's calls
    (``.cache/.calls/``, :class:`memnb.profile_calls.ProfileCalls`)."""
    return sorted(p for tree in PACKED_TREES if (results / tree).is_dir()
                  for p in (results / tree).rglob("*")
                  if p.is_file() and is_paused_state(p, results / tree) == paused
                  and ".calls" not in p.relative_to(results / tree).parts)  # this machine's


def listed(results: Path) -> set[str]:
    """The paths (relative to ``results``) of :func:`files_to_pack`, the paused states aside:
    taken when a call starts, they tell :func:`pack` which files the call removed."""
    return {p.relative_to(results).as_posix() for p in files_to_pack(results)}


def pack(results: Path, archive: Path, *, paused: bool = False,
         removed: Sequence[str] = ()) -> Path:
    """Write :func:`files_to_pack` of ``results`` into ``archive`` (gzip-compressed tar, paths
    relative to ``results``, e.g. ``full/dana.exp5.csv``), with the list ``removed`` (paths
    relative to ``results`` the call removed) as the member :data:`REMOVED_NAME`."""
    archive.parent.mkdir(parents=True, exist_ok=True)
    tmp = archive.with_name(archive.name + ".tmp")
    with tarfile.open(tmp, "w:gz") as tar:
        for path in files_to_pack(results, paused=paused):
            tar.add(path, arcname=path.relative_to(results).as_posix(), recursive=False)
        if removed:
            data = json.dumps(sorted(removed), indent=1).encode()
            info = tarfile.TarInfo(REMOVED_NAME)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    os.replace(tmp, archive)
    return archive


def split(archive: Path, part_bytes: int = PART_BYTES) -> list[Path]:
    """Cut ``archive`` into ``<name>.part0``, ``.part1``, ... of at most ``part_bytes`` each
    (the archive is removed), or leave it whole if it fits one part; returns the files."""
    size = archive.stat().st_size
    if size <= part_bytes:
        return [archive]
    parts = []
    with archive.open("rb") as fh:
        for k in range(-(-size // part_bytes)):
            part = archive.with_name(f"{archive.name}.part{k}")
            part.write_bytes(fh.read(part_bytes))
            parts.append(part)
    archive.unlink()
    return parts


def joined(archive: Path) -> Path | None:
    """``archive`` itself if it exists, else its parts (:func:`split`) joined into one file
    beside them; None if neither is there."""
    if archive.exists():
        return archive
    parts = sorted(archive.parent.glob(f"{archive.name}.part*"),
                   key=lambda p: int(p.name.rsplit(".part", 1)[1]))
    if not parts:
        return None
    whole = archive.with_name(archive.name + ".joined")
    with whole.open("wb") as out:
        for part in parts:
            out.write(part.read_bytes())
    return whole


def tracked_bytes(repo: Path = REPO) -> int | None:
    """Bytes of the files git tracks in ``repo`` (what every call sends), or None when ``repo``
    is no git checkout (then :func:`travel_room` falls back to :data:`PAUSED_MAX_BYTES`)."""
    listed = subprocess.run(["git", "-C", str(repo), "ls-files", "-z"], capture_output=True)
    if listed.returncode != 0:
        return None
    paths = [repo / p for p in listed.stdout.decode().split("\0") if p]
    return sum(p.stat().st_size for p in paths if p.is_file())


def is_archive(path: Path) -> bool:
    """Whether ``path`` is an archive of a queue call (the results, the paused states or their
    parts): the next call carries its own in their place."""
    return path.name.startswith((ARCHIVE_NAME, PAUSED_NAME))


def travel_room(carried: Sequence[Path], out: Path, repo: Path = REPO, *,
                part_bytes: int = PART_BYTES) -> int:
    """Bytes the paused archive may take and still reach the next call, measured here.

    Sending: the 64 MiB a call sends, less the tracked files of ``repo``, the carried folders
    (``carried``: where the restored archives came from, e.g. ``.gpu/`` with its wheels and
    clone) without their old archives, every file already under ``out`` (the results archive
    travels next time too) and :data:`TRAVEL_MARGIN_BYTES`. Bringing back: the parts
    (``part_bytes`` each) that fit the :data:`RETURN_FILES` files ``out`` may hold, less those
    there now and the log still to be written. The smaller of the two; :data:`PAUSED_MAX_BYTES`
    where ``repo`` is no git checkout. A fixed 40 MiB limit dropped a 41.8 MiB Fig. 2a state
    that this measure lets through when the text data stay behind (``--no-text``).
    """
    tracked = tracked_bytes(repo)
    if tracked is None:
        return PAUSED_MAX_BYTES
    folders = {c.parent.resolve() for c in carried if c.parent.resolve() != repo.resolve()}
    carried_bytes = sum(p.stat().st_size for folder in folders if folder.is_dir()
                        for p in folder.rglob("*") if p.is_file() and not is_archive(p))
    out_files = [p for p in out.iterdir() if p.is_file()] if out.is_dir() else []
    sending = (SEND_LIMIT_BYTES - tracked - carried_bytes
               - sum(p.stat().st_size for p in out_files) - TRAVEL_MARGIN_BYTES)
    returning = (RETURN_FILES - len(out_files) - 1) * part_bytes
    return max(0, min(sending, returning))


def pack_paused(results: Path, out: Path, *, max_bytes: int = PAUSED_MAX_BYTES,
                part_bytes: int = PART_BYTES) -> dict[str, Any]:
    """Pack the paused loop states of ``results`` into ``out/paused.tar.gz`` (cut into parts
    that one file each can bring back), or leave them out when the archive is larger than
    ``max_bytes``; returns what was done, for the log."""
    states = [p.relative_to(results).as_posix() for p in files_to_pack(results, paused=True)]
    if not states:
        return {"states": [], "files": []}
    archive = pack(results, out / PAUSED_NAME, paused=True)
    size = archive.stat().st_size
    if size > max_bytes:
        archive.unlink()
        return {"states": states, "files": [], "bytes": size,
                "left_out": f"{size / 2**20:.1f} MiB packed, more than the "
                            f"{max_bytes / 2**20:.0f} MiB that can travel to the next call: "
                            "these groups restart there"}
    return {"states": states, "files": [p.name for p in split(archive, part_bytes)],
            "bytes": size}


def _packed_path(name: str, results: Path) -> Path:
    """``results / name`` when ``name`` is a relative path inside one of the
    :data:`PACKED_TREES`, else ``ValueError``: an absolute path, ``..``, or a path outside them
    (an archive of another layout, such as one packed relative to ``full/``)."""
    for tree in PACKED_TREES:
        root = (results / tree).resolve()
        target = (results / name).resolve()
        if (not Path(name).is_absolute() and name.startswith(f"{tree}/")
                and target.is_relative_to(root) and target != root):
            return results / name
    raise ValueError(f"archive member {name!r} is not a file inside "
                     f"{' or '.join(f'{t}/' for t in PACKED_TREES)} of the results folder; "
                     "nothing restored")


def removed_files(at_start: set[str], at_end: set[str], carried: set[str]) -> list[str]:
    """The files a call's archive lists as removed (:data:`REMOVED_NAME`), sorted: those of
    :func:`listed` at its start that are gone at its end, and those the archives it restored
    listed (``carried``: removed by earlier calls) that are still absent, so that a checkout
    that unpacks only the last archive removes what every call removed."""
    return sorted((at_start - at_end) | {r for r in carried if r not in at_end})


def _listed_removals(tar: tarfile.TarFile) -> list[str]:
    """The paths the member :data:`REMOVED_NAME` of an open archive lists (none without it);
    ``ValueError`` when it is not a list of paths."""
    if REMOVED_NAME not in tar.getnames():
        return []
    source = tar.extractfile(REMOVED_NAME)
    assert source is not None
    listed_paths = json.loads(source.read())
    if not (isinstance(listed_paths, list) and all(isinstance(r, str) for r in listed_paths)):
        raise ValueError(f"{REMOVED_NAME} is not a list of paths; nothing restored")
    return listed_paths


def removals(archive: Path) -> list[str]:
    """The paths :data:`REMOVED_NAME` of ``archive`` lists (none when it has no such member)."""
    with tarfile.open(archive, "r:gz") as tar:
        return _listed_removals(tar)


def restore(archive: Path, results: Path) -> tuple[list[str], list[str]]:
    """Unpack ``archive`` (made by :func:`pack`) into ``results`` (``data/results/``), then
    remove the files its :data:`REMOVED_NAME` lists; returns the files written and those
    removed.

    Only regular files inside the :data:`PACKED_TREES` are accepted, written or removed:
    anything else (an absolute path, ``..``, a link, a path outside them) raises ``ValueError``
    before a file is written.
    """
    with tarfile.open(archive, "r:gz") as tar:
        members = [m for m in tar.getmembers() if m.name != REMOVED_NAME]
        for member in members:
            _packed_path(member.name, results)
            if not member.isfile():
                raise ValueError(f"archive member {member.name!r} is not a regular file; "
                                 "nothing restored")
        removed = _listed_removals(tar)
        for name in removed:
            _packed_path(name, results)
        written = {m.name for m in members}
        for member in members:
            target = results / member.name
            target.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            assert source is not None
            tmp = target.with_name(target.name + ".restoring")
            tmp.write_bytes(source.read())
            os.replace(tmp, target)
    gone = []
    for name in removed:
        target = results / name
        if name not in written and target.is_file():
            target.unlink()
            gone.append(name)
            for folder in target.parents:  # a point cache moved away leaves no empty folder
                if folder == results or any(folder.iterdir()):
                    break
                folder.rmdir()
    return [m.name for m in members], gone


@dataclass
class Step:
    """One command of the queue and how it ended."""

    name: str
    command: list[str]
    returncode: int | None
    seconds: float
    time_limit_s: float | None = None
    tail: str = ""
    skipped: str | None = None  # why it did not run: "complete" or "another device"


Runner = Callable[[list[str], float], tuple[int, str]]


def _checkout_importable() -> None:
    """Make ``memnb`` importable from this checkout (the script runs as a script, where only
    ``scripts/`` is on the path); the imports stay inside the functions, since packing and
    restoring need no torch."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))


def complete_result(name: str, results: Path = RESULTS_FULL) -> bool:
    """Whether ``results`` holds a complete full result of ``name``: its table, and a provenance
    neither marked ``complete: false`` nor computed under an earlier full profile
    (:func:`memnb.provenance.partial_summary`; an unreadable provenance counts as not complete)."""
    table, provenance = results / f"{name}.csv", results / f"{name}.json"
    if not (table.exists() and provenance.exists()):
        return False
    _checkout_importable()
    from memnb.provenance import partial_summary  # here: the rest of the script needs no torch

    try:
        return partial_summary(json.loads(provenance.read_text(encoding="utf-8"))) is None
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False


def other_device_run(name: str, device: str, results: Path = RESULTS_FULL) -> str | None:
    """Why ``memnb run`` of ``name`` on ``device`` would be refused, or ``None``: the run recorded
    in ``results`` was computed by today's code on another kind of device and its points are
    cached (:func:`memnb.results.mixed_device_error`; e.g. a CPU run continued across
    sessions), so that it is continued there, never in a table of two devices' arithmetic."""
    _checkout_importable()
    from memnb.results import mixed_device_error

    return mixed_device_error(name, "full", device, results.parent)


def other_device_rerun(name: str, device: str, results: Path = RESULTS_FULL) -> str | None:
    """:func:`other_device_run` for the rerun of ``name`` under way beside ``results``
    (``data/results/rerun/full/``, :func:`memnb.reruns.rerun_root`): a rerun continued on the
    CPU with its points committed stays there."""
    return other_device_run(name, device, results.parent / "rerun" / results.name)


def rerun_due(name: str, results: Path = RESULTS_FULL) -> str | None:
    """Why the committed full table of ``name`` in ``results`` must be replaced by a rerun
    (:func:`memnb.reruns.rerun_reason`: computed by earlier code or under an earlier profile),
    or ``None`` (no table, or one of today's code and profile). A plain ``memnb run`` would
    move such a table aside at its first partial write, so the chapters would read a partial
    table of today's code instead; the queue runs ``memnb run --rerun``, which computes beside
    it in ``rerun/full/`` (packed with ``full/``) and adopts the rerun when it is complete."""
    provenance = results / f"{name}.json"
    if not provenance.exists():
        return None
    _checkout_importable()
    from memnb.reruns import rerun_reason

    try:
        return rerun_reason(name, json.loads(provenance.read_text(encoding="utf-8")))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None


def _subprocess_runner(command: list[str], timeout: float) -> tuple[int, str]:
    """Run ``command`` from the repository root; (exit code, last lines of its output)."""
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "PYTHONUNBUFFERED": "1", "TQDM_DISABLE": "1"}
    try:
        done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired as err:
        out = (err.stdout or b"").decode() if isinstance(err.stdout, bytes) else (err.stdout or "")
        return 124, out[-2000:]
    return done.returncode, (done.stdout + done.stderr)[-2000:]


def run_queue(queue: Sequence[str], *, budget_s: float, device: str, reserve_s: float = 45.0,
              min_slice_s: float = 30.0, runner: Runner = _subprocess_runner,
              cuda_tests: bool = True, clock: Callable[[], float] = time.monotonic,
              complete: Callable[[str], bool] = complete_result,
              other_device: Callable[[str, str], str | None] = other_device_run,
              rerun: Callable[[str], str | None] = rerun_due,
              other_device_for_rerun: Callable[[str, str], str | None] = other_device_rerun
              ) -> tuple[list[Step], str]:
    """Run the CUDA tests (if asked), then each experiment of ``queue`` that is not
    ``complete`` already, nor a run of ``other_device`` to be continued there (both logged as
    skipped, with the reason), with a time limit that keeps the whole call within ``budget_s``
    seconds (``reserve_s`` kept for packing). A table due for a ``rerun`` (:func:`rerun_due`)
    is run with ``--rerun``, unless its rerun is one of ``other_device_for_rerun``.

    Returns the steps and how the queue ended: ``done``, ``out of time`` (an experiment stopped
    at its limit, or less than ``min_slice_s`` was left), ``missing packages`` (the chapters do
    not import here), ``cuda tests failed``, or ``failed: NAME, ...`` when an experiment's run
    ended with another exit code (an error, not a pause: the queue goes on with the next one,
    and the call ends as not done).
    """
    start = clock()
    steps: list[Step] = []
    python = sys.executable
    command = [python, "-c", "from memnb.experiments.registry import load_all; load_all()"]
    t0 = clock()
    code, tail = runner(command, 120.0)
    steps.append(Step("imports", command, code, clock() - t0, tail=tail))
    if code != 0:  # e.g. optuna is not in the GPU image: carry its wheels (see the device notes)
        return steps, "missing packages"
    if cuda_tests:
        marked = sorted(str(p.relative_to(REPO)) for p in (REPO / "tests").glob("test_*.py")
                        if "mark.cuda" in p.read_text(encoding="utf-8"))
        command = [python, "-m", "pytest", "-p", "no:xdist", "-q", "-m", "cuda", *marked]
        t0 = clock()
        code, tail = runner(command, max(budget_s - reserve_s, 1.0))
        steps.append(Step("cuda tests", command, code, clock() - t0, tail=tail))
        if code != 0:
            return steps, "cuda tests failed"
    failed: list[str] = []
    for name in queue:
        if complete(name):
            steps.append(Step(name, [], None, 0.0, tail="complete already: skipped",
                              skipped="complete"))
            continue
        elsewhere = other_device(name, device)
        if elsewhere is not None:
            steps.append(Step(name, [], None, 0.0, tail=f"skipped: {elsewhere}",
                              skipped="another device"))
            continue
        due = rerun(name)
        if due is not None:
            elsewhere = other_device_for_rerun(name, device)
            if elsewhere is not None:
                steps.append(Step(name, [], None, 0.0, tail=f"skipped: its rerun: {elsewhere}",
                                  skipped="another device"))
                continue
        left = budget_s - reserve_s - (clock() - start)
        if left < min_slice_s:
            return steps, _ended("out of time", failed)
        command = [python, "-m", "memnb.cli", "run", name, "--profile", "full", "--device",
                   device, "--time-limit", f"{left:.0f}", *(["--rerun"] if due else [])]
        t0 = clock()
        code, tail = runner(command, left + 30.0)  # a hard stop past the clean one
        if due is not None:
            tail = f"a rerun: the committed table was {due}\n{tail}"
        steps.append(Step(name, command, code, clock() - t0, left, tail))
        if code in (PARTIAL, 124):
            return steps, _ended("out of time", failed)
        if code != 0:
            failed.append(name)
    return steps, _ended("done", failed)


def _ended(outcome: str, failed: Sequence[str]) -> str:
    """How the queue ended: ``outcome``, or ``failed: NAME, ...`` when runs ended with an error
    (followed by ``; out of time`` when a later one was stopped at its limit)."""
    if not failed:
        return outcome
    return f"failed: {', '.join(failed)}" + ("" if outcome == "done" else f"; {outcome}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--restore", type=Path, nargs="*", default=[],
                        help="archives packed by an earlier call (each restored if it, or its "
                             "parts, exist): results_full.tar.gz and paused.tar.gz")
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "gpu_out")),
                        help="folder for the archive and the log (default $OUT)")
    parser.add_argument("--budget", type=float, default=540.0,
                        help="seconds the whole call may take (default 540, under 9 minutes)")
    parser.add_argument("--device", default=None, help="default: cuda when available")
    parser.add_argument("--only", nargs="*", default=None, help="run these experiments instead")
    parser.add_argument("--unpack-only", action="store_true",
                        help="only restore the archive (e.g. here, after a call)")
    parser.add_argument("--allow-cpu", action="store_true",
                        help="run the queue without a GPU (full profiles take days there)")
    parser.add_argument("--bench", action="store_true",
                        help="first run benchmarks/bench_sweep.py on this device (its output "
                             "goes to --out as bench_sweep.txt, its record as "
                             "bench_sweep.DEVICE.json, to be committed to data/benchmarks/)")
    parser.add_argument("--plan", action="store_true",
                        help="first write the cost plan of every experiment on this device "
                             "(scripts/plan_table.py) into --out as full.DEVICE.json, to be "
                             "committed to data/plans/")
    args = parser.parse_args(argv)
    if args.only:  # checked before any device time is spent
        _checkout_importable()
        from memnb.experiments.registry import load_all

        try:
            known = load_all()
        except ImportError:  # a package missing here: the queue's own check logs it
            known = None
        unknown = [] if known is None else [n for n in args.only if n not in known]
        if unknown:
            parser.error(f"--only takes registered experiments (`memnb list`; the queue: "
                         f"{', '.join(QUEUE)}); got {', '.join(unknown)}")

    carried_removals: set[str] = set()  # what earlier calls removed: listed again when packing
    for carried in args.restore:
        archive = joined(carried)
        if archive is None:
            print(f"no archive at {carried}: nothing restored from it")
            continue
        files, gone = restore(archive, RESULTS)
        carried_removals.update(removals(archive))
        print(f"restored {len(files)} files from {carried}"
              + (f"; removed {len(gone)} the call removed: {', '.join(gone)}" if gone else ""))
        if archive != carried:
            archive.unlink()
    if args.unpack_only:
        return 0
    at_start = listed(RESULTS)

    import torch

    gpu = torch.cuda.is_available()
    device = args.device or ("cuda" if gpu else "cpu")
    if device == "cpu" and not args.allow_cpu:
        print("no GPU here: the full-scale queue is meant for one (use --allow-cpu to insist)")
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    budget = args.budget
    if args.bench:
        t0 = time.monotonic()
        code, tail = _subprocess_runner(
            [sys.executable, "benchmarks/bench_sweep.py", "--device", device, "--record",
             str(args.out.resolve() / f"bench_sweep.{device.split(':')[0]}.json")], 240.0)
        (args.out / "bench_sweep.txt").write_text(f"exit {code}\n{tail}\n")
        print(f"bench_sweep: exit {code}")
        budget -= time.monotonic() - t0
    if args.plan:
        t0 = time.monotonic()
        code, tail = _subprocess_runner(
            [sys.executable, "scripts/plan_table.py", "--device", device, "--out",
             str(args.out.resolve() / f"full.{device.split(':')[0]}.json")], 180.0)
        print(f"plan: exit {code}\n{tail}")
        budget -= time.monotonic() - t0
    steps, outcome = run_queue(args.only or QUEUE, budget_s=budget, device=device,
                               cuda_tests=gpu)
    removed = removed_files(at_start, listed(RESULTS), carried_removals)
    archive = pack(RESULTS, args.out / ARCHIVE_NAME, removed=removed)
    paused = pack_paused(RESULTS, args.out, max_bytes=travel_room(args.restore, args.out))
    log = {"outcome": outcome, "device": torch.cuda.get_device_name() if gpu else "cpu",
           "steps": [asdict(s) for s in steps], "archive_bytes": archive.stat().st_size,
           "removed": removed, "paused": paused}
    (args.out / "queue_log.json").write_text(json.dumps(log, indent=1))
    for s in steps:
        ended = f"exit {s.returncode}" if s.skipped is None else f"skipped ({s.skipped})"
        print(f"{s.name:24s} {ended}  {s.seconds:7.1f} s")
    print(f"queue: {outcome}; {archive} ({archive.stat().st_size / 2**20:.1f} MiB)")
    if paused["states"]:
        print(f"paused groups: {len(paused['states'])}; "
              + (paused.get("left_out") or f"{', '.join(paused['files'])} "
                 f"({paused['bytes'] / 2**20:.1f} MiB)"))
    if archive.stat().st_size > RETURN_FILE_BYTES:
        print(f"warning: the archive is over {RETURN_FILE_BYTES // 2**20} MiB, the most one "
              "file can bring back")
    if outcome.startswith("failed"):  # an error outranks a pause
        return 1
    return 0 if outcome == "done" else PARTIAL


if __name__ == "__main__":
    raise SystemExit(main())
