"""Tests of the computed theory of Dana, Pydi & Chevaleyre (AISTATS 2025): Thm 1 (ε > 0),
Remark 2, Thm 2 at N >= 869, Cor. 2 instantiated, the slides' least-squares mappings, Table 1 and
the Bietti et al. memory (memnb.constructions.*, memnb.scorecard.dana_theory)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from memnb import bounds
from memnb.constructions import (
    aot_accuracy,
    aot_distribution,
    aot_draw,
    aot_rank1,
    associative_memory,
    encoder_least_squares,
    jl_lookup,
    prior_work_table,
)
from memnb.data.synthetic import distinct_sequences
from memnb.lookup_tables import (
    expected_kl,
    jl_unembedding,
    lookup_table_kl,
    low_entropy_conditionals,
)
from memnb.scorecard.criteria import Verdict

SLOW = settings(max_examples=12, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])

# ----------------------------------------------------------------------------- aot_draw


@SLOW
@given(N=st.integers(3, 8), S=st.integers(1, 3), d=st.integers(2, 5), d_h=st.integers(1, 5),
       H=st.integers(0, 4), seed=st.integers(0, 1000))
def test_assemble_outputs_the_readout_of_the_features(N, S, d, d_h, H, seed) -> None:
    """For any read-out M with invertible M_0, the assembled model's eq. (2) is W_U M F(t)."""
    d_h = min(d_h, d)
    rng = np.random.default_rng(seed)
    w = aot_draw.draw(N, S, d, d_h, H, seed=seed)
    tokens = rng.integers(0, N, (7, S))
    readout = rng.standard_normal((d, d + H * d_h))
    readout[:, :d] += 3 * np.eye(d)
    wu = rng.standard_normal((N, d))
    model = aot_draw.assemble(w, readout, wu)
    with torch.no_grad():
        logits = model(torch.from_numpy(tokens)).numpy()
    expected = wu @ readout @ aot_draw.features(w, tokens)
    assert np.allclose(logits, expected.T, rtol=1e-9, atol=1e-9)


def test_draw_rank1_and_validation() -> None:
    w = aot_draw.draw(5, 2, 4, 3, 2, qk_rank=1, seed=0)
    qk = np.einsum("hqi,hqj->hij", w.W_Q, w.W_K)
    assert all(np.linalg.matrix_rank(m) == 1 for m in qk)
    with pytest.raises(ValueError, match="d_h"):
        aot_draw.draw(5, 2, 3, 4, 1)
    with pytest.raises(ValueError, match="qk_scale"):
        aot_draw.draw(5, 2, 3, 2, 1, qk_scale=0.0)
    with pytest.raises(ValueError, match="readout"):
        aot_draw.assemble(w, np.zeros((4, 4)), np.zeros((5, 4)))
    with pytest.raises(ValueError, match="tokens"):
        aot_draw.features(w, np.array([[0, 9]]))


# ------------------------------------------------------------------- Thm 1 with ε > 0


@SLOW
@given(size=st.sampled_from([(4, 2, 2, 1, 4), (5, 2, 2, 2, 3), (5, 2, 3, 1, 5),
                             (4, 3, 2, 2, 6)]),
       zipf=st.sampled_from([0.0, 1.0, 3.0]), seed=st.integers(0, 50))
def test_thm1_epsilon_chain_and_constants(size, zipf, seed) -> None:
    """Every step of the proof's chain (13)-(14) holds for the AoT the proof builds; the AoT
    equals the encoder on the T_ε solved sequences; eq. (14)'s C never exceeds the main text's."""
    N, S, d, d_h, H = size
    task = aot_distribution.full_support_task(N, S, zipf=zipf, seed=seed)
    r = aot_distribution.epsilon_bound(task, d, d_h, H, seed=seed)
    tol = 1e-8
    assert r.T_eps == H * d_h + d and r.T == N**S
    assert r.max_top_logit_error < 1e-6 * max(1.0, r.norm_we)
    assert abs(r.gap) <= r.step1 + tol
    assert r.step1 <= r.step2 + tol
    assert r.step2 <= 2 * r.c_eq14 * r.eps * r.norm_we + tol
    assert 1.0 <= r.c_eq14 <= r.c_main + tol
    assert r.kl_aot <= r.rhs_proof + tol
    assert r.num_parameters == bounds.dana_parameter_count(N, S, d, d_h, H)
    mass = np.sort(task.prior)[::-1][r.T_eps:].sum()
    assert math.isclose(r.eps, mass, rel_tol=1e-12)


def test_thm1_epsilon_small_tail_small_excess_and_errors() -> None:
    """As ε -> 0 the AoT's excess KL vanishes; ε = 0 is refused with a clear error."""
    tab = aot_distribution.epsilon_table(((4, 2, 2, 1, 4),), (0.0, 6.0))
    assert tab["eps"].iloc[1] < 1e-3 < tab["eps"].iloc[0]
    assert tab["gap"].iloc[1] < tab["gap"].iloc[0]
    task = aot_distribution.full_support_task(3, 2)
    with pytest.raises(ValueError, match="below the number of sequences"):
        aot_distribution.epsilon_bound(task, 2, 2, 4)
    with pytest.raises(ValueError, match="zipf"):
        aot_distribution.full_support_task(3, 2, zipf=-1.0)


# ---------------------------------------------------------------------------- Remark 2


@SLOW
@given(N=st.integers(6, 12), S=st.integers(2, 3), d=st.integers(2, 4), d_h=st.integers(1, 4),
       H=st.integers(1, 5), seed=st.integers(0, 200))
def test_rank1_memorizes_capacity(N, S, d, d_h, H, seed) -> None:
    """Remark 2: rank-1 W_QK still memorizes T_0 = H d_h + d associations, with the remark's
    parameter count."""
    d_h = min(d_h, d)
    t0 = H * d_h + d
    tokens, targets = distinct_sequences(t0, N, S, seed=seed)
    # outside the construction's documented limits: not drawn (tested in test_construction_aot)
    assume(int((tokens == tokens[:, :1]).all(dim=1).sum()) <= d + H * (S - 1)
           and t0 <= H * d_h + min(d, len(set(tokens[:, -1].tolist()))))
    try:
        model, rep = aot_rank1.memorize_rank1(tokens, targets, N, d, d_h, H, seed=seed)
    except RuntimeError:
        # Allowed only where the features cannot reach rank T_0 at all (not a numerical
        # accident): e.g. N=8, S=2, d=d_h=4, H=1, seed=86 gives rank 7 < 8 on every draw, with
        # rank-1 and full-rank W_QK alike (the Lemma 2 gap for non-generic sets that the Dana
        # chapter records). A full-rank feature matrix that fails is a bug.
        for attempt in range(3):
            w = aot_draw.draw(N, S, d, d_h, H, qk_rank=1, seed=seed + attempt)
            assert np.linalg.matrix_rank(aot_draw.features(w, tokens)) < t0
        return
    with torch.no_grad():
        assert torch.equal(model(tokens).argmax(dim=1), targets)
    assert rep.max_qk_rank == 1 and rep.accuracy == 1.0
    assert rep.remark2_parameters == bounds.dana_parameter_count_rank1(N, S, d, d_h, H)


def test_rank1_refuses_beyond_capacity_and_counts() -> None:
    tokens, targets = distinct_sequences(13, 10, 2, seed=0)
    with pytest.raises(ValueError, match="capacity"):
        aot_rank1.memorize_rank1(tokens, targets, 10, 2, 2, 5)
    model = aot_draw.model_from_arrays(
        np.ones((3, 2)), np.ones((2, 2)), np.ones((1, 2, 2)), np.ones((1, 2, 2)),
        np.ones((1, 2, 2)), np.ones((1, 2, 2)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="rank 1"):
        aot_rank1.remark2_parameter_count(model)
    assert aot_rank1.feature_rank_all(5, 2, 2, 2, 3, qk_rank=1) == 8


# ------------------------------------------------------------------ Cor. 2 instantiated


def test_corollary2_constructed_accuracy() -> None:
    """The memorized bigrams are all recalled; the accuracy decomposes into memorized + rest;
    memorizing all N^2 bigrams gives accuracy 1 = φ(N^2)."""
    r = aot_accuracy.constructed_accuracy(10, 2, 2, 9, seed=3)
    assert r["X"] == 20 and r["memorized"] == 1.0
    assert math.isclose(r["accuracy"], (20 + r["accuracy_rest"] * 80) / 100)
    assert math.isclose(r["phi"], bounds.dana_accuracy_lower_bound(20, 10, 100))
    full = aot_accuracy.constructed_accuracy(6, 2, 2, 17, seed=0)
    assert full["X"] == 36 and full["accuracy"] == 1.0 and full["phi"] == 1.0


def test_corollary2_holds_on_average_over_tasks() -> None:
    """Over random tasks the mean accuracy is φ(X) within sampling error (1/N on the rest)."""
    tab = aot_accuracy.corollary2_table(8, 2, 2, [5], tasks=30)
    row = tab.iloc[0]
    assert abs(row["accuracy_mean"] - row["phi"]) <= 3 * row["accuracy_sd"] / math.sqrt(30)
    assert abs(row["accuracy_rest_mean"] - 1 / 8) < 0.05


# --------------------------------------------------------------------- Thm 2 at N >= 869


def test_informative_dimensions() -> None:
    assert jl_lookup.smallest_informative_vocab() == (868, 869)
    assert list(jl_lookup.informative_dimensions(868)) == []
    assert list(jl_lookup.informative_dimensions(869)) == [867]
    assert list(jl_lookup.informative_dimensions(50)) == []
    for n in (900, 1500):
        ds = jl_lookup.informative_dimensions(n)
        assert all(bounds.dana_jl_nonvacuous(n, d) and d < n - 1 for d in ds)
        assert not bounds.dana_jl_nonvacuous(n, ds.start - 1)


@SLOW
@given(N=st.integers(3, 30), d=st.integers(2, 40), eps=st.floats(0.01, 0.9),
       seed=st.integers(0, 500))
def test_reoptimised_lambda_is_the_minimum(N, d, eps, seed) -> None:
    """The re-optimised λ gives a KL no larger than the theorem's λ, nor than a grid of λ."""
    p, g = low_entropy_conditionals(6, N, eps, seed=seed)
    w = jl_unembedding(N, d, seed=seed)
    gram = w @ w.T
    off = gram - np.diag(np.diag(gram))
    assume(not np.any(off.max(axis=0) >= 1.0 - 1e-9))  # distinct unit rows (Thm 2's W)
    reopt = jl_lookup.reoptimised_lambda(p, w, g)
    theorem = lookup_table_kl(p, w, g)
    assert (reopt["lam"] >= 0).all()
    assert (reopt["kl"] <= theorem["kl"] + 1e-9).all()
    for i in range(len(g)):
        grid = np.linspace(0, 4 * reopt["lam"].iloc[i] + 5, 400)
        kls = [expected_kl(p[i:i + 1], (lam * gram[:, g[i]])[None]) for lam in grid]
        assert reopt["kl"].iloc[i] <= min(kls) + 1e-7


def test_thm2_point_bound_holds_and_is_loose() -> None:
    pt = jl_lookup.thm2_point(869, 867, num_sequences=60)
    assert pt["c_jl"] < 0.5 and pt["c_empirical"] <= pt["c_jl"]
    assert pt["kl_reoptimised_lambda"] <= pt["kl_theorem_lambda"] <= pt["bound"]
    assert pt["looseness_vs_theorem_lambda"] > 10


# ------------------------------------------------------- slides' least-squares mappings


@SLOW
@given(T=st.integers(8, 30), N=st.integers(4, 10), d=st.integers(1, 3),
       noise=st.floats(0.0, 2.0, allow_subnormal=False), seed=st.integers(0, 500))
def test_least_squares_fits(T, N, d, noise, seed) -> None:
    """f_ls is the rank-d truncation (rank <= d, no worse than another rank-d matrix in
    Frobenius norm); f_wls has a weighted error no larger than f_ls's (both with optimal
    per-row shifts)."""
    p = encoder_least_squares.near_rank_d_conditionals(T, N, d, noise, seed=seed)
    centred = encoder_least_squares.centred_log(p)
    f_ls = encoder_least_squares.least_squares_logits(p, d)
    assert np.linalg.matrix_rank(f_ls, tol=1e-8) <= d
    rng = np.random.default_rng(seed)
    u, sv, vt = np.linalg.svd(centred + 0.1 * rng.standard_normal((T, N)))
    other = (u[:, :d] * sv[:d]) @ vt[:d]  # another rank-d matrix
    assert np.linalg.norm(centred - f_ls) <= np.linalg.norm(centred - other) + 1e-9
    f_wls = encoder_least_squares.weighted_least_squares_logits(p, d, iterations=30)
    assert np.linalg.matrix_rank(f_wls, tol=1e-8) <= d

    def weighted_error(f: np.ndarray) -> float:
        r = f - np.log(p)
        r = r - (p * r).sum(axis=1, keepdims=True)  # optimal shift under weights π_t
        return float((p * r**2).sum() / T)

    assert weighted_error(f_wls) <= weighted_error(f_ls) + 1e-9


def test_least_squares_exact_rank_and_bounds() -> None:
    """Noise 0: log π has centred rank d, σ_{d+1} = 0, both fits reach KL 0; the bounds grow
    with the noise and hold on the chapter's table."""
    p = encoder_least_squares.near_rank_d_conditionals(20, 8, 2, 0.0, seed=1)
    b = encoder_least_squares.slide_bounds(p, 2)
    assert b["sigma"] < 1e-10
    assert expected_kl(p, encoder_least_squares.least_squares_logits(p, 2)) < 1e-12
    tab = encoder_least_squares.least_squares_table((0.01, 0.1, 1.0))
    assert tab["sigma"].is_monotonic_increasing and tab["ls_slides"].is_monotonic_increasing
    assert tab[["ls_slides_holds", "wls_slides_holds"]].all().all()
    with pytest.raises(ValueError, match="full support"):
        encoder_least_squares.least_squares_logits(np.array([[1.0, 0.0], [0.5, 0.5]]), 1)
    with pytest.raises(ValueError, match="d must be"):
        encoder_least_squares.least_squares_logits(p, 8)


# --------------------------------------------------------------------------- Table 1


@given(N=st.integers(1, 10**5), S=st.integers(1, 4096), T0=st.integers(2, 10**6))
def test_printed_corollary1_count(N, S, T0) -> None:
    """§7 prints 2S + 4N + 8 T_0 for Cor. 1's 2(S + 2N + 4(T_0 - 2)): 16 more, always."""
    exact = bounds.dana_parameter_count_at_capacity(N, S, 2, T0)
    assert prior_work_table.corollary1_printed_count(N, S, T0) == exact + 16


@given(H=st.integers(1, 100), d=st.integers(2, 64), d_h=st.integers(1, 64))
def test_dana_capacity_beats_previous(H, d, d_h) -> None:
    d_h = min(d_h, d)
    gain = bounds.dana_capacity(H, d_h, d) - bounds.dana_previous_capacity(H, d_h)
    assert gain == H + d - 1 > 0


def test_table1_rows_and_orders() -> None:
    tab = prior_work_table.table1(50, 2, 10, 10, 20)
    assert len(tab) == 6
    dana = tab[tab["paper"] == "Dana et al. (Cor. 1)"].iloc[0]
    assert dana["T0"] == 210 and dana["parameters_at_T0"] == 9020
    long = prior_work_table.table1(50257, 1024, 768, 64, 12)
    mahdavi = long[long["paper"].str.startswith("Mahdavi")]
    assert not mahdavi["condition_holds"].any()  # S = 1024 > d = 768
    assert bounds.kim2023_parameter_order(100, 2, 50) == pytest.approx(
        52 + math.sqrt(100 * math.log(100)))
    with pytest.raises(ValueError, match="S \\+ 2"):
        bounds.huben_morris_parameter_order(10, 5, 10, 6)
    assert bounds.linear_parameter_order(10, 2, 3) == 15


# ------------------------------------------------------------- Bietti et al. memory


@settings(max_examples=15, deadline=None)
@given(N=st.integers(2, 25), d=st.integers(1, 40), seed=st.integers(0, 1000))
def test_bietti_capacity_matches_direct_recall(N, d, seed) -> None:
    """The capacity equals the largest m for which the memory of the first m associations,
    built directly as Σ_i w_U(g(i)) w_E(i)^T, recalls all m."""
    cap = associative_memory.capacity(N, d, seed=seed)
    rng = np.random.default_rng(seed)
    w_e = rng.standard_normal((N, d)) / math.sqrt(d)
    w_u = rng.standard_normal((N, d)) / math.sqrt(d)
    g = rng.integers(0, N, N)
    ok = [True]
    for m in range(1, N + 1):
        memory = w_u[g[:m]].T @ w_e[:m]
        logits = w_e[:m] @ memory.T @ w_u.T
        ok.append(bool((logits.argmax(axis=1) == g[:m]).all()))
    good = [m for m in range(N + 1) if ok[m]]
    assert cap == max(good)


def test_bietti_capacity_grows_with_d() -> None:
    tab = associative_memory.capacity_table([60], [4, 64, 256], seeds=2)
    mean = tab.groupby("d")["capacity"].mean()
    assert mean.loc[4] < mean.loc[64] <= mean.loc[256] == 60


# ------------------------------------------------------------------------ scorecard


def test_dana_theory_verdicts_are_computed() -> None:
    from memnb.scorecard import dana_theory

    statuses = {}
    for name, fn in dana_theory.VERDICTS.items():
        v = fn()
        assert isinstance(v, Verdict) and v.measured, name
        statuses[name] = v.status
    assert statuses == {
        # eq. (4) with eq. (14)'s C holds at 16/16 AoTs built as in the proof
        "Thm 1 (ε > 0)": "reproduced",
        # rank-1 W_QK AoTs memorize T0 = H d_h + d at 100 % with exact logits
        "Remark 2": "reproduced",
        # the bound holds (≥ the look-up table's KL) at N = 869, 1000, 1493
        "Thm 2 (N ≥ 869)": "reproduced",
        # memorized bigrams all recalled; mean accuracy within 2 standard errors of φ(X) in
        # every unsaturated row (φ reached on average over tasks, not on each task): trend
        "Cor. 2 (constructed)": "trend",
        # both slides' bounds hold on every near-rank-3 prior
        "Slides: f_ls, f_wls": "reproduced",
        # capacity gain H + d − 1 and the d = 2 count (the printed one less 16) recomputed
        "Table 1": "reproduced",
        # the log–log exponent's interval (1.13 to 2.3) excludes 1: not linear in d
        "Bietti et al. memory": "differs",
        # a draw recalls more than d at 100 % (N = 200, d = 64: 66; N = 200, d = 128: 200)
        "Rank-d memory, at most d (Sec. 5.1)": "differs",
    }


def test_table1_cites_dana_sec_7_and_flags_the_mahdavi_reconstruction() -> None:
    """Mahdavi et al.'s Theorem 1 is known here only from our notes' [reconstruction]; the
    verdict gives Dana et al.'s Sec. 7 form of it (Q, the rank of the query family) beside."""
    from memnb.scorecard import dana_theory

    text = dana_theory.table1().measured
    assert "Dana et al.'s Sec. 7 states Mahdavi et al.'s limit as T_0 ≤ H(min(Q, d_h) − 1) + 1" in (
        text)
    assert "[reconstruction], H(min(n, d_h) − 1) + 1 for context length n" in text
    assert "own statement" not in text


# ------------------------------------------------- readings and verdicts follow their numbers


def _cor2_frame(means: list[float], phi: float = 0.2, sd: float = 0.02) -> pd.DataFrame:
    rows = [{"N": 10, "d": 2, "d_h": 2, "H": h, "X": 10 + h, "phi": phi, "accuracy_mean": m,
             "accuracy_sd": sd, "accuracy_min": m - sd, "memorized": 1.0,
             "accuracy_rest_mean": 0.1, "below_phi": 0.5, "tasks": 10}
            for h, m in enumerate(means)]
    frame = pd.DataFrame(rows)
    se = frame["accuracy_sd"] / np.sqrt(frame["tasks"])
    return frame.assign(se=se, z=(frame["accuracy_mean"] - frame["phi"]) / se, saturated=False)


def test_corollary2_reading_says_meets_only_when_no_mean_is_below_phi() -> None:
    from memnb.scorecard import dana_theory

    below = dana_theory.corollary2_reading(_cor2_frame([0.195, 0.198, 0.203]))
    assert "meets" not in below and "below φ in 2 of 3" in below
    assert "consistent with an expected accuracy of exactly φ" in below
    assert "meets φ" in dana_theory.corollary2_reading(_cor2_frame([0.2, 0.21]))
    far = dana_theory.corollary2_reading(_cor2_frame([0.1, 0.2]))
    assert far.startswith("The construction falls short of φ")
    assert dana_theory.corollary2(tab=_cor2_frame([0.1, 0.2])).status == "differs"
    assert dana_theory.corollary2(tab=_cor2_frame([0.195, 0.205])).status == "trend"


def test_corollary2_chapter_and_verdict_read_one_table() -> None:
    from memnb.scorecard import dana_theory

    tab = dana_theory.corollary2_table()
    assert list(tab["H"]) == list(dana_theory.COR2_HEADS)
    s = dana_theory.corollary2_summary(tab)
    v = dana_theory.corollary2(tab=tab)
    assert f"from {s['diff_min']:+.3f} to {s['diff_max']:+.3f}" in v.measured
    assert f"tasks below φ: {s['tasks_below']:.0%}" in v.measured
    assert f"{s['tasks_below']:.0%} of the" in dana_theory.corollary2_reading(tab)
    # the corollary is per task (some AoT for each π): one draw per task leaves that untested
    assert "leaves the per-task existence untested" in dana_theory.corollary2_reading(tab)
    assert "the claim, some AoT ≥ φ for each task, is then not tested" in v.measured
    assert f"within {dana_theory.COR2_SE:g} standard errors" in v.measured


def test_thm1_verdict_quotes_the_chapter_table_with_one_ratio() -> None:
    from memnb.scorecard import dana_theory

    tab = dana_theory.thm1_table()
    v = dana_theory.thm1_epsilon(tab=tab)
    assert f"{len(tab)} AoTs" in v.measured and "looseness" not in v.measured
    ratio = tab["looseness_eq14"]
    assert f"from {ratio.min():.3g}×" in v.measured and f"to {ratio.max():.4g}×" in v.measured
    assert "generic sets" in v.measured and "Lemma 2" in v.measured
    assert v.values["generic"] == bool((tab["last_tokens"] >= tab["d"]).all())
    # the row-centred reading the chapter shows (ours), computed by the verdict itself
    centred = dana_theory.thm1_row_centred(tab)
    loose = centred["looseness_centred"]
    shrunk = int((centred["norm_we_centred"] < centred["norm_we"] * (1 - 1e-9)).sum())
    # centring never raises the norm, so never the ratio; which rows it lowers, and whether
    # the largest ratio is among them, depends on the fit (the CPU's rounding moves it)
    assert 0 < shrunk < len(tab) and (loose <= ratio * (1 + 1e-9)).all()
    assert (f"||WE||_2 shrinks on {shrunk} of {len(tab)} rows and the excess ratio runs from "
            f"{loose.min():.3g}× to {loose.max():.4g}×") in v.measured
    assert (v.values["centred_min"], v.values["centred_max"]) == (loose.min(), loose.max())
    assert v.values["centred_shrunk"] == shrunk
    # given the centred table (as the chapter does), the verdict reads it without a refit
    again = dana_theory.thm1_epsilon(tab=centred.assign(
        looseness_centred=loose * 2, norm_we_centred=centred["norm_we_centred"] * 2))
    assert f"to {2 * loose.max():.4g}×" in again.measured


def test_uniform_kl() -> None:
    from memnb.scorecard import dana_theory

    assert dana_theory.uniform_kl(np.full((3, 7), 1 / 7)) == pytest.approx(0.0, abs=1e-12)
    assert dana_theory.uniform_kl(np.eye(7)[:4]) == pytest.approx(math.log(7))


def test_thm2_informative_needs_a_bound_below_the_uniform_kl() -> None:
    from memnb.scorecard import dana_theory

    row = {"N": 900, "d": 890, "T": 900, "bound": 50.0, "kl_theorem_lambda": 0.6,
           "kl_reoptimised_lambda": 0.05, "uniform_kl": 5.9, "log_N": math.log(900),
           "informative": False}
    nowhere = dana_theory.thm2_informative(tab=pd.DataFrame([row]))
    assert nowhere.status == "not computable" and "nowhere" in nowhere.measured
    some = dana_theory.thm2_informative(tab=pd.DataFrame(
        [row, {**row, "N": 1500, "bound": 5.0, "informative": True}]))
    assert some.status == "reproduced" and "first informative" in some.measured
    margin = dana_theory.thm2_margin(869, 867, num_sequences=900)
    assert not margin["informative"] and margin["bound"] > margin["log_N"]


def test_bietti_status_follows_the_about_d_reading() -> None:
    from memnb.scorecard import dana_theory

    ds = [8, 16, 32, 64]
    near = pd.DataFrame({"N": 500, "d": ds, "capacity": [float(d) for d in ds]})
    assert dana_theory.bietti_capacity(tab=near).status == "reproduced"
    below = pd.DataFrame({"N": 500, "d": ds, "capacity": [3.0, 9.0, 22.0, 45.0]})
    v = dana_theory.bietti_capacity(tab=below)
    assert v.status == "trend" and "outside: N=500, d=8" in v.measured
    assert "here 'linear in d' holds" in v.measured and "'about d' does not hold" in v.measured
    flat = pd.DataFrame({"N": 500, "d": ds, "capacity": [3.0, 1.0, 3.0, 1.0]})
    assert dana_theory.bietti_capacity(tab=flat).status == "differs"


def test_bietti_linear_in_d_is_tested_by_the_log_log_exponent() -> None:
    """A straight line with a slope near 1 is not enough for "linear in d": capacity growing as
    d² (slope of a line through it within 50 % of 1) has a log–log exponent whose interval
    excludes 1, so the row differs and says the growth is faster than in proportion to d."""
    from memnb.scorecard import criteria, dana_theory

    ds = [8, 16, 32, 64]
    square = pd.DataFrame({"N": 5000, "d": ds, "capacity": [d * d / 64 for d in ds]})
    assert criteria.linear_trend(square["d"], square["capacity"], expected_slope=1.0,
                                 rel_tol=0.5).status == "reproduced"
    v = dana_theory.bietti_capacity(tab=square)
    assert v.status == "differs" and not v.values["linear"]
    assert v.values["exponent"] == pytest.approx(2.0)
    assert "log–log fit of capacity against d: exponent 2 (95 % CI 2 to 2)" in v.measured
    assert "'linear in d' does not hold: the slope is within 50 % of 1, but the log–log " \
        "exponent's 95 % interval (2.00 to 2.00) excludes 1 (growth faster than in " \
        "proportion to d)" in v.measured
    assert dana_theory.bietti_growth(v.values) == "faster than in proportion to d"
    assert dana_theory.bietti_growth({"exponent_low": 0.2, "exponent_high": 0.8}) == (
        "slower than in proportion to d")
    assert dana_theory.bietti_growth({"exponent_low": -math.inf, "exponent_high": math.inf}) == (
        "not measured: no interval on the exponent")
    exact = dana_theory.bietti_capacity(tab=square.assign(capacity=[0.7 * d for d in ds]))
    assert exact.status == "reproduced" and dana_theory.bietti_growth(exact.values) == (
        "in proportion to d")
    # the committed sizes: a line of slope near 1 with a large negative intercept, whose
    # capacity/d rises with d; the exponent's interval excludes 1, so linearity is not shown
    real = dana_theory.bietti_capacity()
    fit = real.values
    assert f"exponent {fit['exponent']:.3g} (95 % CI" in real.measured
    assert not fit["exponent_low"] <= 1 <= fit["exponent_high"]  # 1.13 to 2.3 today
    assert real.status == "differs" and "'linear in d' does not hold" in real.measured


def test_condition_reading_claims_growth_only_when_monotone() -> None:
    from memnb.scorecard import dana_theory

    rising = pd.DataFrame({"num_sequences": [12, 22, 34], "cond_features": [1e3, 1e4, 1e5]})
    assert "rising with T_0 at every step" in dana_theory.condition_reading(rising)
    dip = pd.DataFrame({"num_sequences": [12, 22, 34], "cond_features": [7.6e3, 5.5e4, 3.3e3]})
    text = dana_theory.condition_reading(dip)
    assert "not at every step" in text and "T_0 = 34 has 3.3e+03, below T_0 = 22's" in text


def test_thm1_row_centred_reading_keeps_rank_and_predictions_and_shrinks_the_norm() -> None:
    """Thm 1 (ε > 0) with the per-row-centred logits (ours, memnb.scorecard.dana_theory): the refit
    reproduces the table's ||WE||_2, centring keeps the encoder of rank ≤ d with the same KL,
    never raises the norm and lowers it where the fit left a per-row shift (at (4,2,2,1,4),
    Zipf 4, by a factor of about three), so the excess ratio falls with it; eq. (4) still holds."""
    from memnb.lookup_tables import fit_rank_d_encoder
    from memnb.scorecard import dana_theory

    tab = aot_distribution.epsilon_table(((4, 2, 2, 1, 4),), (0.0, 4.0))
    out = dana_theory.thm1_row_centred(tab)
    assert (out["rank_centred"] <= out["d"]).all()
    assert (out["norm_we_centred"] <= out["norm_we"] * (1 + 1e-12)).all()
    assert out["holds_centred"].all()
    zipf4 = out[out["zipf"] == 4.0].iloc[0]
    # by a factor of about 3 (2.98 on one CPU, above 3 on another: the fit's per-row shift
    # moves with the CPU's rounding), well beyond rounding
    assert zipf4["norm_we"] / zipf4["norm_we_centred"] > 2
    assert zipf4["looseness_centred"] == pytest.approx(
        zipf4["looseness_eq14"] * zipf4["norm_we_centred"] / zipf4["norm_we"])
    # the centred logits predict what the fitted ones do (same KL)
    task = aot_distribution.full_support_task(4, 2, zipf=4.0, seed=0)
    fit = fit_rank_d_encoder(task.conditionals, 2, prior=task.prior, restarts=1, seed=0)
    logits = fit.E @ fit.W.T
    centred = logits - logits.mean(axis=1, keepdims=True)
    assert expected_kl(task.conditionals, centred, task.prior) == pytest.approx(
        zipf4["kl_encoder"], rel=1e-12, abs=1e-15)
    assert np.linalg.norm(centred, 2) == pytest.approx(zipf4["norm_we_centred"])
    with pytest.raises(ValueError, match="does not reproduce its norm_we"):
        dana_theory.thm1_row_centred(tab.assign(norm_we=tab["norm_we"] * 2))


def test_thm2_gap_names_the_jl_factor_not_lambda() -> None:
    """Thm 2 at N = 50 (ours, memnb.figures.dana.thm2_gap): the bound's formula with C = 0 is
    close to the look-up table's KL, and the JL factor (1 + 2C + C d_TV)/(1 − 2C) makes the
    rest; re-optimising λ lowers the table's KL, below the bound's, not toward it."""
    from memnb.figures import dana as figures

    row = jl_lookup.thm2_informative_table(((50, 512),), num_sequences=200).iloc[0]
    gap = figures.thm2_gap(row)
    assert gap["c_jl"] == pytest.approx(math.sqrt(32 * math.log(51) / 512))
    assert gap["bound_c0"] * gap["jl_factor"] == pytest.approx(gap["bound"])
    assert gap["inverse_gap"] == pytest.approx(1 / (1 - 2 * gap["c_jl"]))
    assert gap["jl_factor"] > gap["inverse_gap"] > 100
    assert gap["bound_c0"] == pytest.approx(gap["kl_table"], rel=0.05)
    assert gap["kl_reoptimised"] < gap["kl_table"] < gap["bound"]
    assert gap["ratio"] == pytest.approx(gap["bound"] / gap["kl_table"])
    assert (gap["N"], gap["d"], gap["T"]) == (50, 512, 200)  # the chapter names them from here
    bad = row.copy()
    bad["bound"] = 2 * row["bound"]
    with pytest.raises(ValueError, match="do not reproduce"):
        figures.thm2_gap(bad)


def test_bietti_saturated_points_are_read_from_the_draws():
    """The saturated points the Bietti fit leaves out (mean capacity ≥ 0.8 N): their least mean
    share of N, and how many hold all N in every draw (a mean of 48 of 50 is one draw short)."""
    from memnb.scorecard import dana_theory

    tab = pd.DataFrame({"N": 50, "d": [8, 8, 8, 64, 64, 64, 128, 128, 128],
                        "capacity": [2, 3, 3, 50, 44, 50, 50, 50, 50]})
    found = dana_theory.bietti_saturated(tab)
    assert found == {"points": 2, "least_share": 0.96, "all_n": 1}
    none = dana_theory.bietti_saturated(tab[tab["d"] == 8])
    assert none["points"] == 0 and none["all_n"] == 0 and math.isnan(none["least_share"])
