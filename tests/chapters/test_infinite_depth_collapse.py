"""Chapter 04, :mod:`lib.chapters.infinite_depth.collapse`: [LH] App. A: the map g and the collapse of embeddings."""
import math
from dataclasses import replace

import numpy as np
import pytest
from matplotlib.figure import Figure

from lib.chapters.infinite_depth import SPEC
from lib.chapters.infinite_depth.collapse import (check_g_plot, check_prop_a1, check_thm_a2, collapse_profile,
                                                  figure_collapse, g_iterates, measure_collapse, plot_collapse)

CFG = SPEC.config(g_levels=[1, 5], collapse_angles=[10.0, 90.0], collapse_depth=20000, fw_collapse_depth=3,
                  fw_width=64, seeds=1)


def test_collapse_rate_is_three_pi_over_l():
    # g(z) = z - z^2/(3 pi) + O(z^3) gives theta_l ~ 3 pi / l (a derivation independent of the code)
    c = collapse_profile([0.5, 2.0], 20000)
    for t0, g in c.groupby("theta_in"):
        assert np.all(np.diff(g.theta_l.to_numpy()) < 0)
        assert g.l_theta_l.iloc[-1] / (3 * math.pi) == pytest.approx(1.0, abs=0.01)


def test_g_iterates_first_level_is_g():
    z = np.linspace(0, math.pi, 7)
    gi = g_iterates(z, [1])
    naive = np.arccos(((math.pi - z) * np.cos(z) + np.sin(z)) / math.pi)
    np.testing.assert_allclose(gi.g_l, naive, atol=1e-7)  # arccos near 1 limits the naive form to ~1e-8


@pytest.fixture(scope="module")
def collapse():
    return measure_collapse(CFG)


def test_the_result_carries_its_settings(collapse):
    assert (collapse.g_levels, collapse.angles_deg, collapse.depth, collapse.fw_depth, collapse.fw_width,
            collapse.seeds) == ([1, 5], [10.0, 90.0], 20000, 3, 64, 1)
    args = figure_collapse(collapse)
    s = args["setting"]
    assert "input angles 10, 90 deg" in s and "layers up to 20,000" in s
    assert "width m = 64" in s and "{profile}" in s
    assert args["drawn_by"] is plot_collapse and args["data_from"] is measure_collapse
    assert isinstance(args["fig"], Figure) and args["label"] == "fig-embedding-collapse"
    assert set(args["data"].curve) == {"g iterates", "infinite width", "width 64", "g, Monte Carlo of one random layer"}


def test_check_g_plot_prediction_and_counterfactual(collapse):
    assert check_g_plot(collapse).status == "reproduced"
    ident = replace(collapse, gi=collapse.gi.assign(g_l=collapse.gi.z))
    assert check_g_plot(ident).status == "not reproduced"  # a linear network: g(z) = z


def test_check_prop_a1_and_thm_a2_prediction_and_counterfactual(collapse):
    assert check_prop_a1(collapse).status == "reproduced"
    assert check_thm_a2(collapse).status == "reproduced"
    assert "over input angles [10.0, 90.0] deg" in check_thm_a2(collapse).measured
    shallow = measure_collapse(SPEC.config(**{**CFG.values(), "collapse_depth": 100}))  # theta ~ 3 pi / 100
    assert check_prop_a1(shallow).status == "not reproduced"
    assert check_thm_a2(shallow).status == "not reproduced"
    flat = replace(collapse, coll=collapse.coll.assign(theta_l=0.5))
    assert check_thm_a2(flat).status == "not reproduced"  # no collapse at all


def test_plot_collapse_draws_two_axes(collapse):
    fig = plot_collapse(collapse)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
