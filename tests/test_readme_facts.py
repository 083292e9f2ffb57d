"""Statements of README.md and data/README.md checked against the code and the committed
results, so that the prose fails a test when what it states stops being true."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import pytest

from memnb.experiments.registry import get, load_all
from memnb.results import device_kind

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
DATA_README = (REPO / "data" / "README.md").read_text(encoding="utf-8")
FULL = REPO / "data" / "results" / "full"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _names_after(text: str, start: str) -> set[str]:
    """The backticked experiment names in the parenthesis or sentence that follows ``start``."""
    tail = _flat(text).split(start, 1)[1]
    return set(re.findall(r"`([a-z]+\.[a-z0-9_]+)`", re.split(r"\)|\. ", tail, maxsplit=1)[0]))


def _committed_full() -> dict[str, dict]:
    """``{experiment: provenance}`` of the tables in data/results/full/ (not superseded)."""
    return {path.stem: json.loads(path.read_text()) for path in sorted(FULL.glob("*.json"))}


def test_the_scorecard_command_by_default_prints_the_book_page(capsys):
    """README and `memnb scorecard --help` say the default profile is the book page's: the
    profile :func:`memnb.scorecard.render.source_profile` reads for the book's default build."""
    from memnb.cli import build_parser, main
    from memnb.scorecard.render import source_profile

    makefile = (REPO / "Makefile").read_text()
    book_profile = re.search(r"^PROFILE \?= (\w+)$", makefile, re.M).group(1)
    default = build_parser().parse_args(["scorecard"]).profile
    assert default == source_profile(book_profile)
    assert (f"`memnb scorecard` with its default `--profile {default}` prints the rows of the "
            "book's scorecard page") in _flat(README)
    with pytest.raises(SystemExit):
        main(["scorecard", "--help"])
    assert f"default {default}, as the book's scorecard page" in _flat(capsys.readouterr().out)


def test_the_quick_start_names_the_makefile_python_variable():
    assert re.search(r"^PYTHON \?=", (REPO / "Makefile").read_text(), re.M)
    assert "`make book PYTHON=python3.11`" in README


def _gpu_started() -> set[str]:
    """The committed ``full`` runs whose provenance names a GPU."""
    return {name for name, provenance in _committed_full().items()
            if device_kind(provenance.get("device", "cpu")) != "cpu"}


def test_complete_full_runs_are_cpu_runs_and_gpu_runs_are_partial():
    """README, Profiles: "Every complete `full` run committed was computed on a CPU, and every
    committed run started on a GPU is partial", read from the committed provenance JSONs: a GPU
    run committed complete, or a complete run of a GPU, fails this test until the README says
    so."""
    committed = _committed_full()
    gpu = _gpu_started()
    complete = {name: bool(provenance.get("complete", True))
                for name, provenance in committed.items()}
    assert gpu, "no committed run started on a GPU: the README's sentence has nothing to say"
    assert all(name not in gpu for name in committed if complete[name])
    assert not any(complete[name] for name in gpu)
    # every invocation of a complete run ran on a CPU, not only the last one recorded
    for name in committed:
        if complete[name]:
            for call in committed[name].get("invocations") or []:
                assert "NVIDIA" not in str(call.get("device_name", "")), (name, call)
    said = _flat(README)
    assert ("Every complete `full` run committed was computed on a CPU, and every committed run "
            "started on a GPU is partial") in said


def test_the_gpu_started_runs_that_a_cpu_run_refuses_are_the_readmes():
    """README, Profiles: the partial runs started on a GPU by today's code are those that
    `memnb.results.mixed_device_error` refuses to continue on a CPU, and the other GPU-started
    runs are of earlier code, which a CPU run starts anew; both lists read from the committed
    provenance JSONs and the committed point cache."""
    from memnb.results import computed_by_todays_code, mixed_device_error

    gpu = _gpu_started()
    refused = {name for name in gpu
               if mixed_device_error(name, "full", "cpu", FULL.parent) is not None}
    earlier = {name for name in gpu
               if not computed_by_todays_code(name, _committed_full()[name])}
    assert _names_after(README, "mixed_device_error`: the partial runs of") == refused
    assert _names_after(README, "other committed runs started on a GPU (the partial runs of") \
        == gpu - refused
    assert gpu - refused == earlier  # not refused because a run of today's code starts anew
    assert "a run of today's code started on a GPU is not continued on a CPU" in _flat(README)


def test_the_experiments_whose_step_needs_more_memory_than_the_cpu_plans():
    """README, Profiles: "the CPU plan's notes show that four Kajitsuka & Sato experiments (...)
    need more memory for one training step than the planning machine has", read from
    data/plans/full.cpu.json: the rows whose estimated step memory exceeds the plan machine's
    memory, which their notes name. The planning machine is described once, "(2 CPU threads,
    24 GiB of memory)", from the plan's device and its notes: memory is the machine's, not the
    CPU's."""
    from memnb.prose import number_word

    plan = json.loads((REPO / "data" / "plans" / "full.cpu.json").read_text())
    notes = " ".join(str(row.get("note") or "") for row in plan["rows"])
    memory = {int(g) for g in re.findall(r"this device's (\d+) GiB", notes)}
    assert len(memory) == 1, memory  # one machine's memory, named in the notes
    gib = memory.pop()
    over = {row["experiment"] for row in plan["rows"]
            if (row.get("step_memory_bytes") or 0) > gib * 2**30}
    said_over = {row["experiment"] for row in plan["rows"]
                 if f"more than this device's {gib} GiB" in str(row.get("note") or "")}
    assert over == said_over
    said = _flat(README)
    start = "the CPU plan's notes show that "
    listed = _names_after(README, start)
    assert listed == over
    assert f"{start}{number_word(len(over))} Kajitsuka & Sato experiments" in said
    assert all(name.startswith("kajitsuka.") for name in over)
    assert "one training step than the planning machine has" in said
    threads = int(re.fullmatch(r"CPU \(.*, (\d+) threads?\)", plan["device_name"]).group(1))
    machine = f"the planning machine ({threads} CPU threads, {gib} GiB of memory)"
    assert said.count(machine) == 1 and said.count("the planning machine") >= 3
    # review: RAM is not the CPU's, and a thread count is the machine's
    for wrong in ("GiB CPU", "CPU's 24", "2-thread CPU"):
        assert wrong not in said, wrong


def test_two_cpu_runs_of_the_same_code_can_differ():
    """README, Replications: "Two CPU runs of the same code can differ in their last bits with
    the machine, and training carries that on": some committed replication of a training
    experiment (data/plans/full.cpu.json: not "trains nothing") was computed on a CPU by the
    same code as the committed full table, also computed on a CPU, and differs from it."""
    import pandas as pd

    plan = json.loads((REPO / "data" / "plans" / "full.cpu.json").read_text())
    trains = {row["experiment"] for row in plan["rows"]
              if not str(row.get("note") or "").startswith("trains nothing")}
    folder = REPO / "data" / "results" / "replications" / "full"
    committed = _committed_full()
    differing = []
    for path in sorted(folder.glob("*.json")):
        again = json.loads(path.read_text())
        first = committed.get(path.stem)
        if (first is None or again.get("code_fingerprint") != first.get("code_fingerprint")
                or {device_kind(again.get("device", "cpu")),
                    device_kind(first.get("device", "cpu"))} != {"cpu"}):
            continue
        a = pd.read_csv(path.with_suffix(".csv"))
        b = pd.read_csv(FULL / f"{path.stem}.csv")
        if not a.equals(b):
            differing.append(path.stem)
    assert set(differing) & trains, differing
    assert ("Two CPU runs of the same code can differ in their last bits with the machine, and "
            "training carries that on") in _flat(README)


def test_the_full_tables_that_read_a_dataset_record_no_digest():
    """data/README.md names the full tables that read a dataset, those of them that record no
    digest (computed before runs recorded them) and those that record theirs, whose digests it
    gives; the tables that read none record an empty ``data_files`` or none."""
    committed = _committed_full()
    reading = {name for name in committed if name in load_all() and get(name).datasets}
    assert _names_after(DATA_README, "Of the tables in `data/results/full/` that read a "
                                     "dataset") == reading
    recorded = {name for name in reading if committed[name].get("data_files")}
    assert _names_after(DATA_README, "computed before runs recorded digests record none") \
        == reading - recorded
    assert _names_after(DATA_README, "and the others record theirs") == recorded
    for name in recorded:
        for digest in committed[name]["data_files"].values():
            assert f"`{digest}`" in DATA_README
    assert all(committed[name].get("data_files") in ({}, None)
               for name in set(committed) - reading)


def test_the_replications_that_read_a_dataset_record_the_readme_digests():
    folder = REPO / "data" / "results" / "replications" / "full"
    recorded = {path.stem: json.loads(path.read_text()).get("data_files") or {}
                for path in folder.glob("*.json")}
    with_data = {name for name, files in recorded.items() if files}
    assert with_data == _names_after(DATA_README, "The replications of")
    for name in with_data:
        for digest in recorded[name].values():
            assert f"`{digest}`" in DATA_README


def test_the_experiments_that_may_download_a_text_file():
    """data/README.md: the Kajitsuka–Sato experiments that read MultiNLI or IMDb load it with
    download allowed; Mahdavi et al.'s Table 3 reads IMDb with download off."""
    from memnb.data.text import load_imdb, load_mnli
    from memnb.representations import imdb_texts

    text = {name for name in load_all() if {"mnli", "imdb"} & set(get(name).datasets)}
    listed = _names_after(DATA_README, "its experiments that read one")
    assert listed == {name for name in text if name.startswith("kajitsuka.")}
    assert text - listed == {"mahdavi.table3"}
    for loader in (load_mnli, load_imdb):
        assert inspect.signature(loader).parameters["download"].default is True
    assert "download=False" in inspect.getsource(imdb_texts)
    assert "Mahdavi et al.'s Table 3 (`mahdavi.table3`) reads IMDb with download off" \
        in _flat(DATA_README)


def test_the_imdb_line_format_is_the_shared_copys():
    from memnb.paths import find_dataset

    path = find_dataset("imdb/train_subset.jsonl")
    if path is None:
        pytest.skip("the shared IMDb file is not here")
    with path.open(encoding="utf-8") as handle:
        first = handle.readline().rstrip("\n")
    row = json.loads(first)
    assert json.dumps(row) == first  # Python's json.dumps, non-ASCII escaped
    shown = "{" + ", ".join(f'"{k}": ' + ('"…"' if k == "text" else json.dumps(v))
                            for k, v in row.items()) + "}"
    assert f"`{shown}`" in DATA_README


def test_the_layouts_name_every_folder():
    layout = README.split("## Layout", 1)[1].split("```", 2)[1]
    for folder in ("memnb/", "notebooks/", "book/", "benchmarks/", "scripts/", "tests/",
                   "data/results/", "data/benchmarks/", "data/plans/", "data/precision/",
                   ".ci/"):
        assert (REPO / folder).is_dir(), folder
        assert folder in layout, folder
    results = DATA_README.split("## Results", 1)[1]
    for folder in ("full/", "replications/full/", "full/superseded/", "rerun/full/"):
        assert f"`{folder}`" in results, folder
    records = _flat(README.split("**Records.**", 1)[1].split("\n- ", 1)[0])
    assert "the `--record PATH` option of `benchmarks/bench_*.py`, not of `memnb`" in records
    for bench in REPO.glob("benchmarks/bench_*.py"):
        assert '"--record"' in bench.read_text(), bench.name


def test_the_makefile_comment_names_every_part_of_a_chapters_key():
    """The comment above `make book` names what book/buildtools/keys.py keys a chapter on: each
    field of the key, and the three inputs from outside the checkout."""
    import sys

    sys.path.insert(0, str(REPO / "book"))
    try:
        from buildtools import keys
    finally:
        sys.path.remove(str(REPO / "book"))
    makefile = (REPO / "Makefile").read_text()
    comment = _flat(" ".join(line.lstrip("# ") for line in
                             makefile.split("\nbook:", 1)[0].split("\n\n")[-1].splitlines()))
    words = {"notebook": "the notebook", "memnb": "the memnb code", "profile": "the profile",
             "device": "the device", "experiments": "the experiments",
             "results": "cached results it reads", "inputs": "the inputs from outside"}
    assert set(words) == set(keys.KEY_FIELDS)
    for field, said in words.items():
        assert said in comment, field
    doc = _flat(keys.__doc__)
    for part in ("the dataset files", "the papers' folders", "the installed packages"):
        assert part in doc, part  # the inputs keys.py hashes ...
    for part in ("the dataset files", "the papers' files", "the installed packages"):
        assert part in comment, part  # ... and the comment's words for them
    assert "book/buildtools/keys.py" in comment


def test_the_scorecard_falls_back_from_a_partial_full_run_that_cannot_decide_a_row():
    """README: `memnb scorecard` reads the `quick` run where the committed `full` one is partial
    and cannot decide the row: an item may call ``ResultSource.fall_back``, and one does."""
    from memnb.scorecard.core import ResultSource

    assert "cannot judge" in inspect.getdoc(ResultSource.fall_back)
    callers = [path.name for path in (REPO / "memnb" / "scorecard").glob("*.py")
               if "results.fall_back(" in path.read_text()]
    assert callers
    assert ("or where the committed one is partial and cannot decide the row (as the row's "
            "evidence says)") in _flat(README)


def test_the_network_paragraph_says_what_table_3_does_not_download():
    """Mahdavi et al.'s Table 3 reads IMDb with download off, yet fetches GPT-2's weights from
    the hub: the README says it never downloads its IMDb file, not that it never downloads."""
    assert "imdb" in get("mahdavi.table3").datasets
    assert "Mahdavi et al.'s Table 3 never downloads its IMDb file" in _flat(README)
    assert "Table 3 never downloads;" not in _flat(README)


def test_a_full_table_of_an_earlier_profile_is_kept_under_superseded(tmp_path):
    """README, Older code: a `full` table of today's code but an earlier profile is moved aside
    too, named by the fingerprint of the code that computed it (the committed example:
    dana.appendix_dim's table of the profile before its budget changed)."""
    from memnb.provenance import profile_change
    from memnb.results import load_superseded, supersede, todays_code

    kept = FULL / "superseded"
    earlier = [path for path in kept.glob("*.json")
               if (prov := json.loads(path.read_text())).get("code_fingerprint")
               == todays_code(prov["experiment"]) and profile_change(prov) is not None]
    if not earlier:
        pytest.skip("no superseded table of today's code and an earlier profile is committed")
    source = earlier[0]
    name = json.loads(source.read_text())["experiment"]
    (tmp_path / "full").mkdir()
    for suffix in (".csv", ".json"):
        (tmp_path / "full" / f"{name}{suffix}").write_bytes(
            source.with_suffix(suffix).read_bytes())
    moved = supersede(name, "full", tmp_path)
    assert moved.provenance_path.name == source.name  # <experiment>.<fingerprint>.json
    assert [r.provenance_path for r in load_superseded(name, "full", tmp_path)] == [
        moved.provenance_path]
    assert ("A `full` table of older code or an earlier profile is not overwritten"
            in _flat(README))


def test_the_refusals_give_the_ranges_of_seeds_and_time_limit():
    """README, Refusals: the ranges `memnb run` takes, read from the code's constants."""
    from memnb.cli import MAX_TIME_LIMIT_DAYS, MAX_TIME_LIMIT_S, _positive_seconds
    from memnb.results import MAX_SEEDS

    assert MAX_TIME_LIMIT_S == MAX_TIME_LIMIT_DAYS * 24 * 3600
    assert _positive_seconds(str(MAX_TIME_LIMIT_S)) == MAX_TIME_LIMIT_S
    refusals = _flat(README.split("- **Refusals**", 1)[1].split("\n- **", 1)[0])
    assert (f"`--seeds` outside 1..{MAX_SEEDS}, a `--time-limit` that is not a number of "
            f"seconds above 0 and at most {MAX_TIME_LIMIT_DAYS} days") in refusals


def test_the_time_limits_say_what_timeout_reports():
    """README, Time limits: `timeout` reports its own exit code unless --preserve-status, where
    `memnb run` would exit with PARTIAL."""
    from memnb.cli import PARTIAL, TIMEOUT_CODE

    limits = _flat(README.split("- **Time limits.**", 1)[1].split("\n- **", 1)[0])
    assert f"The run exits with code {PARTIAL} when the table is partial" in limits
    assert (f"the shell sees `timeout`'s own exit code {TIMEOUT_CODE} unless it is given "
            "`--preserve-status`; with `--time-limit` the run stops itself cleanly") in limits


def test_the_busy_cpu_sentence_says_when_the_commands_warn():
    """README, Running experiments without notebooks: prefix OMP_NUM_THREADS=1 on a busy CPU,
    and `memnb run` and `memnb plan` warn when the load average is at or above the cores
    (:func:`memnb.cli.busy_cpu_warning`)."""
    from memnb.cli import busy_cpu_warning

    section = _flat(README.split("## Running experiments without notebooks", 1)[1]
                    .split("\n### ", 1)[0])
    assert "On a shared or busy CPU, prefix the command with `OMP_NUM_THREADS=1`" in section
    assert ("both commands warn when the load average is at or above the cores this process "
            "may use") in section
    assert busy_cpu_warning(2.0, 2, 2) is not None  # at the cores
    assert busy_cpu_warning(1.99, 2, 2) is None  # below them
    assert "OMP_NUM_THREADS=1" in busy_cpu_warning(2.0, 2, 2)


def test_the_readme_points_at_rerunning_a_chapter_and_at_the_papers_scale():
    """Review: paper-scale use was buried under *Profiles*. The README's section on rerunning
    names `book/build.py --only` (an option of the build, taking a notebook's name), and gives
    the commands of the *Running at scale* page's *Quick start*, each of which that section
    gives; a committed complete run is computed again with MEMNB_RESULTS_DIR, as *Refusals*
    says."""
    section = README.split("## Rerun a chapter, or run at the papers' scale", 1)[1]
    section = section.split("\n## ", 1)[0]
    flat = _flat(section)
    assert "`.venv/bin/python book/build.py --only dana`" in flat
    build = (REPO / "book" / "build.py").read_text()
    assert 'add_argument("--only"' in build and 'add_argument("--force"' in build
    named = set(re.findall(r"`([a-z_]+)`", flat.split("a notebook of `notebooks/`", 1)[1]
                           .split(")", 1)[0]))
    assert named == {path.stem for path in (REPO / "notebooks").glob("*.ipynb")}
    page = (REPO / "book" / "running_at_scale.md").read_text()
    assert "\n## Quick start\n" in page
    quick = page.split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    given = {" ".join(line.split()) for line in
             quick.split("```bash", 1)[1].split("```", 1)[0].replace("\\\n", " ").splitlines()
             if line.strip() and not line.lstrip().startswith("#")}
    block = section.split("```bash", 1)[1].split("```", 1)[0]
    commands = [" ".join(line.split("#", 1)[0].split()) for line in block.splitlines()
                if line.strip()]
    assert commands and all(command in given for command in commands), (commands, given)
    assert "section *Quick start*" in flat and "*Running at scale*" in flat
    assert "`make book PROFILE=full` is not the way to compute the runs on a CPU" in flat
    # the refusal the section names, and its way round, are the README's own
    assert ("`MEMNB_RESULTS_DIR=PATH memnb run EXPERIMENT --profile full [--time-limit "
            "SECONDS]`") in flat
    # review: the README keeps the page's warning that a fresh folder holds that run alone
    assert "shows no committed run beside the new one" in flat
    assert "shows no committed run beside the new one" in " ".join(
        (REPO / "book" / "running_at_scale.md").read_text().split())
    assert "`MEMNB_RESULTS_DIR=PATH make book`" in flat
    assert "MEMNB_RESULTS_DIR=PATH make book" in given
    assert "(`MEMNB_RESULTS_DIR=PATH`, the results root" in _flat(README)


def test_the_quick_profile_time_points_to_the_measured_times():
    """Review: "minutes on a laptop CPU" for `quick`, while one chapter took about eleven
    minutes on two cores. No time is typed as measured: the README and the introduction say
    minutes to tens of minutes per chapter and name the page that lists each chapter's time."""
    said = _flat(README)
    assert ("`quick`: the trend of every figure, in minutes to tens of minutes per chapter on a "
            "laptop CPU (the book's page *How each page was produced* lists each chapter's time)"
            ) in said
    intro = _flat((REPO / "book" / "intro.md").read_text())
    assert ("in minutes to tens of minutes per chapter on a laptop CPU, the default for building "
            "this book; [How each page was produced](reproducibility.md) lists each chapter's "
            "time") in intro
    assert "a few minutes on a CPU" not in intro
