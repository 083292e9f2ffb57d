"""The GPU queue script: pack and restore of the full results (on the CPU), and the queue's
order and time slices (with a stand-in for the commands)."""

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
    files = {"dana.exp5.csv": b"d,N,accuracy\n10,50,0.5\n",
             "dana.exp5.json": b'{"complete": false}\n',
             ".cache/dana.exp5/0123abcd.ffee.json": b'{"rows": []}',
             ".cache/mahdavi.heads/9876.aa.json": bytes(range(256))}
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
    gpu_queue = _script()
    files = _results(tmp_path / "full")
    archive = gpu_queue.pack(tmp_path / "full", tmp_path / "out" / "results_full.tar.gz")
    restored = tmp_path / "elsewhere" / "full"
    (restored / ".cache" / "dana.exp5").mkdir(parents=True)
    (restored / "dana.exp5.csv").write_text("old table")  # replaced by the archived one
    (restored / "dana.exp1.csv").write_text("kept")  # files not in the archive stay
    names = gpu_queue.restore(archive, restored)
    assert sorted(names) == sorted(files)
    for name, data in files.items():
        assert (restored / name).read_bytes() == data
    assert (restored / "dana.exp1.csv").read_text() == "kept"
    assert not list(restored.rglob("*.restoring"))


@pytest.mark.parametrize("name", ["../escape.txt", "/tmp/absolute.txt"])
def test_restore_refuses_paths_outside_the_results(tmp_path, name):
    gpu_queue = _script()
    archive = tmp_path / "bad.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        info = tarfile.TarInfo("fine.csv")
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
        info = tarfile.TarInfo(name)
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
    with pytest.raises(ValueError, match="nothing restored"):
        gpu_queue.restore(archive, tmp_path / "full")
    assert not (tmp_path / "full" / "fine.csv").exists()


def test_unpack_only_restores_a_carried_archive(tmp_path, monkeypatch):
    gpu_queue = _script()
    files = _results(tmp_path / "src")
    archive = gpu_queue.pack(tmp_path / "src", tmp_path / "carry" / "results_full.tar.gz")
    monkeypatch.setattr(gpu_queue, "RESULTS_FULL", tmp_path / "dest")
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
    files = _results(tmp_path / "full")
    state = _paused_state(tmp_path / "full", 5000)
    results = gpu_queue.pack(tmp_path / "full", tmp_path / "out" / gpu_queue.ARCHIVE_NAME)
    with tarfile.open(results) as tar:
        assert sorted(tar.getnames()) == sorted(files)
    log = gpu_queue.pack_paused(tmp_path / "full", tmp_path / "out", part_bytes=2000)
    assert log["states"] == [state.relative_to(tmp_path / "full").as_posix()]
    assert log["files"] == [f"paused.tar.gz.part{k}" for k in range(3)]
    assert all((tmp_path / "out" / f).stat().st_size <= 2000 for f in log["files"])
    assert not (tmp_path / "out" / "paused.tar.gz").exists()
    dest = tmp_path / "dest"
    monkeypatch.setattr(gpu_queue, "RESULTS_FULL", dest)
    assert gpu_queue.main(["--unpack-only", "--restore", str(results),
                           str(tmp_path / "out" / gpu_queue.PAUSED_NAME)]) == 0
    assert (dest / state.relative_to(tmp_path / "full")).read_bytes() == state.read_bytes()
    assert all((dest / name).read_bytes() == data for name, data in files.items())
    assert not list((tmp_path / "out").glob("*.joined"))  # the joined copy is removed


def test_a_paused_state_too_large_to_travel_is_left_out_and_logged(tmp_path):
    gpu_queue = _script()
    _results(tmp_path / "full")
    assert gpu_queue.pack_paused(tmp_path / "full", tmp_path / "out") == {"states": [],
                                                                         "files": []}
    _paused_state(tmp_path / "full", 5000)
    log = gpu_queue.pack_paused(tmp_path / "full", tmp_path / "out", max_bytes=4000)
    assert log["files"] == [] and "restart" in log["left_out"]
    assert not list((tmp_path / "out").glob("paused*"))
    assert gpu_queue.split(tmp_path / "full" / "dana.exp5.csv", 1000) == [
        tmp_path / "full" / "dana.exp5.csv"]  # a file that fits one part stays whole


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


def test_queue_leaves_a_table_due_for_a_rerun_to_a_rerun(tmp_path):
    """A committed table of earlier code (or of an earlier profile) is replaced by a rerun,
    computed beside it: the queue, which packs only data/results/full/, skips it and says which
    command replaces it, instead of a plain run that would move the table aside."""
    import json

    gpu_queue = _script()
    (tmp_path / "kajitsuka.mnli_curves.json").write_text(json.dumps(
        {"experiment": "kajitsuka.mnli_curves", "profile": "full", "complete": False,
         "code_fingerprint": "0123456789abcdef"}))
    assert "earlier code (0123456789abcdef)" in gpu_queue.rerun_due(
        "kajitsuka.mnli_curves", tmp_path)
    assert gpu_queue.rerun_due("kajitsuka.imdb_curves", tmp_path) is None  # no table
    ran: list[str] = []
    runner = _recording_runner(ran)

    steps, outcome = gpu_queue.run_queue(
        ["kajitsuka.mnli_curves", "kajitsuka.imdb_curves"], budget_s=540, device="cuda",
        runner=runner, clock=lambda: 0.0, cuda_tests=False, complete=lambda name: False,
        other_device=_nowhere, rerun=lambda name: gpu_queue.rerun_due(name, tmp_path))
    assert outcome == "done" and ran == ["kajitsuka.imdb_curves"]
    [skipped] = [s for s in steps if s.returncode is None]
    assert skipped.name == "kajitsuka.mnli_curves" and skipped.skipped == "rerun"
    assert ("`memnb run kajitsuka.mnli_curves --profile full --device cuda --rerun "
            "--time-limit SECONDS` replaces it") in skipped.tail


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
