"""book/buildtools/sphinx_scripts.py: each page of the book loads every script once."""

from __future__ import annotations

import sys
from pathlib import Path

from sphinx.builders.html._assets import _JavaScript

REPO = Path(__file__).resolve().parent.parent
if str(REPO / "book") not in sys.path:  # book/buildtools is imported as book/build.py does
    sys.path.insert(0, str(REPO / "book"))

from buildtools.sphinx_scripts import drop_repeated_scripts  # noqa: E402


def test_a_repeated_inline_script_is_kept_once_whatever_its_empty_file_name():
    """sphinx-thebe's inline configuration reaches a page twice, once with the file ``""`` and
    once ``None``; a second ``const`` of it is a SyntaxError in the reader's console."""
    body = 'const THEBE_JS_URL = "x"'
    scripts = [_JavaScript("_static/doctools.js", priority=200), _JavaScript("", body=body),
               _JavaScript("_static/a.js", priority=500), _JavaScript(None, body=body),
               _JavaScript("_static/a.js", priority=500, defer="defer"),
               _JavaScript("_static/a.js", priority=500)]
    context = {"script_files": list(scripts)}
    drop_repeated_scripts(None, "intro", "page.html", context, None)
    assert context["script_files"] == [scripts[0], scripts[1], scripts[2], scripts[4]]
    empty = {"script_files": []}
    drop_repeated_scripts(None, "intro", "page.html", empty, None)
    assert empty == {"script_files": []}


def test_the_book_loads_the_extension():
    config = (REPO / "book" / "_config.yml").read_text()
    assert "buildtools.sphinx_scripts: ./" in config
