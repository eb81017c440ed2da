"""General-activation NNGP/NTK recursion of lib.theory ([LH] Sec. 3, Fig. 2) against independent references:
ReLU closed forms, Cho & Saul arc-cosine kernels (ReLU^2, centred ReLU), a 200-point tensor Gauss-Hermite
recursion written here for smooth activations, and Monte Carlo."""
import math
import time

import numpy as np
import pytest

import lib.theory as T
from lib.activations import ACTIVATIONS
from lib.theory.quadrature import pair_expectations

PI = math.pi


def _data(n=5, d=4, seed=0, unit=False, near=True):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 2.0, size=(n, 1))
    if near:
        X[1] = X[0] + 1e-7 * rng.normal(size=d)      # near-parallel pair
    if unit:
        X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X


def _close(A, B, rtol):
    scale = np.sqrt(np.outer(np.abs(np.diag(B)), np.abs(np.diag(B))))
    return np.abs(A - B).max() / scale.max() if rtol is None else np.all(np.abs(A - B) <= rtol * scale)


def _angles(K):
    """Angles between gradient features from a kernel, via 1 - cos = (sqrt(K_ii K_jj) - K_ij) / sqrt(K_ii K_jj)."""
    d = np.sqrt(np.outer(np.diag(K), np.diag(K)))
    return 2 * np.arcsin(np.sqrt(np.clip((d - K) / (2 * d), 0, 1)))


def _ref_recursion(X, L, layer):
    """Theta^(L), Sigma^(L) and G o prod Sigma_dot from a per-pair layer function layer(qi, qj, rho) -> (S, Sdot)."""
    X = np.asarray(X, float)
    S = X @ X.T
    Th, P = S.copy(), np.ones_like(S)
    for _ in range(L):
        q = np.diag(S).copy()
        newS, D = np.empty_like(S), np.empty_like(S)
        for i in range(len(q)):
            for j in range(len(q)):
                rho = 1.0 if i == j else float(np.clip(S[i, j] / math.sqrt(q[i] * q[j]), -1, 1))
                newS[i, j], D[i, j] = layer(q[i], q[j], rho)
        S = newS
        Th = S + Th * D
        P = P * D
    return Th, S, (X @ X.T) * P


def _gh_layer(act, N=200):
    z, w = np.polynomial.hermite_e.hermegauss(N)
    w = w / math.sqrt(2 * PI)
    Z1, Z2 = np.meshgrid(z, z, indexing="ij")
    W = np.outer(w, w)

    def layer(qi, qj, rho):
        u = math.sqrt(qi) * Z1
        v = math.sqrt(qj) * (rho * Z1 + math.sqrt(max(0.0, 1 - rho * rho)) * Z2)
        return act.c * np.sum(W * act.np_fn(u) * act.np_fn(v)), act.c * np.sum(W * act.np_deriv(u) * act.np_deriv(v))
    return layer


def _arccos_layer(kind):
    def J(n, t):
        if n == 0:
            return PI - t
        if n == 1:
            return math.sin(t) + (PI - t) * math.cos(t)
        return 3 * math.sin(t) * math.cos(t) + (PI - t) * (1 + 2 * math.cos(t) ** 2)

    def layer(qi, qj, rho):
        t, r = math.acos(rho), math.sqrt(qi * qj)
        if kind == "relu2":   # s = relu^2, s' = 2 relu, c = 2/3 (Cho & Saul 2009)
            return (2 / 3) * r * r * J(2, t) / (2 * PI), (2 / 3) * 4 * r * J(1, t) / (2 * PI)
        # norm_relu: s = (relu - m)/sd with m = 1/sqrt(2 pi), sd^2 = 1/2 - 1/(2 pi), c = 1
        m, var = 1 / math.sqrt(2 * PI), 0.5 - 1 / (2 * PI)
        ess = r * J(1, t) / (2 * PI) - m * m * (math.sqrt(qi) + math.sqrt(qj)) + m * m
        return ess / var, J(0, t) / (2 * PI) / var
    return layer


# ---------------------------------------------------------------- ReLU: closed form vs quadrature


@pytest.mark.parametrize("method", ["quadrature", "direct"])
def test_relu_quadrature_equals_closed_forms(method):
    X = _data(6, 4, seed=1)
    X[2] = -0.7 * X[3]                                  # antiparallel pair
    X[4] = 3.0 * X[0]                                   # parallel pair
    for L in (0, 1, 3, 6):
        ref = T.relu_ntk(X, L)
        assert np.allclose(T.ntk(X, L, "relu"), ref, rtol=1e-14, atol=1e-14 * np.abs(ref).max())
        assert _close(T.ntk(X, L, "relu", method=method), ref, 1e-12)
        assert _close(T.first_layer_ntk(X, L, "relu", method=method), T.relu_first_layer_ntk(X, L), 1e-12)
        nx = np.linalg.norm(X, axis=1)
        emb = T.relu_embedding_angles(T.input_angles(X), L)[..., -1]
        assert _close(T.nngp(X, L, "relu", method=method), np.outer(nx, nx) * np.cos(emb), 1e-12)


def test_relu_quadrature_keeps_tiny_angles():
    """Sigma_dot = 1 - theta/pi has a slope at theta = 0, so the recursion must carry theta without arccos."""
    x = np.array([1.0, 0.2, -0.3])
    y = x + np.array([0.0, 1e-9, 0.0])
    X = np.stack([x, y])
    phi_q = float(_angles(T.ntk(X, 8, "relu", method="quadrature"))[0, 1])
    phi_c = float(T.relu_gradient_angle(T.input_angles(X)[0, 1], 8))
    assert abs(phi_q / phi_c - 1) < 1e-6, (phi_q, phi_c)


# ---------------------------------------------------------------- kinked activations vs closed forms


def test_relu2_matches_arccos_kernels():
    X = _data(4, 3, seed=2, near=False) * 0.8
    for L in (1, 3):
        Th, S, F = _ref_recursion(X, L, _arccos_layer("relu2"))
        assert _close(T.ntk(X, L, "relu2"), Th, 1e-12)
        assert _close(T.nngp(X, L, "relu2"), S, 1e-12)
        assert _close(T.first_layer_ntk(X, L, "relu2"), F, 1e-12)


@pytest.mark.parametrize("unit", [True, False])
def test_norm_relu_matches_closed_form(unit):
    """Centred, scaled ReLU (not homogeneous): table path for unit rows, per-pair quadrature otherwise."""
    X = _data(4, 3, seed=3, unit=unit, near=False) * (1.0 if unit else 0.5)
    Th, S, _ = _ref_recursion(X, 3, _arccos_layer("norm_relu"))
    assert _close(T.ntk(X, 3, "norm_relu"), Th, 1e-12)
    assert _close(T.nngp(X, 3, "norm_relu"), S, 1e-12)


# ---------------------------------------------------------------- smooth activations vs Gauss-Hermite


@pytest.mark.parametrize("name", ["tanh", "gelu", "swish", "norm_tanh", "norm_gelu"])
def test_smooth_activations_vs_gauss_hermite(name):
    act = ACTIVATIONS[name]
    X = _data(4, 3, seed=4, unit=True, near=False)
    Th, S, F = _ref_recursion(X, 3, _gh_layer(act))
    assert _close(T.ntk(X, 3, name), Th, 1e-10)
    assert _close(T.nngp(X, 3, name), S, 1e-10)
    assert _close(T.first_layer_ntk(X, 3, name), F, 1e-10)


def test_unequal_norms_direct_path_vs_gauss_hermite():
    act = ACTIVATIONS["tanh"]
    rng = np.random.default_rng(5)
    X = rng.normal(size=(3, 3))
    X *= (rng.uniform(0.7, 1.2, size=3) / np.linalg.norm(X, axis=1))[:, None]  # q <= 1.44: GH-200 is exact
    Th, S, _ = _ref_recursion(X, 2, _gh_layer(act))
    assert _close(T.ntk(X, 2, "tanh"), Th, 1e-10)
    assert _close(T.nngp(X, 2, "tanh"), S, 1e-10)


@pytest.mark.parametrize("name,q1,q2,theta", [("tanh", 2.0, 0.5, 1.0), ("normrelu", 1.0, 1.0, 0.7),
                                              ("relu2", 1.3, 0.6, 2.4), ("gelu", 1.0, 1.0, 0.05)])
def test_dual_expectations_monte_carlo(name, q1, q2, theta):
    act = ACTIVATIONS[name]
    rng = np.random.default_rng(7)
    z1, z2 = rng.standard_normal((2, 2_000_000))
    u = math.sqrt(q1) * z1
    v = math.sqrt(q2) * (math.cos(theta) * z1 + math.sin(theta) * z2)
    ess, edd = T.dual_expectations(name, theta, q1, q2)
    for samples, val in ((act.np_fn(u) * act.np_fn(v), ess), (act.np_deriv(u) * act.np_deriv(v), edd)):
        se = samples.std() / math.sqrt(samples.size)
        assert abs(samples.mean() - val) < 5 * se    # CLT: 5 standard errors


def test_table_spline_vs_direct_quadrature():
    for name in ("tanh", "normrelu", "relu2"):
        act = ACTIVATIONS[name]
        tab = T.theta_table(act, 1.0)
        assert tab.tail < 1e-13 and tab.degree <= 256
        th = np.random.default_rng(8).uniform(0, PI, 40)
        ess, edd, _ = pair_expectations(act.np_fn, 1.0, 1.0, th, act.kinks, act.np_deriv)
        got = tab(th)
        assert np.abs(got[0] - ess).max() < 1e-13 * max(1.0, np.abs(ess).max())
        assert np.abs(got[1] - edd).max() < 1e-13 * max(1.0, np.abs(edd).max())


# ---------------------------------------------------------------- linear, angles, speed, errors


@pytest.mark.parametrize("method", ["auto", "quadrature"])
def test_linear_network_is_gram(method):
    """[LH] Thm 2.3 / Cor. 2.4 with the erratum: Theta = (L+1) G, Sigma = G."""
    X = _data(5, 3, seed=9, near=False)
    G = X @ X.T
    for L in (0, 2, 5):
        assert _close(T.ntk(X, L, "linear", method=method), (L + 1) * G, 1e-12)
        assert _close(T.nngp(X, L, "linear", method=method), G, 1e-12)


def test_gradient_angle_general_agrees_with_ntk():
    th = np.array([0.2, 1.0, 2.5])
    X = np.stack([[1.0, 0.0]] + [[math.cos(t), math.sin(t)] for t in th])
    for name in ("tanh", "relu2", "normrelu"):
        phi = T.gradient_angle(th, 4, name)
        K = T.ntk(X, 4, name)
        assert np.allclose(phi, _angles(K)[0, 1:], rtol=1e-9, atol=1e-12)
    assert np.allclose(T.gradient_angle(th, 5, "relu", method="quadrature"), T.relu_gradient_angle(th, 5),
                       rtol=1e-11)


def test_large_n_table_path_is_fast():
    rng = np.random.default_rng(10)
    X = rng.normal(size=(800, 6))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    T.ntk(X[:3], 1, "tanh")                             # build the table outside the timing
    t0 = time.perf_counter()
    K = T.ntk(X, 5, "tanh")
    assert time.perf_counter() - t0 < 30               # ~1 s on an idle core (n = 800: 320k pairs)
    assert np.allclose(np.diag(K), np.diag(K)[0], rtol=1e-12)


def test_bad_inputs_raise():
    X = _data(3, 2, near=False)
    with pytest.raises(ValueError, match="unknown activation"):
        T.ntk(X, 2, "sigmoidish")
    with pytest.raises(TypeError):
        T.ntk(X, 2, 3.0)
    with pytest.raises(ValueError, match="method"):
        T.ntk(X, 2, "tanh", method="magic")
    with pytest.raises(ValueError, match="non-negative"):
        T.nngp(X, -2, "tanh")
    with pytest.raises(ValueError, match="NaN"):
        T.ntk(np.array([[1.0, np.nan]]), 1, "tanh")
    with pytest.raises(ValueError, match="zero"):
        T.ntk(np.array([[1.0, 0.0], [0.0, 0.0]]), 1, "gelu")
    with pytest.raises(ValueError, match="NaN"):
        T.gradient_angle(np.nan, 2, "tanh")
    with pytest.raises(FloatingPointError, match="normalize"):
        T.ntk(10.0 * X, 12, "relu2")                       # ReLU^2 maps q -> q^2
