"""Argument checks shared by the models: clear ``ValueError``s that name the parameter."""

from __future__ import annotations

import numbers


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
