"""Closed-form capacity and parameter-count formulas of the three papers, one function each.

Every function validates its inputs (``ValueError`` naming the parameter and the allowed range)
and cites the statement it implements. Papers:

* Dana, Pydi & Chevaleyre, *Memorization in Attention-only Transformers*, AISTATS 2025.
* Mahdavi, Liao & Thrampoulidis, *Memorization Capacity of Multi-Head Attention in
  Transformers*, ICLR 2024.
* Kajitsuka & Sato, ICLR 2025 (section at the end of the module).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from memnb.validation import check_int


def _int(name: str, value: object, low: int = 1, high: int | None = None) -> int:
    """:func:`memnb.validation.check_int` with ``low = 1`` by default (sizes and counts)."""
    return check_int(name, value, low, high)


# --- Dana, Pydi & Chevaleyre (AISTATS 2025) ---------------------------------------------------


def dana_capacity(H: int, d_h: int, d: int) -> int:
    """Associations an AoT memorizes: ``H d_h + d``.

    Dana et al. (AISTATS 2025), Thm 1 with ε = 0 (``d_h H + d >= T_0``) and Cor. 1 (``H d_h + 2``
    with ``d = 2``); the paper assumes ``d_h <= d``. ``H = 0`` leaves the skip connection alone.
    """
    d = _int("d", d)
    return _int("H", H, 0) * _int("d_h", d_h, 1, d) + d


def dana_parameter_count(N: int, S: int, d: int, d_h: int, H: int) -> int:
    """Parameters of the AoT of eq. (2): ``d (S + 2N + 4 d_h H)``.

    Dana et al. (AISTATS 2025), Thm 1: ``e`` (N d), ``pos`` (S d), ``W_U`` (N d) and per head
    ``W_Q, W_K, W_V`` (3 d_h d) and ``W_O`` (d d_h).
    """
    d = _int("d", d)
    return d * (_int("S", S) + 2 * _int("N", N) + 4 * _int("d_h", d_h, 1, d) * _int("H", H, 0))


def dana_parameter_count_rank1(N: int, S: int, d: int, d_h: int, H: int) -> int:
    """Parameters with rank-1 ``W_QK^h`` (``W_Q, W_K ∈ R^d``): ``d (S + 2N + 2 (d_h + 1) H)``.

    Dana et al. (AISTATS 2025), Remark 2.
    """
    d = _int("d", d)
    return d * (_int("S", S) + 2 * _int("N", N)
                + 2 * (_int("d_h", d_h, 1, d) + 1) * _int("H", H, 0))


def dana_parameter_count_at_capacity(N: int, S: int, d: int, T0: int) -> int:
    """Parameters of the AoT that memorizes ``T_0`` associations: ``d (S + 2N + 4 (T_0 - d))``.

    Dana et al. (AISTATS 2025), Thm 1 with ε = 0 (``H d_h = T_0 - d``); with ``d = 2`` this is
    Cor. 1's ``2 (S + 2N + 4 (T_0 - 2))``. Requires ``T_0 >= d``.
    """
    d = _int("d", d)
    return d * (_int("S", S) + 2 * _int("N", N) + 4 * (_int("T0", T0, d) - d))


def dana_accuracy_lower_bound(X: ArrayLike, N: int, T0: int) -> float | np.ndarray:
    """``φ(X) = 1/N + (1 - 1/N) X / T_0``, clipped at 1.

    Dana et al. (AISTATS 2025), Cor. 2: with a uniform prior over ``T_0`` associations, a model
    that memorizes ``X`` of them and guesses uniformly on the rest has expected accuracy
    ``φ(X)``; ``X = H d_h + d`` gives the paper's bound and ``X = H (d_h - 1) + 1`` the
    "previous lower bound" of its plots. Accepts a scalar or an array ``X >= 0``.
    """
    N = _int("N", N)
    T0 = _int("T0", T0)
    x = np.asarray(X, dtype=float)
    if not np.all(np.isfinite(x)) or np.any(x < 0):
        raise ValueError(f"X must be finite and >= 0, got {X!r}")
    phi = np.minimum(1.0, 1.0 / N + (1.0 - 1.0 / N) * x / T0)
    return float(phi) if phi.ndim == 0 else phi


def dana_expected_accuracy_bound(H: int, d_h: int, d: int, N: int, T0: int) -> float:
    """``1/N + (1 - 1/N)(H d_h + d)/T_0`` clipped at 1: Dana et al. (AISTATS 2025), Cor. 2."""
    return float(dana_accuracy_lower_bound(dana_capacity(H, d_h, d), N, T0))


def dana_previous_capacity(H: int, d_h: int) -> int:
    """``H (d_h - 1) + 1``: the "previous lower bound" curve of Dana et al.'s plots (Figs 1-4).

    It is Mahdavi et al. (ICLR 2024) Thm 1, ``H (min(n, d_h) - 1) + 1``, with ``n >= d_h``
    (see :func:`mahdavi_capacity`).
    """
    return _int("H", H, 0) * (_int("d_h", d_h) - 1) + 1


def dana_jl_constant(N: int, d: int) -> float:
    """``C = sqrt(32 log(N + 1) / d)``: the Johnson-Lindenstrauss coherence of Thm 2.

    Dana et al. (AISTATS 2025), Thm 2: there is ``W ∈ R^{d×N}`` whose Gram matrix satisfies
    ``||W^T W - I||_∞ <= C``; the bound of Thm 2 is finite only when ``C < 1/2``. This ``N × N``
    reading (the products ``W_i^T W_j`` of the columns, which the JL lemma on the canonical basis
    bounds, and which :func:`memnb.lookup_tables.coherence` computes on the ``[N, d]`` rows)
    departs from the printed form (ours): the paper prints ``||W W^T - Id||_∞ <= C`` with
    ``W ∈ R^{d,N}``, literally a ``d × d`` matrix. This function computes only the constant ``C``.
    """
    return math.sqrt(32.0 * math.log(_int("N", N) + 1) / _int("d", d))


def dana_jl_threshold(N: int) -> float:
    """``128 ln(N + 1)``: Thm 2 of Dana et al. (AISTATS 2025) is non-vacuous iff ``d`` exceeds it.

    ``C < 1/2  <=>  32 ln(N+1)/d < 1/4  <=>  d > 128 ln(N+1)`` (for ``N = 50``: ``d > 503``).
    """
    return 128.0 * math.log(_int("N", N) + 1)


def dana_jl_nonvacuous(N: int, d: int) -> bool:
    """Whether Thm 2's bound is finite (``C < 1/2``, i.e. ``d > 128 ln(N+1)``): Dana et al.
    (AISTATS 2025), Thm 2 (§6)."""
    return dana_jl_constant(N, d) < 0.5


# --- Mahdavi, Liao & Thrampoulidis (ICLR 2024) ------------------------------------------------


def mahdavi_capacity(H: int, n: int, d_h: int) -> int:
    """``H (min(n, d_h) - 1) + 1`` examples memorized by one H-head attention layer.

    Mahdavi et al. (ICLR 2024), Thm 1 (under their Assumptions 1-2 and ``n < d``), where ``n``
    is the context length and ``d_h`` the key/query dimension; the formula is our notes'
    [summary + reconstruction] of the theorem, not checked against its printed statement.
    """
    return _int("H", H) * (min(_int("n", n), _int("d_h", d_h)) - 1) + 1


def mahdavi_parameter_count(H: int, d: int, d_h: int, d_v: int, d_o: int) -> int:
    """``2 H d d_h + 2 H d d_v + d d_o``: parameters of the H-head layer plus read-out.

    Mahdavi et al. (ICLR 2024), parameter count of Thm 1 (``W_K, W_Q ∈ R^{d×d_h}``,
    ``W_V ∈ R^{d×d_v}`` per head, ``W_O ∈ R^{H d_v × d}``, read-out ``W_D ∈ R^{d×d_o}``): the
    paper's Θ(H d (d_h + d_v)); the exact sum is our notes' [summary] reading.
    """
    H, d = _int("H", H), _int("d", d)
    return 2 * H * d * _int("d_h", d_h) + 2 * H * d * _int("d_v", d_v) + d * _int("d_o", d_o)


def mahdavi_shared_context_rank_bound(H: int, n: int) -> int:
    """``H (n - 1) + 1``: rank of the attention features with a shared context, for any weights.

    Mahdavi et al. (ICLR 2024), Prop. 2 (tightness of Thm 1 when ``E^(t) = E`` for all t).
    """
    return _int("H", H) * (_int("n", n) - 1) + 1


def mahdavi_constant_sum_rank_bound(H: int, d: int) -> int:
    """``H (d - 1) + 1``: feature rank when every context token's entries sum to a constant.

    Mahdavi et al. (ICLR 2024), Prop. 5 (App. I), for any weights.
    """
    return _int("H", H) * (_int("d", d) - 1) + 1


# --- Kajitsuka & Sato (ICLR 2025) ---
# Symbols: N sequences of length n over a vocabulary of V tokens in R^d, labels in [C].
# Kajitsuka & Sato state their bounds up to constants and log factors (Õ, Ω); the functions
# below drop both, so only the *shape* of each curve is meaningful, never its height.


def kajitsuka_sufficient(N: int, n: int = 1, *, task: str = "next_token") -> float:
    """``sqrt(N)`` (Thm 4.1, next-token) or ``sqrt(n N)`` (Cor. 4.1, seq-to-seq), logs dropped.

    Kajitsuka & Sato (ICLR 2025): Õ(√N) parameters suffice to memorize N sequences for
    next-token prediction (nearly independent of n), Õ(√(nN)) for sequence-to-sequence.
    """
    N, n = _int("N", N), _int("n", n)
    if task not in ("next_token", "seq2seq"):
        raise ValueError(f"task must be 'next_token' or 'seq2seq'; got {task!r}")
    return math.sqrt(N * (n if task == "seq2seq" else 1))


def kajitsuka_lower_bound(N: int, n: int = 1, *, task: str = "next_token") -> float:
    """``sqrt(N)`` (Thm 4.2) or ``sqrt(n N)`` (seq-to-seq, hardmax): the shape of the lower bound.

    Kajitsuka & Sato (ICLR 2025), Thm 4.2 (its title is in our sources, its content
    [unverified]): memorizing every dataset of N sequences needs Ω(√N) parameters. For
    seq-to-seq with hardmax attention, Ω(√(nN)) is a further theorem of the paper (its number
    is not in our sources; the abstract states the bound). Argument
    [reconstruction, chapter notes §1]: with all tokens of a sequence equal, attention returns
    its input, so the Transformer is a token-wise ReLU network on N points; its VC dimension is
    O(P²) (O(P L log P) for L layers), and memorizing all labelings of N points needs VC
    dimension >= N, so P = Ω(√N) (up to logs). Constants are unknown: the curve is ``sqrt(N)``.
    """
    return kajitsuka_sufficient(N, n, task=task)


def kajitsuka_information_floor_bits(N: int, C: int) -> float:
    """``N log2 C``: bits any model needs to memorize N arbitrary labels in [C].

    A counting bound of ours (our notes set it against Kajitsuka & Sato's (ICLR 2025) Remark
    4.4, "Optimality in terms of bit counts", but do not give it as the remark's content, which
    is [unverified: only the remark's title is in our sources])."""
    return _int("N", N) * math.log2(_int("C", C))


def kim_parameter_count(N: int, n: int, d: int) -> float:
    """``d + n + sqrt(n N)``: Kim, Kim & Mozafari (ICLR 2023), Õ(d + n + √(nN)), seq-to-seq.

    As compared in Kajitsuka & Sato's Table 1 (logs dropped).
    """
    return _int("d", d) + _int("n", n) + math.sqrt(n * _int("N", N))


def park_parameter_count(N: int) -> float:
    """``N^(2/3)``: Park, Lee, Yun & Shin (COLT 2021), O(N^{2/3}) parameters for a ReLU network
    memorizing N points (logs dropped)."""
    return _int("N", N) ** (2.0 / 3.0)


def naive_parameter_count(N: int) -> float:
    """``N``: the naive Θ(N) memorizer (about one neuron / parameter per sample)."""
    return float(_int("N", N))


def kajitsuka_construction_parameter_model(N: int, n: int, C: int, V: int, *,
                                           task: str = "next_token",
                                           positional: bool | None = None) -> int:
    """Predicted parameter count of ``memnb.constructions.seq_id.memorize`` (our construction).

    A closed form of the layer sizes of our [reconstruction] of Kajitsuka & Sato's (ICLR 2025)
    Thm 4.1 / Cor. 4.1 construction (chapter notes §2; our widths and constants, not the
    paper's) for integer tokens ``z`` in ``[0, V)``, whose IDs are ``w = z``, or with
    ``positional`` token IDs ``w = n z + k`` (by default only for
    seq-to-seq, as :func:`memnb.constructions.seq_id.scaling.construction_sizes` builds them;
    ``b_w`` bits). ``M`` = number of IDs (N, or nN for seq-to-seq),
    prime ``p ~ 2^{b_w} M^2`` (``b_p`` bits), ``L = bitlength(n p 2^{b_w})`` bits per ID,
    ``K = bitlength(C - 1)`` bits per label, ``ρ = ceil(sqrt(M / (L + 3)))``, ``m = ceil(M/ρ)``:

    * FFN₁ (hash ``a^w mod p``): ``b_w (56 b_p + 43) + 10`` (per bit of ``w``: one bit layer,
      ``b_p`` reduction layers of width 7, one gate);
    * attention: 12;
    * FFN₂ (memorizer): ``30 (m - 1) + ρ (60 + 110 (K - 1) + 88 + 72 (L - K - 1) + 139) + 6``
      (block selection, then per slot ``L`` bit layers and three gate layers).

    Layers are counted as dense (``i o + o``). Its gap from the built networks is measured,
    not assumed: within 5 % at n = 8, N = 300 to 4,800 (``tests/test_seq_id.py``), and the
    chapter states the largest gap over its construction sweep
    (:func:`memnb.figures.kajitsuka.closed_form_gap`).
    """
    N, n, C, V = _int("N", N), _int("n", n), _int("C", C), _int("V", V, 2)
    if task not in ("next_token", "seq2seq"):
        raise ValueError(f"task must be 'next_token' or 'seq2seq'; got {task!r}")
    if positional is None:
        positional = task == "seq2seq"
    M = N * (n if task == "seq2seq" else 1)
    z_bits = max(1, (V - 1).bit_length())
    w_max = (2**z_bits - 1) * n + n - 1 if positional else 2**z_bits - 1
    b_w = w_max.bit_length()
    b_p = ((w_max + 1) * max(M, 2) ** 2).bit_length()
    K = max(1, (C - 1).bit_length())
    L = max((n * 2**b_p * (w_max + 1)).bit_length(), K)
    rho = max(1, math.ceil(math.sqrt(M / (L + 3))))
    m = math.ceil(M / rho)
    ffn1 = b_w * (56 * b_p + 43) + 10
    slot = 60 + 110 * (K - 1) + 88 + 72 * max(L - K - 1, 0) + 139
    ffn2 = 30 * (m - 1) + rho * slot + 6
    return int(ffn1 + 12 + ffn2)


# --- Cross-paper comparison (ours): the remaining counts on one axis ---------------------------


def vardi_parameter_count(N: int) -> float:
    """``sqrt(N)``: Vardi, Yehudai & Shamir (ICLR 2022), Õ(√N) parameters for a ReLU network
    memorizing N separated points, optimal up to logs (logs and constants dropped)."""
    return math.sqrt(_int("N", N))


def sequence_mlp_parameter_count(V: int, n: int, C: int, w1: int, w2: int = 0) -> int:
    """Parameters of :class:`memnb.models.sequence_mlp.SequenceMLP` (ours, the classical reference).

    ``n V w_1 + w_1 + C w_1 + C`` with one hidden layer (``w_2 = 0``), else
    ``n V w_1 + w_1 + w_1 w_2 + w_2 + C w_2 + C``.
    """
    nv, C, w1 = _int("V", V) * _int("n", n), _int("C", C), _int("w1", w1)
    w2 = check_int("w2", w2, 0)
    if w2 == 0:
        return nv * w1 + w1 + C * w1 + C
    return nv * w1 + w1 + w1 * w2 + w2 + C * w2 + C


def ffn_attention_parameter_count(input_dim: int, C: int, n: int, blocks: int, d: int,
                                  d_ff: int, H: int, head_dim: int, *, positional: bool = True,
                                  layer_norm: bool = True) -> int:
    """Parameters of Kajitsuka & Sato's (ICLR 2025) experiment model as built by
    :class:`memnb.models.ffn_attention.FFNAttentionTransformer` ([reconstruction] widths).

    ``E_in``: ``d (input_dim + 1)``; positions ``n d``; attention ``4 H head_dim d``; ``E_out``:
    ``C (d + 1)``; each of the ``2 · blocks`` FFN blocks ``2 d d_ff + d_ff + d`` (``+ 2 d`` with
    LayerNorm); the final LayerNorm ``2 d``.
    """
    d, d_ff = _int("d", d), _int("d_ff", d_ff)
    block = 2 * d * d_ff + d_ff + d + (2 * d if layer_norm else 0)
    total = (d * (_int("input_dim", input_dim) + 1) + (_int("n", n) * d if positional else 0)
             + 4 * _int("H", H) * _int("head_dim", head_dim) * d + _int("C", C) * (d + 1)
             + (2 * d if layer_norm else 0))
    return total + 2 * check_int("blocks", blocks, 0) * block


def information_floor_examples(bits: float, C: int) -> float:
    """``bits / log2 C``: the number ``N`` of ``C``-class labels beyond which weights of ``bits``
    bits fit a random labelling with probability at most ``2^(bits - N log2 C)``, below 1 (they
    take at most ``2^bits`` values, and there are ``C^N`` labellings); no single labelling is
    excluded (ours: the counting floor ``N log2 C <= bits`` of
    :func:`kajitsuka_information_floor_bits` read the other way; cf. Kajitsuka & Sato's Remark 4.4,
    whose content is [unverified: only the remark's title is in our sources])."""
    if not (isinstance(bits, int | float) and math.isfinite(bits) and bits >= 0):
        raise ValueError(f"bits must be a finite number >= 0; got {bits!r}")
    C = _int("C", C, 2)
    return bits / math.log2(C)


def dana_best_capacity(P: int, V: int, S: int, *, d: int = 2, d_h: int = 1) -> int:
    """The most associations ``H d_h + d`` that Dana et al.'s (AISTATS 2025) Thm 1 / Cor. 1
    guarantee within a budget of ``P`` parameters, for fixed ``d`` and ``d_h`` (ours: Thm 1 read
    at a budget).

    ``H = floor((P / d - S - 2V) / (4 d_h))`` heads fit; returns 0 when not even ``H = 0`` fits.
    """
    P, V, S, d = _int("P", P), _int("V", V), _int("S", S), _int("d", d, 2)
    d_h = _int("d_h", d_h, 1, d)
    free = P // d - S - 2 * V
    if free < 0:
        return 0
    return dana_capacity(free // (4 * d_h), d_h, d)


def mahdavi_best_capacity(P: int, n: int, C: int, *, d: int, d_h: int, d_v: int = 1) -> int:
    """The most examples ``H (min(n, d_h) - 1) + 1`` that Mahdavi et al.'s (ICLR 2024) Thm 1
    ([summary + reconstruction], see :func:`mahdavi_capacity`) guarantees within ``P``
    parameters (``2 H d (d_h + d_v) + d C``) at fixed ``d, d_h, d_v`` (ours); 0 if no head fits.
    The theorem needs ``n < d`` (``ValueError`` otherwise)."""
    P, n, C, d = _int("P", P), _int("n", n), _int("C", C), _int("d", d)
    d_h, d_v = _int("d_h", d_h), _int("d_v", d_v)
    if n >= d:
        raise ValueError(f"d must exceed n (Mahdavi et al. assume n < d); got n={n}, d={d}")
    H = (P - d * C) // (2 * d * (d_h + d_v))
    return mahdavi_capacity(H, n, d_h) if H >= 1 else 0


# --- Dana et al.'s Table 1 and §7: prior work as Dana et al. state it (orders, constants dropped)


def kim2023_parameter_order(T0: int, S: int, N: int) -> float:
    """``S + N + sqrt(T_0 log T_0)``: Kim, Kim & Mozafari (ICLR 2023) Thm 4.1 as read by Dana et
    al. (AISTATS 2025, §7; their Table 1 prints ``T_0 log T_0`` without the root). An order:
    constants dropped. Capacity ``O(L^2)`` with depth ``L``."""
    T0 = _int("T0", T0, 2)
    return _int("S", S) + _int("N", N) + math.sqrt(T0 * math.log(T0))


def huben_morris_parameter_order(T0: int, S: int, N: int, d: int) -> int:
    """``(d + S)(S + N + T_0)``: attention heads simulating MLP neurons (Huben & Morris 2023), as
    Dana et al. (AISTATS 2025, §7) count them; needs ``d_h >= S + 1`` and ``d >= S + 2``. An
    order: constants dropped."""
    S, d = _int("S", S), _int("d", d)
    if d < S + 2:
        raise ValueError(f"d must be >= S + 2 = {S + 2} (Huben & Morris's construction), got {d}")
    return (d + S) * (S + _int("N", N) + _int("T0", T0))


def linear_parameter_order(T0: int, S: int, N: int) -> int:
    """``S + N + T_0``: the ``O(S + N + T_0)`` of Dana et al.'s (AISTATS 2025) Table 1 for
    Mahdavi et al. and for their own Cor. 1 (constants dropped)."""
    return _int("S", S) + _int("N", N) + _int("T0", T0)
