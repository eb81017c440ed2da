"""Chapter 02 support: pairs at prescribed angles, App. B variants, separation measurements."""
import math

import numpy as np
import pytest
import torch

from lib.chapters import better_separation as S
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.data.pairs import angle_pairs, pair_angles, pair_cosines
from lib.finite.ntk import pair_gradient_angles
from lib.finite.variants import VariantMLP, layer_weights, relu_weighted_gradient_angle
from lib import theory


def _kahan_angle(x, z):
    nx, nz = np.linalg.norm(x), np.linalg.norm(z)
    return 2 * math.atan2(np.linalg.norm(x * nz - z * nx), np.linalg.norm(x * nz + z * nx))


def _jacobian_ntk(model, X):
    """Independent reference: per-sample autograd gradients over every parameter (weights and biases)."""
    rows = []
    for x in torch.as_tensor(X, dtype=torch.float64):
        grads = torch.autograd.grad(model(x[None])[0], list(model.parameters()))
        rows.append(torch.cat([g.reshape(-1) for g in grads]))
    F = torch.stack(rows)
    return (F @ F.T).numpy()


# ---------------------------------------------------------------- pairs

def test_angle_pairs_have_the_requested_angles_and_norms():
    t = np.array([1e-6, 1e-3, 0.3, 1.0, math.pi / 2, 3.0, math.pi])
    X = angle_pairs(t, 7, seed=3, norms=(2.0, 0.5))
    assert X.shape == (14, 7)
    np.testing.assert_allclose(np.linalg.norm(X[0::2], axis=1), 2.0, rtol=1e-14)
    np.testing.assert_allclose(np.linalg.norm(X[1::2], axis=1), 0.5, rtol=1e-14)
    got = np.array([_kahan_angle(X[2 * i], X[2 * i + 1]) for i in range(t.size)])
    np.testing.assert_allclose(got, t, rtol=1e-9, atol=1e-15)  # relative accuracy even at 1e-6 rad
    # different seeds give different planes, the same angles
    assert not np.allclose(X, angle_pairs(t, 7, seed=4, norms=(2.0, 0.5)))


def test_pair_angles_reads_the_within_pair_angle_of_a_gram_matrix():
    t = np.array([0.2, 1.1, 2.5])
    X = angle_pairs(t, 4, seed=0)
    np.testing.assert_allclose(pair_angles(X @ X.T), t, atol=1e-7)
    np.testing.assert_allclose(pair_cosines(X @ X.T), np.cos(t), atol=1e-14)


@pytest.mark.parametrize("bad, exc", [
    (dict(angles=[200.0], d=4), ValueError),          # degrees
    (dict(angles=[-0.1], d=4), ValueError),
    (dict(angles=[np.nan], d=4), ValueError),
    (dict(angles=[], d=4), ValueError),
    (dict(angles=[0.1], d=1), ValueError),
    (dict(angles=[0.1], d=4, norms=(1.0, 0.0)), ValueError),
])
def test_angle_pairs_rejects_bad_input(bad, exc):
    with pytest.raises(exc):
        angle_pairs(**bad)


def test_pair_angles_rejects_odd_kernels():
    with pytest.raises(ValueError, match="even number"):
        pair_angles(np.eye(3))


# ---------------------------------------------------------------- App. B variants

@pytest.mark.parametrize("kw", [
    dict(), dict(bias_std=0.7), dict(parameterization="standard"),
    dict(parameterization="standard", bias_std=0.3), dict(layer_std=[1.0, 2.0, 0.5, 3.0], layer_mult=[1.0, 3.0, 0.2]),
    dict(activation="tanh", bias_std=0.4, layer_std=0.5),
])
def test_variant_ntk_matches_a_jacobian_over_all_parameters(kw):
    X = angle_pairs([0.1, 1.0, 2.0], 5, seed=1)
    net = VariantMLP(5, 12, 3, seed=2, **kw)
    J = _jacobian_ntk(net, X)
    np.testing.assert_allclose(net.ntk(X), J, rtol=1e-12, atol=1e-12 * np.abs(J).max())


def test_plain_variant_equals_the_mlp():
    X = angle_pairs([0.3, 1.3], 6, seed=0)
    np.testing.assert_allclose(VariantMLP(6, 32, 4, seed=5).ntk(X), empirical_ntk(MLP(6, 32, 4, seed=5), X), rtol=1e-13)


def test_scale_invariance_for_bias_free_relu_and_its_failure_otherwise():
    X = angle_pairs(np.deg2rad([2, 20, 70, 150]), 8, seed=0)
    base = pair_gradient_angles(MLP(8, 64, 4, seed=1), X)
    for kw in (dict(layer_std=0.01), dict(layer_std=30.0), dict(layer_mult=[0.2, 5.0, 1.5, 0.7])):
        np.testing.assert_allclose(pair_gradient_angles(VariantMLP(8, 64, 4, seed=1, **kw), X), base, atol=1e-10)
    # per-layer init scales, the standard parameterization and biases do move the angles
    for kw in (dict(layer_std=[1, 2, 3, 4, 5]), dict(parameterization="standard"), dict(bias_std=1.0)):
        assert np.abs(pair_gradient_angles(VariantMLP(8, 64, 4, seed=1, **kw), X) - base).max() > 1e-3
    # a non-homogeneous activation is not scale invariant
    t0 = pair_gradient_angles(MLP(8, 64, 4, activation="tanh", seed=1), X)
    t1 = pair_gradient_angles(VariantMLP(8, 64, 4, activation="tanh", seed=1, layer_std=3.0), X)
    assert np.abs(t1 - t0).max() > 1e-3


def test_layer_weights():
    np.testing.assert_allclose(layer_weights(3), 0.25)
    np.testing.assert_allclose(layer_weights(2, [1.0, 2.0, 1.0]), np.array([1, 0.25, 1]) / 2.25)
    w = layer_weights(2, parameterization="standard", width=100)
    np.testing.assert_allclose(w, np.array([1, 50, 50]) / 101)
    np.testing.assert_allclose(layer_weights(2, parameterization="standard"), [0, 0.5, 0.5])
    with pytest.raises(ValueError, match="parameterization"):
        layer_weights(2, parameterization="mup")
    with pytest.raises(ValueError, match="3 values"):
        layer_weights(2, [1.0, 2.0])


def test_weighted_angle_reduces_to_the_theory():
    t = np.deg2rad([0.5, 10, 60, 120, 179])
    L = 4
    np.testing.assert_allclose(relu_weighted_gradient_angle(t, L, np.ones(L + 1)), theory.relu_gradient_angle(t, L),
                               atol=1e-7)
    # the first-layer kernel alone is G o P_L of [LH] Thm 4.2
    X = angle_pairs(t, 3, seed=0)
    K1 = theory.relu_first_layer_ntk(X, L)
    e1 = np.eye(L + 1)[0]
    np.testing.assert_allclose(relu_weighted_gradient_angle(t, L, e1), pair_angles(K1), atol=1e-7)
    # the last-layer kernel alone is the top embedding angle
    np.testing.assert_allclose(np.cos(relu_weighted_gradient_angle(t, L, np.eye(L + 1)[L])),
                               np.cos(theory.relu_embedding_angles(t, L)[:, L]), atol=1e-12)
    with pytest.raises(ValueError, match="weights"):
        relu_weighted_gradient_angle(t, L, np.ones(L))


def test_weighted_angle_predicts_finite_width_variants():
    # finite-width error is O(1/sqrt(m)); at m = 2048 the plain net's angle error is ~0.02 rad (chapter 2)
    t = np.deg2rad([5, 30, 90, 150])
    L, m = 3, 2048
    X = angle_pairs(t, 10, seed=0)
    for kw in (dict(layer_std=[1.0, 3.0, 1.0, 0.5]), dict(parameterization="standard")):
        phi = np.mean([pair_gradient_angles(VariantMLP(10, m, L, seed=s, **kw), X) for s in range(2)], axis=0)
        w = layer_weights(L, kw.get("layer_std"), kw.get("parameterization", "ntk"), width=m)
        assert np.abs(phi - relu_weighted_gradient_angle(t, L, w)).max() < 0.08


@pytest.mark.parametrize("kw, msg", [
    (dict(parameterization="mf"), "parameterization"),
    (dict(bias_std=-1.0), "bias_std"),
    (dict(layer_std=[1.0, 2.0]), "layer_std"),
    (dict(layer_std=[1.0, 0.0, 1.0, 1.0]), "positive"),
    (dict(layer_mult=[1.0, 1.0, 1.0], parameterization="standard"), "NTK parameterization"),
])
def test_variant_rejects_bad_input(kw, msg):
    with pytest.raises(ValueError, match=msg):
        VariantMLP(4, 8, 3, **kw)


# ---------------------------------------------------------------- chapter measurements

def test_crossover_angles_are_roots():
    tab = S.crossover_table([1, 7])
    for r in tab.itertuples():
        c = math.radians(r.cross)
        assert abs(theory.relu_gradient_angle(c, r.depth) - c) < 1e-9
        assert theory.relu_gradient_angle(c - 0.05, r.depth) > c - 0.05
        assert theory.relu_gradient_angle(c + 0.05, r.depth) < c + 0.05
        t60 = math.radians(r.theta_at_phi60)
        assert abs(math.degrees(theory.relu_gradient_angle(t60, r.depth)) - 60) < 1e-7


def test_small_angle_law_error_vanishes():
    tab = S.small_angle_table(np.geomspace(1e-9, 1e-3, 4), [3])
    err = np.abs(tab.rel_err_law.to_numpy())
    assert err[-1] > err[0] and err[0] < 1e-6  # o(theta) corrections fade
    np.testing.assert_allclose(tab.leading, np.sqrt(3 * tab.theta / math.pi))


def test_finite_width_angles_close_to_theory():
    t = np.deg2rad([10, 45, 90, 135])
    df = S.finite_width_angles(t, [1024], [2], 2, d=8)
    th = S.relu_theory_curves(t, [2])
    e = S.width_errors(df, th)
    assert e.rms.iloc[0] < 5 / math.sqrt(1024)  # O(1/sqrt(m)) fluctuations, generous constant
    assert set(df.columns) >= {"width", "depth", "seed", "theta", "phi"}


def test_gradient_norm_ratio_near_one():
    r = S.gradient_norm_ratios([2048], [1, 3], 1, n=6, d=5)
    assert np.all(np.abs(r.ratio_mean - 1) < 0.15)  # (L+1)|x|^2, not (L+1)^2 |x|^2 (= 2 or 4)
