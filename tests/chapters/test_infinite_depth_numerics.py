"""Chapter 04, :mod:`lib.chapters.infinite_depth.numerics`: depth grids, rate fits and shared helpers."""
import math

import numpy as np
import pytest

from lib.chapters.infinite_depth.numerics import (_max_offdiagonal, _nearest, _not_checked, _unit_diagonal,
                                                  decay_slope, fit_rate, log_depths)


def test_log_depths():
    d = log_depths(1000, 4)
    assert d[0] == 0 and d[-1] == 1000 and np.all(np.diff(d) > 0)
    with pytest.raises(ValueError, match="max_depth"):
        log_depths(0)


def test_fit_rate_recovers_a_power_law():
    x = np.geomspace(10, 1e6, 30)
    s, b = fit_rate(x, 3.0 * x ** -0.8)
    assert s == pytest.approx(-0.8, abs=1e-12) and b == pytest.approx(math.log(3.0), abs=1e-10)
    with pytest.raises(ValueError, match="3 positive"):
        fit_rate([1, 2], [1, 1])


def test_decay_slope_recovers_an_exponential_and_ignores_the_floor():
    L = np.arange(40)
    v = 5.0 * 0.7 ** L
    v[v < 1e-10] = 1e-16  # rounding floor: must not enter the fit
    s, a, b = decay_slope(L, v, floor=1e-12)
    assert s == pytest.approx(math.log(0.7), rel=1e-10)
    assert v[b] > 1e-12
    with pytest.raises(ValueError, match="fewer than 3"):
        decay_slope([0, 1], [1.0, 0.5])


def test_unit_diagonal_nearest_and_not_checked():
    K = np.array([[4.0, 2.0], [2.0, 9.0]])
    C = _unit_diagonal(K)
    np.testing.assert_allclose(np.diag(C), 1.0)
    assert C[0, 1] == pytest.approx(2.0 / 6.0) and _max_offdiagonal(C) == pytest.approx(1 / 3)
    assert _nearest([0, 10, 100, 1000], 120) == 100 and _nearest(np.array([1, 5]), 3.1) == 5
    c = _not_checked("[LH] Thm 3.5", "No pair in this run.", "no input pair")
    assert c.status == "not checked" and c.caveat == "not testable on this data: no input pair"
