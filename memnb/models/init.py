"""Initialisation helpers shared by the models: every draw comes from an explicit, seeded
:class:`torch.Generator` (never torch's global one) and is made in float64, then cast."""

from __future__ import annotations

import torch

__all__ = ["uniform"]


def uniform(shape: tuple[int, ...], bound: float, g: torch.Generator) -> torch.Tensor:
    """``shape`` float64 samples of ``U(-bound, bound)`` from ``g``: ``(2 u - 1) * bound`` with
    ``u = torch.rand(shape)`` (``bound = 1/sqrt(fan_in)`` is ``nn.Linear``'s initialisation)."""
    return (torch.rand(shape, generator=g, dtype=torch.float64) * 2.0 - 1.0) * bound
