"""The catalogue of experiments that ``memnb list`` shows and ``memnb run`` executes.

Each chapter module registers its experiments with :func:`experiment`, declaring the sizes it uses
under each profile beside the code that uses them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from memnb.profiles import PROFILES, check_profile

CHAPTER_MODULES: tuple[str, ...] = ("dana", "dana_appendix_layout", "mahdavi", "kajitsuka",
                                    "compare")

ExperimentFn = Callable[..., pd.DataFrame]


@dataclass(frozen=True)
class Experiment:
    """One reproducible experiment: a function and its parameters under each profile."""

    name: str
    title: str
    paper_figure: str
    profiles: dict[str, dict[str, Any]]
    fn: ExperimentFn

    def params(self, profile: str) -> dict[str, Any]:
        """The parameters of this experiment under ``profile``."""
        return dict(self.profiles[check_profile(profile)])

    def run(self, profile: str, *, seeds: int, device: str, cache_dir: Path,
            executor: str | None = None) -> pd.DataFrame:
        """Run the experiment under ``profile`` and return its tidy table."""
        return self.fn(self.params(profile), seeds=seeds, device=device, cache_dir=cache_dir,
                       executor=executor)


_REGISTRY: dict[str, Experiment] = {}


def experiment(name: str, *, title: str, paper_figure: str,
               profiles: dict[str, dict[str, Any]]) -> Callable[[ExperimentFn], ExperimentFn]:
    """Register ``fn`` as experiment ``name`` (``chapter.short_name``) with its profile sizes."""
    if "." not in name:
        raise ValueError(f"experiment name must be 'chapter.name'; got {name!r}")
    missing = [p for p in PROFILES if p not in profiles]
    if missing:
        raise ValueError(f"experiment {name!r} must define profiles {missing}")

    def register(fn: ExperimentFn) -> ExperimentFn:
        _REGISTRY[name] = Experiment(name, title, paper_figure, profiles, fn)
        return fn

    return register


def load_all() -> dict[str, Experiment]:
    """Import every chapter module and return the registry, sorted by name."""
    for module in CHAPTER_MODULES:
        try:
            importlib.import_module(f"memnb.experiments.{module}")
        except ModuleNotFoundError as err:
            if err.name != f"memnb.experiments.{module}":
                raise
    return dict(sorted(_REGISTRY.items()))


def get(name: str) -> Experiment:
    """The experiment called ``name``; a ``ValueError`` listing the known names otherwise."""
    experiments = load_all()
    if name not in experiments:
        known = ", ".join(experiments) or "(none)"
        raise ValueError(f"unknown experiment {name!r}; known experiments: {known}")
    return experiments[name]
