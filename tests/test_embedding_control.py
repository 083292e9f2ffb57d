"""The untrained-embedding control of Assumption 3 (memnb.embedding_control, ours): its closed
form against the assumption check's own computation, its float32/float64 rank decisions on data
whose answer is known, and its seeds."""

from __future__ import annotations

import pandas as pd
import pytest
import torch

from memnb import embedding_control as ec
from memnb.assumptions import KruskalTest, kruskal_test, shifted_queries
from memnb.data.images import HALF, IMAGENET_MEAN, IMAGENET_STD, normalize

#: A small geometry: 28-pixel images in 14-pixel patches (4 patches, n = 5), width 8.
SMALL = ec.Geometry("small", 14, 8, HALF, HALF, image_size=28)


def _images(T: int, seed: int = 0, size: int = 28) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 256, (T, 3, size, size), generator=g, dtype=torch.uint8)


def test_geometries_are_table1s():
    dino, vit = ec.GEOMETRIES
    assert (dino.patch, dino.d, dino.n, dino.in_dim) == (14, 384, 257, 588)
    assert (vit.patch, vit.d, vit.n, vit.in_dim) == (16, 768, 197, 768)
    assert dino.mean == IMAGENET_MEAN and dino.std == IMAGENET_STD and vit.mean == HALF


def test_normalized_is_memnbs_normalisation_in_either_dtype():
    images = _images(3)
    x32 = ec.normalized(images, IMAGENET_MEAN, IMAGENET_STD, torch.float32)
    assert torch.equal(x32, normalize(images, IMAGENET_MEAN, IMAGENET_STD))
    x64 = ec.normalized(images, IMAGENET_MEAN, IMAGENET_STD, torch.float64)
    assert x64.dtype == torch.float64 and torch.allclose(x64, x32.double(), atol=1e-6)
    with pytest.raises(ValueError, match="float32 or float64"):
        ec.normalized(images, HALF, HALF, torch.float16)
    with pytest.raises(ValueError, match="uint8"):
        ec.normalized(images.float(), HALF, HALF)


def test_mean_patch_is_the_average_of_the_patches():
    pixels = torch.arange(2 * 3 * 4 * 4, dtype=torch.float64).reshape(2, 3, 4, 4)
    means = ec.mean_patches(pixels, 2)
    assert means.shape == (2, 12)
    blocks = [pixels[:, :, i:i + 2, j:j + 2] for i in (0, 2) for j in (0, 2)]
    assert torch.allclose(means, torch.stack(blocks).mean(dim=0).reshape(2, 12))
    with pytest.raises(ValueError, match="divisible"):
        ec.mean_patches(pixels, 3)


def test_closed_form_is_the_assumption_checks_e_plus_mean_E():
    """e + mean(E) from the mean patches equals memnb.assumptions.shifted_queries on the
    embedding layer's explicit contexts (row 0 the [CLS] token), in both dtypes."""
    images = _images(6)
    embedding = ec.random_embedding(SMALL, seed=3)
    embedding = ec.RandomEmbedding(embedding.weight, torch.linspace(-1, 1, SMALL.d,
                                                                    dtype=torch.float64),
                                   embedding.cls, embedding.pos)  # a non-zero bias too
    for dtype, tol in ((torch.float64, 1e-12), (torch.float32, 1e-5)):
        pixels = ec.normalized(images, SMALL.mean, SMALL.std, dtype)
        contexts = ec.embed(pixels, embedding, SMALL.patch)
        assert contexts.shape == (6, SMALL.n, SMALL.d) and contexts.dtype == dtype
        direct = shifted_queries(contexts, contexts[:, 0])
        closed = ec.assumption3_vectors(ec.mean_patch_vectors(images, SMALL, dtype), embedding)
        assert torch.allclose(closed, direct, atol=tol, rtol=0)


def test_rank_in_both_keeps_in_float64_what_float32_cuts():
    """Vectors that differ from one common vector by about 1e-9 of its size (as mean patches
    differ little from the images' common colour): every draw's smallest relative singular
    value lies above float64's tolerance max(k, d)·eps and below float32's. float64 passes
    every draw, float32 none, each as torch.linalg.matrix_rank decides it."""
    g = torch.Generator().manual_seed(0)
    T, d, k = 12, 8, 6
    common = torch.randn(d, generator=g, dtype=torch.float64)
    vectors = common + 1e-9 * torch.randn(T, d, generator=g, dtype=torch.float64)
    test32, test64, relative = ec.rank_in_both(vectors.float(), vectors, k, repeats=20, seed=1)
    tol32 = max(k, d) * torch.finfo(torch.float32).eps
    tol64 = max(k, d) * torch.finfo(torch.float64).eps
    assert tol64 < relative[0] and relative[1] < tol32
    assert test64.passes == 20 and test32.passes == 0 and test32.max_rank < k
    assert test32 == kruskal_test(vectors.float(), k, repeats=20, seed=1)
    assert test64 == kruskal_test(vectors, k, repeats=20, seed=1)
    with pytest.raises(ValueError, match="float32"):
        ec.rank_in_both(vectors, vectors, k, repeats=2)


def test_relative_singular_values_come_from_the_rank_tests_draws():
    """_relative_sv draws the subsets kruskal_test draws: with one vector repeated, the draws
    that hold both copies are the ones the rank test fails, and only those reach 0."""
    g = torch.Generator().manual_seed(0)
    vectors = torch.randn(10, 6, generator=g, dtype=torch.float64)
    vectors[9] = vectors[0]
    test = kruskal_test(vectors, 5, repeats=40, seed=2)
    assert 0 < test.passes < 40
    gen = torch.Generator().manual_seed(2)
    idx = torch.stack([torch.randperm(10, generator=gen)[:5] for _ in range(40)])
    both = int(((idx == 0).any(dim=1) & (idx == 9).any(dim=1)).sum())
    assert 40 - test.passes == both
    low, high = ec._relative_sv(vectors, 5, 40, 2)
    assert low < 1e-12 < high


def test_embedding_control_is_seeded_and_decided_per_dtype():
    images = _images(30, seed=4)
    first = ec.embedding_control(images, SMALL, repeats=10, seed=0)
    again = ec.embedding_control(images, SMALL, repeats=10, seed=0)
    other = ec.embedding_control(images, SMALL, repeats=10, seed=1)
    assert first == again  # the same seed reproduces every number
    assert not torch.equal(ec.random_embedding(SMALL, seed=0).weight,
                           ec.random_embedding(SMALL, seed=1).weight)
    assert first.relative_sv != other.relative_sv
    # random noise images: well-conditioned mean patches, full rank in both dtypes
    assert first.k == SMALL.n and first.T == 30
    assert first.float32.passes == first.float64.passes == 10
    assert first.tolerance32 == pytest.approx(SMALL.d * torch.finfo(torch.float32).eps)
    with pytest.raises(ValueError, match="at least n"):
        ec.embedding_control(images[:3], SMALL, repeats=2)


def _control(patch: int, passes32: int, passes64: int) -> ec.EmbeddingControl:
    geometry = next(g for g in ec.GEOMETRIES if g.patch == patch)
    k = geometry.n
    return ec.EmbeddingControl(geometry, 1000, 0,
                               KruskalTest(k, 100, passes32, k - 12 if passes32 < 100 else k, k),
                               KruskalTest(k, 100, passes64, k, k), (2e-5, 3e-5))


def _dinov2_table() -> pd.DataFrame:
    rows = [{"representation": rep, "check": "assumption3", "k": k, "pass_fraction": frac,
             "valid": True, "repeats": 5000, "T": 1000, "min_rank": low, "max_rank": high,
             "n": k, "d": d}
            for rep, k, d, frac, low, high in (("dinov2_vits14_l0", 257, 384, 0.0, 211, 216),
                                               ("embedding", 197, 768, 0.9996, 196, 197))]
    return pd.DataFrame(rows)


def test_control_text_reads_training_off_the_untrained_control():
    from memnb.scorecard import mahdavi as sc

    table = _dinov2_table()
    untrained_fails = sc.embedding_control_text((_control(14, 0, 100), _control(16, 99, 100)),
                                                table)
    assert "not shown to come from training" in untrained_fails
    assert "fails in float32 without any training and holds in float64" in untrained_fails
    assert "ranks 245-257" in untrained_fails and "ranks 211-216" in untrained_fails
    assert "pass fraction 0.9996" in untrained_fails  # Table 1's random ViT-B/16 embedding
    assert "counts it as zero" in untrained_fails  # 3e-5 below float32's 4.6e-5
    brief = sc.embedding_control_text((_control(14, 0, 100), _control(16, 99, 100)), table,
                                      detail=False)
    assert "ViT-B/16 geometry" not in brief and "not shown to come from training" in brief
    untrained_passes = sc.embedding_control_text((_control(14, 100, 100),
                                                  _control(16, 100, 100)), table)
    assert "consistent with the training lowering the rank" in untrained_passes
    assert "not shown" not in untrained_passes
    both_fail = sc.embedding_control_text((_control(14, 0, 0), _control(16, 100, 100)), table)
    assert "in float32 and in float64" in both_fail
    assert "not known here" in sc.embedding_control_text(None, table)


def test_missing_images_give_no_control(monkeypatch):
    from memnb.scorecard import mahdavi as sc

    def absent(images: int) -> tuple:
        raise FileNotFoundError("no images")

    monkeypatch.setattr(ec, "default_controls", absent)
    assert sc.embedding_controls(1000) is None
