"""The papers' published values, one module per paper; nothing else retypes a paper's number.

Each value carries its source (a table, a figure, a sentence of the text, or an official result
file). Values read off a figure or rebuilt from the notes are marked ``[read off figure]`` or
``[reconstruction]`` in their source. Tables are ``pandas.DataFrame`` with a ``source`` column;
single numbers are :class:`Published`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Published:
    """One number a paper publishes, and where it is published."""

    value: float
    source: str

    def __float__(self) -> float:
        return float(self.value)

    def cite(self, fmt: str = "g") -> str:
        """The value with its source, e.g. ``"0.034 (paper, Data_exp_1_10.csv)"``."""
        return f"{format(self.value, fmt)} (paper, {self.source})"
