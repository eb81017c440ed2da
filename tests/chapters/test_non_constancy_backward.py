"""Chapter 05 backward vectors (lib.chapters.non_constancy.backward): [LZB] Lemma 3.1 on real nets, a bottleneck
as the counterfactual, and the chapter's decay rule at its boundaries on constructed norms."""
import pandas as pd
import pytest

from lib.chapters import non_constancy
from lib.chapters import non_constancy as NC


def test_check_backward_prediction_and_counterfactual():
    cfg = non_constancy.SPEC.config(n_samples=4, d=5, k=2, n_hessian=4, widths=[32, 128, 512, 2048], seeds=2,
                                    ball_widths=[32, 128, 512], ball_points=1)
    b = non_constancy.measure_backward(cfg)
    assert b.widths == (32, 128, 512, 2048) and b.n_inputs == 4 and b.seeds == 2 and b.ball_radius == 10
    # the ball: w_0, one random point at distance R and the GD end point, at the ball's widths and first seed
    searched = b.frame[b.frame.point != "init"]
    assert set(searched.width) == {32, 128, 512} and set(searched.seed) == {0}
    assert set(searched.point) == {"random 1", "trained"}
    assert (searched[searched.point == "random 1"].distance == 10).all()
    assert searched[searched.point == "trained"].distance.between(0.1, 10).all()  # GD stays in the ball
    c = non_constancy.check_backward(b)
    assert c.claim_id == "[LZB] Lemma 3.1" and c.status == "reproduced", c.measured
    assert "sup over w_0, 1 random point(s) at distance R = 10 and 3 GD end point(s)" in c.measured
    # a bottleneck of width 4 in the middle: that layer's backward vector does not shrink with m
    assert non_constancy.check_backward(non_constancy.measure_backward(cfg, bottleneck=4)).status == "not reproduced"
    wide = non_constancy.SPEC.config(n_samples=4, d=5, k=2, n_hessian=4, widths=[32, 4096], seeds=1,
                                     ball_widths=[32, 4096])  # the ball widths are widths of the sweep
    assert non_constancy.check_backward(non_constancy.measure_backward(wide, max_width=2048)).status == "inconclusive"


def _norms(*slopes, widths=(32, 128, 512, 2048), ball=True):
    """Backward norms (m/32)^slope for layer 1, 2, ... (two seeds, identical), the sup over the ball of radius 10
    (w_0 at 0.9 times it, a random point at distance 10 at the sup); w_0 only with ``ball=False``."""
    points = (("init", 0.0, 0.9), ("random 1", 10.0, 1.0)) if ball else (("init", 0.0, 1.0),)
    frame = pd.DataFrame([dict(width=m, seed=s, layer=l + 1, inf_norm=f * (m / 32) ** sl, point=p, distance=dist)
                          for l, sl in enumerate(slopes) for m in widths for s in range(2) for p, dist, f in points])
    return NC.BackwardNorms(frame, tuple(widths), 2, ball_radius=10.0)


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
    assert one.status == "inconclusive" and "fewer than two widths" in one.caveat and one.measured == "Widths run: 32."
    none = NC.check_backward(NC.BackwardNorms(pd.DataFrame([]), (4096,), 1))  # every width above the memory cap
    assert none.status == "inconclusive" and none.measured == "Widths run: none."


def test_check_backward_judges_the_sup_over_the_ball():
    # at w_0 the norms fall like m^(-1/2), but at a point of the ball one layer's does not: the sup decides
    frame = _norms(-0.5, -0.5, -0.5).frame.copy()
    far = (frame.point == "random 1") & (frame.layer == 2)
    frame.loc[far, "inf_norm"] = 1.0
    widths = (32, 128, 512, 2048)
    assert NC.check_backward(NC.BackwardNorms(frame, widths, 2, ball_radius=10.0)).status == "not reproduced"
    # a GD end point just beyond R is left out (the statement bounds the ball only), one just inside counts
    for dist, status in ((10 * 1.01, "reproduced"), (10 * 0.99, "not reproduced")):
        f2 = frame.copy()
        f2.loc[far, "point"], f2.loc[far, "distance"] = "trained", dist
        c = NC.check_backward(NC.BackwardNorms(f2, widths, 2, ball_radius=10.0))
        assert c.status == status, (dist, c.measured)
        assert ("left out beyond R" in c.measured) == (dist > 10)


def test_check_backward_at_w0_only_names_the_ball_it_left_out():
    c = NC.check_backward(_norms(-0.5, -0.5, -0.5, ball=False))
    assert c.status == "reproduced with caveat" and c.caveat == NC.W0_ONLY and "at w_0 only" in c.measured
    assert NC.check_backward(_norms(-0.5, 0.0, -0.5, ball=False)).status == "not reproduced"
    slow = NC.check_backward(_norms(-0.5, -0.2, -0.5, ball=False))
    assert slow.status == "reproduced with caveat" and "more slowly" in slow.caveat


def _q(col, *slopes, widths=(32, 128, 512), ball=True):
    """Backward norms falling like m^(-1/2) and the quantity ``col`` growing like (m/32)^slope per layer."""
    b = _norms(*([-0.5] * len(slopes)), widths=widths, ball=ball)
    f = b.frame.copy()
    f["q_l"], f["q_221"] = 1.0, 1.0
    for l, sl in enumerate(slopes):
        rows = f.layer == l + 1
        f.loc[rows, col] = f.loc[rows, "inf_norm"] / f.loc[rows, "inf_norm"] * (f.loc[rows, "width"] / 32) ** sl
    return NC.BackwardNorms(f, tuple(widths), 2, ball_radius=10.0, q_max_width=max(widths))


@pytest.mark.parametrize("quantity, col", [("Q_L", "q_l"), ("Q_221", "q_221")])
def test_lemma31_bounded_quantities_hold_fail_and_their_boundaries(quantity, col):
    ok = NC.check_lemma31_bounded(_q(col, 0.0, 0.0, 0.0), quantity)
    assert ok.claim_id == "[LZB] Lemma 3.1" and ok.status == "reproduced" and ok.part == NC.LEMMA31_PARTS[quantity][0]
    assert NC.check_lemma31_bounded(_q(col, 0.0, -0.5, 0.0), quantity).status == "reproduced"   # a decay is bounded
    assert NC.check_lemma31_bounded(_q(col, 0.0, 0.5, 0.0), quantity).status == "not reproduced"
    # the least favourable layer, at FLAT and -VANISHING x 0.99 / x 1.01
    assert NC.check_lemma31_bounded(_q(col, 0.0, NC.FLAT * 0.99, 0.0), quantity).status == "reproduced"
    drift = NC.check_lemma31_bounded(_q(col, 0.0, NC.FLAT * 1.01, 0.0), quantity)
    assert drift.status == "reproduced with caveat" and "drifts upwards" in drift.caveat
    assert NC.check_lemma31_bounded(_q(col, -NC.VANISHING * 0.99, 0.0, 0.0), quantity).status == "reproduced with caveat"
    assert NC.check_lemma31_bounded(_q(col, -NC.VANISHING * 1.01, 0.0, 0.0), quantity).status == "not reproduced"
    # w_0 only: capped at a caveat, the statement is about the ball
    w0 = NC.check_lemma31_bounded(_q(col, 0.0, 0.0, ball=False), quantity)
    assert w0.status == "reproduced with caveat" and w0.caveat == NC.W0_ONLY
    # fewer than two widths measured (the rest above q_max_width): inconclusive
    one = _q(col, 0.0, 0.0)
    f = one.frame.copy()
    f.loc[f.width > 32, col] = float("nan")
    inc = NC.check_lemma31_bounded(NC.BackwardNorms(f, one.widths, 2, ball_radius=10.0, q_max_width=32), quantity)
    assert inc.status == "inconclusive" and "fewer than two widths at or below m = 32" in inc.caveat
    assert "computed at widths: 32 (up to m = 32)." in inc.measured


def test_bounded_status_thresholds():
    assert NC.bounded_status(-1.0) == "reproduced" and NC.bounded_status(NC.FLAT * 0.99) == "reproduced"
    assert NC.bounded_status(NC.FLAT) == "reproduced with caveat"
    assert NC.bounded_status(-NC.VANISHING * 0.99) == "reproduced with caveat"
    assert NC.bounded_status(-NC.VANISHING) == "not reproduced"


def test_lemma31_quantities_on_real_nets_and_the_bottleneck():
    cfg = non_constancy.SPEC.config(n_samples=4, d=5, k=2, n_hessian=2, widths=[32, 128, 512], seeds=1,
                                    ball_widths=[32, 128], ball_points=1, lemma31_max_width=128)
    b = non_constancy.measure_backward(cfg)
    assert b.q_max_width == 128 and b.frame[b.frame.width == 512].q_l.isna().all()
    assert b.frame[b.frame.width <= 128][["q_l", "q_221"]].notna().all().all()
    for q in ("Q_L", "Q_221"):
        c = non_constancy.check_lemma31_bounded(b, q)
        assert c.status == "reproduced", c.measured
        assert "over m = 32..128" in c.measured
