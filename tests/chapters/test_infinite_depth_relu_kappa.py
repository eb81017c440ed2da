"""Chapter 04, :mod:`lib.chapters.infinite_depth.relu_kappa`: [LH] Thm 4.3: kappa -> (n+3)/3."""
from dataclasses import replace

import numpy as np
import pytest
from matplotlib.figure import Figure

from lib.book.wording import paper_vs_book
from lib.data.datasets import gaussian_data, load_digits_subset
from lib.spectra import condition_number
from lib.chapters.infinite_depth import SPEC
from lib.chapters.infinite_depth.relu_kappa import (check_thm43, figure_kappa_depth, finite_kappa, measure_kappa,
                                                    plot_kappa, relu_kappa_vs_depth)

#: n = 5 inputs to depth 3000, finite width 64 at depth 1, one seed
CFG = SPEC.config(kappa_ns=[5], kappa_max_depth=3000, gauss_dim=5, fw_width=64, fw_depths=[1], seeds=1)


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
    k = measure_kappa(CFG)
    assert (k.ns, k.max_depth, k.gauss_dim, k.fw_width, k.fw_depths, k.seeds) == ([5], 3000, 5, 64, [1], 1)
    c = check_thm43(k)
    assert c.status == "reproduced"
    # the judged rows: the paper's limit beside kappa at the deepest depth, one per data set and n
    last = k.kap[k.kap.depth == k.kap.depth.max()].set_index("data")
    assert [r["statement"] for r in c.rows] == ["NTK condition number kappa, Gaussian, n = 5",
                                                "NTK condition number kappa, digits, n = 5"]
    assert all(r["paper"] == "(n+3)/3 = 2.67" and r["holds"] for r in c.rows)
    assert c.rows[1]["this book"] == f"{last.loc['digits', 'kappa']:.2f} at L = 3,000"
    table = paper_vs_book([c])  # the "paper vs this book" table renders the judged rows, never re-judges
    assert list(table.claim) == ["[LH] Thm 4.3"] * 2 and list(table.holds) == ["yes", "yes"]
    # kappa stuck at 3 (n+3)/3 (e.g. a linear network's growing condition number): not reproduced
    bad = check_thm43(replace(k, kap=k.kap.assign(kappa=3 * k.kap.limit, ratio=3.0)))
    assert bad.status == "not reproduced" and bad.rows[1]["this book"].startswith("8.00") and not bad.rows[1]["holds"]
    # kappa still approaching the limit at the deepest depth (too shallow to decide): inconclusive
    ratio = 1 + 3 / np.log(k.kap.depth + 3)
    assert check_thm43(replace(k, kap=k.kap.assign(kappa=ratio * k.kap.limit, ratio=ratio))).status == "inconclusive"


def test_the_study_carries_its_settings_and_draws_two_axes():
    k = measure_kappa(SPEC.config(kappa_ns=[5], kappa_max_depth=100, gauss_dim=5, fw_width=32, fw_depths=[1], seeds=1))
    args = figure_kappa_depth(k)
    assert "the first n = 5 of one sample" in args["setting"]
    assert "finite width m = 32 at depths 1, 1 seeds" in args["setting"]
    data = args["data"]
    assert len(data) == len(k.kap) + len(k.fkap) and set(data.width) == {32, float("inf")}
    fig = plot_kappa(k)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
