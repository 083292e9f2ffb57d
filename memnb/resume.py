"""Resumable training groups: a packed stack that outlives a time limit pauses and continues.

A GPU command lasts at most ten minutes, yet one packed group of the papers' longest protocols
(300,000 steps for Mahdavi et al.'s Fig. 2c and Fig. 3) can take longer than that. So, inside a
sweep, every training run of a group saves its whole loop state (parameters, Adam moments, best
checkpoint, early-stop flags, history, the mini-batch streams' generator states) at evaluation
boundaries: every :data:`SAVE_EVERY_S` seconds, and before the sweep's deadline
(:func:`memnb.budget.time_limit`) when the next chunk of steps would not end before it. In the
latter case the run raises :class:`Paused`; the sweep stops there, with the group's points
missing, and the next run of the same command loads the state and continues the loop from the
same step. The state is restored bit for bit, so a paused and resumed run gives the numbers an
uninterrupted one gives (tested).

A run can also be asked to stop before its deadline (:func:`request_stop`; ``memnb run`` does so
on the first Ctrl-C or SIGTERM, :func:`stop_on_signals`): the training loops pause as at a
deadline, at their next evaluation, and the sweep's time budgets end, so the run writes its
table and provenance as a partial run, as at a time limit.

The files live beside the point cache, ``<cache>/paused/<group>.<code>.call<k>.pt`` (``k``
counts the training runs of a group in order), so the GPU queue's archive of
``data/results/full/`` carries them from one command to the next, and they are removed once the
group's points are cached. A file whose run does not match (another configuration, other
members or data) is ignored and overwritten.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

SAVE_EVERY_S = 60.0
"""Seconds between two saves of a running loop's state (a hard kill loses at most this and
the evaluation interval in progress: saves happen at evaluations)."""

PAUSE_MARGIN_S = 5.0
"""Seconds kept free before the deadline for the save itself."""


class Paused(RuntimeError):
    """A training run saved its state and stopped before the sweep's deadline."""


@dataclass
class GroupCheckpoint:
    """Where the training runs of one group save their state, and until when they may run.

    ``prefix``: the path the run files start with; ``deadline``: a ``time.monotonic()``
    reading to pause before (``None``: never pause, only save).
    """

    prefix: Path
    deadline: float | None = None
    save_every_s: float = SAVE_EVERY_S
    calls: int = field(default=0, init=False)
    #: whether a training run of the group continued from a saved state (its wall time then
    #: covers only the steps left, not the whole group)
    resumed: bool = field(default=False, init=False)

    def next_run(self, signature: Callable[[], str]) -> RunCheckpoint:
        """The checkpoint of the group's next training run (the first, second, ... in order);
        ``signature`` computes what a saved state must match, only when a file is read or
        written."""
        self.calls += 1
        path = self.prefix.with_name(f"{self.prefix.name}.call{self.calls}.pt")
        return RunCheckpoint(path, signature, self.deadline, self.save_every_s, group=self)

    def files(self) -> list[Path]:
        """The run files of this group on disk."""
        folder = self.prefix.parent
        return sorted(folder.glob(f"{self.prefix.name}.call*.pt")) if folder.is_dir() else []

    def clear(self) -> None:
        """Remove the group's run files (its points are cached)."""
        for path in self.files():
            path.unlink(missing_ok=True)


_ACTIVE: list[GroupCheckpoint] = []


@contextlib.contextmanager
def group_checkpoint(prefix: Path, deadline: float | None = None) -> Iterator[GroupCheckpoint]:
    """Within the block, the training runs of :func:`memnb.train.train_members` save their
    state under ``prefix`` and pause before ``deadline``."""
    checkpoint = GroupCheckpoint(Path(prefix), deadline)
    _ACTIVE.append(checkpoint)
    try:
        yield checkpoint
    finally:
        _ACTIVE.remove(checkpoint)


def current() -> GroupCheckpoint | None:
    """The innermost active :func:`group_checkpoint`, if any."""
    return _ACTIVE[-1] if _ACTIVE else None


@dataclass
class RunCheckpoint:
    """The saved state of one training run: loaded at its start, saved at its evaluations."""

    path: Path
    compute_signature: Callable[[], str]
    deadline: float | None
    save_every_s: float
    last_save: float = field(default_factory=time.monotonic)
    #: the group the run belongs to, told when the run continues from a saved state
    group: GroupCheckpoint | None = None

    @functools.cached_property
    def signature(self) -> str:
        """What a saved state must match to be this run's (computed once, when first needed)."""
        return self.compute_signature()

    def load(self) -> dict[str, Any] | None:
        """The saved loop state of this run, or ``None`` (no file, or one of another run)."""
        if not self.path.exists():
            return None
        try:
            saved = torch.load(self.path, map_location="cpu", weights_only=True)
        except (OSError, RuntimeError, EOFError, ValueError, pickle.UnpicklingError):
            return None  # a file cut short by a kill: start again
        if not isinstance(saved, dict) or saved.get("signature") != self.signature:
            return None
        if self.group is not None:
            self.group.resumed = True
        return saved["state"]

    def save(self, state: dict[str, Any]) -> None:
        """Write ``state`` atomically (a kill during the write leaves the previous file)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(f".tmp{os.getpid()}")
        torch.save({"signature": self.signature, "state": state}, partial)
        os.replace(partial, self.path)
        self.last_save = time.monotonic()

    def must_pause(self, chunk_s: float) -> bool:
        """Whether a chunk as long as the last one (``chunk_s`` seconds) would end too close
        to the deadline, or a stop was requested (:func:`request_stop`)."""
        if _STOP.is_set():
            return True
        if self.deadline is None:
            return False
        return time.monotonic() + chunk_s + PAUSE_MARGIN_S > self.deadline

    def due(self) -> bool:
        """Whether :attr:`save_every_s` have passed since the last save."""
        return time.monotonic() - self.last_save >= self.save_every_s


# --- stopping a run on request -------------------------------------------------------------------

_STOP = threading.Event()
_ON_STOP: list[Callable[[], None]] = []


def request_stop() -> None:
    """Ask the running training loops to save their state and pause at their next evaluation
    (as at a deadline), and run the actions registered with :func:`on_stop` (a run ends its
    time budget there, so that no further group starts and the run is written as partial)."""
    _STOP.set()
    for action in list(_ON_STOP):
        action()


def stop_requested() -> bool:
    """Whether a stop was requested (:func:`request_stop`; cleared when a
    :func:`stop_on_signals` block begins or ends)."""
    return _STOP.is_set()


@contextlib.contextmanager
def on_stop(action: Callable[[], None]) -> Iterator[None]:
    """Within the block, :func:`request_stop` also calls ``action`` (at once if a stop was
    already requested)."""
    _ON_STOP.append(action)
    try:
        if _STOP.is_set():
            action()
        yield
    finally:
        _ON_STOP.remove(action)


@contextlib.contextmanager
def stop_on_signals(signals: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM),
                    notice: str | Callable[[int], str] | None = None) -> Iterator[None]:
    """Within the block, the first of ``signals`` requests a graceful stop
    (:func:`request_stop`, printing ``notice`` to stderr, or ``notice(signum)`` for a callable,
    which words it for the signal received); a second one stops at once, as
    Python does by default (:class:`KeyboardInterrupt` for SIGINT, exit status 143 for
    SIGTERM). The handlers are installed only in the main thread, and the previous ones are
    restored on leaving, with the stop request cleared."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in signals}

    def graceful(signum: int, frame: Any) -> None:
        for sig in signals:  # the next signal stops at once
            signal.signal(sig, _at_once)
        text = notice(signum) if callable(notice) else notice
        if text:
            print(text, file=sys.stderr, flush=True)
        request_stop()

    _STOP.clear()
    for sig in signals:
        signal.signal(sig, graceful)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        _STOP.clear()


def _at_once(signum: int, frame: Any) -> None:
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    sys.exit(128 + signum)
