"""Chapter 05 kernel change against width (lib.chapters.non_constancy.kernel_width): each check on synthetic
runs where the paper's prediction holds and a counterfactual where it does not; Figure 5.1."""

from matplotlib.figure import Figure

from lib.chapters import non_constancy as NC
from chapter_fakes import non_constancy as F


def test_check_linear_kernel():
    c = NC.check_linear_kernel(F.make_runs())
    assert c.status == "reproduced" and c.claim_id == "[LZB] Remark 3.5" and "fitted slope -0.50." in c.measured
    steep = NC.check_linear_kernel(F.make_runs(lin_slope=-1.0))  # O(1/m): constant, faster than the bound's rate
    assert steep.status == "reproduced" and "steeper than -1/2" in steep.measured
    assert NC.check_linear_kernel(F.make_runs(lin_slope=-0.2)).status == "reproduced with caveat"
    # a non-linear output's numbers fed in as the linear output's: the change does not vanish
    assert NC.check_linear_kernel(F.make_runs(lin_slope=0.0)).status == "not reproduced"


def test_check_linear_model():
    c = NC.check_linear_model(F.make_runs())
    assert c.claim_id == "[LZB] Prop 2.2" and c.status == "reproduced"
    assert NC.check_linear_model(F.make_runs(lm_change=1e-3)).status == "not reproduced"  # a moving kernel
    constant = F.make_runs()
    constant.df_b = constant.df_b.assign(delta_K=0.0)  # a non-linear model whose kernel never moves
    assert NC.check_linear_model(constant).status == "not reproduced"
    missing = F.make_runs()
    missing.df_lm = None
    assert NC.check_linear_model(missing).status == "not checked"


def test_check_weight_change():
    c = NC.check_weight_change(F.make_runs())
    assert c.claim_id == "[LZB] Eq 2" and c.status == "reproduced"
    assert NC.check_weight_change(F.make_runs(move_slope=-0.5)).status == "not reproduced"  # lazy: vanishing move
    assert NC.check_weight_change(F.make_runs(move_slope=-0.2)).status == "reproduced with caveat"


def test_check_nonlinear_kernel():
    c = NC.check_nonlinear_kernel(F.make_runs())
    assert c.status == "reproduced" and "fitted slopes 0.00 (swish)" in c.measured
    # a linear output's numbers fed to the non-linear check: the change falls with width
    assert NC.check_nonlinear_kernel(F.make_runs(nl_slope=-0.5)).status == "not reproduced"
    assert NC.check_nonlinear_kernel(F.make_runs(nl_level=0.05)).status == "not reproduced"  # flat but tiny


def test_plot_width_trend_returns_a_figure():
    fig = NC.plot_width_trend(F.make_runs())
    assert isinstance(fig, Figure) and len(fig.axes) == 1
