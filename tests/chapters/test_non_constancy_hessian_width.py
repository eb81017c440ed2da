"""Chapter 05 Hessian norm against width (lib.chapters.non_constancy.hessian_width): checks with prediction and
counterfactual; Figure 5.4."""

from dataclasses import replace

from matplotlib.figure import Figure

from lib.chapters import non_constancy as NC
from chapter_fakes import non_constancy as F


def test_check_hessian():
    c = NC.check_hessian(F.make_hessian())
    assert c.status == "reproduced" and c.claim_id == "[LZB] Thm 3.2" and "linear-output net: yes" in c.measured
    assert NC.check_hessian(F.make_hessian(lin_slope=0.0)).status == "not reproduced"  # a non-linear output's norm
    assert NC.check_hessian(F.make_hessian(lin_slope=-1.0)).status == "reproduced"  # a bound: steeper agrees
    assert NC.check_hessian(F.make_hessian(lin_slope=-0.2)).status == "reproduced with caveat"
    unconv = NC.check_hessian(F.make_hessian(converged=False))
    assert unconv.status == "inconclusive" and "underestimate" in unconv.caveat


def test_check_hessian_reads_the_linear_output_power_iterations_only():
    assert NC.check_hessian(F.make_hessian(unconverged=("swish", "softmax"))).status == "reproduced"
    assert NC.check_hessian(F.make_hessian(unconverged=("linear",))).status == "inconclusive"


def test_check_nonlinear_hessian():
    c = NC.check_nonlinear_hessian(F.make_hessian())
    assert c.status == "reproduced" and c.claim_id == "[LZB] Eq 29"
    assert NC.check_nonlinear_hessian(F.make_hessian(nl_slope=-0.5)).status == "not reproduced"  # linear-output-like
    assert NC.check_nonlinear_hessian(F.make_hessian(converged=False)).status == "inconclusive"
    assert NC.check_nonlinear_hessian(F.make_hessian(unconverged=("linear",))).status == "reproduced"
    assert NC.check_nonlinear_hessian(F.make_hessian(unconverged=("softmax",))).status == "inconclusive"
    assert NC.check_nonlinear_hessian(F.make_hessian(nl_slope=NC.FLAT - 0.01)).status == "reproduced"
    assert NC.check_nonlinear_hessian(F.make_hessian(nl_slope=NC.FLAT + 0.01)).status == "not reproduced"
    assert NC.check_nonlinear_hessian(F.make_hessian(nl_slope=-NC.FLAT - 0.01)).status == "not reproduced"


def test_plot_hessian_returns_a_figure():
    fig = NC.plot_hessian(F.make_hessian())
    assert isinstance(fig, Figure) and len(fig.axes) == 2  # the Hessian (at w_0 and in the ball), the kernel
    assert len(NC.plot_hessian(replace(F.make_hessian(ball=False), kernel=None)).axes) == 1


def test_figure_hessian_setting_and_the_judged_row():
    f = NC.figure_hessian(F.make_hessian())
    assert f["label"] == "fig-hessian-width" and f["drawn_by"] is NC.plot_hessian
    assert "widths m = 20, 200, 2,000" in f["setting"] and "every run converged" in f["setting"]
    (row,) = NC.check_hessian(F.make_hessian()).rows
    assert row["paper"] == "-0.5" and row["this book"] == "-0.50 (m = 20 to 2,000)" and row["holds"] is True
    assert row["statement"] == "Hessian norm in the ball, linear output, against m"
    assert "the ball of radius R = 10 searched at m = 20, 200, 2,000 (2 seed(s): w_0, 1 random" in f["setting"]
    (row,) = NC.check_hessian(F.make_hessian(converged=False)).rows
    assert row["holds"] is None and "did not converge" in row["rule"]
