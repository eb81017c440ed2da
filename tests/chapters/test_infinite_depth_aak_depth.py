"""Chapter 04, :mod:`lib.chapters.infinite_depth.aak_depth`: [AAK] Thm 3.2, 3.4, 3.10 and [LH] Fig 2 (phi -> 90 deg)."""
import math

import pandas as pd
import pytest
from matplotlib.figure import Figure

from lib.chapters.infinite_depth.aak_depth import (AakDepth, check_aak_rate, check_phi_90, check_relu_uncentred,
                                                   compute_aak_depth, plot_aak_depth, table_rates)


@pytest.fixture(scope="module")
def aak():
    return compute_aak_depth(["norm_tanh", "relu", "tanh"], 6, 60, 32, [1], 1)


def _rates(fitted, kappa_at_max=1.0001, centred=True):
    return pd.DataFrame([dict(activation="norm_tanh", kernel=k, mu=0.3, chi=1.0, centred=centred,
                              fitted_slope=fitted, predicted_slope=math.log(0.7), fit_range="10-20",
                              kappa_at_max=kappa_at_max) for k in ("nngp", "ntk")])


def test_check_aak_rate_prediction_and_counterfactuals(aak):
    for kind in ("nngp", "ntk"):
        assert check_aak_rate(_rates(math.log(0.7)), kind).status == "reproduced"
        assert check_aak_rate(_rates(0.0, kappa_at_max=5.0), kind).status == "not reproduced"  # no decay
        assert check_aak_rate(_rates(math.log(0.95)), kind).status == "not reproduced"  # slower than mu's rate
        assert check_aak_rate(_rates(math.log(0.5)), kind).status == "reproduced"  # faster: within the bound
        assert check_aak_rate(_rates(math.log(0.7), kappa_at_max=2.0), kind).status == "inconclusive"
        assert check_aak_rate(_rates(math.log(0.95), kappa_at_max=2.0), kind).status == "inconclusive"
        assert check_aak_rate(_rates(math.log(0.7), centred=False), kind).status == "not checked"
    # the real computation: normalized tanh decays at its rate; plain ReLU's numbers, fed in as a centred
    # activation, do not decay (kappa -> (n+3)/3): not reproduced
    rates = table_rates(aak)
    assert check_aak_rate(rates, "nngp").status in ("reproduced", "inconclusive")
    relu_as_centred = rates[rates.activation == "relu"].assign(centred=True)
    assert check_aak_rate(relu_as_centred, "ntk").status == "not reproduced"


def test_check_relu_uncentred_prediction_and_counterfactual(aak):
    assert check_relu_uncentred(aak).status == "reproduced"
    # a normalized activation's numbers fed in as ReLU's: correlations vanish, kappa -> 1
    kk = aak.kk[aak.kk.activation == "norm_tanh"].assign(activation="relu")
    fake = AakDepth(kk, aak.fk, aak.facts, aak.fits, ["relu"], aak.n)
    assert check_relu_uncentred(fake).status == "not reproduced"


def test_check_phi_90_prediction_and_counterfactuals(aak):
    assert check_phi_90(aak).status in ("reproduced", "inconclusive")  # real tanh, 60 layers
    kk = pd.DataFrame(dict(activation="tanh", depth=[1, 25, 50], max_abs_corr_ntk=[0.5, 0.05, 1e-4],
                           kappa_ntk_cos=[3.0, 1.1, 1.0], kappa_nngp_cos=[3.0, 1.1, 1.0]))
    st = AakDepth(kk, aak.fk, aak.facts, aak.fits, ["tanh"], 6)
    assert check_phi_90(st).status == "reproduced"
    stuck = AakDepth(kk.assign(max_abs_corr_ntk=0.25), aak.fk, aak.facts, aak.fits, ["tanh"], 6)
    assert check_phi_90(stuck).status == "not reproduced"  # ReLU-like cos phi = 1/4 at every depth
    # plain ReLU's real numbers fed in as tanh's: phi settles at arccos(1/4), not 90 deg
    relu = aak.kk[aak.kk.activation == "relu"].assign(activation="tanh")
    assert check_phi_90(AakDepth(relu, aak.fk, aak.facts, aak.fits, ["tanh"], 6)).status == "not reproduced"
    slow = AakDepth(kk.assign(max_abs_corr_ntk=[0.5, 0.3, 0.1]), aak.fk, aak.facts, aak.fits, ["tanh"], 6)
    assert check_phi_90(slow).status == "inconclusive"
    assert check_phi_90(AakDepth(kk, aak.fk, aak.facts, aak.fits, ["relu"], 6)).status == "not checked"


def test_plot_aak_depth_and_table_rates(aak):
    fig = plot_aak_depth(aak)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    assert len(table_rates(aak)) == 2 * 3  # two kernels, three activations
