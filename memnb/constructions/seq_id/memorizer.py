"""The ReLU memorizer that maps sequence IDs to labels: block packing and bit extraction.

Kajitsuka & Sato (ICLR 2025, Thm 4.1) finish their construction with a token-wise feed-forward
network that memorizes ``N`` (ID, label) pairs with Õ(√N) parameters; this is the step that makes
the whole Transformer need only Õ(√N) parameters, an order their lower bound (Thm 4.2, Ω(√N);
its content [unverified]) shows optimal up to logarithmic factors. The recipe below follows
Vardi, Yehudai & Shamir (2022) as reconstructed in the chapter notes (§2 step 4,
**[reconstruction]**; constants are ours):

* sort the IDs and cut them into ``m = ceil(N / ρ)`` blocks of ``ρ`` consecutive IDs;
* pack block ``j`` into two integers, ``W_j = sum_k u_{jk} 2^{L(ρ-1-k)}`` (IDs, ``L`` bits each)
  and ``Y_j = sum_k y_{jk} 2^{K(ρ-1-k)}`` (labels, ``K`` bits each);
* (a) *block selection*, one layer per block: ``W(u) = sum_j (W_j - W_{j-1}) 1[u >= start_j]``
  with the exact integer step ``1[u >= s] = relu(u - s + 1) - relu(u - s)``;
* (b) *bit extraction*, one layer per bit: read the ``ρ`` IDs of the selected block back from
  ``W`` (``L`` bits each, the labels' ``K`` bits from ``Y`` in the same layers) and add the label
  of the slot whose ID equals ``u``: ``out += relu(y - C (1 - eq))`` with
  ``eq = relu(1 - relu(u - u') - relu(u' - u))``.

Depth ``(m - 1) + ρ (L + 3) + 1`` and width 10; ``ρ = ceil(sqrt(N / (L + 3)))`` balances the two
stages, so the depth is about ``2 sqrt(N (L + 3))`` with ``L = O(log N)`` bits per ID: Θ̃(√N)
parameters. The packed integers have ``ρ L`` bits, hence weights of Θ̃(√N) bits: the network must
be evaluated in exact integer arithmetic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from memnb.constructions.seq_id.relu_program import (
    Expr,
    ReLUProgramBuilder,
    bit_pair_exprs,
    combine,
    const,
    var,
)
from memnb.validation import check_int


@dataclass(frozen=True)
class MemorizerLayout:
    """The sizes of the memorizer: ``N`` pairs, ``ρ`` per block, ``m`` blocks, bits per slot."""

    num_pairs: int
    block_size: int
    num_blocks: int
    id_bits: int
    label_bits: int

    @property
    def depth(self) -> int:
        """ReLU layers of the memorizer: ``(m - 1) + ρ (L + 3) + 1`` (block selection, then
        ``L`` bit layers and 3 gate layers per slot, then the output layer)."""
        return (self.num_blocks - 1) + self.block_size * (self.id_bits + 3) + 1


def label_bits(num_classes: int) -> int:
    """``K = max(1, bitlength(C - 1))`` bits per label in ``0 .. C-1`` (``C = num_classes >=
    1``)."""
    num_classes = check_int("num_classes", num_classes, 1)
    return max(1, (num_classes - 1).bit_length())


def layout(num_pairs: int, max_id: int, num_classes: int,
           block_size: int | None = None) -> MemorizerLayout:
    """The block layout for ``num_pairs`` IDs up to ``max_id`` and ``num_classes >= 1`` labels
    (checked by :func:`label_bits`)."""
    if num_pairs < 1:
        raise ValueError(f"num_pairs must be >= 1; got {num_pairs}")
    if max_id < 1:
        raise ValueError(f"max_id must be >= 1 (IDs are shifted to start at 1); got {max_id}")
    k_bits = label_bits(num_classes)
    l_bits = max(max_id.bit_length(), k_bits)
    if block_size is None:
        block_size = max(1, math.ceil(math.sqrt(num_pairs / (l_bits + 3))))
    if block_size < 1:
        raise ValueError(f"block_size must be >= 1; got {block_size}")
    return MemorizerLayout(num_pairs, block_size, math.ceil(num_pairs / block_size), l_bits,
                           k_bits)


def add_memorizer(builder: ReLUProgramBuilder, u: Expr | str, ids: Sequence[int],
                  labels: Sequence[int], num_classes: int, *,
                  block_size: int | None = None, output: str = "y") -> MemorizerLayout:
    """Append the memorizer of ``ids -> labels`` to ``builder``; the ID is the expression ``u``
    (FFN₂ of Kajitsuka & Sato, ICLR 2025, after Vardi et al. 2022; [reconstruction], see the
    module docstring).

    ``ids`` must be distinct integers ``>= 1`` and ``labels`` integers in ``[0, num_classes)``;
    the last layer has the single channel ``output`` holding the label of ``u`` (and 0 for an
    ``u`` that is not one of ``ids``).
    """
    if len(ids) != len(labels):
        raise ValueError(f"ids and labels must have the same length; got {len(ids)}, {len(labels)}")
    if len(set(ids)) != len(ids):
        raise ValueError("ids must be distinct")
    if min(ids) < 1:
        raise ValueError(f"ids must be >= 1; got min {min(ids)}")
    if num_classes < 1 or min(labels) < 0 or max(labels) >= num_classes:
        raise ValueError(f"labels must lie in [0, num_classes={num_classes})")
    ids, labels = [int(i) for i in ids], [int(y) for y in labels]
    lay = layout(len(ids), max(ids), num_classes, block_size)
    rho, L, K, C = lay.block_size, lay.id_bits, lay.label_bits, num_classes
    pairs = sorted(zip((int(i) for i in ids), (int(y) for y in labels), strict=True))
    packed_w, packed_y, starts = [], [], []
    for j in range(lay.num_blocks):
        block = pairs[j * rho:(j + 1) * rho]
        starts.append(block[0][0])
        block = block + [(0, 0)] * (rho - len(block))  # padding slots: ID 0 never matches u >= 1
        packed_w.append(sum(uid << (L * (rho - 1 - k)) for k, (uid, _) in enumerate(block)))
        packed_y.append(sum(y << (K * (rho - 1 - k)) for k, (_, y) in enumerate(block)))

    # (a) block selection: W, Y hold the packed block of the largest start_j <= u
    b = builder
    b.alias("u", u)
    b.alias("W", const(packed_w[0]))
    b.alias("Y", const(packed_y[0]))
    for j in range(1, lay.num_blocks):
        b.layer(bit_pair_exprs("u", starts[j], pair=("sa", "sb")), keep=["u", "W", "Y"])
        step = combine((1, var("sa")), (-1, var("sb")))
        b.alias("W", combine((1, var("W")), (packed_w[j] - packed_w[j - 1], step)))
        b.alias("Y", combine((1, var("Y")), (packed_y[j] - packed_y[j - 1], step)))

    # (b) bit extraction, slot by slot, with the equality gate after each slot
    top_w, top_y = rho * L - 1, rho * K - 1
    b.alias("out", const(0))
    for _slot in range(rho):
        b.alias("cand", const(0))
        b.alias("lab", const(0))
        for i in range(L):
            new = bit_pair_exprs("W", 2**top_w, pair=("wa", "wb"))
            if i < K:
                new.update(bit_pair_exprs("Y", 2**top_y, pair=("ya", "yb")))
            b.layer(new, keep=["u", "W", "Y", "cand", "lab", "out"])
            bit_w = combine((1, var("wa")), (-1, var("wb")))
            b.alias("W", combine((1, var("W")), (-(2**top_w), bit_w)))
            b.alias("cand", combine((2, var("cand")), (1, bit_w)))
            top_w -= 1
            if i < K:
                bit_y = combine((1, var("ya")), (-1, var("yb")))
                b.alias("Y", combine((1, var("Y")), (-(2**top_y), bit_y)))
                b.alias("lab", combine((2, var("lab")), (1, bit_y)))
                top_y -= 1
        b.layer({"p1": combine((1, var("u")), (-1, var("cand"))),
                 "p2": combine((1, var("cand")), (-1, var("u")))},
                keep=["u", "W", "Y", "lab", "out"])
        b.layer({"eq": combine((1, const(1)), (-1, var("p1")), (-1, var("p2")))},
                keep=["u", "W", "Y", "lab", "out"])
        b.layer({"c": combine((1, var("lab")), (C, var("eq")), (-C, const(1)))},
                keep=["u", "W", "Y", "out"])
        b.alias("out", combine((1, var("out")), (1, var("c"))))
    b.layer({output: "out"})
    return lay
