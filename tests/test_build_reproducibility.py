"""The generated page "How each page was produced" (book/buildtools/reproducibility.py): per
chapter the profile, device, execution time and slowest cells from papermill's metadata, the
results drawn with their provenance, and the environment recorded when the chapter ran."""

from __future__ import annotations

import json
import platform
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
    assert ("| `dana.exp1` | fresh (quick), 5 seeds, 1 row | Dana et al. Fig. 1a | "
            "CPU (x86_64, 2 threads) "
            "| 12.5 | `1111111`, 2026-01-01 10:00 |") in page
    assert ("| `dana.exp1` | full (cached), 5 seeds, 1 row | Dana et al. Fig. 1a | NVIDIA H100 | "
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
    assert ("| `dana.exp1` | full (cached), partial: 10 of 25 points ran, computed by earlier "
            "code (code fingerprint 6a076331fd680136, GPU arithmetic), 1 seed, 1 row |") in page
    assert "the seeds are counted in the result table itself" in page
    _todays_code(path, complete=True)
    page = reproducibility.page_markdown([chapter], results)
    assert "| `dana.exp1` | full (cached), 1 seed, 1 row |" in page


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
    assert ("| `dana.exp1` | replication (ours), 5 seeds, 1 row | Dana et al. Fig. 1a | "
            "CPU (x86_64, 2 threads) | 900.0 | `3333333`, 2026-01-01 10:00 |") in dana_section
    assert "| `dana.exp1` | full (cached), 5 seeds, 1 row |" in dana_section  # beside it
    # a chapter whose experiments have no replication lists none
    assert "| `mahdavi.heads` | full (cached)" in mahdavi_section
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
    assert ("| 912.7 (time of the calls that computed points; not counted: 1 recorded call that "
            "computed no point, 172.4 s from `17a30d5 + uncommitted changes`; 1085.2 s recorded "
            "in all) | `7f69545`, 2026-11-29 13:45 |") in page
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
    assert "| `dana.exp1` (newer than the page) |" in page
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
    assert "| `dana.exp1` (newer than the page) |" in page
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
    assert "2026-01-01 | earlier: not recorded, IEEE denormals |" in text
    assert "0 of these 1 tables were computed by today's code; the other 1 stand" in text
    assert "1800 s" not in text and "cache" not in text  # nothing recorded as reused
    prov = json.loads((results / "full" / "dana.exp1.json").read_text())
    code = code_fingerprint(code_modules(get("dana.exp1").fn.__module__))
    (results / "full" / "dana.exp1.json").write_text(json.dumps(
        {**prov, "code_fingerprint": code, "cpu_denormals": "flushed"}))
    today = reproducibility.full_runs_markdown(["dana.exp1"], results)
    assert f"2026-01-01 | today: `{code}`, flushed denormals |" in today
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
    assert (f"today: `{code}`, flushed denormals; points computed by `aaaa`, then re-keyed "
            "(2 listed in `code_fingerprint_rekeys`, 1 reviewed by hand) |") in carried
    # a run resumed over several invocations: only its earliest points are known to be of `aaaa`
    (results / "full" / "dana.exp1.json").write_text(json.dumps(
        {**prov, "code_fingerprint": code, "cpu_denormals": "flushed",
         "code_fingerprint_rekeyed_from": "aaaa", "code_fingerprint_rekeys": rekeys,
         "invocations": [{"started_utc": "2026-01-01T00:00:00", "wall_time_s": 1.0},
                         {"started_utc": "2026-01-02T00:00:00", "wall_time_s": 1.0}]}))
    assert "; earliest points computed by `aaaa`, then re-keyed" in (
        reproducibility.full_runs_markdown(["dana.exp1"], results))
    # a table of today's code computed for an earlier grid of the profile is named as such
    earlier = {**get("dana.exp1").params("full"), "N": 999}
    (results / "full" / "dana.exp1.json").write_text(json.dumps(
        {**prov, "code_fingerprint": code, "cpu_denormals": "flushed",
         "experiment": "dana.exp1", "profile": "full", "params": earlier}))
    assert ("All 1 tables were computed by today's code; 1 of them under an earlier `full` "
            "profile (`dana.exp1`: not today's grid, so the scorecard names it and does not "
            "judge it).") in reproducibility.full_runs_markdown(["dana.exp1"], results)
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
    assert ("60.0 min over 4 invocations on CPU (x86_64, 1 thread) (invocations 1–2); dask "
            "cluster (invocations 3–4); 2 corrections by hand, listed under `corrections` in "
            "`data/results/full/dana.exp1.json` |") in reproducibility.full_runs_markdown(
        ["dana.exp1"], results)
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
    # a result replaced by a run of other code is listed where it is kept
    assert "kept for comparison" not in reproducibility.full_runs_markdown(["dana.exp1"], results)
    kept = results / "full" / "superseded"
    kept.mkdir()
    (results / "full" / "dana.exp1.csv").rename(kept / "dana.exp1.0123456789abcdef.csv")
    older = {k: v for k, v in prov.items() if k != "cpu_denormals"}  # recorded before the field
    (kept / "dana.exp1.0123456789abcdef.json").write_text(json.dumps(
        {**older, "code_fingerprint": "0123456789abcdef", "complete": False, "points_done": 6,
         "missing_points": missing}))
    assert ("Replaced by a run of today's code or profile and kept for comparison, under "
            "`data/results/full/superseded/`: `dana.exp1` of code `0123456789abcdef` (CPU "
            "(x86_64, 1 thread), 5 seeds, IEEE denormals, commit `2222222`, partial: 6 of 8 "
            "points ran; missing seed ∈ {3, 4}") in reproducibility.full_runs_markdown(
        ["dana.exp1"], results)


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
    assert reproducibility.contention_sentence({**record, "results": record["results"][:2]}) == ""
    assert reproducibility.contention_sentence({**record, "benchmark": "bench_sweep"}) == ""


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
    # a committed run whose points were re-keyed says so
    path.write_text(json.dumps({**json.loads(path.read_text()), "code_fingerprint_rekeys": [
        {"from": "0123456789abcdef", "why": "strings only"}]}))
    assert ("The committed points of this run (`dana.exp1`) were computed by earlier "
            "code and carried over to the fingerprint they record by re-keys"
            in reproducibility.rerun_section(results))


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


def test_the_rerun_section_says_a_machine_difference_assumes_the_committed_runs_re_key(
        tmp_path, monkeypatch):
    """A committed run apart from both its replication and the table it replaced (which equal
    each other): the measured part stands, and the conclusion that the machine made the
    difference is said to assume the re-key of the committed points, whose fingerprints are
    read from its provenance."""
    from types import SimpleNamespace

    from memnb.scorecard import replaced

    folder = tmp_path / "results" / "replications" / "full"
    folder.mkdir(parents=True)
    (folder / "dana.exp1.json").write_text("{}")
    rekeys = [{"from": "0123456789abcdef", "to": "fedcba9876543210",
               "why": "input checks only, reviewed by hand to compute the same numbers"}]
    current = {"device_name": "CPU (x86_64, AVX2, 2 threads)", "code_fingerprint":
               "fedcba9876543210", "code_fingerprint_rekeyed_from": "0123456789abcdef",
               "code_fingerprint_rekeys": rekeys}
    again = {"device_name": "CPU (x86_64, AVX512, 2 threads)", "started_utc": "2026-01-02",
             "code_fingerprint": "fedcba9876543210"}
    run = SimpleNamespace(name="dana.exp1", same_code=True, equal=False, apart="1 point apart",
                          current=SimpleNamespace(provenance=current),
                          again=SimpleNamespace(provenance=again),
                          against_replaced=SimpleNamespace(committed_apart=True))
    monkeypatch.setattr(replaced, "replications", lambda *args: [run])
    text = reproducibility.rerun_section(tmp_path / "results")
    assert ("equals the replication in every cell: there the changes of code since moved no "
            "number, and the committed run is the one apart from both, a difference of the "
            "machine or environment it ran on, not of its code. That conclusion assumes the "
            "re-key of its points (`0123456789abcdef` → `fedcba9876543210`), made through one "
            "re-key, reviewed by hand, since the code that computed them was not rerun.") in text
    assert "lists each re-key with its reason." in text
    # a first re-key missing from the list is the docstring rule's, counted in the chain
    current["code_fingerprint_rekeys"] = [
        {"from": "1111111111111111", "to": "2222222222222222",
         "why": "the code of commit x with labels and wording changed"}, *rekeys]
    text = reproducibility.rerun_section(tmp_path / "results")
    assert ("assumes the re-key of its points (`0123456789abcdef` → `fedcba9876543210`), made "
            "through 3 re-keys (the docstring rule, one checked by the syntax-tree script, one "
            "reviewed by hand), since") in text
    assert ("lists each re-key with its reason, except, in `dana.exp1`, the first, which "
            "applied the docstring rule.") in text
    # several runs of one origin and chain are named together, counted
    other = SimpleNamespace(**{**vars(run), "name": "dana.exp2"})
    monkeypatch.setattr(replaced, "replications", lambda *args: [run, other])
    text = reproducibility.rerun_section(tmp_path / "results")
    assert "For 2 of the 2 runs apart (`dana.exp1`, `dana.exp2`)" in text
    assert ("of its code. That conclusion assumes the re-key of their points (both: "
            "`0123456789abcdef` → `fedcba9876543210`), made through 3 re-keys") in text
    assert "except, in every one of these runs, the first, which applied" in text
    monkeypatch.setattr(replaced, "replications", lambda *args: [run])
    current["code_fingerprint_rekeys"] = rekeys
    # a committed run computed by the code it records: the conclusion stands as measured
    for key in ("code_fingerprint_rekeyed_from", "code_fingerprint_rekeys"):
        current.pop(key)
    text = reproducibility.rerun_section(tmp_path / "results")
    assert ("a difference of the machine or environment it ran on, not of its code.\n"
            in text) and "re-key" not in text


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
