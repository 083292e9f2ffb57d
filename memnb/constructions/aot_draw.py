"""Generic AoT weights and the linear read-out solve behind Dana et al.'s Thm 1 (AISTATS 2025).

Dana, Pydi & Chevaleyre prove Thm 1 by drawing *generic* embeddings (Lemma 3) and attention
matrices (Lemma 2), so that the features ``F(t) = [x(t,S); W_V^1 A^1(t); ...; W_V^H A^H(t)]`` of
the sequences are linearly independent, and then solving the linear system ``E = W_O W_V A'``
for the output matrices (App. A.2). This module holds the two steps every construction of the
chapter shares:

* :func:`draw` — generic weights: ``e, pos ~ U(0, 1)`` and Gaussian ``W_Q, W_K, W_V``;
  ``qk_rank=1`` keeps only the first row of each ``W_Q^h, W_K^h`` (rank-1 ``W_QK^h``, Remark 2);
* :func:`assemble` — given a read-out ``M = [M_0 | W_O^1 ... W_O^H]`` that solves ``M F = E``,
  the model whose eq. (2) outputs ``W_U M F(t)`` exactly. The skip connection is absorbed by the
  reparametrization ``e <- e M_0^T``, ``pos <- pos M_0^T``, ``W_{Q,K,V}^h <- W_{Q,K,V}^h M_0^{-1}``
  (a **[reconstruction]**: the paper takes a limit head 0 with ``W_QK^0 = λ I``, ``λ -> ∞``,
  whence its ``γ > 0``; here ``γ = 0``).

All arrays are float64 numpy; the model is a float64 :class:`AttentionOnlyTransformer`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from memnb.models.attention_only import AttentionOnlyTransformer
from memnb.validation import check_int


@dataclass(frozen=True)
class GenericDraw:
    """Generic weights of an AoT before its read-out is solved (Dana et al., AISTATS 2025,
    Lemmas 2-3; drawn at random, our stand-in for their generic choice).

    Shapes: ``e [N, d]``, ``pos [S, d]``, ``W_Q, W_K, W_V [H, d_h, d]``.
    """

    e: np.ndarray
    pos: np.ndarray
    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray

    @property
    def d(self) -> int:
        """Model width ``d``: columns of ``e`` ``[N, d]``."""
        return int(self.e.shape[1])

    @property
    def H(self) -> int:
        """Number of heads ``H``: first axis of ``W_V`` ``[H, d_h, d]``."""
        return int(self.W_V.shape[0])

    @property
    def d_h(self) -> int:
        """Head size ``d_h``: second axis of ``W_V`` ``[H, d_h, d]``."""
        return int(self.W_V.shape[1])


def draw(vocab_size: int, seq_len: int, d: int, d_h: int, H: int, *, qk_scale: float = 1.0,
         qk_rank: int | None = None, seed: int = 0) -> GenericDraw:
    """Draw generic weights: ``e, pos ~ U(0,1)``, ``W_V ~ N(0,1)``, ``W_Q, W_K ~ N(0, 1/d)``
    times ``qk_scale``.

    ``qk_rank=1`` zeroes all rows of ``W_Q^h, W_K^h`` but the first, so that ``W_QK^h =
    W_Q^{hT} W_K^h`` has rank 1 (Dana et al., AISTATS 2025, Remark 2); ``None`` keeps rank
    ``d_h``.
    """
    n, s = check_int("vocab_size", vocab_size, 1), check_int("seq_len", seq_len, 1)
    d = check_int("d", d, 1)
    d_h, H = check_int("d_h", d_h, 1, d), check_int("H", H, 0)
    if qk_rank is not None:
        qk_rank = check_int("qk_rank", qk_rank, 1, d_h)
    if not (math.isfinite(qk_scale) and qk_scale > 0):
        raise ValueError(f"qk_scale must be a positive finite number, got {qk_scale!r}")
    rng = np.random.default_rng(seed)
    e = rng.uniform(0.0, 1.0, (n, d))
    pos = rng.uniform(0.0, 1.0, (s, d))
    wv = rng.standard_normal((H, d_h, d))
    wq = rng.standard_normal((H, d_h, d)) * qk_scale / math.sqrt(d)
    wk = rng.standard_normal((H, d_h, d)) * qk_scale / math.sqrt(d)
    if qk_rank is not None:
        wq[:, qk_rank:] = 0.0
        wk[:, qk_rank:] = 0.0
    return GenericDraw(e, pos, wq, wk, wv)


def _tensor(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(a, dtype=np.float64))


def model_from_arrays(e: np.ndarray, pos: np.ndarray, wq: np.ndarray, wk: np.ndarray,
                      wv: np.ndarray, wo: np.ndarray, wu: np.ndarray) -> AttentionOnlyTransformer:
    """A float64 :class:`AttentionOnlyTransformer` with the given weights (per-head order)."""
    return AttentionOnlyTransformer.from_weights(
        token_embedding=_tensor(e), pos_embedding=_tensor(pos), W_Q=_tensor(wq), W_K=_tensor(wk),
        W_V=_tensor(wv), W_O=_tensor(wo), W_U=_tensor(wu), dtype=torch.float64)


def features(weights: GenericDraw, tokens: np.ndarray | torch.Tensor) -> np.ndarray:
    """The feature matrix ``F`` ``[d + H d_h, T]`` of ``tokens`` ``[T, S]`` (columns = sequences).

    ``F(t) = [x(t,S); W_V^1 A^1(t); ...; W_V^H A^H(t)]``: the logits of eq. (2) are ``W_U [I_d |
    W_O^1 | ... | W_O^H] F(t)`` (Dana et al., AISTATS 2025, App. A.2, with the skip connection as
    block 0).
    """
    tok = torch.as_tensor(np.asarray(tokens), dtype=torch.long)
    w = weights
    if tok.ndim != 2 or tok.shape[1] != w.pos.shape[0] or int(tok.min()) < 0 \
            or int(tok.max()) >= w.e.shape[0]:
        raise ValueError(f"tokens must be [T, S={w.pos.shape[0]}] with ids < N={w.e.shape[0]}")
    probe = model_from_arrays(w.e, w.pos, w.W_Q, w.W_K, w.W_V, np.zeros((w.H, w.d, w.d_h)),
                              np.zeros((w.e.shape[0], w.d)))
    with torch.no_grad():
        return probe.features(tok).numpy().T


def assemble(weights: GenericDraw, readout: np.ndarray, W_U: np.ndarray
             ) -> AttentionOnlyTransformer:
    """The AoT whose logits are ``W_U · readout · F(t)`` for every sequence ``t``.

    ``readout = [M_0 | W_O^1 | ... | W_O^H]`` ``[d, d + H d_h]`` with ``M_0`` invertible. The
    reparametrization ``e <- e M_0^T``, ``pos <- pos M_0^T``, ``W_{Q,K,V}^h <- W_{Q,K,V}^h
    M_0^{-1}`` leaves every attention pattern and every ``W_V^h A^h(t)`` unchanged and turns the
    residual ``x(t,S)`` into ``M_0 x(t,S)``, so eq. (2) gives ``W_U M F(t)`` ([reconstruction]
    of the head-0 limit of Dana et al., AISTATS 2025, App. A.2; exact).
    """
    w = weights
    m = np.asarray(readout, dtype=float)
    if m.shape != (w.d, w.d + w.H * w.d_h):
        raise ValueError(f"readout must have shape {(w.d, w.d + w.H * w.d_h)}, got {m.shape}")
    wu = np.asarray(W_U, dtype=float)
    if wu.ndim != 2 or wu.shape != (w.e.shape[0], w.d):
        raise ValueError(f"W_U must have shape {(w.e.shape[0], w.d)}, got {wu.shape}")
    m0 = m[:, :w.d]
    if not np.isfinite(np.linalg.cond(m0)) or np.linalg.cond(m0) > 1e14:
        raise ValueError("readout's first block M_0 must be invertible (the skip connection is "
                         "absorbed through M_0^{-1})")
    m0_inv = np.linalg.inv(m0)
    wo = m[:, w.d:].reshape(w.d, w.H, w.d_h).transpose(1, 0, 2)
    return model_from_arrays(w.e @ m0.T, w.pos @ m0.T, w.W_Q @ m0_inv, w.W_K @ m0_inv,
                             w.W_V @ m0_inv, wo, wu)
