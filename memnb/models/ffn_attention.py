"""The experiment model of Kajitsuka & Sato (ICLR 2025): N = E_out ∘ F2 ∘ SA ∘ F1 ∘ E_in.

Their experiments (eq. "model_for_experiment"; chapter notes §3) use "two token-wise
feed-forward networks F1^FF and F2^FF" around one self-attention layer ([unverified]: the stored
Fig. 7 caption names only the two FFNs), and the depth "#blocks" of the two FFNs is the size knob
of Fig. 7 [source: caption]. Width, heads, activation and
normalisation were not found (chapter notes §3); **[reconstruction]** choices here:

* ``E_in``: a linear map of the real token vectors ``x ∈ R^{input_dim}`` (our experiments feed
  fixed pretrained word embeddings, :mod:`memnb.experiments.kajitsuka`; the paper's embedding
  was not found) to ``R^d``, plus a learned positional embedding
  (``positional=True``; without it the model is permutation-equivariant like the theory's);
* ``F1``, ``F2``: ``num_blocks`` residual blocks ``z + W2 relu(W1 LN(z) + b1) + b2`` (hidden width
  ``d_ff``; pre-LayerNorm when ``layer_norm=True``), F1 on every token, F2 on the last one;
* ``SA``: one residual multi-head softmax self-attention layer (``num_heads`` heads of size
  ``head_dim``, logits scaled by ``1/sqrt(head_dim)``), read at the last token (next-token
  prediction: only the last position's output is used, so only its query is computed);
* ``E_out``: a linear read-out ``R^d -> R^C`` (after a LayerNorm when ``layer_norm=True``).

Packing (docs/CONTRACTS.md): parameters are padded to ``num_blocks`` and the float buffer
``block_mask`` (``[num_blocks]``, ones for the first ``active_blocks``) multiplies each block's
update, so a masked block is exactly the identity and receives zero gradients. Non-block
parameters are drawn first, then block ``b`` of F1 and block ``b`` of F2 for ``b = 0, 1, ...``,
so a padded model with ``active_blocks = b`` equals a ``b``-block model with the same seed.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from memnb.models.init import uniform
from memnb.validation import check_int as _check_int


def _uniform(shape: tuple[int, ...], fan_in: int, g: torch.Generator) -> Tensor:
    """PyTorch's default ``nn.Linear`` initialisation, U(±1/sqrt(fan_in)), drawn in float64."""
    return uniform(shape, 1.0 / math.sqrt(fan_in), g)


class FFNAttentionTransformer(nn.Module):
    """``E_out ∘ F2 ∘ SA ∘ F1 ∘ E_in`` of Kajitsuka & Sato's (ICLR 2025) experiments (Figs. 1-2,
    4-5, 7; ``num_blocks`` is their "#blocks"); its widths, heads, activation and normalisation
    are [reconstruction] (see module docstring).

    Args:
        input_dim: dimension of the input token vectors (inputs are ``[B, seq_len, input_dim]``).
        num_classes: ``C``, the number of output logits.
        seq_len: ``n``, the sequence length.
        num_blocks: padded number of blocks of each FFN (>= 0).
        active_blocks: blocks in use (``None`` = all); the others are masked by ``block_mask``.
        d: model width; ``d_ff``: FFN hidden width; ``num_heads``, ``head_dim``: attention.
        positional: learned positional embedding in ``E_in``.
        layer_norm: pre-LayerNorm in every block and before ``E_out``.
        dtype: parameter dtype. seed: seed of the ``torch.Generator`` of the initialisation.
    """

    block_mask: Tensor

    def __init__(self, input_dim: int, num_classes: int, seq_len: int, num_blocks: int, *,
                 active_blocks: int | None = None, d: int = 32, d_ff: int = 64,
                 num_heads: int = 1, head_dim: int | None = None, positional: bool = True,
                 layer_norm: bool = True, dtype: torch.dtype = torch.float32,
                 seed: int = 0) -> None:
        super().__init__()
        self.input_dim = _check_int("input_dim", input_dim, 1)
        self.num_classes = _check_int("num_classes", num_classes, 1)
        self.seq_len = _check_int("seq_len", seq_len, 1)
        self.num_blocks = _check_int("num_blocks", num_blocks, 0)
        active = num_blocks if active_blocks is None else active_blocks
        self.active_blocks = _check_int("active_blocks", active, 0, num_blocks)
        self.d = _check_int("d", d, 1)
        self.d_ff = _check_int("d_ff", d_ff, 1)
        self.num_heads = _check_int("num_heads", num_heads, 1)
        if head_dim is None and num_heads > d:
            raise ValueError(f"num_heads must be <= d = {d} when head_dim is not given (it is "
                             f"d // num_heads), got {num_heads}")
        self.head_dim = _check_int("head_dim", d // num_heads if head_dim is None else head_dim,
                                   1)
        if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
            raise ValueError(f"dtype must be a floating torch.dtype, got {dtype!r}")
        _check_int("seed", seed, 0)
        self.positional = bool(positional)
        self.layer_norm = bool(layer_norm)
        H, dh, B = self.num_heads, self.head_dim, num_blocks

        g = torch.Generator().manual_seed(seed)
        # non-block parameters first
        tensors: dict[str, Tensor] = {
            "W_in": _uniform((d, input_dim), input_dim, g),
            "b_in": _uniform((d,), input_dim, g),
            "pos": torch.randn(seq_len, d, generator=g, dtype=torch.float64) * 0.02,
            "W_Q": _uniform((H, dh, d), d, g),
            "W_K": _uniform((H, dh, d), d, g),
            "W_V": _uniform((H, dh, d), d, g),
            "W_O": _uniform((H, d, dh), H * dh, g),
            "W_out": _uniform((num_classes, d), d, g),
            "b_out": _uniform((num_classes,), d, g),
        }
        # then the blocks, one after another: F1 block b, F2 block b
        blocks: dict[str, list[Tensor]] = {f"{f}_{k}": [] for f in ("f1", "f2")
                                           for k in ("W1", "b1", "W2", "b2")}
        for _ in range(B):
            for f in ("f1", "f2"):
                blocks[f"{f}_W1"].append(_uniform((d_ff, d), d, g))
                blocks[f"{f}_b1"].append(_uniform((d_ff,), d, g))
                blocks[f"{f}_W2"].append(_uniform((d, d_ff), d_ff, g))
                blocks[f"{f}_b2"].append(_uniform((d,), d_ff, g))
        if B:  # a model without blocks has no block parameters (autograd needs every one used)
            tensors.update({name: torch.stack(items) for name, items in blocks.items()})
        if not self.positional:
            del tensors["pos"]
        for name, t in tensors.items():
            setattr(self, name, nn.Parameter(t.to(dtype)))
        if self.layer_norm and B:
            for f in ("f1", "f2"):
                self.register_parameter(f"{f}_ln_w", nn.Parameter(torch.ones(B, d, dtype=dtype)))
                self.register_parameter(f"{f}_ln_b", nn.Parameter(torch.zeros(B, d, dtype=dtype)))
        if self.layer_norm:
            self.out_ln_w = nn.Parameter(torch.ones(d, dtype=dtype))
            self.out_ln_b = nn.Parameter(torch.zeros(d, dtype=dtype))
        self.register_buffer("block_mask", (torch.arange(B) < self.active_blocks).to(dtype))

    # --------------------------------------------------------------------------------- sizes
    def num_parameters(self) -> int:
        """Trainable parameters of the model with ``active_blocks`` blocks per FFN."""
        per_block = 0
        for f in ("f1", "f2"):
            for k in ("W1", "b1", "W2", "b2", "ln_w", "ln_b"):
                t = getattr(self, f"{f}_{k}", None)
                if t is not None:
                    per_block += t[0].numel()
        rest = sum(p.numel() for name, p in self.named_parameters()
                   if not name.startswith(("f1_", "f2_")))
        return rest + per_block * self.active_blocks

    # ------------------------------------------------------------------------------- forward
    def _block(self, f: str, b: int, z: Tensor) -> Tensor:
        h = z
        if self.layer_norm:
            h = F.layer_norm(h, (self.d,), getattr(self, f"{f}_ln_w")[b],
                             getattr(self, f"{f}_ln_b")[b])
        h = torch.relu(h @ getattr(self, f"{f}_W1")[b].T + getattr(self, f"{f}_b1")[b])
        h = h @ getattr(self, f"{f}_W2")[b].T + getattr(self, f"{f}_b2")[b]
        return z + self.block_mask[b] * h

    def forward(self, x: Tensor) -> Tensor:
        """Logits ``[B, C]`` at the last token for token vectors ``x`` ``[B, n, input_dim]``."""
        if x.dim() != 3 or x.shape[-2:] != (self.seq_len, self.input_dim):
            raise ValueError(f"x must have shape [batch, {self.seq_len}, {self.input_dim}], "
                             f"got {tuple(x.shape)}")
        z = x.to(self.W_in.dtype) @ self.W_in.T + self.b_in
        if self.positional:
            z = z + self.pos
        for b in range(self.num_blocks):
            z = self._block("f1", b, z)
        # SA: one residual softmax attention layer, query at the last token only
        q = torch.einsum("hed,bd->bhe", self.W_Q, z[:, -1])
        k = torch.einsum("hed,bsd->bhse", self.W_K, z)
        v = torch.einsum("hed,bsd->bhse", self.W_V, z)
        attn = torch.softmax(torch.einsum("bhe,bhse->bhs", q, k) / math.sqrt(self.head_dim), -1)
        heads = torch.einsum("bhs,bhse->bhe", attn, v)
        last = z[:, -1] + torch.einsum("hde,bhe->bd", self.W_O, heads)
        for b in range(self.num_blocks):
            last = self._block("f2", b, last)
        if self.layer_norm:
            last = F.layer_norm(last, (self.d,), self.out_ln_w, self.out_ln_b)
        return last @ self.W_out.T + self.b_out
