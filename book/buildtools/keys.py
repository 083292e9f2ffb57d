"""When a chapter must be executed again: a key over everything its executed copy depends on.

An executed chapter ``book/chapters/<name>.ipynb`` is reused while its key is unchanged. The key
hashes four inputs:

- ``notebook``: the source notebook ``notebooks/<name>.ipynb``;
- ``memnb``: every file of the ``memnb`` package (its code and any data files it ships);
- ``profile`` and ``device``: the profile and the device injected into the notebook;
- ``results``: the cached result tables the chapter reads, the CSV and its JSON provenance under
  ``data/results/<profile>/``, ``data/results/full/``, ``data/results/rerun/full/`` (a rerun
  under way, :mod:`memnb.reruns`) and ``data/results/replications/full/`` (a replication, ours,
  which the chapters read beside the full run: :mod:`memnb.scorecard.replaced`), for the
  experiments of the chapter's paper (``dana.*`` for ``dana``), those named in the notebook or
  in the ``memnb`` modules of the chapter's name (e.g. ``memnb/scorecard/dana.py``), or all of
  them for a chapter that reads every result (the scorecard);
- ``inputs``: what the chapters read from outside the checkout, the same for every chapter
  (:func:`inputs_digest`): the dataset files (their SHA-256, :mod:`memnb.dataset_files`), every
  file of the papers' folders (Dana et al.'s official CSVs and texts, :mod:`memnb.paths`) and the
  installed packages' versions (torch, numpy, ...).

The key is stored beside the executed notebook as ``<name>.key.json``. The ``results`` part is
taken *after* the execution, since a chapter writes the fresh tables it then reads; the other
parts are taken before, so an edit made while a chapter runs triggers a new execution.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

#: The parts of a key that decide whether a chapter is executed again.
KEY_FIELDS: tuple[str, ...] = ("notebook", "memnb", "profile", "device", "experiments",
                               "results", "inputs")


def files_digest(paths: Iterable[Path], root: Path) -> str:
    """SHA-256 over the names (relative to ``root``) and bytes of ``paths``, in sorted order."""
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def inputs_digest(data: Mapping[str, str], papers: Sequence[Path],
                  packages: Iterable[str]) -> str:
    """SHA-256 over what the chapters read from outside the checkout: ``data`` (``{dataset
    path: SHA-256}``, :func:`memnb.dataset_files.digests`), every file below each existing
    folder of ``papers`` (names relative to it, and bytes) and ``packages`` (``name==version``
    of each installed package), so that another dataset file, another papers' folder or another
    torch executes every chapter again."""
    digest = hashlib.sha256(json.dumps(dict(data), sort_keys=True).encode())
    for folder in papers:
        if folder.is_dir():
            digest.update(files_digest([p for p in folder.rglob("*") if p.is_file()],
                                       folder).encode())
    digest.update("\n".join(sorted(packages)).encode())
    return digest.hexdigest()


def package_files(package: Path) -> list[Path]:
    """The files of a package folder (its sub-packages included, no bytecode), sorted."""
    return sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                  and p.suffix not in (".pyc", ".pyo"))


def available_experiments(results_root: Path, profile: str) -> list[str]:
    """Names of the experiments with a written result under ``profile`` or ``full``."""
    folders = {results_root / profile, results_root / "full"}
    return sorted({p.stem for folder in folders if folder.is_dir() for p in folder.glob("*.json")})


def chapter_text(chapter: str, source: Path, package: Path) -> str:
    """The text searched for experiment names: the notebook and the chapter's memnb modules.

    A module belongs to chapter ``kajitsuka_sato`` when its file name (``kajitsuka.py``) starts
    the chapter's name.
    """
    modules = [p for p in package_files(package) if p.suffix == ".py"
               and p.stem not in ("__init__", "__main__") and chapter.startswith(p.stem)]
    return "\n".join([source.read_text(), *(p.read_text() for p in modules)])


def experiments_read(chapter: str, text: str, available: Sequence[str], *,
                     reads_all: bool = False) -> list[str]:
    """The experiments of ``available`` whose results chapter ``chapter`` reads.

    Those of the chapter's paper (the part of the name before the dot starts the chapter's
    name) and those named in ``text``; all of them when ``reads_all``.
    """
    if reads_all:
        return sorted(available)
    chosen = []
    for name in available:
        paper = name.split(".", 1)[0]
        named = re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text)
        if chapter.startswith(paper) or named:
            chosen.append(name)
    return sorted(chosen)


def result_files(names: Sequence[str], profile: str, results_root: Path) -> list[Path]:
    """The CSV and JSON files of ``names`` under ``profile``, ``full``, ``rerun/full`` (a
    rerun under way, whose progress a chapter reports beside the full result) and
    ``replications/full`` (a replication, ours, which a chapter compares with the full result)
    that exist."""
    files = []
    for folder in dict.fromkeys([profile, "full", "rerun/full", "replications/full"]):
        for name in names:
            for suffix in (".csv", ".json"):
                path = results_root / folder / f"{name}{suffix}"
                if path.is_file():
                    files.append(path)
    return files


def compute_key(chapter: str, source: Path, profile: str, *, package: Path, results_root: Path,
                reads_all: bool = False, device: str = "cpu", inputs: str = "") -> dict[str, Any]:
    """The key of chapter ``chapter`` (source notebook ``source``) as the inputs are now;
    ``inputs`` is :func:`inputs_digest` of the build."""
    names = experiments_read(chapter, chapter_text(chapter, source, package),
                             available_experiments(results_root, profile), reads_all=reads_all)
    return {
        "notebook": hashlib.sha256(source.read_bytes()).hexdigest(),
        "memnb": files_digest(package_files(package), package.parent),
        "profile": profile,
        "device": device,
        "experiments": names,
        "results": files_digest(result_files(names, profile, results_root), results_root),
        "inputs": inputs,
    }


def key_digest(key: dict[str, Any]) -> str:
    """One hash of the deciding fields of ``key``."""
    return hashlib.sha256(
        json.dumps({f: key[f] for f in KEY_FIELDS}, sort_keys=True).encode()).hexdigest()


def key_path(executed: Path) -> Path:
    """Where the key of the executed notebook ``executed`` is stored (``<name>.key.json``)."""
    return executed.with_name(f"{executed.stem}.key.json")


def stored_key(executed: Path) -> dict[str, Any] | None:
    """The key stored beside ``executed``, or None if there is none (or it is unreadable)."""
    try:
        key = json.loads(key_path(executed).read_text())
    except (OSError, ValueError):
        return None
    return key if isinstance(key, dict) and all(f in key for f in KEY_FIELDS) else None


def changed_fields(executed: Path, key: dict[str, Any]) -> list[str]:
    """Why ``executed`` is out of date for ``key``: the changed fields (empty if current).

    ``["no executed copy"]`` or ``["no stored key"]`` when there is nothing to compare.
    """
    if not executed.is_file():
        return ["no executed copy"]
    old = stored_key(executed)
    if old is None:
        return ["no stored key"]
    return [f for f in KEY_FIELDS if old[f] != key[f]]


def write_key(executed: Path, key: dict[str, Any], **extra: Any) -> Path:
    """Store ``key`` (and ``extra`` facts about the execution) beside ``executed``."""
    path = key_path(executed)
    record = {**{f: key[f] for f in KEY_FIELDS}, "digest": key_digest(key), **extra}
    path.write_text(json.dumps(record, indent=1, sort_keys=True, default=str) + "\n")
    return path
