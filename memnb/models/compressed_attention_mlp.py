"""The official code's one-head + MLP model of Dana et al. (AISTATS 2025), Experiment 5.

The model the official code trains for Experiment 5's MLP curve: ``models.py``, class
``Transformer`` with ``nb_layers = 1``, one "parallel head" and MLP width ``w > 0`` (commit
``cffc0d8``). Its attention part is the code's attention-only model
(:class:`~memnb.models.compressed_attention_only.CompressedAttentionOnlyTransformer`: embeddings
drawn U(±1/sqrt(d)) as ``nn.Linear`` weights, logits scaled by 1/sqrt(d_h), positions added only
to the attention input); its residual MLP block is the code's, the one
:class:`~memnb.models.attention_mlp.AttentionMLPTransformer` adds to eq. (2):

    r         = x_S + D sum_h W_O^h W_V^h (...)          (the code's attention-only stream)
    T(t)      = W_U ( r + W_2 GELU(W_1 r + b_1) )

This model exists to measure how much of the difference between our Experiment 5 (eq. (2) +
MLP) and the paper's CSV comes from the model the code trains (``dana.exp5_code``, ours).
"""

from __future__ import annotations

import torch
from torch import nn

from memnb.models.attention_mlp import MLP_SEED_OFFSET, check_width, draw_mlp_block, mlp_residual
from memnb.models.compressed_attention_only import CompressedAttentionOnlyTransformer


class CompressedAttentionMLPTransformer(CompressedAttentionOnlyTransformer):
    """:class:`CompressedAttentionOnlyTransformer` plus one residual GELU MLP of (padded) width
    ``width``: the MLP model of Dana et al.'s (AISTATS 2025) official code for Experiment 5 (see the
    module docstring). ``active_width`` masks the hidden units beyond it (buffer ``unit_mask``), so
    models of different widths train as one packed stack.

    Initialisation: the attention part as the base class; the MLP as the code's ``nn.Linear``
    layers (:func:`~memnb.models.attention_mlp.draw_mlp_block`), drawn after every attention
    parameter from a generator seeded by ``seed + MLP_SEED_OFFSET``.
    """

    unit_mask: torch.Tensor

    def __init__(self, vocab_size: int, seq_len: int, d: int, d_h: int, num_heads: int,
                 width: int, *, active_width: int | None = None, seed: int = 0,
                 dtype: torch.dtype = torch.float32, **kwargs: object) -> None:
        super().__init__(vocab_size, seq_len, d, d_h, num_heads, seed=seed, dtype=dtype, **kwargs)
        self.width, self.active_width = check_width(width, active_width)
        w1, b1, w2 = draw_mlp_block(d, self.width, self.active_width, seed + MLP_SEED_OFFSET,
                                    dtype)
        self.mlp_in = nn.Parameter(w1)  # W_1, [w, d]
        self.mlp_in_bias = nn.Parameter(b1)  # b_1, [w]
        self.mlp_out = nn.Parameter(w2)  # W_2^T, [w, d]; no output bias
        self.register_buffer("unit_mask", (torch.arange(self.width) < self.active_width).to(dtype))

    def num_parameters(self) -> int:
        """The attention part's trained parameters (base class) plus ``2 d w + w`` for the
        active MLP (``W_1``, ``b_1``, ``W_2``)."""
        return super().num_parameters() - (self.mlp_in.numel() + self.mlp_in_bias.numel()
                                           + self.mlp_out.numel()) + (
            self.active_width * (2 * self.d + 1))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Logits ``[B, N]``: the code's attention-only stream through the residual MLP."""
        return mlp_residual(self._residual_out(tokens), self.mlp_in, self.mlp_in_bias,
                            self.mlp_out, self.unit_mask) @ self.W_U.T
