"""The shared training loop: memorization, batched == sequential, schedules, bad arguments."""

from __future__ import annotations

import pytest
import torch

from memnb.train import TrainConfig, train, train_members


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
    y = torch.randn(24, 4)
    config = TrainConfig(steps=200, lr=0.02, loss="mse", eval_every=50)
    result = train(tiny_classifier(6, 64, 4, seed=0), x, y, config, progress=False)
    assert float(result.best_loss[0]) < float(((y - y.mean(0)) ** 2).mean())


@pytest.mark.parametrize(
    "kwargs, word",
    [({"steps": 0}, "steps"), ({"steps": 5, "lr": -1.0}, "lr"),
     ({"steps": 5, "optimizer": "sgd"}, "optimizer"), ({"steps": 5, "batch_size": 0}, "batch_size"),
     ({"steps": 5, "warmup_steps": 9}, "warmup_steps"), ({"steps": 5, "loss": "hinge"}, "loss")],
)
def test_bad_config(kwargs, word):
    with pytest.raises(ValueError, match=word):
        TrainConfig(**kwargs)


def test_members_must_share_shapes(tiny_classifier):
    x, y = _task()
    with pytest.raises(ValueError, match="members must share"):
        train_members([tiny_classifier(6, 4, 4), tiny_classifier(6, 5, 4)], x, y,
                      TrainConfig(steps=2), progress=False)
