"""The page "How each page was produced", generated at every build from what the build recorded.

For each executed chapter: the profile and device it ran with, the execution time and slowest cells
(from papermill's metadata in the executed notebook; myst-nb's ``{nb-exec-table}`` stays empty when
papermill executes), the results it drew with their provenance (full or fresh, device, wall time,
commit; ``memnb.provenance.provenance_summary``) and the environment it was executed in (recorded in
its key file by ``book/build.py``).
"""

from __future__ import annotations

import json
import math
import os
import platform
import re
import subprocess
from collections.abc import Mapping, Sequence
from itertools import groupby
from pathlib import Path
from typing import Any, NamedTuple

import nbformat
import pandas as pd

from buildtools.keys import stored_key
from buildtools.reading import parameter_values
from memnb.prose import and_words, thousands


def git_commit(repo: Path) -> str:
    """The checkout's commit (short), with ``+uncommitted changes`` when the tree is dirty."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=repo, text=True,
                                capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=repo, text=True, capture_output=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + (" + uncommitted changes" if dirty else "")


def environment(repo: Path) -> dict[str, str]:
    """Python, torch and numpy versions, platform, CPU, GPU and commit of this machine."""
    import numpy
    import torch

    cpu = (f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
           f"{torch.backends.cpu.get_cpu_capability()} kernels")
    gpus = ([torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
            if torch.cuda.is_available() else [])
    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": numpy.__version__,
        "platform": platform.platform(),
        "cpu": cpu,
        "gpu": ", ".join(gpus) or "none",
        "commit": git_commit(repo),
    }


def notebook_title(nb: nbformat.NotebookNode, default: str) -> str:
    """The first level-1 heading of the notebook, else ``default``."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return default


def cell_timings(nb: nbformat.NotebookNode) -> list[dict[str, Any]]:
    """Per executed code cell: its index, execution count, seconds and first source line that
    is not an import or a comment (the first line, when every line is one)."""
    rows = []
    for index, cell in enumerate(nb.cells):
        meta = cell.get("metadata", {}).get("papermill", {})
        if cell.cell_type != "code" or meta.get("duration") is None:
            continue
        lines = [line for line in cell.source.splitlines() if line.strip()]
        # the first line that does something: an import or a comment says nothing of the time
        first = next((line for line in lines if not line.lstrip().startswith(
            ("import ", "from ", "#"))), lines[0] if lines else "")
        rows.append({"cell": index, "execution_count": cell.get("execution_count"),
                     "seconds": float(meta["duration"]), "first_line": first.strip()})
    return rows


def slowest_cells(nb: nbformat.NotebookNode, count: int = 3) -> list[dict[str, Any]]:
    """The ``count`` code cells that took longest, slowest first."""
    return sorted(cell_timings(nb), key=lambda r: -r["seconds"])[:count]


def chapter_record(executed: Path) -> dict[str, Any]:
    """What the page says about one executed chapter, read from the notebook and its key."""
    nb = nbformat.read(executed, as_version=4)
    papermill = nb.metadata.get("papermill", {})
    parameters = {**parameter_values(nb), **papermill.get("parameters", {})}
    key = stored_key(executed) or {}
    return {
        "name": executed.stem,
        "title": notebook_title(nb, executed.stem),
        "profile": parameters.get("profile", key.get("profile", "unknown")),
        "parameters": parameters,
        "device": parameters.get("device", "cpu"),
        "seconds": papermill.get("duration"),
        "started": papermill.get("start_time"),
        "ended": papermill.get("end_time"),
        "cells": len(cell_timings(nb)),
        "slowest": slowest_cells(nb),
        "experiments": list(key.get("experiments", [])),
        "environment": dict(key.get("environment", {})),
    }


REPLICATION_RUN = "replication (ours)"
"""The *run* of a :func:`results_table` row that is a replication: a committed full run computed
again by the same code (:func:`memnb.reruns.replications_root`)."""


def results_table(names: Sequence[str], profile: str,
                  results_root: Path | None = None) -> list[dict[str, Any]]:
    """Provenance of the results of ``names``: the fresh ones under ``profile``, the full ones
    and their replications (ours).

    Rows carry ``run`` (``fresh (<profile>)``, ``full (cached)`` or :data:`REPLICATION_RUN`, for
    a committed full run computed again, ``data/results/replications/full/``, which the
    Dana, Mahdavi and Kajitsuka chapters and the scorecard read beside it; a full result or
    replication computed under an earlier profile, which the pages name but do not judge, says
    so; a partial one says how many of its points ran; one with points copied from the runs it
    replaced counts them, with the code that computed them, :func:`_copied_points_words`),
    ``code`` (which code computed its points: today's, re-keyed or earlier,
    :func:`code_state`), the columns of
    :func:`memnb.provenance.provenance_summary`, ``calls_left_out`` (the recorded calls
    that computed no point while another call of the run did, :func:`_calls_without_points`),
    whose time ``wall_time_s`` then leaves out (the provenance's total is kept as
    ``recorded_wall_time_s``), ``run_kind`` (the *run* without its notes), and ``python`` and
    ``torch``, the versions the provenance records (``None`` where it records none).
    """
    from memnb.provenance import copied_chain, points_ran, profile_change, provenance_summary
    from memnb.reruns import replications_root
    from memnb.results import read_provenance, result_paths

    rows = []
    runs = [(profile, f"fresh ({profile})", results_root)]
    if profile != "full":
        runs.append(("full", "full (cached)", results_root))
    runs.append(("full", REPLICATION_RUN, replications_root(results_root)))
    for folder, label, root in runs:
        summary = provenance_summary(list(names), folder, root)
        for record in summary.to_dict("records"):
            run = label
            name = record["experiment"]
            provenance = read_provenance(result_paths(name, folder, root)[1])
            if folder == "full":
                if profile_change(provenance) is not None:
                    run += " of an earlier profile, named but not judged"
                if not provenance.get("complete", True):
                    done, total = points_ran(provenance)
                    run += f", partial: {done:,} of {total:,} points ran"
            path = result_paths(name, folder, root)[1]
            chain = copied_chain(provenance, path.parent)  # points copied from earlier runs
            run += _copied_points_words(chain)
            left_out = _calls_without_points(provenance)
            if left_out:  # the time of the calls that computed points; the total kept beside
                record["recorded_wall_time_s"] = record["wall_time_s"]
                record["wall_time_s"] = sum(float(call.get("wall_time_s") or 0.0)
                                            for call in provenance["invocations"]
                                            if call["points_computed"])
            rows.append({"run": run, **record, "code": code_state(name, provenance, bool(chain)),
                         "calls_left_out": left_out,
                         "written_utc": written_utc(provenance),
                         "kernel_levels_recorded": kernel_levels_recorded(provenance),
                         "run_kind": label, "python": provenance.get("python"),
                         "torch": provenance.get("torch_version")})
    return rows


TODAYS_CODE = "today's code"
"""The *code* of a result computed by the code whose fingerprint today's code has
(:func:`code_state`)."""

REKEYED = "re-keyed"
"""The *code* of a result whose points earlier code computed and re-keys carried to today's
fingerprint (:func:`code_state`, :func:`code_word`): today's code reuses them, as it reuses the
points of a result of :data:`TODAYS_CODE`."""

NOT_REKEYED = "earlier code, not re-keyed"
"""The *code* of a result computed by earlier code whose points no re-key carried over
(:func:`code_state`)."""


def rekey_counts(provenance: dict[str, Any]) -> tuple[int, int]:
    """How many re-keys carried a result's points to the fingerprint it records, and how many
    of them were reviewed by hand (``--reviewed``), as :func:`memnb.provenance.rekey_kinds`
    classifies them (the words of :func:`memnb.provenance.rekey_origin` read the same list);
    ``(0, 0)`` for a result not re-keyed."""
    from memnb.provenance import rekey_kinds

    kinds = rekey_kinds(provenance) or []
    return len(kinds), kinds.count("hand")


def code_state(name: str, provenance: dict[str, Any], copied: bool = False) -> str:
    """Which code computed the points of a result of ``name``, for the *code* column of the
    tables of results: :data:`TODAYS_CODE`; re-keyed (computed by earlier code and carried to
    today's fingerprint by re-keys), with the fingerprint they were computed with and how many
    of the re-keys were reviewed by hand (:func:`rekey_counts`); or :data:`NOT_REKEYED`, with
    the fingerprint it records (re-keyed only as far as that fingerprint, where it was). With
    ``copied`` (points copied from earlier runs, counted in the *run* column), the points
    named are the run's own."""
    from memnb.provenance import rekey_origin
    from memnb.results import computed_by_todays_code

    code = provenance.get("code_fingerprint")
    if not code:
        return "not recorded"
    origin = rekey_origin(provenance)
    if not computed_by_todays_code(name, provenance):
        return (f"{NOT_REKEYED} (`{str(code)[:8]}…`)" if origin is None else
                f"earlier code (`{str(code)[:8]}…`), re-keyed from `{origin[0][:8]}…`, "
                "not to today's fingerprint")
    if origin is None:
        return TODAYS_CODE
    total, hand = rekey_counts(provenance)
    by_hand = ("none by hand" if not hand else "by hand" if hand == total == 1
               else f"{hand} by hand")
    return (f"{'own points ' * copied}{REKEYED} from `{origin[0][:8]}…` "
            f"({total} re-key{'s' * (total != 1)}, {by_hand})")


def written_utc(provenance: dict[str, Any]) -> str:
    """When a result was written, in UTC (ISO, to the second): the start of its last recorded
    call plus that call's wall time (the call that wrote the file); ``""`` when not recorded."""
    from datetime import UTC, datetime, timedelta

    calls = provenance.get("invocations") or [provenance]
    last = calls[-1]
    try:
        start = datetime.fromisoformat(str(last.get("started_utc")))
        seconds = float(last.get("wall_time_s") or 0.0)
    except (TypeError, ValueError):
        return ""
    if start.tzinfo is not None:  # another offset than UTC's is converted; naive reads as UTC
        start = start.astimezone(UTC).replace(tzinfo=None)
    return (start + timedelta(seconds=seconds)).isoformat(timespec="seconds")


def _calls_without_points(provenance: dict[str, Any]) -> list[dict[str, Any]]:
    """The recorded invocations of a run that computed no point (``points_computed`` 0) while
    another of its invocations computed some, where every invocation counts them: e.g. a call
    stopped at once, from another checkout, that ran beside the call that computed the table.
    Its time is in the run's ``total_wall_time_s`` (possibly overlapping the computing call's),
    not in the time computing the table took; empty when there is none, or the invocations do
    not count their points."""
    calls = provenance.get("invocations") or []
    if not calls or not all("points_computed" in call for call in calls):
        return []
    idle = [call for call in calls if not call["points_computed"]]
    return idle if len(idle) < len(calls) else []


def wall_time_cell(row: dict[str, Any]) -> str:
    """A result's wall time in seconds, with how many of its points were read from the point
    cache rather than computed by the invocations that time counts
    (:func:`memnb.provenance.points_not_timed`: a run that found every point cached records about
    0 s, which is not what computing them took), and, for a run whose recorded calls include
    some that computed no point (``calls_left_out``, :func:`_calls_without_points`; their time
    is left out of ``wall_time_s``), each of those calls' time and commit and the recorded
    total, so that neither the total nor the time shown reads as the other; calls whose time
    rounds to 0.0 s together are not listed (they change neither number)."""
    from memnb.prose import counted
    from memnb.provenance import short_commit

    reused = row.get("points_from_cache")
    text = _seconds(row.get("wall_time_s")) + _hours(row.get("wall_time_s"))
    notes = []
    if reused:
        notes.append(f"{counted(int(reused), 'point')} read from the cache, not computed")
    left_out = row.get("calls_left_out") or []
    # calls whose time rounds to 0.0 s together move neither number shown by more than its
    # rounding: not listed
    if sum(float(call.get("wall_time_s") or 0.0) for call in left_out) >= 0.05:
        calls = ", ".join(f"{_seconds(call.get('wall_time_s'))} s from "
                          f"`{short_commit(call.get('git_commit'))}`" for call in left_out)
        notes.append(f"time of the calls that computed points; not counted: "
                     f"{counted(len(left_out), 'recorded call')} that computed no point, "
                     f"{calls}; {_seconds(row.get('recorded_wall_time_s'))} s recorded in all")
    return text + "".join(f" ({note})" for note in notes)


def _invocation_keys(provenance: dict) -> list[tuple[str, str]]:
    """``(started_utc, git_commit)`` of each invocation a provenance records with a start."""
    return [(str(run["started_utc"]), str(run.get("git_commit")))
            for run in provenance.get("invocations") or [] if run.get("started_utc")]


def shared_invocations(provenances: dict[str, dict]) -> dict[str, str]:
    """Experiments whose recorded invocations all belong to another experiment's run (one
    computation written as two tables, e.g. Experiment 4 on Experiment 1's points), each mapped
    to the first experiment (in ``provenances``' order) whose invocations contain more than its
    own, or the same ones when that experiment comes first; its wall time is that
    experiment's, not more."""
    keys = {name: set(_invocation_keys(prov)) for name, prov in provenances.items()}
    order = {name: i for i, name in enumerate(keys)}
    found: dict[str, str] = {}
    for name, own in keys.items():
        if not own:
            continue
        for other, theirs in keys.items():
            if other != name and (own < theirs or (own == theirs and order[other] < order[name])):
                found[name] = other
                break
    return found


def _commits_cell(provenance: dict[str, Any], commit: str, day: str,
                  chain: Sequence[Any] = ()) -> str:
    """``commit`` (a :func:`memnb.provenance.provenance_summary` row's) in code font and the
    ``day`` it started, or, for a
    run resumed over several commits, each with the points it computed
    (:func:`memnb.provenance.commit_points`); then the points copied from earlier runs, each run
    named by its commit and day, down ``chain`` (the result's
    :func:`memnb.provenance.copied_chain`): the run that read them did not compute them, and its
    first invocation's ``points_done`` counts them, so they are taken off its commit's share."""
    from memnb.provenance import commit_points

    shares = commit_points(provenance)
    if not chain:
        if len(shares) < 2:
            return f"`{commit}`, {day}"
        return ", ".join(f"`{c}` ({points} points)" for c, points, _ in shares) + f", {day}"
    copied_here = sum(link.points for link in chain if link.depth == 0)
    if shares:  # the first invocation's points_done counted the copied points
        first, points, started = shares[0]
        shares[0] = (first, max(points - copied_here, 0), started)
    computed = (", ".join(f"`{c}` ({points} points computed)" for c, points, _ in shares)
                if shares else f"`{commit}`") + f", {day}"

    def run(link: Any) -> str:  # the copier replaced it: the result itself, or a copied run
        replaced = "the run it replaced" if link.depth == 0 else "the run that one replaced"
        return (f"`{link.source}`" if link.commit is None else
                f"{replaced} (`{link.commit}`, {str(link.started or '?')[:10]})")

    copied = "; ".join(f"{link.points} points copied from {run(link)}" if link.depth == 0 else
                       f"{link.points} of them copied in turn from {run(link)}"
                       for link in chain)
    return f"{computed}; {copied}"


def _copied_shares(chain: Sequence[Any]) -> list[tuple[int, str]]:
    """For points copied from earlier runs (``chain``, a result's
    :func:`memnb.provenance.copied_chain`): how many of them each copied table computed, with
    the code fingerprint that ends its name, less the points that table copied in turn (its
    direct links in the chain: a table reached twice is followed once, and a run is assumed to
    have copied whole tables, as the committed ones did)."""
    shares = []
    for k, link in enumerate(chain):
        deeper = 0
        for later in chain[k + 1:]:
            if later.depth <= link.depth:
                break
            deeper += later.points if later.depth == link.depth + 1 else 0
        shares.append((max(link.points - deeper, 0), link.source.rsplit(".", 1)[-1]))
    return shares


def _copied_points_words(chain: Sequence[Any]) -> str:
    """For the *run* column of :func:`results_table`: "; 84 points copied from the runs it
    replaced (51 computed by `ee20886e…`, 33 by `51cd048d…`)", read from ``chain`` (the
    result's :func:`memnb.provenance.copied_chain`, :func:`_copied_shares`); "" when none were
    copied."""
    if not chain:
        return ""
    copied = sum(link.points for link in chain if link.depth == 0)
    shares = [f"{points} {'computed ' * (k == 0)}by `{code[:8]}…`"
              for k, (points, code) in enumerate(_copied_shares(chain))]
    runs = "the runs it replaced" if len(chain) > 1 else "the run it replaced"
    return f"; {copied} points copied from {runs} ({', '.join(shares)})"


def _copied_code_words(chain: Sequence[Any]) -> str:
    """For the *code* column of a result with points copied from earlier runs (``chain``, its
    :func:`memnb.provenance.copied_chain`): which code fingerprint computed how many of them,
    the fingerprint that ends each copied table's name, less the points that table copied in
    turn (its direct links in the chain: a table reached twice is followed once, and a run is
    assumed to have copied whole tables, as the committed ones did); "" when none were
    copied."""
    if not chain:
        return ""
    parts = [f"{points} by `{code}`" for points, code in _copied_shares(chain)]
    copied = sum(link.points for link in chain if link.depth == 0)
    return f"; the {copied} copied points computed by earlier code: {', '.join(parts)}"


def _rekey_words(provenance: dict[str, Any], copied: bool = False) -> str:
    """How a result's points reached the fingerprint it records, for the *code* column: the
    fingerprint before its first re-key (that of all its points for a run of one invocation, of
    its earliest points for a run resumed over several: a later invocation may have computed
    under a later fingerprint) and the re-keys that carried them over
    (``scripts/rekey_cache.py``), counting those whose code change was reviewed by hand
    (``--reviewed``) rather than found display-only on the syntax tree; "" without a re-key.
    With ``copied`` (points copied from earlier runs, :func:`_copied_code_words`), the points
    named are the run's own. The re-keys are counted as :func:`rekey_counts` counts them (the
    docstring rule's included), as the tables of results of "How each page was produced"
    do."""
    from memnb.prose import counted

    rekeys = provenance.get("code_fingerprint_rekeys") or []
    source = provenance.get("code_fingerprint_rekeyed_from")
    if not rekeys and not source:
        return ""
    total, by_hand = rekey_counts(provenance)
    if not total:  # a re-key recorded by its list only
        total = len(rekeys)
        by_hand = sum("reviewed by hand" in str(r.get("why", "")) for r in rekeys)
    listed = "" if not total else (
        f" ({counted(total, 're-key')}"
        + (f", {by_hand} by hand" if by_hand else "") + ")")
    which = "earliest points" if len(provenance.get("invocations") or []) > 1 else "points"
    if copied:
        which = f"own {which}" if which == "earliest points" else "own points (not copied)"
    return f"; {which} computed by `{source or rekeys[0].get('from')}`{listed}"


def paper_seeds() -> dict[str, Any]:
    """The seeds of each paper's runs as our sources give them
    (:class:`memnb.papers.Published`), by the prefix of its experiments' names; ``None`` for a
    paper whose count our sources do not give (Kajitsuka & Sato's, notes §3: "not found")."""
    from memnb.papers import dana, mahdavi

    return {"dana": dana.TEXT["seeds_appendix"], "mahdavi": mahdavi.SEEDS, "kajitsuka": None}


REPRODUCTION_NOTES: dict[str, str] = {"dana": "dana_2025.md",
                                      "kajitsuka": "kajitsuka_sato_2025.md",
                                      "mahdavi": "mahdavi_2024.md"}
"""Each paper's reproduction notes, a file of the shared papers folder (``papers/``)."""

OFFICIAL_CODE_SEEDS: dict[str, tuple[str, str]] = {
    "dana.exp6": ("Experiment 6", "Fig. 4 and its CSV")}
"""Experiments whose ``full`` profile runs the official code's count of seeds where the paper's
text gives another, as their chapter states (the Dana chapter,
:func:`memnb.figures.dana.differences_markdown`: "the code repeats Experiment 6 20 times (its
`repetition`, which our `full` profile of `dana.exp6` follows)"): each with the paper's item
and what averages that count. :func:`full_seeds_words` gives the count, read from the profile,
as the official code's."""


def _seed_counts(seeds: dict[str, int]) -> str:
    """``seeds`` (seeds by experiment) as the count most of them run, then each other count with
    its experiments: ``5 (20 for `dana.exp6`)``."""
    by_count: dict[int, list[str]] = {}
    for name, count in seeds.items():
        by_count.setdefault(count, []).append(f"`{name}`")
    usual = max(by_count, key=lambda count: (len(by_count[count]), count))
    others = [f"{count} for {', '.join(by_count[count])}"
              for count in sorted(by_count, reverse=True) if count != usual]
    return f"{usual}" + (f" ({'; '.join(others)})" if others else "")


def full_seeds_words(names: Sequence[str]) -> str:
    """One item of the full runs' list: the seeds a ``full`` run of each of ``names`` computes
    (:meth:`memnb.experiments.registry.Experiment.seeds_run` of the profile's count), per paper,
    beside the paper's count where our sources give it (:func:`paper_seeds`), then those of the
    experiments of ours and the checks seeded once; "" when ``names`` is empty."""
    from memnb.experiments.registry import PAPERS, get, paper_item

    papers: dict[str, dict[str, int]] = {}
    ours: dict[str, int] = {}
    once = []
    for name in names:
        exp = get(name)
        if exp.fixed_seeds is not None:
            once.append(f"`{name}`")
            continue
        count = exp.seeds_run("full", exp.seeds_asked("full"))
        prefix = name.split(".")[0]
        if paper_item(name).startswith("ours") or prefix not in PAPERS:
            ours[name] = count
        else:
            papers.setdefault(prefix, {})[name] = count
    published = paper_seeds()
    parts = []
    for prefix, seeds in papers.items():
        theirs = published.get(prefix)
        notes = REPRODUCTION_NOTES[prefix]
        code = "".join(f"; the official code: {seeds[name]} for {what} (reproduction notes, "
                       f"`{notes}` §3), which our `{name}` follows and {averaged} average"
                       for name, (what, averaged) in OFFICIAL_CODE_SEEDS.items()
                       if name in seeds)
        parts.append(f"{PAPERS[prefix]}: ours {_seed_counts(seeds)}; "
                     + ("the paper's count is not in our sources" if theirs is None else
                        f"the paper: {theirs.value:g} ({theirs.source}){code}"))
    if not parts and not ours and not once:
        return ""
    text = ("Seeds of a `full` run (each profile's count, "
            "`memnb.experiments.registry.Experiment.seeds_run`)"
            + (", beside the paper's where our sources give it. " + ". ".join(parts)
               if parts else "") + ".")
    if ours:
        text += f" Experiments of ours: {_seed_counts(ours)}."
    if once:
        text += f" Checks seeded once, whatever is asked: {', '.join(once)}."
    return text


STAND_INS: dict[str, str] = {"trained_vit_b16": "dinov2_vits14"}
"""A model of Tables 1 and 3 (a ``representation`` of ``mahdavi.table1``) and the model of ours
that stands in for it where it is missing (its rows' ``representation`` starts with the name)."""


def _missing_models_words(names: Sequence[str], results_root: Path | None = None) -> str:
    """The clause, with a leading "; ", naming the models whose rows the committed full tables
    of ``mahdavi.table1`` and ``mahdavi.table3`` among ``names`` mark ``missing`` (``check``),
    each with its table and the model of ours that stands in for it where the table has rows
    of one (:data:`STAND_INS`), "with no n or d" where none of those rows has them, and why
    they are missing: the Hugging Face hub unreachable
    where every recorded ``reason`` says so, else the reasons; "" when no row is missing or no
    such table is committed."""
    from memnb.figures.mahdavi import representation_label
    from memnb.results import read_table, result_paths

    found, reasons, blank = [], [], True
    for name in ("mahdavi.table1", "mahdavi.table3"):
        path = result_paths(name, "full", results_root)[0]
        if name not in names or not path.is_file():
            continue
        table = read_table(path)
        missing = table[table["check"] == "missing"]
        computed = table.loc[table["check"] != "missing", "representation"].astype(str)
        for model in dict.fromkeys(missing["representation"].astype(str)):
            stand_in = STAND_INS.get(model)
            rows = stand_in is not None and computed.str.startswith(stand_in).any()
            found.append(f"{representation_label(model)} (`{name}`"
                         + (f"; {representation_label(stand_in)} stands in for it" if rows
                            else "") + ")")
        reasons += [str(r) for r in missing["reason"].dropna()]
        blank = blank and bool(missing[["n", "d"]].isna().all().all())
    if not found:
        return ""
    hub = all("hub" in r and "no network" in r for r in reasons) and bool(reasons)
    models = and_words(found)
    return (f"; in the committed full tables, the rows of {models} are marked `missing`"
            + (", with no n or d" if blank else "") + ": "
            + ("each needs the Hugging Face hub, which the run could not reach" if hub else
                             "; ".join(f"`{r}`" for r in dict.fromkeys(reasons))))


def table_settings_words(names: Sequence[str], results_root: Path | None = None) -> str:
    """One item of the full runs' list: the settings at which ``mahdavi.table1`` and
    ``mahdavi.table3`` run (the ``full`` profile's images, and its models and context lengths),
    beside the paper's (:mod:`memnb.papers.mahdavi`), and the models whose rows the committed
    full tables (under ``results_root``) mark missing (:func:`_missing_models_words`); "" when
    ``names`` holds neither."""
    from memnb.experiments.registry import get
    from memnb.papers import mahdavi

    parts = []
    if "mahdavi.table1" in names:
        images = get("mahdavi.table1").params("full")["images"]
        parts.append(f"`mahdavi.table1` reads {images:,} ImageNet images where the paper's "
                     f"notebook read {mahdavi.TABLE1_IMAGES.value:,} "
                     "(`memnb.papers.mahdavi.TABLE1_IMAGES`)")
    if "mahdavi.table3" in names:
        params = get("mahdavi.table3").params("full")
        bert, gpt2 = mahdavi.TABLE3_GEOMETRY["bert"][0], mahdavi.TABLE3_GEOMETRY["gpt2"][0]
        parts.append(f"`mahdavi.table3` reads IMDb reviews with all-MiniLM-L6-v2 at n = "
                     f"{params['bert_length']:,} and GPT-2 small at n = "
                     f"{params['gpt_length']:,}, where the paper read Wikipedia with BERT-large "
                     f"at n = {bert:,} and GPT-2 large at n = {gpt2:,} "
                     "(`memnb.papers.mahdavi.TABLE3_GEOMETRY`)")
    if not parts:
        return ""
    return ("Mahdavi et al.'s Tables 1 and 3 run at the settings the Mahdavi chapter names, "
            "not the paper's: " + "; ".join(parts)
            + _missing_models_words(names, results_root) + ".")


def full_runs_markdown(names: Sequence[str], results_root: Path | None = None) -> str:
    """The "Full-profile runs measured so far" section of the "Running at scale" page: one row
    per committed full result of ``names`` (its grid, seeds, device and wall time, read from its
    provenance), the total wall time, and the experiments that have no full result yet.

    A partial run (stopped at its time limit) is listed with the points it computed, and with
    how many of its cached points today's code would reuse when the run is resumed; a rerun of
    a table by today's code (:mod:`memnb.reruns`) with the points it has computed so far."""
    from memnb.experiments.registry import paper_item
    from memnb.prose import counted
    from memnb.provenance import (
        arithmetic_label,
        copied_chain,
        partial_summary,
        points_not_timed,
        points_ran,
        profile_change,
        provenance_summary,
    )
    from memnb.reruns import rerun_progress, rerun_reason
    from memnb.results import (
        cached_point_files,
        computed_by_todays_code,
        continue_command,
        load_superseded,
        read_provenance,
        result_paths,
    )

    summary = provenance_summary(list(names), "full", results_root)
    rows, missing, partial = [], [n for n in names if n not in set(summary["experiment"])], []
    earlier_code: list[str] = []
    notes: list[str] = []  # listed below the table and its totals
    provenances = {name: read_provenance(result_paths(name, "full", results_root)[1])
                   for name in summary["experiment"]}
    shared = shared_invocations(provenances)
    folder = None if results_root is None else Path(results_root) / "full"
    for record in summary.to_dict("records"):
        name = record["experiment"]
        provenance = provenances[name]
        wall = record["wall_time_s"]
        minutes = "–" if wall is None else f"{float(wall) / 60:.1f} min"
        if wall is not None and float(wall) < 60:
            minutes = f"{float(wall):.0f} s"
        runs = len(provenance.get("invocations") or [None])
        if runs > 1:
            minutes += f" over {runs} invocations"
        if name in shared:  # one computation recorded by two tables: its time counted once
            other = shared[name]
            same = (set(_invocation_keys(provenance))
                    == set(_invocation_keys(provenances[other])))
            minutes += (f" ({'the same invocations as' if same else 'invocations among those'} "
                        f"`{other}` records: one computation written as both tables, its time "
                        "counted once)")
        untimed = points_not_timed(provenance)  # computed outside the invocations timed
        if untimed:
            minutes += f" ({counted(untimed, 'cached point')} reused, not computed)"
        elif (provenance.get("cached_points_reused") is None and wall is not None
              and float(wall) < 1):  # recorded before the field
            minutes += " (points read from the cache)"
        what = partial_summary(provenance)
        if what is not None:
            grid_changed = profile_change(provenance) is not None
            files, current = cached_point_files(name, "full", results_root,
                                                on_todays_grid=grid_changed)
            matching = "today's code and grid" if grid_changed else "today's code"
            total = points_ran(provenance)[1]
            # a table of earlier code or profile is replaced by a rerun computed beside it: a
            # plain run would move it aside at its first partial write
            replaced = rerun_reason(name, provenance) is not None
            rerun = f"`{continue_command(name, 'full', provenance, rerun=replaced)}`"
            if replaced:
                rerun += (" (a rerun: it computes beside the committed table, which the "
                          "chapters read until the rerun is complete)")
            if not files:
                rerun_does = f"no point cache committed: {rerun} computes today's grid"
            elif current == 0:
                rerun_does = (f"none of the {files} cached point files matches {matching}: "
                              f"{rerun} computes " + ("today's grid" if grid_changed else
                                                      f"all {total:,} points"))
            else:
                rerun_does = (f"{current} of the {files} cached point files match {matching}: "
                              f"{rerun} reuses them and computes " + (
                                  "the rest of today's grid" if grid_changed else
                                  f"the other {max(total - current, 0):,} of the {total:,} points"))
            partial.append(f"`{name}` ({what}; {rerun_does})")
        chain = copied_chain(provenance, folder)  # points copied from earlier runs: read once
        fixed = len(provenance.get("corrections") or [])
        # the provenance's path is not repeated: a path in code font does not wrap, and made
        # the table wider than the page
        fixed_text = "" if not fixed else (
            f"; {fixed} correction{'s' if fixed > 1 else ''} by hand, listed under "
            "`corrections` in its provenance")
        code = provenance.get("code_fingerprint")
        current = computed_by_todays_code(name, provenance)
        if not current:
            earlier_code.append(name)
        rows.append([f"`{name}`", paper_item(name, str(record["paper_figure"])), record["seeds"],
                     f"{minutes}{'' if what is None else ' (partial grid)'} on "
                     f"{_devices(provenance, str(record['device_name']))}{fixed_text}",
                     _commits_cell(provenance, str(record["git_commit"]),
                                   str(record["started_utc"] or "–")[:10], chain),
                     f"{code_word(name, provenance)}: "
                     f"{'not recorded' if not code else f'`{code}`'}, "
                     f"{arithmetic_label(provenance)}"
                     f"{_rekey_words(provenance, bool(chain))}{_copied_code_words(chain)}"])
    lines = ["<!-- generated by book/build.py from data/results/full/*.json; do not edit -->"]
    if rows:
        # two tables of the same rows, so that neither is wider than the page: what ran, and
        # which commits and code computed it
        lines += [markdown_table(["experiment", "paper item", "seeds", "wall time and device"],
                                 [row[:4] for row in rows]), "",
                  "Which commits and code computed each of them:", "",
                  markdown_table(["experiment", "commits, date", "code"],
                                 [[row[0], *row[4:]] for row in rows]), ""]
        total = sum(float(w) for name, w in zip(summary["experiment"], summary["wall_time_s"],
                                                 strict=True)
                    if w is not None and name not in shared) / 3600
        lines.append(f"{len(rows)} of {len(names)} registered experiments have a committed "
                     f"full-profile result ({total:.1f} hours of recorded wall time in all"
                     + (", a computation that wrote two tables counted once" if shared else "")
                     + ").")
        earlier_grid = [f"`{n}`" for n in summary["experiment"] if n not in earlier_code
                        and profile_change(provenances[n]) is not None]
        of_earlier_grid = ("" if not earlier_grid else
                           f"; {len(earlier_grid)} of them under an earlier `full` profile "
                           f"({', '.join(earlier_grid)}: not today's grid, so the scorecard "
                           "names it and does not judge it)")
        words = {n: code_word(n, provenances[n]) for n in summary["experiment"]}
        rekeyed = [f"`{n}`" for n, w in words.items() if w == REKEYED]
        today = [f"`{n}`" for n, w in words.items() if w == TODAYS_CODE]
        states = [part for part in (
            f"{len(rekeyed)} {'is' if len(rekeyed) == 1 else 'are'} re-keyed to today's "
            f"fingerprint ({', '.join(rekeyed)})" if rekeyed else "",
            f"{len(today)} {'was' if len(today) == 1 else 'were'} computed by today's code"
            + (f" ({', '.join(today)})" if today else "") if today or not rekeyed else "")
            if part]
        if earlier_code:
            lines.append(
                f" In the words of {GLOSSARY_LINK}, of these {len(rows)} tables "
                f"{and_words(states)}{of_earlier_grid}"
                f"; the other {len(earlier_code)} stand as computed by earlier code (column "
                "*code*: the code fingerprint each provenance records), and the chapters draw "
                "them as they are. `memnb run NAME --profile full --rerun` recomputes one "
                "beside it, over as many sessions as it takes, and when complete keeps the "
                "earlier table under `data/results/full/superseded/`.")
        elif earlier_grid or rekeyed:
            lines.append(f" In the words of {GLOSSARY_LINK}, of these {len(rows)} tables "
                         f"{and_words(states)}{of_earlier_grid}.")
        notes.append(data_files_sentence(provenances).strip())
        if partial:
            notes.append("Partial grids, each with the command that continues it (from the "
                         "point cache committed with it, where there is one):\n"
                         + ";\n".join(f"  - {p}" for p in partial) + ".")
    else:
        lines.append(f"None of the {len(names)} registered experiments has a committed "
                     "full-profile result yet.")
    underway = [(name, rerun_progress(name, "full", results_root)) for name in names]
    underway = [(name, text) for name, text in underway if text is not None]
    if underway:
        notes.append("Reruns under way in `data/results/rerun/full/` (`memnb.reruns`: the "
                     "table above stays until the rerun is complete, then moves to "
                     "`superseded/`): " + "; ".join(f"`{name}`: {text}"
                                                     for name, text in underway) + ".")
    kept = [(name, earlier) for name in names for earlier in load_superseded(name, "full",
                                                                             results_root)]
    if rows and all(str(d).startswith("CPU") for d in summary["device_name"]):
        notes.append("None of them ran on a GPU: no GPU-hours of a `full` profile are measured "
                     "yet.")
    if missing:
        notes.append("No full-profile result yet (their planned cost is in the table below): "
                     + ", ".join(f"`{n}`" for n in missing) + ".")
    # what the full profile runs, against the papers: first in the list
    notes[:0] = [full_seeds_words(names), table_settings_words(names, results_root)]
    notes = [n for n in notes if n]
    if notes:  # one item each, so that the page does not read as one wall of text
        lines += ["", *(f"- {n}" for n in notes)]
    if kept:  # one row each: a paragraph of them read as a wall of text
        replaced = [_superseded_row(name, e) for name, e in kept]
        lines += ["", "Replaced by a later full run of their experiment and kept for "
                      "comparison, under `data/results/full/superseded/`:", "",
                  markdown_table(["experiment", "code", "device", "seeds", "commit",
                                  "why replaced"], [row for row, _ in replaced])]
        details = [detail for _, detail in replaced if detail]
        if details:  # below the table, so that its last column stays narrow
            lines += ["", "How the earlier profiles differ from today's, and the points the "
                          "partial tables lack:", "",
                      *(f"- {detail}" for detail in details)]
    return "\n".join(lines) + "\n"


def code_word(name: str, provenance: dict[str, Any]) -> str:
    """The state of a full result's code, in the words of the glossary of "How each page was
    produced" (:func:`code_state`): :data:`TODAYS_CODE`, :data:`REKEYED` (to today's
    fingerprint) or :data:`NOT_REKEYED` ("earlier code" where it was re-keyed only part of the
    way)."""
    from memnb.provenance import rekey_origin
    from memnb.results import computed_by_todays_code

    if not computed_by_todays_code(name, provenance):
        return NOT_REKEYED if rekey_origin(provenance) is None else "earlier code"
    return TODAYS_CODE if rekey_origin(provenance) is None else REKEYED


GLOSSARY_LINK = "{doc}`How each page was produced </reproducibility>`"
"""A link to the page whose *Words used* defines today's code, re-keyed and a re-key."""


def _superseded_row(name: str, kept: Any) -> tuple[list[str], str]:
    """The row of the table of replaced runs for ``kept``, a result of ``name`` under
    ``superseded/`` (:func:`memnb.results.load_superseded`): the code fingerprint that ends its
    name (with the one it was re-keyed from, as the *code* column of the full runs says), its
    arithmetic, device, seeds and commit, and why a run replaced it (earlier code, an earlier
    profile; partial, with its points); then, for the list below the table, how its profile
    differs from today's and the points a partial table lacks ("" when neither)."""
    from memnb.provenance import (
        device_label,
        partial_summary,
        points_ran,
        profile_change,
        seeds_used,
    )
    from memnb.results import computed_by_todays_code

    provenance = kept.provenance
    code = _superseded_code(provenance)
    changed = profile_change(provenance) or ""
    lacks = partial_summary(provenance) or ""  # ends with the profile's change: said first
    lacks = "" if lacks == changed else lacks.removesuffix(f"; {changed}")
    done, total = points_ran(provenance)
    why = [w for w in ("" if computed_by_todays_code(name, provenance) else "earlier code",
                       "earlier `full` profile" if changed else "",
                       f"partial, {done} of {total} points" if lacks else "") if w]
    detail = "; ".join(w for w in (changed, lacks) if w)
    row = [f"`{name}`", code, device_label(provenance), seeds_used(kept.table, provenance),
           f"`{str(provenance.get('git_commit'))[:7]}`", "; ".join(why) or "–"]
    return row, (f"`{name}` of code `{provenance.get('code_fingerprint')}`: {detail}"
                 if detail else "")


def _superseded_code(provenance: dict[str, Any]) -> str:
    """The *code* cell of a table kept under ``superseded/``: the fingerprint it records (with
    the one it was re-keyed from, where it was) and its arithmetic."""
    from memnb.provenance import arithmetic_label

    rekeys = provenance.get("code_fingerprint_rekeys") or []
    source = provenance.get("code_fingerprint_rekeyed_from") or (
        rekeys[0].get("from") if rekeys else None)
    return (f"`{provenance.get('code_fingerprint')}`"
            + (f" (re-keyed from `{source}`)" if source else "")
            + f", {arithmetic_label(provenance)}")


SUPERSEDED_TITLE = "Tables the committed runs replaced"
"""The title of :func:`superseded_section`, which the scorecard's section points to."""

SUPERSEDED_LABEL = "tables-replaced"
"""The MyST label of :func:`superseded_section`, the target of the links to it."""


REPLACED_HEADER = "| experiment | the table it replaced |"
"""How the scorecard's table of replaced runs (:func:`memnb.scorecard.replaced.
replaced_runs_markdown`) begins in an executed chapter's output."""


def rejudged_per_table(executed: Sequence[Path]) -> dict[str, tuple[int, int] | None]:
    """The verdicts the scorecard judged again on the table each committed full run replaced,
    read from its printed table of replaced runs (:data:`REPLACED_HEADER`) in the first executed
    chapter of ``executed`` that printed one: by experiment, how many verdicts it lists
    ("committed run → replaced run", a row that reads several tables once per table) and how
    many of them changed (a verdict that cannot be decided there, ``not run``, does not change);
    ``(0, 0)`` where "no row reads it"; ``None`` for a replaced table of an earlier profile,
    which the scorecard does not judge
    (:data:`memnb.scorecard.replaced.NOT_JUDGED_EARLIER_PROFILE`); empty when no chapter
    printed the table."""
    import re

    from memnb.scorecard.replaced import NOT_JUDGED_EARLIER_PROFILE

    item = re.compile(r".+: (.+?) → (.+)")  # the label ends at the last ": "
    for path in executed:
        if not Path(path).is_file():
            continue
        for cell in nbformat.read(path, as_version=4).cells:
            for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
                text = str(output.get("data", {}).get("text/markdown") or "")
                if REPLACED_HEADER not in text:
                    continue
                found: dict[str, tuple[int, int] | None] = {}
                for line in text[text.index(REPLACED_HEADER):].splitlines()[2:]:
                    if not line.startswith("| `"):
                        break
                    cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
                    name, verdicts = cells[0].strip("`"), cells[-1]
                    if verdicts == NOT_JUDGED_EARLIER_PROFILE:
                        found[name] = None
                        continue
                    pairs = [m.groups() for part in verdicts.split("; ")
                             if (m := item.fullmatch(part.strip()))]
                    found[name] = (len(pairs), sum(a != b and "not run" not in (a, b)
                                                   for a, b in pairs))
                return found
    return {}


def superseded_section(names: Sequence[str], results_root: Path | None = None,
                       executed: Sequence[Path] = ()) -> str:
    """The section listing every table of ``names`` kept under ``data/results/full/superseded/``
    (:func:`memnb.results.load_superseded`): the code that computed it
    (:func:`_superseded_code`), its device, the day it started and whether it is complete, each
    read from its provenance, and how many verdicts the scorecard judges again on it and how
    many change (the table the committed run replaced last, :func:`memnb.reruns.
    replaced_result`, which :func:`memnb.scorecard.replaced.rejudge` reads; the counts of
    :func:`rejudged_per_table`, read from ``executed``, the executed chapters, where the
    scorecard printed them); "" when none is kept."""
    from memnb.prose import counted
    from memnb.provenance import device_label, points_ran
    from memnb.reruns import replaced_result
    from memnb.results import load_superseded

    rows = []
    direct = 0
    counts = rejudged_per_table(executed)
    for name in names:
        latest = replaced_result(name, "full", results_root)
        for kept in load_superseded(name, "full", results_root):
            provenance = kept.provenance
            done, total = points_ran(provenance)
            again = latest is not None and kept.provenance_path == latest.provenance_path
            direct += again
            count = counts.get(name, (0, 0))
            verdicts, changed = count or (0, 0)
            rows.append([f"`{name}`", _superseded_code(provenance), device_label(provenance),
                         str(provenance.get("started_utc") or "–")[:10],
                         "yes" if kept.complete else f"no: {done} of {total} points",
                         "–" if not again else "not printed" if name not in counts
                         else "none: an earlier profile's table is not judged" if count is None
                         else "none: no verdict reads it" if not verdicts
                         else f"{verdicts} ({changed} changed)"])
    if not rows:
        return ""
    judged = sum((counts.get(name) or (0, 0))[0] for name in names)
    changed = sum((counts.get(name) or (0, 0))[1] for name in names)
    column = ("" if not counts else
              f" Column *judged again*: the verdicts the scorecard judges again on the table "
              f"its committed run replaced ({judged} in all, {changed} changed), \"–\" on a "
              "table a later run replaced first.")
    return "\n".join([
        f"({SUPERSEDED_LABEL})=", f"## {SUPERSEDED_TITLE}", "",
        f"{counted(len(rows), 'table')} {'is' if len(rows) == 1 else 'are'} kept under "
        "`data/results/full/superseded/`. Each was replaced by a later full run of its "
        f"experiment, of other code or another profile; {direct} directly by the committed "
        f"one.{column} Why each was replaced, and what a partial one lacks: "
        f"{FULL_RUNS_LINK}.", "",
        markdown_table(["experiment", "code", "device", "started (UTC)", "complete",
                        "judged again"], rows),
        ""])


def data_files_sentence(provenances: dict[str, dict[str, Any]]) -> str:
    """One sentence on the dataset files behind the tables ``provenances`` (by experiment name):
    which of those whose experiments read files (:data:`memnb.dataset_files.DATASETS`) record
    their SHA-256 for all of their points (:func:`memnb.dataset_files.recorded_digests`),
    whether those equal the files found here (or were not found here), and which were computed,
    in whole or in part, before runs recorded them; ``""`` when none reads a file."""
    from memnb.dataset_files import changed_files, digests, recorded_digests
    from memnb.experiments.registry import get

    reads = [n for n in provenances if get(n).datasets]
    if not reads:
        return ""
    recorded = {n: recorded_digests(provenances[n]) for n in reads}
    recorded = {n: d for n, d in recorded.items() if d}
    unrecorded = [f"`{n}`" for n in reads if n not in recorded]
    here = {n: digests(get(n).datasets) for n in recorded}
    differ = [f"`{n}`" for n, d in recorded.items() if changed_files(d, here[n])]
    absent = [f"`{n}`" for n, d in recorded.items() if set(d) - set(here[n])]

    def are(count: int) -> str:
        return "is" if count == 1 else "are"

    head = (f" {len(reads)} of these tables {are(len(reads))} of experiments that read dataset "
            "files, and " + ("none" if not recorded else f"{len(recorded)}") + " of them "
            + ("records" if len(recorded) <= 1 else "record") + " the files' SHA-256 for every "
            "point")
    if recorded:
        found = [f"{len(differ)} {'differs' if len(differ) == 1 else 'differ'} from the files "
                 f"this build found ({', '.join(differ)})"] if differ else []
        found += [f"this build did not find the files of {len(absent)} "
                  f"({', '.join(absent)})"] if absent else []
        head += " (`data_files`), " + ("; ".join(found) if found else
                                       "equal to those of the files this build found")
    if not unrecorded:
        return head + "."
    which = (("it" if len(unrecorded) == 1 else "all") if not recorded
             else f"the other {len(unrecorded)}")
    return (f"{head}; {which} {'was' if len(unrecorded) == 1 else 'were'} computed, in whole or "
            f"in part, before runs recorded them ({', '.join(unrecorded)}): that "
            f"{'it was' if len(unrecorded) == 1 else 'they were'} computed from the files whose "
            "SHA-256 `data/README.md` lists is assumed, not recorded.")


def _device(device_name: Any) -> str:
    """A recorded device name as the chapters show it (``memnb.provenance.device_label``: records
    written before the singular say ``1 threads``)."""
    from memnb.provenance import device_label

    return device_label({"device_name": "?" if device_name is None else str(device_name)})


def kernel_level_recorded(device_name: Any) -> bool:
    """Whether a recorded device name tells which vector instruction set torch's CPU kernels used
    (``CPU (x86_64, AVX2, 2 threads)``, a dask cluster's ``CPU (x86_64, AVX2), …``), on which
    the last bits of a result depend (:func:`memnb.results.cpu_capability`); names recorded
    before it was added (``CPU (x86_64, 2 threads)``) do not, nor does a name without detail
    (``cpu``, empty or missing). True for a GPU, whose model the name gives."""
    name = str(device_name or "").strip()
    if not name or name.lower() in ("cpu", "?"):
        return False  # a CPU (or a device) named without any detail
    if not name.startswith("CPU ("):
        return True
    return _kernel_level(name) is not None


_KERNEL_LEVEL_WORDS = ("A CPU named without the vector instruction set of torch's kernels "
                       "(`AVX2`, `AVX512`, …) was recorded before device names gave it; the "
                       "last bits of a trained result can depend on it")


def kernel_levels_recorded(provenance: dict[str, Any]) -> bool:
    """:func:`kernel_level_recorded` for a run's device and for the device of every call of
    it (a run resumed across machines names each call's in ``invocations``)."""
    names = [provenance.get("device_name")] + [call.get("device_name")
                                               for call in provenance.get("invocations") or []
                                               if call.get("device_name")]
    return all(kernel_level_recorded(name) for name in names)


def _devices(provenance: dict[str, Any], device_name: str) -> str:
    """The device of a full run, or, for a run resumed across invocations on different
    devices, each device with the invocations (counted from 1) that ran on it, in order."""
    runs = provenance.get("invocations") or []
    names = [_device(r.get("device_name")) for r in runs]
    if len(set(names)) < 2:
        return _device(device_name)
    spans = []
    for name, run in groupby(enumerate(names, start=1), key=lambda numbered: numbered[1]):
        numbers = [number for number, _ in run]
        which = (f"invocation {numbers[0]}" if len(numbers) == 1
                 else f"invocations {numbers[0]}–{numbers[-1]}")
        spans.append(f"{name} ({which})")
    return "; ".join(spans)


BENCHMARK_COLUMNS = {
    "measure": "measured", "runs": "runs", "models": "models", "steps_per_run": "steps per run",
    "steps": "steps", "official_way_s": "official codes' way (s)",
    "sequential_s": "one after another, same code (s)", "packed_s": "packed engine (s)",
    "ratio": "ratio", "gflop_per_s": "GFLOP/s", "fraction_of_fp32_peak": "share of fp32 peak",
    "max_final_loss_gap": "largest final-loss gap",
    "ieee_ms": "IEEE denormals (ms per step)", "flushed_ms": "denormals flushed (ms per step)",
    "processes": "processes", "threads_each": "threads each",
    "steps_per_s": "steps/s per process", "slowdown": "slowdown against the first row"}
"""Column titles of the benchmark tables, by key of a record's results."""


def _benchmark_value(key: str, value: Any) -> str:
    if value is None:
        return "–"
    if key in ("ratio", "slowdown"):
        return f"{float(value):.1f}×"
    if key == "fraction_of_fp32_peak":
        return f"{100 * float(value):.2f} %"
    if key == "max_final_loss_gap":
        return f"{float(value):.1e}"
    if key.endswith("_s"):
        return f"{float(value):.1f}"
    if key.endswith("_ms"):
        return f"{float(value):.2f}"
    return str(value)


def benchmarks_markdown(folder: Path) -> str:
    """The "Measured speed" tables of the "Running at scale" page: one block per benchmark
    record in ``folder`` (``data/benchmarks/*.json``, written by ``benchmarks/*.py --record``),
    each value read from the record, with the device, threads, commit, date and command."""
    lines = ["<!-- generated by book/build.py from data/benchmarks/*.json; do not edit -->"]
    records = sorted(Path(folder).glob("*.json")) if Path(folder).is_dir() else []
    if not records:
        return "\n".join([*lines, "No benchmark record has been committed yet."]) + "\n"
    devices = []
    for path in records:
        record = json.loads(path.read_text())
        devices.append(str(record.get("device", "")))
        lines += ["", f"**`{record['benchmark']}`** on {_device(record['device_name'])}, commit "
                      f"`{str(record['git_commit'])[:7]}`, {str(record['started_utc'])[:10]}: "
                      f"`{record['command']}`", ""]
        shapes: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for result in record["results"]:
            shapes.setdefault(tuple(result), []).append(result)
        for keys_, results in shapes.items():
            header = [BENCHMARK_COLUMNS.get(k, k) for k in keys_]
            rows = [[_benchmark_value(k, r.get(k)) for k in keys_] for r in results]
            lines += [markdown_table(header, rows), ""]
        lines += [s for s in [contention_sentence(record)] if s]
    lines += ["", "Each record comes from one run, at the commit it names; the build reads it "
              "and does not time the code again, so code changed since may run at another "
              "speed."]
    if not any(device.startswith("cuda") for device in devices):
        lines.append("No benchmark record comes from a GPU yet: the GPU ratios and the share of "
                     "a GPU's dense peak are **not measured**.")
    return "\n".join(lines) + "\n"


def contention_sentence(record: dict[str, Any]) -> str:
    """For a ``bench_contention`` record: the throughput of its processes of one thread each,
    together, against one process alone with every thread (the first row), as a ratio: the most
    that a dask ``LocalCluster`` of one single-threaded worker per core could gain over one
    process on the same cores (the page's dask section points here); the record times bare
    processes, not dask, whose own overhead it does not measure. "" for another record, or one
    without both rows."""
    if record.get("benchmark") != "bench_contention":
        return ""
    results = record.get("results") or []
    alone = next((r for r in results if r.get("processes") == 1), None)
    split = next((r for r in results
                  if (r.get("processes") or 0) > 1 and r.get("threads_each") == 1), None)
    if alone is None or split is None:
        return ""
    together = float(split["processes"]) * float(split["steps_per_s"])
    ratio = together / float(alone["steps_per_s"])
    cluster = ("a dask `LocalCluster` of one single-threaded worker per core (section *A dask "
               "cluster*)")
    bound = (f"the most that {cluster} could gain over one process on this workload"
             if ratio > 1 else f"so {cluster} would gain nothing over one process on this "
                               "workload")
    return (f"Together, the {split['processes']} processes of one thread each made "
            f"{together:.1f} steps/s, {ratio:.2f} times the "
            f"{float(alone['steps_per_s']):.1f} steps/s of one process alone with "
            f"{alone['threads_each']} threads: {bound}, on the machine the record names "
            "(bare processes were timed, not dask, whose own overhead is not measured).\n")


def precision_markdown(folder: Path) -> str:
    """The TF32-against-float32 table of the "Running at scale" page: one row per experiment of
    every record in ``folder`` (``data/precision/*.json``, written by
    ``scripts/precision_check.py``), with what moved (rows differing in each result column,
    the largest difference of the outcome columns), both wall times and the verdict rule's
    answer, each read from the record."""
    lines = ["<!-- generated by book/build.py from data/precision/*.json; do not edit -->"]
    records = sorted(Path(folder).glob("*.json")) if Path(folder).is_dir() else []
    if not records:
        return "\n".join([*lines, "TF32 has **not been compared** with float32 on a GPU yet "
                                   "(`python scripts/precision_check.py --device cuda`), so no "
                                   "result uses it."]) + "\n"
    rows, sources = [], {}
    for path in records:
        record = json.loads(path.read_text())
        source = (f"{_device(record['device'])}, `{record['profile']}` profile, commit "
                  f"`{str(record['git_commit'])[:7]}`, {record['date']}"
                  + (f" ({record['provenance_note']})" if record.get("provenance_note") else ""))
        sources.setdefault(source, []).append(f"`{path.name}`")
        changed = {c["item"] for c in record["verdict_changes"]}
        for name, run in record["runs"].items():
            moved = run.get("rows_differing", {})
            largest = run["largest_difference"]
            rows.append([
                f"`{name}`", run.get("rows", "?"),
                "; ".join(f"{c}: {k}" + (f" (by up to {largest[c]:.3g})" if c in largest else "")
                          for c, k in moved.items()) or "none",
                f"{run['seconds']['float32']:.1f} / {run['seconds']['tf32']:.1f}",
                ", ".join(sorted(changed)) or "none"])
    lines += ["", markdown_table(["experiment", "rows", "rows that differ, by column (largest "
                                  "difference)", "wall time float32 / TF32 (s)",
                                  "verdicts changed"], rows), "",
              "Records (`data/precision/`): " + "; ".join(
                  f"{', '.join(files)}: {source}" for source, files in sources.items()) + ". "
              "Each comparison ran on the code and `quick` profile of the commit it names; the "
              "build reads the records and does not run it again."]
    return "\n".join(lines) + "\n"


def planning_machine(note: str) -> str:
    """A plan's note as a page says it (:func:`memnb.planner.memory_note`, written on the device
    that planned it: "this device's 24 GiB", "would not fit here"): the planning machine's
    memory, and "on that machine", since the page is read elsewhere and the plan table names the
    device of each column."""
    return (note.replace("this device's", "the planning machine's")
            .replace("would not fit here", "would not fit on that machine"))


def plans_markdown(folder: Path, results_root: Path | None = None) -> str:
    """The cost plans of the "Running at scale" page: one table for every plan record in
    ``folder`` (``data/plans/*.json``, written by ``scripts/plan_table.py``), an estimated wall
    time column per record (the CPU's, and each GPU's where one was measured), headed by how and
    where each plan was computed, with the wall time of every run recorded since read from the
    provenance."""
    from memnb.planner import plan_from_record, plan_records, with_recorded

    lines = ["<!-- generated by book/build.py from data/plans/*.json; do not edit -->"]
    records = plan_records(folder)  # the CPU's column first
    if not records:
        return "\n".join([*lines, "No plan has been recorded yet "
                                   "(`python scripts/plan_table.py --device cpu`)."]) + "\n"
    lines.append("")
    for record in records:
        lines.append(f"- {_device(record['device_name'])}: computed by `{record['command']}` "
                     f"on {record['date']} at commit `{str(record['git_commit'])[:7]}`; the "
                     f"planning itself took {float(record['planning_s']):.0f} s.")
    tables = [with_recorded(plan_from_record(record), "full", results_root)
              for record in records]
    lines += ["", _plan_table(tables, [record["device_name"] for record in records],
                              flops_apart(records)), ""]
    return "\n".join(lines) + "\n"


_USUAL_NOTE = "others interpolated per point"

FLOPS_APART = 1.1
"""How far apart (a ratio) a plan's FLOP count of today's grid may lie from that of the latest
plan of the same grid before its estimate is marked (:func:`flops_apart`). Two plans that
calibrated the same groups of a grid count the same FLOPs, to the last digit (the FLOPs of a
calibrated group are counted on one real step, which does the same operations on any device;
the others are interpolated from them): in the committed plans, every row the CPU and GPU
plans share with today's runs and packed groups agrees exactly but `kajitsuka.capacity`'s, whose
GPU plan predates the reordering of Kajitsuka & Sato's Fig. 7 grid (tested). A gap means that
the plans calibrated other groups and interpolated the rest from them; the records hold no grid
order to compare, only these counts."""

_REPLANNED = re.compile(r"re-planned alone\b[^;]*? at commit \w+ on (\d{4}-\d{2}-\d{2})")


def planned_on(record: Mapping[str, Any], row: Mapping[str, Any]) -> str:
    """The date (``YYYY-MM-DD``) a plan row was computed: that of its latest re-plan, named in
    its note by ``scripts/plan_table.py --merge`` (``re-planned alone at commit X on DATE``,
    ``plan_table.merge_note``), else its record's; ``""`` when neither says."""
    found = _REPLANNED.findall(str(row.get("note") or ""))
    return max(found) if found else str(record.get("date") or "")


def flops_apart(records: Sequence[Mapping[str, Any]]) -> dict[tuple[int, str], float]:
    """The estimates of ``records`` (plan records, :func:`memnb.planner.plan_records`) that rest
    on a FLOP count of today's grid more than :data:`FLOPS_APART` apart from the latest plan of
    that grid: ``(index of the record, experiment)`` to the ratio of the row's count to the
    latest's (below 1: fewer FLOPs). Only rows with today's runs and packed groups
    (:func:`memnb.planner.earlier_grid` says nothing), a FLOP count and an estimate are
    compared; the latest is the row planned last (:func:`planned_on`), and rows planned on the
    same day as it are not marked (none of them is known to be the later one)."""
    from memnb.planner import earlier_grid

    rows: dict[str, list[tuple[int, str, float]]] = {}
    for index, record in enumerate(records):
        profile = str(record.get("profile", "full"))
        for row in record.get("rows", []):
            flops, wall = row.get("flops"), row.get("wall_s")
            if (not flops or wall is None or not math.isfinite(float(flops))
                    or earlier_grid(row, profile) is not None):
                continue
            rows.setdefault(str(row["experiment"]), []).append(
                (index, planned_on(record, row), float(flops)))
    out = {}
    for name, planned in rows.items():
        latest = max(day for _, day, _ in planned)
        reference = [flops for _, day, flops in planned if day == latest]
        for index, day, flops in planned:
            if day == latest:
                continue
            ratio = flops / reference[0]
            if all(max(flops / r, r / flops) > FLOPS_APART for r in reference):
                out[(index, name)] = ratio
    return out


def flops_mark(ratio: float) -> str:
    """An estimate's mark for a FLOP count ``ratio`` times the latest plan's (:func:`flops_apart`):
    ``"3.6× fewer FLOPs"`` or ``"1.5× more FLOPs"``."""
    return (f"{1 / ratio:.1f}× fewer FLOPs" if ratio < 1 else f"{ratio:.1f}× more FLOPs")


def _short_device(name: str) -> str:
    """``CPU (x86_64, 2 threads)`` as ``CPU, 2 threads`` (``1 thread``); a GPU's name as it is,
    and what follows a ``;`` (a partial run's points) kept."""
    device, _, rest = name.partition(";")
    if device.startswith("CPU (") and device.endswith(")"):
        threads = device[5:-1].split(", ")[-1]
        device = "CPU, " + _device(threads)
    return device + (f";{rest}" if rest else "")


def _plan_table(tables: Sequence[Any], device_names: Sequence[str],
                apart: Mapping[tuple[int, str], float] | None = None) -> str:
    """Plans of the same experiments on several devices as one table narrow enough for the
    page: experiment and paper item, runs, FLOPs (each plan's count, in the order of the columns,
    where they differ; a count planned for an earlier grid marked so), an estimated wall time per
    device (marked where it was planned for an earlier grid, or where ``apart``,
    :func:`flops_apart` keyed by the index of the table, says its plan counted today's grid's
    FLOPs far from the latest plan's, :func:`flops_mark`; the device's total names both) and the
    recorded run; the groups and the notes go into a list below it (a note that differs between
    the plans names its device)."""
    from memnb.experiments.registry import paper_item
    from memnb.planner import estimated_experiments, estimated_total_s, format_duration

    apart = {} if apart is None else apart
    devices = [_short_device(name) for name in device_names]
    by_device = [table.set_index("experiment", drop=False) for table in tables]
    order = sorted(dict.fromkeys(e for table in tables for e in table["experiment"]))
    rows, notes = [], []
    for name in order:
        plans = [table.loc[name] if name in table.index else None for table in by_device]
        first = next(r for r in plans if r is not None)
        # one count unless the devices' plans disagree; a count of an earlier grid says so
        counts = dict.fromkeys(f"{float(r.flops):.1e}"
                               + (" (earlier grid)" if getattr(r, "earlier_grid", False) else "")
                               for r in plans
                               if r is not None and r.flops is not None and not pd.isna(r.flops))
        flops = " / ".join(counts) or "-"
        recorded = "-"
        if first.recorded_s is not None and not pd.isna(first.recorded_s):
            recorded = (f"{format_duration(float(first.recorded_s))} "
                        f"({_short_device(first.recorded_on)})")
        elif first.recorded_on:  # a shared grid: its points come from another experiment's run
            recorded = str(first.recorded_on)
        estimates = ["-" if r is None else  # not in that device's plan: its note says so
                     format_duration(None if pd.isna(r.wall_s) else float(r.wall_s))
                     + (" (earlier grid)" if getattr(r, "earlier_grid", False) else "")
                     + (f" ({flops_mark(apart[(i, name)])})" if (i, name) in apart else "")
                     for i, r in enumerate(plans)]
        rows.append([f"`{name}`: {paper_item(name, first.paper_figure)}", first.runs, flops,
                     *estimates, recorded])
        extra = {device: [planning_machine(n) for n in str(r.note or "").split("; ")
                          if n and n != _USUAL_NOTE]
                 for device, r in zip(devices, plans, strict=True) if r is not None}
        said = list(dict.fromkeys(n for device_notes in extra.values() for n in device_notes))
        absent = [device for device, r in zip(devices, plans, strict=True) if r is None]
        if said or absent:
            where = {n: [d for d, device_notes in extra.items() if n in device_notes]
                     for n in said}
            text = "; ".join([*(n if len(where[n]) == len(extra) else
                                f"{' and '.join(where[n])} plan only: {n}" for n in said),
                              *([f"not in the {' and '.join(absent)} plan"] if absent else [])])
            notes.append(f"`{name}` ({first.groups} packed groups, {first.calibrated} "
                         f"calibrated): {text}")
    text = markdown_table(["experiment: paper item", "runs", "FLOPs",
                           *(f"estimated ({device})" for device in devices), "recorded run"],
                          rows)
    estimated = [estimated_experiments(t) for t in tables]
    anywhere = set().union(*estimated)

    def total(index: int, device: str, table: pd.DataFrame, own: set[str]) -> str:
        lacking = sorted(anywhere - own)  # estimated on another device, not on this one
        earlier = sorted(set(table.loc[table["earlier_grid"], "experiment"]) & own)
        far = sorted((e, ratio) for (i, e), ratio in apart.items() if i == index and e in own)
        return (f"{format_duration(estimated_total_s(table))} ({device}"
                + (f"; without {', '.join(f'`{e}`' for e in lacking)}, not estimated there"
                   if lacking else "")
                + (f"; with {', '.join(f'`{e}`' for e in earlier)} estimated for an earlier "
                   "grid" if earlier else "")
                + (f"; with {', '.join(f'`{e}` estimated from {flops_mark(r)}' for e, r in far)}"
                   " than the latest plan of the same grid" if far else "") + ")")

    totals = ", ".join(total(i, device, table, own) for i, (device, table, own)
                       in enumerate(zip(devices, tables, estimated, strict=True)))
    return (text + f"\n\nTotal of the estimated wall times (a grid shared by two experiments "
            f"counted once): {totals}. Groups not calibrated are interpolated per point between "
            "the calibrated ones. A \"-\" marks a value not known: the FLOPs and times of an "
            "experiment that trains nothing, an estimate that a device's plan does not hold "
            "(not planned there, or withdrawn; the row's note below says which), and a run not "
            "recorded.\n\n" + "\n".join(f"- {n}" for n in notes))


def _table_cell(value: Any) -> str:
    from memnb.prose import table_cell

    return table_cell(value, empty="–")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A Markdown pipe table whose empty cells read "–" (:func:`memnb.prose.markdown_table`)."""
    from memnb import prose

    return prose.markdown_table(header, rows, empty="–")


def _seconds(value: Any) -> str:
    return "–" if value is None else f"{float(value):.1f}"


def _hours(seconds: Any) -> str:
    """`` (10.6 h)`` for a time of an hour or more in seconds, so that a long one reads at once;
    "" for a shorter one or none."""
    if seconds is None or float(seconds) < 3600:
        return ""
    return f" ({float(seconds) / 3600:.1f} h)"


_WALL_NOTE_LIMIT = 60
"""A wall-time cell's notes longer than this many characters go below the table (*note 1*, …):
in the narrow column they wrapped into many lines."""


READ_IN_PLACE: dict[str, tuple[str, str]] = {
    "dana": ("dana.", "memnb.experiments.dana.full_read_in_place")}
"""Chapters that, under a smaller profile, read a committed full run in place of a fresh run:
each with the prefix of the experiments it reads so and the function that decides, for one of
them, whether the full run is read (it returns that run, else ``None``)."""


def read_in_place(record: dict[str, Any], results_root: Path | None = None) -> list[str]:
    """The experiments of a chapter (``record``, :func:`chapter_record`) whose committed full
    run it reads in place of a run of its profile (:data:`READ_IN_PLACE`); empty for a chapter
    without such a rule."""
    import importlib

    prefix, rule = READ_IN_PLACE.get(record["name"], ("", ""))
    if not rule:
        return []
    module, _, function = rule.rpartition(".")
    decide = getattr(importlib.import_module(module), function)
    return [name for name in record["experiments"] if name.startswith(prefix)
            and decide(name, record["profile"], results_root) is not None]


def _read_in_place_words(record: dict[str, Any], results: Sequence[dict[str, Any]],
                         in_place: Sequence[str]) -> str:
    """The sentence for a chapter that reads the committed full runs ``in_place``
    (:func:`read_in_place`) instead of runs of its profile: how many of its experiments, by
    which rule, and, where none of ``results`` is a fresh run, that this is why; "" when it
    reads none so."""
    if not in_place:
        return ""
    prefix, rule = READ_IN_PLACE[record["name"]]
    own = [name for name in record["experiments"] if name.startswith(prefix)]
    fresh = [r for r in results if str(r.get("run_kind", "")).startswith("fresh")]
    which = ("its one experiment" if len(in_place) == len(own) == 1
             else f"all {len(own)} of its experiments" if len(in_place) == len(own)
             else f"{len(in_place)} of its {len(own)} experiments")
    return (f"Under `{record['profile']}`, this chapter reads the committed full run of an "
            f"experiment in place of a `{record['profile']}` run when that full run is complete "
            f"(`{rule}`). It does so for {which}"
            + (", so none of its results is a fresh run." if not fresh else "."))


def _parameter_words(parameters: dict[str, Any]) -> str:
    """A chapter's parameters in code font, ``seeds = None`` said to be each experiment's own
    count of seeds under the profile (what the notebooks' parameters cell says)."""
    words = []
    for key, value in parameters.items():
        text = f"`{key} = {value!r}`"
        if key == "seeds" and value is None:
            text += " (each experiment's own count of seeds under the profile)"
        words.append(text)
    return ", ".join(words) or "none"


def _rejudged_words(found: Rejudgement, table: str) -> list[str]:
    """Sentences on the verdicts the scorecard judged again (``found``, read from its own
    sentence by :func:`_rejudged_on`; ``table``: one of the tables judged on):
    the rows judged once per run they read, those that cannot be decided there, and how many
    of the others changed, each change as the scorecard names it."""
    from memnb.prose import counted

    words = []
    if found.several:
        one = found.several == 1
        words.append(f"{counted(found.several, 'row')} {'reads' if one else 'read'} several "
                     f"of them and {'is' if one else 'are'} judged again with each in turn, "
                     f"so {'it counts' if one else 'they count'} once per run.")
    decided = found.judged - found.undecided
    if found.undecided:
        words.append(f"{found.undecided} of the {found.judged} cannot be decided on {table} "
                     "(`not run` there).")
    of = f"Of the other {decided}" if found.undecided else f"Of the {decided}"
    words.append(f"{of}, " + ("none changes." if not found.changed else
                              f"{found.changed} change{'s' * (found.changed == 1)}: "
                              f"{found.moved}."))
    return words


RESULTS_HEADER = ("experiment: paper item", "run", "device", "wall time (s)", "computed by",
                  "code")
"""The columns of a chapter's table of results (:func:`chapter_section`): the paper item shares
the experiment's column, so that the table fits the page's column (with a column of its own,
the tables of the Dana et al. and Kajitsuka & Sato chapters overflowed it and cut off *code*)."""


def chapter_section(record: dict[str, Any], results: list[dict[str, Any]],
                    listed_in: dict[str, int] | None = None,
                    rejudged_replaced: Rejudgement | None = None,
                    in_place: Sequence[str] = ()) -> str:
    """The Markdown section of one chapter. With ``listed_in`` (the titles of the other
    chapters whose tables list this chapter's results, each with how many of them), the
    results are not repeated in a table of their own: one sentence counts them and points to
    those tables (:func:`_listed_elsewhere`). A wall-time cell whose notes are longer than
    :data:`_WALL_NOTE_LIMIT` characters holds its number and a note mark, the note below.
    With ``rejudged_replaced`` (the chapter's verdicts judged again on the tables the committed
    full runs replaced, :func:`_rejudged_on`), sentences say how many, how many cannot be
    decided there and which changed (:func:`_rejudged_words`), and where those tables are
    listed. With ``in_place`` (the experiments whose committed full run the chapter reads
    instead of a run of its profile, :func:`read_in_place`), one item says so."""
    from memnb.experiments.registry import paper_item

    parameters = _parameter_words(record["parameters"])
    lines = [
        f"## {record['title']}",
        "",
        f"- Page: [{record['name']}](chapters/{record['name']}.ipynb); parameters: {parameters}",
        f"- Profile `{record['profile']}`, device `{record['device']}`; executed by papermill "
        f"on {_table_cell((record['started'] or '')[:19].replace('T', ' '))} UTC in "
        f"{_seconds(record['seconds'])} s ({record['cells']} code cells).",
    ]
    in_place_words = _read_in_place_words(record, results, in_place)
    if in_place_words:
        lines.append(f"- {in_place_words}")
    lines.append("")
    if record["slowest"]:
        # the index counts every cell of the executed copy (Markdown cells and the cells the
        # build inserts included), not the code cells counted above
        lines += ["Slowest cells:", "", markdown_table(
            ["cell (index in the executed notebook, from 0)", "seconds", "first line"],
            [(r["cell"], _seconds(r["seconds"]), f"`{r['first_line'][:80]}`")
             for r in record["slowest"]]), ""]
    if results:
        from memnb.prose import counted

        ended = str(record.get("ended") or "")[:19]
        later = [r for r in results
                 if ended and str(r.get("written_utc") or "")[:19] > ended]
        if listed_in:
            lines += [_listed_elsewhere(results, listed_in), ""]
        else:
            notes: list[str] = []

            def wall(row: dict[str, Any]) -> str:  # long notes below the table
                cell = wall_time_cell(row)
                number = _seconds(row.get("wall_time_s")) + _hours(row.get("wall_time_s"))
                if len(cell) - len(number) <= _WALL_NOTE_LIMIT:
                    return cell
                notes.append(f"Note {len(notes) + 1} (`{row['experiment']}`, "
                             f"{row.get('run_kind', row['run'])}): "
                             f"{_seconds(row.get('wall_time_s'))} s"
                             f"{cell[len(_seconds(row.get('wall_time_s'))):]}.")
                return f"{number} (note {len(notes)})"

            lines += ["Results drawn on this page (*computed by*: the commit and start, in UTC, "
                      "of the last call that computed points; *code*: see *Words used*, "
                      "above):", "", markdown_table(
                RESULTS_HEADER,
                [(f"`{r['experiment']}`" + (" (newer than the page)" if r in later else "")
                  + f": {paper_item(r['experiment'], str(r['paper_figure']))}",
                  f"{r['run']}, {counted(r['seeds'], 'seed')}, "
                  f"{thousands(r['rows'])} row{'' if r['rows'] == 1 else 's'}",
                  _device(r["device_name"]), wall(r),
                  _computing_cell(r), r.get("code", "–"))
                 for r in results]), ""]
            lines += [*(f"{note}\n" for note in notes)]
            if not all(r["kernel_levels_recorded"] for r in results):
                lines += [_KERNEL_LEVEL_WORDS + " (see *Will a rerun give the same numbers?*).",
                          ""]
        if later:
            these = "it" if len(later) == 1 else "them"
            names = sorted({f"`{r['experiment']}`" for r in later})
            marked = (f" ({', '.join(names)})" if listed_in
                      else " (marked *newer than the page*)")
            lines += [f"{len(later)} of these results {'was' if len(later) == 1 else 'were'} "
                      f"written after this page was executed{marked}: "
                      f"the page shows an earlier version of {these}, or none; the next "
                      "`make book` executes it again.", ""]
    else:
        lines += ["This page draws no cached experiment results.", ""]
    if rejudged_replaced is not None:
        lines += [" ".join([
            f"{rejudged_replaced.judged} of its verdicts are also judged again on the tables "
            "that committed full runs replaced, kept under `data/results/full/superseded/` "
            f"(listed in {{ref}}`{SUPERSEDED_TITLE} <{SUPERSEDED_LABEL}>`, below).",
            *_rejudged_words(rejudged_replaced, "the replaced table")]),
            ""]
    return "\n".join(lines)


def _listed_elsewhere(results: Sequence[dict[str, Any]], listed_in: dict[str, int]) -> str:
    """One sentence for a chapter whose results (:func:`results_table` rows) are all listed in
    other chapters' tables (``listed_in``: each chapter's title and how many of these results
    its table lists): how many results of each kind of run it reads, and where they are."""
    from memnb.prose import counted

    kinds: dict[str, int] = {}
    for row in results:
        kind = str(row.get("run_kind", row["run"]))
        kinds[kind] = kinds.get(kind, 0) + 1
    plural = {REPLICATION_RUN: "replications (ours)"}
    parts = [f"{n} {plural.get(kind, kind) if n != 1 else kind}" for kind, n in kinds.items()]
    kinds_words = and_words(parts)
    where = "; ".join(f"*{title}* ({n})" for title, n in listed_in.items())
    return (f"This page reads {counted(len(results), 'result')} ({kinds_words}), each listed "
            f"with its provenance in the table of a chapter that draws it: {where}.")


def _computing_cell(row: dict[str, Any]) -> str:
    """The commit and start of the last call that computed a result's points (a
    :func:`results_table` row), or, when every recorded call only read the point cache
    (``read_only``), that none is recorded, with the call that read them."""
    started = str(row.get("started_utc") or "")[:16].replace("T", " ")
    if row.get("read_only"):
        return (f"none recorded: every point read from the cache, by `{row['git_commit']}`, "
                f"{started}")
    return f"`{row['git_commit']}`, {started}"


RERUN_TESTS = ("tests/test_rerun_determinism.py", "tests/test_resume.py")
"""The tests the section *Will a rerun give the same numbers?* names: two computations from
scratch give equal tables; a run paused at a time limit and resumed gives the table of an
uninterrupted one."""


def _code_explanation(runs: dict[str, dict[str, Any]]) -> str:
    """The second open explanation of :func:`rerun_section` for the committed runs of ``runs``
    (name: provenance) apart from both their replication and the table they replaced: their
    code, where their points were re-keyed (:func:`memnb.provenance.rekey_origin`), since the
    code that computed them was not rerun. Runs that share one origin and chain are named
    together ("the code: their points (all seven: `a` → `b`) were computed by code that was not
    rerun, and carried to the fingerprint they record through 11 re-keys (…)"); '' when none
    was re-keyed."""
    from memnb.provenance import rekey_origin

    origins = {name: origin for name, provenance in runs.items()
               if (origin := rekey_origin(provenance)) is not None}
    if not origins:
        return ""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for name, (source, target, chain, _) in origins.items():
        groups.setdefault((source, target, chain), []).append(name)
    if len(groups) == 1:
        (source, target, chain), = groups
        pair = f"`{source}` → `{target}`"
        count = len(origins)
        small = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
        every = ("both" if count == 2 else
                 f"all {small[count - 1] if count <= len(small) else count}")
        who = (f"its points ({pair}) were" if len(runs) == 1
               else f"their points ({every}: {pair}) were" if count == len(runs)
               else f"the points of {', '.join(f'`{n}`' for n in origins)} ({pair}) were")
        return (f"the code: {who} computed by code that was not rerun, and carried to the "
                f"fingerprint {'it records' if len(runs) == 1 else 'they record'} {chain}")
    each = "; ".join(f"{', '.join(f'`{n}`' for n in names)}: `{source}` → `{target}` {chain}"
                     for (source, target, chain), names in groups.items())
    return ("the code: their points were computed by code that was not rerun, and carried to "
            f"the fingerprint they record ({each})")


TRAINED: frozenset[str] = frozenset({
    "compare.capacity", "dana.appendix_depth", "dana.appendix_dim", "dana.appendix_layout",
    "dana.exp1", "dana.exp2", "dana.exp3", "dana.exp4", "dana.exp5", "dana.exp5_code",
    "dana.exp6", "dana.layout", "dana.layout_heads", "kajitsuka.capacity",
    "kajitsuka.imdb_curves", "kajitsuka.mnli_curves", "kajitsuka.random_curves",
    "kajitsuka.seq_len", "mahdavi.context", "mahdavi.head_dim", "mahdavi.heads",
    "mahdavi.nonshared", "mahdavi.regression", "mahdavi.saturation"})
"""The registered experiments whose points train models (``dana.exp4`` trains the grid of
``dana.exp1`` again and fits the slopes): training carries on any difference in the order the
hardware sums. With :data:`UNTRAINED` it names every registered experiment once (checked by
``tests/test_build_reproducibility.py``), so that a new experiment is placed by hand."""

UNTRAINED: dict[str, str] = {
    "kajitsuka.construction": "an explicit construction",
    "mahdavi.table1": "rank checks on representations of pretrained and random models",
    "mahdavi.table3": "rank checks on representations of pretrained and random models",
}
"""The registered experiments that train nothing, each with what it computes instead."""


def _kernel_level(device_name: Any) -> str | None:
    """The vector instruction set of torch's CPU kernels that a recorded device name gives
    (``AVX512`` in ``CPU (x86_64, AVX512, 2 threads)``), else ``None``: a name recorded before
    it was added (:func:`kernel_level_recorded`), a GPU's, or none."""
    name = str(device_name or "").strip()
    if not name.startswith("CPU ("):
        return None
    parts = name[len("CPU ("):name.find(")")].split(", ")
    return next((part for part in parts[1:] if part.isupper() and "thread" not in part), None)


def _recorded_kernel_levels(provenance: dict[str, Any]) -> set[str]:
    """:func:`_kernel_level` of a run's device and of every call of it that names one."""
    names = [provenance.get("device_name")] + [call.get("device_name")
                                               for call in provenance.get("invocations") or []]
    return {level for name in names if (level := _kernel_level(name)) is not None}


def _kernel_levels_by_experiment(results_root: Path | None = None) -> dict[str, set[str]]:
    """Every instruction set recorded by a full run of each experiment: the committed run, the
    tables it replaced (``superseded/``) and its replication, read from their provenance."""
    from memnb.paths import results_dir
    from memnb.reruns import replications_root
    from memnb.results import read_provenance

    root = Path(results_root or results_dir())
    found: dict[str, set[str]] = {}
    for folder in (root / "full", root / "full" / "superseded",
                   replications_root(results_root) / "full"):
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            provenance = read_provenance(path)
            name = str(provenance.get("experiment") or path.name.split(".json")[0])
            found.setdefault(name, set()).update(_recorded_kernel_levels(provenance))
    return found


class SlopesMeasured(NamedTuple):
    """What :func:`_slopes_across_instruction_sets` measured: its sentences on ``dana.exp4``,
    the runs apart whose difference from their replication it accounts for, and its sentences
    on the committed ``dana.exp1``'s own slopes."""

    text: str
    explains: tuple[str, ...] = ()
    first: str = ""
    largest: float | None = None  # the largest gap between the two instruction sets' slopes
    levels: tuple[str, ...] = ()  # the two instruction sets: dana.exp1's, dana.exp4's


def _slopes_across_instruction_sets(results_root: Path | None = None) -> SlopesMeasured:
    """``dana.exp4`` trains the grid of ``dana.exp1`` again and fits each seed's slope: where the
    replications of the two (same code as the committed runs) record two different instruction
    sets of their CPU kernels (:func:`_kernel_level`), the same code and points were computed
    on both. The sentences, with a leading space, give how far apart the two replications'
    per-seed slopes are (:func:`memnb.experiments.dana.head_slopes` of the accuracy the paper
    reports, for ``dana.exp1``), and how many of the committed ``dana.exp4`` table's slopes
    equal each side's (and those of the table ``dana.exp1``'s committed run replaced); they say
    that this pair is the one such measurement when no experiment's own full runs record two
    instruction sets (:func:`_kernel_levels_by_experiment`). Then the same for the committed
    ``dana.exp1``'s own slopes: where they equal neither side's, that the machine and, for
    points re-keyed (:func:`memnb.provenance.rekey_origin`), the code remain open. Empty when a
    table is missing, the code differs, or the two instruction sets are not both recorded and
    different."""
    from memnb.experiments import dana as exp
    from memnb.provenance import rekey_origin
    from memnb.reruns import replaced_result, replications_root
    from memnb.results import load

    again_root = replications_root(results_root)
    four, one = load("dana.exp4", "full", results_root), load("dana.exp1", "full", results_root)
    four_again = load("dana.exp4", "full", again_root)
    one_again = load("dana.exp1", "full", again_root)
    runs = (four, one, four_again, one_again)
    if any(run is None for run in runs) or not all("slope" in run.table
                                                   for run in (four, four_again)):
        return SlopesMeasured("")
    if len({run.provenance.get("code_fingerprint") for run in runs}) != 1:
        return SlopesMeasured("")
    level4 = _kernel_level(four_again.provenance.get("device_name"))
    level1 = _kernel_level(one_again.provenance.get("device_name"))
    if level4 is None or level1 is None or level4 == level1:
        return SlopesMeasured("")

    def fitted(table: pd.DataFrame) -> pd.Series:  # dana.exp4's per-seed slopes
        return table[table["kind"] == "slope"].set_index(["d", "seed"])["slope"]

    def slopes(table: pd.DataFrame) -> pd.Series:  # the same slopes of a dana.exp1 table
        return exp.head_slopes(exp.as_the_paper_reports(table)).set_index(["d", "seed"])["slope"]

    committed, on_four, on_one = fitted(four.table), fitted(four_again.table), slopes(
        one_again.table)
    shared = committed.index.intersection(on_four.index).intersection(on_one.index)
    if shared.empty:
        return SlopesMeasured("")
    largest = float((on_four[shared] - on_one[shared]).abs().max())

    def equal(other: pd.Series, to: pd.Series = committed) -> int:
        return int((to.reindex(shared) == other.reindex(shared)).sum())

    both = {name: levels for name, levels in _kernel_levels_by_experiment(results_root).items()
            if len(levels) > 1}
    pair = (" No experiment's own full runs record two, so this pair is the one measurement "
            "of what the instruction set changes." if not both else "")
    own = _recorded_kernel_levels(four.provenance)
    records = (f"records `{'`, `'.join(sorted(own))}`" if own
               else "records no instruction set")
    if not own and four.provenance.get("platform") and (
            four.provenance.get("platform") == one_again.provenance.get("platform")):
        records += (f" (its platform string is that of `dana.exp1`'s `{level1}` "
                    "replication)")
    replaced = replaced_result("dana.exp1", "full", results_root)
    earlier = ""
    if replaced is not None and "accuracy" in replaced.table:
        earlier = (f" (and those of the table `dana.exp1`'s committed run replaced in "
                   f"{equal(slopes(replaced.table))})")
    n = len(shared)
    settled = equal(on_one) == n and equal(on_four) < n
    which = (f" So its difference from its own replication is the one between `{level1}` and "
             f"`{level4}`." if settled else "")
    text = (f" `dana.exp4` trains the grid of `dana.exp1` again and fits the slope of accuracy "
            f"against heads for each seed. Its replication ran with `{level4}` kernels and "
            f"`dana.exp1`'s with `{level1}`: the same code and points on two recorded "
            f"instruction sets.{pair} The {n} per-seed slopes of the two replications differ by "
            f"up to {largest:.4f} (accuracy per head). The committed `dana.exp4`, which "
            f"{records}, equals the `{level1}` slopes in {equal(on_one)} of {n}{earlier} and "
            f"the `{level4}` ones in {equal(on_four)}.{which}")
    first = slopes(one.table)  # the committed dana.exp1's own slopes
    words = ""
    if first.index.intersection(shared).size == n:
        with_one, with_four = equal(on_one, first), equal(on_four, first)
        far = {level: float((first[shared] - side[shared]).abs().max())
               for level, side in ((level1, on_one), (level4, on_four))}
        if not with_one and not with_four:
            origin = rekey_origin(one.provenance)
            why = ("Its machine's kernels may have summed in an order unlike both; its record "
                   "does not name them." if origin is None else
                   "Either its machine's kernels summed in an order unlike both, or the code "
                   f"that computed its points (`{origin[0][:8]}…`, re-keyed, not rerun) gives "
                   "other numbers; the records do not tell which.")
            words = (f"The same slopes fitted to the committed `dana.exp1` equal neither "
                     f"replication's: 0 of the {n} "
                     f"`{level1}` ones and 0 of the {n} `{level4}` ones (up to "
                     f"{far[level1]:.4f} from the first, {far[level4]:.4f} from the second). "
                     + why)
        else:
            words = (f"The same slopes fitted to the committed `dana.exp1` equal the "
                     f"`{level1}` ones in {with_one} of {n} and the `{level4}` ones in "
                     f"{with_four}.")
    return SlopesMeasured(text, ("dana.exp4",) if settled else (), words, largest,
                          (level1, level4))


class Rejudgement(NamedTuple):
    """What the scorecard printed of its verdicts judged again on other tables (the
    replications, or the tables the committed runs replaced), read by :func:`_rejudged_on`."""

    chapter: str = ""  # the executed chapter (its notebook's stem) that printed it
    judged: int = 0  # verdicts judged again, a row that reads several runs once per run
    changed: int = 0  # those that change to another verdict
    several: int = 0  # rows that read several of the tables, judged again with each in turn
    undecided: int = 0  # those that cannot be decided there (`not run` on the other table)
    moved: str = ""  # each that changes, as the scorecard lists it; "" when none


def _rejudged_on_replications(executed: Sequence[Path]) -> Rejudgement | None:
    """The scorecard's verdicts judged again on the replications, read from the sentence an
    executed chapter printed (the scorecard's,
    :func:`memnb.scorecard.replaced.replications_table_markdown`, written by
    :func:`memnb.scorecard.replaced.rejudged_summary`: "Of the 24 verdicts judged again on the
    replications (…), none changes."); ``None`` when no executed chapter printed it."""
    return _rejudged_on(executed, "the replications")


def _rejudged_on(executed: Sequence[Path], tables: str) -> Rejudgement | None:
    """What the first executed chapter that printed it says of its verdicts judged again on
    ``tables`` (``"the replications"``, ``"the replaced tables"``: the words of
    :func:`memnb.scorecard.replaced.rejudged_summary`): the chapter, how many were judged,
    how many changed, how many rows read several of the tables, how many cannot be decided
    there and the list of the changes as printed; ``None`` when no executed chapter printed
    it."""
    import re

    head = re.compile(rf"Of the (\d+) verdicts? judged again on {re.escape(tables)}"
                      r"(?: \((?:(\d+) rows? reads? several )?.*?\))?, "
                      r"(?:none changes|(\d+) changes?(?=: ))", re.S)
    for path in executed:
        if not Path(path).is_file():
            continue
        for cell in nbformat.read(path, as_version=4).cells:
            for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
                data = output.get("data", {})
                text = str(data.get("text/markdown") or output.get("text") or "")
                found = head.search(text)
                if not found:
                    continue
                rest = text[found.end():]
                rest = rest[:rest.find("Of the ")] if "Of the " in rest else rest
                # the changes end at the first ")." that ends a sentence: each is listed as
                # "label (status on the committed run, status on the other one…)"
                moved = re.match(r": (.*?\))\.(?=\s|$)", rest, re.S) if found[3] else None
                undecided = re.search(r"(\d+) cannot be decided on ", rest)
                return Rejudgement(Path(path).stem, int(found[1]), int(found[3] or 0),
                                   int(found[2] or 0), int(undecided[1]) if undecided else 0,
                                   moved[1] if moved else "")
    return None


def _threads(device_name: Any) -> str:
    """The threads a recorded device name gives (``2 threads`` of ``CPU (x86_64, AVX512, 2
    threads)``, ``1 thread`` of ``CPU (x86_64, 1 threads)``; a dask cluster's workers and
    threads), else ``threads not recorded``."""
    name = _device(device_name)
    if "dask cluster: " in name:
        return "a dask cluster of " + name.split("dask cluster: ", 1)[1]
    inside = name[name.find("(") + 1:name.rfind(")")] if "(" in name else ""
    return next((part for part in reversed(inside.split(", ")) if "thread" in part),
                "threads not recorded")


def _setup(provenance: dict[str, Any]) -> tuple[str, str, str]:
    """``(code, threads, arithmetic)`` of a recorded run: the first 8 digits of the fingerprint
    of the code that computed its points (before any re-key,
    :func:`memnb.provenance.rekey_origin`), its threads (:func:`_threads`) and how it treated
    denormals (:func:`memnb.provenance.arithmetic_label`)."""
    from memnb.provenance import arithmetic_label, rekey_origin

    origin = rekey_origin(provenance)
    code = str(origin[0] if origin is not None else provenance.get("code_fingerprint") or "?")
    return (f"code `{code[:8]}…`", _threads(provenance.get("device_name")),
            arithmetic_label(provenance))


def _setups_words(setups: dict[str, tuple[str, str, str]]) -> str:
    """The :func:`_setup` of several runs (by experiment) in words: the most common one, then, in
    parentheses, each other with the experiments that ran it (``code `a…`, 1 thread, IEEE
    denormals (for `dana.exp5_code`: code `b…`, …)``)."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for name, setup in setups.items():
        groups.setdefault(setup, []).append(name)
    order = sorted(groups, key=lambda setup: -len(groups[setup]))
    others = "; ".join(f"for {', '.join(f'`{n}`' for n in groups[setup])}: {', '.join(setup)}"
                       for setup in order[1:])
    return ", ".join(order[0]) + (f" ({others})" if others else "")


ACCURACY_NAMES: dict[str, str] = {"accuracy_last_batches": "the accuracy Dana et al. report"}
"""How the page names the accuracy column a replication is compared in first, where it is
``accuracy_last_batches`` (Dana et al.'s, :data:`memnb.reruns.COMPARED_COLUMNS`)."""

ACCURACY_COLUMNS: dict[str, str] = {
    "accuracy_last_batches": "the mean over the last training batches",
    "accuracy": "the best checkpoint's",
    "accuracy_all_contexts": "on all contexts"}
"""The accuracy columns a replication is compared in, beside the one of
:func:`memnb.reruns.compared_column`, each with what it holds in the tables that have
``accuracy_last_batches`` (Dana et al.'s: :func:`memnb.experiments.dana.as_the_paper_reports`)."""


def _accuracy_gaps(compared: Sequence[Any]) -> dict[str, tuple[str, float]]:
    """For each accuracy column (:data:`ACCURACY_COLUMNS`), the replication of ``compared``
    (:func:`memnb.scorecard.replaced.replications`, same code) that moves it most against its
    committed run, matched point by point (:func:`memnb.reruns.gap_between`), and by how much;
    the column :func:`memnb.reruns.compared_column` picks first."""
    from memnb.reruns import compared_column, gap_between

    found: dict[str, tuple[str, float]] = {}
    for r in compared:
        first = compared_column(r.current.table, r.again.table)
        if first is None:
            continue
        for column in dict.fromkeys([first, *ACCURACY_COLUMNS]):
            if column not in r.current.table or column not in r.again.table:
                continue
            gap = gap_between(r.name, "full", r.current, r.again, column=column)
            if gap is not None and gap.recomputed and (
                    column not in found or gap.largest > found[column][1]):
                found[column] = (r.name, gap.largest)
    return found


def _state_counts(committed: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """The committed full runs (name: provenance) by which code computed their points: today's,
    re-keyed, or earlier code not re-keyed (:func:`code_state`), in that order, each state
    with its runs; a state no run is in is left out."""
    states: dict[str, list[str]] = {TODAYS_CODE: [], REKEYED: [], NOT_REKEYED: []}
    for name, provenance in committed.items():
        state = code_state(name, provenance)
        key = (state if state == TODAYS_CODE else NOT_REKEYED if state.startswith("earlier")
               or state == "not recorded" else REKEYED)
        states[key].append(name)
    return {state: names for state, names in states.items() if names}


def rerun_section(results_root: Path | None = None, rejudged: Rejudgement | None = None,
                  scorecard: str = "the scorecard page") -> str:
    """The section "Will a rerun give the same numbers?". First the answer in short, computed:
    on the same machine, the tests; between a committed run and its replication, the largest
    difference of each accuracy column (:func:`_accuracy_gaps`) and, from ``rejudged`` (the
    scorecard's verdicts judged again on the replications, :func:`_rejudged_on_replications`),
    whether a verdict moved, else where the scorecard says it (``scorecard``: the words, or the
    link, naming its page); on a GPU, whether a replication ran on one; the committed full runs
    that have no replication, those computed on a GPU named. Then what the tests check on one
    machine, how to compute a committed run again (a replication; ``--device cuda`` for a run
    of a GPU; ``--rerun`` for a run of earlier code not re-keyed, which no replication can
    match, :func:`_state_counts`), and every replication (ours) against its committed full run
    (:func:`memnb.scorecard.replaced.replications`), with the device each names and whether
    its experiment trains (:data:`TRAINED`); for runs apart from both their replication and the
    table they replaced, what is measured and the explanations that remain open
    (:func:`_code_explanation`); and the one pair of instruction sets measured
    (:func:`_slopes_across_instruction_sets`), before what the replaced table of a run it
    explains says."""
    from memnb.dana_reading import rekeys_listed_words
    from memnb.experiments.registry import load_all
    from memnb.prose import counted
    from memnb.provenance import arithmetic_label, rekey_origin
    from memnb.reruns import replications_root
    from memnb.results import read_provenance, result_paths
    from memnb.scorecard.replaced import replications

    folder = replications_root(results_root) / "full"
    names = sorted(path.stem for path in folder.glob("*.json"))
    found = replications([], names, results_root)
    compared = [r for r in found if r.same_code]

    def listed(group: Sequence[str]) -> str:
        return ", ".join(f"`{name}`" for name in group)

    gaps = _accuracy_gaps(compared)
    first = next((column for column in gaps if column == "accuracy_last_batches"),
                 next(iter(gaps), None))  # the column compared_column picks first
    committed = {}
    for name in sorted(load_all()):
        path = result_paths(name, "full", results_root)[1]
        if path.is_file():
            committed[name] = read_provenance(path)
    unreplicated = [name for name in committed if name not in names]
    on_gpu = [name for name in unreplicated
              if arithmetic_label(committed[name]) == "GPU arithmetic"]

    short = ("On the same CPU machine, yes: the same code, profile and seeds give the same "
             "table, cell for cell (tested, below).")
    if first is not None:
        widest, largest = gaps[first]
        what = (f"{ACCURACY_NAMES[first]} ({ACCURACY_COLUMNS[first]})"
                if first in ACCURACY_NAMES else "an accuracy")
        short += (f" Between a committed run and its replication, {what} moves by up to "
                  f"{largest:.3f} (`{widest}`, `{first}`: an accuracy is a fraction of the "
                  f"examples, so {100 * largest:.1f} percentage points).")
        others = [(column, *gaps[column]) for column in ACCURACY_COLUMNS
                  if column in gaps and column != first]
        if others:
            where = {name for _, name, _ in others}
            short += (" The other accuracies these tables record move by up to "
                      + and_words([f"{gap:.3f} (`{column}`, {ACCURACY_COLUMNS[column]}"
                                   + (f", `{name}`" if len(where) > 1 else "") + ")"
                                   for column, name, gap in others])
                      + (f", in `{next(iter(where))}`" if len(where) == 1 else "") + ".")
        short += " Why they differ is not recorded (below)."
        if rejudged is not None:
            short += (f" The scorecard judges {rejudged.judged} verdicts again on the "
                      "replications. " + " ".join(_rejudged_words(rejudged, "the replication")))
        else:
            short += (f" {scorecard[0].upper()}{scorecard[1:]} judges again every verdict "
                      "that reads a replicated run, below its table of replications.")
    gpu = [r.name for r in compared if arithmetic_label(r.again.provenance) == "GPU arithmetic"]
    short += (" On a GPU: not measured, since no replication ran on one." if not gpu else
              f" On a GPU: measured for {listed(gpu)}, in the table below.")
    if committed:
        short += (f" {len(unreplicated)} of the {len(committed)} committed full runs have no "
                  f"replication" + (f" ({listed(unreplicated)})" if unreplicated else "")
                  + (f", {len(on_gpu)} of them computed on a GPU ({listed(on_gpu)})"
                     if on_gpu else "") + ".")
    measured = _slopes_across_instruction_sets(results_root)
    moved = ("" if measured.largest is None else
             f" (`dana.exp4`: `{measured.levels[0]}` against `{measured.levels[1]}`, slopes "
             f"apart by up to {measured.largest:.4f})")
    if first is not None:
        moved += (f". Between committed runs and their replications, for a reason not "
                  f"recorded, {ACCURACY_NAMES.get(first, 'an accuracy')} moves by up to "
                  f"{gaps[first][1]:.3f}")
    lines = [
        "## Will a rerun give the same numbers?",
        "",
        f"**In short.** {short}",
        "",
        "Every random draw of a point comes from seeds fixed by its parameters (its `seed` "
        "column among them). On one CPU machine the same code, profile and seeds give the "
        f"same table, cell for cell: `{RERUN_TESTS[0]}` computes one experiment "
        "of each paper twice from scratch at the `ci` profile, the second time in a process of "
        "its own, and requires equal tables, and "
        f"`{RERUN_TESTS[1]}` requires a run paused at a time limit and resumed to train "
        "bit for bit as an uninterrupted one. On another machine the numbers can change: a "
        "CPU whose torch kernels use another vector instruction set (`AVX2`, `AVX512`, …) or "
        f"a GPU sums in another order, and training carries such differences on{moved}. To "
        "measure it for a committed full run, compute it again as a *replication* (ours):",
        "",
        "```bash",
        "MEMNB_RESULTS_DIR=data/results/replications memnb run EXPERIMENT --profile full",
        "```",
        "",
        _rerun_how_words(committed, scorecard),
        "",
    ]
    if not compared:
        return "\n".join(lines + ["No replication is committed yet.", ""])
    equal = [r.name for r in compared if r.equal]
    apart = [r.name for r in compared if not r.equal]

    # review (session 75): a replication re-keyed since it was computed carries the committed
    # run's fingerprint without having been computed by that code; it is named apart
    rekeyed = [r.name for r in compared if rekey_origin(r.again.provenance) is not None]
    if not rekeyed:
        code = "each computed by the code whose fingerprint the committed run records"
    elif len(rekeyed) == len(compared):
        code = ("each re-keyed to the fingerprint the committed run records (computed by "
                "earlier code)")
    else:
        code = (f"each computed by the code whose fingerprint the committed run records but "
                f"{listed(rekeyed)}, which {'was' if len(rekeyed) == 1 else 'were'} computed "
                "by earlier code and re-keyed to it")
    summary = f"{counted(len(compared), 'replication')} of committed full runs, {code}: "
    parts = []
    if equal:
        parts.append(f"{len(equal)} equal to the committed run on everything compared "
                     f"({listed(equal)})")
    if apart:
        parts.append(f"{len(apart)} apart from it ({listed(apart)})")
    training = ""
    untrained = [name for name in equal if name in UNTRAINED]
    if equal and len(untrained) == len(equal):
        kinds: dict[str, list[str]] = {}
        for name in untrained:
            kinds.setdefault(UNTRAINED[name], []).append(name)
        which = "; ".join(f"{listed(group)}: {kind}" for kind, group in kinds.items())
        training = (f" The {counted(len(equal), 'equal table')} train nothing ({which})"
                    + ("" if not apart else
                       f"; every one of the {len(apart)} apart comes from training"
                       if all(name in TRAINED for name in apart) else
                       f"; of the {len(apart)} apart, "
                       f"{sum(name in TRAINED for name in apart)} come from training") + ".")
    lines += [summary + "; ".join(parts) + "." + training + " Accuracies are compared point "
              "by point, a table without one cell by cell:", "",
              markdown_table(
                  ["experiment", "committed run (device)", "replication (device, date)",
                   "compared"],
                  [(f"`{r.name}`", _devices(r.current.provenance,
                                            r.current.provenance.get("device_name")),
                    f"{_devices(r.again.provenance, r.again.provenance.get('device_name'))}, "
                    f"{str(r.again.provenance.get('started_utc') or '')[:10]}",
                    r.apart) for r in compared]), ""]
    rekeyed = [r.name for r in compared if r.current.provenance.get("code_fingerprint_rekeys")
               or rekey_origin(r.current.provenance) is not None]
    if rekeyed:
        which = ("this run" if len(compared) == 1
                 else f"all {len(compared)} of these runs" if len(rekeyed) == len(compared)
                 else f"{len(rekeyed)} of these {len(compared)} runs")
        unlisted = [r.name for r in compared
                    if (origin := rekey_origin(r.current.provenance)) is not None and origin[3]]
        where = ("" if not unlisted or len(unlisted) == len(rekeyed) == 1
                 else "every one of these runs" if len(unlisted) == len(rekeyed)
                 else f"{len(unlisted)} of these runs ({listed(unlisted)})")
        lines += [f"The committed points of {which} ({listed(rekeyed)}) are *re-keyed* (see "
                  "*Words used*, above): computed by earlier code, then carried to the "
                  "fingerprint they record by re-keys (`scripts/rekey_cache.py`; "
                  f"{CACHE_KEYED_LINK}). "
                  + rekeys_listed_words(unlisted, where) + ".", ""]
    both = [r for r in compared if not r.equal and r.against_replaced
            and r.against_replaced.committed_apart]
    if both:
        lines += [_apart_from_both_words(both, apart, results_root), ""]
    rest = [r for r in compared  # runs apart whose replaced table does not settle it
            if not r.equal and r.name not in [s.name for s in both]
            and r.against_replaced is not None]
    text = measured.text.strip()
    for r in rest:
        if r.name in measured.explains:  # the measurement first, then the replaced table
            text += (f" Set against the replication, the table `{r.name}`'s committed run "
                     f"replaced is {r.against_replaced.words}.")
        else:
            lines += [f"For `{r.name}`" + (", the other run apart" if both and len(rest) == 1
                                           else "")
                      + ", the table its committed run replaced does not settle where the "
                      f"difference comes from; set against the replication it is "
                      f"{r.against_replaced.words}.", ""]
    lines += [paragraph for found_text in (text, measured.first) if found_text
              for paragraph in (found_text, "")]
    other = [r.name for r in found if not r.same_code]
    if other:
        lines += [f"Not compared, computed by other code than the committed run: "
                  f"{listed(other)}.", ""]
    if not all(kernel_levels_recorded(r.current.provenance)
               and kernel_levels_recorded(r.again.provenance) for r in compared):
        lines += [_KERNEL_LEVEL_WORDS + ".", ""]
    return "\n".join(lines)


RUNNING_AT_SCALE = "[Running at scale](running_at_scale.md)"
"""A link to the page *Running at scale* (``book/running_at_scale.md``) from this page."""

CACHE_KEYED_LINK = ("{ref}`Running at scale, The packed sweep engine "
                    "<packed-sweep-engine>`, item *The cache is keyed by the code*")
"""A link to the item *The cache is keyed by the code* of *Running at scale* (its label)."""

FULL_RUNS_LINK = ("{ref}`Running at scale, Full-profile runs measured so far "
                  "<full-profile-runs>`")
"""A link to the section *Full-profile runs measured so far* of *Running at scale*."""


def _rerun_how_words(committed: dict[str, dict[str, Any]], scorecard: str) -> str:
    """The paragraph after the replication's command: what the next build does with it (and
    ``scorecard``, the words or link naming the scorecard's page), the device of the committed
    runs (name: provenance) computed on a GPU, and how many of the committed runs are of each
    state of code (:func:`_state_counts`), with the command that recomputes a run of earlier
    code not re-keyed, which a replication cannot match."""
    from memnb.provenance import arithmetic_label

    text = ("The next `make book` executes again every chapter that reads that run "
            "(`python book/build.py --only NAME` executes one chapter, `NAME` a notebook of "
            "`notebooks/`). It compares the replication with the committed run here and judges "
            f"again, on {scorecard}, every verdict that reads that run.")
    states = _state_counts(committed)
    if states:
        parts = [f"{len(names)} "
                 + (f"{'was' if len(names) == 1 else 'were'} computed by" if state == TODAYS_CODE
                    else "is" if len(names) == 1 else "are") + " "
                 f"{state if state != NOT_REKEYED else 'of ' + state}"
                 + (f" ({', '.join(f'`{n}`' for n in names)})" if state != "re-keyed" else "")
                 for state, names in states.items()]
        text += (f" Of the {len(committed)} committed full runs (see *Words used*, "
                 f"above), {and_words(parts)}.")
    earlier = states.get(NOT_REKEYED, [])
    if earlier:
        one = len(earlier) == 1
        text += (f" A replication by today's code is not compared with {'it' if one else 'them'}"
                 f" (other code). `memnb run NAME --profile full --rerun` recomputes "
                 f"{'it' if one else 'one'} by today's code instead, beside the committed table, "
                 "and keeps the earlier table under `data/results/full/superseded/` when "
                 "complete.")
    gpu = [name for name, provenance in committed.items()
           if arithmetic_label(provenance) == "GPU arithmetic"]
    if gpu:
        text += (f" Add `--device cuda` to {'either' if earlier else 'the'} command for a run "
                 "computed on a GPU (" + ", ".join(f"`{n}`" for n in gpu) + ").")
    return text


def _apart_from_both_words(both: Sequence[Any], apart: Sequence[str],
                           results_root: Path | None = None) -> str:
    """The paragraph on the runs apart from both their replication and the table they replaced
    (``both``, of the runs ``apart``): what is measured (the replaced table equals the
    replication; whether a kept table reproduces the committed one), what the records hold of
    the instruction sets, and the explanations that remain open (the machine, and the code
    where the points were re-keyed, :func:`_code_explanation`), in short sentences."""
    from memnb.prose import counted
    from memnb.reruns import cells_equal, point_keys
    from memnb.results import load_superseded

    def listed(group: Sequence[str]) -> str:
        return ", ".join(f"`{name}`" for name in group)

    others = 0  # the other recorded runs of these tables: replaced tables, replications
    reproduced = []
    for r in both:
        kept = load_superseded(r.name, "full", results_root)
        others += len(kept) + 1
        keys = point_keys(r.name, "full") or ()
        if any(cells_equal(r.current.table, e.table, keys) for e in kept):
            reproduced.append(r.name)
    named = [r.name for r in both]
    many = len(both) > 1
    setups = {r.name: (_setup(r.against_replaced.replaced), _setup(r.again.provenance))
              for r in both}
    varied = [what for k, what in enumerate(("the code changes between those two",
                                             "the thread count", "the denormal mode"))
              if any(then[k] != now[k] for then, now in setups.values())]
    each = "each committed run" if many else "the committed run"
    text = (f"For {len(both)} of the {len(apart)} runs apart ({listed(named)}), the table "
            f"{each} replaced equals its replication in every cell. The replaced "
            f"table{'s' * many} ran with "
            f"{_setups_words({n: t for n, (t, _) in setups.items()})}. The "
            f"replication{'s' * many} ran with "
            f"{_setups_words({n: a for n, (_, a) in setups.items()})}."
            + (f" So {and_words(varied)} moved no number." if varied else "")
            + (" None of the " + counted(others, "other recorded run") + " of these tables "
               "(the tables replaced, the replications) reproduces the committed one."
               if not reproduced else
               f" A table kept under `superseded/` reproduces the committed one for "
               f"{listed(reproduced)}."))
    platforms = {(r.current.provenance.get("platform"),
                  r.against_replaced.replaced.get("platform")) for r in both}
    same = all(now and now == then for now, then in platforms)
    plain = [r for r in both if not _recorded_kernel_levels(r.current.provenance)
             and not _recorded_kernel_levels(r.against_replaced.replaced)]
    theirs = sorted(set().union(*(_recorded_kernel_levels(r.again.provenance) for r in both)))
    if len(plain) == len(both):
        text += (f"\n\nWhy the committed run{'s are' if many else ' is'} apart is not recorded."
                 + ((" Each committed run records" if many else " The committed run records")
                    + " the same platform string as the table it replaced"
                    + (f" (`{next(iter(platforms))[0]}`)" if len(platforms) == 1 else "") + "."
                    if same else "")
                 + (" Neither the committed run nor the table it replaced names the vector "
                    "instruction set of its CPU kernels" if not many else
                    f" Neither the {len(both)} committed runs nor the tables they replaced "
                    "name the vector instruction set of their CPU kernels")
                 + (f" (the replication{'s' * many} name{'' if many else 's'} "
                    f"`{'`, `'.join(theirs)}`)" if theirs else "") + ".")
    else:  # some name it: what they record
        now = sorted(set().union(*(_recorded_kernel_levels(r.current.provenance)
                                   for r in both)))
        text += (f"\n\nThe committed run{'s' * many} record{'' if many else 's'} "
                 + (f"`{'`, `'.join(now)}`" if now else "no instruction set")
                 + " for the CPU kernels, the replication" + "s" * many + " "
                 + (f"`{'`, `'.join(theirs)}`" if theirs else "none") + ".")
    code = _code_explanation({r.name: r.current.provenance for r in both})
    if code:
        text += (" Two explanations remain open. One is the machine the committed "
                 f"run{'s' * many} ran on: {'their' if many else 'its'} kernels may have summed "
                 f"in another order. The other is {code}.")
    else:
        text += (" The difference is read as one of the machine the committed run ran on, its "
                 "kernels summing in another order, not of its code.")
    return text


def _superseded_key_words() -> str:
    """The sentence saying whether the tables kept under ``data/results/full/superseded/`` are
    part of a chapter's key (:func:`buildtools.keys.result_files`, asked for a table kept there
    in a folder of its own): they are not, so a change to one alone executes no chapter
    again."""
    import tempfile

    from buildtools.keys import result_files

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        kept = root / "full" / "superseded" / "x.y.0123456789abcdef.csv"
        kept.parent.mkdir(parents=True)
        kept.write_text("")
        (root / "full" / "x.y.csv").write_text("")
        keyed = kept in result_files(["x.y"], "quick", root)
    if keyed:
        return ("The tables kept under `data/results/full/superseded/` are part of that key "
                "too.")
    return ("The tables kept under `data/results/full/superseded/`, which the chapters read "
            "too, are not part of that key: a change to one of them alone executes no chapter "
            "again.")


ENVIRONMENT_FIELDS: tuple[tuple[str, str], ...] = (
    ("python", "Python"), ("torch", "torch"), ("numpy", "numpy"), ("platform", "platform"),
    ("cpu", "CPU"), ("gpu", "GPU"), ("commit", "commit"))


def page_markdown(executed: Sequence[Path], results_root: Path | None = None) -> str:
    """The whole page for the executed chapters ``executed`` (in reading order): an
    introduction and the words it uses, the rerun section (:func:`rerun_section`, with the
    scorecard's verdicts judged again on the replications, :func:`_rejudged_on_replications`),
    a section per chapter (a chapter whose results all appear in other chapters' tables points
    to them instead of repeating them, :func:`_listed_in_others`) and the environment, one row
    per set of chapters executed alike, with the results whose provenance records other
    versions (:func:`_other_versions`)."""
    records = [chapter_record(path) for path in executed]
    lines = [
        "# How each page was produced",
        "",
        "*This page is generated by `book/build.py` at every build, from papermill's record in "
        "each executed chapter and from the provenance stored beside each cached result "
        "(`data/results/<profile>/<experiment>.json`, and "
        "`data/results/replications/full/<experiment>.json` for a replication (ours): a "
        "committed full run computed again by code of the fingerprint it records, which the "
        "chapters read beside it; the seeds are counted in the result table itself, as its "
        "distinct `seed` values where it has that column). "
        "A full run that is partial, that today's code did not compute, or whose points were "
        "computed by earlier code and *re-keyed* (see *Words used below*; "
        f"{CACHE_KEYED_LINK}) says so in its row. "
        "A chapter is executed again only when its notebook, the `memnb` code, the profile, the "
        "device, the cached results it reads (replications included), the dataset files, the "
        "papers' files or the installed packages change; otherwise the build reuses the executed "
        f"copy described here. {_superseded_key_words()}*",
        "",
        "Words used below. *papermill* is the tool that executes each chapter's notebook and "
        "records the time of each cell. A *point* is one cell of an experiment's grid (one "
        "setting of its parameters and one seed) with its rows of results; each point is "
        "cached in a file of its own (the *point cache*), so that a stopped run continues where "
        "it stopped. A *code fingerprint* is a hash of the source of the code that computes a "
        "point (comments and docstrings left out); it is part of each cached point's key, so a "
        "point is reused only by code of the same fingerprint: the code that computed it, or "
        "code a re-key judged equivalent. A *re-key* gives the cached points "
        "of earlier code the fingerprint of changed code without computing them again, on the "
        "judgement that the change moves no number: reviewed by hand (`--reviewed`), or checked "
        "by the *syntax-tree script* (`scripts/rekey_cache.py --from-commit`, which requires "
        "the two versions of the code to be the same once every string is blanked). Either "
        "way it is a judgement, not a proof: the script cannot see a change to a string the "
        "code computes with. The "
        "*docstring rule* is the re-key made when the fingerprint stopped counting docstrings: "
        "the same code, hashed anew. A run's `corrections` are sentences written by hand in its "
        "provenance, each saying what was changed in its recorded history and why.",
        "",
        "The column *code* of the tables of results says which code computed a run's points. "
        f"*{TODAYS_CODE[0].upper()}{TODAYS_CODE[1:]}*: the code of this checkout, whose "
        f"fingerprint the run records. *{REKEYED[0].upper()}{REKEYED[1:]}*: earlier code, "
        "whose points were carried to "
        "today's fingerprint by re-keys (counted, with those reviewed by hand); a run treats "
        "them as today's, on the judgement each re-key records. "
        f"*{NOT_REKEYED[0].upper()}{NOT_REKEYED[1:]}*: no re-key carried its points, so a run "
        "of today's code does not reuse them, and nothing records that today's code gives the "
        "same numbers.",
        "",
        "In the tables of results: a *fresh* run is one at the chapter's own profile (`quick` by "
        "default), computed by the build or read from this checkout's point cache "
        "(`data/results/<profile>/`, not committed: a fresh clone computes it); *full (cached)* "
        "is a committed full-scale run. The *wall time* adds the calls of a run that computed "
        "points; a call that computed none is left out and, unless it took no measurable time, "
        "named beside it (records written before each call recorded its count of points "
        "computed add every call), and a run's `corrections` in its "
        "provenance say where a recorded time is known to be off. In the table *Environment*, "
        "a commit followed by *+ uncommitted changes* ran with a working tree that differed from "
        "that commit: the executed copy's build key (`<chapter>.key.json` beside it) records a "
        "hash of the notebook and of the "
        "`memnb` code it ran, which identifies that code but does not hold it.",
        "",
        rerun_section(results_root, _rejudged_on_replications(executed),
                      "[the scorecard page](chapters/scorecard.ipynb)"
                      if any(r["name"] == "scorecard" for r in records)
                      else "the scorecard page"),
    ]
    if not records:
        lines += ["No chapter has been executed yet (`make book` executes them).", ""]
    tables = [results_table(record["experiments"], record["profile"], results_root)
              for record in records]
    replaced = _rejudged_on(executed, "the replaced tables")
    for record, results, listed_in in zip(records, tables, _listed_in_others(records, tables),
                                          strict=True):
        lines.append(chapter_section(record, results, listed_in,
                                     replaced if replaced and replaced.chapter == record["name"]
                                     else None, read_in_place(record, results_root)))
    from memnb.experiments.registry import load_all

    kept = superseded_section(sorted(load_all()), results_root, executed)
    if kept:
        lines.append(kept)
    if records:
        groups: dict[tuple[str, ...], list[str]] = {}
        for r in records:
            groups.setdefault(tuple(r["environment"].get(f, "unknown")
                                    for f, _ in ENVIRONMENT_FIELDS), []).append(r["name"])
        alike = len(groups) == 1 and len(records) > 1
        versions = _other_versions(records, tables)
        lines += ["## Environment", "",
                  ("Every chapter was executed with the same machine and versions:" if alike
                   else "The machine and versions each chapter was executed with:"), "",
                  markdown_table(["chapter", *(label for _, label in ENVIRONMENT_FIELDS)],
                                 [("all chapters" if alike else ", ".join(names), *values)
                                  for values, names in groups.items()]), ""]
        if versions:
            lines += [versions, ""]
    return "\n".join(lines)


def _listed_in_others(records: Sequence[dict[str, Any]],
                      tables: Sequence[list[dict[str, Any]]]) -> list[dict[str, int] | None]:
    """For each chapter of ``records`` (with its :func:`results_table` rows in ``tables``),
    ``None`` when its table of results is shown, else the chapters whose shown tables list its
    results (title before any parenthesis: how many of its results each lists): a chapter whose
    every result (experiment and kind of run) is listed by chapters shown, deciding the largest
    tables first, so that the scorecard, which reads every chapter's results, does not repeat
    them and no result goes unlisted."""
    keys = [{(row["experiment"], row.get("run_kind", row["run"])) for row in rows}
            for rows in tables]
    hidden: set[int] = set()
    for i in sorted(range(len(keys)), key=lambda k: -len(keys[k])):
        shown = [keys[j] for j in range(len(keys)) if j != i and j not in hidden]
        if keys[i] and keys[i] <= set().union(*shown):
            hidden.add(i)
    found: list[dict[str, int] | None] = []
    for i, own in enumerate(keys):
        found.append(None if i not in hidden else {
            str(records[j]["title"]).split(" (")[0]: len(own & keys[j])
            for j in range(len(keys)) if j not in hidden and own & keys[j]})
    return found


def _other_versions(records: Sequence[dict[str, Any]],
                    tables: Sequence[list[dict[str, Any]]]) -> str:
    """One sentence naming the results drawn (:func:`results_table` rows in ``tables``, one list
    per chapter of ``records``) whose provenance records another Python or torch version than
    the environment of the chapter that draws them, grouped by kind of run and versions; ""
    when none does. A result whose provenance records no version is counted apart."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    unrecorded: set[str] = set()
    builds = set()
    for record, rows in zip(records, tables, strict=True):
        here = (record["environment"].get("python"), record["environment"].get("torch"))
        if None in here:
            continue
        builds.add(here)
        for row in rows:
            theirs = (row.get("python"), row.get("torch"))
            if None in theirs:
                unrecorded.add(f"{row['experiment']} {row.get('run_kind', row['run'])}")
            elif theirs != here:
                names = groups.setdefault((row.get("run_kind", row["run"]), *theirs), [])
                if f"`{row['experiment']}`" not in names:
                    names.append(f"`{row['experiment']}`")
    if not groups:
        return ""
    against = (f"Python {next(iter(builds))[0]} and torch {next(iter(builds))[1]}"
               if len(builds) == 1 else "the versions of the chapter that draws them")
    each = "; ".join(f"the {kind} run{'s' if len(names) > 1 else ''} of "
                     + and_words(names)
                     + f" {'were' if len(names) > 1 else 'was'} computed with Python {python} "
                       f"and torch {torch}"
                     for (kind, python, torch), names in groups.items())
    whose = "its" if sum(len(names) for names in groups.values()) == 1 else "their"
    return (f"Not every result drawn was computed with {against}: {each}, as {whose} "
            "provenance records" + (f"; {len(unrecorded)} other results record no version"
                         if unrecorded else "") + ".")


def write_page(path: Path, text: str) -> bool:
    """Write ``text`` to ``path`` (creating its folder) unless it already holds it (keeps
    Sphinx's rebuild minimal)."""
    if path.is_file() and path.read_text() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return True

