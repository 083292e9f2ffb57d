"""Token IDs, the token-wise hash and the averaging self-attention: the contextual mapping.

Kajitsuka & Sato (ICLR 2025) give every input sequence a distinct *sequence ID* with ONE
self-attention layer (a contextual mapping, their Definition 4.1 [unverified, from the 2024
paper]) placed between two token-wise feed-forward networks. The paper's lemmas and constants
were not available to us; this module is the **[reconstruction]** of the chapter notes (§2,
steps 0-3), a pipeline of the same shape that is provably correct and checked here in exact
arithmetic:

0. *Token IDs.* Real tokens are projected on a direction ``v`` and quantised,
   ``z(x) = floor(scale * v^T x + offset)``, so that distinct tokens get distinct integers
   (projection lemma of Park et al. 2021 / Vardi et al. 2022). Integer tokens are their own IDs.
   With ``positional=True`` the token-wise input also holds the position ``k`` and the token ID
   becomes ``w = n z + k`` (an input embedding with positional encoding). This option is ours:
   the model of our notes has no positional encoding, and Remark 4.2 ("Embedding layer") is
   known by its title only, its content [unverified].
1. *Token hash (first FFN).* ``h(w) = a^w mod p`` for a prime ``p`` and a random ``a``, computed by
   a constant-width ReLU network in ``O(log U log p)`` layers (square-and-multiply with the bits of
   ``w``; each modular reduction is a greedy bit-by-bit subtraction of ``p 2^j``).
2. *Attention.* One head with ``W_Q = W_K = 0``: every score is 0, so hardmax (ties share the
   weight) and softmax both give the weights ``1/n`` exactly, and the head writes
   ``s = sum_j h(w_j)`` (``W_V = n`` on the hash channel) into a fresh channel.
3. *Sequence ID.* ``ID = s + n p w_last + 1``: distinct for two sequences whose multisets of
   tokens or last tokens differ, unless ``a`` is a root of the difference polynomial (probability
   ``<= U / (p - 2)`` per pair); ``a`` is redrawn until all IDs are distinct.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np

from memnb.constructions.seq_id.relu_program import (
    ReLUProgram,
    ReLUProgramBuilder,
    bit_pair_exprs,
    bits,
    combine,
    const,
    var,
)

AttentionKind = Literal["hardmax", "softmax"]

_MR_BASES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)


def is_prime(value: int) -> bool:
    """Deterministic Miller-Rabin test (exact for every ``value < 3.3e24``, probable beyond)."""
    if value < 2:
        return False
    for q in _MR_BASES:
        if value % q == 0:
            return value == q
    d, s = value - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for base in _MR_BASES:
        x = pow(base, d, value)
        if x in (1, value - 1):
            continue
        for _ in range(s - 1):
            x = x * x % value
            if x == value - 1:
                break
        else:
            return False
    return True


def next_prime(value: int) -> int:
    """The smallest prime ``>= value``."""
    candidate = max(2, int(value))
    while not is_prime(candidate):
        candidate += 1
    return candidate


# ------------------------------------------------------------------------------ step 0: token IDs
@dataclass(frozen=True)
class TokenQuantizer:
    """``z(x) = floor(scale * v^T x + offset)`` on real tokens, exact in rational arithmetic.

    ``slope`` is the steepness of the ReLU steps that compute the floor: the construction places
    ``offset`` so that every data token's ``scale v^T x + offset`` has fractional part at most
    ``1 - 1/slope``, where a two-ReLU step is an exact indicator.
    """

    v: tuple[Fraction, ...]
    scale: Fraction
    offset: Fraction
    slope: Fraction
    bits: int

    def value(self, x: Sequence[Fraction]) -> Fraction:
        """``scale * v^T x + offset`` for a token ``x``, in exact rational arithmetic."""
        return self.scale * sum(vi * xi for vi, xi in zip(self.v, x, strict=True)) + self.offset

    def token_id(self, x: Sequence[Fraction]) -> int:
        """The token ID ``z(x) = floor(scale * v^T x + offset)`` (step 0 of the module)."""
        return math.floor(self.value(x))


def as_fractions(vectors: np.ndarray) -> list[tuple[Fraction, ...]]:
    """Rows of a float array as exact rationals (every float is a dyadic rational)."""
    return [tuple(Fraction(float(c)) for c in row) for row in vectors]


def fit_quantizer(tokens: np.ndarray, rng: np.random.Generator, *,
                  max_attempts: int = 32) -> TokenQuantizer:
    """Step 0 for the distinct real tokens ``tokens`` ``[T, d]``: direction, scale, offset (our
    [reconstruction] of Kajitsuka & Sato, ICLR 2025; chapter notes §2).

    ``v`` is a Gaussian direction rounded to multiples of ``2^-20``; it is redrawn until the
    projections of the ``T`` distinct tokens are distinct (probability 1 for separated tokens).
    The scale is ``1/γ`` with ``γ`` the largest power of two below the smallest gap between
    projections, so distinct tokens get distinct floors; the offset makes all values ``>= 0`` and
    shifts their fractional parts into ``[0, 1 - 1/(4T)]`` (a gap of the fractional parts of
    length ``>= 1/T`` always exists).
    """
    if tokens.ndim != 2 or len(tokens) == 0:
        raise ValueError(f"tokens must be a non-empty [T, d] array; got shape {tokens.shape}")
    exact = as_fractions(tokens)
    count, d = tokens.shape
    for _ in range(max_attempts):
        g = rng.standard_normal(d)
        g = g / np.linalg.norm(g)
        v = tuple(Fraction(int(round(c * 2**20)), 2**20) for c in g)
        proj = sorted(sum(vi * xi for vi, xi in zip(v, x, strict=True)) for x in exact)
        gaps = [b - a for a, b in zip(proj, proj[1:], strict=False)]
        if count == 1 or min(gaps) > 0:
            break
    else:
        raise RuntimeError(f"no projection separated the {count} tokens in {max_attempts} draws")
    gap = min(gaps) if gaps else Fraction(1)
    gamma = Fraction(2) ** math.floor(math.log2(gap))
    while gamma > gap:
        gamma /= 2
    scale = 1 / gamma
    values = [scale * (t - proj[0]) for t in proj]
    eps = Fraction(1, 4 * count)
    fracs = sorted(t - math.floor(t) for t in values)
    # largest circular gap between consecutive fractional parts; put 1 - eps/2 in its middle
    circ = [(fracs[(i + 1) % count] - fracs[i]) % 1 or Fraction(1) for i in range(count)]
    i = max(range(count), key=lambda j: circ[j])
    centre = fracs[i] + circ[i] / 2
    theta = (1 - eps / 2 - centre) % 1
    offset = -scale * proj[0] + theta
    ids = [math.floor(t + theta) for t in values]
    return TokenQuantizer(v, scale, offset, 1 / eps, max(1, max(ids).bit_length()))


# ------------------------------------------------------------------ step 1: the token-wise FFN
@dataclass(frozen=True)
class TokenHash:
    """``h(w) = a^w mod p`` (a polynomial hash over the field ``F_p``)."""

    p: int
    a: int

    def __call__(self, w: int) -> int:
        """``h(w) = a^w mod p`` for the integer token ID ``w``."""
        return pow(self.a, int(w), self.p)


def build_token_program(*, hash_: TokenHash, w_bits: int, seq_len: int, positional: bool,
                        quantizer: TokenQuantizer | None = None, input_dim: int | None = None,
                        z_bits: int | None = None) -> ReLUProgram:
    """The first token-wise FFN as an exact ReLU network: token -> ``(w, h(w))`` (steps 0-1 of
    the module; our [reconstruction] of Kajitsuka & Sato's FFN₁, ICLR 2025).

    Inputs: ``x0 .. x{d-1}`` (real tokens; ``quantizer`` and ``input_dim`` given) or ``z`` (integer
    token IDs below ``2**z_bits``), plus ``k`` (the position) when ``positional``. Outputs ``w``
    (the token ID, ``n z + k`` when positional) and ``h`` (its hash). ``w_bits`` bounds the bit
    length of ``w``. Every step uses the two-ReLU indicator of :func:`bit_pair_exprs`.
    """
    p, n = hash_.p, seq_len
    extra = ["k"] if positional else []
    if quantizer is not None:
        if input_dim is None:
            raise ValueError("input_dim is required with a quantizer")
        b = ReLUProgramBuilder([f"x{i}" for i in range(input_dim)] + extra)
        proj = combine(*((quantizer.scale * vi, var(f"x{i}")) for i, vi in enumerate(quantizer.v)),
                       (quantizer.offset, const(1)))
        b.layer({"q": proj}, keep=extra)
        b.alias("z", const(0))
        for i in reversed(range(quantizer.bits)):
            b.layer(bit_pair_exprs("q", 2**i, slope=quantizer.slope, pair=("qa", "qb")),
                    keep=["q", "z", *extra])
            bit = combine((1, var("qa")), (-1, var("qb")))
            b.alias("q", combine((1, var("q")), (-(2**i), bit)))
            b.alias("z", combine((1, var("z")), (2**i, bit)))
    else:
        if z_bits is None:
            raise ValueError("z_bits is required for integer tokens")
        b = ReLUProgramBuilder(["z", *extra])
    b.alias("w", combine((n, var("z")), (1, var("k"))) if positional else var("z"))
    b.alias("wid", "w")
    b.alias("x", const(1))
    q_bits = (p - 1).bit_length()
    for i in reversed(range(w_bits)):
        c = pow(hash_.a, 2**i, p)
        b.layer(bit_pair_exprs("w", 2**i, pair=("wa", "wb")), keep=["w", "x", "wid"])
        bit = combine((1, var("wa")), (-1, var("wb")))
        b.alias("bit", bit)
        b.alias("w", combine((1, var("w")), (-(2**i), bit)))
        # r = c * x (< p^2), reduced modulo p by subtracting p 2^j greedily, j = q_bits-1 .. 0
        b.alias("r", combine((c, var("x"))))
        for j in reversed(range(q_bits)):
            b.layer(bit_pair_exprs("r", p * 2**j, pair=("ra", "rb")),
                    keep=["r", "bit", "w", "x", "wid"])
            b.alias("r", combine((1, var("r")), (-p * 2**j, combine((1, var("ra")),
                                                                     (-1, var("rb"))))))
        # x <- r if bit else x, as relu(r - p (1 - bit)) + relu(x - p bit)
        b.layer({"g1": combine((1, var("r")), (p, var("bit")), (-p, const(1))),
                 "g2": combine((1, var("x")), (-p, var("bit")))}, keep=["w", "wid"])
        b.alias("x", combine((1, var("g1")), (1, var("g2"))))
    b.layer({"w": "wid", "h": "x"})
    return b.build()


# ------------------------------------------------------------------- step 2: the attention layer
@dataclass(frozen=True)
class UniformAttention:
    """One self-attention head on the residual stream ``[w, h, s]`` (width 3, head size 1): the
    averaging attention of Kajitsuka & Sato (ICLR 2025), step 2 of the module ([reconstruction]).

    ``W_Q = W_K = 0`` (all scores 0), ``W_V = (0, n, 0)``, ``W_O = (0, 0, 1)^T``, so the head adds
    ``sum_j weight_j * n h_j = sum_j h_j`` to channel ``s`` under hardmax and softmax alike.
    """

    seq_len: int

    @property
    def W_Q(self) -> tuple[int, int, int]:
        """Query weights on the stream ``(w, h, s)``: all zero, so every score is 0."""
        return (0, 0, 0)

    @property
    def W_K(self) -> tuple[int, int, int]:
        """Key weights on the stream ``(w, h, s)``: all zero, so every score is 0."""
        return (0, 0, 0)

    @property
    def W_V(self) -> tuple[int, int, int]:
        """Value weights ``(0, n, 0)``: the head reads ``n h`` from the hash channel."""
        return (0, self.seq_len, 0)

    @property
    def W_O(self) -> tuple[int, int, int]:
        """Output weights ``(0, 0, 1)``: the head writes into the channel ``s``."""
        return (0, 0, 1)

    @property
    def num_parameters(self) -> int:
        """``4 * 3 = 12``: the entries of ``W_Q, W_K, W_V, W_O`` (width 3, head size 1),
        zero or not."""
        return 4 * 3

    @property
    def max_weight_bits(self) -> int:
        """Bits of the largest weight, ``n`` in ``W_V``: ``n.bit_length()``."""
        return self.seq_len.bit_length()

    def _nonzero_weights(self) -> list[int]:
        return [w for matrix in (self.W_Q, self.W_K, self.W_V, self.W_O) for w in matrix if w]

    @property
    def nonzero_parameters(self) -> int:
        """The non-zero entries of ``W_Q, W_K, W_V, W_O``: ``n`` in ``W_V`` and ``1`` in ``W_O``."""
        return len(self._nonzero_weights())

    def total_weight_bits(self) -> int:
        """Bits to write the non-zero weights, counted as the ReLU layers count theirs
        (:meth:`memnb.constructions.seq_id.relu_program.ReLUProgram.total_weight_bits`: bit
        length plus a sign bit each): ``(bits(n) + 1) + (1 + 1)``."""
        return sum(bits(w) + 1 for w in self._nonzero_weights())

    def weights(self, stream: np.ndarray, kind: AttentionKind) -> np.ndarray:
        """Attention weights ``[N, n_queries=n, n_keys=n]`` as exact fractions.

        Hardmax: ties share the weight equally. Softmax: ``exp(s_j - s_max) / sum``; when all
        scores of a row are equal (as here) every ``exp`` is ``exp(0) = 1`` and the weights are
        exactly ``1/n``; otherwise they are rounded floats (never the case in this construction).
        """
        if kind not in ("hardmax", "softmax"):
            raise ValueError(f"attention must be 'hardmax' or 'softmax'; got {kind!r}")
        q = np.einsum("c,bkc->bk", np.array(self.W_Q, dtype=object), stream)
        k = np.einsum("c,bkc->bk", np.array(self.W_K, dtype=object), stream)
        scores = q[:, :, None] * k[:, None, :]
        top = scores.max(axis=2, keepdims=True)
        if kind == "hardmax":
            flat = [Fraction(int(t)) for t in (scores == top).ravel()]
        else:
            diff = (scores - top).ravel()
            flat = [Fraction(1) if e == 0 else Fraction(math.exp(e)) for e in diff]
        expd = np.array(flat, dtype=object).reshape(scores.shape)
        return expd / expd.sum(axis=2, keepdims=True)

    def __call__(self, stream: np.ndarray, kind: AttentionKind = "hardmax") -> np.ndarray:
        """``stream + W_O W_V X weights`` for a stream ``[N, n, 3]`` of exact numbers."""
        alpha = self.weights(stream, kind)
        values = np.einsum("c,bjc->bj", np.array(self.W_V, dtype=object), stream)
        head = np.einsum("bkj,bj->bk", alpha, values)
        out = stream.copy()
        out[:, :, 2] = out[:, :, 2] + head * self.W_O[2]
        return out


# ----------------------------------------------------------------- why the hash must be nonlinear
def distinct_sum_ids(tokens: np.ndarray, *, kind: Literal["linear", "affine", "power"],
                     seed: int = 0, reduce_sum: bool = False) -> int:
    """How many distinct values ``sum_j h(z_j)`` takes over the rows of ``tokens`` ``[N, n]``.

    ``linear``: ``h(z) = z``; ``affine``: ``h(z) = (a z + b) mod p``; ``power``: ``h(z) = a^z mod
    p`` (the construction's hash), with ``p`` the first prime above ``max(2n, (max z + 1) N^2)``
    and ``a, b`` drawn with ``seed``. With ``reduce_sum=True`` the sum is taken modulo ``p``.

    Modulo ``p`` the affine sum is ``a sum_j z_j + n b``, a function of the token sum alone, so it
    takes exactly as many values as the linear sum (multisets like {1, 4} and {2, 3} collide).
    The integer sum (``reduce_sum=False``, what the attention layer averages) also depends on how
    many tokens wrap around ``p``, so it separates more multisets than the linear sum but, unlike
    the power hash, not all of them (chapter notes §2, step 1; measured in the chapter).
    """
    if kind not in ("linear", "affine", "power"):
        raise ValueError(f"kind must be 'linear', 'affine' or 'power'; got {kind!r}")
    toks = np.asarray(tokens, dtype=np.int64)
    n_seq, n = toks.shape
    p = next_prime(max(2 * n + 1, (int(toks.max()) + 1) * max(n_seq, 2) ** 2))
    rng = np.random.default_rng(seed)
    a, b = int(rng.integers(2, p - 1)), int(rng.integers(0, p))

    def h(z: int) -> int:
        if kind == "linear":
            return z
        return (a * z + b) % p if kind == "affine" else pow(a, z, p)

    sums = (sum(h(int(z)) for z in row) for row in toks.tolist())
    return len({v % p for v in sums} if reduce_sum else set(sums))
