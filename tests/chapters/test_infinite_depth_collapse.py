"""Chapter 04, :mod:`lib.chapters.infinite_depth.collapse`: [LH] App. A: the map g and the collapse of embeddings."""
import math

import numpy as np
import pytest
from matplotlib.figure import Figure

from lib.chapters.infinite_depth.collapse import (Collapse, check_g_plot, check_prop_a1, check_thm_a2,
                                                  collapse_profile, compute_collapse, g_iterates, plot_collapse)


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
    return compute_collapse([1, 5], [10.0, 90.0], 20000, 3, 64, 1)


def test_check_g_plot_prediction_and_counterfactual(collapse):
    assert check_g_plot(collapse).status == "reproduced"
    ident = Collapse(collapse.zgrid, collapse.gi.assign(g_l=collapse.gi.z), collapse.coll, collapse.fcoll)
    assert check_g_plot(ident).status == "not reproduced"  # a linear network: g(z) = z


def test_check_prop_a1_and_thm_a2_prediction_and_counterfactual(collapse):
    assert check_prop_a1(collapse, [1, 5]).status == "reproduced"
    assert check_thm_a2(collapse, [10.0, 90.0], 64, 3).status == "reproduced"
    shallow = compute_collapse([1, 5], [10.0, 90.0], 100, 3, 64, 1)  # theta ~ 3 pi / 100: not yet collapsed
    assert check_prop_a1(shallow, [1, 5]).status == "not reproduced"
    assert check_thm_a2(shallow, [10.0, 90.0], 64, 3).status == "not reproduced"
    flat = Collapse(collapse.zgrid, collapse.gi, collapse.coll.assign(theta_l=0.5), collapse.fcoll)
    assert check_thm_a2(flat, [10.0, 90.0], 64, 3).status == "not reproduced"  # no collapse at all


def test_plot_collapse_draws_two_axes(collapse):
    fig = plot_collapse(collapse, [1, 5], [10.0, 90.0], 20000)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
