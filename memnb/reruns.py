"""Reruns: recompute a committed result of earlier code beside it, and adopt it when complete.

A full-scale table computed by earlier code (or under an earlier profile) stays useful while its
replacement is computed, which on a 2-core CPU can take more than one session: ``dana.exp5`` is
about six CPU-hours. A plain ``memnb run`` would move the earlier table to ``superseded/`` at the
first time limit and leave the chapters drawing a partial grid for sessions. A rerun computes in
a folder of its own instead, ``<results>/rerun/<profile>/`` (:func:`rerun_root`), whose partial
table, provenance and point cache are committed like any partial run's, so that the next
session resumes it from a fresh clone with the same command; the committed result stays in
place, and is drawn, until the rerun is complete. Then :func:`adopt_rerun` moves the rerun in
and keeps the result it replaces under ``superseded/`` (:func:`memnb.results.supersede`).

    memnb run dana.exp5 --profile full --rerun --time-limit 8000   # exit 3 while partial
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd

from memnb.experiments.registry import get
from memnb.paths import results_dir
from memnb.provenance import points_ran, profile_change
from memnb.results import (
    ExperimentResult,
    computed_by_todays_code,
    continue_command,
    keep_other_code,
    load,
    point_cache_dir,
    result_paths,
    run_experiment,
)

RERUN = "rerun"
"""The folder under the results root where reruns compute (``data/results/rerun/<profile>/``)."""


def rerun_root(root: Path | None = None) -> Path:
    """The results root of reruns: ``<root>/rerun`` (``root`` defaults to
    :func:`memnb.paths.results_dir`), holding ``<profile>/<name>.{csv,json}`` and
    ``<profile>/.cache/<name>/`` like any results root."""
    return (root or results_dir()) / RERUN


def rerun_reason(name: str, provenance: dict[str, Any]) -> str | None:
    """Why a written result of ``name`` is due for a rerun: it was computed by other code than
    today's (:func:`memnb.results.computed_by_todays_code`), or under an earlier profile
    (:func:`memnb.provenance.profile_change`); ``None`` for a result of today's code and profile."""
    reasons = []
    if not computed_by_todays_code(name, provenance):
        code = provenance.get("code_fingerprint") or "fingerprint not recorded"
        reasons.append(f"computed by earlier code ({code})")
    changed = profile_change(provenance)
    if changed is not None:
        reasons.append(changed)
    return "; ".join(reasons) or None


def _command(name: str, profile: str, device: str, seeds: int) -> str:
    return f"rerun_experiment({name!r}, {profile!r}, device={device!r}, seeds={seeds})"


def rerun_experiment(name: str, profile: str = "full", *, device: str = "cpu",
                     seeds: int | None = None, executor: str | None = None,
                     root: Path | None = None, time_limit_s: float | None = None,
                     clock_start: float | None = None) -> ExperimentResult:
    """Recompute the written result of ``name`` under ``profile`` with today's code and profile
    in :func:`rerun_root`, leaving the written result in place until the rerun is complete, then
    adopt it (:func:`adopt_rerun`).

    Arguments as for :func:`memnb.results.run_experiment`, which computes the rerun (so it
    resumes from its own point cache and keeps its invocation history). The rerun's provenance
    gains ``rerun_of``: the code fingerprint, commit and start of the result it recomputes, and
    why (:func:`rerun_reason`). Returns the partial rerun when ``time_limit_s`` stopped it, else
    the adopted result. Raises ``ValueError`` when there is no written result, or when it is
    already of today's code and profile (nothing to rerun).
    """
    get(name)  # an unknown name is said as such, not as a result missing
    committed = load(name, profile, root)
    if committed is None:
        raise ValueError(f"{name}: no `{profile}` result to rerun; compute it with "
                         f"`memnb run {name} --profile {profile}`")
    reason = rerun_reason(name, committed.provenance)
    if reason is None:
        raise ValueError(f"{name}: its `{profile}` result was computed by today's code under "
                         "today's profile; nothing to rerun")
    result = run_experiment(name, profile, device=device, seeds=seeds, executor=executor,
                            root=rerun_root(root), time_limit_s=time_limit_s,
                            clock_start=clock_start)
    provenance = mark_rerun(name, profile, committed.provenance, reason, root,
                            command=_command(name, profile, device, result.provenance["seeds"]))
    if not result.complete:
        return dataclasses.replace(result, provenance=provenance)
    return adopt_rerun(name, profile, root)


def mark_rerun(name: str, profile: str, replaces: dict[str, Any], reason: str,
               root: Path | None = None, *, command: str | None = None) -> dict[str, Any]:
    """Record in the rerun's provenance which result it recomputes (``rerun_of``: that result's
    code fingerprint, commit, start and :func:`rerun_reason`) and, if given, the call that ran
    it (in place of a recorded call, not of a recorded ``memnb`` command line); returns the
    updated provenance."""
    _, json_path = result_paths(name, profile, rerun_root(root))
    provenance = json.loads(json_path.read_text())
    provenance["rerun_of"] = {key: replaces.get(key) for key in
                              ("code_fingerprint", "git_commit", "started_utc")}
    provenance["rerun_of"]["reason"] = reason
    if command is not None and not str(provenance.get("command")).startswith("memnb "):
        provenance["command"] = command  # a command line (memnb run ... --rerun) says it all
    json_path.write_text(json.dumps(provenance, indent=2, default=str) + "\n")
    return provenance


def adopt_rerun(name: str, profile: str = "full", root: Path | None = None) -> ExperimentResult:
    """Move the complete rerun of ``name`` into the profile's results: the result it replaces
    is kept under ``superseded/`` (:func:`memnb.results.supersede`), the rerun's table and
    provenance take its place, and the rerun's point files join the profile's cache (a complete
    result commits no cache). Raises ``ValueError`` when there is no complete rerun."""
    rerun = load(name, profile, rerun_root(root))
    if rerun is None or not rerun.complete:
        state = "none" if rerun is None else "a partial one"
        raise ValueError(f"{name}: no complete `{profile}` rerun to adopt in "
                         f"{rerun_root(root) / profile} ({state})")
    keep_other_code(name, profile, root, rerun.provenance["code_fingerprint"])
    csv_path, json_path = result_paths(name, profile, root)
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    os.replace(rerun.csv_path, csv_path)
    os.replace(rerun.provenance_path, json_path)
    source = point_cache_dir(name, profile, rerun_root(root))
    if source.is_dir():
        target = point_cache_dir(name, profile, root)
        for file in sorted(p for p in source.rglob("*") if p.is_file()):
            moved = target / file.relative_to(source)
            moved.parent.mkdir(parents=True, exist_ok=True)
            os.replace(file, moved)
        shutil.rmtree(source)
    adopted = load(name, profile, root)
    assert adopted is not None
    return adopted


def rerun_progress(name: str, profile: str = "full", root: Path | None = None) -> str | None:
    """One clause on a rerun of ``name`` under way (:func:`rerun_experiment`), e.g. "a rerun by
    today's code has computed 70 of the 210 points of today's profile (`memnb run ... --rerun`
    continues it)", or
    ``None`` when there is none."""
    rerun = load(name, profile, rerun_root(root))
    if rerun is None:
        return None
    done, total = points_ran(rerun.provenance)
    if rerun.complete:
        return (f"a complete rerun by today's code waits in {RERUN}/{profile}/ to be adopted "
                "(`memnb.reruns.adopt_rerun`)")
    whose = ("today's code" if computed_by_todays_code(name, rerun.provenance) else
             f"code {rerun.provenance.get('code_fingerprint')}, which is not today's")
    return (f"a rerun by {whose} has computed {done} of the {total} points of today's "
            f"profile (`{continue_command(name, profile, rerun.provenance, rerun=True)}` "
            "continues it)")


def rerun_clause(name: str, profile: str = "full", root: Path | None = None) -> str:
    """``"; "`` and :func:`rerun_progress`, or ``""`` when no rerun is under way: the words a
    chapter appends where it names the committed result a rerun will replace."""
    underway = rerun_progress(name, profile, root)
    return "" if underway is None else f"; {underway}"


COMPARED_COLUMNS: tuple[str, ...] = ("accuracy_last_batches", "accuracy")
"""The result columns a table and the one it replaced are compared in, in order of preference:
the accuracy the paper reports (Dana et al.'s mean over the last training batches), else the
accuracy."""


def compared_column(*tables: pd.DataFrame) -> str | None:
    """The first of :data:`COMPARED_COLUMNS` that every one of ``tables`` holds, or ``None``."""
    return next((c for c in COMPARED_COLUMNS if all(c in t for t in tables)), None)


def replaced_result(name: str, profile: str = "full",
                    root: Path | None = None) -> ExperimentResult | None:
    """The result that the written result of ``name`` under ``profile`` replaced: the latest one
    kept under ``superseded/`` (:func:`memnb.results.load_superseded`) of other code or other
    parameters; ``None`` when there is none (or no written result)."""
    from memnb.results import load_superseded

    current = load(name, profile, root)
    if current is None:
        return None
    now = current.provenance
    kept = [r for r in load_superseded(name, profile, root)
            if r.provenance.get("code_fingerprint") != now.get("code_fingerprint")
            or r.provenance.get("params") != now.get("params")]
    return kept[-1] if kept else None


@dataclasses.dataclass(frozen=True)
class ReplacementGap:
    """How far a written result is from the result it replaced, on the points both hold."""

    replaced: ExperimentResult
    column: str
    points: int  # points both tables hold
    mean: float  # mean |now - then| of ``column`` over them (nan without a common point)
    largest: float  # largest |now - then|
    copied: int = 0  # points the written run read from the replaced run's cache (copied_points)

    @property
    def recomputed(self) -> int:
        """How many of the :attr:`points` both tables hold the written run computed again,
        counted as ``points − copied`` (never below 0): the copied points are equal by
        construction, no evidence of agreement; 0 when every point they share was copied, so
        nothing is compared."""
        return max(self.points - self.copied, 0)

    def none_recomputed_words(self) -> str:
        """Why nothing is compared when the written run computed none of the shared points
        again (:attr:`recomputed` 0): ``"the 84 points both tables hold were read from the
        replaced run's point cache, not computed again"``."""
        from memnb.prose import counted

        return (f"the {counted(self.points, 'point')} both tables hold were read from the "
                "replaced run's point cache, not computed again")

    def copied_clause(self) -> str:
        """``", 84 of them read from the replaced run's point cache (not computed again)"``
        after a count of shared points some of which were copied; empty when none was."""
        return (f", {self.copied} of them read from the replaced run's point cache (not computed "
                "again)" if self.copied else "")


def copied_points(current: ExperimentResult, replaced: ExperimentResult) -> int:
    """How many points of ``current`` were read from the point cache of ``replaced``, the result
    it replaced, rather than computed again: the ``points_copied`` of ``current``'s provenance
    (:func:`memnb.provenance.points_copied`) whose source names ``replaced``'s table."""
    from memnb.provenance import points_copied

    return sum(points for source, points in points_copied(current.provenance)
               if Path(source).name == replaced.csv_path.stem)


def replacement_gap(name: str, profile: str = "full", root: Path | None = None, *,
                    column: str = "accuracy") -> ReplacementGap | None:
    """:class:`ReplacementGap` of the written result of ``name`` and :func:`replaced_result`
    in ``column``. Points are matched on the parameters of the experiment's grid under
    ``profile`` (every parameter any point of its first sweep sets,
    :func:`memnb.planner.capture_sweep`: a figure's points may set one the others lack, as
    Dana et al.'s App. B sets ``H_equiv`` or ``width``). A point may span several rows (a
    distribution over heads, say) when ``column`` is the same on all of them, and a parameter
    that one table has no column for is matched as unset; ``None`` when
    nothing was replaced, there is no grid to match on, ``column`` is not in both tables, or a
    point's rows differ in it."""
    current, before = load(name, profile, root), replaced_result(name, profile, root)
    if current is None or before is None:
        return None
    return gap_between(name, profile, current, before, column=column)


def point_keys(name: str, profile: str) -> list[str] | None:
    """The parameters that name a point of ``name``'s sweep under ``profile``, in the order its
    points first set them (:func:`memnb.planner.capture_sweep`); ``None`` when it has no sweep
    to capture. Two tables of the experiment are matched point by point on them."""
    from memnb.planner import capture_sweep

    captured = capture_sweep(name, profile)
    if captured is None or not captured.points:
        return None
    return list(dict.fromkeys(k for point in captured.points for k in point))


def gap_between(name: str, profile: str, current: ExperimentResult, before: ExperimentResult,
                *, column: str = "accuracy") -> ReplacementGap | None:
    """:class:`ReplacementGap` of two results of ``name`` already read (``current`` and the
    ``before`` it replaced), matched as in :func:`replacement_gap`, with the points ``current``
    copied from ``before``'s cache (:func:`copied_points`)."""
    named = point_keys(name, profile)
    if not named:
        return None
    keys = [k for k in named if k in current.table or k in before.table]
    if not keys or column not in current.table or column not in before.table:
        return None
    # a parameter a table has no column for was set by none of its points: empty, as the
    # other table's rows whose points did not set it (pandas matches empty keys to each other)
    tables = [t.reindex(columns=keys + [column]).drop_duplicates()
              for t in (current.table, before.table)]
    if any(t.duplicated(keys).any() for t in tables):  # a point's rows differ in ``column``
        return None
    merged = tables[0].merge(tables[1], on=keys, suffixes=("_now", "_then"))
    gap = (merged[f"{column}_now"] - merged[f"{column}_then"]).abs()  # empty: nan below
    return ReplacementGap(before, column, len(merged), float(gap.mean()), float(gap.max()),
                          copied_points(current, before))


REPLICATIONS = "replications"
"""The folder under the results root that holds replications (ours): a committed full run
computed again, by code of the same fingerprint and over the same grid, in another run (another
machine, say), as ``data/results/replications/<profile>/<name>.{csv,json}``."""


def replications_root(root: Path | None = None) -> Path:
    """The results root of replications: ``<root>/replications`` (``root`` defaults to
    :func:`memnb.paths.results_dir`)."""
    return (root or results_dir()) / REPLICATIONS


def cells_apart(current: pd.DataFrame, again: pd.DataFrame, keys: Sequence[str] = ()) -> str:
    """How two tables of the same run differ cell by cell: "every one of the 840 cells equal",
    or how many cells differ, in which columns and, for numbers, by how much at most. Rows are
    matched on the point parameters ``keys`` (both tables sorted on them, a point's several
    rows kept in the order written), else row by row in the order written. For tables with no
    accuracy column to compare (:func:`memnb.reruns.compared_column`): a construction's bits, a
    rank check's pass fractions. Two empty cells count as equal."""
    if list(current.columns) != list(again.columns) or current.shape != again.shape:
        return "not compared cell by cell (the tables' columns or rows differ)"
    keys = [k for k in keys if k in current.columns]
    if keys:
        def key_text(t: pd.DataFrame) -> pd.DataFrame:
            # a row without a point parameter (a fit's row beside the points, say) keys as "":
            # pandas' string dtype keeps a missing value missing, which does not sort with text
            return t[keys].astype(object).where(t[keys].notna(), "").astype(str)

        current, again = (t.iloc[key_text(t).apply(tuple, axis=1).argsort(kind="stable")]
                          for t in (current, again))
        if not key_text(current).reset_index(drop=True).equals(
                key_text(again).reset_index(drop=True)):
            return "not compared cell by cell (the tables' grids differ)"
    parts, differing = [], 0
    for column in current.columns:
        now, then = (t[column].reset_index(drop=True) for t in (current, again))
        unequal = ~((now == then) | (now.isna() & then.isna()))
        if not unequal.any():
            continue
        count = int(unequal.sum())
        differing += count
        words = f"`{column}` in {count} row{'s' * (count != 1)}"
        if all(pd.api.types.is_numeric_dtype(c) and not pd.api.types.is_bool_dtype(c)
               for c in (now, then)):
            words += f" (by at most {float((now - then)[unequal].abs().max()):.3g})"
        parts.append(words)
    if not parts:
        return f"{_ALL_EQUAL}{current.size:,} cells equal"
    return (f"{differing:,} of the {current.size:,} cells "
            f"{'differs' if differing == 1 else 'differ'}: " + "; ".join(parts))


_ALL_EQUAL = "every one of the "  # how :func:`cells_apart` begins when no cell differs


def cells_equal(current: pd.DataFrame, again: pd.DataFrame, keys: Sequence[str] = ()) -> bool:
    """Whether :func:`cells_apart` finds every cell of the two tables equal."""
    return says_all_equal(cells_apart(current, again, keys))


def says_all_equal(words: str) -> bool:
    """Whether words :func:`cells_apart` wrote say every cell is equal (for a caller that has
    the words already and need not compare the tables again)."""
    return words.startswith(_ALL_EQUAL)


class AgainstReplaced(NamedTuple):
    """A committed run, the table it replaced and its replication, compared cell by cell."""

    words: str  # the replaced table against the replication (:func:`cells_apart`)
    equal: bool  # the replaced table and the replication are equal in every cell
    committed_equal: bool  # the committed run and the replication are equal in every cell
    committed: dict[str, Any]  # the provenance of the committed (written) run
    replaced: dict[str, Any]  # the provenance of the table it replaced
    replication: dict[str, Any]  # the provenance of its replication

    @property
    def committed_apart(self) -> bool:
        """The replaced table and the replication agree and the committed run does not: what
        the replacement changed (code, arithmetic) moved no number, and only the committed run
        differs from the two (why is not recorded: its machine, or its own re-keyed code)."""
        return self.equal and not self.committed_equal

    @property
    def same_code(self) -> bool:
        """Whether the replication was computed by the committed run's code (both record the
        same code fingerprint)."""
        fingerprint = self.committed.get("code_fingerprint")
        return (fingerprint is not None
                and self.replication.get("code_fingerprint") == fingerprint)


def replaced_against_replication(name: str, profile: str = "full", root: Path | None = None, *,
                                 current: ExperimentResult | None = None,
                                 replaced: ExperimentResult | None = None,
                                 again: ExperimentResult | None = None
                                 ) -> AgainstReplaced | None:
    """The table that the written result of ``name`` replaced (:func:`replaced_result`) and
    the written result itself, each against the replication of the written result
    (:func:`replications_root`), cell by cell (:func:`cells_apart`, rows matched on
    :func:`point_keys`); ``None`` when there is no replaced table or no replication. When the
    replaced table equals the replication and the written result does not, the two comparisons
    of the written run (with the table it replaced, with its replication) are one
    (:attr:`AgainstReplaced.committed_apart`). A caller that has already loaded the written
    result (``current``), the table it replaced (``replaced``) or the replication (``again``)
    passes it, so that it is not read again."""
    if again is None:
        again = load(name, profile, replications_root(root))  # the rarest: read first
    if again is None:
        return None
    current = load(name, profile, root) if current is None else current
    replaced = replaced_result(name, profile, root) if replaced is None else replaced
    if current is None or replaced is None:
        return None
    keys = point_keys(name, profile) or ()
    words = cells_apart(again.table, replaced.table, keys)
    return AgainstReplaced(words, says_all_equal(words),
                           cells_equal(current.table, again.table, keys), current.provenance,
                           replaced.provenance, again.provenance)


def replacement_difference(name: str, profile: str = "full", root: Path | None = None, *,
                           column: str = "accuracy") -> str | None:
    """:func:`replacement_gap` in words, e.g. "it replaced a table of earlier code (IEEE
    denormals; its code and commit are listed on the page *Running at scale*, section
    *Full-profile runs measured so far*): on the 385 points both computed, `accuracy` differs
    by 0.0037 on average and by at most 0.026";
    ``None`` where :func:`replacement_gap` is. Points the written run copied from the replaced
    run's point cache (:attr:`ReplacementGap.copied`) are not offered as agreement, by the rule
    of the replaced-runs table (:func:`memnb.scorecard.replaced.replaced_runs_markdown`): when
    every shared point was copied, the two are said not to be compared; when some were, the
    sentence says how many. The fingerprint and commit are left to that page: a chapter that
    reads several such tables would repeat them in every note."""
    from memnb.provenance import arithmetic_label

    gap = replacement_gap(name, profile, root, column=column)
    if gap is None:
        return None
    then = gap.replaced.provenance
    now = load(name, profile, root).provenance
    which = ("earlier code" if then.get("code_fingerprint") != now.get("code_fingerprint")
             else "an earlier profile")
    head = (f"it replaced a table of {which} ({arithmetic_label(then)}; its code and commit are "
            "listed on the page *Running at scale*, section *Full-profile runs measured so "
            "far*)")
    if gap.points == 0:
        return f"{head}, which shares no point with it"
    if gap.recomputed == 0:
        return f"{head}; not compared with it: {gap.none_recomputed_words()}"
    if gap.copied:
        return (f"{head}: on the {gap.points} points both tables hold{gap.copied_clause()}, "
                f"`{column}` differs by {gap.mean:.4f} on average and by at most "
                f"{gap.largest:.3f}")
    same = replaced_against_replication(name, profile, root)
    also = ("" if same is None or not same.committed_apart else
            "; that replaced table and the replication of this run (the same code run again, "
            f"`{REPLICATIONS}/`) are equal in {same.words.removesuffix(' equal')}: the "
            "change of code moved none of these numbers, and it is this run that differs from "
            "both")
    return (f"{head}: on the {gap.points} points both computed, `{column}` differs by "
            f"{gap.mean:.4f} on average and by at most {gap.largest:.3f}{also}")
