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
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memnb.prose import markdown_table
from memnb.reruns import REPLICATIONS, cells_apart, replications_root, says_all_equal
from memnb.results import ExperimentResult
from memnb.scorecard.core import (
    PAPERS,
    ResultSource,
    Row,
    load_items,
    read_label,
    status_words,
)
from memnb.scorecard.render import source_profile

if TYPE_CHECKING:
    from memnb.reruns import AgainstReplaced, ReplacementGap


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
    # False for a trend not decided (:attr:`memnb.scorecard.core.Row.decided`) on the
    # committed results, and with the replaced table
    now_decided: bool = True
    then_decided: bool = True

    @property
    def now_words(self) -> str:
        """The status on the committed results as the scorecard shows it ("trend (not
        decided)", :func:`memnb.scorecard.core.status_words`)."""
        return status_words(Row(self.paper, self.item, "", "", "", "", self.now,
                                decided=self.now_decided))

    @property
    def then_words(self) -> str:
        """The status with the replaced table, as the scorecard shows it (:attr:`now_words`)."""
        return status_words(Row(self.paper, self.item, "", "", "", "", self.then,
                                decided=self.then_decided))

    @property
    def changed(self) -> bool:
        """Whether the status as shown changes: another status, or a trend decided on one
        table and not decided on the other."""
        return self.now_words != self.then_words

    def words(self) -> str:
        """``item: now → then``, each status as the scorecard shows it."""
        return f"{self.item}: {self.now_words} → {self.then_words}"


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
    judged = []
    for row in rows:
        if (row.paper, row.item) in items and reads_full_run(row, name):
            again = items[row.paper, row.item].evaluate(source)
            judged.append(Rejudged(name, row.paper, row.item, row.status, again.status,
                                   row.decided, again.decided))
    return judged


def replaced_runs_markdown(rows: Sequence[Row], names: Sequence[str], profile: str,
                           root: Path | None = None) -> str:
    """A table, one line per experiment of ``names`` whose committed full run replaced a table
    of earlier code or profile: the replaced run, how far the two tables are apart on the
    points both computed (:func:`memnb.reruns.replacement_gap`, in
    :func:`memnb.reruns.compared_column`) and every one of ``rows`` that reads the run, with
    its status on the committed table and on the replaced one (:func:`rejudge`); then a sentence
    counting the statuses that change. Rows of several papers are named with their paper."""
    from memnb.provenance import arithmetic_label, partial_summary, profile_change, short_commit
    from memnb.reruns import (
        compared_column,
        gap_between,
        replaced_against_replication,
        replaced_result,
    )
    from memnb.results import load

    if source_profile(profile) != "full":
        return (f"Under the `{profile}` profile the scorecard reads no full runs, so no "
                "replaced run is judged again.\n")
    several = len({r.paper for r in rows}) > 1

    def label(j: Rejudged) -> str:
        return f"{_paper_name(j.paper)}: {j.item}" if several else j.item

    header = ["experiment", "the table it replaced", "on the points both tables hold",
              "verdicts: committed run → replaced run"]
    lines: list[list[str]] = []
    judged: list[Rejudged] = []
    partial_tables: set[str] = set()  # replaced tables of a partial grid
    earlier_profile: set[str] = set()  # replaced tables of an earlier profile: not judged
    copied: set[str] = set()  # replaced tables whose every shared point the committed run copied
    for name in names:
        current = load(name, "full", root)
        replaced = None if current is None else replaced_result(name, "full", root)
        if replaced is None:
            continue
        then = replaced.provenance
        # the scorecard judges no table of an earlier profile (ResultSource reads the quick run
        # in its place), so its rows are not judged again on it: verdicts on the quick run,
        # shown as the replaced table's, would count what was never judged there
        earlier = profile_change(then) is not None
        again = [] if earlier else rejudge(rows, name, root, replaced=replaced) or []
        judged += again
        same_code = then.get("code_fingerprint") == current.provenance.get("code_fingerprint")
        what = (f"{'an earlier profile, code' if same_code else 'earlier code'} "
                f"`{then.get('code_fingerprint')}`, {arithmetic_label(then)}, commit "
                f"`{short_commit(then.get('git_commit'))}`")
        if earlier:
            earlier_profile.add(name)
        partial = partial_summary(then)
        if partial is not None:  # a partial table: a verdict may move for that alone
            what += f"; {partial}"
            partial_tables.add(name)
        column = compared_column(current.table, replaced.table)
        gap = (None if column is None
               else gap_between(name, "full", current, replaced, column=column))
        apart = (_apart(gap, column) if column is not None
                 else _cells_apart_words(name, current, replaced))
        if gap is not None and gap.points and not gap.recomputed:
            copied.add(name)
        against = replaced_against_replication(name, "full", root, current=current,
                                               replaced=replaced)
        if gap is not None and gap.recomputed and against is not None and against.committed_apart:
            same = " (same code)" if against.same_code else ""
            apart += (f"; the replication of the committed run{same} equals the replaced table "
                      f"in every cell: {_what_changed([against])} moved no number, and the gap "
                      "is the committed run's own")
        statuses = (NOT_JUDGED_EARLIER_PROFILE if earlier
                    else _statuses_cell(again, several=several))
        lines.append([f"`{name}`", what, apart, statuses])
    if not lines:
        return "No committed full run here replaced a table of earlier code or profile.\n"
    summary = rejudged_summary(judged, label, partial_tables, copied=copied) if judged else ""
    if earlier_profile:
        names_words = ", ".join(f"`{n}`" for n in sorted(earlier_profile))
        several_tables = len(earlier_profile) > 1
        summary += ((" Not judged again: " if judged else "No verdict is judged again: ")
                    + f"the replaced table{'s' * several_tables} of {names_words} "
                    f"{'are' if several_tables else 'is'} of an earlier profile, which the "
                    "scorecard does not judge.")
        summary = summary.lstrip()
    elif not judged:
        summary = rejudged_summary(judged, label, partial_tables, copied=copied)
    return (markdown_table(header, lines) + "\n\n" + summary
            + replaced_equal_sentence(names, root) + "\n")


#: The verdicts cell of a replaced table of an earlier profile (:func:`replaced_runs_markdown`):
#: the scorecard judges no such table (it reads the quick run in its place), so no row is
#: judged again on it.
NOT_JUDGED_EARLIER_PROFILE = ("not judged again: a table of an earlier profile, which the "
                              "scorecard does not judge (it would read the quick run in its "
                              "place)")


def _paper_name(paper: str) -> str:
    """The paper's authors, as a table names the paper of a row (``PAPERS`` without the venue)."""
    return PAPERS[paper].split(" (")[0]


def _statuses_cell(judged: Sequence[Rejudged], *, several: bool) -> str:
    """The statuses of ``judged`` (``item: now → then``, as the scorecard shows them:
    :meth:`Rejudged.words`) for one table cell, each paper named once before its rows when the
    table holds rows of ``several`` papers."""
    groups: dict[str, list[str]] = {}
    for j in judged:
        groups.setdefault(j.paper, []).append(j.words())
    return ". ".join((f"*{_paper_name(paper)}*: " if several else "") + "; ".join(texts)
                     for paper, texts in groups.items()) or "no row reads it"


def _cells_apart_words(name: str, current: ExperimentResult, replaced: ExperimentResult) -> str:
    """A committed table against the one it replaced where the tables hold no accuracy column
    (a construction's bits, a rank check's pass fractions): cell by cell, rows matched on the
    grid's parameters (:func:`memnb.reruns.cells_apart`), as :func:`replications` compares a
    replication, so the two sections of the book compare such tables alike. Points the
    committed run read from the replaced run's point cache are equal by construction: when it
    read any, the words say how many (the rule of :func:`_apart`)."""
    from memnb.reruns import copied_points, point_keys

    words = cells_apart(current.table, replaced.table, point_keys(name, "full") or ())
    if not words.startswith("not compared"):
        words = "cell by cell: " + words
    copied = copied_points(current, replaced)
    if copied:
        words += (f" ({copied} point{'s' * (copied != 1)} of the committed run read from the "
                  "replaced run's point cache, equal by construction)")
    return words


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
    if gap.largest == 0:
        return f"{gap.points} points{gap.copied_clause()}: `{column}` equal at every one"
    return (f"{gap.points} points{gap.copied_clause()}: `{column}` differs by {gap.mean:.4f} on "
            f"average, at most {gap.largest:.3f}")


def rejudged_summary(judged: Sequence[Rejudged], label: Callable[[Rejudged], str],
                     partial_tables: Collection[str] = (),
                     earlier_profile: Collection[str] = (), *,
                     on: tuple[str, str, str] = ("the replaced tables", "the replaced table",
                                                 "the replaced one"),
                     runs: str = "replaced runs", copied: Collection[str] = ()) -> str:
    """One sentence on ``judged``: how many verdicts were judged again, which rows read several
    replaced runs (each judged again once per run, so counted once per run) and every status
    that changes as the scorecard shows it (:attr:`Rejudged.changed`: a trend decided on one
    table and not decided on the other changes too), named by ``label`` (and by the replaced
    run for such a row; with a note where the replaced table was of an earlier profile and so
    not judged, one of ``earlier_profile``, or else where its grid was partial, one of
    ``partial_tables``). ``on`` names the tables judged on: all together, one of them, and one
    of them after a status, and ``runs`` what a row reading several of them reads (a
    replication: :func:`replication_markdown`). A
    status that becomes ``not run`` there overturns nothing and is listed apart. A replaced
    table of ``copied`` gave the committed run every point the two share (read from its point
    cache): the note says so, since a row reading only those points rests on its numbers."""
    tables, table, one = on

    def why(j: Rejudged) -> str:
        same = ("; the points it shares with the committed run were copied from it, the same "
                "numbers" if j.experiment in copied else "")
        if j.experiment in earlier_profile:
            return ", which is of an earlier profile and so not judged" + same
        return (", whose grid is partial" if j.experiment in partial_tables else "") + same

    changed = [j for j in judged if j.changed]  # a trend decided on one, not on the other too
    reads = Counter((j.paper, j.item) for j in judged)  # judged again once per replaced run
    twice = sorted({label(j) for j in judged if reads[j.paper, j.item] > 1})
    verdicts = f"{len(judged)} verdict{'s' * (len(judged) != 1)}"
    several = (f" ({len(twice)} row{'s' * (len(twice) > 1)} read{'s' * (len(twice) == 1)} "
               f"several {runs} and "
               f"{'is' if len(twice) == 1 else 'are'} judged again with each in turn: "
               + ", ".join(twice) + ")" if twice else "")
    head = f"Of the {verdicts} judged again on {tables}{several}, "
    if not changed:
        return head + "none changes."

    def listed(rows: Sequence[Rejudged]) -> str:
        return "; ".join(f"{label(j)}"
                         + (f" with `{j.experiment}` replaced" if reads[j.paper, j.item] > 1
                            else "")
                         + f" ({j.now_words} on the committed run, {j.then_words} on {one}"
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


@dataclass(frozen=True)
class Replication:
    """A committed full run and its replication (:func:`replications_root`), read: how far apart
    the two tables are and the rows judged again on the replication."""

    name: str
    current: ExperimentResult
    again: ExperimentResult
    apart: str  # :func:`_apart` on the compared column, else :func:`cells_apart`
    judged: tuple[Rejudged, ...]  # the rows that read the committed run, judged again
    # the table the committed run replaced, and the committed run, against the replication
    # (:func:`memnb.reruns.replaced_against_replication`); None without a replaced table
    against_replaced: AgainstReplaced | None = None
    # the two tables equal on everything compared: the compared column at every point both
    # computed (none of them copied), else every cell; False when not compared
    equal: bool = False
    # the two tables in their compared accuracy column (:func:`memnb.reruns.gap_between`);
    # None for tables compared cell by cell, or not compared
    gap: ReplacementGap | None = None

    def replaced_words(self) -> str:
        """One sentence on the table the committed run replaced against this replication:
        equal in every cell where the committed run is not (then the replaced-runs comparison
        is this one, and only the committed run differs from the two), equal as all three
        are, or how the two differ; empty without a replaced table."""
        found = self.against_replaced
        if found is None:
            return ""
        cells = found.words.removesuffix(" equal")
        if found.committed_apart:
            return (f"The table the committed run replaced (of earlier code or profile) and "
                    f"this replication are equal in {cells}: judging the replaced table is "
                    "judging this replication, and only the committed run differs from the "
                    "two.")
        if found.equal:
            return (f"The table the committed run replaced (of earlier code or profile) is "
                    f"equal to both in {cells}.")
        return (f"The table the committed run replaced (of earlier code or profile), against "
                f"this replication: {found.words}.")

    @property
    def same_code(self) -> bool:
        """Whether the replication was computed by code of the committed run's fingerprint
        (else it is named and not compared)."""
        return (self.again.provenance.get("code_fingerprint")
                == self.current.provenance.get("code_fingerprint"))


def replications(rows: Sequence[Row], names: Sequence[str],
                 root: Path | None = None) -> list[Replication]:
    """Every experiment of ``names`` whose committed full run has a replication, compared
    (:class:`Replication`): on the accuracy column both tables hold (:func:`_apart`), else cell
    by cell (:func:`cells_apart`); each of ``rows`` that reads the committed run judged again on
    the replication (:func:`rejudge`). A replication of other code is read, not compared."""
    from memnb.reruns import (
        compared_column,
        gap_between,
        point_keys,
        replaced_against_replication,
    )
    from memnb.results import load

    found = []
    for name in names:
        current = load(name, "full", root)
        again = load(name, "full", replications_root(root))
        if current is None or again is None:
            continue
        if (again.provenance.get("code_fingerprint")
                != current.provenance.get("code_fingerprint")):
            found.append(Replication(name, current, again, "not compared (other code)", ()))
            continue
        column = compared_column(current.table, again.table)
        gap = None
        if column is None:
            apart = cells_apart(current.table, again.table, point_keys(name, "full") or ())
            equal = says_all_equal(apart)
        else:
            gap = gap_between(name, "full", current, again, column=column)
            apart = _apart(gap, column)
            equal = gap is not None and gap.recomputed > 0 and gap.largest == 0
        judged = tuple(rejudge(rows, name, root, replaced=again) or ())
        found.append(Replication(name, current, again, apart, judged,
                                 replaced_against_replication(name, "full", root,
                                                              current=current, again=again),
                                 equal, gap))
    return found


_ON_THE_REPLICATION = ("the replication",) * 3
_NO_FULL_RUNS = ("Under the `{profile}` profile the scorecard reads no full runs, so no "
                 "replication is judged.")


def replication_markdown(rows: Sequence[Row], names: Sequence[str], profile: str,
                         root: Path | None = None) -> str | None:
    """For each experiment of ``names`` whose committed full run has a replication
    (:func:`replications`), one paragraph: the fingerprint they share (the committed run's
    reached through re-keys where :func:`memnb.provenance.rekey_origin` finds some), both
    runs' device, commit and start, how far the two
    tables are apart, and every one of ``rows`` that reads the committed run judged again on
    the replication, with the count of statuses that change. A replication of other code is
    named and not compared. ``None`` when there is none. It tells a verdict that rests on one
    run's last bits from one that every run of the code shows. Under a ``profile`` whose
    scorecard reads no full runs, a sentence says so."""
    from memnb.provenance import computed_on, rekey_origin

    if source_profile(profile) != "full":
        return _NO_FULL_RUNS.format(profile=profile)
    texts = []
    for r in replications(rows, names, root):
        code = r.current.provenance.get("code_fingerprint")
        if not r.same_code:
            texts.append(f"`{r.name}`: the replication under `{REPLICATIONS}/` is of other code "
                         f"(`{r.again.provenance.get('code_fingerprint')}`, the committed run's "
                         f"`{code}`), so it is not compared.")
            continue
        statuses = "; ".join(j.words() for j in r.judged)
        verdicts = ("No row reads it." if not r.judged else
                    f"The rows that read it (committed → replication): {statuses}. "
                    + rejudged_summary(r.judged, lambda j: j.item, on=_ON_THE_REPLICATION))
        replaced = r.replaced_words()
        rekeyed = rekey_origin(r.current.provenance) is not None
        texts.append(f"`{r.name}` computed again by code of the same fingerprint (`{code}`"
                     + (", the committed run's through its re-keys" if rekeyed else "") + ") on "
                     f"{computed_on(r.again.provenance)}, beside the committed run on "
                     f"{computed_on(r.current.provenance)}: {r.apart}. {verdicts}"
                     + (f" {replaced}" if replaced else ""))
    return "\n\n".join(texts) or None


def replications_table_markdown(rows: Sequence[Row], names: Sequence[str], profile: str,
                                root: Path | None = None) -> str:
    """:func:`replication_markdown` for the scorecard page: one line per experiment of
    ``names`` with a replication (the two runs in one cell, how far apart, the rows that read
    it with their status on the committed run and on the replication, named with their
    paper), then one sentence counting the statuses that change."""
    from memnb.provenance import computed_on

    if source_profile(profile) != "full":
        return _NO_FULL_RUNS.format(profile=profile) + "\n"

    def label(j: Rejudged) -> str:
        return f"{_paper_name(j.paper)}: {j.item}"

    lines, judged, apart = [], [], {}
    for r in replications(rows, names, root):
        if r.against_replaced is not None and r.against_replaced.committed_apart:
            apart[r.name] = r.against_replaced
        verdicts = _statuses_cell(r.judged, several=True)
        lines.append([f"`{r.name}`", f"committed: {computed_on(r.current.provenance)}; "
                      f"replication: {computed_on(r.again.provenance)}",
                      r.apart if r.same_code else
                      f"not compared: other code (`{r.again.provenance.get('code_fingerprint')}`)",
                      verdicts if r.same_code else ""])
        judged += r.judged
    if not lines:
        return "No committed full run has a replication.\n"
    header = ["experiment", "the two runs", "the two tables",
              "verdicts: committed run → replication"]
    return (markdown_table(header, lines) + "\n\n"
            + rejudged_summary(judged, label, runs="replicated runs",
                               on=("the replications", "the replication", "the replication"))
            + _apart_sentence(apart) + "\n")


def replaced_equal_sentence(names: Sequence[str], root: Path | None = None) -> str:
    """`` The tables that the committed runs of `a`, `b` replaced are equal, cell for cell, to
    their replications: ...`` for the experiments of ``names`` whose replaced table equals the
    replication of the committed run while the committed run does not
    (:attr:`memnb.reruns.AgainstReplaced.committed_apart`), with a leading space; empty when
    none does. For them, judging the replaced table and judging the replication are one check,
    and only the committed run differs from the two."""
    from memnb.reruns import replaced_against_replication

    found = {n: replaced_against_replication(n, "full", root) for n in names}
    return _apart_sentence({n: f for n, f in found.items() if f is not None and f.committed_apart})


def _what_changed(found: Sequence[AgainstReplaced]) -> str:
    """What differs between the replaced table and the replication in every one of ``found``,
    in words: "the change of code (the CPU's denormal mode included)", "the change of code",
    "the change of the CPU's denormal mode", or "the change between the two runs" (from their
    provenance: code fingerprint, :func:`memnb.provenance.arithmetic_label`)."""
    from memnb.provenance import arithmetic_label

    code = all(f.replaced.get("code_fingerprint") != f.replication.get("code_fingerprint")
               for f in found)
    arithmetic = all(arithmetic_label(f.replaced) != arithmetic_label(f.replication)
                     for f in found)
    if code:
        return "the change of code" + (" (the CPU's denormal mode included)" if arithmetic
                                       else "")
    return "the change of the CPU's denormal mode" if arithmetic else (
        "the change between the two runs")


def _apart_sentence(apart: Mapping[str, AgainstReplaced]) -> str:
    """:func:`replaced_equal_sentence`'s words for the experiments of ``apart`` (name: its
    comparison, :attr:`memnb.reruns.AgainstReplaced.committed_apart`; empty for none), with
    what changed between their replaced tables and replications (:func:`_what_changed`)."""
    equal = list(apart)
    if not equal:
        return ""
    listed = ", ".join(f"`{n}`" for n in equal)
    several = len(equal) > 1
    s = "s" * several
    return (f" The table{s} that the committed run{s} of {listed} replaced (of earlier code or "
            f"profile) {'are' if several else 'is'} equal, cell for cell, to "
            f"{'their' if several else 'its'} replication{s}: judging the replaced table{s} and "
            f"judging the replication{s} are one check; {_what_changed(list(apart.values()))} "
            f"moved none of these numbers, and only the committed run{s} "
            f"differ{'' if several else 's'} from the two.")


def chapter_replications(paper: str, rows: Sequence[Row], profile: str,
                         root: Path | None = None) -> str:
    """:func:`replication_markdown` for the experiments of ``paper``'s chapter (every registered
    experiment named ``<paper>.…``), or a sentence saying that none has a replication."""
    from memnb.experiments.registry import load_all

    names = sorted(n for n in load_all() if n.split(".")[0] == paper)
    return (replication_markdown(rows, names, profile, root)
            or "No full run of this chapter has a committed replication.")


__all__ = ["NOT_JUDGED_EARLIER_PROFILE", "REPLICATIONS", "ReplacedSource", "Rejudged",
           "Replication", "cells_apart", "chapter_replications", "reads_full_run", "rejudge",
           "rejudged_summary",
           "replaced_equal_sentence", "replaced_runs_markdown", "replication_markdown",
           "replications", "replications_root", "replications_table_markdown"]
