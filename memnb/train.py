"""One training loop for every chapter, able to train a stack of independent models at once.

The members of a stack share an architecture (the same parameter shapes; different head counts
are padded and masked, see ``docs/CONTRACTS.md``). Their parameters are stacked with
:func:`torch.func.stack_module_state` and evaluated with ``vmap(functional_call)``: one forward
and one backward pass for all members. The loss is the *sum* of the members' mean losses, so each
member receives exactly the gradient it would receive alone, and Adam/AdamW act element-wise, so
each member follows the trajectory it would follow alone (up to floating-point summation order).

Recipe (shared by the papers' official codes): Adam or AdamW, linear warm-up then cosine or
linear decay, full-batch or mini-batch, evaluation of the whole training set every
``eval_every`` steps, a best-training-loss checkpoint per member, and per-member early stopping
at 100 % training accuracy (a stopped member's learning rate is set to zero, which freezes it).

The loop is built from four parts: the data and its mini-batches (:class:`_TrainingData`,
:class:`_MiniBatches`), the evaluation of the training set (:class:`_Evaluator`), the
best-checkpoint tracking with early stopping and history (:class:`_BestCheckpoint`,
:class:`_Members`), and the short loop that drives them (:func:`_train_loop`).
"""

from __future__ import annotations

import collections
import contextlib
import copy
import functools
import hashlib
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import torch
from torch import Tensor, nn
from torch.func import functional_call, stack_module_state, vmap
from tqdm.auto import tqdm

from memnb import numerics, resume
from memnb.progress import bar_disabled

Inputs = Tensor | tuple[Tensor, ...]

_OPTIMIZERS = ("adam", "adamw")
_SCHEDULES = ("cosine", "linear", "constant")
_LOSSES = ("ce", "mse")


@dataclass(frozen=True)
class TrainConfig:
    """Hyper-parameters of :func:`train_members`.

    ``steps`` optimiser steps; learning rate ``lr`` warmed up linearly from
    ``lr * warmup_start_factor`` over ``warmup_steps``, then decayed by ``schedule`` to
    ``lr * final_lr_factor`` at the last step. ``batch_size=None`` is full-batch training.
    ``tf32=True`` lets CUDA matrix products use TensorFloat-32 (10-bit mantissa inputs): faster on
    recent GPUs, but logits then differ from float32 in the third or fourth significant digit, so
    it is off by default and recorded in results that use it.
    ``batch_accuracy_window = k > 0`` also records each member's mean accuracy on the training
    mini-batches of the ``k`` steps before the last one, each scored before its update: the
    accuracy Dana et al.'s official code reports (``sum(Acc[-101:-1]) / 100``, ``k = 100``),
    beside the checkpoint's accuracy on the whole training set.
    """

    steps: int
    lr: float = 1e-3
    optimizer: str = "adam"
    weight_decay: float = 0.0
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    warmup_steps: int = 0
    warmup_start_factor: float = 0.0
    schedule: str = "cosine"
    final_lr_factor: float = 0.0
    batch_size: int | None = None
    eval_every: int = 100
    eval_batch_size: int = 8192
    early_stop: bool = True
    loss: str = "ce"
    seed: int = 0
    device: str = "cpu"
    tf32: bool = False
    batch_accuracy_window: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.steps, int) or self.steps < 1:
            raise ValueError(f"steps must be an integer >= 1; got {self.steps!r}")
        if not (self.lr > 0 and math.isfinite(self.lr)):
            raise ValueError(f"lr must be > 0 and finite; got {self.lr!r}")
        if self.optimizer not in _OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {_OPTIMIZERS}; got {self.optimizer!r}")
        if self.schedule not in _SCHEDULES:
            raise ValueError(f"schedule must be one of {_SCHEDULES}; got {self.schedule!r}")
        if self.loss not in _LOSSES:
            raise ValueError(f"loss must be one of {_LOSSES}; got {self.loss!r}")
        if not (self.weight_decay >= 0 and math.isfinite(self.weight_decay)):
            raise ValueError(f"weight_decay must be >= 0 and finite; got {self.weight_decay!r}")
        if not (self.eps > 0 and math.isfinite(self.eps)):
            # eps = 0 divides 0 by 0 in Adam for parameters with zero gradients (padded heads)
            raise ValueError(f"eps must be > 0 and finite; got {self.eps!r}")
        if not 0 <= self.warmup_steps <= self.steps:
            raise ValueError(
                f"warmup_steps must be in [0, steps={self.steps}]; got {self.warmup_steps}")
        if not 0.0 <= self.warmup_start_factor <= 1.0:
            raise ValueError(
                f"warmup_start_factor must be in [0, 1]; got {self.warmup_start_factor!r}"
            )
        if not 0.0 <= self.final_lr_factor <= 1.0:
            raise ValueError(f"final_lr_factor must be in [0, 1]; got {self.final_lr_factor!r}")
        if self.batch_size is not None and self.batch_size < 1:
            raise ValueError(f"batch_size must be None (full batch) or >= 1; got {self.batch_size}")
        if self.eval_every < 1:
            raise ValueError(f"eval_every must be >= 1; got {self.eval_every}")
        if self.eval_batch_size < 1:
            raise ValueError(f"eval_batch_size must be >= 1; got {self.eval_batch_size}")
        if (isinstance(self.batch_accuracy_window, bool)
                or not isinstance(self.batch_accuracy_window, int)
                or not 0 <= self.batch_accuracy_window < self.steps):
            raise ValueError(f"batch_accuracy_window must be an integer in [0, steps - 1 = "
                             f"{self.steps - 1}]; got {self.batch_accuracy_window!r}")
        if (not isinstance(self.betas, Sequence) or len(self.betas) != 2
                or not all(0.0 <= b < 1.0 for b in self.betas)):
            raise ValueError(f"betas must be two numbers in [0, 1); got {self.betas!r}")

    def lr_factor(self, step: int) -> float:
        """Multiplier of ``lr`` used for optimiser step ``step`` (0-based)."""
        if step < self.warmup_steps:
            frac = step / self.warmup_steps
            return self.warmup_start_factor + (1.0 - self.warmup_start_factor) * frac
        decay_steps = self.steps - self.warmup_steps
        progress = 0.0 if decay_steps <= 1 else (step - self.warmup_steps) / (decay_steps - 1)
        end = self.final_lr_factor
        if self.schedule == "constant":
            return 1.0
        if self.schedule == "linear":
            return 1.0 + (end - 1.0) * progress
        return end + (1.0 - end) * 0.5 * (1.0 + math.cos(math.pi * progress))


@dataclass
class TrainResult:
    """What :func:`train_members` returns; tensors are indexed by member."""

    best_loss: Tensor
    accuracy: Tensor
    final_loss: Tensor
    final_accuracy: Tensor
    steps_run: Tensor
    history: pd.DataFrame
    models: list[nn.Module] = field(repr=False)
    #: Mean mini-batch accuracy over the window of ``TrainConfig.batch_accuracy_window`` steps
    #: (``None`` when the window is 0); over fewer steps when every member stopped early.
    last_batches_accuracy: Tensor | None = None


def _as_tuple(inputs: Inputs) -> tuple[Tensor, ...]:
    return inputs if isinstance(inputs, tuple) else (inputs,)


def _check_members(members: Sequence[nn.Module]) -> None:
    if len(members) == 0:
        raise ValueError("members must hold at least one model")
    shapes = {k: v.shape for k, v in members[0].state_dict().items()}
    for i, member in enumerate(members[1:], start=1):
        other = {k: v.shape for k, v in member.state_dict().items()}
        if other != shapes:
            raise ValueError(
                f"members must share parameter names and shapes; member {i} differs from member 0"
                " (pad different sizes with active_heads / masks)"
            )


def _sample_losses(outputs: Tensor, targets: Tensor, loss: str) -> tuple[Tensor, Tensor]:
    """Per-sample loss and correctness for outputs ``[..., B, C]`` and targets ``[..., B(, C)]``."""
    if loss == "ce":
        flat = outputs.reshape(-1, outputs.shape[-1])
        per = nn.functional.cross_entropy(flat, targets.reshape(-1), reduction="none")
        per = per.reshape(targets.shape)
        correct = (outputs.argmax(dim=-1) == targets).to(outputs.dtype)
        return per, correct
    diff = outputs - targets.reshape(outputs.shape)
    per = (diff * diff).mean(dim=-1)
    return per, torch.zeros_like(per)


def _distinct_samples(xs: tuple[Tensor, ...], ys: Tensor
                      ) -> tuple[tuple[Tensor, ...], Tensor, Tensor | None]:
    """The distinct (input, target) rows of an integer data set and their multiplicities.

    Evaluating each distinct sample once, weighted by how often it occurs, gives the same mean
    loss and accuracy as evaluating every sample (up to floating-point summation order) at a
    fraction of the cost when samples repeat (e.g. Dana et al.'s 16,384 contexts drawn from
    N^2 = 2,500). Returns the data unchanged and ``None`` for float data or when nothing repeats.
    """
    if any(t.is_floating_point() or t.is_complex() for t in (*xs, ys)):
        return xs, ys, None
    total = ys.shape[0]
    rows = torch.cat([t.reshape(total, -1).long() for t in (*xs, ys)], dim=1)
    distinct, counts = torch.unique(rows, dim=0, return_counts=True)
    if distinct.shape[0] == total:
        return xs, ys, None
    out, start = [], 0
    for t in (*xs, ys):
        width = t[0].numel()
        out.append(distinct[:, start:start + width].reshape(-1, *t.shape[1:]).to(t.dtype))
        start += width
    return tuple(out[:-1]), out[-1], counts


class _IndexStream:
    """Mini-batch indices of one member: shuffled epochs over ``n`` samples, seeded.

    Permutations are drawn on the CPU (the same on every device) and moved to ``device`` a whole
    epoch at a time, so a training step on a GPU needs no host-device transfer.
    """

    def __init__(self, n: int, seed: int, device: torch.device) -> None:
        self.n = n
        self.device = device
        self.generator = torch.Generator().manual_seed(seed)
        self.buffer = torch.empty(0, dtype=torch.long, device=device)

    def take(self, count: int) -> Tensor:
        while self.buffer.numel() < count:
            perm = torch.randperm(self.n, generator=self.generator).to(self.device)
            self.buffer = torch.cat([self.buffer, perm])
        out, self.buffer = self.buffer[:count], self.buffer[count:]
        return out


def _adam_update(params: list[Tensor], grads: list[Tensor],
                 moments: tuple[list[Tensor], list[Tensor]], lr_members: Tensor, step: int,
                 config: TrainConfig, wd_members: Tensor | None = None) -> None:
    """One Adam/AdamW step (Kingma & Ba 2015; Loshchilov & Hutter 2019) on stacked parameters.

    ``lr_members`` holds each member's learning rate (zero freezes a stopped member) and
    ``wd_members``, if given, each member's weight decay (else ``config.weight_decay`` for
    all); every element follows the update it would follow in a model trained alone. Written
    with the multi-tensor ``torch._foreach_*`` kernels: a handful of operations per step for
    all parameters together instead of several per parameter tensor.
    """
    beta1, beta2 = config.betas
    first, second = moments

    def per_member(values: Tensor) -> list[Tensor]:
        return [values.view(-1, *([1] * (p.dim() - 1))) for p in params]

    lr_views = per_member(lr_members)
    if wd_members is not None:
        wd_views = per_member(wd_members)
        if config.optimizer == "adamw":
            torch._foreach_mul_(params, [1.0 - lr * wd for lr, wd in zip(lr_views, wd_views,
                                                                          strict=True)])
        else:
            grads = torch._foreach_add(grads, torch._foreach_mul(params, wd_views))
    elif config.weight_decay and config.optimizer == "adamw":
        torch._foreach_mul_(params, [1.0 - lr * config.weight_decay for lr in lr_views])
    elif config.weight_decay:
        grads = torch._foreach_add(grads, params, alpha=config.weight_decay)
    torch._foreach_mul_(first, beta1)
    torch._foreach_add_(first, grads, alpha=1.0 - beta1)
    torch._foreach_mul_(second, beta2)
    torch._foreach_addcmul_(second, grads, grads, value=1.0 - beta2)
    bias1, bias2 = 1.0 - beta1**step, 1.0 - beta2**step
    denom = torch._foreach_sqrt(second)
    torch._foreach_div_(denom, math.sqrt(bias2))
    torch._foreach_add_(denom, config.eps)
    update = torch._foreach_div(first, denom)
    torch._foreach_mul_(update, [lr / bias1 for lr in lr_views])
    torch._foreach_sub_(params, update)


@contextlib.contextmanager
def tf32_matmul(enabled: bool) -> Iterator[None]:
    """Let CUDA matrix products and cuDNN use TensorFloat-32 inside the block (or forbid it).

    The two global flags (``torch.backends.cuda.matmul.allow_tf32`` and
    ``torch.backends.cudnn.allow_tf32``) are restored on leaving, also after an error, so a
    training run never changes the precision of code that runs after it.
    """
    saved = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    torch.backends.cuda.matmul.allow_tf32 = enabled
    torch.backends.cudnn.allow_tf32 = enabled
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


_TF32_RUNS: list[bool] = []


@contextlib.contextmanager
def tf32_runs() -> Iterator[None]:
    """Within the block, every training run on CUDA uses TensorFloat-32 whatever its
    ``TrainConfig.tf32`` says: the TF32 side of ``scripts/precision_check.py``, whose runs
    :func:`memnb.results.run_experiment` writes only to a results folder of their own, so that
    no TF32 point enters a float32 cache."""
    _TF32_RUNS.append(True)
    try:
        yield
    finally:
        _TF32_RUNS.pop()


def tf32_forced() -> bool:
    """Whether :func:`tf32_runs` is in effect."""
    return bool(_TF32_RUNS)


Batch = tuple[tuple[Tensor, ...], Tensor, Tensor | None]


class _TrainingData:
    """The training set on the device, checked: inputs, targets, each member's real samples.

    Shared data has leading dim ``T``; per-member data ``[K, T_max]`` with ``mask`` marking each
    member's real samples. Inputs listed in ``constant_inputs`` have no sample dimension and are
    passed whole with every batch.
    """

    def __init__(self, inputs: Inputs, targets: Tensor, num_members: int, device: torch.device,
                 *, sample_mask: Tensor | None, per_member_data: bool,
                 constant_inputs: Sequence[int], loss: str) -> None:
        self.num_members = num_members
        self.device = device
        self.per_member = per_member_data
        self.xs = tuple(x.to(device) for x in _as_tuple(inputs))
        self.ys = targets.to(device)
        constant = set(constant_inputs)
        if not constant <= set(range(len(self.xs))):
            raise ValueError(f"constant_inputs must be positions in inputs (0..{len(self.xs) - 1});"
                             f" got {sorted(constant)}")
        self.sampled = tuple(i not in constant for i in range(len(self.xs)))
        if loss == "ce" and self.ys.dtype != torch.long:
            raise ValueError("targets must be integer class labels (torch.long) when loss='ce'")
        if per_member_data:
            for x in (*self.xs, self.ys):
                if x.shape[0] != num_members:
                    raise ValueError(
                        f"per_member_data=True needs a leading member dimension {num_members}; "
                        f"got shape {tuple(x.shape)}"
                    )
            num_slots = self.ys.shape[1]
            if sample_mask is None:
                sample_mask = torch.ones(num_members, num_slots, dtype=torch.bool)
            if tuple(sample_mask.shape) != (num_members, num_slots):
                raise ValueError(
                    f"sample_mask must have shape {(num_members, num_slots)}; "
                    f"got {tuple(sample_mask.shape)}"
                )
            self.counts = sample_mask.sum(dim=1).tolist()
        else:
            if sample_mask is not None:
                raise ValueError("sample_mask is only used with per_member_data=True")
            self.counts = [self.ys.shape[0]]
        if min(self.counts) < 1:
            raise ValueError("every member needs at least one training sample")
        self.mask = None if sample_mask is None else sample_mask.to(device)

    def per_sample(self, fn: Callable[[Tensor], Tensor], tensors: tuple[Tensor, ...]
                   ) -> tuple[Tensor, ...]:
        """Apply ``fn`` (a selection of samples) to the per-sample inputs only."""
        return tuple(fn(x) if keep else x for x, keep in zip(tensors, self.sampled, strict=True))

    def full_batch(self) -> Batch:
        """Every sample: inputs, targets ``[K, T, ...]`` and the weights of padded data."""
        ys = self.ys if self.per_member else self.ys.expand(self.num_members, *self.ys.shape)
        weights = None if self.mask is None else self.mask.to(torch.float32)
        return self.xs, ys, weights


class _MiniBatches:
    """Each member's mini-batches, drawn by its own seeded :class:`_IndexStream` over its own
    real samples, so a member trained alone with the same seed sees the same batches."""

    def __init__(self, data: _TrainingData, batch_size: int, seed: int) -> None:
        self.data = data
        self.batch_size = batch_size
        self.streams = [_IndexStream(int(c), seed, data.device) for c in data.counts]
        self.valid_index = None
        if data.mask is not None:
            self.valid_index = [torch.nonzero(data.mask[k]).flatten()
                                for k in range(data.num_members)]

    def next(self) -> Batch:
        """The next mini-batch of every member (no weights: padded samples are never drawn)."""
        data, xs, ys = self.data, self.data.xs, self.data.ys
        if not data.per_member:
            idx = self.streams[0].take(self.batch_size)
            return (data.per_sample(lambda x: x[idx], xs),
                    ys[idx].expand(data.num_members, -1, *ys.shape[1:]), None)
        rows = []
        for k, stream in enumerate(self.streams):
            local = stream.take(self.batch_size)
            rows.append(local if self.valid_index is None else self.valid_index[k][local])
        idx = torch.stack(rows)
        gather = data.per_sample(lambda x: torch.gather(x, 1, idx.view(
            *idx.shape, *([1] * (x.dim() - 2))).expand(*idx.shape, *x.shape[2:])), xs)
        y = torch.gather(ys, 1, idx.view(*idx.shape, *([1] * (ys.dim() - 2))).expand(
            *idx.shape, *ys.shape[2:]))
        return gather, y, None


class _Evaluator:
    """Mean loss and accuracy of every member on its whole training set, in chunks of
    ``batch_size``; repeated integer samples of shared data are evaluated once, weighted."""

    def __init__(self, data: _TrainingData, forward_all: Callable[..., Tensor], loss: str,
                 batch_size: int) -> None:
        self.data, self.forward_all = data, forward_all
        self.loss, self.batch_size = loss, batch_size
        if data.per_member:
            self.xs, self.ys, self.counts = data.xs, data.ys, None
        else:
            distinct_xs, self.ys, self.counts = _distinct_samples(
                tuple(x for x, keep in zip(data.xs, data.sampled, strict=True) if keep), data.ys)
            rows = iter(distinct_xs)
            self.xs = tuple(next(rows) if keep else x
                            for x, keep in zip(data.xs, data.sampled, strict=True))
        self.size = self.ys.shape[1] if data.per_member else self.ys.shape[0]

    def _chunk(self, start: int, stop: int) -> Batch:
        data = self.data
        if data.per_member:
            chunk_x = data.per_sample(lambda x: x[:, start:stop], self.xs)
            weights = None if data.mask is None else data.mask[:, start:stop]
            return chunk_x, self.ys[:, start:stop], weights
        chunk_x = data.per_sample(lambda x: x[start:stop], self.xs)
        chunk_y = self.ys[start:stop].expand(data.num_members, *self.ys[start:stop].shape)
        weights = None if self.counts is None else self.counts[start:stop][None]
        return chunk_x, chunk_y, weights

    def __call__(self, params: dict[str, Tensor], buffers: dict[str, Tensor],
                 rows: int | None = None) -> tuple[Tensor, Tensor]:
        """Mean loss and accuracy per member; with ``rows``, of the first ``rows`` rows of the
        evaluation set only (to measure its cost: the means are then of those rows' samples)."""
        device, members = self.data.device, self.data.num_members
        total_loss = torch.zeros(members, device=device, dtype=torch.float64)
        total_correct = torch.zeros(members, device=device, dtype=torch.float64)
        end = self.size if rows is None else min(self.size, rows)
        with torch.no_grad():
            for start in range(0, end, self.batch_size):
                chunk_x, chunk_y, weights = self._chunk(start, min(start + self.batch_size, end))
                out = self.forward_all(params, buffers, *chunk_x)
                per, correct = _sample_losses(out, chunk_y, self.loss)
                if weights is not None:
                    weights = weights.to(per.dtype)
                    per, correct = per * weights, correct * weights
                total_loss += per.sum(dim=-1).double()
                total_correct += correct.sum(dim=-1).double()
        n = torch.tensor(self.data.counts, device=device, dtype=torch.float64)
        if end < self.size:
            n = self._weight(end)
        return total_loss / n, total_correct / n

    def _weight(self, stop: int) -> Tensor:
        """How many samples the first ``stop`` rows stand for, per member."""
        members, device = self.data.num_members, self.data.device
        if self.data.per_member:
            mask = self.data.mask
            count = torch.full((members,), float(stop), device=device) if mask is None else (
                mask[:, :stop].sum(dim=-1))
        else:
            count = torch.full((members,), float(stop if self.counts is None
                                                 else self.counts[:stop].sum()), device=device)
        return count.to(torch.float64).clamp_min(1.0)


def _member_view(vec: Tensor, like: Tensor) -> Tensor:
    return vec.view(-1, *([1] * (like.dim() - 1)))


class _BestCheckpoint:
    """Each member's parameters at its lowest training loss so far, with that loss and accuracy."""

    def __init__(self, params: dict[str, Tensor], num_members: int, device: torch.device) -> None:
        self.params = {k: v.detach().clone() for k, v in params.items()}
        self.loss = torch.full((num_members,), math.inf, device=device, dtype=torch.float64)
        self.accuracy = torch.zeros(num_members, device=device, dtype=torch.float64)

    def update(self, params: dict[str, Tensor], loss: Tensor, accuracy: Tensor,
               active: Tensor) -> None:
        """Keep the current parameters of the active members whose loss improved."""
        improved = (loss < self.loss) & active
        for k, v in params.items():
            self.params[k] = torch.where(_member_view(improved, v), v.detach(), self.params[k])
        self.loss = torch.where(improved, loss, self.loss)
        self.accuracy = torch.where(improved, accuracy, self.accuracy)

    def load_into(self, modules: list[nn.Module], buffers: dict[str, Tensor]) -> list[nn.Module]:
        """Load each member's best parameters (and its buffers) into its module."""
        for member, module in enumerate(modules):
            state = {k: v[member].detach().clone() for k, v in self.params.items()}
            state.update({k: v[member].clone() for k, v in buffers.items()})
            module.load_state_dict(state)
        return modules


class _Members:
    """Which members still train, the step each was last evaluated at, and the history rows."""

    def __init__(self, num_members: int, device: torch.device, early_stop: bool) -> None:
        self.active = torch.ones(num_members, device=device, dtype=torch.bool)
        self.steps_run = torch.zeros(num_members, dtype=torch.long)
        self.history: list[dict] = []
        self.early_stop = early_stop

    def record(self, step: int, lr: float | Tensor, loss: Tensor, accuracy: Tensor) -> bool:
        """Log the active members' evaluation (``lr``: the learning rate, one for all or one
        per member), stop those at 100 % accuracy; True when all are."""
        loss_cpu, acc_cpu, active_cpu = loss.cpu(), accuracy.cpu(), self.active.cpu()
        lrs = lr.cpu().tolist() if isinstance(lr, Tensor) else [lr] * len(active_cpu)
        for member in range(len(active_cpu)):
            if active_cpu[member]:
                self.steps_run[member] = step
                self.history.append({"member": member, "step": step,
                                     "loss": float(loss_cpu[member]),
                                     "accuracy": float(acc_cpu[member]), "lr": lrs[member]})
        if self.early_stop:
            self.active = self.active & (accuracy < 1.0)
        return not bool(self.active.any())

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.history, columns=["member", "step", "loss", "accuracy", "lr"])


def _gradients(forward_all: Callable[..., Tensor], params: dict[str, Tensor],
               buffers: dict[str, Tensor], batch: Batch, loss: str
               ) -> tuple[tuple[Tensor, ...], torch.dtype, Tensor]:
    """Gradients of the sum of the members' mean losses on ``batch`` (each member's own), and
    each member's accuracy on the batch before the update (``[K]``, detached)."""
    batch_x, batch_y, weights = batch
    per, correct = _sample_losses(forward_all(params, buffers, *batch_x), batch_y, loss)
    if weights is None:
        member_loss, member_acc = per.mean(dim=-1), correct.mean(dim=-1)
    else:
        total = weights.sum(dim=-1)
        member_loss = (per * weights).sum(dim=-1) / total
        member_acc = (correct * weights).sum(dim=-1) / total
    grads = torch.autograd.grad(member_loss.sum(), list(params.values()))
    return grads, per.dtype, member_acc.detach()


def _stack(members: Sequence[nn.Module], data: _TrainingData
           ) -> tuple[list[nn.Module], dict[str, Tensor], dict[str, Tensor], Callable[..., Tensor]]:
    """Copies of the members on the device, their stacked parameters (trainable) and buffers,
    and the vmapped forward pass of all members at once. Nothing here draws random numbers (the
    copies are exact; mini-batches come from each :class:`_IndexStream`'s own generator), and
    torch's global generator is left as the caller set it."""
    modules = [copy.deepcopy(m).to(data.device) for m in members]
    params, buffers = stack_module_state(modules)
    params = {k: v.detach().clone().requires_grad_(True) for k, v in params.items()}
    base = copy.deepcopy(modules[0]).to("meta")

    def forward_one(p: dict, b: dict, *x: Tensor) -> Tensor:
        return functional_call(base, (p, b), x)

    data_dim = 0 if data.per_member else None
    return modules, params, buffers, vmap(forward_one,
                                          in_dims=(0, 0, *([data_dim] * len(data.xs))))


def _precision(config: TrainConfig, device: torch.device) -> contextlib.AbstractContextManager:
    """The arithmetic of a run: ``config.tf32`` (or :func:`tf32_runs`) on CUDA, restored
    afterwards; on the CPU, denormals flushed to zero on every thread (:mod:`memnb.numerics`,
    checked here: a mixed pool raises)."""
    if device.type == "cpu":
        numerics.require_flushed_denormals()
    if device.type != "cuda":
        return contextlib.nullcontext()
    return tf32_matmul(config.tf32 or tf32_forced())


@dataclass
class _Run:
    """What a training run (or its cost measurement) starts from: the stacked members on the
    device, their evaluator and mini-batch stream, and Adam's zeroed moments."""

    modules: list[nn.Module]
    params: dict[str, Tensor]
    buffers: dict[str, Tensor]
    forward_all: Callable[..., Tensor]
    evaluate: _Evaluator
    batches: _MiniBatches | None
    param_list: list[Tensor]
    moments: tuple[list[Tensor], list[Tensor]]

    @classmethod
    def prepare(cls, members: Sequence[nn.Module], data: _TrainingData,
                config: TrainConfig) -> _Run:
        modules, params, buffers, forward_all = _stack(members, data)
        evaluate = _Evaluator(data, forward_all, config.loss, config.eval_batch_size)
        batches = None if config.batch_size is None else _MiniBatches(
            data, config.batch_size, config.seed)
        param_list = list(params.values())
        moments = ([torch.zeros_like(v) for v in param_list],
                   [torch.zeros_like(v) for v in param_list])
        return cls(modules, params, buffers, forward_all, evaluate, batches, param_list, moments)


def train_members(
    members: Sequence[nn.Module],
    inputs: Inputs,
    targets: Tensor,
    config: TrainConfig,
    *,
    sample_mask: Tensor | None = None,
    per_member_data: bool = False,
    constant_inputs: Sequence[int] = (),
    member_lr: Sequence[float] | None = None,
    member_weight_decay: Sequence[float] | None = None,
    progress: bool = True,
    desc: str | None = None,
) -> TrainResult:
    """Train ``members`` (independent models of one architecture) together; see module docstring.

    ``member_lr`` / ``member_weight_decay`` give each member its own base learning rate and
    weight decay in place of ``config.lr`` / ``config.weight_decay`` (the schedule applies to
    each), e.g. the trials of a hyper-parameter search trained as one stack; every member
    follows the run it would follow alone with ``config`` set to its values.

    ``inputs``/``targets`` hold the training set, shared by all members (leading dim ``T``) or,
    with ``per_member_data=True``, one set per member (leading dims ``[K, T_max]``), in which case
    ``sample_mask`` (bool ``[K, T_max]``) marks each member's real samples; padded samples are
    never drawn and never counted. Mini-batches are drawn from a stream seeded by
    ``config.seed`` over each member's own samples, so a member trained alone with the same seed
    sees the same batches.

    ``constant_inputs`` lists the positions in ``inputs`` of tensors that are the same for every
    sample (e.g. the one context shared by all examples in Mahdavi et al.'s Figs. 2-3): they have
    no sample dimension (``[...]``, or ``[K, ...]`` with ``per_member_data``) and are passed whole
    with every mini-batch, so the model can process them once per step instead of once per sample.

    On CUDA, ``config.tf32`` sets the global TF32 flags for the run only (see :func:`tf32_matmul`).
    """
    _check_members(members)
    device = torch.device(config.device)
    for name, values in (("member_lr", member_lr), ("member_weight_decay", member_weight_decay)):
        if values is not None and len(values) != len(members):
            raise ValueError(f"{name} must give one value per member ({len(members)}); "
                             f"got {len(values)}")
    if member_lr is not None and not all(v > 0 and math.isfinite(v) for v in member_lr):
        raise ValueError("member_lr must be > 0 and finite for every member; got "
                         f"{list(member_lr)}")
    if member_weight_decay is not None and not all(v >= 0 and math.isfinite(v)
                                                   for v in member_weight_decay):
        raise ValueError("member_weight_decay must be >= 0 and finite for every member; got "
                         f"{list(member_weight_decay)}")
    data = _TrainingData(inputs, targets, len(members), device, sample_mask=sample_mask,
                         per_member_data=per_member_data, constant_inputs=constant_inputs,
                         loss=config.loss)
    with _precision(config, device):
        return _train_loop(members, data, config, progress=progress, desc=desc,
                           member_lr=member_lr, member_weight_decay=member_weight_decay)


def _train_loop(members: Sequence[nn.Module], data: _TrainingData, config: TrainConfig, *,
                progress: bool, desc: str | None, member_lr: Sequence[float] | None = None,
                member_weight_decay: Sequence[float] | None = None) -> TrainResult:
    """Adam steps in chunks of ``eval_every``, each chunk followed by an evaluation that updates
    the best checkpoints and stops the members at 100 % training accuracy."""
    run = _Run.prepare(members, data, config)
    # each member's base learning rate (config.lr for all unless member_lr) and weight decay
    base_lr = (config.lr if member_lr is None else
               torch.tensor(list(member_lr), dtype=torch.float32, device=data.device))
    wd = (None if member_weight_decay is None else
          torch.tensor(list(member_weight_decay), dtype=torch.float32, device=data.device))
    modules, params, buffers, forward_all = run.modules, run.params, run.buffers, run.forward_all
    evaluate, batches, param_list, moments = run.evaluate, run.batches, run.param_list, run.moments
    best = _BestCheckpoint(params, data.num_members, data.device)
    state = _Members(data.num_members, data.device, config.early_stop and config.loss == "ce")
    group = resume.current()
    saved_run = None if group is None else group.next_run(functools.partial(
        _run_signature, members, data, config, member_lr, member_weight_decay))

    def record(step: int, lr: float | Tensor) -> tuple[bool, tuple[Tensor, Tensor]]:
        """Evaluate; update checkpoints, history and early stopping; True when all are done."""
        loss, acc = evaluate(params, buffers)
        best.update(params, loss, acc, state.active)
        return state.record(step, lr, loss, acc), (loss, acc)

    window = config.batch_accuracy_window
    recent: collections.deque[Tensor] = collections.deque(maxlen=window + 1)
    loop = _LoopState(run, best, state, recent)
    restored = None if saved_run is None else saved_run.load()
    if restored is None:
        step = 0
        done, latest = record(0, base_lr * config.lr_factor(0))
    else:  # a paused run of this group: continue from its last evaluation
        step, done, latest = loop.restore(restored, data.device)
    bar = tqdm(total=config.steps, initial=step,
               desc=desc or f"training {data.num_members} model(s)",
               disable=bar_disabled(progress), leave=False)
    started = time.monotonic()
    while step < config.steps and not done:
        chunk_started = time.monotonic()
        chunk_end = min(config.steps, (step // config.eval_every + 1) * config.eval_every)
        while step < chunk_end:
            lr_now = base_lr * config.lr_factor(step)
            batch = data.full_batch() if batches is None else batches.next()
            grads, dtype, batch_acc = _gradients(forward_all, params, buffers, batch, config.loss)
            if window:
                recent.append(batch_acc)
            step += 1
            with torch.no_grad():
                _adam_update(param_list, list(grads), moments,
                             state.active.to(dtype) * lr_now, step, config,
                             None if wd is None else wd.to(dtype))
        bar.update(chunk_end - bar.n)
        done, latest = record(step, lr_now)
        if progress:
            bar.set_postfix(active=int(state.active.sum()),
                            best_loss=f"{float(best.loss.min()):.3g}")
        if saved_run is not None and not done and step < config.steps:
            pause = saved_run.must_pause(time.monotonic() - chunk_started)
            if pause or saved_run.due():
                saved_run.save(loop.snapshot(step, done, latest))
            if pause:
                bar.close()
                raise resume.Paused(f"paused at step {step} of {config.steps}; the next run "
                                    f"continues from {saved_run.path.name}")
    bar.close()
    if saved_run is not None and time.monotonic() - started >= saved_run.save_every_s:
        # worth keeping until the group's points are cached: a later run of the group may pause
        saved_run.save(loop.snapshot(step, done, latest))

    final_loss, final_acc = latest  # the last evaluation is always of the final weights
    return TrainResult(
        best_loss=best.loss.cpu(),
        accuracy=best.accuracy.cpu(),
        final_loss=final_loss.cpu(),
        final_accuracy=final_acc.cpu(),
        steps_run=state.steps_run,
        history=state.frame(),
        models=best.load_into(modules, buffers),
        last_batches_accuracy=_window_mean(recent, window),
    )


def _run_signature(members: Sequence[nn.Module], data: _TrainingData, config: TrainConfig,
                   member_lr: Sequence[float] | None,
                   member_weight_decay: Sequence[float] | None) -> str:
    """What a saved loop state must match to be resumed: the configuration, each member's
    class, parameter shapes and initial values (a checksum), the data shapes and the per-member
    rates."""
    digest = hashlib.sha256(repr((config, member_lr, member_weight_decay,
                                  [tuple(x.shape) for x in (*data.xs, data.ys)],
                                  data.counts)).encode())
    for member in members:
        digest.update(type(member).__name__.encode())
        for name, value in member.state_dict().items():
            digest.update(f"{name}{tuple(value.shape)}".encode())
            digest.update(value.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()


@dataclass
class _LoopState:
    """Everything :func:`_train_loop` carries from one evaluation to the next, to save a paused
    run and to restore it bit for bit (:mod:`memnb.resume`)."""

    run: _Run
    best: _BestCheckpoint
    members: _Members
    recent: collections.deque[Tensor]

    def snapshot(self, step: int, done: bool, latest: tuple[Tensor, Tensor]) -> dict[str, Any]:
        """The loop's state after the evaluation at ``step``, on the CPU."""
        streams = [] if self.run.batches is None else self.run.batches.streams

        def cpu(values: dict[str, Tensor] | list[Tensor]) -> Any:
            if isinstance(values, dict):
                return {k: v.detach().cpu().clone() for k, v in values.items()}
            return [v.detach().cpu().clone() for v in values]

        return {
            "step": step, "done": done, "latest": cpu(list(latest)),
            "params": cpu(self.run.params), "moments": [cpu(m) for m in self.run.moments],
            "best_params": cpu(self.best.params), "best_loss": self.best.loss.cpu(),
            "best_accuracy": self.best.accuracy.cpu(), "active": self.members.active.cpu(),
            "steps_run": self.members.steps_run.clone(), "history": list(self.members.history),
            "recent": cpu(list(self.recent)),
            "streams": [(s.generator.get_state(), s.buffer.cpu()) for s in streams],
        }

    def restore(self, saved: dict[str, Any], device: torch.device
                ) -> tuple[int, bool, tuple[Tensor, Tensor]]:
        """Load a :meth:`snapshot`; ``(step, done, latest evaluation)`` to continue from."""
        with torch.no_grad():
            for k, v in self.run.params.items():
                v.copy_(saved["params"][k])
            for mine, theirs in zip(self.run.moments, saved["moments"], strict=True):
                for m, t in zip(mine, theirs, strict=True):
                    m.copy_(t)
        self.best.params = {k: v.to(device) for k, v in saved["best_params"].items()}
        self.best.loss = saved["best_loss"].to(device)
        self.best.accuracy = saved["best_accuracy"].to(device)
        self.members.active = saved["active"].to(device)
        self.members.steps_run = saved["steps_run"].clone()
        self.members.history = list(saved["history"])
        self.recent.clear()
        self.recent.extend(v.to(device) for v in saved["recent"])
        streams = [] if self.run.batches is None else self.run.batches.streams
        for stream, (generator_state, buffer) in zip(streams, saved["streams"], strict=True):
            stream.generator.set_state(generator_state)
            stream.buffer = buffer.to(device)
        latest = saved["latest"]
        return int(saved["step"]), bool(saved["done"]), (latest[0].to(device),
                                                           latest[1].to(device))


def _window_mean(recent: collections.deque[Tensor], window: int) -> Tensor | None:
    """Mean batch accuracy per member over the recorded steps but the last (the official
    code's slice ``Acc[-window-1:-1]``); None without a window or a recorded step."""
    if not window or not recent:
        return None
    kept = list(recent)[:-1] if len(recent) > 1 else list(recent)
    return torch.stack(kept).double().mean(dim=0).cpu()


@dataclass(frozen=True)
class StepCost:
    """Measured cost of one optimiser step and of one evaluation of the whole training set, for
    all members together (seconds on the device; FLOPs as counted by
    :class:`torch.utils.flop_counter.FlopCounterMode`: matrix products and attention)."""

    step_s: float
    eval_s: float
    step_flops: float
    eval_flops: float


def measure_step(members: Sequence[nn.Module], inputs: Inputs, targets: Tensor,
                 config: TrainConfig, *, sample_mask: Tensor | None = None,
                 per_member_data: bool = False, constant_inputs: Sequence[int] = (),
                 repeats: int = 3, eval_rows: int = 2048, **_: object
                 ) -> tuple[StepCost, TrainResult]:
    """The cost of :func:`train_members`' parts on these members and data, without training.

    Counts the FLOPs of one real training step (forward and backward; Adam's element-wise update
    is not counted) and of one evaluation on the first member, times the number of members
    (every member runs the same operations on tensors of the same shapes). Then times one
    evaluation and one step of all members together; when that step takes under 0.2 s,
    ``repeats`` further steps are timed and averaged. Evaluations are measured on the first
    ``eval_rows`` rows of the evaluation set and scaled to the whole set. Also returns the members'
    :class:`TrainResult` at step 0 (untrained copies, one history row each, their loss and
    accuracy on those rows), so code that expects a training result can go on.
    """
    from torch.utils.flop_counter import FlopCounterMode

    _check_members(members)
    device = torch.device(config.device)
    kwargs = {"per_member_data": per_member_data, "constant_inputs": constant_inputs,
              "loss": config.loss}
    data = _TrainingData(inputs, targets, len(members), device, sample_mask=sample_mask,
                         **kwargs)
    if per_member_data:  # the first member's own data
        first = _TrainingData(tuple(x[:1] for x in _as_tuple(inputs)), targets[:1], 1, device,
                              sample_mask=None if sample_mask is None else sample_mask[:1],
                              **kwargs)
    else:
        first = _TrainingData(inputs, targets, 1, device, sample_mask=None, **kwargs)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    with _precision(config, device):
        _, params, buffers, forward_all = _stack(members[:1], first)
        probe = _Evaluator(first, forward_all, config.loss, config.eval_batch_size)
        with FlopCounterMode(display=False) as counter:
            probe(params, buffers, rows=eval_rows)
        eval_flops = (float(counter.get_total_flops()) * len(members)
                      * probe.size / min(probe.size, eval_rows))
        batch = first.full_batch() if config.batch_size is None else _MiniBatches(
            first, config.batch_size, config.seed).next()
        with FlopCounterMode(display=False) as counter:
            _gradients(forward_all, params, buffers, batch, config.loss)
        step_flops = float(counter.get_total_flops()) * len(members)

        run = _Run.prepare(members, data, config)
        params, buffers, forward_all = run.params, run.buffers, run.forward_all
        evaluate, batches, param_list, moments = (run.evaluate, run.batches, run.param_list,
                                                  run.moments)
        lr = torch.full((len(members),), config.lr, device=device)

        def timed_steps(count: int) -> float:
            sync()
            t0 = time.perf_counter()
            for k in range(count):
                batch = data.full_batch() if batches is None else batches.next()
                grads, dtype, _ = _gradients(forward_all, params, buffers, batch, config.loss)
                with torch.no_grad():
                    _adam_update(param_list, list(grads), moments, lr.to(dtype), k + 1, config)
            sync()
            return (time.perf_counter() - t0) / count

        sync()
        t0 = time.perf_counter()
        loss, acc = evaluate(params, buffers, rows=eval_rows)
        sync()
        eval_s = (time.perf_counter() - t0) * evaluate.size / min(evaluate.size, eval_rows)
        step_s = timed_steps(1)
        if step_s < 0.2:
            step_s = timed_steps(repeats)
    history = pd.DataFrame([{"member": k, "step": 0, "loss": float(loss[k]),
                             "accuracy": float(acc[k]), "lr": config.lr * config.lr_factor(0)}
                            for k in range(len(members))],
                           columns=["member", "step", "loss", "accuracy", "lr"])
    untrained = TrainResult(best_loss=loss.cpu(), accuracy=acc.cpu(), final_loss=loss.cpu(),
                            final_accuracy=acc.cpu(),
                            steps_run=torch.zeros(len(members), dtype=torch.long),
                            history=history, models=[copy.deepcopy(m) for m in members],
                            last_batches_accuracy=(acc.cpu() if config.batch_accuracy_window
                                                   else None))
    return StepCost(step_s, eval_s, step_flops, eval_flops), untrained


def train(model: nn.Module, inputs: Inputs, targets: Tensor, config: TrainConfig,
          *, progress: bool = True, desc: str | None = None) -> TrainResult:
    """Train one model with the shared recipe (the one-member case of :func:`train_members`)."""
    return train_members([model], inputs, targets, config, progress=progress, desc=desc)
