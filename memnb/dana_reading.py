"""How the book reads Dana, Pydi & Chevaleyre's (AISTATS 2025) result tables, shared by the
chapter's figures (:mod:`memnb.figures.dana`) and its scorecard rows (:mod:`memnb.scorecard.dana`).

- **Which accuracy.** The paper's official code reports the mean accuracy of the last training
  batches, not an evaluation of a checkpoint (:func:`as_the_paper_reports`).
- **Experiment 5 (Fig. 3, App. B's Figs. 7 and 10): which model is ahead.** Attention-only
  (AoT) against one head + MLP at the largest H of each d, with ties (:data:`ORDER_TIE`) and seeds
  that split (:data:`SEED_SPLIT`) (:func:`exp5_order`), the level against the paper's CSV
  (:func:`exp5_level`), and the official code's models beside eq. (2)'s
  (:func:`exp5_code_summary`).
- **App. B.** Which of the paper's CSVs each appendix run compares with (:data:`APPENDIX`) and
  what a full run of it shows (:func:`appendix_full_reading`).

The figures module imports this one; this one imports neither the figures nor the scorecard
rows, so the rows no longer import the figures module.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from memnb.experiments import dana as exp
from memnb.papers import dana as paper
from memnb.prose import counted

#: Two accuracies of Experiment 5 (Fig. 3 and App. B's Figs. 7, 10) closer than this are a tie:
#: neither model is ahead. The paper's CSV at d = 13, H = 31 (AoT 0.9992, MLP 0.9976, both
#: saturated) is one, not an order our runs could reproduce or reverse.
ORDER_TIE = 0.01


#: Spread of one model's seeds (best − worst accuracy at one point) above which its seeds
#: split (ours): some learn most of the task while others stay near where they started, as our
#: App. B.1 MLP seeds do (at d = 50, H = 11: 0.974, 0.973 and three near 0.03). A mean over so
#: split seeds says how many escaped more than how well a typical seed does.
SEED_SPLIT = 0.5


def ahead(aot: float, mlp: float) -> str:
    """Which of Experiment 5's two models is ahead: ``"AoT"``, ``"MLP"``, or ``"tie"`` when their
    accuracies are within :data:`ORDER_TIE`."""
    if abs(aot - mlp) < ORDER_TIE:
        return "tie"
    return "AoT" if aot > mlp else "MLP"


def ahead_words(who: str) -> str:
    """``"AoT ahead"``, ``"MLP ahead"`` or, for a tie (:func:`ahead`), ``"a tie (within …)"``."""
    return f"a tie (within {ORDER_TIE:g})" if who == "tie" else f"{who} ahead"


def order_words(ours: str, theirs: str) -> str:
    """How our order of two models (:func:`ahead`) stands to the paper's, in words."""
    if theirs == "tie":
        return "no order in the paper's CSV to compare"
    if ours == "tie":
        return f"ours a tie where the paper has the {theirs} ahead"
    return "ours in the same order" if ours == theirs else "ours in the reverse order"


#: The accuracy the paper's CSVs hold (:func:`memnb.experiments.dana.as_the_paper_reports`), read
#: from here by the figures and the scorecard rows; it lives with the experiments because
#: ``dana.exp4`` fits it, and the experiments' code must not import this module.
as_the_paper_reports = exp.as_the_paper_reports


def reported_accuracy(table: pd.DataFrame) -> str:
    """Which accuracy :func:`as_the_paper_reports` gives for ``table``, in words."""
    if "accuracy_checkpoint" in table or (
            "accuracy_last_batches" in table and table["accuracy_last_batches"].notna().all()):
        return (f"accuracy is the mean over the last {exp.OFFICIAL_BATCH_WINDOW} training "
                "batches, as the official code reports it")
    return ("accuracy is the best checkpoint's on the training sample: this run predates "
            f"recording the official code's mean over the last {exp.OFFICIAL_BATCH_WINDOW} "
            "batches")


def all_contexts_gap(table: pd.DataFrame) -> pd.Series | None:
    """How far each trained model's accuracy on all ``N^S`` contexts (``accuracy_all_contexts``,
    the best checkpoint's) lies below the accuracy the figures plot, the official code's mean
    over the last training batches: one value per row of ``table``, plotted − all contexts.
    ``None`` unless ``table`` went through :func:`as_the_paper_reports` (its ``accuracy`` is the
    code's mean) and every row recorded both."""
    if "accuracy_checkpoint" not in table or "accuracy_all_contexts" not in table:
        return None
    if table["accuracy_all_contexts"].isna().any():
        return None
    return table["accuracy"] - table["accuracy_all_contexts"]


def corollary2_points(table: pd.DataFrame) -> pd.DataFrame:
    """Experiment 1 against Corollary 2's φ(H d_h + d) (:func:`memnb.bounds.
    dana_accuracy_lower_bound`), one row per (d, H): ``phi``; ``plotted``, the seed mean of
    ``accuracy`` (the official code's mean over the last batches after
    :func:`as_the_paper_reports`); and, where every row recorded it, the accuracy on all ``N^S``
    contexts, the expectation under a uniform prior that the corollary bounds: its seed mean
    (``all_contexts``) and best seed (``all_contexts_best``), NaN otherwise; ``seeds`` and
    ``tasks`` (how many training tasks, ``data_seed``, the seeds of that point trained on)."""
    from memnb import bounds

    has_all = ("accuracy_all_contexts" in table
               and bool(table["accuracy_all_contexts"].notna().all()))
    rows = []
    for (d, h), part in table.groupby(["d", "H"]):
        phi = float(bounds.dana_accuracy_lower_bound(
            int(h) * int(part["d_h"].iloc[0]) + int(d), int(part["N"].iloc[0]),
            int(part["T0"].iloc[0])))
        every = part["accuracy_all_contexts"] if has_all else None
        rows.append({"d": int(d), "H": int(h), "phi": phi,
                     "plotted": float(part["accuracy"].mean()),
                     "all_contexts": float(every.mean()) if has_all else float("nan"),
                     "all_contexts_best": float(every.max()) if has_all else float("nan"),
                     "seeds": int(part["seed"].nunique()) if "seed" in part else 1,
                     "tasks": int(part["data_seed"].nunique()) if "data_seed" in part else 1})
    return pd.DataFrame(rows)


#: The relative slack under φ within which an accuracy counts as reaching it (float rounding
#: of a mean that equals φ).
PHI_RTOL = 1e-9


def reaches_phi(accuracy: pd.Series, phi: pd.Series) -> pd.Series:
    """Where ``accuracy`` lies on or above Corollary 2's ``phi`` (:func:`corollary2_points`),
    up to :data:`PHI_RTOL`."""
    return accuracy >= phi * (1 - PHI_RTOL)


def contexts_words(lengths: set[int]) -> str:
    """How the chapter names all contexts of sequences of the given ``lengths`` S: ``"N²"`` for
    S = 2 (Experiment 1's), ``"N^S"`` otherwise."""
    return "N²" if set(lengths) == {2} else "N^S"


def full_run_exists(name: str, root: Path | None = None) -> bool:
    """Whether the full-scale result of ``name`` is committed in this checkout."""
    from memnb.results import result_paths

    csv, js = result_paths(name, "full", root)
    return csv.exists() and js.exists()


def paper_setting(table: pd.DataFrame, **values: int) -> bool:
    """Whether ``table`` was run at the paper's setting (so its numbers can be compared)."""
    return all(int(table[k].iloc[0]) == v for k, v in values.items())


def exp5_order(table: pd.DataFrame, aot: str = "aot", mlp: str = "mlp") -> pd.DataFrame:
    """Experiment 5 at the largest H of ``table`` per d: our models ``aot`` and ``mlp`` (the
    model kinds; ``dana.exp5_code`` has the code's), which is ahead, beside the paper's CSV at the
    same d and H (when it has them). Which model is ahead is ``AoT``, ``MLP`` or ``tie`` (their
    accuracies within :data:`ORDER_TIE`; :func:`ahead`).
    Columns: d, H, ours_aot, ours_mlp, ours_ahead, paper_aot, paper_mlp, paper_ahead, seeds_aot,
    seeds_mlp (how many seeds each mean averages, which differ while a full run is partial),
    and aot_lo, aot_hi, mlp_lo, mlp_hi (the lowest and highest seed of each; None without a
    seed column), aot_median, mlp_median and ours_ahead_median (the seed medians and their
    order), split (either model's seeds spread over more than
    :data:`SEED_SPLIT`). A d without both models (a partial run) has no
    row."""
    official = paper.exp5()
    rows = []
    for d, part in table.groupby("d"):
        if not {aot, mlp} <= set(part["model"]):
            continue  # a partial run may hold one model of a panel: nothing to compare
        h = int(part["H_equiv"].max())
        rows_h = part[part["H_equiv"] == h]
        at_h = rows_h.groupby("model")
        last = at_h["accuracy"].mean()
        if not {aot, mlp} <= set(last.index):
            continue
        seeds = at_h["seed"].nunique() if "seed" in part else pd.Series(1, index=last.index)
        spread = (rows_h.groupby(["model", "seed"])["accuracy"].mean().groupby("model")
                  .agg(["min", "max"]) if "seed" in part else None)  # over the seeds' means
        ref = official[(official["d"] == d) & (official["H"] == h)].set_index("model")["accuracy"]
        row = {"d": int(d), "H": h, "ours_aot": float(last[aot]), "ours_mlp": float(last[mlp]),
               "ours_ahead": ahead(float(last[aot]), float(last[mlp])),
               "seeds_aot": int(seeds[aot]), "seeds_mlp": int(seeds[mlp]),
               **{f"{name}_{end}": None if spread is None else float(spread.loc[kind, stat])
                  for name, kind in (("aot", aot), ("mlp", mlp))
                  for end, stat in (("lo", "min"), ("hi", "max"))},
               "paper_aot": float(ref["aot"]) if "aot" in ref else None,
               "paper_mlp": float(ref["mlp"]) if "mlp" in ref else None}
        row["paper_ahead"] = (None if row["paper_aot"] is None or row["paper_mlp"] is None else
                              ahead(row["paper_aot"], row["paper_mlp"]))
        medians = (rows_h.groupby(["model", "seed"])["accuracy"].mean().groupby("model")
                   .median() if "seed" in part else last)
        row.update({"aot_median": float(medians[aot]), "mlp_median": float(medians[mlp]),
                    "ours_ahead_median": ahead(float(medians[aot]), float(medians[mlp])),
                    "split": spread is not None and bool(
                        (spread["max"] - spread["min"]).loc[[aot, mlp]].max() > SEED_SPLIT)})
        rows.append(row)
    return pd.DataFrame(rows)


def seeds_words(r: Any) -> str:
    """How many seeds an ``exp5_order`` row's two means average: "2 seeds" or, while a partial
    run holds more of one model, "AoT 2 seeds, MLP 1"; then, for a model averaged over more than
    one seed, the range of its seeds ("per seed AoT 0.483–0.547"), so a mean never hides a wide
    spread."""
    if r.seeds_aot == r.seeds_mlp:
        words = counted(r.seeds_aot, "seed")
    else:
        words = f"AoT {counted(r.seeds_aot, 'seed')}, MLP {r.seeds_mlp}"
    spread = [f"{name} {lo:.3f}–{hi:.3f}" for name, n, lo, hi in (
        ("AoT", r.seeds_aot, r.aot_lo, r.aot_hi), ("MLP", r.seeds_mlp, r.mlp_lo, r.mlp_hi))
        if n > 1 and not pd.isna(lo)]
    return words + (f"; per seed {', '.join(spread)}" if spread else "")


def same_budget(table: pd.DataFrame | None, like: pd.DataFrame, *,
                same_seeds: bool = True) -> pd.DataFrame | None:
    """The rows of ``table`` trained as ``like``'s (same N, steps, batch, samples), with
    ``same_seeds`` only on the seeds ``like`` ran, so that two models are compared seed for
    seed (else on all of ``table``'s seeds); None when there are none."""
    if table is None or table.empty:
        return None
    keys = ["N", "steps", "batch", "samples"]
    first = like.iloc[0]
    rows = table[np.logical_and.reduce([table[k] == first[k] for k in keys])]
    if same_seeds and "seed" in rows and "seed" in like:
        rows = rows[rows["seed"].isin(like["seed"].unique())]
    return rows if len(rows) else None


def _exp5_ratios(table: pd.DataFrame, model: str,
                 paper_model: str) -> dict[int, tuple[pd.Series, pd.Series]]:
    """Per d of ``table`` at the paper's N: ``model``'s seed-averaged accuracy over the paper's
    CSV ``paper_model`` at the same d and H (a Series indexed by H), and the seeds each H has."""
    official = paper.exp5()
    ref = official[official["model"] == paper_model].set_index(["d", "H"])["accuracy"]
    out = {}
    for d, part in table[table["model"] == model].groupby("d"):
        if not paper_setting(part, N=int(official["N"].iloc[0])) or d not in set(official["d"]):
            continue
        by_h = part.groupby("H_equiv")
        ratio = pd.Series({int(h): float(acc) / float(ref[(int(d), int(h))])
                           for h, acc in by_h["accuracy"].mean().items()
                           if (int(d), int(h)) in ref.index}, dtype=float)
        seeds = by_h["seed"].nunique() if "seed" in part else pd.Series(1, index=ratio.index)
        out[int(d)] = (ratio, seeds)
    return out


def exp5_level(table: pd.DataFrame, model: str = "aot") -> pd.DataFrame:
    """Experiment 5's accuracy level against the paper's: for each d, our seed-averaged accuracy
    of ``model`` over the paper's CSV value at the same d and H, at one head and over H > 1 (the
    panels of Fig. 3 at the paper's N). Columns: d, H_min, H_max (the H > 1 compared), ratio_h1,
    ratio_min, ratio_max (over H > 1), seeds_min, seeds_max. A d without the paper's CSV or with
    no H > 1 has no row."""
    rows = []
    for d, (ratio, seeds) in _exp5_ratios(table, model, model).items():
        more = ratio[ratio.index > 1]
        if more.empty:
            continue
        rows.append({"d": d, "H_min": int(more.index.min()), "H_max": int(more.index.max()),
                     "ratio_h1": float(ratio[1]) if 1 in ratio.index else None,
                     "ratio_min": float(more.min()), "ratio_max": float(more.max()),
                     "seeds_min": int(seeds.min()), "seeds_max": int(seeds.max())})
    return pd.DataFrame(rows)


#: How near the paper's CSV a seed-averaged accuracy counts as at its level: the seeds of our
#: full Experiment 5 lie within about 7 % of their mean AoT at d = 10, H = 31.
LEVEL_TOLERANCE = 0.10


def exp5_code_level(code: pd.DataFrame, eq2: pd.DataFrame | None) -> str:
    """Whether the official code's AoT (``dana.exp5_code``, ours) stands where the paper's CSV
    does, where our eq. (2) AoT falls short of it (:func:`exp5_level_sentence`): per d, the
    code's AoT over the CSV's at every H > 1, at how many H it is within
    :data:`LEVEL_TOLERANCE` of 1, and (with eq. (2)'s run on the same seeds) at how many it is
    the closer to 1. Criterion: within the tolerance and closer than eq. (2) at every H > 1 →
    the code's model accounts for the level at that d. Empty when no d can be compared."""
    theirs = _exp5_ratios(code, "aot_code", "aot")
    ours = {} if eq2 is None else _exp5_ratios(eq2, "aot", "aot")
    cells = []
    for d, (ratio, _) in theirs.items():
        more = ratio[ratio.index > 1]
        if more.empty:
            continue
        near = int(((more - 1).abs() <= LEVEL_TOLERANCE).sum())
        cell = (f"d = {d}: the code's AoT is {more.min():.2f}–{more.max():.2f} of the paper's at "
                f"H = {more.index.min()}..{more.index.max()}, within "
                f"{LEVEL_TOLERANCE:.0%} at {near} of {len(more)} H")
        eq2_more = ours[d][0].reindex(more.index).dropna() if d in ours else pd.Series(dtype=float)
        if len(eq2_more) == len(more):
            closer = int(((more - 1).abs() < (eq2_more - 1).abs()).sum())
            accounts = closer == near == len(more)
            cell += (f"; eq. (2)'s AoT, same seeds, {eq2_more.min():.2f}–{eq2_more.max():.2f}, "
                     f"so the code's is the closer at {closer} of them ("
                     + ("the code's model accounts for the level" if accounts else
                        "the code's model does not account for the whole level") + ")")
        cells.append(cell)
    if not cells:
        return ""
    return ("The level, the AoT over the paper's CSV AoT (criterion: within "
            f"{LEVEL_TOLERANCE:.0%} and closer than eq. (2) at every H > 1): "
            + "; ".join(cells) + ".")


def exp5_level_sentence(table: pd.DataFrame) -> str:
    """Where our eq. (2) AoT stands against the paper's CSV at every H, not only the largest:
    the ratios of :func:`exp5_level` per d, in words; empty when no d can be compared."""
    level = exp5_level(table)
    if level.empty:
        return ""
    cells = []
    for r in level.itertuples():
        seeds = (counted(r.seeds_min, "seed") if r.seeds_min == r.seeds_max
                 else f"{r.seeds_min}–{r.seeds_max} seeds")
        one = "" if r.ratio_h1 is None else f"{r.ratio_h1:.2f} at H = 1, "
        cells.append(f"d = {r.d}: {one}{r.ratio_min:.2f}–{r.ratio_max:.2f} at H = "
                     f"{r.H_min}..{r.H_max} ({seeds})")
    text = ("Our eq. (2) AoT over the paper's CSV AoT, at every H of the full run: "
            + "; ".join(cells) + ".")
    if (level["ratio_max"] < 1).all():
        return (text + f" Below 1 at every H > 1 of all {counted(len(level), 'panel')}: ours "
                "falls short of the paper's level throughout, not in one panel or at one H.")
    above = ", ".join(f"d = {d}" for d in level.loc[level["ratio_max"] >= 1, "d"])
    return text + f" Ours reaches or passes the paper's at some H > 1 ({above})."


def initialisation_share(plain: float, code_mlp: float, eq2_mlp: pd.Series,
                         seeds: Sequence[int] = ()) -> str:
    """How much of the gap between eq. (2) + MLP and the code's MLP the initialisation alone
    accounts for, as a clause: ``(plain − code_mlp) / (eq2 − code_mlp)``, where ``plain`` is
    eq. (2) + MLP with the code's attention-score scale and positions (the code's MLP but for its
    initialisation), computed against eq. (2) + MLP's seed mean (``eq2_mlp``: eq. (2) + MLP's
    accuracy per seed, indexed by seed; ``plain`` and ``code_mlp`` are whatever seeds their run
    has) and, beside it, against each seed of eq. (2) + MLP. A gap below
    :data:`ORDER_TIE` is a tie: nothing to split, and the clause says
    whether that is because neither difference moves the accuracy (the variant ties too) or
    because the code's scale and positions (``plain`` against eq. (2) + MLP's mean) and its
    initialisation (the code's MLP against ``plain``) move it by amounts that cancel. A share
    outside [0, 1] does not split the gap, and a seed that does not split it is named with the
    reason. "Most of it" / "less than half of it" only when the mean's share and every seed's
    that splits fall on the same side of one half. ``seeds``: the seeds ``plain`` and
    ``code_mlp`` ran; when they are fewer than ``eq2_mlp``'s, a tie of the seed mean is also
    split on those seeds alone, so that a cancellation of the mean is not read as one of every
    seed."""
    mean = float(eq2_mlp.mean())
    head = (f"eq. (2) + MLP with only the code's attention-score scale and positions (eq. (2)'s "
            f"N(0, 1) embeddings) reaches {plain:.3f}. ")
    gap = (f"the gap from the code's MLP ({code_mlp:.3f}) to eq. (2) + MLP's mean over its "
           f"{counted(len(eq2_mlp), 'seed')} ({mean:.3f})")
    if abs(mean - code_mlp) < ORDER_TIE:
        tie = (f"The code's MLP ({code_mlp:.3f}) and eq. (2) + MLP's mean over its "
               f"{counted(len(eq2_mlp), 'seed')} ({mean:.3f}) lie within {ORDER_TIE:g}")
        if abs(plain - code_mlp) < ORDER_TIE:
            return head + tie + (f", and so does the variant ({plain:.3f}): neither the "
                                 "initialisation nor the scale and positions move it")
        spread = (f"; eq. (2) + MLP's seeds span {float(eq2_mlp.min()):.3f}–"
                  f"{float(eq2_mlp.max()):.3f}" if len(eq2_mlp) > 1 else "")
        scale, init = plain - mean, code_mlp - plain
        return head + tie + (
            f", but not because the differences do not matter. From eq. (2) + MLP to the "
            f"code's MLP, the code's scale and positions alone (the variant against eq. (2) + "
            f"MLP's mean) move the accuracy by {scale:+.3f}, and the code's initialisation "
            f"alone (the code's MLP against the variant) by {init:+.3f}: "
            + ("two effects of opposite sign, which cancel against that mean"
               if scale * init < 0 else "two effects of the same sign")
            + f" (the variant on its run's seeds{spread})" + _on_own_seeds(plain, code_mlp,
                                                                            eq2_mlp, seeds))
    share = (plain - code_mlp) / (mean - code_mlp)
    if not 0 <= share <= 1:
        return head + (f"That lies outside {gap}, so the gap does not split into a share of "
                       "the initialisation")
    per = {int(s): (plain - code_mlp) / (v - code_mlp) for s, v in eq2_mlp.items()
           if abs(v - code_mlp) >= ORDER_TIE}
    inside = {s: v for s, v in per.items() if 0 <= v <= 1}
    shares = [share, *inside.values()]
    words = ("most of it" if min(shares) > 0.5 else "less than half of it"
             if max(shares) < 0.5 else "about half of it: the mean and single seeds fall on "
             "both sides of one half")
    text = (head + f"Of {gap}, the initialisation alone accounts for {share:.0%} (against "
            f"eq. (2) + MLP's seed mean; {words})")
    if len(eq2_mlp) > 1:
        text += (f"; measured against single seeds of eq. (2) + MLP instead, "
                 f"{min(inside.values()):.0%}–{max(inside.values()):.0%} at "
                 f"{counted(len(inside), 'seed')}"
                 if inside else "; no single seed of eq. (2) + MLP splits the gap")
        left = [s for s in eq2_mlp.index if int(s) not in inside]
        if left:
            text += " (" + "; ".join(_unsplit_seed(int(s), float(eq2_mlp[s]), plain, code_mlp)
                                     for s in left) + ")"
    return text


def _unsplit_seed(seed: int, eq2: float, plain: float, code_mlp: float) -> str:
    """Why one seed of eq. (2) + MLP (accuracy ``eq2``) gives no share of the initialisation
    (:func:`initialisation_share`): its gap to the code's MLP is a tie, or the variant
    (``plain``) lies outside that gap."""
    gap = eq2 - code_mlp
    if abs(gap) < ORDER_TIE:
        return (f"seed {seed}: {eq2:.3f}, within {ORDER_TIE:g} of the code's MLP: no gap to "
                "split")
    return (f"seed {seed}: {eq2:.3f}, a gap of {gap:+.3f} to the code's MLP, outside which the "
            f"variant ({plain:.3f}) lies, so it gives no share")


def _on_own_seeds(plain: float, code_mlp: float, eq2_mlp: pd.Series,
                  seeds: Sequence[int]) -> str:
    """For a tie of eq. (2) + MLP's seed mean with the code's MLP (:func:`initialisation_share`):
    the same split on the seeds the variant ran (``seeds``), when they are fewer than
    ``eq2_mlp``'s: whether the two effects cancel there too; '' otherwise."""
    same = [int(s) for s in seeds if int(s) in {int(i) for i in eq2_mlp.index}]
    if not same or len(same) >= len(eq2_mlp):
        return ""
    on = float(eq2_mlp[eq2_mlp.index.isin(same)].mean())
    which = (f"seed {same[0]}" if len(same) == 1
             else f"seeds {', '.join(map(str, same))} (their mean)")
    text = (f". On the variant's own {which}, where eq. (2) + MLP reaches {on:.3f}, the scale "
            f"and positions move it by {plain - on:+.3f} and the initialisation by "
            f"{code_mlp - plain:+.3f}")
    if abs(code_mlp - on) < ORDER_TIE:
        return text + ": they cancel there too"
    return (text + f": there they do not cancel (the code's MLP lies {code_mlp - on:+.3f} from "
            "eq. (2) + MLP), so the tie is one of the seed mean, not of every seed")


def exp5_code_summary(code: pd.DataFrame, eq2: pd.DataFrame | None) -> str:
    """What ``dana.exp5_code`` measures, at the largest H of each d, computed from the tables:
    the code's two models against the paper's CSV (which is ahead), eq. (2)'s two models on the
    seeds ``code`` ran (``eq2``: ``dana.exp5`` at ``code``'s budget, any seeds; see
    :func:`same_budget`), and how much of the gap between eq. (2) + MLP and the code's MLP the
    initialisation alone accounts for (``mlp_code_uncompressed`` differs from the code's MLP by
    its initialisation only), from the seed means of all of ``eq2``'s seeds and per seed
    (:func:`initialisation_share`)."""
    eq2_all = eq2
    eq2 = same_budget(eq2, code)
    ours = None if eq2 is None else exp5_order(eq2).set_index("d")
    seed_ids = sorted(int(s) for s in code["seed"].unique())
    on_seeds = (f"on the same seed ({seed_ids[0]})" if len(seed_ids) == 1
                else f"on the same {len(seed_ids)} seeds")
    cells = []
    for r in exp5_order(code, "aot_code", "mlp_code").itertuples():
        cell = (f"At d = {r.d} and H = {r.H} (MLP width {2 * r.d * (r.H - 1)}), the code's AoT "
                f"reaches {r.ours_aot:.3f} and its one head + MLP {r.ours_mlp:.3f} "
                f"({ahead_words(r.ours_ahead)})")
        if r.paper_ahead is not None:
            cell += (f"; the paper's CSV has {r.paper_aot:.3f} and {r.paper_mlp:.3f} "
                     f"({ahead_words(r.paper_ahead)}: "
                     f"{order_words(r.ours_ahead, r.paper_ahead)})")
        if ours is not None and r.d in ours.index and int(ours.loc[r.d, "H"]) == r.H:
            eq2_aot, eq2_mlp = float(ours.loc[r.d, "ours_aot"]), float(ours.loc[r.d, "ours_mlp"])
            cell += (f". Eq. (2)'s AoT and one head + MLP reach {eq2_aot:.3f} and {eq2_mlp:.3f} "
                     f"at the same budget {on_seeds}")
            plain = code[(code["d"] == r.d) & (code["H_equiv"] == r.H)
                         & (code["model"] == "mlp_code_uncompressed")]["accuracy"]
            all_mlp = eq2_all[(eq2_all["d"] == r.d) & (eq2_all["H_equiv"] == r.H)
                              & (eq2_all["model"] == "mlp")]
            if len(plain) and len(all_mlp):
                by_seed = (all_mlp.groupby("seed")["accuracy"].mean() if "seed" in all_mlp
                           else pd.Series([all_mlp["accuracy"].mean()], index=[0]))
                plain_seeds = code.loc[plain.index, "seed"] if "seed" in code else []
                cell += "; " + initialisation_share(float(plain.mean()), r.ours_mlp, by_seed,
                                                    sorted(int(s) for s in set(plain_seeds)))
        cells.append(cell + ".")
    level = exp5_code_level(code, eq2)
    return (" ".join(cells) + (f" {level}" if level else "")
            + f" ({counted(len(seed_ids), 'seed')} of ours; the paper's CSV averages 5.)")


APPENDIX = {
    "dim": {"name": "dana.appendix_dim", "figures": ("Fig. 5", "Fig. 6", "Fig. 7"),
            "exp1": paper.dim_exp1, "exp2": paper.dim_exp2, "exp5": paper.dim_exp5,
            "slopes": paper.dim_exp1_slopes, "section": "App. B.1, larger embedding dimension"},
    "depth": {"name": "dana.appendix_depth", "figures": ("Fig. 8", "Fig. 9", "Fig. 10"),
              "exp1": paper.depth_exp1, "exp2": paper.depth_exp2, "exp5": paper.depth_exp5,
              "slopes": paper.depth_exp1_slopes, "section": "App. B.2, deeper models"},
}


def appendix_spec(kind: str) -> dict[str, Any]:
    """The entry of :data:`APPENDIX` for ``kind`` (``"dim"``: App. B.1, ``"depth"``: App. B.2):
    the experiment's name, its figures, the paper's CSV readers and the section; an unknown
    ``kind`` is named with the allowed ones."""
    if kind not in APPENDIX:
        raise ValueError(f"kind must be one of {', '.join(APPENDIX)}; got {kind!r}")
    return APPENDIX[kind]


def appendix_full_reading(table: pd.DataFrame, kind: str, figure: str) -> str:
    """What a full run of App. B (``table``, all figures of ``kind``) shows for ``figure``, as a
    clause starting with the figure's name; empty when the table has no point of it (or, for
    Experiment 2, fewer than two d_h). Experiment 1 (Figs. 5, 8): the per-head slopes by the
    official rule (seed-averaged curves, :func:`memnb.experiments.dana.official_slopes`) beside
    the paper's CSV slopes; Experiment 2 (Figs. 6, 9): whether the seed-averaged curve is
    increasing (steps down of at most 0.01, as the Fig. 6/9 rows allow); Experiment 5 (Figs. 7,
    10): nothing (empty)."""
    from memnb.scorecard import criteria

    spec = appendix_spec(kind)
    f1, f2, _ = spec["figures"]
    rows = table[table["figure"] == figure]
    if figure == f1 and len(rows):
        ours = exp.official_slopes(rows)
        theirs = spec["slopes"]().set_index("d")["slope"]
        same_n = int(rows["N"].iloc[0]) == int(spec["exp1"]()["N"].iloc[0])
        cells = []
        for r in ours.itertuples():
            cell = f"d = {r.d}: {r.slope:.4f}"
            if same_n and r.d in theirs.index:
                cell += f" (the paper's CSV {theirs[r.d]:.4f}, ours {r.slope / theirs[r.d]:.2f}×)"
            cells.append(cell)
        return (f"{f1} per-head slopes (official rule, seed-averaged curves over "
                f"{counted(int(ours['seeds'].max()), 'seed')}): {'; '.join(cells)}")
    if figure == f2 and rows["d_h"].nunique() >= 2:
        mean = rows.groupby("d_h")["accuracy"].mean()
        mono = criteria.monotone(mean.index, mean.to_numpy(), tol=0.01)
        return (f"{f2} curve (d = {int(rows['d'].iloc[0])}, H = {int(rows['H'].iloc[0])}, "
                f"d_h = {', '.join(str(int(x)) for x in mean.index)}, seed-averaged) is "
                f"{mono.measured} (steps down of at most 0.01 allowed, as in the {f2} row)")
    return ""


def rekey_words(name: str, provenance: dict[str, Any]) -> str:
    """How the table of ``name`` came to record its fingerprint, from its provenance, when it
    was re-keyed (``scripts/rekey_cache.py``): "`dana.exp1`'s points were computed by code of
    fingerprint `39a82dc09d04da6d` and re-keyed to `c2addc75ba16a594` through 11 re-keys (the
    docstring rule, one checked by the syntax-tree script, nine reviewed by hand)", the chain
    counted by kind (:func:`memnb.provenance.rekey_origin`); '' for a table computed by the
    code whose fingerprint it records."""
    from memnb.provenance import rekey_origin

    origin = rekey_origin(provenance)
    if origin is None:
        return ""
    source, target, chain, _ = origin
    return (f"`{name}`'s points were computed by code of fingerprint `{source}` and re-keyed "
            f"to `{target}` {chain}")


def rekeys_listed_words(unlisted: Sequence[str], of: str = "") -> str:
    """Where the reasons of the re-keys are recorded, for re-keyed tables of which those named
    in ``unlisted`` miss their first re-key (the docstring rule's) from the list
    (:func:`memnb.provenance.rekey_origin`): "The provenance's `code_fingerprint_rekeys` lists
    each re-key with its reason, except, in `dana.exp1`, the first, which applied the docstring
    rule". ``of``, when given, names those tables for "in" instead of listing them ("both",
    "every one of these runs", "9 of these runs (…)")."""
    text = "The provenance's `code_fingerprint_rekeys` lists each re-key with its reason"
    if not unlisted:
        return text
    where = of or ", ".join(f"`{name}`" for name in unlisted)
    return text + f", except, in {where}, the first, which applied the docstring rule"


def exp4_against_exp1(root: Path | None = None) -> str | None:
    """How far the committed ``dana.exp4`` table's per-seed slopes lie from those of the
    committed ``dana.exp1`` table (:func:`memnb.experiments.dana.head_slopes` of the accuracy the
    paper reports), as a paragraph; ``None`` unless both full runs are committed with slopes to
    compare. ``dana.exp4`` is computed from Experiment 1's points, so when both tables record
    today's fingerprint (:func:`memnb.results.todays_code`) and its points were computed in
    another run, any difference comes from the runs, not the code: the paragraph says so, with
    each run's device as recorded and when it ran (ours), and, for a table whose points were
    computed by earlier code and re-keyed to today's fingerprint (:func:`rekey_words`), that
    the conclusion rests on those re-keys and where their reasons are listed
    (:func:`rekeys_listed_words`); and, where
    ``dana.exp1`` has a replication of the same code
    (:func:`memnb.reruns.replications_root`), how many of ``dana.exp4``'s slopes
    equal those of the replication, which tells the run its points agree with."""
    from memnb.provenance import computed_on, rekey_origin
    from memnb.reruns import replications_root
    from memnb.results import computed_by_todays_code, load

    one, four = load("dana.exp1", "full", root), load("dana.exp4", "full", root)
    if one is None or four is None or "slope" not in four.table:
        return None
    def slopes(table: pd.DataFrame) -> pd.Series:  # per (d, seed), of the paper's accuracy
        return exp.head_slopes(exp.as_the_paper_reports(table)).set_index(["d", "seed"])["slope"]

    ours = four.table[four.table["kind"] == "slope"].set_index(["d", "seed"])["slope"]
    theirs = slopes(one.table)
    shared = ours.index.intersection(theirs.index)
    if shared.empty:
        return None
    gap = 100.0 * (ours.loc[shared] / theirs.loc[shared] - 1.0).abs()
    equal = int((ours.loc[shared] == theirs.loc[shared]).sum())
    text = (f"`dana.exp4`'s {counted(len(shared), 'per-seed slope')} "
            f"({computed_on(four.provenance)}) against the same slopes of `dana.exp1`'s table "
            f"({computed_on(one.provenance)}): {equal} of {len(shared)} equal; "
            f"they differ by {gap.mean():.1f} % on average and by at most {gap.max():.1f} %")
    same_code = (computed_by_todays_code("dana.exp1", one.provenance)
                 and computed_by_todays_code("dana.exp4", four.provenance))
    if same_code and equal < len(shared):
        records = (("dana.exp1", one), ("dana.exp4", four))
        origins = {name: origin for name, record in records
                   if (origin := rekey_origin(record.provenance)) is not None}
        if origins:
            unlisted = [name for name, origin in origins.items() if origin[3]]
            both = len(origins) > 1 and len(unlisted) == len(origins)
            text += (". Both tables record today's fingerprint, "
                     + ("one of them" if len(origins) == 1 else "both") + " re-keyed "
                     "(`scripts/rekey_cache.py`): "
                     + "; ".join(rekey_words(name, record.provenance)
                                 for name, record in records if name in origins)
                     + ". " + rekeys_listed_words(unlisted, "both" if both else "")
                     + ". That the difference comes from the two runs, not the code, holds "
                     "only if " + ("these re-keys hold" if len(origins) == 1 else
                                   "the re-keys of both hold")
                     + " (the code that computed those points was not run again)")
        else:
            text += (". Both tables are of today's code (their fingerprints equal today's), so "
                     "the difference comes from the two runs, not the code")
        text += (": on the CPU, two runs of the same code and seeds can differ with the machine "
                 "that ran them (ours), and the device recorded for these two runs does not "
                 "tell their machines apart (runs recorded since name the processor's vector "
                 "instruction set)")
    again = load("dana.exp1", "full", replications_root(root))
    if again is not None and again.provenance.get("code_fingerprint") == one.provenance.get(
            "code_fingerprint"):
        replicated = slopes(again.table)
        common = shared.intersection(replicated.index)
        same = int((ours.loc[common] == replicated.loc[common]).sum())
        text += (f". Against the slopes of the replication of `dana.exp1` (code of the same "
                 f"fingerprint, "
                 f"{computed_on(again.provenance)}): {same} of {len(common)} equal")
    return text + "."


def exp4_fits_against_caption(exp1: pd.DataFrame, root: Path | None = None) -> str | None:
    """How the fit errors of the committed ``dana.exp4`` table (Dana et al., Fig. 2b: its fits
    a d² + b and a d³ + b of the mean of each d's per-seed slopes) compare with those of Fig.
    2b's caption, the same fits of the official-rule slopes of the seed-averaged curves of
    ``exp1`` (:func:`memnb.experiments.dana.official_slopes`, the table the chapter draws), as a
    sentence (ours): each pair of SSEs, their relative difference, and whether they are equal
    at the two significant digits the caption writes them with (the criterion). ``None`` unless
    a committed full ``dana.exp4`` table with both fits is at hand."""
    from memnb.results import load

    four = load("dana.exp4", "full", root)
    if four is None or "kind" not in four.table:
        return None
    fits = four.table.set_index("kind")
    kinds = [k for k in ("quadratic", "cubic") if f"fit_{k}" in fits.index]
    if len(kinds) < 2:
        return None
    slopes = exp.official_slopes(exp1)
    cells, equal = [], []
    for power, kind in ((2, "quadratic"), (3, "cubic")):
        ours = float(fits.loc[f"fit_{kind}", "sse"])
        shown = exp.fit_power(slopes["d"].to_numpy(), slopes["slope"].to_numpy(), power)["sse"]
        same = f"{ours:.2g}" == f"{shown:.2g}"
        equal.append(same)
        cells.append(f"{kind} {ours:.4g} against {shown:.4g} ({100 * (ours / shown - 1):+.1f} %; "
                     f"{'equal' if same else 'not equal'} as the caption writes them, "
                     f"{shown:.2g})")
    verdict = ("equal at the caption's precision for both fits" if all(equal) else
               "different at the caption's precision for "
               + ("both fits" if not any(equal) else "one fit"))
    return (f"`dana.exp4`'s fit errors (SSE of its fits of the mean of the per-seed slopes) "
            f"against Fig. 2b's caption's (the same fits of the official-rule slopes of the "
            f"seed-averaged curves of the drawn table): {'; '.join(cells)}: {verdict} (ours: "
            "equal when both SSEs round to the same two significant digits, as the caption "
            "writes them).")
