"""The fingerprint of the code that computes a sweep's points, part of every cached point's key.

A cached point is reused only by the code that computed it (:mod:`memnb.sweep`). The fingerprint
(:func:`code_fingerprint`) is a hash over the source of a set of modules (:func:`code_modules`),
without comment-only lines and docstrings (:func:`without_docstrings`), which compute nothing
(a comment after code on its line counts, as the line does):
the training code every point depends on (:data:`CORE_MODULES`) and the evaluator's module with
the ``memnb`` modules it uses; and over the CPU's denormal mode (:mod:`memnb.numerics`), which
is not source but changes the numbers the same source computes.

An experiment module (one that registers experiments with ``@experiment``) counts only for what
its experiments compute, not for how they are catalogued (:func:`computing_source`): the
module's code is reduced to the bodies of its experiment functions and, transitively, the
top-level definitions and constants they use. The profiles written in the ``@experiment(...)``
declarations, and helpers or constants used only there, are left out: the sizes they give are
parameters of each point and already part of its key, so changing one profile's grid re-keys
only the points whose parameters change, not every point of the chapter. The ``memnb`` modules
counted for such a module are likewise those its computing code uses.

Plain text and syntax-tree positions only (no bytecode), so the same source gives the same
fingerprint under every Python version, e.g. on a GPU machine with another interpreter.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib
import importlib.util
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

from memnb import numerics

CORE_MODULES: tuple[str, ...] = ("memnb.models", "memnb.train", "memnb.sweep", "memnb.data",
                                 "memnb.constructions", "memnb.bounds", "memnb.numerics")
"""Modules (packages include every file below them) in every sweep's code fingerprint."""

_NOT_CODE = ("memnb.experiments.registry", "memnb.paths", "memnb.profiles", "memnb.results",
             "memnb.provenance", "memnb.profile_calls", "memnb.figures", "memnb.scorecard",
             "memnb.prose", "memnb.viz", "memnb.cli")
"""Imported by experiment modules (with everything below them) but never part of what a point
computes: the catalogue, paths, profile names, result files (their provenance in words and the
registry of running calls), figures, scorecard and prose."""

_EXPERIMENT_DECORATOR = "experiment"
"""The name of the registering decorator (:func:`memnb.experiments.registry.experiment`)."""


# --- an experiment module's computing code ------------------------------------------------------

def _is_experiment_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
    return name == _EXPERIMENT_DECORATOR


def _is_experiment(node: ast.stmt) -> bool:
    return (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and any(_is_experiment_decorator(d) for d in node.decorator_list))


def _bound_names(node: ast.stmt) -> set[str]:
    """Names a top-level statement binds (imports excluded: they are resolved separately)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    found = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
             and isinstance(n.ctx, ast.Store)}
    found |= {n.name for n in ast.walk(node)
              if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    return found


def _used_names(node: ast.stmt) -> set[str]:
    """Every name a statement mentions, outside its ``@experiment(...)`` declarations."""
    skipped = {id(d) for d in getattr(node, "decorator_list", []) if _is_experiment_decorator(d)}
    found: set[str] = set()
    stack: list[ast.AST] = [node]
    while stack:
        current = stack.pop()
        if id(current) in skipped:
            continue
        if isinstance(current, ast.Name):
            found.add(current.id)
        stack.extend(ast.iter_child_nodes(current))
    return found


def _is_documentation(node: ast.stmt) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


def _imports_resolvable(tree: ast.Module) -> bool:
    """Whether every module-level import is a plain top-level statement naming what it binds
    (no ``import *``, none inside a top-level ``if``/``try``/``with``), so that the modules the
    reduced code uses can be read off the names it mentions."""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return False
        if isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)) and any(
                isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.walk(node)):
            return False
    return True


@functools.lru_cache(maxsize=64)
def _reduced(source: str) -> tuple[str, frozenset[str]] | None:
    """``(code, modules)``: ``source`` reduced to what its experiments compute, and the
    ``memnb`` modules that code uses (top-level imports of the names it mentions, and imports
    inside it); ``None`` for a module that registers no experiment."""
    tree = ast.parse(source)
    if not _imports_resolvable(tree):
        return None
    roots: list[ast.stmt] = []
    binders: dict[str, list[ast.stmt]] = {}
    imported: dict[str, set[str]] = {}
    experiments = False
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for name, module in _import_targets(node):
                imported.setdefault(name, set()).add(module)
            continue
        if _is_documentation(node):
            continue
        is_experiment = _is_experiment(node)
        experiments = experiments or is_experiment
        bound = set() if is_experiment else _bound_names(node)
        if not bound:  # an experiment, or module code that binds nothing: always counted
            roots.append(node)
        for name in bound:
            binders.setdefault(name, []).append(node)
    if not experiments:
        return None
    kept: dict[int, ast.stmt] = {}
    modules: set[str] = set()
    queue = list(roots)
    while queue:
        node = queue.pop()
        if id(node) in kept:
            continue
        kept[id(node)] = node
        for name in _used_names(node):
            queue += binders.get(name, [])
            modules |= imported.get(name, set())
        modules |= _imported_modules(node)
    lines = source.splitlines()
    text: list[str] = []
    for node in sorted(kept.values(), key=lambda n: n.lineno):
        dropped = {line for d in getattr(node, "decorator_list", []) if _is_experiment_decorator(d)
                   for line in range(d.lineno, (d.end_lineno or d.lineno) + 1)}
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        text += [lines[i - 1] for i in range(first, (node.end_lineno or node.lineno) + 1)
                 if i not in dropped]
    return "\n".join(text), frozenset(modules)


def computing_source(source: str) -> str:
    """The part of a module's source that a code fingerprint counts.

    For a module that registers experiments: the experiment functions without their
    ``@experiment(...)`` declarations, module code that binds no name, and every top-level
    definition or assignment those use, directly or through one another, in source order. For
    any other module, and for one whose imports cannot be read off plainly (``import *``, or an
    import inside a top-level ``if``/``try``): the whole source.
    """
    reduced = _reduced(source)
    return source if reduced is None else reduced[0]


def without_docstrings(source: str) -> str:
    """``source`` without its docstrings: every statement that is a string literal alone (a
    module's, class's or function's docstring, or one documenting an attribute), on lines of
    its own. Such a statement computes nothing. A string that shares a line with other code
    (``def f(): "doc"``), and source that does not parse, are left as they are."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    lines = source.splitlines()
    dropped: set[int] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)):
            continue
        first, last = node.lineno, node.end_lineno or node.lineno
        before = lines[first - 1][:node.col_offset]
        after = lines[last - 1][node.end_col_offset:] if node.end_col_offset is not None else ""
        if before.strip() or after.strip() not in ("", ";"):
            continue  # shares its line with code
        dropped.update(range(first, last + 1))
    return "\n".join(line for i, line in enumerate(lines, start=1) if i not in dropped)


_FILE_DIGESTS: dict[tuple[str, int, int, bool], str] = {}


def _source_digest(path: Path, docstrings_count: bool = False) -> str:
    """Hash of a file's :func:`computing_source` without its docstrings
    (:func:`without_docstrings`; kept with ``docstrings_count``), blank and comment-only lines
    and trailing spaces."""
    stat = path.stat()
    memo = (str(path), stat.st_mtime_ns, stat.st_size, docstrings_count)
    if memo not in _FILE_DIGESTS:
        source = computing_source(path.read_text(encoding="utf-8"))
        if not docstrings_count:
            source = without_docstrings(source)
        lines = [line.rstrip() for line in source.splitlines()]
        kept = "\n".join(ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#"))
        _FILE_DIGESTS[memo] = hashlib.sha256(kept.encode()).hexdigest()
    return _FILE_DIGESTS[memo]


def _module_files(name: str) -> list[tuple[str, Path]]:
    """(label, path) of the source files of module or package ``name``, in a stable order."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise ValueError(f"code module {name!r} cannot be found")
    if spec.submodule_search_locations:
        files = []
        for folder in spec.submodule_search_locations:
            root = Path(folder)
            files += [(f"{name}/{p.relative_to(root).as_posix()}", p)
                      for p in sorted(root.rglob("*.py"))]
        return files
    return [(name, Path(spec.origin))]


def code_fingerprint(modules: Iterable[str], *, docstrings_count: bool = False) -> str:
    """A 16-hex-digit hash of the source of ``modules`` (packages: every ``.py`` below them)
    and of the CPU's denormal mode (:func:`memnb.numerics.mode`).

    Comments, docstrings and blank lines do not count, nor the catalogue of an experiment
    module (:func:`computing_source`); any other change of any file does, and so does a machine
    whose CPU keeps IEEE denormals where this one flushes them (the same code computes other
    numbers). ``docstrings_count=True`` gives the fingerprints recorded before docstrings were
    left out (results and caches written up to 2026-11-26), which ``scripts/rekey_cache.py``
    maps to today's.
    """
    digest = hashlib.sha256(f"denormals:{numerics.mode()}\n".encode())
    for name in sorted(set(modules)):
        for label, path in _module_files(name):
            digest.update(f"{label}:{_source_digest(path, docstrings_count)}\n".encode())
    return digest.hexdigest()[:16]


# --- which modules a sweep depends on ------------------------------------------------------------

def unwrap(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The function a (possibly nested) :func:`functools.partial` calls in the end: ``fn``
    itself when it is no partial. Its ``__module__`` names the module whose code a sweep's
    evaluation runs (the partial object itself has none of its own)."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    return fn


def _imported_modules(tree: ast.AST) -> set[str]:
    """The ``memnb`` modules imported anywhere inside ``tree`` (at its top or inside functions),
    each import read by :func:`_import_targets`."""
    return {module for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
            for _, module in _import_targets(node)}


def _import_targets(node: ast.Import | ast.ImportFrom) -> list[tuple[str, str]]:
    """``(bound name, memnb module it comes from)`` for each ``memnb`` name an import binds:
    ``from P import a`` gives ``P.a`` when that is a module, else ``P``; ``import memnb.a.b``
    gives ``memnb.a.b``."""
    if isinstance(node, ast.ImportFrom):
        if node.level or not node.module or not (
                node.module == "memnb" or node.module.startswith("memnb.")):
            return []
        return [(alias.asname or alias.name, f"{node.module}.{alias.name}"
                 if _is_module(f"{node.module}.{alias.name}") else node.module)
                for alias in node.names]
    return [(alias.asname or "memnb", alias.name) for alias in node.names
            if alias.name.startswith("memnb.")]


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, AttributeError, ValueError):
        return False


def _used_modules(module: ModuleType) -> set[str]:
    """The ``memnb`` modules ``module`` uses: those it imports (at its top or inside functions)
    or whose objects it holds; for an experiment module, only those its computing code uses."""
    name = module.__name__
    path = getattr(module, "__file__", None)
    source = None if path is None else Path(path).read_text(encoding="utf-8")
    reduced = None if source is None else _reduced(source)
    if reduced is not None:
        return {name} | reduced[1]
    found = {name} if source is not None else set()  # a module made in memory has no source
    for value in vars(module).values():
        other = value.__name__ if isinstance(value, ModuleType) else getattr(
            value, "__module__", None)
        if isinstance(other, str) and other.startswith("memnb."):
            found.add(other)
    return found if source is None else found | _imported_modules(ast.parse(source))


def code_modules(evaluate: Callable[..., Any] | str | ModuleType | None) -> tuple[str, ...]:
    """The modules whose source a sweep of ``evaluate`` depends on.

    :data:`CORE_MODULES`, plus, when ``evaluate`` (a function, possibly wrapped in
    ``functools.partial``, or a module or module name) lives in ``memnb``, its module and the
    ``memnb`` modules that module uses (:func:`_used_modules`).
    """
    if evaluate is None:
        return CORE_MODULES
    if isinstance(evaluate, str):
        name = evaluate
    elif isinstance(evaluate, ModuleType):
        name = evaluate.__name__
    else:
        name = getattr(unwrap(evaluate), "__module__", "") or ""
    if not name.startswith("memnb."):
        return CORE_MODULES
    module = sys.modules.get(name) or importlib.import_module(name)
    found = {n for n in _used_modules(module) if _is_module(n)
             and not any(n == m or n.startswith(f"{m}.") for m in _NOT_CODE)}
    names = set(CORE_MODULES) | found
    return tuple(sorted(n for n in names if not any(n.startswith(f"{m}.") for m in names)))
