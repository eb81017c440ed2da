"""Chapter 03 on MNIST-5k ([LH] Figure 3 on the paper's data set, a 5,000-image subset): the authors' batches,
batch-only cells (full-data measures at fewer seeds), the small-batch rule, the data choices and the table rows."""
import math

import numpy as np
import pandas as pd
import pytest

from lib.chapters import conditioning as C
from lib.validation import InputError


def test_authors_protocol_on_all_5000_images_is_10_batches_per_seed_the_last_partial_kept():
    for seed in range(5):
        b = C.authors_partition(5000, 512, seed)
        assert [len(x) for x in b] == [512] * 9 + [392]
        assert sorted(np.concatenate(b).tolist()) == list(range(5000))


def test_mnist5k_loads_all_5000_by_default_and_names_n_mnist5k_when_too_large():
    data, skipped = C.load_datasets(["mnist_5k"], n_synthetic=10)
    X = data["mnist_5k"]
    assert skipped == {} and X.shape == (5000, 784) and X.dtype == np.float64
    assert X.min() == -1.0 and X.max() == 1.0  # the authors' [-1, 1]
    sub, _ = C.load_datasets(["mnist_5k"], n_synthetic=10, n_mnist5k=30, seed=2)
    assert sub["mnist_5k"].shape == (30, 784)
    with pytest.raises(InputError, match="n_mnist5k must be between 1 and 5000"):
        C.load_datasets(["mnist_5k"], n_synthetic=10, n_mnist5k=5001)


def test_notebook_parameter_n_mnist5k_refuses_more_than_5000():
    from lib.book.params import ParameterError

    assert C.SPEC.config(n_mnist5k=None).n_mnist5k is None
    assert C.SPEC.config(n_mnist5k=5000).n_mnist5k == 5000
    with pytest.raises(ParameterError, match="'n_mnist5k'"):
        C.SPEC.config(n_mnist5k=5001)


def test_small_batches_only_where_the_authors_batches_are_singular():
    rng = np.random.default_rng(0)
    low = rng.standard_normal((40, 6)) @ rng.standard_normal((6, 12))  # rank 6
    data = {"low": low}
    assert C.small_batch_sets(data, 4) == {"low": 4}  # no authors' batch size given: as before
    assert C.small_batch_sets(data, 4, batch_size=10) == {"low": 4}  # batches of 10 > rank 6: singular G
    # counterfactual: batches of 5 <= rank 6 already have a finite kappa_0 (MNIST-5k: 512 <= 654)
    assert C.small_batch_sets(data, 4, batch_size=5) == {}


def test_full_seeds_make_batch_only_cells_and_reject_bad_counts():
    kw = dict(batch_size=6, n_samples={"x": 20, "y": 20})
    cells = C.conditioning_cells(["x", "y"], [0, 1, 3], 16, 3, full_seeds={"x": 1}, **kw)
    only = [c for c in cells if c.get("full") is False]
    assert {c["dataset"] for c in only} == {"x"} and {c["seed"] for c in only} == {1, 2}
    # ReLU: one cell per seed (all depths); linear: one per depth and seed
    assert sum("depths" in c for c in only) == 2 and sum("depth" in c for c in only) == 6
    assert all("full" not in c for c in cells if c["dataset"] == "y")  # full cells keep their cache keys
    same = C.conditioning_cells(["x", "y"], [0, 1, 3], 16, 3, **kw)
    assert all("full" not in c for c in same) and len(same) == len(cells)
    with pytest.raises(InputError, match="full_seeds"):
        C.conditioning_cells(["x"], [0, 1], 16, 2, full_seeds={"x": -1})


def test_batch_only_cells_give_the_authors_protocol_of_the_full_cells_without_the_full_data():
    X = np.random.default_rng(4).standard_normal((23, 5))
    kw = dict(batch_size=7)
    full = C.conditioning_cells(["x"], [0, 1, 3], 24, 2, n_samples={"x": 23}, **kw)
    part = C.conditioning_cells(["x"], [0, 1, 3], 24, 2, n_samples={"x": 23}, full_seeds={"x": 0}, **kw)
    rows = lambda cells: C.expand_cells(pd.DataFrame([{**c, **C.sweep_cell(c, X), "seconds": 1.0} for c in cells])
                                        ).sort_values(["activation", "depth", "seed"]).reset_index(drop=True)
    a, b = rows(full), rows(part)
    assert len(a) == len(b) == 12 and (b.n_batches == 4).all()
    np.testing.assert_allclose(b.kappa_batch, a.kappa_batch, rtol=1e-7)
    np.testing.assert_allclose(b.min_angle_batch, a.min_angle_batch, rtol=1e-7)
    assert b.kappa.isna().all() and b.min_angle.isna().all() and not b.interval.astype(bool).any()
    mixed = pd.concat([a[a.seed == 0], b[b.seed == 1]])
    S = C.summarize(mixed)
    assert (S.full_seeds == 1).all() and (S.seeds == 2).all()
    relu = S[S.activation == "relu"].set_index("depth")
    assert relu.kappa_mean[3] == pytest.approx(a[(a.activation == "relu") & (a.depth == 3) & (a.seed == 0)].kappa.iloc[0])
    assert len(C.prop41_bound(mixed)) == 6  # batch-only rows left out


def test_batch_only_fields_name_a_mismatch_and_report_infinity_when_singular():
    K = np.ones((3, 3))  # rank 1
    out = C.batch_only_fields([np.eye(3), K], 2)
    assert math.isinf(out["kappa_batch"]) and math.isnan(out["kappa"]) and out["full"] is False
    with pytest.raises(InputError, match="3 batches"):
        C.batch_only_fields([np.eye(3)], 3)


def _summary(relu_full=(50.0, 20.0), lin_full=(math.inf, math.inf), relu_b=(30.0, 10.0), lin_b=(900.0, 950.0)):
    rows = []
    for act, full, bat, ang in (("relu", relu_full, relu_b, (9.0, 30.0)), ("linear", lin_full, lin_b, (2.0, 2.0))):
        for L, kf, kb, a in zip((1, 10), full, bat, ang):
            rows.append(dict(dataset="mnist_5k", activation=act, depth=L, kappa_mean=kf, kappa_high_mean=kf,
                             kappa_batch_mean=kb, angle_mean=a, interval=False))
    return pd.DataFrame(rows)


def _sweep(S, depths=(0, 1, 10)):
    return C.ConditioningSweep(S, ("mnist_5k",), tuple(depths), 512, sizes={"mnist_5k": (5000, 784)})


def test_mnist_rows_of_the_paper_table_are_marked_as_the_papers_data_set():
    from lib.book.wording import paper_vs_book

    tab = paper_vs_book(C.checks_figure3(_sweep(_summary())))
    assert tab.statement.str.startswith("MNIST-5k (the paper's data set, a 5,000-image subset)").all()
    lin_full = tab[tab.statement.str.contains("κ (full data), ReLU against linear", regex=False)].iloc[0]
    assert lin_full.holds == "—" and "not testable" in lin_full["this book"]  # kappa_0 = inf: judged neither way
    assert set(tab.claim) == {"[LH] Fig 3"} and (tab.holds == "yes").sum() == 4


def test_kappa_check_tests_mnist_batches_and_says_its_full_data_is_not_testable():
    c = C.check_figure3_kappa(_sweep(_summary()))
    assert c.status == "reproduced" and "mnist_5k (authors' batches)" in c.measured
    assert "mnist_5k (full data): linear kappa = inf" in c.measured
    assert c.measured.startswith("Where the linear kappa is finite (1 data set/protocol pair): ")
    # counterfactual: the ReLU batch kappa above the linear one fails
    bad = C.check_figure3_kappa(_sweep(_summary(relu_b=(3000.0, 10.0))))
    assert bad.status == "not reproduced" and [r["holds"] for r in bad.rows] == [None, False]


def test_full_depths_split_a_seed_into_a_full_cell_and_a_batch_only_cell():
    cells = C.conditioning_cells(["x"], [0, 1, 2, 3], 16, 2, batch_size=6, n_samples={"x": 20},
                                 full_seeds={"x": 1}, full_depths={"x": [0, 3]})
    relu = [c for c in cells if c["activation"] == "relu"]
    assert [(c["seed"], c["depths"], c.get("full", True)) for c in relu] == [
        (0, [0, 3], True), (0, [1, 2], False), (1, [0, 1, 2, 3], False)]
    lin = {(c["depth"], c["seed"]): c.get("full", True) for c in cells if c["activation"] == "linear"}
    assert len(lin) == 8 and [k for k, v in lin.items() if v] == [(0, 0), (3, 0)]


def test_checks_leave_out_depths_without_full_data_and_still_fail_on_a_counterfactual():
    S = _summary()
    extra = S[S.depth == 1].assign(depth=5, kappa_mean=math.nan, kappa_high_mean=math.nan, angle_mean=math.nan)
    S = pd.concat([S, extra], ignore_index=True)
    depths = [0, 1, 5, 10]
    assert C.check_figure3_angle(_sweep(S, depths)).status == "reproduced"
    assert C.check_figure3(_sweep(S, depths), "full").status == "reproduced"
    rising = S.assign(kappa_mean=np.where(S.activation == "relu", S.depth * 10.0, S.kappa_mean))
    assert C.check_figure3(_sweep(rising, depths), "full").status == "inconclusive"
    flat = S.assign(angle_mean=np.where(S.activation == "relu", 1.0, S.angle_mean))
    assert C.check_figure3_angle(_sweep(flat, depths)).status == "not reproduced"


def test_glued_text_states_the_full_data_reduction_and_the_batches():
    from types import SimpleNamespace

    cfg = C.SPEC.config(datasets=["mnist_5k"])
    info = pd.DataFrame([dict(dataset="mnist_5k", n=5000, d=784, rank_G=654, kappa0=np.inf, small_batch=None)]
                        ).set_index("dataset")
    sizes = {"mnist_5k": (5000, 784)}

    def sweep(full_seeds, full_depths):
        data = C.ChapterData(arrays={}, info=info, requested=("mnist_5k",), full_seeds=full_seeds,
                             full_depths=full_depths)
        return C.ConditioningSweep(pd.DataFrame(), ("mnist_5k",), tuple(range(11)), 512, width=512, seeds=5,
                                   sizes=sizes, data=data)

    others = (SimpleNamespace(text=lambda: "x"), SimpleNamespace(width=64, seeds=2))
    reduced = sweep({"mnist_5k": 1}, {"mnist_5k": [0, 1, 10]})
    g = C.glue_values(cfg, reduced, *others)
    assert "10 batches (9 of 512 and a last one of 392, kept as their DataLoader keeps it" in g["mnist5k_batches"]
    assert "1 of 5 seeds, depths L = 0, 1, 10 of 0 to 10" in g["full_seeds_note"]
    assert "MNIST-5k: full-data κ and min angle at 1 of 5 seeds" in C.setting_figure3(reduced)
    theory = C.TheoryResult(pd.DataFrame(), names=(), depths=tuple(range(11)))
    assert "none for MNIST-5k" in C.setting_theory(theory, reduced)
    assert "No infinite-width lines for MNIST-5k" in g["theory_sets"] and g["mnist5k"] == "all 5,000"
    # counterfactual: every seed and depth measured: no reduction stated
    full = sweep({"mnist_5k": 5}, {"mnist_5k": list(range(11))})
    none = C.glue_values(cfg, full, *others)
    assert "Reduction" not in none["full_seeds_note"]
    assert "full-data κ and min angle at" not in C.setting_figure3(full)


def test_batching_sentence_ignores_depths_without_full_data():
    S = _summary().assign(kappa_high_mean=lambda f: f.kappa_mean, kappa_batch_mean=lambda f: f.kappa_batch_mean)
    S = S.assign(kappa_mean=np.where(S.activation == "relu", S.kappa_mean, S.kappa_mean))
    extra = S[S.depth == 1].assign(depth=5, kappa_mean=math.nan, kappa_high_mean=math.nan, kappa_batch_mean=20.0)
    S = pd.concat([S, extra], ignore_index=True)
    text = C.batching_sentence(_sweep(S, [0, 1, 5, 10]), ds="mnist_5k")
    assert "at least" not in text and "intervals" not in text and "50 -> 20" in text
    assert C.batching_note(_sweep(S, [0, 1, 5, 10])) == text  # the only set: said once
    # counterfactual: a real interval (high end above the low end) is still called one
    wide = S.assign(kappa_high_mean=S.kappa_mean * 2)
    assert "at least" in C.batching_sentence(_sweep(wide, [0, 1, 5, 10]), ds="mnist_5k")
