"""[AAK] App. C.4, D, H in lib.theory.nonlinearity: closed forms of mu, the length map, the correlation map at unequal
lengths, and the certified bound on one layer's kernel; Lemma C.2 as a property of random polynomials."""
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import lib.theory as T
from lib.activations import ACTIVATIONS, Activation, aak_activation, normrelu_lambda
from lib.validation import InputError


def test_the_closed_forms_of_app_c4_from_their_moments():
    """mu = 1 - s_hat'(0)/(s_hat(1) - s_hat(0)) with s_hat'(0) = E[z s]^2, s_hat(0) = (E s)^2, s_hat(1) = E s^2,
    computed here from textbook moments (ReLU: 1/sqrt(2 pi), 1/2, 1/2; step: 1/2, 1/2, phi(0); exp: e^(1/2), e^2,
    e^(1/2)), and against the quadrature of lib.theory."""
    phi0 = 1 / math.sqrt(2 * math.pi)
    for name, (mean, second, ezs) in {"relu": (phi0, 0.5, 0.5), "step": (0.5, 0.5, phi0),
                                      "exp": (math.exp(0.5), math.exp(2), math.exp(0.5))}.items():
        assert T.mu_closed_form(name) == pytest.approx(1 - ezs ** 2 / (second - mean ** 2), abs=1e-15)
        assert T.coefficient_of_nonlinearity(aak_activation(name)) == pytest.approx(T.mu_closed_form(name), abs=1e-12)
    assert T.mu_closed_form("relu") == pytest.approx(0.2665, abs=1e-4)  # the value [AAK] print
    assert (T.mu_closed_form("linear"), T.mu_closed_form("hermite2")) == (0.0, 1.0)
    with pytest.raises(InputError, match="no closed form of mu for 'tanh'"):
        T.mu_closed_form("tanh")


def test_exp_dual_kernel_is_e_to_the_one_plus_rho():
    theta = np.linspace(0.1, 3.0, 7)
    ess, _ = T.dual_expectations(aak_activation("exp"), theta, 1.0, 1.0, "direct")
    np.testing.assert_allclose(ess, np.exp(1 + np.cos(theta)), rtol=1e-11)


def test_normrelu_mu_closed_form_matches_the_quadrature_and_lambda_is_the_registry_s():
    b = ACTIVATIONS["normrelu"].kinks[0]
    assert normrelu_lambda(b) == pytest.approx(1.0507, abs=1e-9)
    assert T.normrelu_mu(b) == pytest.approx(T.coefficient_of_nonlinearity("normrelu"), abs=1e-12)
    assert T.normrelu_mu(0.0) == pytest.approx(T.coefficient_of_nonlinearity("relu"), abs=1e-12)  # b = 0: ReLU


def test_length_map_fixed_point_homogeneity_convergence_and_divergence():
    q0 = [0.25, 1.0, 4.0]
    np.testing.assert_allclose(T.length_map("relu", q0, 5)[-1], q0, rtol=1e-12)   # q -> q: every length kept
    tanh = T.length_map("tanh", q0, 80)
    np.testing.assert_allclose(tanh[-1], 1.0, atol=1e-9)
    assert tanh[:, 1] == pytest.approx(1.0, abs=1e-12)                            # q = 1 is the fixed point
    shifted = T.length_map(aak_activation("shifted_relu"), [0.5, 2.0], 200)
    assert np.isnan(shifted[-1]).all()                                              # both left the range
    assert np.nanmin(shifted[:, 0]) < T.LENGTH_RANGE[0] and np.nanmax(shifted[:, 1]) > T.LENGTH_RANGE[1]
    with pytest.raises(InputError, match="positive"):
        T.length_map("tanh", [0.0], 3)


def test_correlation_map_odd_and_centred():
    rho = np.array([-0.5, 0.0, 0.7])
    # an odd activation keeps rho = 0 at any lengths, and never increases |rho|
    out = T.correlation_map("tanh", rho, 0.25, 4.0)
    assert out[1] == pytest.approx(0.0, abs=1e-15) and np.all(np.abs(out) <= np.abs(rho) + 1e-12)
    # at unit lengths a normalized activation's map is its dual activation
    np.testing.assert_allclose(T.correlation_map("norm_tanh", rho, 1.0, 1.0), T.dual_activation("norm_tanh", rho),
                               atol=1e-12)
    # a non-odd centred activation at unequal lengths raises |rho| at rho = 0 (the lemma's premise matters)
    assert T.correlation_map("norm_relu", 0.0, 0.25, 0.25) > 0.1


def test_hadamard_power_bound_is_exact_on_a_hand_example_and_refuses_bad_input():
    G = np.array([[1, .5, .2], [.5, 1, .1], [.2, .1, 1]])
    # k = 1: 1 - 0.7 = 0.3; k = 2: 1 - (0.25 + 0.04) = 0.71, times 0.5
    assert T.hadamard_power_bound(G, [7.0, 1.0, 0.5]) == pytest.approx(0.3 + 0.355, abs=1e-15)
    assert T.hadamard_power_bound(np.ones((2, 2)), [0, 1, 1]) == 0.0   # parallel points: no bound
    with pytest.raises(InputError, match="unit diagonal"):
        T.hadamard_power_bound(2 * G, [1.0])
    with pytest.raises(InputError, match="non-negative"):
        T.hadamard_power_bound(G, [1.0, -1.0])


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 12), st.integers(2, 5))
def test_hadamard_power_bound_never_exceeds_lambda_min(seed, n, d):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1)[:, None]
    G = X @ X.T
    G[np.diag_indices(n)] = 1.0
    c = rng.random(30) / np.arange(1, 31) ** 2
    K = sum(ck * G ** k for k, ck in enumerate(c))
    assert T.hadamard_power_bound(G, c) <= np.linalg.eigvalsh(K)[0] + 1e-12


def _poly(coef) -> Activation:
    p = np.polynomial.Polynomial(coef)
    dp = p.deriv()
    return Activation("poly", lambda z: sum(c * z ** k for k, c in enumerate(coef)), lambda z: p(np.asarray(z)),
                      lambda z: dp(np.asarray(z)), c=1.0)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-3, 3, allow_nan=False), min_size=2, max_size=6))
def test_lemma_c2_mu_in_0_1_for_random_polynomials(coef):
    """[AAK] Lemma C.2: mu in (0, 1] for every non-linear normalized activation, 0 for an affine one."""
    coef = [round(c, 3) for c in coef]
    if all(c == 0 for c in coef[1:]):
        return  # a constant cannot be normalized
    mu = T.coefficient_of_nonlinearity(_poly(coef))
    if all(c == 0 for c in coef[2:]):
        assert mu == pytest.approx(0.0, abs=1e-12)
    else:
        assert 0 < mu <= 1 + 1e-12
        # the same mu from the Hermite coefficients of the normalized polynomial: 1 - a_1^2
        a = T.hermite_coefficients(_poly(coef), len(coef) + 2)
        assert mu == pytest.approx(1 - a[1] ** 2, abs=1e-9)


def test_the_appendix_activations():
    assert aak_activation("relu") is ACTIVATIONS["relu"]
    assert aak_activation("selu").c == pytest.approx(1.0, abs=1e-6)       # SELU is self-normalizing
    z = torch.linspace(-3, 3, 13, dtype=torch.float64)
    for name in ("hermite2", "step", "exp", "leaky_relu", "selu", "sigmoid_centred", "arctan", "shifted_relu"):
        a = aak_activation(name)
        np.testing.assert_allclose(a(z).numpy(), a.np_fn(z.numpy()), atol=1e-12)
    with pytest.raises(InputError, match="unknown activation 'sigmoid'"):
        aak_activation("sigmoid")
