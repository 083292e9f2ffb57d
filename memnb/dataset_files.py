"""The dataset files a result was computed from: their SHA-256 in its provenance, and the check
that keeps a run from reusing points cached from other contents of the same file.

A point's cache key holds its parameters and the fingerprint of the code that computes it
(:mod:`memnb.sweep`), not the data it read, so a changed dataset file under the same results
folder would silently reuse the points computed from the old one. Each experiment declares the
dataset files it reads (``datasets=`` of :func:`memnb.experiments.registry.experiment`, names of
:data:`DATASETS`); :func:`memnb.results.run_experiment` records their digests
(:func:`digests`) in the provenance as ``data_files``, and refuses to continue a run recorded
with other digests while its points are cached
(:func:`memnb.results.data_change_error`). A run recorded before ``data_files`` existed has no
digest to compare, so it is continued unchecked.

Not under ``memnb.data``: that package is part of every point's code fingerprint
(:data:`memnb.fingerprint.CORE_MODULES`), and recording which file was read computes nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from memnb.paths import find_dataset

DATASETS: dict[str, str] = {
    "mnli": "mnli/dev_matched.jsonl",  # memnb.data.text.MNLI_FILE
    "imdb": "imdb/train_subset.jsonl",  # memnb.data.text.IMDB_FILE
    "imagenet": "imagenet-samples/images",  # memnb.data.images.IMAGENET_SAMPLES (a folder)
}
"""The dataset files (or folders) experiments read, by the name an experiment declares, as paths
relative to the data folder (:func:`memnb.paths.find_dataset`)."""

FOLDER_SUFFIXES: frozenset[str] = frozenset({".jpeg", ".jpg", ".png"})
"""The files of a folder dataset that are read: the images directly inside it, as
:func:`memnb.data.images.list_images` lists them (a ``.git`` folder or a README beside them
is not data)."""

_DIGESTS: dict[tuple[str, int, int, int, int], str] = {}  # a file's identity -> its digest


def _file_digest(path: Path) -> str:
    """The SHA-256 of one file, read in chunks and memoized while its inode, size, mtime and
    ctime stay (a copy that keeps size and mtime still changes the inode or the ctime)."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
    if key not in _DIGESTS:
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for chunk in iter(lambda: handle.read(2**20), b""):
                digest.update(chunk)
        _DIGESTS[key] = digest.hexdigest()
    return _DIGESTS[key]


def path_digest(path: Path) -> str:
    """The SHA-256 of a file (what ``sha256sum`` prints), or of a folder: the SHA-256 of one
    line ``<SHA-256 of the file>  <name>`` per file read from it (:data:`FOLDER_SUFFIXES`,
    directly inside it), in name order, the folder's ``sha256sum *.JPEG`` listing, so that a
    renamed, added or changed image changes it."""
    if path.is_file():
        return _file_digest(path)
    files = sorted(p for p in path.iterdir()
                   if p.is_file() and p.suffix.lower() in FOLDER_SUFFIXES)
    listing = "".join(f"{_file_digest(p)}  {p.name}\n" for p in files)
    return hashlib.sha256(listing.encode()).hexdigest()


def check_datasets(names: Iterable[str]) -> tuple[str, ...]:
    """``names`` as a tuple, each one of :data:`DATASETS`; ``ValueError`` naming the allowed
    names otherwise."""
    names = tuple(names)
    unknown = [n for n in names if n not in DATASETS]
    if unknown:
        raise ValueError(f"datasets must be names among {sorted(DATASETS)}; got {unknown}")
    return names


def digests(names: Iterable[str]) -> dict[str, str]:
    """``{relative path: SHA-256}`` of the dataset files ``names`` (:data:`DATASETS`) found in
    the data folder; a file not found is left out (its loader raises, saying where to put it)."""
    found = {}
    for name in check_datasets(names):
        relative = DATASETS[name]
        path = find_dataset(relative)
        if path is not None:
            found[relative] = path_digest(path)
    return found


def recorded_digests(provenance: dict) -> dict[str, str] | None:
    """The dataset digests a written result records for all of its points: its ``data_files``
    when every invocation that computed points recorded the same (a run resumed from points
    cached before digests were recorded has an invocation without them), else ``None``."""
    found = provenance.get("data_files")
    if found is None:
        return None
    calls = provenance.get("invocations") or []
    if any(call.get("data_files") != found for call in calls):
        return None
    return found


def changed_files(recorded: dict[str, str] | None, now: dict[str, str]) -> list[str]:
    """The files of ``now`` whose digest differs from the one ``recorded`` (a provenance's
    ``data_files``; ``None`` for a run that recorded none, which cannot be checked)."""
    if not recorded:
        return []
    return sorted(f for f, digest in now.items() if f in recorded and recorded[f] != digest)


def change_words(recorded: dict[str, str], now: dict[str, str]) -> str:
    """The files :func:`changed_files` finds, each with both digests (12 hex digits shown)."""
    return "; ".join(f"{f} was {recorded[f][:12]}…, is now {now[f][:12]}…"
                     for f in changed_files(recorded, now))
