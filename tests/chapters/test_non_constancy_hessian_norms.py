"""Chapter 05 Hessian norms (lib.chapters.non_constancy.hessian_norms): the sweeps, cached, their settings and
summary."""

from lib.chapters import non_constancy
from lib.data import synthetic_regression
from chapter_fakes import non_constancy as F


def test_hessian_summary():
    assert non_constancy.hessian_summary(F.make_hessian()) == "power iteration: every run converged, at most 50 iterations"


def test_hessian_norms_are_computed_cached_and_carry_their_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path))
    cfg = non_constancy.SPEC.config(n_samples=4, d=3, k=2, n_hessian=2, widths=[8, 16], seeds=1, hessian_tol=1e-4,
                                    hessian_max_iter=200, bottleneck_width=8, bottlenecks=[2, 4], profile="smoke",
                                    ball_widths=[8, 16], ball_points=1, max_steps=200)
    h = non_constancy.measure_hessian_norms(cfg)
    # the ball: w_0, one random point at distance R, the GD end point, for each arch and width of the first seed
    assert len(h.ball) == 3 * 2 * 3 and set(h.ball.point) == {"init", "random 1", "trained"}
    assert (h.ball[h.ball.point == "random 1"].distance == 10).all() and h.ball_widths == (8, 16)
    init = h.ball[h.ball.point == "init"].hess_norm.to_numpy()
    assert init.tolist() == h.frame.hess_norm.tolist()  # the same nets, seeds and inputs as the sweep at w_0
    assert len(h.kernel) == 2 and (h.kernel.lambda_max >= h.kernel.mean_diag).all()  # the top eigenvalue >= mean
    assert len(h.quadratic) == 2 * 2 and set(h.quadratic.bottleneck) == {2}
    assert len(h.frame) == 3 * 2 and (h.frame.hess_norm > 0).all()
    assert sorted(h.bottleneck.sweep.value_counts().items()) == [("b", 2), ("m", 2)]
    assert (h.widths, h.n_hessian, h.bottlenecks, h.bottleneck_width, h.profile) == ((8, 16), 2, (2, 4), 8, "smoke")
    again = non_constancy.measure_hessian_norms(cfg)
    assert again.frame.hess_norm.tolist() == h.frame.hess_norm.tolist()
    # the cell-level sweep reads back the same cached records
    X = synthetic_regression(4, 3, 2, seed=0)["X"][:2]
    one = non_constancy.measure_hessian_by_width(X, [8, 16], 1, k=2, tol=1e-4, max_iter=200)
    assert one.hess_norm.tolist() == h.frame.hess_norm.tolist()
    assert h.how == "Hessian at initialization, maximized over 2 inputs"
