"""Chapter 05: the synthetic runs and Hessian norms of chapter_fakes.non_constancy follow the power laws
they are given."""
from chapter_fakes.non_constancy import make_hessian, make_runs

from lib.chapters import non_constancy as NC


def test_fakes_follow_the_power_laws_they_are_given():
    mean_w = NC.kernel_change_by_width(make_runs(lin_slope=-0.7, nl_slope=0.2))
    s = NC.width_slopes(mean_w, ["linear", "swish"])
    assert abs(s["linear"] + 0.7) < 0.01 and abs(s["swish"] - 0.2) < 0.01
    h = make_hessian(b_slope=-0.4)
    assert set(h.bottleneck.sweep) == {"b", "m"} and len(h.frame) == 2 * 3 * 3
