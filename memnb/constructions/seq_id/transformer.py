"""The memorizing network of Kajitsuka & Sato (ICLR 2025, Thm 4.1 / Cor. 4.1) as Transformer blocks.

:func:`~memnb.constructions.seq_id.network.memorize` builds the construction as two deep ReLU
networks around one attention head (:class:`~memnb.constructions.seq_id.network.SeqIdNetwork`).
This module compiles that *same* construction into the paper's model (as our chapter notes §1
state it, **[unverified]**: notation taken from the authors' ICLR 2024 paper; no section number
in our sources): a residual stream ``Z`` (one column per token, every column flowing through
every block) and the residual blocks

    F^(SA)(Z) = Z + sum_h W_O^h W_V^h Z sigma[(W_K^h Z)^T W_Q^h Z]          (self-attention)
    F^(FF)(Z) = Z + W_2 sigma_R(W_1 Z + b_1 1^T) + b_2 1^T                  (token-wise FFN)

between an embedding ``E_in`` and a read-out ``E_out``: ``N = E_out o blocks o E_in``. Every
matrix holds exact Python integers or :class:`fractions.Fraction` (numpy ``object`` arrays) and
the forward pass never touches a float.

**sigma.** The theory's sigma is the column-wise *hardmax* (ties share the weight equally; notes
§1 [unverified]); it is the default and is exact in rational arithmetic. Softmax is not exact in
rational arithmetic in general (``exp`` of a non-zero rational is irrational), so ``"softmax"``
is evaluated only where it is exact: when all scores of a column are equal, every weight is
``exp(0) / n = 1/n``. The construction's one head has ``W_Q = W_K = 0`` (all scores 0), so both
give the same exact average; any other score pattern raises ``ValueError`` under softmax.

**Compilation** (ours). Each layer ``h' = relu(A h + b)`` of the ReLU networks becomes one FF
block: every channel has a fixed row (*slot*) of ``Z``. A fresh value ``relu(e)`` is one hidden
unit written into its slot; the slot's previous value is removed by a unit ``relu(Z_slot)``
(two units, ``relu(+-Z_slot)``, for a signed input). A *carried* value (the ReLU networks keep
it non-negative, so its ReLU is the identity) is written as a linear update ``e - Z_slot`` of
the stream, read through such units and ``b_2`` -- the residual connection is what makes those
linear steps free. After each block the stream holds, in its slots, exactly the channels of the
matching ReLU layer (tested, on the data and on other inputs of the construction's domain, where
the carried values are non-negative by construction); other rows may hold stale values that no
later block reads. A block zeroes stale rows while it has spare hidden units, and the last block
of FFN₁ zeroes all of them, so the attention writes into a zero row.

**Embedding.** Integer tokens enter as their ID (``E_in`` is ``[width, 1]``); real tokens
``x in R^d`` through the token quantizer's projection ``s v^T x`` (``E_in`` is ``[width, d]``,
the first ReLU layer's linear map of ``x`` moved into the embedding), so the width does not grow
with ``d``; ``positional=True`` adds the position through the encoding ``P`` (an option of
ours: the model of our notes has no positional encoding; Remark 4.2, "Embedding layer", is known
by its title only, its content [unverified]).

**Width** is counted the way our notes say the paper counts it (notes §1, **[unverified]**):
``max(embedding dimension = rows of Z, heads x head size, largest FFN hidden width)``, shown
beside the paper's 14 (Thm 4.1). Where 14 comes from (Vardi et al.'s width-12 memorizer plus two
channels) is **[unverified/reconstruction]** in the notes. Parameters are every entry of every
matrix and bias, zero or not (``parameter_count(nonzero=True)`` counts the non-zero ones).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Literal

import numpy as np

from memnb.constructions.seq_id.hashing import as_fractions
from memnb.constructions.seq_id.network import check_token_ids
from memnb.constructions.seq_id.relu_program import Layer, Number, ReLUProgram, bits

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from memnb.constructions.seq_id.network import SeqIdNetwork

Sigma = Literal["hardmax", "softmax"]
_SIGMAS = ("hardmax", "softmax")


def _zeros(*shape: int) -> np.ndarray:
    out = np.empty(shape, dtype=object)
    out.fill(0)
    return out


def _exact(values: np.ndarray) -> np.ndarray:
    """Fractions with denominator 1 as ``int`` (cheaper to compute with; the same number)."""
    flat = [int(v) if isinstance(v, Fraction) and v.denominator == 1 else v
            for v in values.ravel()]
    return np.array(flat, dtype=object).reshape(values.shape)


def _relu(values: np.ndarray) -> np.ndarray:
    """``sigma_R`` element-wise on an object array (exact)."""
    return np.where(values > 0, values, 0).astype(object)


def _check_stream(Z: np.ndarray, width: int) -> np.ndarray:
    Z = np.asarray(Z)
    if Z.dtype.kind not in "iuO":
        raise ValueError(f"Z must hold exact numbers (integers, or an object array of int / "
                         f"Fraction); got dtype {Z.dtype}")
    Z = Z.astype(object)
    if Z.ndim not in (2, 3) or Z.shape[-2] != width:
        raise ValueError(f"Z must be a residual stream [width={width}, n] or [batch, {width}, n]; "
                         f"got shape {Z.shape}")
    return Z


def _dense_bits(*arrays: np.ndarray) -> int:
    return max((bits(v) for a in arrays for v in a.ravel() if v != 0), default=0)


# ------------------------------------------------------------------------------------ blocks
class _Weights:
    """Size, non-zero count and largest bit length of a block's weight arrays
    (:meth:`matrices`)."""

    def matrices(self) -> tuple[np.ndarray, ...]:
        """The block's weight and bias arrays (defined by each block)."""
        raise NotImplementedError

    @property
    def num_parameters(self) -> int:
        """Entries of the arrays of :meth:`matrices`, zero or not (the module's count)."""
        return int(sum(m.size for m in self.matrices()))

    @property
    def nonzero_parameters(self) -> int:
        """Non-zero entries of the arrays of :meth:`matrices`."""
        return int(sum(np.count_nonzero(m != 0) for m in self.matrices()))

    @property
    def max_weight_bits(self) -> int:
        """Bits of the largest non-zero entry of :meth:`matrices` (see
        :func:`~memnb.constructions.seq_id.relu_program.bits`); 0 when all are zero."""
        return _dense_bits(*self.matrices())


@dataclass(frozen=True, eq=False)
class Embedding:
    """``E_in``: ``Z = E X + P`` with ``X`` the input ``[d_in, n]`` (one column per token).

    ``E`` is ``[width, d_in]``; ``P`` (``[width, n]``, or ``None``) is the positional encoding,
    present only for ``positional=True`` (an option of ours: the model of our notes has no
    positional encoding; cf. Remark 4.2, "Embedding layer", whose content is [unverified]: only
    its title is in our sources).
    """

    E: np.ndarray                     # [width, d_in]
    P: np.ndarray | None              # [width, n] or None
    input_names: tuple[str, ...]

    def __call__(self, X: np.ndarray) -> np.ndarray:
        """``[.., d_in, n] -> [.., width, n]``."""
        Z = np.matmul(self.E, X)      # [.., width, n]
        return Z + self.P if self.P is not None else Z

    @property
    def num_parameters(self) -> int:
        """Entries of ``E``, plus those of ``P`` when present, zero or not."""
        return int(self.E.size + (self.P.size if self.P is not None else 0))


@dataclass(frozen=True, eq=False)
class SelfAttentionBlock(_Weights):
    """``F^(SA)(Z) = Z + sum_h W_O^h W_V^h Z sigma[(W_K^h Z)^T W_Q^h Z]``: the self-attention
    block of Kajitsuka & Sato (ICLR 2025) as our notes §1 state it, [unverified] (see module
    docstring).

    ``W_Q, W_K, W_V`` are ``[H, s, width]`` and ``W_O`` is ``[H, width, s]`` (``H`` heads of size
    ``s``); ``sigma`` is applied to each column (query) over the keys.
    """

    W_Q: np.ndarray                   # [H, s, width]
    W_K: np.ndarray                   # [H, s, width]
    W_V: np.ndarray                   # [H, s, width]
    W_O: np.ndarray                   # [H, width, s]
    sigma: Sigma = "hardmax"
    channels: dict[str, int] = field(default_factory=dict)
    part: str = "SA"

    def __post_init__(self) -> None:
        if self.sigma not in _SIGMAS:
            raise ValueError(f"sigma must be one of {_SIGMAS}; got {self.sigma!r}")

    @property
    def width(self) -> int:
        """Rows of the stream ``Z`` (second axis of ``W_O`` ``[H, width, s]``)."""
        return int(self.W_O.shape[1])

    @property
    def heads(self) -> int:
        """Number of heads ``H`` (first axis of ``W_Q``)."""
        return int(self.W_Q.shape[0])

    @property
    def head_size(self) -> int:
        """Head size ``s`` (second axis of ``W_Q`` ``[H, s, width]``)."""
        return int(self.W_Q.shape[1])

    def weights(self, scores: np.ndarray) -> np.ndarray:
        """``sigma`` of a score matrix ``[.., n_keys, n_queries]``, column by column, exactly."""
        top = scores.max(axis=-2, keepdims=True)
        if self.sigma == "softmax":
            if not np.all(scores == top):
                raise ValueError("sigma='softmax' is exact in rational arithmetic only when every "
                                 "column's scores are equal; use sigma='hardmax'")
            mask = np.ones(scores.shape, dtype=object)
        else:
            mask = (scores == top).astype(int).astype(object)
        count = mask.sum(axis=-2, keepdims=True)
        return np.vectorize(Fraction, otypes=[object])(mask, count)

    def __call__(self, Z: np.ndarray) -> np.ndarray:
        """``[.., width, n] -> [.., width, n]``."""
        Z = _check_stream(Z, self.width)
        out = Z.copy()
        for h in range(self.heads):
            q = np.matmul(self.W_Q[h], Z)                       # [.., s, n]
            k = np.matmul(self.W_K[h], Z)                       # [.., s, n]
            scores = np.matmul(np.swapaxes(k, -1, -2), q)       # [.., n_keys, n_queries]
            alpha = self.weights(scores)                        # [.., n_keys, n_queries]
            v = np.matmul(self.W_V[h], Z)                       # [.., s, n]
            out = out + np.matmul(self.W_O[h], np.matmul(v, alpha))  # [.., width, n]
        return _exact(out)

    def matrices(self) -> tuple[np.ndarray, ...]:
        """``W_Q, W_K, W_V, W_O``."""
        return (self.W_Q, self.W_K, self.W_V, self.W_O)


@dataclass(frozen=True, eq=False)
class FeedForwardBlock(_Weights):
    """``F^(FF)(Z) = Z + W_2 sigma_R(W_1 Z + b_1 1^T) + b_2 1^T`` (token-wise, residual): the FFN
    block of Kajitsuka & Sato (ICLR 2025) as our notes §1 state it, [unverified].

    ``part`` and ``layer`` name the ReLU layer it implements (``FFN1``/``FFN2``, index);
    ``channels`` maps each channel of that layer to its row of ``Z`` after the block.
    """

    W_1: np.ndarray                   # [q, width]
    b_1: np.ndarray                   # [q]
    W_2: np.ndarray                   # [width, q]
    b_2: np.ndarray                   # [width]
    part: str = "FF"
    layer: int = 0
    channels: dict[str, int] = field(default_factory=dict)

    @property
    def width(self) -> int:
        """Rows of the stream ``Z`` (columns of ``W_1`` ``[q, width]``)."""
        return int(self.W_1.shape[1])

    @property
    def hidden(self) -> int:
        """``q``, the FFN hidden width."""
        return int(self.W_1.shape[0])

    def __call__(self, Z: np.ndarray) -> np.ndarray:
        """``[.., width, n] -> [.., width, n]``."""
        Z = _check_stream(Z, self.width)
        H = _relu(np.matmul(self.W_1, Z) + self.b_1[:, None])   # [.., q, n]
        return Z + np.matmul(self.W_2, H) + self.b_2[:, None]   # [.., width, n]

    @property
    def rational(self) -> bool:
        """Whether a weight is a non-integer :class:`~fractions.Fraction`."""
        return any(isinstance(v, Fraction) and v.denominator != 1
                   for m in (self.W_1, self.b_1, self.W_2, self.b_2) for v in m.ravel())

    def matrices(self) -> tuple[np.ndarray, ...]:
        """``W_1, b_1, W_2, b_2``."""
        return (self.W_1, self.b_1, self.W_2, self.b_2)


@dataclass(frozen=True, eq=False)
class ReadOut:
    """``E_out``: the label is ``E Z`` at the read-out column(s); ``E`` is ``[1, width]``."""

    E: np.ndarray                     # [1, width]

    def __call__(self, Z: np.ndarray) -> np.ndarray:
        """``[.., width, n] -> [.., n]``."""
        return np.matmul(self.E, Z)[..., 0, :]

    @property
    def num_parameters(self) -> int:
        """Entries of ``E`` ``[1, width]``, zero or not."""
        return int(self.E.size)


Block = FeedForwardBlock | SelfAttentionBlock


# ------------------------------------------------------------------------------- the network
@dataclass(frozen=True, eq=False)
class SeqIdTransformer:
    """``N = E_out o blocks o E_in``: FFN₁ blocks, one self-attention block, FFN₂ blocks (the
    model of Kajitsuka & Sato, ICLR 2025, as our notes §1 state it [unverified]; its weights our
    [reconstruction])."""

    embedding: Embedding
    blocks: tuple[Block, ...]
    readout: ReadOut
    seq_len: int
    task: str
    quantizer_dim: int | None = None

    # ----------------------------------------------------------------------------- sizes
    @property
    def stream_width(self) -> int:
        """Rows of ``Z`` (the embedding dimension)."""
        return int(self.embedding.E.shape[0])

    @property
    def ffn_width(self) -> int:
        """Largest FFN hidden width ``q``."""
        return max(b.hidden for b in self.blocks if isinstance(b, FeedForwardBlock))

    @property
    def attention_width(self) -> int:
        """Largest ``heads x head size`` of the self-attention blocks."""
        return max(b.heads * b.head_size for b in self.blocks
                   if isinstance(b, SelfAttentionBlock))

    def width(self) -> int:
        """The paper's width (notes §1, [unverified]): max(rows of Z, heads x head size, FFN
        hidden width)."""
        return max(self.stream_width, self.attention_width, self.ffn_width)

    @property
    def depth(self) -> int:
        """Number of residual blocks (FF and SA)."""
        return len(self.blocks)

    def parameter_count(self, *, nonzero: bool = False) -> int:
        """Entries of every matrix and bias: embedding (and positional encoding), blocks, read-out.

        ``nonzero=True`` counts only the non-zero ones (embedding and read-out included).
        """
        if nonzero:
            emb = int(np.count_nonzero(self.embedding.E != 0))
            if self.embedding.P is not None:
                emb += int(np.count_nonzero(self.embedding.P != 0))
            return (emb + sum(b.nonzero_parameters for b in self.blocks)
                    + int(np.count_nonzero(self.readout.E != 0)))
        return (self.embedding.num_parameters + sum(b.num_parameters for b in self.blocks)
                + self.readout.num_parameters)

    @property
    def max_weight_bits(self) -> int:
        """Bits of the largest non-zero weight of the blocks (embedding and read-out not
        included)."""
        return max(b.max_weight_bits for b in self.blocks)

    def block_table(self) -> pd.DataFrame:
        """One row per run of consecutive blocks of one kind and part (embedding and read-out
        included): the matrices' shapes, the FFN hidden width ``q`` and the parameters."""
        import pandas as pd

        w = self.stream_width
        E, P = self.embedding.E, self.embedding.P
        rows = [{"part": "E_in", "block": "embedding", "count": 1,
                 "shapes": f"E {E.shape[0]}×{E.shape[1]}"
                 + ("" if P is None else f", P {P.shape[0]}×{P.shape[1]} (positions)"),
                 "q": "", "parameters": self.embedding.num_parameters}]
        groups: list[list[Block]] = []
        for blk in self.blocks:
            if groups and type(groups[-1][0]) is type(blk) and groups[-1][0].part == blk.part:
                groups[-1].append(blk)
            else:
                groups.append([blk])
        for g in groups:
            b0 = g[0]
            if isinstance(b0, SelfAttentionBlock):
                shapes = (f"{b0.heads} head, size {b0.head_size}: W_Q, W_K, W_V {b0.head_size}×{w}"
                          f", W_O {w}×{b0.head_size}; σ = {b0.sigma}")
                rows.append({"part": b0.part, "block": "F^(SA)", "count": len(g),
                             "shapes": shapes, "q": "",
                             "parameters": sum(b.num_parameters for b in g)})
                continue
            qs = [b.hidden for b in g if isinstance(b, FeedForwardBlock)]
            rows.append({"part": b0.part, "block": "F^(FF)", "count": len(g),
                         "shapes": f"W_1 q×{w}, b_1 q, W_2 {w}×q, b_2 {w}",
                         "q": f"{min(qs)}–{max(qs)}" if min(qs) != max(qs) else str(qs[0]),
                         "parameters": sum(b.num_parameters for b in g)})
        rows.append({"part": "E_out", "block": "read-out", "count": 1,
                     "shapes": f"E 1×{self.readout.E.shape[1]}", "q": "",
                     "parameters": self.readout.num_parameters})
        rows.append({"part": "total", "block": "", "count": self.depth,
                     "shapes": f"width {self.width()}", "q": str(self.ffn_width),
                     "parameters": self.parameter_count()})
        return pd.DataFrame(rows)

    # --------------------------------------------------------------------------- forward
    def inputs(self, sequences: np.ndarray) -> np.ndarray:
        """The exact input ``X`` ``[N, d_in, n]``: token IDs (``d_in = 1``) or token vectors."""
        seqs = np.asarray(sequences)
        n = self.seq_len
        if self.quantizer_dim is None:
            return check_token_ids(seqs, n).astype(object)[:, None, :]
        d = self.quantizer_dim
        if seqs.ndim != 3 or seqs.shape[1:] != (n, d) or seqs.dtype.kind != "f":
            raise ValueError(f"sequences must be real token vectors [N, {n}, {d}]; got "
                             f"{seqs.dtype} {seqs.shape}")
        if not np.all(np.isfinite(seqs)):
            raise ValueError("sequences must be finite")
        exact = np.array(as_fractions(seqs.reshape(-1, d)), dtype=object)
        return exact.reshape(len(seqs), n, d).transpose(0, 2, 1)

    @property
    def attention_index(self) -> int:
        """Index in :attr:`blocks` of the (first) self-attention block."""
        for i, b in enumerate(self.blocks):
            if isinstance(b, SelfAttentionBlock):
                return i
        raise ValueError("this network has no self-attention block")

    def stream_after(self, sequences: np.ndarray, index: int) -> np.ndarray:
        """``Z`` ``[N, width, n]`` after block ``index`` (``-1``: after the embedding)."""
        if not -1 <= index < self.depth:
            raise ValueError(f"index must lie in [-1, {self.depth}); got {index}")
        return self._run(sequences, keep=False, stop=index + 1)[-1]

    def _run(self, sequences: np.ndarray, keep: bool, stop: int | None = None
             ) -> list[np.ndarray]:
        X = self.inputs(sequences)
        Z = self.embedding(X)
        out = [Z]
        rational = self.quantizer_dim is not None   # rational inputs
        for block in self.blocks[:stop]:
            Z = block(Z)
            if isinstance(block, FeedForwardBlock) and (rational or block.rational):
                # integer-valued Fractions back to int (the same numbers, cheaper to multiply)
                Z = _exact(Z)
                rational = any(isinstance(v, Fraction) for v in Z.ravel())
            out = [*out, Z] if keep else [Z]
        return out

    def trace(self, sequences: np.ndarray) -> list[np.ndarray]:
        """``Z`` ``[N, width, n]`` after the embedding and after every block (``depth + 1``)."""
        return self._run(sequences, keep=True)

    def forward(self, sequences: np.ndarray) -> np.ndarray:
        """``N(X)``: the read-out at every column, ``[N, n]`` exact numbers."""
        return self.readout(self._run(sequences, keep=False)[-1])

    def predict(self, sequences: np.ndarray) -> np.ndarray:
        """Labels ``[N]`` (next-token: the last column) or ``[N, n]`` (seq2seq)."""
        out = self.forward(sequences)
        if self.task == "next_token":
            out = out[:, -1]
        if not all(isinstance(v, int) or (isinstance(v, Fraction) and v.denominator == 1)
                   for v in out.ravel()):
            raise RuntimeError("the read-out is not an integer")
        return np.array([int(v) for v in out.ravel()], dtype=np.int64).reshape(out.shape)

    def without_block(self, index: int) -> SeqIdTransformer:
        """The same network with block ``index`` removed (the residual skip alone remains)."""
        if not 0 <= index < self.depth:
            raise ValueError(f"index must lie in [0, {self.depth}); got {index}")
        blocks = self.blocks[:index] + self.blocks[index + 1:]
        return SeqIdTransformer(self.embedding, blocks, self.readout, self.seq_len, self.task,
                                self.quantizer_dim)


# ------------------------------------------------------------------------------- compilation
@dataclass
class _Unit:
    coefs: dict[int, Number]          # slot -> weight (a row of W_1)
    bias: Number                      # entry of b_1


@dataclass
class _SparseFF:
    units: list[_Unit]
    writes: dict[int, dict[int, Number]]   # slot -> {unit index: weight} (a row of W_2)
    consts: dict[int, Number]              # slot -> entry of b_2
    part: str
    layer: int
    channels: dict[str, int]


class _Compiler:
    """Slot bookkeeping while the ReLU layers are turned into residual FF blocks."""

    def __init__(self, inputs: list[tuple[str, bool]]) -> None:
        self.slot_of: dict[str, int] = {}
        self.state: list[str] = []        # per slot: "zero", "nonneg", "signed"
        for name, signed in inputs:
            self.slot_of[name] = len(self.state)
            self.state.append("signed" if signed else "nonneg")

    def _free_slot(self, taken: set[int]) -> int:
        for want in ("zero", "nonneg", "signed"):
            for s, st in enumerate(self.state):
                if s not in taken and st == want:
                    return s
        self.state.append("zero")
        return len(self.state) - 1

    def program(self, program: ReLUProgram, part: str, *, clean: bool) -> list[_SparseFF]:
        """One FF block per layer of ``program``; with ``clean`` the last block also zeroes
        every row that does not hold one of the program's outputs."""
        missing = [n for n in program.input_names if n not in self.slot_of]
        if missing:
            raise ValueError(f"the stream does not hold the program inputs {missing}")
        self.slot_of = {n: self.slot_of[n] for n in program.input_names}
        out = []
        for index, layer in enumerate(program.layers):
            last = clean and index == len(program.layers) - 1
            out.append(self._layer(layer, part, index, clean=last))
        return out

    def _layer(self, layer, part: str, index: int, *, clean: bool) -> _SparseFF:
        in_slots = [self.slot_of[n] for n in layer.in_names]
        kept = layer.kept or (False,) * len(layer.out_names)
        units: list[_Unit] = []
        reads: dict[int, list[tuple[int, Number]]] = {}
        writes: dict[int, dict[int, Number]] = {}
        consts: dict[int, Number] = {}

        def read(slot: int) -> list[tuple[int, Number]]:
            """Units whose combination is ``Z_slot`` (relu(Z) for non-negative rows)."""
            if slot not in reads:
                if self.state[slot] == "signed":
                    units.append(_Unit({slot: 1}, 0))
                    units.append(_Unit({slot: -1}, 0))
                    reads[slot] = [(len(units) - 2, 1), (len(units) - 1, -1)]
                else:
                    units.append(_Unit({slot: 1}, 0))
                    reads[slot] = [(len(units) - 1, 1)]
            return reads[slot]

        def read_cost(slot: int) -> int:
            return 0 if slot in reads else (2 if self.state[slot] == "signed" else 1)

        def add(slot: int, terms: list[tuple[int, Number]], scale: Number) -> None:
            row = writes.setdefault(slot, {})
            for u, w in terms:
                row[u] = row.get(u, 0) + scale * w

        # targets: a channel keeps its row; a new name takes a free row
        exprs = []
        for bias, row in zip(layer.biases, layer.rows, strict=True):
            coefs: dict[int, Number] = {}
            for i, w in row:
                coefs[in_slots[i]] = coefs.get(in_slots[i], 0) + w
            exprs.append(({s: w for s, w in coefs.items() if w != 0}, bias))
        target: dict[str, int] = {n: self.slot_of[n] for n in layer.out_names
                                  if n in self.slot_of}
        taken = set(target.values())
        for n in layer.out_names:
            if n not in target:
                target[n] = self._free_slot(taken)
                taken.add(target[n])

        def fresh(o: int) -> None:   # relu(e) into its row, the row's old value removed
            coefs, bias = exprs[o]
            t = target[layer.out_names[o]]
            units.append(_Unit(dict(coefs), bias))
            add(t, [(len(units) - 1, 1)], 1)
            if self.state[t] != "zero":
                add(t, read(t), -1)

        order = [o for o in range(len(layer.out_names)) if not kept[o]]
        order += [o for o in range(len(layer.out_names)) if kept[o]]
        for o in order:
            name = layer.out_names[o]
            if not kept[o]:
                fresh(o)
                continue
            coefs, bias = exprs[o]
            t = target[name]
            delta = dict(coefs)
            if self.state[t] != "zero":
                delta[t] = delta.get(t, 0) - 1
            delta = {s: w for s, w in delta.items() if w != 0}
            cost_linear = sum(read_cost(s) for s in delta)
            cost_fresh = 1 + (read_cost(t) if self.state[t] != "zero" else 0)
            if cost_linear <= cost_fresh:   # carried: Z_t <- e (>= 0), a linear update
                for s, w in delta.items():
                    add(t, read(s), w)
                if bias != 0:
                    consts[t] = consts.get(t, 0) + bias
            else:
                fresh(o)
        new_state = list(self.state)
        for t in target.values():
            new_state[t] = "nonneg"
        # zero stale rows: all of them with ``clean``, else while the block stays within the
        # stream's width (so that later blocks find zero rows and need no clearing units)
        for s, st in enumerate(self.state):
            if s not in taken and st != "zero" and (
                    clean or len(units) + read_cost(s) <= len(self.state)):
                add(s, read(s), -1)
                new_state[s] = "zero"
        self.state = new_state
        self.slot_of = dict(target)
        return _SparseFF(units, {s: {u: w for u, w in r.items() if w != 0}
                                 for s, r in writes.items()},
                         consts, part, index, dict(target))


def _dense_ff(sp: _SparseFF, width: int) -> FeedForwardBlock:
    q = len(sp.units)
    W_1, b_1, W_2, b_2 = _zeros(q, width), _zeros(q), _zeros(width, q), _zeros(width)
    for u, unit in enumerate(sp.units):
        for s, w in unit.coefs.items():
            W_1[u, s] = w
        b_1[u] = unit.bias
    for s, row in sp.writes.items():
        for u, w in row.items():
            W_2[s, u] = w
    for s, c in sp.consts.items():
        b_2[s] = c
    return FeedForwardBlock(W_1, b_1, W_2, b_2, sp.part, sp.layer, sp.channels)


def _fold_inputs(program: ReLUProgram, names: list[str]
                 ) -> tuple[ReLUProgram, dict[str, dict[str, Number]]]:
    """Move the first layer's linear map of the inputs ``names`` into the embedding.

    Every output of layer 0 that reads some of ``names`` reads them through one linear form;
    that form becomes a row of ``E_in`` (named ``E:<output>``) and the layer reads the row
    instead. Returns the rewritten program and ``{row name: {input name: coefficient}}``.
    """
    layer = program.layers[0]
    fold = {i for i, m in enumerate(layer.in_names) if m in names}
    rest = [m for i, m in enumerate(layer.in_names) if i not in fold]
    forms: dict[str, dict[str, Number]] = {}
    for o, row in zip(layer.out_names, layer.rows, strict=True):
        form = {layer.in_names[i]: w for i, w in row if i in fold}
        if form:
            forms[f"E:{o}"] = form
    in_names = tuple(forms) + tuple(rest)
    rows = []
    for o, row in zip(layer.out_names, layer.rows, strict=True):
        new = [(in_names.index(layer.in_names[i]), w) for i, w in row if i not in fold]
        if f"E:{o}" in forms:
            new.append((in_names.index(f"E:{o}"), 1))
        rows.append(tuple(sorted(new)))
    first = Layer(in_names, layer.out_names, layer.biases, tuple(rows), layer.kept)
    return ReLUProgram(in_names, (first, *program.layers[1:])), forms


def compile_transformer(net: SeqIdNetwork, *, sigma: Sigma = "hardmax") -> SeqIdTransformer:
    """The blocks of ``net`` (built by :func:`~memnb.constructions.seq_id.network.memorize`),
    compiled into Kajitsuka & Sato's (ICLR 2025) residual blocks (ours; see the module
    docstring).

    Args:
        net: the construction as ReLU networks and one attention head.
        sigma: the attention's column-wise ``"hardmax"`` (the theory's; default) or
            ``"softmax"`` (exact here because every score is 0; see the module docstring).

    Integer tokens are embedded as their ID (``E_in`` is ``[width, 1]``); real tokens
    ``x in R^d`` through the projection ``s v^T x`` of the token quantizer (``E_in`` is
    ``[width, d]``), so the width does not grow with ``d``. With ``positional=True`` the
    position ``k`` is added by the positional encoding ``P``.
    """
    if sigma not in _SIGMAS:
        raise ValueError(f"sigma must be one of {_SIGMAS}; got {sigma!r}")
    if net.input_dim is None:
        cols = ["z"]
        prog1, forms = net.token_program, {"z": {"z": 1}}
    else:
        cols = [f"x{i}" for i in range(net.input_dim)]
        prog1, forms = _fold_inputs(net.token_program, cols)
    signed = set(forms) - {"z"}          # projections of real tokens may be negative
    comp = _Compiler([(name, name in signed) for name in prog1.input_names])
    input_slots = dict(comp.slot_of)
    ffn1 = comp.program(prog1, "FFN1", clean=True)
    if set(comp.slot_of) != {"w", "h"}:
        raise RuntimeError(f"FFN₁ must end in the channels w, h; got {sorted(comp.slot_of)}")
    s_slot = comp._free_slot(set(comp.slot_of.values()))
    comp.state[s_slot] = "nonneg"
    h_slot = comp.slot_of["h"]
    comp.slot_of["s"] = s_slot
    attn_channels = dict(comp.slot_of)
    ffn2 = comp.program(net.memorizer, "FFN2", clean=False)
    width = len(comp.state)

    n = net.seq_len
    # the attention: one head of size 1, W_Q = W_K = 0, W_V = n e_h^T, W_O = e_s
    W_Q, W_K, W_V = _zeros(1, 1, width), _zeros(1, 1, width), _zeros(1, 1, width)
    W_O = _zeros(1, width, 1)
    W_V[0, 0, h_slot] = net.attention.W_V[1]
    W_O[0, s_slot, 0] = net.attention.W_O[2]
    sa = SelfAttentionBlock(W_Q, W_K, W_V, W_O, sigma, attn_channels)

    E = _zeros(width, len(cols))
    for row, form in forms.items():
        for col, coef in form.items():
            E[input_slots[row], cols.index(col)] = coef
    P = None
    if "k" in prog1.input_names:
        P = _zeros(width, n)
        P[input_slots["k"], :] = list(range(n))
    readout = _zeros(1, width)
    readout[0, comp.slot_of["y"]] = 1
    blocks = [_dense_ff(b, width) for b in ffn1] + [sa] + [_dense_ff(b, width) for b in ffn2]
    return SeqIdTransformer(Embedding(E, P, tuple(cols)), tuple(blocks), ReadOut(readout),
                            n, net.task, net.input_dim)


__all__ = ["Embedding", "FeedForwardBlock", "ReadOut", "SelfAttentionBlock", "SeqIdTransformer",
           "compile_transformer"]
