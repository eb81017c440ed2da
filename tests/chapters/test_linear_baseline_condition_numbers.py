"""Chapter 01 conditioning (lib.chapters.linear_baseline.condition_numbers): [LH] Cor 2.4 (kappa_bar = kappa_0)
with the paper's prediction, a ReLU counterfactual, and the untestable n > d case; Figure 1.2."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib.chapters.linear_baseline import condition_numbers as CN, measure as M
from lib.finite import width_trend as T
from chapter_fakes import linear_baseline as F


def test_conditioning_reproduced_when_kappa_tends_to_kappa0():
    df = F.sweep()
    c = CN.check_conditioning(df)
    assert c.status == "reproduced" and "(fit a + c/m)" in c.measured and c.rows[0]["holds"] is True
    at_deep = df[(df.depth == 3) & (df.width == 1024)].kappa.median() / 10.0  # the deepest L at the largest m
    assert c.rows[0]["this book"] == f"{at_deep:.3g} (m = 1024)" and c.measured.endswith(f"{at_deep:.3g} (m=1024).")
    df_over = M.measure_linear(F.digits()[1], [64], [1], 1)
    c = CN.check_conditioning(F.real_sweep("linear"), df_over)
    assert (c.part, c.status) == ("conditioning", "reproduced")
    assert "On the n > d data 1 of 1 networks have a singular NTK" in c.measured


def test_conditioning_not_reproduced_for_a_relu_network():
    c = CN.check_conditioning(F.sweep(kappa_offset=-0.7))  # kappa a fixed fraction of kappa_0: a negative limit
    assert c.status == "not reproduced" and c.rows[0]["holds"] is False
    assert CN.check_conditioning(F.real_sweep("relu")).status == "not reproduced"
    assert CN.check_conditioning(F.sweep(kappa_offset=0.1)).status == "not reproduced"  # a lasting excess


def test_conditioning_caveat_for_a_small_lasting_offset():
    c = CN.check_conditioning(F.sweep(kappa_offset=0.02))
    assert c.status == "reproduced with caveat" and "small non-zero offset" in c.caveat


def test_conditioning_fits_the_second_order_curve_not_the_first_order_one():
    """kappa/kappa_0 - 1 of a linear network falls like 1/m (its first-order shift has mean zero): the 1/m curve
    extrapolates it to zero, where the 1/sqrt(m) curve would extrapolate below zero (the issue's -0.238)."""
    df = F.sweep()
    deep = df[df.depth >= 1]
    per_seed = deep.assign(rel=deep.kappa / deep.kappa0 - 1).groupby(["width", "seed"], as_index=False)["rel"].mean()
    right, wrong = T.width_trend(per_seed, "rel", T.BIAS, signed=True), T.width_trend(per_seed, "rel", signed=True)
    assert abs(right.limit) <= T.NEGLIGIBLE_FRACTION * right.at_max
    assert wrong.limit < -T.LIMIT_SIGMA * wrong.limit_se
    c = CN.check_conditioning(df)
    assert f"extrapolated infinite-width deviation {right.limit:.3g}" in c.measured


def test_conditioning_averages_the_zero_mean_fluctuation_out():
    """kappa/kappa_0 - 1 = 2 L/m + a first-order fluctuation of mean zero (+-, over the seeds) that dominates at every
    m: its signed mean falls like 1/m to zero; its magnitude would fall like 1/sqrt(m) and extrapolate above zero."""
    rows = [dict(width=m, depth=L, seed=s, kappa=10 * (1 + (0 if L == 0 else 2 * L / m + sign * 3 * m ** -0.5)),
                 kappa0=10.0) for m in (64, 256, 1024, 4096) for L in (0, 1, 3) for s, sign in enumerate((1, -1))]
    df = pd.DataFrame(rows)
    c = CN.check_conditioning(df)
    assert c.status == "reproduced" and "(fit a + c/m)" in c.measured
    deep = df[df.depth >= 1]
    mag = deep.assign(rel=(deep.kappa / deep.kappa0 - 1).abs()).groupby(["width", "seed"], as_index=False)["rel"].mean()
    assert T.width_trend(mag, "rel", T.BIAS, signed=True).status == "not reproduced"


def test_conditioning_reads_the_signed_deviation():
    """kappa below kappa_0 by a fixed fraction and kappa above it by the same fraction both fail."""
    below = F.sweep(kappa_offset=-0.3)
    above = below.assign(kappa=2 * below.kappa0 - below.kappa)  # the mirror image: kappa/kappa_0 - 1 flips sign
    assert CN.check_conditioning(below).status == CN.check_conditioning(above).status == "not reproduced"


def test_conditioning_is_not_testable_when_kappa0_is_infinite_or_at_depth_zero():
    df = F.sweep(kappa0=np.inf).assign(kappa=np.inf)
    c = CN.check_conditioning(df)
    assert (c.part, c.status) == ("conditioning", "not checked") and c.caveat.startswith("not testable on this data")
    df_over = M.measure_linear(F.digits()[1], [64], [1], 1)
    c = CN.check_conditioning(F.sweep()[lambda d: d.depth == 0], df_over)
    assert (c.part, c.status) == ("conditioning", "not checked")
    assert c.measured.startswith("Only depth 0 was run. On the n > d data")


def test_plot_condition_numbers_returns_two_axes():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((4, 6))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    df = M.measure_linear(X, [8, 32], [0, 2], 2)
    df_over = M.measure_linear(rng.standard_normal((5, 2)), [32], [0, 2], 2)
    fig = CN.plot_condition_numbers(df, df_over)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    plt.close(fig)
