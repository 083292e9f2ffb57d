"""The attention-only Transformer (AoT) of Dana, Pydi & Chevaleyre (AISTATS 2025), eqs. (1)-(2).

One layer of ``H`` parallel attention heads on a residual stream, with no MLP and no LayerNorm.
Only the last position's prediction is used:

    x(t, s)   = e(t_s) + pos_s                                   (token + positional embedding)
    a^h(t)    = softmax_s( x(t,S)^T W_Q^{hT} W_K^h x(t,s) )       (eq. 1, no 1/sqrt(d_h) scaling)
    A^h(t)    = sum_s a^h_s(t) x(t,s)                             (in R^d)
    T(t)      = W_U ( x(t,S) + sum_h W_O^h W_V^h A^h(t) )         (eq. 2, logits in R^N)

so that ``W_QK^h = W_Q^{hT} W_K^h`` has rank at most ``d_h``. Two options reproduce the
official code (``leodana2000/Transformer_Attentional_Memory``) instead of the paper:
``scale_logits=True`` divides the attention logits by ``sqrt(d_h)`` (as
``nn.MultiheadAttention`` does) and ``pos_placement="attention_only"`` adds the positional
embedding only to the attention input (queries, keys and values), not to the residual stream.
The code's shared ``d -> d_h`` compression is not an option here: every head has its own
``W_Q^h, W_K^h, W_V^h`` as in the paper; the code's model is
:class:`memnb.models.compressed_attention_only.CompressedAttentionOnlyTransformer`.

``num_layers = L > 1`` stacks ``L`` such residual attention layers (App. B.2 of the paper,
"5 layers instead of 1"; the code's App. B.2 runs use 3, reproduction notes §3), the way the
official code's ``Transformer`` stacks them: every layer attends causally over the whole sequence
(position ``s`` sees positions ``1..s``) and adds its heads' outputs to the residual stream;
the embeddings, the positional embedding and ``W_U`` are shared, and only the last position of
the last layer is unembedded. With ``pos_placement="attention_only"`` the positional embedding
is added to every layer's attention input, as in the code. ``L = 1`` is eq. (2) exactly (the
default; its parameters, their draws and its forward pass are those of the one-layer model).
"""

from __future__ import annotations

import math
from typing import Literal

import torch
from torch import nn
from torch.nn import functional as F

from memnb.models.init import uniform as _uniform
from memnb.validation import EvaluationOrder, check_evaluation_order, uses_merged_order
from memnb.validation import check_int as _check_int

PosPlacement = Literal["residual", "attention_only"]
_POS_PLACEMENTS = ("residual", "attention_only")


def _is_functorch_wrapped(t: torch.Tensor) -> bool:
    """True when ``t`` is batched/wrapped by a ``torch.func`` transform (value checks skipped)."""
    checker = getattr(torch._C._functorch, "is_functorch_wrapped_tensor", None)
    return bool(checker(t)) if checker is not None else False


def check_sizes(vocab_size: int, seq_len: int, d: int, d_h: int, num_heads: int,
                active_heads: int | None,
                dtype: torch.dtype) -> tuple[int, int, int, int, int, int]:
    """Validated ``(vocab_size, seq_len, d, d_h, num_heads, active_heads)`` of an attention-only
    model (``active_heads=None`` means all heads); each error names its parameter and range."""
    sizes = (_check_int("vocab_size", vocab_size, 1), _check_int("seq_len", seq_len, 1),
             _check_int("d", d, 1), _check_int("d_h", d_h, 1),
             _check_int("num_heads", num_heads, 0))
    active = _check_int("active_heads", num_heads if active_heads is None else active_heads, 0,
                        sizes[-1])
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise ValueError(f"dtype must be a floating torch.dtype, got {dtype!r}")
    return (*sizes, active)


def check_tokens(tokens: torch.Tensor, seq_len: int, vocab_size: int) -> None:
    """Raise ``ValueError`` unless ``tokens`` is an integer ``[batch, seq_len]`` tensor of ids in
    ``[0, vocab_size)`` (the value check is skipped inside ``torch.func`` transforms)."""
    if not isinstance(tokens, torch.Tensor):
        raise ValueError(f"tokens must be a torch.Tensor, got {type(tokens).__name__}")
    if tokens.dtype.is_floating_point or tokens.dtype.is_complex or tokens.dtype == torch.bool:
        raise ValueError(f"tokens must be an integer tensor, got dtype {tokens.dtype}")
    if tokens.ndim != 2 or tokens.shape[1] != seq_len:
        raise ValueError(
            f"tokens must have shape [batch, seq_len={seq_len}], got {tuple(tokens.shape)}"
        )
    if not _is_functorch_wrapped(tokens) and tokens.numel() > 0:
        low, high = int(tokens.min()), int(tokens.max())
        if low < 0 or high >= vocab_size:
            raise ValueError(
                f"tokens must lie in [0, vocab_size={vocab_size}), got values in [{low}, {high}]"
            )


#: Seed offset between the generators of consecutive layers ``2..L`` (a prime, far from the
#: MLP's offset in :mod:`memnb.models.attention_mlp`).
LAYER_SEED_STRIDE = 104_729


def _draw_heads(count: int, d: int, d_h: int, g: torch.Generator
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """``W_Q, W_K, W_V`` ``[count, d_h, d]`` ~ U(±1/sqrt(d)) and ``W_O`` ``[count, d, d_h]`` ~
    U(±1/sqrt(d_h)), drawn head after head (the layer-1 order of
    :class:`AttentionOnlyTransformer`)."""
    q_bound, o_bound = 1.0 / math.sqrt(d), 1.0 / math.sqrt(d_h)
    heads = [(_uniform((d_h, d), q_bound, g), _uniform((d_h, d), q_bound, g),
              _uniform((d_h, d), q_bound, g), _uniform((d, d_h), o_bound, g))
             for _ in range(count)]
    if not heads:
        return (torch.zeros(0, d_h, d, dtype=torch.float64),
                torch.zeros(0, d_h, d, dtype=torch.float64),
                torch.zeros(0, d_h, d, dtype=torch.float64),
                torch.zeros(0, d, d_h, dtype=torch.float64))
    return tuple(torch.stack([head[i] for head in heads]) for i in range(4))  # type: ignore[return-value]


class AttentionOnlyTransformer(nn.Module):
    """Attention-only Transformer of Dana et al. (AISTATS 2025), eqs. (1)-(2).

    Args:
        vocab_size: ``N``, the number of tokens (>= 1).
        seq_len: ``S``, the context length (>= 1); inputs are ``[B, S]`` token ids.
        d: embedding dimension (>= 1).
        d_h: head dimension (>= 1). The paper takes ``d_h <= d`` (§2); larger values are
            allowed because the official code's Experiment 3 uses ``d_h = 10 > d`` (a head's
            ``W_QK`` and ``W_O W_V`` then still have rank at most ``d``).
        num_heads: ``H``, number of (padded) heads (>= 0).
        active_heads: number of heads that contribute (``None`` = all); the others are masked
            by the float buffer ``head_mask`` (model contract, docs/CONTRACTS.md).
        scale_logits: divide attention logits by ``sqrt(d_h)`` (official code) instead of the
            paper's unscaled eq. (1).
        pos_placement: ``"residual"`` (paper, eq. 2: ``x = e + pos`` everywhere) or
            ``"attention_only"`` (official code: ``pos`` only enters the attention input).
        evaluation_order: ``"auto"`` (the cheaper order for these sizes, see
            :meth:`_residual_out`), ``"per_head"`` or ``"merged"``
            (:data:`memnb.validation.EvaluationOrder`).
        dtype: floating dtype of the parameters.
        seed: seed of the ``torch.Generator`` used for initialisation.
        num_layers: ``L >= 1`` residual attention layers (see the module docstring). Layers
            ``2..L`` are the parameters ``W_Q_deep``, ``W_K_deep``, ``W_V_deep`` (``[L-1, H, d_h,
            d]``) and ``W_O_deep`` (``[L-1, H, d, d_h]``), present only when ``L > 1``; the same
            ``active_heads`` (and ``head_mask``) apply to every layer.

    Initialisation (PyTorch-default scales for the paper's model; the paper states none):
    embeddings ``e`` and ``pos`` ~ N(0, 1) like ``nn.Embedding``; ``W_U``, ``W_Q^h``, ``W_K^h``,
    ``W_V^h`` ~ U(±1/sqrt(d)) and ``W_O^h`` ~ U(±1/sqrt(d_h)) like ``nn.Linear`` (bound
    1/sqrt(fan_in)). This is not the official code's initialisation: its embeddings are
    ``nn.Linear`` weights, U(±1/sqrt(d)) and U(±1/sqrt(d_h)), and its heads
    ``nn.MultiheadAttention`` modules (see
    :class:`~memnb.models.compressed_attention_only.CompressedAttentionOnlyTransformer`, which
    has the code's). Non-head parameters are drawn first, then the heads one after another, so
    the first ``h`` heads equal those of an ``h``-head model with the same seed. Values are drawn
    in float64 and then cast to ``dtype``. Layer ``l >= 2`` draws its heads, with the same
    distributions, from its own generator seeded by ``seed + LAYER_SEED_STRIDE (l - 1)``, so that
    padding the head count changes no active head of any layer.
    """

    head_mask: torch.Tensor

    def __init__(
        self,
        vocab_size: int,
        seq_len: int,
        d: int,
        d_h: int,
        num_heads: int,
        *,
        active_heads: int | None = None,
        scale_logits: bool = False,
        pos_placement: PosPlacement = "residual",
        evaluation_order: EvaluationOrder = "auto",
        dtype: torch.dtype = torch.float32,
        seed: int = 0,
        num_layers: int = 1,
    ) -> None:
        super().__init__()
        self.evaluation_order = check_evaluation_order(evaluation_order)
        (self.vocab_size, self.seq_len, self.d, self.d_h, self.num_heads,
         self.active_heads) = check_sizes(vocab_size, seq_len, d, d_h, num_heads, active_heads,
                                          dtype)
        if pos_placement not in _POS_PLACEMENTS:
            raise ValueError(
                f"pos_placement must be one of {_POS_PLACEMENTS}, got {pos_placement!r}"
            )
        seed = _check_int("seed", seed, 0)
        self.num_layers = _check_int("num_layers", num_layers, 1)
        self.scale_logits = bool(scale_logits)
        self.pos_placement: PosPlacement = pos_placement

        n, s, d, d_h, h_count = self.vocab_size, self.seq_len, self.d, self.d_h, self.num_heads
        g = torch.Generator().manual_seed(seed)
        # non-head parameters first
        token = torch.randn(n, d, generator=g, dtype=torch.float64)
        pos = torch.randn(s, d, generator=g, dtype=torch.float64)
        unemb = _uniform((n, d), 1.0 / math.sqrt(d), g)
        # then the heads, one after another
        heads = [
            (
                _uniform((d_h, d), 1.0 / math.sqrt(d), g),
                _uniform((d_h, d), 1.0 / math.sqrt(d), g),
                _uniform((d_h, d), 1.0 / math.sqrt(d), g),
                _uniform((d, d_h), 1.0 / math.sqrt(d_h), g),
            )
            for _ in range(h_count)
        ]

        def stack(i: int, shape: tuple[int, int]) -> torch.Tensor:
            if h_count == 0:
                return torch.zeros((0, *shape), dtype=torch.float64)
            return torch.stack([head[i] for head in heads])

        self.token_embedding = nn.Parameter(token.to(dtype))
        self.pos_embedding = nn.Parameter(pos.to(dtype))
        self.W_Q = nn.Parameter(stack(0, (d_h, d)).to(dtype))
        self.W_K = nn.Parameter(stack(1, (d_h, d)).to(dtype))
        self.W_V = nn.Parameter(stack(2, (d_h, d)).to(dtype))
        self.W_O = nn.Parameter(stack(3, (d, d_h)).to(dtype))
        self.W_U = nn.Parameter(unemb.to(dtype))
        mask = (torch.arange(h_count) < self.active_heads).to(dtype)
        self.register_buffer("head_mask", mask)
        if self.num_layers > 1:
            deep = [_draw_heads(h_count, d, d_h, torch.Generator().manual_seed(
                seed + LAYER_SEED_STRIDE * layer)) for layer in range(1, self.num_layers)]
            for i, name in enumerate(("W_Q_deep", "W_K_deep", "W_V_deep", "W_O_deep")):
                self.register_parameter(
                    name, nn.Parameter(torch.stack([layer[i] for layer in deep]).to(dtype)))

    # ------------------------------------------------------------------ construction helpers
    @classmethod
    def from_weights(
        cls,
        *,
        token_embedding: torch.Tensor,
        pos_embedding: torch.Tensor,
        W_Q: torch.Tensor,
        W_K: torch.Tensor,
        W_V: torch.Tensor,
        W_O: torch.Tensor,
        W_U: torch.Tensor,
        scale_logits: bool = False,
        pos_placement: PosPlacement = "residual",
        evaluation_order: EvaluationOrder = "per_head",
        dtype: torch.dtype = torch.float64,
    ) -> AttentionOnlyTransformer:
        """Build a model whose weights are given explicitly (used by the constructions).

        Shapes: ``token_embedding [N, d]``, ``pos_embedding [S, d]``, ``W_Q, W_K, W_V
        [H, d_h, d]``, ``W_O [H, d, d_h]``, ``W_U [N, d]``; all heads are active. The heads are
        evaluated per head by default: constructed weights can span many scales, and the merged
        ``W_QK``, ``W_OV`` then lose digits (on one float64 construction of Cor. 1, logits off by
        3e-4 merged against 7e-9 per head).
        """
        tensors = {
            "token_embedding": token_embedding, "pos_embedding": pos_embedding, "W_Q": W_Q,
            "W_K": W_K, "W_V": W_V, "W_O": W_O, "W_U": W_U,
        }
        for name, t in tensors.items():
            if not isinstance(t, torch.Tensor) or not t.is_floating_point():
                raise ValueError(f"{name} must be a floating-point torch.Tensor")
        if token_embedding.ndim != 2:
            raise ValueError(f"token_embedding must be [N, d], got {tuple(token_embedding.shape)}")
        n, d = token_embedding.shape
        if pos_embedding.ndim != 2 or pos_embedding.shape[1] != d:
            raise ValueError(f"pos_embedding must be [S, {d}], got {tuple(pos_embedding.shape)}")
        s = pos_embedding.shape[0]
        if W_Q.ndim != 3 or W_Q.shape[2] != d:
            raise ValueError(f"W_Q must be [H, d_h, {d}], got {tuple(W_Q.shape)}")
        h, d_h = W_Q.shape[0], W_Q.shape[1]
        for name, t, shape in (("W_K", W_K, (h, d_h, d)), ("W_V", W_V, (h, d_h, d)),
                               ("W_O", W_O, (h, d, d_h)), ("W_U", W_U, (n, d))):
            if tuple(t.shape) != shape:
                raise ValueError(f"{name} must have shape {shape}, got {tuple(t.shape)}")
        model = cls(n, s, d, d_h, h, scale_logits=scale_logits, pos_placement=pos_placement,
                    evaluation_order=evaluation_order, dtype=dtype)
        with torch.no_grad():
            for name, t in tensors.items():
                getattr(model, name).copy_(t.to(dtype))
        return model

    def qk_matrices(self) -> torch.Tensor:
        """``W_QK^h = W_Q^{hT} W_K^h`` for every head, shape ``[H, d, d]`` (rank <= d_h)."""
        return torch.einsum("hqi,hqj->hij", self.W_Q, self.W_K)

    def num_parameters(self) -> int:
        """Number of the paper's parameters, counting only active heads.

        ``N d + S d + N d`` (embeddings, unembedding) plus ``4 d d_h`` per active head and
        layer; equals ``d (S + 2N + 4 d_h H L)`` (Dana et al., Thm 1, for ``L = 1``).
        """
        per_head = self.W_Q[0].numel() * 3 + self.W_O[0].numel() if self.num_heads else 0
        return (self.token_embedding.numel() + self.pos_embedding.numel() + self.W_U.numel()
                + per_head * self.active_heads * self.num_layers)

    # ------------------------------------------------------------------------------ forward
    def _check_tokens(self, tokens: torch.Tensor) -> None:
        check_tokens(tokens, self.seq_len, self.vocab_size)

    def _streams(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Return (attention input ``[B, S, d]``, residual at the last position ``[B, d]``)."""
        emb = F.embedding(tokens, self.token_embedding)
        x = emb + self.pos_embedding
        if self.pos_placement == "residual":
            return x, x[:, -1]
        return x, emb[:, -1]

    def _flat(self, weight: torch.Tensor) -> torch.Tensor:
        """``[H, d_h, d]`` -> ``[d, H d_h]``: all heads' projections as one matrix (one GEMM)."""
        return weight.permute(2, 0, 1).reshape(self.d, -1)

    def _parts(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Attention ``[B, S, H]``, values ``W_V^h A^h`` ``[B, H, d_h]``, residual ``[B, d]``.

        All heads are projected with one matrix product each for queries, keys and values
        (this layout is about twice as fast as per-head einsums when many models are packed).
        """
        self._check_tokens(tokens)
        x, resid = self._streams(tokens)
        batch, seq = x.shape[0], x.shape[1]
        heads, d_h = self.W_Q.shape[0], self.W_Q.shape[1]
        q = (x[:, -1] @ self._flat(self.W_Q)).view(batch, 1, heads, d_h)
        k = (x @ self._flat(self.W_K)).view(batch, seq, heads, d_h)
        logits = (q * k).sum(dim=-1)
        if self.scale_logits:
            logits = logits / math.sqrt(self.d_h)
        attn = torch.softmax(logits, dim=1)
        v = (x @ self._flat(self.W_V)).view(batch, seq, heads, d_h)
        return attn, (attn.unsqueeze(-1) * v).sum(dim=1), resid

    def attention_weights(self, tokens: torch.Tensor) -> torch.Tensor:
        """Attention weights ``a^h(t)`` of the last position (eq. 1), shape ``[B, H, S]``."""
        return self._parts(tokens)[0].transpose(1, 2)

    def features(self, tokens: torch.Tensor) -> torch.Tensor:
        """``F(t) = [x(t,S); W_V^1 A^1(t); ...; W_V^H A^H(t)]``, shape ``[B, d + H d_h]``.

        The logits are the linear map ``W_U [I_d | W_O^1 | ... | W_O^H]`` applied to ``F(t)``
        (eq. 2); masked heads contribute zeros. This is the feature matrix of the construction
        in ``memnb.constructions.aot``. One layer only.
        """
        if self.num_layers > 1:
            raise ValueError(f"features needs num_layers = 1; this model has {self.num_layers}")
        _, values, resid = self._parts(tokens)
        values = values * self.head_mask[:, None]
        return torch.cat([resid, values.flatten(1)], dim=1)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Logits ``T(t_{1:S})`` of eq. (2) for ``tokens`` ``[B, S]``; returns ``[B, N]``."""
        if self.num_layers > 1:
            return self._deep_out(tokens) @ self.W_U.T
        return self._residual_out(tokens) @ self.W_U.T

    # ------------------------------------------------------------------ several layers (L > 1)
    def _layer_weights(self, layer: int) -> tuple[torch.Tensor, ...]:
        """``W_Q, W_K, W_V, W_O`` of layer ``layer`` (0-based)."""
        if layer == 0:
            return self.W_Q, self.W_K, self.W_V, self.W_O
        return (self.W_Q_deep[layer - 1], self.W_K_deep[layer - 1], self.W_V_deep[layer - 1],
                self.W_O_deep[layer - 1])

    def _block(self, stream: torch.Tensor, layer: int) -> torch.Tensor:
        """What follows layer ``layer``'s attention on the residual stream (nothing here; the
        MLP of :class:`~memnb.models.attention_mlp.AttentionMLPTransformer`)."""
        return stream

    def _deep_out(self, tokens: torch.Tensor) -> torch.Tensor:
        """Residual stream at the last position after ``L`` causal residual attention layers
        (each followed by :meth:`_block`), ``[B, d]``; the last layer is evaluated at the last
        position only, whose causal attention covers the whole sequence as in eq. (1)."""
        self._check_tokens(tokens)
        emb = F.embedding(tokens, self.token_embedding)
        pos = self.pos_embedding
        stream = emb + pos if self.pos_placement == "residual" else emb
        batch, seq = tokens.shape
        heads, d_h = self.W_Q.shape[0], self.W_Q.shape[1]
        # additive causal mask [S_q, S, 1]: query position i sees key positions <= i
        causal = torch.full((seq, seq), float("-inf"), dtype=stream.dtype,
                            device=stream.device).triu(1).unsqueeze(-1)
        for layer in range(self.num_layers):
            w_q, w_k, w_v, w_o = self._layer_weights(layer)
            x = stream if self.pos_placement == "residual" else stream + pos
            last = layer == self.num_layers - 1
            queries = x[:, -1:] if last else x
            n_q = queries.shape[1]
            q = (queries @ self._flat(w_q)).view(batch, n_q, 1, heads, d_h)
            k = (x @ self._flat(w_k)).view(batch, 1, seq, heads, d_h)
            logits = (q * k).sum(dim=-1)  # [B, S_q, S, H]
            if self.scale_logits:
                logits = logits / math.sqrt(self.d_h)
            # softmax over the middle (key) dimension, faster on CPUs than over a short last one
            attn = torch.softmax(logits + (causal[-1:] if last else causal), dim=2)
            v = (x @ self._flat(w_v)).view(batch, 1, seq, heads, d_h)
            values = (attn.unsqueeze(-1) * v).sum(dim=2)  # [B, S_q, H, d_h]
            w_o = (w_o * self.head_mask[:, None, None]).permute(0, 2, 1).reshape(-1, self.d)
            update = values.reshape(batch, n_q, heads * d_h) @ w_o
            stream = (stream[:, -1:] if last else stream) + update
            stream = self._block(stream, layer)
        return stream[:, -1]

    def _merged_is_cheaper(self) -> bool:
        """Whether the ``W_QK``/``W_OV`` evaluation needs fewer multiply-adds per sample.

        Per head and sample, the factored form costs about ``d_h (2 d (1 + S) + 2 S)`` (queries,
        keys, values, logits, weighted sum, output), the merged form ``d (2 d + 2 S)``.
        """
        d, d_h, s = self.d, self.d_h, self.seq_len
        return d * (2 * d + 2 * s) < d_h * (2 * d * (1 + s) + 2 * s)

    def _use_merged(self) -> bool:
        """Whether :meth:`_residual_out` uses the merged order (``evaluation_order``)."""
        return uses_merged_order(self.evaluation_order, self._merged_is_cheaper())

    def _residual_out(self, tokens: torch.Tensor) -> torch.Tensor:
        """The residual stream after the heads, ``x(t,S) + sum_h W_O^h W_V^h A^h(t)``.

        Two evaluation orders of the same function: per-head projections (``_parts``), or the
        merged matrices ``W_QK^h = W_Q^{hT} W_K^h`` and ``W_OV^h = W_O^h W_V^h`` (``[H, d, d]``,
        formed once per call) applied to the embeddings, which avoids the ``[B, S, H, d_h]``
        keys and values and is cheaper when ``d_h`` is close to ``d`` (eq. 2 either way; the
        results differ only by floating-point rounding).
        """
        if not self._use_merged():
            _, values, resid = self._parts(tokens)
            w_o = (self.W_O * self.head_mask[:, None, None]).permute(0, 2, 1).reshape(-1, self.d)
            return resid + values.flatten(1) @ w_o  # w_o: [H d_h, d], masked heads zero
        self._check_tokens(tokens)
        x, resid = self._streams(tokens)
        batch, d, heads = x.shape[0], self.d, self.W_Q.shape[0]
        w_qk = self.qk_matrices()  # [H, d, d]
        query_dirs = (x[:, -1] @ w_qk.permute(1, 0, 2).reshape(d, heads * d))
        # logits laid out [B, S, H]: a softmax over a middle dimension is much faster on CPUs
        # than one over a short last dimension (S = 2 in the paper's experiments)
        logits = x @ query_dirs.view(batch, heads, d).transpose(1, 2)
        if self.scale_logits:
            logits = logits / math.sqrt(self.d_h)
        attended = torch.softmax(logits, dim=1).transpose(1, 2) @ x  # A^h(t), [B, H, d]
        # masked heads removed through their small W_OV rather than the [B, H, d] activations
        w_ov = (self.W_O @ self.W_V) * self.head_mask[:, None, None]  # [H, d, d]
        return resid + attended.reshape(batch, heads * d) @ w_ov.transpose(1, 2).reshape(
            heads * d, d)


def num_parameters(model: AttentionOnlyTransformer) -> int:
    """The paper's parameter count of ``model`` (active heads only); see the method."""
    return model.num_parameters()
