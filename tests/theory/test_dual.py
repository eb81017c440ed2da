"""Gaussian facts of activations ([AAK] Sec. 2-3): c_s, normalization, Hermite coefficients, dual activation, mu."""
import math

import numpy as np
import pytest
import torch
from numpy.polynomial.hermite_e import hermeval
from scipy.stats import norm

import lib.theory as T
from lib.activations import ACTIVATIONS

NORMALIZED = [k for k in ACTIVATIONS if k.startswith("norm")]
NONLINEAR = [k for k in ACTIVATIONS if k != "linear"]


@pytest.mark.parametrize("name", NORMALIZED)
def test_normalized_activations_are_centred_with_unit_second_moment(name):
    m = T.gaussian_moments(name)        # composite Gauss-Legendre, independent of lib.activations' QUADPACK
    assert abs(m.mean) < 1e-10
    assert abs(m.second - 1) < 1e-10
    assert T.scale_constant(name) == pytest.approx(1.0, abs=1e-10)


def test_scale_constants():
    """c_s = 1/E[s^2]: closed forms for ReLU (2), ReLU^2 (2/3: E z^4 1(z>0) = 3/2), identity (1); the constant
    the networks use; and agreement of lib.activations' adaptive quadrature with the kink-aware Gauss-Legendre
    second moment (two independent quadratures)."""
    assert T.scale_constant("relu") == pytest.approx(2.0, rel=1e-13)
    assert T.scale_constant("relu2") == pytest.approx(2 / 3, rel=1e-13)
    assert T.scale_constant("linear") == pytest.approx(1.0, rel=1e-13)
    for name in ACTIVATIONS:
        assert T.scale_constant(name) == ACTIVATIONS[name].c
        assert 1 / T.gaussian_moments(name).second == pytest.approx(ACTIVATIONS[name].c, rel=1e-11)


@pytest.mark.parametrize("name", ["relu", "relu2", "gelu", "tanh", "swish"])
def test_normalization_constants_are_those_of_the_registry(name):
    shift, scale = T.normalization_constants(name)
    m = T.gaussian_moments(name)  # independent quadrature
    assert shift == pytest.approx(m.mean, rel=1e-11)
    assert scale == pytest.approx(math.sqrt(m.var), rel=1e-11)
    z = np.linspace(-3, 3, 13)
    base, norm_act = ACTIVATIONS[name], ACTIVATIONS[f"norm_{name}"]
    np.testing.assert_array_equal(norm_act.np_fn(z), (base.np_fn(z) - shift) / scale)
    with pytest.raises(ValueError, match="constant under N"):
        T.normalization_constants(type(base)("const", torch.ones_like, np.ones_like, np.zeros_like, 1.0))


def test_normalization_constants_and_normrelu():
    shift, scale = T.normalization_constants("relu")
    assert shift == pytest.approx(1 / math.sqrt(2 * math.pi), rel=1e-13)
    assert scale == pytest.approx(math.sqrt(0.5 - 1 / (2 * math.pi)), rel=1e-13)
    # [AAK] Sec. 7: s_b = lambda_b (max(z, b) - c_b), c_b = phi(b) + b Phi(b), lambda_b = 1/sd = 1.0507
    act = ACTIVATIONS["normrelu"]
    b = act.kinks[0]
    base = type(act)("maxb", act.torch_fn, lambda z: np.maximum(z, b), lambda z: (z > b).astype(float), 1.0, (b,))
    shift, scale = T.normalization_constants(base)
    assert shift == pytest.approx(norm.pdf(b) + b * norm.cdf(b), rel=1e-12)
    assert 1 / scale == pytest.approx(1.0507, rel=1e-12)


def test_relu_hermite_coefficients_closed_form():
    """For ReLU, E[relu(z) He_n(z)] = phi(0) He_{n-2}(0) for n >= 2 (integrate by parts twice)."""
    a = T.hermite_coefficients("relu", 60, normalize=False)
    phi0 = 1 / math.sqrt(2 * math.pi)
    ref = [phi0, 0.5] + [phi0 * hermeval(0.0, [0] * (n - 2) + [1]) / math.sqrt(math.factorial(n)) for n in range(2, 60)]
    assert np.allclose(a, ref, rtol=0, atol=1e-14)


@pytest.mark.parametrize("name", ["norm_tanh", "norm_gelu", "norm_swish"])
def test_parseval_smooth(name):
    a = T.hermite_coefficients(name, 200)
    assert abs(a[0]) < 1e-12
    assert abs(np.sum(a ** 2) - 1) < 1e-9


def test_parseval_kinked_converges_algebraically():
    """Kinks make a_n^2 decay like n^(-5/2): the tail 1 - sum_{i<n} a_i^2 ~ n^(-3/2) (documented accuracy)."""
    a = T.hermite_coefficients("norm_relu", 400)
    tails = np.array([1 - np.sum(a[:n] ** 2) for n in (50, 100, 200, 400)])
    assert np.all(tails > 0) and np.all(np.diff(tails) < 0)
    slopes = np.diff(np.log(tails)) / np.log(2)
    assert np.all(np.abs(slopes + 1.5) < 0.1)


@pytest.mark.parametrize("name", NONLINEAR)
def test_mu_is_one_minus_first_hermite_squared(name):
    mu = T.coefficient_of_nonlinearity(name)
    a = T.hermite_coefficients(name, 3)
    assert 0 < mu <= 1
    assert mu == pytest.approx(1 - a[1] ** 2, abs=1e-13)


def test_mu_closed_forms():
    assert T.coefficient_of_nonlinearity("linear") == pytest.approx(0.0, abs=1e-14)
    # ReLU: E[z relu] = 1/2, Var relu = 1/2 - 1/(2 pi)
    assert T.coefficient_of_nonlinearity("relu") == pytest.approx(1 - 0.25 / (0.5 - 1 / (2 * math.pi)), rel=1e-13)
    # odd part of |z|: E[z |z|] = 0, so mu = 1
    absval = type(ACTIVATIONS["relu"])("abs", abs, np.abs, np.sign, 1.0, (0.0,))
    assert T.coefficient_of_nonlinearity(absval) == pytest.approx(1.0, abs=1e-13)


@pytest.mark.parametrize("name", NORMALIZED)
def test_dual_activation_series_bound_and_aak_envelope(name):
    rho = np.linspace(-1, 1, 81)
    exact = T.dual_activation(name, rho)
    assert exact[-1] == pytest.approx(1.0, abs=1e-12)            # s_hat(1) = E s^2 = 1
    assert T.dual_activation(name, 0.0) == pytest.approx(0.0, abs=1e-12)  # centred
    val, bound = T.hermite_dual_activation(name, rho, 150)
    assert np.all(np.abs(val - exact) <= bound + 1e-12)          # truncation bound holds
    inner = np.abs(rho) <= 0.8
    assert np.abs(val - exact)[inner].max() < 1e-12
    env = T.dual_activation_bound(name, rho)
    assert np.all(np.abs(exact) <= env + 1e-13)                   # [AAK] Lemma C.5
    assert env[-1] == pytest.approx(1.0, abs=1e-13)
    mu = T.coefficient_of_nonlinearity(name)                      # slope at 0 is a_1^2 = 1 - mu
    h = 1e-4
    slope = (T.dual_activation(name, h) - T.dual_activation(name, -h)) / (2 * h)
    assert slope == pytest.approx(1 - mu, abs=1e-6)


def test_dual_activation_of_normalized_relu_closed_form():
    rho = np.linspace(-1, 1, 21)
    t = np.arccos(rho)
    m2, var = 1 / (2 * math.pi), 0.5 - 1 / (2 * math.pi)
    ref = ((np.sin(t) + (math.pi - t) * rho) / (2 * math.pi) - m2) / var
    assert np.allclose(T.dual_activation("relu", rho), ref, atol=1e-14)
    assert np.allclose(T.dual_activation("relu", rho, method="quadrature"), ref, atol=1e-13)


def test_bad_arguments():
    with pytest.raises(ValueError, match="rho"):
        T.dual_activation("norm_tanh", 1.5)
    with pytest.raises(ValueError, match="n_terms"):
        T.hermite_coefficients("tanh", 0)
    with pytest.raises(ValueError, match="unknown activation"):
        T.coefficient_of_nonlinearity("softsign")
