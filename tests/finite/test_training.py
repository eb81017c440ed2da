"""lib.finite.training, lib.finite.wrapped and the chapter 05/06 helpers against independent computations."""
import numpy as np
import pytest
import torch
from torch import nn

from lib.chapters import non_constancy as NC
from lib.chapters import optimization as OPT
from lib.book.cache import cached_call
from lib.spectra import fit_slope
from lib.finite.wrapped import OutputWrapped, wrapped_ntk
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.finite.reference import jacobian_ntk
from lib.finite.training import (KernelTracker, cross_entropy, gd_train, linearized_losses, lr_grid_search,
                          sgd_train, square_loss)


pytestmark = pytest.mark.usefixtures("one_thread")  # fixture in conftest.py


class NoValidate(nn.Module):
    """Adapter so that torch.func (which cannot branch on data) can call the wrapped model."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, X):
        return self.model(X, validate=False)


@pytest.mark.parametrize("output,k,center", [("swish", 1, False), ("swish", 1, True),
                                             ("softmax", 3, False), ("softmax", 4, True)])
def test_wrapped_ntk_matches_jacobian_contraction(output, k, center, rng):
    net = MLP(5, 16, 2, activation="tanh", seed=3, out_dim=k)
    model = OutputWrapped(net, output, center=center)
    with torch.no_grad():  # move away from init so that centering is not trivial
        for p in net.parameters():
            p.add_(0.3 * torch.randn_like(p))
    X = rng.standard_normal((6, 5))
    K = wrapped_ntk(model, X)
    ref = jacobian_ntk(NoValidate(model), X)
    # the same derivatives by chain rule vs by a Jacobian of the whole model: agreement to rounding
    np.testing.assert_allclose(K, ref, rtol=1e-10, atol=1e-12 * np.abs(ref).max())


def test_wrapped_model_bad_inputs():
    with pytest.raises(ValueError, match="scalar"):
        OutputWrapped(MLP(3, 4, 1, out_dim=2), "swish")
    with pytest.raises(ValueError, match="out_dim >= 2"):
        OutputWrapped(MLP(3, 4, 1), "softmax")
    with pytest.raises(ValueError, match="output must be"):
        OutputWrapped(MLP(3, 4, 1), "tanh")
    with pytest.raises(TypeError, match="MLP"):
        OutputWrapped(nn.Linear(3, 1), "swish")


def test_gd_on_linear_model_equals_linearized_prediction(rng):
    # depth 0: f = W x is linear in W, so GD follows (I - eta K)^t r0 exactly
    X = rng.standard_normal((5, 8))
    y = rng.standard_normal(5)
    net = MLP(8, 1, 0, seed=0)
    K = empirical_ntk(net, X)
    eta = 1.0 / np.linalg.eigvalsh(K)[-1]
    with torch.no_grad():
        r0 = net(X).numpy() - y
    res = gd_train(net, X, y, eta, 60, progress=False)
    np.testing.assert_allclose(res["loss"], linearized_losses(K, r0, eta, 60), rtol=1e-9, atol=1e-25)


def test_linearized_losses_against_matrix_power(rng):
    A = rng.standard_normal((4, 4))
    K = A @ A.T
    r0 = rng.standard_normal(4)
    eta = 0.5 / np.linalg.eigvalsh(K)[-1]
    M = np.eye(4) - eta * K
    want = [0.5 * np.linalg.norm(np.linalg.matrix_power(M, t) @ r0) ** 2 for t in range(6)]
    np.testing.assert_allclose(linearized_losses(K, r0, eta, 5), want, rtol=1e-12)


def test_gd_is_deterministic_and_stops_at_tolerance(rng):
    X, y = rng.standard_normal((6, 3)), rng.standard_normal(6)
    eta = 1.0 / np.linalg.eigvalsh(empirical_ntk(MLP(3, 32, 1, seed=1), X))[-1]
    runs = [gd_train(MLP(3, 32, 1, seed=1), X, y, eta, 2000, rel_tol=1e-2, progress=False) for _ in range(2)]
    np.testing.assert_array_equal(runs[0]["loss"], runs[1]["loss"])
    assert runs[0]["converged"] and runs[0]["loss"][-1] <= 1e-2 * runs[0]["loss"][0] < runs[0]["loss"][-2]


def test_kernel_tracker_constant_vs_moving(rng):
    X, y = rng.standard_normal((5, 4)), rng.standard_normal(5)
    lin = KernelTracker(X, every=5)
    gd_train(MLP(4, 1, 0, seed=0), X, y, 0.05, 40, callback=lin, progress=False)
    assert lin.max_change < 1e-12 and lin.steps[0] == 0 and lin.steps[-1] == 40
    lam0 = np.linalg.eigvalsh(empirical_ntk(MLP(4, 1, 0, seed=0), X))[0]
    np.testing.assert_allclose(lin.lambda_min, lam0, rtol=1e-10)
    sw = KernelTracker(X, every=5)
    gd_train(OutputWrapped(MLP(4, 16, 1, seed=0), "swish"), X, y, 0.2, 40, callback=sw, progress=False)
    assert sw.max_change > 1e-3
    with pytest.raises(ValueError, match="every"):
        KernelTracker(X, every=0)
    with pytest.raises(ValueError, match="null_dim"):
        KernelTracker(X, null_dim=-1)


def test_softmax_kernel_has_one_null_direction_per_sample(rng):
    # J_s 1 = 0 for the softmax Jacobian, so K~ = J K J^T has (at least) n zero eigenvalues, and
    # generically no more: this is what KernelTracker(null_dim=n) skips
    n, k = 5, 3
    X = rng.standard_normal((n, 4))
    ev = np.linalg.eigvalsh(wrapped_ntk(OutputWrapped(MLP(4, 32, 1, seed=0, out_dim=k), "softmax"), X))
    assert np.all(np.abs(ev[:n]) < 1e-12 * ev[-1]) and ev[n] > 1e-6 * ev[-1]


def test_sgd_determinism_divergence_and_grid(rng):
    X = rng.standard_normal((40, 6))
    y = rng.integers(0, 3, 40)
    make = lambda: MLP(6, 16, 2, seed=0, out_dim=3)
    a = sgd_train(make(), X, y, 0.5, 3, 16, seed=7, progress=False)
    b = sgd_train(make(), X, y, 0.5, 3, 16, seed=7, progress=False)
    c = sgd_train(make(), X, y, 0.5, 3, 16, seed=8, progress=False)
    np.testing.assert_array_equal(a["train_loss"], b["train_loss"])
    assert not np.array_equal(a["train_loss"], c["train_loss"])
    assert sgd_train(make(), X, y, 1e200, 2, 16, progress=False)["diverged"]
    best, scores = lr_grid_search(make, X, y, [1e200, 0.5], 2, 16, progress=False)
    assert best == 0.5 and scores[1e200] == np.inf
    with pytest.raises(RuntimeError, match="diverged"):
        lr_grid_search(make, X, y, [1e200], 2, 16, progress=False)


def test_loss_and_lr_errors():
    with pytest.raises(ValueError, match="shape"):
        square_loss(torch.zeros(3), torch.zeros(4))
    with pytest.raises(ValueError, match="labels must lie"):
        cross_entropy(torch.zeros(2, 3), torch.tensor([0, 3]))
    with pytest.raises(ValueError, match="logits"):
        cross_entropy(torch.zeros(2), torch.tensor([0, 1]))
    with pytest.raises(ValueError, match="learning rate"):
        gd_train(MLP(2, 3, 1), np.ones((2, 2)), np.ones(2), -1.0, 5)
    with pytest.raises(ValueError, match="loss must be"):
        gd_train(MLP(2, 3, 1), np.ones((2, 2)), np.ones(2), 0.1, 5, loss="hinge")
    with pytest.raises(ValueError, match="rows"):
        gd_train(MLP(2, 3, 1), np.ones((2, 2)), np.ones(3), 0.1, 5)


def test_helpers(tmp_path, monkeypatch):
    x = np.array([10.0, 100.0, 1000.0])
    assert fit_slope(x, 3 * x ** -0.5) == pytest.approx(-0.5, abs=1e-12)
    with pytest.raises(ValueError):
        fit_slope([1.0], [1.0])
    assert OPT.late_rate(0.9 ** np.arange(50)) == pytest.approx(0.9, rel=1e-12)
    Xtr, ytr, Xte, yte = OPT.train_test_split(np.arange(20)[:, None], np.arange(20), 5, seed=0)
    assert len(Xte) == 5 and len(Xtr) == 15 and not set(ytr) & set(yte)
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path))
    calls = []
    f = lambda: calls.append(1) or {"v": 1}
    assert cached_call("t", {"a": np.ones(3)}, f) == cached_call("t", {"a": np.ones(3)}, f) == {"v": 1}
    assert len(calls) == 1
    cached_call("t", {"a": np.zeros(3)}, f)
    assert len(calls) == 2
