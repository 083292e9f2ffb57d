"""Where the project finds its data and writes its results.

The offline datasets are read in place, never copied into the repository. The data directory is,
in order: the environment variable ``MEMNB_DATA_DIR``; ``data/external`` inside the repository;
``../shared/data`` beside the repository. ``MEMNB_DATA_DIR`` set to a path that is not a folder
(a typo) is an error when a dataset is looked up, not a silent fall-back to the other folders; a
folder that lacks one file falls back to the others for it with a warning.
``MEMNB_RESULTS_DIR`` need not exist: the results folder is created. ``MEMNB_PAPERS_DIR`` set
to a path that is not a folder is an error too (:class:`PapersDirError`), not a silent fall-back
to ``../shared/papers``.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def repo_root() -> Path:
    """The root of the project checkout (the folder holding ``memnb/``)."""
    return REPO_ROOT


class DataDirError(FileNotFoundError):
    """``MEMNB_DATA_DIR`` is set to something that is not an existing folder: a mistake of the
    user's to report, never a missing dataset to pass over (code that treats a missing dataset
    as "not in this checkout" re-raises this one)."""


def _folder_of(variable: str, error: type[FileNotFoundError], holding: str,
               otherwise: str) -> Path | None:
    """The folder the environment variable ``variable`` names, or ``None`` when it is unset or
    empty; raises ``error`` naming the variable, its value and what the folder should hold
    (``holding``) when it names no existing folder: a mistyped path is a mistake to report, not
    a reason to read from the folders searched ``otherwise`` without a word."""
    env = os.environ.get(variable)
    if not env:
        return None
    chosen = Path(env).expanduser()
    if not chosen.is_dir():
        raise error(f"{variable} is set to {env!r}, which is not an existing folder"
                    + (f" (resolved: {chosen.resolve()})" if str(chosen.resolve()) != env
                       else "")
                    + f"; point it at {holding}, or unset it to use {otherwise}")
    return chosen


def data_dir_candidates() -> list[Path]:
    """Every folder searched for the offline datasets, in the order they are tried.

    Raises :class:`DataDirError` (a ``FileNotFoundError``) naming ``MEMNB_DATA_DIR`` and its
    path when the variable is set (not empty) to something that is not an existing folder: a
    mistyped path would otherwise be passed over and the datasets read from another folder
    without a word."""
    chosen = _folder_of("MEMNB_DATA_DIR", DataDirError,
                        "the folder holding mnli/, imdb/ and imagenet-samples/ (data/README.md)",
                        "data/external or ../shared/data")
    candidates = [] if chosen is None else [chosen]
    candidates.append(REPO_ROOT / "data" / "external")
    candidates.append(REPO_ROOT.parent / "shared" / "data")
    return candidates


class DataDirFallbackWarning(UserWarning):
    """A dataset was not in the folder ``MEMNB_DATA_DIR`` names (or the ``data_dir=`` a loader
    was given, :func:`memnb.data.text.locate`) and was read from a later candidate folder
    instead (:func:`find_dataset`)."""


_FALLBACKS_WARNED: set[tuple[str, Path]] = set()
"""The (file, MEMNB_DATA_DIR folder) pairs :func:`find_dataset` has warned about in this process:
a run looks a file up several times, and one warning says it."""


def find_dataset(relative: str) -> Path | None:
    """The first ``<data dir>/<relative>`` that exists, or ``None`` (raises as
    :func:`data_dir_candidates` does for a ``MEMNB_DATA_DIR`` that is not a folder).

    When ``MEMNB_DATA_DIR`` names a folder that lacks the file and a later folder has it, a
    :class:`DataDirFallbackWarning` names both: the file is read, but not from the folder the
    user chose (the digests in a run's provenance then describe the file actually read); once a
    process for each file and folder."""
    candidates = data_dir_candidates()
    for index, candidate in enumerate(candidates):
        path = candidate / relative
        if path.exists():
            if index > 0 and os.environ.get("MEMNB_DATA_DIR") and (
                    relative, candidates[0]) not in _FALLBACKS_WARNED:
                _FALLBACKS_WARNED.add((relative, candidates[0]))
                warnings.warn(
                    f"{relative} is not in MEMNB_DATA_DIR ({candidates[0]}); reading {path} "
                    "instead", DataDirFallbackWarning, stacklevel=2)
            return path
    return None


def results_dir() -> Path:
    """Root of cached experiment results (``MEMNB_RESULTS_DIR`` or ``data/results``)."""
    env = os.environ.get("MEMNB_RESULTS_DIR")
    return Path(env).expanduser() if env else REPO_ROOT / "data" / "results"


def plans_dir() -> Path:
    """Where the recorded cost plans live (``data/plans``, written by
    ``scripts/plan_table.py``: one JSON record per device)."""
    return REPO_ROOT / "data" / "plans"


class PapersDirError(FileNotFoundError):
    """``MEMNB_PAPERS_DIR`` is set to something that is not an existing folder: a mistake of the
    user's to report (as :class:`DataDirError` for ``MEMNB_DATA_DIR``), never a fall-back to
    ``../shared/papers`` without a word."""


def papers_dir_candidates() -> list[Path]:
    """Every folder searched for the papers' published material (official result files, texts).

    In order: ``MEMNB_PAPERS_DIR``; ``../shared/papers`` beside the repository. Raises
    :class:`PapersDirError` (a ``FileNotFoundError``) naming ``MEMNB_PAPERS_DIR`` and its path
    when the variable is set (not empty) to something that is not an existing folder: a mistyped
    path would otherwise be passed over and the papers' files read from ``../shared/papers``.
    """
    chosen = _folder_of("MEMNB_PAPERS_DIR", PapersDirError,
                        "the papers folder holding dana_official_results/ and sources/",
                        "../shared/papers")
    candidates = [] if chosen is None else [chosen]
    candidates.append(REPO_ROOT.parent / "shared" / "papers")
    return candidates


def find_paper_file(relative: str) -> Path:
    """``<papers dir>/<relative>``, from the first candidate folder that has it.

    Raises ``FileNotFoundError`` naming every folder tried and the variable that adds another
    (:class:`PapersDirError` for a ``MEMNB_PAPERS_DIR`` that is not a folder).
    """
    candidates = papers_dir_candidates()
    for candidate in candidates:
        path = candidate / relative
        if path.exists():
            return path
    tried = ", ".join(str(c) for c in candidates)
    raise FileNotFoundError(
        f"the papers' published file {relative!r} was not found (looked in: {tried}); put the "
        "papers folder (with dana_official_results/ and sources/) beside the repository as "
        "shared/papers, or point MEMNB_PAPERS_DIR at it")
