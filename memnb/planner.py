"""The cost of an experiment before it runs: runs, model-steps, FLOPs and estimated wall time.

``memnb plan <experiment|chapter> --profile full`` answers "how long would this take here?"
without running the experiment. For each experiment it

1. builds the experiment's grid exactly as ``memnb run`` would, by calling the experiment with
   its sweep intercepted: the points and the packed groups are recorded and nothing is trained
   (only the first sweep is seen: an adaptive search's later rounds depend on its results);
2. calibrates a fixed number of groups spread over the grid (the first and the last, then
   halfway points; a count, not a time budget, so that the same code on the same device always
   calibrates the same groups) on this device: each group's own training code runs, but every call
   of the training loop (:func:`memnb.train.train_members`) is replaced by
   :func:`memnb.train.measure_step` on the same members and data (once per distinct shape),
   which gives the time of one optimiser step, of one evaluation of the training set, and the
   FLOPs of each (counted on one real step with
   :class:`torch.utils.flop_counter.FlopCounterMode`, which counts matrix products and
   attention, not element-wise work); a call whose step is estimated above
   :data:`CALIBRATION_MEMORY_SHARE` of the device's memory (:func:`step_memory_bytes`) is
   measured on its first members only and scaled to all of them, and its row says so;
3. adds up the full number of steps each call would have run: model-steps (members x steps),
   FLOPs and wall time, interpolating per point between calibrated groups (at least the
   first and the last of the grid) for the others.

Estimates overcount in one way (they ignore early stopping at 100 % training accuracy, which ends
many runs sooner) and undercount in another (an adaptive search may need more rounds); their wall
times extrapolate a short calibration and are no bound either way. Experiments that train nothing
(assumption checks, exact constructions) are not timed: their row gives the wall time of their last
recorded run instead, when there is one.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
import os
import re
import sys
import tempfile
import time
import types
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import pandas as pd
import torch

from memnb import sweep
from memnb.experiments.registry import get, load_all, paper_item
from memnb.fingerprint import unwrap
from memnb.prose import markdown_table
from memnb.train import StepCost, measure_step

Point = dict[str, Any]


class _Captured(Exception):
    """Raised by the intercepted sweep once it has recorded its grid."""


@dataclass
class CapturedSweep:
    """The grid of one sweep of an experiment: its points, packed groups and evaluator."""

    points: list[Point]
    groups: list[list[Point]]
    evaluate: Callable[[list[Point]], list]


def capture_sweep(name: str, profile: str, *, seeds: int | None = None,
                  device: str = "cpu") -> CapturedSweep | None:
    """The first sweep experiment ``name`` makes under ``profile``; ``None`` if it makes none.

    The experiment runs with its sweep replaced by a recorder that raises as soon as the grid is
    known, so nothing is evaluated and nothing is cached.
    """
    exp = get(name)
    params = exp.params(profile)
    if seeds is None:
        seeds = exp.seeds_asked(profile)
    captured: list[CapturedSweep] = []

    def record(points: Sequence[Point], evaluate: Callable, *, group_key: Callable | None = None,
               max_group_size: int | None = None, **_: Any) -> pd.DataFrame:
        points = list(points)
        captured.append(CapturedSweep(points, sweep._groups(points, group_key, max_group_size)
                                      if points else [], evaluate))
        raise _Captured

    module = sys.modules[exp.fn.__module__]
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        stack.enter_context(mock.patch.object(sweep, "run_sweep", record))
        if hasattr(module, "run_sweep"):
            stack.enter_context(mock.patch.object(module, "run_sweep", record))
        with suppress(_Captured):
            exp.fn(params, seeds=seeds, device=device, cache_dir=Path(tmp), executor=None)
    return captured[0] if captured else None


def trains(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` (or a function of its module that it calls, at any depth) calls the
    training loop ``train_members``; read from the code, nothing is run."""
    fn = unwrap(fn)
    seen: set[int] = set()
    todo = [fn]
    while todo:
        f = todo.pop()
        code = getattr(f, "__code__", None)
        if code is None or id(code) in seen:
            continue
        seen.add(id(code))
        codes = [code]
        while codes:
            c = codes.pop()
            if "train_members" in c.co_names:
                return True
            codes += [k for k in c.co_consts if isinstance(k, types.CodeType)]
            for n in c.co_names:
                target = f.__globals__.get(n)
                if isinstance(target, types.FunctionType) and target.__module__ == f.__module__:
                    todo.append(target)
    return False


@dataclass
class _Call:
    """One call of the training loop, as the experiment would make it, and its measured cost."""

    members: int
    steps: int
    evaluations: int
    cost: StepCost
    #: How many of the members were timed (fewer than ``members`` when the step would not fit
    #: in the calibration's share of memory, :class:`_Calibration`), and the step's estimated
    #: memory in bytes (:func:`step_memory_bytes`; 0 when not estimated).
    timed: int = 0
    need: float = 0.0

    @property
    def wall_s(self) -> float:
        return self.steps * self.cost.step_s + self.evaluations * self.cost.eval_s

    @property
    def flops(self) -> float:
        return self.steps * self.cost.step_flops + self.evaluations * self.cost.eval_flops


def _signature(members: Sequence[torch.nn.Module], inputs: Any, targets: torch.Tensor,
               config: Any, kwargs: dict[str, Any]) -> tuple:
    """What the cost of a training call depends on: shapes, batch sizes, loss and device."""
    tensors = inputs if isinstance(inputs, tuple) else (inputs,)
    return (len(members), type(members[0]).__name__,
            tuple((k, tuple(v.shape)) for k, v in members[0].state_dict().items()),
            tuple(tuple(t.shape) for t in (*tensors, targets)), config.batch_size,
            config.eval_batch_size, config.loss, config.device, config.tf32,
            bool(kwargs.get("per_member_data")), tuple(kwargs.get("constant_inputs", ())))


#: The share of this device's memory one calibrated training step may take
#: (:func:`memory_bytes`). A step estimated above it is timed on fewer members and scaled
#: (:class:`_Calibration`): on the 24 GiB CPU, one step of a Kajitsuka & Sato training group
#: (50 members on the whole training set) needs about 34 GiB (estimated), and calibrating it
#: with all its members was killed.
CALIBRATION_MEMORY_SHARE = 0.5


def _cgroup_memory_limit() -> int | None:
    """The memory limit of this process's control group, or None where none is set or readable:
    cgroup v2 (``memory.max`` of the group ``/proc/self/cgroup`` names, and of the mount's root)
    and v1 (``memory.limit_in_bytes`` of the memory controller's group); "max" and v1's
    near-2⁶³ "no limit" count as none."""
    root = Path("/sys/fs/cgroup")
    files = [root / "memory.max", root / "memory" / "memory.limit_in_bytes"]
    with suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            hierarchy, controllers, group = (line.split(":", 2) + ["", ""])[:3]
            if hierarchy == "0":
                files.append(root / group.lstrip("/") / "memory.max")
            elif "memory" in controllers.split(","):
                files.append(root / "memory" / group.lstrip("/") / "memory.limit_in_bytes")
    limits = []
    for file in files:
        with suppress(OSError, ValueError):
            value = int(file.read_text().strip())
            if value < 2**60:
                limits.append(value)
    return min(limits) if limits else None


def memory_bytes(device: str) -> int:
    """The memory of ``device``: the GPU's (``cuda``) or this machine's physical memory, capped
    by the process's control-group limit where one is set (``cpu``,
    :func:`_cgroup_memory_limit`)."""
    if torch.device(device).type == "cuda":
        return int(torch.cuda.get_device_properties(torch.device(device)).total_memory)
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    limit = _cgroup_memory_limit()
    return int(total if limit is None else min(total, limit))


def step_memory_bytes(members: Sequence[torch.nn.Module], inputs: Any, targets: torch.Tensor,
                      config: Any, *, per_member_data: bool = False,
                      constant_inputs: Sequence[int] = (), **_: Any) -> float:
    """Estimated peak memory of one training step of all ``members`` together: the tensors
    autograd saves for the backward pass of one member's step (counted with
    :func:`torch.autograd.graph.saved_tensors_hooks` on the first member and its data), twice
    (the backward pass holds gradients of about the same size; on a Kajitsuka & Sato group
    measured peaks were 1.5-1.9x the saved tensors), plus parameters, gradients and Adam's two
    moments, times the number of members."""
    from memnb import train

    _, first_inputs, first_targets, _ = _first_members(
        1, members, inputs, targets, {"per_member_data": per_member_data})
    data = train._TrainingData(first_inputs, first_targets, 1, torch.device(config.device),
                               sample_mask=None, per_member_data=per_member_data,
                               constant_inputs=constant_inputs, loss=config.loss)
    storages: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        storages[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t

    _, params, buffers, forward_all = train._stack(members[:1], data)
    batch = data.full_batch() if config.batch_size is None else train._MiniBatches(
        data, config.batch_size, config.seed).next()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        train._gradients(forward_all, params, buffers, batch, config.loss)
    weights = sum(p.numel() * p.element_size() for p in params.values())
    return float(len(members) * (2 * sum(storages.values()) + 4 * weights))


def _first_members(count: int, members: Sequence[torch.nn.Module], inputs: Any,
                   targets: torch.Tensor, kwargs: dict[str, Any]
                   ) -> tuple[Sequence[torch.nn.Module], Any, torch.Tensor, dict[str, Any]]:
    """The first ``count`` members of a training call with their own data (with
    ``per_member_data``, every input, targets and the sample mask have one row per member)."""
    if not kwargs.get("per_member_data"):
        return members[:count], inputs, targets, kwargs
    cut = {k: (v[:count] if k == "sample_mask" and v is not None else v)
           for k, v in kwargs.items()}
    sliced = (tuple(x[:count] for x in inputs) if isinstance(inputs, tuple)
              else inputs[:count])
    return members[:count], sliced, targets[:count], cut


def _all_members(result: Any, count: int) -> Any:
    """A training result of the first members of a call repeated to ``count`` members (member
    ``i`` takes member ``i mod k``'s numbers), so code after the call sees one per member."""
    k = len(result.accuracy)
    index = torch.arange(count) % k
    history = result.history
    if history is not None and len(history):
        history = pd.concat([history[history["member"] == i % k].assign(member=i)
                             for i in range(count)], ignore_index=True)
    return dataclasses.replace(
        result, best_loss=result.best_loss[index], accuracy=result.accuracy[index],
        final_loss=result.final_loss[index], final_accuracy=result.final_accuracy[index],
        steps_run=result.steps_run[index], history=history,
        last_batches_accuracy=(None if result.last_batches_accuracy is None
                               else result.last_batches_accuracy[index]))


@dataclass
class _Calibration:
    """Replaces ``train_members`` while a group is calibrated: each call is measured by
    :func:`memnb.train.measure_step` (once per distinct shape) instead of being trained.

    A call whose step would take more than :data:`CALIBRATION_MEMORY_SHARE` of ``budget``
    (:func:`step_memory_bytes`) is timed on as many of its first members as fit and scaled
    linearly to all of them (FLOPs are counted per member and scale exactly; time per member
    is taken as constant, which packing on a GPU makes an overestimate); each call records how
    many members were timed and the estimated bytes (:class:`_Call`)."""

    memo: dict[tuple, tuple[StepCost, Any, int, float]]
    budget: float = math.inf
    calls: list[_Call] = field(default_factory=list)
    measuring_s: float = 0.0

    def __call__(self, members: Sequence[torch.nn.Module], inputs: Any, targets: torch.Tensor,
                 config: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        key = _signature(members, inputs, targets, config, kwargs)
        if key not in self.memo:
            count, need = len(members), 0.0
            if math.isfinite(self.budget):
                need = step_memory_bytes(members, inputs, targets, config, **kwargs)
                if need > CALIBRATION_MEMORY_SHARE * self.budget:
                    count = max(1, int(len(members) * CALIBRATION_MEMORY_SHARE * self.budget
                                       / need))
            timed, timed_inputs, timed_targets, timed_kwargs = _first_members(
                count, members, inputs, targets, kwargs)
            cost, untrained = measure_step(timed, timed_inputs, timed_targets, config,
                                           **timed_kwargs)
            if count < len(members):
                scale = len(members) / count
                cost = StepCost(cost.step_s * scale, cost.eval_s * scale,
                                cost.step_flops * scale, cost.eval_flops * scale)
                untrained = _all_members(untrained, len(members))
            self.memo[key] = (cost, untrained, count, need)
        cost, untrained, timed, need = self.memo[key]
        self.calls.append(_Call(len(members), config.steps,
                                math.ceil(config.steps / config.eval_every) + 1, cost,
                                timed, need))
        self.measuring_s += time.perf_counter() - started
        return dataclasses.replace(untrained, models=[copy.deepcopy(m) for m in members])


@dataclass
class ExperimentPlan:
    """The planned cost of one experiment under one profile on one device."""

    experiment: str
    paper_figure: str
    runs: int
    groups: int
    calibrated: int
    model_steps: float | None
    flops: float | None
    wall_s: float | None
    note: str = ""
    recorded_s: float | None = None
    recorded_on: str = ""
    #: The largest estimated memory of one training step among the calibrated calls
    #: (:func:`step_memory_bytes`), when estimated; ``memnb run`` warns with it
    #: (:func:`memory_warning`).
    step_memory_bytes: float | None = None


def _spread(n: int) -> list[int]:
    """Indices 0..n-1 ordered so that any prefix is spread over the whole range."""
    order, step = [0, n - 1] if n > 1 else [0], n
    while len(order) < n and step > 1:
        step = max(1, step // 2)
        order += [i for i in range(0, n, step) if i not in order]
    return order


#: Groups calibrated per experiment by default. With a time budget instead, the number of
#: calibrated groups followed the machine's load, and for a grid whose cost is not monotone in
#: grid order (``compare.capacity`` mixes three papers' models) the interpolated total moved
#: fifteen-fold between two runs of the planner on the same code.
CALIBRATED_GROUPS = 5


def plan_experiment(name: str, profile: str = "full", *, device: str = "cpu",
                    calibrate: int = CALIBRATED_GROUPS, seeds: int | None = None,
                    memo: dict | None = None) -> ExperimentPlan:
    """Plan experiment ``name``: its grid in full, ``calibrate`` of its groups calibrated
    (spread over the grid, at least the first and the last), the others interpolated per point.
    ``memo`` shares measurements between experiments (the same group, or a training call of the
    same shapes, is measured once)."""
    if isinstance(calibrate, bool) or not isinstance(calibrate, int) or calibrate < 2:
        raise ValueError(f"calibrate must be an integer >= 2 (the first and the last group); "
                         f"got {calibrate!r}")
    memo = {} if memo is None else memo
    exp = get(name)
    captured = capture_sweep(name, profile, seeds=seeds, device=device)
    if captured is None or not captured.points:
        return ExperimentPlan(name, exp.paper_figure, 0, 0, 0, None, None, None,
                              "makes no sweep")
    grid_key = ("grid", unwrap(captured.evaluate).__module__,
                tuple(sweep.point_key(p) for p in captured.points))
    if grid_key in memo:  # the same grid as an experiment planned before (its cache is shared)
        first = memo[grid_key]
        return dataclasses.replace(first, experiment=name, paper_figure=exp.paper_figure,
                                   note=shared_grid_note(first.experiment),
                                   **_shared_recorded(name, first.experiment, profile))
    runs, groups = len(captured.points), captured.groups
    if not trains(captured.evaluate):
        return ExperimentPlan(name, exp.paper_figure, runs, len(groups), 0, 0, None, None,
                              "trains nothing (not calibrated)", *_recorded(name, profile))
    module = sys.modules[unwrap(captured.evaluate).__module__]
    per_group: dict[int, tuple[float, float, float]] = {}
    calls: list[_Call] = []  # of the calibrated groups, for their memory
    budget = memory_bytes(device)
    for index in _spread(len(groups))[:calibrate]:
        group_key = (module.__name__, tuple(sweep.point_key(p) for p in groups[index]))
        if group_key not in memo:
            calibration = _Calibration(memo, budget=budget)
            t0 = time.perf_counter()
            with mock.patch.object(module, "train_members", calibration):
                captured.evaluate(groups[index])
            overhead = time.perf_counter() - t0 - calibration.measuring_s
            memo[group_key] = ((sum(c.members * c.steps for c in calibration.calls),
                                sum(c.flops for c in calibration.calls),
                                overhead + sum(c.wall_s for c in calibration.calls)),
                               calibration.calls)
        per_group[index], group_calls = memo[group_key]
        calls += group_calls
    totals = [_interpolated_total([len(g) for g in groups], per_group, column)
              for column in range(3)]
    note = "" if len(per_group) == len(groups) else "others interpolated per point"
    if search_rounds(name, profile) > 1:
        note = "; ".join(filter(None, [note, ADAPTIVE_NOTE]))
    note = "; ".join(filter(None, [note, memory_note(calls, budget)]))
    memo[grid_key] = ExperimentPlan(name, exp.paper_figure, runs, len(groups), len(per_group),
                                    totals[0], totals[1], totals[2], note,
                                    *_recorded(name, profile),
                                    step_memory_bytes=max((c.need for c in calls if c.need),
                                                          default=None))
    return memo[grid_key]


def memory_note(calls: Sequence[_Call], budget: float) -> str:
    """The note of a plan row some of whose training ``calls`` were timed on fewer members than
    they have (:class:`_Calibration`), naming the largest step; '' when none was. A step over
    the whole ``budget`` does not fit on this device at all, and the note says so."""
    reduced = [c for c in calls if c.timed < c.members]
    if not reduced:
        return ""
    largest = max(reduced, key=lambda c: c.need)
    members, timed, need = largest.members, largest.timed, largest.need
    gib = 2**30
    fits = ("more than this device's" if need > budget else
            f"over {CALIBRATION_MEMORY_SHARE:.0%} of this device's")
    return (f"memory: a training step of {members} members needs about {need / gib:.0f} GiB "
            f"(estimated), {fits} {budget / gib:.0f} GiB, so it was timed on {timed} of them "
            "and scaled linearly" + (" (the run itself would not fit here)" if need > budget
                                     else ""))


#: The note of a plan row whose experiment is an adaptive search (:func:`search_rounds` > 1):
#: the plan covers the first round only.
ADAPTIVE_NOTE = "first round of an adaptive search"


def search_rounds(name: str, profile: str = "full") -> int:
    """How many rounds of search experiment ``name`` declares under ``profile``: its ``rounds``
    parameter, in an adaptive search whose later rounds depend on the results of the earlier
    ones (e.g. ``compare.capacity``), else 1 (a grid computed in one sweep, however its
    experiment is named: ``kajitsuka.capacity`` trains every depth of its grid). An experiment
    that is not registered counts as 1."""
    try:
        params = get(name).params(profile)
    except (KeyError, ValueError):
        return 1
    rounds = params.get("rounds", 1)
    return rounds if isinstance(rounds, int) and not isinstance(rounds, bool) else 1


def adaptive_note(name: str, note: Any, profile: str = "full") -> str:
    """``note`` of a plan row of ``name`` with :data:`ADAPTIVE_NOTE` present exactly when the
    experiment is an adaptive search under ``profile`` (:func:`search_rounds`): a recorded plan
    keeps the label its planner gave, which an earlier planner attached by name, so the label
    is derived again from the experiment when the plan is read."""
    parts = [p for p in str(note or "").split("; ") if p and p != ADAPTIVE_NOTE]
    if search_rounds(name, profile) > 1:
        parts.append(ADAPTIVE_NOTE)
    return "; ".join(parts)


def _interpolated_total(sizes: list[int], measured: dict[int, tuple[float, ...]],
                        column: int) -> float:
    """Sum over all groups of a measured quantity: calibrated groups as measured, the others
    per point, interpolated linearly between the nearest calibrated groups in grid order (a
    grid's groups usually follow the parameter that sets their cost)."""
    known = sorted(measured)
    per_point = {i: measured[i][column] / sizes[i] for i in known}
    total = 0.0
    for i, size in enumerate(sizes):
        if i in measured:
            total += measured[i][column]
            continue
        lo = max((k for k in known if k < i), default=None)
        hi = min((k for k in known if k > i), default=None)
        if lo is None or hi is None:
            value = per_point[hi if lo is None else lo]
        else:
            value = per_point[lo] + (per_point[hi] - per_point[lo]) * (i - lo) / (hi - lo)
        total += size * value
    return total


def _wall_time_s(provenance: dict[str, Any]) -> float | None:
    """A recorded run's wall time over every invocation of a resumed run
    (``total_wall_time_s`` where recorded, else ``wall_time_s``); ``None`` when not recorded."""
    return float(provenance.get("total_wall_time_s", provenance.get("wall_time_s")) or 0.0) or None


def _recorded(name: str, profile: str, root: Path | None = None) -> tuple[float | None, str]:
    """Wall time and device of the last run of ``name`` under ``profile``, if any: of every
    invocation of a resumed run where its provenance records them (``total_wall_time_s``), the
    device as :func:`memnb.provenance.device_label` names it (each card of a run resumed on
    several, with its points), for a partial run how many points it computed, and how many
    points its wall time does not cover (:func:`memnb.provenance.points_not_timed`)."""
    from memnb.prose import counted
    from memnb.provenance import device_label, points_not_timed, profile_change
    from memnb.results import load

    result = load(name, profile, root)
    if result is None:
        return None, ""
    prov = result.provenance
    wall = _wall_time_s(prov)
    on = device_label(prov)  # a run resumed on several cards names each with its points
    if not result.complete:
        done = int(prov.get("points_done") or 0)
        on += f"; partial, {done} of {done + int(prov.get('points_missing') or 0)} points"
    if profile_change(prov) is not None:
        on += f"; an earlier `{profile}` grid"
    untimed = points_not_timed(prov)
    if untimed:
        on += f"; {counted(untimed, 'point')} read from a cache, not timed"
    return wall, on


def with_recorded(table: pd.DataFrame, profile: str = "full",
                  root: Path | None = None) -> pd.DataFrame:
    """``table`` (a plan) with its ``recorded_s`` / ``recorded_on`` columns read anew from the
    results' provenance, so a plan computed earlier shows the runs recorded since."""
    table = table.copy()
    for i, r in table.iterrows():
        source = shared_grid_source(r["note"])
        if source is None:
            table.at[i, "recorded_s"], table.at[i, "recorded_on"] = _recorded(
                r["experiment"], profile, root)
        else:
            shared = _shared_recorded(r["experiment"], source, profile, root)
            table.at[i, "recorded_s"] = shared["recorded_s"]
            table.at[i, "recorded_on"] = shared["recorded_on"]
    return table


def _computed_own_points(provenance: dict[str, Any]) -> bool:
    """Whether a recorded run computed any of its points itself, rather than reading every one
    from a point cache another run filled: where every invocation counts the points it computed
    (``points_computed``, recorded since 2026-11-29), whether one counts more than 0; for a run
    recorded before, whether it records ``cached_points_reused`` 0 (it read none) or a resumed
    call that raised ``points_done`` (:func:`memnb.provenance.points_added`). A run that records
    neither count is taken to have computed none: nothing says it did."""
    from memnb.provenance import points_added

    calls = provenance.get("invocations") or [provenance]
    if all("points_computed" in c for c in calls):
        return any(int(c.get("points_computed") or 0) > 0 for c in calls)
    if provenance.get("cached_points_reused") is None:
        return False
    return int(provenance["cached_points_reused"]) == 0 or bool(points_added(provenance))


def _shared_recorded(name: str, source: str, profile: str,
                     root: Path | None = None) -> dict[str, Any]:
    """The ``recorded_s`` and ``recorded_on`` of ``name``'s plan row when its grid is
    ``source``'s: nothing before its result is written; the wall time and device of its own run
    (:func:`_recorded`) when its provenance records points it computed
    (:func:`_computed_own_points`: a table computed by a run of its own, e.g. ``dana.exp4``
    recomputed on its own, is timed like any other); else "the points of `source`'s run", with
    no wall time of its own (it read every point from ``source``'s cache)."""
    from memnb.results import load

    result = load(name, profile, root)
    if result is None:
        return {"recorded_s": None, "recorded_on": ""}
    if _computed_own_points(result.provenance):
        wall, on = _recorded(name, profile, root)
        return {"recorded_s": wall, "recorded_on": on}
    return {"recorded_s": None, "recorded_on": f"the points of `{source}`'s run"}


def shared_grid_note(source: str) -> str:
    """The note of a plan row whose grid is ``source``'s (:func:`shared_grid_source` reads it
    back)."""
    return f"the grid of `{source}` (its points are reused when both run in one results folder)"


def shared_grid_source(note: Any) -> str | None:
    """The experiment whose grid a plan row shares (its note is :func:`shared_grid_note`'s), or
    ``None`` for a row with a grid of its own (any other note, or none)."""
    found = re.match(r"the grid of `([^`]+)`", note) if isinstance(note, str) else None
    return None if found is None else found.group(1)


def estimated_experiments(table: pd.DataFrame) -> set[str]:
    """The experiments of a plan that have an estimated wall time."""
    return {e for e, w in zip(table["experiment"], table["wall_s"], strict=True)
            if w is not None and not pd.isna(w)}


def estimated_total_s(table: pd.DataFrame) -> float:
    """The estimated wall time of a plan, a grid shared by two experiments counted once."""
    own = table["note"].map(lambda note: shared_grid_source(note) is None)
    return float(table.loc[own, "wall_s"].dropna().sum())


def plan_record(table: pd.DataFrame, **about: Any) -> dict[str, Any]:
    """A plan as a JSON-ready record: ``about`` (command, date, commit, device name, ...) and one
    row per experiment, without the recorded runs (those are read at display time,
    :func:`with_recorded`)."""
    rows = table.drop(columns=["recorded_s", "recorded_on"]).to_dict("records")
    clean = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
             for r in rows]
    return {**about, "rows": clean}


def merge_into_record(record: dict[str, Any], table: pd.DataFrame, note: str
                      ) -> dict[str, Any]:
    """``record`` (a :func:`plan_record`) with the rows of ``table``'s experiments replaced by
    ``table``'s, each with ``note`` added (when and where they were re-planned), and rows of
    experiments new to the record appended: how one experiment is re-planned after its
    profile changed without re-planning every other one."""
    fresh = plan_record(table.assign(note=[f"{n}; {note}" if n else note
                                           for n in table["note"]]))["rows"]
    by_name = {row["experiment"]: row for row in fresh}
    rows = [by_name.pop(row["experiment"], row) for row in record["rows"]]
    return {**record, "rows": rows + list(by_name.values())}


def plan_from_record(record: dict[str, Any]) -> pd.DataFrame:
    """The plan table of a :func:`plan_record` (``recorded_*`` empty), each row's adaptive-search
    label derived from its experiment (:func:`adaptive_note`; plans record the ``full``
    profile unless the record names another), and ``earlier_grid`` true, with a note saying
    so (:func:`earlier_grid`), on every row planned for another grid than today's."""
    table = pd.DataFrame(record["rows"])
    profile = str(record.get("profile", "full"))
    changed = [earlier_grid(row, profile) for row in record["rows"]]
    table["earlier_grid"] = [c is not None for c in changed]
    if "note" in table:
        table["note"] = ["; ".join(filter(None, [adaptive_note(name, note, profile), c]))
                         for name, note, c in zip(table["experiment"], table["note"], changed,
                                                  strict=True)]
    return table.assign(recorded_s=None, recorded_on="")


@functools.cache
def grid_counts(name: str, profile: str = "full") -> tuple[int, int]:
    """``(runs, packed groups)`` of the grid experiment ``name`` makes today under ``profile``
    (:func:`capture_sweep`; nothing is trained); ``(0, 0)`` when it makes no sweep."""
    captured = capture_sweep(name, profile)
    return (0, 0) if captured is None else (len(captured.points), len(captured.groups))


def earlier_grid(row: Mapping[str, Any], profile: str = "full") -> str | None:
    """Why a recorded plan ``row`` no longer estimates today's grid of its experiment: its runs
    or packed groups differ from :func:`grid_counts` (the profile or the grouping changed
    since it was planned), e.g. ``"planned for an earlier grid (800 runs in 450 groups, today
    680 in 275), not re-planned on this device since then"`` (no ``"; "``: the plans page splits
    notes there); ``None`` when they agree, or the row counts no runs or estimates no time
    (an estimate already withdrawn says why)."""
    runs, groups = row.get("runs"), row.get("groups")
    if not runs or groups is None or row.get("wall_s") is None:
        return None
    today = grid_counts(str(row["experiment"]), profile)
    if today == (int(runs), int(groups)):
        return None
    return (f"planned for an earlier grid ({int(runs)} runs in {int(groups)} groups, today "
            f"{today[0]} in {today[1]}), not re-planned on this device since then")


def experiments_of(target: str) -> list[str]:
    """The experiments named by ``target``: one experiment, a chapter (``dana``) or ``all``."""
    names = list(load_all())
    if target == "all":
        return names
    if target in names:
        return [target]
    chosen = [n for n in names if n.split(".")[0] == target]
    if not chosen:
        from memnb.results import close_names

        chapters = sorted({n.split(".")[0] for n in names})
        guess = close_names(target, [*names, *chapters, "all"])
        raise ValueError(f"target must be an experiment, a chapter ({', '.join(chapters)}) or "
                         f"'all' (see `memnb list`); got {target!r}"
                         + (f": {guess}" if guess else ""))
    return chosen


def plan(target: str, profile: str = "full", *, device: str = "cpu",
         calibrate: int = CALIBRATED_GROUPS) -> pd.DataFrame:
    """One row per experiment of ``target``: runs, groups, calibrated groups, model-steps,
    FLOPs and estimated wall time on ``device`` (see the module docstring)."""
    from tqdm.auto import tqdm

    from memnb.progress import bar_disabled
    from memnb.results import check_device

    check_device(device)
    memo: dict = {}
    names = experiments_of(target)
    rows = [dataclasses.asdict(plan_experiment(n, profile, device=device, calibrate=calibrate,
                                               memo=memo))
            for n in tqdm(names, desc=f"plan {target}", unit="experiment",
                          disable=bar_disabled(len(names) > 1))]
    return pd.DataFrame(rows, columns=[f.name for f in dataclasses.fields(ExperimentPlan)])


class PlanFileError(ValueError):
    """A recorded plan (``data/plans/<file>``) that cannot be read (cut short, not JSON, not a
    JSON object): one line naming the file and how to get it back (:func:`read_plan_record`).
    A ``ValueError``, so that ``memnb plan`` and ``scorecard`` refuse with exit code 2."""


def read_plan_record(path: Path) -> dict[str, Any]:
    """The plan record written at ``path`` by ``scripts/plan_table.py``: a JSON object;
    :class:`PlanFileError` naming the file, where its JSON breaks, and the command that
    records it again otherwise."""
    from memnb.results import json_object, shown_path

    record, reason = json_object(path)
    if record is not None:
        return record
    parts = path.name.split(".")  # full.<device>.json, as scripts/plan_table.py names it
    device = parts[1] if len(parts) == 3 and parts[0] == "full" else "DEVICE"
    raise PlanFileError(f"{shown_path(path)} is not a readable plan record ({reason}); restore "
                        "it from git, or record the plan again with `python "
                        f"scripts/plan_table.py --device {device} --out {shown_path(path)}`")


def plan_records(folder: Path | None = None) -> list[dict[str, Any]]:
    """The recorded plans (:func:`plan_record`, one JSON file per device in ``folder``,
    default ``data/plans``), the CPU's first, then each GPU's in file order; ``[]`` when none is
    recorded. A file that cannot be read raises :class:`PlanFileError`
    (:func:`read_plan_record`)."""
    from memnb.paths import plans_dir

    folder = plans_dir() if folder is None else Path(folder)
    paths = sorted(folder.glob("*.json")) if folder.is_dir() else []
    return sorted((read_plan_record(path) for path in paths),
                  key=lambda record: record.get("device") != "cpu")


def memory_warning(name: str, device: str = "cpu", folder: Path | None = None) -> str | None:
    """Why ``memnb run <name> --profile full`` on ``device`` may be killed for want of memory: a
    recorded plan (:func:`plan_records`) of the same kind of device estimates one training step
    of ``name`` (``step_memory_bytes``, :func:`step_memory_bytes`) above this device's memory
    (:func:`memory_bytes`); ``None`` when none does, or no plan estimated it."""
    kind = torch.device(device).type
    for record in plan_records(folder):
        if str(record.get("device", "cpu")).split(":")[0] != kind:
            continue
        for row in record.get("rows", []):
            need = row.get("step_memory_bytes")
            if row.get("experiment") != name or not need:
                continue
            have = memory_bytes(device)
            if need > have:
                return (f"the plan recorded on {record.get('device_name', kind)} estimates the "
                        f"largest training step of {name} at about {need / 2**30:.0f} GiB, more "
                        f"than this device's {have / 2**30:.0f} GiB: the run may be killed for "
                        "want of memory (its finished points stay cached); `memnb plan "
                        f"{name} --profile full --device {device}` estimates it here")
    return None


def planned_cost(name: str, profile: str = "full", folder: Path | None = None,
                 root: Path | None = None) -> str | None:
    """What the recorded plans (:func:`plan_records`) estimate for ``name`` under ``profile``,
    CPU first: ``"planned: 2.5 d on CPU (x86_64, 2 threads), 52.6 min on NVIDIA H200"``;
    ``None`` when no plan of that profile estimates it. Plans record the ``full`` profile
    only; an estimate of an earlier grid (:func:`earlier_grid`) says so, and so does one of an
    adaptive search's first round (:data:`ADAPTIVE_NOTE`). Where a partial run of
    ``name`` is recorded (in ``root``'s results, the checkout's by default), the time it has
    taken so far follows, so that an estimate can be read against what was measured
    (``"; recorded so far: 3.8 h on CPU (x86_64, 2 threads) for 65 of 230 points"``)."""
    if profile != "full":
        return None
    rows = [(record, row) for record in plan_records(folder) for row in record.get("rows", [])
            if row.get("experiment") == name and row.get("wall_s") is not None]
    planned = [(record.get("device_name", record.get("device", "?")), float(row["wall_s"]),
                earlier_grid(row, profile) is not None) for record, row in rows]
    if not planned:
        return None
    estimates = [f"{format_duration(wall)} on {device}"
                 + (" (for an earlier grid)" if earlier else "")
                 for device, wall, earlier in planned]
    first_round = any(ADAPTIVE_NOTE in str(row.get("note") or "") for _, row in rows)
    return ("planned: " + ", ".join(estimates)
            + (f", for the {ADAPTIVE_NOTE} only (its later rounds add to it)"
               if first_round else "")
            + _recorded_so_far(name, profile, root,
                               {device: wall for device, wall, _ in planned}))


def _recorded_so_far(name: str, profile: str, root: Path | None = None,
                     planned: Mapping[str, float] | None = None) -> str:
    """``"; recorded so far: <wall time> on <device> for <done> of <total> points"`` for a
    partial run of ``name`` recorded with its wall time, else ''. Where ``planned`` (estimated
    wall time of the whole run, by device name) holds the run's device and the time recorded
    already exceeds it, the text says so: the estimate is then no guide to what is left."""
    from memnb.provenance import device_label, points_ran
    from memnb.results import load

    result = load(name, profile, root)
    if result is None or result.complete:
        return ""
    prov = result.provenance
    wall = _wall_time_s(prov)
    if wall is None:
        return ""
    done, total = points_ran(prov)
    text = (f"; recorded so far: {format_duration(wall)} on {device_label(prov)} for {done} of "
            f"{total} points")
    estimate = (planned or {}).get(str(prov.get("device_name")))
    if estimate is not None and wall > estimate:
        text += (f", already more than the {format_duration(estimate)} planned for the whole "
                 "run there (the plan's estimates are no bound)")
    return text


def format_duration(seconds: float | None) -> str:
    """``seconds`` as a short human duration (s, min, h, d); '-' when unknown."""
    if seconds is None or not math.isfinite(seconds):
        return "-"
    for unit, size in (("d", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.1f} s"


def plan_markdown(table: pd.DataFrame, *, device_name: str) -> str:
    """The plan as a Markdown table (for ``memnb plan`` and the "Running at scale" page)."""
    header = ["experiment", "paper item", "runs", "groups (calibrated)", "model-steps", "FLOPs",
              f"estimated wall time on {device_name}", "recorded run", "note"]
    rows = []
    for r in table.itertuples():
        steps = "-" if r.model_steps is None or pd.isna(r.model_steps) else f"{r.model_steps:.3g}"
        flops = "-" if r.flops is None or pd.isna(r.flops) else f"{r.flops:.2e}"
        recorded = (r.recorded_on or "-") if r.recorded_s is None or pd.isna(r.recorded_s) else (
            f"{format_duration(r.recorded_s)} ({r.recorded_on})")
        rows.append([f"`{r.experiment}`", paper_item(r.experiment, r.paper_figure), r.runs,
                     f"{r.groups} ({r.calibrated})", steps, flops, format_duration(r.wall_s),
                     recorded, r.note])
    align = ["left", "left", *["right"] * 6, "left"]
    total = estimated_total_s(table)
    timed = estimated_experiments(table)
    unestimated = [f"`{e}`" for e in table["experiment"] if e not in timed]
    left_out = (f"; it leaves out the experiments without an estimate: {', '.join(unestimated)}"
                if unestimated else "")
    return (markdown_table(header, rows, align=align) + "\n\nTotal of the estimated wall times "
            f"(a grid shared by two experiments counted once): {format_duration(total)}"
            f"{left_out}.")
