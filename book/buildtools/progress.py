"""Progress of a chapter's execution on the terminal, cell by cell (never in the notebook).

papermill runs a notebook through an *engine*; :class:`ProgressEngine` is its nbclient engine with
a :class:`CellReporter` attached, which prints one line as each code cell starts (its number, the
time since the chapter started and its first line of code) and one more when a cell took long.
In a terminal the start lines overwrite each other; in a log every line stays.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TextIO

from papermill.engines import NBClientEngine, papermill_engines

ENGINE = "memnb-progress"


def first_line(source: str, width: int = 72) -> str:
    """The first non-empty line of ``source``, shortened to ``width`` characters."""
    line = next((s.strip() for s in source.splitlines() if s.strip()), "")
    return line if len(line) <= width else line[:width - 1] + "…"


class CellReporter:
    """Prints the progress of one chapter's code cells to ``stream`` (default: stderr)."""

    def __init__(self, name: str, cells: list, stream: TextIO | None = None,
                 slow_s: float = 30.0) -> None:
        self.name = name
        self.total = sum(1 for c in cells if c.cell_type == "code")
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.slow_s = slow_s
        self.count = 0
        self.chapter_start = time.perf_counter()
        self.cell_start = self.chapter_start

    def _elapsed(self) -> str:
        minutes, seconds = divmod(int(time.perf_counter() - self.chapter_start), 60)
        return f"{minutes}:{seconds:02d}"

    def _write(self, text: str, *, transient: bool = False) -> None:
        if self.tty:
            self.stream.write("\r\x1b[K" + text + ("" if transient else "\n"))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def start(self, cell) -> None:
        """A cell starts: report code cells."""
        if cell.cell_type != "code":
            return
        self.count += 1
        self.cell_start = time.perf_counter()
        self._write(f"[book] {self.name} cell {self.count}/{self.total} ({self._elapsed()}): "
                    f"{first_line(cell.source)}", transient=True)

    def complete(self, cell) -> None:
        """A cell is done: report it if it took at least ``slow_s`` seconds."""
        seconds = time.perf_counter() - self.cell_start
        if cell.cell_type == "code" and seconds >= self.slow_s:
            self._write(f"[book] {self.name} cell {self.count}/{self.total} took {seconds:.0f} s: "
                        f"{first_line(cell.source)}")

    def finish(self) -> None:
        """End the transient line of a terminal."""
        if self.tty:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def attach(nb_man, reporter: CellReporter) -> None:
    """Make papermill's execution manager ``nb_man`` call ``reporter`` around every cell."""
    cell_start, cell_complete = nb_man.cell_start, nb_man.cell_complete

    def start(cell, cell_index=None, **kwargs):
        reporter.start(cell)
        return cell_start(cell, cell_index, **kwargs)

    def complete(cell, cell_index=None, **kwargs):
        result = cell_complete(cell, cell_index, **kwargs)
        reporter.complete(cell)
        return result

    nb_man.cell_start, nb_man.cell_complete = start, complete


class ProgressEngine(NBClientEngine):
    """papermill's nbclient engine, reporting each cell to the terminal.

    The chapter's name is the stem of the output notebook.
    """

    @classmethod
    def execute_managed_notebook(cls, nb_man, kernel_name, **kwargs):
        reporter = CellReporter(Path(str(nb_man.output_path)).stem, nb_man.nb.cells)
        attach(nb_man, reporter)
        try:
            return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)
        finally:
            reporter.finish()


def register() -> str:
    """Register :class:`ProgressEngine` with papermill; return its engine name."""
    papermill_engines.register(ENGINE, ProgressEngine)
    return ENGINE
