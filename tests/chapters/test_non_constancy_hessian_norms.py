"""Chapter 05 Hessian norms (lib.chapters.non_constancy.hessian_norms): the sweeps, cached, and their summary."""

from lib.chapters import non_constancy as NC
from chapter_fakes import non_constancy as F


def test_hessian_summary():
    assert "all converged = True, at most 50 iterations" == NC.hessian_summary(F.make_hessian())[17:]


def test_hessian_norms_are_computed_and_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path))
    data = NC.synthetic_regression(4, 3, 2, seed=0)
    kw = dict(activation="tanh", k=2, tol=1e-4, max_iter=200, bottleneck_width=8, bottlenecks=[2, 4])
    h = NC.compute_hessian_norms(data, 2, [8, 16], 1, **kw)
    assert len(h.frame) == 3 * 2 and (h.frame.hess_norm > 0).all()
    assert sorted(h.bottleneck.sweep.value_counts().items()) == [("b", 2), ("m", 2)]
    again = NC.compute_hessian_norms(data, 2, [8, 16], 1, **kw)
    assert again.frame.hess_norm.tolist() == h.frame.hess_norm.tolist()
    assert NC.compute_hessian_norms(data, 2, [8], 1, activation="tanh", k=2, tol=1e-4, max_iter=200).bottleneck is None
