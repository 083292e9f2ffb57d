"""The code fingerprint in every cached point's key (memnb.fingerprint): what it covers, what it
leaves out, and the condition that makes leaving the profiles out safe (every profile parameter
that changes what is computed changes the points)."""

from __future__ import annotations

import ast
import copy
import textwrap
from pathlib import Path

import pytest

from memnb import planner
from memnb.experiments.registry import get, load_all
from memnb.fingerprint import (
    CORE_MODULES,
    _imported_modules,
    code_fingerprint,
    code_modules,
    computing_source,
)
from memnb.sweep import point_key

_MODULE = textwrap.dedent('''
    """An experiment module."""
    from memnb.experiments.registry import experiment
    from memnb.papers import example as paper

    SEARCH = (0.5, 1.0)
    SCALE = 3
    _QUICK = {"sizes": [10, 20]}


    def search_sizes(t):
        return [int(f * t) for f in SEARCH]


    def train_group(points):
        return [[{"y": p["x"] * SCALE}] for p in points]


    def summary(table):
        return table.mean()


    @experiment("example.run", title="t", paper_figure="f",
                profiles={"ci": {"sizes": search_sizes(4)}, "quick": _QUICK,
                          "full": {"sizes": [paper.SIZE]}})
    def run(params, *, seeds, device, cache_dir, executor=None):
        return train_group([{"x": x} for x in params["sizes"]])
''')


def _edit(old: str, new: str) -> str:
    assert old in _MODULE
    return computing_source(_MODULE.replace(old, new))


def test_an_experiment_module_counts_what_its_experiments_compute():
    kept = computing_source(_MODULE)
    for name in ("def run", "def train_group", "SCALE = 3"):
        assert name in kept, name
    for name in ("SEARCH", "_QUICK", "def search_sizes", "def summary", "paper.SIZE", "profiles="):
        assert name not in kept, name  # the catalogue and helpers the computation never uses
    assert _edit("(0.5, 1.0)", "(0.6, 1.0)") == kept  # a profile's grid
    assert _edit('[10, 20]', '[10, 30]') == kept
    assert _edit("return table.mean()", "return table.median()") == kept
    assert _edit("SCALE = 3", "SCALE = 4") != kept  # a constant the training uses
    assert _edit('p["x"] * SCALE', 'p["x"] + SCALE') != kept  # the training itself
    assert _edit("executor=None", "executor=''") != kept  # the experiment function itself
    plain = "SEARCH = 1\n\ndef f():\n    return 2\n"
    assert computing_source(plain) == plain  # a module that registers nothing counts whole
    for unclear in ("from memnb.bounds import *\n",
                    "try:\n    from memnb.bounds import f\nexcept ImportError:\n    f = None\n"):
        module = unclear + _MODULE
        assert computing_source(module) == module  # imports not read off plainly: all counts


def test_fingerprint_covers_the_training_code_and_the_experiment_module():
    from memnb.experiments import dana, kajitsuka, mahdavi

    for module in (dana, mahdavi, kajitsuka):
        modules = code_modules(module.train_group)
        for name in (*CORE_MODULES, module.__name__):
            assert name in modules, (module.__name__, name)
        assert not any(m.startswith("memnb.papers") for m in modules), modules
    assert "memnb.assumptions" in code_modules(mahdavi)  # Table 1 checks its assumptions
    assert set(CORE_MODULES) <= set(code_modules(lambda g: g))
    assert code_fingerprint(code_modules(dana.train_group)) != code_fingerprint(
        code_modules(mahdavi.train_group))
    with pytest.raises(ValueError, match="code module"):
        code_fingerprint(["memnb.no_such_module"])


def test_a_profile_grid_is_not_code():
    """Fig. 3's search grid is a profile setting: it leaves the Mahdavi fingerprint alone."""
    from memnb.experiments import mahdavi

    source = Path(mahdavi.__file__).read_text(encoding="utf-8")
    kept = computing_source(source)
    assert "SATURATION_SEARCH =" in source and "SATURATION_SEARCH" not in kept
    assert "def train_group" in kept and "def official_steps" in kept


# Profile parameters that only choose which points exist (each chosen point carries its own
# parameters), so a changed value may leave the first sweep's points as they are:
_CHOOSERS = {
    "compare.capacity": {
        "rounds", "refine",  # later rounds' N (the round and N are in each point)
        "max_seeds",  # caps the number of seeds (the seed is in each point)
    },
}


# Profile parameters whose values are names chosen from a fixed set (the experiment rejects any
# other): changed to another allowed value, not to an invented one.
def _allowed_values() -> dict[tuple[str, str], tuple[str, ...]]:
    from memnb.experiments import dana_appendix_layout as layout

    return {("dana.appendix_layout", "kinds"): tuple(layout.KINDS),
            ("dana.appendix_layout", "mlp_kinds"): tuple(layout.MLP_KINDS)}


def _perturbed_choice(value: list[str], allowed: tuple[str, ...]) -> list[str]:
    """``value`` (a list of names from ``allowed``) with its first name replaced by another
    allowed name."""
    return [next(a for a in allowed if a != value[0]), *value[1:]]


def _perturbed(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return 10 * value + 1
    if isinstance(value, float):
        return 10 * value + 0.5
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list) and value:
        return [_perturbed(value[0]), *value[1:]]
    if isinstance(value, dict) and value:
        first = next(iter(value))
        return {**value, first: _perturbed(value[first])}
    return value


def _point_keys(name: str, params: dict) -> list[str] | None:
    exp = get(name)
    saved = exp.profiles["ci"]
    exp.profiles["ci"] = params
    try:
        captured = planner.capture_sweep(name, "ci")
    finally:
        exp.profiles["ci"] = saved
    return None if captured is None else sorted(point_key(p) for p in captured.points)


@pytest.mark.parametrize("name", sorted(load_all()))
def test_every_profile_parameter_that_computes_is_in_the_points(name):
    """The fingerprint leaves the profiles out, so a cached point is reused whenever its
    parameters match. That is safe only if changing any profile parameter that changes what a
    point computes also changes the point: checked by changing each parameter of the ``ci``
    profile in turn."""
    params = get(name).params("ci")
    before = _point_keys(name, params)
    if before is None:
        pytest.skip(f"{name} makes no sweep")
    choices = _allowed_values()
    unchanged, rejected, tried = [], [], 0
    for key, value in params.items():
        changed = copy.deepcopy(params)
        allowed = choices.get((name, key))
        changed[key] = _perturbed(value) if allowed is None else _perturbed_choice(value, allowed)
        if changed[key] == value:
            continue
        try:
            after = _point_keys(name, changed)
        except (ValueError, KeyError, IndexError, TypeError) as err:
            # a change that computes nothing checks nothing: give the parameter its allowed
            # values in _allowed_values
            rejected.append(f"{key}={changed[key]!r}: {type(err).__name__}: {err}")
            continue
        tried += 1
        if after == before and key not in _CHOOSERS.get(name, set()):
            unchanged.append(key)
    assert rejected == [], f"{name}: changed values rejected, so not checked: {rejected}"
    assert tried, f"{name}: no parameter could be changed"
    assert unchanged == [], (
        f"{name}: changing {unchanged} leaves the points unchanged, so a cached point would be "
        "reused for another computation: put the parameter in the points")


def test_imports_are_read_from_the_syntax_tree_at_any_depth():
    """Top-level and inner imports count (a submodule where the name is one, else its package);
    an import line quoted in a docstring does not."""
    source = ('"""Usage:\n\nfrom memnb import sweep\n"""\nfrom memnb.scorecard import criteria\n'
              "import memnb.bounds as b\n\ndef f():\n    from memnb import models, prose\n"
              "    from memnb.papers import dana\n    return models\n")
    assert _imported_modules(ast.parse(source)) == {
        "memnb.scorecard.criteria", "memnb.bounds", "memnb.models", "memnb.prose",
        "memnb.papers.dana"}


#: memnb modules that fingerprinted code imports but that compute no point's numbers, each kept
#: out of the fingerprint on purpose (their module docstrings say so): when a run stops
#: (``budget``), progress bars (``progress``), saving and resuming a paused loop (``resume``),
#: which worker trains a group (``distributed``), the key itself (``fingerprint``), argument
#: checks that raise or pass (``validation``), and the dataset files' digests and content checks
#: that refuse a file a loader would misread (``dataset_files``).
NOT_FINGERPRINTED_ON_PURPOSE = {"memnb.budget", "memnb.progress", "memnb.resume",
                                "memnb.distributed", "memnb.fingerprint", "memnb.validation",
                                "memnb.dataset_files"}

#: Modules that escape the fingerprint today though they compute, each with why no cached point
#: depends on it; adding one to the fingerprint changes every experiment's fingerprint (a re-key
#: of every committed result), so it waits for the next such re-key.
KNOWN_ESCAPES = {
    "memnb.lookup_tables": "imported only by the constructions of Dana et al.'s distribution "
                           "results (aot_distribution, jl_lookup, encoder_least_squares, "
                           "associative_memory), which no experiment's points compute through",
    "memnb.assumptions": "fingerprinted for Mahdavi et al.'s experiments, which use it directly; "
                         "for the others imported only by constructions.mha_checks (Mahdavi et "
                         "al.'s theory checks), which none of their points computes through",
}


@pytest.mark.parametrize("module", sorted({e.fn.__module__ for e in load_all().values()}))
def test_every_module_the_fingerprinted_code_reaches_is_fingerprinted(module):
    """The fingerprint reads an experiment module and the memnb modules it uses, one level deep
    (:func:`memnb.fingerprint.code_modules`). A module that a fingerprinted module imports in
    turn (say, a helper moved out of ``memnb.representations``) would escape it, and a change
    there would reuse stale cached points. So every memnb module reachable from the fingerprinted
    ones must itself be fingerprinted, or be one of the modules kept out on purpose."""
    import importlib
    import pkgutil
    import sys

    from memnb import fingerprint

    covered = fingerprint.code_modules(module)
    # a package is fingerprinted with every file below it: walk them all, whatever is imported
    below = [info.name for name in covered
             if hasattr(mod := importlib.import_module(name), "__path__")
             for info in pkgutil.walk_packages(mod.__path__, f"{name}.")]

    def fingerprinted(name: str) -> bool:
        return any(name == m or name.startswith(f"{m}.") for m in covered)

    skipped = fingerprint._NOT_CODE
    seen, stack, escaped = set(), [*covered, *below], set()
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        loaded = sys.modules.get(name) or importlib.import_module(name)
        for used in fingerprint._used_modules(loaded):
            if (used == name or not fingerprint._is_module(used)
                    or used in NOT_FINGERPRINTED_ON_PURPOSE or used in KNOWN_ESCAPES
                    or any(used == m or used.startswith(f"{m}.") for m in skipped)):
                continue
            if not fingerprinted(used):
                escaped.add(f"{used} (imported by {name})")
            stack.append(used)
    assert not escaped, f"{module}: modules outside the fingerprint: {sorted(escaped)}"
