"""Load a repository script that is not part of the ``memnb`` package (``book/build.py``,
``scripts/gpu_queue.py``) as a module, for the tests that exercise it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent


def load_script(relative_path: str, module_name: str) -> ModuleType:
    """The script at ``REPO / relative_path``, executed once as the module ``module_name``
    (registered in ``sys.modules``, where dataclasses look their module up)."""
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, REPO / relative_path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {relative_path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
