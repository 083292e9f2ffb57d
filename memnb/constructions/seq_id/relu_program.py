"""Deep narrow ReLU networks with exact integer / rational weights, built channel by channel.

Our [reconstruction] of the construction of Kajitsuka & Sato (ICLR 2025, Thm 4.1; chapter notes
§2) ends in a token-wise ReLU network whose weights have Θ̃(√N) bits (block packing + bit
extraction, after Vardi et al. 2022). Such weights do not fit in float64, so the network is held
here as exact Python integers (or :class:`fractions.Fraction`) and evaluated in exact
arithmetic.

A :class:`ReLUProgram` is a list of fully connected layers ``h_{l+1} = relu(A_l h_l + b_l)``.
Channels carry names while the network is built (:class:`ReLUProgramBuilder`): every new channel
is the ReLU of an affine expression in the previous layer's channels, and channels that must
survive a layer are carried as ``relu(c) = c`` (the construction keeps every carried value
non-negative). *Aliases* are affine expressions in the current channels; they are folded into the
next layer's weights, which is how a linear step (``W <- W - 2^k * bit``) costs no layer.

Parameter counts follow the usual convention for fully connected layers: a layer with ``i``
inputs and ``o`` outputs has ``i * o + o`` parameters (weights and biases, zero or not);
:attr:`ReLUProgram.nonzero_parameters` counts only the non-zero ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np

Number = int | Fraction
Expr = dict[str, Number]
"""An affine expression: channel name -> coefficient; the key ``"1"`` holds the constant term."""

ONE = "1"
Arithmetic = Literal["exact", "float64"]


def const(value: Number) -> Expr:
    """The constant expression ``value``."""
    return {ONE: value}


def var(name: str, coef: Number = 1) -> Expr:
    """The expression ``coef * name``."""
    return {name: coef}


def combine(*terms: tuple[Number, Expr]) -> Expr:
    """``sum(c * e for c, e in terms)`` as one expression (zero coefficients dropped)."""
    out: Expr = {}
    for c, e in terms:
        for k, v in e.items():
            out[k] = out.get(k, 0) + c * v
    return {k: v for k, v in out.items() if v != 0}


def bits(value: Number) -> int:
    """Bits needed to write ``value`` exactly: ``|v|.bit_length()`` for an integer, the larger of
    numerator and denominator for a fraction."""
    if isinstance(value, Fraction):
        return max(abs(value.numerator).bit_length(), value.denominator.bit_length())
    return abs(int(value)).bit_length()


@dataclass(frozen=True)
class Layer:
    """``out[o] = relu(bias[o] + sum_{(i, w) in rows[o]} w * in[i])``.

    ``kept[o]`` is True for a *carried* output (a ``keep`` of the builder: a channel or an
    alias whose value the construction keeps non-negative, so its ReLU is the identity); empty
    when unknown. :mod:`~memnb.constructions.seq_id.transformer` uses it to write carried
    values as linear residual updates.
    """

    in_names: tuple[str, ...]
    out_names: tuple[str, ...]
    biases: tuple[Number, ...]
    rows: tuple[tuple[tuple[int, Number], ...], ...]
    kept: tuple[bool, ...] = ()

    @property
    def num_parameters(self) -> int:
        """``i * o + o``: the layer's weights and biases counted as dense, zero or not."""
        return len(self.in_names) * len(self.out_names) + len(self.out_names)

    @property
    def nonzero_parameters(self) -> int:
        """Weights stored in ``rows`` (the builder stores only non-zero ones) plus the non-zero
        biases."""
        return sum(len(r) for r in self.rows) + sum(1 for b in self.biases if b != 0)

    def weights(self) -> Iterable[Number]:
        """Every bias, then every weight stored in ``rows``."""
        yield from self.biases
        for row in self.rows:
            for _, w in row:
                yield w


@dataclass(frozen=True)
class ReLUProgram:
    """A deep ReLU network with exact weights; see the module docstring."""

    input_names: tuple[str, ...]
    layers: tuple[Layer, ...]

    @property
    def output_names(self) -> tuple[str, ...]:
        """Channels of the last layer (the input channels when there is no layer)."""
        return self.layers[-1].out_names if self.layers else self.input_names

    @property
    def depth(self) -> int:
        """Number of ReLU layers."""
        return len(self.layers)

    @property
    def width(self) -> int:
        """Largest number of channels of any layer (inputs included)."""
        sizes = [len(self.input_names)] + [len(layer.out_names) for layer in self.layers]
        return max(sizes)

    @property
    def num_parameters(self) -> int:
        """Weights and biases of all layers, counted as dense layers."""
        return sum(layer.num_parameters for layer in self.layers)

    @property
    def nonzero_parameters(self) -> int:
        """Non-zero weights and biases of all layers."""
        return sum(layer.nonzero_parameters for layer in self.layers)

    @property
    def max_weight_bits(self) -> int:
        """Bits of the largest weight or bias (see :func:`bits`)."""
        return max((bits(w) for layer in self.layers for w in layer.weights()), default=0)

    def total_weight_bits(self) -> int:
        """Sum over the non-zero weights and biases of their bit lengths (+1 for the sign)."""
        return sum(bits(w) + 1 for layer in self.layers for w in layer.weights() if w != 0)

    def run(self, inputs: Mapping[str, np.ndarray], *,
            arithmetic: Arithmetic = "exact") -> dict[str, np.ndarray]:
        """Evaluate the network on a batch; ``inputs`` maps each input name to a 1-D array.

        ``arithmetic="exact"`` evaluates in Python integers / fractions (numpy object arrays);
        ``"float64"`` casts every weight and input to float64, which is exact only while every
        weight and intermediate value has at most 53 significant bits.
        """
        missing = [n for n in self.input_names if n not in inputs]
        if missing:
            raise ValueError(f"inputs must provide the channels {missing}")
        if arithmetic not in ("exact", "float64"):
            raise ValueError(f"arithmetic must be 'exact' or 'float64'; got {arithmetic!r}")
        exact = arithmetic == "exact"
        dtype = object if exact else np.float64
        cast = (lambda w: w) if exact else float
        values = [np.asarray(inputs[n], dtype=dtype) for n in self.input_names]
        size = len(values[0]) if values else 0
        for layer in self.layers:
            new = []
            for bias, row in zip(layer.biases, layer.rows, strict=True):
                acc = np.full(size, cast(bias), dtype=dtype)
                for i, w in row:
                    acc = acc + cast(w) * values[i]
                new.append(np.where(acc > 0, acc, cast(0)).astype(dtype))
            values = new
        return dict(zip(self.output_names, values, strict=True))


class ReLUProgramBuilder:
    """Build a :class:`ReLUProgram` layer by layer with named channels and aliases."""

    def __init__(self, inputs: Sequence[str]) -> None:
        if len(set(inputs)) != len(inputs) or ONE in inputs:
            raise ValueError(f"input names must be distinct and not {ONE!r}; got {inputs}")
        self.input_names = tuple(inputs)
        self.channels: list[str] = list(inputs)
        self.aliases: dict[str, Expr] = {}
        self.layers: list[Layer] = []

    def expand(self, expr: Expr | str) -> Expr:
        """``expr`` written in the current channels (aliases substituted)."""
        if isinstance(expr, str):
            expr = var(expr)
        terms: list[tuple[Number, Expr]] = []
        for name, coef in expr.items():
            if name == ONE:
                terms.append((coef, const(1)))
            elif name in self.aliases:
                terms.append((coef, self.aliases[name]))
            elif name in self.channels:
                terms.append((coef, var(name)))
            else:
                raise KeyError(f"unknown channel or alias {name!r}")
        return combine(*terms)

    def alias(self, name: str, expr: Expr | str) -> None:
        """Define ``name`` as an affine expression of the current channels (no layer spent)."""
        self.aliases[name] = self.expand(expr)

    def layer(self, new: Mapping[str, Expr | str], keep: Iterable[str] = ()) -> None:
        """Add one layer whose channels are ``keep`` (carried) followed by ``new``.

        Every output channel is ``relu(expression)`` in the previous channels; a kept name may be
        a channel or an alias (it is materialised). Aliases are dropped after the layer.
        """
        outputs: dict[str, Expr] = {}
        keep = list(keep)
        for name in keep:
            outputs[name] = self.expand(name)
        for name, expr in new.items():
            if name in outputs:
                raise ValueError(f"channel {name!r} is both kept and new")
            outputs[name] = self.expand(expr)
        index = {name: i for i, name in enumerate(self.channels)}
        biases, rows = [], []
        for expr in outputs.values():
            biases.append(expr.get(ONE, 0))
            rows.append(tuple(sorted((index[k], v) for k, v in expr.items() if k != ONE)))
        self.layers.append(Layer(tuple(self.channels), tuple(outputs), tuple(biases),
                                 tuple(rows), tuple(name in keep for name in outputs)))
        self.channels = list(outputs)
        self.aliases = {}

    def build(self) -> ReLUProgram:
        """The finished network."""
        if self.aliases:
            raise ValueError(f"aliases {sorted(self.aliases)} were never materialised")
        return ReLUProgram(self.input_names, tuple(self.layers))


def bit_pair_exprs(src: Expr | str, threshold: Number, *, slope: Number = 1,
                   pair: tuple[str, str]) -> dict[str, Expr]:
    """Two new channels ``a, b`` whose difference is ``1[src >= threshold]``.

    ``a = relu(slope*(src - T) + 1)``, ``b = relu(slope*(src - T))``: ``a - b`` is exactly 1 when
    ``src >= T`` and exactly 0 when ``src <= T - 1/slope``. With ``slope = 1`` this is exact on
    integers (the gadget of Vardi et al. 2022, used for block selection and bit extraction).
    """
    e = var(src) if isinstance(src, str) else src
    shifted = combine((slope, e), (-slope * threshold, const(1)))
    return {pair[0]: combine((1, shifted), (1, const(1))), pair[1]: shifted}
