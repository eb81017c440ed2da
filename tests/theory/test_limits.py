"""Infinite-depth limits: [LH] Thm 4.3 (kappa -> (n+3)/3), [LH] Fig. 2 (phi -> 90 deg for ReLU^2, GeLU, tanh),
[AAK] (kappa -> 1 exponentially for normalized activations, rate set by mu)."""
import math

import numpy as np
import pytest
from scipy import integrate

import lib.theory as T
from lib.spectra import cosine_matrix

PI = math.pi


def _unit_data(n=4, d=3, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def _kappa(C):
    ev = np.linalg.eigvalsh(C)
    return ev[-1] / ev[0]


def test_relu_normalized_ntk_tends_to_three_quarters_identity():
    """[LH] Thm 4.3. Tolerance from the asymptotic law of limits.py: every off-diagonal of the normalized NTK
    is 1/4 + (3/8) ln L / L + C_ij / L with C_ij <~ 3 pi / (4 theta_ij); Weyl's inequality moves each
    eigenvalue by at most n max|E_ij|, which bounds |kappa - (n+3)/3|."""
    n, L = 5, 10 ** 4
    X = _unit_data(n, 4, seed=1)
    th_min = T.input_angles(X)[np.triu_indices(n, 1)].min()
    C = cosine_matrix(T.relu_ntk(X, L))
    lim = T.relu_normalized_ntk_limit(n)
    eps = 2 * (0.375 * math.log(L) / L + 3 * PI / (4 * th_min * L))
    E = C - lim
    assert np.abs(E).max() < eps
    assert np.all(E[np.triu_indices(n, 1)] > 0)          # approached from above (phi from below)
    ev_lim = np.linalg.eigvalsh(lim)
    assert ev_lim[0] == pytest.approx(0.75) and ev_lim[-1] == pytest.approx(0.75 + n / 4)
    k_lim = T.relu_condition_number_limit(n)
    assert k_lim == pytest.approx(ev_lim[-1] / ev_lim[0])
    d = n * np.abs(E).max()
    assert abs(_kappa(C) - k_lim) <= (ev_lim[-1] + d) / (ev_lim[0] - d) - k_lim
    # and the convergence is monotone over depths 10, 100, 1000
    ks = [abs(_kappa(cosine_matrix(T.relu_ntk(X, m))) - k_lim) for m in (10, 100, 1000, L)]
    assert np.all(np.diff(ks) < 0)


def test_relu_cos_phi_asymptotic_formula():
    L = np.array([2000, 20000])
    for th in (0.01, 0.05):
        c = np.cos([float(T.relu_gradient_angle(th, int(m))) for m in L])
        pred = T.relu_cos_phi_asymptotic(L, th)
        assert np.all(np.abs(c - pred) < 0.2 * (pred - 0.25))   # leading terms capture > 80% of the gap


def test_correlation_fixed_point_relu2_closed_form():
    """ReLU^2 with c = 2/3 at unit variance: rho -> (1/(3 pi)) J_2(theta), slope chi = (4/(3 pi)) J_1(theta)."""
    fp = T.correlation_fixed_point("relu2")
    t = math.acos(fp.rho)
    J1 = math.sin(t) + (PI - t) * math.cos(t)
    J2 = 3 * math.sin(t) * math.cos(t) + (PI - t) * (1 + 2 * math.cos(t) ** 2)
    assert J2 / (3 * PI) == pytest.approx(fp.rho, abs=1e-12)
    assert fp.chi_star == pytest.approx(4 * J1 / (3 * PI), rel=1e-12)
    assert fp.chi_1 == pytest.approx(4 / 3, rel=1e-12)
    assert T.ntk_offdiagonal_rate("relu2") == pytest.approx(0.75, rel=1e-12)   # chi* < 1: rate 1/chi_1


def test_correlation_fixed_point_tanh_and_relu():
    fp = T.correlation_fixed_point("tanh")
    c = 1 / integrate.quad(lambda z: math.tanh(z) ** 2 * math.exp(-z * z / 2) / math.sqrt(2 * PI), -40, 40)[0]
    e1 = integrate.quad(lambda z: (1 - math.tanh(z) ** 2) * math.exp(-z * z / 2) / math.sqrt(2 * PI), -40, 40)[0]
    e2 = integrate.quad(lambda z: (1 - math.tanh(z) ** 2) ** 2 * math.exp(-z * z / 2) / math.sqrt(2 * PI), -40, 40)[0]
    assert fp.rho == 0.0                                  # odd activation
    assert fp.chi_star == pytest.approx(c * e1 * e1, rel=1e-10)
    assert fp.chi_1 == pytest.approx(c * e2, rel=1e-10)
    assert fp.chi_star == pytest.approx(1 - T.coefficient_of_nonlinearity("tanh"), rel=1e-10)
    relu = T.correlation_fixed_point("relu")
    assert relu.rho == 1.0 and relu.chi_1 == pytest.approx(1.0, rel=1e-12)
    assert T.ntk_offdiagonal_rate("relu") == 1.0


@pytest.mark.parametrize("name,L", [("relu2", 40), ("gelu", 120), ("tanh", 60)])
def test_gradient_angle_tends_to_90_degrees(name, L):
    """[LH] Fig. 2: phi -> 90 deg for ReLU^2, GeLU and tanh, monotonically, at the predicted geometric rate.
    (L is chosen so that cos phi ~ 1e-5: an angle next to 90 deg resolves cos phi only to ~1e-16 absolute.)"""
    th = np.array([0.3, 1.0, 2.0])
    M = 2 * L // 3
    cos = {m: np.cos(T.gradient_angle(th, m, name)) for m in (L // 3, M, M + 1, L, L + 1)}
    assert np.all(np.abs(cos[L // 3]) > np.abs(cos[M])) and np.all(np.abs(cos[M]) > np.abs(cos[L]))
    assert np.all(np.degrees(np.arccos(cos[L])) > 89.9)
    rate = T.ntk_offdiagonal_rate(name)
    dev = {m: np.abs(cos[m + 1] / cos[m] / rate - 1) for m in (M, L)}
    if T.correlation_fixed_point(name).rho == 0.0:
        # centred: cos phi_L ~ (L + C) rate^L, so the ratio is rate (1 + 1/(L + C)) > rate
        r = cos[L + 1] / cos[L]
        assert np.all((r > rate * (1 - 1e-3)) & (r < rate * (1 + 3 / L)))
    else:
        # geometric once the correlation has settled at rho*: the transient decays like chi*^L
        assert np.all(dev[L] < 5e-3) and np.all(dev[L] < dev[M])


def test_relu_does_not_tend_to_90_degrees():
    phi = T.gradient_angle(np.array([0.3, 1.0, 2.0]), 10 ** 4, "relu")
    assert np.all(np.abs(phi - T.relu_gradient_angle_limit()) < math.radians(0.5))


@pytest.mark.parametrize("name", ["norm_relu", "norm_tanh", "norm_gelu"])
def test_aak_bounds_hold(name):
    """[AAK] Lemma C.7 / Cor. 3.3: max|rho_L| <= delta_L (iterated envelope), kappa <= Gershgorin bound."""
    X = _unit_data(4, 3)
    d0 = np.abs(X @ X.T - np.eye(4)).max()
    bound = T.aak_correlation_bound(name, d0, 30)
    for L in (1, 5, 10, 20, 30):
        C = cosine_matrix(T.nngp(X, L, name))
        rho = np.abs(C - np.eye(4)).max()
        assert rho <= bound[L] + 1e-12
        assert _kappa(C) <= T.gershgorin_kappa_bound(4, bound[L]) * (1 + 1e-12)


def test_aak_exponential_rates_for_normalized_relu():
    """Top-layer kernel: correlations shrink by s_hat'(0) = 1 - mu per layer; NTK off-diagonals by
    ((1 - mu)/E[s'^2]) (L + 1 + C)/(L + C). Both kappa - 1 follow their off-diagonals."""
    name = "norm_relu"
    mu = T.coefficient_of_nonlinearity(name)
    X = _unit_data(4, 3)
    C30, C31 = (cosine_matrix(T.nngp(X, L, name)) for L in (30, 31))
    off = np.triu_indices(4, 1)
    assert np.allclose(C31[off] / C30[off], 1 - mu, rtol=5e-3)
    assert (_kappa(C31) - 1) / (_kappa(C30) - 1) == pytest.approx(1 - mu, rel=5e-3)
    K30, K31 = (cosine_matrix(T.ntk(X, L, name)) for L in (30, 31))
    rate = T.ntk_offdiagonal_rate(name)
    assert rate == pytest.approx((1 - mu) / T.gaussian_moments(name).deriv_second, rel=1e-10)
    assert rate < 1 - mu
    r = K31[off] / K30[off]
    assert np.all((r > rate) & (r < rate * (1 + 2 / 30)))
    ks = [_kappa(cosine_matrix(T.ntk(X, L, name))) - 1 for L in (5, 10, 20, 30)]
    assert np.all(np.diff(np.log(ks)) < 0) and ks[-1] < 1e-6


def test_smooth_activations_separate_similar_inputs_only_linearly():
    """For smooth s the NTK is smooth in rho at 1, so phi/theta -> a constant: at L = 1 and unit inputs,
    1 - cos phi = (1 - rho)(2 chi_1 + chi_2)/(1 + chi_1) + O((1 - rho)^2) with chi_1 = c E[s'^2] and
    chi_2 = c E[s''^2] (Price's theorem), i.e. phi/theta -> sqrt((2 chi_1 + chi_2)/(1 + chi_1)).
    ReLU instead has phi ~ sqrt(L theta / pi) ([LH] Cor. 3.3): phi/theta grows without bound."""
    pdf = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * PI)  # noqa: E731
    second = {
        "tanh": lambda z: -2 * math.tanh(z) / math.cosh(z) ** 2,
        "gelu": lambda z: pdf(z) * (2 - z * z),
    }
    for name, s2 in second.items():
        act = T.gaussian_moments(name)
        c = 1 / act.second
        chi1 = c * act.deriv_second
        chi2 = c * integrate.quad(lambda z: s2(z) ** 2 * pdf(z), -30, 30, epsabs=1e-14)[0]
        pred = math.sqrt((2 * chi1 + chi2) / (1 + chi1))
        for th in (1e-3, 1e-4):
            assert float(T.gradient_angle(th, 1, name)) / th == pytest.approx(pred, rel=1e-5)
    for th in (1e-3, 1e-4, 1e-6):  # phi/theta = sqrt(1 + L/(pi theta)) (1 + O(theta)): unbounded
        assert float(T.relu_gradient_angle(th, 1)) / th == pytest.approx(math.sqrt(1 + 1 / (PI * th)), rel=th)


def test_bad_inputs_of_the_limits_raise_clear_errors():
    for bad in (-0.1, 3.2, np.nan, [0.1, np.inf]):
        with pytest.raises(ValueError, match="theta_in"):
            T.relu_cos_phi_asymptotic(100, bad)
    with pytest.raises(ValueError, match="theta_in must be > 0"):
        T.relu_cos_phi_asymptotic(100, 0.0)
    for bad in (0.5, np.nan, np.inf):
        with pytest.raises(ValueError, match="depth must be (>= 1|a finite number)"):
            T.relu_cos_phi_asymptotic(bad, 0.1)
    assert np.isfinite(T.relu_cos_phi_asymptotic([10, 100], math.pi)).all()
    for n in (0, -3):
        with pytest.raises(ValueError, match="n must be a positive integer"):
            T.gershgorin_kappa_bound(n, 0.1)
        with pytest.raises(ValueError, match="n must be a positive integer"):
            T.relu_condition_number_limit(n)
    with pytest.raises(TypeError, match="n must be a positive integer"):
        T.gershgorin_kappa_bound(2.5, 0.1)
    for bad in (-0.1, np.nan, [0.1, np.inf]):
        with pytest.raises(ValueError, match="delta (must be non-negative|must be a finite number|contains NaN)"):
            T.gershgorin_kappa_bound(4, bad)
    assert T.gershgorin_kappa_bound(1, 0.7) == 1.0
    assert T.gershgorin_kappa_bound(4, 0.5) == np.inf
    for bad in (-0.5, 4.0, np.nan):
        with pytest.raises(ValueError, match="theta"):
            T.layer_map("tanh", bad, 1.0, 1.0)
