"""Chapter 04, :mod:`lib.chapters.infinite_depth.gradient_angle`: [LH] Thm 3.5: phi -> arccos(1/4)."""
import math

import numpy as np
from matplotlib.figure import Figure

from lib.chapters.infinite_depth.gradient_angle import (PHI_INF, check_thm35, compute_phi_profile,
                                                        phi_depth_profile, plot_phi_depth)


def test_phi_profile_approaches_arccos_quarter():
    p = phi_depth_profile([0.2, 2.0], 30000)
    last = p[p.depth == p.depth.max()]
    assert np.all(np.abs(last.gap) < math.radians(0.2))
    first = p[p.depth == 1]
    assert np.all(np.abs(last.gap.to_numpy()) < np.abs(first.gap.to_numpy()))


def test_check_thm35_prediction_and_counterfactuals():
    angles = [0.1, 10.0, 90.0]
    assert check_thm35(compute_phi_profile(angles, 100000), angles).status == "reproduced"
    short = compute_phi_profile(angles, 300)  # converging but not yet within 1 deg at 0.1 deg
    c = check_thm35(short, angles)
    assert c.status == "inconclusive" and "depth 300 is not enough" in c.caveat
    p = compute_phi_profile(angles, 100000)
    # phi moving towards 90 deg (the limit of tanh or GeLU, [LH] Fig 2), away from arccos(1/4): the gap grows
    phi = math.pi / 2 - 0.1 / (1 + p.depth)
    away = p.assign(phi=phi, gap=phi - PHI_INF)
    assert check_thm35(away, angles).status == "not reproduced"


def test_plot_phi_depth_draws_two_axes():
    fig = plot_phi_depth(compute_phi_profile([1.0, 90.0], 1000), [1.0, 90.0], 1000)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
