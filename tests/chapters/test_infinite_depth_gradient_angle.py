"""Chapter 04, :mod:`lib.chapters.infinite_depth.gradient_angle`: [LH] Thm 3.5: phi -> arccos(1/4)."""
import math
from dataclasses import replace

import numpy as np
from matplotlib.figure import Figure

from lib.chapters.infinite_depth import SPEC
from lib.chapters.infinite_depth.gradient_angle import (PHI_INF, check_thm35, figure_phi_depth, measure_phi_profile,
                                                        phi_depth_profile, plot_phi_depth)

ANGLES = [0.1, 10.0, 90.0]


def test_phi_profile_approaches_arccos_quarter():
    p = phi_depth_profile([0.2, 2.0], 30000)
    last = p[p.depth == p.depth.max()]
    assert np.all(np.abs(last.gap) < math.radians(0.2))
    first = p[p.depth == 1]
    assert np.all(np.abs(last.gap.to_numpy()) < np.abs(first.gap.to_numpy()))


def test_check_thm35_prediction_and_counterfactuals():
    p = measure_phi_profile(SPEC.config(phi_angles=ANGLES, max_depth=100000))
    c = check_thm35(p)
    assert c.status == "reproduced"
    # the judged rows: the paper's limit beside phi at the deepest depth, one per input angle
    assert [r["statement"] for r in c.rows] == [f"gradient angle phi, input angle {a:g} deg" for a in ANGLES]
    deep = p.frame[p.frame.depth == p.frame.depth.max()].sort_values("theta_in")
    for r, phi in zip(c.rows, deep.phi):
        assert r["paper"] == "75.52 deg" and r["this book"] == f"{math.degrees(phi):.2f} deg at L = 100,000"
        assert r["holds"] is True
    short = measure_phi_profile(SPEC.config(phi_angles=ANGLES, max_depth=300))  # converging, not yet within 1 deg
    c = check_thm35(short)
    assert c.status == "inconclusive" and "depth 300 is not enough" in c.caveat
    deep = short.frame[short.frame.depth == 300].sort_values("theta_in")
    # each row: its own gap; 10 deg is not within 1 deg yet (2.7 deg) but shrinks like L^(-0.89): it holds
    assert list(np.degrees(np.abs(deep.gap)) < 1.0) == [False, False, True]
    assert [r["holds"] for r in c.rows] == [False, True, True]
    assert not c.rows[0]["holds"]  # 0.1 deg is still farther than 1 deg, and its gap shrinks like L^(-0.11) only
    # phi moving towards 90 deg (the limit of tanh or GeLU, [LH] Fig 2), away from arccos(1/4): the gap grows
    phi = math.pi / 2 - 0.1 / (1 + p.frame.depth)
    away = replace(p, frame=p.frame.assign(phi=phi, gap=phi - PHI_INF))
    c = check_thm35(away)
    assert c.status == "not reproduced" and not any(r["holds"] for r in c.rows)


def test_the_profile_carries_its_settings_and_draws_two_axes():
    p = measure_phi_profile(SPEC.config(phi_angles=[1.0, 90.0], max_depth=1000))
    assert p.angles_deg == [1.0, 90.0] and p.max_depth == 1000
    assert "input angles 1, 90 deg, depths up to 1,000" in figure_phi_depth(p)["setting"]
    fig = plot_phi_depth(p)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
