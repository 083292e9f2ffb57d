"""The registry of running ``memnb run`` calls, one small file per call beside a profile's point
caches (``<cache root>/.calls/``).

A call counts the points it computed as the point files of its profile that are new or rewritten
when it ends (:func:`memnb.results._points_written`); another call writing to the same profile's
caches meanwhile would be counted too. :class:`ProfileCalls` registers each call (its pid, host
and start, then its end) so that a call can tell whether another ran during it, and
:meth:`ProfileCalls.note` words that for the provenance (:data:`CONCURRENT_NOTE`). Records of
killed calls (their process gone, or its pid reused by a later process) and of calls ended a
week ago are removed once they cannot overlap a running call.
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path
from typing import Any

#: The provenance field (and invocation field) that names other calls which wrote point files of
#: the same profile during a call (:class:`ProfileCalls`), making its ``points_computed`` an upper
#: bound.
CONCURRENT_NOTE = "points_computed_overlap"

#: How long a finished call's record stays beside the point caches (seconds).
_CALL_RECORD_KEEP_S = 7 * 86400.0


class ProfileCalls:
    """The ``memnb run`` calls on one profile's point caches, one small file each under
    ``<cache root>/.calls/`` (pid, start, and end once finished; not a point file: its suffix is
    ``.call``), so that a call can tell whether another ran while it counted the point files it
    wrote (:func:`memnb.results._points_written` counts every new file of the profile)."""

    def __init__(self) -> None:
        self.path: Path | None = None
        self.started = 0.0

    def start(self, cache_root: Path) -> None:
        """Register this call under ``cache_root`` (a profile's ``.cache``) from now."""
        self.started = time.time()
        folder = cache_root / ".calls"
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"{os.getpid()}-{time.time_ns()}.call"
        self.path.write_text(json.dumps(self._record()))

    def _record(self, **end: float) -> dict[str, Any]:
        return {"pid": os.getpid(), "host": socket.gethostname(), "start": self.started, **end}

    def finish(self) -> None:
        """Record this call's end (a registered call only)."""
        if self.path is not None and self.path.exists():
            self.path.write_text(json.dumps(self._record(end=time.time())))

    def others(self) -> list[int]:
        """The pids of the other calls on the same profile that ran during this one so far: a
        call that has ended overlapped when it ended after this one started; one without an end
        when it started during this one, or when the process that wrote it still runs (alive,
        and started no later than the record: a pid reused by another process does not count).
        A record without an end whose process is gone (a killed call), and one of a call ended
        a week ago, are removed once they cannot overlap this call."""
        if self.path is None:
            return []
        now, found = time.time(), set()
        for path in self.path.parent.glob("*.call"):
            if path == self.path:
                continue
            try:
                record = json.loads(path.read_text())
                pid, start, end = int(record["pid"]), float(record["start"]), record.get("end")
            except (OSError, ValueError, KeyError, TypeError):
                continue
            if record.get("host", socket.gethostname()) != socket.gethostname():
                continue  # a record copied from another machine's results (a GPU's)
            if end is None:
                running = pid != os.getpid() and _process_since(pid, start)
                overlaps = running or start >= self.started
                if not running and start < self.started:
                    path.unlink(missing_ok=True)  # killed before this call began
            else:
                overlaps = float(end) > self.started
                if float(end) < now - _CALL_RECORD_KEEP_S:
                    path.unlink(missing_ok=True)
            if overlaps:
                found.add(pid)
        return sorted(found)

    def note(self) -> dict[str, str]:
        """``{CONCURRENT_NOTE: words}`` when :meth:`others` finds a call, else ``{}``."""
        others = self.others()
        if not others:
            return {}
        return {CONCURRENT_NOTE: (
            f"{'another memnb run call' if len(others) == 1 else 'other memnb run calls'} on "
            f"this profile (pid {', '.join(map(str, others))}) ran during this one: "
            "points_computed counts the point files they wrote too (an upper bound), and "
            "cached_points_reused is a lower bound")}


def _process_since(pid: int, since: float) -> bool:
    """Whether a process ``pid`` exists (another user's counts) and started no later than
    ``since`` (a ``time.time()`` reading, with a second's slack): the process that wrote a
    record at ``since``, not a later one given the same pid. Where the start time cannot be
    read (no ``/proc``), a live process counts."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    started = _process_start_time(pid)
    return started is None or started <= since + 1.0


def _process_start_time(pid: int) -> float | None:
    """When process ``pid`` started (a ``time.time()`` reading), from ``/proc``; ``None`` where
    that cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = int(fields[19])  # field 22 of proc(5), after the pid and the command
        boot = next(float(line.split()[1]) for line in Path("/proc/stat").read_text()
                    .splitlines() if line.startswith("btime "))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None
