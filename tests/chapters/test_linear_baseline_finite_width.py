"""Chapter 01 finite-width deviations (lib.chapters.linear_baseline.finite_width): [LH] Thm 2.3 (norms and
angles) and Cor 2.4 (K proportional to G), each with the paper's prediction and a counterfactual; Figure 1.1."""

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from lib.chapters.linear_baseline import finite_width as FW
from chapter_fakes import linear_baseline as F


# ---------------------------------------------------------------- [LH] Thm 2.3 (norms and angles)


def test_norms_angles_reproduced_when_every_deviation_vanishes():
    assert FW.check_norms_angles(F.sweep()).status == "reproduced"
    c = FW.check_norms_angles(F.real_sweep("linear"))
    assert (c.claim_id, c.part, c.status) == ("[LH] Thm 2.3", "norms and angles", "reproduced")


def test_norms_angles_not_reproduced_for_a_relu_network_or_a_lasting_offset():
    assert FW.check_norms_angles(F.sweep(offset=0.3)).status == "not reproduced"
    c = FW.check_norms_angles(F.real_sweep("relu"))
    assert c.status == "not reproduced" and "gradient-angle" in c.measured


def test_norms_angles_one_width_inconclusive_and_depth_zero_not_checked():
    c = FW.check_norms_angles(F.sweep(widths=[256]))
    assert c.status == "inconclusive" and "one width" in c.caveat
    c = FW.check_norms_angles(F.sweep()[lambda d: d.depth == 0])
    assert c.status == "not checked" and c.caveat.startswith("not testable on this data")
    assert c.part == "norms and angles"


# ---------------------------------------------------------------- [LH] Cor 2.4 (K proportional to G)

def test_kernel_shape_reproduced_for_linear_not_for_relu():
    assert FW.check_kernel(F.sweep()).status == "reproduced"
    assert FW.check_kernel(F.real_sweep("linear")).status == "reproduced"
    assert FW.check_kernel(F.sweep(offset=0.2)).status == "not reproduced"
    # O(1) shape error left
    assert FW.check_kernel(F.real_sweep("relu")).status in ("not reproduced", "reproduced with caveat")


def test_kernel_shape_depth_zero_not_checked():
    c = FW.check_kernel(F.sweep()[lambda d: d.depth == 0])
    assert (c.claim_id, c.part, c.status) == ("[LH] Cor 2.4", "K proportional to G", "not checked")
    assert c.caveat == "not testable on this data: at depth 0 the NTK is G exactly"


def test_plot_width_trend_returns_two_axes():
    fig = FW.plot_width_trend(F.real_sweep("linear"))
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    plt.close(fig)
