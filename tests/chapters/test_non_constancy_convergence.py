"""Chapter 05 along training (lib.chapters.non_constancy.convergence): [LZB] Thm 5.1 with prediction and
counterfactuals; Figures 5.3 and 5.6."""

import pytest
from matplotlib.figure import Figure

from lib.chapters import non_constancy as NC
from chapter_fakes import non_constancy as F


def test_check_convergence():
    c = NC.check_convergence(F.make_runs())
    assert c.status == "reproduced" and "4 of 4 non-linear-output nets" in c.measured
    assert NC.check_convergence(F.make_runs(nl_steps=1500)).status == "reproduced with caveat"  # 15x slower
    c = NC.check_convergence(F.make_runs(nl_converged=False))  # capped while the loss still fell geometrically
    assert c.status == "inconclusive" and "step cap" in c.caveat
    assert NC.check_convergence(F.make_runs(nl_converged=False, nl_loss_rate=1.0)).status == "not reproduced"  # stall


@pytest.mark.parametrize("plot,n_axes", [("plot_kernel_paths", 1), ("plot_convergence", 2)])
def test_plots_return_figures(plot, n_axes):
    fig = getattr(NC, plot)(F.make_runs())
    assert isinstance(fig, Figure) and len(fig.axes) == n_axes


def test_figures_name_their_code_and_setting():
    paths = NC.figure_kernel_paths(F.make_runs())
    assert paths["drawn_by"] is NC.plot_kernel_paths and NC.train_tracked in paths["data_from"]
    assert "(b = 4, m = 256), seed 0" in paths["setting"] and "kernel every 10 steps" in paths["setting"]
    conv = NC.figure_convergence(F.make_runs())
    assert conv["label"] == "fig-moving-kernel-convergence" and r"$(1-\eta\mu)^t$" in conv["caption"]
    assert "the widest nets (m = 2,000), seed 0" in conv["setting"] and "Thm 5.1" in conv["setting"]
