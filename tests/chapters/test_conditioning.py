"""Chapter 03 (lib.chapters.conditioning): each check with the paper's prediction and a counterfactual; figures."""
import math

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from lib.chapters import conditioning as C
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk

DEPTHS = [0, 1, 2]


@pytest.fixture(scope="module")
def small():
    """A tiny real sweep (two data sets, depths 0..2, width 32, 2 seeds) without the cache."""
    rng = np.random.default_rng(0)
    data = {"a": rng.standard_normal((12, 3)), "b": rng.standard_normal((10, 4))}
    cells = C.conditioning_cells(list(data), DEPTHS, 32, 2, batch_size=5)
    df = pd.DataFrame([{**c, **C.ntk_cell(c, data[c["dataset"]]), "seconds": 0.01} for c in cells])
    theory = pd.DataFrame([{"dataset": k, "depth": L, **C.theory_cell({"depth": L}, X)}
                           for k, X in data.items() for L in DEPTHS])
    return data, df, C.summarize(df), theory


def _summary(relu_angle, lin_angle, relu_kappa, lin_kappa):
    rows = []
    for act, a, k in (("relu", relu_angle, relu_kappa), ("linear", lin_angle, lin_kappa)):
        for L, (ai, ki) in enumerate(zip(a, k)):
            rows.append(dict(dataset="s", activation=act, depth=L, angle_mean=ai, kappa_mean=ki))
    return pd.DataFrame(rows)


INF_WIDTH = pd.DataFrame(dict(dataset="s", depth=[0, 1, 2, 3], kappa_relu=[math.inf, 50.0, 20.0, 10.0]))
DATA = {"s": np.zeros((20, 5))}


def test_full_and_first_layer_ntk_equals_two_empirical_ntks():
    X = np.random.default_rng(1).standard_normal((9, 4))
    net = MLP(4, 32, 3, seed=2)
    K, K1 = C.full_and_first_layer_ntk(net, X)
    np.testing.assert_allclose(K, empirical_ntk(net, X), rtol=1e-12, atol=0)
    np.testing.assert_allclose(K1, empirical_ntk(net, X, layers="first"), rtol=1e-12, atol=0)
    K0, none = C.full_and_first_layer_ntk(MLP(4, 32, 0, seed=2), X)
    np.testing.assert_allclose(K0, X @ X.T, rtol=1e-12)
    assert none is None


def test_check_figure3_prediction_and_counterfactuals():
    inf = math.inf
    good = _summary([10, 20, 30, 40], [10, 10, 10, 10], [inf, 50, 20, 10], [inf, inf, inf, inf])
    assert C.check_figure3(good, INF_WIDTH, DATA, [0, 1, 2, 3], 64, 2).status == "reproduced"
    rising = _summary([10, 20, 30, 40], [10, 10, 10, 10], [inf, 50, 20, 25], [inf, inf, inf, inf])
    c = C.check_figure3(rising, INF_WIDTH, DATA, [0, 1, 2, 3], 64, 2)
    assert c.status == "reproduced with caveat" and "rises at L=[3]" in c.measured
    # a linear network's numbers fed in as the ReLU ones: no separation, no conditioning
    linear = _summary([10, 10, 10, 10], [10, 10, 10, 10], [inf, inf, inf, inf], [inf, inf, inf, inf])
    assert C.check_figure3(linear, INF_WIDTH, DATA, [0, 1, 2, 3], 64, 2).status == "not reproduced"


def test_check_prop41_prediction_and_counterfactual(small):
    _, df, _, _ = small
    p41 = C.prop41_bound(df)
    assert C.check_prop41(p41).status == "reproduced"  # a theorem: every real kernel satisfies it
    bad = df.copy()
    bad["lambda_min"] = bad["diag_max"]  # lambda_min as large as the largest diagonal: violates the bound
    bad["kappa"] = 1.0
    bad["singular"] = False
    bad = bad[bad.activation == "relu"].assign(min_angle=np.linspace(0.1, 0.5, (bad.activation == "relu").sum()))
    assert C.check_prop41(C.prop41_bound(bad)).status == "not reproduced"


def _t42(**kw):
    row = dict(kappa0=math.inf, below=True, lmin_ok=True, mono=[], kappa_L1=30.0, kappa_Lmax=10.0,
               fw_below=True, fw_mono=[], fw_L1=40.0, fw_Lmax=12.0)
    row.update(kw)
    return pd.DataFrame([dict(dataset="s", **row)]).set_index("dataset")


def test_check_first_layer_prediction_and_counterfactuals(small):
    data, df, _, theory = small
    t42 = C.table_first_layer(theory, df, list(data))
    assert bool(t42.below.all() and t42.lmin_ok.all())  # the Schur-product theorem on real data
    assert C.check_first_layer(_t42(), DEPTHS, 32).status == "reproduced"
    assert C.check_first_layer(_t42(fw_mono=[2]), DEPTHS, 32).status == "reproduced with caveat"
    assert C.check_first_layer(_t42(mono=[1]), DEPTHS, 32).status == "not reproduced"
    assert C.check_first_layer(_t42(below=False), DEPTHS, 32).status == "not reproduced"


def test_check_two_sample_prediction_and_counterfactual():
    t2 = C.two_sample_table([0.05, 0.3], [0, 1, 2], 64, 2)
    assert C.check_two_sample(t2, [0.05, 0.3], 64, 2).status == "reproduced"
    flat = t2.assign(kappa_theory=t2.kappa0)  # a linear network: kappa = kappa_0 at every depth
    assert C.check_two_sample(flat, [0.05, 0.3], 64, 2).status == "not reproduced"
    rising = t2.assign(kappa_theory=t2.kappa0 * (0.5 + 0.1 * t2.depth))
    assert C.check_two_sample(rising, [0.05, 0.3], 64, 2).status == "not reproduced"


def test_check_theory_prediction_cannot_fail(small):
    """Cannot fail: beyond the 5/sqrt(m) tolerance the rule gives only a caveat."""
    data, _, S, theory = small
    cmp = C.table_theory_comparison(theory, S, list(data), DEPTHS)
    close = cmp.assign(angle_relu=cmp.angle_relu_theory, angle_rel_dev=0.0)
    assert C.check_theory_prediction(close, 512).status == "reproduced"
    far = cmp.assign(angle_relu=cmp.angle_relu_theory * 3, angle_rel_dev=2.0)
    assert C.check_theory_prediction(far, 512).status == "reproduced with caveat"


def test_tables_and_notes(small):
    data, df, S, theory = small
    info = C.table_datasets(data, theory)
    assert list(info.index) == ["a", "b"] and list(info.rank_G) == [3, 4]
    assert np.all(np.isinf(info.kappa0))  # n > d: singular Gram matrix
    tab = C.table_measured(S, data, batch_size=5)
    assert len(tab) == 2 * len(DEPTHS) and "kappa ReLU, batch 5" in tab
    assert C.table_cell_times(df).shape == (2, len(DEPTHS))
    with pytest.raises(RuntimeError, match="none of the requested"):
        C.compute_data(["mnist"], n_synthetic=5, idx_dir=None)


def test_plots_return_figures(small):
    data, df, S, theory = small
    names = list(data)
    for fig, n_axes in ((C.plot_figure3(S, names, DEPTHS), 2), (C.plot_prop41(C.prop41_bound(df), names), 2),
                        (C.plot_first_layer(theory, df, names, 32), 2),
                        (C.plot_two_sample(C.two_sample_table([0.1, 1.0], [0, 1], 32, 2), [0.1, 1.0]), 1),
                        (C.plot_theory_comparison(theory, S, names, 32), 2)):
        assert isinstance(fig, Figure) and len(fig.axes) == n_axes
