"""Kajitsuka & Sato (ICLR 2025) construction as explicit residual Transformer blocks (exact)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memnb.constructions.seq_id import memorize
from memnb.constructions.seq_id.relu_program import ReLUProgram
from memnb.constructions.seq_id.transformer import FeedForwardBlock, SelfAttentionBlock
from memnb.data.random_sequences import token_vectors
from memnb.papers import kajitsuka as paper

SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def datasets(draw, real: bool = False):
    """Small consistent datasets: repeated tokens (small vocabulary), shared prefixes, N = 1."""
    N = draw(st.integers(1, 10))
    n = draw(st.integers(1, 5))
    V = draw(st.integers(1, 6))
    C = draw(st.integers(1, 4))
    task = draw(st.sampled_from(["next_token", "seq2seq"]))
    positional = draw(st.booleans())
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    tokens = rng.integers(0, V, size=(N, n))
    prefix = draw(st.integers(0, n))
    tokens[:, :prefix] = tokens[0, :prefix]           # sequences sharing a prefix
    # labels a function of what the model can see, so the data is consistent by construction
    table: dict = {}
    labels = np.zeros((N, n) if task == "seq2seq" else N, dtype=np.int64)
    for i, row in enumerate(tokens.tolist()):
        content = tuple(row) if positional else tuple(sorted(row))
        for k in (range(n) if task == "seq2seq" else [n - 1]):
            key = (content, k if positional else -1, row[k])
            y = table.setdefault(key, int(rng.integers(0, C)))
            if task == "seq2seq":
                labels[i, k] = y
            else:
                labels[i] = y
    X = token_vectors(V, 3, seed=seed)[tokens] if real else tokens
    return X, labels, C, task, positional, seed


def _layer_outputs(program: ReLUProgram, inputs: dict[str, np.ndarray]) -> list[dict]:
    """The ReLU network's channels after each layer, computed independently (exact)."""
    values = [np.asarray(inputs[m], dtype=object) for m in program.input_names]
    out = []
    for layer in program.layers:
        new = []
        for bias, row in zip(layer.biases, layer.rows, strict=True):
            acc = np.full(len(values[0]), bias, dtype=object)
            for i, w in row:
                acc = acc + w * values[i]
            new.append(np.where(acc > 0, acc, 0).astype(object))
        values = new
        out.append(dict(zip(layer.out_names, values, strict=True)))
    return out


def _is_exact(values: np.ndarray) -> bool:
    return all(isinstance(v, int | Fraction) and not isinstance(v, bool) for v in values.ravel())


@SETTINGS
@given(data=datasets())
def test_transformer_predicts_labels_and_matches_the_network(data):
    X, labels, C, task, positional, seed = data
    n = X.shape[1]
    net = memorize(X, labels, num_classes=C, task=task, positional=positional, seed=seed)
    T = net.transformer()
    # (a) exact labels, the same as the ReLU-network form
    assert np.array_equal(T.predict(X), labels)
    assert np.array_equal(T.predict(X), net.predict(X))
    # ... and on other inputs of the construction's domain (token IDs below 2^bits)
    other = np.random.default_rng(seed).integers(0, 2 ** net.info["token_id_bits"], size=(6, n))
    assert np.array_equal(T.predict(other), net.predict(other))
    # width counted the paper's way, beside Thm 4.1's 14
    assert T.width() == max(T.stream_width, T.attention_width, T.ffn_width)
    assert T.width() <= paper.THM41_WIDTH.value
    # (b) every intermediate equals the network's where both define it
    trace = T.trace(X)
    assert all(_is_exact(Z) for Z in trace)
    N, n = X.shape[:2]
    cols = np.arange(N * n)
    flat = net._inputs(X)
    ffn1 = _layer_outputs(net.token_program, flat)
    sa_at = next(i for i, b in enumerate(T.blocks) if isinstance(b, SelfAttentionBlock))
    for i, block in enumerate(T.blocks[:sa_at]):
        Z = trace[i + 1].transpose(1, 0, 2).reshape(T.stream_width, -1)   # [width, N n]
        assert block.layer == i
        for name, slot in block.channels.items():
            assert np.array_equal(Z[slot, cols], ffn1[i][name]), (i, name)
    # after the attention: the stream (w, h, s) of the network, zero elsewhere; the IDs
    after = trace[sa_at + 1]
    stream = net.stream_after_attention(X)                           # [N, n, 3]
    sa = T.blocks[sa_at]
    for c, name in enumerate(("w", "h", "s")):
        assert np.array_equal(after[:, sa.channels[name], :], stream[:, :, c])
    others = [r for r in range(T.stream_width) if r not in sa.channels.values()]
    assert not np.any(after[:, others, :])
    ids = after[:, sa.channels["s"], :] + net.info["id_multiplier"] * after[:, sa.channels["w"], :]
    ids = ids + 1
    assert np.array_equal(ids[:, -1] if task == "next_token" else ids, net.ids(X))
    ffn2 = _layer_outputs(net.memorizer, {"w": after[:, sa.channels["w"], :].reshape(-1),
                                          "s": after[:, sa.channels["s"], :].reshape(-1)})
    for j, block in enumerate(T.blocks[sa_at + 1:]):
        Z = trace[sa_at + 2 + j].transpose(1, 0, 2).reshape(T.stream_width, -1)
        for name, slot in block.channels.items():
            assert np.array_equal(Z[slot, cols], ffn2[j][name]), (j, name)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets(real=True))
def test_real_tokens_embedding_projects_so_width_is_independent_of_d(data):
    X, labels, C, task, positional, seed = data
    net = memorize(X, labels, num_classes=C, task=task, positional=positional, seed=seed)
    T = net.transformer()
    assert np.array_equal(T.predict(X), labels)
    assert T.embedding.E.shape == (T.stream_width, X.shape[2])
    assert _is_exact(T.embedding.E) and T.width() <= paper.THM41_WIDTH.value


@SETTINGS
@given(data=datasets())
def test_blocks_are_residual(data):
    """(c) Removing a block leaves only the skip connection, which changes the output: without the
    first FF block the hash is 0, without the attention ``s = 0``; either way no stored ID is
    reached and every prediction is 0. Without the last block the read-out row keeps its old
    value (zero) instead of the label."""
    X, labels, C, task, positional, seed = data
    net = memorize(X, labels, num_classes=C, task=task, positional=positional, seed=seed)
    T = net.transformer()
    sa_at = next(i for i, b in enumerate(T.blocks) if isinstance(b, SelfAttentionBlock))
    for index in (0, sa_at, T.depth - 1):
        cut = T.without_block(index)
        assert cut.depth == T.depth - 1
        if labels.any():
            assert not np.array_equal(cut.predict(X), labels), index
    for index in (0, sa_at):
        assert not T.without_block(index).predict(X).any()


def test_matrices_are_exact_and_the_attention_averages():
    tokens = np.array([[1, 2, 3], [3, 2, 1], [1, 1, 1], [1, 2, 2]])
    labels = np.array([1, 2, 0, 3])
    T = memorize(tokens, labels).transformer()
    for b in T.blocks:
        mats = ((b.W_1, b.b_1, b.W_2, b.b_2) if isinstance(b, FeedForwardBlock)
                else (b.W_Q, b.W_K, b.W_V, b.W_O))
        assert all(_is_exact(m) for m in mats)
    sa = next(b for b in T.blocks if isinstance(b, SelfAttentionBlock))
    assert (sa.heads, sa.head_size) == (1, 1) and not sa.W_Q.any() and not sa.W_K.any()
    scores = np.array([[0, 0], [0, 0]], dtype=object)
    assert sa.weights(scores).tolist() == [[Fraction(1, 2)] * 2] * 2
    # hardmax: ties share the weight; softmax refuses scores it cannot take exactly
    assert sa.weights(np.array([[2, 0], [2, 5]], dtype=object)).tolist() == \
        [[Fraction(1, 2), 0], [Fraction(1, 2), 1]]
    soft = memorize(tokens, labels).transformer(sigma="softmax")
    assert np.array_equal(soft.predict(tokens), labels)
    sa_soft = next(b for b in soft.blocks if isinstance(b, SelfAttentionBlock))
    with pytest.raises(ValueError, match="softmax"):
        sa_soft.weights(np.array([[1, 0], [0, 0]], dtype=object))
    table = T.block_table()
    assert table["parameters"].iloc[-1] == T.parameter_count()
    assert table["parameters"].iloc[:-1].sum() == T.parameter_count()
    assert 0 < T.parameter_count(nonzero=True) < T.parameter_count()


def test_bad_input_is_a_value_error_naming_the_parameter():
    tokens = np.array([[1, 2, 3], [3, 2, 0]])
    net = memorize(tokens, np.array([0, 1]))
    T = net.transformer()
    with pytest.raises(ValueError, match="sigma"):
        net.transformer(sigma="relu")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="sequences"):
        T.predict(np.array([[1, 2]]))
    with pytest.raises(ValueError, match="sequences"):
        T.predict(tokens.astype(float))
    with pytest.raises(ValueError, match="sequences"):
        T.predict(-tokens)
    with pytest.raises(ValueError, match="Z"):
        T.blocks[0](np.zeros((T.stream_width + 1, 3), dtype=object))
    with pytest.raises(ValueError, match="Z must hold exact numbers"):
        T.blocks[0](np.zeros((T.stream_width, 3)))       # floats are refused
    with pytest.raises(ValueError, match="index"):
        T.stream_after(tokens, T.depth)
    with pytest.raises(ValueError, match="no self-attention"):
        _ = T.without_block(T.attention_index).attention_index
    with pytest.raises(ValueError, match="index"):
        T.without_block(T.depth)
    real = memorize(token_vectors(4, 3)[tokens], np.array([0, 1])).transformer()
    with pytest.raises(ValueError, match="sequences"):
        real.predict(tokens)
