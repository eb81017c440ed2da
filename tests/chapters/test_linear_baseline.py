"""Chapter 01 (lib.chapters.linear_baseline): every check with the paper's prediction and a counterfactual.

Predictions are synthetic sweeps whose deviations vanish like m^(-1/2) (what [LH] Thm 2.3 / Cor 2.4
predict at finite width) or real linear-network sweeps; counterfactuals are synthetic sweeps whose
deviations do not vanish, and real ReLU-network sweeps fed to the linear-network checks.
"""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from lib.book.params import ParameterError
from lib.chapters import linear_baseline as B

WIDTHS = [64, 256, 1024]
DEPTHS = [0, 1, 3]


def _sweep(offset: float = 0.0, kappa_offset: float = 0.0, kappa0: float = 10.0, widths=WIDTHS, seeds=3,
           factor=lambda L: L + 1.0) -> pd.DataFrame:
    """Rows of a linear_sweep: deviations offset + m^(-1/2) x noise (offset 0: the [LH] prediction)."""
    rng = np.random.default_rng(0)
    rows = []
    for m in widths:
        for L in DEPTHS:
            for s in range(seeds):
                def dev():
                    return 0.0 if L == 0 else offset + m ** -0.5 * (1 + 0.2 * rng.standard_normal())
                rows.append(dict(width=m, depth=L, seed=s, norm_dev=dev(), angle_dev=2 * dev(), phi_dev=3 * dev(),
                                 ntk_rel_err=dev(), ntk_factor=factor(L), ntk_shape_err=dev(),
                                 kappa=kappa0 * (1 + (0 if L == 0 else kappa_offset + 3 * dev())), kappa0=kappa0,
                                 grad_sq_ratio_mean=factor(L), grad_sq_ratio_sd=0.0))
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def digits():
    X, X_over = B.load_data(16, 12, 4)
    return X, X_over


@pytest.fixture(scope="module")
def linear(digits):
    return B.linear_sweep(digits[0], [64, 256], [0, 1, 3, 6], 2)


@pytest.fixture(scope="module")
def relu(digits):
    """The counterfactual: a ReLU network measured with the linear-network sweep."""
    return B.linear_sweep(digits[0], [64, 256], [0, 1, 3, 6], 2, activation="relu")


# ---------------------------------------------------------------- the width-trend rule

def test_width_trend_zero_limit_reproduced_offset_not_reproduced_one_width_inconclusive():
    def deep(df):
        return df[df.depth == 1]
    assert B.width_trend(deep(_sweep()), "norm_dev").status == "reproduced"
    t = B.width_trend(deep(_sweep(offset=0.3)), "norm_dev")
    assert t.status == "not reproduced" and t.limit > 3 * t.limit_se
    assert B.width_trend(deep(_sweep(widths=[256])), "norm_dev").status == "inconclusive"
    assert B.width_trend(deep(_sweep(widths=[64, 256], seeds=1)), "norm_dev").status == "inconclusive"  # no scatter


# ---------------------------------------------------------------- [LH] Thm 2.3 (norms and angles)

def test_norms_angles_reproduced_when_every_deviation_vanishes(linear):
    assert B.check_norms_angles(_sweep()).status == "reproduced"
    c = B.check_norms_angles(linear)
    assert (c.claim_id, c.part, c.status) == ("[LH] Thm 2.3", "norms and angles", "reproduced")


def test_norms_angles_not_reproduced_for_a_relu_network_or_a_lasting_offset(relu):
    assert B.check_norms_angles(_sweep(offset=0.3)).status == "not reproduced"
    c = B.check_norms_angles(relu)
    assert c.status == "not reproduced" and "gradient-angle" in c.measured


def test_norms_angles_one_width_inconclusive_and_depth_zero_not_checked():
    c = B.check_norms_angles(_sweep(widths=[256]))
    assert c.status == "inconclusive" and "one width" in c.caveat
    c = B.check_norms_angles(_sweep()[lambda d: d.depth == 0])
    assert c.status == "not checked" and c.caveat.startswith("not testable on this data")


# ---------------------------------------------------------------- [LH] Cor 2.4 (K proportional to G, the factor)

def test_kernel_shape_reproduced_for_linear_not_for_relu(linear, relu):
    assert B.check_kernel(_sweep()).status == "reproduced"
    assert B.check_kernel(linear).status == "reproduced"
    assert B.check_kernel(_sweep(offset=0.2)).status == "not reproduced"
    assert B.check_kernel(relu).status in ("not reproduced", "reproduced with caveat")  # O(1) shape error left


def test_kernel_factor_reproduced_if_the_factor_were_L_plus_1_squared():
    c = B.check_kernel_factor(_sweep(factor=lambda L: (L + 1.0) ** 2))
    assert (c.part, c.status) == ("K = (L+1)^2 G", "reproduced") and "p = 2.00" in c.measured


def test_kernel_factor_not_reproduced_for_a_real_linear_network(linear):
    c = B.check_kernel_factor(linear)
    assert c.status == "not reproduced" and "matches L+1" in c.measured
    assert B.check_kernel_factor(_sweep(factor=lambda L: (L + 1.0) ** 1.6)).status == "reproduced with caveat"
    assert B.check_kernel_factor(_sweep()[lambda d: d.depth == 0]).status == "not checked"


# ---------------------------------------------------------------- [LH] Cor 2.4 (conditioning)

def test_conditioning_reproduced_when_kappa_tends_to_kappa0(linear, digits):
    assert B.check_conditioning(_sweep()).status == "reproduced"
    df_over = B.linear_sweep(digits[1], [64], [1], 1)
    c = B.check_conditioning(linear, df_over)
    assert (c.part, c.status) == ("conditioning", "reproduced")
    assert "an illustration, not a test" in c.measured


def test_conditioning_not_reproduced_for_a_relu_network(relu):
    assert B.check_conditioning(_sweep(kappa_offset=-0.7)).status == "not reproduced"
    assert B.check_conditioning(relu).status == "not reproduced"


def test_conditioning_is_not_testable_when_kappa0_is_infinite():
    df = _sweep(kappa0=np.inf).assign(kappa=np.inf)
    c = B.check_conditioning(df)
    assert c.status == "not checked" and c.caveat.startswith("not testable on this data")


# ---------------------------------------------------------------- [LH] Thm 2.3 (gradient norm)

def _factors(f) -> pd.DataFrame:
    Ls = np.array(DEPTHS)
    return pd.DataFrame({"mean": f(Ls), "sd": 0.01}, index=pd.Index(Ls, name="depth"))


def test_gradient_norm_reproduced_if_the_square_is_L_plus_1_squared():
    assert B.check_gradient_norm(_factors(lambda L: (L + 1.0) ** 2)).status == "reproduced"


def test_gradient_norm_not_reproduced_for_a_real_linear_network(linear):
    c = B.check_gradient_norm(B.gradient_norm_factors(linear), width=256)
    assert (c.claim_id, c.part, c.status) == ("[LH] Thm 2.3", "gradient norm", "not reproduced")
    assert "matches L+1" in c.measured
    assert B.check_gradient_norm(_factors(lambda L: L + 1.0)[lambda d: d.index == 0]).status == "not checked"


# ---------------------------------------------------------------- [LH] Lemma D.1

def test_lemma_d1_reproduced_for_centred_gaussians_not_for_shifted_ones():
    assert B.check_lemma_d1(B.lemma_d1_sweep(8, [64, 256, 1024], 2)).status == "reproduced"
    assert B.check_lemma_d1(B.lemma_d1_sweep(8, [64, 256, 1024], 2, mean=0.5)).status == "not reproduced"
    assert B.check_lemma_d1(B.lemma_d1_sweep(8, [256], 3)).status == "inconclusive"


# ---------------------------------------------------------------- bad parameters

def test_load_data_refuses_a_singular_gram_matrix_naming_the_parameter():
    with pytest.raises(ParameterError, match=r"'n_samples' \(100\).*singular"):
        B.load_data(100, 40, 5)


def test_load_data_refuses_n_over_not_above_d_over():
    with pytest.raises(ParameterError, match=r"'n_over' \(3\) must exceed 'd_over' \(5\)"):
        B.load_data(16, 3, 5)


# ---------------------------------------------------------------- measurements and figures on a tiny sweep

@pytest.fixture(scope="module")
def tiny():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((4, 6))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    df = B.linear_sweep(X, [8, 32], [0, 2], 2)
    df_over = B.linear_sweep(rng.standard_normal((5, 2)), [32], [0, 2], 2)
    return X, df, df_over


def test_tiny_sweep_tables(tiny):
    _, df, _ = tiny
    assert len(df) == 8
    assert list(B.table_sweep_summary(df).index.names) == ["width", "depth"]
    assert list(B.compute_width_means(df).index) == [8, 32]
    fac = B.gradient_norm_factors(df)
    np.testing.assert_allclose(fac.loc[0, "mean"], 1.0, rtol=1e-12)  # L = 0: K_xx = ||x||^2 exactly
    np.testing.assert_allclose(df[df.depth == 0]["ntk_factor"], 1.0, rtol=1e-12)


def test_plots_return_figures(tiny):
    X, df, df_over = tiny
    figs = [(B.plot_width_trend(df), 2),
            (B.plot_condition_numbers(df, df_over, X.shape, (5, 2), n_widths=2), 2),
            (B.plot_gradient_norm(B.gradient_norm_factors(df), width=32), 1),
            (B.plot_lemma_d1(B.lemma_d1_sweep(4, [8, 32], 2)), 1)]
    for fig, n_axes in figs:
        assert isinstance(fig, Figure) and len(fig.axes) == n_axes
        plt.close(fig)


# ---------------------------------------------------------------- [LH] Remark 3.4

def test_distances_reproduced_for_relu_not_for_a_linear_network():
    relu = B.distance_sweep([1.0, 5.0, 20.0], 256, [0, 1, 3], 5)
    c = B.check_distances(relu)
    assert (c.claim_id, c.status) == ("[LH] Remark 3.4", "reproduced"), c.measured
    lin = B.distance_sweep([1.0, 5.0, 20.0], 256, [1, 3], 5, activation="linear")
    np.testing.assert_allclose(lin.predicted, 1.0)
    assert B.check_distances(lin).status == "not reproduced"  # the linear network keeps distances
    assert B.check_distances(relu[relu.seed == 0]).status == "inconclusive"  # one draw: no standard error
    assert B.check_distances(relu[relu.depth == 0]).status == "not checked"
    fig = B.plot_distances(relu, 256)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    plt.close(fig)


def test_table_paper_vs_book_shows_the_papers_values_beside_the_measured_ones(linear):
    fac = B.gradient_norm_factors(linear)
    t = B.table_paper_vs_book(linear, fac)
    assert list(t.columns) == ["paper ([LH] Sec. 2)", "this book", "verdict rule"]
    ntk = t.loc["exponent p of the NTK factor, K = (L+1)^p G"]
    assert ntk["paper ([LH] Sec. 2)"] == "2"
    sub = linear[(linear.width == linear.width.max()) & (linear.depth >= 1)].groupby("depth")["ntk_factor"].median()
    p = B._exponent(sub.index.to_numpy(), sub.to_numpy())
    assert ntk["this book"].startswith(f"{p:.2f}") and abs(p - 1) < 0.25  # the erratum: exponent 1, not 2
    # counterfactual: a factor (L+1)^2 would show exponent 2 beside the paper's 2
    sq = linear.assign(ntk_factor=(linear.depth + 1.0) ** 2)
    assert B.table_paper_vs_book(sq, fac).loc["exponent p of the NTK factor, K = (L+1)^p G", "this book"].startswith("2.00")


def test_glue_values_show_values_not_parameter_names():
    from types import SimpleNamespace
    cfg = SimpleNamespace(profile="smoke", widths=[64, 256], depths=[0, 1, 2, 3, 4, 5, 6], seeds=2, n_samples=16,
                          n_over=12, d_over=4, distance_angles=[1.0, 5.0], distance_seeds=5)
    g = B.glue_values(cfg)
    assert {f"fig1_{k}" for k in range(1, 6)} <= set(g)
    assert "depths L = 0 to 6" in g["fig1_1"] and "widths m = 64, 256" in g["fig1_1"] and "profile smoke" in g["fig1_1"]
    assert g["d_over"] == "4" and not any("d_over" in v for v in g.values())
