"""The position tables of Table 1's models (memnb.figures.mahdavi_positions, ours): their rank
measured, and the words the scorecard's row "Sec. 4.4: the encoding's rank" can use instead of
an assumed sentence (review s69 item 1)."""

from __future__ import annotations

import pytest

from memnb.figures import mahdavi_positions as mp

REPS = ("embedding", "random_attention", "random_vit", "trained_vit_b16", "dinov2_vits14_l0",
        "dinov2_vits14_l1")


def _rank(key: str, rank: int | None, n: int = 197, reason: str = "") -> mp.PositionRank:
    words, reps = next((w, r) for k, w, r in mp.MODELS if k == key)
    if rank is None:
        return mp.PositionRank(key, words, reps, reason=reason)
    return mp.PositionRank(key, words, reps, n, 768, rank, 0.3, rank, 0.02)


def test_the_random_vit_position_table_is_measured_and_has_full_rank(monkeypatch):
    """Table 1's random ViT-B/16 (seed 0) adds Gaussian positions of standard deviation 0.02:
    its table alone has rank n = 197; the trained ViT-B/16 without the hub is not computed."""
    import memnb.representations as representations

    monkeypatch.setattr(representations, "hub_available",
                        lambda timeout=3.0: (False, "no network: test"))
    random = mp._vit_tables("random_vit_b16", "w", ("embedding",), 0)
    assert (random.n, random.d, random.rank, random.repeated_rank) == (197, 768, 197, 197)
    assert random.full and random.std == pytest.approx(0.02, rel=0.05)
    assert 0 < random.relative_sv < 1
    trained = mp._vit_tables("trained_vit_b16", "w", ("trained_vit_b16",), 0)
    assert not trained.computed and "no network: test" in trained.reason


def test_the_words_follow_the_measurements():
    """"every table measured" only when every measured table has rank n; a table below rank n
    is named; a model that could not be loaded is said to be not computed, and why."""
    ranks = [_rank("random_vit_b16", 197), _rank("trained_vit_b16", None,
                                                  reason="x needs the hub: no network: y"),
             _rank("dinov2_vits14", 257, n=257)]
    text = mp.position_ranks_text(REPS, ranks=ranks)
    assert "rank 197 of 197" in text and "rank 257 of 257" in text
    assert "the trained ViT-B/16: not computed (hub not reached)" in text
    assert "entries of standard deviation 0.02" in text
    assert text.endswith("so every table measured has rank n by itself")
    # what follows for a layer's contexts is the scorecard's (the table is added at the
    # embedding layer only), not said here of every context
    assert "positions alone have it" not in text
    # only the models behind the representations asked about
    alone = mp.position_ranks_text(["embedding"], ranks=ranks)
    assert "DINOv2" not in alone and "the table measured has rank n" in alone
    low = mp.position_ranks_text(REPS, ranks=[_rank("random_vit_b16", 120)])
    assert "below rank n by itself" in low and "(120 of 197)" in low
    assert "positions alone have it" not in low
    none = mp.position_ranks_text(REPS, ranks=[_rank("trained_vit_b16", None, reason="r")])
    assert none.endswith("the trained ViT-B/16: not computed (r)")
    assert mp.position_ranks_text(["bert_trained"], ranks=ranks) == ""
