"""Chapter 06: every check on synthetic data (the paper's prediction and a counterfactual), figure smoke tests."""
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from lib.chapters import optimization as OPT


def make_gd(kappas=(10.0, 5.0), rates=(0.8, 0.7), steps=60) -> dict:
    """GD runs with loss L0 r^t against the bound L0 (1 - 1/kappa)^t (eta = 1, lambda_max = 1)."""
    t = np.arange(steps + 1)
    out = {}
    for L, (k, r) in enumerate(zip(kappas, rates), start=1):
        lmin = 1 / k
        out[L] = dict(depth=L, loss=2.0 * r ** t, linear=2.0 * r ** t, bound_lmin=2.0 * (1 - lmin / 2) ** t,
                      bound_kappa=2.0 * (1 - 1 / k) ** t, kappa=k, lambda_min=lmin, lambda_max=1.0, eta=1.0)
    return out


def test_check_worst_case():
    c = OPT.check_worst_case(make_gd(), [1, 2], 128, 15)
    assert c.status == "reproduced" and c.claim_id == "[LH] Sec. 5 (worst-case rates)"
    assert "kappa(K(w_0)) = 10, 5 at depths [1, 2] (width 128, n=15)" in c.measured
    assert OPT.check_worst_case(make_gd(kappas=(5.0, 10.0), rates=(0.7, 0.8)), [1, 2], 128, 15).status == \
        "reproduced with caveat"  # kappa grows with depth
    assert OPT.check_worst_case(make_gd(rates=(0.95, 0.7)), [1, 2], 128, 15).status == "not reproduced"  # above bound


def test_table_gd_rates():
    tab = OPT.table_gd_rates(make_gd(), [1, 2])
    assert tab.index.name == "depth" and tab["kappa"].tolist() == [10.0, 5.0]
    assert tab["measured late factor"].tolist() == pytest.approx([0.8, 0.7])
    assert tab["max_t measured/bound"].iloc[0] == pytest.approx(1.0)


def make_study(order=1, depths=(1, 2, 3), epochs=5) -> OPT.SGDStudy:
    """One seed per depth; loss curves decay faster with depth (order=1) or slower (order=-1)."""
    rows = []
    for i, L in enumerate(depths):
        rate = 0.5 + 0.1 * (len(depths) - 1 - i if order == 1 else i)
        rows.append(dict(dataset="digits", depth=L, seed=0, lr=1.0, train_loss=2.0 * rate ** np.arange(epochs + 1),
                         test_acc=0.9, diverged=False, seconds=0.1))
    runs = pd.DataFrame(rows)
    grid = pd.DataFrame([dict(dataset="digits", depth=L, lr=lr, search_loss=1.0 / lr, chosen=lr == 1.0)
                         for L in depths for lr in (0.5, 1.0)])
    return OPT.SGDStudy(grid, runs, runs, list(depths), list(depths), 1497, 300, 500, epochs, 2, 1.0, {})


def test_check_depth_speed():
    c = OPT.check_depth_speed(make_study())
    assert c.status == "reproduced" and "mean log training loss over the 5 epochs: -1.00" in c.measured
    assert OPT.check_depth_speed(make_study(order=-1)).status == "not reproduced"  # deeper is slower


def acc_table(means, sds=(0.2, 0.2, 0.2), depths=(1, 6, 12), seeds=3) -> pd.DataFrame:
    tab = pd.DataFrame({"mean (%)": means, "sd (%)": sds, "seeds": [seeds] * len(means)}, index=list(depths))
    tab.index.name = "depth"
    tab["[LH] MNIST (%)"] = [OPT.PAPER_TABLE1[L] for L in depths]
    return tab


def test_check_accuracy():
    study = make_study()
    c = OPT.check_accuracy(acc_table([95.0, 97.0, 96.0]), study)
    assert c.status == "reproduced" and "best at depth 6" in c.measured and "is 0.38 points" in c.measured
    assert OPT.check_accuracy(acc_table([95.0, 97.0, 96.9]), study).status == "reproduced with caveat"  # no fall
    assert OPT.check_accuracy(acc_table([97.0, 96.0, 95.0]), study).status == "not reproduced"  # falls from depth 1


def test_accuracy_table_and_lr_grid():
    runs = pd.DataFrame([dict(depth=L, seed=s, test_acc=0.9 + 0.01 * s) for L in (1, 3) for s in range(2)])
    tab = OPT.accuracy_table(runs, [1, 3], OPT.PAPER_TABLE1)
    assert tab["seeds"].tolist() == [2, 2] and tab["mean (%)"].iloc[0] == pytest.approx(90.5)
    grid = OPT.table_lr_grid(make_study())
    assert grid["chosen"].tolist() == [1.0, 1.0, 1.0]
    assert "1497 training and 300 test images; batch 500" in OPT.sgd_summary(make_study())


def test_idx_studies_skipped_without_folders():
    idx = OPT.compute_idx_studies({"MNIST": (None, "idx_dir"), "Fashion-MNIST": (None, "fashion_dir")},
                                  [1, 2], 100, 2, {})
    assert not idx.ran and "MNIST: skipped (set the parameter idx_dir" in OPT.idx_summary(idx)
    with pytest.raises(ValueError, match="nothing to draw"):
        OPT.plot_idx_curves(idx, [1, 2])


@pytest.mark.parametrize("depths,n_axes", [([1, 2], 2), ([1, 2, 3, 4, 5], 8)])
def test_plot_gd_bounds(depths, n_axes):
    gd = make_gd(kappas=np.linspace(10, 5, len(depths)), rates=np.linspace(0.85, 0.7, len(depths)))
    fig = OPT.plot_gd_bounds(gd, depths)
    assert isinstance(fig, Figure) and len(fig.axes) == n_axes


def test_other_plots():
    study = make_study()
    fig = OPT.plot_loss_curves(study.runs_fig, [1, 2, 3], "t")
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    fig = OPT.plot_accuracy(acc_table([95.0, 97.0, 96.0]), 3)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    idx = OPT.IdxStudies({"MNIST": study.runs_fig, "Fashion-MNIST": study.runs_fig},
                         {"MNIST": 100, "Fashion-MNIST": 100}, [])
    fig = OPT.plot_idx_curves(idx, [1, 2, 3])
    assert isinstance(fig, Figure) and len(fig.axes) == 2


def test_gd_study_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path))
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((5, 3)), rng.standard_normal(5)
    a = OPT.gd_depth_study(X, y, [1, 2], 8, 4)
    assert len(list((tmp_path / "sweeps" / "06_optimization_gd").glob("*.json"))) == 2
    b = OPT.gd_depth_study(X, y, [1, 2], 8, 4)
    for L in (1, 2):
        for k in ("loss", "bound_kappa", "linear"):
            np.testing.assert_array_equal(a[L][k], b[L][k])
        assert a[L]["kappa"] == b[L]["kappa"]
