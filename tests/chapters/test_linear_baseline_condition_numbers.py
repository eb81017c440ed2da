"""Chapter 01 conditioning (lib.chapters.linear_baseline.condition_numbers): [LH] Cor 2.4 (kappa_bar = kappa_0)
with the paper's prediction, a ReLU counterfactual, and the untestable n > d case; Figure 1.2."""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from lib.chapters.linear_baseline import condition_numbers as CN, measure as M
from chapter_fakes import linear_baseline as F


def test_conditioning_reproduced_when_kappa_tends_to_kappa0():
    assert CN.check_conditioning(F.sweep()).status == "reproduced"
    df_over = M.measure_linear(F.digits()[1], [64], [1], 1)
    c = CN.check_conditioning(F.real_sweep("linear"), df_over)
    assert (c.part, c.status) == ("conditioning", "reproduced")
    assert "an illustration, not a test" in c.measured


def test_conditioning_not_reproduced_for_a_relu_network():
    assert CN.check_conditioning(F.sweep(kappa_offset=-0.7)).status == "not reproduced"
    assert CN.check_conditioning(F.real_sweep("relu")).status == "not reproduced"


def test_conditioning_is_not_testable_when_kappa0_is_infinite_or_at_depth_zero():
    df = F.sweep(kappa0=np.inf).assign(kappa=np.inf)
    c = CN.check_conditioning(df)
    assert c.status == "not checked" and c.caveat.startswith("not testable on this data")
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
