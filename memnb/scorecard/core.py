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
says ``not run`` and which command computes it. An item whose result exists but cannot decide it
(too few points, a partial run without its points, another setting than the paper's) raises
:class:`NotRun` with the reason and the command of the run that decides it
(:meth:`ResultSource.full_run_command`): ``not computable`` is kept for statements with no
checkable content. Rows never carry a typed status.
"""

from __future__ import annotations

import importlib
import json
import re
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import pandas as pd

from memnb.profiles import check_profile
from memnb.scorecard import criteria
from memnb.scorecard.criteria import STATUSES, Verdict

if TYPE_CHECKING:
    from memnb.results import ExperimentResult

#: Papers in book order, with the name the scorecard prints.
PAPERS: dict[str, str] = {
    "dana": "Dana, Pydi & Chevaleyre (AISTATS 2025)",
    "mahdavi": "Mahdavi, Liao & Thrampoulidis (ICLR 2024)",
    "kajitsuka": "Kajitsuka & Sato (ICLR 2025)",
    "compare": "Cross-paper comparison (ours)",
}
#: Modules that declare items, imported by :func:`load_items`.
ITEM_MODULES: tuple[str, ...] = ("dana", "mahdavi", "kajitsuka", "compare")
#: The folder of the pandas package: a ``KeyError`` raised there is a missing column
#: (:meth:`ResultSource.missing_column`).
_PANDAS = Path(pd.__file__).parent
#: Columns of the scorecard's JSON objects and table, in order.
COLUMNS: tuple[str, ...] = ("paper", "item", "claim", "criterion", "measured", "evidence",
                            "status")


class NotRun(Exception):
    """An item's evidence has not been computed in this checkout.

    Without ``why``: no result of ``experiment`` is read at the profile asked (the row says
    ``no result yet``, and names a complete run at another profile that reads it). With
    ``why``: a result exists, but one that cannot decide the item (a reduced run with too few
    points, a partial run that lacks the item's points, a run at another setting than the
    paper's); ``why`` says what it holds, and ``command`` is the command that computes the run
    that decides it (:meth:`ResultSource.full_run_command`), e.g. one that continues a partial
    run or rerun."""

    def __init__(self, experiment: str, profile: str, why: str | None = None,
                 command: str | None = None) -> None:
        self.experiment, self.profile = experiment, profile
        self.why, self.command = why, command
        super().__init__(why or f"no result of {experiment} under profile {profile}")


class NotComputable(Exception):
    """An item's statement has no content we can check (only its title, or nothing, is in our
    sources), or a measurement cannot decide it either way; the message says which."""


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
    #: the runs whose tables the check read, one short label each ("`full` run of dana.exp2",
    #: "`full` rerun of …"), for text that names them without parsing ``evidence``; a row not
    #: run for want of a table has none, one not run for want of points in a table names it
    read_from: tuple[str, ...] = ()
    #: False for a ``trend`` whose criterion could not decide the claim either way (its verdict
    #: says so, :func:`undecided`): shown as "trend (not decided)" and counted apart
    decided: bool = True
    #: the narrower class of inputs the check covers where the paper states the item more
    #: widely (:func:`item`'s ``scope``), shown beside the item in the glances; empty when the
    #: check covers the statement's setting
    scope: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}; got {self.status!r}")
        if not self.decided and self.status != "trend":
            raise ValueError(f"only a trend can be not decided; got {self.status!r}")

    def to_dict(self) -> dict[str, Any]:
        """The row as a dict with the keys of :data:`COLUMNS`, ``ours`` and ``read_from``."""
        return asdict(self)


def computing_commits(provenance: dict[str, Any]) -> str:
    """The commit(s) whose invocations computed a result's points, for its evidence: "commit
    abc1234, <start>" when the invocations of one commit computed them all (or the invocations
    do not tell, :func:`memnb.provenance.computing_invocation`), else "commits eb16d85 (84 points,
    2026-11-26), fa52566 (21 points, 2026-11-26), e676a83 (105 points, 2026-11-26)": every
    commit whose invocations raised ``points_done``, with the points they added and the day of
    the first, so that a resumed run does not read as computed by its last commit alone; then
    the points copied from the run it replaced, with that run's commit
    (:func:`memnb.provenance.copied_words`)."""
    from memnb.provenance import (
        computing_invocation,
        copied_words,
        resumed_commits,
        short_commit,
    )

    copied = copied_words(provenance)
    copied = f"; {copied}" if copied else ""
    several = resumed_commits(provenance)
    if several is not None:
        return several + copied
    computed = computing_invocation(provenance)
    return (f"commit {short_commit(computed['git_commit'])}, "
            f"{computed['started_utc'] or '?'}{copied}")


def todays_rerun(name: str, profile: str = "full",
                 root: Path | None = None) -> ExperimentResult | None:
    """The rerun of ``name`` (:func:`memnb.reruns.rerun_root`) that stands in for its committed
    ``profile`` result while that result is not judged: returned when the committed result was
    computed under an earlier profile (:func:`memnb.provenance.profile_change`) and the rerun by
    today's code (:func:`memnb.results.computed_by_todays_code`) under today's profile;
    ``None`` otherwise (no such rerun, a committed result of today's profile, an unregistered
    experiment). The rerun may be partial: a reader judges only the parts it has computed in
    full (:meth:`ResultSource.rerun_part`)."""
    from memnb.experiments.registry import load_all
    from memnb.provenance import profile_change
    from memnb.reruns import rerun_root
    from memnb.results import computed_by_todays_code, load

    committed = load(name, profile, root)
    if committed is None or profile_change(committed.provenance) is None:
        return None
    rerun = load(name, profile, rerun_root(root))
    if (rerun is None or name not in load_all() or profile_change(rerun.provenance) is not None
            or not computed_by_todays_code(name, rerun.provenance)):
        return None
    return rerun


class ReadTable(NamedTuple):
    """What :class:`ResultSource` read for one experiment."""

    table: pd.DataFrame
    profile: str  # the profile the table was read from
    what: str  # one line of evidence: the run, its device, commits, partial grid
    partial: str | None  # :func:`memnb.provenance.partial_summary`; None for a complete run
    run: str  # a short label: "`full` run of dana.exp2", for Row.read_from
    path: Path | None = None  # the CSV file the table was read from


def read_label(profile: str, name: str) -> str:
    """The :attr:`ReadTable.run` (and :attr:`Row.read_from`) label of the committed run of
    experiment ``name`` under ``profile``: "`full` run of dana.exp2"."""
    return f"`{profile}` run of {name}"


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
        self._runs: list[str] = []
        self._read: list[ReadTable] = []  # every table handed to the item (table, peek)
        self._cache: dict[str, ReadTable] = {}
        self._not_judged: dict[str, str] = {}
        # tables an item reads in place of the looked-up one while it runs (rerun_part)
        self._override: dict[str, ReadTable] = {}

    def _load(self, name: str, profile: str) -> ExperimentResult | None:
        """The committed result of ``name`` under ``profile`` (``None`` when there is none),
        before the rules of :meth:`_lookup` decide whether it is judged."""
        from memnb.results import load

        return load(name, profile, self.root)

    def _lookup(self, name: str) -> ReadTable:
        """What :meth:`table` reads for ``name``."""
        from memnb.experiments.registry import load_all
        from memnb.provenance import partial_summary, profile_change, run_label
        from memnb.reruns import rerun_clause
        from memnb.results import earlier_code_note

        if name in self._override:
            return self._override[name]
        if name in self._cache:
            return self._cache[name]
        order = [self.profile] + (["quick"] if self.profile == "full" else [])
        not_judged = None
        for profile in order:
            result = self._load(name, profile)
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
            run = what = read_label(profile, name)
            if profile != self.profile and not_judged is not None:
                what += (f" (the committed `{self.profile}` run is not judged: "
                         f"{not_judged}; fell back to `{profile}`)")
            elif profile != self.profile:
                what += f" (no `{self.profile}` run exists; fell back to `{profile}`)"
            what += f": {run_label(result.table, prov)}, {computing_commits(prov)}"
            if name in load_all():  # a registered experiment: today's code is known
                what += earlier_code_note(name, prov)
                if profile == "full":
                    what += rerun_clause(name, profile, self.root)
            partial = partial_summary(prov)
            if partial:
                what += f" ({partial})"
            self._cache[name] = ReadTable(result.table, profile, what, partial, run,
                                          result.csv_path)
            return self._cache[name]
        raise NotRun(name, self.profile)

    @contextmanager
    def rerun_part(self, name: str, column: str, values: Sequence[Any], *,
                   where: Mapping[str, Any] | None = None) -> Iterator[bool]:
        """While the block runs, read ``name`` from its rerun (:func:`todays_rerun`), only the
        rows whose ``column`` is one of ``values`` (and, with ``where``, whose columns hold its
        values: ``{"d": 50, "H": 11}``), when the rerun has computed every one of their points:
        none of its ``missing_points`` is such a point, and it holds rows of each value. Yields
        whether it does (else :meth:`table` returns what it would anyway).

        The rows read as a ``full`` run (today's code and profile), partial while the rerun is
        (:meth:`partial`, so that :meth:`at_paper_scale` caps a ``reproduced`` at ``trend``);
        the evidence names the rerun, how far it is, and why the committed run is not judged.
        Used where a committed full run of an earlier profile stands beside a partial rerun
        whose part an item needs is complete (e.g. one figure of a table of three)."""
        entry = self._rerun_entry(name, column, tuple(values), dict(where or {}))
        if entry is not None:
            self._override[name] = entry
        try:
            yield self.reads_rerun(name)
        finally:
            self._override.pop(name, None)

    def _rerun_entry(self, name: str, column: str, values: tuple[Any, ...],
                     where: dict[str, Any]) -> ReadTable | None:
        from memnb.provenance import points_ran, profile_change, run_label
        from memnb.reruns import RERUN, rerun_progress
        from memnb.results import load

        rerun = None if self.profile != "full" else todays_rerun(name, "full", self.root)
        if rerun is None or any(c not in rerun.table for c in (column, *where)):
            return None
        prov, table = rerun.provenance, rerun.table
        missing = [p for p in prov.get("missing_points") or [] if p.get(column) in values
                   and all(p.get(c) == v for c, v in where.items())]
        chosen = pd.Series(True, index=table.index)
        for c, v in where.items():
            chosen &= table[c] == v
        if missing or not all((chosen & (table[column] == v)).any() for v in values):
            return None
        part = table[chosen & table[column].isin(values)].reset_index(drop=True)
        which = (" and ".join(map(str, values)) if column == "figure" else
                 f"{column} = {', '.join(map(str, values))}")
        if where:
            which += " at " + ", ".join(f"{c} = {v}" for c, v in where.items())
        committed = load(name, "full", self.root)
        done, total = points_ran(prov)
        label = f"`full` rerun of {name}"
        what = (f"{label} by today's code under today's `full` profile "
                f"({RERUN}/full/), read for its {which} points, every one of which it has "
                f"computed: {run_label(part, prov)}, {computing_commits(prov)}; "
                f"{rerun_progress(name, 'full', self.root)}; the committed `full` run is not "
                f"judged: it was {profile_change(committed.provenance)}")
        partial = (None if rerun.complete else
                   f"a partial rerun ({done} of {total} points of today's profile; its {which} "
                   "points all computed)")
        return ReadTable(part, "full", what, partial, label, rerun.csv_path)

    def reads_rerun(self, name: str) -> bool:
        """Whether :meth:`table` now returns a part of ``name``'s rerun (:meth:`rerun_part`)."""
        return name in self._override and self._lookup(name) is self._override[name]

    def full_run_command(self, name: str) -> str:
        """The command that computes the ``full`` run of ``name`` an item needs: the one that
        continues its rerun when one is under way (:mod:`memnb.reruns`), or its partial ``full``
        run of today's code and profile; ``--rerun`` when the committed one is of an earlier
        profile or of earlier code (a plain run would move it aside at its first partial write);
        else the plain ``memnb run <name> --profile full``."""
        from memnb.provenance import profile_change
        from memnb.reruns import rerun_root
        from memnb.results import computed_by_todays_code, continue_command, load

        plain = f"memnb run {name} --profile full"
        rerun = load(name, "full", rerun_root(self.root))
        if rerun is not None and not rerun.complete:
            return continue_command(name, "full", rerun.provenance, rerun=True)
        full = load(name, "full", self.root)
        if full is None:
            return plain
        if profile_change(full.provenance) is not None:
            return f"{plain} --rerun"
        if not computed_by_todays_code(name, full.provenance):
            return continue_command(name, "full", full.provenance, rerun=True)
        return plain if full.complete else continue_command(name, "full", full.provenance)

    def complete_elsewhere(self, name: str, needed: str) -> str | None:
        """A profile, other than the one asked, whose committed result of ``name`` is complete
        and of today's profile (:func:`memnb.provenance.profile_change`), for a row not run at
        the asked profile: ``needed`` (the profile of the run the item needs) when it is such a
        profile, else the largest such profile above the one asked (``full``, then ``quick``);
        ``None`` when there is none. ``memnb scorecard --profile <it>`` reads that result."""
        from memnb.profiles import PROFILES
        from memnb.provenance import profile_change

        above = PROFILES[PROFILES.index(self.profile) + 1:][::-1]
        for profile in dict.fromkeys([needed, *above]):
            if profile == self.profile:
                continue
            result = self._load(name, profile)
            if (result is not None and result.complete
                    and profile_change(result.provenance) is None):
                return profile
        return None

    def peek(self, name: str) -> pd.DataFrame:
        """The table :meth:`table` would return, without recording it as evidence."""
        return self._handed(self._lookup(name))

    def _handed(self, read: ReadTable) -> pd.DataFrame:
        """``read``'s table, remembered as read by the current item (:meth:`missing_column`)."""
        if not any(read is seen for seen in self._read):
            self._read.append(read)
        return read.table

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
        read = self._lookup(name)
        if read.what not in self._used:
            self._used.append(read.what)
        if read.run not in self._runs:
            self._runs.append(read.run)
        return self._handed(read)

    def run_of(self, name: str) -> str:
        """Which committed run the table of ``name`` comes from: "`ci` run of dana.exp2"."""
        return self._lookup(name).run

    def fell_back(self, name: str) -> bool:
        """True when ``name``'s table is a ``quick`` stand-in for a missing ``full`` run."""
        return self.used_profile(name) != self.profile

    def used_profile(self, name: str) -> str:
        """The profile whose table :meth:`table` returns for ``name``."""
        return self._lookup(name).profile

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
        """:func:`memnb.provenance.partial_summary` of the run :meth:`table` reads for ``name``
        (None when that run is complete)."""
        return self._lookup(name).partial

    def start_item(self) -> None:
        """Forget the evidence recorded for the previous item."""
        self._used = []
        self._runs = []
        self._read = []

    def missing_column(self, err: KeyError) -> tuple[Path, str] | None:
        """``(file, column)`` when ``err``, raised by pandas while the current item ran, names a
        column that a result table handed to the item (:meth:`table`, :meth:`peek`) lacks: a
        table written without it, or edited since. ``None`` for any other ``KeyError`` (a key
        of a dict, a column of a table the item derived), which is a fault of the code."""
        frames = traceback.extract_tb(err.__traceback__)
        if not frames or not Path(frames[-1].filename).is_relative_to(_PANDAS):
            return None
        key = err.args[0] if err.args else None
        if not isinstance(key, str):
            return None
        # pandas names one column as the key, several in a message: "['x', 'y'] not in index"
        names = re.findall(r"'([^']*)'", key) if "'" in key else [key]
        for read in self._read:
            lacking = [n for n in names if n not in read.table.columns]
            if lacking and read.path is not None:
                return read.path, lacking[0]
        return None

    def evidence(self) -> str:
        """The evidence read since :meth:`start_item`, as one line."""
        return "; ".join(self._used)

    def runs_read(self) -> tuple[str, ...]:
        """The short labels of the runs read since :meth:`start_item` (:attr:`ReadTable.run`)."""
        return tuple(self._runs)


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
    scope: str | None = None

    def evaluate(self, results: ResultSource) -> Row:
        """Run the check on ``results`` and return the row (never raises for missing data). A
        result file that cannot be read raises :class:`memnb.results.ResultFileError` naming
        it: one that is cut short or not JSON (:func:`memnb.results.load`), or a table without a
        column the check reads (:meth:`ResultSource.missing_column`)."""
        results.start_item()
        try:
            verdict = self.fn(results)
        except NotRun as missing:
            from memnb.planner import planned_cost

            plain = f"memnb run {missing.experiment} --profile {missing.profile}"
            cmd = f"`{missing.command or plain}`"
            # an item's own cost is that of its full run: a reduced profile's is not stated
            planned = planned_cost(missing.experiment, missing.profile) or (
                self.cost if missing.profile == "full" else None)
            if missing.why is None:
                return self._not_run_yet(results, missing, cmd, planned)
            # "full profile", not "whole run": an adaptive search's plan covers its first round
            whole = f" (full profile, {planned})" if planned else ""
            return self._row("not run", f"{missing.why}; {cmd} computes the run that decides "
                             f"it{whole}", results.evidence() or "none in this checkout",
                             results.runs_read())
        except NotComputable as why:
            return self._row("not computable", str(why),
                             results.evidence() or "none (see measured)", results.runs_read())
        except KeyError as err:  # a result table without a column the check reads
            lacking = results.missing_column(err)
            if lacking is None:
                raise
            from memnb.results import RESTORE, ResultFileError, shown_path

            path, column = lacking
            raise ResultFileError(f"{shown_path(path)} has no column {column!r}, which the "
                                  f"scorecard's row {self.item} of {self.paper} reads; "
                                  f"{RESTORE}") from err
        evidence = results.evidence()
        if self.evidence:
            evidence = f"{self.evidence}; {evidence}" if evidence else self.evidence
        return self._row(verdict.status, verdict.measured,
                         evidence or "computed here at small size (no result table)",
                         results.runs_read(), decided=not undecided(verdict))

    def _not_run_yet(self, results: ResultSource, missing: NotRun, cmd: str,
                     planned: str | None) -> Row:
        """The ``not run`` row of an item whose run exists at no profile ``results`` reads. A
        complete run at another profile (:meth:`ResultSource.complete_elsewhere`) is named with
        the command that reads it: in place of the run command when it is the run the item
        needs (that command would be refused, or would compute it again), else after it."""
        name, asked = missing.experiment, results.profile
        shown = results.complete_elsewhere(name, missing.profile)
        if shown is not None and shown == missing.profile:
            return self._row("not run", f"not run at `{asked}`: this row reads the `{shown}` "
                             f"run of {name}, which is complete here; `memnb scorecard "
                             f"--profile {shown}` judges the row on it",
                             f"the complete {read_label(shown, name)}, not read at `{asked}`")
        cost = f" ({planned})" if planned else ""
        if shown is None:
            return self._row("not run", f"no result yet: {cmd} computes it{cost}",
                             "none in this checkout")
        return self._row("not run", f"no `{asked}` result yet: {cmd} computes it{cost}; a "
                         f"complete `{shown}` run of {name} exists, which `memnb scorecard "
                         f"--profile {shown}` reads",
                         f"none at `{asked}`; the complete {read_label(shown, name)} is not "
                         f"read at `{asked}`")

    def _row(self, status: str, measured: str, evidence: str,
             read_from: tuple[str, ...] = (), *, decided: bool = True) -> Row:
        # a scope bounds what a judgement covers; a row not judged has none to bound
        scope = self.scope if self.scope and status in ("reproduced", "trend") else ""
        return Row(self.paper, self.item, self.claim, self.criterion, measured, evidence, status,
                   self.ours, read_from, decided, scope)


def undecided(verdict: Verdict) -> bool:
    """Whether ``verdict`` is a ``trend`` that its criterion could not decide either way: its
    values say ``decided`` False (e.g. the cross-paper head-to-head and capacity-vs-budget rows,
    Kajitsuka & Sato's Theorem 4.1 with too wide an interval, Mahdavi et al.'s Fig. 4 when only
    its n sweep is short of a decision) or ``undecided`` True (e.g. Kajitsuka & Sato's bits and
    capacity fits), as opposed to a trend on a shape that holds or on a reduced run."""
    return verdict.status == "trend" and (verdict.values.get("decided") is False
                                          or verdict.values.get("undecided") is True)


def status_words(judged: Verdict | Row | Any) -> str:
    """The status of ``judged`` as the book prints it: ``"trend (not decided)"`` for a trend
    that its criterion could not decide either way (a verdict: :func:`undecided`; a row, or a
    row of :func:`to_frame`: ``decided`` False), else the status itself. The one wording of the
    flag in the chapters' captions, beside the scorecard's dashed outline badge."""
    if isinstance(judged, Verdict):
        not_decided = undecided(judged)
    else:
        not_decided = not bool(getattr(judged, "decided", True))
    return f"{judged.status} (not decided)" if not_decided else str(judged.status)


_ITEMS: dict[tuple[str, str], Item] = {}


def item(paper: str, number: str, *, claim: str, criterion: str, evidence: str | None = None,
         ours: bool = False, cost: str | None = None,
         scope: str | None = None) -> Callable[[ItemFn], ItemFn]:
    """Declare the check of item ``number`` (as the paper numbers it) of ``paper``.

    ``evidence`` describes evidence that is not a result table (e.g. "exact computation in
    float64, memnb.constructions.aot"); ``cost`` is what a ``not run`` row adds after the command
    (e.g. "about a minute on one CPU core with `--profile quick`") where no recorded plan
    estimates the missing run (:func:`memnb.planner.planned_cost`, the ``full`` profile);
    ``ours`` marks an item that is our extension, not the paper's; ``scope`` names, in a few
    words, the narrower class of inputs the check covers where the paper states the item more
    widely (e.g. "generic sets only"), so that the glances do not show a reproduced row as
    covering the whole statement (a row that is reproduced or a trend carries it, as
    :attr:`Row.scope`).
    """
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {', '.join(PAPERS)}; got {paper!r}")

    def register(fn: ItemFn) -> ItemFn:
        key = (paper, number)
        if key in _ITEMS and _ITEMS[key].fn.__qualname__ != fn.__qualname__:
            raise ValueError(f"item {number!r} of {paper!r} is declared twice")
        _ITEMS[key] = Item(paper, number, claim, criterion, fn, evidence, ours, cost, scope)
        return fn

    return register


def load_items(papers: list[str] | None = None) -> list[Item]:
    """Import the item modules and return the items of ``papers`` (all by default), in order.
    ``ValueError`` for a paper not in :data:`PAPERS`, and for ``papers`` given as one string
    (``"dana"``, not ``["dana"]``), which would read as a list of its letters."""
    if isinstance(papers, str):
        raise ValueError(f"papers must be a list of paper names, e.g. [{papers!r}]; got the "
                         f"string {papers!r}")
    for module in ITEM_MODULES:
        importlib.import_module(f"memnb.scorecard.{module}")
    wanted = list(PAPERS) if papers is None else papers
    for paper in wanted:
        if paper not in PAPERS:
            raise ValueError(f"paper must be one of {', '.join(PAPERS)}; got {paper!r}")
    return [it for paper in wanted for (p, _), it in _ITEMS.items() if p == paper]


def build_scorecard(profile: str = "full", papers: list[str] | None = None,
                    root: Path | None = None, *, progress: bool = False) -> list[Row]:
    """Evaluate every item of ``papers`` on the results of ``profile`` and return the rows;
    with ``progress``, a bar over the items on the terminal (``memnb scorecard``: judging
    every row takes from half a minute to a few minutes), never in a rendered page
    (:func:`memnb.progress.bar_disabled`)."""
    from tqdm.auto import tqdm

    from memnb.progress import bar_disabled

    results = ResultSource(profile, root)
    items = load_items(papers)
    return [it.evaluate(results) for it in tqdm(items, desc=f"scorecard ({profile})",
                                                unit="row", disable=bar_disabled(progress))]


def to_frame(rows: list[Row]) -> pd.DataFrame:
    """The rows as a table with the columns of :data:`COLUMNS` (paper names spelled out),
    ``ours`` and ``decided`` (False for a trend not decided, :func:`undecided`)."""
    frame = pd.DataFrame([r.to_dict() for r in rows], columns=[*COLUMNS, "ours", "decided"])
    frame["paper"] = frame["paper"].map(lambda p: PAPERS.get(p, p))
    return frame


def to_json(rows: list[Row]) -> str:
    """The rows as a JSON list of objects with the keys of :data:`COLUMNS`, ``ours``,
    ``read_from`` (the runs a row's check read) and ``decided`` (False for a trend not
    decided, :func:`undecided`)."""
    return json.dumps([{k: r.to_dict()[k] for k in COLUMNS}
                       | {"ours": r.ours, "read_from": list(r.read_from), "decided": r.decided}
                       for r in rows],
                      indent=2, ensure_ascii=False)


def status_counts(rows: list[Row]) -> dict[str, int]:
    """How many rows have each status, in the order of :data:`STATUSES`."""
    return {s: sum(r.status == s for r in rows) for s in STATUSES}
