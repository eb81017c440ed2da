import math

import numpy as np
import pytest

from lib.activations import ACTIVATIONS
from lib.finite.geometry import gram
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
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
    # THEORY.md Sec. 3 erratum: K_bar = (L+1) G (not (L+1)^2 G) up to O(sqrt(L/m)) noise
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
