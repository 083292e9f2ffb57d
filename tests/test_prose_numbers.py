"""No chapter's Markdown contains a hand-typed number about a result (see memnb.prose)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memnb.prose import hand_typed_numbers

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize(
    "text",
    [
        "As Fig. 2a and Table 1 show, Theorem 4.1 and eqs. 1-6 hold.",
        "Propositions 2 and 5 (App. A.2, Sec. 3) with GPT-2 and ViT-B/16 in float64.",
        "The bound $H(d_h - 1) + 1 = 41$ and $$T = 120$$ are formulas.",
        "Our slope is {glue:text}`exp1_slope:.3f` per head {cite:p}`dana2025`.",
        "Run `memnb run dana.exp1 --profile quick` (Kajitsuka & Sato, 2025).",
        "See [the page](running_at_scale.md#section-2).",
    ],
)
def test_allowed_numbers_pass(text: str) -> None:
    assert hand_typed_numbers(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Our counts keep rising (73 at d_h = n).", ["73"]),
        ("a slope a little above 0.49", ["0.49"]),
        ("the paper reports 1,200 steps and -7 %", ["1,200", "-7"]),
        ("loss 2x higher than Fig. 3 at 4 blocks", ["2x", "4"]),
    ],
)
def test_typed_numbers_are_found(text: str, expected: list[str]) -> None:
    assert hand_typed_numbers(text) == expected


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_chapter_markdown_has_no_hand_typed_numbers(path: Path) -> None:
    cells = json.loads(path.read_text())["cells"]
    offending = {}
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        found = hand_typed_numbers("".join(cell["source"]))
        if found:
            offending[i] = found
    assert not offending, (
        f"{path.name}: Markdown cells with hand-typed numbers (insert them from the data with "
        f"glue or generated Markdown, see memnb/prose.py): {offending}")


def test_counted_writes_the_singular_only_for_one():
    from memnb.prose import counted

    assert counted(1, "seed") == "1 seed" and counted(2, "seed") == "2 seeds"
    assert counted(1.0, "block") == "1 block" and counted(2.5, "block") == "2.5 blocks"
    assert counted(0, "thread") == "0 threads" and counted("?", "seed") == "? seeds"


def test_markdown_table_escapes_pipes_flattens_lines_and_aligns():
    import pytest

    from memnb.prose import markdown_table

    text = markdown_table(["a", "b|c"], [[1, "x|y\nz"], [None, ""]], empty="–")
    assert text.splitlines() == ["| a | b\\|c |", "|---|---|", "| 1 | x\\|y z |", "| – | – |"]
    aligned = markdown_table(["name", "runs"], [["`x`", 3]], align=["left", "right"])
    assert aligned.splitlines()[1] == "| --- | ---: |"
    with pytest.raises(ValueError, match="one entry per column"):
        markdown_table(["a", "b"], [], align=["left"])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_cell_has_a_unique_id(path: Path) -> None:
    """nbformat 4.5 cells carry an ``id`` (tests and the build address cells by it); a cell
    added by hand without one broke them."""
    import json

    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    ids = [cell.get("id") for cell in cells]
    assert None not in ids, f"cells without an id: {[i for i, x in enumerate(ids) if x is None]}"
    assert len(set(ids)) == len(ids)


def test_and_words_lists_as_a_sentence_does():
    from memnb.prose import and_words

    assert and_words(["a"]) == "a"
    assert and_words(["a", "b"]) == "a and b"
    assert and_words(["a", "b", "c"]) == "a, b and c"
    with pytest.raises(ValueError, match="at least one word"):
        and_words([])


def test_thousands_separates_whole_numbers_only() -> None:
    """One helper writes counts with their thousands separated, for every generated page."""
    import numpy as np

    from memnb.prose import thousands

    assert thousands(3050) == "3,050" and thousands(np.int64(3120)) == "3,120"
    assert thousands(7) == "7" and thousands(None) == "None" and thousands(2.5) == "2.5"
    assert thousands(True) == "True"
