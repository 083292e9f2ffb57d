"""Where float64 evaluation of the construction breaks, and why (cf. Remark 4.4's bit counts).

Kajitsuka & Sato (ICLR 2025) have a Remark 4.4, "Optimality in terms of bit counts"; the content
attributed to it here is [unverified: only the remark's title is in our sources]. In our reading
they count bits as well as parameters; in our construction the memorizer's weights have Θ̃(√N)
bits (our notes' reconstruction, §2 step 4). The construction (:mod:`memnb.constructions.seq_id`,
our reconstruction) is therefore evaluated with Python integers. This module measures, layer by
layer, the first place where float64 (53 significant bits) gives a different value from the exact
evaluation, and the size of the numbers there: a weight, a value, or a product of the two that
float64 rounds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memnb.constructions.seq_id.network import SeqIdNetwork
from memnb.constructions.seq_id.relu_program import ReLUProgram

FLOAT64_BITS = 53


@dataclass(frozen=True)
class FirstFailure:
    """The first layer of a ReLU program whose float64 output differs from the exact one."""

    layer: int | None
    depth: int
    max_weight_bits: int
    max_value_bits: int
    max_product_bits: int

    @property
    def exact(self) -> bool:
        """True when float64 reproduced every layer exactly."""
        return self.layer is None


def _bits(values: np.ndarray) -> int:
    return max((abs(int(v)).bit_length() for v in values), default=0)


def first_float64_failure(program: ReLUProgram, inputs: dict[str, np.ndarray]) -> FirstFailure:
    """Run ``program`` exactly and in float64 side by side; report the first differing layer.

    The bits reported are those of the failing layer (or of the whole program when none fails):
    its largest weight, its largest input value and its largest weight × value product (the
    partial sums float64 must hold before they cancel).
    """
    exact = [np.asarray(inputs[n], dtype=object) for n in program.input_names]
    flt = [np.asarray([float(v) for v in inputs[n]], dtype=np.float64)
           for n in program.input_names]
    w_bits = v_bits = p_bits = 0
    for index, layer in enumerate(program.layers):
        new_e, new_f = [], []
        lw = lv = lp = 0
        for bias, row in zip(layer.biases, layer.rows, strict=True):
            acc_e = np.full(len(exact[0]), bias, dtype=object)
            acc_f = np.full(len(exact[0]), float(bias))
            lw = max(lw, abs(int(bias)).bit_length())
            for i, w in row:
                term = w * exact[i]
                lw = max(lw, abs(int(w)).bit_length())
                lv = max(lv, _bits(exact[i]))
                lp = max(lp, _bits(term))
                acc_e = acc_e + term
                acc_f = acc_f + float(w) * flt[i]
            new_e.append(np.where(acc_e > 0, acc_e, 0).astype(object))
            new_f.append(np.where(acc_f > 0, acc_f, 0.0))
        exact, flt = new_e, new_f
        w_bits, v_bits, p_bits = max(w_bits, lw), max(v_bits, lv), max(p_bits, lp)
        if any(int(a) != int(b) for e, f in zip(exact, flt, strict=True) for a, b in zip(e, f,
                                                                                     strict=True)):
            return FirstFailure(index, program.depth, lw, lv, lp)
    return FirstFailure(None, program.depth, w_bits, v_bits, p_bits)


def float64_report(net: SeqIdNetwork, sequences: np.ndarray) -> dict[str, object]:
    """Why float64 evaluation of ``net`` fails on ``sequences`` (next-token, integer tokens).

    Keys: ``prime_bits`` and ``prime_squared_bits`` (the hash's modulus ``p`` and ``p²``),
    ``ffn1_*`` and ``ffn2_*`` (:class:`FirstFailure` of each FFN, FFN₂ fed the exact sequence IDs
    so that its own failure is measured), ``float64_accuracy`` (labels right when the whole
    network runs in float64).
    """
    if net.quantizer is not None or net.task != "next_token":
        raise ValueError("float64_report needs a next-token network on integer tokens")
    flat = net._inputs(sequences)
    ffn1 = first_float64_failure(net.token_program, flat)
    stream = net.stream_after_attention(sequences)[:, -1, :]
    ffn2 = first_float64_failure(net.memorizer, {
        "w": np.array([int(x) for x in stream[:, 0]], dtype=object),
        "s": np.array([int(x) for x in stream[:, 2]], dtype=object)})
    labels_f = net.predict(sequences, arithmetic="float64")
    labels_e = net.predict(sequences)
    report: dict[str, object] = {
        "prime_bits": net.hash.p.bit_length(), "prime_squared_bits": (net.hash.p ** 2).bit_length(),
        "float64_accuracy": float(np.mean(labels_f == labels_e)),
    }
    for name, fail in (("ffn1", ffn1), ("ffn2", ffn2)):
        report.update({f"{name}_exact": fail.exact, f"{name}_first_failing_layer": fail.layer,
                       f"{name}_depth": fail.depth, f"{name}_max_weight_bits": fail.max_weight_bits,
                       f"{name}_max_value_bits": fail.max_value_bits,
                       f"{name}_max_product_bits": fail.max_product_bits})
    return report
