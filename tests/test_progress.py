"""Progress bars obey TQDM_DISABLE (the book build sets it) and the progress switch."""

from __future__ import annotations

import pytest

from memnb.progress import bar_disabled


@pytest.mark.parametrize(("env", "progress", "disabled"), [
    (None, True, False), (None, False, True), ("1", True, True), ("true", True, True),
    ("0", True, False), ("", True, False), ("false", False, True),
])
def test_bar_disabled(monkeypatch, env: str | None, progress: bool, disabled: bool) -> None:
    if env is None:
        monkeypatch.delenv("TQDM_DISABLE", raising=False)
    else:
        monkeypatch.setenv("TQDM_DISABLE", env)
    assert bar_disabled(progress) is disabled
