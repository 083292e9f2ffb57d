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
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pandas as pd
import torch
from torch import Tensor, nn
from torch.func import functional_call, stack_module_state, vmap
from tqdm.auto import tqdm

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

    def __post_init__(self) -> None:
        if not isinstance(self.steps, int) or self.steps < 1:
            raise ValueError(f"steps must be an integer >= 1; got {self.steps!r}")
        if not self.lr > 0:
            raise ValueError(f"lr must be > 0; got {self.lr!r}")
        if self.optimizer not in _OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {_OPTIMIZERS}; got {self.optimizer!r}")
        if self.schedule not in _SCHEDULES:
            raise ValueError(f"schedule must be one of {_SCHEDULES}; got {self.schedule!r}")
        if self.loss not in _LOSSES:
            raise ValueError(f"loss must be one of {_LOSSES}; got {self.loss!r}")
        if self.weight_decay < 0:
            raise ValueError(f"weight_decay must be >= 0; got {self.weight_decay!r}")
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
        if not all(0.0 <= b < 1.0 for b in self.betas):
            raise ValueError(f"betas must lie in [0, 1); got {self.betas!r}")

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
                 config: TrainConfig) -> None:
    """One Adam/AdamW step (Kingma & Ba 2015; Loshchilov & Hutter 2019) on stacked parameters.

    ``lr_members`` holds each member's learning rate (zero freezes a stopped member); every
    element follows the update it would follow in a model trained alone. Written with the
    multi-tensor ``torch._foreach_*`` kernels: a handful of operations per step for all
    parameters together instead of several per parameter tensor.
    """
    beta1, beta2 = config.betas
    first, second = moments
    lr_views = [lr_members.view(-1, *([1] * (p.dim() - 1))) for p in params]
    if config.weight_decay and config.optimizer == "adamw":
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


def train_members(
    members: Sequence[nn.Module],
    inputs: Inputs,
    targets: Tensor,
    config: TrainConfig,
    *,
    sample_mask: Tensor | None = None,
    per_member_data: bool = False,
    constant_inputs: Sequence[int] = (),
    progress: bool = True,
    desc: str | None = None,
) -> TrainResult:
    """Train ``members`` (independent models of one architecture) together; see module docstring.

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
    """
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
    bar = tqdm(total=config.steps, desc=desc or f"training {num_members} model(s)",
               disable=not progress, leave=False)
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
        bar.update(chunk_end - bar.n)
        done = record(step, lr_now)
        if progress:
            bar.set_postfix(active=int(active.sum()), best_loss=f"{float(best_loss.min()):.3g}")
    bar.close()

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


def train(model: nn.Module, inputs: Inputs, targets: Tensor, config: TrainConfig,
          *, progress: bool = True, desc: str | None = None) -> TrainResult:
    """Train one model with the shared recipe (the one-member case of :func:`train_members`)."""
    return train_members([model], inputs, targets, config, progress=progress, desc=desc)
