"""Chapter 05: every check on synthetic runs (the paper's prediction and a counterfactual), figure smoke tests."""
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from lib.book.params import ParameterError
from lib.chapters import non_constancy as NC

WIDTHS = [20, 200, 2000]
BOTTLENECKS = [4, 16, 64]


def _path(level, steps, lr=0.5, lam0=1.0, lam_end=0.5):
    t = np.arange(steps + 1)
    ks = np.arange(0, steps + 1, 10)
    return dict(loss=0.9 ** t, kernel_steps=ks, kernel_change=level * ks / max(ks[-1], 1), lr=lr,
                lambda_min=np.linspace(lam0, lam_end, len(ks)))


def make_runs(lin_slope=-0.5, nl_slope=0.0, nl_level=0.5, b_slope=-0.5, nl_converged=True, nl_steps=150,
              lin_steps=100, seeds=2, lm_change=0.0, move_slope=0.0, nl_loss_rate=0.9) -> NC.KernelRuns:
    """Delta_K = c m^slope per arch, with small seed noise; a bottleneck sweep with Delta_K = b^b_slope."""
    rows, rows_b = [], []
    for s in range(seeds):
        noise = 1 + 0.01 * s
        for m in WIDTHS:
            for arch, dk, steps, conv in (("linear", 0.3 * (m / 20) ** lin_slope, lin_steps, True),
                                          ("swish", nl_level * (m / 20) ** nl_slope, nl_steps, nl_converged),
                                          ("softmax", nl_level * 1.2 * (m / 20) ** nl_slope, nl_steps, nl_converged)):
                path = _path(dk, steps)
                if arch != "linear":
                    path["loss"] = nl_loss_rate ** np.arange(steps + 1)
                rows.append(dict(arch=arch, width=m, bottleneck=None, seed=s, delta_K=dk * noise, steps=steps,
                                 converged=conv, weight_move=(m / 20) ** move_slope * noise, **path))
        for b in BOTTLENECKS:
            dk = 0.8 * (b / 4) ** b_slope * noise
            rows_b.append(dict(arch="bottleneck", width=256, bottleneck=b, seed=s, delta_K=dk, steps=100,
                               converged=True, weight_move=1.0, **_path(dk, 100)))
    lm = pd.DataFrame([dict(arch="linear_model", width=1, bottleneck=None, seed=s, delta_K=lm_change, steps=50,
                            converged=True, weight_move=1.0, **_path(lm_change, 50)) for s in range(seeds)])
    return NC.KernelRuns(pd.DataFrame(rows), pd.DataFrame(rows_b), WIDTHS, 256, BOTTLENECKS, 3, 1500, 0.01, lm)


def make_hessian(lin_slope=-0.5, nl_slope=0.0, converged=True, b_slope=-0.5, bm_slope=0.0) -> NC.HessianNorms:
    rows = [dict(arch=a, width=m, seed=s, hess_norm=c * (m / 20) ** sl * (1 + 0.01 * s), iterations=50,
                 converged=converged)
            for s in range(2) for m in WIDTHS
            for a, c, sl in (("linear", 1.0, lin_slope), ("swish", 0.5, nl_slope), ("softmax", 0.3, nl_slope))]
    bott = [dict(sweep="b", width=256, bottleneck=b, seed=s, hess_norm=(b / 4) ** b_slope, iterations=50,
                 converged=converged) for b in BOTTLENECKS for s in range(2)]
    bott += [dict(sweep="m", width=m, bottleneck=4, seed=s, hess_norm=0.7 * (m / 20) ** bm_slope, iterations=50,
                  converged=converged) for m in WIDTHS for s in range(2)]
    return NC.HessianNorms(pd.DataFrame(rows), WIDTHS, 3, pd.DataFrame(bott))


def test_check_linear_kernel():
    c = NC.check_linear_kernel(make_runs())
    assert c.status == "reproduced" and c.claim_id == "[LZB] Remark 3.5" and "fitted slope -0.50." in c.measured
    steep = NC.check_linear_kernel(make_runs(lin_slope=-1.0))  # O(1/m): constant, faster than the bound's rate
    assert steep.status == "reproduced" and "steeper than -1/2" in steep.measured
    assert NC.check_linear_kernel(make_runs(lin_slope=-0.2)).status == "reproduced with caveat"
    # a non-linear output's numbers fed in as the linear output's: the change does not vanish
    assert NC.check_linear_kernel(make_runs(lin_slope=0.0)).status == "not reproduced"


def test_check_linear_model():
    c = NC.check_linear_model(make_runs())
    assert c.claim_id == "[LZB] Prop 2.2" and c.status == "reproduced"
    assert NC.check_linear_model(make_runs(lm_change=1e-3)).status == "not reproduced"  # a moving kernel
    constant = make_runs()
    constant.df_b = constant.df_b.assign(delta_K=0.0)  # a non-linear model whose kernel never moves
    assert NC.check_linear_model(constant).status == "not reproduced"
    missing = make_runs()
    missing.df_lm = None
    assert NC.check_linear_model(missing).status == "not checked"


def test_linear_model_kernel_is_exactly_constant(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path))
    data = NC.synthetic_regression(6, 3, 2, seed=0)
    lm = NC.linear_model_sweep(data, 1, activation="tanh", max_steps=20, rel_tol=1e-3, track_every=5, lr_scale=1.0)
    assert lm.delta_K.max() <= 1e-12


def test_check_weight_change():
    c = NC.check_weight_change(make_runs())
    assert c.claim_id == "[LZB] Eq 2" and c.status == "reproduced"
    assert NC.check_weight_change(make_runs(move_slope=-0.5)).status == "not reproduced"  # lazy: vanishing move
    assert NC.check_weight_change(make_runs(move_slope=-0.2)).status == "reproduced with caveat"


def test_check_nonlinear_kernel():
    c = NC.check_nonlinear_kernel(make_runs())
    assert c.status == "reproduced" and "fitted slopes 0.00 (swish)" in c.measured
    # a linear output's numbers fed to the non-linear check: the change falls with width
    assert NC.check_nonlinear_kernel(make_runs(nl_slope=-0.5)).status == "not reproduced"
    assert NC.check_nonlinear_kernel(make_runs(nl_level=0.05)).status == "not reproduced"  # flat but tiny


def test_check_bottleneck():
    c = NC.check_bottleneck(make_runs())
    assert c.status == "reproduced" and c.claim_id == "[LZB] Fig 2" and "fitted slope -0.50 (prediction -0.5)" in c.measured
    assert NC.check_bottleneck(make_runs(b_slope=0.0)).status == "not reproduced"
    assert NC.check_bottleneck(make_runs(b_slope=-1.2)).status == "reproduced with caveat"


def test_check_hessian():
    c = NC.check_hessian(make_hessian())
    assert c.status == "reproduced" and c.claim_id == "[LZB] Thm 3.2" and "converged in every case: True" in c.measured
    assert NC.check_hessian(make_hessian(lin_slope=0.0)).status == "not reproduced"  # a non-linear output's norm
    assert NC.check_hessian(make_hessian(converged=False)).status == "not reproduced"


def test_check_nonlinear_hessian():
    c = NC.check_nonlinear_hessian(make_hessian())
    assert c.status == "reproduced" and c.claim_id == "[LZB] Eq 29"
    assert NC.check_nonlinear_hessian(make_hessian(nl_slope=-0.5)).status == "not reproduced"  # linear-output-like
    assert NC.check_nonlinear_hessian(make_hessian(converged=False)).status == "not reproduced"


def test_check_bottleneck_hessians():
    assert NC.check_bottleneck_hessian(make_hessian()).status == "reproduced"
    assert NC.check_bottleneck_hessian(make_hessian(b_slope=0.0)).status == "not reproduced"  # not set by b
    assert NC.check_bottleneck_hessian_width(make_hessian()).status == "reproduced"
    # a wide net's norm (falling like m^(-1/2)) fed in as the bottleneck net's: not reproduced
    assert NC.check_bottleneck_hessian_width(make_hessian(bm_slope=-0.5)).status == "not reproduced"
    h = make_hessian()
    h.bottleneck = None
    assert NC.check_bottleneck_hessian(h).status == "not checked"
    assert NC.check_bottleneck_hessian_width(h).status == "not checked"


def test_check_convergence():
    c = NC.check_convergence(make_runs())
    assert c.status == "reproduced" and "4 of 4 non-linear-output nets" in c.measured
    assert NC.check_convergence(make_runs(nl_steps=1500)).status == "reproduced with caveat"  # 15x slower
    c = NC.check_convergence(make_runs(nl_converged=False))  # capped while the loss still fell geometrically
    assert c.status == "inconclusive" and "step cap" in c.caveat
    assert NC.check_convergence(make_runs(nl_converged=False, nl_loss_rate=1.0)).status == "not reproduced"  # stall


def test_tables_and_summaries():
    runs = make_runs()
    t = NC.table_width_means(runs)
    assert list(t.columns) == ["delta_K", "steps", "weight_move"] and len(t) == 9
    assert "24 nets trained" in NC.run_summary({"X": np.zeros((12, 10))}, runs)
    assert "all converged = True, at most 50 iterations" == NC.hessian_summary(make_hessian())[17:]


@pytest.mark.parametrize("plot,n_axes", [("plot_width_trend", 1), ("plot_bottleneck", 1), ("plot_kernel_paths", 1),
                                         ("plot_convergence", 2)])
def test_plots_return_figures(plot, n_axes):
    fig = getattr(NC, plot)(make_runs())
    assert isinstance(fig, Figure) and len(fig.axes) == n_axes


def test_plot_hessian_returns_figure():
    fig = NC.plot_hessian(make_hessian())
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    fig = NC.plot_bottleneck_hessian(make_hessian())
    assert isinstance(fig, Figure) and len(fig.axes) == 2


def test_bad_parameters_are_refused_by_name():
    with pytest.raises(ParameterError, match="'k' must be at least 2") as e:
        NC.check_parameters(1, 2.5, 5, 3)
    assert "'lr_scale'" in str(e.value) and "'n_hessian'" in str(e.value)
    NC.check_parameters(3, 1.8, 2, 12)


def test_runs_are_cached_and_resumed(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path))
    data = NC.synthetic_regression(6, 3, 2, seed=0)
    kw = dict(activation="tanh", max_steps=5, rel_tol=0.5, track_every=5, lr_scale=1.0)
    a = NC.compute_kernel_runs(data, [8, 16], 8, [2, 4], 1, 2, **kw)
    files = sorted((tmp_path / "sweeps" / "05_non_constancy").glob("*.json"))
    assert len(files) == 6 + 2 + 1  # width sweep, bottleneck sweep, linear model
    files[0].unlink()  # as if the run had been interrupted before that net
    b = NC.compute_kernel_runs(data, [8, 16], 8, [2, 4], 1, 2, **kw)
    for col in ("delta_K", "steps", "lr", "weight_move"):
        np.testing.assert_array_equal(a.df[col], b.df[col])
    np.testing.assert_array_equal(a.df.loss.iloc[3], b.df.loss.iloc[3])


def test_check_backward_prediction_and_counterfactual():
    X = NC.synthetic_regression(4, 5, 2)["X"]
    c = NC.check_backward(NC.backward_sweep(X, [32, 128, 512, 2048], 2))
    assert c.claim_id == "[LZB] Lemma 3.1" and c.status == "reproduced", c.measured
    # a bottleneck of width 4 in the middle: that layer's backward vector does not shrink with m
    assert NC.check_backward(NC.backward_sweep(X, [32, 128, 512, 2048], 2, bottleneck=4)).status == "not reproduced"
    assert NC.check_backward(NC.backward_sweep(X, [32, 4096], 1, max_width=2048)).status == "inconclusive"


def test_glue_values_show_values_not_parameter_names():
    from types import SimpleNamespace
    cfg = SimpleNamespace(profile="default", widths=[32, 128], bottleneck_width=1024, bottlenecks=[4, 16], seeds=2,
                          n_samples=20, d=10, k=3, activation="tanh", max_steps=4000, rel_tol=1e-3, lr_scale=1.8,
                          track_every=10, n_hessian=4)
    g = NC.glue_values(cfg)
    assert {f"fig5_{k}" for k in range(1, 7)} <= set(g)
    assert "m = 1,024, b = 4, 16" in g["fig5_2"] and "n = 20" in g["fig5_1"] and "profile default" in g["fig5_1"]
    assert g["lr_scale"] == "1.8" and not any("lr_scale" in v for v in g.values())


def test_table_paper_vs_book_puts_the_fitted_slopes_beside_the_papers():
    t = NC.table_paper_vs_book(make_runs(), make_hessian())
    assert (t["paper"].isin(["-0.5", "0"])).all() and len(t) == 5
    mean_w = NC.kernel_change_by_width(make_runs())
    s = NC.width_slopes(mean_w, ["linear"])["linear"]
    assert t.loc["[LZB] Remark 3.5: kernel change, linear output, against m", "this book"].startswith(f"{s:.2f}")
    # counterfactual: a linear-output kernel change that does not fall shows a flat slope beside the paper's -0.5
    flat = NC.table_paper_vs_book(make_runs(lin_slope=0.0), make_hessian())
    assert flat.loc["[LZB] Remark 3.5: kernel change, linear output, against m", "this book"].startswith("0.00") or \
        flat.loc["[LZB] Remark 3.5: kernel change, linear output, against m", "this book"].startswith("-0.00")
