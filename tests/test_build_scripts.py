"""The book's Sphinx settings: book/buildtools/sphinx_scripts.py (each page loads every script
once) and the theme options book/_config.yml gives Jupyter Book."""

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


def test_the_theme_options_merge_with_jupyter_books_own():
    """sphinx-book-theme 1.3 on pydata-sphinx-theme 0.17 draws a header bar above every page
    holding only a second search field; ``navbar_persistent: []`` removes it. Jupyter Book
    replaces its own ``html_theme_options`` with a ``sphinx.config`` one unless
    ``recursive_update`` is set, which would drop the footer and the buttons of ``html:``."""
    from jupyter_book.config import get_final_config

    config, _ = get_final_config(user_yaml=REPO / "book" / "_config.yml",
                                 cli_config={"latex_individualpages": False},
                                 sourcedir=REPO / "book")
    options = config["html_theme_options"]
    assert options["navbar_persistent"] == []
    assert options["extra_footer"].startswith("Paper values are marked as the paper's")
    assert options["home_page_in_toc"] is True  # html.home_page_in_navbar
    assert config["mathjax_path"] == "mathjax/tex-chtml.js"
