"""The attention + MLP comparison model of Dana et al. (AISTATS 2025), Experiment 5.

The official code's MLP variant: the attention layer of eq. (2) followed by one residual MLP
block before the unembedding, ``T(t) = W_U (r + W_2 GELU(W_1 r + b_1))`` where ``r`` is the
residual stream of eq. (2). Experiment 5 compares an AoT with ``H`` heads against this model with
one head and MLP width ``w = 2 d (H - 1)`` (``d = d_h``); §5.2 calls the AoT one "with equal
number of parameters". Counted here (``num_parameters``, equal to ``sum(p.numel())`` with one
layer and every head and unit active), the two counts are the same up to the ``w`` biases of
``b_1``: the AoT has ``d (S + 2N) + 4 d² H``, this model ``d (S + 2N) + 4 d² + w (2 d + 1)``,
which is ``w`` more (checked by instantiating both, e.g. at d = 10, H = 6). The paper's axis,
``4 d² H + d (2N + 1)`` for both models (Fig. 3's x-axis as our notes give it), ignores them
(ours); it is also ``d (S - 1)`` below our AoT count.

The block is the one of ``models.py`` in the official repository (commit ``cffc0d8``), class
``Transformer``: ``nn.Linear(d, width, bias=True)``, ``nn.GELU()``, ``nn.Linear(width, d,
bias=False)``, added to the residual stream, and no MLP at all when the width is 0 (``use_mlp``).
So ``W_1`` has a bias ``b_1`` and ``W_2`` has **no** output bias. The paper's §5.2 writes
``T(t) = W_U (W_2 σ W_1 + Id)(...)`` with no bias at all; we keep the code's ``b_1``. The
attention part (embeddings, heads, their initialisation) is eq. (2)'s
:class:`~memnb.models.attention_only.AttentionOnlyTransformer`, the same as the AoT it is compared
with in Experiment 5.

With ``num_layers = L > 1`` (App. B.2, "AoT and MLP-based Transformer with 5 layers"; the
code's runs use 3) every attention layer is followed by its own residual MLP block of the same
width, as in the code's ``Transformer`` (one ``mlp_seq`` entry per layer), applied at every
position.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from memnb.models.attention_only import LAYER_SEED_STRIDE, AttentionOnlyTransformer

#: Offset of the MLP's generator seed from the model's, so the MLP draws never repeat the
#: attention parameters' draws.
MLP_SEED_OFFSET = 7_919


def draw_mlp_block(d: int, width: int, active_width: int, seed: int,
                   dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``W_1`` ``[w, d]``, ``b_1`` ``[w]`` and ``W_2^T`` ``[w, d]`` of one residual MLP block of
    (padded) width ``width``, initialised as the official code's ``nn.Linear(d, w)`` and
    ``nn.Linear(w, d, bias=False)``: ``W_1``, ``b_1`` ~ U(±1/sqrt(d)), ``W_2`` ~
    U(±1/sqrt(active_width)). Drawn unit after unit from a generator seeded by ``seed``, so the
    first ``w`` units of a padded block equal those of a width-``w`` block with the same seed."""
    g = torch.Generator().manual_seed(seed)
    in_bound, out_bound = 1.0 / math.sqrt(d), 1.0 / math.sqrt(max(active_width, 1))
    w1, b1, w2 = [], [], []
    for _ in range(width):
        w1.append((torch.rand(d, generator=g, dtype=torch.float64) * 2 - 1) * in_bound)
        b1.append((torch.rand((), generator=g, dtype=torch.float64) * 2 - 1) * in_bound)
        w2.append((torch.rand(d, generator=g, dtype=torch.float64) * 2 - 1) * out_bound)

    def stack(items: list[torch.Tensor], shape: tuple[int, ...]) -> torch.Tensor:
        out = torch.stack(items) if items else torch.zeros(shape, dtype=torch.float64)
        return out.to(dtype)

    return stack(w1, (0, d)), stack(b1, (0,)), stack(w2, (0, d))


def mlp_residual(stream: torch.Tensor, w1: torch.Tensor, b1: torch.Tensor, w2: torch.Tensor,
                 unit_mask: torch.Tensor) -> torch.Tensor:
    """``stream + W_2 GELU(W_1 stream + b_1)`` on ``stream`` ``[..., d]``, hidden units beyond
    the active width masked out by ``unit_mask`` ``[w]``."""
    hidden = F.gelu(stream @ w1.T + b1) * unit_mask
    return stream + hidden @ w2


def check_width(width: int, active_width: int | None) -> tuple[int, int]:
    """Validated ``(width, active_width)`` of an MLP block (``None``: the whole width)."""
    if isinstance(width, bool) or not isinstance(width, int) or width < 0:
        raise ValueError(f"width must be an integer >= 0; got {width!r}")
    active_width = width if active_width is None else active_width
    if not 0 <= active_width <= width:
        raise ValueError(f"active_width must be in 0..width={width}; got {active_width}")
    return width, active_width


class AttentionMLPTransformer(AttentionOnlyTransformer):
    """:class:`AttentionOnlyTransformer` plus one residual GELU MLP of (padded) width ``width``.

    The MLP-based Transformer of Dana et al. (AISTATS 2025), §5.2 / Experiment 5, with the
    official code's ``b_1`` (see the module docstring). ``active_width`` masks hidden units
    beyond it (buffer ``unit_mask``), so models of different widths can be trained as one
    packed stack.

    Initialisation (``nn.Linear``'s, as the official code's block): ``W_1`` and ``b_1`` ~
    U(±1/sqrt(d)), ``W_2`` ~ U(±1/sqrt(w)) with ``w`` the *active* width, so that padding a model
    does not change the units it shares with the unpadded one. The MLP is drawn after every
    attention parameter from a generator seeded by ``seed`` (offset), unit after unit, so the
    first ``w`` units of a padded model equal those of a width-``w`` model with the same seed.
    There is no output bias (``nn.Linear(width, d, bias=False)`` in the code). With
    ``num_layers = L > 1`` the blocks of layers ``2..L`` are ``mlp_in_deep`` (``[L-1, w, d]``),
    ``mlp_in_bias_deep`` (``[L-1, w]``) and ``mlp_out_deep`` (``[L-1, w, d]``), layer ``l``
    drawn the same way from a generator seeded by ``seed + 7_919 + LAYER_SEED_STRIDE (l - 1)``.
    """

    unit_mask: torch.Tensor

    def __init__(self, vocab_size: int, seq_len: int, d: int, d_h: int, num_heads: int,
                 width: int, *, active_width: int | None = None, seed: int = 0,
                 dtype: torch.dtype = torch.float32, **kwargs: object) -> None:
        super().__init__(vocab_size, seq_len, d, d_h, num_heads, seed=seed, dtype=dtype, **kwargs)
        width, active_width = check_width(width, active_width)
        self.width, self.active_width = width, active_width

        def draw(layer_seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            return draw_mlp_block(d, width, active_width, layer_seed, dtype)

        w1, b1, w2 = draw(seed + MLP_SEED_OFFSET)
        self.mlp_in = nn.Parameter(w1)  # W_1, [w, d]
        self.mlp_in_bias = nn.Parameter(b1)  # b_1, [w]
        self.mlp_out = nn.Parameter(w2)  # W_2^T, [w, d]; no output bias
        self.register_buffer("unit_mask", (torch.arange(width) < active_width).to(dtype))
        if self.num_layers > 1:
            deep = [draw(seed + MLP_SEED_OFFSET + LAYER_SEED_STRIDE * layer)
                    for layer in range(1, self.num_layers)]
            for i, name in enumerate(("mlp_in_deep", "mlp_in_bias_deep", "mlp_out_deep")):
                self.register_parameter(name, nn.Parameter(torch.stack([p[i] for p in deep])))

    def num_parameters(self) -> int:
        """Attention parameters (see base class) plus ``2 d w + w`` for the active MLP
        (``W_1``, ``b_1``, ``W_2``) of each layer."""
        return super().num_parameters() + self.active_width * (2 * self.d + 1) * self.num_layers

    def _block(self, stream: torch.Tensor, layer: int) -> torch.Tensor:
        """Layer ``layer``'s residual MLP on ``stream`` (``[B, S, d]``), at every position."""
        if layer == 0:
            w1, b1, w2 = self.mlp_in, self.mlp_in_bias, self.mlp_out
        else:
            w1, b1, w2 = (self.mlp_in_deep[layer - 1], self.mlp_in_bias_deep[layer - 1],
                          self.mlp_out_deep[layer - 1])
        return mlp_residual(stream, w1, b1, w2, self.unit_mask)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Logits ``[B, N]``: eq. (2)'s residual stream passed through the residual MLP."""
        if self.num_layers > 1:
            return self._deep_out(tokens) @ self.W_U.T
        resid = self._residual_out(tokens)
        return mlp_residual(resid, self.mlp_in, self.mlp_in_bias, self.mlp_out,
                            self.unit_mask) @ self.W_U.T
