"""The memorizing Transformer of Kajitsuka & Sato (ICLR 2025), Thm 4.1 and Cor. 4.1, built.

``memorize(sequences, labels)`` returns FFN₁ -> one self-attention layer -> FFN₂ that outputs every
label exactly (next-token prediction: one label per sequence, read at the last token;
``task="seq2seq"``: one label per token, Cor. 4.1). The three parts are
:func:`~memnb.constructions.seq_id.hashing.build_token_program` (token IDs and hash),
:class:`~memnb.constructions.seq_id.hashing.UniformAttention` (the contextual mapping) and
:func:`~memnb.constructions.seq_id.memorizer.add_memorizer` (IDs -> labels); see those modules.
The paper's statements are the theorem and the shape FFN -> one averaging attention -> FFN; the
constants, widths and the hash are **[reconstruction]** (chapter notes §2).

Like the paper's Transformer the model has no positional encoding unless ``positional=True``, so
it is permutation-equivariant: it can only memorize data in which two sequences with the same
multiset of tokens and the same last token (same token at position ``k`` for seq2seq) have the same
label. Such a *consistency violation* is a ``ValueError`` (with ``positional=True`` only identical
sequences with different labels violate it).

The FFNs are written as plain deep ReLU networks (every layer ``relu(A h + b)``); a residual FFN
block ``Z + W_2 relu(W_1 Z + b_1) + b_2`` of the same width emulates each such layer:
:meth:`SeqIdNetwork.transformer` builds those blocks explicitly
(:mod:`~memnb.constructions.seq_id.transformer`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Literal

import numpy as np

from memnb.constructions.seq_id.hashing import (
    AttentionKind,
    TokenHash,
    TokenQuantizer,
    UniformAttention,
    as_fractions,
    build_token_program,
    fit_quantizer,
    next_prime,
)
from memnb.constructions.seq_id.memorizer import MemorizerLayout, add_memorizer
from memnb.constructions.seq_id.relu_program import (
    Arithmetic,
    ReLUProgram,
    ReLUProgramBuilder,
    combine,
    const,
    var,
)
from memnb.validation import check_int

if TYPE_CHECKING:  # pragma: no cover
    from memnb.constructions.seq_id.transformer import SeqIdTransformer

Task = Literal["next_token", "seq2seq"]
_TASKS = ("next_token", "seq2seq")


@dataclass
class SeqIdNetwork:
    """A Transformer FFN₁ -> SA -> FFN₂ that memorizes a dataset (see :func:`memorize`): our
    [reconstruction] of the construction of Kajitsuka & Sato (ICLR 2025), Thm 4.1 / Cor. 4.1."""

    token_program: ReLUProgram
    attention: UniformAttention
    memorizer: ReLUProgram
    layout: MemorizerLayout
    hash: TokenHash
    seq_len: int
    num_classes: int
    task: Task
    positional: bool
    quantizer: TokenQuantizer | None = None
    input_dim: int | None = None
    attempts: int = 1
    info: dict = field(default_factory=dict)

    # ------------------------------------------------------------------------------- sizes
    @property
    def parts(self) -> dict[str, dict[str, int]]:
        """Width, depth, parameters and largest weight (bits) of FFN₁, SA and FFN₂."""
        return {
            "ffn1": _summary(self.token_program),
            "attention": {"width": 3, "depth": 1, "num_parameters": self.attention.num_parameters,
                          "nonzero_parameters": self.attention.nonzero_parameters,
                          "max_weight_bits":
                              self.attention.max_weight_bits},
            "ffn2": _summary(self.memorizer),
        }

    @property
    def width(self) -> int:
        """Largest number of channels in any layer (FFN hidden widths and the stream)."""
        return max(p["width"] for p in self.parts.values())

    @property
    def depth(self) -> int:
        """ReLU layers of both FFNs plus the one attention layer."""
        return sum(p["depth"] for p in self.parts.values())

    @property
    def num_parameters(self) -> int:
        """All weights and biases (FFN layers counted as dense layers)."""
        return sum(p["num_parameters"] for p in self.parts.values())

    @property
    def nonzero_parameters(self) -> int:
        """Sum of ``nonzero_parameters`` over :attr:`parts`: non-zero weights and biases of FFN₁
        and FFN₂ plus the attention's non-zero entries (two: ``n`` in ``W_V``, ``1`` in ``W_O``)."""
        return sum(p["nonzero_parameters"] for p in self.parts.values())

    @property
    def max_weight_bits(self) -> int:
        """Bits of the largest weight (numerator or denominator for rational weights)."""
        return max(p["max_weight_bits"] for p in self.parts.values())

    def total_weight_bits(self) -> int:
        """Bits needed to write every non-zero weight (bit length plus a sign bit each, the
        attention's counted like the ReLU layers'): the bit count we set against Remark 4.4
        ("Optimality in terms of bit counts"; its content is [unverified: only the remark's title
        is in our sources])."""
        return (self.token_program.total_weight_bits() + self.memorizer.total_weight_bits()
                + self.attention.total_weight_bits())

    def transformer(self, *, sigma: AttentionKind = "hardmax") -> SeqIdTransformer:
        """The same construction as explicit residual Transformer blocks in exact arithmetic:
        embedding, FF blocks (FFN₁), one self-attention block, FF blocks (FFN₂), read-out
        (:mod:`~memnb.constructions.seq_id.transformer`; ``sigma`` as there)."""
        from memnb.constructions.seq_id.transformer import compile_transformer

        return compile_transformer(self, sigma=sigma)

    # ---------------------------------------------------------------------------- forward
    def _inputs(self, sequences: np.ndarray) -> dict[str, np.ndarray]:
        seqs = np.asarray(sequences)
        n = self.seq_len
        if self.quantizer is None:
            flat = {"z": check_token_ids(seqs, n).reshape(-1).astype(object)}
        else:
            if seqs.ndim != 3 or seqs.shape[1:] != (n, self.input_dim):
                raise ValueError(f"sequences must be real tokens [N, {n}, {self.input_dim}]; "
                                 f"got {seqs.shape}")
            tokens = np.array(as_fractions(seqs.reshape(-1, self.input_dim)), dtype=object)
            flat = {f"x{i}": tokens[:, i] for i in range(self.input_dim)}
        if self.positional:
            flat["k"] = np.tile(np.arange(n), len(seqs)).astype(object)
        return flat

    def token_features(self, sequences: np.ndarray, *,
                       arithmetic: Arithmetic = "exact") -> tuple[np.ndarray, np.ndarray]:
        """FFN₁ on every token: token IDs ``w`` and hashes ``h``, each ``[N, n]``.

        The network is token-wise, so it is evaluated once per distinct (token, position) input.
        """
        flat = self._inputs(sequences)
        names = list(flat)
        keys = list(zip(*(flat[k] for k in names), strict=True))
        index: dict[tuple, int] = {}
        inverse = np.array([index.setdefault(k, len(index)) for k in keys], dtype=np.int64)
        unique = list(index)
        cols = {name: np.array([u[i] for u in unique], dtype=object)
                for i, name in enumerate(names)}
        out = self.token_program.run(cols, arithmetic=arithmetic)
        shape = (len(sequences), self.seq_len)
        return out["w"][inverse].reshape(shape), out["h"][inverse].reshape(shape)

    def stream_after_attention(self, sequences: np.ndarray, *,
                               attention: AttentionKind = "hardmax",
                               arithmetic: Arithmetic = "exact") -> np.ndarray:
        """The residual stream ``[N, n, 3] = (w, h, s)`` after the self-attention layer."""
        w, h = self.token_features(sequences, arithmetic=arithmetic)
        stream = np.zeros((*w.shape, 3), dtype=object)
        stream[:, :, 0], stream[:, :, 1], stream[:, :, 2] = w, h, 0
        return self.attention(stream, attention)

    def ids(self, sequences: np.ndarray, *, attention: AttentionKind = "hardmax") -> np.ndarray:
        """The contextual mapping (Definition 4.1 [unverified]): sequence IDs ``[N]``
        (next-token) or token IDs ``[N, n]``.

        ``ID = s + n p w + 1`` where ``s = sum_j h(w_j)`` is the attention output and ``w`` the
        token ID at the read-out position (the last token for next-token prediction).
        """
        stream = self.stream_after_attention(sequences, attention=attention)
        if not all(isinstance(x, int) or (isinstance(x, Fraction) and x.denominator == 1)
                   for x in stream[:, :, 2].ravel()):
            raise RuntimeError("the attention output is not an integer")
        s = np.vectorize(int, otypes=[object])(stream[:, :, 2])
        uid = s + self.info["id_multiplier"] * stream[:, :, 0] + 1
        return uid[:, -1] if self.task == "next_token" else uid

    def predict(self, sequences: np.ndarray, *, attention: AttentionKind = "hardmax",
                arithmetic: Arithmetic = "exact") -> np.ndarray:
        """The network's output: labels ``[N]`` (next-token) or ``[N, n]`` (seq2seq).

        ``arithmetic="float64"`` evaluates both FFNs in float64 (wrong once weights or values
        exceed 53 bits); the attention is exact either way.
        """
        stream = self.stream_after_attention(sequences, attention=attention,
                                             arithmetic=arithmetic)
        if self.task == "next_token":
            stream = stream[:, -1:, :]
        cols = {"w": stream[:, :, 0].reshape(-1), "s": stream[:, :, 2].reshape(-1)}
        if arithmetic == "exact":
            cols = {k: np.array([int(x) for x in v], dtype=object) for k, v in cols.items()}
        else:
            cols = {k: np.array([float(x) for x in v]) for k, v in cols.items()}
        y = self.memorizer.run(cols, arithmetic=arithmetic)["y"]
        labels = np.array([int(round(float(v))) for v in y], dtype=np.int64)
        return labels.reshape(len(sequences), -1) if self.task == "seq2seq" else labels


def check_token_ids(sequences: np.ndarray, seq_len: int) -> np.ndarray:
    """``sequences`` if they are integer token IDs ``[N, seq_len]``, all ``>= 0``; else a
    ``ValueError`` naming the expected shape."""
    if (sequences.ndim != 2 or sequences.shape[1] != seq_len
            or sequences.dtype.kind not in "iu"):
        raise ValueError(f"sequences must be integer token IDs [N, {seq_len}]; got "
                         f"{sequences.dtype} {sequences.shape}")
    if sequences.size and sequences.min() < 0:
        raise ValueError("sequences must hold token IDs >= 0")
    return sequences


def _summary(program: ReLUProgram) -> dict[str, int]:
    return {"width": program.width, "depth": program.depth,
            "num_parameters": program.num_parameters,
            "nonzero_parameters": program.nonzero_parameters,
            "max_weight_bits": program.max_weight_bits}


# ------------------------------------------------------------------------------ construction
def _token_indices(sequences: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Integer token indices ``[N, n]`` and, for real tokens, the distinct vectors ``[T, d]``."""
    if sequences.ndim == 2:
        if sequences.dtype.kind not in "iu":
            raise ValueError(f"integer sequences must have an integer dtype; got {sequences.dtype}")
        if sequences.size and sequences.min() < 0:
            raise ValueError("token IDs must be >= 0")
        return sequences.astype(np.int64), None
    if sequences.ndim == 3:
        if sequences.dtype.kind != "f":
            raise ValueError(f"token vectors must be floating point; got {sequences.dtype}")
        if not np.all(np.isfinite(sequences)):
            raise ValueError("token vectors must be finite")
        n_seq, n, d = sequences.shape
        vectors, inverse = np.unique(sequences.reshape(-1, d), axis=0, return_inverse=True)
        return inverse.reshape(n_seq, n), vectors
    raise ValueError(f"sequences must be [N, n] token IDs or [N, n, d] token vectors; got shape "
                     f"{sequences.shape}")


def _keys(tokens: np.ndarray, task: Task, positional: bool) -> list[tuple]:
    """What the permutation-equivariant network can see at each read-out position."""
    n = tokens.shape[1]
    keys = []
    for row in tokens.tolist():
        content = tuple(sorted(zip(range(n), row, strict=True) if positional else row))
        positions = [n - 1] if task == "next_token" else range(n)
        keys.extend((content, (k if positional else -1, row[k])) for k in positions)
    return keys


def check_consistency(tokens: np.ndarray, labels: np.ndarray, *, task: Task = "next_token",
                      positional: bool = False) -> list[tuple]:
    """Raise ``ValueError`` if two inputs the model cannot tell apart have different labels.

    Returns the read-out keys (one per label). Without positional encoding the model sees the
    multiset of tokens and the token at the read-out position.
    """
    keys = _keys(tokens, task, positional)
    flat = labels.reshape(-1).tolist()
    seen: dict[tuple, int] = {}
    n_pos = 1 if task == "next_token" else tokens.shape[1]
    for idx, (key, y) in enumerate(zip(keys, flat, strict=True)):
        first = seen.setdefault(key, idx)
        if flat[first] != y:
            i, j = first // n_pos, idx // n_pos
            where = "" if task == "next_token" else f" at position {idx % n_pos}"
            if np.array_equal(tokens[i], tokens[j]):
                raise ValueError(f"inconsistent data: sequences {i} and {j} are identical but "
                                 f"have labels {flat[first]} and {y}{where}")
            raise ValueError(
                f"inconsistent data: sequences {i} and {j} have the same multiset of tokens and "
                f"the same read-out token but labels {flat[first]} and {y}{where}; a Transformer "
                "without positional encoding cannot separate them (use positional=True)")
    return keys


def memorize(sequences: np.ndarray, labels: np.ndarray, *, num_classes: int | None = None,
             task: Task = "next_token", positional: bool = False, seed: int = 0,
             block_size: int | None = None, max_attempts: int = 32) -> SeqIdNetwork:
    """Build a Transformer that memorizes ``(sequences, labels)`` exactly: Kajitsuka & Sato
    (ICLR 2025), Thm 4.1 / Cor. 4.1, with our [reconstruction] of the construction.

    Args:
        sequences: ``[N, n]`` integer token IDs, or ``[N, n, d]`` real token vectors (distinct
            tokens must be distinct vectors; the paper assumes token-wise (r, δ)-separation).
        labels: ``[N]`` (next-token) or ``[N, n]`` (seq2seq) integers in ``[0, C)``.
        num_classes: ``C``; defaults to ``max(labels) + 1``.
        task: ``"next_token"`` (Thm 4.1) or ``"seq2seq"`` (Cor. 4.1).
        positional: add the position to the token ID (an input embedding with positional
            encoding); otherwise the network is permutation-equivariant as in the paper.
        seed: seeds the projection direction and the hash base ``a``.
        block_size: ``ρ`` of the memorizer (default ``ceil(sqrt(#IDs / (L + 3)))``).
        max_attempts: draws of ``a`` before giving up on distinct IDs.
    """
    if task not in _TASKS:
        raise ValueError(f"task must be one of {_TASKS}; got {task!r}")
    max_attempts = check_int("max_attempts", max_attempts, 1)
    seqs = np.asarray(sequences)
    ys = np.asarray(labels)
    if seqs.ndim not in (2, 3) or seqs.shape[0] < 1 or seqs.shape[1] < 1:
        raise ValueError(f"sequences must be [N, n] or [N, n, d] with N, n >= 1; got {seqs.shape}")
    n_seq, n = seqs.shape[:2]
    want = (n_seq,) if task == "next_token" else (n_seq, n)
    if ys.shape != want or ys.dtype.kind not in "iu":
        raise ValueError(f"labels must be integers of shape {want} for task={task!r}; got "
                         f"{ys.dtype} {ys.shape}")
    if ys.min() < 0:
        raise ValueError("labels must be >= 0")
    C = int(ys.max()) + 1 if num_classes is None else int(num_classes)
    if C < 1 or ys.max() >= C:
        raise ValueError(f"labels must lie in [0, num_classes={C})")
    tokens, vectors = _token_indices(seqs)
    keys = check_consistency(tokens, ys, task=task, positional=positional)
    rng = np.random.default_rng(seed)

    quantizer = None
    if vectors is not None:
        quantizer = fit_quantizer(vectors, rng)
        exact = as_fractions(vectors)
        token_ids = np.array([quantizer.token_id(x) for x in exact], dtype=np.int64)
        z = token_ids[tokens]
        z_bits = quantizer.bits
    else:
        z = tokens
        z_bits = max(1, int(z.max()).bit_length())
    w = z * n + np.arange(n) if positional else z
    w_max = (2**z_bits - 1) * n + n - 1 if positional else 2**z_bits - 1
    w_bits = max(1, w_max.bit_length())

    # distinct read-out keys -> labels
    key_label: dict[tuple, int] = {}
    for key, y in zip(keys, ys.reshape(-1).tolist(), strict=True):
        key_label.setdefault(key, y)
    num_keys = len(key_label)
    p = next_prime(max(2 * n + 1, (w_max + 1) * max(num_keys, 2) ** 2))
    multiplier = n * p
    rows = w.tolist()
    read = [n - 1] if task == "next_token" else list(range(n))
    for attempt in range(1, max_attempts + 1):
        hash_ = TokenHash(p, int(rng.integers(2, p - 1)))
        attempts = attempt
        # map every distinct key to its ID and check injectivity on keys
        key_ids: dict[tuple, int] = {}
        for i, row in enumerate(rows):
            s = sum(hash_(t) for t in row)
            row_keys = keys[i * len(read):(i + 1) * len(read)]
            for k, key in zip(read, row_keys, strict=True):
                key_ids[key] = s + multiplier * row[k] + 1
        if len(set(key_ids.values())) == num_keys:
            break
    else:
        raise RuntimeError(f"no hash base gave distinct IDs in {max_attempts} attempts")

    token_program = build_token_program(
        hash_=hash_, w_bits=w_bits, seq_len=n, positional=positional, quantizer=quantizer,
        input_dim=None if vectors is None else vectors.shape[1], z_bits=z_bits)
    builder = ReLUProgramBuilder(["w", "s"])
    u = combine((1, var("s")), (multiplier, var("w")), (1, const(1)))
    id_list = [key_ids[k] for k in key_label]
    lay = add_memorizer(builder, u, id_list, list(key_label.values()), C, block_size=block_size)
    net = SeqIdNetwork(
        token_program=token_program, attention=UniformAttention(n), memorizer=builder.build(),
        layout=lay, hash=hash_, seq_len=n, num_classes=C, task=task, positional=positional,
        quantizer=quantizer, input_dim=None if vectors is None else vectors.shape[1],
        attempts=attempts,
        info={"id_multiplier": multiplier, "num_ids": num_keys, "prime_bits": p.bit_length(),
              "token_id_bits": z_bits, "w_bits": w_bits, "max_id": max(id_list)},
    )
    return net
