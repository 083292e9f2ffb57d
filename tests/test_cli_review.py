"""The command line after a researcher's review: the busy-CPU warning, the help's epilogs, the
missing-IMDb message of an experiment that never downloads, one ``--seeds`` message and the
wording of the stop messages."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time

import pytest

from memnb import cli, paths
from memnb.experiments import registry
from memnb.results import MAX_SEEDS

PROFILES = ("ci", "quick", "full")


def _register(monkeypatch, name: str, fn, datasets: tuple[str, ...] = ()) -> None:
    """Register experiment ``name`` computing with ``fn`` under every profile (one seed)."""
    monkeypatch.setitem(registry._REGISTRY, name, registry.Experiment(
        name, "test", "none", {p: {"seeds": 1} for p in PROFILES}, fn, datasets))


def _one_point(params, *, seeds, device, cache_dir, executor=None):
    from memnb.sweep import run_sweep

    return run_sweep([{"x": 0}], lambda g: [[{"y": 1}] for _ in g], cache_dir=cache_dir,
                     progress=False)


# ---- 1. a busy CPU -------------------------------------------------------------------------

@pytest.mark.parametrize(("load", "cores", "threads", "warned"), [
    (2.0, 2, 2, True),  # at the cores: warned
    (3.5, 2, 2, True),
    (1.99, 2, 2, False),  # below the cores
    (9.0, 2, 1, False),  # one thread: nothing to wait for
    (16.0, 16, 8, True),
])
def test_the_busy_cpu_warning_says_load_cores_and_threads(load, cores, threads, warned):
    said = cli.busy_cpu_warning(load, cores, threads)
    assert (said is not None) == warned == (threads > 1 and load >= cores)
    if said is None:
        return
    assert said.startswith(f"the load average is {load:.2f} on the {cores} cores this process "
                           f"may use, and torch would use {threads} threads")
    assert "training and the plan's calibration may run many times slower" in said
    assert "prefix the command with OMP_NUM_THREADS=1, or wait for the load to fall" in said
    # no measured slowdown typed in: every number is the load, the cores, the threads or the 1
    numbers = set(re.findall(r"\d+(?:\.\d+)?", said))
    assert numbers <= {f"{load:.2f}", str(cores), str(threads), "1"}


def test_cpu_load_reads_the_load_the_cores_and_torchs_threads():
    import torch

    measured = cli.cpu_load()
    if not hasattr(os, "getloadavg"):
        assert measured is None
        return
    load, cores, threads = measured
    assert load >= 0 and threads == torch.get_num_threads()
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
        else os.cpu_count()
    assert cores == expected


def test_run_and_plan_warn_once_on_a_busy_cpu(tmp_path, monkeypatch, capsys):
    from memnb import planner

    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    _register(monkeypatch, "tiny.busy", _one_point)
    monkeypatch.setattr(cli, "cpu_load", lambda: (5.0, 2, 4))
    assert cli.main(["run", "tiny.busy", "--profile", "ci"]) == 0
    err = capsys.readouterr().err
    assert err.count("memnb run: warning: the load average is 5.00 on the 2 cores") == 1

    def no_plan(*args, **kwargs):
        raise ValueError("planned no further")

    monkeypatch.setattr(planner, "plan", no_plan)
    assert cli.main(["plan", "dana.exp1", "--profile", "ci"]) == cli.REFUSED
    err = capsys.readouterr().err
    assert err.count("memnb plan: warning: the load average is 5.00 on the 2 cores") == 1

    monkeypatch.setattr(cli, "cpu_load", lambda: (0.5, 2, 4))  # an idle CPU: no word
    assert cli.main(["run", "tiny.busy", "--profile", "ci"]) == 0
    assert "load average" not in capsys.readouterr().err


# ---- 2. the help's epilogs -----------------------------------------------------------------

def _codes() -> dict[int, str]:
    return {0: "the table is complete", cli.FAILED: "the experiment failed while computing",
            cli.REFUSED: "refused before computing", cli.PARTIAL: "stopped at --time-limit",
            cli.INTERRUPTED: "stopped at once by a Ctrl-C after a first Ctrl-C or SIGTERM",
            cli.TERMINATED: "stopped at once by a SIGTERM after a first Ctrl-C or SIGTERM"}


@pytest.mark.parametrize("command", [None, "run"])
def test_the_help_says_where_results_go_the_variables_and_the_exit_codes(monkeypatch, command):
    monkeypatch.setenv("MEMNB_RESULTS_DIR", "/somewhere/else")
    parser = cli.build_parser()
    if command is not None:
        parser = parser.get_default("commands")[command]
    shown = parser.format_help()
    assert "<results root>/<profile>/<experiment>.csv" in shown
    assert "$MEMNB_RESULTS_DIR, else data/results in the checkout" in shown
    assert "(for this call: /somewhere/else)" in shown
    for variable in ("MEMNB_RESULTS_DIR", "MEMNB_DATA_DIR", "MEMNB_PAPERS_DIR", "OMP_NUM_THREADS"):
        assert re.search(rf"^  {variable} ", shown, re.M), variable
    codes = shown.split("exit codes of memnb run:\n", 1)[1]
    listed = [int(code) for code in re.findall(r"^  (\d+) ", codes, re.M)]
    assert listed == list(_codes())
    for code, words in _codes().items():
        assert re.search(rf"^  {code}\s+{re.escape(words)}", codes, re.M), code
    assert f"exit code {cli.TIMEOUT_CODE}" in " ".join(codes.split())
    assert "``" not in shown  # no reST markup


def test_the_exit_code_constants_are_the_ones_returned():
    assert cli.INTERRUPTED == 128 + signal.SIGINT and cli.TERMINATED == 128 + signal.SIGTERM
    with pytest.raises(SystemExit) as ended:  # argparse's code for bad arguments
        cli.main(["run", "dana.exp1", "--profile", "tiny"])
    assert ended.value.code == cli.REFUSED
    assert cli.main(["run", "dana.nothing"]) == cli.REFUSED


def test_memnb_help_shows_no_rest_markup():
    assert cli.build_parser().description == ("The memnb command line: list and run the book's "
                                              "experiments without notebooks.")


@pytest.mark.skipif(shutil.which("timeout") is None, reason="no timeout command here")
def test_timeout_reports_its_own_code():
    done = subprocess.run(["timeout", "0.1", "sleep", "5"], check=False)
    assert done.returncode == cli.TIMEOUT_CODE


# ---- 3. a missing IMDb file, with download off or on ---------------------------------------

@pytest.mark.parametrize("command", ["run", "plan"])
def test_a_loader_with_download_off_offers_no_download(monkeypatch, capsys, command):
    """Mahdavi et al.'s Table 3 reads IMDb with download off (memnb.representations.imdb_texts):
    its message leaves out the sentence about an automatic download; a Kajitsuka–Sato
    experiment, whose loader may download, keeps it. The loader's own message has it both
    times."""
    from memnb import dataset_files, planner, results
    from memnb.data import text
    from memnb.representations import imdb_texts

    for module in (paths, dataset_files):  # no folder holds the file
        monkeypatch.setattr(module, "find_dataset", lambda relative: None)
    monkeypatch.setattr(text, "_hub_download", lambda relative: None)  # offline
    for loader in (imdb_texts, lambda: text.load_imdb(8)):
        with pytest.raises(FileNotFoundError, match=re.escape(cli.DOWNLOAD_SENTENCE)):
            loader()
    said = {}
    for name, loader in (("mahdavi.table3", imdb_texts),
                         ("kajitsuka.imdb_curves", lambda: text.load_imdb(8))):
        def missing(*args, _loader=loader, **kwargs):
            _loader()
            raise AssertionError("the file was found")

        monkeypatch.setattr(results, "run_experiment", missing)
        monkeypatch.setattr(planner, "plan", missing)
        assert cli.main([command, name, "--profile", "ci"]) == cli.REFUSED
        said[name] = capsys.readouterr().err
        assert said[name].startswith(f"memnb {command}: error: dataset file "
                                     f"{text.IMDB_FILE!r} not found")
        assert said[name].count("\n") == 1
        assert "the committed IMDb results read the subset" in said[name]
    assert "Automatic download" not in said["mahdavi.table3"]
    assert cli.DOWNLOAD_SENTENCE in said["kajitsuka.imdb_curves"]


def test_a_mistyped_data_folder_names_the_data_readme_once(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MEMNB_DATA_DIR", str(tmp_path / "no-such-folder"))
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path / "results"))
    _register(monkeypatch, "tiny.reader", lambda params, **kw: None, ("mnli",))
    assert cli.main(["run", "tiny.reader", "--profile", "ci"]) == cli.REFUSED
    err = capsys.readouterr().err
    assert err.startswith("memnb run: error: MEMNB_DATA_DIR is set to")
    assert err.count("data/README.md") == 1


# ---- 4. one --seeds message ----------------------------------------------------------------

@pytest.mark.parametrize("text", ["-1", "0", str(MAX_SEEDS + 1), "10000000000", "2.5", "x"])
def test_every_bad_seed_count_gets_the_same_message(tmp_path, monkeypatch, capsys, text):
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    with pytest.raises(SystemExit) as ended:
        cli.main(["run", "dana.exp1", "--profile", "ci", "--seeds", text])
    assert ended.value.code == cli.REFUSED
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"memnb run: error: argument --seeds: must be a whole number of seeds in "
        f"1..{MAX_SEEDS}; got {text!r}")
    assert not any(tmp_path.iterdir())
    assert cli._seed_count("1") == 1 and cli._seed_count(str(MAX_SEEDS)) == MAX_SEEDS


# ---- 5. the stop messages ------------------------------------------------------------------

def test_the_first_signals_notice_names_it_and_what_stops_at_once():
    term, intr = cli.stop_notice(signal.SIGTERM), cli.stop_notice(signal.SIGINT)
    assert term.startswith("memnb run: stopping on SIGTERM: the running group saves its state")
    assert "(a second SIGTERM, or a Ctrl-C, stops at once;" in term
    assert "second Ctrl-C" not in term
    assert intr.startswith("memnb run: stopping on Ctrl-C:")
    assert "(a second Ctrl-C, or a SIGTERM, stops at once;" in intr


@pytest.mark.parametrize(("first", "second", "stopped"), [
    (signal.SIGTERM, signal.SIGINT, KeyboardInterrupt),
    (signal.SIGTERM, signal.SIGTERM, SystemExit),
    (signal.SIGINT, signal.SIGTERM, SystemExit),
])
def test_the_notice_is_printed_once_and_the_next_signal_stops_at_once(capsys, first, second,
                                                                      stopped):
    """What the notice says is what happens: after the first signal, either one stops at once
    (a second SIGTERM exits with TERMINATED); the handlers are restored after the block."""
    from memnb import resume

    before = {sig: signal.getsignal(sig) for sig in cli.SIGNAL_WORDS}
    with pytest.raises(stopped) as ended, resume.stop_on_signals(tuple(cli.SIGNAL_WORDS),
                                                                notice=cli.stop_notice):
        os.kill(os.getpid(), first)
        time.sleep(0.05)
        assert resume.stop_requested()
        os.kill(os.getpid(), second)
        time.sleep(1)
    if stopped is SystemExit:
        assert ended.value.code == cli.TERMINATED
    assert capsys.readouterr().err == cli.stop_notice(first) + "\n"
    assert {sig: signal.getsignal(sig) for sig in cli.SIGNAL_WORDS} == before
    assert not resume.stop_requested()


def test_a_limit_that_saved_no_point_says_what_it_kept(tmp_path, monkeypatch, capsys):
    """A call whose time limit passed before any point or state was saved still recorded its
    invocation (memnb.results.pending_invocations_path): the message says so, not that nothing
    was saved."""
    from memnb.results import pending_invocations_path, point_cache_dir, shown_path

    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    _register(monkeypatch, "tiny.late", _one_point)
    assert cli.main(["run", "tiny.late", "--profile", "ci", "--time-limit", "1e-6"]) == cli.PARTIAL
    err = capsys.readouterr().err
    record = pending_invocations_path(point_cache_dir("tiny.late", "ci", tmp_path))
    assert record.is_file()
    assert "nothing was saved" not in err
    assert (f"with 0 points finished and 1 missing, too few to build its table, and it saved no "
            f"point and no training state, only the record of this call in {shown_path(record)}, "
            "which the next table written counts in its invocations and wall time: ") in err
    assert "give a longer --time-limit" in err
    # said at its source: without a record (no cache folder known) the error says nothing was
    # saved
    from memnb.budget import TimeBudget
    from memnb.results import TimeLimitReached

    bare = str(TimeLimitReached("x", TimeBudget(deadline=0.0, missing=["p"]), None, (0.5, 1.0)))
    assert ", and nothing was saved: " in bare
