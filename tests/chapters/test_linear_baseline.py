"""Chapter 01 (lib.chapters.linear_baseline): checks on synthetic sweeps, plots on a tiny real sweep."""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from lib.chapters import linear_baseline as B

WIDTHS = [64, 256, 1024]
DEPTHS = [0, 1, 3]


def _sweep(power: float = -0.5, kappa_factor: float = 1.0, kappa0: float = 10.0, widths=WIDTHS) -> pd.DataFrame:
    """Rows of a linear_sweep whose deviations scale like m^power (power -0.5: the [LH] Thm 2.3 prediction)."""
    rows = []
    for m in widths:
        for L in DEPTHS:
            for s in range(2):
                dev = (1 + 0.01 * s) * m ** power
                rows.append(dict(width=m, depth=L, seed=s, norm_dev=dev, angle_dev=2 * dev, phi_dev=3 * dev,
                                 ntk_rel_err=dev, kappa=kappa0 * kappa_factor * (1 + 0.01 * s), kappa0=kappa0,
                                 grad_sq_ratio_mean=L + 1.0, grad_sq_ratio_sd=0.0))
    return pd.DataFrame(rows)


def _singular(widths=(1024,)) -> pd.DataFrame:
    return _sweep(kappa0=np.inf, widths=list(widths)).assign(kappa=np.inf)


# ---------------------------------------------------------------- [LH] Thm 2.3

def test_norms_angles_reproduced_when_every_deviation_shrinks():
    c = B.check_norms_angles(_sweep())
    assert c.claim_id == "[LH] Thm 2.3" and c.status == "reproduced"
    assert "every deviation shrinks" in c.measured and "-0.50" in c.measured


def test_norms_angles_cannot_fail_growing_deviations_only_get_a_caveat():
    # counterfactual: deviations that GROW with width; the check, as written, still returns a caveat
    c = B.check_norms_angles(_sweep(power=+0.5))
    assert c.status == "reproduced with caveat"
    assert "not every deviation shrinks" in c.measured


# ---------------------------------------------------------------- [LH] Cor 2.4 (kernel)

def test_kernel_reproduced_at_rate_one_over_sqrt_m():
    c = B.check_kernel(_sweep())
    assert c.status == "reproduced" and "fitted slope -0.50" in c.measured


@pytest.mark.parametrize("power", [0.0, 0.5, -1.0])
def test_kernel_cannot_fail_flat_or_wrong_rate_only_gets_a_caveat(power):
    assert B.check_kernel(_sweep(power=power)).status == "reproduced with caveat"


# ---------------------------------------------------------------- [LH] Cor 2.4 (conditioning)

def test_conditioning_reproduced_when_kappa_equals_kappa0_and_n_gt_d_is_singular():
    c = B.check_conditioning(_sweep(kappa_factor=1.1), _singular())
    assert c.status == "reproduced"
    assert "6 of 6 networks" in c.measured


def test_conditioning_not_reproduced_when_the_n_gt_d_kernel_is_invertible():
    # counterfactual: a network (e.g. a ReLU net) whose NTK is invertible although n > d
    c = B.check_conditioning(_sweep(), _sweep(widths=[1024]))
    assert c.status == "not reproduced"
    assert "0 of 6 networks" in c.measured


def test_conditioning_caveat_when_kappa_drifts_from_kappa0():
    assert B.check_conditioning(_sweep(kappa_factor=2.0), _singular()).status == "reproduced with caveat"


# ---------------------------------------------------------------- [LH] Thm 2.3 (gradient norm)

def _factors(f) -> pd.DataFrame:
    Ls = np.array(DEPTHS)
    return pd.DataFrame({"mean": f(Ls), "sd": 0.01}, index=pd.Index(Ls, name="depth"))


def test_gradient_norm_reproduced_if_the_square_is_L_plus_1_squared():
    # the paper's statement ||grad f|| = (L+1)||x||
    c = B.check_gradient_norm(_factors(lambda L: (L + 1.0) ** 2))
    assert c.status == "reproduced"


def test_gradient_norm_not_reproduced_for_a_linear_network():
    # what a linear network actually gives: ||grad f||^2 = (L+1)||x||^2
    c = B.check_gradient_norm(_factors(lambda L: L + 1.0))
    assert c.status == "not reproduced"
    assert "differs from L+1 by at most 0 " in c.measured and "over depths 0..3" in c.measured


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


def test_plots_return_figures(tiny):
    X, df, df_over = tiny
    figs = [(B.plot_width_trend(df), 2),
            (B.plot_condition_numbers(df, df_over, X.shape, (5, 2), n_widths=2), 2),
            (B.plot_gradient_norm(B.gradient_norm_factors(df), width=32), 1)]
    for fig, n_axes in figs:
        assert isinstance(fig, Figure) and len(fig.axes) == n_axes
        plt.close(fig)
