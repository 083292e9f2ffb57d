"""The Kajitsuka & Sato (ICLR 2025) construction: exact memorization, distinct IDs, sizes."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from memnb.bounds import (
    kajitsuka_construction_parameter_model,
    kajitsuka_information_floor_bits,
    kajitsuka_lower_bound,
    kim_parameter_count,
)
from memnb.constructions.seq_id import memorize
from memnb.constructions.seq_id.hashing import (
    TokenHash,
    build_token_program,
    distinct_sum_ids,
    is_prime,
    next_prime,
)
from memnb.constructions.seq_id.memorizer import add_memorizer
from memnb.constructions.seq_id.relu_program import ReLUProgramBuilder, bit_pair_exprs, var
from memnb.constructions.seq_id.scaling import construction_sizes, fit_power_law
from memnb.data.random_sequences import random_sequences, token_vectors

SETTINGS = settings(max_examples=12, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _consistent(tokens: np.ndarray, labels: np.ndarray, positional: bool) -> bool:
    """Independent check: equal (multiset, last token) -> equal label (next-token)."""
    seen: dict = {}
    for row, y in zip(tokens.tolist(), labels.tolist(), strict=True):
        key = (tuple(row) if positional else tuple(sorted(row)), row[-1])
        if seen.setdefault(key, y) != y:
            return False
    return True


@SETTINGS
@given(N=st.integers(1, 40), n=st.integers(1, 6), V=st.integers(2, 30), C=st.integers(1, 6),
       positional=st.booleans(), seed=st.integers(0, 2**16))
def test_memorizes_random_integer_sequences(N, n, V, C, positional, seed):
    rng = np.random.default_rng(seed)
    tokens = rng.integers(0, V, size=(N, n))
    labels = rng.integers(0, C, size=N)
    if not _consistent(tokens, labels, positional):
        with pytest.raises(ValueError, match="inconsistent"):
            memorize(tokens, labels, positional=positional, seed=seed)
        return
    net = memorize(tokens, labels, num_classes=C, positional=positional, seed=seed)
    assert np.array_equal(net.predict(tokens), labels)
    # distinct read-out keys get distinct IDs
    keys = {(tuple(r) if positional else tuple(sorted(r)), r[-1]) for r in tokens.tolist()}
    assert len(set(net.ids(tokens).tolist())) == len(keys)


@SETTINGS
@given(N=st.integers(1, 12), n=st.integers(1, 4), d=st.integers(1, 3), V=st.integers(2, 8),
       C=st.integers(2, 4), seed=st.integers(0, 2**16))
def test_memorizes_real_token_vectors(N, n, d, V, C, seed):
    rng = np.random.default_rng(seed)
    vocab = token_vectors(V, d, seed=seed)
    assume(len(np.unique(vocab, axis=0)) == V)  # distinct token vectors
    tokens = rng.integers(0, V, size=(N, n))
    labels = rng.integers(0, C, size=N)
    assume(_consistent(tokens, labels, True))  # their refusal: tested above on integers
    net = memorize(vocab[tokens], labels, positional=True, seed=seed)
    assert np.array_equal(net.predict(vocab[tokens]), labels)
    assert net.quantizer is not None


@SETTINGS
@given(N=st.integers(1, 15), n=st.integers(1, 5), C=st.integers(1, 5), seed=st.integers(0, 999))
def test_seq2seq_memorizes_every_token(N, n, C, seed):
    assume(40**n >= N)  # enough distinct sequences of n tokens of 40
    data = random_sequences(N, n, 40, C, seed=seed, seq2seq=True)
    net = memorize(data.tokens, data.labels, task="seq2seq", positional=True, seed=seed)
    out = net.predict(data.tokens)
    assert out.shape == (N, n)
    assert np.array_equal(out, data.labels)


def test_ids_distinct_and_equal_under_hardmax_and_softmax():
    data = random_sequences(150, 6, 20, 3, seed=4)
    net = memorize(data.tokens, data.labels, seed=1)
    hard = net.ids(data.tokens, attention="hardmax")
    soft = net.ids(data.tokens, attention="softmax")
    assert len(set(hard.tolist())) == 150
    assert np.array_equal(hard, soft)
    stream = np.zeros((2, 6, 3), dtype=object)
    for kind in ("hardmax", "softmax"):
        weights = net.attention.weights(stream, kind)
        assert all(w == Fraction(1, 6) for w in weights.ravel())
    # the attention output is the sum of the token hashes
    w, h = net.token_features(data.tokens)
    assert all(hx == net.hash(wx) for hx, wx in zip(h.ravel(), w.ravel(), strict=True))


def test_permutation_equivariance_needs_consistency():
    tokens = np.array([[1, 2, 3], [2, 1, 3], [3, 2, 1]])
    with pytest.raises(ValueError, match="multiset"):
        memorize(tokens, np.array([0, 1, 0]))
    net = memorize(tokens, np.array([0, 1, 0]), positional=True)
    assert np.array_equal(net.predict(tokens), [0, 1, 0])
    # same multiset and last token, same label: memorizable without positions
    net = memorize(tokens, np.array([1, 1, 0]))
    assert np.array_equal(net.predict(tokens), [1, 1, 0])


def test_identical_sequences_with_different_labels_is_an_error():
    tokens = np.array([[5, 6, 7], [1, 2, 3], [5, 6, 7]])
    with pytest.raises(ValueError, match="identical"):
        memorize(tokens, np.array([0, 1, 2]), positional=True)
    with pytest.raises(ValueError, match="labels must"):
        memorize(tokens[:2], np.array([0, 3]), num_classes=2)
    with pytest.raises(ValueError, match="task"):
        memorize(tokens[:2], np.array([0, 1]), task="bogus")


def test_sizes_and_float64_failure():
    data = random_sequences(300, 8, 500, 4, seed=0)
    net = memorize(data.tokens, data.labels, positional=True)
    assert net.width <= 10
    assert net.depth == net.token_program.depth + 1 + net.memorizer.depth
    assert net.num_parameters == sum(p["num_parameters"] for p in net.parts.values())
    assert net.max_weight_bits > 53
    assert net.layout.depth == net.memorizer.depth
    exact = net.predict(data.tokens)
    assert np.array_equal(exact, data.labels)
    floating = net.predict(data.tokens, arithmetic="float64")
    assert not np.array_equal(floating, data.labels)
    assert net.total_weight_bits() > kajitsuka_information_floor_bits(300, 4)


def test_parameter_scaling_is_sqrt_like_and_matches_the_model():
    sizes = [construction_sizes(N, 8) for N in (300, 1200, 4800)]
    e_ffn2, _ = fit_power_law([s["N"] for s in sizes], [s["ffn2_parameters"] for s in sizes])
    e_all, _ = fit_power_law([s["N"] for s in sizes], [s["num_parameters"] for s in sizes])
    assert 0.35 < e_ffn2 < 0.65
    assert e_all < 0.6
    for s in sizes:
        model = kajitsuka_construction_parameter_model(s["N"], 8, 2, 1000)
        assert abs(model / s["num_parameters"] - 1) < 0.05
    # nearly flat in n for next-token, ~sqrt(n) for seq2seq
    short, long = construction_sizes(500, 4), construction_sizes(500, 32)
    assert long["num_parameters"] < 1.5 * short["num_parameters"]
    s_short = construction_sizes(300, 2, task="seq2seq")
    s_long = construction_sizes(300, 32, task="seq2seq")
    assert s_long["ffn2_parameters"] > 2.5 * s_short["ffn2_parameters"]
    assert kajitsuka_lower_bound(400) == 20.0
    assert kajitsuka_lower_bound(100, 4, task="seq2seq") == 20.0
    assert kim_parameter_count(100, 4, 3) == 3 + 4 + 20


def test_nonlinear_hash_is_needed():
    assert distinct_sum_ids(np.array([[1, 4], [2, 3]]), kind="linear") == 1
    data = random_sequences(300, 8, 20, 2, seed=0)
    assert distinct_sum_ids(data.tokens, kind="power") == 300
    assert distinct_sum_ids(data.tokens, kind="linear") < 300


def test_token_program_computes_modular_powers():
    hash_ = TokenHash(next_prime(1000), 17)
    prog = build_token_program(hash_=hash_, w_bits=6, seq_len=1, positional=False, z_bits=6)
    z = np.arange(64, dtype=object)
    out = prog.run({"z": z})
    assert list(out["w"]) == list(range(64))
    assert list(out["h"]) == [pow(17, int(v), hash_.p) for v in range(64)]


def test_memorizer_alone_and_bit_step():
    rng = np.random.default_rng(3)
    ids = [int(v) for v in rng.choice(10**9, size=70, replace=False) + 1]
    labels = [int(v) for v in rng.integers(0, 7, size=70)]
    b = ReLUProgramBuilder(["u"])
    lay = add_memorizer(b, var("u"), ids, labels, 7)
    prog = b.build()
    assert prog.depth == lay.depth
    stranger = max(ids) + 1  # not one of the IDs: the memorizer outputs 0
    out = prog.run({"u": np.array([*ids, stranger], dtype=object)})["y"]
    assert list(out[:70]) == labels and out[70] == 0
    b = ReLUProgramBuilder(["x"])
    b.layer(bit_pair_exprs("x", 5, pair=("a", "b")))
    b.layer({"bit": {"a": 1, "b": -1}})
    step = b.build().run({"x": np.arange(10, dtype=object)})["bit"]
    assert list(step) == [0] * 5 + [1] * 5
    with pytest.raises(ValueError, match="distinct"):
        add_memorizer(ReLUProgramBuilder(["u"]), var("u"), [1, 1], [0, 1], 2)


def test_primes():
    assert [v for v in range(30) if is_prime(v)] == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
    assert next_prime(2**31) == 2**31 + 11
    assert not is_prime(3215031751)  # strong pseudoprime to bases 2, 3, 5, 7


def test_affine_hash_sum_modulo_p_is_the_plain_sum():
    from memnb.constructions.seq_id.hashing import distinct_sum_ids

    tokens = random_sequences(400, 8, 30, 2, seed=5).tokens
    linear = distinct_sum_ids(tokens, kind="linear")
    assert distinct_sum_ids(tokens, kind="affine", reduce_sum=True) == linear
    assert distinct_sum_ids(tokens, kind="affine") >= linear
    assert distinct_sum_ids(tokens, kind="power") == 400


def test_float64_report_finds_the_first_inexact_layer():
    from memnb.constructions.seq_id.precision import first_float64_failure, float64_report
    from memnb.constructions.seq_id.relu_program import ReLUProgramBuilder, var

    data = random_sequences(120, 6, 60, 3, seed=4)
    net = memorize(data.tokens, data.labels, seed=4)
    report = float64_report(net, data.tokens)
    assert report["prime_squared_bits"] == (net.hash.p ** 2).bit_length()
    for part in ("ffn1", "ffn2"):
        if not report[f"{part}_exact"]:
            assert report[f"{part}_max_product_bits"] > 53
    # a small program is exact in float64; one with a 60-bit weight is not
    b = ReLUProgramBuilder(["u"])
    b.layer({"v": var("u", 3)})
    small = b.build()
    assert first_float64_failure(small, {"u": np.array([1, 2], dtype=object)}).exact
    b = ReLUProgramBuilder(["u"])
    b.layer({"v": var("u", 2**60 + 1)})
    big = first_float64_failure(b.build(), {"u": np.array([1], dtype=object)})
    assert big.layer == 0 and big.max_weight_bits == 61


def test_the_attention_counts_its_nonzero_weights_and_their_bits_as_the_relu_layers_do():
    """The averaging head has two non-zero weights, ``n`` in ``W_V`` and ``1`` in ``W_O`` (no
    fixed count), and its bits are counted like the ReLU layers' (bit length plus a sign bit),
    so the network's totals are the sums of their parts; the compiled Transformer's attention
    block holds the same two."""
    from memnb.constructions.seq_id.relu_program import bits
    from memnb.constructions.seq_id.transformer import SelfAttentionBlock

    for n in (3, 8, 256):
        tokens = np.arange(2 * n).reshape(2, n) % 5 + np.array([[0], [1]])
        net = memorize(tokens, np.array([0, 1]))
        attention = net.parts["attention"]
        assert attention["nonzero_parameters"] == 2
        assert net.attention.total_weight_bits() == (bits(n) + 1) + (1 + 1)
        assert net.total_weight_bits() == (net.token_program.total_weight_bits()
                                           + net.memorizer.total_weight_bits()
                                           + net.attention.total_weight_bits())
        assert net.nonzero_parameters == sum(p["nonzero_parameters"]
                                             for p in net.parts.values())
        [block] = [b for b in net.transformer().blocks if isinstance(b, SelfAttentionBlock)]
        assert block.nonzero_parameters == attention["nonzero_parameters"]
