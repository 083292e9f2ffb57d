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

from memnb.dataset_files import check_datasets
from memnb.profiles import PROFILES, check_profile, default_seeds, seeds_run

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
    datasets: tuple[str, ...] = ()
    """The dataset files it reads, by name (:data:`memnb.dataset_files.DATASETS`): their digests
    go into its provenance, and a run never reuses points cached from other contents."""
    fixed_seeds: int | None = None
    """The seeds it draws with whatever is asked (a check seeded once, e.g. seed 0), or ``None``
    for an experiment that runs the seeds asked (up to its profile's ``max_seeds``)."""

    def params(self, profile: str) -> dict[str, Any]:
        """The parameters of this experiment under ``profile``."""
        return dict(self.profiles[check_profile(profile)])

    def seeds_asked(self, profile: str) -> int:
        """The seeds a run under ``profile`` asks for when no count is given: the profile's
        ``seeds``, else the profile's default (:func:`memnb.profiles.default_seeds`)."""
        return int(self.params(profile).get("seeds", default_seeds(profile)))

    def seeds_run(self, profile: str, requested: int) -> int:
        """The seeds a run under ``profile`` computes when ``requested`` are asked: its
        :attr:`fixed_seeds`, else at most the profile's ``max_seeds``
        (:func:`memnb.profiles.seeds_run`)."""
        if self.fixed_seeds is not None:
            return self.fixed_seeds
        return seeds_run(self.params(profile), requested)

    def default_seeds_run(self, profile: str) -> int:
        """The seeds a run under ``profile`` computes when no count is given:
        :meth:`seeds_run` of :meth:`seeds_asked`."""
        return self.seeds_run(profile, self.seeds_asked(profile))

    def run(self, profile: str, *, seeds: int, device: str, cache_dir: Path,
            executor: str | None = None) -> pd.DataFrame:
        """Run the experiment under ``profile`` and return its tidy table."""
        return self.fn(self.params(profile), seeds=seeds, device=device, cache_dir=cache_dir,
                       executor=executor)


_REGISTRY: dict[str, Experiment] = {}


def experiment(name: str, *, title: str, paper_figure: str,
               profiles: dict[str, dict[str, Any]], datasets: tuple[str, ...] = (),
               fixed_seeds: int | None = None) -> Callable[[ExperimentFn], ExperimentFn]:
    """Register ``fn`` as experiment ``name`` (``chapter.short_name``) with its profile sizes,
    the dataset files it reads (``datasets``, names of :data:`memnb.dataset_files.DATASETS`)
    and, for one that draws with a fixed number of seeds whatever is asked, that number
    (``fixed_seeds``: :attr:`Experiment.fixed_seeds`)."""
    if "." not in name:
        raise ValueError(f"experiment name must be 'chapter.name'; got {name!r}")
    missing = [p for p in PROFILES if p not in profiles]
    if missing:
        raise ValueError(f"experiment {name!r} must define profiles {missing}")
    datasets = check_datasets(datasets)

    def register(fn: ExperimentFn) -> ExperimentFn:
        _REGISTRY[name] = Experiment(name, title, paper_figure, profiles, fn, datasets,
                                     fixed_seeds)
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


PAPERS: dict[str, str] = {"dana": "Dana et al.", "mahdavi": "Mahdavi et al.",
                          "kajitsuka": "Kajitsuka & Sato"}
"""The paper of each chapter's experiments, by the prefix of their names."""


def paper_item(name: str, paper_figure: str | None = None) -> str:
    """The paper item of experiment ``name`` as every table of the project names it:
    ``paper_figure`` (default: the registered one) naming its paper (``Fig. 2b`` of
    ``mahdavi.context`` reads ``Mahdavi et al. Fig. 2b``), unless it already does or is ours; an
    experiment of ours set beside a paper item (its registered title ends in "(ours)", e.g.
    ``dana.exp5_code``, the official code's models) reads ``ours, beside Dana et al. Fig. 3 …``,
    so that it is not taken for the item. An unregistered name is read as not ours."""
    try:
        exp: Experiment | None = get(name)
    except ValueError:  # not a registered experiment
        exp = None
    item = paper_figure if paper_figure is not None else (exp.paper_figure if exp else name)
    authors = PAPERS.get(name.split(".")[0])
    if authors is not None and not item.startswith((authors, "ours")):
        item = f"{authors} {item}"
    ours = exp is not None and exp.title.endswith("(ours)")
    return f"ours, beside {item}" if ours and not item.startswith("ours") else item
