"""The GPU queue script: pack and restore of the full results and the reruns under way (on the
CPU), and the queue's order and time slices (with a stand-in for the commands)."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest
from script_loader import load_script

from memnb.experiments.registry import get, load_all

ROOT = Path(__file__).resolve().parent.parent


def _script():
    return load_script("scripts/gpu_queue.py", "gpu_queue")


def _nowhere(name: str, device: str) -> None:
    """No experiment is being continued on another device (the checkout's own runs aside)."""
    return None


def _results(folder: Path) -> dict[str, bytes]:
    """Stand-in files of ``data/results/``: full-scale results and a rerun under way."""
    files = {"full/dana.exp5.csv": b"d,N,accuracy\n10,50,0.5\n",
             "full/dana.exp5.json": b'{"complete": false}\n',
             "full/.cache/dana.exp5/0123abcd.ffee.json": b'{"rows": []}',
             "full/.cache/mahdavi.heads/9876.aa.json": bytes(range(256)),
             "rerun/full/kajitsuka.mnli_curves.csv": b"epoch,loss\n1,0.5\n",
             "rerun/full/kajitsuka.mnli_curves.json": b'{"complete": false}\n',
             "rerun/full/.cache/kajitsuka.mnli_curves/77.bb.json": b'{"rows": []}'}
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return files


def _recording_runner(ran: list[str]):
    """A queue runner that records the experiment of each `memnb run` command and succeeds."""

    def runner(command, timeout):
        if "run" in command:
            ran.append(command[command.index("run") + 1])
        return 0, ""

    return runner


def test_pack_then_restore_gives_back_every_file(tmp_path):
    """Packed against an empty base, every file appeared: all of them travel, and restore onto
    a folder without them (files not in the archive stay)."""
    gpu_queue = _script()
    files = _results(tmp_path / "results")
    (tmp_path / "results" / "quick").mkdir()
    (tmp_path / "results" / "quick" / "dana.exp1.csv").write_text("not packed")
    archive = gpu_queue.pack(tmp_path / "results", tmp_path / "out" / "results_full.tar.gz",
                             base={})
    restored = tmp_path / "elsewhere"
    (restored / "full" / ".cache" / "dana.exp5").mkdir(parents=True)
    (restored / "full" / "dana.exp1.csv").write_text("kept")  # files not in the archive stay
    done = gpu_queue.restore(archive, restored)
    assert sorted(done.written) == sorted(files) and done.removed == done.unchanged == []
    for name, data in files.items():
        assert (restored / name).read_bytes() == data
    assert (restored / "full" / "dana.exp1.csv").read_text() == "kept"
    assert not (restored / "quick").exists()  # only full/ and rerun/full/ travel
    assert not list(restored.rglob("*.restoring"))


@pytest.mark.parametrize("name", ["full/../escape.txt", "/tmp/absolute.txt", "fine.csv",
                                  "rerun/quick/x.csv", "full"])
def test_restore_refuses_paths_outside_the_packed_folders(tmp_path, name):
    """Only files inside full/ or rerun/full/ are restored: an archive packed relative to
    full/ (as before reruns travelled) or with a path that escapes restores nothing."""
    gpu_queue = _script()
    archive = tmp_path / "bad.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        info = tarfile.TarInfo("full/fine.csv")
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
        info = tarfile.TarInfo(name)
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
    for force in (False, True):
        with pytest.raises(ValueError, match="nothing restored"):
            gpu_queue.restore(archive, tmp_path / "results", force=force)
    assert not (tmp_path / "results" / "full" / "fine.csv").exists()


@pytest.mark.parametrize("manifest", [False, True])
@pytest.mark.parametrize("removed", [["full/../../escape.txt"], ["quick/dana.exp1.csv"],
                                     "full/dana.exp5.csv"])
def test_restore_refuses_a_removal_outside_the_packed_folders(tmp_path, removed, manifest):
    """A removal outside full/ and rerun/full/, listed by an archive of the earlier format (its
    removed.json, read only when forced) or by a manifest, removes nothing."""
    gpu_queue = _script()
    files = _results(tmp_path / "results")
    archive = tmp_path / "bad.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        if manifest:
            listing = ({name: {"base": "0" * 64, "new": None} for name in removed}
                       if isinstance(removed, list) else removed)
            data = json.dumps({"format": gpu_queue.MANIFEST_FORMAT, "base_commit": None,
                               "files": listing}).encode()
        else:
            data = json.dumps(removed).encode()
        info = tarfile.TarInfo(gpu_queue.MANIFEST_NAME if manifest else gpu_queue.REMOVED_NAME)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    (tmp_path / "results" / "quick").mkdir()
    (tmp_path / "results" / "quick" / "dana.exp1.csv").write_text("kept")
    with pytest.raises(ValueError, match="nothing restored"):
        gpu_queue.restore(archive, tmp_path / "results", force=True)
    assert (tmp_path / "results" / "quick" / "dana.exp1.csv").exists()
    assert all((tmp_path / "results" / name).exists() for name in files)


def test_what_a_call_removed_is_removed_by_the_restore(tmp_path):
    """A rerun adopted on the machine leaves rerun/full/: the archive lists the files the call
    removed (those there at its start, gone at its end), and the restore removes them here,
    with the folders they leave empty, so that no stale partial rerun is committed beside the
    adopted table."""
    gpu_queue = _script()
    machine = tmp_path / "machine"
    files = _results(machine)
    base = gpu_queue.snapshot(machine)
    assert set(base) == set(files)
    (machine / "full" / "dana.exp5.json").write_text('{"complete": true}')  # changed, not gone
    for name in files:
        if name.startswith("rerun/"):
            (machine / name).unlink()
    removed = sorted(n for n in files if n.startswith("rerun/"))
    archive = gpu_queue.pack(machine, tmp_path / "out" / gpu_queue.ARCHIVE_NAME, base=base)
    with tarfile.open(archive) as tar:  # only what changed travels, with the manifest
        assert sorted(tar.getnames()) == ["full/dana.exp5.json", gpu_queue.MANIFEST_NAME]
    here = tmp_path / "here"
    _results(here)
    (here / "rerun" / "full" / "other.csv").write_text("a file the call never saw")
    done = gpu_queue.restore(archive, here)
    assert done.removed == removed and done.written == ["full/dana.exp5.json"]
    assert (here / "full" / "dana.exp5.json").read_text() == '{"complete": true}'
    assert not (here / "rerun" / "full" / ".cache").exists()  # emptied folders go too
    assert (here / "rerun" / "full" / "other.csv").exists()
    assert not hasattr(gpu_queue, "removals")  # the restore's plan is the one reader of them


def test_unpack_only_restores_a_carried_archive(tmp_path, monkeypatch):
    gpu_queue = _script()
    files = _results(tmp_path / "src")
    archive = gpu_queue.pack(tmp_path / "src", tmp_path / "carry" / "results_full.tar.gz",
                             base={})
    monkeypatch.setattr(gpu_queue, "RESULTS", tmp_path / "dest")
    assert gpu_queue.main(["--restore", str(archive), "--unpack-only"]) == 0
    assert {p.relative_to(tmp_path / "dest").as_posix() for p in (tmp_path / "dest").rglob("*")
            if p.is_file()} == set(files)


def test_queue_is_the_issue_order_of_registered_experiments():
    gpu_queue = _script()
    known = load_all()
    assert all(name in known for name in gpu_queue.QUEUE)
    figures = [known[name].paper_figure for name in gpu_queue.QUEUE[:6]]
    assert [f.split()[-1] for f in figures] == ["2a", "2b", "2c", "4", "3", "5"]
    # the GPU experiments end with Dana's Exp. 5 and App. B; the CPU-bound rank tests follow
    assert gpu_queue.QUEUE[-5:] == ("dana.exp5", "dana.appendix_dim", "dana.appendix_depth",
                                    "mahdavi.table1", "mahdavi.table3")


def test_queue_gives_each_experiment_the_time_left_and_stops_at_a_partial_one():
    gpu_queue = _script()
    now = [0.0]
    seen: list[tuple[str, float]] = []

    def runner(command, timeout):
        if "-c" in command:
            seen.append(("imports", None))
            return 0, ""
        name = "tests" if "pytest" in command else command[command.index("run") + 1]
        limit = float(command[-1]) if "--time-limit" in command else None
        seen.append((name, limit))
        now[0] += {"tests": 20.0, "mahdavi.heads": 100.0}.get(name, 250.0)
        return (gpu_queue.PARTIAL if name == "mahdavi.head_dim" else 0), ""

    steps, outcome = gpu_queue.run_queue(gpu_queue.QUEUE, budget_s=540, device="cuda",
                                         reserve_s=40, runner=runner, clock=lambda: now[0],
                                         complete=lambda name: False, other_device=_nowhere,
                                         rerun=lambda name: None)
    assert outcome == "out of time"
    assert [s.name for s in steps] == ["imports", "cuda tests", "mahdavi.heads",
                                       "mahdavi.context", "mahdavi.head_dim"]
    assert [limit for _, limit in seen[2:]] == [480.0, 380.0, 130.0]  # 540 - 40 - time used
    steps, outcome = gpu_queue.run_queue(["mahdavi.heads"], budget_s=540, device="cuda",
                                         runner=lambda c, t: (1, "no optuna"), clock=lambda: 0.0,
                                         complete=lambda name: False)
    assert outcome == "missing packages" and len(steps) == 1
    steps, outcome = gpu_queue.run_queue(
        ["mahdavi.heads"], budget_s=540, device="cuda", clock=lambda: 0.0,
        runner=lambda c, t: (0 if "-c" in c else 1, "boom"), complete=lambda name: False)
    assert outcome == "cuda tests failed" and len(steps) == 2


def test_queue_skips_a_complete_result_and_runs_a_partial_one(tmp_path):
    gpu_queue = _script()
    # complete (a CPU run, its cache not committed), partial, unreadable, absent
    for name, provenance in (("dana.exp5", '{"complete": true}'),
                             ("mahdavi.table1", "{}"),
                             ("mahdavi.heads", '{"complete": false}'),
                             ("mahdavi.context", "{not json")):
        (tmp_path / f"{name}.csv").write_text("H,accuracy\n1,0.5\n")
        (tmp_path / f"{name}.json").write_text(provenance)
    assert [gpu_queue.complete_result(n, tmp_path) for n in
            ("dana.exp5", "mahdavi.table1", "mahdavi.heads", "mahdavi.context",
             "mahdavi.head_dim")] == [True, True, False, False, False]
    # complete, but computed under an earlier full profile: today's grid has not run
    earlier = {"experiment": "mahdavi.saturation", "profile": "full", "complete": True,
               "params": {**get("mahdavi.saturation").params("full"), "configs": [[4, 550]]}}
    (tmp_path / "mahdavi.saturation.csv").write_text("H,accuracy\n4,0.5\n")
    (tmp_path / "mahdavi.saturation.json").write_text(json.dumps(earlier))
    assert not gpu_queue.complete_result("mahdavi.saturation", tmp_path)
    earlier["params"] = get("mahdavi.saturation").params("full")
    (tmp_path / "mahdavi.saturation.json").write_text(json.dumps(earlier))
    assert gpu_queue.complete_result("mahdavi.saturation", tmp_path)
    ran: list[str] = []
    runner = _recording_runner(ran)

    queue = ["mahdavi.heads", "dana.exp5", "mahdavi.context", "mahdavi.table1"]
    steps, outcome = gpu_queue.run_queue(
        queue, budget_s=540, device="cuda", runner=runner, clock=lambda: 0.0, cuda_tests=False,
        complete=lambda name: gpu_queue.complete_result(name, tmp_path),
        other_device=lambda name, device: gpu_queue.other_device_run(name, device, tmp_path),
        rerun=lambda name: None)  # these stand-in provenances record no code
    assert outcome == "done" and ran == ["mahdavi.heads", "mahdavi.context"]
    skipped = [(s.name, s.skipped) for s in steps if s.returncode is None]
    assert skipped == [("dana.exp5", "complete"), ("mahdavi.table1", "complete")]


def _paused_state(folder: Path, size: int) -> Path:
    """A stand-in for a paused group's loop state: ``size`` incompressible bytes."""
    import random

    path = folder / ".cache" / "mahdavi.heads" / "paused" / "d700a422.aa.call1.pt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(random.Random(0).randbytes(size))
    return path


def test_paused_states_travel_apart_from_the_results_cut_into_parts(tmp_path, monkeypatch):
    """A paused state of 62 MiB made the one archive too large to come back: the results archive
    leaves paused states out, and their own archive comes in parts one file each can bring."""
    gpu_queue = _script()
    files = _results(tmp_path / "results")
    state = _paused_state(tmp_path / "results" / "full", 5000)
    results = gpu_queue.pack(tmp_path / "results", tmp_path / "out" / gpu_queue.ARCHIVE_NAME,
                             base={})
    with tarfile.open(results) as tar:
        assert sorted(tar.getnames()) == sorted([*files, gpu_queue.MANIFEST_NAME])
    log = gpu_queue.pack_paused(tmp_path / "results", tmp_path / "out", base={},
                                part_bytes=2000)
    assert log["states"] == [state.relative_to(tmp_path / "results").as_posix()]
    assert log["files"] == [f"paused.tar.gz.part{k}" for k in range(3)]
    assert all((tmp_path / "out" / f).stat().st_size <= 2000 for f in log["files"])
    assert not (tmp_path / "out" / "paused.tar.gz").exists()
    dest = tmp_path / "dest"
    monkeypatch.setattr(gpu_queue, "RESULTS", dest)
    assert gpu_queue.main(["--unpack-only", "--restore", str(results),
                           str(tmp_path / "out" / gpu_queue.PAUSED_NAME)]) == 0
    assert (dest / state.relative_to(tmp_path / "results")).read_bytes() == state.read_bytes()
    assert all((dest / name).read_bytes() == data for name, data in files.items())
    assert not list((tmp_path / "out").glob("*.joined"))  # the joined copy is removed


def test_a_paused_state_too_large_to_travel_is_left_out_and_logged(tmp_path):
    gpu_queue = _script()
    _results(tmp_path / "results")
    assert gpu_queue.pack_paused(tmp_path / "results", tmp_path / "out", base={}) == {
        "states": [], "files": []}
    _paused_state(tmp_path / "results" / "rerun" / "full", 5000)  # a rerun's group pauses too
    log = gpu_queue.pack_paused(tmp_path / "results", tmp_path / "out", base={},
                                max_bytes=4000)
    assert log["files"] == [] and "restart" in log["left_out"]
    assert log["states"][0].startswith("rerun/full/.cache/")
    assert not list((tmp_path / "out").glob("paused*"))
    csv = tmp_path / "results" / "full" / "dana.exp5.csv"
    assert gpu_queue.split(csv, 1000) == [csv]  # a file that fits one part stays whole


def test_queue_leaves_a_run_of_the_cpu_to_the_cpu(tmp_path):
    """A partial run of today's code computed on the CPU, its points committed, is skipped with
    the reason (memnb.results.mixed_device_error): the GPU would reuse its points and add its
    own arithmetic to the same table. A partial GPU run is continued."""
    from memnb.results import todays_code

    gpu_queue = _script()
    full = tmp_path / "full"
    for name, device in (("mahdavi.context", "cpu"), ("mahdavi.heads", "cuda")):
        code = todays_code(name)
        provenance = {"experiment": name, "profile": "full", "complete": False,
                      "device": device, "device_name": f"{device} here", "code_fingerprint": code,
                      "params": get(name).params("full")}
        (full / ".cache" / name).mkdir(parents=True)
        (full / ".cache" / name / f"0123456789abcdef01234567.{code}.json").write_text("{}")
        (full / f"{name}.csv").write_text("H,accuracy\n1,0.5\n")
        (full / f"{name}.json").write_text(json.dumps(provenance))
    why = gpu_queue.other_device_run("mahdavi.context", "cuda", full)
    assert why is not None and "was run on cpu here (device 'cpu')" in why
    assert gpu_queue.other_device_run("mahdavi.context", "cpu", full) is None
    assert gpu_queue.other_device_run("mahdavi.heads", "cuda", full) is None
    ran: list[str] = []
    runner = _recording_runner(ran)

    steps, outcome = gpu_queue.run_queue(
        ["mahdavi.heads", "mahdavi.context"], budget_s=540, device="cuda", runner=runner,
        clock=lambda: 0.0, cuda_tests=False, complete=lambda name: False,
        other_device=lambda name, device: gpu_queue.other_device_run(name, device, full),
        rerun=lambda name: gpu_queue.rerun_due(name, full))
    assert outcome == "done" and ran == ["mahdavi.heads"]
    [skipped] = [s for s in steps if s.returncode is None]
    assert skipped.name == "mahdavi.context" and skipped.tail == f"skipped: {why}"
    assert skipped.skipped == "another device" and skipped.returncode is None


def test_queue_runs_a_table_due_for_a_rerun_as_a_rerun(tmp_path):
    """A committed table of earlier code (or of an earlier profile) is replaced by a rerun,
    computed beside it (``--rerun``), instead of a plain run that would move the table aside;
    a rerun continued on the CPU, its points committed, stays on the CPU."""
    from memnb.results import todays_code

    gpu_queue = _script()
    full = tmp_path / "full"
    full.mkdir()
    for name in ("kajitsuka.mnli_curves", "kajitsuka.imdb_curves"):
        (full / f"{name}.json").write_text(json.dumps(
            {"experiment": name, "profile": "full", "complete": False,
             "code_fingerprint": "0123456789abcdef"}))
    assert "earlier code (0123456789abcdef)" in gpu_queue.rerun_due(
        "kajitsuka.mnli_curves", full)
    assert gpu_queue.rerun_due("kajitsuka.seq_len", full) is None  # no table
    # the IMDb rerun was continued on the CPU, its points committed
    name, code = "kajitsuka.imdb_curves", todays_code("kajitsuka.imdb_curves")
    rerun = tmp_path / "rerun" / "full"
    (rerun / ".cache" / name).mkdir(parents=True)
    (rerun / ".cache" / name / f"0123456789abcdef01234567.{code}.json").write_text("{}")
    (rerun / f"{name}.csv").write_text("epoch,loss\n1,0.5\n")
    (rerun / f"{name}.json").write_text(json.dumps(
        {"experiment": name, "profile": "full", "complete": False, "device": "cpu",
         "device_name": "cpu here", "code_fingerprint": code,
         "params": get(name).params("full")}))
    assert gpu_queue.other_device_rerun("kajitsuka.mnli_curves", "cuda", full) is None
    why = gpu_queue.other_device_rerun(name, "cuda", full)
    assert why is not None and "was run on cpu here" in why
    commands: list[list[str]] = []

    def runner(command, timeout):
        commands.append(command)
        return 0, ""

    steps, outcome = gpu_queue.run_queue(
        ["kajitsuka.mnli_curves", "kajitsuka.imdb_curves", "kajitsuka.seq_len"], budget_s=540,
        device="cuda", runner=runner, clock=lambda: 0.0, cuda_tests=False,
        complete=lambda name: False, other_device=_nowhere,
        rerun=lambda name: gpu_queue.rerun_due(name, full),
        other_device_for_rerun=lambda name, device: gpu_queue.other_device_rerun(
            name, device, full))
    assert outcome == "done"
    runs = [c[c.index("run") + 1:] for c in commands if "run" in c]
    assert [r[0] for r in runs] == ["kajitsuka.mnli_curves", "kajitsuka.seq_len"]
    assert runs[0][-1] == "--rerun" and "--rerun" not in runs[1]
    [ran] = [s for s in steps if s.name == "kajitsuka.mnli_curves"]
    assert ran.tail.startswith("a rerun: the committed table was computed by earlier code")
    [skipped] = [s for s in steps if s.returncode is None]
    assert skipped.name == name and skipped.skipped == "another device"
    assert skipped.tail == f"skipped: its rerun: {why}"


def test_a_rerun_travels_between_calls_and_its_adoption_reaches_the_checkout(
        tmp_path, monkeypatch):
    """Two calls of the queue on a stand-in machine (the CPU, ``memnb run`` in this process):
    the first stops a rerun at its time limit, its points packed from rerun/full/; the second,
    sent the checkout with the first call's results restored, completes it and adopts it; the
    restore of its archive here leaves the adopted table in full/, the replaced one under
    superseded/, and no rerun folder."""
    import shutil

    from test_cli_results import _as_earlier_code, _slow_experiment

    from memnb import cli
    from memnb.results import load, load_superseded, run_experiment

    gpu_queue = _script()
    calls: list = []
    _slow_experiment(monkeypatch, calls)
    here = tmp_path / "here"  # the checkout: a partial table of earlier code, no cache
    earlier = run_experiment("tiny.slow", "full", root=here, time_limit_s=0.5)
    assert not earlier.complete
    earlier_provenance = _as_earlier_code(earlier)
    shutil.rmtree(here / "full" / ".cache")

    def in_process(command, timeout):
        if "run" not in command:  # the check that the chapters import
            return 0, ""
        return cli.main(command[command.index("run"):]), ""

    def call(machine: Path, budget_s: float) -> tuple[list, str, Path]:
        monkeypatch.setenv("MEMNB_RESULTS_DIR", str(machine))
        base = gpu_queue.snapshot(machine)
        steps, outcome = gpu_queue.run_queue(
            ["tiny.slow"], budget_s=budget_s, device="cpu", runner=in_process,
            cuda_tests=False, reserve_s=0.0, min_slice_s=0.5,
            complete=lambda name: gpu_queue.complete_result(name, machine / "full"),
            other_device=lambda name, d: gpu_queue.other_device_run(name, d, machine / "full"),
            rerun=lambda name: gpu_queue.rerun_due(name, machine / "full"),
            other_device_for_rerun=lambda name, d: gpu_queue.other_device_rerun(
                name, d, machine / "full"))
        archive = gpu_queue.pack(machine, machine.parent / f"{machine.name}.tar.gz", base=base)
        return steps, outcome, archive

    # the first call: out of time, the rerun partial, the committed table untouched
    first = tmp_path / "call1"
    shutil.copytree(here, first)
    steps, outcome, archive = call(first, budget_s=1.4)
    assert outcome == "out of time" and "--rerun" in steps[-1].command
    assert steps[-1].returncode == cli.PARTIAL
    gpu_queue.restore(archive, here)
    partial = load("tiny.slow", "full", here / "rerun")
    assert not partial.complete and 1 <= partial.provenance["points_done"] < 6
    assert load("tiny.slow", "full", here).provenance == earlier_provenance
    done = partial.provenance["points_done"]

    # the second call, sent this checkout: completes the rerun, from its cached points on
    second = tmp_path / "call2"
    shutil.copytree(here, second)
    calls.clear()
    steps, outcome, archive = call(second, budget_s=60)
    assert outcome == "done" and steps[-1].returncode == 0
    assert sorted(calls) == list(range(done, 6))  # only the points the first call left
    gone = gpu_queue.restore(archive, here).removed
    assert "rerun/full/tiny.slow.csv" in gone and "rerun/full/tiny.slow.json" in gone
    adopted = load("tiny.slow", "full", here)
    assert adopted.complete and adopted.provenance["rerun_of"]["code_fingerprint"] == (
        "0123456789abcdef")
    assert [r.provenance for r in load_superseded("tiny.slow", "full", here)] == [
        earlier_provenance]
    assert not (here / "rerun").exists()


def test_travel_room_is_what_the_next_call_can_send_and_this_one_bring_back(tmp_path):
    """The paused archive may take the 64 MiB a call sends less the checkout, the carried
    folder without its old archives, what is under $OUT and a margin, and no more than the
    parts $OUT can still bring back; outside a git checkout the fixed fallback holds."""
    import subprocess

    gpu_queue = _script()
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "tracked.bin").write_bytes(b"x" * 3000)
    (repo / "ignored.bin").write_bytes(b"x" * 50_000)  # untracked: not counted
    subprocess.run(["git", "-C", str(repo), "add", "tracked.bin"], check=True)
    carry = repo / ".gpu"
    carry.mkdir()
    (carry / "wheel.whl").write_bytes(b"w" * 2000)
    (carry / gpu_queue.ARCHIVE_NAME).write_bytes(b"a" * 9000)  # replaced next call
    (carry / f"{gpu_queue.PAUSED_NAME}.part0").write_bytes(b"p" * 9000)
    out = tmp_path / "out"
    out.mkdir()
    (out / gpu_queue.ARCHIVE_NAME).write_bytes(b"r" * 1000)
    (out / "queue_stdout.txt").write_bytes(b"s" * 10)
    restored = [carry / gpu_queue.ARCHIVE_NAME, carry / gpu_queue.PAUSED_NAME]
    expected = (gpu_queue.SEND_LIMIT_BYTES - 3000 - 2000 - 1010 - gpu_queue.TRAVEL_MARGIN_BYTES)
    assert gpu_queue.travel_room(restored, out, repo) == expected
    # eight files come back: two are there and the log follows, so five parts at most
    assert gpu_queue.travel_room(restored, out, repo, part_bytes=1000) == 5000
    assert gpu_queue.travel_room(restored, out, tmp_path / "not_a_repo") == \
        gpu_queue.PAUSED_MAX_BYTES
    # the state the fixed 40 MiB limit dropped (41.8 MiB, Fig. 2a, 2026-11-26) now travels
    assert gpu_queue.travel_room(restored, out, repo) > 42 * 2**20


def test_an_experiment_that_fails_is_reported_and_the_queue_goes_on(capsys):
    """A run that ends with an error (not a pause) does not count as done: the queue goes on
    with the next experiment and ends ``failed: NAME``; an unknown --only name is refused before
    any device time is spent."""
    gpu_queue = _script()
    ran: list[str] = []

    def runner(command, timeout):
        if "run" in command:
            name = command[command.index("run") + 1]
            ran.append(name)
            return (1, "Traceback ...") if name == "mahdavi.heads" else (0, "")
        return 0, ""

    steps, outcome = gpu_queue.run_queue(
        ["mahdavi.heads", "mahdavi.context"], budget_s=540, device="cuda", runner=runner,
        clock=lambda: 0.0, cuda_tests=False, complete=lambda name: False,
        other_device=_nowhere, rerun=lambda name: None)
    assert ran == ["mahdavi.heads", "mahdavi.context"]
    assert outcome == "failed: mahdavi.heads"
    with pytest.raises(SystemExit) as stop:
        gpu_queue.main(["--only", "mahdavi.heads", "mahdavi.nosuch"])
    assert stop.value.code == 2
    assert "--only takes registered experiments" in capsys.readouterr().err


def test_a_removal_travels_through_later_calls(tmp_path):
    """Call 1 adopts a rerun (its files leave rerun/full/); call 2, sent a checkout that never
    unpacked call 1's archive, takes its base before restoring it and removes nothing itself;
    a checkout that unpacks only call 2's archive still loses the stale rerun files, and gets
    call 1's other changes."""
    gpu_queue = _script()
    machine = tmp_path / "machine"
    _results(machine)
    base = gpu_queue.snapshot(machine)
    gone = sorted(n for n in base if n.startswith("rerun/"))
    for name in gone:
        (machine / name).unlink()
    (machine / "full" / "dana.exp5.csv").write_bytes(b"d,N,accuracy\n10,50,0.75\n")
    first = gpu_queue.pack(machine, tmp_path / "call1" / gpu_queue.ARCHIVE_NAME, base=base)
    second_machine = tmp_path / "machine2"  # the checkout sent again, call 1's archive restored
    _results(second_machine)
    base = gpu_queue.snapshot(second_machine)
    gpu_queue.restore(first, second_machine)
    second = gpu_queue.pack(second_machine, tmp_path / "call2" / gpu_queue.ARCHIVE_NAME,
                            base=base)
    here = tmp_path / "here"
    _results(here)  # never unpacked call 1's archive
    done = gpu_queue.restore(second, here)
    assert done.removed == gone and not (here / "rerun").exists()
    assert done.written == ["full/dana.exp5.csv"]
    assert (here / "full" / "dana.exp5.csv").read_bytes().endswith(b"0.75\n")


def test_an_error_is_not_hidden_by_a_later_pause():
    gpu_queue = _script()

    def runner(command, timeout):
        if "run" in command:
            return (1, "") if command[command.index("run") + 1] == "mahdavi.heads" else (3, "")
        return 0, ""

    _, outcome = gpu_queue.run_queue(
        ["mahdavi.heads", "mahdavi.context", "mahdavi.head_dim"], budget_s=540, device="cuda",
        runner=runner, clock=lambda: 0.0, cuda_tests=False, complete=lambda name: False,
        other_device=_nowhere, rerun=lambda name: None)
    assert outcome == "failed: mahdavi.heads; out of time"


def _call(tmp_path: Path, gpu_queue) -> tuple[Path, Path, dict[str, bytes]]:
    """A call on a stand-in machine sent the checkout ``here``: it changes a table, adds a
    point, and adopts the rerun (its files removed); returns (here, its archive, here's files)."""
    import shutil

    here = tmp_path / "here"
    files = _results(here)
    machine = tmp_path / "machine"
    shutil.copytree(here, machine)
    base = gpu_queue.snapshot(machine)
    (machine / "full" / "dana.exp5.csv").write_bytes(b"d,N,accuracy\n10,50,0.75\n")
    (machine / "full" / ".cache" / "dana.exp5" / "4567.ffee.json").write_bytes(b'{"rows": [1]}')
    for name in files:
        if name.startswith("rerun/"):
            (machine / name).unlink()
    archive = gpu_queue.pack(machine, tmp_path / "out" / gpu_queue.ARCHIVE_NAME, base=base,
                             base_commit="c0ffee" * 6)
    return here, archive, files


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")
            if p.is_file()}


def test_the_manifest_lists_what_the_call_changed_against_its_base(tmp_path):
    gpu_queue = _script()
    here, archive, files = _call(tmp_path, gpu_queue)
    with tarfile.open(archive) as tar:
        names = sorted(tar.getnames())
        manifest = json.loads(tar.extractfile(gpu_queue.MANIFEST_NAME).read())
    assert names == ["full/.cache/dana.exp5/4567.ffee.json", "full/dana.exp5.csv",
                     gpu_queue.MANIFEST_NAME]  # the unchanged files stay behind
    assert manifest["format"] == gpu_queue.MANIFEST_FORMAT
    assert manifest["base_commit"] == "c0ffee" * 6
    changes = manifest["files"]
    assert changes["full/.cache/dana.exp5/4567.ffee.json"]["base"] is None
    assert changes["full/dana.exp5.csv"]["base"] == gpu_queue.sha256_file(
        here / "full" / "dana.exp5.csv")
    assert all(changes[n]["new"] is None for n in files if n.startswith("rerun/"))
    assert "full/dana.exp5.json" not in changes


def test_restore_takes_files_untouched_here_and_leaves_those_already_equal(tmp_path):
    """A file at the archive's base takes its version, one absent with a null base appears, a
    removal is made, and a file here already at the new version is left alone."""
    gpu_queue = _script()
    here, archive, files = _call(tmp_path, gpu_queue)
    (here / "full" / "dana.exp5.csv").write_bytes(b"d,N,accuracy\n10,50,0.75\n")  # unpacked
    unrelated = here / "full" / "dana.exp5.json"
    unrelated.write_text('{"complete": false, "corrections": ["here"]}')  # not in the archive
    done = gpu_queue.restore(archive, here)
    assert done.written == ["full/.cache/dana.exp5/4567.ffee.json"]
    assert done.unchanged == ["full/dana.exp5.csv"]
    assert done.removed == sorted(n for n in files if n.startswith("rerun/"))
    assert (here / "full" / ".cache" / "dana.exp5" / "4567.ffee.json").read_bytes() == (
        b'{"rows": [1]}')
    assert "corrections" in unrelated.read_text()  # a change here the call never saw stays
    assert not (here / "rerun").exists()
    again = gpu_queue.restore(archive, here)  # a second restore finds everything done
    assert again.written == again.removed == [] and len(again.unchanged) == 5


@pytest.mark.parametrize("moved", ["changed", "removed", "added", "changed_removed_file"])
def test_restore_refuses_a_tree_that_moved_on_since_the_base_and_writes_nothing(
        tmp_path, moved, capsys, monkeypatch):
    """A file changed here after the call's base (a correction committed, a CPU run) that the
    call changed too is a conflict: nothing is written or removed, the message names the file
    and --force; --force takes the archive's versions."""
    gpu_queue = _script()
    here, archive, files = _call(tmp_path, gpu_queue)
    conflicting = {"changed": "full/dana.exp5.csv", "removed": "full/dana.exp5.csv",
                   "added": "full/.cache/dana.exp5/4567.ffee.json",
                   "changed_removed_file": "rerun/full/kajitsuka.mnli_curves.json"}[moved]
    if moved == "removed":
        (here / conflicting).unlink()
    else:
        (here / conflicting).write_text('{"corrections": ["committed here"]}')
    before = _tree(here)
    with pytest.raises(gpu_queue.RestoreRefused) as refused:
        gpu_queue.restore(archive, here)
    assert refused.value.conflicts == [conflicting]
    message = str(refused.value)
    assert "nothing written" in message and conflicting in message and "--force" in message
    assert "c0ffeec0ffee" in message  # the base commit
    assert _tree(here) == before
    # the same through the script, with the paused archive checked too: exit 4, nothing written
    monkeypatch.setattr(gpu_queue, "RESULTS", here)
    assert gpu_queue.main(["--unpack-only", "--restore", str(archive)]) == (
        gpu_queue.RESTORE_REFUSED)
    assert conflicting in capsys.readouterr().err and _tree(here) == before
    assert gpu_queue.main(["--unpack-only", "--force", "--restore", str(archive)]) == 0
    assert (here / "full" / "dana.exp5.csv").read_bytes().endswith(b"0.75\n")
    assert not (here / "rerun").exists()


def test_a_conflict_in_one_archive_stops_the_restore_of_all(tmp_path):
    """The paused archive is checked before the results archive is written, and the other way
    round: a call restores all of its archives or none."""
    gpu_queue = _script()
    here, archive, _ = _call(tmp_path, gpu_queue)
    machine = tmp_path / "machine"
    base = gpu_queue.snapshot(machine)
    _paused_state(machine / "full", 300)
    paused = gpu_queue.pack(machine, tmp_path / "out" / gpu_queue.PAUSED_NAME, base=base,
                            paused=True)
    table = here / "full" / "dana.exp5.csv"
    at_base = table.read_bytes()
    table.write_text("d,N,accuracy\n10,50,0.25\n")  # changed here since the base
    before = _tree(here)
    with pytest.raises(gpu_queue.RestoreRefused, match="full/dana.exp5.csv"):
        gpu_queue.restore_all([archive, paused], here)
    assert _tree(here) == before  # the paused archive, which alone would restore, wrote nothing
    table.write_bytes(at_base)
    assert [len(r.written) for _, r in gpu_queue.restore_all([archive, paused], here)] == [2, 1]


def test_an_earlier_paused_state_here_is_replaced_by_the_calls_newer_one(tmp_path):
    """Paused states never travel as files of the checkout, so the machine's base for one is
    always absent: a state here of the same name is an earlier call's state of the same group
    (unpacked here), not a conflict; the call's newer state replaces it (review finding: the
    restore, and gpu_carry before a machine starts, refused it)."""
    gpu_queue = _script()
    machine, here = tmp_path / "machine", tmp_path / "here"
    base = gpu_queue.snapshot(machine)
    newer = _paused_state(machine / "full", 300)
    paused = gpu_queue.pack(machine, tmp_path / "out" / gpu_queue.PAUSED_NAME, base=base,
                            paused=True)
    earlier = _paused_state(here / "full", 200)
    assert earlier.read_bytes() != newer.read_bytes()
    gpu_queue.check_restore(paused, here)  # no conflict
    done = gpu_queue.restore(paused, here)
    assert done.written == [newer.relative_to(machine).as_posix()]
    assert earlier.read_bytes() == newer.read_bytes()


def test_an_archive_without_a_manifest_is_refused_unless_forced(tmp_path):
    """An archive of the earlier format packed every file: restoring it would revert whatever
    changed here since, so it is refused; --force unpacks it whole, as before."""
    gpu_queue = _script()
    here = tmp_path / "here"
    files = _results(here)
    archive = tmp_path / "old.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name in files:
            tar.add(here / name, arcname=name)
        data = json.dumps(["rerun/full/kajitsuka.mnli_curves.csv"]).encode()
        info = tarfile.TarInfo(gpu_queue.REMOVED_NAME)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    (here / "full" / "dana.exp5.json").write_text('{"corrections": ["here"]}')
    with pytest.raises(gpu_queue.RestoreRefused, match="no manifest.json.*--force"):
        gpu_queue.restore(archive, here)
    assert "corrections" in (here / "full" / "dana.exp5.json").read_text()
    done = gpu_queue.restore(archive, here, force=True)
    assert sorted(done.written) == sorted(files)
    assert done.removed == []  # written by the same archive: kept, as before
    assert (here / "full" / "dana.exp5.json").read_bytes() == files["full/dana.exp5.json"]


def test_a_member_that_does_not_match_its_manifest_restores_nothing(tmp_path):
    gpu_queue = _script()
    here, archive, _ = _call(tmp_path, gpu_queue)
    tampered = tmp_path / "tampered.tar.gz"
    with tarfile.open(archive) as source, tarfile.open(tampered, "w:gz") as tar:
        for member in source.getmembers():
            data = source.extractfile(member).read()
            if member.name == "full/dana.exp5.csv":
                data = b"d,N,accuracy\n10,50,0.99\n"
                member.size = len(data)
            tar.addfile(member, io.BytesIO(data))
    before = _tree(here)
    with pytest.raises(ValueError, match="SHA-256"):
        gpu_queue.restore(tampered, here, force=True)
    assert _tree(here) == before


_TRAPS_SIGTERM = """
import pathlib, signal, sys, time
mark = pathlib.Path(sys.argv[1])
def on_term(signum, frame):
    mark.write_text("state saved")
    if sys.argv[2] == "exit":
        sys.exit(3)
signal.signal(signal.SIGTERM, on_term)
print("running", flush=True)
time.sleep(60)
"""


@pytest.mark.parametrize("on_term", ["exit", "ignore"])
def test_the_hard_stop_sends_sigterm_then_sigkill(tmp_path, on_term):
    """Past its timeout a run is sent SIGTERM, which ``memnb run`` answers by saving its paused
    states; one still running ``grace_s`` later is killed. Either way the runner reports 124
    with the output so far."""
    import sys
    import time

    gpu_queue = _script()
    mark = tmp_path / "mark"
    t0 = time.monotonic()
    code, tail = gpu_queue._subprocess_runner(
        [sys.executable, "-c", _TRAPS_SIGTERM, str(mark), on_term], 3.0, grace_s=2.0)
    took = time.monotonic() - t0
    assert code == 124 and mark.read_text() == "state saved"  # its handler ran
    assert "running" in tail
    if on_term == "exit":
        assert "stopped by SIGTERM at the hard stop: exit 3" in tail and took < 4.9
    else:
        assert "killed (SIGKILL)" in tail and 4.9 <= took < 20


def _fake_queue_main(tmp_path: Path, monkeypatch, queue) -> Path:
    """Point the script at stand-in results under ``tmp_path`` and replace its queue by
    ``queue`` (called with run_queue's arguments); returns the results folder."""
    gpu_queue = _script()
    results = tmp_path / "results"
    _results(results)
    monkeypatch.setattr(gpu_queue, "RESULTS", results)
    monkeypatch.setattr(gpu_queue, "run_queue", queue)
    return results


def test_the_budget_counts_from_started(tmp_path, monkeypatch):
    """With --started (the device command's first second), the setup before the script counts
    against --budget; without it, the budget counts from the script's start."""
    import time

    gpu_queue = _script()
    budgets: list[float] = []

    def queue(names, *, budget_s, steps, **kwargs):
        budgets.append(budget_s)
        return steps, "done"

    _fake_queue_main(tmp_path, monkeypatch, queue)
    common = ["--allow-cpu", "--device", "cpu", "--out", str(tmp_path / "out"), "--budget",
              "490"]
    assert gpu_queue.main([*common, "--started", str(time.time() - 100)]) == 0
    assert gpu_queue.main(common) == 0
    assert 385 < budgets[0] <= 390 and 485 < budgets[1] <= 490
    assert gpu_queue.budget_left(490, started=1000.0, now=1100.0) == 390.0
    # the default budget leaves 60 s under the device's limit in the worst case
    assert (gpu_queue.DEFAULT_BUDGET_S - gpu_queue.RESERVE_S + gpu_queue.HARD_STOP_S
            + gpu_queue.GRACE_S + gpu_queue.RESERVE_S) <= gpu_queue.DEVICE_LIMIT_S - 60


def test_what_finished_is_packed_when_the_queue_raises(tmp_path, monkeypatch):
    """An exception after a run (here in the queue itself) still packs the points that run
    wrote, and logs the steps that ended and the error."""
    gpu_queue = _script()

    def queue(names, *, budget_s, steps, **kwargs):
        point = gpu_queue.RESULTS / "full" / ".cache" / "dana.exp5" / "4567.ffee.json"
        point.write_text('{"rows": [1]}')
        steps.append(gpu_queue.Step("dana.exp5", ["memnb"], 3, 12.0, 100.0))
        raise RuntimeError("after a run")

    _fake_queue_main(tmp_path, monkeypatch, queue)
    out = tmp_path / "out"
    with pytest.raises(RuntimeError, match="after a run"):
        gpu_queue.main(["--allow-cpu", "--device", "cpu", "--out", str(out)])
    with tarfile.open(out / gpu_queue.ARCHIVE_NAME) as tar:
        assert "full/.cache/dana.exp5/4567.ffee.json" in tar.getnames()
    log = json.loads((out / "queue_log.json").read_text())
    assert log["outcome"] == "error: RuntimeError: after a run"
    assert [s["name"] for s in log["steps"]] == ["dana.exp5"]
    assert log["packed"] == ["full/.cache/dana.exp5/4567.ffee.json"]


def test_cuda_tests_passed_on_this_machine_for_this_code_are_skipped_once(tmp_path):
    gpu_queue = _script()
    for root in ("memnb", "tests"):
        (tmp_path / root).mkdir()
        (tmp_path / root / "a.py").write_text("x = 1\n")
    ran: list[str] = []

    def runner(command, timeout):
        ran.append("tests" if "pytest" in command else "imports" if "-c" in command else "run")
        return 0, ""

    def call(stamp):
        return gpu_queue.run_queue([], budget_s=540, device="cuda", runner=runner,
                                   clock=lambda: 0.0, stamp=stamp)

    stamp = gpu_queue.CudaTestsStamp.here("H200", "2.14.1", repo=tmp_path)
    steps, outcome = call(stamp)
    assert outcome == "done" and ran == ["imports", "tests"] and stamp.path.exists()
    ran.clear()
    steps, _ = call(gpu_queue.CudaTestsStamp.here("H200", "2.14.1", repo=tmp_path))
    assert ran == ["imports"] and steps[1].skipped == "passed before"
    (tmp_path / "tests" / "a.py").write_text("x = 2\n")
    for gpu, torch_version in (("H200", "2.14.1"), ("H100", "2.14.1"), ("H100", "2.9.1")):
        ran.clear()
        call(gpu_queue.CudaTestsStamp.here(gpu, torch_version, repo=tmp_path))
        assert ran == ["imports", "tests"]  # changed tests, another GPU, another torch
    ran.clear()
    call(gpu_queue.CudaTestsStamp.here("H100", "2.9.1", repo=tmp_path,
                                       packages_sha256="another numpy"))
    assert ran == ["imports", "tests"]  # same GPU, torch and code; another carried wheel
    ran.clear()
    failing = gpu_queue.CudaTestsStamp.here("A100", "2.14.1", repo=tmp_path)
    assert failing.identity["packages_sha256"] == gpu_queue.installed_packages_digest()
    steps, outcome = gpu_queue.run_queue([], budget_s=540, device="cuda", clock=lambda: 0.0,
                                         runner=lambda c, t: (0 if "-c" in c else 1, "boom"),
                                         stamp=failing)
    assert outcome == "cuda tests failed" and failing.passed_before() is None
