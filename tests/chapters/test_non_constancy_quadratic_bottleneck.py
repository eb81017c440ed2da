"""Chapter 05, the network of [LZB] Thm 4.1 (lib.chapters.non_constancy.quadratic_bottleneck): Eq 31 computed as
written, its Hessian norm against a dense Hessian, and the check on the inf over the ball at its boundaries."""
import math
from dataclasses import replace

import numpy as np
import pytest
import torch

from lib.chapters import non_constancy as NC
from lib.data import synthetic_regression
from lib.finite.hessian import dense_model_hessian, model_hessian_norm
from chapter_fakes import non_constancy as F


def test_eq31_as_written():
    net = NC.QuadraticBottleneck(3, 6, 2, seed=1)
    X = synthetic_regression(4, 3, 2, seed=0)["X"]
    W1, W2, W3, v = (w.detach().numpy() for w in net.weights)
    sigma = lambda z: z ** 2 / 2  # noqa: E731
    expect = [float(v[0] @ sigma(W3 @ (W2 @ sigma(W1 @ x)) / math.sqrt(6 * 2)) / math.sqrt(6)) for x in X]
    with torch.no_grad():
        np.testing.assert_allclose(net(net.prepare(X)).numpy(), expect, rtol=1e-12)
    assert [tuple(w.shape) for w in net.weights] == [(6, 3), (2, 6), (6, 2), (1, 6)]


def test_the_hessian_norm_of_eq31_matches_a_dense_hessian():
    net = NC.QuadraticBottleneck(3, 5, 2, seed=0)
    x = synthetic_regression(2, 3, 2, seed=0)["X"][:1]
    H = dense_model_hessian(net, net.prepare(x)[0])
    np.testing.assert_allclose(H, H.T, atol=1e-12)
    h = model_hessian_norm(net, x, tol=1e-12, max_iter=5000)
    assert h.converged and h.norm == pytest.approx(np.abs(np.linalg.eigvalsh(H)).max(), rel=1e-8)


def test_measure_quadratic_bottleneck_tiny(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path))
    X = synthetic_regression(4, 3, 2, seed=0)["X"][:2]
    q = NC.measure_quadratic_bottleneck(X, [8, 16], 2, 1, 3.0, 1, tol=1e-6, max_iter=3000)
    assert q.point.tolist() == ["init", "random 1"] * 2 and set(q.bottleneck) == {2} and q.converged.all()
    assert (q.hess_norm > 0).all() and q.distance.tolist() == [0.0, 3.0] * 2
    again = NC.measure_quadratic_bottleneck(X, [8, 16], 2, 1, 3.0, 1, tol=1e-6, max_iter=3000)  # from the cache
    assert again.hess_norm.tolist() == q.hess_norm.tolist()


def test_check_quadratic_bottleneck():
    c = NC.check_quadratic_bottleneck(F.make_hessian())
    assert c.status == "reproduced" and c.claim_id == "[LZB] Thm 4.1" and c.part == "the theorem's network (Eq 31)"
    assert "linear bottleneck b=4" in c.measured and "1 random point(s) at distance R=10" in c.measured
    assert NC.check_quadratic_bottleneck(F.make_hessian(quad_slope=-0.5)).status == "not reproduced"  # a wide net's
    assert NC.check_quadratic_bottleneck(F.make_hessian(converged=False)).status == "inconclusive"
    assert NC.check_quadratic_bottleneck(F.make_hessian(quad=False)).status == "not checked"
    # the tanh net's part is another part of the same claim
    assert NC.check_bottleneck_hessian_width(F.make_hessian()).part == "tanh [m, b, m] net"


def test_check_quadratic_bottleneck_reads_the_inf_over_the_ball():
    h = F.make_hessian()
    q = h.quadratic.copy()
    low = q.point == "random 1"
    q.loc[low, "hess_norm"] = 1.5 * (q[low].width / 20) ** -0.5  # below w_0's, and vanishing: the inf decides
    assert NC.check_quadratic_bottleneck(replace(h, quadratic=q)).status == "not reproduced"


@pytest.mark.parametrize("sign", [1, -1])
def test_check_quadratic_bottleneck_boundaries(sign):
    def status(s):
        return NC.check_quadratic_bottleneck(F.make_hessian(quad_slope=s)).status
    assert status(sign * NC.FLAT * 0.99) == "reproduced"
    assert status(sign * NC.FLAT * 1.01) == "reproduced with caveat"
    assert status(NC.VANISHING * 0.99) == "reproduced with caveat"
    assert status(NC.VANISHING * 1.01) == "not reproduced"
