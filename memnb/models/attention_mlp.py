"""The attention + MLP comparison model of Dana et al. (AISTATS 2025), Experiment 5.

The official code's MLP variant: the attention layer of eq. (2) followed by one residual MLP
block before the unembedding, ``T(t) = W_U (r + W_2 GELU(W_1 r + b_1) + b_2)`` where ``r`` is the
residual stream of eq. (2). Experiment 5 compares an AoT with ``H`` heads against this model with
one head and MLP width ``w = 2 d (H - 1)``, which has the same parameter count.
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
    widths can be trained as one packed stack. The MLP is drawn after every attention parameter
    from a generator seeded by ``seed`` (offset), unit after unit, so the first ``w`` units of a
    padded model equal those of a width-``w`` model with the same seed.
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
        # scales follow the *active* width (nn.Linear's 1/sqrt(fan_in)), so that padding a
        # model does not change the units it shares with the unpadded one
        b1_bound, b2_bound = 1.0 / math.sqrt(d), 1.0 / math.sqrt(max(active_width, 1))
        b2 = (torch.rand(d, generator=g, dtype=torch.float64) * 2 - 1) * b2_bound
        w1, b1, w2 = [], [], []
        for _ in range(width):
            w1.append((torch.rand(d, generator=g, dtype=torch.float64) * 2 - 1) * b1_bound)
            b1.append((torch.rand((), generator=g, dtype=torch.float64) * 2 - 1) * b1_bound)
            w2.append((torch.rand(d, generator=g, dtype=torch.float64) * 2 - 1) * b2_bound)

        def stack(items: list[torch.Tensor], shape: tuple[int, ...]) -> torch.Tensor:
            out = torch.stack(items) if items else torch.zeros(shape, dtype=torch.float64)
            return out.to(dtype)

        self.mlp_in = nn.Parameter(stack(w1, (0, d)))  # [w, d]
        self.mlp_in_bias = nn.Parameter(stack(b1, (0,)))  # [w]
        self.mlp_out = nn.Parameter(stack(w2, (0, d)))  # [w, d]
        self.mlp_out_bias = nn.Parameter(b2.to(dtype))  # [d]
        self.register_buffer("unit_mask", (torch.arange(width) < active_width).to(dtype))

    def num_parameters(self) -> int:
        """Attention parameters (see base class) plus ``2 d w + w + d`` for the active MLP."""
        return super().num_parameters() + self.active_width * (2 * self.d + 1) + self.d

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Logits ``[B, N]``: eq. (2)'s residual stream passed through the residual MLP."""
        resid = self._residual_out(tokens)
        hidden = F.gelu(resid @ self.mlp_in.T + self.mlp_in_bias) * self.unit_mask
        resid = resid + hidden @ self.mlp_out + self.mlp_out_bias
        return resid @ self.W_U.T
