"""Bad input to the models and constructions gets a ValueError naming the parameter and its
allowed range (NumPy integers are integers), never a wrong answer or an error from deep inside."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from memnb.constructions import mha
from memnb.constructions.mha_checks import theory_dataset
from memnb.models.ffn_attention import FFNAttentionTransformer
from memnb.models.sequence_mlp import SequenceMLP


def test_the_sequence_mlp_refuses_tokens_outside_its_vocabulary():
    """A token of V read another position's row without complaint before."""
    model = SequenceMLP(3, 2, 2, 4)
    assert model(torch.tensor([[2, 0]])).shape == (1, 2)
    with pytest.raises(ValueError, match=r"tokens must lie in \[0, vocab_size=3\)"):
        model(torch.tensor([[3, 0]]))
    with pytest.raises(ValueError, match="tokens must be an integer tensor"):
        model(torch.tensor([[0.5, 0.0]]))


def test_the_ffn_attention_model_names_too_many_heads_for_its_width():
    with pytest.raises(ValueError, match="num_heads must be <= d = 2 when head_dim is not given"):
        FFNAttentionTransformer(4, 2, 3, 1, d=2, num_heads=4)


def test_the_attention_construction_checks_its_counts_and_tolerance():
    contexts, queries, labels = theory_dataset(3, 3, 6, seed=0)
    built = mha.construct(contexts, queries, labels, np.int64(2), np.int64(3))  # NumPy ints
    # T = 3 examples with n = 3 tokens: n' = min(n, d_h) = 3, so the first head fits all three;
    # the model has H = 2 heads of d_h = 3 on d = 6 and reproduces the labels
    assert built.n_prime == 3 and built.heads_examples == [[0, 1, 2]]
    assert tuple(built.model.W_K.shape) == (2, 6, 3)
    assert built.max_abs_error <= 1e-6  # the default tol
    with torch.no_grad():
        assert float((built.model(contexts, queries) - labels).abs().max()) <= 1e-6
    with pytest.raises(ValueError, match="tries must be >= 1, got 0"):
        mha.construct(contexts, queries, labels, 2, 3, tries=0)
    for tol in (-1.0, float("nan"), 0.0):
        with pytest.raises(ValueError, match="tol must be a finite number > 0"):
            mha.construct(contexts, queries, labels, 2, 3, tol=tol)
    with pytest.raises(ValueError, match="num_heads must be >= 1, got 0"):
        mha.random_weight_ranks(contexts, queries, 0, 2)
    with pytest.raises(ValueError, match="d_h must be >= 1, got 0"):
        mha.random_weight_ranks(contexts, queries, 1, 0)
    with pytest.raises(ValueError, match="width must be >= 1, got 0"):
        mha.relu_network_jacobian_rank(contexts, queries, 0)
    with pytest.raises(ValueError, match="T must be an int, got 2.0"):
        theory_dataset(2.0, 3, 6)


def test_the_sequence_id_construction_and_the_rank_checks_name_their_counts():
    """``max_attempts`` = 0 used to end in "no hash base … in 0 attempts", and a negative
    ``train_steps`` was read as 0."""
    from memnb.constructions.mha_checks import rank_bound_checks
    from memnb.constructions.seq_id import memorize

    tokens, labels = np.array([[1, 2], [2, 3]]), np.array([0, 1])
    assert np.array_equal(memorize(tokens, labels, max_attempts=np.int64(1)).predict(tokens),
                          labels)
    with pytest.raises(ValueError, match="max_attempts must be >= 1, got 0"):
        memorize(tokens, labels, max_attempts=0)
    with pytest.raises(ValueError, match="train_steps must be >= 0, got -1"):
        rank_bound_checks(heads=2, n=3, d=4, d_h=2, T=5, draws=1, train_steps=-1)
