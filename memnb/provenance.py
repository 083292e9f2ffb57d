"""How a result's provenance is described in words and tables: what the chapters, scorecards,
build pages and a run's own messages say about the JSON that :func:`memnb.results.run_experiment`
writes beside each table.

A provenance record holds facts (parameters, commits, devices, invocations, missing points);
this module says what they mean for a reader: which points a partial run lacks
(:func:`describe_points`, :func:`partial_summary`), how its parameters differ from today's
profile (:func:`profile_change`), which device, seeds and arithmetic computed it
(:func:`run_label`, :func:`arithmetic_label`), which commits and invocations computed its points
and which it only read (:func:`computing_invocation`, :func:`commit_points`,
:func:`points_not_timed`), and one row per result (:func:`provenance_summary`). It only reads
provenance: running experiments, their paths and caches stay in :mod:`memnb.results`, which
builds on this module.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd

from memnb.experiments.registry import get
from memnb.profiles import check_profile
from memnb.prose import counted, number_word


def short_commit(commit: object) -> str:
    """A recorded :func:`memnb.results.git_commit` as a page shows it: ``5be7fa7``, or ``5be7fa7 +
    uncommitted changes`` for a result computed from a checkout whose code differed from its
    commit (so that such a result never reads as computed by the commit alone)."""
    text = str(commit or "unknown")
    dirty = text.endswith("+uncommitted-changes")
    return text[:7] + (" + uncommitted changes" if dirty else "")


_GRID_AXES = ("seed", "H", "T", "N", "n", "d", "d_h", "blocks", "num_layers")


def describe_points(points: list[dict[str, Any]], grid_axes: tuple[str, ...] = ()) -> str:
    """The parameters that vary among ``points``, each with the values it takes (e.g.
    ``seed ∈ {3, 4}; H ∈ {4, 8}``): which part of a grid a list of points covers.

    A parameter that only mirrors another (``max_blocks`` equal to ``blocks`` point by point)
    is named once, and one that a grid axis determines (the step budget, a function of ``T``)
    is left out. The value sets are given only when the points are every combination of
    them; otherwise, where the seed varies, each seed's points are described on their own and
    seeds described alike are named together (``seed 0 at H ∈ {1, 5} and T = 40000 (2 points);
    seeds 1–4 at H ∈ {1, 5} and T ∈ {10000, 40000} (4 points a seed, 16 in all)``). Points of
    one seed name it (``seed = 4; H ∈ {4, 8}``). Points of a table of several paper figures
    (column ``figure``, App. B's three figures) are described figure by figure (``Fig. 6: ...;
    Fig. 7: ...``), the figure named when all are of one. Each of ``grid_axes`` (the axes the
    whole grid varies, e.g. the profile's list of d) that is one value among ``points`` is named
    first (``d = 13; H ∈ {1, 5}``): the points then lie on one slice of that axis, which is the
    news."""
    if not points:
        return "none"
    figures = list(dict.fromkeys(str(p.get("figure")) for p in points))
    if len(figures) > 1 or "figure" in points[0]:  # which figure is news even when one is left
        return "; ".join(
            f"{figure}: " + describe_points([{k: v for k, v in p.items() if k != "figure"}
                                             for p in points if str(p.get("figure")) == figure],
                                            grid_axes)
            for figure in figures)
    sliced = [k for k in grid_axes if k != "seed" and k in points[0]
              and len({_value(p, k) for p in points}) == 1]
    described = _describe_one_figure(points)
    if not sliced or len(points) == 1:  # one point is described whole
        return described
    return "; ".join([*(f"{k} = {_value(points[0], k)}" for k in sliced), described])


def _describe_one_figure(points: list[dict[str, Any]]) -> str:
    """:func:`describe_points` for points of one figure (or of no figure column)."""
    keys: list[str] = []
    for key in (k for k in points[0] if len({_value(p, k) for p in points}) > 1):
        mirrors = any(_determines(points, k, key) and _determines(points, key, k) for k in keys)
        if not mirrors:
            keys.append(key)
    # a parameter derived from a grid axis (the step budget from T) is not news of its own
    keys = [k for k in keys if k in _GRID_AXES or not any(
        a in _GRID_AXES and a != "seed" and _determines(points, a, k) for a in keys)]
    # nor one derived from several parameters named before it (an MLP's width from d and the
    # head count it stands for, App. B's Fig. 10), which would break their every-combination
    # (two or more of them: a single one is left to the mirror and grid-axis rules above)
    kept: list[str] = []
    for i, key in enumerate(keys):
        before = [a for a in keys[:i] if a != "seed"]
        if key in _GRID_AXES or len(before) < 2 or not _function_of(points, before, key):
            kept.append(key)
    keys = kept
    if not keys:  # one point (or copies of one): all of it if short, else its usual grid axes
        point = points[0]
        shown = point if len(point) <= 6 else {k: v for k, v in point.items() if k in _GRID_AXES}
        return ", ".join(f"{k} = {v}" for k, v in shown.items())
    values, product = _value_sets(points, keys)
    if "seed" in keys and not product:
        return _per_seed(points, [k for k in keys if k != "seed"])
    if not product:  # one seed (or none), not every combination: never the value sets alone
        blocks = _blocks_of(points, keys)
        text = (f"{blocks} ({len(points)} points)" if blocks else
                f"{len(points)} points, not every combination of {', '.join(keys)}")
        return f"seed = {_value(points[0], 'seed')}; {text}" if "seed" in points[0] else text
    sets = "; ".join(f"{k} ∈ {{{', '.join(v)}}}" for k, v in values.items())
    if "seed" in points[0] and "seed" not in keys:  # one seed's points: which seed is the news
        return f"seed = {_value(points[0], 'seed')}; {sets}"
    return sets


def _value(point: dict[str, Any], key: str) -> str:
    """``point[key]`` as JSON, comparable and printable whatever its type."""
    return json.dumps(point.get(key), default=str)


def _determines(points: list[dict[str, Any]], axis: str, key: str) -> bool:
    """Whether each value of ``axis`` among ``points`` comes with a single value of ``key``."""
    return _function_of(points, [axis], key)


def _function_of(points: list[dict[str, Any]], axes: list[str], key: str) -> bool:
    """Whether ``axes`` together give each of ``points`` a single value of ``key``."""
    pairs = {(tuple(_value(p, a) for a in axes), _value(p, key)) for p in points}
    return len(pairs) == len({combo for combo, _ in pairs})


def _value_sets(points: list[dict[str, Any]],
                keys: list[str]) -> tuple[dict[str, list[str]], bool]:
    """The values each of ``keys`` takes among ``points`` (sorted), and whether the points are
    every combination of them."""
    values = {k: sorted({_value(p, k) for p in points}, key=lambda v: (len(v), v)) for k in keys}
    combinations = len({tuple(_value(p, k) for k in keys) for p in points})
    return values, combinations == math.prod(len(v) for v in values.values())


def _per_seed(points: list[dict[str, Any]], keys: list[str]) -> str:
    """:func:`describe_points` for points that are not a product over the seeds: per seed, the
    value sets of ``keys`` (``H ∈ {4, 8}``, or ``T = 40000`` for one value) when that seed's
    points are every combination of them, and always the count; seeds described alike are named
    together (``seeds 1–4``)."""
    by_seed: dict[Any, list[dict[str, Any]]] = {}
    for p in points:
        by_seed.setdefault(p.get("seed"), []).append(p)
    alike: dict[tuple[str, int], list[Any]] = {}
    for seed in sorted(by_seed, key=lambda s: (s is None, s)):
        values, product = _value_sets(by_seed[seed], keys)
        text = " and ".join(f"{k} = {v[0]}" if len(v) == 1 else f"{k} ∈ {{{', '.join(v)}}}"
                            for k, v in values.items()) if product else _blocks_of(
                                by_seed[seed], keys)
        alike.setdefault((text, len(by_seed[seed])), []).append(seed)
    out = []
    for (text, n), seeds in alike.items():
        named = _compact([str(seed) for seed in seeds])
        who = f"seed {named}" if len(seeds) == 1 else f"seeds {named}"
        count = f"{n} point{'s' * (n != 1)}"
        if len(seeds) > 1:
            count += f" a seed, {n * len(seeds):,} in all"
        out.append(f"{who} at {text} ({count})" if text else f"{who} ({count})")
    return "; ".join(out)


_MOST_BLOCKS = 3
"""The most product blocks :func:`_blocks_of` names before it gives only the count."""


def _blocks_of(points: list[dict[str, Any]], keys: list[str]) -> str:
    """Points that are not every combination of ``keys``, as at most :data:`_MOST_BLOCKS`
    blocks that each are (``[d = 16, N = 600, blocks ∈ {14–20, 24, 28, …, 40}] and [...]``),
    split along the keys in order, the values of a key whose blocks read alike merged; ``""``
    when more blocks are needed. Runs of integers are shortened (:func:`_compact`)."""
    blocks = _split_blocks(points, keys)
    if blocks is None or len(blocks) > _MOST_BLOCKS:
        return ""
    return " and ".join("[" + ", ".join(f"{k} = {v[0]}" if len(v) == 1 else
                                        f"{k} ∈ {{{_compact(v)}}}" for k, v in block.items())
                        + "]" for block in blocks)


def _split_blocks(points: list[dict[str, Any]], keys: list[str]
                  ) -> list[dict[str, list[str]]] | None:
    values, product = _value_sets(points, keys)
    if product:
        return [values]
    axis = next((k for k in keys if len(values[k]) > 1), None)
    if axis is None:
        return None
    rest = [k for k in keys if k != axis]
    merged: list[tuple[list[str], list[dict[str, list[str]]]]] = []
    for value in values[axis]:
        inner = _split_blocks([p for p in points if _value(p, axis) == value], rest)
        if inner is None or len(inner) > _MOST_BLOCKS:
            return None
        if merged and merged[-1][1] == inner:
            merged[-1][0].append(value)
        else:
            merged.append(([value], inner))
    return [{axis: axis_values, **block} for axis_values, inner in merged for block in inner]


def _compact(values: list[str]) -> str:
    """Sorted integers with their runs shortened: ``0–20`` for three or more consecutive ones,
    ``600, 700, …, 1700`` for four or more evenly spaced ones; other values as they are."""
    if not all(v.lstrip("-").isdigit() for v in values):
        return ", ".join(values)
    numbers = sorted(int(v) for v in values)
    out, i = [], 0
    while i < len(numbers):
        j = i + 1
        if j < len(numbers):
            step = numbers[j] - numbers[i]
            while j + 1 < len(numbers) and numbers[j + 1] - numbers[j] == step:
                j += 1
            if step == 1 and j - i >= 2:
                out.append(f"{numbers[i]}–{numbers[j]}")
                i = j + 1
                continue
            if j - i >= 3:
                out.append(f"{numbers[i]}, {numbers[i] + step}, …, {numbers[j]}")
                i = j + 1
                continue
        out.append(str(numbers[i]))
        i += 1
    return ", ".join(out)


def _shown(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


def _written(value: Any) -> str:
    """A parameter's value as prose shows it: "not set" for a missing one, strings bare, lists
    in brackets (``[mlp_code]``), dicts as ``{key: value}``; not JSON, whose ``null`` and quotes
    read as code in a sentence."""
    if value is None:
        return "not set"
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + ", ".join(_written(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_written(v)}" for k, v in value.items()) + "}"
    return _shown(value)


def profile_change(provenance: dict[str, Any]) -> str | None:
    """How the parameters a result was computed with differ from today's profile of the same
    name (``None`` when they are the same, or the experiment or profile is unknown): a table
    computed before a profile changed is not today's grid, and must not read as if it were."""
    try:
        today = json.loads(json.dumps(get(provenance["experiment"]).params(
            provenance["profile"]), default=str))
    except (KeyError, ValueError):
        return None
    before = provenance.get("params") or {}
    changed = _changed_params(before, today)
    if not changed:
        return None
    return (f"computed under an earlier `{provenance['profile']}` profile ("
            + "; ".join(f"{k} {_written(then)}, today {_written(now)}"
                        for k, then, now in changed)
            + ")")


def _same_values(then: Any, now: Any) -> bool:
    """Whether two lists hold the same values, counted with multiplicity, in any order."""
    if not (isinstance(then, list) and isinstance(now, list)):
        return False
    return sorted(map(_shown, then)) == sorted(map(_shown, now))


def _changed_params(before: dict[str, Any], today: dict[str, Any],
                    prefix: str = "") -> list[tuple[str, Any, Any]]:
    """``(name, earlier value, today's value)`` of each parameter that differs; a parameter
    that is a dict on both sides (a training recipe) is compared key by key, so that only the
    entries that changed are named (``train.steps``). A list that holds the same values in
    another order (``widths``) is no change: it orders the points, it does not choose them, and
    a cached point is keyed by its own parameters, not by its place in the grid."""
    out: list[tuple[str, Any, Any]] = []
    for key in sorted(set(before) | set(today)):
        then, now = before.get(key), today.get(key)
        if then == now or _same_values(then, now):
            continue
        if isinstance(then, dict) and isinstance(now, dict):
            out += _changed_params(then, now, f"{prefix}{key}.")
        else:
            out.append((f"{prefix}{key}", then, now))
    return out


def partial_summary(provenance: dict[str, Any]) -> str | None:
    """One line saying which points a partial run computed and which it lacks, and how its
    parameters differ from today's profile (:func:`profile_change`: a complete run of an
    earlier profile holds today's grid only in part, and says only that); ``None`` for a
    complete run of today's profile."""
    changed = profile_change(provenance)
    if provenance.get("complete", True):
        return changed
    done, total = points_ran(provenance)
    varied = tuple(k for k, v in (provenance.get("params") or {}).items()
                   if isinstance(v, list) and len(v) > 1)
    return (f"partial: {done:,} of {total:,} points ran; missing "
            f"{describe_points(list(provenance.get('missing_points') or []), varied)}"
            + ("" if changed is None else f"; {changed}"))


def points_ran(provenance: dict[str, Any]) -> tuple[int, int]:
    """``(done, total)`` points of a partial run, from its provenance."""
    done = int(provenance.get("points_done") or 0)
    return done, done + len(provenance.get("missing_points") or [])


def cpu_denormals(provenance: dict[str, Any]) -> str:
    """How a result's CPU arithmetic treated denormal floats: its recorded ``cpu_denormals``
    (:func:`memnb.numerics.mode`), or ``"ieee"`` for runs recorded before memnb flushed them
    (those runs have no such field)."""
    return str(provenance.get("cpu_denormals", "ieee"))


def rekey_kinds(provenance: dict[str, Any]) -> list[str] | None:
    """The kind of each re-key that carried a result's points to the fingerprint it records,
    oldest first: ``"hand"`` (reviewed by hand, ``--reviewed``), ``"syntax"`` (checked by the
    syntax-tree script: "the code of commit …"), ``"docstring"`` (the docstring rule) or
    ``"other"``, read from each listed re-key's ``why``; the docstring rule's re-key, which the
    script does not list where the first listed ``from`` is not the fingerprint the points were
    computed with, comes first. None for a result computed by the code whose fingerprint it
    records (:func:`rekey_origin` words the same list)."""
    source = provenance.get("code_fingerprint_rekeyed_from")
    if not source or source == provenance.get("code_fingerprint"):
        return None
    listed = list(provenance.get("code_fingerprint_rekeys") or [])
    kinds = ["docstring"] if not listed or listed[0].get("from") != source else []
    for r in listed:
        why = str(r.get("why", ""))
        kinds.append("hand" if "reviewed by hand" in why else "docstring" if "docstring" in why
                     else "syntax" if "the code of commit" in why else "other")
    return kinds


def rekey_origin(provenance: dict[str, Any]) -> tuple[str, str, str, bool] | None:
    """Where a result's recorded code fingerprint came from when its points were re-keyed
    (``scripts/rekey_cache.py``): ``(fingerprint of the code that computed them, fingerprint
    recorded now, the re-keys between them in words, whether the first of them is missing from
    the provenance's code_fingerprint_rekeys)``; None for a result computed by the code whose
    fingerprint it records.

    The words count the whole chain by kind, read from each listed re-key's ``why``: "reviewed
    by hand" (``--reviewed``), checked by the syntax-tree script (``--from-commit`` alone: "the
    code of commit …"), or the docstring rule ("docstrings left out of the fingerprint"). The
    script lists a docstring-rule re-key only in a record that already lists one, so where
    ``code_fingerprint_rekeyed_from`` differs from the first listed ``from``, the re-key before
    it is that rule's (applied once, when the rule changed): "through 11 re-keys (the
    docstring rule, one checked by the syntax-tree script, nine reviewed by hand)", "through
    one re-key, reviewed by hand"."""
    kinds = rekey_kinds(provenance)
    if kinds is None:
        return None
    source = provenance["code_fingerprint_rekeyed_from"]
    target = provenance.get("code_fingerprint")
    # rekey_kinds adds the unlisted docstring-rule re-key to the listed ones
    unlisted = len(kinds) > len(provenance.get("code_fingerprint_rekeys") or [])
    one = {"docstring": "by the docstring rule", "syntax": "checked by the syntax-tree script",
           "hand": "reviewed by hand", "other": "for another reason"}
    counts = {kind: kinds.count(kind) for kind in one if kind in kinds}
    if len(kinds) == 1:
        words = f"through one re-key, {one[kinds[0]]}"
    elif len(counts) == 1:
        kind = kinds[0]
        words = (f"through {len(kinds)} re-keys, all "
                 + ("for other reasons" if kind == "other" else one[kind]))
    else:
        parts = []
        for kind, k in counts.items():
            parts.append("the docstring rule" if kind == "docstring" and k == 1
                         else f"{number_word(k)} for other reasons" if kind == "other" and k > 1
                         else f"{number_word(k)} {one[kind]}")
        words = f"through {len(kinds)} re-keys ({', '.join(parts)})"
    return str(source), str(target), words, unlisted


def _on_gpu(provenance: dict[str, Any]) -> bool:
    """Whether a result was computed on a GPU, whose arithmetic does not read the CPU's modes."""
    return str(provenance.get("device", "cpu")).startswith("cuda")


def arithmetic_label(provenance: dict[str, Any]) -> str:
    """How a result's floating-point arithmetic treated denormals, as the book writes it:
    ``"IEEE denormals"`` or ``"flushed denormals"`` (:func:`cpu_denormals`) for a run on the
    CPU, ``"GPU arithmetic"`` for one on a GPU (which does not read the CPU's modes)."""
    if _on_gpu(provenance):
        return "GPU arithmetic"
    mode = cpu_denormals(provenance)
    written = {"ieee": "IEEE", "flushed": "flushed"}.get(mode, mode)
    return f"{written} denormals"


def denormals_words(provenance: dict[str, Any]) -> str:
    """:func:`arithmetic_label` in plain words, for a reader who does not know the term:
    "denormal floats kept (IEEE)", "denormal floats flushed to zero", or "GPU arithmetic"; a
    CPU run recorded before memnb flushed them (no ``cpu_denormals`` field,
    :func:`cpu_denormals`) kept them, and the text says that this is not recorded."""
    if _on_gpu(provenance):
        return "GPU arithmetic"
    if "cpu_denormals" not in provenance:
        return ("denormal floats kept (IEEE; the run does not record this, but its code did "
                "not flush them yet)")
    mode = cpu_denormals(provenance)
    return {"ieee": "denormal floats kept (IEEE)",
            "flushed": "denormal floats flushed to zero"}.get(mode, f"denormal floats: {mode}")


def seeds_used(table: pd.DataFrame, provenance: dict[str, Any]) -> int | str:
    """How many seeds a result holds: the distinct values of its ``seed`` column when it has
    one (a check that draws with one fixed seed holds 1, whatever the profile's default count
    recorded as ``seeds``), else the provenance's ``seeds_run`` (the seeds run:
    :meth:`memnb.experiments.registry.Experiment.seeds_run`), or its ``seeds`` for a run
    recorded before that field."""
    if "seed" in table.columns and table["seed"].notna().any():
        return int(table["seed"].nunique())
    return provenance.get("seeds_run", provenance.get("seeds", "?"))


def device_shares(provenance: dict[str, Any]) -> dict[str, int]:
    """Points computed on each device, in order of first use, from the ``invocations`` of a
    resumed run (each records the points done when it ended and its ``device_name``); empty when
    the provenance lists none."""
    shares: dict[str, int] = {}
    done = 0
    for call in provenance.get("invocations") or []:
        if call.get("points_done") is None or call.get("device_name") is None:
            return {}  # a call recorded without its count (or card): the shares are unknown
        name = str(call["device_name"])
        shares[name] = shares.get(name, 0) + int(call["points_done"]) - done
        done = int(call["points_done"])
    return shares


def installed_packages() -> set[str]:
    """Every package installed beside the running Python, as lower-case ``name==version`` pins:
    the environment that a chapter's rebuild key (``book/build.py``) and the GPU queue's
    CUDA-test stamp (``scripts/gpu_queue.py``) hash, so that another torch, numpy or any other
    package counts as another environment in both."""
    import importlib.metadata

    return {f"{dist.metadata['Name']}=={dist.version}".lower()
            for dist in importlib.metadata.distributions()}


#: The kind of device, in words, of each kind of arithmetic :func:`memnb.results.device_kind`
#: names.
_DEVICE_KINDS = {"cuda": "GPU", "mps": "GPU", "cpu": "CPU"}


def device_words(provenance: dict[str, Any]) -> str:
    """The device a committed run was computed on, in words, for a chapter's list of runs: the
    kind of its ``device`` (GPU for ``cuda``) before :func:`device_label`, which names each card
    of a run resumed on several with the points it computed, and how many kinds of card one grid
    then ran on: ``"GPU: NVIDIA H200 (64 points) and NVIDIA H100 80GB HBM3 (24 points), 2 kinds
    of card for one grid"``, ``"CPU (x86_64, 2 threads)"``. Empty when the provenance names no
    device."""
    from memnb.results import device_kind  # results imports this module: imported here

    if not (provenance.get("device_name") or provenance.get("device")):
        return ""
    label = device_label(provenance)
    kind = _DEVICE_KINDS.get(device_kind(provenance.get("device", "")), "")
    text = label if not kind or label.startswith(kind) else f"{kind}: {label}"
    cards = len(device_shares(provenance))
    if cards > 1:
        text += f", {cards} kinds of {'card' if kind == 'GPU' else 'device'} for one grid"
    return text


def device_label(provenance: dict[str, Any]) -> str:
    """The device a result was computed on, as :func:`memnb.results.device_description` names
    it (runs recorded before it used the singular say ``1 threads``: shown as ``1 thread``). A
    run resumed on different cards names each with its points (:func:`device_shares`), e.g.
    ``"NVIDIA H200 (32 points) and NVIDIA H100 80GB HBM3 (16 points)"``: the last card alone
    would claim points it did not compute."""
    device = str(provenance.get("device_name", provenance.get("device", "?")))
    shares = device_shares(provenance)
    if len(shares) > 1:
        device = " and ".join(f"{name} ({counted(n, 'point')})" for name, n in shares.items())
    return re.sub(r"\b1 threads\b", "1 thread", device)


def run_label(table: pd.DataFrame, provenance: dict[str, Any]) -> str:
    """``"<device>, <n> seed(s)"`` for a result, e.g. ``"CPU (x86_64, 1 thread), 1 seed"``."""
    return f"{device_label(provenance)}, {counted(seeds_used(table, provenance), 'seed')}"


def points_not_timed(provenance: dict[str, Any]) -> int:
    """Points of a result read from the point cache that no invocation it records computed, so
    that its wall time does not cover them: the last invocation's ``cached_points_reused``, less
    the points done when the invocation before it ended (a resumed run's ``total_wall_time_s``
    includes the calls that computed those), plus the :func:`points_copied` from the run it
    replaced. A run resumed only from its own earlier calls counts 0; a table rebuilt from a
    cache filled elsewhere counts every point it read."""
    reused = int(provenance.get("cached_points_reused") or 0)
    calls = provenance.get("invocations") or []
    if len(calls) >= 2 and calls[-2].get("points_done") is not None:
        reused -= int(calls[-2]["points_done"])
    return max(reused, 0) + sum(points for _, points in points_copied(provenance))


class CopiedPoints(NamedTuple):
    """One link of :func:`copied_chain`: ``points`` point files copied from the table
    ``source``, by the result itself (``depth`` 0) or, in turn, by the run it copied from
    (``depth`` 1, …); ``commit`` and ``started`` name that run where it is the run the copier
    replaced (``rerun_of``, matched on the code fingerprint that ends ``source``), else ``None``."""

    points: int
    source: str
    commit: str | None
    started: str | None
    depth: int

    def run_words(self) -> str:
        """The run copied from, in words: "the run it replaced (commit 54b33aa, started …)",
        or the table's name where the run is not named by its commit."""
        if self.commit is None:
            return f"`{self.source}`"
        return f"the run it replaced (commit {self.commit}, started {self.started or '?'})"


def copied_chain(provenance: dict[str, Any], folder: Path | None = None) -> list[CopiedPoints]:
    """The :func:`points_copied` of a result, then, where the copied table's provenance
    (``<folder>/<source>.json``; ``folder`` defaults to the results folder of the result's
    profile) records points it copied in turn, those, depth first down the chain (a table seen
    twice is not followed again). Empty when none were copied. A copied table's provenance that
    cannot be read raises :class:`memnb.results.ResultFileError` naming it."""
    from memnb.paths import results_dir

    if folder is None:
        folder = results_dir() / str(provenance.get("profile") or "full")
    found: list[CopiedPoints] = []
    seen: set[str] = set()

    def follow(record: dict[str, Any], depth: int) -> None:
        replaced = record.get("rerun_of") or {}
        code = replaced.get("code_fingerprint")
        for source, points in points_copied(record):
            if source in seen:
                continue
            seen.add(source)
            named = bool(code) and source.endswith(f".{code}")
            found.append(CopiedPoints(
                points, source, short_commit(replaced.get("git_commit")) if named else None,
                replaced.get("started_utc") if named else None, depth))
            copied = _read_provenance(folder / f"{source}.json")
            if copied is not None:
                follow(copied, depth + 1)

    follow(provenance, 0)
    return found


def copied_words(provenance: dict[str, Any], folder: Path | None = None) -> str:
    """``"84 of its points were copied from the run it replaced (commit 54b33aa, started
    2026-11-27T12:21:09+00:00), not computed by it; that run had itself copied 33 of them from
    the run it replaced (commit aff3ad0 + uncommitted changes, started ...)"``: the
    :func:`copied_chain` of a result in words. Empty when none were copied. The evidence of a
    row reading those points names the runs that computed them."""
    return "; ".join(
        f"{link.points} of its points were copied from {link.run_words()}, not computed by it"
        if link.depth == 0 else
        f"that run had itself copied {link.points} of them from {link.run_words()}"
        for link in copied_chain(provenance, folder))


def _read_provenance(path: Path) -> dict[str, Any] | None:
    """The provenance record at ``path``, or ``None`` when there is no file there; one that
    cannot be read raises :class:`memnb.results.ResultFileError` naming it
    (:func:`memnb.results.read_provenance`), so that the runs that computed the points it
    copied are not lost unsaid."""
    from memnb.results import read_provenance  # results builds on this module

    return read_provenance(path) if path.exists() else None


def points_copied(provenance: dict[str, Any]) -> list[tuple[str, int]]:
    """``[("superseded/dana.appendix_layout.ee20886effcd5f24", 84)]``: the point files copied into
    a run's cache from the run it replaced before it started, as its provenance records them
    (``points_copied``, each with a sentence in ``corrections``): the run read those points, it
    did not compute them, and ``cached_points_reused`` does not count them (it counts only
    points of the run's own earlier invocations). Empty when none were copied."""
    return [(str(c["from"]), int(c["points"])) for c in provenance.get("points_copied") or []]


def points_added(provenance: dict[str, Any]) -> list[tuple[dict[str, Any], int]] | None:
    """Each recorded invocation that raised ``points_done``, with the points it added, in order;
    ``None`` when the invocations do not tell (none recorded, or one without ``points_done``).
    An invocation that only read every point from the cache added none and is left out."""
    calls = provenance.get("invocations") or []
    if not calls or any(c.get("points_done") is None for c in calls):
        return None
    added, before = [], 0
    for call in calls:
        done = int(call["points_done"])
        if done > before:
            added.append((call, done - before))
        before = max(before, done)
    return added


def commit_points(provenance: dict[str, Any]) -> list[tuple[str, int, str]]:
    """``[("eb16d85", 84, "2026-11-26"), ("fa52566", 21, "2026-11-26")]``: every commit (short)
    whose invocations raised ``points_done`` (:func:`points_added`), with the points they added
    and the day of its first such invocation, in that order; empty when the invocations do not
    tell."""
    added: dict[str, list[Any]] = {}  # commit -> [points added, day of its first invocation]
    for call, points in points_added(provenance) or []:
        commit = short_commit(call.get("git_commit"))
        added.setdefault(commit, [0, str(call.get("started_utc") or "?")[:10]])[0] += points
    return [(commit, points, day) for commit, (points, day) in added.items()]


def resumed_commits(provenance: dict[str, Any]) -> str | None:
    """"commits eb16d85 (84 points, 2026-11-26), fa52566 (21 points, 2026-11-26)": every commit
    of :func:`commit_points`, with the points it added and the day of its first invocation, when
    more than one commit computed a resumed run's points, so that it does not read as computed
    by its last commit alone; ``None`` when one did (or the invocations do not tell:
    :func:`computing_invocation` names it)."""
    shares = commit_points(provenance)
    if len(shares) < 2:
        return None
    return "commits " + ", ".join(f"{commit} ({points} points, {day})"
                                  for commit, points, day in shares)


def computing_invocation(provenance: dict[str, Any]) -> dict[str, Any]:
    """The invocation whose code computed the result's last points: the latest recorded one
    that raised ``points_done`` (:func:`points_added`; an invocation that only read every point
    from the cache, e.g. a table assembled from points another command computed, computed
    none). Where every invocation records ``points_computed`` (the points it computed, counted
    since 2026-11-29), the latest that computed some; when none did, the provenance's own
    ``git_commit`` and ``started_utc`` with ``read_only`` True (every recorded call read every
    point from the cache). The provenance's own ``git_commit`` and ``started_utc`` when the
    invocations do not tell (none recorded, or no ``points_done``)."""
    own = {"git_commit": provenance.get("git_commit"),
           "started_utc": provenance.get("started_utc")}
    calls = provenance.get("invocations") or [provenance]
    if calls and all("points_computed" in c for c in calls):
        computing = [c for c in calls if c["points_computed"]]
        if not computing:  # every recorded call read every point from the cache
            return {**own, "read_only": True}
        return {"git_commit": computing[-1].get("git_commit"),
                "started_utc": computing[-1].get("started_utc")}
    added = points_added(provenance)
    if not added:
        return own
    latest = added[-1][0]
    return {"git_commit": latest.get("git_commit"), "started_utc": latest.get("started_utc")}


def computed_on(provenance: dict[str, Any]) -> str:
    """Where and when a result's last points were computed, as the chapters name a run beside
    another: its device as recorded, then the commit and start (UTC, to the minute) of the call
    that computed them (:func:`computing_invocation`): ``"CPU (x86_64, 2 threads), commit
    `04233d7`, 2026-11-25 23:42 UTC"``."""
    last = computing_invocation(provenance)
    started = str(last.get("started_utc", "?"))[:16].replace("T", " ")
    return (f"{provenance.get('device_name', '?')}, commit "
            f"`{short_commit(last.get('git_commit'))}`, {started} UTC")


def provenance_summary(names: list[str], profile: str,
                       root: Path | None = None) -> pd.DataFrame:
    """One row per written result of ``names`` under ``profile``: how and where it was computed.

    Columns: experiment, paper_figure, device_name, seeds, rows, points (``all``, or ``k of n``
    for a partial run), wall_time_s (of every invocation of a resumed run:
    ``total_wall_time_s`` where recorded), points_from_cache (:func:`points_not_timed`),
    git_commit (short), started_utc (both of the invocation that computed the last points,
    :func:`computing_invocation`), computed_by (every commit whose invocations computed points,
    with the points each added when a resumed run's points came from several:
    :func:`commit_points`), read_only (True when every recorded call read every point from the
    cache: git_commit and started_utc are then those of a call that computed none). Experiments
    without a written result are left out, so an empty
    frame means that none of them has been run under ``profile`` in this checkout; a table
    without its provenance, or the reverse, raises :class:`memnb.results.ResultFileError`, as
    :func:`memnb.results.load` does.
    """
    from memnb.results import (  # results builds on this module
        half_result_error,
        read_provenance,
        read_table,
        result_paths,
    )

    check_profile(profile)
    columns = ["experiment", "paper_figure", "device_name", "seeds", "rows", "points",
               "wall_time_s", "points_from_cache", "git_commit", "started_utc", "computed_by",
               "read_only"]
    rows = []
    for name in names:
        csv_path, json_path = result_paths(name, profile, root)
        if not (csv_path.exists() or json_path.exists()):  # as memnb.results.load() reads them
            continue
        half = half_result_error(csv_path, json_path)
        if half is not None:
            raise half
        provenance = read_provenance(json_path)
        info = {key: provenance.get(key) for key in columns}
        info["seeds"] = seeds_used(read_table(csv_path), provenance)
        info["device_name"] = device_label(provenance)
        done, total = points_ran(provenance)
        info["points"] = "all" if provenance.get("complete", True) else f"{done} of {total}"
        info["wall_time_s"] = provenance.get("total_wall_time_s", info["wall_time_s"])
        info["points_from_cache"] = points_not_timed(provenance)
        computing = computing_invocation(provenance)
        info.update({k: computing[k] for k in ("git_commit", "started_utc")})
        info["git_commit"] = short_commit(info["git_commit"])
        info["read_only"] = bool(computing.get("read_only"))
        shares = commit_points(provenance)
        info["computed_by"] = (info["git_commit"] if len(shares) < 2 else ", ".join(
            f"{commit} ({points} points)" for commit, points, _ in shares))
        rows.append(info)
    return pd.DataFrame(rows, columns=columns)
