"""Tests of the real-data representations used for Table 1 / Table 3 (offline only)."""

from __future__ import annotations

import pytest
import torch

from memnb.data import images
from memnb.representations import (
    RepresentationUnavailable,
    dinov2_hidden_states,
    hub_available,
    image_hidden_states,
    text_hidden_states,
    text_samples,
)


def test_image_loader_and_missing_folder(monkeypatch):
    paths = images.list_images(3)
    assert len(paths) == 3 and paths == sorted(paths)
    img = images.load_image(paths[0])
    assert img.shape == (3, 224, 224) and img.dtype == torch.uint8
    batch = next(images.image_batches(paths, 2, mean=images.HALF, std=images.HALF))
    assert batch.shape == (2, 3, 224, 224) and -1.0 <= float(batch.min()) <= float(batch.max()) <= 1
    monkeypatch.setattr(images, "find_dataset", lambda _: None)
    with pytest.raises(FileNotFoundError, match="imagenet-samples/images.*MEMNB_DATA_DIR"):
        images.list_images()


def test_vit_geometry_representations():
    paths = images.list_images(2)
    emb = next(image_hidden_states("embedding", paths))
    att = next(image_hidden_states("random_attention", paths))
    assert emb.shape == att.shape == (2, 197, 768)
    # the [CLS] embedding is the same for every image: Assumption 1 fails at the embedding layer
    torch.testing.assert_close(emb[0, 0], emb[1, 0])
    assert not torch.allclose(att[0, 0], att[1, 0])
    again = next(image_hidden_states("embedding", paths))
    torch.testing.assert_close(emb, again)  # seeded
    with pytest.raises(ValueError, match="kind"):
        next(image_hidden_states("nope", paths))


def test_trained_models_from_hub_are_reported_missing_offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert hub_available() == (False, "HF_HUB_OFFLINE is set (offline mode)")
    with pytest.raises(RepresentationUnavailable, match="hub"):
        next(image_hidden_states("trained_vit_b16", images.list_images(1)))
    sample = text_samples("gpt", 2, 16)
    with pytest.raises(RepresentationUnavailable, match="hub"):
        next(text_hidden_states("gpt2_trained", sample))


def test_dinov2_onnx_intermediate_outputs():
    l0, l1 = next(dinov2_hidden_states(images.list_images(2), batch_size=2))
    assert l0.shape == l1.shape == (2, 257, 384)
    assert torch.isfinite(l1).all() and not torch.allclose(l0, l1)
    torch.testing.assert_close(l0[0, 0], l0[1, 0])  # [CLS] + position 0: image-independent


def test_text_samples_and_bert_layers():
    sample = text_samples("bert", 3, 20, seed=1)
    ids, types = sample.input_ids, sample.token_type_ids
    assert ids.shape == types.shape == (3, 20)
    assert (ids[:, 0] == 101).all() and (ids[:, -1] == 102).all()  # [CLS] ... [SEP]
    assert types[:, 0].sum() == 0 and (types[:, -1] == 1).all()
    l0, l1 = next(text_hidden_states("bert_trained", sample))
    assert l0.shape == l1.shape == (3, 20, 384)
    torch.testing.assert_close(l0[0, 0], l0[2, 0])  # the [CLS] query is shared at L0
    gpt = text_samples("gpt", 2, 24)
    g0, g1 = next(text_hidden_states("gpt2_random", gpt))
    assert g0.shape == g1.shape == (2, 24, 768)
