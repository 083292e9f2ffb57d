"""Progress bars for long work: in the terminal, never in a rendered page.

Passing ``disable=`` to tqdm explicitly overrides the ``TQDM_DISABLE`` environment variable, which
the book build sets for the kernels that execute chapters; :func:`bar_disabled` honours both.
"""

from __future__ import annotations

import os


def bar_disabled(progress: bool) -> bool:
    """True when a progress bar must not be drawn: ``progress`` is off, or ``TQDM_DISABLE`` is set
    to anything but an empty string, ``0`` or ``false``."""
    flag = os.environ.get("TQDM_DISABLE", "").strip().lower()
    return not progress or flag not in ("", "0", "false")
