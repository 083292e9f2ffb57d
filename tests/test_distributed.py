"""Sweeps on a dask.distributed cluster (loopback LocalCluster): same table as in-process, and a
worker killed mid-sweep loses no finished point."""

from __future__ import annotations

import functools
import os
import signal
import threading
import time

import pandas as pd
import pytest

from memnb.distributed import scheduler_address
from memnb.experiments.dana import train_group
from memnb.fingerprint import code_fingerprint, code_modules
from memnb.sweep import cache_path, run_sweep

distributed = pytest.importorskip("distributed")


@pytest.fixture(autouse=True)
def _no_worker_check_remembered(monkeypatch):
    """Each test asks the workers afresh (a passed check stands for a minute in a process)."""
    from memnb import distributed as memnb_distributed

    monkeypatch.setattr(memnb_distributed, "_WORKERS_CHECKED", {})


def _points(heads: list[int]) -> list[dict]:
    base = {"model": "aot", "N": 8, "S": 2, "d": 3, "d_h": 3, "steps": 60, "batch": 64,
            "samples": 256, "lr": 0.01, "lr_final": 5e-4, "data_seed": 5}
    return [{**base, "H": h, "seed": s} for h in heads for s in range(2)]


def _one_per_group(point: dict) -> tuple:
    return (point["H"], point["seed"])


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None, worker_dashboard_address=None) as local:
        yield local


def _executor(cluster) -> str:
    return "dask://" + cluster.scheduler_address.removeprefix("tcp://")


def test_scheduler_address_parsing():
    assert scheduler_address("dask://127.0.0.1:8786") == "tcp://127.0.0.1:8786"
    assert scheduler_address("dask://[::1]:8786") == "tcp://[::1]:8786"
    for bad in ("tcp://127.0.0.1:8786", "dask://nohostport", "127.0.0.1:8786", "dask://:8786",
                "dask:// :8786", "dask://my host:8786"):
        with pytest.raises(ValueError, match="dask://HOST:PORT"):
            scheduler_address(bad)
    for bad_port in ("dask://host:", "dask://host:0", "dask://host:65536", "dask://host:80a",
                     "dask://host:\u0663", "dask://host:1_0", "dask://host: 1"):
        with pytest.raises(ValueError, match=r"port must be an integer in 1\.\.65535"):
            scheduler_address(bad_port)


@pytest.mark.parametrize(("bad", "why"), [
    ("dask://[::1", ": brackets must enclose the whole host, an IPv6 address"),
    ("dask://h]:1", ": brackets must enclose the whole host, an IPv6 address"),
    ("dask://[1.2.3.4]:1", ": brackets must enclose the whole host, an IPv6 address"),
    ("dask://::8786", ": an IPv6 address goes in brackets"),
    ("dask://user@host:1", ""),
    ("dask://host/path:1", ""),
])
def test_a_malformed_host_is_refused_before_any_connection(bad, why):
    """Unbalanced brackets, a bare IPv6 address, a user or a path used to pass the form check and
    be reported as an unreachable scheduler (with a `dask scheduler --host` hint built from the
    broken host); each is refused by its form, with the address given."""
    with pytest.raises(ValueError) as info:
        scheduler_address(bad)
    assert str(info.value) == ("executor must look like 'dask://HOST:PORT' (IPv6: "
                               f"dask://[ADDR]:PORT){why}; got {bad!r}")


def test_well_formed_hosts_pass():
    for host in ("127.0.0.1", "node-7.cluster_a.example", "[fe80::1%eth0]", "[2001:db8::1]"):
        assert scheduler_address(f"dask://{host}:8786") == f"tcp://{host}:8786"


def test_distributed_table_equals_local_table(cluster, tmp_path):
    points = _points([1, 2, 4])
    evaluate = functools.partial(train_group, progress=False)
    local = run_sweep(points, evaluate, cache_dir=tmp_path / "local", group_key=_one_per_group,
                      progress=False)
    remote = run_sweep(points, evaluate, cache_dir=tmp_path / "remote",
                       group_key=_one_per_group, executor=_executor(cluster), progress=False)
    pd.testing.assert_frame_equal(local, remote)
    assert len(list((tmp_path / "remote").glob("*.json"))) == len(points)


def test_killed_worker_loses_no_finished_point(cluster, tmp_path):
    points = _points([1, 2, 3, 4, 5, 6])
    cache = tmp_path / "cache"
    evaluate = functools.partial(train_group, progress=False)
    outcome: dict = {}

    def sweep() -> None:
        try:
            outcome["table"] = run_sweep(points, evaluate, cache_dir=cache,
                                         group_key=_one_per_group,
                                         executor=_executor(cluster), progress=False)
        except Exception as err:  # a killed worker may fail the sweep: that is allowed
            outcome["error"] = err

    thread = threading.Thread(target=sweep)
    thread.start()
    deadline = time.time() + 120
    while len(list(cache.glob("*.json"))) < 2 and time.time() < deadline:
        time.sleep(0.05)
    finished_before_kill = {p.name for p in cache.glob("*.json")}
    assert len(finished_before_kill) >= 2, "no point finished in time"
    from distributed import Client

    with Client(cluster.scheduler_address) as client:
        pids = client.run(os.getpid)
    os.kill(next(iter(pids.values())), signal.SIGKILL)
    thread.join(timeout=300)
    assert not thread.is_alive()

    cached = {p.name for p in cache.glob("*.json")}
    assert finished_before_kill <= cached  # nothing finished was lost
    code = code_fingerprint(code_modules(train_group))  # the key of the points cached above
    # the cluster may have finished every point (dask retries a killed worker's group): remove
    # two of those cached, so that the rerun has points to compute and others to read
    for point in (points[0], points[3]):
        cache_path(cache, point, code).unlink(missing_ok=True)
    missing = [p for p in points if not cache_path(cache, p, code).exists()]
    assert missing and len(missing) < len(points)
    recomputed: list[dict] = []

    def counting(group: list[dict]) -> list:
        recomputed.extend(group)
        return evaluate(group)

    table = run_sweep(points, counting, cache_dir=cache, group_key=_one_per_group,
                      progress=False, code=code)
    assert recomputed == missing  # a rerun computes only what is missing
    reference = run_sweep(points, evaluate, cache_dir=tmp_path / "reference",
                          group_key=_one_per_group, progress=False)
    pd.testing.assert_frame_equal(table, reference)


def test_time_limited_sweep_finishes_every_group_it_starts(cluster, tmp_path):
    """Inside a time limit the cluster gets one group per worker and no group past the point
    where the budget's estimate would overrun: every group that starts is finished and cached."""
    from memnb.budget import time_limit

    started_dir = tmp_path / "started"
    started_dir.mkdir()
    seconds_per_group = 1.0

    def slow(group: list[dict]) -> list:  # a local function: dask pickles it by value
        for point in group:
            (started_dir / f"{point['H']}-{point['seed']}").touch()
        time.sleep(seconds_per_group)
        return [[{"accuracy": 1.0}] for _ in group]

    points = [{"H": h, "seed": s} for h in range(1, 7) for s in range(2)]  # 12 groups of 1
    cache = tmp_path / "cache"
    start = time.monotonic()
    with time_limit(2.5) as budget:
        table = run_sweep(points, slow, cache_dir=cache, group_key=_one_per_group,
                          executor=_executor(cluster), progress=False, code="test")
    elapsed = time.monotonic() - start
    cached = len(list(cache.glob("*.json")))
    assert budget.stopped and budget.missing
    assert 2 <= cached < len(points) and len(table) == cached == budget.done
    assert len(list(started_dir.iterdir())) == cached  # nothing started was dropped
    assert elapsed < 2.5 + 2 * seconds_per_group  # stopped near the limit, not after 12 groups
    assert budget.seconds_per_point >= seconds_per_group  # groups of one point


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_scheduler_fails_fast_with_a_clear_message():
    from memnb.distributed import SchedulerUnreachable, map_groups

    port = _free_port()  # nothing listens there once the socket is closed
    start = time.perf_counter()
    with pytest.raises(SchedulerUnreachable) as info:
        next(map_groups(f"dask://127.0.0.1:{port}", lambda group: [], [[{"H": 1}]]))
    assert time.perf_counter() - start < 5
    message = str(info.value)
    assert f"tcp://127.0.0.1:{port}" in message
    assert f"dask scheduler --host 127.0.0.1 --port {port}" in message
    assert isinstance(info.value, ValueError)  # `memnb run` reports it without a traceback


def test_memnb_run_reports_an_unreachable_scheduler_without_a_traceback(tmp_path):
    import subprocess
    import sys

    port = _free_port()
    env = {**os.environ, "MEMNB_RESULTS_DIR": str(tmp_path), "OMP_NUM_THREADS": "1"}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "memnb.cli", "run", "dana.exp1", "--profile", "ci",
         "--executor", f"dask://127.0.0.1:{port}"],
        capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"no dask scheduler reachable at tcp://127.0.0.1:{port}" in done.stderr
    assert "dask scheduler --host" in done.stderr
    assert time.perf_counter() - start < 60


def test_a_dask_run_records_the_workers_not_the_submitting_process(cluster, monkeypatch):
    """Provenance of a dask run names what computed its points: the workers, their task threads
    and their torch threads, not the thread count of the process that submitted the groups."""
    import re

    import torch

    from memnb.distributed import cluster_description
    from memnb.results import device_description

    text = cluster_description(_executor(cluster))
    assert re.fullmatch(r"CPU \(.+\), dask cluster: 2 workers × 1 task thread, "
                        r"\d+ torch threads? each", text), text
    monkeypatch.setattr(torch, "get_num_threads", lambda: 7)  # this process only
    assert device_description("cpu", _executor(cluster)) == text
    assert "7 threads" in device_description("cpu")
    # the vector instruction set of torch's CPU kernels is named: runs on machines of different
    # sets can differ (memnb.results.cpu_capability)
    capability = torch.backends.cpu.get_cpu_capability()
    assert device_description("cpu").endswith(f", {capability}, 7 threads)")
    # and so is the workers' of a dask cluster
    assert text.startswith("CPU (") and f", {capability}), dask cluster" in text, text


def test_the_scheduler_check_speaks_dask_to_a_scheduler_and_refuses_a_worker(cluster):
    """The check completes the dask handshake and asks the server what it is: a scheduler's
    address passes at once, a worker's (a dask server too) is refused, naming --executor."""
    from memnb.distributed import SchedulerUnreachable, check_scheduler

    start = time.perf_counter()
    assert check_scheduler(_executor(cluster)) == cluster.scheduler_address
    assert time.perf_counter() - start < 5
    worker = next(iter(cluster.scheduler_info["workers"]))
    with pytest.raises(SchedulerUnreachable, match=(
            f"--executor: the server at {worker} is a dask Worker, not a scheduler")):
        check_scheduler("dask://" + worker.removeprefix("tcp://"))


# ---- --device is checked on the workers, not on the submitting machine ---------------------

#: A LocalCluster in this process on loopback TCP; its scheduler's HTTP server (on even
#: without a dashboard) on a free port, not on 8787, which another cluster may hold.
_IN_PROCESS = {"processes": False, "protocol": "tcp", "host": "127.0.0.1",
               "dashboard_address": None, "scheduler_kwargs": {"dashboard_address": "127.0.0.1:0"}}


@pytest.fixture(scope="module")
def threads_cluster():
    """Two workers in this process (threads, not processes: quick to start, and a probe
    patched here is what they run), on the loopback TCP interface like a real cluster."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, **_IN_PROCESS) as local:
        yield local


def _worker_addresses(cluster) -> list[str]:
    return sorted(cluster.scheduler_info["workers"])


def _register_never(monkeypatch, name: str) -> list:
    """Register ``name``, whose computing fails the test; returns the list of its calls."""
    from memnb.experiments import registry

    calls: list = []

    def fn(params, **kwargs):
        calls.append(kwargs)
        raise AssertionError("no point may be computed")

    profiles = {p: {"seeds": 1} for p in ("ci", "quick", "full")}
    monkeypatch.setitem(registry._REGISTRY, name,
                        registry.Experiment(name, "test", "none", profiles, fn))
    return calls


def test_a_cuda_run_on_cpu_workers_is_refused_naming_them(threads_cluster, tmp_path,
                                                          monkeypatch, capsys):
    """``--device cuda --executor`` is checked on the workers (this machine's GPUs do not
    matter): workers without a GPU are named in one line with the device every worker has,
    before a complete written result is looked at, and no point is computed."""
    import torch

    from memnb import cli, results

    if torch.cuda.is_available():
        pytest.skip("the workers in this process see this machine's GPU")
    calls = _register_never(monkeypatch, "tiny.gpu")
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    monkeypatch.setattr(results, "check_device", lambda device: pytest.fail("checked here"))
    monkeypatch.setattr(results, "complete_already", lambda *a, **k: "a complete result")
    executor = _executor(threads_cluster)
    start = time.perf_counter()
    assert cli.main(["run", "tiny.gpu", "--profile", "full", "--device", "cuda",
                     "--executor", executor]) == 2
    assert time.perf_counter() - start < 10
    err = capsys.readouterr().err
    workers = ", ".join(_worker_addresses(threads_cluster))
    assert err == (f"memnb run: error: --executor: device 'cuda' requested but 2 of the 2 "
                   f"workers of the dask scheduler at {threads_cluster.scheduler_address} have "
                   f"no CUDA GPU ({workers}); every worker can run --device cpu\n")
    assert calls == []
    # --device cpu passes the workers' check: the next refusal is the complete result's
    assert cli.main(["run", "tiny.gpu", "--profile", "full", "--executor", executor]) == 2
    assert capsys.readouterr().err == "memnb run: error: a complete result\n"
    assert calls == []


def test_gpu_workers_serve_a_submitter_without_a_gpu(threads_cluster, monkeypatch):
    """A submitting machine without a GPU passes ``--device cuda`` when the workers have one
    (here: a probe patched to report one GPU per worker); ``cuda:N`` beyond the workers' GPUs is
    refused, naming each worker's count and the devices every worker has."""
    import torch

    from memnb import distributed as memnb_distributed
    from memnb.cli import run_arguments_error
    from memnb.results import check_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # this machine: no GPU
    with pytest.raises(ValueError, match="no CUDA GPU is available"):
        check_device("cuda")  # what the in-process check says here
    assert run_arguments_error(None, "cuda", None) == (
        "device 'cuda' requested but no CUDA GPU is available; use --device cpu")
    monkeypatch.setattr(memnb_distributed, "_worker_gpus", lambda: 1)
    executor = _executor(threads_cluster)
    assert run_arguments_error(None, "cuda", executor) is None
    assert run_arguments_error(None, "cuda:0", executor) is None
    assert run_arguments_error(None, "cpu", executor) is None
    counted = ", ".join(f"{w}: 1" for w in _worker_addresses(threads_cluster))
    assert run_arguments_error(None, "cuda:1", executor) == (
        f"--executor: device 'cuda:1' requested but 2 of the 2 workers of the dask scheduler at "
        f"{threads_cluster.scheduler_address} have fewer than 2 CUDA GPUs ({counted}); every "
        "worker can run --device cpu, cuda or cuda:0")
    # the device's form is said first, without asking the cluster
    assert run_arguments_error(None, "tpu", executor) == (
        "device must be 'cpu' or 'cuda[:N]'; got 'tpu'")


def test_the_worker_check_is_bounded_in_time_and_names_failing_workers(threads_cluster,
                                                                       monkeypatch):
    from memnb import distributed as memnb_distributed

    executor = _executor(threads_cluster)

    def slow() -> int:
        time.sleep(3)
        return 1

    monkeypatch.setattr(memnb_distributed, "_worker_gpus", slow)
    start = time.perf_counter()
    with pytest.raises(ValueError, match=(
            f"^--executor: the workers of the dask scheduler at "
            f"{threads_cluster.scheduler_address} did not answer the check of device 'cuda' "
            r"within 0.5 s$")):
        memnb_distributed.check_worker_device(executor, "cuda", timeout=0.5)
    assert time.perf_counter() - start < 2.5

    def missing() -> int:
        raise ModuleNotFoundError("No module named 'torch'")

    monkeypatch.setattr(memnb_distributed, "_worker_gpus", missing)
    with pytest.raises(ValueError) as info:
        memnb_distributed.check_worker_device(executor, "cpu")
    message = str(info.value)
    assert message.startswith("--executor: device 'cpu' could not be checked on 2 of the 2 "
                              "workers")
    for worker in _worker_addresses(threads_cluster):
        assert f"{worker}: ModuleNotFoundError: No module named 'torch'" in message
    assert "\n" not in message


def test_a_cluster_without_workers_is_refused():
    from distributed import LocalCluster

    from memnb.cli import run_arguments_error

    with LocalCluster(n_workers=0, **_IN_PROCESS) as empty:
        said = run_arguments_error(None, "cpu", _executor(empty))
        address = empty.scheduler_address
    assert said == (f"--executor: no worker is connected to the dask scheduler at {address}, so "
                    "device 'cpu' cannot be checked and no point would be computed; start one "
                    f"with `dask worker {address} --nthreads 1` and rerun")


def test_a_dask_run_measures_no_memory_of_the_submitting_machine(threads_cluster, tmp_path,
                                                                 monkeypatch):
    """The plan's memory warning of a full run compares with this machine's memory: with
    --executor the workers compute, so it is not made here; in-process it still is."""
    import pandas as pd

    from memnb import cli, planner
    from memnb.experiments import registry

    asked: list = []
    monkeypatch.setattr(planner, "memory_warning", lambda *a: asked.append(a))
    profiles = {p: {"seeds": 1} for p in ("ci", "quick", "full")}
    for name in ("tiny.remote", "tiny.here"):
        monkeypatch.setitem(registry._REGISTRY, name, registry.Experiment(
            name, "test", "none", profiles, lambda params, **kw: pd.DataFrame([{"y": 1}])))
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    assert cli.main(["run", "tiny.remote", "--profile", "full",
                     "--executor", _executor(threads_cluster)]) == 0
    assert asked == []
    assert cli.main(["run", "tiny.here", "--profile", "full"]) == 0
    assert asked == [("tiny.here", "cpu")]


def test_a_passed_worker_check_is_not_asked_again_moments_later(threads_cluster, monkeypatch):
    """memnb run checks its arguments, then the run checks them again: the cluster is asked
    once; a check older than WORKERS_CHECK_REUSE_S, or of another device, asks again."""
    from memnb import distributed as memnb_distributed

    monkeypatch.setattr(memnb_distributed, "_worker_gpus", lambda: 1)
    asked: list[str] = []
    connect = memnb_distributed._client

    def counting(executor: str):
        asked.append(executor)
        return connect(executor)

    monkeypatch.setattr(memnb_distributed, "_client", counting)
    executor = _executor(threads_cluster)
    for _ in range(2):
        assert memnb_distributed.check_worker_device(executor, "cuda") == "cuda"
    assert len(asked) == 1
    memnb_distributed.check_worker_device(executor, "cpu")
    assert len(asked) == 2
    monkeypatch.setattr(memnb_distributed, "WORKERS_CHECK_REUSE_S", 0.0)
    memnb_distributed.check_worker_device(executor, "cuda")
    assert len(asked) == 3
