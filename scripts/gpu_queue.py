"""Run the full-scale queue on a lent GPU in slices that fit one command, losing no finished point.

One call of this script, run from the repository root on the GPU machine:

1. records the base of the call: the SHA-256 of every file of ``data/results/full/`` and
   ``data/results/rerun/full/`` (tables, provenance, the point cache and the paused loop states;
   :data:`PACKED_TREES`) as the checkout was sent, and the commit checked out;
2. restores those folders from the archives a previous call packed, when they were carried
   along (``--restore PATH ...``), file by file against each archive's manifest
   (:func:`restore`): a file still at the archive's base takes the archive's version, one
   already at its new version is left, and one changed here since that base (a correction
   committed, a CPU run, a re-keyed cache) stops the call before anything is written or run
   (``--force`` takes the archive's versions anyway; an archive without a manifest, of an older
   version of this script, is refused unless ``--force``);
3. runs the CUDA tests first (``pytest -m cuda``) when a GPU is present, and stops if they fail;
   a call on a warm machine that already passed them for the same code, GPU, torch and
   installed packages skips them (:class:`CudaTestsStamp`, ``.gpu-state/``; ``--recheck-cuda``
   runs them anyway);
4. runs the queue in order (:data:`QUEUE`: Mahdavi et al. Figs. 2a, 2b, 2c, 4, 3, 5; Kajitsuka &
   Sato Fig. 7, Figs. 1/2 and 4/5, the sweep over n; Dana et al. Experiment 5 and App. B; then
   Mahdavi et al. Tables 1 and 3, whose rank tests use the machine's CPU cores), each experiment
   with ``memnb run ... --time-limit`` set to the time left, so that the whole call ends within
   ``--budget`` seconds counted from ``--started`` (the epoch second the device command began,
   its setup included; default: when this script started); an experiment stopped at its limit
   keeps every finished point in the cache and the queue stops there; one still running
   :data:`HARD_STOP_S` past its limit is sent SIGTERM (``memnb run`` then pauses its groups and
   saves their loop states, :mod:`memnb.resume`) and, :data:`GRACE_S` later, SIGKILL;
5. packs, whatever ended the queue (an error included), the files of both folders that changed,
   appeared or were removed since the base into one archive under ``--out`` (``$OUT`` on the
   device machine), with its manifest (:data:`MANIFEST_NAME`: per file the base and the new
   SHA-256, null where the file is absent) and a log of what ran. The base is taken before the
   restore, so the archive holds the changes of the archives it restored too: unpacking only the
   last call's archive here brings every call's results, and removes what they removed (a rerun
   adopted: its table, provenance and point cache leave ``rerun/full/``). The loop
   states of groups paused at the time limit
   (``.cache/<experiment>/paused/`` of either folder, :mod:`memnb.resume`) go into a second archive,
   ``paused.tar.gz`` (with a manifest too), cut into parts that each fit what one file can bring
   back; states too large to be carried to the next call are left out (logged), and their groups
   restart there. One packed Mahdavi et al. Fig. 2a group at T = 40,000 pauses at 62 MiB: packed
   with the results, it made the one archive too large to come back, and every point of that
   call was lost.

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

A restore here follows the same rule as on the device: a file of this checkout changed since the
archive's base, which the call changed too, is a conflict, and nothing is written
(``--force`` takes the archive's versions anyway).

``--bench`` first runs ``benchmarks/bench_sweep.py`` on the device and ``--plan`` writes the cost
plan of every experiment there (``scripts/plan_table.py``), both into ``--out``; their time comes
out of the budget.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "data" / "results"
RESULTS_FULL = RESULTS / "full"
PACKED_TREES: tuple[str, ...] = ("full", "rerun/full")
"""The folders under ``data/results/`` a call restores and packs: the full-scale results, and
the reruns of full-scale results under way (:func:`memnb.reruns.rerun_root`)."""
MANIFEST_NAME = "manifest.json"
"""The archive member that says what the call changed (:func:`manifest`): per packed path (under
``data/results/``) its SHA-256 at the call's base and at its end (null where absent); a path
whose end is null was removed (e.g. the rerun folder's table and point cache once adopted)."""
MANIFEST_FORMAT = 1
REMOVED_NAME = "removed.json"
"""The member listing the removed files in archives of an earlier version of this script,
which packed every file and had no manifest: read only when such an archive is forced."""
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
RESTORE_REFUSED = 4  # exit code of a call whose restore was refused (a conflict, no manifest)
RESERVE_S = 45.0  # seconds kept at the end of the budget for packing
HARD_STOP_S = 30.0  # how long a run may go past its --time-limit before it is sent SIGTERM
GRACE_S = 20.0  # how long a run sent SIGTERM has to save its state before SIGKILL
DEVICE_LIMIT_S = 600.0  # the most one device command may run
DEFAULT_BUDGET_S = 490
"""The budget of a device call, counted from ``--started`` (the command's first second): its
setup, restore, runs and packing. Worst case: the last run gets the time left less
:data:`RESERVE_S` as its limit, overruns it by :data:`HARD_STOP_S` (30 s) before SIGTERM and by
:data:`GRACE_S` (20 s) more before SIGKILL, and packing takes the whole reserve, so the call ends
by 490 - 45 + 30 + 20 + 45 = 540 s, 60 s under the device's 600 s limit
(:data:`DEVICE_LIMIT_S`). A run that honours its limit ends the call by about 490 s."""

CUDA_TESTS_STAMP = Path(".gpu-state") / "cuda_tests_passed.json"
"""Where, below the checkout, a call that passed the CUDA tests records what it tested
(:class:`CudaTestsStamp`), in an ignored folder that a warm device machine keeps between calls
and a fresh one lacks."""
TESTED_CODE: tuple[str, ...] = ("memnb", "tests")  # the code whose CUDA tests the stamp vouches


def tested_code_digest(repo: Path = REPO, roots: Sequence[str] = TESTED_CODE) -> str:
    """The SHA-256 over the relative path and content of every ``.py`` file below ``roots``
    of ``repo``: changes when the code the CUDA tests exercise, or the tests, change."""
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted((repo / root).rglob("*.py")):
            digest.update(path.relative_to(repo).as_posix().encode() + b"\0")
            digest.update(sha256_file(path).encode())
    return digest.hexdigest()


def installed_packages_digest() -> str:
    """The SHA-256 over the sorted ``name==version`` of every package installed in the running
    Python environment: changes when any carried wheel (torch, numpy, ...) is another."""
    _checkout_importable()
    from memnb.provenance import installed_packages  # the pins a chapter's build key hashes

    return hashlib.sha256("\n".join(sorted(installed_packages())).encode()).hexdigest()


@dataclass(frozen=True)
class CudaTestsStamp:
    """The CUDA tests passed on this machine for this code: a later call of the same code on
    the same GPU, torch and installed packages (a warm device machine) skips them, so that they
    take time from the first slice of a machine only; any other call (a fresh machine, changed
    code or tests, another torch or any other package) runs them."""

    path: Path
    identity: Mapping[str, str]  # the device, torch, the packages and the tested code's digests

    @classmethod
    def here(cls, device_name: str, torch_version: str, repo: Path = REPO,
             packages_sha256: str | None = None) -> CudaTestsStamp:
        """The stamp a call of the checkout ``repo`` writes for ``device_name`` and
        ``torch_version``, with the installed packages' digest (default: of this environment,
        :func:`installed_packages_digest`)."""
        return cls(repo / CUDA_TESTS_STAMP,
                   {"device": device_name, "torch": torch_version,
                    "packages_sha256": packages_sha256 or installed_packages_digest(),
                    "code_sha256": tested_code_digest(repo)})

    def passed_before(self) -> str | None:
        """When an earlier call passed the tests of this identity (its record's time), or None
        when no record matches (none, another identity, or unreadable)."""
        try:
            record = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(record, dict) or record.get("identity") != dict(self.identity):
            return None
        return str(record.get("passed_at", "an earlier call"))

    def record(self) -> None:
        """Record that the tests of this identity passed now."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps({
            "identity": dict(self.identity),
            "passed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, indent=1) + "\n",
            encoding="utf-8")


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


def sha256_file(path: Path) -> str:
    """The SHA-256 of the file at ``path``, in hexadecimal."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(2**20), b""):
            digest.update(block)
    return digest.hexdigest()


def snapshot(results: Path) -> dict[str, str]:
    """The SHA-256 of every file of the :data:`PACKED_TREES` below ``results`` that
    :func:`pack` may write (the paused states included, this machine's call records not), by
    path relative to ``results``: taken when a call starts, before any restore, it is the base
    its archive is packed against."""
    return {p.relative_to(results).as_posix(): sha256_file(p)
            for paused in (False, True) for p in files_to_pack(results, paused=paused)}


def head_commit(repo: Path = REPO) -> str | None:
    """The commit checked out in ``repo`` (None when it is no git checkout): recorded with the
    base of a call."""
    done = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True,
                          text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def _is_paused_name(name: str) -> bool:
    """:func:`is_paused_state` for a path relative to ``data/results/`` (e.g. one a manifest
    lists, whose file may be gone)."""
    for tree in PACKED_TREES:
        if name.startswith(f"{tree}/"):
            return "paused" in Path(name[len(tree) + 1:]).parts[:-1]
    return False


def manifest(results: Path, base: Mapping[str, str], *, paused: bool = False
             ) -> dict[str, dict[str, str | None]]:
    """What changed in ``results`` since ``base`` (:func:`snapshot` at the call's start), sorted
    by path: each file of :func:`files_to_pack` (with ``paused``, only the paused states;
    without, none of them) whose SHA-256 differs from its base, that appeared, or that was
    removed, as ``{"base": hash or None, "new": hash or None}``."""
    now = {p.relative_to(results).as_posix(): sha256_file(p)
           for p in files_to_pack(results, paused=paused)}
    names = set(now) | {n for n in base if _is_paused_name(n) == paused}
    return {n: {"base": base.get(n), "new": now.get(n)} for n in sorted(names)
            if base.get(n) != now.get(n)}


def pack(results: Path, archive: Path, *, base: Mapping[str, str], paused: bool = False,
         base_commit: str | None = None) -> Path:
    """Write into ``archive`` (gzip-compressed tar, paths relative to ``results``, e.g.
    ``full/dana.exp5.csv``) the files of ``results`` that changed or appeared since ``base``
    (:func:`manifest`; with ``paused`` the paused loop states, without the rest), and the
    manifest as the member :data:`MANIFEST_NAME`: its format, ``base_commit`` and, per path,
    the base and new SHA-256 (a removed file has no member and a null new hash)."""
    changes = manifest(results, base, paused=paused)
    archive.parent.mkdir(parents=True, exist_ok=True)
    tmp = archive.with_name(archive.name + ".tmp")
    with tarfile.open(tmp, "w:gz") as tar:
        for name, change in changes.items():
            if change["new"] is not None:
                tar.add(results / name, arcname=name, recursive=False)
        data = json.dumps({"format": MANIFEST_FORMAT, "base_commit": base_commit,
                           "files": changes}, indent=1).encode()
        info = tarfile.TarInfo(MANIFEST_NAME)
        info.size = len(data)
        info.mtime = int(time.time())
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


def pack_paused(results: Path, out: Path, *, base: Mapping[str, str],
                max_bytes: int = PAUSED_MAX_BYTES, part_bytes: int = PART_BYTES,
                base_commit: str | None = None) -> dict[str, Any]:
    """Pack the paused loop states of ``results`` that changed, appeared or were removed since
    ``base`` (:func:`pack` with ``paused``; the states a call restored count as appeared, since
    its base is taken before the restore) into ``out/paused.tar.gz`` (cut into parts that one
    file each can bring back), or leave them out when the archive is larger than
    ``max_bytes``; returns what was done, for the log."""
    changes = manifest(results, base, paused=True)
    states = [n for n, c in changes.items() if c["new"] is not None]
    if not changes:
        return {"states": [], "files": []}
    archive = pack(results, out / PAUSED_NAME, base=base, paused=True, base_commit=base_commit)
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


class RestoreRefused(ValueError):
    """A restore that would overwrite or remove files changed here since the archive's base, or
    of an archive without a manifest: nothing was written. ``conflicts`` lists the paths."""

    def __init__(self, message: str, conflicts: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.conflicts = list(conflicts)


@dataclass
class Restored:
    """What a restore did, by path relative to ``data/results/``."""

    written: list[str]
    removed: list[str]
    unchanged: list[str]  # here already as the call left them


def _read_manifest(tar: tarfile.TarFile, results: Path) -> dict[str, Any] | None:
    """The manifest of an open archive (None without one, an archive of an earlier version of
    this script); ``ValueError`` when it is malformed or names a path outside the
    :data:`PACKED_TREES`."""
    if MANIFEST_NAME not in tar.getnames():
        return None
    source = tar.extractfile(MANIFEST_NAME)
    assert source is not None
    data = json.loads(source.read())
    files = data.get("files") if isinstance(data, dict) else None
    if (not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT
            or not isinstance(files, dict)
            or not all(isinstance(c, dict) and set(c) == {"base", "new"}
                       and all(h is None or isinstance(h, str) for h in c.values())
                       for c in files.values())):
        raise ValueError(f"{MANIFEST_NAME} is not a manifest of format {MANIFEST_FORMAT}; "
                         "nothing restored")
    for name in files:
        _packed_path(name, results)
    return data


def _listed_removals(tar: tarfile.TarFile) -> list[str]:
    """The paths the member :data:`REMOVED_NAME` of an open archive of an earlier version of
    this script lists (none without it); ``ValueError`` when it is not a list of paths."""
    if REMOVED_NAME not in tar.getnames():
        return []
    source = tar.extractfile(REMOVED_NAME)
    assert source is not None
    listed_paths = json.loads(source.read())
    if not (isinstance(listed_paths, list) and all(isinstance(r, str) for r in listed_paths)):
        raise ValueError(f"{REMOVED_NAME} is not a list of paths; nothing restored")
    return listed_paths


def _here(name: str, results: Path) -> str | None:
    """The SHA-256 of ``results / name`` here, None when there is no such file."""
    path = results / name
    return sha256_file(path) if path.is_file() else None


def _conflict_line(name: str, change: Mapping[str, str | None], here: str | None) -> str:
    """One line of a refused restore: how ``name`` differs here from the archive's base and
    what the call did to it."""
    if here is None:
        local = "removed here"
    elif change["base"] is None:
        local = "present here, absent at the base"
    else:
        local = "changed here since the base"
    call = ("removed by the call" if change["new"] is None else
            "added by the call" if change["base"] is None else "changed by the call")
    return f"  {name}: {local}; {call}"


def _plan(tar: tarfile.TarFile, archive: Path, results: Path, *, force: bool
          ) -> tuple[list[tarfile.TarInfo], list[str], list[str]]:
    """What restoring the open ``archive`` into ``results`` writes (members), removes and
    leaves (paths); raises :class:`RestoreRefused` (a conflict, no manifest) or ``ValueError``
    (a path outside the :data:`PACKED_TREES`, a link, a member the manifest does not match)
    before anything is written."""
    members = [m for m in tar.getmembers() if m.name not in (MANIFEST_NAME, REMOVED_NAME)]
    for member in members:
        _packed_path(member.name, results)
        if not member.isfile():
            raise ValueError(f"archive member {member.name!r} is not a regular file; "
                             "nothing restored")
    data = _read_manifest(tar, results)
    if data is None:
        removed = _listed_removals(tar)
        for name in removed:
            _packed_path(name, results)
        if not force:
            raise RestoreRefused(
                f"{archive} has no {MANIFEST_NAME}: it was packed by an earlier version of "
                "scripts/gpu_queue.py, which packed every file, so restoring it would put back "
                "its version of every file changed here since; nothing restored. Run a call "
                "again without it, or take all its files anyway with --force.")
        written = {m.name for m in members}
        return members, [n for n in removed if n not in written], []
    files: dict[str, dict[str, str | None]] = data["files"]
    by_name = {m.name: m for m in members}
    if set(by_name) != {n for n, c in files.items() if c["new"] is not None}:
        raise ValueError(f"the members of {archive} are not the files its {MANIFEST_NAME} "
                         "gives a new version; nothing restored")
    for name, member in by_name.items():
        source = tar.extractfile(member)
        assert source is not None
        if hashlib.sha256(source.read()).hexdigest() != files[name]["new"]:
            raise ValueError(f"archive member {name!r} does not match its SHA-256 in "
                             f"{MANIFEST_NAME}; nothing restored")
    write: list[tarfile.TarInfo] = []
    remove: list[str] = []
    unchanged: list[str] = []
    conflicts: list[str] = []
    for name, change in files.items():
        here = _here(name, results)
        if here == change["new"]:
            unchanged.append(name)
        elif here == change["base"] or force or (change["base"] is None
                                                 and _is_paused_name(name)):
            # a paused state never travels as a file of the checkout, so the machine's base
            # for it is always absent: one here is an earlier state of the same group (an
            # earlier call's, unpacked here), which the call's newer state replaces
            if change["new"] is None:
                remove.append(name)
            else:
                write.append(by_name[name])
        else:
            conflicts.append(_conflict_line(name, change, here))
    if conflicts:
        commit = data.get("base_commit")
        raise RestoreRefused(
            f"restore of {archive} refused, nothing written: {len(conflicts)} file(s) changed "
            f"here since the archive's base (the results as sent to the call"
            f"{f', commit {commit[:12]}' if commit else ''}) that the call changed too:\n"
            + "\n".join(conflicts) + "\n"
            "To keep the versions here, leave this archive out (its files can be read with "
            f"tar -xzf {archive} -C SOME_FOLDER, {MANIFEST_NAME} giving each one's base and new "
            "SHA-256) and merge by hand; to take the archive's versions anyway, losing the "
            "changes here to these files (git diff and git log show them), rerun with --force "
            "(on the device: scripts/gpu_carry.py --queue-args=--force).",
            [line.split(":")[0].strip() for line in conflicts])
    return write, remove, unchanged


def check_restore(archive: Path, results: Path, *, force: bool = False) -> None:
    """Raise what :func:`restore` of ``archive`` into ``results`` would raise, writing nothing:
    a call checks every archive it restores before it writes any, and ``gpu_carry.py`` checks
    the archive it carries before a machine is started."""
    with tarfile.open(archive, "r:gz") as tar:
        _plan(tar, archive, results, force=force)


def restore(archive: Path, results: Path, *, force: bool = False) -> Restored:
    """Restore ``archive`` (made by :func:`pack`) into ``results`` (``data/results/``) by its
    manifest: a file here at the archive's new version is left; one at the archive's base (or
    absent, where the base is null) takes the archive's version, or is removed where the call
    removed it, and so does a paused loop state whose base is null (the machine never holds
    one before its restore, so one here is an earlier state of the same group); anything else
    (changed here since the base) is a conflict, and then nothing is written:
    :class:`RestoreRefused` lists the conflicting files and what to do. With ``force``
    the archive's versions are taken anyway, and an archive of an earlier version of this script
    (no manifest, every file packed) is unpacked whole, the files its :data:`REMOVED_NAME`
    lists removed.

    Only regular files inside the :data:`PACKED_TREES`, matching the manifest, are accepted,
    written or removed: anything else (an absolute path, ``..``, a link, a path outside them)
    raises ``ValueError`` before a file is written.
    """
    with tarfile.open(archive, "r:gz") as tar:
        write, remove, unchanged = _plan(tar, archive, results, force=force)
        for member in write:
            target = results / member.name
            target.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            assert source is not None
            tmp = target.with_name(target.name + ".restoring")
            tmp.write_bytes(source.read())
            os.replace(tmp, target)
    gone = []
    for name in remove:
        target = results / name
        if target.is_file():
            target.unlink()
            gone.append(name)
            for folder in target.parents:  # a point cache moved away leaves no empty folder
                if folder == results or any(folder.iterdir()):
                    break
                folder.rmdir()
    return Restored([m.name for m in write], gone, unchanged)


@dataclass
class Step:
    """One command of the queue and how it ended."""

    name: str
    command: list[str]
    returncode: int | None
    seconds: float
    time_limit_s: float | None = None
    tail: str = ""
    skipped: str | None = None  # why not run: "complete", "another device", "passed before"


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


def _stop(process: subprocess.Popen[str], grace_s: float) -> tuple[str, str]:
    """Stop ``process`` (started in a session of its own): SIGTERM first, so that ``memnb run``
    pauses its groups and saves their loop states and its point cache (:mod:`memnb.resume`),
    then, if it has not ended within ``grace_s`` seconds, SIGKILL to its whole process group;
    returns its remaining output and how it ended."""
    with contextlib.suppress(ProcessLookupError):
        process.send_signal(signal.SIGTERM)
    out: str | None = None
    try:
        out, _ = process.communicate(timeout=grace_s)
        how = f"stopped by SIGTERM at the hard stop: exit {process.returncode}"
    except subprocess.TimeoutExpired:
        how = (f"did not end within {grace_s:.0f} s of SIGTERM: killed (SIGKILL)"
               if process.poll() is None else
               f"ended by SIGTERM (exit {process.returncode}); its children killed")
    with contextlib.suppress(ProcessLookupError, PermissionError):  # its children too
        os.killpg(process.pid, signal.SIGKILL)
    if out is None:  # the output so far is kept by communicate, which ends at the kill
        out, _ = process.communicate()
    return out or "", how


def _subprocess_runner(command: list[str], timeout: float, *,
                       grace_s: float = GRACE_S) -> tuple[int, str]:
    """Run ``command`` from the repository root; (exit code, last lines of its output). At
    ``timeout`` seconds it is stopped by :func:`_stop` (SIGTERM, then SIGKILL ``grace_s``
    later) and the exit code is 124; an exception here (e.g. Ctrl-C) stops it the same way."""
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "PYTHONUNBUFFERED": "1", "TQDM_DISABLE": "1"}
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        out, how = _stop(process, grace_s)
        return 124, f"{out}\n[queue: past its {timeout:.0f} s: {how}]"[-2000:]
    except BaseException:
        _stop(process, grace_s)
        raise
    return process.returncode, out[-2000:]


def run_queue(queue: Sequence[str], *, budget_s: float, device: str,
              reserve_s: float = RESERVE_S, min_slice_s: float = 30.0,
              runner: Runner = _subprocess_runner,
              cuda_tests: bool = True, clock: Callable[[], float] = time.monotonic,
              complete: Callable[[str], bool] = complete_result,
              other_device: Callable[[str, str], str | None] = other_device_run,
              rerun: Callable[[str], str | None] = rerun_due,
              other_device_for_rerun: Callable[[str, str], str | None] = other_device_rerun,
              steps: list[Step] | None = None,
              stamp: CudaTestsStamp | None = None) -> tuple[list[Step], str]:
    """Run the CUDA tests (if asked, and unless ``stamp`` says they passed on this machine for this
    code: logged as skipped; a pass is recorded in ``stamp``), then each experiment of ``queue``
    that is not ``complete`` already, nor a run of ``other_device`` to be continued there (both
    logged as skipped, with the reason), with a time limit that keeps the whole call within
    ``budget_s`` seconds from now (``reserve_s`` kept for packing; a run still going
    :data:`HARD_STOP_S` past its limit is stopped by the ``runner``). A table due for a ``rerun``
    (:func:`rerun_due`) is run with ``--rerun``, unless its rerun is one of
    ``other_device_for_rerun``. Each step is appended to ``steps`` (a new list if None) as it ends,
    so that a caller packing after an exception still logs what ran.

    Returns the steps and how the queue ended: ``done``, ``out of time`` (an experiment stopped
    at its limit, or less than ``min_slice_s`` was left), ``missing packages`` (the chapters do
    not import here), ``cuda tests failed``, or ``failed: NAME, ...`` when an experiment's run
    ended with another exit code (an error, not a pause: the queue goes on with the next one,
    and the call ends as not done).
    """
    start = clock()
    steps = [] if steps is None else steps
    python = sys.executable
    command = [python, "-c", "from memnb.experiments.registry import load_all; load_all()"]
    t0 = clock()
    code, tail = runner(command, min(120.0, max(budget_s - reserve_s, 1.0)))
    steps.append(Step("imports", command, code, clock() - t0, tail=tail))
    if code != 0:  # e.g. optuna is not in the GPU image: carry its wheels (see the device notes)
        return steps, "missing packages"
    passed_at = None if stamp is None or not cuda_tests else stamp.passed_before()
    if passed_at is not None:
        steps.append(Step("cuda tests", [], None, 0.0, skipped="passed before",
                          tail=f"skipped: passed on this machine for this code at {passed_at}"))
    elif cuda_tests:
        marked = sorted(str(p.relative_to(REPO)) for p in (REPO / "tests").glob("test_*.py")
                        if "mark.cuda" in p.read_text(encoding="utf-8"))
        command = [python, "-m", "pytest", "-p", "no:xdist", "-q", "-m", "cuda", *marked]
        t0 = clock()
        code, tail = runner(command, max(budget_s - reserve_s - (clock() - start), 1.0))
        steps.append(Step("cuda tests", command, code, clock() - t0, tail=tail))
        if code != 0:
            return steps, "cuda tests failed"
        if stamp is not None:
            stamp.record()
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
        code, tail = runner(command, left + HARD_STOP_S)  # a hard stop past the clean one
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


def budget_left(budget_s: float, started: float, now: float | None = None) -> float:
    """Seconds left of a call's ``budget_s``, counted from ``started`` (epoch seconds: the
    device command's first second, ``--started``) to ``now`` (default: the time now)."""
    return budget_s - ((time.time() if now is None else now) - started)


def restore_all(archives: Sequence[Path], results: Path, *, force: bool = False
                ) -> list[tuple[Path, Restored]]:
    """Restore each of ``archives`` (or its parts, :func:`joined`; one absent is passed over,
    with a notice) into ``results``, after checking them all (:func:`check_restore`): a
    conflict in any, or an archive without a manifest, raises before any file is written."""
    found = [(carried, joined(carried)) for carried in archives]
    try:
        for carried, archive in found:
            if archive is None:
                print(f"no archive at {carried}: nothing restored from it")
            else:
                check_restore(archive, results, force=force)
        done = []
        for carried, archive in found:
            if archive is not None:
                restored = restore(archive, results, force=force)
                done.append((carried, restored))
                print(f"restored {len(restored.written)} files from {carried}"
                      + (f" ({len(restored.unchanged)} here already)" if restored.unchanged
                         else "")
                      + (f"; removed {len(restored.removed)} the call removed: "
                         f"{', '.join(restored.removed)}" if restored.removed else ""))
        return done
    finally:
        for carried, archive in found:
            if archive is not None and archive != carried:
                archive.unlink()


def pack_call(out: Path, base: Mapping[str, str], base_commit: str | None, steps: list[Step],
              outcome: str, device_name: str, carried: Sequence[Path],
              results: Path | None = None) -> tuple[Path, dict[str, Any]]:
    """Pack what a call changed in ``results`` (default :data:`RESULTS`) since ``base`` into
    ``out`` (:func:`pack`, :func:`pack_paused`) and write its log ``queue_log.json``; returns
    the results archive and the log."""
    results = RESULTS if results is None else results
    archive = pack(results, out / ARCHIVE_NAME, base=base, base_commit=base_commit)
    paused = pack_paused(results, out, base=base, base_commit=base_commit,
                         max_bytes=travel_room(carried, out))
    changes = manifest(results, base)
    log = {"outcome": outcome, "device": device_name, "base_commit": base_commit,
           "steps": [asdict(s) for s in steps], "archive_bytes": archive.stat().st_size,
           "packed": [n for n, c in changes.items() if c["new"] is not None],
           "removed": [n for n, c in changes.items() if c["new"] is None], "paused": paused}
    (out / "queue_log.json").write_text(json.dumps(log, indent=1))
    for s in steps:
        ended = f"exit {s.returncode}" if s.skipped is None else f"skipped ({s.skipped})"
        print(f"{s.name:24s} {ended}  {s.seconds:7.1f} s")
    print(f"queue: {outcome}; {archive} ({archive.stat().st_size / 2**20:.1f} MiB, "
          f"{len(log['packed'])} files changed, {len(log['removed'])} removed)")
    if paused["states"]:
        print(f"paused groups: {len(paused['states'])}; "
              + (paused.get("left_out") or f"{', '.join(paused['files'])} "
                 f"({paused['bytes'] / 2**20:.1f} MiB)"))
    if archive.stat().st_size > RETURN_FILE_BYTES:
        print(f"warning: the archive is over {RETURN_FILE_BYTES // 2**20} MiB, the most one "
              "file can bring back")
    return archive, log


def main(argv: list[str] | None = None) -> int:
    """Restore, run and pack one call of the queue (the module's docstring), or with
    ``--unpack-only`` only restore; returns the exit code: 0 done, :data:`PARTIAL` out of time,
    1 a run failed, 2 no GPU, :data:`RESTORE_REFUSED` a restore refused (nothing written)."""
    script_started = time.time()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--restore", type=Path, nargs="*", default=[],
                        help="archives packed by an earlier call (each restored if it, or its "
                             "parts, exist): results_full.tar.gz and paused.tar.gz")
    parser.add_argument("--force", action="store_true",
                        help="restore the archives' versions even of files changed here since "
                             "their base (otherwise a conflict: nothing is restored), and "
                             "archives without a manifest (of an earlier version)")
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "gpu_out")),
                        help="folder for the archive and the log (default $OUT)")
    parser.add_argument("--budget", type=float, default=float(DEFAULT_BUDGET_S),
                        help=f"seconds the whole call may take, from --started (default "
                             f"{DEFAULT_BUDGET_S}: with a run stopped by signals and packing, "
                             f"60 s under the device's {DEVICE_LIMIT_S:.0f} s)")
    parser.add_argument("--started", type=float, default=None, metavar="EPOCH_SECONDS",
                        help="when the call began (date +%%s first thing in the device "
                             "command), so that its setup counts against --budget "
                             "(default: when this script started)")
    parser.add_argument("--device", default=None, help="default: cuda when available")
    parser.add_argument("--only", nargs="*", default=None, help="run these experiments instead")
    parser.add_argument("--unpack-only", action="store_true",
                        help="only restore the archive (e.g. here, after a call)")
    parser.add_argument("--allow-cpu", action="store_true",
                        help="run the queue without a GPU (full profiles take days there)")
    parser.add_argument("--recheck-cuda", action="store_true",
                        help="run the CUDA tests even when an earlier call on this machine "
                             "passed them for the same code, GPU, torch and packages (they are "
                             "skipped then: see CudaTestsStamp)")
    parser.add_argument("--bench", action="store_true",
                        help="first run benchmarks/bench_sweep.py on this device (its output "
                             "goes to --out as bench_sweep.txt, its record as "
                             "bench_sweep.DEVICE.json, to be committed to data/benchmarks/)")
    parser.add_argument("--plan", action="store_true",
                        help="first write the cost plan of every experiment on this device "
                             "(scripts/plan_table.py) into --out as full.DEVICE.json, to be "
                             "committed to data/plans/")
    args = parser.parse_args(argv)
    started = script_started if args.started is None else args.started
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

    # the base of this call, before any restore: the archive carries what changed since
    base = {} if args.unpack_only else snapshot(RESULTS)
    base_commit = None if args.unpack_only else head_commit()
    try:
        restore_all(args.restore, RESULTS, force=args.force)
    except ValueError as err:  # a conflict, no manifest, a bad path: nothing written
        print(f"gpu_queue: {err}", file=sys.stderr)
        return RESTORE_REFUSED
    if args.unpack_only:
        return 0

    import torch

    gpu = torch.cuda.is_available()
    device = args.device or ("cuda" if gpu else "cpu")
    if device == "cpu" and not args.allow_cpu:
        print("no GPU here: the full-scale queue is meant for one (use --allow-cpu to insist)")
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    steps: list[Step] = []
    outcome = "stopped before the queue ran"
    try:
        if args.bench:
            code, tail = _subprocess_runner(
                [sys.executable, "benchmarks/bench_sweep.py", "--device", device, "--record",
                 str(args.out.resolve() / f"bench_sweep.{device.split(':')[0]}.json")],
                min(240.0, max(budget_left(args.budget, started) - RESERVE_S, 1.0)))
            (args.out / "bench_sweep.txt").write_text(f"exit {code}\n{tail}\n")
            print(f"bench_sweep: exit {code}")
        if args.plan:
            code, tail = _subprocess_runner(
                [sys.executable, "scripts/plan_table.py", "--device", device, "--out",
                 str(args.out.resolve() / f"full.{device.split(':')[0]}.json")],
                min(180.0, max(budget_left(args.budget, started) - RESERVE_S, 1.0)))
            print(f"plan: exit {code}\n{tail}")
        stamp = (CudaTestsStamp.here(torch.cuda.get_device_name(), torch.__version__)
                 if gpu and not args.recheck_cuda else None)
        _, outcome = run_queue(args.only or QUEUE, budget_s=budget_left(args.budget, started),
                               device=device, cuda_tests=gpu, steps=steps, stamp=stamp)
    except BaseException as err:  # packed all the same: whatever finished comes back
        outcome = f"error: {type(err).__name__}: {err}"
        raise
    finally:
        pack_call(args.out, base, base_commit, steps, outcome,
                  torch.cuda.get_device_name() if gpu else "cpu", args.restore)
    if outcome.startswith("failed"):  # an error outranks a pause
        return 1
    return 0 if outcome == "done" else PARTIAL


if __name__ == "__main__":
    raise SystemExit(main())
