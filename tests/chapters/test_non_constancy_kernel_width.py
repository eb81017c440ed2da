"""Chapter 05 kernel change against width (lib.chapters.non_constancy.kernel_width): each check on synthetic
runs where the paper's prediction holds and a counterfactual where it does not; Figure 5.1."""
from dataclasses import replace

import numpy as np
from matplotlib.figure import Figure

from lib.chapters import non_constancy as NC
from chapter_fakes import non_constancy as F


def test_check_linear_kernel():
    c = NC.check_linear_kernel(F.make_runs())
    assert c.status == "reproduced" and c.claim_id == "[LZB] Remark 3.5" and "fitted slope -0.50 (" in c.measured
    steep = NC.check_linear_kernel(F.make_runs(lin_slope=-1.0))  # O(1/m): constant, faster than the bound's rate
    assert steep.status == "reproduced" and "Steeper than m^(-1/2)" in steep.measured
    slow = NC.check_linear_kernel(F.make_runs(lin_slope=-0.2))
    assert slow.status == "reproduced with caveat" and "more slowly than m^(-1/2)" in slow.caveat
    # a non-linear output's numbers fed in as the linear output's: the change does not vanish
    assert NC.check_linear_kernel(F.make_runs(lin_slope=0.0)).status == "not reproduced"


def test_check_linear_model():
    c = NC.check_linear_model(F.make_runs())
    assert c.claim_id == "[LZB] Prop 2.2" and c.status == "reproduced"
    assert NC.check_linear_model(F.make_runs(lm_change=1e-3)).status == "not reproduced"  # a moving kernel
    runs = F.make_runs()
    constant = replace(runs, df_b=runs.df_b.assign(delta_K=0.0))  # a non-linear model whose kernel never moves
    assert NC.check_linear_model(constant).status == "not reproduced"
    assert NC.check_linear_model(replace(runs, df_lm=None)).status == "not checked"


def test_linear_model_tolerances_at_their_boundaries():
    """The linear model's change at most CONSTANT_KERNEL_TOL; every other net's at least MOVING_KERNEL_MIN."""
    assert NC.check_linear_model(F.make_runs(lm_change=NC.CONSTANT_KERNEL_TOL * 0.99)).status == "reproduced"
    assert NC.check_linear_model(F.make_runs(lm_change=NC.CONSTANT_KERNEL_TOL * 1.01)).status == "not reproduced"
    runs = F.make_runs()

    def least(value):
        df_b = runs.df_b.copy()
        df_b.loc[0, "delta_K"] = value  # one bottleneck net, the least moving of all
        return NC.check_linear_model(replace(runs, df_b=df_b)).status
    assert least(NC.MOVING_KERNEL_MIN * 1.01) == "reproduced"
    assert least(NC.MOVING_KERNEL_MIN * 0.99) == "not reproduced"
    assert NC.MOVING_KERNEL_MIN > NC.CONSTANT_KERNEL_TOL  # rounding cannot pass for a change
    # the values themselves: a change of 5e-11 is rounding (under 1e-10), one of 5e-10 a moving kernel; a
    # network that changed by 5e-8 moves, one that changed by 5e-9 is indistinguishable from constant
    assert NC.check_linear_model(F.make_runs(lm_change=5e-11)).status == "reproduced"
    assert NC.check_linear_model(F.make_runs(lm_change=5e-10)).status == "not reproduced"
    assert least(5e-8) == "reproduced" and least(5e-9) == "not reproduced"
    # "at most" and "at least": each bound itself passes
    assert NC.check_linear_model(F.make_runs(lm_change=NC.CONSTANT_KERNEL_TOL)).status == "reproduced"
    assert least(NC.MOVING_KERNEL_MIN) == "reproduced"


def test_check_weight_change():
    c = NC.check_weight_change(F.make_runs())
    assert c.claim_id == "[LZB] Eq 2" and c.status == "reproduced"
    assert NC.check_weight_change(F.make_runs(move_slope=-0.5)).status == "not reproduced"  # lazy: vanishing move
    assert NC.check_weight_change(F.make_runs(move_slope=-0.2)).status == "reproduced with caveat"


def test_check_weight_change_reads_the_linear_output_nets_only():
    def runs(lin_slope, other_slope):
        r = F.make_runs()
        move = (r.df.width / 20.0) ** np.where(r.df.arch == "linear", lin_slope, other_slope)
        return replace(r, df=r.df.assign(weight_move=move))
    assert NC.check_weight_change(runs(0.0, -0.5)).status == "reproduced"
    assert NC.check_weight_change(runs(-0.5, 0.0)).status == "not reproduced"


def test_check_nonlinear_kernel():
    c = NC.check_nonlinear_kernel(F.make_runs())
    assert c.status == "reproduced" and "fitted slopes 0.00 (swish)" in c.measured
    # a linear output's numbers fed to the non-linear check: the change falls with width
    assert NC.check_nonlinear_kernel(F.make_runs(nl_slope=-0.5)).status == "not reproduced"
    assert NC.check_nonlinear_kernel(F.make_runs(nl_level=0.05)).status == "not reproduced"  # flat but tiny


def test_check_nonlinear_kernel_boundaries_and_its_row():
    assert NC.check_nonlinear_kernel(F.make_runs(nl_slope=NC.FLAT * 0.9)).status == "reproduced"
    assert NC.check_nonlinear_kernel(F.make_runs(nl_slope=-NC.FLAT * 1.1)).status == "not reproduced"
    runs = F.make_runs()

    def least(value):  # every swish net changes by exactly ``value``: the least change of all
        return NC.check_nonlinear_kernel(replace(runs, df=runs.df.assign(
            delta_K=np.where(runs.df.arch == "swish", value, runs.df.delta_K))))
    assert least(NC.O1_CHANGE * 1.01).status == "reproduced"
    assert least(NC.O1_CHANGE).status == "not reproduced"  # above O1_CHANGE, strictly
    flat, falling = NC.check_nonlinear_kernel(runs), NC.check_nonlinear_kernel(F.make_runs(nl_slope=-0.5))
    assert flat.rows[0]["holds"] is True and falling.rows[0]["holds"] is False
    # the slopes as the row and the sentence print them: two decimals, and no "-0.00"
    assert "slopes 0.12 (swish) and 0.12 (softmax)" in NC.check_nonlinear_kernel(F.make_runs(nl_slope=0.12)).measured
    tiny = NC.check_nonlinear_kernel(F.make_runs(nl_slope=-0.001))
    assert "slopes 0.00 (swish)" in tiny.measured and tiny.rows[0]["this book"].startswith("0.00 (swish)")


def test_plot_width_trend_returns_a_figure():
    fig = NC.plot_width_trend(F.make_runs())
    assert isinstance(fig, Figure) and len(fig.axes) == 1


def test_figure_width_trend_setting_comes_from_the_runs():
    f = NC.figure_width_trend(F.make_runs())
    assert f["label"] == "fig-kernel-width" and f["drawn_by"] is NC.plot_width_trend
    s = f["setting"]
    assert "n = 12 unit-norm Gaussian points in d = 10" in s and "widths m = 20, 200, 2,000" in s
    assert "softmax (3 outputs)" in s and "below 0.01 of its start (at most 1,500 steps)" in s
    assert "24 nets trained, 24 reached the tolerance" in s and "Departs from [LZB] Sec. 6" in s
    other = NC.figure_width_trend(replace(F.make_runs(), rel_tol=1e-4, activation="gelu"))["setting"]
    assert "below 0.0001 of its start" in other and "gelu hidden units" in other
