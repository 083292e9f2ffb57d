"""The single-layer multi-head attention memorizer of Mahdavi, Liao & Thrampoulidis (ICLR 2024).

Sec. 3, eqs. (1)-(6) (written in the notes' symbols; the paper's formulas are reconstructed there,
[reconstruction]): an example is a context ``E in R^{n x d}`` and a query ``e in R^d``; head ``h``
computes

    alpha_h = softmax(E W_{K_h} W_{Q_h}^T e)            (1)-(2), in the simplex of R^n
    p_h     = E^T alpha_h                               (3), in R^d
    o_h     = W_{V_h}^T p_h                             (4), in R^{d_v}
    u       = W_O^T [o_1; ...; o_H]                     (5), in R^d
    y_hat   = W_D^T u  (+ b_D)                          (6), in R^{d_o}

with ``W_{K_h}, W_{Q_h} in R^{d x d_h}``, ``W_{V_h} in R^{d x d_v}``, ``W_O in R^{H d_v x d}`` and
``W_D in R^{d x d_o}``. The rows ``z = [p_1; ...; p_H]`` form the matrix ``Z`` of eq. (7).

Options reproduce the official code (``smahdavi4/attention-memorization``, ``BaselineAttention``):
``input_map`` (a ``Linear(d -> d)`` applied to every token), ``positional_encoding`` (sinusoidal,
query at position 0, context at positions 1..n), ``scale_logits`` (divide the logits by
``sqrt(d)``, not ``sqrt(d_h)``), ``readout_bias`` and ``d_v = 1``; :meth:`official` sets them all.
The defaults are the paper's equations.

Packing (docs/CONTRACTS.md): ``active_heads`` masks heads with ``head_mask`` and ``active_d_h``
masks key/query coordinates with ``d_h_mask``. Every head draws its matrices from its own
generators, seeded in turn from the model generator after the non-head parameters, and the
columns of ``W_K``/``W_Q`` are drawn one after another; the Xavier bounds use the *active* sizes.
A padded model therefore computes, and trains, exactly like the smaller model with the same seed.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from memnb.models.init import uniform as _uniform
from memnb.validation import EvaluationOrder, check_evaluation_order, uses_merged_order
from memnb.validation import check_int as _check_int

__all__ = ["MultiHeadAttention", "sinusoidal_encoding"]


def sinusoidal_encoding(length: int, d: int) -> torch.Tensor:
    """The sinusoidal positional encoding of Vaswani et al. (2017), ``[length, d]`` (float64).

    Even coordinates ``sin(pos / 10000^(2i/d))``, odd ones ``cos``; as in the official code.
    """
    _check_int("length", length, 1)
    _check_int("d", d, 1)
    position = torch.arange(length, dtype=torch.float64)[:, None]
    div = torch.exp(torch.arange(0, d, 2, dtype=torch.float64) * (-math.log(10000.0) / d))
    pe = torch.zeros(length, d, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(position * div)
    pe[:, 1::2] = torch.cos(position * div)[:, : d // 2]
    return pe


def _sub_generator(g: torch.Generator) -> torch.Generator:
    seed = int(torch.randint(0, 2**62, (1,), generator=g))
    return torch.Generator().manual_seed(seed)


def _columns(rows: int, cols: int, bound: float, g: torch.Generator) -> torch.Tensor:
    """``[rows, cols]`` drawn column after column, so a prefix of columns does not depend on
    ``cols``."""
    if cols == 0:
        return torch.zeros(rows, 0, dtype=torch.float64)
    return torch.stack([_uniform((rows,), bound, g) for _ in range(cols)], dim=1)


class MultiHeadAttention(nn.Module):
    """Multi-head attention memorizer of Mahdavi et al. (ICLR 2024), eqs. (1)-(6).

    Args:
        d: token dimension (>= 1).
        num_heads: ``H``, number of (padded) heads (>= 1).
        d_h: key/query dimension per head (>= 1), padded size when ``active_d_h`` is given.
        d_v: value dimension per head (>= 1; the official code uses 1).
        d_o: output dimension (classes for classification, >= 1).
        context_len: ``n``; needed only with ``positional_encoding``.
        active_heads: heads that contribute (``None`` = all), the rest masked by ``head_mask``.
        active_d_h: key/query coordinates that contribute (``None`` = all), by ``d_h_mask``.
        scale_logits: divide the logits by ``sqrt(d)`` (official code) instead of eq. (1)'s 1.
        positional_encoding: add sinusoidal encodings (query position 0, context 1..n).
        input_map: apply a learned ``Linear(d -> d)`` to every token first (official code).
        readout_bias: add a bias to the read-out ``W_D``.
        evaluation_order: ``"auto"`` (the cheaper order for these sizes, see
            :meth:`_key_directions`), ``"per_head"`` or ``"merged"``
            (:data:`memnb.validation.EvaluationOrder`).
        dtype: floating dtype of the parameters.
        seed: seed of the ``torch.Generator`` used for initialisation.

    Initialisation: ``W_K, W_Q`` ~ U(+-sqrt(6/(d + active_d_h))), ``W_V`` ~ U(+-sqrt(6/(d + d_v))),
    ``W_O`` ~ U(+-sqrt(6/(active_heads d_v + d))) (Xavier-uniform as the official code), input
    map and read-out ~ U(+-1/sqrt(d)) like ``nn.Linear``. Values are drawn in float64.
    """

    head_mask: torch.Tensor
    d_h_mask: torch.Tensor

    def __init__(
        self,
        d: int,
        num_heads: int,
        d_h: int,
        d_v: int,
        d_o: int,
        *,
        context_len: int | None = None,
        active_heads: int | None = None,
        active_d_h: int | None = None,
        scale_logits: bool = False,
        positional_encoding: bool = False,
        input_map: bool = False,
        readout_bias: bool = False,
        evaluation_order: EvaluationOrder = "auto",
        dtype: torch.dtype = torch.float32,
        seed: int = 0,
    ) -> None:
        super().__init__()
        self.evaluation_order = check_evaluation_order(evaluation_order)
        self.d = _check_int("d", d, 1)
        self.num_heads = _check_int("num_heads", num_heads, 1)
        self.d_h = _check_int("d_h", d_h, 1)
        self.d_v = _check_int("d_v", d_v, 1)
        self.d_o = _check_int("d_o", d_o, 1)
        self.active_heads = _check_int(
            "active_heads", num_heads if active_heads is None else active_heads, 1, num_heads)
        self.active_d_h = _check_int(
            "active_d_h", d_h if active_d_h is None else active_d_h, 1, d_h)
        if positional_encoding and context_len is None:
            raise ValueError("context_len (n) is required when positional_encoding=True")
        self.context_len = None if context_len is None else _check_int("context_len",
                                                                        context_len, 1)
        if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
            raise ValueError(f"dtype must be a floating torch.dtype, got {dtype!r}")
        _check_int("seed", seed, 0)
        self.scale_logits = bool(scale_logits)
        self.has_input_map = bool(input_map)
        self.has_readout_bias = bool(readout_bias)
        self.has_positional_encoding = bool(positional_encoding)

        g = torch.Generator().manual_seed(seed)
        lin = 1.0 / math.sqrt(d)
        # non-head parameters first
        if input_map:
            self.W_in = nn.Parameter(_uniform((d, d), lin, g).to(dtype))
            self.b_in = nn.Parameter(_uniform((d,), lin, g).to(dtype))
        self.W_D = nn.Parameter(_uniform((d, d_o), lin, g).to(dtype))
        if readout_bias:
            self.b_D = nn.Parameter(_uniform((d_o,), lin, g).to(dtype))
        # then the heads, each from its own generators
        qk_bound = math.sqrt(6.0 / (d + self.active_d_h))
        v_bound = math.sqrt(6.0 / (d + d_v))
        o_bound = math.sqrt(6.0 / (self.active_heads * d_v + d))
        keys, queries, values, outs = [], [], [], []
        for _ in range(num_heads):
            g_k, g_q, g_v, g_o = (_sub_generator(g) for _ in range(4))
            keys.append(_columns(d, d_h, qk_bound, g_k))
            queries.append(_columns(d, d_h, qk_bound, g_q))
            values.append(_uniform((d, d_v), v_bound, g_v))
            outs.append(_uniform((d_v, d), o_bound, g_o))
        self.W_K = nn.Parameter(torch.stack(keys).to(dtype))
        self.W_Q = nn.Parameter(torch.stack(queries).to(dtype))
        self.W_V = nn.Parameter(torch.stack(values).to(dtype))
        self.W_O = nn.Parameter(torch.stack(outs).to(dtype))
        self.register_buffer("head_mask", (torch.arange(num_heads) < self.active_heads).to(dtype))
        self.register_buffer("d_h_mask", (torch.arange(d_h) < self.active_d_h).to(dtype))
        if positional_encoding:
            assert context_len is not None
            self.register_buffer("pos_encoding", sinusoidal_encoding(context_len + 1, d).to(dtype))

    # ------------------------------------------------------------------ constructors
    @classmethod
    def official(cls, d: int, context_len: int, num_heads: int, d_h: int, num_outputs: int, *,
                 active_heads: int | None = None, active_d_h: int | None = None,
                 dtype: torch.dtype = torch.float32, seed: int = 0) -> MultiHeadAttention:
        """The model of the official code (``BaselineAttention``): input map, sinusoidal PE,
        ``1/sqrt(d)`` logit scale, ``d_v = 1``, read-out with bias to ``num_outputs``."""
        return cls(d, num_heads, d_h, 1, num_outputs, context_len=context_len,
                   active_heads=active_heads, active_d_h=active_d_h, scale_logits=True,
                   positional_encoding=True, input_map=True, readout_bias=True, dtype=dtype,
                   seed=seed)

    @classmethod
    def from_weights(cls, *, W_K: torch.Tensor, W_Q: torch.Tensor, W_V: torch.Tensor,
                     W_O: torch.Tensor, W_D: torch.Tensor,
                     evaluation_order: EvaluationOrder = "per_head",
                     dtype: torch.dtype = torch.float64) -> MultiHeadAttention:
        """A paper-convention model with explicit weights (used by the constructions).

        Shapes: ``W_K, W_Q [H, d, d_h]``, ``W_V [H, d, d_v]``, ``W_O [H, d_v, d]`` (the per-head
        row blocks of the paper's ``W_O``), ``W_D [d, d_o]``. Evaluated per head by default, the
        order that keeps most digits when constructed weights span many scales.
        """
        tensors = {"W_K": W_K, "W_Q": W_Q, "W_V": W_V, "W_O": W_O, "W_D": W_D}
        for name, t in tensors.items():
            if not isinstance(t, torch.Tensor) or not t.is_floating_point():
                raise ValueError(f"{name} must be a floating-point torch.Tensor")
        if W_K.ndim != 3:
            raise ValueError(f"W_K must be [H, d, d_h], got {tuple(W_K.shape)}")
        h, d, d_h = W_K.shape
        if W_V.ndim != 3 or W_V.shape[:2] != (h, d):
            raise ValueError(f"W_V must be [{h}, {d}, d_v], got {tuple(W_V.shape)}")
        d_v = W_V.shape[2]
        if W_D.ndim != 2 or W_D.shape[0] != d:
            raise ValueError(f"W_D must be [{d}, d_o], got {tuple(W_D.shape)}")
        for name, t, shape in (("W_Q", W_Q, (h, d, d_h)), ("W_O", W_O, (h, d_v, d))):
            if tuple(t.shape) != shape:
                raise ValueError(f"{name} must have shape {shape}, got {tuple(t.shape)}")
        model = cls(d, h, d_h, d_v, W_D.shape[1], evaluation_order=evaluation_order, dtype=dtype)
        with torch.no_grad():
            for name, t in tensors.items():
                getattr(model, name).copy_(t.to(dtype))
        return model

    # ------------------------------------------------------------------ parts
    def num_parameters(self) -> int:
        """Parameters of the active model: ``2 H d d_h + 2 H d d_v + d d_o`` (+ input map, bias).

        With the official options and ``d = 64, d_h = 64, C = 100`` this is 18,980 for ``H = 1``
        (the notes' count).
        """
        per_head = 2 * self.d * self.active_d_h + 2 * self.d * self.d_v
        total = self.active_heads * per_head + self.W_D.numel()
        if self.has_input_map:
            total += self.W_in.numel() + self.b_in.numel()
        if self.has_readout_bias:
            total += self.b_D.numel()
        return total

    def _tokens(self, contexts: torch.Tensor, queries: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor]:
        if contexts.ndim not in (2, 3) or contexts.shape[-1] != self.d:
            raise ValueError(f"contexts must be [batch, n, d={self.d}] or, shared by the batch, "
                             f"[n, d={self.d}]; got {tuple(contexts.shape)}")
        if queries.ndim != 2 or queries.shape[-1] != self.d or (
                contexts.ndim == 3 and queries.shape[0] != contexts.shape[0]):
            batch = contexts.shape[0] if contexts.ndim == 3 else "batch"
            raise ValueError(f"queries must be [{batch}, d={self.d}], got "
                             f"{tuple(queries.shape)}")
        if self.has_positional_encoding and contexts.shape[-2] != self.context_len:
            raise ValueError(f"contexts must have n = context_len = {self.context_len} tokens, "
                             f"got {contexts.shape[-2]}")
        if self.has_input_map:
            contexts = contexts @ self.W_in.T + self.b_in
            queries = queries @ self.W_in.T + self.b_in
        if self.has_positional_encoding:
            queries = queries + self.pos_encoding[0]
            contexts = contexts + self.pos_encoding[1:]
        return contexts, queries

    def _merged_is_cheaper(self) -> bool:
        """Whether ``W_{Q_h} W_{K_h}^T`` (``[d, d]``) costs fewer multiply-adds per query than
        the two projections through ``d_h`` (``d d`` against ``2 d d_h`` per head)."""
        return self.d < 2 * self.d_h

    def _use_merged(self) -> bool:
        """Whether :meth:`_key_directions` uses the merged order (``evaluation_order``)."""
        return uses_merged_order(self.evaluation_order, self._merged_is_cheaper())

    def _key_directions(self, queries: torch.Tensor) -> torch.Tensor:
        """``W_{K_h} W_{Q_h}^T e`` for every head, ``[B, H, d]`` (the logits are ``E`` times it).

        Computed either through the ``d_h``-dimensional queries or with the merged ``[d, d]``
        matrices, as ``evaluation_order`` says (by default whichever is cheaper; the same numbers
        up to floating-point rounding); both are one matrix product over all heads.
        """
        heads, d = self.W_Q.shape[0], self.d
        w_q = self.W_Q * self.d_h_mask  # [H, d, d_h], masked key/query coordinates
        if self._use_merged():
            w_qk = w_q @ self.W_K.transpose(1, 2)  # [H, d, d]: (W_Q W_K^T)_h
            return (queries @ w_qk.permute(1, 0, 2).reshape(d, heads * d)).view(-1, heads, d)
        q = (queries @ w_q.permute(1, 0, 2).reshape(d, -1)).view(-1, heads, self.d_h)
        return torch.einsum("bhk,hdk->bhd", q, self.W_K)

    def _attention(self, contexts: torch.Tensor, queries: torch.Tensor
                   ) -> tuple[torch.Tensor, torch.Tensor]:
        """(attention ``[B, H, n]``, transformed contexts ``[B, n, d]`` or shared ``[n, d]``)."""
        x_c, x_q = self._tokens(contexts, queries)
        key_dir = self._key_directions(x_q)
        logits = key_dir @ x_c.transpose(-1, -2)  # [B, H, n]; one product when shared
        if self.scale_logits:
            logits = logits / math.sqrt(self.d)
        return torch.softmax(logits, dim=-1), x_c

    def attention_weights(self, contexts: torch.Tensor, queries: torch.Tensor) -> torch.Tensor:
        """``alpha_h`` of eq. (2) for every head, ``[B, H, n]``."""
        return self._attention(contexts, queries)[0]

    def head_outputs(self, contexts: torch.Tensor, queries: torch.Tensor) -> torch.Tensor:
        """``p_h = E^T alpha_h`` of eq. (3), ``[B, H, d]`` (masked heads are zero)."""
        attn, x_c = self._attention(contexts, queries)
        return (attn @ x_c) * self.head_mask[:, None]

    def features(self, contexts: torch.Tensor, queries: torch.Tensor) -> torch.Tensor:
        """The rows ``z = [p_1; ...; p_H]`` of ``Z`` (eq. 7), ``[B, H d]``."""
        return self.head_outputs(contexts, queries).flatten(1)

    def forward(self, contexts: torch.Tensor, queries: torch.Tensor) -> torch.Tensor:
        """``y_hat`` of eq. (6) for ``queries [B, d]`` and ``contexts [B, n, d]`` (one context per
        example) or ``[n, d]`` (one context shared by the batch, as in the paper's Figs. 2-3):
        ``[B, d_o]``."""
        attn, x_c = self._attention(contexts, queries)
        heads, d_v = self.W_V.shape[0], self.d_v
        # o_h = W_{V_h}^T E^T alpha_h, with the values E W_{V_h} formed first (cheaper than p_h)
        values = (x_c @ self.W_V.permute(1, 0, 2).reshape(self.d, heads * d_v)).unflatten(
            -1, (heads, d_v)).transpose(-3, -2)  # [(B,) H, n, d_v]
        if x_c.dim() == 2:  # one shared context: one product per head for the whole batch
            o = (attn.transpose(0, 1) @ values).transpose(0, 1)
        else:
            o = (attn.unsqueeze(-1) * values).sum(dim=-2)
        o = o * self.head_mask[:, None]  # [B, H, d_v]
        u = o.reshape(o.shape[0], heads * d_v) @ self.W_O.reshape(heads * d_v, self.d)
        y = u @ self.W_D
        if self.has_readout_bias:
            y = y + self.b_D
        return y
