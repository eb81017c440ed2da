"""Chapter 03 (lib.chapters.conditioning): cells, both protocols of Figure 3, each check with the paper's
prediction and a counterfactual, figures."""
import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from lib.chapters import conditioning as C
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.spectra import condition_number, min_pairwise_angle

DEPTHS = [0, 1, 2]


@pytest.fixture(scope="module")
def small():
    """A tiny real sweep without the cache: n > d (a), n < d (b, finite kappa_0), a rank-deficient set (c)."""
    rng = np.random.default_rng(0)
    c = rng.standard_normal((30, 6)) @ rng.standard_normal((6, 12))  # rank 6 in 12 dims
    data = {"a": rng.standard_normal((12, 3)), "b": rng.standard_normal((8, 10)), "c": c}
    smallb = C.small_batch_sets(data, 5)
    assert smallb == {"c": 5}
    info = C.table_datasets(data, smallb)
    first = C.first_layer_sets(info)
    assert first == ["b", "c"]
    cells = C.conditioning_cells(list(data), DEPTHS, 32, 2, batch_size=5, small=smallb, first_layer=first)
    df = pd.DataFrame([{**cl, **C.ntk_cell(cl, data[cl["dataset"]]), "seconds": 0.01} for cl in cells])
    theory = pd.DataFrame([{"dataset": k, "depth": L, **C.theory_cell(
        {"depth": L, "first_layer": k in first, "small_batch": smallb.get(k), "seeds": 2}, X)}
        for k, X in data.items() for L in DEPTHS])
    sweep = C.ConditioningSweep.from_frame(df, list(data), DEPTHS, 5, width=32, seeds=2,
                                           sizes={k: X.shape for k, X in data.items()})
    return data, sweep, C.TheoryResult(theory, names=tuple(data), depths=tuple(DEPTHS))


def _sweep(S, names=("s",), depths=(0, 1, 2, 3), batch_size=512, sizes=None):
    return C.ConditioningSweep(S, tuple(names), tuple(depths), batch_size, sizes=sizes or {})


def test_authors_partition_fresh_per_seed_partial_batch_kept():
    b = C.authors_partition(11, 4, seed=3)
    assert [len(x) for x in b] == [4, 4, 3]
    assert sorted(np.concatenate(b).tolist()) == list(range(11))
    assert not np.array_equal(np.concatenate(b), np.concatenate(C.authors_partition(11, 4, seed=4)))


def test_cell_reads_batches_from_the_full_kernel_and_linear_features_are_exact():
    X = np.random.default_rng(1).standard_normal((13, 4))
    cell = dict(dataset="x", depth=2, activation="relu", width=32, seed=1, batch_size=5, first_layer=True)
    out = C.ntk_cell(cell, X)
    net = MLP(4, 32, 2, seed=1)
    K = empirical_ntk(net, X)
    assert out["kappa"] == pytest.approx(condition_number(K), rel=1e-9)
    assert out["min_angle"] == pytest.approx(min_pairwise_angle(K), abs=1e-9)
    direct = [condition_number(empirical_ntk(net, X[b])) for b in C.authors_partition(13, 5, 1)]
    assert out["kappa_batch"] == pytest.approx(np.mean(direct), rel=1e-8) and out["n_batches"] == 3
    lin = MLP(4, 32, 3, activation="linear", seed=0)
    F = C.linear_features(lin, X)
    Kl = empirical_ntk(lin, X)
    assert np.max(np.abs(F @ F.T - Kl)) < 1e-12 * np.abs(Kl).max()
    lout = C.ntk_cell({**cell, "activation": "linear", "depth": 3, "seed": 0}, X)
    assert math.isinf(lout["kappa"]) and lout["singular"]  # rank <= d = 4 < n


def test_full_method_extremes_matches_dense():
    X = np.random.default_rng(2).standard_normal((40, 6))
    cell = dict(dataset="x", depth=2, activation="relu", width=32, seed=0, batch_size=16)
    dense, ext = C.ntk_cell({**cell, "full_method": "dense"}, X), C.ntk_cell({**cell, "full_method": "extremes"}, X)
    assert ext["kappa"] == pytest.approx(dense["kappa"], rel=1e-6)
    assert ext["min_angle"] == pytest.approx(dense["min_angle"], abs=1e-7)
    assert ext["kappa_batch"] == pytest.approx(dense["kappa_batch"], rel=1e-8)
    with pytest.raises(ValueError, match="full_method"):
        C.ntk_cell({**cell, "full_method": "gpu"}, X)


def test_interval_kappa_is_summarized_and_never_certifies_a_fall():
    rows = []
    for L, lo, hi in ((1, 100.0, math.inf), (2, 50.0, math.inf)):
        rows.append(dict(dataset="s", activation="relu", depth=L, seed=0, min_angle=0.3, kappa=lo, kappa_high=hi,
                         interval=True, lambda_min=1.0, lambda_max=2.0, kappa_batch=10.0 / L))
    S = C.summarize(pd.DataFrame(rows))
    assert S.interval.all() and math.isinf(S.kappa_high_mean.iloc[0])
    c = C.check_figure3(_sweep(S, depths=[1, 2]), "full")
    assert c.status == "inconclusive" and "interval" in c.caveat
    assert [r["holds"] for r in c.rows] == [None]  # a fall that is not certified is judged neither way
    assert C.check_figure3(_sweep(S, depths=[1, 2]), "batch").status == "reproduced"


def _summary(relu_angle, lin_angle, relu_kappa, lin_kappa, col="kappa_mean"):
    rows = []
    for act, a, k in (("relu", relu_angle, relu_kappa), ("linear", lin_angle, lin_kappa)):
        for L, (ai, ki) in enumerate(zip(a, k)):
            rows.append({"dataset": "s", "activation": act, "depth": L, "angle_mean": ai, "kappa_mean": ki,
                         "kappa_high_mean": ki, "kappa_batch_mean": ki, "interval": False})
    return pd.DataFrame(rows)


def test_check_figure3_depth_prediction_and_counterfactuals():
    inf = math.inf
    good = _summary([10, 20, 30, 40], [10, 10, 10, 10], [inf, 50, 20, 10], [inf] * 4)
    for protocol in ("batch", "full"):
        c = C.check_figure3(_sweep(good), protocol)
        assert c.status == "reproduced" and [r["holds"] for r in c.rows] == [True]
    rising = _summary([10, 20, 30, 40], [10, 10, 10, 10], [inf, 50, 20, 25], [inf] * 4)
    c = C.check_figure3(_sweep(rising), "batch")
    assert c.status == "reproduced with caveat" and "rises at L=[3]" in c.measured
    assert c.rows[0]["holds"] and "rises at L=[3]" in c.rows[0]["this book"]
    flat = _summary([10, 20, 30, 40], [10, 10, 10, 10], [inf, 50, 60, 55], [inf] * 4)
    c = C.check_figure3(_sweep(flat), "batch")
    assert c.status == "not reproduced" and c.rows[0]["holds"] is False
    # the full data is not the paper's protocol: a failure there is inconclusive, never "not reproduced"
    c = C.check_figure3(_sweep(flat), "full")
    assert c.status == "inconclusive" and "batches of 512" in c.caveat


def test_check_figure3_angle_and_kappa_prediction_and_counterfactuals():
    inf = math.inf
    one_batch = {"s": (512, 3)}  # n <= batch size: the authors' batches are the full data again, counted once
    good = _sweep(_summary([10, 20, 30], [10, 10, 10], [1e4, 50, 20], [1e4, 1e4, 1e4]), depths=[0, 1, 2],
                  sizes=one_batch)
    assert C.check_figure3_angle(good).status == "reproduced"
    assert C.check_figure3_kappa(good).status == "reproduced"
    assert all(r["holds"] for c in C.checks_figure3(good)[:2] for r in c.rows)
    # a linear network's numbers fed in as the ReLU ones: no separation, no better conditioning
    linear = _sweep(_summary([10, 10, 10], [10, 10, 10], [1e4, 1e4, 1e4], [1e4, 1e4, 1e4]), depths=[0, 1, 2],
                    sizes=one_batch)
    for c in (C.check_figure3_angle(linear), C.check_figure3_kappa(linear)):
        assert c.status == "not reproduced" and [r["holds"] for r in c.rows] == [False]
    # kappa_0 = inf: "ReLU kappa < linear kappa" tests nothing
    vacuous = _sweep(_summary([10, 20, 30], [10, 10, 10], [inf, 50, 20], [inf, inf, inf]), depths=[0, 1, 2])
    c = C.check_figure3_kappa(vacuous)
    assert c.status == "not checked" and c.caveat.startswith("not testable on this data")
    assert c.rows and all(r["holds"] is None for r in c.rows)


def test_checks_on_the_small_real_sweep(small):
    data, sweep, theory = small
    assert C.check_figure3_angle(sweep).status == "reproduced"
    c = C.check_figure3_kappa(sweep)
    assert c.status == "reproduced" and "b (full data)" in c.measured and "c (small batches)" in c.measured
    tested, untested = c.measured.split("Not testable:")
    assert "a (full data)" not in tested  # n > d: linear kappa infinite, not tested ...
    assert "a (full data): linear kappa = inf" in untested  # ... and named so
    t42 = C.table_first_layer(theory, sweep)
    assert set(t42.table.index) == {("b", "full data"), ("c", "small batches")}
    assert t42.width == 32 and t42.depths == tuple(DEPTHS) and t42.names == tuple(data)
    # the Schur-product theorem on real data; lambda_min is compared on both protocols, the small batches too
    assert t42.table.below.all() and t42.table.lmin_gap.notna().all()
    assert (t42.table.lmin_gap >= -C.FIRST_LAYER_LMIN_TOL).all()
    c = C.check_first_layer(t42)
    assert c.status in ("reproduced", "reproduced with caveat")
    assert [r["holds"] for r in c.rows if "infinite width" in r["statement"]] == [True] * 6


def _theory(theory, ds, **cols):
    """The infinite-width predictions with some columns of data set ``ds`` at depths L >= 1 replaced."""
    f = theory.frame.copy()
    at = (f.dataset == ds) & (f.depth >= 1)
    for k, v in cols.items():
        if v is None:
            f = f.drop(columns=k)
        else:
            f.loc[at, k] = v
    return C.TheoryResult(f, names=theory.names, depths=theory.depths)


def test_thm42_table_compares_lambda_min_on_the_full_data_and_on_every_small_batch(small):
    _, sweep, theory = small
    f = theory.frame
    lmin_g = f[(f.dataset == "b") & (f.depth == 0)].lambda_min_linear.iloc[0]  # lambda_min(G) of the full set
    lmax = f[(f.dataset == "b") & (f.depth >= 1)].lambda_max_first.max()
    f2 = f.copy()  # lambda_min(K_L) short of lambda_min(G) at L = 2 only
    f2.loc[(f2.dataset == "b") & (f2.depth == 2), "lambda_min_first"] = lmin_g - 1e-3 * lmax
    short = C.table_first_layer(C.TheoryResult(f2, names=theory.names, depths=theory.depths), sweep)
    c = C.check_first_layer(short)
    assert c.status == "not reproduced" and "b (full data): lambda_min(K_L) < lambda_min(G)" in c.measured
    batch = C.table_first_layer(_theory(theory, "c", first_lmin_gap_small=-1e-3), sweep)
    c = C.check_first_layer(batch)
    assert c.status == "not reproduced" and "c (small batches): lambda_min(K_L) < lambda_min(G)" in c.measured
    old = C.table_first_layer(_theory(theory, "c", first_lmin_gap_small=None), sweep)  # a cell without the field
    assert math.isnan(old.table.loc[("c", "small batches"), "lmin_gap"])
    assert "c (small batches): lambda_min not measured" in C.check_first_layer(old).caveat
    flat = C.table_first_layer(_theory(theory, "b", kappa_first=40.0), sweep)  # flat, below kappa_0 = 56
    c = C.check_first_layer(flat)
    assert c.status == "not reproduced" and "b (full data): kappa does not fall" in c.measured


def test_thm42_table_holds_the_measurements_the_check_judges(small):
    _, sweep, theory = small
    tab, f, by = C.table_first_layer(theory, sweep).table, theory.frame, sweep.series
    b, c = f[f.dataset == "b"].set_index("depth"), f[f.dataset == "c"].set_index("depth")
    rb, rc = tab.loc[("b", "full data")], tab.loc[("c", "small batches")]
    assert rb.depths == rc.depths == (1, 2)
    assert rb.kappa0 == b.kappa_linear[0] and rb.kappa == tuple(b.kappa_first[[1, 2]])
    assert rb.lmin_gap == pytest.approx(((b.lambda_min_first - b.lambda_min_linear[0]) / b.lambda_max_first)[[1, 2]].min())
    assert rb.fw_kappa == tuple(by("b", "relu", "kappa_first_mean")[[1, 2]]) and bool(rb.fw_below)
    assert rc.kappa0 == c.kappa0_small[1] and rc.kappa == tuple(c.kappa_first_small[[1, 2]])
    assert rc.lmin_gap == c.first_lmin_gap_small[[1, 2]].min()
    assert rc.fw_kappa == tuple(by("c", "relu", "kappa_first_small_mean")[[1, 2]]) and bool(rc.fw_below)
    assert [rb.below, rc.below] == [True, True]
    no_fw = dataclasses.replace(sweep, summary=sweep.summary.drop(
        columns=["kappa_first_mean", "kappa_first_small_mean", "first_below0_small_min"]))
    t = C.table_first_layer(theory, no_fw).table  # a sweep without the first-layer networks: infinite width only
    assert t.fw_kappa.isna().all() and t.fw_below.isna().all()
    assert C.check_first_layer(C.table_first_layer(theory, no_fw)).status == "reproduced"


def test_thm42_table_boundaries_of_below_and_of_a_partial_lambda_min(small):
    _, sweep, theory = small
    f = theory.frame
    k0 = f[(f.dataset == "b") & (f.depth == 0)].kappa_linear.iloc[0]
    f2 = f.copy()
    f2.loc[(f2.dataset == "b") & (f2.depth == 2), "kappa_first"] = k0  # equal to kappa_0: not below
    t = C.table_first_layer(C.TheoryResult(f2, names=theory.names, depths=theory.depths), sweep)
    assert not t.table.loc[("b", "full data"), "below"] and C.check_first_layer(t).status == "not reproduced"
    f3 = f.copy()
    f3.loc[(f3.dataset == "c") & (f3.depth == 2), "first_lmin_gap_small"] = math.nan  # measured at one depth only
    t = C.table_first_layer(C.TheoryResult(f3, names=theory.names, depths=theory.depths), sweep)
    assert math.isnan(t.table.loc[("c", "small batches"), "lmin_gap"])
    S = sweep.summary.copy()
    at = (S.dataset == "b") & (S.activation == "relu") & (S.depth == 2)
    S.loc[at, "kappa_first_mean"] = k0  # the width-m mean equal to kappa_0: not below
    atc = (S.dataset == "c") & (S.activation == "relu") & (S.depth == 1)
    S.loc[atc, "first_below0_small_min"] = 0.5  # one seed with a batch not below its kappa_0
    t = C.table_first_layer(theory, dataclasses.replace(sweep, summary=S)).table
    assert [t.loc[k, "fw_below"] for k in (("b", "full data"), ("c", "small batches"))] == [False, False]


def test_thm42_table_is_empty_without_a_finite_kappa0_or_a_first_layer_kernel(small):
    _, sweep, theory = small
    f = theory.frame
    none = C.TheoryResult(f.drop(columns=[k for k in f if "first" in k or k.endswith("_small")]), theory.names,
                          theory.depths)
    t = C.table_first_layer(none, sweep)
    assert t.table.empty and C.check_first_layer(t).status == "not checked"
    only_a = C.TheoryResult(f[f.dataset == "a"], ("a",), theory.depths)  # n > d: kappa_0 = inf, no small batches
    assert C.table_first_layer(only_a, sweep).table.empty


def test_theory_cell_reports_lambda_min_of_each_small_batch_against_its_own_g(monkeypatch):
    X = np.random.default_rng(3).standard_normal((12, 3)) @ np.random.default_rng(4).standard_normal((3, 8))
    params = {"depth": 2, "first_layer": True, "small_batch": 3, "seeds": 2}
    gap = C.theory_cell(params, X)["first_lmin_gap_small"]
    assert gap >= -C.FIRST_LAYER_LMIN_TOL  # the Schur-product theorem, batch by batch
    # counterfactual: a "K_L" of half of G has lambda_min(K_L) = lambda_min(G) / 2 in every batch
    monkeypatch.setattr("lib.chapters.conditioning.theory_cells.relu_first_layer_ntk", lambda X, L: 0.5 * X @ X.T)
    half = C.theory_cell(params, X)
    assert half["first_lmin_gap_small"] < -1e-3


def test_check_two_sample_prediction_and_counterfactual():
    t2 = C.measure_two_sample([0.05, 0.3], [2, 0, 1, 1], 64, 2)
    assert t2.depths == (0, 1, 2) and t2.angles == (0.05, 0.3) and (t2.width, t2.seeds) == (64, 2)
    c = C.check_two_sample(t2)
    assert c.status == "reproduced" and "[0.05, 0.3] rad" in c.measured and "Width-64 networks (2 seeds)" in c.measured
    flat = t2.frame.assign(kappa_theory=t2.frame.kappa0)  # a linear network: kappa = kappa_0 at every depth
    assert C.check_two_sample(dataclasses.replace(t2, frame=flat)).status == "not reproduced"
    rising = t2.frame.assign(kappa_theory=t2.frame.kappa0 * (0.5 + 0.1 * t2.frame.depth))
    assert C.check_two_sample(dataclasses.replace(t2, frame=rising)).status == "not reproduced"


def test_check_theory_prediction_prediction_and_counterfactual(small):
    data, sweep, theory = small
    comparison = C.table_theory_comparison(theory, sweep)
    cmp = comparison.table
    assert comparison.width == 32 and len(cmp) == len(data) * len(DEPTHS)
    assert list(cmp.dataset) == [k for k in data for _ in DEPTHS] and list(cmp.depth) == DEPTHS * len(data)
    relu, f = sweep.series("b", "relu", "angle_mean")[2], theory.frame
    expected = np.degrees(f[(f.dataset == "b") & (f.depth == 2)].min_angle_relu.iloc[0])
    row = cmp[(cmp.dataset == "b") & (cmp.depth == 2)].iloc[0]
    assert (row.angle_relu, row.angle_relu_theory) == (relu, expected)
    assert row.angle_linear_theory == np.degrees(f[(f.dataset == "b") & (f.depth == 2)].min_angle_linear.iloc[0])
    assert row.angle_rel_dev == pytest.approx(abs(relu / expected - 1))
    at = lambda t: C.TheoryComparison(t, 512)  # noqa: E731
    close = cmp.assign(angle_relu=cmp.angle_relu_theory, angle_rel_dev=0.0)
    assert C.check_theory_prediction(at(close)).status == "reproduced"
    mid = cmp.assign(angle_rel_dev=10.0 / math.sqrt(512))
    assert C.check_theory_prediction(at(mid)).status == "reproduced with caveat"
    # the linear network's angles (no separation) against the ReLU prediction
    far = cmp.assign(angle_relu=cmp.angle_linear, angle_rel_dev=(cmp.angle_linear / cmp.angle_relu_theory - 1).abs())
    assert C.check_theory_prediction(at(far)).status == "not reproduced"


def test_batching_sentence_and_tables(small):
    data, sweep, theory = small
    s = C.batching_sentence(sweep, ds="a")
    assert "times smaller than the full-data kappa" in s and "-fold" in s
    assert "single batch" in C.batching_sentence(dataclasses.replace(sweep, batch_size=512), ds="a")
    assert C.batching_note(sweep) == C.batching_sentence(sweep, "a")  # no synthetic set: the first one
    tab = C.table_measured(sweep)
    assert "kappa ReLU, batch 5" in tab and "kappa ReLU, full" in tab and "kappa_0, small batch" in tab
    assert len(tab) == 3 * len(DEPTHS)
    assert C.table_cell_times(sweep).shape == (3, len(DEPTHS))


def test_plots_return_figures(small):
    data, sweep, theory = small
    for fig, n_axes in ((C.plot_figure3(sweep), 3), (C.plot_prop41(sweep), 2),
                        (C.plot_first_layer(theory, sweep), 2),
                        (C.plot_two_sample(C.measure_two_sample([0.1, 1.0], [0, 1], 32, 2)), 1),
                        (C.plot_theory_comparison(theory, sweep), 2)):
        assert isinstance(fig, Figure) and len(fig.axes) == n_axes


def test_grouped_cells_give_the_same_rows_as_per_depth_cells():
    X = np.random.default_rng(4).standard_normal((20, 5))
    kw = dict(batch_size=6, small={"x": 4}, first_layer=["x"])
    per = C.conditioning_cells(["x"], [0, 1, 3], 32, 2, **kw)
    grouped = C.conditioning_cells(["x"], [0, 1, 3], 32, 2, n_samples={"x": 20}, **kw)
    assert len(grouped) == 2 + 6 and sum("depths" in c for c in grouped) == 2  # ReLU grouped by seed
    rows = lambda cells: C.expand_cells(pd.DataFrame([{**c, **C.sweep_cell(c, X), "seconds": 1.0} for c in cells]))
    a = rows(per).sort_values(["activation", "depth", "seed"]).reset_index(drop=True)
    b = rows(grouped).sort_values(["activation", "depth", "seed"]).reset_index(drop=True)
    assert len(a) == len(b) == 12 and "depths" not in b and "rows" not in b
    for col in ("kappa", "kappa_batch", "min_angle", "kappa_small", "kappa0_small"):
        np.testing.assert_allclose(b[col], a[col], rtol=1e-8)
    relu1 = b[(b.activation == "relu") & (b.depth >= 1)]
    np.testing.assert_allclose(relu1.kappa_first, a[(a.activation == "relu") & (a.depth >= 1)].kappa_first, rtol=1e-8)


def test_expand_cells_reads_rows_stored_as_lists_and_as_json_text_of_older_cells():
    X = np.random.default_rng(6).standard_normal((9, 3))
    cell = C.conditioning_cells(["x"], [0, 2], 16, 1, batch_size=4, n_samples={"x": 9})[0]
    out = C.sweep_cell(cell, X)
    assert isinstance(out["rows"], list) and [r["depth"] for r in out["rows"]] == [0, 2]
    json.dumps(out["rows"])  # what the sweep cache stores as it is
    new = C.expand_cells(pd.DataFrame([{**cell, **out, "seconds": 1.0}]))
    old = C.expand_cells(pd.DataFrame([{**cell, "rows": json.dumps(out["rows"]), "seconds": 1.0}]))
    pd.testing.assert_frame_equal(new, old)
    assert list(new.depth) == [0, 2] and "rows" not in new and "depths" not in new


def test_two_sample_angle_figure_reads_its_result_and_draws_its_data():
    """The App. F angle figure: its setting reads the result's settings (change one, it changes) and each curve is
    the frame's phi, in degrees, below the limit arccos(1/4)."""
    t2 = C.measure_two_sample([0.05, 1.0], [0, 1, 3], 16, 1)
    d = C.figure_two_sample_angle(t2)
    assert d["label"] == "fig-two-sample-angle" and d["drawn_by"] is C.plot_two_sample_angle
    assert "input angles 0.05, 1 rad; depths L = 0, 1, 3;" in d["setting"] and "{profile}" in d["setting"]
    other = C.figure_two_sample_angle(dataclasses.replace(t2, depths=(0, 1)))
    assert "depths L = 0, 1;" in other["setting"]
    ax = d["fig"].axes[0]
    lines = [ln for ln in ax.get_lines() if ln.get_label().startswith("$\\theta")]
    assert len(lines) == 2
    for ln, (th, g) in zip(lines, t2.frame.groupby("theta_in")):
        assert np.allclose(ln.get_xdata(), g.depth) and np.allclose(ln.get_ydata(), np.degrees(g.phi))
        assert np.all(np.asarray(ln.get_ydata()) < np.degrees(np.arccos(0.25)))
