"""The folded legends under the Dana chapter's tables: ``viz.column_legend`` and the meanings
kept in ``memnb.figures.dana``."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pandas as pd
import pytest

from memnb import viz
from memnb.figures import dana as figures

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "dana.ipynb"


def _legend(columns, meanings, **kwargs) -> str:
    return viz.column_legend(columns, meanings, **kwargs).data


def test_a_legend_lists_every_column_in_the_tables_order_folded_as_captions_are():
    table = pd.DataFrame({"b": [1], "a": [2], "c": [3]})
    meanings = {"a": "the second, $a$", "c": "the third", "b": "  the first  "}
    text = _legend(table, meanings)
    assert text.startswith('<details class="caption-details"><summary style="cursor: pointer">'
                           f"{viz.LEGEND_TITLE}</summary>\n\n")
    assert text.endswith("\n\n</details>")
    items = [line for line in text.splitlines() if line.startswith("- ")]
    # the table's order, not the dictionary's; the meanings stripped, their Markdown kept
    assert items == ["- `b`: the first", "- `a`: the second, $a$", "- `c`: the third"]
    # column names alone give the same legend; the title can be set
    assert _legend(["b", "a", "c"], meanings) == text
    assert "<summary style=\"cursor: pointer\">Columns</summary>" in _legend(
        table, meanings, title="Columns")
    assert viz.LEGEND_TITLE == "What the columns mean"


@pytest.mark.parametrize("columns, meanings, match", [
    (["a", "b", "c"], {"a": "x"}, r"columns shown without a meaning: b, c"),
    (["a"], {"a": "x", "z": "y", "w": "v"}, r"meanings of columns not shown: z, w"),
    (["a", "b"], {"a": "x", "b": "  "}, r"columns shown without a meaning: b"),
    (["a", "a"], {"a": "x"}, r"columns shown twice: a"),
    (["a", "b"], {"a": "x", "c": "y"},
     r"columns shown without a meaning: b; meanings of columns not shown: c"),
    ([], {}, r"at least one column"),
])
def test_a_legend_that_does_not_match_its_table_is_refused_by_name(columns, meanings, match):
    with pytest.raises(ValueError, match=match):
        viz.column_legend(columns, meanings)


def test_a_legend_needs_a_title():
    with pytest.raises(ValueError, match="title"):
        viz.column_legend(["a"], {"a": "x"}, title=" ")


# ------------------------------------------------------ each Dana legend against its table


def _shown(table: pd.DataFrame, columns: tuple[str, ...]) -> pd.DataFrame:
    missing = [c for c in columns if c not in table.columns]
    assert not missing, f"shown columns the table does not have: {missing}"
    return table[list(columns)]


def test_the_construction_legend_matches_the_construction_table():
    from memnb.constructions import aot

    table = aot.construction_table([(10, 2, 2, 2, 5)], seed=0)
    shown = _shown(table, figures.CONSTRUCTION_COLUMNS)
    assert "`min_margin`: the smallest gap, over the $T_0$ sequences, between the target's logit" \
        in _legend(shown, figures.CONSTRUCTION_LEGEND)
    # λ is the construction's own default, read from the code (1 today)
    assert "$\\lambda = 1$" in figures.CONSTRUCTION_LEGEND["min_margin"]


def test_the_theorem1_legend_matches_the_scorecards_table(monkeypatch):
    from memnb.scorecard import dana_theory

    # the chapter's table at one small size (the full one takes minutes); same code, same columns
    monkeypatch.setattr(dana_theory, "THM1_SIZES", ((4, 2, 2, 1, 4),))
    monkeypatch.setattr(dana_theory, "THM1_ZIPF", (2.0,))
    table = dana_theory.thm1_row_centred(dana_theory.thm1_table())
    text = _legend(_shown(table, figures.THM1_COLUMNS), figures.THM1_LEGEND)
    assert "- `c_eq14`: $C_{14} = " in text and "eq. (14)" in text
    # the columns of the row-centred reading are marked as ours, as the prose marks them
    for column in ("norm_we_centred", "rank_centred", "looseness_centred"):
        assert figures.THM1_LEGEND[column].endswith("(ours)")


def test_the_remark2_legend_matches_the_rank1_table():
    from memnb.constructions import aot_rank1

    table = aot_rank1.rank1_table(sizes=((10, 2, 2, 2, 5),))
    assert "`rank_all_rank1`" in _legend(_shown(table, figures.RANK1_COLUMNS),
                                         figures.RANK1_LEGEND)


def test_the_theorem2_legend_matches_the_chapters_rows():
    from memnb.constructions import jl_lookup
    from memnb.scorecard import dana_theory

    # a row built as the chapter's and dana_theory.thm2_grid's are, at a small (N, d)
    point = jl_lookup.thm2_point(60, 40, num_sequences=30, eps=dana_theory.THM2_EPS)
    margin = dana_theory.thm2_margin(60, 40, num_sequences=30)
    table = pd.DataFrame([{**point, "uniform_kl": margin["uniform_kl"],
                           "log_N": margin["log_N"], "informative": margin["informative"]}])
    text = _legend(_shown(table, figures.THM2_COLUMNS), figures.THM2_LEGEND)
    # the mass on g(t) is computed from the scorecard's constant
    assert f"mass {1 - dana_theory.THM2_EPS:g} of $\\pi_t$" in text
    assert figures.THM2_LEGEND["kl_reoptimised_lambda"].endswith("(ours)")


def test_the_corollary2_legend_covers_every_column_of_its_table(monkeypatch):
    from memnb.scorecard import dana_theory

    monkeypatch.setattr(dana_theory, "COR2_HEADS", (1, 49))
    monkeypatch.setattr(dana_theory, "COR2_TASKS", 2)
    table = dana_theory.corollary2_table()
    assert list(figures.COR2_LEGEND) == list(table.columns)  # the chapter shows every column
    assert "`saturated`: whether $X = N^2$" in _legend(table, figures.COR2_LEGEND)


def test_the_table1_legend_covers_every_column_of_the_shown_table():
    from memnb.constructions import prior_work_table

    table = pd.concat([prior_work_table.table1(*size) for size in
                       [(50, 2, 10, 10, 20), (50257, 1024, 768, 64, 12)]], ignore_index=True)
    shown = figures.table1_shown(table)
    assert list(figures.TABLE1_LEGEND) == list(shown.columns)
    assert "`cor1_T0`: Corollary 1's $T_0 = Hd_h + d$" in _legend(shown, figures.TABLE1_LEGEND)


def test_a_stale_legend_is_refused_when_a_table_gains_a_column():
    shown = pd.DataFrame(columns=[*figures.TABLE1_LEGEND, "new_column"])
    with pytest.raises(ValueError, match="without a meaning: new_column"):
        viz.column_legend(shown, figures.TABLE1_LEGEND)


# ------------------------------------------------------------------ the chapter shows them


def _code_cells() -> list[str]:
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


@pytest.mark.parametrize("table, legend", [
    ("aot.construction_table(", "CONSTRUCTION_LEGEND"),
    ("dana_theory.thm1_centred_table(", "THM1_LEGEND"),
    ("aot_rank1.rank1_table(", "RANK1_LEGEND"),
    ("dana_theory.thm2_grid()], ignore_index=True)", "THM2_LEGEND"),
    ("dana_theory.corollary2_table(", "COR2_LEGEND"),
    ("figures.table1_shown(", "TABLE1_LEGEND"),
])
def test_the_dana_chapter_shows_each_legend_in_its_tables_cell(table, legend):
    """The legend is built on the frame the cell displays, in the cell that computes the table,
    and is displayed (the cell's last expression, or inside display(...))."""
    (cell,) = [c for c in _code_cells() if table in c]
    body = ast.parse(cell).body
    calls = []
    for i, stmt in enumerate(body):
        for node in ast.walk(stmt):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "column_legend"):
                calls.append((i, stmt, node))
    assert len(calls) == 1, cell
    i, stmt, call = calls[0]
    assert ast.unparse(call.args[1]) == f"figures.{legend}"
    last = i == len(body) - 1 and isinstance(stmt, ast.Expr) and stmt.value is call
    shown = (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
             and ast.unparse(stmt.value.func) == "display" and stmt.value.args[0] is call)
    assert last or shown, f"the legend of {table} is built but not displayed"
    # the frame it describes is the one displayed just before it
    displays = sorted((node.lineno, ast.unparse(node.args[0])) for node in ast.walk(ast.Module(
        body=body[:i], type_ignores=[])) if isinstance(node, ast.Call)
        and ast.unparse(node.func) == "display" and node.args)
    frame = ast.unparse(call.args[0])
    assert displays, cell
    before = displays[-1][1]
    assert before == frame or before.startswith(f"{frame}."), (before, frame)
