"""Cached experiment results with provenance: ``data/results/<profile>/<name>.{csv,json}``.

Only the project's own code writes here (:func:`run_experiment`). The JSON beside each CSV records
how the table was made: the experiment and its parameters, profile, seeds, device, package
versions, git commit, the fingerprint of the code that computed its points, command line, dates
and wall time. A run stopped at its time limit, or on request (:mod:`memnb.resume`), writes the
points it finished, and its JSON says so (``complete: false``, ``stopped``, with the points still
missing). A run that stopped before it could write a table leaves a record of its invocation in
its point cache (:func:`pending_invocations_path`), which the next table written takes into its
``invocations`` and ``total_wall_time_s``. A call that computed no point, reading every one from
the cache of the complete run it repeats, keeps that run's JSON: its commit, start and wall time
remain those of the call that computed the points.

How a provenance record reads in words and tables is :mod:`memnb.provenance`; the registry of
the ``memnb run`` calls on a profile's point caches, :mod:`memnb.profile_calls`.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import math
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd
import torch

import memnb
from memnb import dataset_files, numerics, resume
from memnb.budget import TimeBudget, time_limit
from memnb.experiments.registry import get, load_all
from memnb.fingerprint import code_fingerprint, code_modules
from memnb.paths import repo_root, results_dir
from memnb.profile_calls import CONCURRENT_NOTE, ProfileCalls
from memnb.profiles import check_profile
from memnb.prose import counted
from memnb.provenance import (
    _changed_params,
    arithmetic_label,
    computing_invocation,
    device_label,
    partial_summary,
    points_added,
    profile_change,
    resumed_commits,
    run_label,
    short_commit,
)
from memnb.resume import PAUSE_MARGIN_S
from memnb.train import tf32_forced
from memnb.validation import check_int

MAX_SEEDS = 1000
"""The most seeds a run may ask for (``--seeds``): every profile's count is far below it (20 at
most), and a count of billions would only build its grid of points until the memory runs out."""


@dataclass
class ExperimentResult:
    """A result table and where it was written."""

    table: pd.DataFrame
    csv_path: Path
    provenance_path: Path
    provenance: dict[str, Any]
    complete: bool = True
    points_read: int | None = None
    """Points of the table this call read from the point cache (``None``: a result loaded, not
    run), and :attr:`points_computed`, those it computed."""
    points_computed: int | None = None
    provenance_kept: bool = False
    """Whether this call kept the provenance of the complete run whose points it only read
    (:func:`run_experiment`) rather than writing its own."""


class TimeLimitReached(RuntimeError):
    """A run stopped at its time limit (or on request, :func:`memnb.resume.request_stop`)
    before it had enough points to build its table."""

    def __init__(self, name: str, budget: TimeBudget, cache_dir: Path | None = None,
                 no_progress: tuple[float, float] | None = None) -> None:
        head = (f"{name}: stopped {_stop_reason()} with {budget.done} points finished and "
                f"{len(budget.missing)} missing, too few to build its table")
        if no_progress is None:
            text = f"{head}; every finished point is cached: rerun the same command to continue"
        else:  # no point, no state: the same command would stop the same way
            used, limit = no_progress
            record = None if cache_dir is None else pending_invocations_path(cache_dir)
            kept = ("nothing was saved" if record is None or not record.is_file() else
                    "it saved no point and no training state, only the record of this call in "
                    f"{shown_path(record)}, which the next table written counts in its "
                    "invocations and wall time")
            text = (f"{head}, and {kept}: {used:.1f} s of the {limit:g} s limit had "
                    "passed (start-up and loading included), too little for a first group to "
                    f"finish or save its state (memnb run keeps {WRITE_MARGIN_FRACTION:.0%} of "
                    f"the limit, at most {WRITE_MARGIN_MAX_S:g} s, for writing the results, and "
                    f"a training loop pauses {PAUSE_MARGIN_S:g} s "
                    "before the limit); the same command would stop the same way: give a longer "
                    "--time-limit")
        super().__init__(text)
        self.budget = budget
        self.cache_dir = cache_dir
        """The run's point cache (its ``paused/`` folder holds the saved state of a group in
        progress, :mod:`memnb.resume`), when known."""


class ExperimentFailed(RuntimeError):
    """An experiment raised an exception while it computed its points (any but
    ``FileNotFoundError``, a dataset not in place, which stays a usage error): a fault of the
    code, of the data it read (say, a dataset file too small for the profile, when called
    from Python: ``memnb run`` refuses that before computing) or of the device
    (say, CUDA out of memory), not of the arguments, which :func:`run_experiment` checks before
    anything runs. A ``RuntimeError``, so that ``memnb run`` reports it as a failure (exit code
    1, one line; its traceback with ``--traceback``) instead of a usage error."""


WRITE_MARGIN_FRACTION = 0.05
"""The share of a ``--time-limit`` kept free for writing the results (:func:`_time_budget`)."""
WRITE_MARGIN_MAX_S = 10.0
"""The most seconds of a ``--time-limit`` kept free for writing the results."""


@contextlib.contextmanager
def _time_budget(seconds: float | None, started: float) -> Iterator[TimeBudget]:
    """A sweep time limit ending ``seconds`` after ``started`` (a ``time.monotonic()`` reading),
    less a margin (5 %, at most 10 s) left for writing the results; none (``None``): a budget
    without a deadline. Either ends at once when a stop is requested
    (:func:`memnb.resume.request_stop`), so that no further group starts."""
    limit = math.inf if seconds is None else seconds - min(
        WRITE_MARGIN_MAX_S, WRITE_MARGIN_FRACTION * seconds)
    with time_limit(limit, start=started) as budget:
        def end_now() -> None:
            budget.deadline = time.monotonic()

        with resume.on_stop(end_now):
            yield budget


def _stop_reason() -> str:
    """"at the time limit", or "on request" when :func:`memnb.resume.request_stop` ended it."""
    return "on request (Ctrl-C or SIGTERM)" if resume.stop_requested() else "at the time limit"


def _git_commit() -> str:
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo_root(), text=True,
                                capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "memnb"], cwd=repo_root(),
                               text=True, capture_output=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+uncommitted-changes" if dirty else "")


def git_commit() -> str:
    """The commit of this checkout (``+uncommitted-changes`` when ``memnb/`` differs from it), or
    ``unknown`` outside a git checkout."""
    return _git_commit()


def _command_line(name: str, profile: str, device: str, seeds: int) -> str:
    if Path(sys.argv[0]).name == "memnb":
        return " ".join(["memnb", *sys.argv[1:]])
    return f"run_experiment({name!r}, {profile!r}, device={device!r}, seeds={seeds})"


def device_description(device: str, executor: str | None = None) -> str:
    """A human-readable name of ``device`` (the GPU model, or the CPU, the vector instruction set
    of its kernels (:func:`cpu_capability`) and its threads); with a
    ``dask://`` ``executor``, of the cluster's workers, which compute the points
    (:func:`memnb.distributed.cluster_description`)."""
    if executor is not None and executor.startswith("dask://"):
        from memnb.distributed import cluster_description

        return cluster_description(executor, device)
    if device.startswith("cuda") and torch.cuda.is_available():
        return torch.cuda.get_device_name(torch.device(device))
    return (f"CPU ({platform.processor() or platform.machine()}, {cpu_capability()}, "
            f"{counted(torch.get_num_threads(), 'thread')})")


def cpu_capability() -> str:
    """The vector instruction set torch's CPU kernels use on this machine (``AVX512``,
    ``AVX2``, ...; :func:`torch.backends.cpu.get_cpu_capability`). Two runs of the same code
    and seeds on machines of different sets can differ in their last bits, and training carries
    such differences on (the Dana et al. chapter compares two runs of the same code on two
    machines that the device names of that time do not tell apart), so
    :func:`device_description` names it for every CPU run recorded from commit ``79825c7`` on."""
    return str(torch.backends.cpu.get_cpu_capability())


def device_index(device: str) -> int | None:
    """The GPU index of a ``cuda:N`` device, ``None`` for ``cpu`` and ``cuda``; a
    ``ValueError`` for any other device string (the form :func:`check_device` checks here and
    :func:`memnb.distributed.check_worker_device` on dask workers)."""
    if device in ("cpu", "cuda"):
        return None
    kind, _, index = device.partition(":")
    if kind != "cuda" or not index.isdigit():
        raise ValueError(f"device must be 'cpu' or 'cuda[:N]'; got {device!r}")
    return int(index)


def check_device(device: str) -> str:
    """Return ``device`` if usable here (``cpu``, ``cuda``, or ``cuda:N`` with ``N`` one of this
    machine's GPUs), else raise a ``ValueError`` naming the device asked for and why."""
    index = device_index(device)
    if device == "cpu":
        return device
    if not torch.cuda.is_available():
        raise ValueError(
            f"device {device!r} requested but no CUDA GPU is available; use --device cpu")
    count = torch.cuda.device_count()
    if index is not None and index >= count:
        raise ValueError(f"device {device!r} requested but this machine has {count} CUDA "
                         f"GPU{'s' * (count != 1)}: N must lie in [0, {count - 1}]")
    return device


def result_paths(name: str, profile: str, root: Path | None = None) -> tuple[Path, Path]:
    """The CSV and JSON paths of experiment ``name`` under ``profile``."""
    folder = (root or results_dir()) / check_profile(profile)
    return folder / f"{name}.csv", folder / f"{name}.json"


def point_cache_dir(name: str, profile: str, root: Path | None = None) -> Path:
    """The point cache of ``name`` under ``profile``: ``<root>/<profile>/.cache/<name>/``."""
    return result_paths(name, profile, root)[0].parent / ".cache" / name


def run_experiment(name: str, profile: str = "quick", *, device: str = "cpu",
                   seeds: int | None = None, executor: str | None = None,
                   root: Path | None = None, time_limit_s: float | None = None,
                   clock_start: float | None = None) -> ExperimentResult:
    """Run experiment ``name`` under ``profile``, write its table and provenance, return both.

    Points already computed (in ``<root>/<profile>/.cache/<name>/``) are reused, so an
    interrupted run resumes where it stopped. With ``time_limit_s``, no group of points starts
    that would not end before the limit (:meth:`memnb.budget.TimeBudget.allows_group`); the table
    then holds the finished points, ``complete`` is False and the provenance lists the missing
    ones. :class:`TimeLimitReached` is raised when too few points finished to build the table.
    The limit counts from ``clock_start`` (a ``time.monotonic()`` reading; default: now).
    Under ``full``, a written result of other code is kept (:func:`supersede`), not overwritten.
    ``seeds`` lies in ``1..``:data:`MAX_SEEDS` (without it, a written ``full`` run of today's
    code over more seeds than the profile's continues over its own, :func:`continued_seeds`;
    asking for fewer is refused, :func:`fewer_seeds_error`); a dataset file whose rows its loader
    would drop silently is refused before anything runs
    (:func:`memnb.dataset_files.check_contents`). A call that raises :class:`TimeLimitReached`
    records its invocation for the next table written (:func:`pending_invocations_path`). A call
    registers itself beside the profile's point caches (:class:`ProfileCalls`), so that its
    provenance says when another call wrote point files of the same profile meanwhile
    (``points_computed`` then counts theirs too).
    """
    calls = ProfileCalls()
    try:
        return _run_experiment(name, profile, device=device, seeds=seeds, executor=executor,
                               root=root, time_limit_s=time_limit_s, clock_start=clock_start,
                               calls=calls)
    finally:
        calls.finish()


def _run_experiment(name: str, profile: str, *, device: str, seeds: int | None,
                    executor: str | None, root: Path | None, time_limit_s: float | None,
                    clock_start: float | None, calls: ProfileCalls) -> ExperimentResult:
    """:func:`run_experiment`, registered in ``calls`` once its arguments are checked."""
    clock_start = time.monotonic() if clock_start is None else clock_start
    if time_limit_s is not None and not time_limit_s > 0:
        raise ValueError(f"time_limit_s must be > 0 seconds; got {time_limit_s!r}")
    exp = get(name)
    check_profile(profile)
    tf32 = tf32_forced() and device.startswith("cuda")
    if tf32 and root is None:
        raise ValueError("a run under memnb.train.tf32_runs writes only to a results folder of "
                         "its own (root=...), never to data/results, whose caches are float32")
    if executor is None:
        check_device(device)
    else:  # a bad address, no scheduler, or workers without the device: before any point
        from memnb.distributed import check_worker_device

        check_worker_device(executor, device)  # the workers compute, not this machine
    if seeds is None:  # without --seeds, a written full run continues over its seeds
        continued = continued_seeds(name, profile, root)
        seeds = exp.seeds_asked(profile) if continued is None else continued[0]
    seeds = check_int("seeds", seeds, 1, MAX_SEEDS)
    mixed = mixed_device_error(name, profile, device, root)
    if mixed is not None:
        raise ValueError(mixed)
    fewer = fewer_seeds_error(name, profile, exp.seeds_run(profile, seeds), root)
    if fewer is not None:
        raise ValueError(fewer)
    dataset_files.check_contents(exp.datasets)  # rows a loader would drop unsaid: refused
    data_files = dataset_files.digests(exp.datasets)  # before a point is read from the cache
    other_data = data_change_error(name, profile, data_files, root)
    if other_data is not None:
        raise ValueError(other_data)
    csv_path, json_path = result_paths(name, profile, root)
    cache_dir = point_cache_dir(name, profile, root)
    started = datetime.now(UTC)
    commit = _git_commit()  # the code that computes the points, read before they are computed
    device_name = device_description(device, executor)  # the workers', for a dask run
    code = todays_code(name)
    files_before = _point_file_times(cache_dir.parent)  # of every experiment of the profile
    calls.start(cache_dir.parent)
    run_keys = {"code_fingerprint": code, "profile": profile, "params": exp.params(profile),
                "seeds": seeds, "seeds_run": exp.seeds_run(profile, seeds),
                "device": device}  # what a pending invocation must match

    paused_before = _paused_state_times(cache_dir)

    def stopped_without_table(budget: TimeBudget, wall: float) -> TimeLimitReached:
        """Record this call for the next table written; the error to raise, saying so when
        the call saved nothing at all (no point, no paused state) before its time limit."""
        _add_pending_invocation(cache_dir, {
            **run_keys, "started_utc": started.isoformat(timespec="seconds"),
            "wall_time_s": round(wall, 2), "git_commit": commit, "device_name": device_name,
            "points_done": budget.done, "data_files": data_files,
            "points_computed": _points_written(files_before,
                                               _point_file_times(cache_dir.parent)),
            **calls.note()})
        saved = budget.done or _paused_state_times(cache_dir) != paused_before
        stuck = None if saved or time_limit_s is None or resume.stop_requested() else (
            time.monotonic() - clock_start, time_limit_s)
        return TimeLimitReached(name, budget, cache_dir, stuck)

    t0 = time.perf_counter()
    with _time_budget(time_limit_s, clock_start) as budget:
        try:
            table = exp.run(profile, seeds=seeds, device=device, cache_dir=cache_dir,
                            executor=executor)
        except Exception as err:
            if budget.stopped:
                raise stopped_without_table(budget, time.perf_counter() - t0) from err
            if isinstance(err, FileNotFoundError):  # a dataset not in place: the CLI's exit 2
                raise
            raise ExperimentFailed(f"{name} failed while computing its points: "
                                   f"{type(err).__name__}: {err}") from err
    wall = time.perf_counter() - t0
    # a file first found during the run (a dataset the loader downloaded) is recorded too
    data_files = {**dataset_files.digests(exp.datasets), **data_files}
    complete = not budget.stopped
    if not complete and budget.done == 0:
        raise stopped_without_table(budget, wall)  # no point to show: keep any earlier table
    # points of this table read from the cache: every point a sweep returned, less those this
    # call computed (each wrote a point file, new or rewritten over a corrupted one, in this
    # experiment's cache or in that of the experiment whose grid it shares); files of other
    # grids or seeds do not count
    computed = _points_written(files_before, _point_file_times(cache_dir.parent))
    reused = max(budget.done - computed, 0)
    earlier = _earlier_complete_run(json_path, {**run_keys, "data_files": data_files}, cache_dir,
                                    reused, computed, complete)
    if earlier is not None:  # every point read from the cache of a run this one repeats
        table.to_csv(csv_path, index=False)
        return ExperimentResult(table, csv_path, json_path, earlier, True, reused, computed,
                                provenance_kept=True)
    provenance = {
        "experiment": name,
        "title": exp.title,
        "paper_figure": exp.paper_figure,
        "profile": profile,
        "params": exp.params(profile),
        "seeds": seeds,  # asked (the command's --seeds or the profile's default)
        "seeds_run": run_keys["seeds_run"],  # at most max_seeds; fixed_seeds if declared
        "device": device,
        "device_name": device_name,
        "executor": executor or "in-process",
        "command": _command_line(name, profile, device, seeds),
        "memnb_version": memnb.__version__,
        "torch_version": torch.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "git_commit": commit,
        "code_fingerprint": code,
        "matmul_precision": "TF32 (memnb.train.tf32_runs)" if tf32 else "float32",
        "cpu_denormals": numerics.mode(),  # "flushed" since memnb.numerics; older runs: IEEE
        "data_files": data_files,  # SHA-256 of the dataset files read (memnb.dataset_files)
        "started_utc": started.isoformat(timespec="seconds"),
        "wall_time_s": round(wall, 2),
        "rows": len(table),
        "cached_points_reused": reused,
        "points_computed": computed,
        **calls.note(),
        "note": "wall_time_s covers only the points computed in this invocation; cached points"
                " from an interrupted earlier run are reused (total_wall_time_s adds the earlier"
                " invocations of a resumed partial run, listed in invocations)",
        "complete": complete,
    }
    pending = _read_pending_invocations(cache_dir)
    provenance.update(_invocations(json_path, provenance, budget, time_limit_s is None, pending))
    if not complete:
        reason = _stop_reason()
        provenance.update({
            "time_limit_s": time_limit_s,
            "points_done": budget.done,
            "points_missing": len(budget.missing),
            "missing_points": budget.missing,
            "stopped": reason,
            "note": f"partial run stopped {reason}: {budget.done} of "
                    f"{budget.done + len(budget.missing)} points; the table holds only those, "
                    "and missing_points lists the others. " + provenance["note"],
        })
    if profile == "full":
        keep_other_code(name, profile, root, code)
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(csv_path, index=False)
    json_path.write_text(json.dumps(provenance, indent=2, default=str) + "\n")
    if pending:
        _settle_pending_invocations(cache_dir, pending, provenance)
    return ExperimentResult(table, csv_path, json_path, provenance, complete, reused, computed)


def _earlier_complete_run(json_path: Path, run_keys: dict[str, Any], cache_dir: Path,
                          reused: int, computed: int, complete: bool) -> dict[str, Any] | None:
    """The provenance of the complete run this call repeated without computing a point, else
    ``None``: a call that read every point from the cache (``reused`` of them, ``computed``
    none) of a complete earlier run with the
    same code, profile, parameters, seeds, device and dataset files (``data_files``, the digests
    recorded; a run recorded before them is rewritten) (:func:`_same_run`), with no call waiting
    to join a table (:func:`pending_invocations_path`), keeps that run's provenance, so that its
    commit, start and wall time stay those of the call that computed the points (a rewrite
    would credit them to this call, with a wall time near zero)."""
    if not complete or computed or reused == 0 or not json_path.exists() or (
            _read_pending_invocations(cache_dir)):
        return None
    try:
        previous = json.loads(json_path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(previous, dict) or previous.get("complete") is False:
        return None
    same = _same_run(previous, json.loads(json.dumps(run_keys, default=str)))
    if not same or previous.get("data_files") != run_keys["data_files"]:
        return None
    return previous if _records_computing(previous) else None


def _records_computing(provenance: dict[str, Any]) -> bool:
    """Whether a provenance records a call that computed points: one whose invocations count
    them (``points_computed``) and not all 0, or, written before they were counted, one that
    read none from the cache or whose resumed calls raised ``points_done``. A provenance of a
    call that only read the cache is not kept (it would name that call as the computing one)."""
    if computing_invocation(provenance).get("read_only"):
        return False
    calls = provenance.get("invocations") or [provenance]
    if all("points_computed" in c for c in calls):
        return True
    return int(provenance.get("cached_points_reused") or 0) == 0 or bool(
        points_added(provenance))


def pending_invocations_path(cache_dir: Path) -> Path:
    """Where the invocations of a run that stopped before writing a table wait for the next
    table written (:func:`run_experiment`): ``<cache>/pending/invocations.json``, a list of
    invocation records (:func:`_invocation`'s fields, with the code fingerprint, profile,
    parameters, seeds and device they must match). In a folder of its own, so that no count of
    the cache's point files (``<cache>/*.json``) takes it for a point."""
    return cache_dir / "pending" / "invocations.json"


def _read_pending_invocations(cache_dir: Path) -> list[dict[str, Any]]:
    """The records :func:`pending_invocations_path` holds, oldest first (none when the file is
    missing or unreadable)."""
    path = pending_invocations_path(cache_dir)
    try:
        records = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return []
    return [r for r in records if isinstance(r, dict)] if isinstance(records, list) else []


def _write_pending_invocations(cache_dir: Path, records: list[dict[str, Any]]) -> None:
    """Make :func:`pending_invocations_path` hold ``records`` (written atomically), or, with
    none, remove it and its folder once empty."""
    path = pending_invocations_path(cache_dir)
    if not records:
        path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            path.parent.rmdir()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".tmp")
    partial.write_text(json.dumps(records, indent=1, default=str) + "\n")
    partial.replace(path)


def _add_pending_invocation(cache_dir: Path, record: dict[str, Any]) -> None:
    """Append ``record`` to :func:`pending_invocations_path`."""
    _write_pending_invocations(cache_dir, [*_read_pending_invocations(cache_dir), record])


def _settle_pending_invocations(cache_dir: Path, pending: list[dict[str, Any]],
                                provenance: dict[str, Any]) -> None:
    """After ``provenance`` was written: keep in :func:`pending_invocations_path` only the
    records it did not take that a later table may still take (another seed count, device,
    profile or parameters of the same code: their points stay in the cache), dropping those it
    took and those of other code (whose points are not reused); remove the file, and its folder,
    when none is left."""
    _write_pending_invocations(cache_dir, [
        r for r in pending if not _same_run(r, provenance)
        and r.get("code_fingerprint") == provenance["code_fingerprint"]])


def device_kind(device: str) -> str:
    """The kind of arithmetic a device string names: ``"cpu"`` or ``"cuda"`` (``cuda:1`` too)."""
    return str(device).split(":", 1)[0]


def continue_command(name: str, profile: str, provenance: dict[str, Any] | None = None, *,
                     rerun: bool = False) -> str:
    """The ``memnb run`` command that continues the partial run recorded in ``provenance`` (a
    rerun's with ``rerun``), on the kind of device that run computed on: another kind is refused
    (:func:`mixed_device_error`)."""
    kind = device_kind((provenance or {}).get("device", "cpu"))
    return " ".join(["memnb run", name, "--profile", profile,
                     *([] if kind == "cpu" else ["--device", kind]),
                     *(["--rerun"] if rerun else []), "--time-limit SECONDS"])


def points_a_run_would_reuse(name: str, profile: str, provenance: dict[str, Any],
                             root: Path | None = None) -> int:
    """The cached point files of ``name`` under ``profile`` that a run of today's code would
    reuse, for the run recorded in ``provenance`` (on today's grid where that run's profile
    differs from today's, :func:`cached_point_files`)."""
    return cached_point_files(name, profile, root,
                              on_todays_grid=profile_change(provenance) is not None)[1]


def _reusable_run(name: str, profile: str, root: Path | None,
                  differs: Callable[[dict[str, Any]], bool]) -> tuple[dict[str, Any], int] | None:
    """The provenance recorded for ``name`` under ``profile`` and how many of its cached points a
    run would reuse (:func:`points_a_run_would_reuse`), when that run was computed by today's
    code (:func:`todays_code`), ``differs(provenance)`` holds (it differs from the run about to
    start in what the cache keys do not name: device, data) and some of its points are cached;
    ``None`` otherwise: nothing recorded, a table of other code (kept aside, its points not
    reused), no difference, or nothing cached. The shared test of :func:`mixed_device_error` and
    :func:`data_change_error`."""
    earlier = load(name, profile, root)
    if earlier is None or earlier.provenance.get("code_fingerprint") != todays_code(name):
        return None
    provenance = earlier.provenance
    if not differs(provenance):
        return None
    current = points_a_run_would_reuse(name, profile, provenance, root)
    return (provenance, current) if current else None


def data_change_error(name: str, profile: str, data_files: dict[str, str],
                      root: Path | None = None) -> str | None:
    """Why a run of ``name`` under ``profile`` reading dataset files of digests ``data_files``
    (:func:`memnb.dataset_files.digests`) must not start here, or ``None``.

    A point's cache key holds its parameters and today's code, not its data: when the run
    recorded here was computed by today's code from files whose recorded digests
    (``data_files``) differ from today's and its points are in the cache, a run would reuse them
    and write one table of two datasets under a provenance naming only today's; so it is
    refused, and the message names the files and how to go on. A run recorded without
    ``data_files`` (before they were recorded) cannot be checked and is continued, and so can
    points cached by a first run killed before it wrote its table and provenance.
    """
    found = _reusable_run(name, profile, root, lambda provenance: bool(
        dataset_files.changed_files(provenance.get("data_files"), data_files)))
    if found is None:
        return None
    provenance, current = found
    recorded = provenance.get("data_files")
    return (f"data: {name} ({profile}) was computed from other contents of its dataset files "
            f"({dataset_files.change_words(recorded, data_files)}), and "
            f"{counted(current, 'point')} of that run are in the point cache "
            f"{shown_path(point_cache_dir(name, profile, root))}, whose keys do not name the "
            "data: a run would reuse them. Put the recorded files back, or compute from these "
            f"into a results folder of its own (MEMNB_RESULTS_DIR=PATH memnb run {name} "
            f"--profile {profile})")


def mixed_device_error(name: str, profile: str, device: str,
                       root: Path | None = None) -> str | None:
    """Why a run of ``name`` under ``profile`` on ``device`` must not start here, or ``None``.

    A point's cache key holds its parameters and today's code (:func:`todays_code`), not the
    device: a run reuses every cached point of today's code whatever computed it. When the run
    recorded here (``<profile>/<name>.json``) was computed by today's code on another kind of
    device (a GPU against this CPU, or the reverse) and its points are in the cache, a run on
    ``device`` would reuse them and write one table of two devices' arithmetic under a
    provenance that names only ``device``; so it is refused, and the message says how to go on.
    """
    found = _reusable_run(name, profile, root, lambda provenance: device_kind(
        provenance.get("device", "cpu")) != device_kind(device))  # not the same arithmetic
    if found is None:
        return None
    provenance, current = found
    recorded = device_kind(provenance.get("device", "cpu"))
    return (f"device: {name} ({profile}) was run on {device_label(provenance)} "
            f"(device {recorded!r}) by today's code, and {counted(current, 'point')} of that run "
            f"are in the point cache {point_cache_dir(name, profile, root)}; a run on "
            f"{device!r} would reuse them and write one table of two devices' arithmetic. "
            f"Continue it on {recorded!r} (`{continue_command(name, profile, provenance)}`), "
            f"or compute it on {device!r} into a results folder of its own "
            f"(MEMNB_RESULTS_DIR=PATH memnb run {name} --profile {profile} --device "
            f"{device_kind(device)})")


def _written_full(name: str, profile: str,
                  root: Path | None = None) -> tuple[Path, dict[str, Any], int, int] | None:
    """``(table path, provenance, seeds asked, seeds run)`` of the written ``full`` result of
    ``name`` when today's code and profile computed it (complete or partial), else ``None`` (and
    for every other profile), read from its provenance alone (the table is not loaded). A record
    from before ``seeds_run`` gives the seeds asked, and its run computed
    :meth:`memnb.experiments.registry.Experiment.seeds_run` of them."""
    if profile != "full":
        return None
    csv_path, json_path = result_paths(name, profile, root)
    if not (csv_path.exists() and json_path.exists()):
        return None
    written = read_provenance(json_path)
    if written.get("code_fingerprint") != todays_code(name) or (
            profile_change(written) is not None):
        return None
    try:
        asked = int(written["seeds"])
        ran = int(written["seeds_run"]) if written.get("seeds_run") is not None else (
            get(name).seeds_run(profile, asked))
    except (KeyError, TypeError, ValueError):
        return None
    return csv_path, written, asked, ran


def written_full_seeds(name: str, profile: str,
                       root: Path | None = None) -> tuple[int, int] | None:
    """``(seeds asked, seeds run)`` of the written ``full`` result of ``name`` when today's code
    and profile computed it (complete or partial), else ``None`` (and for every other profile)
    (:func:`_written_full`)."""
    found = _written_full(name, profile, root)
    return None if found is None else found[2:]


def continued_seeds(name: str, profile: str,
                    root: Path | None = None) -> tuple[int, int] | None:
    """``(seeds asked, seeds run)`` of the written ``full`` run that a run of ``name`` without
    ``--seeds`` continues over (:func:`written_full_seeds`): one of today's code that ran more
    seeds than the profile's default; ``None`` otherwise."""
    written = written_full_seeds(name, profile, root)
    if written is None:
        return None
    exp = get(name)
    return written if written[1] > exp.default_seeds_run(profile) else None


def fewer_seeds_error(name: str, profile: str, seeds_run: int,
                      root: Path | None = None) -> str | None:
    """Why a ``full`` run of ``name`` over ``seeds_run`` seeds must not start here, or ``None``.

    A table holds the seeds of the call that wrote it, and one provenance record describes it:
    a run over fewer seeds than the written ``full`` result of today's code and profile (complete
    or partial, on any device) would replace that table and its record with a smaller one (its
    points stay cached, but the committed result would shrink). So it is refused, naming the
    seeds the written run has and how to compute fewer without touching it. Other profiles are
    rewritten by the book at their default seeds and are not guarded; a written result of other
    code or parameters is kept by :func:`keep_other_code`."""
    found = _written_full(name, profile, root)
    if found is None or found[3] <= seeds_run:
        return None
    csv_path, written, _, had = found
    state = "complete" if written.get("complete", True) else "partial"
    return (f"seeds: the written `{profile}` result of {name} ({shown_path(csv_path)}, "
            f"{state}) was run over {counted(had, 'seed')} by today's code; a run over "
            f"{counted(seeds_run, 'seed')} would replace its table and provenance with a smaller "
            f"one. Ask for --seeds {had} or more (its cached points are read, not computed "
            f"again), or compute fewer seeds into a results folder of its own "
            f"(MEMNB_RESULTS_DIR=PATH memnb run {name} --profile {profile} --seeds {seeds_run})")


def complete_uncached(name: str, profile: str,
                      root: Path | None = None) -> ExperimentResult | None:
    """The written ``full`` result of ``name`` when it is complete, of today's code and profile,
    and none of its points is in the point cache (complete full runs commit none): a run would
    compute every point again, so it is read instead (:func:`fresh_and_cached`) or refused
    (:func:`complete_already`). ``None`` otherwise, and for every other profile: a ``quick``
    run finds its points cached and rewrites the same table in seconds."""
    from memnb.reruns import rerun_reason  # memnb.reruns builds on this module

    if profile != "full":
        return None
    done = load(name, profile, root)
    if done is None or not done.complete or rerun_reason(name, done.provenance) is not None:
        return None
    if points_a_run_would_reuse(name, profile, done.provenance, root):
        return None
    return done


def complete_already(name: str, profile: str, root: Path | None = None, *,
                     options: Sequence[str] = ()) -> str | None:
    """Why ``memnb run`` of ``name`` under the ``full`` profile should not start here, or
    ``None``: :func:`complete_uncached` finds the table, so the run would compute every point
    again and, stopped before the end, write a partial table in place of the complete one. The
    command it suggests repeats the run's other ``options`` (e.g. ``["--seeds", "3"]``)."""
    done = complete_uncached(name, profile, root)
    if done is None:
        return None
    return (f"{name}: {shown_path(done.csv_path)} is a complete `{profile}` result of today's "
            f"code and profile ({run_label(done.table, done.provenance)}), and its points are "
            "not in the point cache: running it again would compute every point anew and, "
            "stopped before the end, leave a partial table in its place. To compute it again "
            f"(to compare, or with other seeds), write into a results folder of its own: "
            f"MEMNB_RESULTS_DIR=PATH memnb run {name} --profile {profile}"
            + "".join(f" {option}" for option in options))


def shown_path(path: Path) -> str:
    """``path`` as a message shows it: relative to the working directory where it lies below
    it, else as it is."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def keep_other_code(name: str, profile: str, root: Path | None, code: str) -> None:
    """Before a run of code ``code`` writes its table, keep a written result of other code, or
    of an earlier profile (:func:`supersede`), so that a full-scale result is never overwritten
    by one computed differently, e.g. three seeds of older code by one seed of today's."""
    earlier = load(name, profile, root)
    if earlier is None:
        return
    other = earlier.provenance.get("code_fingerprint")
    if other and (other != code or profile_change(earlier.provenance) is not None):
        supersede(name, profile, root, replace=True)


#: Provenance fields written by ``scripts/rekey_cache.py``: the code fingerprint that computed
#: the points before a re-key that changed no computation, and every such re-key (from, to, why).
REKEY_HISTORY: tuple[str, ...] = ("code_fingerprint_rekeyed_from", "code_fingerprint_rekeys")


def _seeds_of(record: dict[str, Any]) -> Any:
    """The seeds a run (a provenance or an invocation record) ran: ``seeds_run``, or, for one
    recorded before that field, the ``seeds`` asked."""
    return record.get("seeds_run", record.get("seeds"))


def _same_run(record: dict[str, Any], provenance: dict[str, Any]) -> bool:
    """Whether ``record`` (an earlier provenance, or a pending invocation) was computed with the
    code, profile (name and parameters, a grid listed in another order counting as the same,
    :func:`_changed_params`), seeds run (:func:`_seeds_of`: asking for more than a profile's
    ``max_seeds`` runs the same seeds) and device of ``provenance``."""
    return all(record.get(k) == provenance[k] for k in ("code_fingerprint", "profile", "device")
               ) and _seeds_of(record) == _seeds_of(provenance) and not (
        _changed_params(record.get("params") or {},
                        json.loads(json.dumps(provenance["params"], default=str))))


def _invocations(json_path: Path, provenance: dict[str, Any], budget: TimeBudget,
                 untimed: bool, pending: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """``invocations`` (one record per ``memnb run`` that computed points of this table, the
    earlier ones read from the partial run it resumes) and their ``total_wall_time_s``.

    The ``pending`` invocations (:func:`pending_invocations_path`: calls since the last table
    was written that stopped before they could write one) of the same code, profile, seeds and
    device come between the earlier records and this one.

    An earlier record counts only when it was partial and computed with the same code, profile
    (name and parameters, a grid listed in another order counting as the same,
    :func:`_changed_params`), seeds and device: then its cached points are the ones this run
    reused (a run that resumes
    across sessions from a committed point cache keeps its whole history, and the
    ``corrections`` made by hand to that history, each a sentence saying what was changed and
    why, are kept with it, as is the record of re-keys that carried its earlier points over to
    today's code fingerprint, :data:`REKEY_HISTORY`, and the points copied into its cache from
    the run it replaces, :func:`memnb.provenance.points_copied`). This invocation's
    ``points_done`` is ``None`` for a run without a time limit (``untimed``) that no stop
    request ended.
    """
    earlier: list[dict[str, Any]] = []
    corrections: list[str] = []
    carried: dict[str, Any] = {}
    if json_path.exists():
        try:
            previous = json.loads(json_path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError):
            previous = {}
        if _same_run(previous, provenance) and previous.get("complete") is False:
            earlier = previous.get("invocations") or [_invocation(previous)]
            corrections = list(previous.get("corrections") or [])
            carried = {k: previous[k] for k in (*REKEY_HISTORY, "points_copied") if k in previous}
    # a run without a time limit records its count of points only when a stop request ended it
    done = None if untimed and not budget.stopped else budget.done
    this = _invocation({**provenance, "points_done": done})
    # a record already in the history (a call that wrote its table and stopped before it could
    # remove the pending file) is not counted twice
    known = {(r.get("started_utc"), r.get("wall_time_s")) for r in earlier}
    waiting = [_invocation(r) for r in pending or [] if _same_run(r, provenance)
               and (r.get("started_utc"), r.get("wall_time_s")) not in known]
    records = [*earlier, *waiting, this]
    total = sum(float(r.get("wall_time_s") or 0.0) for r in records)
    history: dict[str, Any] = {"invocations": records, "total_wall_time_s": round(total, 2)}
    if corrections:
        history["corrections"] = corrections
    return history | carried


def _invocation(provenance: dict[str, Any]) -> dict[str, Any]:
    record = {key: provenance.get(key) for key in ("started_utc", "wall_time_s", "git_commit",
                                                   "device_name", "points_done", "data_files")}
    for key in ("points_computed", CONCURRENT_NOTE):  # recorded since they were
        if key in provenance:
            record[key] = provenance[key]
    return record


def cached_point_files(name: str, profile: str, root: Path | None = None, *,
                       on_todays_grid: bool = False) -> tuple[int, int]:
    """``(files, current)``: the point files in the cache of ``name`` under ``profile``, and how
    many of them were computed by today's code (the fingerprint a run would look them up by),
    i.e. how many a rerun resumes from.

    With ``on_todays_grid`` (for a table of an earlier profile, :func:`profile_change`: its
    points may not be today's), ``current`` counts only the files of today's code whose point
    is on today's grid, as the experiment's first sweep gives it
    (:func:`memnb.planner.capture_sweep`; later rounds of an adaptive search are not known
    before it runs, so their files are not counted; an experiment that makes no sweep counts
    every file of today's code)."""
    folder = point_cache_dir(name, profile, root)
    if not folder.is_dir():
        return 0, 0
    current = list(folder.glob(f"*.{todays_code(name)}.json"))
    if on_todays_grid:
        from memnb.planner import capture_sweep
        from memnb.sweep import point_key

        captured = capture_sweep(name, profile)
        if captured is not None:  # else no sweep to read the grid from: all of them count
            keys = {point_key(p) for p in captured.points}
            current = [f for f in current if f.name.split(".")[0] in keys]
    return sum(1 for _ in folder.glob("*.json")), len(current)


def _point_file_times(cache_root: Path) -> dict[str, int]:
    """The point files of the point caches of one profile (``<cache_root>/<name>/*.json``, every
    experiment and code; the ``paused/`` and ``pending/`` folders below are not points), each
    with its modification time in nanoseconds."""
    if not cache_root.is_dir():
        return {}
    return {str(path): path.stat().st_mtime_ns for path in cache_root.glob("*/*.json")}


def _paused_state_times(cache_dir: Path) -> dict[str, int]:
    """``{file: mtime_ns}`` of the saved states of groups stopped midway in ``cache_dir``
    (:mod:`memnb.resume`), to tell whether a call saved any progress."""
    folder = cache_dir / "paused"
    if not folder.is_dir():
        return {}
    return {p.name: p.stat().st_mtime_ns for p in folder.iterdir() if p.is_file()}


def _points_written(before: dict[str, int], after: dict[str, int]) -> int:
    """How many point files are new in ``after`` or were rewritten since ``before``
    (:func:`_point_file_times`): the points a call computed. Another call writing to the
    same profile's caches meanwhile would be counted too: :class:`ProfileCalls` tells when."""
    return sum(1 for path, mtime in after.items() if before.get(path) != mtime)


class ResultFileError(ValueError):
    """A written table or provenance file that cannot be read (cut short, emptied, not JSON, a
    JSON list): one line naming the file and what is wrong in it (:func:`read_provenance`,
    :func:`read_table`). A ``ValueError``, so that ``memnb run``, ``plan`` and ``scorecard``
    refuse before computing (exit code 2) instead of printing a traceback."""


RESTORE = "restore it from git or move it away"
"""What to do with a result file that cannot be read (:class:`ResultFileError`)."""


def json_object(path: Path) -> tuple[dict[str, Any] | None, str]:
    """The JSON object written at ``path`` and ``""``, or ``None`` and why it is not one
    (where its JSON breaks, not UTF-8 text, another JSON type), for a reader's error that names
    the file (:func:`read_provenance`, :func:`memnb.planner.read_plan_record`)."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        return None, f"JSON error at line {err.lineno}, column {err.colno}: {err.msg}"
    except UnicodeDecodeError:
        return None, "not UTF-8 text"
    if isinstance(value, dict):
        return value, ""
    return None, f"a JSON {type(value).__name__}, not an object"


def read_provenance(json_path: Path) -> dict[str, Any]:
    """The provenance record written at ``json_path``: a JSON object;
    :class:`ResultFileError` naming the file and where its JSON breaks otherwise."""
    provenance, reason = json_object(json_path)
    if provenance is not None:
        return provenance
    raise ResultFileError(f"{shown_path(json_path)} is not a readable provenance file "
                          f"({reason}); {RESTORE}")


def read_table(csv_path: Path) -> pd.DataFrame:
    """The result table written at ``csv_path``; :class:`ResultFileError` naming the file when
    pandas cannot read it (empty, or rows of other lengths than its header)."""
    try:
        return pd.read_csv(csv_path)
    except pd.errors.EmptyDataError:
        reason = "empty: no header, no rows"
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        reason = " ".join(str(err).split())
    raise ResultFileError(f"{shown_path(csv_path)} is not a readable result table ({reason}); "
                          f"{RESTORE}")


def half_result_error(csv_path: Path, json_path: Path) -> ResultFileError | None:
    """The error for a result of which only one of its two files is written (``csv_path``,
    the table, and ``json_path``, its provenance), naming the one that is missing; ``None``
    when both or neither are there."""
    if csv_path.exists() == json_path.exists():
        return None
    there, missing, what = ((csv_path, json_path, "provenance") if csv_path.exists()
                            else (json_path, csv_path, "table"))
    return ResultFileError(f"{shown_path(there)} has no {what} beside it ({missing.name} is "
                           f"missing): restore {missing.name} from git, or move {there.name} "
                           "away")


EXPERIMENT_NAME = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+")
"""The form of an experiment's name, ``chapter.experiment``: a file name in a results folder,
no path."""


def check_name(name: str) -> str:
    """``name`` when it can name a result: a string of the form :data:`EXPERIMENT_NAME` (no
    ``/`` or ``..`` that would look outside the results folder), and, in one of the book's
    chapters (``dana.…``), a registered experiment's (:func:`memnb.experiments.registry.get`:
    the ``ValueError`` :func:`run_experiment` gives, listing the known ones), since a mistyped
    name would read as "not run". A name outside the chapters (a table of one's own code, or
    a test's ``toy.exp``) needs only the form. ``TypeError`` for a name that is not a string."""
    if not isinstance(name, str):
        raise TypeError(f"name must be an experiment's name (a str); got {name!r}")
    if not EXPERIMENT_NAME.fullmatch(name):
        raise ValueError(f"name must be an experiment's name, chapter.experiment (see `memnb "
                         f"list`); got {name!r}")
    if name.split(".")[0] in {known.split(".")[0] for known in load_all()}:
        get(name)
    return name


_LOOK_ALIKE = str.maketrans("lio", "110")
"""Letters read for the digits they look like when a name is compared (``dana.expl`` is
``dana.exp1`` mistyped, not one of six names as close)."""


def close_names(word: str, names: Iterable[str]) -> str:
    """``"did you mean 'dana.exp1'?"`` for a mistyped ``word``, or ``""`` when no name of
    ``names`` is close. Case is ignored; a name that differs only in a look-alike letter for a
    digit (``l``, ``i`` for ``1``, ``o`` for ``0``) is the one; otherwise the names closest by
    :func:`difflib.get_close_matches`' measure and cut-off, all of those tied closest, in name
    order (``one of 'dana.exp1', …``)."""
    by_key = {name.lower(): name for name in names}
    key = str(word).lower()
    alike = [k for k in by_key if k.translate(_LOOK_ALIKE) == key.translate(_LOOK_ALIKE)]
    close = alike or difflib.get_close_matches(key, list(by_key), n=len(by_key) or 1)
    if not close:
        return ""

    def ratio(other: str) -> float:
        return difflib.SequenceMatcher(None, key, other).ratio()

    best = sorted(by_key[c] for c in close if ratio(c) == ratio(close[0]))
    shown = ", ".join(map(repr, best))
    return f"did you mean {shown}?" if len(best) == 1 else f"did you mean one of {shown}?"


def load(name: str, profile: str, root: Path | str | None = None) -> ExperimentResult | None:
    """A previously written result of ``name`` under ``profile``, or ``None`` if there is none
    (neither its table nor its provenance is there).

    ``name`` must have the form ``chapter.experiment``, and be a registered experiment's in one
    of the book's chapters (:func:`check_name`); ``root`` (default
    :func:`memnb.paths.results_dir`) may be a path or a string. A table or provenance that cannot
    be read raises :class:`ResultFileError` naming the file (:func:`read_table`,
    :func:`read_provenance`), and so does one without the other (:func:`half_result_error`):
    read as no result, it would send the reader to compute a table that is there."""
    check_name(name)
    csv_path, json_path = result_paths(name, profile, None if root is None else Path(root))
    if not (csv_path.exists() or json_path.exists()):
        return None
    half = half_result_error(csv_path, json_path)
    if half is not None:
        raise half
    provenance = read_provenance(json_path)
    return ExperimentResult(read_table(csv_path), csv_path, json_path, provenance,
                            bool(provenance.get("complete", True)))


SUPERSEDED = "superseded"
"""The folder, beside a profile's tables, that keeps results replaced by a run of other code."""

FINGERPRINT = re.compile(r"[0-9a-f]{8,64}")
"""What a :func:`code_fingerprint` looks like (hex digits), in a kept result's file name."""


def superseded_paths(name: str, profile: str, code: str,
                     root: Path | None = None) -> tuple[Path, Path]:
    """The CSV and JSON paths under which :func:`supersede` keeps the result of ``name`` computed
    by code ``code`` (a :func:`code_fingerprint`)."""
    if not FINGERPRINT.fullmatch(code):
        raise ValueError(f"code must be a code fingerprint (8 to 64 hex digits); got {code!r}")
    folder = result_paths(name, profile, root)[0].parent / SUPERSEDED
    return folder / f"{name}.{code}.csv", folder / f"{name}.{code}.json"


def supersede(name: str, profile: str, root: Path | None = None, *,
              replace: bool = False) -> ExperimentResult:
    """Move the written result of ``name`` under ``profile`` to ``<profile>/superseded/``, named
    by the fingerprint of the code that computed it, so that a run of today's code can take its
    place while the earlier table and its provenance stay readable (:func:`load_superseded`).

    A rerun of other code, or of today's code under a changed profile (:func:`profile_change`:
    other points), would otherwise overwrite the table; a partial rerun would replace more seeds
    by fewer. Raises ``FileNotFoundError`` when there is no result, and ``ValueError`` for a
    result without a code fingerprint, one computed by today's code under today's profile (a
    rerun resumes it instead of replacing it) or one already kept (with ``replace=True`` the
    kept copy is replaced: :func:`run_experiment` keeps the latest result of each code)."""
    result = load(name, profile, root)
    if result is None:
        csv_path, json_path = result_paths(name, profile, root)
        raise FileNotFoundError(f"{name}: no `{profile}` result to supersede ({csv_path.name} "
                                f"and {json_path.name} in {csv_path.parent})")
    code = result.provenance.get("code_fingerprint")
    if not code:
        raise ValueError(f"{name}: its `{profile}` result records no code_fingerprint, so it "
                         "cannot be kept under the code that computed it")
    if code == todays_code(name) and profile_change(result.provenance) is None:
        raise ValueError(f"{name}: its `{profile}` result was computed by today's code "
                         f"({code}) under today's profile; a rerun resumes it instead of "
                         "replacing it")
    csv_to, json_to = superseded_paths(name, profile, code, root)
    if (csv_to.exists() or json_to.exists()) and not replace:
        raise ValueError(f"{name}: a result of code {code} is already kept in {csv_to.parent}")
    csv_to.parent.mkdir(parents=True, exist_ok=True)
    result.csv_path.replace(csv_to)
    result.provenance_path.replace(json_to)
    return ExperimentResult(result.table, csv_to, json_to, result.provenance, result.complete)


def load_superseded(name: str, profile: str, root: Path | None = None) -> list[ExperimentResult]:
    """The results of ``name`` under ``profile`` kept by :func:`supersede`, oldest first (by
    ``started_utc``); an empty list when none is kept."""
    folder = result_paths(name, profile, root)[0].parent / SUPERSEDED
    kept = []
    for json_path in sorted(folder.glob(f"{name}.*.json")) if folder.is_dir() else []:
        code = json_path.name[len(name) + 1:-len(".json")]
        if not FINGERPRINT.fullmatch(code):
            continue  # another experiment whose name extends this one's
        provenance = read_provenance(json_path)
        csv_path = json_path.with_suffix(".csv")
        kept.append(ExperimentResult(read_table(csv_path), csv_path, json_path, provenance,
                                     bool(provenance.get("complete", True))))
    return sorted(kept, key=lambda r: str(r.provenance.get("started_utc", "")))


def todays_code(name: str) -> str:
    """The fingerprint of the code that computes ``name`` today (:func:`code_fingerprint` of
    its experiment module's :func:`code_modules`): the one a run would record, and look its
    cached points up by."""
    return code_fingerprint(code_modules(get(name).fn.__module__))


def earlier_code_note(name: str, provenance: dict[str, Any]) -> str:
    """``", computed by earlier code (code fingerprint <hex>, <arithmetic>)"`` for a result of
    ``name`` that today's code did not compute (:func:`computed_by_todays_code`), else ``""``:
    the words a chapter appends where it says which run a figure draws (beside the commit that
    ran it)."""
    if computed_by_todays_code(name, provenance):
        return ""
    code = provenance.get("code_fingerprint")
    code = f"code fingerprint {code}" if code else "fingerprint not recorded"
    return f", computed by earlier code ({code}, {arithmetic_label(provenance)})"


def computed_by_todays_code(name: str, provenance: dict[str, Any]) -> bool:
    """Whether a result of ``name`` was computed by today's code: its recorded
    ``code_fingerprint`` equals :func:`todays_code` (a result recorded without one was not)."""
    return provenance.get("code_fingerprint") == todays_code(name)


@dataclass
class FreshAndCached:
    """A chapter's view of one experiment: the run it just made and the committed full run.

    ``fresh`` is the table computed (or resumed) under the chapter's profile; ``cached`` is the
    committed ``full`` table when the chapter runs a smaller profile and one exists, else None
    (under ``full`` the fresh table *is* the full run). ``note`` says which is which, in one line.
    """

    name: str
    fresh: pd.DataFrame
    cached: pd.DataFrame | None
    params: dict[str, Any]
    note: str
    partial: str | None = None
    """:func:`partial_summary` of the committed full run when it is partial, else None."""
    cached_provenance: dict[str, Any] | None = None
    """The provenance of the committed full run ``cached``, when there is one."""


class CommittedRun(NamedTuple):
    """How a chapter names a committed full run it draws, in parts (:func:`committed_run`)."""

    day: str  # the start day of the last call that computed points
    label: str  # :func:`memnb.provenance.run_label`: device and seeds
    commits: str  # "commit abc1234", or every commit of a resumed run with its points
    notes: str  # :func:`earlier_code_note` and :func:`memnb.reruns.rerun_clause`, where due


def committed_run(name: str, table: pd.DataFrame, provenance: dict[str, Any],
                  root: Path | None = None) -> CommittedRun:
    """The parts in which a chapter names the committed full run of ``name`` (its ``table`` and
    ``provenance``): the day and commits of the calls that computed points
    (:func:`memnb.provenance.computing_invocation`, not a later call that only read the cache),
    its run label, and the notes on earlier code and a rerun under way."""
    from memnb.reruns import rerun_clause  # reruns builds on this module

    computed = computing_invocation(provenance)
    commits = resumed_commits(provenance) or f"commit {short_commit(computed['git_commit'])}"
    return CommittedRun(str(computed["started_utc"] or "?")[:10], run_label(table, provenance),
                        commits,
                        earlier_code_note(name, provenance) + rerun_clause(name, "full", root))


def fresh_and_cached(name: str, profile: str, *, device: str = "cpu",
                     seeds: int | None = None, root: Path | None = None) -> FreshAndCached:
    """Run (or resume) ``name`` under ``profile`` and load its committed full-scale run beside it.

    The one loader every chapter uses, so that ``PROFILE=full`` behaves the same in all of them.
    Under ``full``, a complete table of today's code and profile is read, not computed again
    (:func:`complete_uncached`: complete runs commit no point cache, so a run would recompute
    every point), as ``memnb run`` refuses to.
    """
    committed = complete_uncached(name, profile, root)
    read = committed is not None
    fresh = committed or run_experiment(name, profile, device=device, seeds=seeds, root=root)
    cached = None if profile == "full" else load(name, "full", root)
    if profile == "full":
        note = (f"{name}: this is the full-scale run ({device_label(fresh.provenance)}"
                + (", the committed one, read, not computed again)" if read else ")"))
    elif cached is None:
        note = f"{name}: `{profile}` run; no full-scale run has been computed yet"
        if os.environ.get("MEMNB_RESULTS_DIR") and root is None:
            # a mistyped folder reads as "none yet": name the one searched
            note += f" (none in {results_dir() / 'full'}, the folder MEMNB_RESULTS_DIR names)"
    else:
        run = committed_run(name, cached.table, cached.provenance, root)
        note = (f"{name}: `{profile}` run beside the committed full-scale run of {run.day} "
                f"({run.label}, {run.commits}){run.notes}")
    partial = None if cached is None else partial_summary(cached.provenance)
    if partial is not None:
        note += f"; the full-scale run is {partial}"
    return FreshAndCached(name, fresh.table, None if cached is None else cached.table,
                          get(name).params(profile), note, partial,
                          None if cached is None else cached.provenance)
