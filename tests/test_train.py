"""The shared training loop: memorization, batched == sequential, schedules, bad arguments, the
global TF32 flags, and the split loop equal bit for bit to the single-function loop it replaced."""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Callable, Sequence

import pandas as pd
import pytest
import torch
from torch import Tensor, nn
from torch.func import functional_call, stack_module_state, vmap

from memnb.train import (
    Inputs,
    TrainConfig,
    TrainResult,
    _adam_update,
    _as_tuple,
    _check_members,
    _distinct_samples,
    _IndexStream,
    _sample_losses,
    tf32_matmul,
    train,
    train_members,
)


def _task(n: int = 24, d_in: int = 6, classes: int = 4, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d_in, generator=g)
    y = torch.randint(classes, (n,), generator=g)
    return x, y


def test_memorizes_tiny_task(tiny_classifier):
    x, y = _task()
    config = TrainConfig(steps=600, lr=0.05, eval_every=50, schedule="constant")
    result = train(tiny_classifier(6, 64, 4, seed=1), x, y, config, progress=False)
    assert float(result.accuracy[0]) == 1.0
    assert int(result.steps_run[0]) < 600  # stopped early at 100 % training accuracy
    preds = result.models[0](x).argmax(-1)
    assert torch.equal(preds, y)


@pytest.mark.parametrize("batch_size", [None, 8])
def test_batched_matches_sequential(tiny_classifier, batch_size):
    x, y = _task(n=32)
    config = TrainConfig(steps=120, lr=0.02, eval_every=20, batch_size=batch_size,
                         warmup_steps=10, early_stop=False)
    widths = [3, 8, 16]
    padded = [tiny_classifier(6, 16, 4, active_units=w, seed=10 + w) for w in widths]
    stacked = train_members(padded, x, y, config, progress=False)
    for i, w in enumerate(widths):
        alone = train(tiny_classifier(6, w, 4, seed=10 + w), x, y, config, progress=False)
        torch.testing.assert_close(stacked.best_loss[i], alone.best_loss[0], rtol=1e-4, atol=1e-6)
        out_stacked = stacked.models[i](x)
        out_alone = alone.models[0](x)
        torch.testing.assert_close(out_stacked, out_alone, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("optimizer", ["adamw", "adam"])
def test_member_hyperparameters_match_runs_alone(tiny_classifier, optimizer):
    """Members with their own learning rate and weight decay (e.g. the trials of a search
    trained as one stack) follow the runs they would follow alone with those values."""
    x, y = _task(n=32)
    config = TrainConfig(steps=60, lr=0.01, eval_every=20, optimizer=optimizer,
                         schedule="constant", early_stop=False)
    hyper = [(0.02, 0.0), (0.005, 0.01), (0.05, 0.003)]
    stacked = train_members([tiny_classifier(6, 8, 4, seed=3) for _ in hyper], x, y, config,
                            member_lr=[lr for lr, _ in hyper],
                            member_weight_decay=[wd for _, wd in hyper], progress=False)
    for i, (lr, wd) in enumerate(hyper):
        alone = train(tiny_classifier(6, 8, 4, seed=3), x, y,
                      dataclasses.replace(config, lr=lr, weight_decay=wd), progress=False)
        torch.testing.assert_close(stacked.best_loss[i], alone.best_loss[0], rtol=1e-5,
                                   atol=1e-7)
        lrs = stacked.history[stacked.history["member"] == i]["lr"]
        assert lrs.to_numpy() == pytest.approx(lr)  # each member's own rate in its history
    assert len(set(stacked.best_loss.tolist())) == len(hyper)  # the values did act


def test_member_hyperparameters_are_checked(tiny_classifier):
    x, y = _task()
    members = [tiny_classifier(6, 8, 4, seed=s) for s in (0, 1)]
    config = TrainConfig(steps=2)
    with pytest.raises(ValueError, match="member_lr must give one value per member"):
        train_members(members, x, y, config, member_lr=[0.1], progress=False)
    with pytest.raises(ValueError, match="member_lr must be > 0"):
        train_members(members, x, y, config, member_lr=[0.1, 0.0], progress=False)
    with pytest.raises(ValueError, match="member_weight_decay must be >= 0"):
        train_members(members, x, y, config, member_weight_decay=[0.1, -1.0], progress=False)


def test_per_member_data_with_padding_matches_alone(tiny_classifier):
    sizes = [10, 20]
    tasks = [_task(n=s, seed=s) for s in sizes]
    t_max = max(sizes)
    xs = torch.zeros(2, t_max, 6)
    ys = torch.zeros(2, t_max, dtype=torch.long)
    mask = torch.zeros(2, t_max, dtype=torch.bool)
    for k, (x, y) in enumerate(tasks):
        xs[k, : len(y)], ys[k, : len(y)], mask[k, : len(y)] = x, y, True
    config = TrainConfig(steps=60, lr=0.02, eval_every=15, batch_size=4, early_stop=False)
    members = [tiny_classifier(6, 8, 4, seed=k) for k in range(2)]
    stacked = train_members(members, xs, ys, config, sample_mask=mask, per_member_data=True,
                            progress=False)
    for k, (x, y) in enumerate(tasks):
        alone = train(tiny_classifier(6, 8, 4, seed=k), x, y, config, progress=False)
        torch.testing.assert_close(stacked.models[k](x), alone.models[0](x), rtol=1e-4, atol=1e-5)


def test_repeated_integer_samples_are_evaluated_once_with_their_counts():
    """Evaluation on distinct samples weighted by multiplicity equals the plain mean."""
    from memnb.models.attention_only import AttentionOnlyTransformer

    g = torch.Generator().manual_seed(5)
    distinct = torch.randint(0, 6, (9, 3), generator=g)
    labels = torch.randint(0, 6, (9,), generator=g)
    picks = torch.randint(0, 9, (200,), generator=g)  # heavy repetition, shuffled order
    tokens, targets = distinct[picks], labels[picks]
    model = AttentionOnlyTransformer(6, 3, 4, 4, 2, seed=1)
    config = TrainConfig(steps=3, lr=1e-3, eval_every=1, early_stop=False)
    history = train(model, tokens, targets, config, progress=False).history
    first = history[history["step"] == 0].iloc[0]
    with torch.no_grad():
        logits = model(tokens)
    expected_loss = float(torch.nn.functional.cross_entropy(logits, targets))
    expected_acc = float((logits.argmax(-1) == targets).double().mean())
    assert first["loss"] == pytest.approx(expected_loss, rel=1e-6)
    assert first["accuracy"] == pytest.approx(expected_acc, abs=1e-12)


def test_adam_matches_torch_adam(tiny_classifier):
    x, y = _task()
    config = TrainConfig(steps=25, lr=0.01, schedule="constant", eval_every=25, early_stop=False)
    ours = train(tiny_classifier(6, 8, 4, seed=3), x, y, config, progress=False).models[0]
    ref = tiny_classifier(6, 8, 4, seed=3)
    opt = torch.optim.Adam(ref.parameters(), lr=0.01)
    for _ in range(25):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(ref(x), y).backward()
        opt.step()
    # the best-loss checkpoint is the last step here, since the loss keeps decreasing
    torch.testing.assert_close(ours(x), ref(x), rtol=1e-4, atol=1e-5)


def test_last_batches_accuracy_is_the_official_codes_slice(tiny_classifier):
    """Dana et al.'s code reports sum(Acc[-101:-1]) / 100: the mean accuracy of the batches of
    the `window` steps before the last, each scored before its update. A plain loop with
    torch.optim.Adam over the same batches gives the same number."""
    x, y = _task(n=40)
    steps, window, batch = 30, 10, 8
    config = TrainConfig(steps=steps, lr=0.01, schedule="constant", eval_every=steps,
                         batch_size=batch, early_stop=False, batch_accuracy_window=window)
    ours = train(tiny_classifier(6, 8, 4, seed=3), x, y, config, progress=False)
    ref = tiny_classifier(6, 8, 4, seed=3)
    opt = torch.optim.Adam(ref.parameters(), lr=0.01)
    stream = _IndexStream(40, config.seed, torch.device("cpu"))
    accs = []
    for _ in range(steps):
        idx = stream.take(batch)
        logits = ref(x[idx])
        accs.append(float((logits.argmax(-1) == y[idx]).double().mean()))
        opt.zero_grad()
        torch.nn.functional.cross_entropy(logits, y[idx]).backward()
        opt.step()
    expected = sum(accs[-window - 1:-1]) / window
    assert len(set(accs[-window - 1:])) > 1  # the batches score differently: the slice matters
    assert float(ours.last_batches_accuracy[0]) == pytest.approx(expected, abs=1e-12)


def test_last_batches_accuracy_per_member_and_off_by_default(tiny_classifier):
    x, y = _task(n=32)
    config = TrainConfig(steps=40, lr=0.02, eval_every=10, batch_size=8, early_stop=False,
                         batch_accuracy_window=5)
    widths = [3, 16]
    stacked = train_members([tiny_classifier(6, 16, 4, active_units=w, seed=w) for w in widths],
                            x, y, config, progress=False)
    assert stacked.last_batches_accuracy.shape == (2,)
    for i, w in enumerate(widths):
        alone = train(tiny_classifier(6, w, 4, seed=w), x, y, config, progress=False)
        assert float(stacked.last_batches_accuracy[i]) == pytest.approx(
            float(alone.last_batches_accuracy[0]), abs=1e-9)
    off = train(tiny_classifier(6, 3, 4, seed=3), x, y,
                dataclasses.replace(config, batch_accuracy_window=0), progress=False)
    assert off.last_batches_accuracy is None


@pytest.mark.parametrize("window", [-1, 40, 1.5, True])
def test_bad_batch_accuracy_window_names_the_range(window):
    with pytest.raises(ValueError, match=r"batch_accuracy_window must be an integer in \[0, "
                                         r"steps - 1 = 39\]"):
        TrainConfig(steps=40, batch_accuracy_window=window)


def test_schedule_shapes():
    cfg = TrainConfig(steps=101, lr=1.0, warmup_steps=10, warmup_start_factor=0.01,
                      schedule="cosine", final_lr_factor=0.0)
    factors = [cfg.lr_factor(s) for s in range(101)]
    assert factors[0] == pytest.approx(0.01)
    assert factors[10] == pytest.approx(1.0)
    assert factors[-1] == pytest.approx(0.0, abs=1e-12)
    assert all(a >= b for a, b in zip(factors[10:], factors[11:], strict=False))
    lin = TrainConfig(steps=11, lr=1.0, schedule="linear", final_lr_factor=0.05)
    assert lin.lr_factor(10) == pytest.approx(0.05)


def test_regression_loss(tiny_classifier):
    x, _ = _task()
    y = torch.randn(24, 4, generator=torch.Generator().manual_seed(1))
    config = TrainConfig(steps=200, lr=0.02, loss="mse", eval_every=50)
    result = train(tiny_classifier(6, 64, 4, seed=0), x, y, config, progress=False)
    assert float(result.best_loss[0]) < float(((y - y.mean(0)) ** 2).mean())


@pytest.mark.parametrize(
    "kwargs, word",
    [({"steps": 0}, "steps"), ({"steps": 5, "lr": -1.0}, "lr"),
     ({"steps": 5, "optimizer": "sgd"}, "optimizer"), ({"steps": 5, "batch_size": 0}, "batch_size"),
     ({"steps": 5, "warmup_steps": 9}, "warmup_steps"), ({"steps": 5, "loss": "hinge"}, "loss"),
     ({"steps": 5, "lr": math.inf}, r"lr must be > 0 and finite"),
     ({"steps": 5, "lr": math.nan}, r"lr must be > 0 and finite"),
     ({"steps": 5, "weight_decay": math.nan}, r"weight_decay must be >= 0 and finite"),
     ({"steps": 5, "weight_decay": math.inf}, r"weight_decay must be >= 0 and finite"),
     ({"steps": 5, "weight_decay": -0.1}, r"weight_decay must be >= 0 and finite"),
     ({"steps": 5, "eps": 0.0}, r"eps must be > 0 and finite"),
     ({"steps": 5, "eps": -1e-8}, r"eps must be > 0 and finite"),
     ({"steps": 5, "eps": math.inf}, r"eps must be > 0 and finite"),
     ({"steps": 5, "eps": math.nan}, r"eps must be > 0 and finite"),
     ({"steps": 5, "betas": (0.9,)}, r"betas must be two numbers in \[0, 1\)"),
     ({"steps": 5, "betas": (0.9, 0.99, 0.999)}, r"betas must be two numbers in \[0, 1\)"),
     ({"steps": 5, "betas": 0.9}, r"betas must be two numbers in \[0, 1\)"),
     ({"steps": 5, "betas": (0.9, 1.0)}, r"betas must be two numbers in \[0, 1\)"),
     ({"steps": 5, "betas": (math.nan, 0.999)}, r"betas must be two numbers in \[0, 1\)")],
)
def test_bad_config(kwargs, word):
    with pytest.raises(ValueError, match=word):
        TrainConfig(**kwargs)


def test_good_config_limits_are_accepted():
    """The edges of the allowed ranges still build a configuration."""
    config = TrainConfig(steps=5, lr=1e-12, weight_decay=0.0, eps=1e-30, betas=(0.0, 0.0))
    assert config.betas == (0.0, 0.0)
    assert TrainConfig(steps=5, betas=[0.5, 0.9]).eps == 1e-8  # a list of two betas is fine


@pytest.mark.parametrize(
    "kwargs, message",
    [({"member_lr": [0.1, math.inf]}, "member_lr must be > 0 and finite for every member"),
     ({"member_lr": [math.nan, 0.1]}, "member_lr must be > 0 and finite for every member"),
     ({"member_weight_decay": [0.0, math.nan]},
      "member_weight_decay must be >= 0 and finite for every member"),
     ({"member_weight_decay": [math.inf, 0.0]},
      "member_weight_decay must be >= 0 and finite for every member")],
)
def test_member_hyperparameters_must_be_finite(tiny_classifier, kwargs, message):
    x, y = _task()
    members = [tiny_classifier(6, 8, 4, seed=s) for s in (0, 1)]
    with pytest.raises(ValueError, match=message):
        train_members(members, x, y, TrainConfig(steps=2), progress=False, **kwargs)


@pytest.mark.parametrize("batch_size", [None, 8])
def test_training_leaves_the_global_generator_as_it_found_it(tiny_classifier, batch_size):
    """Nothing in training draws from (or reseeds) torch's global generator: the caller's
    random stream goes on as if no training had happened in between."""
    x, y = _task(n=32)
    members = [tiny_classifier(6, 8, 4, seed=s) for s in (0, 1)]
    config = TrainConfig(steps=10, lr=0.01, eval_every=5, batch_size=batch_size, seed=3,
                         early_stop=False)
    torch.manual_seed(1234)
    before = torch.get_rng_state()
    train_members(members, x, y, config, progress=False)
    assert torch.equal(torch.get_rng_state(), before)
    expected = torch.rand(5, generator=torch.Generator().manual_seed(1234))
    assert torch.equal(torch.rand(5), expected)


def test_members_must_share_shapes(tiny_classifier):
    x, y = _task()
    with pytest.raises(ValueError, match="members must share"):
        train_members([tiny_classifier(6, 4, 4), tiny_classifier(6, 5, 4)], x, y,
                      TrainConfig(steps=2), progress=False)


def _tf32_flags() -> tuple[bool, bool]:
    return torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32


@pytest.mark.parametrize("enabled", [True, False])
def test_tf32_flags_are_restored_after_the_block_and_after_an_error(enabled):
    saved = _tf32_flags()
    try:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = (not enabled,
                                                                                  enabled)
        before = _tf32_flags()
        with tf32_matmul(enabled):
            assert _tf32_flags() == (enabled, enabled)
        assert _tf32_flags() == before
        with pytest.raises(RuntimeError, match="boom"), tf32_matmul(enabled):
            raise RuntimeError("boom")
        assert _tf32_flags() == before
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


@pytest.mark.parametrize("tf32", [True, False])
def test_training_leaves_the_global_tf32_flags_as_it_found_them(tiny_classifier, monkeypatch,
                                                                tf32):
    """A CUDA run sets the TF32 flags to its ``config.tf32`` for the loop only, and restores
    them afterwards, also after an error. Without a GPU, the device-side pieces are replaced
    (the training set stays on the CPU, the loop only records the flags it ran under), so the
    CUDA branch of train_members' precision handling runs on any machine."""
    from memnb import train as train_module

    x, y = _task()
    saved = _tf32_flags()
    seen: list[tuple[bool, bool]] = []

    class CpuData:  # the training set, not moved to the (absent) GPU
        def __init__(self, *args, **kwargs) -> None:
            assert args[3] == torch.device("cuda")  # train_members asked for the CUDA device

    def loop(*args, **kwargs):
        seen.append(_tf32_flags())
        if kwargs.get("desc") == "fail":
            raise RuntimeError("boom")
        return "trained"

    monkeypatch.setattr(train_module, "_TrainingData", CpuData)
    monkeypatch.setattr(train_module, "_train_loop", loop)
    config = TrainConfig(steps=3, tf32=tf32, device="cuda")
    try:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = (not tf32,
                                                                                  not tf32)
        before = _tf32_flags()
        assert train_members([tiny_classifier(6, 8, 4)], x, y, config,
                             progress=False) == "trained"
        assert seen == [(tf32, tf32)]  # the loop ran under the run's own precision
        assert _tf32_flags() == before
        with pytest.raises(RuntimeError, match="boom"):
            train_members([tiny_classifier(6, 8, 4)], x, y, config, progress=False, desc="fail")
        assert seen[-1] == (tf32, tf32) and _tf32_flags() == before
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved
    # on the CPU, the flags are not touched at all
    monkeypatch.undo()
    train(tiny_classifier(6, 8, 4), x, y, TrainConfig(steps=3, tf32=True), progress=False)
    assert _tf32_flags() == saved


@pytest.mark.cuda
@pytest.mark.parametrize("tf32", [True, False])
def test_cuda_training_restores_tf32_flags_and_matches_cpu(tiny_classifier, tf32):
    x, y = _task(n=32)
    saved = _tf32_flags()
    config = TrainConfig(steps=40, lr=0.02, eval_every=10, batch_size=8, early_stop=False)
    on_gpu = train(tiny_classifier(6, 16, 4, seed=2), x, y,
                   dataclasses.replace(config, device="cuda", tf32=tf32), progress=False)
    assert _tf32_flags() == saved
    on_cpu = train(tiny_classifier(6, 16, 4, seed=2), x, y, config, progress=False)
    tol = 1e-2 if tf32 else 1e-4
    torch.testing.assert_close(on_gpu.best_loss, on_cpu.best_loss, rtol=tol, atol=tol)


def _cuda_models():
    """One small model of every family, with an input batch (for the CUDA checks)."""
    from memnb.models.attention_mlp import AttentionMLPTransformer
    from memnb.models.attention_only import AttentionOnlyTransformer
    from memnb.models.compressed_attention_only import CompressedAttentionOnlyTransformer
    from memnb.models.ffn_attention import FFNAttentionTransformer
    from memnb.models.multi_head import MultiHeadAttention
    from memnb.models.sequence_mlp import SequenceMLP

    g = torch.Generator().manual_seed(0)
    tokens = torch.randint(0, 9, (16, 3), generator=g)
    return {
        "attention_only": (AttentionOnlyTransformer(9, 3, 8, 4, 3, seed=1), (tokens,)),
        "attention_mlp": (AttentionMLPTransformer(9, 3, 8, 4, 2, 16, seed=1), (tokens,)),
        "compressed": (CompressedAttentionOnlyTransformer(9, 3, 8, 2, 4, seed=1), (tokens,)),
        "sequence_mlp": (SequenceMLP(9, 3, 5, 12, seed=1), (tokens,)),
        "ffn_attention": (FFNAttentionTransformer(6, 4, 5, 2, d=8, d_ff=16, seed=1),
                          (torch.randn(16, 5, 6, generator=g),)),
        "multi_head": (MultiHeadAttention(6, 3, 4, 4, 2, seed=1),
                       (torch.randn(16, 5, 6, generator=g), torch.randn(16, 6, generator=g))),
    }


@pytest.mark.cuda
@pytest.mark.parametrize("name", ["attention_only", "attention_mlp", "compressed", "sequence_mlp",
                                  "ffn_attention", "multi_head"])
def test_cuda_forward_matches_cpu(name):
    model, inputs = _cuda_models()[name]
    with tf32_matmul(False), torch.no_grad():
        on_cpu = model(*inputs)
        on_gpu = copy.deepcopy(model).to("cuda")(*(x.to("cuda") for x in inputs))
    torch.testing.assert_close(on_gpu.cpu(), on_cpu, rtol=1e-4, atol=1e-5)


@pytest.mark.cuda
def test_cuda_packed_training_matches_alone():
    from memnb.models.attention_only import AttentionOnlyTransformer

    g = torch.Generator().manual_seed(3)
    tokens = torch.randint(0, 9, (48, 3), generator=g)
    labels = torch.randint(0, 9, (48,), generator=g)
    config = TrainConfig(steps=60, lr=0.01, eval_every=20, batch_size=16, early_stop=False,
                         device="cuda")
    heads = [1, 2, 4]
    padded = [AttentionOnlyTransformer(9, 3, 8, 4, 4, active_heads=h, seed=h) for h in heads]
    stacked = train_members(padded, tokens, labels, config, progress=False)
    for i, h in enumerate(heads):
        alone = train(AttentionOnlyTransformer(9, 3, 8, 4, h, seed=h), tokens, labels, config,
                      progress=False)
        torch.testing.assert_close(stacked.best_loss[i], alone.best_loss[0], rtol=1e-4, atol=1e-6)


def _reference_train_members(
    members: Sequence[nn.Module],
    inputs: Inputs,
    targets: Tensor,
    config: TrainConfig,
    *,
    sample_mask: Tensor | None = None,
    per_member_data: bool = False,
    constant_inputs: Sequence[int] = (),
    progress: bool = False,
    desc: str | None = None,
) -> TrainResult:
    """The loop as one function with closures, before the split (reference only)."""
    _check_members(members)
    num_members = len(members)
    device = torch.device(config.device)
    xs = tuple(x.to(device) for x in _as_tuple(inputs))
    ys = targets.to(device)
    constant = set(constant_inputs)
    if not constant <= set(range(len(xs))):
        raise ValueError(f"constant_inputs must be positions in inputs (0..{len(xs) - 1}); "
                         f"got {sorted(constant)}")
    sampled = tuple(i not in constant for i in range(len(xs)))

    def per_sample(fn: Callable[[Tensor], Tensor], tensors: tuple[Tensor, ...]
                   ) -> tuple[Tensor, ...]:
        """Apply ``fn`` (a selection of samples) to the per-sample inputs only."""
        return tuple(fn(x) if keep else x for x, keep in zip(tensors, sampled, strict=True))
    if config.loss == "ce" and ys.dtype != torch.long:
        raise ValueError("targets must be integer class labels (torch.long) when loss='ce'")

    if per_member_data:
        for x in (*xs, ys):
            if x.shape[0] != num_members:
                raise ValueError(
                    f"per_member_data=True needs a leading member dimension {num_members}; "
                    f"got shape {tuple(x.shape)}"
                )
        num_slots = ys.shape[1]
        if sample_mask is None:
            sample_mask = torch.ones(num_members, num_slots, dtype=torch.bool)
        if tuple(sample_mask.shape) != (num_members, num_slots):
            raise ValueError(
                f"sample_mask must have shape {(num_members, num_slots)}; "
                f"got {tuple(sample_mask.shape)}"
            )
        counts = sample_mask.sum(dim=1).tolist()
    else:
        if sample_mask is not None:
            raise ValueError("sample_mask is only used with per_member_data=True")
        num_slots = ys.shape[0]
        counts = [num_slots]
    if min(counts) < 1:
        raise ValueError("every member needs at least one training sample")
    mask = None if sample_mask is None else sample_mask.to(device)

    torch.manual_seed(config.seed)
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = config.tf32
        torch.backends.cudnn.allow_tf32 = config.tf32
    modules = [copy.deepcopy(m).to(device) for m in members]
    params, buffers = stack_module_state(modules)
    params = {k: v.detach().clone().requires_grad_(True) for k, v in params.items()}
    base = copy.deepcopy(modules[0]).to("meta")

    def forward_one(p: dict, b: dict, *x: Tensor) -> Tensor:
        return functional_call(base, (p, b), x)

    data_dim = 0 if per_member_data else None
    forward_all = vmap(forward_one, in_dims=(0, 0, *([data_dim] * len(xs))))

    def member_view(vec: Tensor, like: Tensor) -> Tensor:
        return vec.view(-1, *([1] * (like.dim() - 1)))

    def masked_mean(per: Tensor, weights: Tensor | None) -> Tensor:
        if weights is None:
            return per.mean(dim=-1)
        return (per * weights).sum(dim=-1) / weights.sum(dim=-1)

    if per_member_data:
        eval_xs, eval_ys, eval_counts = xs, ys, None
    else:
        distinct_xs, eval_ys, eval_counts = _distinct_samples(
            tuple(x for x, keep in zip(xs, sampled, strict=True) if keep), ys)
        rows = iter(distinct_xs)
        eval_xs = tuple(next(rows) if keep else x for x, keep in zip(xs, sampled, strict=True))
    num_eval = eval_ys.shape[1] if per_member_data else eval_ys.shape[0]

    def evaluate() -> tuple[Tensor, Tensor]:
        """Mean loss and accuracy of every member on its whole training set."""
        total_loss = torch.zeros(num_members, device=device, dtype=torch.float64)
        total_correct = torch.zeros(num_members, device=device, dtype=torch.float64)
        with torch.no_grad():
            for start in range(0, num_eval, config.eval_batch_size):
                stop = min(start + config.eval_batch_size, num_eval)
                if per_member_data:
                    chunk_x = per_sample(lambda x, rows=slice(start, stop): x[:, rows], eval_xs)
                    chunk_y = eval_ys[:, start:stop]
                    weights = None if mask is None else mask[:, start:stop]
                else:
                    chunk_x = per_sample(lambda x, rows=slice(start, stop): x[rows], eval_xs)
                    chunk_y = eval_ys[start:stop].expand(num_members, *eval_ys[start:stop].shape)
                    weights = None if eval_counts is None else eval_counts[start:stop][None]
                out = forward_all(params, buffers, *chunk_x)
                per, correct = _sample_losses(out, chunk_y, config.loss)
                if weights is not None:
                    weights = weights.to(per.dtype)
                    per, correct = per * weights, correct * weights
                total_loss += per.sum(dim=-1).double()
                total_correct += correct.sum(dim=-1).double()
        n = torch.tensor(counts, device=device, dtype=torch.float64)
        return total_loss / n, total_correct / n

    streams = None
    if config.batch_size is not None:
        streams = [_IndexStream(int(c), config.seed, device) for c in counts]
        valid_index = None
        if mask is not None:
            valid_index = [torch.nonzero(mask[k]).flatten() for k in range(num_members)]

    def next_batch() -> tuple[tuple[Tensor, ...], Tensor]:
        assert streams is not None
        if not per_member_data:
            idx = streams[0].take(config.batch_size)
            return per_sample(lambda x: x[idx], xs), ys[idx].expand(num_members, -1,
                                                                     *ys.shape[1:])
        rows = []
        for k, stream in enumerate(streams):
            local = stream.take(config.batch_size)
            rows.append(local if valid_index is None else valid_index[k][local])
        idx = torch.stack(rows)
        gather = per_sample(lambda x: torch.gather(x, 1, idx.view(
            *idx.shape, *([1] * (x.dim() - 2))).expand(*idx.shape, *x.shape[2:])), xs)
        y = torch.gather(ys, 1, idx.view(*idx.shape, *([1] * (ys.dim() - 2))).expand(
            *idx.shape, *ys.shape[2:]))
        return gather, y

    param_list = list(params.values())
    moments = ([torch.zeros_like(v) for v in param_list],
               [torch.zeros_like(v) for v in param_list])
    best_params = {k: v.detach().clone() for k, v in params.items()}
    best_loss = torch.full((num_members,), math.inf, device=device, dtype=torch.float64)
    best_acc = torch.zeros(num_members, device=device, dtype=torch.float64)
    active = torch.ones(num_members, device=device, dtype=torch.bool)
    steps_run = torch.zeros(num_members, dtype=torch.long)
    history: list[dict] = []
    full_y = None if per_member_data else ys.expand(num_members, *ys.shape)
    full_w = None if mask is None else mask.to(torch.float32)

    def record(step: int, lr_now: float) -> bool:
        """Evaluate, update checkpoints and early stopping; True when every member is done."""
        nonlocal best_loss, best_acc, active, latest
        loss, acc = evaluate()
        latest = (loss, acc)
        improved = (loss < best_loss) & active
        for k, v in params.items():
            best_params[k] = torch.where(member_view(improved, v), v.detach(), best_params[k])
        best_loss = torch.where(improved, loss, best_loss)
        best_acc = torch.where(improved, acc, best_acc)
        loss_cpu, acc_cpu, active_cpu = loss.cpu(), acc.cpu(), active.cpu()
        for member in range(num_members):
            if active_cpu[member]:
                steps_run[member] = step
                history.append({"member": member, "step": step, "loss": float(loss_cpu[member]),
                                "accuracy": float(acc_cpu[member]), "lr": lr_now})
        if config.early_stop and config.loss == "ce":
            active = active & (acc < 1.0)
        return not bool(active.any())

    latest: tuple[Tensor, Tensor] | None = None
    step = 0
    done = record(0, config.lr * config.lr_factor(0))
    while step < config.steps and not done:
        chunk_end = min(config.steps, (step // config.eval_every + 1) * config.eval_every)
        while step < chunk_end:
            lr_now = config.lr * config.lr_factor(step)
            if streams is None:
                batch_x = xs
                batch_y = full_y if full_y is not None else ys
                batch_w = full_w
            else:
                batch_x, batch_y = next_batch()
                batch_w = None
            out = forward_all(params, buffers, *batch_x)
            per, _ = _sample_losses(out, batch_y, config.loss)
            member_loss = masked_mean(per, batch_w)
            grads = torch.autograd.grad(member_loss.sum(), list(params.values()))
            step += 1
            lr_members = active.to(per.dtype) * lr_now
            with torch.no_grad():
                _adam_update(param_list, list(grads), moments, lr_members, step, config)
        done = record(step, lr_now)

    assert latest is not None  # the loop always ends with an evaluation of the final weights
    final_loss, final_acc = latest
    trained = []
    for member, module in enumerate(modules):
        state = {k: v[member].detach().clone() for k, v in best_params.items()}
        state.update({k: v[member].clone() for k, v in buffers.items()})
        module.load_state_dict(state)
        trained.append(module)
    return TrainResult(
        best_loss=best_loss.cpu(),
        accuracy=best_acc.cpu(),
        final_loss=final_loss.cpu(),
        final_accuracy=final_acc.cpu(),
        steps_run=steps_run,
        history=pd.DataFrame(history, columns=["member", "step", "loss", "accuracy", "lr"]),
        models=trained,
    )




class _ContextModel(nn.Module):
    """Scores each sample against one context shared by every sample (a constant input)."""

    def __init__(self, d: int, classes: int, seed: int) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.w = nn.Parameter(torch.randn(d, d, generator=g) / d**0.5)
        self.out = nn.Parameter(torch.randn(d, classes, generator=g) / d**0.5)

    def forward(self, x: Tensor, context: Tensor) -> Tensor:
        scores = torch.softmax(x @ self.w @ context.T, dim=-1)  # [B, L]
        return (scores @ context) @ self.out


def _scenarios(tiny_classifier):
    """(members, inputs, targets, config, keyword arguments) covering every branch of the loop."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(32, 6, generator=g)
    y = torch.randint(4, (32,), generator=g)
    padded = [tiny_classifier(6, 16, 4, active_units=w, seed=10 + w) for w in (3, 8, 16)]
    sizes = [10, 20]
    xs, ys = torch.zeros(2, 20, 6), torch.zeros(2, 20, dtype=torch.long)
    mask = torch.zeros(2, 20, dtype=torch.bool)
    for k, s in enumerate(sizes):
        xs[k, :s], ys[k, :s], mask[k, :s] = torch.randn(s, 6, generator=g), torch.randint(
            4, (s,), generator=g), True
    tokens = torch.randint(0, 5, (9, 3), generator=g)[torch.randint(0, 9, (120,), generator=g)]
    labels = tokens.sum(-1) % 5
    context = torch.randn(7, 6, generator=g)
    from memnb.models.attention_only import AttentionOnlyTransformer

    return {
        "full batch, early stop": (padded, x, y, TrainConfig(
            steps=300, lr=0.05, eval_every=25, warmup_steps=10, warmup_start_factor=0.1), {}),
        "mini-batch, AdamW": (padded, x, y, TrainConfig(
            steps=90, lr=0.02, eval_every=20, batch_size=8, optimizer="adamw",
            weight_decay=0.01, schedule="linear", early_stop=False), {}),
        "per-member data, mini-batch": ([tiny_classifier(6, 8, 4, seed=k) for k in range(2)],
                                        xs, ys, TrainConfig(steps=60, lr=0.02, eval_every=15,
                                                            batch_size=4, early_stop=False),
                                        {"sample_mask": mask, "per_member_data": True}),
        "per-member data, full batch": ([tiny_classifier(6, 8, 4, seed=k) for k in range(2)],
                                        xs, ys, TrainConfig(steps=200, lr=0.05, eval_every=10),
                                        {"sample_mask": mask, "per_member_data": True}),
        "regression": (padded[:2], x, torch.randn(32, 4, generator=g), TrainConfig(
            steps=50, lr=0.02, loss="mse", eval_every=10, eval_batch_size=7), {}),
        "repeated integer samples": ([AttentionOnlyTransformer(5, 3, 4, 4, 2, seed=s)
                                      for s in (1, 2)], tokens, labels, TrainConfig(
            steps=40, lr=0.01, eval_every=7, eval_batch_size=4, batch_size=16), {}),
        "constant input": ([_ContextModel(6, 4, seed=s) for s in (0, 1)], (x, context), y,
                           TrainConfig(steps=30, lr=0.02, eval_every=10, batch_size=8,
                                       eval_batch_size=5), {"constant_inputs": (1,)}),
    }


SCENARIOS = ["full batch, early stop", "mini-batch, AdamW", "per-member data, mini-batch",
             "per-member data, full batch", "regression", "repeated integer samples",
             "constant input"]


@pytest.mark.parametrize("name", SCENARIOS)
def test_split_loop_equals_reference_bit_for_bit(tiny_classifier, name):
    members, inputs, targets, config, kwargs = _scenarios(tiny_classifier)[name]
    ours = train_members(members, inputs, targets, config, progress=False, **kwargs)
    ref = _reference_train_members(members, inputs, targets, config, **kwargs)
    for field in ("best_loss", "accuracy", "final_loss", "final_accuracy", "steps_run"):
        assert torch.equal(getattr(ours, field), getattr(ref, field)), field
    pd.testing.assert_frame_equal(ours.history, ref.history, check_exact=True)
    for mine, theirs in zip(ours.models, ref.models, strict=True):
        for (k, a), (_, b) in zip(mine.state_dict().items(), theirs.state_dict().items(),
                                  strict=True):
            assert torch.equal(a, b), k
    if name == "full batch, early stop":
        assert int(ours.steps_run.min()) < config.steps  # the early-stop branch was exercised
