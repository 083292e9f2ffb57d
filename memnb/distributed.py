"""Sweep groups on a ``dask.distributed`` cluster (``--executor dask://HOST:PORT``).

Each packed group of sweep points is one task. Results come back as tasks finish and are cached
by :func:`memnb.sweep.run_sweep` on the submitting machine, so a worker that dies mid-sweep loses
only its unfinished groups: dask reschedules them, and a rerun computes only what is missing.
Inside a time limit (``memnb run --time-limit``) groups go out one per worker thread and only
while the next would end in time, so a stopped run has finished every group it started.
The workers compute on ``--device``, so the device is checked on them, not on the submitting
machine (:func:`check_worker_device`).
"""

from __future__ import annotations

import ipaddress
import re
import socket
import time
from collections.abc import Iterator, Sequence
from typing import Any

from memnb.budget import TimeBudget
from memnb.sweep import GroupEvaluator, Point, Rows

#: Seconds to wait for the scheduler's port to accept a connection before giving up.
CONNECT_TIMEOUT_S = 3.0

#: Seconds a server that accepted the connection has to answer the dask handshake and say that
#: it is a scheduler (:func:`check_scheduler`); read when a check runs.
HANDSHAKE_TIMEOUT_S = 10.0

#: Seconds the workers have to answer the device check (:func:`check_worker_device`): a worker
#: may import torch and initialise CUDA for it; read when a check runs.
DEVICE_CHECK_TIMEOUT_S = 30.0

_DEFAULT_PORT_HINT = "is that the dashboard port? a scheduler listens on 8786 by default"


class SchedulerUnreachable(ConnectionError, ValueError):
    """No dask scheduler answers at the address given with ``--executor dask://HOST:PORT``.

    A ``ValueError`` too, so that ``memnb run`` reports it as a usage error (no traceback).
    """


_BARE_HOST = re.compile(r"[A-Za-z0-9._-]+")
"""A host name or IPv4 address as ``--executor`` takes it: ASCII letters, digits, ``.``, ``-``
and ``_`` (no user, path or brackets); an IPv6 address goes in brackets."""

_FORM = "executor must look like 'dask://HOST:PORT' (IPv6: dask://[ADDR]:PORT)"


def _host_error(host: str) -> str | None:
    """Why ``host`` (the part of an address before its last ``:``) is no host, or None: a bare
    host of :data:`_BARE_HOST`, or an IPv6 address in brackets (``[::1]``, ``[fe80::1%eth0]``)."""
    if not ("[" in host or "]" in host):
        if ":" in host:
            return f"{_FORM}: an IPv6 address goes in brackets"
        return None if _BARE_HOST.fullmatch(host) else _FORM
    inner = host[1:-1] if host.startswith("[") and host.endswith("]") else ""
    try:
        ipaddress.IPv6Address(inner)
    except ValueError:
        return f"{_FORM}: brackets must enclose the whole host, an IPv6 address"
    return None


def scheduler_address(executor: str) -> str:
    """``dask://HOST:PORT`` → ``tcp://HOST:PORT``; a ``ValueError`` for anything else.

    The whole form is checked here, before any connection: the prefix, a host of ASCII letters,
    digits, ``.``, ``-`` and ``_`` or an IPv6 address in balanced brackets (:func:`_host_error`:
    no user, path, space or unbracketed ``:``), and a port of ASCII digits in 1..65535
    (:func:`_host_port`), so a malformed address is refused with this module's message rather
    than with dask's, or as an unreachable scheduler."""
    prefix = "dask://"
    if not isinstance(executor, str) or not executor.startswith(prefix):
        raise ValueError(f"{_FORM}; got {executor!r}")
    host, colon, _ = executor[len(prefix):].rpartition(":")
    wrong = _host_error(host) if colon and host else _FORM
    if wrong is not None:
        raise ValueError(f"{wrong}; got {executor!r}")
    address = "tcp://" + executor[len(prefix):]
    _host_port(address)
    return address


def _host_port(address: str) -> tuple[str, int]:
    """``tcp://HOST:PORT`` → ``(HOST, PORT)``; a ``ValueError`` if PORT is not a port number
    (ASCII digits only: ``int`` would also read other scripts' digits, ``_`` and spaces)."""
    host, _, port = address.removeprefix("tcp://").rpartition(":")
    if not (port.isascii() and port.isdigit()) or not 0 < int(port) < 65536:
        raise ValueError(f"executor port must be an integer in 1..65535; got {port!r}")
    return host.strip("[]"), int(port)


def check_scheduler(executor: str, timeout: float = CONNECT_TIMEOUT_S,
                    handshake_timeout: float | None = None) -> str:
    """Return the ``tcp://`` address of ``executor`` if a dask scheduler answers there.

    Two checks, each bounded in time so that a wrong address cannot hang the caller: the port
    accepts a TCP connection within ``timeout`` seconds, then the server there completes the
    dask handshake and answers an ``identity`` request as a ``Scheduler`` within
    ``handshake_timeout`` seconds (default :data:`HANDSHAKE_TIMEOUT_S`; :func:`_identity`). A
    server of another kind (a web server, a dashboard, a dask worker) fails the second.

    Raises :class:`SchedulerUnreachable` (a ``ValueError``), one line naming ``--executor``
    and the address, when either check fails, whatever the failure (a refused or timed-out
    connection, garbage read as a dask message, a closed connection); a ``ValueError`` when
    ``dask.distributed`` is not installed.
    """
    address = scheduler_address(executor)
    host, port = _host_port(address)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as err:
        reason = (f"no answer within {timeout:g} s" if isinstance(err, TimeoutError)
                  else (err.strerror or str(err)).lower())
        raise SchedulerUnreachable(
            f"--executor: no dask scheduler reachable at {address} ({reason}). "
            f"Start one on that machine with `dask scheduler --host {host} --port {port}` and "
            f"at least one worker with `dask worker {address} --nthreads 1`, or drop "
            f"--executor to run in-process.") from None
    limit = HANDSHAKE_TIMEOUT_S if handshake_timeout is None else handshake_timeout
    try:
        identity = _identity(address, limit)
    except TimeoutError:
        raise SchedulerUnreachable(
            f"--executor: no dask scheduler answered at {address} within {limit:g} s "
            f"({_DEFAULT_PORT_HINT})") from None
    except ImportError as err:
        raise ValueError(f"--executor needs the dask.distributed package, which is not "
                         f"installed here ({err}); drop --executor to run in-process") from None
    except Exception as err:  # anything the handshake raised on what the server sent
        said = " ".join(f"{type(err).__name__}: {err}".split())
        raise SchedulerUnreachable(
            f"--executor: no dask scheduler answered at {address}: the dask handshake failed "
            f"with {said[:160]} ({_DEFAULT_PORT_HINT})") from None
    kind = identity.get("type") if isinstance(identity, dict) else None
    if kind != "Scheduler":
        what = f"a dask {kind}" if isinstance(kind, str) else "not a dask scheduler"
        raise SchedulerUnreachable(
            f"--executor: the server at {address} is {what}, not a scheduler "
            f"({'give the address of its scheduler' if kind == 'Worker' else _DEFAULT_PORT_HINT})")
    return address


def _identity(address: str, timeout: float) -> Any:
    """What the dask server at ``address`` answers to an ``identity`` request (a dict whose
    ``type`` is ``Scheduler`` for a scheduler), after the dask handshake.

    The handshake of :func:`distributed.comm.connect` reads the server's reply without a time
    limit (a server that sends nothing holds it forever), and garbage read as a dask message
    raises whatever its decoding raises. So the exchange runs on an event loop of its own, in a
    daemon thread, bounded by ``timeout`` on the loop and again by a deadline on the thread:
    ``TimeoutError`` when the deadline passes; any exception of the exchange is re-raised."""
    import asyncio
    import threading

    from distributed.comm import connect

    async def ask() -> Any:
        comm = await connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    outcome: dict[str, Any] = {}

    def exchange() -> None:
        try:
            outcome["reply"] = asyncio.run(asyncio.wait_for(ask(), timeout))
        except BaseException as err:  # handed to the calling thread
            outcome["error"] = err

    thread = threading.Thread(target=exchange, name="memnb-dask-handshake", daemon=True)
    thread.start()
    thread.join(timeout + 2.0)  # the loop's own limit, then a margin for its shutdown
    if thread.is_alive() or isinstance(outcome.get("error"), TimeoutError):
        raise TimeoutError(f"no dask answer from {address} within {timeout:g} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["reply"]


def _client(executor: str) -> Any:
    """A ``dask.distributed.Client`` of the scheduler at ``executor``, once
    :func:`check_scheduler` has found one there; a connection that fails all the same raises
    :class:`SchedulerUnreachable`."""
    address = check_scheduler(executor)  # first: dask not installed is a ValueError there
    from dask.distributed import Client

    try:
        return Client(address, timeout=f"{HANDSHAKE_TIMEOUT_S:g}s")
    except OSError as err:  # TimeoutError too
        raise SchedulerUnreachable(
            f"--executor: could not connect to the dask scheduler at {address}: "
            f"{' '.join(str(err).split())}") from None


def check_worker_device(executor: str, device: str, timeout: float | None = None) -> str:
    """Return ``device`` if every worker of the dask scheduler at ``executor`` can compute on
    it: ``cpu`` always, ``cuda`` where torch sees a CUDA GPU, ``cuda:N`` where it sees more
    than ``N``. The check of :func:`memnb.results.check_device`, made on the workers, which
    compute the points of a ``dask://`` run (the submitting machine needs no GPU).

    The form of ``device`` is checked first, here; then the scheduler (:func:`check_scheduler`,
    through :func:`_client`); then each worker answers :func:`_worker_gpus` within ``timeout``
    seconds (default :data:`DEVICE_CHECK_TIMEOUT_S`). Raises a ``ValueError``, one line, when
    the form is wrong, no scheduler answers (:class:`SchedulerUnreachable`), no worker is
    connected, a worker fails to answer in time or raises, or a worker lacks the device: the
    line names the device, those workers' addresses and the devices every worker has.
    """
    from memnb.prose import counted
    from memnb.results import device_index

    index = device_index(device)
    limit = DEVICE_CHECK_TIMEOUT_S if timeout is None else timeout
    address = scheduler_address(executor)
    passed = _WORKERS_CHECKED.get((address, device))
    if passed is not None and time.monotonic() - passed < WORKERS_CHECK_REUSE_S:
        return device  # passed moments ago in this process (memnb run's argument check)
    with _client(executor) as client:
        try:  # Client.sync bounds the broadcast in time (callback_timeout)
            answers = client.run(_worker_gpus, on_error="return", callback_timeout=limit)
        except TimeoutError:
            raise ValueError(f"--executor: the workers of the dask scheduler at {address} did "
                             f"not answer the check of device {device!r} within "
                             f"{limit:g} s") from None
    if not answers:
        raise ValueError(f"--executor: no worker is connected to the dask scheduler at "
                         f"{address}, so device {device!r} cannot be checked and no point "
                         f"would be computed; start one with `dask worker {address} "
                         "--nthreads 1` and rerun")
    failed = {w: a for w, a in answers.items() if isinstance(a, BaseException)}
    if failed:
        said = "; ".join(f"{w}: {' '.join(f'{type(a).__name__}: {a}'.split())[:160]}"
                         for w, a in sorted(failed.items()))
        raise ValueError(f"--executor: device {device!r} could not be checked on {len(failed)} "
                         f"of the {counted(len(answers), 'worker')} of the dask scheduler at "
                         f"{address} ({said}); they need memnb and torch installed as here")
    need = 1 if index is None else index + 1  # GPUs a worker must see (cpu: none)
    lacking = sorted(w for w, gpus in answers.items() if device != "cpu" and gpus < need)
    if lacking:
        fewest = min(answers.values())
        every = {0: "cpu", 1: "cpu, cuda or cuda:0"}.get(
            fewest, f"cpu, cuda or cuda:N with N in [0, {fewest - 1}]")
        what = "no CUDA GPU" if need == 1 else f"fewer than {need} CUDA GPUs"
        named = ", ".join(w if need == 1 else f"{w}: {answers[w]}" for w in lacking)
        raise ValueError(f"--executor: device {device!r} requested but {len(lacking)} of the "
                         f"{counted(len(answers), 'worker')} of the dask scheduler at {address} "
                         f"{'have' if len(lacking) > 1 else 'has'} {what} ({named}); every "
                         f"worker can run --device {every}")
    _WORKERS_CHECKED[(address, device)] = time.monotonic()
    return device


#: Seconds for which a passed :func:`check_worker_device` stands in this process: ``memnb
#: run`` checks its arguments, then the run checks them again moments later.
WORKERS_CHECK_REUSE_S = 60.0

#: When the workers of each (scheduler address, device) last passed, ``time.monotonic()``.
_WORKERS_CHECKED: dict[tuple[str, str], float] = {}


def _worker_gpus() -> int:
    """On a worker: how many CUDA GPUs torch sees there (0 without CUDA)."""
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def cluster_description(executor: str, device: str = "cpu") -> str:
    """What computes the points of a ``dask://`` run, for its provenance: the workers' device,
    how many there are, and the task threads and torch threads of each, e.g. ``CPU (x86_64,
    AVX2), dask cluster: 2 workers × 1 task thread, 1 torch thread each`` (with the CPU's
    vector instruction set, :func:`memnb.results.cpu_capability`). The submitting process's own
    thread count says nothing about them, so it is not what a dask run records."""
    from memnb.prose import counted

    with _client(executor) as client:
        workers = client.scheduler_info().get("workers", {})
        probed = client.run(_worker_device, device).values()  # (device, torch threads) each
    if not workers:
        return "dask cluster with no worker connected when the run started"
    tasks = sorted({int(info.get("nthreads", 1)) for info in workers.values()})
    machines = sorted({machine for machine, _ in probed})
    torch_threads = sorted({threads for _, threads in probed})
    each = "/".join(str(t) for t in tasks)
    per_torch = "/".join(str(t) for t in torch_threads)
    return (f"{', '.join(machines)}, dask cluster: {counted(len(workers), 'worker')} × {each} "
            f"task thread{'s' if tasks != [1] else ''}, {per_torch} torch "
            f"thread{'s' if torch_threads != [1] else ''} each")


def _worker_device(device: str) -> tuple[str, int]:
    """On a worker: its device (the GPU model for a ``cuda`` device, else the CPU) and torch's
    thread count there, in one round trip."""
    import platform

    import torch

    if device.startswith("cuda") and torch.cuda.is_available():
        machine = torch.cuda.get_device_name(torch.device(device))
    else:  # the vector instruction set of torch's kernels too, as in-process runs name it
        machine = (f"CPU ({platform.processor() or platform.machine()}, "
                   f"{torch.backends.cpu.get_cpu_capability()})")
    return machine, torch.get_num_threads()


def map_groups(executor: str, evaluate: GroupEvaluator, groups: Sequence[list[Point]],
               budget: TimeBudget | None = None,
               ) -> Iterator[tuple[list[Point], list[Rows]]]:
    """Run ``evaluate`` on every group on the cluster, yielding ``(group, rows)`` as they finish.

    Without a ``budget`` (the run's :func:`memnb.budget.time_limit`, which
    :func:`memnb.sweep.run_sweep` passes) every group is submitted at once. With one, at most
    one group per worker thread is on the cluster at a time, and a further group is submitted
    only while the budget estimates that it ends before the deadline (the in-process rule,
    :meth:`memnb.budget.TimeBudget.allows_group`); else the budget is marked stopped. So a
    limited run ends near its limit with every group it started finished and cached, instead of
    dropping the groups still running.
    ``memnb run`` always passes one: without ``--time-limit`` a budget with no deadline, which a
    stop request (:func:`memnb.resume.request_stop`) ends; the sweep then keeps the next group
    that finishes and leaves the others still on the cluster.
    """
    from dask.distributed import as_completed

    with _client(executor) as client:
        if budget is None:
            futures = {client.submit(evaluate, group, pure=False): i
                       for i, group in enumerate(groups)}
            for future in as_completed(futures):
                yield groups[futures[future]], future.result()
            return
        yield from _within_budget(client, evaluate, groups, budget)


def _worker_threads(client: Any) -> int:
    """Threads of the cluster's workers (at least 1: a task waits for a worker to join)."""
    workers = client.scheduler_info().get("workers", {})
    return max(1, sum(int(info.get("nthreads", 1)) for info in workers.values()))


def _within_budget(client: Any, evaluate: GroupEvaluator, groups: Sequence[list[Point]],
                   budget: TimeBudget) -> Iterator[tuple[list[Point], list[Rows]]]:
    """:func:`map_groups` inside a time limit: one group per worker thread (workers that join
    later get groups too), submitted while the budget allows it; each group's time (submit to
    result) is recorded in the budget's estimate."""
    from dask.distributed import as_completed

    queue = list(enumerate(groups))[::-1]  # popped from the end: groups in their given order
    submitted: dict[Any, tuple[int, float]] = {}
    running = as_completed()

    def submit_next() -> None:
        if not queue:
            return
        if not budget.allows_group(len(queue[-1][1])):
            budget.stopped = True
            queue.clear()
            return
        i, group = queue.pop()
        future = client.submit(evaluate, group, pure=False)
        submitted[future] = (i, time.monotonic())
        running.add(future)

    def fill() -> None:  # one group per worker thread, counting workers that joined since
        while queue and len(submitted) < _worker_threads(client):
            submit_next()

    fill()
    for future in running:
        i, started = submitted.pop(future)
        rows = future.result()
        budget.record_group(len(groups[i]), time.monotonic() - started)
        fill()  # before yielding, so that the worker is busy while the rows are cached
        yield groups[i], rows
