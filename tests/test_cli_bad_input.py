"""Bad input to the ``memnb`` command line gets one clear line: an ``--executor`` address where
no dask scheduler answers, a results folder that cannot be written (before and after the run),
``--seeds``/``--device`` checked before a refusal that would hide them, a results or papers
folder that does not exist, repeated ``--paper``, a reader that goes away, and the help texts."""

from __future__ import annotations

import math
import os
import socketserver
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from memnb import cli, paths
from memnb.experiments import registry

PROFILES = ("ci", "quick", "full")


def _register(monkeypatch, name: str, fn) -> None:
    """Register experiment ``name`` computing with ``fn`` under every profile (one seed)."""
    profiles = {p: {"seeds": 1} for p in PROFILES}
    monkeypatch.setitem(registry._REGISTRY, name,
                        registry.Experiment(name, "test", "none", profiles, fn))


def _never(calls: list):
    def fn(params, **kwargs):
        calls.append(kwargs)
        raise AssertionError("no point may be computed")

    return fn


# ---- 1. --executor: a server that is not a dask scheduler ----------------------------------

class _Silent(socketserver.BaseRequestHandler):
    """Accepts the connection and sends nothing (the dask handshake would wait forever)."""

    def handle(self) -> None:
        time.sleep(3)


class _Garbage(socketserver.BaseRequestHandler):
    """Answers like a web server: bytes that are no dask message."""

    def handle(self) -> None:
        self.request.sendall(b"HTTP/1.0 400 Bad Request\r\nServer: x\r\n\r\n" + b"\xff" * 512)
        time.sleep(3)


class _Closer(socketserver.BaseRequestHandler):
    """Accepts the connection and closes it at once."""

    def handle(self) -> None:
        pass


@contextmanager
def _server(handler: type[socketserver.BaseRequestHandler]) -> Iterator[int]:
    """A plain TCP server on a free loopback port, serving in a daemon thread; yields its port."""
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(("handler", "said"), [
    (_Silent, "within 1 s"),
    (_Garbage, "the dask handshake failed with"),
    (_Closer, "the dask handshake failed with"),
])
def test_a_server_that_is_not_a_dask_scheduler_is_refused_in_bounded_time(handler, said):
    """A port that accepts TCP connections but speaks no dask (a web server, a dashboard) used
    to hang the run for minutes (the handshake reads without a time limit) or end in a numpy
    MemoryError traceback (garbage read as a frame length): the check bounds the handshake in
    time and says in one line that no scheduler answered, naming --executor and the address."""
    pytest.importorskip("distributed")
    from memnb.distributed import SchedulerUnreachable, check_scheduler

    with _server(handler) as port:
        start = time.perf_counter()
        with pytest.raises(SchedulerUnreachable) as info:
            check_scheduler(f"dask://127.0.0.1:{port}", handshake_timeout=1.0)
        assert time.perf_counter() - start < 5
    message = str(info.value)
    assert message.startswith(f"--executor: no dask scheduler answered at tcp://127.0.0.1:{port}")
    assert said in message and "8786" in message and "\n" not in message
    assert isinstance(info.value, ValueError)  # `memnb run` says it in one line, exit 2


def test_memnb_run_refuses_a_silent_executor_before_any_point(tmp_path, monkeypatch, capsys):
    pytest.importorskip("distributed")
    from memnb import distributed

    calls: list = []
    _register(monkeypatch, "tiny.dask", _never(calls))
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    monkeypatch.setattr(distributed, "HANDSHAKE_TIMEOUT_S", 1.0)
    with _server(_Silent) as port:
        start = time.perf_counter()
        code = cli.main(["run", "tiny.dask", "--profile", "ci", "--executor",
                         f"dask://127.0.0.1:{port}"])
        assert time.perf_counter() - start < 6
    assert code == 2 and calls == []
    assert capsys.readouterr().err == (
        f"memnb run: error: --executor: no dask scheduler answered at tcp://127.0.0.1:{port} "
        "within 1 s (is that the dashboard port? a scheduler listens on 8786 by default)\n")


# ---- 2. a results folder that cannot be written -------------------------------------------

def test_a_results_folder_that_is_a_file_is_one_line_before_any_point(tmp_path, monkeypatch,
                                                                     capsys):
    calls: list = []
    _register(monkeypatch, "tiny.nowhere", _never(calls))
    afile = tmp_path / "afile"
    afile.write_text("")
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(afile))
    assert cli.main(["run", "tiny.nowhere", "--profile", "ci"]) == 2
    assert calls == []
    assert capsys.readouterr().err == (
        f"memnb run: error: results folder {afile} is not writable (MEMNB_RESULTS_DIR): Not a "
        f"directory: {afile / 'ci' / '.cache'}; set MEMNB_RESULTS_DIR to a writable folder\n")


def test_the_write_check_names_the_folder_and_leaves_nothing(tmp_path, monkeypatch):
    """The check creates the profile's .cache folder and writes a file there; it removes what
    it created (a run refused later leaves no folder), and a file it cannot write (a read-only
    folder: as root, simulated) is said with the folder's path."""
    root = tmp_path / "new" / "results"
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(root))
    assert cli.results_folder_error("quick", rerun=True) is None
    assert not (tmp_path / "new").exists()
    (root / "quick").mkdir(parents=True)
    assert cli.results_folder_error("quick") is None
    assert sorted(p.name for p in root.rglob("*")) == ["quick"]

    def denied(*, dir, prefix):  # noqa: A002 - NamedTemporaryFile's keyword
        raise PermissionError(13, "Permission denied", os.path.join(dir, prefix + "abc"))

    monkeypatch.setattr(cli.tempfile, "NamedTemporaryFile", denied)
    assert cli.results_folder_error("quick") == (
        f"results folder {root} is not writable (MEMNB_RESULTS_DIR): Permission denied: "
        f"{root / 'quick' / '.cache'}; set MEMNB_RESULTS_DIR to a writable folder")
    assert sorted(p.name for p in root.rglob("*")) == ["quick"]


def _unwritable_table(monkeypatch, name: str) -> None:
    """Register ``name``: it computes and caches two points, then puts a folder where its table
    goes, so that writing the table fails after the points are cached."""
    from memnb.sweep import run_sweep

    def fn(params, *, seeds, device, cache_dir, executor=None):
        table = run_sweep([{"x": 0}, {"x": 1}], lambda g: [[{"y": 1}] for _ in g],
                          cache_dir=cache_dir, progress=False)
        (cache_dir.parent.parent / f"{name}.csv").mkdir()
        return table

    _register(monkeypatch, name, fn)


@pytest.mark.parametrize("with_traceback", [False, True])
def test_a_late_write_failure_is_one_line_keeping_the_points(tmp_path, monkeypatch, capsys,
                                                            with_traceback):
    _unwritable_table(monkeypatch, "tiny.late")
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    flag = ["--traceback"] if with_traceback else []
    assert cli.main(["run", "tiny.late", "--profile", "ci", *flag]) == cli.FAILED
    cache = tmp_path / "ci" / ".cache" / "tiny.late"
    err = capsys.readouterr().err
    last = err.splitlines()[-1]
    assert last.startswith("memnb run: error: could not write the results: IsADirectoryError")
    assert f"every point it finished is kept in the point cache {cache}" in last
    assert ("Traceback" in err) == with_traceback
    assert last.endswith("(rerun with --traceback to see where)") != with_traceback
    if not with_traceback:
        assert err.count("\n") == 1
    assert len(list(cache.glob("*.json"))) == 2  # the finished points are kept


def test_a_missing_file_in_the_results_folder_is_a_write_failure(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path / "results"))
    inside = FileNotFoundError(2, "No such file", str(tmp_path / "results" / "ci" / "a.csv"))
    assert cli._in_results(inside, rerun=False)
    assert not cli._in_results(FileNotFoundError(2, "No such file", "/elsewhere/a"), False)
    assert not cli._in_results(FileNotFoundError("mnli/dev.jsonl was not found"), False)


# ---- 3. --seeds and --device before the refusal of a complete full result -----------------

@pytest.mark.parametrize(("option", "said"), [  # --seeds: refused as it is read (test_cli_review)
    (["--device", "cuda"], "device 'cuda' requested but no CUDA GPU is available; use "
                           "--device cpu"),
    (["--device", "tpu"], "device must be 'cpu' or 'cuda[:N]'; got 'tpu'"),
    (["--executor", "localhost:8786"], "executor must look like 'dask://HOST:PORT'"),
    (["--executor", "dask://:8786"], "executor must look like 'dask://HOST:PORT'"),  # no host
    # with --executor the device is checked on the workers (tests/test_distributed.py), not here
    (["--device", "cuda", "--executor", "localhost:8786"],
     "executor must look like 'dask://HOST:PORT'"),
    (["--device", "tpu", "--executor", "dask://127.0.0.1:8786"],
     "device must be 'cpu' or 'cuda[:N]'; got 'tpu'"),
])
def test_bad_options_are_said_before_a_complete_result_is(monkeypatch, capsys, option, said):
    import torch

    from memnb import results

    calls: list = []
    _register(monkeypatch, "tiny.done", _never(calls))
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(results, "complete_already", lambda *a, **k: "a complete result")
    assert cli.main(["run", "tiny.done", "--profile", "full", *option]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"memnb run: error: {said}") and err.count("\n") == 1
    assert calls == []
    assert cli.main(["run", "tiny.done", "--profile", "full"]) == 2  # good options: refused
    assert capsys.readouterr().err == "memnb run: error: a complete result\n"


# ---- 4. a results or papers folder that does not exist ------------------------------------

def _no_scorecard(monkeypatch) -> list:
    import memnb.scorecard

    asked: list = []
    monkeypatch.setattr(memnb.scorecard, "build_scorecard",
                        lambda profile, papers, **_: asked.append(papers) or [])
    return asked


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_scorecard_refuses_a_results_folder_that_does_not_exist(tmp_path, monkeypatch, capsys,
                                                                kind):
    asked = _no_scorecard(monkeypatch)
    folder = tmp_path / "nonexist"
    if kind == "file":
        folder.write_text("")
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(folder))
    assert cli.main(["scorecard", "--paper", "dana"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"memnb scorecard: error: MEMNB_RESULTS_DIR is set to '{folder}', "
                          "which is not an existing folder: there are no results to judge")
    assert err.count("\n") == 1 and asked == []
    folder.unlink(missing_ok=True)
    folder.mkdir()
    assert cli.main(["scorecard", "--paper", "dana", "--json"]) == 0 and asked == [["dana"]]


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_a_papers_folder_that_is_not_a_folder_is_an_error_naming_the_variable(
        tmp_path, monkeypatch, capsys, kind):
    """MEMNB_PAPERS_DIR set to a path that is not a folder is not passed over for
    ../shared/papers (as MEMNB_DATA_DIR): a lookup raises, naming the variable, and `memnb
    scorecard` exits with 2 in one line, whichever papers it judges. An empty value is unset."""
    chosen = tmp_path / "papers"
    if kind == "file":
        chosen.write_text("")
    monkeypatch.setenv("MEMNB_PAPERS_DIR", str(chosen))
    with pytest.raises(paths.PapersDirError, match=(
            f"MEMNB_PAPERS_DIR is set to '{chosen}', which is not an existing folder")):
        paths.papers_dir_candidates()
    with pytest.raises(FileNotFoundError, match="MEMNB_PAPERS_DIR"):
        paths.find_paper_file("dana_official_results")
    asked = _no_scorecard(monkeypatch)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    assert cli.main(["scorecard", "--paper", "kajitsuka"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("memnb scorecard: error: MEMNB_PAPERS_DIR is set to ")
    assert err.count("\n") == 1 and asked == []
    monkeypatch.setenv("MEMNB_PAPERS_DIR", "")
    assert paths.papers_dir_candidates() == [paths.REPO_ROOT.parent / "shared" / "papers"]
    chosen.unlink(missing_ok=True)
    chosen.mkdir()
    monkeypatch.setenv("MEMNB_PAPERS_DIR", str(chosen))
    assert paths.papers_dir_candidates()[0] == chosen


# ---- 5. --paper repeated --------------------------------------------------------------------

def test_a_repeated_paper_is_judged_once(tmp_path, monkeypatch):
    asked = _no_scorecard(monkeypatch)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    assert cli.main(["scorecard", "--paper", "dana", "--paper", "mahdavi", "--paper", "dana",
                     "--json"]) == 0
    assert asked == [["dana", "mahdavi"]]


# ---- 6. a reader that goes away ------------------------------------------------------------

def test_a_closed_pipe_ends_quietly_in_process(monkeypatch, capsys):
    def gone(args):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(cli, "_cmd_list", gone)
    assert cli.main(["list"]) == 1
    assert capsys.readouterr().err == ""


def test_memnb_list_into_a_closed_pipe_prints_no_traceback(tmp_path):
    """`memnb list | head -1`: the reader closes the pipe before memnb writes; memnb ends with
    exit code 1 and nothing on stderr (no BrokenPipeError traceback, no error at exit)."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MEMNB_RESULTS_DIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "memnb", "list"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=Path(cli.__file__).parent.parent)
    proc.stdout.close()  # before the interpreter has even imported memnb
    _, err = proc.communicate(timeout=120)
    assert err.decode() == "" and proc.returncode == 1


# ---- 7. help texts and --time-limit ----------------------------------------------------------

def _help(command: str) -> str:
    sub = cli.build_parser().get_default("commands")[command]
    return " ".join(sub.format_help().split())


def test_help_texts_say_what_the_code_does():
    from memnb.planner import CALIBRATED_GROUPS

    run = _help("run")
    assert "SECONDS count from when memnb starts reading its arguments" in run
    assert "from the command's start" not in run
    assert "data/results/rerun/ ($MEMNB_RESULTS_DIR/rerun/ when MEMNB_RESULTS_DIR is set)" in run
    assert f"At most {cli.MAX_TIME_LIMIT_S:.0f} ({cli.MAX_TIME_LIMIT_DAYS} days)" in run
    plan = _help("plan")
    assert (f"(at least 2; default {CALIBRATED_GROUPS}; more than an experiment has calibrates "
            "each of its groups)") in plan
    assert "memnb.planner.CALIBRATED_GROUPS" not in plan


@pytest.mark.parametrize("text", ["inf", "Infinity", "-inf", "nan", "0", "-1", "soon", "1e300",
                                  "2592001"])
def test_a_time_limit_must_be_a_positive_number_of_at_most_30_days(capsys, text):
    """``inf`` would mean no limit, and so would ``1e300``: both are refused, naming the
    largest limit taken (:data:`memnb.cli.MAX_TIME_LIMIT_S`)."""
    with pytest.raises(SystemExit) as ended:
        cli.main(["run", "dana.exp1", f"--time-limit={text}"])
    assert ended.value.code == 2
    most = cli.MAX_TIME_LIMIT_S
    assert most == cli.MAX_TIME_LIMIT_DAYS * 86400 and cli.MAX_TIME_LIMIT_DAYS == 30
    assert (f"argument --time-limit: must be a number of seconds > 0 and at most {most:.0f} "
            f"({cli.MAX_TIME_LIMIT_DAYS} days; leave --time-limit out to run without a limit); "
            f"got {text!r}" in capsys.readouterr().err)
    assert cli._positive_seconds("1e-6") == 1e-6 and math.isfinite(cli._positive_seconds("5"))
    assert cli._positive_seconds(str(most)) == most


def test_seeds_that_are_not_a_whole_number_are_refused_naming_the_range(capsys):
    with pytest.raises(SystemExit) as stopped:
        cli.main(["run", "dana.exp1", "--profile", "ci", "--seeds", "2.5"])
    assert stopped.value.code == 2
    assert ("argument --seeds: must be a whole number of seeds in 1..1000; got '2.5'"
            in capsys.readouterr().err)


def test_a_chapter_note_names_the_results_folder_it_found_no_full_run_in(monkeypatch, tmp_path):
    """A mistyped MEMNB_RESULTS_DIR reads as "no full-scale run yet": the note names the folder
    searched, so that the reader sees which one."""
    from memnb.results import fresh_and_cached

    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path / "typo"))
    note = fresh_and_cached("kajitsuka.construction", "ci").note
    assert note.endswith(f"no full-scale run has been computed yet (none in "
                         f"{tmp_path / 'typo' / 'full'}, the folder MEMNB_RESULTS_DIR names)")
    monkeypatch.delenv("MEMNB_RESULTS_DIR")
    assert "the folder MEMNB_RESULTS_DIR names" not in fresh_and_cached(
        "kajitsuka.construction", "ci", root=tmp_path / "other").note
