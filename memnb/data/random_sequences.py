"""Random token sequences with random labels: the synthetic dataset of Kajitsuka & Sato.

The ICLR 2025 version of Kajitsuka & Sato adds "one randomly generated dataset" to MultiNLI and
IMDb; how it was generated is not known (chapter notes §3). **[reconstruction]** Here: ``N``
*distinct* sequences of ``n`` tokens drawn uniformly from ``[0, V)``, and labels drawn uniformly
from ``[0, C)`` independently of the sequences; optionally each token id is mapped to a fixed
random vector (a token-wise (r, δ)-separated embedding).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memnb.validation import check_int


@dataclass(frozen=True)
class RandomSequences:
    """``tokens`` ``[N, n]`` (int64), ``labels`` ``[N]`` (or ``[N, n]`` for seq2seq)."""

    tokens: np.ndarray
    labels: np.ndarray
    vocab_size: int
    num_classes: int


def random_sequences(num_sequences: int, seq_len: int, vocab_size: int, num_classes: int, *,
                     seed: int = 0, seq2seq: bool = False) -> RandomSequences:
    """``num_sequences`` distinct uniform random sequences with uniform random labels.

    Raises ``ValueError`` if ``vocab_size ** seq_len < num_sequences`` (not enough distinct
    sequences). Labels are ``[N]`` or, with ``seq2seq=True``, one per token ``[N, n]``.
    """
    N = check_int("num_sequences", num_sequences, 1)
    n = check_int("seq_len", seq_len, 1)
    V = check_int("vocab_size", vocab_size, 1)
    C = check_int("num_classes", num_classes, 1)
    if V**n < N:
        raise ValueError(f"vocab_size**seq_len = {V**n} < num_sequences = {N}: not enough "
                         "distinct sequences")
    rng = np.random.default_rng(seed)
    rows: dict[tuple[int, ...], None] = {}
    while len(rows) < N:
        draw = rng.integers(0, V, size=(N - len(rows), n))
        for row in draw.tolist():
            rows.setdefault(tuple(row), None)
            if len(rows) == N:
                break
    tokens = np.array(list(rows), dtype=np.int64).reshape(N, n)
    labels = rng.integers(0, C, size=(N, n) if seq2seq else N).astype(np.int64)
    return RandomSequences(tokens, labels, V, C)


def token_vectors(vocab_size: int, dim: int, *, seed: int = 0) -> np.ndarray:
    """A fixed random embedding ``[V, dim]`` (rows ~ N(0, I/dim), so norms are about 1)."""
    V = check_int("vocab_size", vocab_size, 1)
    d = check_int("dim", dim, 1)
    return np.random.default_rng(seed).standard_normal((V, d)) / np.sqrt(d)
