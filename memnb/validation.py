"""Argument checks shared by the models: clear ``ValueError``s that name the parameter."""

from __future__ import annotations

import numbers
from typing import Literal

#: How a model with per-head projections evaluates its heads: ``"auto"`` picks the cheaper of the
#: two orders for its sizes, ``"per_head"`` projects through ``d_h`` as the equations are written,
#: ``"merged"`` forms ``W_Q^T W_K``-type ``[d, d]`` products first. Both give the same function;
#: in floating point the per-head order keeps more digits when the weights span many scales (the
#: exact constructions), the merged one is faster when ``d_h`` is close to ``d`` (training).
EvaluationOrder = Literal["auto", "per_head", "merged"]
EVALUATION_ORDERS: tuple[str, ...] = ("auto", "per_head", "merged")


def check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    """Return ``value`` as an int if it is an integer (NumPy ones too) in ``[low, high]``;
    raise a ``ValueError`` naming the parameter and the allowed range otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an int, got {value!r}")
    value = int(value)
    if value < low or (high is not None and value > high):
        allowed = f">= {low}" if high is None else f"in {low}..{high}"
        raise ValueError(f"{name} must be {allowed}, got {value}")
    return value


def uses_merged_order(evaluation_order: EvaluationOrder, merged_is_cheaper: bool) -> bool:
    """Whether a model evaluates its heads in the merged order: as ``evaluation_order`` says,
    or, for ``"auto"``, when ``merged_is_cheaper``."""
    if evaluation_order == "auto":
        return merged_is_cheaper
    return evaluation_order == "merged"


def check_evaluation_order(value: object) -> EvaluationOrder:
    """Return ``value`` if it is one of :data:`EVALUATION_ORDERS`; raise a ``ValueError``
    naming ``evaluation_order`` and the allowed values otherwise."""
    if value not in EVALUATION_ORDERS:
        raise ValueError(f"evaluation_order must be one of {', '.join(EVALUATION_ORDERS)}; "
                         f"got {value!r}")
    return value  # type: ignore[return-value]
