"""How ``memnb run`` ends when it cannot finish: bad arguments, a mistyped data folder, a stop
at once, a time limit with a paused group, and error lines below a progress bar."""

from __future__ import annotations

import re
import signal
import time
import warnings

import pytest

from memnb import cli, paths
from memnb.experiments import registry

PROFILES = ("ci", "quick", "full")


def _register(monkeypatch, name: str, fn) -> None:
    """Register experiment ``name`` computing with ``fn`` under every profile (one seed)."""
    profiles = {p: {"seeds": 1} for p in PROFILES}
    monkeypatch.setitem(registry._REGISTRY, name,
                        registry.Experiment(name, "test", "none", profiles, fn))


def test_a_seed_count_out_of_range_is_refused_before_anything_is_built(tmp_path, monkeypatch,
                                                                       capsys):
    """`--seeds 10000000000` used to build every point until the memory ran out: the count is
    checked against memnb.results.MAX_SEEDS as the arguments are read, named with its range,
    exit code 2; the help says the range."""
    built: list = []
    _register(monkeypatch, "tiny.seeds", lambda params, **kw: built.append(kw))
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    with pytest.raises(SystemExit) as ended:
        cli.main(["run", "tiny.seeds", "--profile", "ci", "--seeds", "10000000000"])
    assert ended.value.code == cli.REFUSED
    assert capsys.readouterr().err.endswith(
        "memnb run: error: argument --seeds: must be a whole number of seeds in 1..1000; "
        "got '10000000000'\n")
    assert built == [] and not any(tmp_path.rglob("*"))
    run = cli.build_parser().get_default("commands")["run"]
    assert "number of seeds, 1..1000" in run.format_help()


def test_a_mistyped_data_folder_is_an_error_naming_the_variable(tmp_path, monkeypatch, capsys):
    """MEMNB_DATA_DIR set to a path that is not a folder is not passed over (the datasets would
    be read from ../shared/data without a word): a lookup raises, naming the variable and the
    path, and `memnb run` of an experiment that reads data exits with 2. An empty value is
    unset; MEMNB_RESULTS_DIR need not exist (the results folder is created)."""
    missing = tmp_path / "no-such-folder"
    monkeypatch.setenv("MEMNB_DATA_DIR", str(missing))
    with pytest.raises(FileNotFoundError, match=re.escape(
            f"MEMNB_DATA_DIR is set to '{missing}', which is not an existing folder")):
        paths.find_dataset("mnli/dev_matched.jsonl")
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("MEMNB_DATA_DIR", str(tmp_path / "a-file"))
    with pytest.raises(FileNotFoundError, match="MEMNB_DATA_DIR"):
        paths.data_dir_candidates()
    monkeypatch.setenv("MEMNB_DATA_DIR", "")
    assert paths.data_dir_candidates()[0] == paths.REPO_ROOT / "data" / "external"

    monkeypatch.setenv("MEMNB_DATA_DIR", str(missing))
    monkeypatch.setitem(registry._REGISTRY, "tiny.reader", registry.Experiment(
        "tiny.reader", "reads", "none", {p: {"seeds": 1} for p in PROFILES},
        lambda params, **kw: None, ("mnli",)))
    results_dir = tmp_path / "results" / "not-yet"
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(results_dir))
    assert cli.main(["run", "tiny.reader", "--profile", "ci"]) == 2
    assert capsys.readouterr().err.startswith(
        f"memnb run: error: MEMNB_DATA_DIR is set to '{missing}', which is not an existing folder")

    from memnb.sweep import run_sweep

    def fn(params, *, seeds, device, cache_dir, executor=None):
        return run_sweep([{"x": 0}], lambda g: [[{"y": 1}]], cache_dir=cache_dir,
                         progress=False)

    _register(monkeypatch, "tiny.writer", fn)  # reads no data: the variable is not looked at
    assert cli.main(["run", "tiny.writer", "--profile", "ci"]) == 0
    assert (results_dir / "ci" / "tiny.writer.csv").exists()


@pytest.mark.parametrize(("raised", "code", "said"), [
    (KeyboardInterrupt, 130, "a Ctrl-C after the first stop signal"),
    (SystemExit(128 + signal.SIGTERM), 143, "a SIGTERM after the first stop signal"),
])
def test_a_second_signal_stops_at_once_with_one_line(tmp_path, monkeypatch, capsys, raised,
                                                     code, said):
    """A second Ctrl-C raises KeyboardInterrupt in the middle of the computation, a second
    SIGTERM exits with 143 (memnb.resume.stop_on_signals): `memnb run` says in one line that it
    stopped at once, that the finished points are cached and how to continue, with no
    traceback."""
    def fn(params, **kwargs):
        raise raised

    _register(monkeypatch, "tiny.stopped", fn)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    assert cli.main(["run", "tiny.stopped", "--profile", "ci"]) == code
    assert capsys.readouterr().err == (
        f"memnb run: interrupted: stopped at once ({said}): every point it finished is cached "
        "and any training state it saved is kept, but this call wrote no table or provenance; "
        "rerun the same command to continue\n")


def test_another_exit_is_not_taken_for_a_second_sigterm(monkeypatch):
    def fn(params, **kwargs):
        raise SystemExit(4)

    _register(monkeypatch, "tiny.exits", fn)
    with pytest.raises(SystemExit) as ended:
        cli.main(["run", "tiny.exits", "--profile", "ci"])
    assert ended.value.code == 4


def _paused_then_slow(monkeypatch, name: str, points: int, before_s: float) -> None:
    """Register ``name``: it leaves a paused group state in its cache (as a group that stopped
    training does), waits ``before_s`` seconds, then sweeps ``points`` points of 0.3 s each."""
    from memnb.sweep import run_sweep

    def fn(params, *, seeds, device, cache_dir, executor=None):
        (cache_dir / "paused").mkdir(parents=True, exist_ok=True)
        (cache_dir / "paused" / "group.code.call1.pt").write_bytes(b"x" * 2**20)
        time.sleep(before_s)
        return run_sweep([{"x": x} for x in range(points)],
                         lambda g: time.sleep(0.3) or [[{"y": 1}] for _ in g],
                         cache_dir=cache_dir, progress=False)

    _register(monkeypatch, name, fn)


@pytest.mark.parametrize("profile", ["quick", "full"])
def test_a_time_limited_stop_says_where_the_paused_state_is(tmp_path, monkeypatch, capsys,
                                                            profile):
    """Stopped at its limit, with no point finished (no table) or some (a partial table), a run
    says that the group in progress saved its state under the cache's paused/ folder, under
    every profile."""
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    cache = tmp_path / profile / ".cache"
    _paused_then_slow(monkeypatch, "tiny.none", 3, 0.4)
    assert cli.main(["run", "tiny.none", "--profile", profile, "--time-limit", "0.2"]) == 3
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("memnb run: partial: tiny.none: stopped at the time limit with 0 "
                             "points finished")
    assert err[1] == (f"memnb run: 1 paused training state (1.0 MiB) in "
                      f"{cache / 'tiny.none' / 'paused'} continues the group in progress in "
                      "this results folder only; a run into another results folder trains "
                      "that group from its start")  # MEMNB_RESULTS_DIR outside the checkout

    _paused_then_slow(monkeypatch, "tiny.some", 6, 0.0)
    assert cli.main(["run", "tiny.some", "--profile", profile, "--time-limit", "1.0"]) == 3
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("memnb run: partial: stopped at the time limit with ")
    assert err[-1].startswith(f"memnb run: 1 paused training state (1.0 MiB) in "
                              f"{cache / 'tiny.some' / 'paused'} continues")
    assert any("git add -f" in line for line in err) == (profile == "full")


def test_an_error_line_closes_the_open_progress_bars_first(monkeypatch, capsys):
    """A bar drawn without its newline (a run stopped by an error leaves it open) would run
    into the message, and draw itself again below it when collected: an error closes the open
    bars first (each ends its own line), then prints its line; a warning leaves them open and
    starts on a line of its own while one is drawn."""
    import io

    from tqdm import tqdm

    stream = io.StringIO()
    bar = tqdm(total=2, file=stream, desc="bar")
    try:
        assert cli.bar_open()
        cli.error_line("run", "warning", "something")
        assert capsys.readouterr().err == "\nmemnb run: warning: something\n"
        assert cli.bar_open()
        cli.error_line("run", "error", "something")
        assert capsys.readouterr().err == "memnb run: error: something\n"
        assert not cli.bar_open() and bar.disable  # closed, so never drawn again
        assert stream.getvalue().endswith("\n")
    finally:
        bar.close()
    monkeypatch.setattr(cli, "bar_open", lambda: False)
    cli.error_line("run", "warning", "something")
    assert capsys.readouterr().err == "memnb run: warning: something\n"


def test_python_dash_m_memnb_is_the_same_command_line():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "memnb", "run", "--help"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0 and "--seeds" in done.stdout


def test_a_missing_dataset_points_to_the_data_readme(monkeypatch, capsys):
    from memnb import cli, results

    def missing(*args, **kwargs):
        raise FileNotFoundError("mnli/dev_matched.jsonl was not found (looked in: /nowhere)")

    monkeypatch.setattr(results, "run_experiment", missing)
    assert cli.main(["run", "kajitsuka.mnli_curves", "--profile", "ci"]) == 2
    err = capsys.readouterr().err
    assert "mnli/dev_matched.jsonl was not found" in err and "data/README.md" in err
    assert "IMDb" not in err


@pytest.mark.parametrize("command", ["run", "plan"])
def test_a_missing_imdb_file_says_the_committed_results_read_a_subset(monkeypatch, capsys,
                                                                     command):
    """The loader's hint exports the whole IMDb train split; the CLI adds that the committed
    results read the subset data/README.md describes, for `memnb run` and `memnb plan`."""
    from memnb import cli, planner, results
    from memnb.data.text import IMDB_FILE, locate

    def missing(*args, **kwargs):
        locate(IMDB_FILE, download=False)  # raises: no dataset folder holds the file
        raise AssertionError("the file was found")

    monkeypatch.setattr("memnb.paths.find_dataset", lambda relative: None)
    monkeypatch.setattr(results, "run_experiment", missing)
    monkeypatch.setattr(planner, "plan", missing)
    target = "kajitsuka.imdb_curves"
    assert cli.main([command, target, "--profile", "ci"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"memnb {command}: error: dataset file {IMDB_FILE!r} not found")
    assert "split='train'" in err  # the loader's own hint, kept
    assert err.rstrip().endswith("the committed IMDb results read the subset of the train split "
                                 "described there, not the whole split exported above, which "
                                 "gives other numbers)")


@pytest.mark.parametrize("command", ["run", "plan"])
def test_missing_imagenet_images_say_the_committed_results_read_one_set(monkeypatch, capsys,
                                                                        command):
    """The loader's hint says that any size works; the CLI adds that the committed results
    read the set data/README.md describes, and that another set or preprocessing gives other
    numbers, for `memnb run` and `memnb plan`."""
    from memnb import cli, planner, results
    from memnb.data.images import imagenet_sample_dir

    def missing(*args, **kwargs):
        imagenet_sample_dir()  # raises: no dataset folder holds the images
        raise AssertionError("the images were found")

    monkeypatch.setattr("memnb.data.images.find_dataset", lambda relative: None)
    monkeypatch.setattr(results, "run_experiment", missing)
    monkeypatch.setattr(planner, "plan", missing)
    assert cli.main([command, "mahdavi.table1", "--profile", "ci"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"memnb {command}: error: The ImageNet sample images were not found")
    assert "Any size works" in err  # the loader's own hint, kept
    assert "IMDb" not in err
    assert err.rstrip().endswith("the committed ImageNet results read the images as prepared "
                                 "there (source, resize, crop and JPEG quality): any size loads, "
                                 "but another set of images or another preprocessing gives other "
                                 "numbers)")


def test_a_data_folder_that_lacks_a_file_falls_back_with_a_warning(tmp_path, monkeypatch):
    """MEMNB_DATA_DIR naming an existing folder without the file asked for: the file is read
    from the next folder that has it (data/external, ../shared/data), and a warning names the
    file, the chosen folder and the path read; no warning when the chosen folder has it."""
    chosen, later = tmp_path / "chosen", tmp_path / "later"
    (later / "mnli").mkdir(parents=True)
    (later / "mnli" / "dev_matched.jsonl").write_text("{}\n")
    chosen.mkdir()
    monkeypatch.setenv("MEMNB_DATA_DIR", str(chosen))
    monkeypatch.setattr(paths, "REPO_ROOT", tmp_path / "repo" / "checkout")  # no data/external
    (tmp_path / "repo" / "shared").mkdir(parents=True)
    (tmp_path / "repo" / "shared" / "data").symlink_to(later)
    with pytest.warns(paths.DataDirFallbackWarning, match=re.escape(
            f"mnli/dev_matched.jsonl is not in MEMNB_DATA_DIR ({chosen}); reading "
            f"{tmp_path / 'repo' / 'shared' / 'data' / 'mnli' / 'dev_matched.jsonl'} instead")):
        assert paths.find_dataset("mnli/dev_matched.jsonl") == (
            tmp_path / "repo" / "shared" / "data" / "mnli" / "dev_matched.jsonl")
    with warnings.catch_warnings():  # said once a process for each file and folder
        warnings.simplefilter("error")
        paths.find_dataset("mnli/dev_matched.jsonl")
    (chosen / "mnli").mkdir()
    (chosen / "mnli" / "dev_matched.jsonl").write_text("{}\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert paths.find_dataset("mnli/dev_matched.jsonl") == chosen / "mnli" / "dev_matched.jsonl"


def test_memnb_run_prints_a_warning_on_a_line_of_its_own(tmp_path, monkeypatch, capsys):
    """A warning raised during a run (here the data-folder fall-back, looked up twice) reaches
    the terminal once, as ``memnb run: warning: …``, without Python's source line."""
    import pandas as pd

    later = tmp_path / "repo" / "shared" / "data"
    (later / "mnli").mkdir(parents=True)
    (later / "mnli" / "dev_matched.jsonl").write_text("{}\n")
    (tmp_path / "chosen").mkdir()
    monkeypatch.setattr(paths, "REPO_ROOT", tmp_path / "repo" / "checkout")
    monkeypatch.setenv("MEMNB_DATA_DIR", str(tmp_path / "chosen"))
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path / "results"))

    def fn(params, **kw):
        for _ in range(2):
            paths.find_dataset("mnli/dev_matched.jsonl")
        return pd.DataFrame({"x": [1]})

    monkeypatch.setitem(registry._REGISTRY, "tiny.looks", registry.Experiment(
        "tiny.looks", "looks", "none", {p: {"seeds": 1} for p in PROFILES}, fn))
    assert cli.main(["run", "tiny.looks", "--profile", "ci"]) == 0
    err = capsys.readouterr().err
    assert err.count("memnb run: warning: mnli/dev_matched.jsonl is not in MEMNB_DATA_DIR") == 1
    assert "DataDirFallbackWarning" not in err and "find_dataset(" not in err
