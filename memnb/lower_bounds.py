"""The lower bounds of Kajitsuka & Sato (ICLR 2025), instantiated: Theorem 4.2 (next-token) and
the seq-to-seq hardmax bound of a further theorem of the paper (its number is not in our sources;
Corollary 4.1 is the matching upper bound, Õ(√(nN)) parameters suffice).

Both bounds follow the same pattern: a Transformer with ``W`` parameters that memorizes *every*
labelling of a set of inputs shatters that set, so its VC dimension is at least the set's size;
a VC-dimension upper bound in ``W`` then forces ``W`` up. The arguments below are ours, not the
paper's proofs, which are not in our sources.

* Theorem 4.2 (next-token, Ω(√N); the theorem's content is [unverified], our notes have its
  title only). Argument [reconstruction, chapter notes §1]: on ``N`` sequences each made of one
  repeated token, the attention layer returns ``x + Σ_h W_O^h W_V^h x`` whatever its scores
  (hardmax or softmax), so the Transformer is a token-wise ReLU network on ``N`` points.
* The seq-to-seq bound (Ω(√(nN)) with hardmax; a further theorem of the paper, its number not in
  our sources): a label at every token of ``N`` sequences of ``n`` *distinct* tokens gives ``nN``
  points that a permutation-equivariant model may label independently (identical-token
  sequences give only ``N``: every position of such a sequence sees the same input). Here the
  attention weights matter, so the whole Transformer's class must have a small VC dimension:
  with hardmax every operation is a polynomial or a sign test in the parameters, which the
  piecewise-polynomial VC bounds cover; softmax's exponential is not.

**Which VC bound, which constants (ours).** The paper's constants are not in our sources. We
instantiate the bound of Bartlett, Harvey, Liaw & Mehrabian (JMLR 2019), Theorem 6, for networks
of piecewise-polynomial units, its formula as we recall it ([unverified]: not checked against the
paper's text here):
``VCdim ≤ L + L̄ W log2(4 e p R log2(2 e p R))`` with ``p + 1`` pieces per activation, effective
depth ``L̄ ≤ L`` and ``R = Σ_i k_i (1 + (i - 1) D^{i-1}) ≤ U L`` for piecewise-linear units
(degree ``D = 1``). ReLU has ``p = 1``. With no assumption on the architecture, ``L ≤ W`` and
``U ≤ W``, so ``R ≤ W²`` (:func:`vc_upper_bound`). For the hardmax seq-to-seq bound we use
the same formula with ``R`` multiplied by ``n²`` for the pairwise score comparisons of each
hardmax over ``n`` positions (*our instantiation, a heuristic*: ``n`` enters only inside the
logarithm, as in the known VC bounds of Transformers).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from memnb.validation import check_int


def bartlett_vc_bound(W: int, L: int, R: int, *, pieces: int = 2, effective_depth: float | None
                      = None) -> float:
    """``L + L̄ W log2(4 e p R log2(2 e p R))``: Bartlett et al. (JMLR 2019), Theorem 6
    ([unverified]: the formula as we recall it).

    ``W`` parameters, ``L`` layers, ``R = Σ_i k_i (1 + (i-1) D^{i-1})`` (``≤ U L`` for
    piecewise-linear units), ``pieces = p + 1`` pieces per activation (2 for ReLU), effective depth
    ``L̄`` (default ``L``, its largest value).
    """
    W, L, R = check_int("W", W, 1), check_int("L", L, 1), check_int("R", R, 1)
    p = check_int("pieces", pieces, 2) - 1
    depth = float(L if effective_depth is None else effective_depth)
    if not 1 <= depth <= L:
        raise ValueError(f"effective_depth must be in 1..L = {L}; got {effective_depth!r}")
    inner = 2 * math.e * p * R
    return L + depth * W * math.log2(4 * math.e * p * R * math.log2(inner))


def vc_upper_bound(W: int, n: int = 1) -> float:
    """The architecture-free bound we instantiate (ours): :func:`bartlett_vc_bound` with ReLU
    (``p = 1``), ``L = L̄ = W`` and ``R = n² W²`` (``n = 1``: the token-wise ReLU network of
    Kajitsuka & Sato's (ICLR 2025) Thm 4.2; ``n`` > 1: the hardmax Transformer of the seq-to-seq
    lower bound, a further theorem of the paper whose number is not in our sources, on sequences
    of length ``n``)."""
    W, n = check_int("W", W, 1), check_int("n", n, 1)
    return bartlett_vc_bound(W, W, n * n * W * W)


def min_parameters(points: int, n: int = 1) -> int:
    """The smallest ``W`` with :func:`vc_upper_bound` ``(W, n) >= points``: fewer parameters cannot
    shatter ``points`` inputs, so cannot memorize every labelling of them (Kajitsuka & Sato,
    ICLR 2025: Thm 4.2 with ``points = N``, ``n = 1``; the seq-to-seq hardmax lower bound, a
    further theorem of the paper whose number is not in our sources, with ``points = nN``;
    Cor. 4.1 is its upper bound)."""
    points, n = check_int("points", points, 1), check_int("n", n, 1)
    hi = 1
    while vc_upper_bound(hi, n) < points:
        hi *= 2
    lo = max(1, hi // 2)
    while lo < hi:  # the bound is increasing in W
        mid = (lo + hi) // 2
        if vc_upper_bound(mid, n) >= points:
            hi = mid
        else:
            lo = mid + 1
    return lo


def equivariant_points(tokens: np.ndarray, task: str = "seq2seq") -> int:
    """How many read-out inputs of ``tokens`` (``[N, n]`` integer IDs) a permutation-equivariant
    model can label independently: distinct (multiset of tokens, read-out token) pairs. ``N`` for
    sequences of one repeated token, ``nN`` (seq-to-seq) for distinct tokens."""
    from memnb.constructions.seq_id.network import check_consistency

    toks = np.asarray(tokens)
    if toks.ndim != 2 or toks.dtype.kind not in "iu":
        raise ValueError(f"tokens must be integer token IDs [N, n]; got {toks.dtype} {toks.shape}")
    if task not in ("next_token", "seq2seq"):
        raise ValueError(f"task must be 'next_token' or 'seq2seq'; got {task!r}")
    shape = toks.shape if task == "seq2seq" else toks.shape[:1]
    keys = check_consistency(toks, np.zeros(shape, dtype=int), task=task)
    return len(set(keys))


def shattering_check(tokens: np.ndarray, task: str = "seq2seq", max_labels: int = 12
                     ) -> dict[str, int]:
    """Try every binary labelling of ``tokens`` with our construction (hardmax, no positional
    encoding; :func:`memnb.constructions.seq_id.memorize`).

    Returns ``labels`` (labels per labelling), ``labellings`` (``2^labels``), ``memorized`` (built
    and reproduced exactly), ``refused`` (inconsistent for a permutation-equivariant model),
    ``points`` (:func:`equivariant_points`) and, over the networks built, ``architectures`` (how
    many distinct (width, depth, parameters) they have) with the largest ``width``, ``depth``
    and ``parameters``: each labelling gets a network of its own, so the set is shattered by the
    class of networks of at most those sizes, not by one fixed architecture. The set is
    shattered when ``memorized == labellings``. Raises ``ValueError`` when there are more than
    ``max_labels`` labels.
    """
    from memnb.constructions.seq_id import memorize

    toks = np.asarray(tokens)
    shape = toks.shape if task == "seq2seq" else toks.shape[:1]
    size = int(np.prod(shape))
    if size > check_int("max_labels", max_labels, 1):
        raise ValueError(f"tokens give {size} labels, more than max_labels = {max_labels}")
    memorized = refused = 0
    sizes: set[tuple[int, int, int]] = set()
    for bits in itertools.product((0, 1), repeat=size):
        y = np.array(bits, dtype=int).reshape(shape)
        try:
            net = memorize(toks, y, task=task, num_classes=2)
        except ValueError:
            refused += 1
            continue
        memorized += int(np.array_equal(net.predict(toks), y))
        sizes.add((net.width, net.depth, net.num_parameters))
    largest = [max((s[i] for s in sizes), default=0) for i in range(3)]
    return {"labels": size, "labellings": 2 ** size, "memorized": memorized, "refused": refused,
            "points": equivariant_points(toks, task), "architectures": len(sizes),
            "width": largest[0], "depth": largest[1], "parameters": largest[2]}


def attention_along_a_line(n: int = 6, d: int = 4, num_t: int = 200, seed: int = 0
                           ) -> dict[str, int]:
    """Why hardmax matters (ours): one attention head on a sequence of ``n`` distinct random
    tokens, with ``W_Q = A + t B`` for ``num_t`` values of ``t`` in [-2, 2]. Counts the distinct
    outputs (rounded to 12 digits): under hardmax the output is piecewise constant in ``t`` (a few
    values, one per argmax pattern), under softmax it changes with every ``t`` (not piecewise
    polynomial, so the piecewise-polynomial VC bounds do not apply)."""
    n, d, num_t = check_int("n", n, 2), check_int("d", d, 1), check_int("num_t", num_t, 2)
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((d, n))
    A, B, WK, WV = (rng.standard_normal((d, d)) for _ in range(4))
    hard, soft = set(), set()
    for t in np.linspace(-2.0, 2.0, num_t):
        S = (WK @ Z).T @ ((A + t * B) @ Z)
        top = np.isclose(S, S.max(axis=0), rtol=0, atol=1e-12)
        A_hard = top / top.sum(axis=0)
        A_soft = np.exp(S - S.max(axis=0))
        A_soft /= A_soft.sum(axis=0)
        hard.add(tuple(np.round(WV @ Z @ A_hard, 12).ravel()))
        soft.add(tuple(np.round(WV @ Z @ A_soft, 12).ravel()))
    return {"values_of_t": num_t, "hardmax_outputs": len(hard), "softmax_outputs": len(soft)}
