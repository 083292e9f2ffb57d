"""Would the full runs that today's tables replaced, or a replication of them, have changed a
verdict? (ours)

A committed full-scale table that was recomputed by newer code (or under a newer profile)
keeps the table it replaced under ``data/results/full/superseded/``
(:func:`memnb.results.supersede`, :mod:`memnb.reruns`). Recomputing changes numbers slightly:
another code fingerprint, the CPU's denormals flushed instead of kept. This module judges every
scorecard row that reads such a table a second time, on the replaced table, so that a reader can
see whether a verdict rests on the particular run or on what every run shows. A replication
(:func:`replication_markdown`) is the same question for a run of the same code: a committed full
run computed again on another machine, whose CPU kernels may round differently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memnb.prose import markdown_table
from memnb.results import ExperimentResult
from memnb.scorecard.core import (
    PAPERS,
    ResultSource,
    Row,
    load_items,
    read_label,
)
from memnb.scorecard.render import source_profile

if TYPE_CHECKING:
    from memnb.reruns import ReplacementGap


class ReplacedSource(ResultSource):
    """The ``full`` results, except that experiment ``name`` is read from ``replaced``, the
    table its committed full run replaced: the evidence a row would have had before. The
    replaced table passes the same rules as a committed one (:meth:`ResultSource._lookup`): one
    computed under an earlier profile is named, not judged, and the row falls back to ``quick``
    as it would have then."""

    def __init__(self, name: str, replaced: ExperimentResult, root: Path | None = None) -> None:
        super().__init__("full", root)
        self.replaced_name = name
        self.replaced = replaced

    def _load(self, name: str, profile: str) -> ExperimentResult | None:
        if name == self.replaced_name and profile == "full":
            return self.replaced
        return super()._load(name, profile)


def reads_full_run(row: Row, name: str) -> bool:
    """Whether ``row`` read the committed ``full`` run of experiment ``name``
    (:attr:`memnb.scorecard.core.Row.read_from`)."""
    return read_label("full", name) in row.read_from


@dataclass(frozen=True)
class Rejudged:
    """A scorecard row judged on the committed results and again with one table replaced."""

    experiment: str  # the experiment whose replaced table it was judged on
    paper: str
    item: str
    now: str  # status on the committed results
    then: str  # status with the replaced table in place of the committed one


def rejudge(rows: Sequence[Row], name: str, root: Path | None = None, *,
            replaced: ExperimentResult | None = None) -> list[Rejudged] | None:
    """Each of ``rows`` (evaluated on the ``full`` results) that reads the committed full run of
    ``name``, judged again on the table that run replaced (``replaced``, read by
    :func:`memnb.reruns.replaced_result` when not given); ``None`` when it replaced none."""
    from memnb.reruns import replaced_result

    if replaced is None:
        replaced = replaced_result(name, "full", root)
    if replaced is None:
        return None
    items = {(it.paper, it.item): it for it in load_items(sorted({r.paper for r in rows}))}
    source = ReplacedSource(name, replaced, root)
    return [Rejudged(name, row.paper, row.item, row.status,
                     items[row.paper, row.item].evaluate(source).status)
            for row in rows if (row.paper, row.item) in items and reads_full_run(row, name)]


def replaced_runs_markdown(rows: Sequence[Row], names: Sequence[str], profile: str,
                           root: Path | None = None) -> str:
    """A table, one line per experiment of ``names`` whose committed full run replaced a table
    of earlier code or profile: the replaced run, how far the two tables are apart on the
    points both computed (:func:`memnb.reruns.replacement_gap`, in
    :func:`memnb.reruns.compared_column`) and every one of ``rows`` that reads the run, with
    its status on the committed table and on the replaced one (:func:`rejudge`); then a sentence
    counting the statuses that change. Rows of several papers are named with their paper."""
    from memnb.provenance import arithmetic_label, partial_summary, profile_change, short_commit
    from memnb.reruns import compared_column, gap_between, replaced_result
    from memnb.results import load

    if source_profile(profile) != "full":
        return (f"Under the `{profile}` profile the scorecard reads no full runs, so no "
                "replaced run is judged again.\n")
    several = len({r.paper for r in rows}) > 1

    def paper_name(paper: str) -> str:
        return PAPERS[paper].split(" (")[0]

    def label(j: Rejudged) -> str:
        return f"{paper_name(j.paper)}: {j.item}" if several else j.item

    def cell(again: list[Rejudged]) -> str:
        """The statuses of ``again``, the paper named once before its rows."""
        groups: dict[str, list[str]] = {}
        for j in again:
            groups.setdefault(j.paper, []).append(f"{j.item}: {j.now} → {j.then}")
        return ". ".join((f"*{paper_name(paper)}*: " if several else "") + "; ".join(texts)
                         for paper, texts in groups.items()) or "no row reads it"

    header = ["experiment", "the table it replaced", "on the points both tables hold",
              "verdicts: committed run → replaced run"]
    lines: list[list[str]] = []
    judged: list[Rejudged] = []
    partial_tables: set[str] = set()  # replaced tables of a partial grid
    earlier_profile: set[str] = set()  # replaced tables of an earlier profile: not judged
    for name in names:
        current = load(name, "full", root)
        replaced = None if current is None else replaced_result(name, "full", root)
        if replaced is None:
            continue
        again = rejudge(rows, name, root, replaced=replaced)
        judged += again
        then = replaced.provenance
        same_code = then.get("code_fingerprint") == current.provenance.get("code_fingerprint")
        what = (f"{'an earlier profile, code' if same_code else 'earlier code'} "
                f"`{then.get('code_fingerprint')}`, {arithmetic_label(then)}, commit "
                f"`{short_commit(then.get('git_commit'))}`")
        if profile_change(then) is not None:
            earlier_profile.add(name)
        partial = partial_summary(then)
        if partial is not None:  # a partial table: a verdict may move for that alone
            what += f"; {partial}"
            partial_tables.add(name)
        column = compared_column(current.table, replaced.table)
        gap = (None if column is None
               else gap_between(name, "full", current, replaced, column=column))
        apart = _apart(gap, column)
        lines.append([f"`{name}`", what, apart, cell(again)])
    if not lines:
        return "No committed full run here replaced a table of earlier code or profile.\n"
    summary = rejudged_summary(judged, label, partial_tables, earlier_profile)
    return markdown_table(header, lines) + "\n\n" + summary + "\n"


def _apart(gap: ReplacementGap | None, column: str | None) -> str:
    """How far a committed table is from the one it replaced (:func:`memnb.reruns.gap_between`'s
    ``gap`` in ``column``), for :func:`replaced_runs_markdown`'s table. The ``gap.copied``
    points of the committed run were read from the replaced run's point cache
    (:func:`memnb.reruns.copied_points`): equal by construction, they are no evidence of
    agreement (the rule :func:`memnb.reruns.replacement_difference` follows too)."""
    if column is None:
        return "not compared (the tables hold no accuracy column)"
    if gap is None:
        return f"not compared (no grid to match points on, or a point's rows differ in `{column}`)"
    if gap.points == 0:
        return "no point in common"
    if gap.recomputed == 0:
        return f"not compared: {gap.none_recomputed_words()}"
    return (f"{gap.points} points{gap.copied_clause()}: `{column}` differs by {gap.mean:.4f} on "
            f"average, at most {gap.largest:.3f}")


def rejudged_summary(judged: Sequence[Rejudged], label: Callable[[Rejudged], str],
                     partial_tables: Collection[str] = (),
                     earlier_profile: Collection[str] = (), *,
                     on: tuple[str, str, str] = ("the replaced tables", "the replaced table",
                                                 "the replaced one")) -> str:
    """One sentence on ``judged``: how many verdicts were judged again, which rows read several
    replaced runs (each judged again once per run, so counted once per run) and every status
    that changes, named by ``label`` (and by the replaced run for such a row; with a note where
    the replaced table was of an earlier profile and so not judged, one of ``earlier_profile``,
    or else where its grid was partial, one of ``partial_tables``). ``on`` names the tables
    judged on: all together, one of them, and one of them after a status (a replication:
    :func:`replication_markdown`). A status that becomes ``not run`` there overturns nothing and
    is listed apart."""
    tables, table, one = on

    def why(j: Rejudged) -> str:
        if j.experiment in earlier_profile:
            return ", which is of an earlier profile and so not judged"
        return ", whose grid is partial" if j.experiment in partial_tables else ""

    changed = [j for j in judged if j.now != j.then]
    reads = Counter((j.paper, j.item) for j in judged)  # judged again once per replaced run
    twice = sorted({label(j) for j in judged if reads[j.paper, j.item] > 1})
    verdicts = f"{len(judged)} verdict{'s' * (len(judged) != 1)}"
    several = (f" ({len(twice)} row{'s' * (len(twice) > 1)} read{'s' * (len(twice) == 1)} "
               "several replaced runs and "
               f"{'is' if len(twice) == 1 else 'are'} judged again with each in turn: "
               + ", ".join(twice) + ")" if twice else "")
    head = f"Of the {verdicts} judged again on {tables}{several}, "
    if not changed:
        return head + "none changes."

    def listed(rows: Sequence[Rejudged]) -> str:
        return "; ".join(f"{label(j)}"
                         + (f" with `{j.experiment}` replaced" if reads[j.paper, j.item] > 1
                            else "")
                         + f" ({j.now} on the committed run, {j.then} on {one}"
                         + why(j) + ")" for j in rows)

    # a replaced table that cannot decide a row (not run on it) overturns nothing
    undecided = [j for j in changed if j.then == "not run"]
    moved = [j for j in changed if j.then != "not run"]
    text = head + (f"{len(moved)} change{'s' if len(moved) == 1 else ''}: {listed(moved)}."
                   if moved else "none changes to another verdict.")
    if undecided:
        text += (f" {len(undecided)} cannot be decided on {table} (`not run` there, which "
                 f"overturns no verdict): {listed(undecided)}.")
    return text


REPLICATIONS = "replications"
"""The folder under the results root that holds replications (ours): a committed full run
computed again, by code of the same fingerprint and over the same grid, in another run (another
machine, say), as ``data/results/replications/<profile>/<name>.{csv,json}``."""


def replications_root(root: Path | None = None) -> Path:
    """The results root of replications: ``<root>/replications`` (``root`` defaults to
    :func:`memnb.paths.results_dir`)."""
    from memnb.paths import results_dir

    return (root or results_dir()) / REPLICATIONS


def replication_markdown(rows: Sequence[Row], names: Sequence[str], profile: str,
                         root: Path | None = None) -> str | None:
    """For each experiment of ``names`` whose committed full run has a replication
    (:func:`replications_root`) of the same code fingerprint, one paragraph: both runs' device,
    commit and start, how far the two tables are apart on the points both hold (in
    :func:`memnb.reruns.compared_column`), and every one of ``rows`` that reads the committed run
    judged again on the replication (:func:`rejudge`), with the count of statuses that change.
    A replication of other code is named and not compared. ``None`` when there is none. It tells
    a verdict that rests on one run's last bits from one that every run of the code shows. Under
    a ``profile`` whose scorecard reads no full runs, a sentence says so."""
    from memnb.provenance import computed_on
    from memnb.reruns import compared_column, gap_between
    from memnb.results import load

    if source_profile(profile) != "full":
        return (f"Under the `{profile}` profile the scorecard reads no full runs, so no "
                "replication is judged.")
    texts = []
    for name in names:
        current = load(name, "full", root)
        again = load(name, "full", replications_root(root))
        if current is None or again is None:
            continue
        code = current.provenance.get("code_fingerprint")
        if again.provenance.get("code_fingerprint") != code:
            texts.append(f"`{name}`: the replication under `{REPLICATIONS}/` is of other code "
                         f"(`{again.provenance.get('code_fingerprint')}`, the committed run's "
                         f"`{code}`), so it is not compared.")
            continue
        column = compared_column(current.table, again.table)
        gap = None if column is None else gap_between(name, "full", current, again,
                                                      column=column)
        judged = rejudge(rows, name, root, replaced=again) or []
        statuses = "; ".join(f"{j.item}: {j.now} → {j.then}" for j in judged)
        verdicts = ("No row reads it." if not judged else
                    f"The rows that read it (committed → replication): {statuses}. "
                    + rejudged_summary(judged, lambda j: j.item,
                                       on=("the replication",) * 3))
        texts.append(f"`{name}` computed again by the same code (fingerprint `{code}`) on "
                     f"{computed_on(again.provenance)}, beside the committed run on "
                     f"{computed_on(current.provenance)}: {_apart(gap, column)}. {verdicts}")
    return "\n\n".join(texts) or None


__all__ = ["REPLICATIONS", "ReplacedSource", "Rejudged", "reads_full_run", "rejudge",
           "rejudged_summary", "replaced_runs_markdown", "replication_markdown",
           "replications_root"]
