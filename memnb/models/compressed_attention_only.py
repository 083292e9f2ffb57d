"""The attention-only model of Dana et al.'s (AISTATS 2025) official code: heads behind one
shared compression.

The official repository (``leodana2000/Transformer_Attentional_Memory``, ``models.py``, class
``Transformer`` with MLP width 0; reproduction notes §3) does not evaluate the paper's eq. (2).
It compresses every token from ``d`` to ``d_h`` with one matrix ``C`` shared by all heads, adds
the positional embedding there (not to the residual stream), runs ``H`` one-head
``nn.MultiheadAttention(d_h, 1, bias=False)`` modules on the compressed sequence, sums their
outputs and maps the sum back with one ``D`` (``d_h -> d``). At the last position ``S``:

    x_s       = e(t_s)                                            (residual stream, R^d)
    c_s       = C x_s + p_s                                       (attention input, R^{d_h})
    a^h       = softmax_s( (W_Q^h c_S)^T (W_K^h c_s) / sqrt(d_h) )
    T(t)      = W_U ( x_S + D sum_h W_O^h W_V^h sum_s a^h_s c_s )

with ``W_Q^h, W_K^h, W_V^h, W_O^h`` all ``d_h x d_h``. ``C`` and ``D`` are the identity (and
not parameters) when ``d = d_h``, as in the code. Every head writes into the same
``d_h``-dimensional subspace ``range(D)`` of the residual stream, where eq. (2) gives each head
its own ``W_O^h`` into ``R^d``. This module exists to test whether that difference explains
where our Experiments 2 and 3 depart from the paper's (``dana.layout``, ours).

Checked against ``models.py`` of the official repository (commit ``cffc0d8``), class
``Transformer.__init__`` and ``forward``:

- ``word_emb = nn.Linear(d, N, bias=False)`` and ``pos_emb = nn.Linear(d_head, context_window,
  bias=False)``; ``forward`` indexes their weights (``word_emb.weight[x]``, ``pos_emb.weight[:S]``),
  so ``e`` is an ``[N, d]`` and ``p`` a ``[context_window, d_h]`` matrix (``context_window = S +
  1``; its last row is never read). They are *not* ``nn.Embedding``: their initialisation is
  ``nn.Linear``'s, ``U(±1/sqrt(fan_in))`` with ``fan_in`` the layer's input size, ``d`` for ``e``
  and ``d_h`` for ``p`` (not ``N`` or ``S``).
- ``linear_compress = nn.Linear(d, d_head, bias=False)`` and ``linear_decompress =
  nn.Linear(d_head, d, bias=False)``, applied only when ``d != d_head``.
- each head is ``nn.MultiheadAttention(d_head, nb_head, batch_first=True, bias=False)`` with
  ``nb_head = 1`` in every experiment, one module per "parallel head", outputs summed; its
  ``in_proj_weight`` ``[3 d_h, d_h]`` is Xavier-uniform, its ``out_proj`` an ``nn.Linear``
  without bias.
- ``unemb = nn.Linear(d, N, bias=False)``; no bias anywhere in the attention-only model, and no
  LayerNorm (despite the class docstring).
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from memnb.models.attention_only import check_sizes, check_tokens
from memnb.models.init import uniform as _uniform
from memnb.validation import check_int as _check_int


class CompressedAttentionOnlyTransformer(nn.Module):
    """The official code's attention-only Transformer of Dana et al. (AISTATS 2025); not eq. (2)
    (see the module docstring).

    Args:
        vocab_size: ``N`` (>= 1). seq_len: ``S`` (>= 1); inputs are ``[B, S]`` token ids.
        d: embedding dimension (>= 1). d_h: head dimension (>= 1).
        num_heads: ``H``, number of (padded) heads (>= 0).
        active_heads: heads that contribute (``None`` = all); the others are masked by the
            float buffer ``head_mask`` (model contract, docs/CONTRACTS.md).
        dtype: floating dtype of the parameters. seed: seed of the initialisation generator.

    Initialisation (the distributions the code's modules draw, see the module docstring): ``e``
    ~ U(±1/sqrt(d)) and ``p`` ~ U(±1/sqrt(d_h)) (weights of ``nn.Linear(d, N)`` and
    ``nn.Linear(d_h, S + 1)``, *not* the N(0, 1) of ``nn.Embedding``); ``C`` ~ U(±1/sqrt(d)),
    ``D`` and ``W_O^h`` ~ U(±1/sqrt(d_h)), ``W_U`` ~ U(±1/sqrt(d)) (``nn.Linear``: bound
    1/sqrt(fan_in)); ``W_Q^h, W_K^h, W_V^h`` ~ U(±sqrt(6 / (4 d_h))), the Xavier bound of
    ``nn.MultiheadAttention``'s stacked ``[3 d_h, d_h]`` input projection. The values come from
    our own seeded generator, not PyTorch's global one, so they are the code's distributions,
    not its draws. Non-head parameters are drawn first, then the heads one after another.
    """

    head_mask: torch.Tensor

    def __init__(self, vocab_size: int, seq_len: int, d: int, d_h: int, num_heads: int, *,
                 active_heads: int | None = None, dtype: torch.dtype = torch.float32,
                 seed: int = 0) -> None:
        super().__init__()
        (self.vocab_size, self.seq_len, self.d, self.d_h, self.num_heads,
         self.active_heads) = check_sizes(vocab_size, seq_len, d, d_h, num_heads, active_heads,
                                          dtype)
        seed = _check_int("seed", seed, 0)
        n, s, d, d_h, h_count = self.vocab_size, self.seq_len, self.d, self.d_h, self.num_heads
        self.compressed = d != d_h
        g = torch.Generator().manual_seed(seed)
        # word_emb and pos_emb are nn.Linear weights in the code: U(±1/sqrt(fan_in))
        self.token_embedding = nn.Parameter(_uniform((n, d), 1.0 / math.sqrt(d), g).to(dtype))
        self.pos_embedding = nn.Parameter(_uniform((s, d_h), 1.0 / math.sqrt(d_h), g).to(dtype))
        self.W_U = nn.Parameter(_uniform((n, d), 1.0 / math.sqrt(d), g).to(dtype))
        if self.compressed:
            self.compress = nn.Parameter(_uniform((d_h, d), 1.0 / math.sqrt(d), g).to(dtype))
            self.decompress = nn.Parameter(_uniform((d, d_h), 1.0 / math.sqrt(d_h), g).to(dtype))
        in_bound, out_bound = math.sqrt(6.0 / (4 * d_h)), 1.0 / math.sqrt(d_h)
        heads = [[_uniform((d_h, d_h), b, g) for b in (in_bound, in_bound, in_bound, out_bound)]
                 for _ in range(h_count)]

        def stack(i: int) -> torch.Tensor:
            if h_count == 0:
                return torch.zeros((0, d_h, d_h), dtype=dtype)
            return torch.stack([head[i] for head in heads]).to(dtype)

        self.W_Q, self.W_K, self.W_V, self.W_O = (nn.Parameter(stack(i)) for i in range(4))
        self.register_buffer("head_mask", (torch.arange(h_count) < self.active_heads).to(dtype))

    def num_parameters(self) -> int:
        """Trained parameters, counting only active heads: ``2 N d + S d_h + 4 d_h^2 H``, plus
        ``2 d d_h`` for ``C`` and ``D`` when ``d != d_h``."""
        shared = sum(p.numel() for name, p in self.named_parameters()
                     if name not in ("W_Q", "W_K", "W_V", "W_O"))
        return shared + 4 * self.d_h * self.d_h * self.active_heads

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Logits ``[B, N]`` of the last position for ``tokens`` ``[B, S]`` (module docstring)."""
        return self._residual_out(tokens) @ self.W_U.T

    def _residual_out(self, tokens: torch.Tensor) -> torch.Tensor:
        """The residual stream at the last position, ``x_S + D sum_h (...)``, ``[B, d]``."""
        check_tokens(tokens, self.seq_len, self.vocab_size)
        x = F.embedding(tokens, self.token_embedding)  # [B, S, d]
        c = (x @ self.compress.T if self.compressed else x) + self.pos_embedding  # [B, S, d_h]
        batch, seq, heads, d_h = c.shape[0], c.shape[1], self.W_Q.shape[0], self.d_h

        def project(weight: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor:
            # all heads at once: [..., d_h] @ [d_h, H d_h]
            return inputs @ weight.permute(2, 0, 1).reshape(d_h, heads * d_h)

        q = project(self.W_Q, c[:, -1]).view(batch, 1, heads, d_h)
        k = project(self.W_K, c).view(batch, seq, heads, d_h)
        attn = torch.softmax((q * k).sum(-1) / math.sqrt(d_h), dim=1)  # [B, S, H]
        v = project(self.W_V, c).view(batch, seq, heads, d_h)
        values = (attn.unsqueeze(-1) * v).sum(dim=1)  # [B, H, d_h]
        w_o = (self.W_O * self.head_mask[:, None, None]).permute(0, 2, 1).reshape(-1, d_h)
        summed = values.reshape(batch, heads * d_h) @ w_o  # sum_h W_O^h (...), [B, d_h]
        out = summed @ self.decompress.T if self.compressed else summed
        return x[:, -1] + out
