"""Chapter 04, :mod:`lib.chapters.infinite_depth.dual_activation`: [AAK] Lemma C.7 and Sec. 7."""
from dataclasses import replace

from matplotlib.figure import Figure

from lib.chapters.infinite_depth import SPEC
from lib.chapters.infinite_depth.dual_activation import (check_dual_bound, check_normrelu, figure_dual, measure_dual,
                                                         measure_moments, plot_dual)


def _dual(*activations):
    return measure_dual(SPEC.config(aak_activations=list(activations)))


def test_check_dual_bound_prediction_and_counterfactual():
    ds = _dual("norm_tanh", "relu")
    assert ds.centred == ["norm_tanh"] and ds.activations == ["norm_tanh", "relu"]
    assert check_dual_bound(ds).status == "reproduced"
    assert check_dual_bound(replace(ds, excess={"norm_tanh": 0.1})).status == "not reproduced"
    assert check_dual_bound(_dual("relu")).status == "not checked"
    args = figure_dual(ds)
    assert "activations norm_tanh, relu (centred ones drawn)" in args["setting"] and "\\pm" in args["caption"]
    data = args["data"]
    assert list(data.activation.unique()) == ["norm_tanh"] and len(data) == len(ds.rho)


def test_check_normrelu_prediction_and_counterfactual():
    # Monte Carlo of the torch functions, independent of the quadrature constants the code divides by
    assert check_normrelu(measure_moments("normrelu", 200_000)).status == "reproduced"
    assert check_normrelu(measure_moments("norm_tanh", 200_000)).status == "reproduced"
    mom = measure_moments("relu", 200_000)  # plain ReLU: E[s] = 0.40, E[s^2] = 1 (c_s = 2)
    assert mom.samples == 200_000 and check_normrelu(mom).status == "not reproduced"


def test_plot_dual_draws_one_axis():
    fig = plot_dual(_dual("norm_tanh"))
    assert isinstance(fig, Figure) and len(fig.axes) == 1
