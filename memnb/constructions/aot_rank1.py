"""Remark 2 of Dana, Pydi & Chevaleyre (AISTATS 2025): rank-1 ``W_QK`` suffices, built and checked.

**Statement (paper).** The proof of Lemma 2 only uses matrices ``W_QK^h`` of rank 1, so Thm 1
holds with ``W_Q^h, W_K^h ∈ R^d`` (still ``W_V^h ∈ R^{d_h×d}``, ``W_O^h ∈ R^{d×d_h}``), with
``d (S + 2N + 2 (d_h + 1) H)`` parameters instead of ``d (S + 2N + 4 d_h H)``.

**Construction.** The exact-memorization recipe of :mod:`memnb.constructions.aot` (a
[reconstruction]: generic weights, features ``F``, read-out solved, skip connection absorbed by a
reparametrization) with every ``W_Q^h, W_K^h`` reduced to one row
(:func:`memnb.constructions.aot_draw.draw` with ``qk_rank=1``); the reparametrization keeps the
rank at 1. :func:`memorize_rank1` builds it; :func:`rank1_table` measures, per size, the rank of
the features of *all* ``N^S`` sequences with rank-1 and with rank-``d_h`` ``W_QK`` (the most
sequences whose logits the linear read-out can set independently) and memorizes ``T_0 = H d_h +
d`` random associations with rank-1 heads.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
import torch

from memnb.bounds import dana_capacity, dana_parameter_count_rank1
from memnb.constructions import aot_draw
from memnb.constructions.aot import QK_SCALES, repeated_token_rank_bound, unit_unembedding
from memnb.data.synthetic import all_contexts, distinct_sequences
from memnb.models.attention_only import AttentionOnlyTransformer
from memnb.validation import check_int


@dataclass(frozen=True)
class Rank1Report:
    """Diagnostics of :func:`memorize_rank1`."""

    num_sequences: int
    capacity: int  # H d_h + d
    max_qk_rank: int  # largest numerical rank of the built model's W_QK^h
    accuracy: float
    min_margin: float
    max_logit_error: float  # max |T(t) - λ W_U W_U[g(t)]^T|
    cond_features: float
    remark2_parameters: int  # counted on the built model: e, pos, W_U, q, k, W_V, W_O
    paper_parameters: int  # d (S + 2N + 2 (d_h + 1) H)

    def as_dict(self) -> dict[str, float | int]:
        """The report's fields as a plain dict (:func:`dataclasses.asdict`)."""
        return asdict(self)


def remark2_parameter_count(model: AttentionOnlyTransformer) -> int:
    """Parameters of ``model`` counted as Remark 2 of Dana et al. (AISTATS 2025) does:
    ``N d + S d + N d`` plus, per head, one query and one key vector (``2 d``) and ``W_V, W_O``
    (``2 d d_h``). Requires every ``W_Q^h, W_K^h`` to have a single non-zero row."""
    for name in ("W_Q", "W_K"):
        rows = (getattr(model, name).detach().abs().sum(dim=2) > 0).sum(dim=1)
        if bool((rows > 1).any()):
            raise ValueError(f"{name} has more than one non-zero row in some head: not rank 1")
    d, d_h, h = model.d, model.d_h, model.num_heads
    return (model.token_embedding.numel() + model.pos_embedding.numel() + model.W_U.numel()
            + h * (2 * d + 2 * d * d_h))


def _margins(logits: np.ndarray, tgt: np.ndarray) -> np.ndarray:
    rows = np.arange(len(tgt))
    others = logits.copy()
    others[rows, tgt] = -np.inf
    return logits[rows, tgt] - others.max(axis=1)


def memorize_rank1(tokens: torch.Tensor, targets: torch.Tensor, vocab_size: int, d: int,
                   d_h: int, H: int, *, scale: float = 1.0, seed: int = 0,
                   max_attempts: int = 5) -> tuple[AttentionOnlyTransformer, Rank1Report]:
    """An AoT with rank-1 ``W_QK^h`` whose argmax equals ``targets`` on every sequence.

    Dana et al. (AISTATS 2025), Remark 2, built with the [reconstruction] recipe of
    :mod:`memnb.constructions.aot` (targets ``E(t) = λ W_U[g(t)]``, read-out ``M = J + (E - J F)
    F^+``). ``ValueError`` for bad input, ``T_0 > H d_h + d``, or more sequences repeating one
    token than ``d + H(S - 1)``; ``RuntimeError`` if no draw is well conditioned.
    """
    vocab_size, d = check_int("vocab_size", vocab_size, 2), check_int("d", d, 2)
    d_h, H = check_int("d_h", d_h, 1, d), check_int("H", H, 0)
    tok = np.asarray(tokens, dtype=np.int64)
    tgt = np.asarray(targets, dtype=np.int64)
    if tok.ndim != 2 or tgt.shape != (tok.shape[0],):
        raise ValueError("tokens must be [T0, S] and targets [T0]")
    t0, s = tok.shape
    if t0 > dana_capacity(H, d_h, d):
        raise ValueError(f"T0={t0} exceeds the capacity H·d_h + d = {dana_capacity(H, d_h, d)}")
    if s > 1:
        repeated = int(np.sum(np.all(tok == tok[:, :1], axis=1)))
        if repeated > repeated_token_rank_bound(d, H, s):
            limit = repeated_token_rank_bound(d, H, s)
            raise ValueError(f"{repeated} sequences repeat one token: at most "
                             f"d + H(S - 1) = {limit} can be memorized")
    D = d + H * d_h
    for attempt in range(check_int("max_attempts", max_attempts, 1)):
        rng = np.random.default_rng(seed + attempt)
        wu = unit_unembedding(vocab_size, d, rng)
        target_e = scale * wu[tgt]
        if np.linalg.matrix_rank(target_e) < min(d, t0):
            margin = _margins(target_e @ wu.T, tgt).min() / scale
            nudge = rng.standard_normal((t0, d))
            nudge /= np.linalg.norm(nudge, axis=1, keepdims=True)
            target_e = target_e + 0.25 * scale * margin * rng.uniform(0.5, 1.0, (t0, 1)) * nudge
        best = None
        for qk_scale in QK_SCALES:
            w = aot_draw.draw(vocab_size, s, d, d_h, H, qk_scale=qk_scale, qk_rank=1,
                              seed=seed + attempt)
            feats = aot_draw.features(w, tok)
            c = float(np.linalg.cond(feats))
            if best is None or c < best[0]:
                best = (c, w, feats)
        cond_f, w, feats = best
        if not np.isfinite(cond_f) or cond_f > 1e12:
            continue
        j = np.zeros((d, D))
        j[:, :d] = np.eye(d)
        x, *_ = np.linalg.lstsq(feats.T, (target_e.T - j @ feats).T, rcond=None)
        readout = j + x.T
        if np.linalg.cond(readout[:, :d]) > 1e12:
            continue
        model = aot_draw.assemble(w, readout, wu)
        with torch.no_grad():
            logits = model(torch.from_numpy(tok)).numpy()
        intended = target_e @ wu.T
        err = float(np.abs(logits - intended).max())
        margins = _margins(logits, tgt)
        acc = float(np.mean(logits.argmax(axis=1) == tgt))
        if acc < 1.0 or err > 1e-8 * max(1.0, float(np.abs(intended).max())):
            continue
        qk = model.qk_matrices().detach().numpy()
        max_rank = max((int(np.linalg.matrix_rank(m)) for m in qk), default=0)
        return model, Rank1Report(
            num_sequences=t0, capacity=dana_capacity(H, d_h, d), max_qk_rank=max_rank,
            accuracy=acc, min_margin=float(margins.min()), max_logit_error=err,
            cond_features=cond_f, remark2_parameters=remark2_parameter_count(model),
            paper_parameters=dana_parameter_count_rank1(vocab_size, s, d, d_h, H))
    raise RuntimeError(f"no well-conditioned rank-1 draw in {max_attempts} attempts "
                       f"(seeds {seed}..{seed + max_attempts - 1})")


def feature_rank_all(N: int, S: int, d: int, d_h: int, H: int, *, qk_rank: int | None,
                     seed: int = 0) -> int:
    """Numerical rank of the features of all ``N^S`` sequences under one generic draw (rank-1
    ``W_QK`` when ``qk_rank=1``): the most sequences the linear read-out of Thm 1 (Dana et al.,
    AISTATS 2025) can fit exactly."""
    w = aot_draw.draw(N, S, d, d_h, H, qk_scale=2.0, qk_rank=qk_rank, seed=seed)
    return int(np.linalg.matrix_rank(aot_draw.features(w, all_contexts(N, S).numpy())))


#: Sizes ``(N, S, d, d_h, H)`` of the chapter's table.
DEFAULT_SIZES: tuple[tuple[int, int, int, int, int], ...] = (
    (10, 2, 2, 2, 5), (10, 2, 4, 3, 6), (12, 3, 3, 3, 8), (20, 2, 6, 4, 10))


def rank1_table(sizes: tuple[tuple[int, int, int, int, int], ...] = DEFAULT_SIZES, *,
                seed: int = 0) -> pd.DataFrame:
    """Remark 2 of Dana et al. (AISTATS 2025) at each size: feature ranks (rank-1 vs rank-``d_h``
    ``W_QK``, all ``N^S`` sequences) and a rank-1 AoT memorizing ``T_0 = H d_h + d`` random
    associations."""
    rows = []
    for N, S, d, d_h, H in sizes:
        t0 = dana_capacity(H, d_h, d)
        tokens, targets = distinct_sequences(t0, N, S, seed=seed)
        _, rep = memorize_rank1(tokens, targets, N, d, d_h, H, seed=seed)
        rows.append({"N": N, "S": S, "d": d, "d_h": d_h, "H": H, "sequences": N**S,
                     "rank_all_rank1": feature_rank_all(N, S, d, d_h, H, qk_rank=1, seed=seed),
                     "rank_all_full": feature_rank_all(N, S, d, d_h, H, qk_rank=None,
                                                       seed=seed),
                     **rep.as_dict()})
    return pd.DataFrame(rows)
