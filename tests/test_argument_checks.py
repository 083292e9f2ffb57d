"""Bad sizes and counts given to the data generators, the constructions' helpers and the
Kruskal-rank test get a ValueError naming the parameter and its allowed range, where they used
to give a wrong answer (an index beyond ``N^S``, ``label_bits(0) = 1``, a negative bound or
negative dataset sizes) or an error from deep inside."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from memnb.assumptions import kruskal_test
from memnb.constructions import aot
from memnb.constructions.seq_id.memorizer import label_bits, layout
from memnb.data.random_sequences import random_sequences, token_vectors
from memnb.data.synthetic import all_contexts, context_index
from memnb.experiments.mahdavi import saturation_search_sizes


def test_random_sequences_check_their_sizes_with_the_shared_message():
    data = random_sequences(np.int64(5), 3, 4, np.int64(2), seed=1)  # NumPy ints are ints
    assert data.tokens.shape == (5, 3) and data.num_classes == 2
    with pytest.raises(ValueError, match="num_sequences must be >= 1, got 0"):
        random_sequences(0, 3, 4, 2)
    with pytest.raises(ValueError, match="seq_len must be an int, got 2.0"):
        random_sequences(5, 2.0, 4, 2)
    with pytest.raises(ValueError, match="num_classes must be an int, got True"):
        random_sequences(5, 3, 4, True)
    with pytest.raises(ValueError, match="dim must be >= 1, got 0"):
        token_vectors(4, 0)


def test_context_index_refuses_tokens_outside_the_vocabulary():
    contexts = all_contexts(3, 2)
    assert torch.equal(context_index(contexts, 3), torch.arange(9))
    assert context_index(contexts[:0], 3).shape == (0,)  # no contexts, no indices
    for bad in (torch.tensor([[0, 3]]), torch.tensor([[-1, 0]])):
        with pytest.raises(ValueError, match=r"tokens must lie in \[0, vocab_size=3\)"):
            context_index(bad, 3)
    with pytest.raises(ValueError, match="tokens must be an integer tensor of shape"):
        context_index(torch.tensor([0, 1]), 3)
    with pytest.raises(ValueError, match="tokens must be an integer tensor of shape"):
        context_index(torch.tensor([[0.0, 1.0]]), 3)
    with pytest.raises(ValueError, match="vocab_size must be >= 1, got 0"):
        context_index(contexts, 0)


def test_memorizer_label_bits_and_layout_need_a_class():
    assert [label_bits(c) for c in (1, 2, 3, 4, 5)] == [1, 1, 2, 2, 3]
    assert label_bits(np.int64(4)) == 2
    for bad in (0, -3):
        with pytest.raises(ValueError, match=f"num_classes must be >= 1, got {bad}"):
            label_bits(bad)
        with pytest.raises(ValueError, match=f"num_classes must be >= 1, got {bad}"):
            layout(4, 9, bad)
    assert layout(4, 9, 2).label_bits == 1


def test_repeated_token_rank_bound_names_its_sizes():
    assert aot.repeated_token_rank_bound(6, 2, 3) == 10
    assert aot.repeated_token_rank_bound(6, 0, 3) == 6  # no heads: the range of L only
    assert aot.repeated_token_rank_bound(6, 2, 1) == 6
    for args, message in (((6, -1, 3), "H must be >= 0, got -1"),
                          ((0, 2, 3), "d must be >= 1, got 0"),
                          ((6, 2, 0), "S must be >= 1, got 0"),
                          ((6, 2.0, 3), "H must be an int, got 2.0")):
        with pytest.raises(ValueError, match=message):
            aot.repeated_token_rank_bound(*args)


def test_saturation_search_sizes_need_a_positive_paper_size():
    assert saturation_search_sizes(100) == [60, 70, 80, 90, 100, 110]
    assert min(saturation_search_sizes(1)) == 1
    for bad in (0, -5):
        with pytest.raises(ValueError, match=f"paper_size must be >= 1, got {bad}"):
            saturation_search_sizes(bad)


def test_kruskal_test_checks_its_chunk():
    vectors = torch.randn(8, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    whole = kruskal_test(vectors, 3, repeats=5, seed=2)
    assert kruskal_test(vectors, 3, repeats=5, seed=2, chunk=2) == whole  # chunks: same draws
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="chunk must be an int >= 1"):
            kruskal_test(vectors, 3, repeats=5, chunk=bad)
