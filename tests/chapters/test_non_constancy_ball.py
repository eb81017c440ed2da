"""Chapter 05, the ball of fixed radius (lib.chapters.non_constancy.ball): its points on a tiny real net, and [LZB]
Thm 3.2 (both parts) and Eq 29 judged on the sup over the ball, every threshold just inside and just outside."""
from dataclasses import replace

import numpy as np
import pytest
import torch

from lib.chapters import non_constancy as NC
from lib.data import synthetic_regression
from lib.finite.hessian import model_hessian_norm
from chapter_fakes import non_constancy as F

R = 10.0  # the fakes' radius


# ---- the measurement, on tiny real nets

def test_ball_points_lie_at_distance_r_and_leave_w0_alone():
    model, _ = NC.build("linear", 3, 8, 0)
    w0 = NC.flat_weights(model)
    pts = NC.ball_models(model, 2.5, 3, seed=0)
    assert [p[0] for p in pts] == ["init", "random 1", "random 2", "random 3"] and pts[0][2] is model
    for _, dist, net in pts[1:]:
        assert dist == 2.5 and float((NC.flat_weights(net) - w0).norm()) == pytest.approx(2.5, rel=1e-12)
    assert torch.equal(NC.flat_weights(model), w0)
    again = NC.ball_models(model, 2.5, 3, seed=0)  # seeded: the same points
    assert torch.equal(NC.flat_weights(again[2][2]), NC.flat_weights(pts[2][2]))


def test_the_gd_end_point_is_a_trained_copy_in_the_ball():
    data = synthetic_regression(6, 3, 2, seed=0)
    model, _ = NC.build("swish", 3, 16, 0)
    w0 = NC.flat_weights(model)
    net, dist = NC.trained_copy(model, "swish", data, max_steps=300, rel_tol=0.05, lr_scale=1.0)
    assert torch.equal(NC.flat_weights(model), w0) and 0 < dist < R
    assert dist == pytest.approx(float((NC.flat_weights(net) - w0).norm()))
    y = torch.as_tensor(data["y"])
    with torch.no_grad():
        assert float(((net(data["X"]) - y) ** 2).sum()) <= 0.5 * float(((model(data["X"]) - y) ** 2).sum())


def test_measure_ball_hessian_tiny(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path))
    data = synthetic_regression(6, 3, 2, seed=0)
    b = NC.measure_ball_hessian(data, 2, [8], 1, 3.0, 1, archs=("linear",), k=2, tol=1e-6, max_iter=3000,
                                max_steps=200, rel_tol=0.05)
    assert b.point.tolist() == ["init", "random 1", "trained"] and b.converged.all()
    model, _ = NC.build("linear", 3, 8, 0)
    at0 = model_hessian_norm(model, data["X"][:2], tol=1e-6, max_iter=3000).norm
    assert b.hess_norm.iloc[0] == pytest.approx(at0, rel=1e-12)  # w_0 is the net of the sweep at w_0
    k = NC.measure_kernel_scale(data["X"], [8, 64], 1)
    assert list(k.columns) == ["width", "seed", "lambda_max", "mean_diag"]
    assert (k.lambda_max >= k.mean_diag).all() and (k.mean_diag > 0).all()  # the top eigenvalue is at least the mean


def test_ball_reduce_keeps_the_searched_nets_and_the_points_inside():
    def ratio(h):  # the sup over the ball of each net over its norm at w_0
        sup, searched = NC.ball_reduce(h.ball, R, ("arch", "width", "seed"))
        at0 = h.ball[h.ball.point == "init"].set_index(["arch", "width", "seed"]).hess_norm
        assert searched
        return (sup.set_index(["arch", "width", "seed"]).hess_norm / at0).to_numpy()
    assert np.allclose(ratio(F.make_hessian(trained_distance=R * 1.01, trained_factor=100.0)), 1.1)
    assert np.allclose(ratio(F.make_hessian(trained_distance=R * 0.99, trained_factor=100.0)), 100)
    h = F.make_hessian()
    at0, searched = NC.ball_reduce(h.frame, R, ("arch", "width", "seed"))
    assert not searched and len(at0) == len(h.frame)


# ---- [LZB] Thm 3.2, the Hessian in the ball

def _flat_trained_point(h, distance):
    """The linear-output nets' GD end point at ``distance`` with a norm of 5 at every width (flat, above w_0's)."""
    ball = h.ball.copy()
    sel = (ball.arch == "linear") & (ball.point == "trained")
    ball.loc[sel, "hess_norm"], ball.loc[sel, "distance"] = 5.0, distance
    return replace(h, ball=ball)


def test_check_hessian_judges_the_sup_over_the_ball():
    c = NC.check_hessian(F.make_hessian())
    assert c.status == "reproduced" and c.part == "Hessian in the ball"
    assert "sup over w_0, 1 random point(s) at distance R = 10 and 6 GD end point(s)" in c.measured
    # at w_0 the norm falls like m^(-1/2), in the ball it does not: the sup decides
    assert NC.check_hessian(F.make_hessian(ball_slope=0.0)).status == "not reproduced"
    assert NC.check_hessian(_flat_trained_point(F.make_hessian(), R * 0.99)).status == "not reproduced"
    beyond = NC.check_hessian(_flat_trained_point(F.make_hessian(), R * 1.01))  # outside the ball: left out
    assert beyond.status == "reproduced" and "6 left out beyond R" in beyond.measured
    assert NC.check_hessian(F.make_hessian(ball_unconverged=("linear",))).status == "inconclusive"
    assert NC.check_hessian(F.make_hessian(ball_unconverged=("swish",))).status == "reproduced"


def test_check_hessian_boundaries_on_the_sup():
    def status(s):
        return NC.check_hessian(F.make_hessian(ball_slope=s)).status
    assert status(NC.VANISHING * 1.01) == "reproduced"
    assert status(NC.VANISHING * 0.99) == "reproduced with caveat"
    assert status(-NC.FLAT * 1.01) == "reproduced with caveat"
    assert status(-NC.FLAT * 0.99) == "not reproduced"


def test_check_hessian_at_w0_only_names_the_ball_it_left_out():
    c = NC.check_hessian(F.make_hessian(ball=False))
    assert c.status == "reproduced with caveat" and c.caveat == NC.W0_ONLY and c.rows[0]["holds"] is True
    assert "at w_0 only" in c.measured and "m = 20 to 2,000" in c.rows[0]["this book"]
    assert NC.check_hessian(F.make_hessian(ball=False, lin_slope=0.0)).status == "not reproduced"
    assert NC.check_hessian(F.make_hessian(ball=False, converged=False)).status == "inconclusive"


# ---- [LZB] Eq 29 in the ball

def test_check_nonlinear_hessian_judges_the_sup_over_the_ball():
    assert NC.check_nonlinear_hessian(F.make_hessian()).status == "reproduced"
    assert NC.check_nonlinear_hessian(F.make_hessian(nl_ball_slope=-0.5)).status == "not reproduced"
    assert NC.check_nonlinear_hessian(F.make_hessian(nl_ball_slope=NC.FLAT * 0.99)).status == "reproduced"
    assert NC.check_nonlinear_hessian(F.make_hessian(nl_ball_slope=NC.FLAT * 1.01)).status == "not reproduced"
    assert NC.check_nonlinear_hessian(F.make_hessian(nl_ball_slope=-NC.FLAT * 1.01)).status == "not reproduced"
    assert NC.check_nonlinear_hessian(F.make_hessian(ball_unconverged=("softmax",))).status == "inconclusive"
    w0 = NC.check_nonlinear_hessian(F.make_hessian(ball=False))
    assert w0.status == "reproduced with caveat" and w0.caveat == NC.W0_ONLY


def _random_points(h, slope, level=10.0):
    """The non-linear nets' random points at ``level`` (m/20)^slope: above w_0's norm, the sup."""
    ball = h.ball.copy()
    sel = ball.arch.isin(NC.NONLINEAR) & (ball.point == "random 1")
    ball.loc[sel, "hess_norm"] = level * (ball[sel].width / 20) ** slope
    return replace(h, ball=ball)


def test_eq29_reads_the_sup_as_an_upper_bound_and_the_inf_as_a_lower_bound():
    # the sup falls (Eq 29's O(R/sqrt(m)) term at small widths) while the inf stays: O(1) and not vanishing
    c = NC.check_nonlinear_hessian(_random_points(F.make_hessian(), -0.5))
    assert c.status == "reproduced" and "sup (over w_0, 1 random point(s)" in c.measured
    assert "-0.50 (swish)" in c.measured
    # the sup grows: not O(1)
    assert NC.check_nonlinear_hessian(_random_points(F.make_hessian(), NC.FLAT * 0.99)).status == "reproduced"
    assert NC.check_nonlinear_hessian(_random_points(F.make_hessian(), NC.FLAT * 1.01)).status == "not reproduced"
    # the inf (every point here) falls: it vanishes
    assert NC.check_nonlinear_hessian(F.make_hessian(nl_ball_slope=-NC.FLAT * 0.99)).status == "reproduced"
    assert NC.check_nonlinear_hessian(F.make_hessian(nl_ball_slope=-NC.FLAT * 1.01)).status == "not reproduced"


# ---- [LZB] Thm 3.2, the tangent kernel O(1)

def test_check_kernel_scale():
    c = NC.check_kernel_scale(F.make_hessian())
    assert c.status == "reproduced" and c.claim_id == "[LZB] Thm 3.2" and c.part == "tangent kernel O(1)"
    assert "log-log slopes 0.00 and 0.00" in c.measured
    assert NC.check_kernel_scale(replace(F.make_hessian(), kernel=None)).status == "not checked"


@pytest.mark.parametrize("sign", [1, -1])
def test_check_kernel_scale_boundaries(sign):
    def status(s, diag=None):
        return NC.check_kernel_scale(F.make_hessian(kernel_slope=s, diag_slope=diag)).status
    assert status(sign * NC.FLAT * 0.99) == "reproduced"
    assert status(sign * NC.FLAT * 1.01) == "reproduced with caveat"
    assert status(-sign * NC.VANISHING * 0.99) == "reproduced with caveat"
    assert status(-sign * NC.VANISHING * 1.01) == "not reproduced"  # a kernel that grows or vanishes like m^0.3
    assert status(0.0, diag=sign * 1.0) == "not reproduced"  # the worse of the two decides
    assert NC.band_status(sign * NC.FLAT) == "reproduced with caveat"  # flat is strictly within FLAT
