"""The time budget of a run: whether the next group of points can still end before the deadline.

``memnb run … --time-limit SECONDS`` runs its sweeps inside :func:`time_limit`. Before each group
of points (one packed stack of models, :mod:`memnb.sweep`) the sweep asks the budget whether the
group would end before the deadline. The estimate scales with the group's size: the slowest time
per point of the groups finished so far in this run, times the group's points, because a packed
group trains its members together and its time grows with their number (a group of 5 models after
one of 30 is estimated at a sixth of its time, not at the whole of it). Before any group has
finished there is no estimate and the group starts. A group that continued from a paused state
(:mod:`memnb.resume`) is not counted: it ran only the steps it had left.

The estimate is no bound. Where it is short (on a GPU a small group uses the device less well
than a large one, so its time per point is higher), the group's training runs save their state and
pause at the deadline (:func:`memnb.resume.group_checkpoint`), and the next invocation continues
them, so an estimate that is too low loses no work; one that is too high leaves time unused.

When a run stops decides which points one invocation computes, never their numbers, so this module
is not part of the code fingerprint (:mod:`memnb.fingerprint`): a change here keeps every cached
point.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from memnb.validation import check_int

Point = dict[str, Any]


@dataclass
class TimeBudget:
    """The time a run may take, and what the sweeps inside it finished and left undone."""

    deadline: float
    """``time.monotonic()`` reading after which no group may still be running."""
    seconds_per_point: float = 0.0
    """The slowest time per point of the whole groups finished so far (0 before the first)."""
    stopped: bool = False
    done: int = 0
    missing: list[Point] = field(default_factory=list)

    def left(self) -> float:
        """Seconds left before the deadline."""
        return self.deadline - time.monotonic()

    def estimate_s(self, points: int) -> float:
        """The estimated time of a group of ``points`` points: :attr:`seconds_per_point` times
        ``points`` (0 before any group has finished)."""
        return self.seconds_per_point * check_int("points", points, 1)

    def allows_group(self, points: int) -> bool:
        """Whether a group of ``points`` points, at the slowest rate seen, ends before the
        deadline."""
        return self.left() > self.estimate_s(points)

    def record_group(self, points: int, seconds: float) -> None:
        """Count a whole group of ``points`` points that took ``seconds`` (one that continued from
        a paused state is not to be recorded: it ran only the steps it had left)."""
        per_point = seconds / check_int("points", points, 1)
        self.seconds_per_point = max(self.seconds_per_point, per_point)


_ACTIVE: list[TimeBudget] = []


@contextlib.contextmanager
def time_limit(seconds: float, *, start: float | None = None) -> Iterator[TimeBudget]:
    """Within the block, sweeps stop starting groups that would not end within ``seconds`` of
    ``start`` (a ``time.monotonic()`` reading; default: now)."""
    if not seconds > 0:
        raise ValueError(f"time limit must be > 0 seconds; got {seconds!r}")
    budget = TimeBudget((time.monotonic() if start is None else start) + seconds)
    _ACTIVE.append(budget)
    try:
        yield budget
    finally:
        _ACTIVE.remove(budget)


def active() -> TimeBudget | None:
    """The budget of the innermost :func:`time_limit` block, or ``None`` outside one."""
    return _ACTIVE[-1] if _ACTIVE else None
