"""Sizes of the construction against N and n: the scaling measurements of the chapter.

Kajitsuka & Sato (ICLR 2025) prove Õ(√N) parameters for next-token prediction, nearly flat in n
(Thm 4.1), and Õ(√(nN)) for sequence-to-sequence (Cor. 4.1). These helpers build the
construction of :func:`memnb.constructions.seq_id.memorize` on random data and report its sizes,
so the exponents can be measured rather than assumed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memnb.constructions.seq_id.network import Task, memorize
from memnb.data.random_sequences import random_sequences


def construction_sizes(num_sequences: int, seq_len: int, *, num_classes: int = 2,
                       vocab_size: int = 1000, task: Task = "next_token", seed: int = 0,
                       verify: bool = False,
                       positional: bool | None = None) -> dict[str, float | int | bool]:
    """Build the construction (our [reconstruction] of Kajitsuka & Sato, ICLR 2025) for random
    data and return its sizes (one tidy row).

    ``positional`` adds each token's position to its ID (``w = n z + k``); by default
    (``None``) only for ``task="seq2seq"``, whose labels differ by position (Cor. 4.1), while
    the next-token construction has none, as the model of Thm 4.1 has no positional encoding.

    Keys: ``N, n, C, V, task, positional, width, depth, num_parameters`` (total),
    ``ffn1_parameters``, ``ffn2_parameters``, ``attention_parameters``, ``max_weight_bits``,
    ``total_weight_bits``, ``id_bits``, ``block_size``, ``num_blocks``, ``num_ids`` (distinct
    read-out keys) and, with ``verify=True``, ``memorized`` (exact evaluation of every label;
    slow for large N).
    """
    data = random_sequences(num_sequences, seq_len, vocab_size, num_classes, seed=seed,
                            seq2seq=task == "seq2seq")
    if positional is None:
        positional = task == "seq2seq"
    net = memorize(data.tokens, data.labels, num_classes=num_classes, task=task,
                   positional=positional, seed=seed)
    parts = net.parts
    row: dict[str, float | int | bool] = {
        "N": num_sequences, "n": seq_len, "C": num_classes, "V": vocab_size, "task": task,
        "positional": positional,
        "width": net.width, "depth": net.depth, "num_parameters": net.num_parameters,
        "ffn1_parameters": parts["ffn1"]["num_parameters"],
        "attention_parameters": parts["attention"]["num_parameters"],
        "ffn2_parameters": parts["ffn2"]["num_parameters"],
        "max_weight_bits": net.max_weight_bits, "total_weight_bits": net.total_weight_bits(),
        "id_bits": net.layout.id_bits, "block_size": net.layout.block_size,
        "num_blocks": net.layout.num_blocks, "num_ids": net.info["num_ids"],
    }
    if verify:
        row["memorized"] = bool(np.array_equal(net.predict(data.tokens), data.labels))
    return row


def fit_power_law(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Least-squares fit of ``log y = log c + e log x``; returns ``(e, c)``."""
    lx, ly = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    if len(lx) < 2:
        raise ValueError("fit_power_law needs at least two points")
    e, logc = np.polyfit(lx, ly, 1)
    return float(e), float(np.exp(logc))
