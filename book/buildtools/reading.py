"""Prepare an executed chapter for reading: hide the parameters cells, show their values in a line.

Papermill leaves two code cells at the top of an executed chapter: the notebook's own cell tagged
``parameters`` (its defaults) and the cell it injects, tagged ``injected-parameters`` (the values
of this run). Both get the tag ``remove-cell`` (myst-nb then leaves them out of the page), and one
generated Markdown line in their place states the values in effect. Only the executed copy is
changed, never the source notebook; running this twice changes nothing more.

Progress bars belong in the terminal, never on a page: tqdm bars a chapter's code drew anyway (a
call with ``disable=False`` overrides the ``TQDM_DISABLE=1`` the build gives the kernels) are
removed, with the widget state that only they used.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import nbformat

#: ``metadata`` key marking the generated Markdown line.
GENERATED = "memnb_generated"
PARAMETER_TAGS: tuple[str, ...] = ("parameters", "injected-parameters")
REMOVE_TAG = "remove-cell"


#: tqdm's text form: "desc:  40%|####      | 4/10 [00:01<00:02, 3.1it/s]".
_BAR = re.compile(r"\d+%\|[^|\n]*\|\s*\d+(\.\d+)?\w?/\d+(\.\d+)?\w?\s*\[")
_WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
_MODEL_REF = re.compile(r"IPY_MODEL_([0-9a-f]+)")


def is_progress_bar(output) -> bool:
    """Whether a cell output is only a tqdm progress bar (a widget, or text on stderr)."""
    if output.get("output_type") in ("display_data", "execute_result"):
        data = output.get("data", {})
        return _WIDGET_VIEW in data and bool(_BAR.search(str(data.get("text/plain", ""))))
    if output.get("output_type") == "stream" and output.get("name") == "stderr":
        parts = [p for p in re.split(r"[\r\n]+", output.get("text", "")) if p.strip()]
        return bool(parts) and all(_BAR.search(p) for p in parts)
    return False


def _reachable(state: dict, roots: set[str]) -> set[str]:
    """Widget model ids reachable from ``roots`` through ``IPY_MODEL_`` references."""
    seen, todo = set(), list(roots)
    while todo:
        model = todo.pop()
        if model in seen or model not in state:
            continue
        seen.add(model)
        todo += _MODEL_REF.findall(str(state[model].get("state", {})))
    return seen


def strip_progress_bars(nb: nbformat.NotebookNode) -> int:
    """Remove tqdm progress bars from the outputs and their unused widget state; return how
    many outputs were removed."""
    removed_views, kept_views, count = set(), set(), 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        kept = []
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(_WIDGET_VIEW, {}).get("model_id")
            if is_progress_bar(output):
                count += 1
                if view:
                    removed_views.add(view)
            else:
                kept.append(output)
                if view:
                    kept_views.add(view)
        cell.outputs = kept
    widgets = nb.metadata.get("widgets", {}).get(_WIDGET_STATE, {})
    state = widgets.get("state")
    if removed_views and isinstance(state, dict):
        unused = _reachable(state, removed_views) - _reachable(state, kept_views)
        for model in unused:
            del state[model]
        if not state:  # no widget left: the page needs no widget manager
            del nb.metadata["widgets"]
    return count


def _tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def assigned_values(source: str) -> dict[str, Any]:
    """The names a cell assigns to literals, in order (``profile = "ci"`` → ``{"profile": "ci"}``).

    Assignments whose value is not a literal are left out.
    """
    values: dict[str, Any] = {}
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return values
    for node in body:
        if isinstance(node, ast.Assign):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values[target.id] = value
    return values


def parameter_values(nb: nbformat.NotebookNode) -> dict[str, Any]:
    """The parameters in effect: the ``parameters`` cell's defaults, overridden by the injected."""
    values: dict[str, Any] = {}
    for tag in PARAMETER_TAGS:
        for cell in nb.cells:
            if cell.cell_type == "code" and tag in _tags(cell):
                values.update(assigned_values(cell.source))
    return values


#: What a parameter left at ``None`` means in the chapters, said beside it on the page.
NONE_MEANS = {"seeds": "each experiment's own number of seeds under the profile"}


def parameters_line(values: dict[str, Any]) -> str:
    """The Markdown line that replaces the parameters cells on the page (a parameter left at
    ``None`` is followed by what that means, from :data:`NONE_MEANS`)."""
    if not values:
        return "*Executed without parameters.*"
    shown = ", ".join(f"`{name} = {value!r}`" + (f" ({NONE_MEANS[name]})" if value is None
                                                  and name in NONE_MEANS else "")
                      for name, value in values.items())
    return (f"*Executed with* {shown} *(see [how each page was produced]"
            f"(../reproducibility.md)).*")


def prepare_for_reading(nb: nbformat.NotebookNode) -> bool:
    """Remove progress bars; tag the parameters cells ``remove-cell`` and put the parameters
    line before them.

    Returns whether ``nb`` changed. Notebooks without parameters cells keep their cells.
    """
    changed = strip_progress_bars(nb) > 0
    positions = [i for i, c in enumerate(nb.cells)
                 if c.cell_type == "code" and set(_tags(c)) & set(PARAMETER_TAGS)]
    if not positions:
        return changed
    for i in positions:
        tags = _tags(nb.cells[i])
        if REMOVE_TAG not in tags:
            nb.cells[i].setdefault("metadata", {})["tags"] = [*tags, REMOVE_TAG]
            changed = True
    text = parameters_line(parameter_values(nb))
    existing = [c for c in nb.cells if c.get("metadata", {}).get(GENERATED) == "parameters"]
    if existing:
        if existing[0].source != text:
            existing[0].source = text
            changed = True
        return changed
    line = nbformat.v4.new_markdown_cell(text, metadata={GENERATED: "parameters"})
    line.pop("id", None)
    if nb.get("nbformat_minor", 0) >= 5:
        line["id"] = "memnb-parameters-line"
    nb.cells.insert(positions[0], line)
    return True


def prepare_file(path: Path) -> bool:
    """:func:`prepare_for_reading` on the notebook file ``path``; rewrite it only if it changed."""
    nb = nbformat.read(path, as_version=4)
    if not prepare_for_reading(nb):
        return False
    nbformat.write(nb, path)
    return True
