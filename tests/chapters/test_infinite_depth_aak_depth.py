"""Chapter 04, :mod:`lib.chapters.infinite_depth.aak_depth`: [AAK] Thm 3.2, 3.4, 3.10 and [LH] Fig 2 (phi -> 90 deg)."""
import math
from dataclasses import replace

import pandas as pd
import pytest
from matplotlib.figure import Figure

from lib.chapters.infinite_depth import SPEC
from lib.chapters.infinite_depth.aak_depth import (check_aak_rate, check_phi_90, check_relu_uncentred, figure_aak_depth,
                                                   measure_aak_depth, plot_aak_depth, table_rates_rounded)


@pytest.fixture(scope="module")
def aak():
    return measure_aak_depth(SPEC.config(aak_activations=["norm_tanh", "relu", "tanh"], aak_n=6, aak_max_depth=60,
                                         fw_width=32, aak_fw_depths=[1], seeds=1))


def _rates(fitted, kappa_at_max=1.0001, centred=True):
    return pd.DataFrame([dict(activation="norm_tanh", kernel=k, mu=0.3, chi=1.0, centred=centred,
                              fitted_slope=fitted, predicted_slope=math.log(0.7), fit_range="10-20",
                              kappa_at_max=kappa_at_max) for k in ("nngp", "ntk")])


def test_check_aak_rate_prediction_and_counterfactuals(aak):
    def check(kind, *args, **kw):
        return check_aak_rate(replace(aak, rates=_rates(*args, **kw)), kind).status
    for kind in ("nngp", "ntk"):
        assert check(kind, math.log(0.7)) == "reproduced"
        assert check(kind, 0.0, kappa_at_max=5.0) == "not reproduced"  # no decay
        assert check(kind, math.log(0.95)) == "not reproduced"  # slower than mu's rate
        assert check(kind, math.log(0.5)) == "reproduced"  # faster: within the bound
        assert check(kind, math.log(0.7), kappa_at_max=2.0) == "inconclusive"
        assert check(kind, math.log(0.95), kappa_at_max=2.0) == "inconclusive"
        assert check(kind, math.log(0.7), centred=False) == "not checked"
    # the real computation: normalized tanh decays at its rate; plain ReLU's numbers, fed in as a centred
    # activation, do not decay (kappa -> (n+3)/3): not reproduced
    assert check_aak_rate(aak, "nngp").status in ("reproduced", "inconclusive")
    relu_as_centred = aak.rates[aak.rates.activation == "relu"].assign(centred=True)
    assert check_aak_rate(replace(aak, rates=relu_as_centred), "ntk").status == "not reproduced"


def test_check_relu_uncentred_prediction_and_counterfactual(aak):
    assert check_relu_uncentred(aak).status == "reproduced"
    # a normalized activation's numbers fed in as ReLU's: correlations vanish, kappa -> 1
    kk = aak.kk[aak.kk.activation == "norm_tanh"].assign(activation="relu")
    assert check_relu_uncentred(replace(aak, kk=kk, activations=["relu"])).status == "not reproduced"


def test_check_phi_90_prediction_and_counterfactuals(aak):
    assert check_phi_90(aak).status in ("reproduced", "inconclusive")  # real tanh, 60 layers
    kk = pd.DataFrame(dict(activation="tanh", depth=[1, 25, 50], max_abs_corr_ntk=[0.5, 0.05, 1e-4],
                           kappa_ntk_cos=[3.0, 1.1, 1.0], kappa_nngp_cos=[3.0, 1.1, 1.0]))
    tanh = replace(aak, kk=kk, activations=["tanh"])
    assert check_phi_90(tanh).status == "reproduced"
    stuck = replace(tanh, kk=kk.assign(max_abs_corr_ntk=0.25))
    assert check_phi_90(stuck).status == "not reproduced"  # ReLU-like cos phi = 1/4 at every depth
    # plain ReLU's real numbers fed in as tanh's: phi settles at arccos(1/4), not 90 deg
    relu = aak.kk[aak.kk.activation == "relu"].assign(activation="tanh")
    assert check_phi_90(replace(tanh, kk=relu)).status == "not reproduced"
    slow = replace(tanh, kk=kk.assign(max_abs_corr_ntk=[0.5, 0.3, 0.1]))
    assert check_phi_90(slow).status == "inconclusive"
    assert check_phi_90(replace(tanh, activations=["relu"])).status == "not checked"


def test_the_study_carries_its_settings_plot_and_rates(aak):
    assert (aak.n, aak.max_depth, aak.fw_width, aak.fw_depths, aak.seeds) == (6, 60, 32, [1], 1)
    args = figure_aak_depth(aak)
    assert "circles: width 32" in args["caption"] and "activations norm_tanh, relu, tanh" in args["setting"]
    fig = plot_aak_depth(aak)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    assert len(aak.rates) == 2 * 3  # two kernels, three activations


def test_rates_rounded_keeps_three_digits(aak):
    rates = pd.DataFrame(dict(activation=["a"], kernel=["nngp"], mu=[0.0158634], chi=[1.04123], centred=[True],
                              fitted_slope=[-0.0164987], predicted_slope=[-0.0159876], fit_range=["1-2"],
                              kappa_at_max=[1.0492934]))
    r = table_rates_rounded(replace(aak, rates=rates)).iloc[0]
    assert r.mu == 0.0159 and r.fitted_slope == -0.0165 and r.kappa_at_max == 1.049
