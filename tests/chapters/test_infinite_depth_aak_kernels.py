"""Chapter 04, :mod:`lib.chapters.infinite_depth.aak_kernels`: kernel kappa against depth, the [AAK] rate constants."""
import math

import numpy as np
import pytest

from lib.data.datasets import load_digits_subset
from lib.chapters.infinite_depth.aak_kernels import activation_rates, kernel_kappa_vs_depth
from lib.chapters.infinite_depth.numerics import decay_slope


def test_normalized_tanh_decorrelates_at_rate_one_minus_mu():
    from scipy import integrate
    from lib.activations import get_activation
    act = get_activation("norm_tanh")
    pdf = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    a1 = integrate.quad(lambda z: z * float(act.np_fn(np.float64(z))) * pdf(z), -12, 12, epsabs=1e-13)[0]
    mu = 1 - a1 ** 2  # independent of lib.theory
    X = load_digits_subset(6, seed=3, unit_norm=True)
    rates = activation_rates("norm_tanh")
    assert rates.mu == pytest.approx(mu, abs=1e-9) and rates.centred
    k = kernel_kappa_vs_depth(X, "norm_tanh", 300)
    s, _, _ = decay_slope(k.depth, k.kappa_nngp - 1)
    assert s == pytest.approx(math.log(1 - mu), rel=0.02)  # asymptotic regime: correlations ~ (1 - mu)^L
    assert k.kappa_ntk.iloc[-1] < 1 + 1e-9 and k.kappa_nngp.iloc[-1] < 1 + 1e-6


def test_activation_rates_of_relu():
    r = activation_rates("relu")
    # relu: E s = 1/sqrt(2 pi); normalized relu has a_1 = E[z relu] / sd = (1/2) / sqrt(1/2 - 1/(2 pi))
    assert r.mean == pytest.approx(1 / math.sqrt(2 * math.pi), rel=1e-10) and not r.centred
    assert r.mu == pytest.approx(1 - 0.25 / (0.5 - 1 / (2 * math.pi)), abs=1e-10)
    assert r.chi == pytest.approx(1.0, abs=1e-10) and r.slope_ntk == 0.0  # c E[s'^2] = 2 * 1/2: no decay
    assert r.slope("nngp") == r.slope_nngp == pytest.approx(math.log(1 - r.mu), rel=1e-12)
