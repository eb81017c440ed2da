"""Chapter 04, :mod:`lib.chapters.infinite_depth.app_e`: [LH] App. E: one random layer (Lemmas E.1-E.3) and Lemma E.6."""
import math
from dataclasses import replace

import numpy as np
import pytest
from matplotlib.figure import Figure

from lib.chapters.infinite_depth import SPEC
from lib.chapters.infinite_depth.app_e import (LEMMAS_E, check_lemma_e, check_lemma_e6, figure_one_layer,
                                               measure_one_layer, measure_small_angle_embedding, plot_one_layer)

CFG = SPEC.config(collapse_angles=[1.0, 45.0, 179.0], lemma_widths=[256, 1024, 4096], seeds=3)


def test_check_lemma_e_prediction_and_counterfactual():
    one = measure_one_layer(CFG)
    assert (one.angles_deg, one.widths, one.seeds, one.mean) == ([1.0, 45.0, 179.0], [256, 1024, 4096], 3, 0.0)
    for lemma in LEMMAS_E:
        c = check_lemma_e(one, lemma)
        assert c.claim_id == f"[LH] Lemma {lemma}" and c.status == "reproduced", c.measured
    shifted = measure_one_layer(CFG, mean=0.3)  # weights not centred
    for lemma in LEMMAS_E:
        assert check_lemma_e(shifted, lemma).status == "not reproduced"
    assert check_lemma_e(replace(one, frame=one.frame[one.frame.width == 256]), "E.1").status == "inconclusive"
    with pytest.raises(ValueError, match="lemma"):
        check_lemma_e(one, "E.9")
    fig = plot_one_layer(one)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    args = figure_one_layer(one)
    assert "at angles 1, 45, 179 deg; widths m = 256, 1024, 4096; 3 seeds; {profile}" in args["setting"]
    assert args["data"] is one.frame and args["drawn_by"] is plot_one_layer


def test_one_layer_limits_are_the_arc_cosine_kernels_by_hand():
    """At 90 deg both gates are open with probability 1/4 and (2/m) <relu(Wx), relu(Wz)> -> 1/pi (independent
    Gaussians: E[relu(u)] ** 2 = 1/(2 pi), times 2); a very wide layer lands within its O(1/sqrt(m)) scatter."""
    one = measure_one_layer(SPEC.config(collapse_angles=[90.0], lemma_widths=[2 ** 18, 2 ** 19], seeds=1))
    dev = one.frame.groupby("lemma").dev.max()
    assert dev["E.1"] < 5 / math.sqrt(2 ** 18) and dev["E.2"] < 10 / math.sqrt(2 ** 18)
    assert np.isfinite(dev["E.3"])


def test_check_lemma_e6_prediction_and_counterfactual():
    sa = measure_small_angle_embedding()
    assert sa.depths == (1, 3, 10) and sa.coefficient == pytest.approx(1 / 3)
    c = check_lemma_e6(sa)
    assert c.claim_id == "[LH] Lemma E.6" and c.status == "reproduced", c.measured
    # a wrong coefficient (1 instead of 1/3): the remainder is of order theta_in^2, its ratio does not vanish
    assert check_lemma_e6(measure_small_angle_embedding(coefficient=1.0)).status == "not reproduced"
