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

Before a run computes, :func:`check_contents` also reads what a loader would misread:
the MultiNLI loader (:func:`memnb.data.text.load_mnli`) reads labels by name (entailment,
neutral, contradiction), so a file of the hub's integer labels, or with rows labelled ``-``,
is refused before it reads it, with the way to convert it (:func:`mnli_label_error`). A file
either text loader would fail on midway (a line that is not JSON, a missing field, an IMDb label
other than 0 or 1, no rows) is refused with the file and line named (:func:`format_error`); the
loaders call the same check (:func:`check_file`) on the file they read. A file in the ImageNet
sample folder that PIL cannot open is refused likewise, named (:func:`image_error`). ``memnb
run`` also refuses a text file with fewer usable rows than the profile's grid asks for
(:func:`rows_error`), which the run would otherwise find only while computing its points.

Not under ``memnb.data``: that package is part of every point's code fingerprint
(:data:`memnb.fingerprint.CORE_MODULES`), and recording which file was read computes nothing.
The text loaders import this module for :func:`check_file`, which raises or passes and changes
no row read, so it stays out of the fingerprint on purpose, as ``memnb.validation`` does.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable
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


def _labels_read(path: Path) -> tuple[int, Counter[str]]:
    """``(rows, labels)``: the JSON lines of ``path`` that a loader reads as rows (blank lines
    skipped, as :func:`memnb.data.text._read_jsonl` does) and the count of each value of their
    ``label`` field, written as JSON (``"neutral"``, ``0``; ``null`` where there is none). A line
    that is not JSON counts as a row without a label (the loader then fails on it)."""
    rows, labels = 0, Counter[str]()
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            rows += 1
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                row = None
            labels[json.dumps(row.get("label") if isinstance(row, dict) else None)] += 1
    return rows, labels


def mnli_label_error(path: Path) -> str | None:
    """Why the MultiNLI file ``path`` must not be read as it is, or ``None``: rows whose
    ``label`` is not one of the names :func:`memnb.data.text.load_mnli` reads
    (:data:`memnb.data.text.MNLI_LABELS`), which it cannot read; the message names the file,
    how many rows that is, the labels found, the labels read, and how to convert (the hub's
    integer labels 0, 1, 2 are those names in that order, as the loader's own download writes
    them and data/README.md says)."""
    from memnb.data.text import MNLI_LABELS  # the names the loader reads, not a copy of them

    rows, labels = _labels_read(path)
    read = {json.dumps(name) for name in MNLI_LABELS}
    unread = {label: n for label, n in labels.items() if label not in read}
    if not unread:
        return None
    count = sum(unread.values())
    found = ", ".join(f"{label} ({n} rows)" for label, n in sorted(unread.items(),
                                                                   key=lambda kv: -kv[1])[:6])
    names = ", ".join(MNLI_LABELS)
    mapping = ", ".join(f"{i} to {name}" for i, name in enumerate(MNLI_LABELS))
    return (f"{path}: {count} of {rows} rows have a label the MultiNLI loader does not read "
            f"(found: {found}); it reads only rows whose label is one of {names}. Convert "
            f"the labels to those names (the hub's "
            f"glue/mnli integer labels: map {mapping}) and drop rows without a gold label "
            "(-1 or '-'); see data/README.md")


TEXT_FIELDS: dict[str, tuple[str, ...]] = {"mnli": ("premise", "hypothesis", "label"),
                                           "imdb": ("text", "label")}
"""The fields each text loader reads from every row (:mod:`memnb.data.text`)."""


def format_error(name: str, path: Path) -> str | None:
    """Why the JSON-lines file ``path`` cannot be read as text dataset ``name``
    (:data:`TEXT_FIELDS`), or ``None``: no row at all, the first line that is not a JSON object
    (its number), the first row without a field the loader reads or whose text field is not a
    string, and, for IMDb, the first label
    that is not 0 or 1 (the loader's ``int(label)``). The message names the file, the line and
    the fields expected."""
    fields = TEXT_FIELDS[name]
    expected = ", ".join(fields)
    rows = 0
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            rows += 1
            try:
                row = json.loads(line)
            except json.JSONDecodeError as err:
                return (f"{path}, line {number}: not JSON ({err.msg}); each line must be one "
                        f"JSON object with the fields {expected}")
            if not isinstance(row, dict):
                return f"{path}, line {number}: a JSON object with the fields {expected} expected"
            missing = [f for f in fields if f not in row]
            if missing:
                return (f"{path}, line {number}: no field {', '.join(missing)} (fields found: "
                        f"{', '.join(map(str, row)) or 'none'}); each row needs {expected}")
            texts = [f for f in fields if f != "label" and not isinstance(row[f], str)]
            if texts:
                return (f"{path}, line {number}: {', '.join(texts)} must be text (a JSON "
                        f"string); found {', '.join(json.dumps(row[f]) for f in texts)}")
            if name == "imdb":
                label = row["label"]
                try:
                    ok = not isinstance(label, bool) and int(label) in (0, 1)
                except (TypeError, ValueError):
                    ok = False
                if not ok:
                    return (f"{path}, line {number}: label {json.dumps(label)}; IMDb labels must "
                            "be 0 (negative) or 1 (positive)")
    if rows == 0:
        return f"{path}: no rows; one JSON object a line with the fields {expected} expected"
    return None


def _mnli_error(path: Path) -> str | None:
    return format_error("mnli", path) or mnli_label_error(path)


def _imdb_error(path: Path) -> str | None:
    return format_error("imdb", path)


def image_error(folder: Path) -> str | None:
    """Why the image folder ``folder`` cannot be read as the ImageNet sample, or ``None``: a
    file it reads (:data:`FOLDER_SUFFIXES`, as :func:`memnb.data.images.list_images` lists them)
    that PIL cannot open and verify (text named ``.JPEG``, a file cut short in its header); the
    message names the first such file and counts the others. Verifying reads each file's
    structure, not its pixels, so checking the whole sample before a run costs little."""
    from PIL import Image

    bad: list[tuple[Path, str]] = []
    for path in sorted(p for p in folder.iterdir()
                       if p.is_file() and p.suffix.lower() in FOLDER_SUFFIXES):
        try:
            with Image.open(path) as image:
                image.verify()
        except Exception as err:  # PIL raises OSError, SyntaxError, ValueError, ... by format
            bad.append((path, type(err).__name__))
    if not bad:
        return None
    (first, why), more = bad[0], len(bad) - 1
    others = f" (and {more} more file{'s' * (more > 1)})" if more else ""
    return (f"{first} is not an image PIL can open ({why}){others}; the folder must hold only "
            "the sample images: move it away, or restore the images as data/README.md "
            "describes")


_CONTENT_CHECKS: dict[str, Callable[[Path], str | None]] = {"mnli": _mnli_error,
                                                             "imdb": _imdb_error,
                                                             "imagenet": image_error}
"""The checks of :func:`check_file`, by dataset name: what a loader would fail on without
naming the line (:func:`format_error`) or the image (:func:`image_error`), or cannot read
(:func:`mnli_label_error`)."""

_FOLDERS: frozenset[str] = frozenset({"imagenet"})
"""The datasets of :data:`DATASETS` that are folders (of images), not files."""

_CHECKED: dict[tuple[str, str, str], str | None] = {}  # (name, path, digest) -> the answer


def check_file(name: str, path: Path) -> None:
    """Raise ``ValueError`` when the file ``path`` of dataset ``name`` (:data:`DATASETS`; the
    folder, for the images) is one its loader would misread (:data:`_CONTENT_CHECKS`); a
    dataset without such a check passes. Each file's contents are read once while their digest
    stays. The text loaders call it on the file they found, and :func:`check_contents` before a
    run computes."""
    check = _CONTENT_CHECKS.get(check_datasets([name])[0])
    if check is None or not (path.is_dir() if name in _FOLDERS else path.is_file()):
        return
    key = (name, str(path), path_digest(path))
    if key not in _CHECKED:
        _CHECKED[key] = check(path)
    if _CHECKED[key] is not None:
        raise ValueError(f"data: {_CHECKED[key]}")


def check_contents(names: Iterable[str]) -> None:
    """Raise ``ValueError`` when a dataset file of ``names`` (:data:`DATASETS`) found in the
    data folder is one its loader would misread (:func:`check_file`: a line that is not JSON, a
    missing field, an IMDb label other than 0 or 1, MultiNLI labels other than its names, a file
    in the image folder that is no image); a file not found is left to its loader, which says
    where to put it. Run by :func:`memnb.results.run_experiment` before any point is
    computed."""
    for name in check_datasets(names):
        path = find_dataset(DATASETS[name]) if name in _CONTENT_CHECKS else None
        if path is not None:
            check_file(name, path)


_TEXT_LOADERS: dict[str, str] = {"mnli": "load_mnli", "imdb": "load_imdb"}
"""The loader (:mod:`memnb.data.text`) of each text dataset a grid's points name."""

_USABLE: dict[tuple[str, str, str, int], int] = {}  # (dataset, path, digest, n) -> usable rows


def rows_needed(name: str, profile: str) -> dict[tuple[str, int], int]:
    """``{(text dataset, sequence length n): rows}``: the most rows ``N`` a point of experiment
    ``name``'s grid under ``profile`` asks of each text dataset read as ``n``-token sequences
    (points naming their ``dataset`` with ``N`` and ``n``, as Kajitsuka & Sato's do). The grid
    is built as ``memnb plan`` builds it (:func:`memnb.planner.capture_sweep`: nothing is
    computed); empty for an experiment that declares no text dataset or makes no sweep."""
    from memnb.experiments.registry import get

    if not set(get(name).datasets) & set(_TEXT_LOADERS):
        return {}
    from memnb.planner import capture_sweep

    try:
        captured = capture_sweep(name, profile, seeds=1)
    except Exception:  # a grid that cannot be built: the run itself says why, as it would
        return {}
    needed: dict[tuple[str, int], int] = {}
    for point in [] if captured is None else captured.points:
        if point.get("dataset") in _TEXT_LOADERS and "N" in point and "n" in point:
            key = (str(point["dataset"]), int(point["n"]))
            needed[key] = max(needed.get(key, 0), int(point["N"]))
    return needed


def rows_error(name: str, profile: str) -> str | None:
    """Why the text dataset files found in the data folder cannot give experiment ``name``'s
    grid under ``profile`` its rows, or ``None``: a file with fewer usable rows of length ``n``
    (the distinct ``n``-token sequences with one label that its loader keeps,
    :func:`memnb.data.text.load_mnli` or :func:`memnb.data.text.load_imdb`) than a point asks
    for (:func:`rows_needed`), which the run would find only once its points were computing. A
    file not found is left to the loader, which says where to put it; a file its loader refuses
    raises that loader's ``ValueError`` (:func:`check_file`)."""
    from memnb.data import text

    for (dataset, n), needed in sorted(rows_needed(name, profile).items()):
        path = find_dataset(DATASETS[dataset])
        if path is None:
            continue
        key = (dataset, str(path), _file_digest(path), n)
        if key not in _USABLE:
            _USABLE[key] = len(getattr(text, _TEXT_LOADERS[dataset])(n, download=False))
        usable = _USABLE[key]
        if usable < needed:
            return (f"data: {path} has {usable} usable rows of length n = {n} (distinct "
                    f"sequences with one label); {name} ({profile}) needs {needed}; see "
                    "data/README.md")
    return None
