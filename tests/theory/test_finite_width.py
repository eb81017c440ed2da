"""Infinite-width theory vs finite-width networks (lib.finite.mlp.MLP + lib.finite.ntk.empirical_ntk), averaged over seeds.

Tolerance. Each NTK entry of a width-m network is a sum over layers of averages over m neurons, so it
fluctuates from seed to seed with a standard deviation sigma = O(sqrt(L/m)) relative to the diagonal
scale (Hanin & Nica 2019), and its expectation differs from the limit by a bias O(L/m). With S seeds we
estimate sigma by the sample standard deviation s and require, entrywise,

    |mean_S(K_m) - K_inf| <= 5 s / sqrt(S) + 5 L / m      (in units of sqrt(K_ii K_jj)).

Five standard errors with S >= 8 seeds keep the chance of a false alarm per entry below ~1e-3 (Student t);
the seeds are fixed, so the test is deterministic. A wrong c_s, a missing layer or the (L+1)^2 of the
erratum shift entries by O(1) relative, 10-100 times the tolerance.
"""
import numpy as np
import pytest
import torch

import lib.theory as T
from lib.finite.mlp import MLP
from lib.spectra import cosine_matrix
from lib.finite.ntk import empirical_ntk


def _data(unit: bool, n: int = 5, d: int = 4, seed: int = 11):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[1] = X[0] + 0.1 * rng.normal(size=d)               # a similar pair
    if unit:
        X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X


def _seed_stats(X, L, m, S, activation, layers=None):
    Ks = np.array([empirical_ntk(MLP(X.shape[1], m, L, activation, seed=s), X, layers=layers) for s in range(S)])
    return Ks.mean(axis=0), Ks.std(axis=0, ddof=1)


def _check(Kinf, mean, std, S, L, m):
    scale = np.sqrt(np.outer(np.diag(Kinf), np.diag(Kinf)))
    tol = 5 * std / np.sqrt(S) + 5 * L / m * scale
    err = np.abs(mean - Kinf)
    assert np.all(err <= tol), f"max err/tol = {(err / tol).max():.2f}"
    return (err / scale).max()


@pytest.mark.parametrize("L,m,S", [(1, 50_000, 8), (3, 1024, 12)])
def test_relu_ntk_matches_finite_width(L, m, S):
    X = _data(unit=False)
    mean, std = _seed_stats(X, L, m, S, "relu")
    _check(T.relu_ntk(X, L), mean, std, S, L, m)
    _check(T.ntk(X, L, "relu", method="quadrature"), mean, std, S, L, m)
    mean, std = _seed_stats(X, L, m, S, "relu", layers="first")
    _check(T.relu_first_layer_ntk(X, L), mean, std, S, L, m)        # [LH] Thm 4.2 kernel


def test_erratum_gradient_norm_is_L_plus_one_not_squared():
    """[LH] erratum (book/formulas.md): ||grad f(x)||^2 = (L+1)||x||^2 and K_bar = (L+1) G, not (L+1)^2 G ([LH] Thm 2.3, Lemma 3.1)."""
    X = _data(unit=False)
    L, m, S = 3, 512, 8
    G = X @ X.T
    for act, Kinf in (("linear", (L + 1) * G), ("relu", T.relu_ntk(X, L))):
        mean, std = _seed_stats(X, L, m, S, act)
        _check(Kinf, mean, std, S, L, m)
        diag = np.diag(mean) / np.sum(X ** 2, axis=1)
        assert np.all(np.abs(diag / (L + 1) - 1) < 0.15)
        assert np.all(np.abs(diag / (L + 1) ** 2 - 1) > 0.5)          # the paper's (L+1)^2 is far off
    assert np.allclose(T.ntk(X, L, "linear"), (L + 1) * G, rtol=1e-13)


@pytest.mark.parametrize("activation", ["tanh", "gelu", "relu2", "normrelu", "norm_tanh"])
def test_general_activation_depth_one(activation):
    X = _data(unit=True)
    L, m, S = 1, 50_000, 8
    mean, std = _seed_stats(X, L, m, S, activation)
    _check(T.ntk(X, L, activation), mean, std, S, L, m)


@pytest.mark.parametrize("activation", ["tanh", "normrelu"])
def test_general_activation_depth_two(activation):
    X = _data(unit=True)
    L, m, S = 2, 1024, 12
    mean, std = _seed_stats(X, L, m, S, activation)
    _check(T.ntk(X, L, activation), mean, std, S, L, m)
    if activation == "tanh":
        mean, std = _seed_stats(X, L, m, S, activation, layers="first")
        _check(T.first_layer_ntk(X, L, activation), mean, std, S, L, m)


def test_initialization_scale_app_b():
    """[LH] App. B: multiplying all weights of a bias-free ReLU net by a common factor scales
    every gradient block by the same power, so the NTK cosines are unchanged (exactly, same seed); scaling only
    W^(1) by a reweights the blocks as w = (1, a^2, ..., a^2) and moves phi as relu_gradient_angle_weighted says."""
    X = _data(unit=True, n=4, d=3)
    L, m, S, a = 1, 100_000, 6, 3.0  # L = 1: no m x m matrix, so m can be large
    th = T.input_angles(X)
    base = MLP(3, 256, L, "relu", seed=0)
    C0 = cosine_matrix(empirical_ntk(base, X))
    with torch.no_grad():
        for W in base.weights:
            W.mul_(2.5)
    assert np.allclose(cosine_matrix(empirical_ntk(base, X)), C0, atol=1e-13)
    Cs = []
    for s in range(S):
        net = MLP(3, m, L, "relu", seed=s)
        with torch.no_grad():
            net.weights[0].mul_(a)
        Cs.append(cosine_matrix(empirical_ntk(net, X)))
    Cs = np.array(Cs)
    pred = np.cos(T.relu_gradient_angle_weighted(th, L, [1.0] + [a * a] * L))
    unweighted = np.cos(T.relu_gradient_angle(th, L))
    tol = 5 * Cs.std(axis=0, ddof=1) / np.sqrt(S) + 5 * L / m
    assert np.all(np.abs(Cs.mean(axis=0) - pred) <= tol)
    off = ~np.eye(4, dtype=bool)
    assert np.all(np.abs(pred - unweighted)[off] > 3 * tol[off])   # the reweighting is visible
