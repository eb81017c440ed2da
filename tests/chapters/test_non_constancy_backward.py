"""Chapter 05 backward vectors (lib.chapters.non_constancy.backward): [LZB] Lemma 3.1 on real nets, a bottleneck
as the counterfactual, and the chapter's decay rule at its boundaries on constructed norms."""
import pandas as pd
import pytest

from lib.chapters import non_constancy
from lib.chapters import non_constancy as NC


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


def _norms(*slopes, widths=(32, 128, 512, 2048)):
    """Backward norms (m/32)^slope for layer 1, 2, ... (two seeds, identical)."""
    frame = pd.DataFrame([dict(width=m, seed=s, layer=l + 1, inf_norm=(m / 32) ** sl)
                          for l, sl in enumerate(slopes) for m in widths for s in range(2)])
    return NC.BackwardNorms(frame, tuple(widths), 2)


def test_check_backward_reads_the_bound_as_a_bound_on_every_layer():
    assert NC.check_backward(_norms(-0.5, -0.5, -0.5)).status == "reproduced"
    assert NC.check_backward(_norms(-0.5, -1.0, -2.0)).status == "reproduced"  # steeper agrees with a bound
    slow = NC.check_backward(_norms(-0.5, -0.2, -0.5))
    assert slow.status == "reproduced with caveat" and "more slowly" in slow.caveat
    assert NC.check_backward(_norms(-0.5, -0.2, 0.0)).status == "not reproduced"  # the least favourable layer


@pytest.mark.parametrize("layer", [0, 2])
def test_check_backward_boundaries(layer):
    def status(s):
        slopes = [-0.5, -0.5, -0.5]
        slopes[layer] = s
        return NC.check_backward(_norms(*slopes)).status
    assert status(NC.VANISHING - 0.01) == "reproduced"
    assert status(NC.VANISHING + 0.01) == "reproduced with caveat"
    assert status(-NC.FLAT - 0.01) == "reproduced with caveat"
    assert status(-NC.FLAT + 0.01) == "not reproduced"


def test_check_backward_needs_two_widths_and_two_suffice():
    assert NC.check_backward(_norms(-0.5, -0.5, -0.5, widths=(32, 128))).status == "reproduced"
    assert NC.check_backward(_norms(-0.5, 0.0, -0.5, widths=(32, 128))).status == "not reproduced"
    one = NC.check_backward(_norms(-0.5, -0.5, -0.5, widths=(32,)))
    assert one.status == "inconclusive" and "fewer than two widths" in one.caveat
    none = NC.check_backward(NC.BackwardNorms(pd.DataFrame([]), (4096,), 1))  # every width above the memory cap
    assert none.status == "inconclusive" and none.measured == "Widths run: []."
