import math

import numpy as np
import pytest

from lib.activations import ACTIVATIONS
from lib.finite.geometry import gram
from lib.finite.mlp import MLP
from lib.finite.ntk import (SHARED_MAX_N, bias_ntk, empirical_ntk, gram_upper, layer_factors, ntk_from_factors,
                            ntk_with_layer_terms, relu_depth_kernels)
from lib.validation import InputError, InputTypeError
from lib.finite.reference import jacobian_ntk
from lib.spectra import angle_matrix


def rel(a, b):
    return np.abs(a - b).max() / np.abs(b).max()


@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
@pytest.mark.parametrize("depth", [0, 1, 3])
def test_matches_jacobian_contraction(activation, depth, rng):
    X = rng.standard_normal((9, 4))
    net = MLP(4, 24, depth, activation, seed=depth)
    for layers in (None, "first", "last"):
        assert rel(empirical_ntk(net, X, layers=layers), jacobian_ntk(net, X, layers=layers)) < 1e-10


def test_blocks_chunks_and_multi_output_match_reference(rng):
    X = rng.standard_normal((23, 3))
    net = MLP(3, 16, 2, "gelu", out_dim=3)
    K = empirical_ntk(net, X, block_size=5, chunk_size=4)
    assert K.shape == (69, 69)
    assert rel(K, jacobian_ntk(net, X)) < 1e-10
    net1 = MLP(3, 16, 3, "relu")
    assert rel(empirical_ntk(net1, X, layers=[2, 4], block_size=6), jacobian_ntk(net1, X, layers=[2, 4])) < 1e-10


@pytest.mark.parametrize("depth,out_dim", [(0, 1), (2, 1), (3, 2)])
def test_layer_terms_are_the_single_layer_kernels(depth, out_dim, rng):
    X = rng.standard_normal((11, 3))
    net = MLP(3, 16, depth, "gelu", seed=3, out_dim=out_dim)
    K, T = ntk_with_layer_terms(net, X, terms=range(1, depth + 2), block_size=4)
    assert np.array_equal(K, empirical_ntk(net, X, block_size=4))
    assert sorted(T) == list(range(1, depth + 2))
    for l, Kl in T.items():
        assert Kl.dtype == np.float64
        assert rel(Kl, empirical_ntk(net, X, layers=[l])) < 1e-13
    assert rel(sum(T.values()), K) < 1e-13
    K2, T2 = ntk_with_layer_terms(net, X, terms=(), layers="first")
    assert T2 == {} and np.array_equal(K2, empirical_ntk(net, X, layers="first"))
    A, D = layer_factors(net, X)
    assert np.array_equal(ntk_from_factors(A, D, layers="last", block_size=5), empirical_ntk(net, X, layers="last", block_size=5))
    with pytest.raises(ValueError, match="layer indices must lie"):
        ntk_with_layer_terms(net, X, terms=[depth + 2])


def test_bias_ntk_is_the_kernel_of_the_biases(rng):
    # f = W3 a2 + beta b3, a_l = s(W_l a_{l-1} + beta b_l): d f / d b_l = beta delta_l, d f / d b3 = beta
    X = rng.standard_normal((7, 3))
    net = MLP(3, 12, 2, "tanh", seed=4)
    A, D = layer_factors(net, X)
    Kb = bias_ntk(A, D, 0.5)
    ref = 0.25 * (sum((d @ d.T).numpy() for d in D[0]) + 1.0)
    np.testing.assert_allclose(Kb, ref, rtol=1e-14)
    A0, D0 = layer_factors(MLP(3, 12, 0), X)
    np.testing.assert_array_equal(bias_ntk(A0, D0, 2.0), np.full((7, 7), 4.0))
    A2, D2 = layer_factors(MLP(3, 12, 1, out_dim=2), X)
    with pytest.raises(ValueError, match="scalar-output"):
        bias_ntk(A2, D2, 1.0)


def test_bottleneck_widths(rng):
    X = rng.standard_normal((6, 3))
    net = MLP(3, [32, 4, 32], activation="relu")
    assert rel(empirical_ntk(net, X), jacobian_ntk(net, X)) < 1e-10


def test_relu_gradient_norm_at_large_width(rng):
    # [LH] Lemma 3.1: ||grad f(x)||^2 = (L+1)||x||^2 at infinite width. Each layer's term is an
    # average over m neurons, so the ratio fluctuates by O(sqrt(L/m)); with m=4096, L=4 that is
    # ~0.03, and 0.15 is five standard deviations.
    X = rng.standard_normal((5, 6))
    L = 4
    ratios = [np.diag(empirical_ntk(MLP(6, 4096, L, seed=s), X)) / (np.sum(X ** 2, 1) * (L + 1)) for s in range(3)]
    assert np.abs(np.mean(ratios, axis=0) - 1).max() < 0.15


def test_relu_gradient_angle_at_large_width_matches_two_layer_formula(rng):
    # One hidden ReLU layer: cos phi = (cos t + cos t * (1 - t/pi) + ...) from [LH] Eq. (7) with L = 1:
    # cos phi = 1/2 [cos theta^(0) (1 - theta^(0)/pi) + cos theta^(1)], theta^(1) = g(theta^(0)).
    t = 0.7
    x = np.array([1.0, 0.0]); z = np.array([math.cos(t), math.sin(t)])
    g = math.acos(((math.pi - t) * math.cos(t) + math.sin(t)) / math.pi)
    cos_phi = 0.5 * (math.cos(t) * (1 - t / math.pi) + math.cos(g))
    phis = [angle_matrix(empirical_ntk(MLP(2, 8192, 1, seed=s), np.stack([x, z])))[0, 1] for s in range(4)]
    # angle noise ~ 1/sqrt(m) ~ 0.011 rad per seed; the mean of 4 seeds is within 0.03 rad at ~5 sigma
    assert abs(np.mean(phis) - math.acos(cos_phi)) < 0.03


def test_linear_network_kernel_is_depth_plus_one_times_gram(rng):
    # erratum to [LH] Thm 2.3 (book/formulas.md): K_bar = (L+1) G (not (L+1)^2 G) up to O(sqrt(L/m)) noise
    X = rng.standard_normal((6, 8))
    G = gram(X)
    L = 3
    K = np.mean([empirical_ntk(MLP(8, 4096, L, "linear", seed=s), X) for s in range(3)], axis=0)
    assert np.linalg.norm(K / (L + 1) - G) / np.linalg.norm(G) < 0.1
    assert np.linalg.norm(K / (L + 1) ** 2 - G) / np.linalg.norm(G) > 0.5


def test_bad_inputs():
    net = MLP(3, 8, 2)
    with pytest.raises(ValueError, match="NaN or inf"):
        empirical_ntk(net, np.array([[np.inf, 0, 0]]))
    with pytest.raises(ValueError, match="layer indices must lie in 1..3"):
        empirical_ntk(net, np.ones((2, 3)), layers=[0])
    with pytest.raises(ValueError, match="layers must be"):
        empirical_ntk(net, np.ones((2, 3)), layers="middle")
    with pytest.raises(TypeError, match="lib.finite.mlp.MLP"):
        empirical_ntk(object(), np.ones((2, 3)))


# ---- bad input: never a silently wrong kernel ------------------------------------------------

def _bad_input_case():
    import torch  # noqa: F401
    X = np.random.default_rng(0).standard_normal((6, 5))
    return MLP(5, 8, 2), X


def test_kernels_that_overflow_or_underflow_are_refused_and_ordinary_inputs_are_not():
    from lib.validation import InputError
    model, X = _bad_input_case()
    assert np.isfinite(empirical_ntk(model, X)).all()  # counterfactual: the same net, ordinary inputs
    with pytest.raises(InputError, match=r"NaN or inf entries: the computation overflowed.*max \|x\| = 2.3\de\+200"):
        empirical_ntk(model, X * 1e200)
    with pytest.raises(InputError, match="lost to underflow"):
        empirical_ntk(model, X * 1e-160)


def test_non_finite_or_float16_weights_are_refused():
    import torch

    from lib.validation import InputError
    model, X = _bad_input_case()
    with torch.no_grad():
        model.weights[1][0, 0] = float("nan")
    with pytest.raises(InputError, match=r"W\^\(2\) has 1 NaN or inf entries"):
        empirical_ntk(model, X)
    with pytest.raises(InputError, match=r"W\^\(1\).*half\(\)"):
        empirical_ntk(MLP(5, 8, 2).half(), X)


@pytest.mark.parametrize("kw,match", [(dict(layers=[1.7]), "layer indices must be integers"),
                                      (dict(layers=[True]), "layer indices must be integers"),
                                      (dict(block_size=None), "block_size must be a positive integer"),
                                      (dict(chunk_size="4"), "chunk_size must be a positive integer"),
                                      (dict(block_size=0), "block_size must be a positive integer")])
def test_arguments_of_the_wrong_type_get_one_message(kw, match):
    from lib.validation import InputError
    model, X = _bad_input_case()
    with pytest.raises(InputError, match=match):
        empirical_ntk(model, X, **kw)
    np.testing.assert_array_equal(empirical_ntk(model, X, layers=[np.int64(1)]), empirical_ntk(model, X, layers=[1]))


def test_shared_depth_kernels_equal_per_depth_kernels():
    X = np.random.default_rng(3).standard_normal((25, 6))
    for L, K, K1, secs in relu_depth_kernels(X, 48, [0, 1, 4], seed=5, first_layer=True):
        net = MLP(6, 48, L, seed=5)
        if L == 0:
            np.testing.assert_allclose(K, X @ X.T, rtol=1e-13)
            assert K1 is None
            continue
        Kr, T = ntk_with_layer_terms(net, X, terms=(1,))
        assert np.max(np.abs(K - Kr)) <= 1e-12 * np.abs(Kr).max() and np.allclose(K, K.T, rtol=0, atol=0)
        assert np.max(np.abs(K1 - T[1])) <= 1e-12 * np.abs(T[1]).max() and secs >= 0


def test_batch_kernels_draw_the_networks_once_and_equal_each_batchs_own(monkeypatch):
    """relu_depth_batch_kernels: the kernels of each batch, bit for bit those of relu_depth_kernels on its rows,
    with the networks drawn once for all batches (not once per batch)."""
    import lib.finite.ntk as ntk_module
    X = np.random.default_rng(4).standard_normal((30, 5))
    batches = [np.arange(0, 30, 3), np.arange(1, 30, 3), np.array([2, 5])]
    drawn = []
    real = ntk_module.MLP
    monkeypatch.setattr(ntk_module, "MLP", lambda *a, **k: drawn.append(a) or real(*a, **k))
    out = list(ntk_module.relu_depth_batch_kernels(X, batches, 16, [0, 2, 3], seed=7))
    assert len(drawn) == 3  # the deepest network and one per depth >= 1, once
    assert [i for i, _ in out] == [0, 1, 2]
    for (i, kernels), b in zip(out, batches):
        for (L, K, K1, secs), (L2, K2, _, _) in zip(kernels, relu_depth_kernels(X[b], 16, [0, 2, 3], seed=7)):
            assert L == L2 and K1 is None and secs >= 0
            np.testing.assert_array_equal(K, K2)


def test_gram_upper_is_the_upper_triangle_of_a_gram_matrix(rng):
    A = rng.standard_normal((7, 4))
    U = gram_upper(A)
    np.testing.assert_allclose(np.triu(U), np.triu(A @ A.T), rtol=1e-13)
    assert np.all(np.tril(U, -1) == 0)


def test_relu_depth_kernels_refuses_more_samples_than_it_can_hold():
    X = np.zeros((SHARED_MAX_N + 1, 2))
    with pytest.raises(InputError, match="Gram matrices"):
        next(relu_depth_kernels(X, 4, [0, 1], seed=0))


@pytest.mark.parametrize("depth", [0, 1, 3])
def test_linear_features_factor_the_linear_network_kernel(depth, rng):
    """[LH] Cor 2.4: a linear network's NTK is x^T Q y, Q = K(I_d, I_d), at any width and depth."""
    from lib.finite.ntk import linear_features, linear_gram
    net = MLP(5, 16, depth, activation="linear", seed=3)
    X = rng.standard_normal((7, 5))
    F = linear_features(net, X)
    assert F.shape == (7, 5)
    assert rel(F @ F.T, empirical_ntk(net, X)) < 1e-12
    Q = linear_gram(net)
    np.testing.assert_array_equal(Q, Q.T)
    assert rel(X @ Q @ X.T, empirical_ntk(net, X)) < 1e-12


def test_linear_features_refuse_what_has_no_linear_kernel():
    from lib.finite.ntk import linear_features, linear_gram
    with pytest.raises(InputError, match="needs a linear network"):
        linear_gram(MLP(5, 8, 2, activation="relu"))
    with pytest.raises(InputError, match="scalar-output"):
        linear_gram(MLP(5, 8, 2, activation="linear", out_dim=2))
    with pytest.raises(InputTypeError, match="needs a lib.finite.mlp.MLP"):
        linear_gram("net")
    with pytest.raises(InputError, match="X"):
        linear_features(MLP(5, 8, 1, activation="linear"), np.ones((3, 4)))
