"""The ``memnb`` command line: list and run the book's experiments without notebooks.

    memnb list
    memnb run dana.exp1 --profile quick [--device cpu|cuda] [--seeds K] [--executor dask://HOST:PORT]
              [--time-limit SECONDS] [--rerun] [--traceback]
    memnb scorecard [--profile full|quick|ci] [--paper dana] [--json]
    memnb plan <experiment|chapter|all> [--profile full] [--device cpu|cuda] [--json]

``memnb run`` exits with 0 when the table is complete, 2 on bad arguments (or a missing dataset,
a dataset file whose rows its loader would drop, a text dataset with fewer usable rows than the
profile's grid asks for (:func:`data_rows_error`), a file in the image folder that is no image,
a ``MEMNB_DATA_DIR`` that is not a folder, a results folder that cannot be written, a written
table or provenance that cannot be read (:class:`memnb.results.ResultFileError`, refused by
``plan`` and ``scorecard`` too), no dask scheduler answering at ``--executor`` or a worker of
it without ``--device``, or a complete ``full`` result of today's code already written, which it
would only recompute: :func:`memnb.results.complete_already`; the experiment's name, with the
closest names when it is mistyped (:func:`experiment_name_error`), then ``--device`` and
``--executor`` are checked before that, ``--device`` on the dask workers with ``--executor``:
:func:`run_arguments_error`; ``--seeds`` out of its range is refused as the arguments are read,
:func:`_seed_count`), 1 when the experiment fails while computing
(:class:`memnb.results.ExperimentFailed`) or its results cannot be written at the end (the
finished points stay in the point cache), and 3 when it stopped at its ``--time-limit`` or on a
first Ctrl-C or SIGTERM (every finished point is cached, a running training group pauses with
its state saved under the point cache's ``paused/`` folder, and the table and provenance are
written as a partial run; rerun the same command to continue). A second stop signal stops at
once and exits with 130 for a Ctrl-C, 143 for a SIGTERM (whichever came first), saying that the
finished points are cached.

Errors are one line on stderr, ``memnb <command>: error: ...`` (:func:`error_line`): a message
of several lines, such as a text loader's list of the folders it looked in, is joined into one
(:func:`one_line`; the exception keeps its own lines for Python callers), and the open progress
bars are closed first, so that none is drawn again below the error. A failure while computing
prints its traceback only with ``--traceback`` (a user's mistake and a fault of the code read
alike: one line saying what failed, and a flag for the developer who needs the frames); the
one-line summary comes last either way.
``--rerun`` recomputes a committed result of earlier code or profile beside it
(:mod:`memnb.reruns`), which stays in place until the rerun is complete.
``memnb scorecard`` refuses a results folder that does not exist (a mistyped
``MEMNB_RESULTS_DIR`` would read as every experiment not run). Output cut short by its reader
(``memnb list | head -1``) ends the command quietly with exit code 1.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import os
import signal
import sys
import tempfile
import textwrap
import time
import traceback
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memnb.profiles import PROFILES

if TYPE_CHECKING:

    from memnb.results import ExperimentResult

REFUSED = 2
"""Exit code of a command refused before it computes anything: bad arguments (argparse's own
code for them), a missing dataset or a results folder that cannot be written."""

PARTIAL = 3
"""Exit code of ``memnb run`` when it stopped at its time limit, or on request, with part of the
grid done."""

FAILED = 1
"""Exit code of ``memnb run`` when the experiment failed while computing its points."""

INTERRUPTED = 130
"""Exit code of ``memnb run`` stopped at once by a Ctrl-C that came after a first Ctrl-C or
SIGTERM (128 + SIGINT, as a shell reports it); a SIGTERM there exits with :data:`TERMINATED`."""

TERMINATED = 128 + signal.SIGTERM
"""Exit code of ``memnb run`` stopped at once by a SIGTERM that came after a first Ctrl-C or
SIGTERM (143 on Linux)."""

TIMEOUT_CODE = 124
"""The exit code GNU ``timeout`` reports for a command it stopped at its limit, whatever the
command's own (``memnb run`` exits with :data:`PARTIAL` on its SIGTERM) unless it is given
``--preserve-status``."""


def busy_cpu_warning(load: float, cores: int, threads: int) -> str | None:
    """The warning for a CPU as busy as ``load`` (the 1-minute load average) on the ``cores``
    this process may use, when torch would use ``threads`` threads, or None: a warning when
    ``threads`` > 1 and ``load`` >= ``cores``. Torch's threads then wait for each other and for
    the other work, and a run (and ``memnb plan``'s calibration, so its estimates) can be many
    times slower than with one thread."""
    from memnb.prose import counted

    if threads <= 1 or load < cores:
        return None
    return (f"the load average is {load:.2f} on the {counted(cores, 'core')} this process may "
            f"use, and torch would use {counted(threads, 'thread')}: on a CPU this busy, "
            "training and the plan's calibration may run many times slower; prefix the command "
            "with OMP_NUM_THREADS=1, or wait for the load to fall")


def cpu_load() -> tuple[float, int, int] | None:
    """This machine's 1-minute load average, the cores this process may use
    (``os.sched_getaffinity`` where there is one, else ``os.cpu_count()``) and torch's thread
    count, the arguments of :func:`busy_cpu_warning`; None where there is no load average."""
    import torch

    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average on this platform
        return None
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)
    return load, cores, torch.get_num_threads()


def _warn_if_busy(command: str) -> None:
    """Print :func:`busy_cpu_warning` of :func:`cpu_load` as ``memnb <command>: warning: …``,
    if there is one."""
    measured = cpu_load()
    warning = None if measured is None else busy_cpu_warning(*measured)
    if warning:
        error_line(command, "warning", warning)


def bar_open() -> bool:
    """Whether a progress bar (tqdm) is open and drawn: its line on stderr, a terminal or a log
    file, then ends without a newline."""
    from tqdm import tqdm

    return any(not getattr(bar, "disable", True) for bar in list(getattr(tqdm, "_instances", ())))


def close_bars() -> None:
    """Close every open progress bar (tqdm), the latest first, each ending its line where it
    stopped. A run stopped by an error leaves its bars open until they are collected, and a
    bar collected after the error line would draw itself again below it."""
    from tqdm import tqdm

    for bar in reversed(list(getattr(tqdm, "_instances", ()))):
        with contextlib.suppress(Exception):  # a bar whose stream is gone: nothing to tidy
            bar.close()


ENDING_KINDS = ("error", "partial", "interrupted")
"""The kinds of :func:`error_line` that end a command: their line closes open bars first."""


def one_line(message: str) -> str:
    """``message`` on one line: a list of indented lines below a line (a loader's folders
    looked in) is joined to it with ``", "``, other lines with a space. The exception's own text
    is kept for Python callers; only the command line joins it."""
    parts: list[str] = []
    items: list[str] = []
    for line in [*message.splitlines(), ""]:
        if line[:1].isspace() and line.strip():
            items.append(line.strip())
            continue
        if items:
            joined = ", ".join(items)
            parts.append(joined if joined[-1] in ".;:!?" else joined + ".")
            items = []
        if line.strip():
            parts.append(line.strip())
    return " ".join(parts)


def error_line(command: str, kind: str, message: str) -> None:
    """Print ``memnb <command>: <kind>: <message>`` to stderr on one line of its own
    (:func:`one_line`). A line that ends the command (:data:`ENDING_KINDS`) closes the open
    progress bars first (:func:`close_bars`), so that none is drawn again after it; a warning or
    a note leaves them open and starts with a newline while one is drawn (:func:`bar_open`), so
    the message does not follow the bar's text."""
    if kind in ENDING_KINDS:
        close_bars()
    if bar_open():
        print(file=sys.stderr)
    print(f"memnb {command}: {kind}: {one_line(message)}", file=sys.stderr, flush=True)


def _cmd_list(_: argparse.Namespace) -> int:
    from memnb.experiments.registry import load_all, paper_item

    for name, exp in load_all().items():
        print(f"{name:24s} {exp.title}  [{paper_item(name)}]")
        for profile in PROFILES:
            params = exp.profiles[profile]
            # as `memnb run`: the profile's seeds, capped at its max_seeds (or the fixed seeds)
            seeds = exp.default_seeds_run(profile)
            print(f"    {profile:5s} seeds {seeds}  {json.dumps(params, default=str)}")
    return 0


SIGNAL_WORDS = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM"}
"""The signals :func:`memnb.resume.stop_on_signals` stops a run on, as its messages name them."""


def stop_notice(signum: int) -> str:
    """What ``memnb run`` prints on the first stop signal ``signum`` (SIGINT or SIGTERM): the run
    stops at the running group's next evaluation, and either signal sent next stops it at once
    (:func:`memnb.resume.stop_on_signals` gives both the same handler after the first)."""
    first = SIGNAL_WORDS[signum]
    other = " or ".join(word for word in SIGNAL_WORDS.values() if word != first)
    return (f"memnb run: stopping on {first}: the running group saves its state at its next "
            f"evaluation and the finished points are written as a partial run (a second "
            f"{first}, or a {other}, stops at once; the cached points and the last saved state "
            "are kept either way)")


_AT_ONCE = ("stopped at once ({signal}): every point it finished is cached and any training "
            "state it saved is kept, but this call wrote no table or provenance; rerun the same "
            "command to continue")

_SECOND = "a {signal} after the first stop signal"
"""The signal that stopped ``memnb run`` at once: the second of Ctrl-C and SIGTERM, in either
order (:func:`memnb.resume.stop_on_signals`); its kind sets the exit code."""


def _seeds_cap_note(name: str, profile: str, seeds: int | None) -> str | None:
    """Why a run computes fewer seeds than ``--seeds`` asked (its profile's ``max_seeds``, or
    the seeds it always draws with: :meth:`memnb.experiments.registry.Experiment.seeds_run`), or
    None; None also for an unknown experiment or profile, which the run itself refuses with its
    own message."""
    from memnb.experiments.registry import load_all
    from memnb.prose import counted

    exp = load_all().get(name)
    if seeds is None or exp is None or profile not in exp.profiles:
        return None
    run = exp.seeds_run(profile, seeds)
    if run >= seeds:
        return None
    which = "seed 0" if run == 1 else f"seeds 0-{run - 1}"
    if exp.fixed_seeds is not None:
        return (f"{name} always runs {counted(run, 'seed')}, whatever --seeds asks: {seeds} "
                f"asked, {which} run")
    return (f"{name} runs at most {counted(run, 'seed')} under the {profile} profile (its "
            f"max_seeds): {seeds} asked, {which} run")


def _written_seeds_note(name: str, profile: str) -> str | None:
    """What a run without ``--seeds`` does when the written ``full`` result of today's code ran
    more seeds than the profile's default: it continues over those
    (:func:`memnb.results.continued_seeds`); ``None`` otherwise."""
    from memnb.experiments.registry import get
    from memnb.results import continued_seeds

    try:
        exp = get(name)
        continued = continued_seeds(name, profile)
    except (KeyError, ValueError):
        return None
    if continued is None:
        return None
    default = exp.default_seeds_run(profile)
    return (f"{name}: the written `{profile}` result ran {continued[1]} seeds, more than the "
            f"profile's {default}: this run continues over them (--seeds {continued[0]})")


def _cmd_run(args: argparse.Namespace) -> int:
    from memnb import resume
    from memnb.progress import bar_disabled
    from memnb.reruns import rerun_experiment
    from memnb.results import (
        ExperimentFailed,
        TimeLimitReached,
        complete_already,
        load,
        run_experiment,
        shown_path,
    )

    runner = rerun_experiment if args.rerun else run_experiment
    unknown = experiment_name_error(args.experiment)
    bad = unknown or run_arguments_error(args.seeds, args.device, args.executor)
    if bad is not None:  # the name, then the options: before any other refusal, which would
        error_line("run", "error", bad)  # hide them
        return REFUSED
    try:  # reads the written result: a table or provenance that cannot be read is refused
        load(args.experiment, args.profile)  # (memnb.results.ResultFileError), under any profile
        done = None if args.rerun else complete_already(args.experiment, args.profile,
                                                        options=_given_options(args))
    except ValueError as err:
        done = str(err)
    if done is not None:
        error_line("run", "error", done)
        return REFUSED
    unwritable = results_folder_error(args.profile, args.rerun)
    if unwritable is not None:
        error_line("run", "error", unwritable)
        return REFUSED
    try:  # a dataset too small for the profile's grid: refused before any point is computed
        too_few = data_rows_error([args.experiment], args.profile)
    except (ValueError, FileNotFoundError) as err:  # the file checks of the loader it runs
        too_few = dataset_message(err)
    if too_few is not None:
        error_line("run", "error", too_few)
        return REFUSED
    # a run a recorded plan says this device's memory cannot hold; with --executor the workers'
    # memory counts, which this machine cannot measure (it may have no GPU at all)
    if args.profile == "full" and args.executor is None:
        from memnb.planner import PlanFileError, memory_warning

        with contextlib.suppress(ValueError, RuntimeError):  # a device checked further on
            try:
                warning = memory_warning(args.experiment, args.device)
            except PlanFileError as err:  # the run does not need the plans: it goes on
                warning = f"{err} (no memory check from the recorded plans)"
            if warning:
                error_line("run", "warning", warning)
    capped = _seeds_cap_note(args.experiment, args.profile, args.seeds)
    if capped:
        error_line("run", "note", capped)
    continued = None if args.rerun or args.seeds is not None else _written_seeds_note(
        args.experiment, args.profile)
    if continued:
        error_line("run", "note", continued)
    if args.device == "cpu" and args.executor is None:  # the points computed on this CPU
        _warn_if_busy("run")
    try:
        # a first signal comes while the bars are drawn: its notice on a line of its own
        lead = "" if bar_disabled(True) else "\n"
        with resume.stop_on_signals(tuple(SIGNAL_WORDS),
                                    notice=lambda signum: lead + stop_notice(signum)):
            result = runner(args.experiment, args.profile, device=args.device, seeds=args.seeds,
                            executor=args.executor, time_limit_s=args.time_limit,
                            clock_start=args.started)
    except (ValueError, FileNotFoundError) as err:  # bad input, or a dataset not in place
        if isinstance(err, FileNotFoundError) and _in_results(err, args.rerun):
            return _write_failed(err, args)  # a results folder removed while it ran
        error_line("run", "error", dataset_message(err))
        return REFUSED
    except ExperimentFailed as err:  # a fault of the code or of its data, while computing
        if args.traceback:
            traceback.print_exc()
        error_line("run", "error", str(err) + ("" if args.traceback else
                                               " (rerun with --traceback to see where)"))
        return FAILED
    except TimeLimitReached as err:
        error_line("run", "partial", str(err))
        _print_paused_notice(err.cache_dir)
        return PARTIAL
    except KeyboardInterrupt:  # a Ctrl-C after a first stop signal (resume.stop_on_signals)
        error_line("run", "interrupted", _AT_ONCE.format(signal=_SECOND.format(signal="Ctrl-C")))
        return INTERRUPTED
    except SystemExit as err:  # a SIGTERM after a first stop signal exits with 128 + SIGTERM
        if err.code != TERMINATED:
            raise
        error_line("run", "interrupted", _AT_ONCE.format(signal=_SECOND.format(signal="SIGTERM")))
        return int(err.code)
    except OSError as err:  # the table, provenance or call record could not be written
        return _write_failed(err, args)
    print(f"{len(result.table)} rows written to {result.csv_path}")
    read_note = _points_read_note(result)
    if read_note:
        error_line("run", "note", read_note)
    if result.provenance_kept:
        print(f"provenance kept at {result.provenance_path}")
    else:
        print(f"provenance written to {result.provenance_path}")
    if not result.complete:
        prov = result.provenance
        print(f"memnb run: partial: stopped {prov['stopped']} with {prov['points_done']} of "
              f"{prov['points_done'] + prov['points_missing']} points; every finished point is "
              "cached: rerun the same command to continue", file=sys.stderr)
        cache = result.csv_path.parent / ".cache" / args.experiment
        if args.profile == "full":  # a run that spans sessions resumes from what is committed
            print("memnb run: to continue it from another checkout, commit the table, its "
                  f"provenance and its point cache: git add -f {shown_path(cache)}/*.json",
                  file=sys.stderr)
        _print_paused_notice(cache)
        return PARTIAL
    return 0


def experiment_name_error(name: str) -> str | None:
    """Why ``memnb run`` cannot run ``name``, in one line, or ``None`` for a registered
    experiment: a chapter's name (``dana``) lists that chapter's experiments and says that
    ``memnb plan`` takes a chapter; a mistyped name gets the closest names
    (:func:`memnb.results.close_names`) and a pointer to ``memnb list``; any other name, the
    registry's message listing every experiment (:func:`memnb.experiments.registry.get`)."""
    from memnb.experiments.registry import get, load_all
    from memnb.results import close_names

    names = list(load_all())
    if name in names:
        return None
    chapter = [n for n in names if n.split(".")[0] == name]
    if chapter:
        return (f"{name!r} is a chapter, and `memnb run` takes one experiment: "
                f"{', '.join(chapter)} (`memnb plan {name}` takes a chapter)")
    guess = close_names(name, names)
    if guess:
        return f"unknown experiment {name!r}; {guess} (see `memnb list`)"
    try:
        get(name)
    except ValueError as err:
        return str(err)
    return None


def data_rows_error(names: list[str], profile: str) -> str | None:
    """The first :func:`memnb.dataset_files.rows_error` of the experiments ``names`` under
    ``profile`` (a dataset file with fewer usable rows than a point of the grid asks for), or
    ``None``."""
    from memnb.dataset_files import rows_error

    for name in names:
        wrong = rows_error(name, profile)
        if wrong is not None:
            return wrong
    return None


def _given_options(args: argparse.Namespace) -> list[str]:
    """The options of a ``memnb run`` other than the experiment and profile, as given, so that
    a command it suggests repeats them: ``--seeds``, ``--device`` (when not ``cpu``),
    ``--executor`` and ``--time-limit``."""
    given = [("--seeds", args.seeds), ("--device", None if args.device == "cpu" else args.device),
             ("--executor", args.executor), ("--time-limit", args.time_limit)]
    return [f"{flag} {_as_typed(value)}" for flag, value in given if value is not None]


def _as_typed(value: object) -> str:
    """``value`` as a command line takes it back: a float in its shortest form that reads back
    as the same number (``90`` for 90.0, ``12345.67``, never a rounded ``1.23457e+06``)."""
    if not isinstance(value, float):
        return str(value)
    short = f"{value:g}"
    return short if float(short) == value else repr(value)


def run_arguments_error(seeds: int | None, device: str, executor: str | None) -> str | None:
    """Why ``memnb run``'s ``--seeds``, ``--device`` or ``--executor`` cannot be used, or None:
    the checks and messages of :func:`memnb.results.run_experiment` (``seeds`` in
    ``1..``:data:`memnb.results.MAX_SEEDS`), made before any refusal that looks at the written
    results (:func:`memnb.results.complete_already`), which would otherwise hide them. The
    command line refuses ``--seeds`` out of that range when it reads it (:func:`_seed_count`);
    ``seeds`` is checked here for Python callers (``scripts/precision_check.py``).

    ``--device`` is checked where the points are computed: in-process, on this machine
    (:func:`memnb.results.check_device`); with a ``dask://`` ``--executor``, on the cluster's
    workers, after the address's form (:func:`memnb.distributed.scheduler_address`) and the
    scheduler (:func:`memnb.distributed.check_worker_device`), so a submitting machine without a
    GPU can run ``--device cuda`` on GPU workers, and workers without it are named."""
    from memnb.results import MAX_SEEDS, check_device
    from memnb.validation import check_int

    try:
        if seeds is not None:
            check_int("seeds", seeds, 1, MAX_SEEDS)
        if executor is None:
            check_device(device)
        else:
            from memnb.distributed import check_worker_device

            check_worker_device(executor, device)  # the forms first, then the cluster
    except ValueError as err:
        return str(err)
    return None


def _results_roots(rerun: bool) -> list[Path]:
    """The results roots a run writes into: :func:`memnb.paths.results_dir`, and for
    ``--rerun`` its ``rerun/`` folder too (:func:`memnb.reruns.rerun_root`)."""
    from memnb.paths import results_dir

    roots = [results_dir()]
    if rerun:
        from memnb.reruns import rerun_root

        roots.append(rerun_root())
    return roots


_PROBE = ".memnb-write-check-"
"""The name prefix of the file :func:`results_folder_error` writes and deletes."""


def results_folder_error(profile: str, rerun: bool = False) -> str | None:
    """Why the results folder of ``profile`` cannot take a run's files, or None.

    For each results root (:func:`_results_roots`), ``<root>/<profile>/.cache`` (where the point
    caches go, :func:`memnb.results.point_cache_dir`) is created and a small file written in it
    and deleted again; the folders this check created are removed again, so a run refused later
    leaves nothing. An ``OSError`` (a read-only folder, ``MEMNB_RESULTS_DIR`` naming a file, a
    full disk) is said in one line naming the folder and ``MEMNB_RESULTS_DIR``, before any point
    is computed."""
    from memnb.paths import results_dir

    for root in _results_roots(rerun):
        folder = root / profile / ".cache"
        created = []
        probe = folder
        while not os.path.lexists(probe) and probe != probe.parent:
            created.append(probe)
            probe = probe.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=folder, prefix=_PROBE):
                pass
        except OSError as err:
            reason = err.strerror or str(err)
            if err.filename is not None:  # the folder, for the probe file written in it
                named = Path(os.fsdecode(err.filename))
                reason += f": {named.parent if named.name.startswith(_PROBE) else named}"
            return (f"results folder {results_dir()} is not writable (MEMNB_RESULTS_DIR): "
                    f"{reason}; set MEMNB_RESULTS_DIR to a writable folder")
        finally:
            for made in created:  # deepest first; one another process filled stays
                with contextlib.suppress(OSError):
                    made.rmdir()
    return None


DOWNLOAD_SENTENCE = ("Automatic download needs the optional `datasets` package and network "
                     "access.")
"""The last sentence of a missing text dataset's message (:func:`memnb.data.text.locate`),
true only of a loader that may download: :func:`dataset_message` leaves it out for one that
ran with download off (Mahdavi et al.'s Table 3 reads IMDb that way)."""


def download_was_off(err: BaseException) -> bool:
    """Whether ``err`` was raised by :func:`memnb.data.text.locate` called with
    ``download=False``, as its traceback's frames show; ``False`` when no frame of it is there
    (an error of another loader, or one passed on from a dask worker)."""
    from memnb.data.text import locate

    tb = err.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is locate.__code__:
            return tb.tb_frame.f_locals.get("download") is False
        tb = tb.tb_next
    return False


def dataset_message(err: Exception) -> str:
    """``err``'s message as ``memnb run`` and ``memnb plan`` print it: for a missing dataset,
    without the loader's :data:`DOWNLOAD_SENTENCE` where the loader ran with download off
    (:func:`download_was_off`), and with :func:`_dataset_pointer` after it."""
    said = str(err)
    if download_was_off(err):
        said = said.replace(" " + DOWNLOAD_SENTENCE, "").replace(DOWNLOAD_SENTENCE, "")
    return said + _dataset_pointer(err)


def _dataset_pointer(err: Exception) -> str:
    """The words added to a missing dataset's message: where ``data/README.md`` gives each
    dataset's source, conversion and SHA-256. For IMDb it adds that the committed results read
    the subset described there: the loader's own hint (:mod:`memnb.data.text`) exports the whole
    train split, which gives other numbers. For the ImageNet sample it adds that the committed
    results read the set prepared as described there: the loader's hint
    (:mod:`memnb.data.images`) says that any size works, which is true of loading, but another
    set or another preprocessing gives other numbers. Empty for any other error, and for a
    ``MEMNB_DATA_DIR`` that is not a folder (:class:`memnb.paths.DataDirError`), whose message
    names ``data/README.md`` already."""
    from memnb.paths import DataDirError

    if not isinstance(err, FileNotFoundError) or isinstance(err, DataDirError):
        return ""
    from memnb.data.images import IMAGENET_SAMPLES
    from memnb.data.text import IMDB_FILE

    said = str(err)
    which = ""
    if IMDB_FILE in said:
        which = ("; the committed IMDb results read the subset of the train split described "
                 "there, not the whole split exported above, which gives other numbers")
    elif IMAGENET_SAMPLES in said:
        which = ("; the committed ImageNet results read the images as prepared there (source, "
                 "resize, crop and JPEG quality): any size loads, but another set of images "
                 "or another preprocessing gives other numbers")
    return (" (data/README.md gives each dataset's source, the conversion to make and the "
            f"SHA-256 of the files the committed results were computed from{which})")


def _in_results(err: OSError, rerun: bool) -> bool:
    """Whether the file ``err`` names lies in a results root the run writes into."""
    if err.filename is None:
        return False
    path = Path(os.fsdecode(err.filename)).absolute()
    return any(path.is_relative_to(root.absolute()) for root in _results_roots(rerun))


def _write_failed(err: OSError, args: argparse.Namespace) -> int:
    """Say in one line that ``memnb run`` could not write its results (``err``), and that the
    points it finished are kept in the point cache; the traceback first with ``--traceback``.
    Returns :data:`FAILED`."""
    from memnb.results import point_cache_dir, shown_path

    if args.traceback:
        traceback.print_exc()
    root = _results_roots(args.rerun)[-1]
    cache = shown_path(point_cache_dir(args.experiment, args.profile, root))
    reason = " ".join(str(err).split())
    error_line("run", "error", (
        f"could not write the results: {type(err).__name__}: {reason}; every point it "
        f"finished is kept in the point cache {cache}: make the results folder writable (or "
        "set MEMNB_RESULTS_DIR to a writable folder) and rerun the same command to continue"
        + ("" if args.traceback else " (rerun with --traceback to see where)")))
    return FAILED


def _points_read_note(result: ExperimentResult) -> str | None:
    """What a run read from its point cache rather than computed, or None when it read nothing:
    ``"4 of 6 points read from the point cache (computed by earlier calls), 2 computed now"``;
    for a call that computed none of a complete run's points, that the provenance of the call
    that computed them is kept (:func:`memnb.results.run_experiment`)."""
    from memnb.prose import counted

    read, computed = result.points_read, result.points_computed
    if not read:
        return None
    done = "" if result.complete else " finished so far"
    note = (f"{read} of the {counted(read + computed, 'point')}{done} read from the point cache "
            f"(computed by earlier calls), {computed} computed now")
    if result.provenance_kept:
        started = str(result.provenance.get("started_utc") or "?")
        note += (f"; the provenance of the run that computed them ({started}) is kept, with its "
                 "commit and wall time")
    return note


def _print_paused_notice(cache: Path | None) -> None:
    """Print :func:`paused_notice` of the point cache ``cache`` to stderr, if it has one."""
    notice = None if cache is None else paused_notice(cache)
    if notice:
        print(f"memnb run: {notice}", file=sys.stderr)


def paused_notice(cache: Path) -> str | None:
    """What a partial run leaves in ``cache/paused`` (:mod:`memnb.resume`: the saved state of
    the group in progress), and that it continues that group in this checkout only: the files
    are not committed (too large), so another checkout trains the group from its start. For a
    point cache outside the checkout (``MEMNB_RESULTS_DIR`` elsewhere), in this results folder
    only. ``None`` when nothing is paused."""
    from memnb.paths import repo_root
    from memnb.results import shown_path

    files = sorted((cache / "paused").glob("*.pt"))
    if not files:
        return None
    size = sum(f.stat().st_size for f in files) / 2**20
    many = len(files) > 1
    where = (("this checkout only (not committed)", "another checkout")
             if cache.resolve().is_relative_to(repo_root().resolve())
             else ("this results folder only", "a run into another results folder"))
    return (f"{len(files)} paused training state{'s' * many} ({size:.1f} MiB) in "
            f"{shown_path(cache / 'paused')} continue{'' if many else 's'} the group in "
            f"progress in {where[0]}; {where[1]} trains that group from its start")


def _cmd_plan(args: argparse.Namespace) -> int:
    from memnb.planner import experiments_of, plan, plan_markdown
    from memnb.results import check_device, device_description, load

    try:
        names = experiments_of(args.target)  # the target first, then the device
        chosen = {} if args.calibrate is None else {"calibrate": args.calibrate}
        check_device(args.device)
        for name in names:  # a written result that cannot be read: before any calibration
            load(name, args.profile)
        too_few = data_rows_error(names, args.profile)
        if too_few is not None:
            raise ValueError(too_few)
        if args.device == "cpu":  # calibrated on this CPU
            _warn_if_busy("plan")
        table = plan(args.target, args.profile, device=args.device, **chosen)
    except (ValueError, FileNotFoundError) as err:  # bad input, or a dataset not in place
        error_line("plan", "error", dataset_message(err))
        return REFUSED
    if args.json:
        print(table.to_json(orient="records", indent=1))
        return 0
    print(plan_markdown(table, device_name=device_description(args.device)))
    return 0


def scorecard_folder_error() -> str | None:
    """Why ``memnb scorecard`` has no results folder to read, or None: a results folder
    (:func:`memnb.paths.results_dir`) that does not exist would read as every experiment not
    run, so it is refused, naming ``MEMNB_RESULTS_DIR``."""
    from memnb.paths import results_dir

    folder = results_dir()
    if folder.is_dir():
        return None
    env = os.environ.get("MEMNB_RESULTS_DIR")
    said = (f"MEMNB_RESULTS_DIR is set to {env!r}, which is not an existing folder" if env
            else f"the results folder {folder} does not exist (MEMNB_RESULTS_DIR is not set)")
    return (f"{said}: there are no results to judge; point MEMNB_RESULTS_DIR at a results "
            "folder (the one `memnb run` wrote into, holding full/, quick/ or ci/)"
            + (", or unset it to read data/results" if env else ""))


def _cmd_scorecard(args: argparse.Namespace) -> int:
    from memnb.paths import papers_dir_candidates
    from memnb.scorecard import build_scorecard, to_frame, to_json
    from memnb.scorecard.core import status_words
    from memnb.scorecard.render import summary_sentence

    missing = scorecard_folder_error()
    if missing is not None:
        error_line("scorecard", "error", missing)
        return REFUSED
    papers = None if args.paper is None else list(dict.fromkeys(args.paper))  # each once
    try:
        papers_dir_candidates()  # a MEMNB_PAPERS_DIR that is not a folder, whichever rows read
        rows = build_scorecard(args.profile, papers, progress=True)
    except (ValueError, FileNotFoundError) as err:  # bad input, or a dataset not in place
        error_line("scorecard", "error", str(err))
        return REFUSED
    if args.json:
        print(to_json(rows))
        return 0
    frame = to_frame(rows)
    for paper, part in frame.groupby("paper", sort=False):
        print(f"== {paper}")
        for r in part.itertuples():
            tag = " (ours)" if r.ours else ""
            print(f"  [{status_words(r):^19s}] {r.item}{tag}: {r.claim}")
            print(f"      criterion: {r.criterion}")
            print(f"      measured:  {r.measured}")
            print(f"      evidence:  {r.evidence}")
    # the statuses counted per group (the papers' items, earlier versions, ours), as the book
    # counts them, a trend not decided counted apart among the trends
    print(summary_sentence(rows))
    return 0


def _whole_number(text: str) -> int | None:
    """``text`` as a whole number when it is written in plain ASCII digits, else ``None``
    (``int`` would also read ``1_0`` as 10, `` 3`` as 3 and other scripts' digits)."""
    return int(text) if text.isascii() and text.isdigit() else None


def _seed_count(text: str) -> int:
    """``--seeds``'s value: a whole number in plain digits in 1..:data:`memnb.results.MAX_SEEDS`;
    any other value (``-1``, ``0``, ``2.5``, ``1001``) is refused here, with one message naming
    the option and that range."""
    from memnb.results import MAX_SEEDS

    value = _whole_number(text)
    if value is None or not 1 <= value <= MAX_SEEDS:
        raise argparse.ArgumentTypeError(
            f"must be a whole number of seeds in 1..{MAX_SEEDS}; got {text!r}")
    return value


MAX_TIME_LIMIT_DAYS = 30
"""The longest ``--time-limit``, in days. A longer one (``1e300``) would mean no limit, as
``inf`` would, and is refused as ``inf`` is; leave the option out to run without a limit."""

MAX_TIME_LIMIT_S = MAX_TIME_LIMIT_DAYS * 24 * 3600.0
""":data:`MAX_TIME_LIMIT_DAYS` in seconds."""


def _positive_seconds(text: str) -> float:
    """``--time-limit``'s value: a number of seconds > 0 and at most :data:`MAX_TIME_LIMIT_S`
    (``inf``, ``nan`` and ``1e300``, which would mean no limit, are refused as 0 and negative
    numbers are)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (math.isfinite(value) and 0 < value <= MAX_TIME_LIMIT_S):
        raise argparse.ArgumentTypeError(
            f"must be a number of seconds > 0 and at most {MAX_TIME_LIMIT_S:.0f} "
            f"({MAX_TIME_LIMIT_DAYS} days; leave --time-limit out to run without a limit); "
            f"got {text!r}")
    return value


def _calibrated_groups(text: str) -> int:
    """``--calibrate``'s value: a whole number >= 2 in plain digits. No upper bound: a count
    above an experiment's groups calibrates each of them once (:func:`memnb.planner.plan`)."""
    value = _whole_number(text)
    if value is None or value < 2:
        raise argparse.ArgumentTypeError(
            f"must be an integer >= 2 (the first and the last group); got {text!r}")
    return value


def help_epilog(command: str | None = None) -> str:
    """The end of ``memnb --help`` (``command`` None) and ``memnb run --help`` (``"run"``):
    where ``memnb run`` writes its results, the environment variables the commands read and
    ``memnb run``'s exit codes, from the constants the code returns (:data:`REFUSED`,
    :data:`PARTIAL`, …) and the results folder this call would use
    (:func:`memnb.paths.results_dir`)."""
    from memnb.paths import results_dir

    codes = [(0, "the table is complete"),
             (FAILED, "the experiment failed while computing, or its results could not be "
                      "written (the finished points stay cached)"),
             (REFUSED, "refused before computing: bad arguments, a dataset missing or not "
                       "usable, a results folder that cannot be written, a complete full "
                       "result already written (the message says which)"),
             (PARTIAL, "stopped at --time-limit or by a first Ctrl-C or SIGTERM: every "
                       "finished point is cached; rerun the same command to continue"),
             (INTERRUPTED, "stopped at once by a Ctrl-C after a first Ctrl-C or SIGTERM"),
             (TERMINATED, "stopped at once by a SIGTERM after a first Ctrl-C or SIGTERM")]
    width = max(len(str(code)) for code, _ in codes) + 2
    lines = ["where the results go:",
             "  memnb run writes <results root>/<profile>/<experiment>.csv and .json, with its",
             "  point cache in <results root>/<profile>/.cache/; the results root is",
             "  $MEMNB_RESULTS_DIR, else data/results in the checkout",
             f"  (for this call: {results_dir()})",
             "",
             "environment variables:",
             "  MEMNB_RESULTS_DIR  the results root, written by run and read by scorecard",
             "                     (run creates it; set it to compute away from data/results)",
             "  MEMNB_DATA_DIR     a folder holding mnli/, imdb/ and imagenet-samples/, tried",
             "                     before data/external and ../shared/data (data/README.md)",
             "  MEMNB_PAPERS_DIR   the papers' folder (dana_official_results/, sources/), tried",
             "                     before ../shared/papers",
             "  OMP_NUM_THREADS    torch's CPU threads; 1 on a shared or busy CPU, where more",
             "                     threads can run many times slower",
             "",
             "exit codes of memnb run:"]
    lines += [textwrap.fill(text, 80, initial_indent=f"  {code:<{width}}",
                            subsequent_indent=" " * (2 + width)) for code, text in codes]
    lines += ["", textwrap.fill(
        f"Under `timeout N memnb run ...` the shell sees timeout's own exit code "
        f"{TIMEOUT_CODE} (its --preserve-status passes on memnb's); --time-limit makes memnb "
        "stop itself, cleanly, with its own exit code.", 80)]
    if command is None:
        lines += ["", f"memnb plan and memnb scorecard exit with 0, or with {REFUSED} when "
                  "refused."]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``memnb`` command; ``get_default("commands")`` on it gives each
    command's own parser by name (``["run"]``: its usage, help and ``error``)."""
    from memnb.planner import CALIBRATED_GROUPS
    from memnb.results import MAX_SEEDS

    raw = argparse.RawDescriptionHelpFormatter  # the epilog's lines as written
    parser = argparse.ArgumentParser(prog="memnb", formatter_class=raw, epilog=help_epilog(),
                                     description=__doc__.splitlines()[0].replace("``", ""))
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="every experiment of every chapter, with its profiles")
    run = sub.add_parser("run", help="run one experiment and write CSV + provenance",
                         formatter_class=raw, epilog=help_epilog("run"))
    run.add_argument("experiment", help="chapter.experiment, e.g. dana.exp1 (see `memnb list`)")
    run.add_argument("--profile", choices=PROFILES, default="quick",
                     help="sizes to run (default quick)")
    run.add_argument("--device", default="cpu", help="cpu or cuda[:N] (default cpu)")
    run.add_argument("--seeds", type=_seed_count, default=None,
                     help=f"number of seeds, 1..{MAX_SEEDS} (default: the profile's)")
    run.add_argument("--executor", default=None,
                     help="dask://HOST:PORT to spread the sweep over a dask cluster")
    run.add_argument("--time-limit", type=_positive_seconds, default=None, metavar="SECONDS",
                     help="stop starting groups of points that would not end within SECONDS "
                          "and pause a group still training then, at its next evaluation (its "
                          "state saved; the run may end that much after SECONDS); finished "
                          "points stay cached and the exit code is 3 when partial. SECONDS "
                          "count from when memnb starts reading its arguments (Python's own "
                          "start-up before it is not counted); 5%% of them (at most 10 s) are kept "
                          "for writing the results, and a loop pauses 5 s before the limit. "
                          f"At most {MAX_TIME_LIMIT_S:.0f} ({MAX_TIME_LIMIT_DAYS} days)")
    run.add_argument("--rerun", action="store_true",
                     help="recompute a committed result of earlier code or profile with "
                          "today's in data/results/rerun/ ($MEMNB_RESULTS_DIR/rerun/ when "
                          "MEMNB_RESULTS_DIR is set), leaving it in place until the rerun is "
                          "complete, then replace it (the earlier one kept under superseded/)")
    run.add_argument("--traceback", action="store_true",
                     help="when the experiment fails while computing, or its results cannot "
                          "be written (exit code 1), print the traceback before the one-line "
                          "error")
    planner = sub.add_parser("plan", help="runs, model-steps, FLOPs and estimated wall time of "
                             "experiments, from a short calibration on this device")
    planner.add_argument("target", help="an experiment (dana.exp1), a chapter (dana) or all")
    planner.add_argument("--profile", choices=PROFILES, default="full",
                         help="sizes to plan (default full)")
    planner.add_argument("--device", default="cpu", help="cpu or cuda[:N] (default cpu)")
    planner.add_argument("--calibrate", type=_calibrated_groups, default=None, metavar="GROUPS",
                         help="groups calibrated per experiment, spread over its grid (at least "
                              f"2; default {CALIBRATED_GROUPS}; more than an experiment has "
                              "calibrates each of its groups)")
    planner.add_argument("--json", action="store_true", help="print the rows as JSON")
    card = sub.add_parser("scorecard", help="the reproduction scorecard: every numbered item of "
                          "the papers with a status computed from the results")
    card.add_argument("--profile", choices=PROFILES, default="full",
                      help="results to judge (default full, as the book's scorecard page: "
                           "full runs, and quick ones where no full run of today's full "
                           "profile exists; quick or ci judges only that profile's runs)")
    card.add_argument("--paper", action="append", default=None,
                      help="only this paper (dana, mahdavi, kajitsuka, compare); repeatable")
    card.add_argument("--json", action="store_true",
                      help="print a JSON list of objects (paper, item, claim, criterion, "
                           "measured, evidence, status, ours, read_from: the runs a row read, "
                           "decided: false for a trend not decided)")
    parser.set_defaults(commands=sub.choices)  # {"run": run's parser, …}, for usage and help
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``memnb`` console script."""
    started = time.monotonic()
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # said by the command's own parser: `memnb list: error: …`, with its usage
        command_parser = parser.get_default("commands")[args.command]
        command_parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.started = started  # --time-limit counts from here (interpreter start-up not included)
    handler = {"list": _cmd_list, "run": _cmd_run, "scorecard": _cmd_scorecard,
               "plan": _cmd_plan}[args.command]
    try:
        with warnings.catch_warnings():
            warnings.showwarning = functools.partial(_show_warning, args.command)
            code = handler(args)
        sys.stdout.flush()  # a reader gone (`memnb list | head -1`) is found here, not at exit
    except BrokenPipeError:
        _quiet_stdout()
        return 1
    return code


def _quiet_stdout() -> None:
    """Point stdout at ``os.devnull`` after its reader went away (Python's recipe for
    ``BrokenPipeError``), so that the flush at exit raises no second error."""
    with contextlib.suppress(OSError, ValueError):  # a stdout without a file descriptor
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _show_warning(command: str, message: Warning | str, category: type[Warning], *_: Any,
                  **__: Any) -> None:
    """Print a warning raised during ``memnb <command>`` as ``memnb <command>: warning: …`` on a
    line of its own (:func:`error_line`: below an open progress bar), without the source line
    Python's default adds."""
    error_line(command, "warning", str(message))


if __name__ == "__main__":
    raise SystemExit(main())
