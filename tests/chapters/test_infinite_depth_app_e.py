"""Chapter 04, :mod:`lib.chapters.infinite_depth.app_e`: [LH] App. E: one random layer (Lemmas E.1-E.3) and Lemma E.6."""
import pytest
from matplotlib.figure import Figure

from lib.chapters.infinite_depth.app_e import (LEMMAS_E, check_lemma_e, check_lemma_e6, one_layer_sweep,
                                               plot_one_layer, small_angle_embedding)


def test_check_lemma_e_prediction_and_counterfactual():
    df = one_layer_sweep([1.0, 45.0, 179.0], [256, 1024, 4096], 3)
    for lemma in LEMMAS_E:
        c = check_lemma_e(df, lemma)
        assert c.claim_id == f"[LH] Lemma {lemma}" and c.status == "reproduced", c.measured
    shifted = one_layer_sweep([1.0, 45.0, 179.0], [256, 1024, 4096], 3, mean=0.3)  # weights not centred
    for lemma in LEMMAS_E:
        assert check_lemma_e(shifted, lemma).status == "not reproduced"
    assert check_lemma_e(df[df.width == 256], "E.1").status == "inconclusive"
    with pytest.raises(ValueError, match="lemma"):
        check_lemma_e(df, "E.9")
    fig = plot_one_layer(df)
    assert isinstance(fig, Figure) and len(fig.axes) == 1


def test_check_lemma_e6_prediction_and_counterfactual():
    c = check_lemma_e6(small_angle_embedding())
    assert c.claim_id == "[LH] Lemma E.6" and c.status == "reproduced", c.measured
    # a wrong coefficient (1 instead of 1/3): the remainder is of order theta_in^2, its ratio does not vanish
    assert check_lemma_e6(small_angle_embedding(coefficient=1.0)).status == "not reproduced"
