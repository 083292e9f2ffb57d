"""Execution profiles shared by every experiment, notebook and the command line.

- ``ci``: a whole notebook in about a minute on 2 CPU cores (checks that everything runs).
- ``quick``: a few minutes on a CPU; the trend of each paper figure at reduced size (book default).
- ``full``: the paper's grids and training budgets; meant for a GPU.

The sizes of each experiment under each profile are declared beside the experiment itself (see
:func:`memnb.experiments.registry.experiment`), so that an experiment and its sizes change together;
``memnb list`` prints them all.
"""

from __future__ import annotations

PROFILES: tuple[str, ...] = ("ci", "quick", "full")
DEFAULT_SEEDS: dict[str, int] = {"ci": 1, "quick": 2, "full": 5}


def seeds_run(params: dict, requested: int) -> int:
    """The seeds an experiment runs when ``requested`` are asked: at most its profile's
    ``max_seeds`` (a cap some experiments declare, e.g. a grid too costly to repeat), else all."""
    return min(requested, int(params.get("max_seeds", requested)))


def check_profile(profile: str) -> str:
    """Return ``profile`` if it is one of :data:`PROFILES`, else raise a ``ValueError``."""
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}; got {profile!r}")
    return profile


def default_seeds(profile: str) -> int:
    """Number of seeds an experiment uses under ``profile`` unless told otherwise."""
    return DEFAULT_SEEDS[check_profile(profile)]
