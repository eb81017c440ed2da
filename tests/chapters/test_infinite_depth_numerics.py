"""Chapter 04, :mod:`lib.chapters.infinite_depth.numerics`: depth grids, rate fits and shared helpers."""
import math
from types import SimpleNamespace

import numpy as np
import pytest

from lib.chapters.infinite_depth.numerics import (decay_slope, deviation_text, fit_rate, log_depths, max_offdiagonal,
                                                  nearest_depth, not_checked, prose_values, unit_diagonal)


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
    C = unit_diagonal(K)
    np.testing.assert_allclose(np.diag(C), 1.0)
    assert C[0, 1] == pytest.approx(2.0 / 6.0) and max_offdiagonal(C) == pytest.approx(1 / 3)
    assert nearest_depth([0, 10, 100, 1000], 120) == 100 and nearest_depth(np.array([1, 5]), 3.1) == 5
    c = not_checked("[LH] Thm 3.5", "No pair in this run.", "no input pair")
    assert c.status == "not checked" and c.caveat == "not testable on this data: no input pair"


def test_deviation_text_and_prose_values():
    assert deviation_text(0.01234) == "0.012" and deviation_text(1e-13) == "below 1e-09 (rounding)"
    a = SimpleNamespace(prose=lambda: {"width": "1,024"})
    b = SimpleNamespace(prose=lambda: {"n": "20", "width": "1,024"})
    assert prose_values(a, b) == {"width": "1,024", "n": "20"}
    with pytest.raises(ValueError, match="width"):  # two results disagree on one prose value
        prose_values(a, SimpleNamespace(prose=lambda: {"width": "512"}))
