"""Chapter 01 finite-width deviations (lib.chapters.linear_baseline.finite_width): [LH] Thm 2.3 (norms and
angles) and Cor 2.4 (K proportional to G), each with the paper's prediction and a counterfactual; Figure 1.1."""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from lib.chapters.linear_baseline import finite_width as FW
from chapter_fakes import linear_baseline as F


# ---------------------------------------------------------------- [LH] Thm 2.3 (norms and angles)


def test_norms_angles_reproduced_when_every_deviation_vanishes():
    c = FW.check_norms_angles(F.sweep())
    assert c.status == "reproduced" and c.measured.startswith("At width 1024, over depths 1..3 and 3 seeds")
    assert [r["holds"] for r in c.rows] == [True, True, True] and [r["paper"] for r in c.rows] == ["1", "0", "0"]
    for name in ("norm", "embedding-angle", "gradient-angle"):
        assert f"{name}: extrapolated infinite-width deviation" in c.measured
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


def _offset_at(df, column, depth=1, offset=0.3):
    """The sweep with a lasting offset added to one deviation at one depth."""
    out = df.copy()
    out.loc[out.depth == depth, column] += offset
    return out


def test_norms_angles_judges_each_deviation_in_its_own_row():
    df = F.sweep()
    for i, col in enumerate(["norm_dev", "angle_dev", "phi_dev"]):
        c = FW.check_norms_angles(_offset_at(df, col))
        holds = [True, True, True]
        holds[i] = False
        assert c.status == "not reproduced" and [r["holds"] for r in c.rows] == holds, col
    c = FW.check_norms_angles(_offset_at(df, "phi_dev"))
    wide = _offset_at(df, "phi_dev")[lambda d: (d.width == 1024) & (d.depth >= 1)]
    assert c.rows[2]["this book"] == f"{np.degrees(wide.phi_dev.mean()):.2g} (m = 1024)"
    assert f"gradient-angle deviation {wide.phi_dev.max():.3g} rad" in c.measured
    assert c.rows[0]["this book"] == f"1 ± {wide.norm_dev.mean():.2g} (m = 1024)"
    assert c.rows[1]["this book"] == f"{np.degrees(wide.angle_dev.mean()):.2g} (m = 1024)"
    small = df.assign(phi_dev=df.phi_dev + np.where(df.depth >= 1, 0.03, 0.0))  # a small lasting offset
    c = FW.check_norms_angles(small)
    assert c.status == "reproduced with caveat" and c.caveat.startswith("gradient-angle deviation: the deviation")


def test_depth_1_is_judged():
    """Depth 0 has no hidden layer, but depth 1 does: a deviation that lasts at depth 1 alone fails the checks."""
    assert FW.check_norms_angles(_offset_at(F.sweep(), "norm_dev")).status == "not reproduced"
    assert FW.check_kernel(_offset_at(F.sweep(), "ntk_shape_err")).status == "not reproduced"


# ---------------------------------------------------------------- [LH] Cor 2.4 (K proportional to G)

def test_kernel_shape_reproduced_for_linear_not_for_relu():
    c = FW.check_kernel(F.sweep())
    assert (c.claim_id, c.part, c.status) == ("[LH] Cor 2.4", "K proportional to G", "reproduced")
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
