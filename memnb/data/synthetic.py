"""Synthetic association tasks (Dana, Pydi & Chevaleyre, AISTATS 2025, §5 and App. B).

The random "bigram" task of the paper: contexts ``t_{1:S}`` with i.i.d. uniform tokens in ``[N]``
and a deterministic next token ``t_{S+1} = g(t_{1:S})``, where ``g`` assigns one uniformly random
token to each of the ``N^S`` contexts (Assumption 1: every conditional has entropy 0). As in the
official code, one finite training sample is drawn once per experiment and shared by every model
and seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from memnb.validation import check_int


def _check_positive(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")


def all_contexts(vocab_size: int, seq_len: int) -> Tensor:
    """Every context ``t_{1:S}`` in ``[N]^S`` in lexicographic order, ``LongTensor[N^S, S]``."""
    _check_positive("vocab_size", vocab_size)
    _check_positive("seq_len", seq_len)
    if vocab_size**seq_len > 50_000_000:
        raise ValueError(
            f"vocab_size**seq_len must be <= 5e7 to enumerate; got {vocab_size}**{seq_len}")
    grids = torch.meshgrid(*[torch.arange(vocab_size)] * seq_len, indexing="ij")
    return torch.stack([g.reshape(-1) for g in grids], dim=1)


def context_index(tokens: Tensor, vocab_size: int) -> Tensor:
    """Position of each context of ``tokens`` (``[M, S]``, integers in ``[0, vocab_size)``) in
    :func:`all_contexts` order: ``Σ_s t_s N^(S-1-s)``. Raises ``ValueError`` for a token outside
    ``[0, vocab_size)``, whose index would fall outside ``[0, N^S)`` (another context's)."""
    check_int("vocab_size", vocab_size, 1)
    if (not isinstance(tokens, Tensor) or tokens.ndim != 2 or tokens.dtype == torch.bool
            or tokens.is_floating_point() or tokens.is_complex()):
        raise ValueError("tokens must be an integer tensor of shape [M, S]")
    if tokens.numel() and (int(tokens.min()) < 0 or int(tokens.max()) >= vocab_size):
        raise ValueError(f"tokens must lie in [0, vocab_size={vocab_size}), got values in "
                         f"[{int(tokens.min())}, {int(tokens.max())}]")
    index = torch.zeros(tokens.shape[0], dtype=torch.long)
    for s in range(tokens.shape[1]):
        index = index * vocab_size + tokens[:, s]
    return index


@dataclass(frozen=True)
class AssociationTask:
    """A sampled association task: the training sample and the full table ``g``."""

    tokens: Tensor  # [M, S] sampled contexts
    targets: Tensor  # [M] their next tokens g(t)
    table: Tensor  # [N^S] g for every context, in all_contexts order
    vocab_size: int
    seq_len: int

    @property
    def num_associations(self) -> int:
        """``T_0 = N^S``, the number of associations of the task."""
        return int(self.table.numel())

    def distinct_contexts_seen(self) -> int:
        """How many of the ``N^S`` contexts occur at least once in the sample."""
        return int(torch.unique(context_index(self.tokens, self.vocab_size)).numel())


def association_task(vocab_size: int, seq_len: int, num_samples: int,
                     seed: int) -> AssociationTask:
    """Draw ``g`` and ``num_samples`` uniform contexts with their targets (seeded)."""
    _check_positive("num_samples", num_samples)
    contexts_count = vocab_size**seq_len
    all_contexts(vocab_size, seq_len)  # validates sizes
    g = torch.Generator().manual_seed(seed)
    table = torch.randint(vocab_size, (contexts_count,), generator=g)
    tokens = torch.randint(vocab_size, (num_samples, seq_len), generator=g)
    targets = table[context_index(tokens, vocab_size)]
    return AssociationTask(tokens, targets, table, vocab_size, seq_len)


MAX_DISTINCT_DRAW = 50_000_000
"""The most contexts ``N^S`` :func:`distinct_sequences` numbers to draw from (a permutation of
``N^S`` integers, 400 MB at this size), as :func:`all_contexts` enumerates at most as many."""


def distinct_sequences(num_sequences: int, vocab_size: int, seq_len: int,
                       seed: int) -> tuple[Tensor, Tensor]:
    """``num_sequences`` distinct contexts in ``[N]^S`` and uniformly random targets (seeded).

    The input of the memorization constructions: ``T_0`` associations ``t_{1:S} -> g(t)``.
    """
    _check_positive("num_sequences", num_sequences)
    _check_positive("vocab_size", vocab_size)
    _check_positive("seq_len", seq_len)
    total = vocab_size**seq_len
    if total > MAX_DISTINCT_DRAW:  # every context is numbered to draw distinct ones
        raise ValueError(f"vocab_size**seq_len must be <= {MAX_DISTINCT_DRAW:.0e} to draw "
                         f"distinct contexts; got {vocab_size}**{seq_len}")
    if num_sequences > total:
        raise ValueError(
            f"num_sequences must be <= vocab_size**seq_len = {total}; got {num_sequences}")
    g = torch.Generator().manual_seed(seed)
    chosen = torch.randperm(total, generator=g)[:num_sequences]
    tokens = torch.stack([(chosen // vocab_size**(seq_len - 1 - s)) % vocab_size
                          for s in range(seq_len)], dim=1)
    targets = torch.randint(vocab_size, (num_sequences,), generator=g)
    return tokens, targets
