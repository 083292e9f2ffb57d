"""Re-key the written results and point caches to the code fingerprint without docstrings.

Up to 2026-11-26 the code fingerprint (:func:`memnb.fingerprint.code_fingerprint`), part of every
cached point's key and of every result's provenance, hashed the docstrings of the code too, so
correcting a sentence in a docstring made every cached point of a chapter look stale. Docstrings
compute nothing, and the fingerprint now leaves them out. That gives today's code a new
fingerprint although no computation changed. This script carries the results of today's code
over to it: for each registered experiment it computes today's fingerprint under both rules and,
in every results folder under ``data/results/`` (``full/``, ``rerun/full/``, ...):

- a result (``<name>.json``, and one kept in ``superseded/``) whose provenance records the old
  value gets the new one, and keeps the old in ``code_fingerprint_rekeyed_from`` (so does a
  record nested in it, such as a rerun's ``rerun_of``);
- a cached point ``.cache/<name>/<point>.<old>.json`` is renamed to ``<point>.<new>.json`` with
  its ``code`` field set to the new value (its rows, and their checksum, are untouched);
- a paused loop state ``.cache/<name>/paused/<group>.<old>*`` is renamed likewise.

Results of earlier code keep their fingerprints: whether their source differed from today's only
in docstrings is not known here, so they stay "computed by earlier code". Running it again
changes nothing.

    python scripts/rekey_cache.py [--dry-run] [--root data/results]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REKEYED_FROM = "code_fingerprint_rekeyed_from"


def fingerprint_map() -> dict[str, tuple[str, str]]:
    """``{experiment: (old, new)}``: today's fingerprint of each registered experiment with
    docstrings counted (the rule before 2026-11-26) and without (today's)."""
    from memnb.experiments.registry import load_all
    from memnb.fingerprint import code_fingerprint, code_modules

    found = {}
    for name, exp in load_all().items():
        modules = code_modules(exp.fn.__module__)
        found[name] = (code_fingerprint(modules, docstrings_count=True),
                       code_fingerprint(modules))
    return found


def _write_json(path: Path, payload: dict, dry_run: bool) -> None:
    if not dry_run:
        tmp = path.with_suffix(".rekey.tmp")
        tmp.write_text(json.dumps(payload, indent=2, default=str) + "\n")
        tmp.replace(path)


def _rekey_fields(record: dict, old: str, new: str) -> bool:
    """Set every ``code_fingerprint`` of ``old`` in ``record`` and the records nested in it
    (a rerun's ``rerun_of``, the table it will replace) to ``new``, keeping ``old`` beside it."""
    changed = False
    if record.get("code_fingerprint") == old:
        record["code_fingerprint"] = new
        record[REKEYED_FROM] = old
        changed = True
    for value in record.values():
        if isinstance(value, dict):
            changed |= _rekey_fields(value, old, new)
    return changed


def rekey_provenance(path: Path, old: str, new: str, dry_run: bool = False) -> bool:
    """Give the provenance at ``path`` the fingerprint ``new`` wherever it records ``old``."""
    provenance = json.loads(path.read_text())
    if old == new or not _rekey_fields(provenance, old, new):
        return False
    _write_json(path, provenance, dry_run)
    return True


def rekey_cache_dir(folder: Path, old: str, new: str, dry_run: bool = False) -> int:
    """Rename the cached points and paused states of ``folder`` keyed by ``old`` to ``new``;
    the number of files renamed."""
    if old == new or not folder.is_dir():
        return 0
    count = 0
    for path in sorted(folder.glob(f"*.{old}.json")):
        payload = json.loads(path.read_text())
        if payload.get("code") != old:
            continue
        payload["code"] = new
        target = path.with_name(path.name[:-len(f"{old}.json")] + f"{new}.json")
        if not dry_run:
            target.write_text(json.dumps(payload))
            path.unlink()
        count += 1
    paused = folder / "paused"
    for path in sorted(paused.glob(f"*.{old}*")) if paused.is_dir() else []:
        stem, _, rest = path.name.partition(f".{old}")
        if not dry_run:
            path.rename(path.with_name(f"{stem}.{new}{rest}"))
        count += 1
    return count


def rekey(root: Path, mapping: dict[str, tuple[str, str]], dry_run: bool = False
          ) -> list[str]:
    """Re-key every results folder under ``root``; one line per change made."""
    folders = sorted({p.parent for p in root.rglob("*.json")
                      if ".cache" not in p.relative_to(root).parts
                      and p.parent.name != "superseded"})
    done = []
    for folder in folders:
        for name, (old, new) in mapping.items():
            path = folder / f"{name}.json"
            if path.is_file() and rekey_provenance(path, old, new, dry_run):
                done.append(f"{path.relative_to(root)}: {old} -> {new}")
            kept = folder / "superseded" / f"{name}.{old}.json"
            if kept.is_file() and rekey_provenance(kept, old, new, dry_run):
                if not dry_run:  # a kept result is named by the code that computed it
                    kept.with_suffix(".csv").rename(kept.with_name(f"{name}.{new}.csv"))
                    kept.rename(kept.with_name(f"{name}.{new}.json"))
                done.append(f"{kept.relative_to(root)}: {old} -> {new}")
            cache = folder / ".cache" / name
            renamed = rekey_cache_dir(cache, old, new, dry_run)
            if renamed:
                done.append(f"{cache.relative_to(root)}: {renamed} files {old} -> {new}")
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=REPO / "data" / "results")
    parser.add_argument("--dry-run", action="store_true", help="say what would change")
    args = parser.parse_args(argv)
    mapping = fingerprint_map()
    for line in rekey(args.root, mapping, args.dry_run) or ["nothing to re-key"]:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
