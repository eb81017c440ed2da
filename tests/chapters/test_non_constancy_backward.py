"""Chapter 05 backward vectors (lib.chapters.non_constancy.backward): [LZB] Lemma 3.1 on real nets, a bottleneck
as the counterfactual."""
from lib.chapters import non_constancy


def test_check_backward_prediction_and_counterfactual():
    cfg = non_constancy.SPEC.config(n_samples=4, d=5, k=2, n_hessian=4, widths=[32, 128, 512, 2048], seeds=2)
    b = non_constancy.measure_backward(cfg)
    assert b.widths == (32, 128, 512, 2048) and b.n_inputs == 4 and b.seeds == 2
    c = non_constancy.check_backward(b)
    assert c.claim_id == "[LZB] Lemma 3.1" and c.status == "reproduced", c.measured
    # a bottleneck of width 4 in the middle: that layer's backward vector does not shrink with m
    assert non_constancy.check_backward(non_constancy.measure_backward(cfg, bottleneck=4)).status == "not reproduced"
    wide = non_constancy.SPEC.config(n_samples=4, d=5, k=2, n_hessian=4, widths=[32, 4096], seeds=1)
    assert non_constancy.check_backward(non_constancy.measure_backward(wide, max_width=2048)).status == "inconclusive"
