"""A Sphinx extension of the book's own: each page loads every script once.

sphinx-thebe (0.3.1, pulled in by Jupyter Book 1 even with launch buttons off) adds its inline
configuration script on ``env-before-read-docs``; under Sphinx 7.4 it reaches the pages twice,
and the second ``const THEBE_JS_URL = …`` stops with a SyntaxError in the reader's console.
:func:`drop_repeated_scripts` keeps the first of scripts that are equal in file, priority and
attributes (an inline script's body included, its empty file name read alike whether given as
``None`` or ``""``), in their order.
"""

from __future__ import annotations

from typing import Any


def drop_repeated_scripts(app: Any, pagename: str, templatename: str, context: dict[str, Any],
                          doctree: Any) -> None:
    """``html-page-context`` handler: remove the repeats from ``context["script_files"]``."""
    scripts = context.get("script_files")
    if not scripts:
        return
    seen: set[tuple[Any, ...]] = set()
    kept = []
    for script in scripts:
        # an inline script is added with the file None or "" depending on the route it took
        key = (str(getattr(script, "filename", script) or ""), getattr(script, "priority", None),
               tuple(sorted((getattr(script, "attributes", None) or {}).items())))
        if key not in seen:
            seen.add(key)
            kept.append(script)
    context["script_files"] = kept


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-page-context", drop_repeated_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
