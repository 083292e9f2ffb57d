"""The reproduction scorecard: every numbered item of the three papers with a computed status.

``build_scorecard(profile)`` evaluates the items declared in ``memnb/scorecard/<paper>.py``;
``memnb scorecard`` prints them; :mod:`memnb.scorecard.render` turns them into the book's tables.
"""

from memnb.scorecard.core import (
    COLUMNS,
    PAPERS,
    Item,
    NotComputable,
    NotRun,
    ResultSource,
    Row,
    build_scorecard,
    item,
    load_items,
    status_counts,
    to_frame,
    to_json,
)
from memnb.scorecard.criteria import STATUSES, Verdict

__all__ = ["COLUMNS", "PAPERS", "STATUSES", "Item", "NotComputable", "NotRun", "ResultSource",
           "Row", "Verdict", "build_scorecard", "item", "load_items", "status_counts",
           "to_frame", "to_json"]
