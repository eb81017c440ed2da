"""Tests of lib.chapters.conditioning.book_text: glued values, captions, the paper-vs-book table of [LH] Figure 3."""
import math

import numpy as np
import pandas as pd

from lib.book import params as P
from lib.chapters import conditioning as C


def _cfg(**over):
    values = dict(profile="smoke", datasets=["synthetic", "digits", "faces"], n_synthetic=60, d_synthetic=5,
                  n_digits=100, n_faces=40, n_idx=2000, idx_dir=None, pixel_range=None, data_file=None,
                  data_key=None, unit_norm=False, data_seed=0, depths=[0, 1, 2, 4], width=64, seeds=2,
                  batch_size=20, small_batch=30, full_method="auto", first_layer=True,
                  two_sample_angles=[0.05, 0.3], two_sample_depths=[0, 1, 2, 4], two_sample_width=256,
                  two_sample_seeds=2, agreement_n=10, agreement_width=32, agreement_depths=[0, 1, 2])
    values.update(over)
    v = values
    return P.validate(
        profile=(v["profile"], P.text), datasets=(v["datasets"], P.choices_list(C.DATASET_NAMES)),
        n_synthetic=(v["n_synthetic"], P.positive_int), d_synthetic=(v["d_synthetic"], P.positive_int),
        n_digits=(v["n_digits"], P.optional(P.positive_int)), n_faces=(v["n_faces"], P.optional(P.positive_int)),
        n_idx=(v["n_idx"], P.optional(P.positive_int)), idx_dir=(v["idx_dir"], P.path_or_none),
        pixel_range=(v["pixel_range"], C.pixel_range_param), data_file=(v["data_file"], P.path_or_none),
        data_key=(v["data_key"], P.optional(P.text)), unit_norm=(v["unit_norm"], P.boolean),
        data_seed=(v["data_seed"], P.nonneg_int), depths=(v["depths"], P.int_list(min_value=0, min_len=2)),
        width=(v["width"], P.positive_int), seeds=(v["seeds"], P.positive_int),
        batch_size=(v["batch_size"], P.int_at_least(2)),
        small_batch=(v["small_batch"], P.optional(P.int_at_least(2))),
        full_method=(v["full_method"], P.choice(C.FULL_METHODS)), first_layer=(v["first_layer"], P.boolean),
        two_sample_angles=(v["two_sample_angles"], P.float_list(positive=True, max_value=math.pi)),
        two_sample_depths=(v["two_sample_depths"], P.int_list(min_value=0, min_len=2)),
        two_sample_width=(v["two_sample_width"], P.positive_int),
        two_sample_seeds=(v["two_sample_seeds"], P.positive_int),
        agreement_n=(v["agreement_n"], P.int_at_least(2)), agreement_width=(v["agreement_width"], P.positive_int),
        agreement_depths=(v["agreement_depths"], P.int_list(min_value=0)))


def _info():
    return pd.DataFrame([dict(dataset="synthetic", n=60, d=5, rank_G=5, kappa0=np.inf, small_batch=None),
                         dict(dataset="digits", n=100, d=64, rank_G=61, kappa0=np.inf, small_batch=30),
                         dict(dataset="faces", n=40, d=625, rank_G=40, kappa0=12.0, small_batch=None)]
                        ).set_index("dataset")


def test_glue_values_come_from_the_config():
    g = C.glue_values(_cfg(), _info())
    assert {f"fig3_{k}" for k in range(1, 6)} <= set(g)
    assert g["batch_size"] == "20" and g["seeds"] == "2" and g["width"] == "64" and g["small_batch"] == "30"
    assert g["n_synthetic"] == "60" and g["d_synthetic"] == "5" and g["digits"] == "100 of the 1797"
    assert "batches of 30 (below the rank 61)" in g["small_batch_sentence"]
    assert g["idx_dir"] == "not set" and g["data_file"] == "not set" and g["d10_state"] == "not in this run"
    f1 = g["fig3_1"]
    assert "synthetic (n = 60, d = 5)" in f1 and "faces (n = 40, d = 625)" in f1 and "m = 64" in f1
    assert "depths L = 0, 1, 2, 4" in f1 and "2 seeds" in f1 and "batches of 20" in f1 and "profile smoke" in f1
    assert "Deviation" in f1 and "(the paper: 512)" in f1 and "MNIST, Fashion-MNIST absent" in f1
    assert "finite κ₀: digits, faces (batches of 30 on digits)" in g["fig3_3"]
    assert "0.05, 0.3 rad" in g["fig3_4"] and "m = 256" in g["fig3_4"]
    assert "m(1 + d) = 384" in g["rank_bound"]


def test_changing_a_config_value_changes_the_text():
    base = C.glue_values(_cfg(), _info())
    wider = C.glue_values(_cfg(width=512, batch_size=512, seeds=5, depths=list(range(11))), _info())
    assert wider["width"] == "512" and wider["fig3_1"] != base["fig3_1"]
    assert "m = 512" in wider["fig3_1"] and "depths L = 0 to 10" in wider["fig3_1"]
    assert "(the paper: 512)" not in wider["fig3_1"] and "(the authors': 512)" not in wider["fig3_1"]
    assert "(the authors': 512)" in base["fig3_1"]
    other = C.glue_values(_cfg(small_batch=None, unit_norm=True, idx_dir="/data/idx", n_idx=None,
                               datasets=["synthetic", "synthetic_d10"]))
    assert other["small_batch"] == "none" and "not cut" in other["small_batch_sentence"]
    assert other["idx_dir"] == "/data/idx" and other["n_idx"].startswith("None")
    assert "rescaled to unit norm" in other["unit_norm"] and "unit norm" in other["fig3_1"]
    assert other["d10_state"] == "in this run" and "synthetic_d10" in other["fig3_1"]
    assert "digits" not in other["fig3_1"].split("Deviation")[0]
    assert C.glue_values(_cfg(profile="paper"))["fig3_2"].count("profile paper") == 1


def _summary(relu_kappa, lin_kappa, relu_angle, lin_angle, depths=(0, 1, 4)):
    rows = []
    for act, k, a in (("relu", relu_kappa, relu_angle), ("linear", lin_kappa, lin_angle)):
        for L, kv, av in zip(depths, k, a):
            rows.append(dict(dataset="synthetic", activation=act, depth=L, kappa_mean=kv, kappa_batch_mean=kv / 2,
                             angle_mean=av))
    return pd.DataFrame(rows)


def test_figure3_table_rows_and_rule():
    S = _summary([np.inf, 1e4, 1e3], [np.inf, np.inf, np.inf], [1.0, 5.0, 20.0], [1.0, 1.0, 0.9])
    t = C.table_figure3_vs_paper(S, ["synthetic"], [0, 1, 4], 512)
    assert list(t.columns) == ["data set", "quantity", "network", "paper", "L=1", "L=4", "rule", "holds"]
    assert len(t) == 6 and t.holds.all() and set(t.network) == {"ReLU", "linear"}
    assert (t["data set"] == "synthetic").all() and t["L=1"].iloc[0] == "5e+03"
    assert any("batches of 512" in q for q in t.quantity) and any("full data" in q for q in t.quantity)
    Ss = S.assign(kappa_small_mean=np.where(S.activation == "relu", 50.0 / (1 + S.depth), 400.0 + S.depth))
    ts = C.table_figure3_vs_paper(Ss, ["synthetic"], [0, 1, 4], 512, small={"synthetic": 40})
    rows = ts[ts.quantity.str.contains("batches of 40")]
    assert len(ts) == 8 and list(rows.network) == ["ReLU", "linear"] and rows.holds.all()
    # counterfactual: ReLU kappa rises and its angle shrinks; the linear network improves with depth
    bad = _summary([np.inf, 1e3, 1e4], [np.inf, 1e4, 1e2], [1.0, 20.0, 5.0], [1.0, 1.0, 3.0])
    tb = C.table_figure3_vs_paper(bad, ["synthetic"], [0, 1, 4], 512)
    assert not tb.holds.any()


def test_figure3_table_marks_unmeasured_and_foreign_sets():
    S = _summary([np.inf, 1e4, math.nan], [np.inf, np.inf, np.inf], [1.0, 5.0, 20.0], [1.0, 1.0, 0.9])
    S["dataset"] = "faces"
    t = C.table_figure3_vs_paper(S, ["faces"], [0, 1, 4], 20)
    assert (t["data set"] == "faces (not in the paper)").all()
    relu_k = t[(t.network == "ReLU") & t.quantity.str.startswith("κ")]
    assert relu_k.holds.isna().all() and (relu_k["L=4"] == "not measured").all()
