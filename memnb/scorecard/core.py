"""The reproduction scorecard: one row per numbered item of each paper, with a computed status.

Each paper module (``memnb/scorecard/<paper>.py``) declares its items with :func:`item`::

    @item("dana", "Fig. 1b", claim="accuracy grows with d_h ...",
          criterion="ours within 0.05 of the paper's CSV at every d_h (mean |difference|)")
    def fig1b(results: ResultSource) -> Verdict:
        table = results.table("dana.exp2")          # full run if asked and present, else quick
        paper = papers.dana.exp2()                   # the paper's values, with their source
        return criteria.curve_agreement(..., abs_tol=0.05)

The criterion is the function (code) and its one-line description (words). An item that needs a
result nobody has computed raises :class:`NotRun` through :meth:`ResultSource.table`; the row then
says ``not run`` and which command computes it. Rows never carry a typed status.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from memnb.profiles import check_profile
from memnb.scorecard import criteria
from memnb.scorecard.criteria import STATUSES, Verdict

#: Papers in book order, with the name the scorecard prints.
PAPERS: dict[str, str] = {
    "dana": "Dana, Pydi & Chevaleyre (AISTATS 2025)",
    "mahdavi": "Mahdavi, Liao & Thrampoulidis (ICLR 2024)",
    "kajitsuka": "Kajitsuka & Sato (ICLR 2025)",
    "compare": "Cross-paper comparison (ours)",
}
#: Modules that declare items, imported by :func:`load_items`.
ITEM_MODULES: tuple[str, ...] = ("dana", "mahdavi", "kajitsuka", "compare")
#: Columns of the scorecard's JSON objects and table, in order.
COLUMNS: tuple[str, ...] = ("paper", "item", "claim", "criterion", "measured", "evidence",
                            "status")


class NotRun(Exception):
    """An item's evidence has not been computed in this checkout."""

    def __init__(self, experiment: str, profile: str) -> None:
        self.experiment, self.profile = experiment, profile
        super().__init__(f"no result of {experiment} under profile {profile}")


class NotComputable(Exception):
    """An item's statement has no content we can check; the message says why."""


@dataclass(frozen=True)
class Row:
    """One scorecard row (the JSON object of ``memnb scorecard --json``)."""

    paper: str
    item: str
    claim: str
    criterion: str
    measured: str
    evidence: str
    status: str
    ours: bool = False

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}; got {self.status!r}")

    def to_dict(self) -> dict[str, Any]:
        """The row as a JSON object with the keys of :data:`COLUMNS` (and ``ours``)."""
        return asdict(self)


class ResultSource:
    """Where an item reads its evidence: the result tables written by ``memnb run``.

    With ``profile="full"`` a table is the committed full-scale run when it exists and was
    computed under today's ``full`` profile, else the ``quick`` one (the fallback is recorded in
    the evidence: a full run under an earlier profile, e.g. with a training budget since found
    too small, is named but not judged); with ``quick`` or ``ci`` it is that profile's table.
    :meth:`table` raises :class:`NotRun` when none exists.
    """

    def __init__(self, profile: str = "full", root: Path | None = None) -> None:
        self.profile = check_profile(profile)
        self.root = root
        self._used: list[str] = []
        self._cache: dict[str, tuple[pd.DataFrame, str, str, str | None]] = {}
        self._not_judged: dict[str, str] = {}

    def _lookup(self, name: str) -> tuple[pd.DataFrame, str, str, str | None]:
        """``(table, profile it was read from, one-line description, partial summary or None)``
        of ``name``."""
        from memnb.experiments.registry import load_all
        from memnb.reruns import rerun_clause
        from memnb.results import (
            computing_invocation,
            earlier_code_note,
            load,
            partial_summary,
            profile_change,
            run_label,
        )

        if name in self._cache:
            return self._cache[name]
        order = [self.profile] + (["quick"] if self.profile == "full" else [])
        not_judged = None
        for profile in order:
            result = load(name, profile, self.root)
            if result is None:
                continue
            prov = result.provenance
            changed = profile_change(prov)
            if changed is not None and profile != order[-1]:
                # other parameters than today's profile: e.g. a training budget since found too
                # small, whose numbers measure that budget; today's smaller profile is judged
                not_judged = f"it was {changed}"
                if name in load_all():  # a rerun by today's code under way: how far it is
                    not_judged += rerun_clause(name, profile, self.root)
                continue
            if profile == self.profile and name in self._not_judged and profile != order[-1]:
                not_judged = self._not_judged[name]  # an item found it cannot judge this run
                continue
            what = f"`{profile}` run of {name}"
            if profile != self.profile and not_judged is not None:
                what += (f" (the committed `{self.profile}` run is not judged: "
                         f"{not_judged}; fell back to `{profile}`)")
            elif profile != self.profile:
                what += f" (no `{self.profile}` run exists; fell back to `{profile}`)"
            computed = computing_invocation(prov)
            what += (f": {run_label(result.table, prov)}, commit "
                     f"{str(computed['git_commit'] or 'unknown')[:7]}, "
                     f"{computed['started_utc'] or '?'}")
            if name in load_all():  # a registered experiment: today's code is known
                what += earlier_code_note(name, prov)
                if profile == "full":
                    what += rerun_clause(name, profile, self.root)
            partial = partial_summary(prov)
            if partial:
                what += f" ({partial})"
            self._cache[name] = (result.table, profile, what, partial)
            return self._cache[name]
        raise NotRun(name, self.profile)

    def peek(self, name: str) -> pd.DataFrame:
        """The table :meth:`table` would return, without recording it as evidence."""
        return self._lookup(name)[0]

    def fall_back(self, name: str, why: str) -> bool:
        """Judge the ``quick`` run of ``name`` instead of its ``full`` one, which an item found
        it cannot judge (``why``, stated in the evidence), when a ``quick`` run exists; True
        when :meth:`table` now returns it."""
        if self.profile != "full" or self.used_profile(name) != "full":
            return False
        self._not_judged[name] = why
        self._cache.pop(name, None)
        try:
            self._lookup(name)
        except NotRun:
            del self._not_judged[name]
            return False
        return True

    def table(self, name: str) -> pd.DataFrame:
        """The result table of experiment ``name`` (see the class docstring)."""
        table, _, what, _ = self._lookup(name)
        if what not in self._used:
            self._used.append(what)
        return table

    def fell_back(self, name: str) -> bool:
        """True when ``name``'s table is a ``quick`` stand-in for a missing ``full`` run."""
        return self.used_profile(name) != self.profile

    def used_profile(self, name: str) -> str:
        """The profile whose table :meth:`table` returns for ``name``."""
        return self._lookup(name)[1]

    def at_paper_scale(self, name: str, verdict: Verdict, reason: str | None = None) -> Verdict:
        """``verdict`` as it stands when ``name`` was read from a complete ``full`` run;
        otherwise a ``reproduced`` is downgraded to ``trend`` (:func:`criteria.at_paper_scale`),
        because a reduced-size run, or a full run that has not computed all of its grid and
        seeds yet, can show the paper's shape but not its values."""
        used, partial = self.used_profile(name), self.partial(name)
        return criteria.at_paper_scale(
            verdict, used, partial, incomplete=f"{name}: {partial}",
            reduced=reason or f"`{used}` run of {name}, not the paper's scale")

    def partial(self, name: str) -> str | None:
        """:func:`memnb.results.partial_summary` of the run :meth:`table` reads for ``name``
        (None when that run is complete)."""
        return self._lookup(name)[3]

    def start_item(self) -> None:
        """Forget the evidence recorded for the previous item."""
        self._used = []

    def evidence(self) -> str:
        """The evidence read since :meth:`start_item`, as one line."""
        return "; ".join(self._used)


ItemFn = Callable[[ResultSource], Verdict]


@dataclass(frozen=True)
class Item:
    """A numbered statement of a paper and the function that checks it."""

    paper: str
    item: str
    claim: str
    criterion: str
    fn: ItemFn
    evidence: str | None = None
    ours: bool = False
    cost: str | None = None

    def evaluate(self, results: ResultSource) -> Row:
        """Run the check on ``results`` and return the row (never raises for missing data)."""
        results.start_item()
        try:
            verdict = self.fn(results)
        except NotRun as missing:
            from memnb.planner import planned_cost

            cmd = f"`memnb run {missing.experiment} --profile {missing.profile}`"
            planned = planned_cost(missing.experiment, missing.profile) or self.cost
            cost = f" ({planned})" if planned else ""
            return self._row("not run", f"no result yet: {cmd} computes it{cost}",
                             "none in this checkout")
        except NotComputable as why:
            return self._row("not computable", str(why),
                             results.evidence() or "none (see measured)")
        evidence = results.evidence()
        if self.evidence:
            evidence = f"{self.evidence}; {evidence}" if evidence else self.evidence
        return self._row(verdict.status, verdict.measured,
                         evidence or "computed here at small size (no result table)")

    def _row(self, status: str, measured: str, evidence: str) -> Row:
        return Row(self.paper, self.item, self.claim, self.criterion, measured, evidence, status,
                   self.ours)


_ITEMS: dict[tuple[str, str], Item] = {}


def item(paper: str, number: str, *, claim: str, criterion: str, evidence: str | None = None,
         ours: bool = False, cost: str | None = None) -> Callable[[ItemFn], ItemFn]:
    """Declare the check of item ``number`` (as the paper numbers it) of ``paper``.

    ``evidence`` describes evidence that is not a result table (e.g. "exact computation in
    float64, memnb.constructions.aot"); ``cost`` is what a ``not run`` row adds after the command
    (e.g. "about a minute on one CPU core with `--profile quick`") where no recorded plan
    estimates the missing run (:func:`memnb.planner.planned_cost`, the ``full`` profile);
    ``ours`` marks an item that is our extension, not the paper's.
    """
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {', '.join(PAPERS)}; got {paper!r}")

    def register(fn: ItemFn) -> ItemFn:
        key = (paper, number)
        if key in _ITEMS and _ITEMS[key].fn.__qualname__ != fn.__qualname__:
            raise ValueError(f"item {number!r} of {paper!r} is declared twice")
        _ITEMS[key] = Item(paper, number, claim, criterion, fn, evidence, ours, cost)
        return fn

    return register


def load_items(papers: list[str] | None = None) -> list[Item]:
    """Import the item modules and return the items of ``papers`` (all by default), in order."""
    for module in ITEM_MODULES:
        try:
            importlib.import_module(f"memnb.scorecard.{module}")
        except ModuleNotFoundError as err:
            if err.name != f"memnb.scorecard.{module}":
                raise
    wanted = list(PAPERS) if papers is None else papers
    for paper in wanted:
        if paper not in PAPERS:
            raise ValueError(f"paper must be one of {', '.join(PAPERS)}; got {paper!r}")
    return [it for paper in wanted for (p, _), it in _ITEMS.items() if p == paper]


def build_scorecard(profile: str = "full", papers: list[str] | None = None,
                    root: Path | None = None) -> list[Row]:
    """Evaluate every item of ``papers`` on the results of ``profile`` and return the rows."""
    results = ResultSource(profile, root)
    return [it.evaluate(results) for it in load_items(papers)]


def to_frame(rows: list[Row]) -> pd.DataFrame:
    """The rows as a table with the columns of :data:`COLUMNS` (paper names spelled out)."""
    frame = pd.DataFrame([r.to_dict() for r in rows], columns=[*COLUMNS, "ours"])
    frame["paper"] = frame["paper"].map(lambda p: PAPERS.get(p, p))
    return frame


def to_json(rows: list[Row]) -> str:
    """The rows as a JSON list of objects with the keys of :data:`COLUMNS`."""
    return json.dumps([{k: r.to_dict()[k] for k in COLUMNS} | {"ours": r.ours} for r in rows],
                      indent=2, ensure_ascii=False)


def status_counts(rows: list[Row]) -> dict[str, int]:
    """How many rows have each status, in the order of :data:`STATUSES`."""
    return {s: sum(r.status == s for r in rows) for s in STATUSES}
