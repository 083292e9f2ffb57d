"""A plain MLP on the flattened one-hot token sequence: the classical reference of the
cross-paper chapter (ours; none of the three papers trains it).

A sequence ``t_{1:n}`` of tokens in ``[0, V)`` is read as the one-hot vector
``x = [onehot(t_1); ...; onehot(t_n)] ∈ {0, 1}^{n V}`` and mapped to ``C`` logits by

    h_1 = relu(W_1 x + b_1),   h_2 = relu(W_2 h_1 + b_2)  (only when ``depth = 2``),
    y   = W_out h_last + b_out.

``W_1 x`` is computed as a sum of ``n`` rows of ``W_1`` (an embedding look-up), which is the
same product without forming ``x``. Parameters: ``nV w_1 + w_1 + C w_1 + C`` for ``depth = 1``
and ``nV w_1 + w_1 + w_1 w_2 + w_2 + C w_2 + C`` for ``depth = 2``
(:func:`memnb.bounds.sequence_mlp_parameter_count`).

Packing (docs/CONTRACTS.md): the hidden layers are padded to ``width`` (and ``width2``) and the
float buffers ``unit_mask`` / ``unit_mask2`` (ones for the first ``active_width`` /
``active_width2`` units) multiply the hidden units, so masked units contribute nothing and get
zero gradients. Units are drawn one after another from the seeded generator (each unit's weights,
then its bias; first-layer units, then second-layer units; the read-out bias and then its columns
from a second generator), with PyTorch's default ``nn.Linear`` bounds computed from the *active*
sizes, so a model padded in its *last* hidden layer (``width`` when ``depth = 1``, ``width2``
with ``width`` fixed when ``depth = 2``) equals the smaller model with the same seed.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from memnb.models.attention_only import check_tokens
from memnb.models.init import uniform
from memnb.validation import check_int

__all__ = ["SequenceMLP"]


def _uniform(shape: tuple[int, ...], fan_in: int, g: torch.Generator) -> Tensor:
    """U(±1/sqrt(fan_in)) (fan-in 0 read as 1), drawn in float64."""
    return uniform(shape, 1.0 / math.sqrt(max(fan_in, 1)), g)


class SequenceMLP(nn.Module):
    """MLP on the flattened one-hot sequence (see module docstring).

    Args:
        vocab_size: ``V`` (>= 1); seq_len: ``n`` (>= 1); num_classes: ``C`` (>= 1).
        width: padded width ``w_1`` of the first hidden layer (>= 1).
        width2: padded width ``w_2`` of the second hidden layer (0 = one hidden layer).
        active_width, active_width2: units in use (``None`` = all).
        dtype: parameter dtype; seed: seed of the initialisation.
    """

    unit_mask: Tensor
    unit_mask2: Tensor

    def __init__(self, vocab_size: int, seq_len: int, num_classes: int, width: int, *,
                 width2: int = 0, active_width: int | None = None,
                 active_width2: int | None = None, dtype: torch.dtype = torch.float32,
                 seed: int = 0) -> None:
        super().__init__()
        self.vocab_size = check_int("vocab_size", vocab_size, 1)
        self.seq_len = check_int("seq_len", seq_len, 1)
        self.num_classes = check_int("num_classes", num_classes, 1)
        self.width = check_int("width", width, 1)
        self.width2 = check_int("width2", width2, 0)
        self.active_width = check_int("active_width",
                                      width if active_width is None else active_width, 1, width)
        if self.width2:
            self.active_width2 = check_int(
                "active_width2", width2 if active_width2 is None else active_width2, 1, width2)
        else:
            if active_width2 not in (None, 0):
                raise ValueError(f"active_width2 must be None or 0 when width2 = 0; "
                                 f"got {active_width2!r}")
            self.active_width2 = 0
        if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
            raise ValueError(f"dtype must be a floating torch.dtype, got {dtype!r}")
        check_int("seed", seed, 0)
        nv, C = self.seq_len * self.vocab_size, self.num_classes
        g = torch.Generator().manual_seed(seed)
        # first-layer units one after another: fan-in is n (n ones in the one-hot input)
        w1, b1 = [], []
        for _ in range(self.width):
            w1.append(_uniform((nv,), self.seq_len, g))
            b1.append(_uniform((), self.seq_len, g))
        self.W1 = nn.Parameter(torch.stack(w1, dim=1).to(dtype))  # [nV, w1] (look-up table)
        self.b1 = nn.Parameter(torch.stack(b1).to(dtype))
        last, last_active = self.width, self.active_width
        if self.width2:
            w2, b2 = [], []
            for _ in range(self.width2):
                w2.append(_uniform((self.width,), self.active_width, g))
                b2.append(_uniform((), self.active_width, g))
            self.W2 = nn.Parameter(torch.stack(w2).to(dtype))  # [w2, w1]
            self.b2 = nn.Parameter(torch.stack(b2).to(dtype))
            last, last_active = self.width2, self.active_width2
        g_out = torch.Generator().manual_seed(seed + 104_729)
        self.b_out = nn.Parameter(_uniform((C,), last_active, g_out).to(dtype))
        w_out = [_uniform((C,), last_active, g_out) for _ in range(last)]
        self.W_out = nn.Parameter(torch.stack(w_out, dim=1).to(dtype))  # [C, last]
        self.register_buffer("unit_mask",
                             (torch.arange(self.width) < self.active_width).to(dtype))
        self.register_buffer("unit_mask2",
                             (torch.arange(self.width2) < self.active_width2).to(dtype))

    def num_parameters(self) -> int:
        """Parameters of the active model (closed form in the module docstring)."""
        nv, C, w1, w2 = (self.seq_len * self.vocab_size, self.num_classes, self.active_width,
                         self.active_width2)
        if w2 == 0:
            return nv * w1 + w1 + C * w1 + C
        return nv * w1 + w1 + w1 * w2 + w2 + C * w2 + C

    def forward(self, tokens: Tensor) -> Tensor:
        """Logits ``[B, C]`` for integer ``tokens`` ``[B, n]`` with entries in ``[0, V)``."""
        check_tokens(tokens, self.seq_len, self.vocab_size)
        offsets = torch.arange(self.seq_len, device=tokens.device) * self.vocab_size
        h = F.embedding(tokens + offsets, self.W1).sum(dim=1) + self.b1
        h = torch.relu(h) * self.unit_mask
        if self.width2:
            h = torch.relu(h @ self.W2.T + self.b2) * self.unit_mask2
        return h @ self.W_out.T + self.b_out
