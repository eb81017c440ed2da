"""Chapter 05 backward vectors (lib.chapters.non_constancy.backward): [LZB] Lemma 3.1 on real nets, a bottleneck
as the counterfactual."""
from lib.chapters import non_constancy as NC


def test_check_backward_prediction_and_counterfactual():
    X = NC.synthetic_regression(4, 5, 2)["X"]
    c = NC.check_backward(NC.backward_sweep(X, [32, 128, 512, 2048], 2))
    assert c.claim_id == "[LZB] Lemma 3.1" and c.status == "reproduced", c.measured
    # a bottleneck of width 4 in the middle: that layer's backward vector does not shrink with m
    assert NC.check_backward(NC.backward_sweep(X, [32, 128, 512, 2048], 2, bottleneck=4)).status == "not reproduced"
    assert NC.check_backward(NC.backward_sweep(X, [32, 4096], 1, max_width=2048)).status == "inconclusive"
