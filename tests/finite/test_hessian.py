"""lib.finite.hessian: Hessian-vector products and power iteration against dense Hessians and a closed form."""
import math

import numpy as np
import pytest
import torch
from torch.func import functional_call, hessian

from lib.finite.hessian import dense_model_hessian, hvp_operator, model_hessian_norm, power_iteration
from lib.finite.wrapped import OutputWrapped
from lib.finite.mlp import MLP


pytestmark = pytest.mark.usefixtures("one_thread")  # fixture in conftest.py


def torch_func_hessian(model, x, output=0):
    """Independent dense Hessian through torch.func.hessian, assembled in parameters() order."""
    params = {n: p.detach() for n, p in model.named_parameters()}
    names = list(params)
    H = hessian(lambda p: functional_call(model, p, (x,)).reshape(-1)[output])(params)
    return np.block([[H[a][b].reshape(params[a].numel(), params[b].numel()).numpy() for b in names] for a in names])


NETS = [
    lambda: MLP(3, 6, 2, activation="tanh", seed=1),
    lambda: MLP(4, 5, 1, activation="relu", seed=2),
    lambda: MLP(3, [5, 2, 5], activation="gelu", seed=3),
    lambda: OutputWrapped(MLP(3, 6, 1, activation="tanh", seed=4), "swish"),
    lambda: OutputWrapped(MLP(3, 5, 1, activation="tanh", seed=5, out_dim=3), "softmax", center=True),
]


@pytest.mark.parametrize("make", NETS)
def test_dense_hessian_matches_torch_func(make):
    model = make()
    x = torch.randn(1, model.in_dim, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    out = model.out_dim - 1
    H = dense_model_hessian(model, x, output=out)
    ref = torch_func_hessian(model, x, output=out)
    # same double-precision derivatives by two code paths: agreement to rounding
    np.testing.assert_allclose(H, ref, atol=1e-12 * max(1.0, np.abs(ref).max()))
    np.testing.assert_allclose(H, H.T, atol=1e-13 * max(1.0, np.abs(H).max()))


@pytest.mark.parametrize("make", NETS)
def test_power_iteration_matches_dense_spectral_norm(make):
    model = make()
    X = torch.randn(3, model.in_dim, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    res = model_hessian_norm(model, X, tol=1e-13, max_iter=20000)
    exact = np.array([[np.abs(np.linalg.eigvalsh(torch_func_hessian(model, X[i:i + 1], c))).max()
                       for c in range(model.out_dim)] for i in range(3)])
    assert res.converged
    # power iteration converges geometrically to max |eigenvalue| from below; at a relative
    # stopping change of 1e-13 the remaining error is far below 1e-6 for these spectra
    np.testing.assert_allclose(res.per_input, exact, rtol=1e-6)
    assert res.norm == pytest.approx(exact.max(), rel=1e-6)
    assert np.all(res.per_input <= exact * (1 + 1e-10))


def test_one_hidden_layer_relu_closed_form():
    # f = v . relu(W x) sqrt(2/m): d2f/dW2 = 0 a.e., and the (v, W) cross block has orthogonal rows of
    # norm sqrt(2/m) ||x|| for active units, so ||H||_2 = sqrt(2/m) ||x|| whenever one unit is active
    m = 500
    net = MLP(7, m, 1, activation="relu", seed=0)
    x = torch.randn(1, 7, dtype=torch.float64, generator=torch.Generator().manual_seed(2)) * 1.7
    res = model_hessian_norm(net, x, tol=1e-12)
    assert res.norm == pytest.approx(math.sqrt(2 / m) * float(x.norm()), rel=1e-9)


def test_linear_model_has_zero_hessian():
    net = MLP(4, 3, 0, activation="relu", seed=0)  # f(x) = W x: linear in the weights
    res = model_hessian_norm(net, np.ones((2, 4)))
    assert res.norm == 0.0 and res.converged


def test_power_iteration_on_indefinite_matrix():
    # +5 and -5 both eigenvalues: the Rayleigh quotient would oscillate, ||A v|| must not
    A = torch.diag(torch.tensor([5.0, -5.0, 1.0, 0.5], dtype=torch.float64))
    val, _, ok = power_iteration(lambda v: A @ v, 4, tol=1e-12, max_iter=1000)
    assert ok and val == pytest.approx(5.0, rel=1e-10)


def test_bad_inputs():
    net = MLP(3, 4, 1, seed=0)
    with pytest.raises(ValueError, match="tol"):
        power_iteration(lambda v: v, 3, tol=0.0)
    with pytest.raises(ValueError, match="max_iter"):
        power_iteration(lambda v: v, 3, max_iter=0)
    with pytest.raises(ValueError, match="outputs"):
        model_hessian_norm(net, np.ones((1, 3)), outputs=[1])
    with pytest.raises(ValueError, match="single input"):
        hvp_operator(net, torch.ones(2, 3, dtype=torch.float64))
    hvp, P = hvp_operator(net, torch.ones(3, dtype=torch.float64))
    with pytest.raises(ValueError, match="flat vector"):
        hvp(torch.ones(P + 1, dtype=torch.float64))
    with pytest.raises(ValueError, match="columns"):
        model_hessian_norm(net, np.ones((1, 5)))
