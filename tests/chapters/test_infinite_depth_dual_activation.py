"""Chapter 04, :mod:`lib.chapters.infinite_depth.dual_activation`: [AAK] Lemma C.7 and Sec. 7."""
from matplotlib.figure import Figure

from lib.chapters.infinite_depth.dual_activation import (DualStudy, check_dual_bound, check_normrelu, compute_dual,
                                                         normrelu_moments, plot_dual)


def test_check_dual_bound_prediction_and_counterfactual():
    ds = compute_dual(["norm_tanh", "relu"])
    assert ds.centred == ["norm_tanh"]
    assert check_dual_bound(ds).status == "reproduced"
    over = DualStudy(ds.rho, ds.centred, ds.dual, ds.bound, ds.mu, {"norm_tanh": 0.1})
    assert check_dual_bound(over).status == "not reproduced"
    assert check_dual_bound(compute_dual(["relu"])).status == "not checked"


def test_check_normrelu_prediction_and_counterfactual():
    # Monte Carlo of the torch functions, independent of the quadrature constants the code divides by
    assert check_normrelu(normrelu_moments("normrelu", 200_000)).status == "reproduced"
    assert check_normrelu(normrelu_moments("norm_tanh", 200_000)).status == "reproduced"
    c = check_normrelu(normrelu_moments("relu", 200_000))  # plain ReLU: E[s] = 0.40, E[s^2] = 1 (c_s = 2)
    assert c.status == "not reproduced"


def test_plot_dual_draws_one_axis():
    fig = plot_dual(compute_dual(["norm_tanh"]))
    assert isinstance(fig, Figure) and len(fig.axes) == 1
