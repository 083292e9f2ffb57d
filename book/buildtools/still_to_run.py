"""The "Still to run" section of the "Running at scale" page (``book/generated/still_to_run.md``).

Every registered experiment whose committed ``full`` result is absent, partial, or due for a rerun
(computed by earlier code or under an earlier profile, :func:`memnb.reruns.rerun_reason`) is
listed with the points left, the estimates of the recorded plans (``data/plans/*.json``, read as
the plans table reads them), the command that computes it and what the GPU queue
(``scripts/gpu_queue.py``) does with it. Every number comes from the results, the plans and the
code; none is typed.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd

from memnb.prose import thousands

REPO = Path(__file__).resolve().parents[2]
GPU_QUEUE = REPO / "scripts" / "gpu_queue.py"

#: The parts of a plan row's note that qualify its estimate, and so are repeated here (the
#: others, such as when a row was re-planned, stay in the plans' notes).
_KEPT_NOTES: tuple[str, ...] = ("memory:", "planned for an earlier grid", "not re-planned")
_MEMORY = "memory: "  # how a plan's note on memory begins (:func:`memnb.planner.memory_note`)


def gpu_queue() -> ModuleType:
    """``scripts/gpu_queue.py`` as the module ``gpu_queue`` (a script, not part of the package),
    loaded once and registered in ``sys.modules``, where dataclasses look their module up and
    the tests' loader finds it."""
    if "gpu_queue" in sys.modules:
        return sys.modules["gpu_queue"]
    spec = importlib.util.spec_from_file_location("gpu_queue", GPU_QUEUE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gpu_queue"] = module
    spec.loader.exec_module(module)
    return module


def short_device(name: str) -> str:
    """A plan's device name as a column header says it: ``CPU (x86_64, 2 threads)`` as ``CPU,
    2 threads``; a GPU's name as it is."""
    if name.startswith("CPU (") and name.endswith(")"):
        return "CPU, " + name[len("CPU ("):-1].split(", ")[-1]
    return name


def points(n: int) -> str:
    """``n`` points, with the thousands separator (:func:`memnb.prose.thousands`): ``"1
    point"``, ``"3,050 points"``."""
    return f"{thousands(n)} point{'' if n == 1 else 's'}"


@dataclass
class Estimate:
    """One recorded plan's estimate of an experiment's whole grid."""

    device_name: str
    kind: str  # the plan's kind of device: "cpu" or "cuda"
    wall_s: float | None  # None: no row in that plan, or its estimate withdrawn or not made
    planned: bool  # whether that plan has a row for the experiment
    earlier_grid: bool = False
    notes: list[str] = field(default_factory=list)  # the parts of its note kept (_KEPT_NOTES)
    #: its plan's FLOP count of today's grid over the latest plan's, where they lie more than
    #: ``reproducibility.FLOPS_APART`` apart (``reproducibility.flops_apart``), else None
    flops_ratio: float | None = None

    def marks(self) -> list[str]:
        """What qualifies the estimate: ``"earlier grid"``, and ``"3.6× fewer FLOPs"`` where its
        plan counted today's grid far from the latest plan (``reproducibility.flops_mark``)."""
        from buildtools.reproducibility import flops_mark

        return ((["earlier grid"] if self.earlier_grid else [])
                + ([] if self.flops_ratio is None else [flops_mark(self.flops_ratio)]))

    def cell(self) -> str:
        """The estimate as a table cell: ``"1.2 h"``, ``"2.7 h (earlier grid)"``, ``"4.4 h (3.6×
        fewer FLOPs)"``, ``"not planned"`` or ``"no estimate"`` (a row without one; its note
        says why)."""
        from memnb.planner import format_duration

        if not self.planned:
            return "not planned"
        if self.wall_s is None:
            return "no estimate"
        return format_duration(self.wall_s) + "".join(f" ({m})" for m in self.marks())


@dataclass
class OpenRun:
    """One experiment still to run under the ``full`` profile."""

    name: str
    state: str  # what is committed: "none", "partial", "earlier code" or "earlier profile"
    why: str  # the sentences of its item: what is committed and what is left
    points_left: int
    grid_points: int  # the points of today's grid (an adaptive search's first round)
    rounds: int  # the rounds of an adaptive search (:func:`memnb.planner.search_rounds`), else 1
    command: str
    queue: str  # what the GPU queue does with it, in a few words (a table cell)
    queued: bool  # whether the GPU queue runs it (listed, and not skipped)
    estimates: list[Estimate]
    shared_grid: str | None = None  # the experiment whose grid (and run) it shares, in a plan


def _plan_tables(plans_folder: Path | None) -> list[tuple[dict[str, Any], pd.DataFrame]]:
    """Every recorded plan of ``plans_folder`` with its table, the GPUs' first
    (:func:`memnb.planner.plan_records`, :func:`memnb.planner.plan_from_record`, which marks a
    row planned for an earlier grid): read once for all the experiments listed."""
    from memnb.planner import plan_from_record, plan_records

    records = sorted(plan_records(plans_folder), key=lambda r: r.get("device") == "cpu")
    return [(record, plan_from_record(record)) for record in records]


def _plan_estimates(name: str, plans: Sequence[tuple[dict[str, Any], pd.DataFrame]],
                    apart: Mapping[tuple[int, str], float] | None = None) -> list[Estimate]:
    """The estimate of ``name`` in every plan of ``plans`` (:func:`_plan_tables`), with the
    FLOP ratio ``apart`` gives it (``reproducibility.flops_apart`` of those plans' records)."""
    apart = {} if apart is None else apart
    out = []
    for index, (record, table) in enumerate(plans):
        device = str(record.get("device_name", record.get("device", "?")))
        kind = str(record.get("device", "cpu")).split(":")[0]
        rows = table[table["experiment"] == name].to_dict("records")
        if not rows:
            out.append(Estimate(device, kind, None, planned=False))
            continue
        row = rows[0]
        wall = row.get("wall_s")
        wall = None if wall is None or (isinstance(wall, float) and math.isnan(wall)) else wall
        kept = [part for part in str(row.get("note") or "").split("; ")
                if part.startswith(_KEPT_NOTES)]
        out.append(Estimate(device, kind, None if wall is None else float(wall), True,
                            bool(row.get("earlier_grid")), kept, apart.get((index, name))))
    return out


def _shared_grid(name: str,
                 plans: Sequence[tuple[dict[str, Any], pd.DataFrame]]) -> str | None:
    """The experiment whose grid a plan of ``plans`` (:func:`_plan_tables`) says ``name``
    shares (its points come from that run when both run in one results folder), or ``None``."""
    from memnb.planner import shared_grid_source

    for record, _ in plans:
        for row in record.get("rows", []):
            if row.get("experiment") == name:
                source = shared_grid_source(row.get("note"))
                if source is not None:
                    return source
    return None


def _queue_words(name: str, full: Path, queue: Sequence[str]) -> tuple[str, bool]:
    """What ``scripts/gpu_queue.py`` does with ``name`` given the results in ``full``, in a few
    words, and whether it runs it, by the queue's own rules (:func:`complete_result`,
    :func:`other_device_run`, :func:`rerun_due`, :func:`other_device_rerun`)."""
    if name not in queue:
        return "not queued", False
    module = gpu_queue()
    if module.complete_result(name, full):
        return "skipped: complete", False
    if module.other_device_run(name, "cuda", full) is not None:
        return "skipped: another device's run", False
    due = module.rerun_due(name, full)
    if due is not None and module.other_device_rerun(name, "cuda", full) is not None:
        return "skipped: another device's rerun", False
    return (f"place {1 + list(queue).index(name)}" + (", a rerun" if due else "")), True


def open_runs(names: Sequence[str], results_root: Path | None = None,
              plans_folder: Path | None = None,
              queue: Sequence[str] | None = None) -> list[OpenRun]:
    """The experiments of ``names`` still to run under ``full`` in ``results_root`` (default
    :func:`memnb.paths.results_dir`): no committed result, a partial one, or one due for a rerun
    (:func:`memnb.reruns.rerun_reason`: computed by earlier code or under an earlier profile).
    In the order of the GPU ``queue`` (default: ``gpu_queue.QUEUE``), then the others by name.

    Points left: for a partial run of today's code, its missing points (from its provenance),
    more where its committed point cache lacks some it computed; for a rerun, the points of
    today's grid that a rerun under way has not computed (all of them when none is under way:
    points of other code are never reused); with no result, today's grid
    (:func:`memnb.planner.grid_counts`; an adaptive search's first round). The command runs on
    a GPU unless the run (or rerun) recorded here must continue on the kind of device that
    computed it (:func:`memnb.results.mixed_device_error`)."""
    from buildtools.reproducibility import flops_apart
    from memnb.paths import results_dir
    from memnb.planner import grid_counts, search_rounds
    from memnb.prose import number_word
    from memnb.provenance import points_ran
    from memnb.reruns import rerun_reason, rerun_root
    from memnb.results import (
        computed_by_todays_code,
        continue_command,
        load,
        mixed_device_error,
        points_a_run_would_reuse,
    )

    queue = list(gpu_queue().QUEUE if queue is None else queue)
    root = results_dir() if results_root is None else Path(results_root)
    plans = _plan_tables(plans_folder)
    apart = flops_apart([record for record, _ in plans])
    out = []
    for name in sorted(names, key=lambda n: (n not in queue,
                                             queue.index(n) if n in queue else 0, n)):
        committed = load(name, "full", root)
        grid = grid_counts(name, "full")[0]
        device, rerun = "cuda", False
        if committed is None:
            state, why, left = "none", "No full result is committed.", grid
        else:
            provenance = committed.provenance
            reason = rerun_reason(name, provenance)
            if reason is None and committed.complete:
                continue  # complete, of today's code and profile
            if reason is None:  # partial, of today's code and profile
                done, total = points_ran(provenance)
                state, left = "partial", total - done
                why = f"The committed table is partial: {thousands(done)} of {points(total)} done."
                reused = points_a_run_would_reuse(name, "full", provenance, root)
                if reused < done:
                    left = total - reused
                    why += (f" Only {thousands(reused)} of them {'is' if reused == 1 else 'are'} "
                            f"in the committed point cache, so a run computes {points(left)}.")
                if mixed_device_error(name, "full", "cuda", root) is not None:
                    device = str(provenance.get("device", "cpu"))
            else:
                rerun = True
                state = ("earlier code" if not computed_by_todays_code(name, provenance)
                         else "earlier profile")
                kept = ("complete" if committed.complete else
                        "partial, with {} of {} points".format(
                            *map(thousands, points_ran(provenance))))
                why = (f"The committed table, {kept}, was {reason}: a rerun replaces it, "
                       "computing beside it and reusing none of its points.")
                underway = load(name, "full", rerun_root(root))
                if underway is None:
                    left = grid
                elif underway.complete:
                    left = 0
                    why += (" Its rerun is complete and waits to be adopted "
                            "(`memnb.reruns.adopt_rerun`).")
                else:
                    done, total = points_ran(underway.provenance)
                    left = total - done
                    why += (f" The rerun under way has computed {thousands(done)} of "
                            f"{points(total)}.")
                    if mixed_device_error(name, "full", "cuda", rerun_root(root)) is not None:
                        device = str(underway.provenance.get("device", "cpu"))
        rounds = search_rounds(name, "full")
        if rounds > 1:
            why += (f" An adaptive search of {number_word(rounds)} rounds, each depending on the "
                    "one before: its points left and the plans' estimates count the first.")
        words, queued = _queue_words(name, root / "full", queue)
        out.append(OpenRun(name, state, why, left, grid, rounds,
                           continue_command(name, "full", {"device": device}, rerun=rerun),
                           words, queued, _plan_estimates(name, plans, apart),
                           _shared_grid(name, plans)))
    return out


def _notes(run: OpenRun) -> list[str]:
    """The plan notes that qualify ``run``'s estimates, each once, as sentences naming the plans
    that hold them (``Memory, in the plan on CPU, 2 threads: a training step ...``)."""
    planned = [e for e in run.estimates if e.planned]
    said = list(dict.fromkeys(note for e in planned for note in e.notes))
    out = []
    for note in said:
        where = " and ".join(short_device(e.device_name) for e in planned if note in e.notes)
        plans = f"the plan{'s' if ' and ' in where else ''} on {where}"
        out.append(f"Memory, in {plans}: {planning_machine(note[len(_MEMORY):])}."
                   if note.startswith(_MEMORY) else f"In {plans}: {note}.")
    return out


ANY_DEVICE = ("The memory a plan's note gives (above) was estimated on the planning machine, but "
              "it is the model's on any device: the estimate (`memnb.planner.step_memory_bytes`) "
              "adds up the tensors of one training step (what autograd keeps for one member's "
              "step, twice, and its weights, gradients and Adam's two moments, times the "
              "members), whose sizes depend on the shapes, not on the device, and a run trains "
              "a group's members in one stack. So a GPU with less memory than a note gives cannot "
              "run that group either.")
"""Said below the commands where a plan's memory note qualifies an estimate
(:func:`still_to_run_markdown`): the memory a note names was estimated on the planning machine,
but it is the step's own (:func:`memnb.planner.step_memory_bytes` counts tensor sizes;
:func:`memnb.train.train_members` trains a group as one stack), so it holds on a GPU too."""


def planning_machine(note: str) -> str:
    """:func:`buildtools.reproducibility.planning_machine`, the one rewording of a plan's memory
    note, which the plan table uses too."""
    from buildtools.reproducibility import planning_machine as reworded

    return reworded(note)


def at_least(n: float) -> int:
    """A lower bound ``n`` of a count, as a page says it: rounded up below ten (a count is a
    whole number), else rounded down to two significant digits ("at least 750" for 757.3), so
    that what is said stays a lower bound without a precision the estimates lack."""
    if n < 10:
        return math.ceil(n)
    step = 10 ** (int(math.floor(math.log10(n))) - 1)
    return int(n // step * step)


def computing_s_per_call() -> float:
    """The most seconds one call of ``scripts/gpu_queue.py`` at its default budget leaves its
    runs: ``DEFAULT_BUDGET_S`` (counted from the command's first second, the machine's setup
    included) less ``RESERVE_S`` (kept at its end for packing); the time a call spends before its
    first run (setup, restore, the import check, on a fresh machine the CUDA tests) comes out
    of it too."""
    module = gpu_queue()
    return float(module.DEFAULT_BUDGET_S) - float(module.RESERVE_S)


def _far_words(runs: Sequence[OpenRun], i: int) -> str:
    """``"with `kajitsuka.capacity` estimated from 3.6× fewer FLOPs than the latest plan of
    the same grid"``: the ``runs`` whose estimate in plan ``i`` rests on a FLOP count far from
    the latest plan's (:attr:`Estimate.flops_ratio`); "" where none does."""
    from buildtools.reproducibility import flops_mark
    from memnb.prose import and_words

    far = [f"`{r.name}` estimated from {flops_mark(r.estimates[i].flops_ratio)}"
           for r in runs if r.estimates[i].flops_ratio is not None]
    return f"with {and_words(far)} than the latest plan of the same grid" if far else ""


def _totals(runs: Sequence[OpenRun], devices: Sequence[str]) -> str:
    """The sentence of totals below the table: the points left, and each plan's estimates summed
    (a grid shared with another experiment left out: its run is the other's), naming the
    experiments a plan does not estimate, those it estimated for an earlier grid and those whose
    plan counted today's grid's FLOPs far from the latest plan (:func:`_far_words`)."""
    from memnb.planner import format_duration
    from memnb.prose import and_words

    own = [r for r in runs if r.shared_grid is None]
    parts = []
    for i, device in enumerate(devices):
        estimated = [r for r in own if r.estimates[i].wall_s is not None]
        said = []
        lacking = [f"`{r.name}`" for r in own if r.estimates[i].wall_s is None]
        if lacking:
            said.append(f"without {and_words(lacking)}, not estimated there")
        earlier = [f"`{r.name}`" for r in estimated if r.estimates[i].earlier_grid]
        if earlier:
            said.append(f"with {and_words(earlier)} estimated for an earlier grid")
        far = _far_words(estimated, i)
        if far:
            said.append(far)
        total = sum(float(r.estimates[i].wall_s or 0.0) for r in estimated)
        parts.append(f"{format_duration(total) if estimated else '-'} on {device}"
                     + (f" ({'; '.join(said)})" if said else ""))
    searches = [f"`{r.name}`" for r in runs if r.rounds > 1]
    return (f"In all, {points(sum(r.points_left for r in runs))} are left"
            + (f" ({and_words(searches)} counted for the first round of its search)"
               if searches else "")
            + (f", and the plans' estimates for these grids sum to {and_words(parts)}."
               if parts else "; no plan is recorded (`python scripts/plan_table.py`)."))


def _queue_sentences(runs: Sequence[OpenRun], queue: Sequence[str]) -> str:
    """The GPU queue in its order, each experiment marked complete where it is not still to run,
    the open experiments left off it, and what the open ones it runs cost, from the first GPU
    plan's estimates: a lower bound on the calls of the queue's default budget, counting only
    the seconds a call leaves its runs (:func:`computing_s_per_call`), and what it leaves out."""
    from memnb.planner import format_duration
    from memnb.prose import and_words, number_word

    still = {r.name for r in runs}
    order = [f"`{n}`" + ("" if n in still else " (complete)") for n in queue]
    text = (f"`scripts/gpu_queue.py` runs its queue (`QUEUE`, {number_word(len(queue))} "
            f"experiments) in this order, skipping a complete table: {and_words(order)}.")
    off = [r for r in runs if r.name not in queue]
    if off:
        text += (f" {and_words([f'`{r.name}`' for r in off])} "
                 + ("is" if len(off) == 1 else "are") + " not in it (`--only NAME` runs any "
                 "registered experiment).")
    gpus = [i for i, e in enumerate(runs[0].estimates if runs else []) if e.kind != "cpu"]
    queued = [r for r in runs if r.queued and r.shared_grid is None]
    if not gpus or not queued:
        return text
    i = gpus[0]
    device = runs[0].estimates[i].device_name
    estimated = [r for r in queued if r.estimates[i].wall_s is not None]
    lacking = [f"`{r.name}`" for r in queued if r.estimates[i].wall_s is None]
    seconds = sum(float(r.estimates[i].wall_s or 0.0) for r in estimated)
    module = gpu_queue()
    budget, reserve = float(module.DEFAULT_BUDGET_S), float(module.RESERVE_S)
    computing = computing_s_per_call()
    said = [f"without {and_words(lacking)}, not estimated there" if lacking else "",
            (f"with {and_words([f'`{r.name}`' for r in estimated if r.estimates[i].earlier_grid])}"
             " estimated for an earlier grid"
             if any(r.estimates[i].earlier_grid for r in estimated) else ""),
            _far_words(estimated, i)]
    said = [part for part in said if part]
    if estimated:
        text += (f" The {number_word(len(estimated))} open ones it runs are estimated at "
                 f"{format_duration(seconds)} on the {device}"
                 + (f" ({'; '.join(said)})" if said else "")
                 + f". If the plans' estimates hold, computing these grids whole takes at least "
                 f"{thousands(at_least(seconds / computing))} calls at the queue's default "
                 f"`--budget` of {budget:.0f} s (counted from the command's first second), "
                 f"each of which leaves its runs at most {computing:.0f} s: the budget less the "
                 f"{reserve:.0f} s kept for packing (`RESERVE_S`). That is a lower bound for "
                 "the whole grids: it leaves out the start of each fresh machine, the time a "
                 "call spends before its first run (installing the carried packages, restoring "
                 "the archives, checking the imports and, on a fresh machine, running the CUDA "
                 "tests), the end of a call too short for the next group to start, and the "
                 "groups that do not finish within one call and restart in the next, their "
                 "paused state too large to travel. The points already done are not "
                 "subtracted (the estimates are of whole grids): what is left may take fewer "
                 "calls than that count for this reason.")
    return text


def _percent(share: float) -> str:
    """``0.1`` as ``"10 %"``."""
    return f"{share * 100:.0f} %"


def reused_tables(names: Sequence[str], results_root: Path | None = None
                  ) -> dict[str, list[str]]:
    """The committed ``full`` tables of ``names`` (complete ones that today's code reuses, as
    :func:`open_runs` leaves out) by the code that computed their points, in the words of "How
    each page was produced" (``reproducibility.code_word``): ``TODAYS_CODE`` and ``REKEYED``,
    each with its experiments (an empty list where none)."""
    from buildtools.reproducibility import REKEYED, TODAYS_CODE, code_word
    from memnb.paths import results_dir
    from memnb.results import load

    root = results_dir() if results_root is None else Path(results_root)
    out: dict[str, list[str]] = {TODAYS_CODE: [], REKEYED: []}
    for name in names:
        committed = load(name, "full", root)
        if committed is not None:
            out.setdefault(code_word(name, committed.provenance), []).append(name)
    return out


def _reused_words(names: Sequence[str], results_root: Path | None = None) -> str:
    """How many of the complete tables of ``names`` (:func:`reused_tables`) are *re-keyed* and
    how many of *today's code*, with the glossary that defines both words (linked):
    ``"17 *re-keyed* to today's fingerprint and none computed by *today's code*, in the words
    of ..."``."""
    from buildtools.reproducibility import GLOSSARY_LINK, REKEYED, TODAYS_CODE

    tables = reused_tables(names, results_root)
    rekeyed, today = (thousands(n) if n else "none"
                      for n in (len(tables[REKEYED]), len(tables[TODAYS_CODE])))
    return (f"{rekeyed} *{REKEYED}* to today's fingerprint and {today} computed by "
            f"*{TODAYS_CODE}*, in the words of {GLOSSARY_LINK} (*Words used*: the points of a "
            f"*{REKEYED}* table were computed by earlier code and carried to today's fingerprint "
            "on the judgement that the edits since compute nothing differently)")


def still_to_run_markdown(names: Sequence[str], results_root: Path | None = None,
                          plans_folder: Path | None = None,
                          queue: Sequence[str] | None = None) -> str:
    """The "Still to run" section of the "Running at scale" page: a table of :func:`open_runs`
    (points left, each plan's estimate of the whole grid, what the GPU queue does), the totals,
    one item per experiment with its command and the plan notes that qualify its estimates, and
    the GPU queue in its order."""
    from buildtools.reproducibility import FLOPS_APART
    from memnb.experiments.registry import paper_item
    from memnb.prose import markdown_table

    queue = list(gpu_queue().QUEUE if queue is None else queue)
    runs = open_runs(names, results_root, plans_folder, queue)
    lines = ["<!-- generated by book/build.py (buildtools/still_to_run.py) from "
             "data/results/full/, data/plans/ and scripts/gpu_queue.py; do not edit -->", ""]
    reused = _reused_words([n for n in names if n not in {r.name for r in runs}],
                           results_root)
    if not runs:
        lines += [f"Every one of the {len(names)} registered experiments has a complete "
                  f"`full` table of today's profile that today's code reuses: {reused}. Nothing "
                  "is left to run.", ""]
    else:
        devices = [short_device(e.device_name) for e in runs[0].estimates]
        rows = [[f"`{r.name}`: {paper_item(r.name)}", r.state,
                 thousands(r.points_left) + (" (first round)" if r.rounds > 1 else ""),
                 *(e.cell() for e in r.estimates), r.queue] for r in runs]
        lines += [
            f"{len(runs)} of the {len(names)} registered experiments have no complete `full` "
            "table of today's profile that today's code reuses; the other "
            f"{len(names) - len(runs)} have one, committed: {reused}. The column *committed* "
            "says what is there: none, a partial table that today's code reuses, or a table of "
            "earlier code (not reused) or of an earlier profile, which a rerun replaces. An "
            "estimate is the plan's (above) for the whole grid, the points done not subtracted, "
            "and no bound; one marked *(earlier grid)* was planned for other runs or packed "
            "groups, and one marked with a ratio of FLOPs (*fewer FLOPs* or *more FLOPs*) was "
            "made by a plan whose FLOP count of today's grid lies more than "
            f"{_percent(FLOPS_APART - 1)} from the latest plan's ({{ref}}`Planning, above "
            "<planning>`).", "",
            markdown_table(["experiment: paper item", "committed", "points left",
                            *(f"estimated ({d})" for d in devices), "GPU queue"], rows,
                           empty="–"),
            "", _totals(runs, devices), "",
            "The command of each (`SECONDS`: the time limit you give it; the same command "
            "continues a stopped run):", ""]
        for r in runs:
            notes = _notes(r)
            if r.shared_grid is not None:
                notes.append(f"Its grid is `{r.shared_grid}`'s, whose run computes its points.")
            lines.append(" ".join([f"- `{r.name}`: `{r.command}`.", r.why, *notes]))
        lines.append("")
        if any(note.startswith(_MEMORY) for r in runs for e in r.estimates for note in e.notes):
            lines += [ANY_DEVICE, ""]
    lines.append(_queue_sentences(runs, queue))
    return "\n".join(lines) + "\n"
