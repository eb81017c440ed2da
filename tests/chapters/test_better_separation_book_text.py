"""Tests of lib.chapters.better_separation.book_text: glued values, captions, the paper-vs-book table."""
import numpy as np
import pandas as pd

from lib.book import params as P
from lib.chapters import better_separation as S


def _cfg():
    return P.validate(
        profile=("smoke", P.text), theory_depths=([1, 5], P.int_list(min_value=1)),
        grid_step=(5.0, P.positive_float), fw_step=(30.0, P.positive_float),
        widths=([64, 256], P.int_list(min_value=1)), fw_depths=([1, 5], P.int_list(min_value=1)),
        seeds=(2, P.positive_int), in_dim=(16, P.positive_int), small_depths=([1, 20], P.int_list(min_value=1)),
        activations=(["tanh"], P.choices_list(["tanh"])), act_depths=([1], P.int_list(min_value=1)),
        act_width=(128, P.positive_int), appb_depths=([3], P.int_list(min_value=1)),
        appb_width=(256, P.positive_int), real_data=(["faces"], P.choices_list(S.REAL_DATA)),
        real_n=(40, P.int_at_least(2)), real_depths=([1], P.int_list(min_value=1)),
        real_width=(128, P.positive_int))


def test_glue_values_come_from_the_config():
    g = S.glue_values(_cfg())
    assert {f"fig2_{k}" for k in range(1, 8)} <= set(g)
    assert g["real_n"] == "40" and g["real_pairs"] == "780" and g["act_width"] == "128"
    assert "m = 64, 256" in g["fig2_1"] and "profile smoke" in g["fig2_1"] and "2 seeds" in g["fig2_1"]
    assert "Deviation" in g["fig2_5"] and "n = 40 images" in g["fig2_7"]


def test_figure1_table_rows_and_rule():
    cross, mono = S.compute_crossovers([1, 5], np.deg2rad(np.arange(0, 180.01, 1.0)))
    t = S.table_figure1_vs_paper(cross, mono)
    assert list(t.columns) == ["statement", "depth", "paper", "ours", "rule", "holds"]
    assert len(t) == 2 * len(cross) + len(mono) and t.holds.all()
    bad = cross.assign(cross=50.0, min_phi_above60=55.0)  # a counterfactual: crossover below 60 deg
    assert not S.table_figure1_vs_paper(bad, mono.assign(increasing_below=40.0)).holds.any()
