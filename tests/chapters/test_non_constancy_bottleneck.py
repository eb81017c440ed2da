"""Chapter 05 bottleneck (lib.chapters.non_constancy.bottleneck): the kernel and Hessian checks of [m, b, m]
nets, prediction and counterfactual; Figures 5.2 and 5.5."""
from dataclasses import replace

from matplotlib.figure import Figure

from lib.chapters import non_constancy as NC
from chapter_fakes import non_constancy as F


def test_check_bottleneck():
    c = NC.check_bottleneck(F.make_runs())
    assert c.status == "reproduced" and c.claim_id == "[LZB] Fig 2"
    assert c.rows[0]["this book"] == "-0.50 (b = 4 to 64)" and c.rows[0]["holds"] is True
    assert "fitted slope -0.50 (the bound: -0.5 or steeper)" in c.measured
    flat = NC.check_bottleneck(F.make_runs(b_slope=0.0))
    assert flat.status == "not reproduced" and flat.rows[0]["holds"] is False
    steep = NC.check_bottleneck(F.make_runs(b_slope=-1.2))  # a bound: a steeper fall agrees with it
    assert steep.status == "reproduced" and "Steeper than b^(-1/2)" in steep.measured
    slow = NC.check_bottleneck(F.make_runs(b_slope=-0.2))
    assert slow.status == "reproduced with caveat" and "more slowly than b^(-1/2)" in slow.caveat


def test_check_bottleneck_hessians():
    c = NC.check_bottleneck_hessian(F.make_hessian())
    assert c.status == "reproduced" and c.claim_id == "[LZB] Thm 3.3" and "(b=4)" in c.measured
    flat = NC.check_bottleneck_hessian(F.make_hessian(b_slope=0.0))
    assert flat.status == "not reproduced" and flat.rows[0]["holds"] is False  # not set by b
    assert NC.check_bottleneck_hessian(F.make_hessian(b_slope=-1.0)).status == "reproduced"  # a bound
    assert NC.check_bottleneck_hessian(F.make_hessian(b_slope=-0.2)).status == "reproduced with caveat"
    unconv = NC.check_bottleneck_hessian(F.make_hessian(converged=False))
    assert unconv.status == "inconclusive" and unconv.caveat == NC.UNCONVERGED and unconv.rows[0]["holds"] is None
    w = NC.check_bottleneck_hessian_width(F.make_hessian())
    assert w.status == "reproduced" and w.claim_id == "[LZB] Thm 4.1" and "(m=2000)" in w.measured
    assert "linear-output net falls to 0.101 at m=2000" in w.measured  # 100^(-1/2) x 1.005 (seed mean)
    # a wide net's norm (falling like m^(-1/2)) fed in as the bottleneck net's: not reproduced
    assert NC.check_bottleneck_hessian_width(F.make_hessian(bm_slope=-0.5)).status == "not reproduced"
    assert NC.check_bottleneck_hessian_width(F.make_hessian(bm_slope=-0.2)).status == "reproduced with caveat"
    assert NC.check_bottleneck_hessian_width(F.make_hessian(converged=False)).status == "inconclusive"
    h = replace(F.make_hessian(), bottleneck=None)
    assert NC.check_bottleneck_hessian(h).status == "not checked"
    assert NC.check_bottleneck_hessian_width(h).status == "not checked"


def test_plots_return_figures():
    fig = NC.plot_bottleneck(F.make_runs())
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    fig = NC.plot_bottleneck_hessian(F.make_hessian())
    assert isinstance(fig, Figure) and len(fig.axes) == 2


def test_figures_carry_caption_code_and_the_setting_of_the_result():
    f = NC.figure_bottleneck(F.make_runs())
    assert f["label"] == "fig-kernel-bottleneck" and f["drawn_by"] is NC.plot_bottleneck
    assert f["data_from"] is NC.measure_kernel_runs and "$b^{-1/2}$" in f["caption"]
    assert "m = 256, b = 4, 16, 64" in f["setting"] and "2 seeds" in f["setting"] and "{profile}" in f["setting"]
    g = NC.figure_bottleneck_hessian(F.make_hessian())
    assert "b = 4, 16, 64 at m = 256 (left)" in g["setting"] and "maximized over 2 inputs" in g["setting"]
