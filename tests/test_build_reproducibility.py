"""The generated page "How each page was produced" (book/buildtools/reproducibility.py): per
chapter the profile, device, execution time and slowest cells from papermill's metadata, the
results drawn with their provenance, and the environment recorded when the chapter ran."""

from __future__ import annotations

import json
import platform
import re
import sys
from pathlib import Path

import nbformat

from memnb.experiments.registry import get
from memnb.fingerprint import code_fingerprint, code_modules

REPO = Path(__file__).resolve().parent.parent
if str(REPO / "book") not in sys.path:  # book/buildtools is imported as book/build.py does
    sys.path.insert(0, str(REPO / "book"))

from buildtools import keys, reproducibility  # noqa: E402


def _executed_chapter(folder: Path, name: str, durations: list[float]) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["papermill"] = {"parameters": {"profile": "quick", "device": "cpu"},
                                "duration": sum(durations),
                                "start_time": "2026-01-02T03:04:05.678901"}
    nb.cells = [nbformat.v4.new_markdown_cell(f"# The {name} chapter\n\nProse.")]
    for i, seconds in enumerate(durations):
        nb.cells.append(nbformat.v4.new_code_cell(
            f"\nstep_{i}(profile)\nmore()", metadata={"papermill": {"duration": seconds}}))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.ipynb"
    nbformat.write(nb, path)
    key = {"notebook": "n", "memnb": "m", "profile": "quick", "device": "cpu",
           "experiments": ["dana.exp1"],
           "results": "r", "inputs": "i"}
    keys.write_key(path, key, environment={
        "python": "3.11.7", "torch": "2.5.0", "numpy": "2.1.0", "platform": "Linux-x",
        "cpu": "x86_64, 2 cores", "gpu": "none", "commit": "abc1234"})
    return path


def _result(root: Path, profile: str, commit: str, device: str, wall: float,
            name: str = "dana.exp1") -> None:
    folder = root / profile
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.csv").write_text("H,acc\n1,0.5\n")
    (folder / f"{name}.json").write_text(json.dumps({
        "experiment": name, "paper_figure": "Fig. 1a", "device_name": device,
        "seeds": 5, "rows": 1, "wall_time_s": wall, "git_commit": commit,
        "started_utc": "2026-01-01T10:00:00+00:00"}))


def test_page_reports_each_chapter_its_slowest_cells_results_and_environment(tmp_path):
    chapter = _executed_chapter(tmp_path / "chapters", "dana", [0.5, 42.25, 3.0, 7.5])
    results = tmp_path / "results"
    _result(results, "quick", "1111111aaaa", "CPU (x86_64, 2 threads)", 12.5)
    _result(results, "full", "2222222bbbb", "NVIDIA H100", 1778.0)
    _todays_code(results / "full" / "dana.exp1.json")
    page = reproducibility.page_markdown([chapter], results)

    assert page.startswith("# How each page was produced")
    assert "## The dana chapter" in page
    assert "Profile `quick`, device `cpu`" in page
    assert "2026-01-02 03:04:05 UTC in 53.2 s (4 code cells)" in page
    slowest = page[page.index("Slowest cells:"):page.index("Results drawn")]
    rows = [line for line in slowest.splitlines() if line.startswith("| ") and "---" not in line]
    assert rows[1:] == ["| 2 | 42.2 | `step_1(profile)` |", "| 4 | 7.5 | `step_3(profile)` |",
                        "| 3 | 3.0 | `step_2(profile)` |"]
    assert ("| `dana.exp1`: Dana et al. Fig. 1a | fresh (quick), 5 seeds, 1 row | "
            "CPU (x86_64, 2 threads) "
            "| 12.5 | `1111111`, 2026-01-01 10:00 |") in page
    assert ("| `dana.exp1`: Dana et al. Fig. 1a | full (cached), 5 seeds, 1 row | NVIDIA H100 | "
            "1778.0 | "
            "`2222222`, 2026-01-01 10:00 |") in page
    assert "newer than the page" not in page and "read from the cache" not in page
    # a fresh run that found its points cached took about 0 s: the table says why
    path = results / "quick" / "dana.exp1.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "wall_time_s": 0.0,
                                "cached_points_reused": 8}))
    assert ("| CPU (x86_64, 2 threads) | 0.0 (8 points read from the cache, not computed) |"
            in reproducibility.page_markdown([chapter], results))
    # a run resumed over calls: the points its earlier calls computed are in its total time
    path.write_text(json.dumps({**json.loads(path.read_text()), "total_wall_time_s": 90.0,
                                "invocations": [{"points_done": 8, "device_name": "CPU"},
                                                {"points_done": 8, "device_name": "CPU"}]}))
    assert "| 90.0 |" in reproducibility.page_markdown([chapter], results)
    assert "| dana | 3.11.7 | 2.5.0 | 2.1.0 | Linux-x | x86_64, 2 cores | none | abc1234 |" in page


def _todays_code(path: Path, **more: object) -> None:
    """Record today's code fingerprint of ``dana.exp1`` (and ``more``) in a provenance file."""
    code = code_fingerprint(code_modules(get("dana.exp1").fn.__module__))
    path.write_text(json.dumps({**json.loads(path.read_text()), "code_fingerprint": code,
                                **more}))


def test_a_partial_full_run_and_one_of_earlier_code_say_so_in_their_row(tmp_path):
    """A full run drawn on a page says, computed from its provenance, how many of its points
    ran when it is partial, and which code computed it when today's did not; the seeds are
    counted in the table, not read from the provenance's ``seeds``."""
    chapter = _executed_chapter(tmp_path / "chapters", "dana", [1.0])
    results = tmp_path / "results"
    _result(results, "full", "2222222bbbb", "NVIDIA H100", 60.0)
    path = results / "full" / "dana.exp1.json"
    (results / "full" / "dana.exp1.csv").write_text("H,seed,acc\n1,0,0.5\n2,0,0.6\n")
    path.write_text(json.dumps({**json.loads(path.read_text()), "device": "cuda",
                                "code_fingerprint": "6a076331fd680136", "complete": False,
                                "points_done": 10, "missing_points": [{"H": 3}] * 15}))
    page = reproducibility.page_markdown([chapter], results)
    assert ("| `dana.exp1`: Dana et al. Fig. 1a | full (cached), partial: 10 of 25 points ran, "
            "1 seed, 1 row |") in page
    # review: its code is a column of its own, in the words the page defines
    assert "| `2222222`, 2026-01-01 10:00 | earlier code, not re-keyed (`6a076331…`) |" in page
    assert "*Earlier code, not re-keyed*: no re-key carried its points" in page
    assert "the seeds are counted in the result table itself" in page
    _todays_code(path, complete=True)
    page = reproducibility.page_markdown([chapter], results)
    assert "| `dana.exp1`: Dana et al. Fig. 1a | full (cached), 1 seed, 1 row |" in page
    assert "| `2222222`, 2026-01-01 10:00 | today's code |" in page


def test_a_replication_is_listed_in_the_chapter_that_reads_it_and_no_other(tmp_path):
    """A replication (ours) of a chapter's experiment, under ``replications/full/``, is a row of
    that chapter's results, with its device, commit, start and wall time read from its
    provenance as the committed rows are; a chapter whose experiments have none lists none."""
    dana = _executed_chapter(tmp_path / "chapters", "dana", [1.0])
    mahdavi = _executed_chapter(tmp_path / "chapters", "mahdavi", [1.0])
    keys.write_key(mahdavi, {**keys.stored_key(mahdavi), "experiments": ["mahdavi.heads"]},
                   environment={})
    results = tmp_path / "results"
    _result(results, "full", "2222222bbbb", "NVIDIA H100", 1778.0)
    _result(results, "full", "4444444dddd", "CPU", 60.0, name="mahdavi.heads")
    _todays_code(results / "full" / "dana.exp1.json")
    assert "| replication (ours)" not in reproducibility.page_markdown([dana, mahdavi], results)
    _result(results / "replications", "full", "3333333cccc", "CPU (x86_64, 2 threads)", 900.0)
    _todays_code(results / "replications" / "full" / "dana.exp1.json")
    page = reproducibility.page_markdown([dana, mahdavi], results)
    dana_section = page[page.index("## The dana chapter"):page.index("## The mahdavi chapter")]
    mahdavi_section = page[page.index("## The mahdavi chapter"):page.index("## Environment")]
    assert ("| `dana.exp1`: Dana et al. Fig. 1a | replication (ours), 5 seeds, 1 row | "
            "CPU (x86_64, 2 threads) | 900.0 | `3333333`, 2026-01-01 10:00 |") in dana_section
    # the committed run beside it
    assert "| `dana.exp1`: Dana et al. Fig. 1a | full (cached), 5 seeds, 1 row |" in dana_section
    # a chapter whose experiments have no replication lists none
    assert re.search(r"\| `mahdavi\.heads`: [^|]+ \| full \(cached\)", mahdavi_section)
    assert "| replication (ours)" not in mahdavi_section


def test_a_replications_call_that_computed_no_point_is_not_in_its_time_or_commit(tmp_path):
    """A replication whose invocations include a call that computed 0 points (stopped at once,
    from a checkout with uncommitted edits, beside the call that computed the table): the row's
    commit and start are the computing call's, and its wall time is that call's, the other
    call's time and commit named beside it with the recorded total."""
    chapter = _executed_chapter(tmp_path / "chapters", "dana", [1.0])
    results = tmp_path / "results"
    _result(results / "replications", "full", "7f69545aaaa", "CPU (x86_64, 2 threads)", 912.74)
    path = results / "replications" / "full" / "dana.exp1.json"
    _todays_code(path, total_wall_time_s=1085.16, cached_points_reused=0, points_computed=385,
                 invocations=[
                     {"started_utc": "2026-11-29T13:45:06+00:00", "wall_time_s": 172.42,
                      "git_commit": "17a30d5aaaa+uncommitted-changes", "points_done": 0,
                      "device_name": "CPU (x86_64, 2 threads)", "points_computed": 0},
                     {"started_utc": "2026-11-29T13:45:10+00:00", "wall_time_s": 912.74,
                      "git_commit": "7f69545aaaa", "points_done": None,
                      "device_name": "CPU (x86_64, 2 threads)", "points_computed": 385}])
    page = reproducibility.page_markdown([chapter], results)
    # the long note goes below the table, the cell keeps the number and a mark (review: the
    # note wrapped into some nineteen lines of the narrow column)
    assert "| 912.7 (note 1) | `7f69545`, 2026-11-29 13:45 |" in page
    assert ("Note 1 (`dana.exp1`, replication (ours)): 912.7 s (time of the calls that computed "
            "points; not counted: 1 recorded call that computed no point, 172.4 s from "
            "`17a30d5 + uncommitted changes`; 1085.2 s recorded in all).") in page
    # every call computed points: the recorded total, as for any run
    _todays_code(path, invocations=[{"wall_time_s": 1085.16, "git_commit": "7f69545aaaa",
                                     "points_computed": 385, "started_utc": "2026-11-29T13:45"}])
    page = reproducibility.page_markdown([chapter], results)
    assert "| 1085.2 | `7f69545`, 2026-11-29 13:45 |" in page
    # a call that computed nothing in 0.01 s changes neither number shown: not listed (review:
    # "0.0 s from ..." beside a total equal to the time shown was noise)
    _todays_code(path, total_wall_time_s=912.75, invocations=[
        {"started_utc": "2026-11-29T13:45:06+00:00", "wall_time_s": 0.01,
         "git_commit": "17a30d5aaaa", "points_computed": 0},
        {"started_utc": "2026-11-29T13:45:10+00:00", "wall_time_s": 912.74,
         "git_commit": "7f69545aaaa", "points_computed": 385}])
    page = reproducibility.page_markdown([chapter], results)
    assert "| 912.7 | `7f69545`, 2026-11-29 13:45 |" in page and "recorded call" not in page


def test_results_written_after_the_page_are_flagged(tmp_path):
    chapter = _executed_chapter(tmp_path / "chapters", "dana", [1.0])
    nb = nbformat.read(chapter, as_version=4)
    nb.metadata["papermill"]["end_time"] = "2026-01-01T09:00:00.000000"
    nbformat.write(nb, chapter)
    _result(tmp_path / "results", "quick", "1111111", "CPU", 1.0)  # started 10:00
    page = reproducibility.page_markdown([chapter], tmp_path / "results")
    assert "| `dana.exp1` (newer than the page): Dana et al. Fig. 1a |" in page
    assert ("1 of these results was written after this page was executed (marked *newer than "
            "the page*): the page shows an earlier version of it, or none") in page


def test_a_result_started_before_the_page_ended_but_written_after_is_flagged(tmp_path):
    """The page compares when a result was written (its last call's start plus its wall
    time), not when its call started: a run started before the page ended and written after
    it is newer than the page."""
    chapter = _executed_chapter(tmp_path / "chapters", "dana", [1.0])
    nb = nbformat.read(chapter, as_version=4)
    nb.metadata["papermill"]["end_time"] = "2026-01-01T10:30:00.000000"
    nbformat.write(nb, chapter)
    _result(tmp_path / "results", "quick", "1111111", "CPU", 3600.0)  # 10:00 to 11:00
    page = reproducibility.page_markdown([chapter], tmp_path / "results")
    assert "| `dana.exp1` (newer than the page): Dana et al. Fig. 1a |" in page
    _result(tmp_path / "results", "quick", "1111111", "CPU", 600.0)  # 10:00 to 10:10
    page = reproducibility.page_markdown([chapter], tmp_path / "results")
    assert "(newer than the page)" not in page and "written after this page" not in page


def test_page_without_results_or_chapters_says_so(tmp_path):
    chapter = _executed_chapter(tmp_path / "chapters", "extra", [1.0])
    page = reproducibility.page_markdown([chapter], tmp_path / "no-results")
    assert "This page draws no cached experiment results." in page
    assert "No chapter has been executed yet" in reproducibility.page_markdown([], tmp_path)


def test_environment_names_this_machine():
    import numpy
    import torch

    env = reproducibility.environment(REPO)
    assert env["python"] == platform.python_version()
    assert env["torch"] == torch.__version__ and env["numpy"] == numpy.__version__
    if torch.cuda.is_available():
        assert torch.cuda.get_device_name(0) in env["gpu"]
    else:
        assert env["gpu"] == "none"
    assert env["commit"] != ""


def test_write_page_rewrites_only_on_change(tmp_path):
    path = tmp_path / "page.md"
    assert reproducibility.write_page(path, "a")
    assert not reproducibility.write_page(path, "a")
    assert reproducibility.write_page(path, "b") and path.read_text() == "b"
    nested = tmp_path / "generated" / "page.md"  # a folder a fresh clone does not have
    assert reproducibility.write_page(nested, "c") and nested.read_text() == "c"


def test_a_computation_that_wrote_two_tables_counts_its_time_once(tmp_path):
    """Experiment 4 is written from Experiment 1's points: its provenance records Experiment 1's
    invocations, which the total counts once and its row names."""
    results = tmp_path / "results"
    runs = [{"started_utc": "2026-01-01T00:00:00", "git_commit": "abc", "wall_time_s": 1800.0},
            {"started_utc": "2026-01-01T01:00:00", "git_commit": "abc", "wall_time_s": 1800.0}]
    for name in ("dana.exp1", "dana.exp4"):
        _result(results, "full", "2222222bbbb", "CPU (x86_64, 1 threads)", 1800.0, name=name)
        path = results / "full" / f"{name}.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), "total_wall_time_s": 3600.0,
                                    "invocations": runs}))
    text = reproducibility.full_runs_markdown(["dana.exp1", "dana.exp4"], results)
    assert "1.0 hours of recorded wall time in all, a computation that wrote two tables " \
        "counted once" in text
    assert ("(the same invocations as `dana.exp1` records: one computation written as both "
            "tables, its time counted once)") in text
    assert text.count("written as both tables") == 1  # exp1's own row is not marked
    # a later invocation of exp1 alone (its points read from the cache): exp4's are among them
    path = results / "full" / "dana.exp1.json"
    later = {"started_utc": "2026-01-02T00:00:00", "git_commit": "def", "wall_time_s": 0.1}
    path.write_text(json.dumps({**json.loads(path.read_text()), "invocations": [*runs, later]}))
    text = reproducibility.full_runs_markdown(["dana.exp1", "dana.exp4"], results)
    assert "(invocations among those `dana.exp1` records: one computation written" in text
    assert "the same invocations as" not in text


def test_full_runs_section_lists_committed_results_and_the_experiments_without_one(tmp_path):
    results = tmp_path / "results"
    _result(results, "full", "2222222bbbb", "CPU (x86_64, 1 threads)", 1800.0)
    _result(results, "quick", "1111111aaaa", "CPU (x86_64, 2 threads)", 12.5)  # not a full run
    text = reproducibility.full_runs_markdown(["dana.exp1", "dana.exp5"], results)
    # two tables of the same rows: what ran, then the commits and code that computed it
    assert ("| `dana.exp1` | Dana et al. Fig. 1a | 5 | 30.0 min on CPU (x86_64, 1 thread) |\n"
            in text)
    assert "| `dana.exp1` | `2222222`, 2026-01-01 |" in text
    assert "1111111" not in text and "partial" not in text
    assert "1 of 2 registered experiments" in text and "0.5 hours" in text
    assert "No full-profile result yet" in text and "`dana.exp5`" in text
    assert "None of them ran on a GPU" in text
    # the code of each table: one recorded without a fingerprint is of earlier code, IEEE
    assert "2026-01-01 | earlier code, not re-keyed: not recorded, IEEE denormals |" in text
    assert ("In the words of {doc}`How each page was produced </reproducibility>`, of these 1 "
            "tables 0 were computed by today's code; the other 1 stand") in text
    assert "1800 s" not in text and "cache" not in text  # nothing recorded as reused
    prov = json.loads((results / "full" / "dana.exp1.json").read_text())
    code = code_fingerprint(code_modules(get("dana.exp1").fn.__module__))
    (results / "full" / "dana.exp1.json").write_text(json.dumps(
        {**prov, "code_fingerprint": code, "cpu_denormals": "flushed"}))
    today = reproducibility.full_runs_markdown(["dana.exp1"], results)
    assert f"2026-01-01 | today's code: `{code}`, flushed denormals |" in today
    assert "computed by today's code" not in today and "re-key" not in today
    # points carried over by re-keys (scripts/rekey_cache.py): the code that computed them and
    # the judgements, counted, that carried them to today's fingerprint
    rekeys = [{"from": "aaaa", "to": "bbbb", "why": "the code of commit x with labels changed"},
              {"from": "bbbb", "to": code, "why": "code changed in m.py, reviewed by hand to "
                                                  "compute the same numbers: checks only"}]
    (results / "full" / "dana.exp1.json").write_text(json.dumps(
        {**prov, "code_fingerprint": code, "cpu_denormals": "flushed",
         "code_fingerprint_rekeyed_from": "aaaa", "code_fingerprint_rekeys": rekeys}))
    carried = reproducibility.full_runs_markdown(["dana.exp1"], results)
    assert (f"| re-keyed: `{code}`, flushed denormals; points computed by `aaaa` (2 re-keys, "
            "1 by hand) |") in carried
    assert "of these 1 tables 1 is re-keyed to today's fingerprint (`dana.exp1`)." in carried
    # a run resumed over several invocations: only its earliest points are known to be of `aaaa`
    (results / "full" / "dana.exp1.json").write_text(json.dumps(
        {**prov, "code_fingerprint": code, "cpu_denormals": "flushed",
         "code_fingerprint_rekeyed_from": "aaaa", "code_fingerprint_rekeys": rekeys,
         "invocations": [{"started_utc": "2026-01-01T00:00:00", "wall_time_s": 1.0},
                         {"started_utc": "2026-01-02T00:00:00", "wall_time_s": 1.0}]}))
    assert "; earliest points computed by `aaaa` (2 re-keys, 1 by hand)" in (
        reproducibility.full_runs_markdown(["dana.exp1"], results))
    # a table of today's code computed for an earlier grid of the profile is named as such
    earlier = {**get("dana.exp1").params("full"), "N": 999}
    (results / "full" / "dana.exp1.json").write_text(json.dumps(
        {**prov, "code_fingerprint": code, "cpu_denormals": "flushed",
         "experiment": "dana.exp1", "profile": "full", "params": earlier}))
    assert ("of these 1 tables 1 was computed by today's code (`dana.exp1`); 1 of them under "
            "an earlier `full` profile (`dana.exp1`: not today's grid, so the scorecard names "
            "it and does not judge it).") in reproducibility.full_runs_markdown(["dana.exp1"],
                                                                   results)
    (results / "full" / "dana.exp1.json").write_text(json.dumps(
        {**prov, "code_fingerprint": code, "cpu_denormals": "flushed"}))
    # points read from a cache are named; a table recorded without the count, only when its
    # wall time says so (under a second)
    calls = [{"points_done": 5, "device_name": "CPU"}, {"points_done": 8, "device_name": "CPU"}]
    (results / "full" / "dana.exp1.json").write_text(json.dumps(
        {**prov, "cached_points_reused": 7, "wall_time_s": 1800.0, "invocations": calls}))
    resumed = reproducibility.full_runs_markdown(["dana.exp1"], results)
    assert "over 2 invocations (2 cached points reused, not computed)" in resumed  # 7 - 5
    for recorded, wall, said in [(3, 1800.0, "30.0 min (3 cached points reused, not computed)"),
                                 (0, 0.5, "0 s on"), (None, 0.5, "0 s (points read from the "
                                                                 "cache) on"),
                                 (None, 58.0, "58 s on")]:
        (results / "full" / "dana.exp1.json").write_text(json.dumps(
            {**prov, "cached_points_reused": recorded, "wall_time_s": wall}))
        assert said in reproducibility.full_runs_markdown(["dana.exp1"], results), said
    (results / "full" / "dana.exp1.json").write_text(json.dumps(prov))
    # a partial grid is said to be one, with the points it lacks and what a rerun would reuse
    prov = {**json.loads((results / "full" / "dana.exp1.json").read_text()),
            "code_fingerprint": code, "cpu_denormals": "flushed"}  # today's code
    missing = [{"seed": 3, "H": 4}, {"seed": 4, "H": 4}]
    (results / "full" / "dana.exp1.json").write_text(json.dumps(
        {**prov, "complete": False, "points_done": 6, "missing_points": missing}))
    partial = reproducibility.full_runs_markdown(["dana.exp1"], results)
    assert "30.0 min (partial grid) on" in partial
    assert "`dana.exp1` (partial: 6 of 8 points ran; missing seed ∈ {3, 4}" in partial
    assert "no point cache committed: `memnb run dana.exp1 --profile full --time-limit SECONDS` " \
        "computes today's grid" in partial
    # a partial table of earlier code is replaced by a rerun beside it, not continued
    (results / "full" / "dana.exp1.json").write_text(json.dumps(
        {**prov, "complete": False, "points_done": 6, "missing_points": missing,
         "code_fingerprint": "0123456789abcdef"}))
    assert ("`memnb run dana.exp1 --profile full --rerun --time-limit SECONDS` (a rerun: it "
            "computes beside the committed table, which the chapters read until the rerun is "
            "complete) computes today's grid") in reproducibility.full_runs_markdown(
                ["dana.exp1"], results)
    (results / "full" / "dana.exp1.json").write_text(json.dumps(
        {**prov, "complete": False, "points_done": 6, "missing_points": missing}))
    cache = results / "full" / ".cache" / "dana.exp1"
    cache.mkdir(parents=True)
    (cache / "point.0123456789abcdef.json").write_text("{}")  # of other code
    assert ("none of the 1 cached point files matches today's code: `memnb run dana.exp1 "
            "--profile full --time-limit SECONDS` computes all 8 points"
            ) in reproducibility.full_runs_markdown(["dana.exp1"], results)
    code = code_fingerprint(code_modules(get("dana.exp1").fn.__module__))
    (cache / f"point.{code}.json").write_text("{}")  # of today's code
    assert ("1 of the 2 cached point files match today's code: `memnb run dana.exp1 --profile "
            "full --time-limit SECONDS` reuses them and computes the other 7 of the 8 points"
            ) in reproducibility.full_runs_markdown(["dana.exp1"], results)
    # a partial run of a GPU is continued on a GPU (memnb.results.mixed_device_error)
    (results / "full" / "dana.exp1.json").write_text(json.dumps(
        {**prov, "complete": False, "points_done": 6, "missing_points": missing,
         "device": "cuda"}))
    assert ("`memnb run dana.exp1 --profile full --device cuda --time-limit SECONDS` reuses "
            "them") in reproducibility.full_runs_markdown(["dana.exp1"], results)
    # a resumed run reports the wall time of all its invocations
    (results / "full" / "dana.exp1.json").write_text(json.dumps(
        {**prov, "total_wall_time_s": 3600.0, "invocations": [{}, {}]}))
    assert "60.0 min over 2 invocations on" in reproducibility.full_runs_markdown(
        ["dana.exp1"], results)
    # a run resumed on other devices names each, with the invocations that ran on it
    runs = [{"device_name": "CPU (x86_64, 1 threads)"}, {"device_name": "CPU (x86_64, 1 thread)"},
            {"device_name": "dask cluster"}, {"device_name": "dask cluster"}]
    (results / "full" / "dana.exp1.json").write_text(json.dumps(
        {**prov, "total_wall_time_s": 3600.0, "invocations": runs, "corrections": ["a", "b"]}))
    # the provenance is not named by its path: a path in code font does not wrap, and made the
    # table wider than the page (review: 796 px in a 784 px column)
    corrected = reproducibility.full_runs_markdown(["dana.exp1"], results)
    assert ("60.0 min over 4 invocations on CPU (x86_64, 1 thread) (invocations 1–2); dask "
            "cluster (invocations 3–4); 2 corrections by hand, listed under `corrections` in "
            "its provenance |") in corrected
    first_table = corrected.split("\n\n")[0]
    assert "| experiment | paper item |" in first_table and "`data/" not in first_table
    assert "None of the 1 registered" in reproducibility.full_runs_markdown(
        ["dana.exp1"], tmp_path / "empty")
    # a rerun under way (memnb.reruns) is listed with the points it has computed
    assert "Reruns under way" not in reproducibility.full_runs_markdown(["dana.exp1"], results)
    _result(results, "rerun/full", "3333333cccc", "CPU (x86_64, 2 threads)", 600.0)
    rerun = results / "rerun" / "full" / "dana.exp1.json"
    rerun.write_text(json.dumps({**json.loads(rerun.read_text()), "code_fingerprint": code,
                                 "complete": False, "points_done": 3,
                                 "missing_points": missing * 2}))
    assert ("Reruns under way in `data/results/rerun/full/` (`memnb.reruns`: the table above "
            "stays until the rerun is complete, then moves to `superseded/`): `dana.exp1`: a "
            "rerun by today's code has computed 3 of the 7 points of today's profile (`memnb run "
            "dana.exp1 --profile full --rerun --time-limit SECONDS` continues it).") in (
        reproducibility.full_runs_markdown(["dana.exp1"], results))
    rerun.unlink()
    rerun.with_suffix(".csv").unlink()  # half a result is an error now, not "not run"
    # a result replaced by a run of other code is listed where it is kept
    assert "kept for comparison" not in reproducibility.full_runs_markdown(["dana.exp1"], results)
    kept = results / "full" / "superseded"
    kept.mkdir()
    (results / "full" / "dana.exp1.csv").rename(kept / "dana.exp1.0123456789abcdef.csv")
    (results / "full" / "dana.exp1.json").unlink()  # half a result is an error, not "not run"
    older = {k: v for k, v in prov.items() if k != "cpu_denormals"}  # recorded before the field
    (kept / "dana.exp1.0123456789abcdef.json").write_text(json.dumps(
        {**older, "code_fingerprint": "0123456789abcdef", "complete": False, "points_done": 6,
         "missing_points": missing}))
    # one row each (review: 19 of them in one paragraph), the details below the table
    text = reproducibility.full_runs_markdown(["dana.exp1"], results)
    assert ("Replaced by a later full run of their experiment and kept for comparison, under "
            "`data/results/full/superseded/`:\n\n"
            "| experiment | code | device | seeds | commit | why replaced |\n") in text
    assert ("| `dana.exp1` | `0123456789abcdef`, IEEE denormals | CPU (x86_64, 1 thread) | 5 | "
            "`2222222` | earlier code; partial, 6 of 8 points |") in text
    assert ("- `dana.exp1` of code `0123456789abcdef`: partial: 6 of 8 points ran; missing "
            "seed ∈ {3, 4}") in text
    # a kept table re-keyed to today's code, of an earlier profile: the code it was computed by
    # is named, as the code column of the full runs names it (review: `dana.appendix_dim` read
    # as computed by today's Dana fingerprint)
    (kept / "dana.exp1.0123456789abcdef.json").write_text(json.dumps(
        {**older, "code_fingerprint": code, "code_fingerprint_rekeyed_from": "aaaa",
         "experiment": "dana.exp1", "profile": "full",
         "params": {**get("dana.exp1").params("full"), "N": 999}}))
    (kept / "dana.exp1.0123456789abcdef.json").rename(kept / f"dana.exp1.{code}.json")
    (kept / "dana.exp1.0123456789abcdef.csv").rename(kept / f"dana.exp1.{code}.csv")
    text = reproducibility.full_runs_markdown(["dana.exp1"], results)
    assert (f"| `dana.exp1` | `{code}` (re-keyed from `aaaa`), IEEE denormals | CPU (x86_64, "
            "1 thread) | 5 | `2222222` | earlier `full` profile |") in text
    assert (f"- `dana.exp1` of code `{code}`: computed under an earlier `full` profile (N 999, "
            "today 50)") in text


def test_benchmark_tables_are_read_from_the_records(tmp_path):
    from script_loader import load_script

    record = load_script("benchmarks/record.py", "bench_record")
    folder = tmp_path / "benchmarks"
    grid = {"measure": "Dana et al. Exp. 1 (quick grid)", "runs": 28, "steps_per_run": 256,
            "official_way_s": 75.04, "packed_s": 4.41, "ratio": 17.02}
    flops = {"measure": "packed step", "models": 35, "steps": 200, "gflop_per_s": 23.5,
             "fraction_of_fp32_peak": None}
    path = record.write_record(folder / "bench_sweep.cpu.json", "bench_sweep", "cpu",
                               {"steps": 256}, [grid, flops], record.now())
    assert json.loads(path.read_text())["results"] == [grid, flops]
    text = reproducibility.benchmarks_markdown(folder)
    assert "**`bench_sweep`** on CPU (x86_64" in text and "`python " in text
    assert ("| Dana et al. Exp. 1 (quick grid) | 28 | 256 | 75.0 | 4.4 | 17.0× |") in text
    assert "| packed step | 35 | 200 | 23.5 | – |" in text  # a second table: other columns
    assert "official codes' way (s)" in text and "GFLOP/s" in text
    assert "No benchmark record" in reproducibility.benchmarks_markdown(tmp_path / "none")
    assert "not measured" in text  # no record from a GPU
    record.write_record(folder / "bench_sweep.cuda.json", "bench_sweep", "cpu", {}, [grid],
                        record.now())
    path = folder / "bench_sweep.cuda.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "device": "cuda"}))
    assert "not measured" not in reproducibility.benchmarks_markdown(folder)


def test_precision_table_is_read_from_the_records(tmp_path):
    folder = tmp_path / "precision"
    assert "not been compared" in reproducibility.precision_markdown(folder)
    folder.mkdir()
    record = {"date": "2026-01-02", "git_commit": "abcdef0123", "device": "NVIDIA H100",
              "profile": "quick", "verdict_changes": [{"paper": "P", "item": "Fig. 2a",
                                                       "float32": "trend", "tf32": "differs"}],
              "runs": {"mahdavi.heads": {"largest_difference": {"H": 0.0, "accuracy": 0.0633,
                                                                "memorized": 19.0},
                                         "rows_differing": {"accuracy": 7, "memorized": 7},
                                         "rows": 8, "seconds": {"float32": 8.4, "tf32": 6.7}}}}
    (folder / "precision_check.mahdavi.heads.cuda.json").write_text(json.dumps(record))
    text = reproducibility.precision_markdown(folder)
    assert ("| `mahdavi.heads` | 8 | accuracy: 7 (by up to 0.0633); memorized: 7 (by up to 19) "
            "| 8.4 / 6.7 | Fig. 2a |") in text
    assert "H:" not in text  # a column that agrees is not listed
    assert "`precision_check.mahdavi.heads.cuda.json`: NVIDIA H100, `quick` profile, commit " \
           "`abcdef0`, 2026-01-02" in text


def test_an_experiment_of_ours_beside_a_paper_item_is_not_listed_as_that_item():
    """The pages' "paper item" column names the paper, and an experiment of ours set beside a
    paper's figure (its title ends in "(ours)") says so, so that dana.exp5 and dana.exp5_code do
    not read as the same item."""
    from memnb.experiments.registry import paper_item

    assert paper_item("mahdavi.context", "Fig. 2b") == "Mahdavi et al. Fig. 2b"
    assert paper_item("dana.exp5", "Dana et al. Fig. 3 (Experiment 5)") == (
        "Dana et al. Fig. 3 (Experiment 5)")
    assert paper_item("dana.exp5_code", "Dana et al. Fig. 3 (Experiment 5)") == (
        "ours, beside Dana et al. Fig. 3 (Experiment 5)")
    assert paper_item("compare.capacity", "ours: cross-paper comparison") == (
        "ours: cross-paper comparison")
    assert paper_item("dana.unknown", "Fig. 9") == "Dana et al. Fig. 9"


def test_the_full_runs_say_which_tables_record_the_dataset_files_they_read(monkeypatch):
    """The sentence on dataset files counts the tables of experiments that read one, says which
    record the files' SHA-256 for every point, whether they equal the files found now (or were
    not found), and names those computed before runs recorded them, a resumed run whose earlier
    invocation recorded none among them; nothing for tables that read no file."""
    from memnb import dataset_files

    found = {"mnli/dev_matched.jsonl": "a" * 64, "imdb/train_subset.jsonl": "b" * 64}
    monkeypatch.setattr(dataset_files, "digests", lambda names: dict(found))
    assert reproducibility.data_files_sentence({"dana.exp1": {}}) == ""
    same = {"data_files": {"mnli/dev_matched.jsonl": "a" * 64}}
    other = {"data_files": {"imdb/train_subset.jsonl": "c" * 64}}
    resumed = {"data_files": {"mnli/dev_matched.jsonl": "a" * 64},
               "invocations": [{"points_done": 70}, same]}
    text = reproducibility.data_files_sentence({
        "dana.exp1": {}, "kajitsuka.mnli_curves": same, "kajitsuka.imdb_curves": other,
        "mahdavi.table1": {}, "kajitsuka.capacity": resumed})
    assert text == (
        " 4 of these tables are of experiments that read dataset files, and 2 of them record "
        "the files' SHA-256 for every point (`data_files`), 1 differs from the files this "
        "build found (`kajitsuka.imdb_curves`); the other 2 were computed, in whole or in "
        "part, before runs recorded them (`mahdavi.table1`, `kajitsuka.capacity`): that they "
        "were computed from the files whose SHA-256 `data/README.md` lists is assumed, not "
        "recorded.")
    assert reproducibility.data_files_sentence({"kajitsuka.mnli_curves": same}) == (
        " 1 of these tables is of experiments that read dataset files, and 1 of them records "
        "the files' SHA-256 for every point (`data_files`), equal to those of the files this "
        "build found.")
    found.clear()  # a machine without the data
    assert "this build did not find the files of 1 (`kajitsuka.mnli_curves`)" in (
        reproducibility.data_files_sentence({"kajitsuka.mnli_curves": same}))


def test_the_commits_and_code_columns_name_points_copied_from_earlier_runs(tmp_path):
    """A run that read points copied from the run it replaced (``points_copied``) did not
    compute them: the *commits* cell takes them off its commit's share and names the runs they
    came from, down the chain; the *code* cell says which earlier code computed how many
    (review finding: ``dana.appendix_layout`` named only the commit that computed 54 of 138)."""
    from memnb.provenance import copied_chain

    folder = tmp_path / "full"
    (folder / "superseded").mkdir(parents=True)
    older = {"points_copied": [{"from": "superseded/x.51cd048d9a9f50cc", "points": 33}],
             "rerun_of": {"code_fingerprint": "51cd048d9a9f50cc", "git_commit": "aff3ad0aa",
                          "started_utc": "2026-11-27T10:21"}}
    (folder / "superseded" / "x.ee20886effcd5f24.json").write_text(json.dumps(older))
    provenance = {
        "git_commit": "cae159fbb",
        "invocations": [{"git_commit": "cae159fbb", "started_utc": "2026-11-27T15:00",
                         "points_done": 138}],
        "points_copied": [{"from": "superseded/x.ee20886effcd5f24", "points": 84}],
        "rerun_of": {"code_fingerprint": "ee20886effcd5f24", "git_commit": "54b33aa11",
                     "started_utc": "2026-11-27T12:21"}}
    chain = copied_chain(provenance, folder)
    cell = reproducibility._commits_cell(provenance, "cae159f", "2026-11-27", chain)
    assert cell == ("`cae159f` (54 points computed), 2026-11-27; 84 points copied from the run "
                    "it replaced (`54b33aa`, 2026-11-27); 33 of them copied in turn from the "
                    "run that one replaced (`aff3ad0`, 2026-11-27)")
    assert reproducibility._copied_code_words(chain) == (
        "; the 84 copied points computed by earlier code: 51 by `ee20886effcd5f24`, 33 by "
        "`51cd048d9a9f50cc`")
    # resumed over two commits: the copied points come off the first commit's share, and the
    # date stays the one given (the last computing call's), not the first call's
    resumed = {**provenance, "invocations": [
        {"git_commit": "aaaaaaa11", "started_utc": "2026-11-20T00:00", "points_done": 100},
        {"git_commit": "bbbbbbb22", "started_utc": "2026-11-25T00:00", "points_done": 120}]}
    assert reproducibility._commits_cell(resumed, "bbbbbbb", "2026-11-25", chain).startswith(
        "`aaaaaaa` (16 points computed), `bbbbbbb` (20 points computed), 2026-11-25; 84 points "
        "copied")
    plain = {k: v for k, v in provenance.items() if k not in ("points_copied", "rerun_of")}
    assert copied_chain(plain, folder) == []
    assert reproducibility._commits_cell(plain, "cae159f", "2026-11-27") == "`cae159f`, 2026-11-27"
    assert reproducibility._copied_code_words([]) == ""


def test_the_contention_record_states_the_throughput_of_one_thread_processes():
    """The dask section's claim rests on a measured ratio, stated from the record (review: the
    page said "that many times faster" where the record gives 1.78 on 2 cores)."""
    record = {"benchmark": "bench_contention", "results": [
        {"measure": "one process alone", "processes": 1, "threads_each": 2, "steps_per_s": 219.3},
        {"measure": "two processes", "processes": 2, "threads_each": 2, "steps_per_s": 70.1},
        {"measure": "two, one thread each", "processes": 2, "threads_each": 1,
         "steps_per_s": 195.1}]}
    text = reproducibility.contention_sentence(record)
    assert "made 390.2 steps/s, 1.78 times the 219.3 steps/s of one process alone with 2" in text
    # bare processes were timed, not dask: the ratio bounds what a cluster could gain (review:
    # it read as "the gain that a dask LocalCluster ... would have")
    assert ("threads: the most that a dask `LocalCluster` of one single-threaded worker per core "
            "(section *A dask cluster*) could gain over one process on this workload, on the "
            "machine the record names (bare processes were timed, not dask, whose own overhead "
            "is not measured).") in text
    assert "would have" not in text
    slower = {**record, "results": [record["results"][0],
                                    {**record["results"][2], "steps_per_s": 100.0}]}
    assert "threads: so a dask `LocalCluster` of one single-threaded worker per core (section " \
        "*A dask cluster*) would gain nothing over one process" in (
            reproducibility.contention_sentence(slower))
    assert reproducibility.contention_sentence({**record, "results": record["results"][:2]}) == ""
    assert reproducibility.contention_sentence({**record, "benchmark": "bench_sweep"}) == ""


def _seeds_run(name: str) -> int:
    exp = get(name)
    return exp.seeds_run("full", exp.seeds_asked("full"))


def test_the_full_runs_give_each_papers_seeds_beside_ours(tmp_path):
    """The `full` profile does not run every paper's seeds (review: the page said it runs "the
    papers' grids and seeds" where Mahdavi et al. ran six and we run five): the first item below
    the tables gives ours per paper, read from the profiles, beside the paper's count where our
    sources give it (``memnb.papers``)."""
    from memnb.papers import dana, mahdavi

    names = ["dana.exp1", "dana.exp2", "dana.exp6", "dana.exp5_code", "kajitsuka.capacity",
             "kajitsuka.construction", "mahdavi.heads", "mahdavi.table1"]
    text = reproducibility.full_seeds_words(names)
    theirs = dana.TEXT["seeds_appendix"]
    assert (f"Dana et al.: ours {_seeds_run('dana.exp1')} ({_seeds_run('dana.exp6')} for "
            f"`dana.exp6`); the paper: {theirs.value:g} ({theirs.source})") in text
    assert (f"Kajitsuka & Sato: ours {_seeds_run('kajitsuka.capacity')}; the paper's count is "
            "not in our sources") in text
    assert (f"Mahdavi et al.: ours {_seeds_run('mahdavi.heads')}; the paper: "
            f"{mahdavi.SEEDS.value:g} ({mahdavi.SEEDS.source})") in text
    assert f"Experiments of ours: {_seeds_run('dana.exp5_code')}." in text
    assert "Checks seeded once, whatever is asked: `kajitsuka.construction`, `mahdavi.table1`." \
        in text
    assert reproducibility.full_seeds_words([]) == ""
    # first in the list below the tables, before what concerns the runs themselves
    section = reproducibility.full_runs_markdown(["dana.exp1"], tmp_path / "none")
    assert section.split("\n- ")[1].startswith("Seeds of a `full` run")


def test_the_full_runs_give_the_settings_of_mahdavi_tables_1_and_3():
    """Tables 1 and 3 do not run at the paper's settings (review): the list below the tables
    gives ours, read from the profile, beside the paper's (``memnb.papers.mahdavi``)."""
    from memnb.papers import mahdavi

    text = reproducibility.table_settings_words(["mahdavi.table1", "mahdavi.table3"])
    images = get("mahdavi.table1").params("full")["images"]
    assert images != mahdavi.TABLE1_IMAGES.value
    assert (f"`mahdavi.table1` reads {images:,} ImageNet images where the paper's notebook read "
            f"{mahdavi.TABLE1_IMAGES.value:,}") in text
    table3 = get("mahdavi.table3").params("full")
    assert (f"all-MiniLM-L6-v2 at n = {table3['bert_length']:,} and GPT-2 small at n = "
            f"{table3['gpt_length']:,}, where the paper read Wikipedia with BERT-large at n = "
            f"{mahdavi.TABLE3_GEOMETRY['bert'][0]:,} and GPT-2 large at n = "
            f"{mahdavi.TABLE3_GEOMETRY['gpt2'][0]:,}") in text
    assert reproducibility.table_settings_words(["dana.exp1"]) == ""


def test_the_plan_table_sorts_its_rows_and_marks_a_missing_estimate_as_any_other(tmp_path):
    """Rows follow the experiments' names whatever plan they came from, and an experiment that
    a device's plan lacks reads "-" there like any estimate not made, its note saying which
    plan lacks it (review: `dana.appendix_layout`, merged into the CPU plan only, came last and
    read "not planned")."""
    import pandas as pd

    from memnb import planner

    def plan(name: str, wall: float) -> dict:
        runs, groups = planner.grid_counts(name)
        return planner.ExperimentPlan(name, get(name).paper_figure, runs, groups, 1, 4.9e5,
                                      2.7e11, wall).__dict__

    folder = tmp_path / "plans"
    folder.mkdir()
    about = {"command": "c", "date": "2026-01-01", "git_commit": "abcdef12345",
             "planning_s": 1.0}
    (folder / "full.cpu.json").write_text(json.dumps(planner.plan_record(
        pd.DataFrame([plan("dana.exp6", 300.0), plan("dana.exp3", 600.0)]), device="cpu",
        device_name="CPU (x86_64, 2 threads)", **about)))
    (folder / "full.cuda.json").write_text(json.dumps(planner.plan_record(
        pd.DataFrame([plan("dana.exp6", 30.0)]), device="cuda", device_name="NVIDIA H200",
        **about)))
    text = reproducibility.plans_markdown(folder, tmp_path / "results")
    assert text.index("| `dana.exp3`") < text.index("| `dana.exp6`")
    assert "| 10.0 min | - | - |" in text  # dana.exp3: not in the GPU plan; no recorded run
    assert "| not planned |" not in text
    assert "1 calibrated): not in the NVIDIA H200 plan" in text
    assert 'A "-" marks a value not known' in text and "not planned there" in text


def test_the_rerun_section_compares_each_replication_and_names_unrecorded_kernel_levels(
        tmp_path):
    """*Will a rerun give the same numbers?* lists every replication against its committed run:
    equal or apart as the comparison finds (a table without an accuracy column, cell by cell),
    with both devices; a CPU named without its kernels' instruction set is flagged."""
    results = tmp_path / "results"
    assert "No replication is committed yet." in reproducibility.rerun_section(results)
    _result(results, "full", "2222222bbbb", "CPU (x86_64, 2 threads)", 100.0)
    _result(results / "replications", "full", "3333333cccc", "CPU (x86_64, AVX512, 2 threads)",
            90.0)
    for path in (results / "full" / "dana.exp1.json",
                 results / "replications" / "full" / "dana.exp1.json"):
        _todays_code(path)
    text = reproducibility.rerun_section(results)
    assert text.startswith("## Will a rerun give the same numbers?")
    assert all(test in text for test in reproducibility.RERUN_TESTS)
    assert all((REPO / test).is_file() for test in reproducibility.RERUN_TESTS)
    assert ("1 replication of committed full runs, each computed by the code whose fingerprint "
            "the committed run records: 1 equal to the committed run on everything compared "
            "(`dana.exp1`)" in text)
    assert "re-keys" not in text  # the committed run records no re-key
    assert ("| `dana.exp1` | CPU (x86_64, 2 threads) | CPU (x86_64, AVX512, 2 threads), "
            "2026-01-01 | every one of the 2 cells equal |") in text
    assert "was recorded before device names gave it" in text
    (results / "replications" / "full" / "dana.exp1.csv").write_text("H,acc\n1,0.625\n")
    text = reproducibility.rerun_section(results)
    assert "1 apart from it (`dana.exp1`)" in text and "equal to the committed run" not in text
    assert "1 of the 2 cells differs: `acc` in 1 row (by at most 0.125)" in text
    # both devices named with their instruction set: no flag
    path = results / "full" / "dana.exp1.json"
    path.write_text(json.dumps({**json.loads(path.read_text()),
                                "device_name": "CPU (x86_64, AVX2, 2 threads)"}))
    assert "recorded before device names gave it" not in reproducibility.rerun_section(results)
    # ... unless an earlier call of the committed run ran on a CPU named without it
    path.write_text(json.dumps({**json.loads(path.read_text()), "invocations": [
        {"device_name": "CPU (x86_64, 2 threads)"},
        {"device_name": "CPU (x86_64, AVX2, 2 threads)"}]}))
    assert "recorded before device names gave it" in reproducibility.rerun_section(results)
    # a committed run whose points were re-keyed says so, in the words the page defines
    path.write_text(json.dumps({**json.loads(path.read_text()), "code_fingerprint_rekeys": [
        {"from": "0123456789abcdef", "why": "strings only"}]}))
    assert ("The committed points of this run (`dana.exp1`) are *re-keyed* (see *Words used*, "
            "above): computed by earlier code, then carried to the fingerprint they record by "
            "re-keys (`scripts/rekey_cache.py`; {ref}`Running at scale, The packed sweep engine "
            "<packed-sweep-engine>`, item *The cache is keyed by the code*)."
            in reproducibility.rerun_section(results))
    # review (session 75): a replication re-keyed since it was computed is not said to be
    # computed by the committed run's code
    again = results / "replications" / "full" / "dana.exp1.json"
    again.write_text(json.dumps({**json.loads(again.read_text()),
                                 "code_fingerprint_rekeyed_from": "0123456789abcdef",
                                 "code_fingerprint_rekeys": [
                                     {"from": "0123456789abcdef", "why": "strings only"}]}))
    text = reproducibility.rerun_section(results)
    assert ("1 replication of committed full runs, each re-keyed to the fingerprint the "
            "committed run records (computed by earlier code): ") in text
    assert "each computed by the code whose fingerprint" not in text


def test_rekey_origin_counts_each_committed_chain_of_re_keys():
    """Every committed full run's re-keys (memnb.provenance.rekey_origin): the chain counts the
    listed re-keys, and one more, the docstring rule's, where the fingerprint the points were
    computed with is not the first listed re-key's ``from`` (scripts/rekey_cache.py lists a
    docstring-rule re-key only in a record that already lists one)."""
    import re

    from memnb.provenance import rekey_origin

    seen = 0
    for path in sorted((REPO / "data" / "results" / "full").glob("*.json")):
        provenance = json.loads(path.read_text())
        origin = rekey_origin(provenance)
        if origin is None:
            continue
        seen += 1
        listed = provenance.get("code_fingerprint_rekeys") or []
        source, target, chain, unlisted = origin
        assert (source, target) == (provenance["code_fingerprint_rekeyed_from"],
                                    provenance["code_fingerprint"])
        assert unlisted == (not listed or listed[0]["from"] != source)
        found = re.match(r"through (\d+|one) re-keys?", chain)
        assert found is not None, chain
        assert {"one": "1"}.get(found[1], found[1]) == str(len(listed) + unlisted), path.name
        assert ("the docstring rule" in chain) == unlisted, path.name
        hand = sum("reviewed by hand" in r["why"] for r in listed)
        assert ("reviewed by hand" in chain) == (hand > 0), path.name
    assert seen


def test_the_rerun_section_leaves_the_machine_and_the_re_keyed_code_open(tmp_path, monkeypatch):
    """A committed run apart from both its replication and the table it replaced (which equal
    each other): the measured part stands (no other recorded run reproduces the committed
    table), in short sentences. Review: the page read the difference as one of the machine
    where a measurement contradicts it for `dana.exp1`; with re-keyed points, the machine and
    the code (its fingerprints read from the provenance) are the two open explanations."""
    from types import SimpleNamespace

    import pandas as pd

    from memnb.scorecard import replaced

    folder = tmp_path / "results" / "replications" / "full"
    folder.mkdir(parents=True)
    (folder / "dana.exp1.json").write_text("{}")
    (folder / "dana.exp1.csv").write_text("H,acc\n1,0.625\n")  # a whole result: both halves
    kept = tmp_path / "results" / "full" / "superseded"  # the table the committed run replaced
    kept.mkdir(parents=True)
    (kept / "dana.exp1.0123456789abcdef.csv").write_text("H,acc\n1,0.625\n")
    (kept / "dana.exp1.0123456789abcdef.json").write_text(json.dumps({"platform": "Linux-x"}))
    rekeys = [{"from": "0123456789abcdef", "to": "fedcba9876543210",
               "why": "input checks only, reviewed by hand to compute the same numbers"}]
    current = {"device_name": "CPU (x86_64, AVX2, 2 threads)", "code_fingerprint":
               "fedcba9876543210", "code_fingerprint_rekeyed_from": "0123456789abcdef",
               "code_fingerprint_rekeys": rekeys, "platform": "Linux-x"}
    again = {"device_name": "CPU (x86_64, AVX512, 2 threads)", "started_utc": "2026-01-02",
             "code_fingerprint": "fedcba9876543210", "cpu_denormals": "flushed"}
    before = {"platform": "Linux-x", "device_name": "CPU (x86_64, 1 threads)",
              "code_fingerprint": "1111aaaa2222bbbb"}  # no cpu_denormals: IEEE, its code's
    run = SimpleNamespace(name="dana.exp1", same_code=True, equal=False, apart="1 point apart",
                          current=SimpleNamespace(provenance=current,
                                                  table=pd.DataFrame({"H": [1], "acc": [0.5]})),
                          again=SimpleNamespace(provenance=again,
                                                table=pd.DataFrame({"H": [1], "acc": [0.625]})),
                          against_replaced=SimpleNamespace(committed_apart=True,
                                                           replaced=before))
    monkeypatch.setattr(replaced, "replications", lambda *args: [run])
    text = reproducibility.rerun_section(tmp_path / "results")
    # review: "this is measured" had no antecedent and overclaimed: what is measured is that
    # the replaced table's code and setup give the replication's numbers, each read here
    assert ("For 1 of the 1 runs apart (`dana.exp1`), the table the committed run replaced "
            "equals its replication in every cell. The replaced table ran with code "
            "`1111aaaa…`, 1 thread, IEEE denormals. The replication ran with code `fedcba98…`, "
            "2 threads, flushed denormals. So the code changes between those two, the thread "
            "count and the denormal mode moved no number. None of the 2 other recorded runs of "
            "these tables (the tables replaced, the replications) reproduces the committed "
            "one.") in text
    assert "this is measured" not in text
    # only what differs between the two is said to have moved no number
    before.update(device_name="CPU (x86_64, 2 threads)", code_fingerprint="fedcba9876543210",
                  cpu_denormals="flushed")
    text = reproducibility.rerun_section(tmp_path / "results")
    assert ("The replaced table ran with code `fedcba98…`, 2 threads, flushed denormals. The "
            "replication ran with code `fedcba98…`, 2 threads, flushed denormals. None") in text
    before.update(device_name="CPU (x86_64, 1 threads)", code_fingerprint="1111aaaa2222bbbb")
    before.pop("cpu_denormals")
    # both devices name their instruction set: what they record is said
    assert ("The committed run records `AVX2` for the CPU kernels, the replication `AVX512`. "
            "Two explanations remain open. One is the machine the committed run ran on: its "
            "kernels may have summed in another order. The other is the code: its points "
            "(`0123456789abcdef` → `fedcba9876543210`) were computed by code that was not "
            "rerun, and carried to the fingerprint it records through one re-key, reviewed by "
            "hand.") in text
    assert "read as one of the machine" not in text
    # a first re-key missing from the list is the docstring rule's, counted in the chain
    current["code_fingerprint_rekeys"] = [
        {"from": "1111111111111111", "to": "2222222222222222",
         "why": "the code of commit x with labels and wording changed"}, *rekeys]
    text = reproducibility.rerun_section(tmp_path / "results")
    assert ("The other is the code: its points (`0123456789abcdef` → `fedcba9876543210`) were "
            "computed by code that was not rerun, and carried to the fingerprint it records "
            "through 3 re-keys (the docstring rule, one checked by the syntax-tree script, one "
            "reviewed by hand).") in text
    assert ("lists each re-key with its reason, except, in `dana.exp1`, the first, which "
            "applied the docstring rule.") in text
    # several runs of one origin and chain are named together, counted
    other = SimpleNamespace(**{**vars(run), "name": "dana.exp2"})
    monkeypatch.setattr(replaced, "replications", lambda *args: [run, other])
    text = reproducibility.rerun_section(tmp_path / "results")
    assert ("For 2 of the 2 runs apart (`dana.exp1`, `dana.exp2`), the table each committed run "
            "replaced equals its replication in every cell. The replaced tables ran with code "
            "`1111aaaa…`, 1 thread, IEEE denormals. The replications ran with") in text
    # a replaced table of another setup is named with its experiment
    other.against_replaced = SimpleNamespace(committed_apart=True, replaced={
        **before, "device_name": "CPU (x86_64), dask cluster: 2 workers × 1 task thread, 1 "
        "torch thread each", "code_fingerprint": "3333cccc4444dddd"})
    text = reproducibility.rerun_section(tmp_path / "results")
    assert ("The replaced tables ran with code `1111aaaa…`, 1 thread, IEEE denormals (for "
            "`dana.exp2`: code `3333cccc…`, a dask cluster of 2 workers × 1 task thread, 1 torch "
            "thread each, IEEE denormals). The replications ran with") in text
    other.against_replaced = run.against_replaced
    assert ("The other is the code: their points (both: `0123456789abcdef` → "
            "`fedcba9876543210`) were computed by code that was not rerun, and carried to the "
            "fingerprint they record through 3 re-keys") in text
    assert "except, in every one of these runs, the first, which applied" in text
    monkeypatch.setattr(replaced, "replications", lambda *args: [run])
    current["code_fingerprint_rekeys"] = rekeys
    # review: the page said the machine made the difference where no record names the
    # instruction set; the cause is now said to be inferred, with what the records hold
    current["device_name"] = "CPU (x86_64, 2 threads)"
    text = reproducibility.rerun_section(tmp_path / "results")
    assert ("Why the committed run is apart is not recorded. The committed run records the "
            "same platform string as the table it replaced (`Linux-x`). Neither the committed "
            "run nor the table it replaced names the vector instruction set of its CPU kernels "
            "(the replication names `AVX512`). Two explanations remain open.") in text
    run.against_replaced.replaced["platform"] = "Linux-y"  # another platform: not claimed
    text = reproducibility.rerun_section(tmp_path / "results")
    assert "same platform string" not in text
    assert "is not recorded. Neither the committed run" in text
    # a recorded run that reproduces the committed table is named, not denied
    (kept / "dana.exp1.0123456789abcdef.csv").write_text("H,acc\n1,0.5\n")
    text = reproducibility.rerun_section(tmp_path / "results")
    assert "none of the" not in text
    assert "A table kept under `superseded/` reproduces the committed one for `dana.exp1`." in text
    # a committed run computed by the code it records: the reading stands as measured
    for key in ("code_fingerprint_rekeyed_from", "code_fingerprint_rekeys"):
        current.pop(key)
    text = reproducibility.rerun_section(tmp_path / "results")
    assert "its kernels summing in another order, not of its code.\n" in text
    assert "re-key" not in text and "Two explanations" not in text


def test_kernel_level_is_read_from_cpu_names_of_every_form():
    recorded = reproducibility.kernel_level_recorded
    assert not recorded("CPU (x86_64, 2 threads)") and not recorded("CPU (x86_64, 1 threads)")
    assert not recorded("CPU (x86_64), dask cluster: 2 single-threaded workers")
    assert recorded("CPU (x86_64, AVX512, 2 threads)") and recorded("CPU (x86_64, AVX2), dask "
                                                                   "cluster: 2 workers")
    assert recorded("CPU (aarch64, NO AVX, 4 threads)") and recorded("NVIDIA H200")
    assert not any(recorded(name) for name in (None, "", "cpu", "CPU"))


def test_when_a_result_was_written_is_read_in_utc_and_never_stops_the_page():
    written = reproducibility.written_utc
    assert written({"started_utc": "2026-01-01T10:00:00+00:00", "wall_time_s": 90.5}) == (
        "2026-01-01T10:01:30")
    assert written({"started_utc": "2026-01-01T11:00:00+01:00", "wall_time_s": 60}) == (
        "2026-01-01T10:01:00")  # another offset, converted to UTC
    assert written({"invocations": [{"started_utc": "2026-01-01T09:00:00", "wall_time_s": 1},
                                    {"started_utc": "2026-01-01T10:00:00",
                                     "wall_time_s": 5}]}) == "2026-01-01T10:00:05"  # the last
    assert written({"started_utc": "2026-01-01T10:00:00", "wall_time_s": "n/a"}) == ""
    assert written({"started_utc": None}) == "" and written({}) == ""


def test_a_slowest_cell_is_named_by_its_first_line_that_is_not_an_import():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "from IPython.display import Markdown\nimport numpy as np\n# the scorecard\n"
        "rows = build_scorecard(profile)", metadata={"papermill": {"duration": 2.0}}),
        nbformat.v4.new_code_cell("import numpy as np",
                                  metadata={"papermill": {"duration": 1.0}})]
    timings = reproducibility.cell_timings(nb)
    assert [t["first_line"] for t in timings] == ["rows = build_scorecard(profile)",
                                                   "import numpy as np"]


def test_every_registered_experiment_is_placed_as_trained_or_not():
    """The page says which replicated tables come from training (review: all three equal tables
    train nothing, all eight apart are trained): the build tool's explicit lists must name every
    registered experiment once, so that a new experiment is placed by hand."""
    from memnb.experiments.registry import load_all

    trained, untrained = reproducibility.TRAINED, set(reproducibility.UNTRAINED)
    assert not trained & untrained
    assert trained | untrained == set(load_all())
    assert all(reproducibility.UNTRAINED.values())


def test_the_trained_list_is_what_the_planner_reads_from_the_code():
    """TRAINED is typed by hand; the planner reads from the code whether a sweep's points call
    the training loop (memnb.planner.trains): the two agree for every registered experiment."""
    from memnb.experiments.registry import load_all
    from memnb.planner import capture_sweep, trains

    for name in sorted(load_all()):
        captured = capture_sweep(name, "ci")
        assert captured is not None, name
        assert trains(captured.evaluate) == (name in reproducibility.TRAINED), name


def test_a_re_keyed_run_says_so_in_its_row_and_the_page_says_what_a_re_key_is(tmp_path):
    """Review: 19 of the 21 committed full runs were computed by earlier code and re-keyed, and
    their rows said nothing; the intro promised that such a run says so. The run cell names the
    fingerprint the points were computed with; the intro and the words below it say what a
    re-key, a point and a fingerprint are, without a function's name as the explanation."""
    chapter = _executed_chapter(tmp_path / "chapters", "dana", [1.0])
    results = tmp_path / "results"
    _result(results, "full", "2222222bbbb", "CPU (x86_64, 2 threads)", 60.0)
    path = results / "full" / "dana.exp1.json"
    _todays_code(path)
    page = reproducibility.page_markdown([chapter], results)
    # not re-keyed
    assert "| `dana.exp1`: Dana et al. Fig. 1a | full (cached), 5 seeds, 1 row |" in page
    code = json.loads(path.read_text())["code_fingerprint"]
    _todays_code(path, code_fingerprint_rekeyed_from="39a82dc09d04da6d",
                 code_fingerprint_rekeys=[{"from": "39a82dc09d04da6d", "to": code,
                                           "why": "reviewed by hand"}])
    page = reproducibility.page_markdown([chapter], results)
    assert "| `dana.exp1`: Dana et al. Fig. 1a | full (cached), 5 seeds, 1 row |" in page
    # review: the run's code is a column of its own, with the re-keys counted
    assert "| re-keyed from `39a82dc0…` (1 re-key, by hand) |" in page
    # review: a re-key is not a change of the code; the intro points to the glossary, and
    # the page it names is a link
    assert ("or whose points were computed by earlier code and *re-keyed* (see *Words used "
            "below*; {ref}`Running at scale, The packed sweep engine <packed-sweep-engine>`, "
            "item *The cache is keyed by the code*) says so in its row." in page)
    # review: the syntax-tree script blanks every string, so a re-key is not a proof
    assert "Either way it is a judgement, not a proof" in page
    assert "A re-key is a change of the code" not in page
    assert "a *fresh* run is one at the chapter's own profile" in page
    assert ("(records written before each call recorded its count of points computed add every "
            "call)") in page
    words = page[page.index("Words used below."):page.index("In the tables of results")]
    for term in ("*papermill*", "A *point*", "*point cache*", "*code fingerprint*",
                 "A *re-key*", "*syntax-tree script*", "*docstring rule*", "`corrections`"):
        assert term in words, term
    assert "memnb.provenance.seeds_used" not in page


def test_a_chapter_whose_results_all_appear_elsewhere_points_to_them(tmp_path):
    """Review: the scorecard's table repeated all 47 rows of the four chapters' tables, wider
    than the page. A chapter whose every result is listed by other chapters' tables says how
    many it reads and where; the others keep their tables."""
    results = tmp_path / "results"
    card = _executed_chapter(tmp_path / "chapters", "scorecard", [1.0])
    keys.write_key(card, {**keys.stored_key(card), "experiments": ["dana.exp1", "mahdavi.heads"]},
                   environment=keys.stored_key(card).get("environment", {}))
    dana = _executed_chapter(tmp_path / "chapters", "dana", [1.0])
    mahdavi = _executed_chapter(tmp_path / "chapters", "mahdavi", [1.0])
    keys.write_key(mahdavi, {**keys.stored_key(mahdavi), "experiments": ["mahdavi.heads"]},
                   environment={})
    _result(results, "quick", "1111111aaaa", "CPU (x86_64, 2 threads)", 12.5)
    _result(results, "quick", "1111111aaaa", "CPU (x86_64, 2 threads)", 2.5, name="mahdavi.heads")
    page = reproducibility.page_markdown([card, dana, mahdavi], results)
    section = page[page.index("## The scorecard chapter"):page.index("## The dana chapter")]
    assert "Results drawn on this page" not in section
    assert ("This page reads 2 results (2 fresh (quick)), each listed with its provenance in the "
            "table of a chapter that draws it: *The dana chapter* (1); *The mahdavi chapter* "
            "(1)."
            ) in section
    assert page.count("| `dana.exp1`: Dana et al. Fig. 1a | fresh (quick)") == 1
    # a result only the scorecard reads keeps its table
    keys.write_key(card, {**keys.stored_key(card),
                          "experiments": ["dana.exp1", "mahdavi.heads", "dana.exp2"]},
                   environment={})
    _result(results, "quick", "1111111aaaa", "CPU (x86_64, 2 threads)", 1.5, name="dana.exp2")
    page = reproducibility.page_markdown([card, dana, mahdavi], results)
    section = page[page.index("## The scorecard chapter"):page.index("## The dana chapter")]
    assert "Results drawn on this page" in section and "This page reads" not in section


def test_the_environment_collapses_alike_chapters_and_names_runs_of_other_versions(tmp_path):
    """Review: five identical rows, and no word that the GPU runs were computed with other
    versions (torch 2.11.0+cu130, Python 3.12.3) than the build machine's."""
    results = tmp_path / "results"
    dana = _executed_chapter(tmp_path / "chapters", "dana", [1.0])
    other = _executed_chapter(tmp_path / "chapters", "mahdavi", [1.0])
    _result(results, "full", "2222222bbbb", "NVIDIA H100", 60.0)
    _todays_code(results / "full" / "dana.exp1.json", python="3.11.7", torch_version="2.5.0")
    page = reproducibility.page_markdown([dana, other], results)
    assert "Every chapter was executed with the same machine and versions:" in page
    assert "| all chapters | 3.11.7 | 2.5.0 | 2.1.0 | Linux-x |" in page
    assert "Not every result drawn" not in page  # the provenance records the build's versions
    _todays_code(results / "full" / "dana.exp1.json", python="3.12.3",
                 torch_version="2.11.0+cu130")
    page = reproducibility.page_markdown([dana, other], results)
    # review: the sentence had no verb
    assert ("Not every result drawn was computed with Python 3.11.7 and torch 2.5.0: the full "
            "(cached) run of `dana.exp1` was computed with Python 3.12.3 and torch "
            "2.11.0+cu130, as its provenance records.") in page
    keys.write_key(other, keys.stored_key(other), environment={
        "python": "3.12.3", "torch": "2.5.0", "numpy": "2.1.0", "platform": "Linux-x",
        "cpu": "x86_64, 2 cores", "gpu": "none", "commit": "abc1234"})
    page = reproducibility.page_markdown([dana, other], results)
    assert "The machine and versions each chapter was executed with:" in page
    assert "| dana | 3.11.7 |" in page and "| mahdavi | 3.12.3 |" in page
    assert "than the versions of the chapter that draws them" not in page
    assert "Not every result drawn was computed with the versions of the chapter that" in page


def test_the_scorecards_count_of_verdicts_judged_again_is_read_from_its_output(tmp_path):
    """The short answer reads whether a verdict moved from the scorecard's own sentence; a
    parenthesis holding commas and brackets does not stop it."""
    nb = nbformat.v4.new_notebook()
    text = ("| table |\n\nOf the 24 verdicts judged again on the replications (1 row reads "
            "several replicated runs and is judged again with each in turn: Dana: Thm 1 (a), "
            "Figs. 1b, 2a), none changes. The tables that ...")
    nb.cells = [nbformat.v4.new_code_cell("x", outputs=[nbformat.v4.new_output(
        "display_data", data={"text/markdown": text})])]
    path = tmp_path / "scorecard.ipynb"
    nbformat.write(nb, path)
    found = reproducibility._rejudged_on_replications([path])
    assert (found.chapter, found.judged, found.changed, found.several) == ("scorecard", 24, 0, 1)
    assert (found.undecided, found.moved) == (0, "")
    nb.cells[0].outputs[0]["data"]["text/markdown"] = (
        "Of the 5 verdicts judged again on the replications, 2 change: Fig. 1 (x); Thm 2 (a) "
        "(y). 1 cannot be decided on the replication (`not run` there): Fig. 2 (z).")
    nbformat.write(nb, path)
    found = reproducibility._rejudged_on_replications([tmp_path / "none.ipynb", path])
    assert (found.judged, found.changed, found.several, found.undecided) == (5, 2, 0, 1)
    assert found.moved == "Fig. 1 (x); Thm 2 (a) (y)"
    nb.cells[0].outputs = []
    nbformat.write(nb, path)
    assert reproducibility._rejudged_on_replications([path]) is None


def test_kernel_level_names_the_instruction_set_a_cpu_name_records():
    level = reproducibility._kernel_level
    assert level("CPU (x86_64, AVX512, 2 threads)") == "AVX512"
    assert level("CPU (x86_64, AVX2), dask cluster: 2 workers") == "AVX2"
    assert level("CPU (x86_64, 2 threads)") is None and level("NVIDIA H200") is None
    assert level(None) is None


def test_the_rerun_section_answers_its_question_from_the_committed_data():
    """Review: the section never answered its own question, called the machine the cause where
    the records do not name it, said nothing of `dana.exp4`, and 'the last bits' where an
    accuracy moved by 0.085. Each number is checked against the committed tables here."""
    import re

    import numpy as np
    import pandas as pd

    from memnb.experiments import dana as exp
    from memnb.reruns import point_keys

    root = REPO / "data" / "results"
    again = root / "replications" / "full"
    replicated = sorted(p.stem for p in again.glob("*.json"))
    if not replicated:
        return  # no replication committed: nothing to check against
    rejudged = reproducibility.Rejudgement("scorecard", 24, 0, 1)
    text = reproducibility.rerun_section(root, rejudged)
    short = text[text.index("**In short.**"):text.index("Every random draw")]
    # the largest difference of each accuracy column of a replication, merged point by point
    # here (review: the short answer gave the paper's accuracy only, where the chapter also
    # shows the best checkpoint's, which moved more)
    largest: dict[str, tuple[float, str]] = {}
    for name in replicated:
        a, b = pd.read_csv(root / "full" / f"{name}.csv"), pd.read_csv(again / f"{name}.csv")
        on = [k for k in point_keys(name, "full") or () if k in a and k in b]
        for column in ("accuracy_last_batches", "accuracy", "accuracy_all_contexts"):
            if column not in a or column not in b or "accuracy_last_batches" not in a:
                continue
            merged = a[[*on, column]].merge(b[[*on, column]], on=on)
            gap = float((merged[f"{column}_x"] - merged[f"{column}_y"]).abs().max())
            if gap > largest.get(column, (-1.0, ""))[0]:
                largest[column] = (gap, name)
    if "accuracy_last_batches" in largest:
        gap, name = largest.pop("accuracy_last_batches")
        assert (f"Between a committed run and its replication, the accuracy Dana et al. report "
                f"(the mean over the last training batches) moves by up to {gap:.3f} (`{name}`, "
                f"`accuracy_last_batches`: an accuracy is a fraction of the examples, so "
                f"{100 * gap:.1f} percentage points).") in short
        for column, (gap, _name) in largest.items():
            assert f"{gap:.3f} (`{column}`, " in short, column
        # review: "another CPU" was inferred; the page says the cause is not recorded
        assert "On another CPU" not in short and "Why they differ is not recorded" in short
    assert ("The scorecard judges 24 verdicts again on the replications. 1 row reads several "
            "of them and is judged again with each in turn, so it counts once per run. Of the "
            "24, none changes.") in short
    assert "2 change: x (a)." in reproducibility.rerun_section(
        root, reproducibility.Rejudgement("scorecard", 24, 2, moved="x (a)"))
    assert "The scorecard page judges again" in reproducibility.rerun_section(root)
    # the committed full runs without a replication, those on a GPU named
    committed = {p.stem: json.loads(p.read_text()) for p in sorted((root / "full").glob("*.json"))}
    lacking = [n for n in committed if n not in replicated]
    gpu = [n for n in lacking if str(committed[n].get("device", "")).startswith("cuda")]
    assert (f"{len(lacking)} of the {len(committed)} committed full runs have no replication ("
            + ", ".join(f"`{n}`" for n in lacking) + ")") in short
    if gpu:
        assert f", {len(gpu)} of them computed on a GPU (" + ", ".join(
            f"`{n}`" for n in gpu) + ")" in short
    devices = [json.loads((again / f"{n}.json").read_text()).get("device", "cpu")
               for n in replicated]
    assert ("On a GPU: not measured" in short) == (not any(d.startswith("cuda") for d in devices))
    # the runs apart: what is measured, and that the cause is inferred where nothing names it
    found = re.search(r"For (\d+) of the (\d+) runs apart", text)
    if found:
        assert "equals its replication in every cell. The replaced table" in text
        assert "apart is not recorded." in text
        assert "a difference of the machine or environment it ran on" not in text
    # dana.exp4's pair of instruction sets, computed here from the tables
    if {"dana.exp1", "dana.exp4"} <= set(replicated):
        def slopes(table: pd.DataFrame) -> pd.Series:
            return exp.head_slopes(exp.as_the_paper_reports(table)).set_index(
                ["d", "seed"])["slope"]

        four = pd.read_csv(again / "dana.exp4.csv")
        four = four[four["kind"] == "slope"].set_index(["d", "seed"])["slope"]
        one = slopes(pd.read_csv(again / "dana.exp1.csv"))
        gap = float(np.abs(four - one.reindex(four.index)).max())
        assert f"of the two replications differ by up to {gap:.4f} (accuracy per head)" in text
        # review: the committed dana.exp1's own slopes, which the page left out, equal
        # neither replication's; the machine reading is then not asserted
        committed = slopes(pd.read_csv(root / "full" / "dana.exp1.csv")).reindex(four.index)
        with_one, with_four = int((committed == one.reindex(four.index)).sum()), int(
            (committed == four).sum())
        far = float(np.abs(committed - four).max())
        if with_one == with_four == 0:
            assert (f"The same slopes fitted to the committed `dana.exp1` equal neither "
                    f"replication's: 0 of the {len(four)} `AVX512` ones and 0 of the "
                    f"{len(four)} `AVX2` ones") in text
            assert f"{far:.4f} from the second)" in text
            assert "the records do not tell which." in text
        else:
            assert (f"equal the `AVX512` ones in {with_one} of {len(four)} and the `AVX2` ones "
                    f"in {with_four}.") in text
        # review: the settled finding on dana.exp4 comes first, then its replaced table; no
        # sentence says the replaced table leaves it unsettled
        if "So its difference from its own replication is the one between" in text:
            assert "For `dana.exp4`, the other run apart" not in text
            assert (text.index("So its difference from its own replication")
                    < text.index("Set against the replication, the table `dana.exp4`'s"))


def test_the_short_answer_reads_the_sentence_the_scorecard_writes(tmp_path):
    """The parser of the scorecard's sentence (_rejudged_on_replications) reads what
    memnb.scorecard.replaced.rejudged_summary writes for the replications, so that a change of
    its wording fails here rather than leaving the page without its count."""
    from memnb.scorecard.replaced import Rejudged, rejudged_summary

    judged = [Rejudged("dana.exp5", "dana", "Fig. 3: which model", "trend", "trend"),
              Rejudged("dana.exp5_code", "dana", "Fig. 3: which model", "trend", "differs"),
              Rejudged("dana.exp2", "dana", "Fig. 1b", "reproduced", "reproduced"),
              Rejudged("dana.exp3", "dana", "Fig. 2a", "reproduced", "not run")]
    path = tmp_path / "scorecard.ipynb"
    moved = "Fig. 3: which model with `dana.exp5_code` replaced (trend on the committed run, "
    for subset, expected in ((judged[:3], (3, 1, 1, 0)), (judged[2:3], (1, 0, 0, 0)),
                             (judged[2:], (2, 0, 0, 1)), (judged, (4, 1, 1, 1))):
        text = rejudged_summary(subset, lambda j: j.item, runs="replicated runs",
                                on=("the replications", "the replication", "the replication"))
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell("x", outputs=[nbformat.v4.new_output(
            "display_data", data={"text/markdown": text})])]
        nbformat.write(nb, path)
        found = reproducibility._rejudged_on_replications([path])
        assert (found.judged, found.changed, found.several, found.undecided) == expected, text
        assert found.moved.startswith(moved) == bool(expected[1]), text
        assert found.moved.endswith(")") or not found.moved


def test_the_seeds_item_gives_the_official_codes_count_for_experiment_6():
    """Review: "Dana et al.'s 5 (20 for `dana.exp6`), the paper's 5" read as if we differed
    from the paper on Experiment 6, where the official code repeats it 20 times. The count is
    the profile's, given as the official code's only because the Dana chapter states that
    `dana.exp6` follows the code's count (checked here in the sentence it writes)."""
    source = (REPO / "memnb" / "figures" / "dana.py").read_text()
    assert "which our `full` \"\n        f\"profile of `dana.exp6` follows)" in source
    text = reproducibility.full_seeds_words(["dana.exp1", "dana.exp6"])
    assert (f"; the official code: {_seeds_run('dana.exp6')} for Experiment 6 (reproduction "
            "notes, `dana_2025.md` §3), which our `dana.exp6` follows and Fig. 4 and its CSV "
            "average") in text
    assert "official code" not in reproducibility.full_seeds_words(["dana.exp1"])
    # ours first, named as ours, then the paper's (a later review read "Dana et al.'s 5" as the
    # paper's count); the notes named exist
    assert text.count("Dana et al.: ours ") == 1 and "; the paper: " in text
    for notes in reproducibility.REPRODUCTION_NOTES.values():
        assert (REPO.parent / "shared" / "papers" / notes).is_file() or not (
            REPO.parent / "shared" / "papers").is_dir(), notes


def test_the_settings_item_names_the_models_missing_from_tables_1_and_3(tmp_path):
    """Review: the item left out that Table 1's trained ViT-B/16 and Table 3's trained GPT-2
    were never computed (rows marked `missing`), and that DINOv2-small (ours) stands in for the
    first. Read from the committed tables, and from tables written here."""
    import pandas as pd

    names = ["mahdavi.table1", "mahdavi.table3"]
    full = REPO / "data" / "results" / "full"
    text = reproducibility.table_settings_words(names)
    for name, model in (("mahdavi.table1", "trained_vit_b16"), ("mahdavi.table3", "gpt2_trained")):
        table = pd.read_csv(full / f"{name}.csv")
        gone = ((table["representation"] == model) & (table["check"] == "missing")).any()
        assert (f"(`{name}`" in text.split("are marked `missing`")[0]) == gone, name
    folder = tmp_path / "full"
    folder.mkdir()
    pd.DataFrame({"representation": ["trained_vit_b16", "dinov2_vits14_l0"],
                  "check": ["missing", "assumption1"], "n": [None, 257.0], "d": [None, 384.0],
                  "reason": ["needs the Hugging Face hub: no network", None]}).to_csv(
        folder / "mahdavi.table1.csv", index=False)
    text = reproducibility.table_settings_words(names, tmp_path)
    assert text.endswith("(`memnb.papers.mahdavi.TABLE3_GEOMETRY`); in the committed full "
                         "tables, the rows of the trained ViT-B/16 (`mahdavi.table1`; "
                         "DINOv2-small (ours) stands in for it) are marked `missing`, with no "
                         "n or d: each needs the Hugging Face hub, which the run could not "
                         "reach.")
    pd.DataFrame({"representation": ["trained_vit_b16"], "check": ["missing"], "n": [None],
                  "d": [None], "reason": ["disk full"]}).to_csv(
        folder / "mahdavi.table1.csv", index=False)
    text = reproducibility.table_settings_words(names, tmp_path)
    assert "rows of the trained ViT-B/16 (`mahdavi.table1`) are marked" in text
    assert text.endswith(": `disk full`.")
    (folder / "mahdavi.table1.csv").unlink()
    assert "missing" not in reproducibility.table_settings_words(names, tmp_path)


def test_a_run_with_copied_points_counts_them_with_the_code_that_computed_them():
    """Review: `dana.appendix_layout`'s row said only "points re-keyed from …" where 84 of its
    points were computed by earlier code and copied in (`points_copied`): the row counts them,
    with the code of each run they came from, read from the provenance."""
    from memnb.provenance import CopiedPoints, copied_chain

    chain = [CopiedPoints(84, "superseded/x.ee20886effcd5f24", "54b33aa", None, 0),
             CopiedPoints(33, "superseded/x.51cd048d9a9f50cc", None, None, 1)]
    assert (reproducibility._copied_points_words(chain) == "; 84 points copied from the runs "
            "it replaced (51 computed by `ee20886e…`, 33 by `51cd048d…`)")
    assert (reproducibility._copied_points_words(chain[:1])
            == "; 84 points copied from the run it replaced (84 computed by `ee20886e…`)")
    assert reproducibility._copied_points_words([]) == ""
    path = REPO / "data" / "results" / "full" / "dana.appendix_layout.json"
    if path.is_file():
        provenance = json.loads(path.read_text())
        found = copied_chain(provenance, path.parent)
        copied = sum(link.points for link in found if link.depth == 0)
        words = reproducibility._copied_points_words(found)
        assert (f"; {copied} points copied from the run" in words) == bool(found)


def test_the_scorecards_section_says_its_verdicts_are_judged_again_on_the_replaced_tables(
        tmp_path):
    """Review: the scorecard's section said nothing of the verdicts it judges again on the
    tables kept under `superseded/`: their count is read from the scorecard's own sentence."""
    results = tmp_path / "results"
    card = _executed_chapter(tmp_path / "chapters", "scorecard", [1.0])
    dana = _executed_chapter(tmp_path / "chapters", "dana", [1.0])
    nb = nbformat.read(card, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("x", outputs=[nbformat.v4.new_output(
        "display_data", data={"text/markdown": (
            "Of the 36 verdicts judged again on the replaced tables (5 rows read several "
            "replaced runs and are judged again with each in turn: a, b), 1 changes: Fig. 3 "
            "(reproduced on the committed run, trend on the replaced one, whose grid is "
            "partial). 8 cannot be decided on the replaced table (`not run` there, which "
            "overturns no verdict): Fig. 5 (trend on the committed run, not run on the replaced "
            "one, which is of an earlier profile and so not judged). The tables that ...")})]))
    nbformat.write(nb, card)
    assert reproducibility._rejudged_on([dana, card], "the replaced tables") == (
        "scorecard", 36, 1, 5, 8, "Fig. 3 (reproduced on the committed run, trend on the "
        "replaced one, whose grid is partial)")
    assert reproducibility._rejudged_on([dana, card], "the replications") is None
    page = reproducibility.page_markdown([card, dana], results)
    section = page[page.index("## The scorecard chapter"):page.index("## The dana chapter")]
    # review: the count left out the rows judged once per run, the verdicts that cannot be
    # decided on a replaced table, and which verdict changes
    assert ("36 of its verdicts are also judged again on the tables that committed full runs "
            "replaced, kept under `data/results/full/superseded/` (listed in {ref}`Tables the "
            "committed runs replaced <tables-replaced>`, below). 5 rows read several of them "
            "and are judged again with each in turn, so they count once per run. 8 of the 36 "
            "cannot be decided on the replaced table (`not run` there). Of the other 28, "
            "1 changes: Fig. 3 "
            "(reproduced on the committed run, trend on the replaced one, whose grid is "
            "partial).") in section
    assert "judged again on the tables that committed" not in page[page.index("## The dana "
                                                                             "chapter"):]


def test_the_code_column_names_todays_re_keyed_or_earlier_code():
    """Review: "computed by earlier code" named two runs in the tables and all eleven
    replicated runs in the text; the *code* column now gives each run one of three states,
    computed from its provenance, with the re-keys counted and those reviewed by hand."""
    today = code_fingerprint(code_modules(get("dana.exp1").fn.__module__))
    state = reproducibility.code_state
    assert state("dana.exp1", {"code_fingerprint": today}) == reproducibility.TODAYS_CODE
    assert state("dana.exp1", {"code_fingerprint": "6a076331fd680136"}) == (
        "earlier code, not re-keyed (`6a076331…`)")
    assert state("dana.exp1", {}) == "not recorded"
    rekeys = [{"from": "1111111111111111", "to": "2222222222222222",
               "why": "the code of commit x with labels changed"},
              {"from": "2222222222222222", "to": today, "why": "reviewed by hand: same sums"}]
    provenance = {"code_fingerprint": today, "code_fingerprint_rekeyed_from": "0123456789abcdef",
                  "code_fingerprint_rekeys": rekeys}
    # the first listed re-key does not start at the fingerprint the points were computed with:
    # the docstring rule's, unlisted, is counted
    assert reproducibility.rekey_counts(provenance) == (3, 1)
    # one classification of the chain: the counts and rekey_origin's words read the same kinds
    from memnb.provenance import rekey_kinds, rekey_origin

    assert rekey_kinds(provenance) == ["docstring", "syntax", "hand"]
    assert rekey_origin(provenance)[2] == ("through 3 re-keys (the docstring rule, one checked "
                                           "by the syntax-tree script, one reviewed by hand)")
    assert rekey_kinds({"code_fingerprint": today, "code_fingerprint_rekeyed_from": today}) is None
    assert state("dana.exp1", provenance) == "re-keyed from `01234567…` (3 re-keys, 1 by hand)"
    assert state("dana.exp1", provenance, copied=True).startswith("own points re-keyed from")
    provenance["code_fingerprint_rekeyed_from"] = "1111111111111111"
    assert state("dana.exp1", provenance) == "re-keyed from `11111111…` (2 re-keys, 1 by hand)"
    provenance["code_fingerprint_rekeys"] = rekeys[:1]
    assert state("dana.exp1", provenance).endswith("(1 re-key, none by hand)")
    # the committed runs: each state counted, in the paragraph on how to compute a run again
    full = REPO / "data" / "results" / "full"
    committed = {p.stem: json.loads(p.read_text()) for p in sorted(full.glob("*.json"))}
    if not committed:
        return
    states = {name: state(name, prov) for name, prov in committed.items()}
    earlier = [n for n, s in states.items() if s.startswith("earlier")]
    rekeyed = [n for n, s in states.items() if s.startswith("re-keyed")]
    text = reproducibility._rerun_how_words(committed, "the scorecard page")
    assert f"Of the {len(committed)} committed full runs (see *Words used*, above), " in text
    def verb(names: list[str]) -> str:  # review (session 75): "1 were computed by"
        return "is" if len(names) == 1 else "are"

    if rekeyed:
        assert f"{len(rekeyed)} {verb(rekeyed)} re-keyed" in text
    if earlier:
        assert (f"{len(earlier)} {verb(earlier)} of earlier code, not re-keyed ("
                + ", ".join(f"`{n}`" for n in earlier) + ")") in text
        assert "`memnb run NAME --profile full --rerun` recomputes" in text
    else:
        assert "--rerun" not in text
    todays = [n for n, s in states.items() if s == reproducibility.TODAYS_CODE]
    if todays:
        assert (f"{len(todays)} {'was' if len(todays) == 1 else 'were'} computed by "
                f"{reproducibility.TODAYS_CODE}") in text
    assert " 1 were " not in text and " 1 are " not in text
    gpu = [n for n, prov in committed.items() if str(prov.get("device", "")).startswith("cuda")]
    assert ("Add `--device cuda` to" in text) == bool(gpu)
    for name in gpu:
        assert f"`{name}`" in text[text.index("--device cuda"):]


def test_the_page_lists_the_tables_kept_under_superseded(tmp_path):
    """Review: the scorecard judges verdicts on the tables under `superseded/`, whose
    provenance the page never gave. One row each, read from the committed tables: code,
    device, start, whether complete, and whether the scorecard judges again on it (the last
    table each committed run replaced)."""
    from memnb.experiments.registry import load_all
    from memnb.reruns import replaced_result
    from memnb.results import load_superseded

    names = sorted(load_all())
    text = reproducibility.superseded_section(names)
    kept = [(n, e) for n in names for e in load_superseded(n, "full")]
    if not kept:
        assert text == ""
    else:
        assert text.startswith(f"({reproducibility.SUPERSEDED_LABEL})=\n"
                               f"## {reproducibility.SUPERSEDED_TITLE}")
        rows = [line for line in text.splitlines() if line.startswith("| `")]
        assert len(rows) == len(kept) and f"{len(kept)} tables are kept" in text
        judged = 0
        for row, (name, e) in zip(rows, kept, strict=True):
            assert row.startswith(f"| `{name}` | `{e.provenance['code_fingerprint']}`")
            assert f"| {str(e.provenance.get('started_utc'))[:10]} |" in row
            assert row.split(" | ")[4].startswith("yes" if e.complete else "no: ")
            latest = replaced_result(name, "full")
            again = latest is not None and latest.provenance_path == e.provenance_path
            judged += again
            # no chapter given: the counts were not printed
            assert row.endswith("| not printed |" if again else "| – |")
        assert f"; {judged} directly by the committed one." in text
    # a partial table says how many of its points ran; none kept: no section
    folder = tmp_path / "full" / "superseded"
    folder.mkdir(parents=True)
    assert reproducibility.superseded_section(["dana.exp1"], tmp_path) == ""
    (tmp_path / "full" / "dana.exp1.csv").write_text("H,acc\n1,0.5\n")
    (tmp_path / "full" / "dana.exp1.json").write_text(json.dumps({
        "experiment": "dana.exp1", "code_fingerprint": "fedcba9876543210"}))
    (folder / "dana.exp1.0123456789abcdef.csv").write_text("H,acc\n1,0.5\n")
    (folder / "dana.exp1.0123456789abcdef.json").write_text(json.dumps({
        "experiment": "dana.exp1", "code_fingerprint": "0123456789abcdef",
        "device_name": "CPU (x86_64, 1 threads)", "started_utc": "2026-01-02T03:00:00",
        "complete": False, "points_done": 3, "missing_points": [{"H": 2}] * 2}))
    text = reproducibility.superseded_section(["dana.exp1"], tmp_path)
    assert ("| `dana.exp1` | `0123456789abcdef`, IEEE denormals | CPU (x86_64, 1 thread) | "
            "2026-01-02 | no: 3 of 5 points | not printed |") in text
    assert "1 table is kept" in text and "; 1 directly by the committed one." in text


def test_the_intro_says_whether_superseded_tables_are_in_a_chapters_key(monkeypatch):
    """Review: the intro listed what executes a chapter again, and the key leaves out the
    tables under `superseded/`, which the chapters read. The sentence follows
    buildtools.keys.result_files."""
    assert "are not part of that key" in reproducibility._superseded_key_words()
    monkeypatch.setattr(keys, "result_files",
                        lambda names, profile, root: sorted(Path(root).rglob("*.csv")))
    assert "are part of that key too" in reproducibility._superseded_key_words()


def test_a_chapter_that_reads_full_runs_in_place_and_seeds_none_say_so(tmp_path):
    """Review: the Dana chapter ran at `quick` yet drew no fresh run, and `seeds = None` was
    not explained. The chapter's own rule (memnb.experiments.dana.full_read_in_place) is asked
    for each experiment; a long wall time is also given in hours."""
    chapter = _executed_chapter(tmp_path / "chapters", "dana", [1.0])
    nb = nbformat.read(chapter, as_version=4)
    nb.metadata["papermill"]["parameters"]["seeds"] = None
    nbformat.write(nb, chapter)
    keys.write_key(chapter, {**keys.stored_key(chapter),
                             "experiments": ["dana.exp1", "dana.exp2"]}, environment={})
    results = tmp_path / "results"
    _result(results, "full", "2222222bbbb", "CPU (x86_64, 2 threads)", 7200.0)
    _todays_code(results / "full" / "dana.exp1.json")
    _result(results, "quick", "1111111aaaa", "CPU (x86_64, 2 threads)", 5.0, name="dana.exp2")
    page = reproducibility.page_markdown([chapter], results)
    assert ("`seeds = None` (each experiment's own count of seeds under the profile)") in page
    assert ("- Under `quick`, this chapter reads the committed full run of an experiment in "
            "place of a `quick` run when that full run is complete "
            "(`memnb.experiments.dana.full_read_in_place`). It does so for 1 of its 2 "
            "experiments.") in page
    assert "| 7200.0 (2.0 h) |" in page
    # every experiment read so: no fresh run, and the page says why
    (results / "quick" / "dana.exp2.json").unlink()
    keys.write_key(chapter, {**keys.stored_key(chapter), "experiments": ["dana.exp1"]},
                   environment={})
    page = reproducibility.page_markdown([chapter], results)
    assert "It does so for its one experiment, so none of its results is a fresh run." in page
    # a partial full run is not read in place
    path = results / "full" / "dana.exp1.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "complete": False,
                                "points_done": 1, "missing_points": [{"H": 2}]}))
    assert "this chapter reads the committed full run" not in reproducibility.page_markdown(
        [chapter], results)
    # another chapter has no such rule
    assert reproducibility.read_in_place({"name": "mahdavi", "profile": "quick",
                                          "experiments": ["dana.exp1"]}, results) == []


def test_both_pages_count_every_re_key_and_say_re_keyed_as_the_glossary_does():
    """Review: the scale page counted only the re-keys listed in `code_fingerprint_rekeys`
    (10 for `dana.exp1`) where this page counts the docstring rule's too (11), and called a
    re-keyed table "today's". Both now count with `rekey_counts` and use the glossary's words."""
    from memnb.experiments.registry import load_all
    from memnb.provenance import rekey_origin
    from memnb.results import read_provenance, result_paths

    names = sorted(load_all())
    text = reproducibility.full_runs_markdown(names)
    checked = 0
    for name in names:
        path = result_paths(name, "full")[1]
        if not path.is_file():
            continue
        provenance = read_provenance(path)
        row = next(line for line in text.splitlines()
                   if line.startswith(f"| `{name}` |") and line.count(" | ") == 2)
        if rekey_origin(provenance) is not None and "re-keyed: " in row:
            total, hand = reproducibility.rekey_counts(provenance)
            assert (f"({total} re-key{'s' * (total != 1)}" + (f", {hand} by hand" if hand
                                                                else "")) in row
            assert "listed in `code_fingerprint_rekeys`" not in row
            checked += 1
        assert "| today: " not in row and "| earlier: " not in row
    rekeyed = text.count("| re-keyed: `")
    if rekeyed:
        assert f"tables {rekeyed} are re-keyed to today's fingerprint" in text
    assert checked == rekeyed


def test_the_replaced_tables_count_the_verdicts_judged_again_on_each(tmp_path):
    """Review: "judged again: yes" stood beside tables no verdict reads. The column now gives
    the scorecard's own counts, read from its printed table of replaced runs, and they add up
    to the total the scorecard's sentence gives."""
    import nbformat

    from memnb.scorecard.replaced import NOT_JUDGED_EARLIER_PROFILE

    table = "\n".join([
        reproducibility.REPLACED_HEADER + " on the points | verdicts: committed → replaced |",
        "|---|---|---|---|",
        "| `dana.exp1` | earlier code | 385 points | *Dana, Pydi & Chevaleyre*: Fig. 1a: "
        "reproduced → trend; Figs. 1b, 2a: which model: reproduced → reproduced; Fig. 5: "
        "trend → not run |",
        "| `dana.exp4` | earlier code | not compared | no row reads it |",
        f"| `mahdavi.table1` | earlier code | not compared | {NOT_JUDGED_EARLIER_PROFILE} |",
        ""])
    notebook = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("show()")
    cell.outputs = [nbformat.v4.new_output("display_data", data={"text/markdown": table})]
    notebook.cells = [cell]
    path = tmp_path / "scorecard.ipynb"
    nbformat.write(notebook, path)
    # an earlier profile's table is not judged again (review, session 75): None, not (0, 0)
    assert reproducibility.rejudged_per_table([path]) == {"dana.exp1": (3, 1),
                                                          "dana.exp4": (0, 0),
                                                          "mahdavi.table1": None}
    assert reproducibility.rejudged_per_table([tmp_path / "missing.ipynb"]) == {}


def test_the_rerun_section_names_the_measured_instruction_set_gap_apart_from_the_rest():
    """Review: the page blamed the machine for the replications' largest gap, of a run whose
    cause it calls not recorded; the one measured instruction-set effect is dana.exp4's."""
    measured = reproducibility._slopes_across_instruction_sets()
    text = reproducibility.rerun_section()
    if measured.largest is None:
        assert "slopes apart by up to" not in text
        return
    first, second = measured.levels
    assert (f"(`dana.exp4`: `{first}` against `{second}`, slopes apart by up to "
            f"{measured.largest:.4f}). Between committed runs and their replications, for a "
            "reason not recorded, ") in text


def test_a_chapters_table_of_results_gives_the_paper_item_in_the_experiments_column(tmp_path):
    """Review: the tables of results of the Dana et al. and Kajitsuka & Sato chapters (seven
    columns, 835 and 808 px) overflowed the page's 784 px column and cut off *code*. The paper
    item now shares the experiment's column, as in the plan table: six columns."""
    chapter = _executed_chapter(tmp_path / "chapters", "dana", [1.0])
    results = tmp_path / "results"
    _result(results, "full", "2222222bbbb", "CPU (x86_64, 2 threads)", 60.0)
    _todays_code(results / "full" / "dana.exp1.json")
    page = reproducibility.page_markdown([chapter], results)
    header = "| " + " | ".join(reproducibility.RESULTS_HEADER) + " |"
    assert header in page and len(reproducibility.RESULTS_HEADER) == 6
    assert "paper item" not in header.replace("experiment: paper item", "")
    row = next(line for line in page.splitlines() if line.startswith("| `dana.exp1`"))
    assert row.startswith("| `dana.exp1`: Dana et al. Fig. 1a | full (cached), ")
    assert row.count(" | ") == len(reproducibility.RESULTS_HEADER) - 1
