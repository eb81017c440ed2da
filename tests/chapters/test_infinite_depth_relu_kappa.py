"""Chapter 04, :mod:`lib.chapters.infinite_depth.relu_kappa`: [LH] Thm 4.3: kappa -> (n+3)/3."""
import numpy as np
import pytest
from matplotlib.figure import Figure

from lib.data.datasets import gaussian_data, load_digits_subset
from lib.spectra import condition_number
from lib.chapters.infinite_depth.relu_kappa import (check_thm43, compute_kappa_study, finite_kappa, plot_kappa,
                                                    relu_kappa_vs_depth)


def test_relu_kappa_tends_to_n_plus_3_over_3():
    n = 8
    X = gaussian_data(n, 5, seed=2, unit_norm=True)
    k = relu_kappa_vs_depth(X, [1, 10, 3000])
    # the limit matrix 3/4 I + 1/4 11^T has exactly this condition number
    assert condition_number(0.75 * np.eye(n) + 0.25) == pytest.approx((n + 3) / 3, rel=1e-12)
    assert np.all(k.limit == (n + 3) / 3)
    err = np.abs(k.ratio.to_numpy() - 1)
    assert err[-1] < 0.05 and err[-1] < err[0]


def test_finite_kappa_matches_theory_at_small_depth():
    X = load_digits_subset(6, seed=0, unit_norm=True)
    f = finite_kappa(X, [2048], [1], 2)
    k = relu_kappa_vs_depth(X, [1]).kappa.iloc[0]
    # kappa of a 6x6 kernel with O(1/sqrt(m)) entry noise: a 25% band is ~10 standard errors here
    assert abs(f.kappa.median() / k - 1) < 0.25


def test_nested_subsets_equal_separate_kernels():
    X = gaussian_data(9, 4, seed=5, unit_norm=True)
    a = relu_kappa_vs_depth(X, [3], ns=[4, 9])
    b = relu_kappa_vs_depth(X[:4], [3])
    assert a[a.n == 4].kappa.iloc[0] == pytest.approx(b.kappa.iloc[0], rel=1e-12)
    with pytest.raises(ValueError, match="subset sizes"):
        relu_kappa_vs_depth(X, [1], ns=[20])


def test_check_thm43_prediction_and_counterfactual():
    kap, fkap = compute_kappa_study([5], 3000, 5, 64, [1], 1)
    assert check_thm43(kap, fkap, 64, [1]).status == "reproduced"
    # kappa stuck at 3 (n+3)/3 (e.g. a linear network's growing condition number): not reproduced
    bad = kap.assign(kappa=3 * kap.limit, ratio=3.0)
    assert check_thm43(bad, fkap, 64, [1]).status == "not reproduced"
    # kappa still approaching the limit at the deepest depth (too shallow to decide): inconclusive
    ratio = 1 + 3 / np.log(kap.depth + 3)
    mid = kap.assign(kappa=ratio * kap.limit, ratio=ratio)
    assert check_thm43(mid, fkap, 64, [1]).status == "inconclusive"


def test_plot_kappa_draws_two_axes():
    fig = plot_kappa(*compute_kappa_study([5], 100, 5, 32, [1], 1), [5], 32)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
