"""Re-key the written results and point caches of today's code to today's code fingerprint.

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

``--from-commit REV`` carries the results of the code at commit ``REV`` over to today's code
instead, for an edit of the fingerprinted code that computes nothing differently (a label, a
wording in a table of a core module, a presentation function moved out of it). The old
fingerprints are computed from ``REV``'s ``memnb/`` in a separate interpreter, one per module of
``memnb.experiments`` (the experiments' and the evaluators' modules). The script first checks
that the edit computes nothing differently, as far as the syntax tree can tell
(:func:`display_only_problems`): every fingerprinted file of ``REV`` and of today, without
docstrings, must have the same syntax tree once every string (and f-string) is blanked and
``__all__`` left out, except for top-level statements that were removed and whose names no
remaining fingerprinted code uses. Anything else is refused and listed; a file reviewed by hand
can be let through with ``--reviewed LABEL``, and the script prints it. Each re-keyed record
keeps the fingerprint its points were computed with (``code_fingerprint_rekeyed_from``) and
lists every re-key in ``code_fingerprint_rekeys``.

    python scripts/rekey_cache.py [--dry-run] [--root data/results]
    python scripts/rekey_cache.py --from-commit REV [--reviewed LABEL ...] [--dry-run]
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from memnb.results import REKEY_HISTORY

REPO = Path(__file__).resolve().parent.parent
REKEYED_FROM, REKEYS = REKEY_HISTORY  # the provenance fields a resumed run carries forward
DOCSTRING_RULE = "docstrings left out of the fingerprint"


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


def _rekey_fields(record: dict, old: str, new: str, why: str = DOCSTRING_RULE) -> bool:
    """Set every ``code_fingerprint`` of ``old`` in ``record`` and the records nested in it
    (a rerun's ``rerun_of``, the table it will replace) to ``new``, keeping the fingerprint the
    points were computed with beside it (the first re-key's ``old``) and ``why`` in the list of
    re-keys."""
    changed = False
    if record.get("code_fingerprint") == old:
        record["code_fingerprint"] = new
        record.setdefault(REKEYED_FROM, old)
        if why != DOCSTRING_RULE or REKEYS in record:
            record.setdefault(REKEYS, []).append({"from": old, "to": new, "why": why})
        changed = True
    for value in record.values():
        if isinstance(value, dict):
            changed |= _rekey_fields(value, old, new, why)
    return changed


def rekey_provenance(path: Path, old: str, new: str, dry_run: bool = False,
                     why: str = DOCSTRING_RULE) -> bool:
    """Give the provenance at ``path`` the fingerprint ``new`` wherever it records ``old``."""
    provenance = json.loads(path.read_text())
    if old == new or not _rekey_fields(provenance, old, new, why):
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


def rekey(root: Path, mapping: dict[str, tuple[str, str]], dry_run: bool = False,
          why: str = DOCSTRING_RULE) -> list[str]:
    """Re-key every results folder under ``root``; one line per change made.

    ``mapping`` gives each experiment its ``(old, new)`` fingerprint (its provenance's); a
    cached point may be keyed by the fingerprint of another module (its evaluator's), so every
    pair of ``mapping`` is applied to each point cache (a fingerprint names one source)."""
    folders = sorted({p.parent for p in root.rglob("*.json")
                      if ".cache" not in p.relative_to(root).parts
                      and p.parent.name != "superseded"})
    pairs = sorted({pair for pair in mapping.values() if pair[0] != pair[1]})
    done = []
    for folder in folders:
        for name, (old, new) in mapping.items():
            path = folder / f"{name}.json"
            if path.is_file() and rekey_provenance(path, old, new, dry_run, why):
                done.append(f"{path.relative_to(root)}: {old} -> {new}")
            kept = folder / "superseded" / f"{name}.{old}.json"
            if kept.is_file() and rekey_provenance(kept, old, new, dry_run, why):
                if not dry_run:  # a kept result is named by the code that computed it
                    kept.with_suffix(".csv").rename(kept.with_name(f"{name}.{new}.csv"))
                    kept.rename(kept.with_name(f"{name}.{new}.json"))
                done.append(f"{kept.relative_to(root)}: {old} -> {new}")
        for cache in sorted((folder / ".cache").glob("*/")) if (folder / ".cache").is_dir() else []:
            for old, new in pairs:
                renamed = rekey_cache_dir(cache, old, new, dry_run)
                if renamed:
                    done.append(f"{cache.relative_to(root)}: {renamed} files {old} -> {new}")
    return done


# --- re-keying from an earlier commit ------------------------------------------------------------

#: Run by a separate interpreter inside a copy of a commit's ``memnb/``: the fingerprint of each
#: module of ``memnb.experiments`` and the computing source of every file counted.
_PROBE = """
import json, pkgutil, sys
import memnb.experiments as package
from memnb.experiments.registry import load_all
from memnb.fingerprint import _module_files, code_fingerprint, code_modules, computing_source
names = sorted(f"memnb.experiments.{m.name}" for m in pkgutil.iter_modules(package.__path__)
               if m.name != "registry")
experiments = {name: exp.fn.__module__ for name, exp in load_all().items()}
fingerprints, sources = {}, {}
for name in names:
    modules = code_modules(name)
    fingerprints[name] = code_fingerprint(modules)
    for module in modules:
        for label, path in _module_files(module):
            sources[label] = computing_source(path.read_text(encoding="utf-8"))
json.dump({"experiments": experiments, "fingerprints": fingerprints, "sources": sources},
          sys.stdout)
"""


def probe(folder: Path) -> dict:
    """What :data:`_PROBE` reports on the ``memnb`` package inside ``folder``."""
    done = subprocess.run([sys.executable, "-c", _PROBE], cwd=folder, capture_output=True,
                          text=True, env={"PYTHONPATH": str(folder), "PATH": "/usr/bin:/bin"})
    if done.returncode != 0:
        raise RuntimeError(f"probing the code in {folder} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def probe_commit(rev: str) -> dict:
    """:func:`probe` of the ``memnb/`` of commit ``rev`` of this repository."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "memnb"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        return probe(Path(tmp))


class _Blank(ast.NodeTransformer):
    """Docstrings (a string as a statement) go, and every other string and f-string becomes the
    empty string: what a label or a docstring says computes nothing."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and not block and field == "body":
                block.append(ast.Pass())
        return node

    def visit_Expr(self, node: ast.Expr) -> ast.AST | None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return None
        return self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        return ast.Constant("") if isinstance(node.value, str) else node

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        return ast.Constant("")


def _statements(source: str) -> list[tuple[str, set[str]]]:
    """Each top-level statement of ``source`` with strings blanked, as a syntax-tree dump, with
    the names it binds; ``__all__`` is left out (a list of names, not code)."""
    found = []
    for node in _Blank().visit(ast.parse(source)).body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            bound = {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound = {node.name}
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        else:
            bound = set()
        if bound == {"__all__"}:
            continue
        found.append((ast.dump(node, annotate_fields=False), bound))
    return found


def _names_used(sources: dict[str, str]) -> set[str]:
    """Every name and attribute read anywhere in ``sources``."""
    used = set()
    for source in sources.values():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Name):
                used.add(node.id)
            elif isinstance(node, ast.Attribute):
                used.add(node.attr)
            elif isinstance(node, ast.alias):
                used.add(node.name.split(".")[-1])
    return used


def display_only_problems(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """Why the fingerprinted sources ``new`` (label -> source) may compute
    something other than ``old``: one line per top-level statement that was added or changed
    beyond its strings, or removed while a remaining name still uses it (an import: in its own
    file; a definition: anywhere). Empty when the edit
    only relabels, rewords or removes unused code."""
    used_in = {label: _names_used({label: source}) for label, source in new.items()}
    used_anywhere = set().union(*used_in.values())
    problems = []
    for label in sorted(set(old) | set(new)):
        before = _statements(old.get(label, ""))
        after = _statements(new.get(label, ""))
        used_here = used_in.get(label, set())
        matcher = difflib.SequenceMatcher(a=[s for s, _ in before], b=[s for s, _ in after],
                                          autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            if tag == "delete":
                for statement, bound in before[i1:i2]:
                    # an import binds a name of its own module; a definition may be used anywhere
                    used = used_here if statement.startswith(("Import(", "ImportFrom(")) \
                        else used_anywhere
                    still = sorted(bound & used) if bound else ["(a statement binding nothing)"]
                    if still:
                        problems.append(f"{label}: removed a statement whose names are still "
                                        f"used: {', '.join(still)}")
                continue
            problems.append(f"{label}: {tag} of top-level statement(s) {i1 + 1}-{i2} -> "
                            f"{j1 + 1}-{j2} beyond their strings")
    return problems


def commit_mapping(rev: str, reviewed: list[str]) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """``{experiment or module: (fingerprint at rev, today's)}`` and the problems that
    :func:`display_only_problems` finds outside the files ``reviewed`` by hand."""
    before, today = probe_commit(rev), probe(REPO)
    problems = [p for p in display_only_problems(before["sources"], today["sources"])
                if p.split(":")[0] not in reviewed]
    mapping = {module: (fp, today["fingerprints"].get(module, fp))
               for module, fp in before["fingerprints"].items()}
    for name, module in before["experiments"].items():
        if module in mapping:
            mapping[name] = mapping[module]
    return mapping, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=REPO / "data" / "results")
    parser.add_argument("--dry-run", action="store_true", help="say what would change")
    parser.add_argument("--from-commit", metavar="REV",
                        help="carry the results of the code at REV over to today's code")
    parser.add_argument("--reviewed", metavar="LABEL", action="append", default=[],
                        help="a fingerprinted file (e.g. memnb.constructions/mha.py) whose "
                             "change was reviewed by hand to compute nothing differently")
    parser.add_argument("--note", default="",
                        help="what the --reviewed change was (required with --reviewed); "
                             "recorded in every re-keyed record's provenance")
    args = parser.parse_args(argv)
    why = DOCSTRING_RULE
    if args.reviewed and not args.note.strip():
        parser.error("--note must say what the --reviewed change was (it goes into the "
                     "provenance of every re-keyed record)")
    if args.from_commit:
        mapping, problems = commit_mapping(args.from_commit, args.reviewed)
        if problems:
            print("refused: the change may compute something differently:", *problems, sep="\n  ")
            return 1
        for label in args.reviewed:
            print(f"reviewed by hand: {label}")
        named = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short",
                                args.from_commit], capture_output=True, text=True)
        commit = named.stdout.strip() if named.returncode == 0 else args.from_commit
        why = f"the code of commit {commit} with labels and wording changed"
        if args.reviewed:
            why += (f"; code changed in {', '.join(args.reviewed)}, reviewed by hand to compute "
                    f"the same numbers: {args.note.strip()}")
    else:
        mapping = fingerprint_map()
    for line in rekey(args.root, mapping, args.dry_run, why) or ["nothing to re-key"]:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
