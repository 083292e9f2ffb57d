"""Resumable training groups (memnb.resume): a run that pauses before a deadline and continues
in a later process gives, bit for bit, what an uninterrupted run gives; the sweep stops at the
pause with the group's points missing, resumes it on the next call and removes its files."""

from __future__ import annotations

import time

import pandas as pd
import pytest
import torch

from memnb import resume
from memnb.budget import time_limit
from memnb.sweep import paused_prefix, point_key, run_sweep
from memnb.train import TrainConfig, TrainResult, train_members


def _task(n: int = 40, d_in: int = 6, classes: int = 5):
    g = torch.Generator().manual_seed(3)
    return torch.randn(n, d_in, generator=g), torch.randint(classes, (n,), generator=g)


def _config(**changes) -> TrainConfig:
    settings = {"steps": 90, "lr": 0.03, "eval_every": 10, "batch_size": 8, "warmup_steps": 9,
                "early_stop": True, "batch_accuracy_window": 5}
    return TrainConfig(**{**settings, **changes})


def _members(tiny_classifier):
    return [tiny_classifier(6, 12, 5, active_units=w, seed=20 + w) for w in (2, 5, 12)]


def _assert_same(a: TrainResult, b: TrainResult) -> None:
    for field in ("best_loss", "accuracy", "final_loss", "final_accuracy", "steps_run",
                  "last_batches_accuracy"):
        assert torch.equal(getattr(a, field), getattr(b, field)), field
    pd.testing.assert_frame_equal(a.history, b.history)
    for ma, mb in zip(a.models, b.models, strict=True):
        for (ka, va), (kb, vb) in zip(ma.state_dict().items(), mb.state_dict().items(),
                                      strict=True):
            assert ka == kb and torch.equal(va, vb), ka


def _count_updates(monkeypatch) -> list[int]:
    """Count the optimizer steps of the training runs that follow (calls of the Adam update);
    ``counter[0]`` is their number, set back to 0 by hand."""
    from memnb import train

    counter = [0]
    update = train._adam_update

    def counting(*args, **kwargs):
        counter[0] += 1
        return update(*args, **kwargs)

    monkeypatch.setattr(train, "_adam_update", counting)
    return counter


def test_a_paused_run_resumes_bit_for_bit(tiny_classifier, tmp_path):
    x, y = _task()
    config = _config()
    whole = train_members(_members(tiny_classifier), x, y, config, progress=False)
    prefix = tmp_path / "paused" / "group.code"
    resumed, pauses = None, 0
    for _ in range(20):  # a deadline already passed: every call runs one chunk, then pauses
        with resume.group_checkpoint(prefix, deadline=time.monotonic()) as saved:
            try:
                resumed = train_members(_members(tiny_classifier), x, y, config,
                                        progress=False)
                break
            except resume.Paused:
                pauses += 1
                assert [p.name for p in saved.files()] == ["group.code.call1.pt"]
            finally:  # every call but the first continued from the state the one before saved
                assert saved.resumed == (pauses > 1 or resumed is not None)
    assert resumed is not None and pauses >= 3  # early stopping ends it after a few chunks
    _assert_same(whole, resumed)


def test_a_saved_state_of_another_run_is_ignored(tiny_classifier, tmp_path):
    x, y = _task()
    prefix = tmp_path / "paused" / "group.code"
    with resume.group_checkpoint(prefix, deadline=time.monotonic()), pytest.raises(
            resume.Paused):
        train_members(_members(tiny_classifier), x, y, _config(), progress=False)
    other = _config(lr=0.02)  # another configuration: the saved state is not its own
    with resume.group_checkpoint(prefix) as saved:
        assert saved.next_run(lambda: "another signature").load() is None
    with resume.group_checkpoint(prefix):
        started_again = train_members(_members(tiny_classifier), x, y, other, progress=False)
    _assert_same(train_members(_members(tiny_classifier), x, y, other, progress=False),
                 started_again)
    (prefix.parent / "group.code.call1.pt").write_bytes(b"cut short by a kill")
    with resume.group_checkpoint(prefix) as saved:
        assert saved.next_run(lambda: "anything").load() is None


def test_the_sweep_stops_at_a_pause_and_resumes_the_group(tiny_classifier, tmp_path,
                                                          monkeypatch):
    x, y = _task()
    steps = _count_updates(monkeypatch)
    config = _config(early_stop=False)

    def train_group(group):
        members = [tiny_classifier(6, 12, 5, active_units=p["w"], seed=p["w"]) for p in group]
        result = train_members(members, x, y, config, progress=False)
        return [[{"loss": float(result.best_loss[i])}] for i in range(len(group))]

    points = [{"w": w} for w in (2, 5, 12)]
    cache = tmp_path / "cache"
    whole = run_sweep(points, train_group, cache_dir=tmp_path / "whole", group_key=lambda p: 0,
                      progress=False, code="c0")
    assert steps[0] == config.steps  # no early stopping: the whole run takes every step
    steps[0] = 0
    with time_limit(1e-3) as budget:  # past its deadline at the first evaluation
        partial = run_sweep(points, train_group, cache_dir=cache, group_key=lambda p: 0,
                            progress=False, code="c0")
    paused_at = steps[0]
    assert 0 < paused_at < config.steps
    steps[0] = 0
    assert budget.stopped and partial.empty
    assert [point_key(p) for p in budget.missing] == [point_key(p) for p in points]
    prefix = paused_prefix(cache, points, "c0")
    assert prefix.with_name(f"{prefix.name}.call1.pt").exists()
    with time_limit(3600) as budget:
        done = run_sweep(points, train_group, cache_dir=cache, group_key=lambda p: 0,
                         progress=False, code="c0")
    # the resumed group ran only its rest (from the saved step, not from step 0): its wall
    # time is no estimate of a whole group's
    assert steps[0] == config.steps - paused_at
    assert not budget.stopped and budget.seconds_per_point == 0.0
    pd.testing.assert_frame_equal(done, whole)
    assert not list((cache / "paused").glob("*.pt"))  # removed once the points are cached


def test_a_stop_request_pauses_like_a_deadline_and_resumes_bit_for_bit(tiny_classifier,
                                                                       tmp_path, monkeypatch):
    """The first Ctrl-C or SIGTERM of ``memnb run`` (resume.stop_on_signals) makes a run with
    no deadline save its state and pause at its next evaluation; the next call continues it to
    the numbers of an uninterrupted run. A second signal stops at once."""
    import os
    import signal

    x, y = _task()
    config = _config()
    steps = _count_updates(monkeypatch)
    whole = train_members(_members(tiny_classifier), x, y, config, progress=False)
    whole_steps, steps[0] = steps[0], 0
    prefix = tmp_path / "paused" / "group.code"
    before = signal.getsignal(signal.SIGTERM)
    with resume.stop_on_signals(notice="stopping"):
        os.kill(os.getpid(), signal.SIGTERM)  # handled in this (the main) thread
        assert resume.stop_requested()
        with resume.group_checkpoint(prefix) as saved, pytest.raises(resume.Paused):
            train_members(_members(tiny_classifier), x, y, config, progress=False)
        assert [p.name for p in saved.files()] == ["group.code.call1.pt"]
        paused_at, steps[0] = steps[0], 0
        assert 0 < paused_at < whole_steps  # paused at its first evaluation, before the end
        with pytest.raises(KeyboardInterrupt):  # the second signal: at once
            os.kill(os.getpid(), signal.SIGINT)
    assert not resume.stop_requested() and signal.getsignal(signal.SIGTERM) is before
    with resume.group_checkpoint(prefix) as saved:
        resumed = train_members(_members(tiny_classifier), x, y, config, progress=False)
    # the next call continued from the saved step: it ran only the steps left, not a whole run
    assert saved.resumed and steps[0] == whole_steps - paused_at
    _assert_same(whole, resumed)
