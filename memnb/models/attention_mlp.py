"""The attention + MLP comparison model of Dana et al. (AISTATS 2025), Experiment 5.

The official code's MLP variant: the attention layer of eq. (2) followed by one residual MLP
block before the unembedding, ``T(t) = W_U (r + W_2 GELU(W_1 r + b_1))`` where ``r`` is the
residual stream of eq. (2). Experiment 5 compares an AoT with ``H`` heads against this model with
one head and MLP width ``w = 2 d (H - 1)``, which has the same parameter count.

The block is the one of ``models.py`` in the official repository (commit ``cffc0d8``), class
``Transformer``: ``nn.Linear(d, width, bias=True)``, ``nn.GELU()``, ``nn.Linear(width, d,
bias=False)``, added to the residual stream, and no MLP at all when the width is 0 (``use_mlp``).
So ``W_1`` has a bias ``b_1`` and ``W_2`` has **no** output bias. The paper's §5.2 writes
``T(t) = W_U (W_2 σ W_1 + Id)(...)`` with no bias at all; we keep the code's ``b_1``. The
attention part (embeddings, heads, their initialisation) is eq. (2)'s
:class:`~memnb.models.attention_only.AttentionOnlyTransformer`, the same as the AoT it is compared
with in Experiment 5.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from memnb.models.attention_only import AttentionOnlyTransformer


class AttentionMLPTransformer(AttentionOnlyTransformer):
    """:class:`AttentionOnlyTransformer` plus one residual GELU MLP of (padded) width ``width``.

    ``active_width`` masks hidden units beyond it (buffer ``unit_mask``), so models of different
    widths can be trained as one packed stack.

    Initialisation (``nn.Linear``'s, as the official code's block): ``W_1`` and ``b_1`` ~
    U(±1/sqrt(d)), ``W_2`` ~ U(±1/sqrt(w)) with ``w`` the *active* width, so that padding a model
    does not change the units it shares with the unpadded one. The MLP is drawn after every
    attention parameter from a generator seeded by ``seed`` (offset), unit after unit, so the
    first ``w`` units of a padded model equal those of a width-``w`` model with the same seed.
    There is no output bias (``nn.Linear(width, d, bias=False)`` in the code).
    """

    unit_mask: torch.Tensor

    def __init__(self, vocab_size: int, seq_len: int, d: int, d_h: int, num_heads: int,
                 width: int, *, active_width: int | None = None, seed: int = 0,
                 dtype: torch.dtype = torch.float32, **kwargs: object) -> None:
        super().__init__(vocab_size, seq_len, d, d_h, num_heads, seed=seed, dtype=dtype, **kwargs)
        if isinstance(width, bool) or not isinstance(width, int) or width < 0:
            raise ValueError(f"width must be an integer >= 0; got {width!r}")
        active_width = width if active_width is None else active_width
        if not 0 <= active_width <= width:
            raise ValueError(f"active_width must be in 0..width={width}; got {active_width}")
        self.width, self.active_width = width, active_width
        g = torch.Generator().manual_seed(seed + 7_919)
        in_bound, out_bound = 1.0 / math.sqrt(d), 1.0 / math.sqrt(max(active_width, 1))
        w1, b1, w2 = [], [], []
        for _ in range(width):
            w1.append((torch.rand(d, generator=g, dtype=torch.float64) * 2 - 1) * in_bound)
            b1.append((torch.rand((), generator=g, dtype=torch.float64) * 2 - 1) * in_bound)
            w2.append((torch.rand(d, generator=g, dtype=torch.float64) * 2 - 1) * out_bound)

        def stack(items: list[torch.Tensor], shape: tuple[int, ...]) -> torch.Tensor:
            out = torch.stack(items) if items else torch.zeros(shape, dtype=torch.float64)
            return out.to(dtype)

        self.mlp_in = nn.Parameter(stack(w1, (0, d)))  # W_1, [w, d]
        self.mlp_in_bias = nn.Parameter(stack(b1, (0,)))  # b_1, [w]
        self.mlp_out = nn.Parameter(stack(w2, (0, d)))  # W_2^T, [w, d]; no output bias
        self.register_buffer("unit_mask", (torch.arange(width) < active_width).to(dtype))

    def num_parameters(self) -> int:
        """Attention parameters (see base class) plus ``2 d w + w`` for the active MLP
        (``W_1``, ``b_1``, ``W_2``)."""
        return super().num_parameters() + self.active_width * (2 * self.d + 1)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Logits ``[B, N]``: eq. (2)'s residual stream passed through the residual MLP."""
        resid = self._residual_out(tokens)
        hidden = F.gelu(resid @ self.mlp_in.T + self.mlp_in_bias) * self.unit_mask
        return (resid + hidden @ self.mlp_out) @ self.W_U.T
