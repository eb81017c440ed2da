"""The closed-form Hessian norms and bounds of [LZB] Sec. 3 (lib.finite.hessian_bounds) and the App. G nets."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.optimize import minimize

from lib.finite.archs import Conv1dNet, ResMLP
from lib.finite.hessian import dense_model_hessian, model_hessian_norm
from lib.finite.hessian_bounds import layer_norms, one_layer_hessian_norm, second_derivative, two_layer_bound
from lib.finite.mlp import MLP
from lib.validation import InputError


def _x(d, seed=0):
    x = np.random.default_rng(seed).normal(size=d)
    return x / np.linalg.norm(x)


def test_second_derivative_of_tanh():
    z = torch.linspace(-3, 3, 13, dtype=torch.float64)
    t = torch.tanh(z)
    assert torch.allclose(second_derivative(torch.tanh, z), -2 * t * (1 - t ** 2))


@pytest.mark.parametrize("m", [3, 9])
def test_one_layer_formula_is_the_dense_norm_and_the_hessian_is_block_diagonal(m):
    net = MLP(4, m, 1, activation="tanh", seed=m)
    net.weights[1].requires_grad_(False)
    x = _x(4)
    H = dense_model_hessian(net, x)
    assert np.abs(np.linalg.eigvalsh(H)).max() == pytest.approx(one_layer_hessian_norm(net, x), rel=1e-12)
    mask = np.kron(np.eye(m), np.ones((4, 4)))
    assert np.all(H[mask == 0] == 0)


def _brute_221(T, n1, seed=0):
    """sup over unit x, y of sum_k |T(x, y, k)|, by Nelder-Mead from many starts (tiny tensors)."""
    def neg(p):
        a, b = p[:n1] / np.linalg.norm(p[:n1]), p[n1:] / np.linalg.norm(p[n1:])
        return -np.abs(np.einsum("kij,i,j->k", T, a, b)).sum()
    rng = np.random.default_rng(seed)
    return max(-minimize(neg, rng.normal(size=n1 + T.shape[2]), method="Nelder-Mead",
                         options=dict(maxiter=4000, xatol=1e-9, fatol=1e-12)).fun for _ in range(8))


def test_two_layer_tensor_norms_match_a_brute_force_sup():
    m = 3
    net = MLP(2, [m, m], activation="tanh", seed=2)
    x = np.array([0.6, 0.8])
    b = two_layer_bound(net, x)
    W1, W2, _ = (w.detach() for w in net.weights)
    s1 = net.scales[0]
    a1 = torch.tanh(W1 @ torch.tensor(x))
    from torch.autograd.functional import hessian

    def alpha2(a, w):
        return torch.tanh(s1 * (w.reshape(m, m) @ a))
    Taw = np.array([hessian(lambda a, w: alpha2(a, w)[k], (a1, W2.reshape(-1)))[0][1].numpy() for k in range(m)])
    Taa = np.array([hessian(lambda a: alpha2(a, W2)[k], a1).numpy() for k in range(m)])
    assert b.t2aw == pytest.approx(_brute_221(Taw, m), rel=1e-6)
    assert b.t2aa == pytest.approx(_brute_221(Taa, m), rel=1e-6)


@pytest.mark.parametrize("m", [3, 16])
def test_measured_two_layer_hessian_never_exceeds_eq17(m):
    net = MLP(4, [m, m], activation="tanh", seed=1)
    net.weights[2].requires_grad_(False)
    for seed in range(3):
        x = _x(4, seed)
        h = model_hessian_norm(net, x[None], tol=1e-10, max_iter=5000).norm
        assert h <= two_layer_bound(net, x).bound


def test_bounds_refuse_the_wrong_depth():
    with pytest.raises(InputError):
        two_layer_bound(MLP(3, 4, 1, activation="tanh"), _x(3))
    with pytest.raises(InputError):
        one_layer_hessian_norm(MLP(3, [4, 4], activation="tanh"), _x(3))


def test_conv_net_is_a_circular_convolution_and_resmlp_has_skips():
    import torch.nn.functional as F
    net = Conv1dNet(6, 4, seed=0)
    X = torch.tensor(np.stack([_x(6, s) for s in range(2)]))
    x = X.unsqueeze(1)
    ref = F.conv1d(F.pad(x, (1, 1), mode="circular"), net.weights[0]) / 3 ** 0.5
    assert torch.allclose(net._conv(x, net.weights[0]), ref)
    assert net(X).shape == (2,)
    res = ResMLP(6, 5, depth=3, seed=0)
    with torch.no_grad():
        for W in res.weights[1:-1]:
            W.zero_()  # tanh(0) = 0: the residual layers add nothing
        a = torch.tanh(X @ res.weights[0].T)
        assert torch.allclose(res(X), (a @ res.weights[-1].T).squeeze(-1) / 5 ** 0.5)
    with pytest.raises(InputError):
        Conv1dNet(6, 4, kernel_size=2)
    with pytest.raises(InputError):
        ResMLP(6, 4, depth=1)


@pytest.mark.parametrize("m", [16, 320])      # the dense eigensolver below 300 units, Lanczos above
def test_layer_norms_at_two_layers_are_the_terms_of_eq17(m):
    net = MLP(4, [m, m], activation="tanh", seed=1)
    x = np.random.default_rng(2).standard_normal(4)
    ln, tb = layer_norms(net, x), two_layer_bound(net, x)
    assert ln.t_ww[0] == pytest.approx(tb.t11) and ln.jac_w[0] == pytest.approx(tb.j1)
    assert ln.t_ww[1] == pytest.approx(tb.t2ww) and ln.t_aa[1] == pytest.approx(tb.t2aa, rel=1e-5)
    assert ln.t_aw[1] == pytest.approx(tb.t2aw, rel=1e-5)
    assert ln.backward_inf == pytest.approx([tb.b1, tb.b2])
    assert np.isnan(ln.jac_a[0]) and np.isnan(ln.t_aa[0]) and ln.q_221 == pytest.approx(max(tb.t11, tb.t2ww, tb.t2aa,
                                                                                            tb.t2aw), rel=1e-5)


def test_layer_norms_first_derivatives_and_backward_vectors_by_autograd():
    """Depth 3: dalpha^(l)/dalpha^(l-1) and dalpha^(l)/dW^(l) as explicit Jacobians, df/dalpha^(l) by autograd."""
    net = MLP(3, [7, 6, 5], activation="tanh", seed=0)
    x = torch.tensor([0.3, -0.8, 0.5], dtype=torch.float64)
    ln = layer_norms(net, x.numpy())
    W = [w.detach() for w in net.weights]
    s = (1.0, *net.scales)
    alphas = [x]
    for l in range(3):
        alphas.append(torch.tanh(s[l] * (W[l] @ alphas[-1])))
    for l in range(3):
        Jw = torch.autograd.functional.jacobian(lambda V, l=l: torch.tanh(s[l] * (V @ alphas[l])), W[l])
        assert ln.jac_w[l] == pytest.approx(float(torch.linalg.matrix_norm(Jw.reshape(Jw.shape[0], -1), 2)))
        if l:
            Ja = torch.autograd.functional.jacobian(lambda a, l=l: torch.tanh(s[l] * (W[l] @ a)), alphas[l])
            assert ln.jac_a[l] == pytest.approx(float(torch.linalg.matrix_norm(Ja, 2)))

    def f_from(l):
        def f(a):
            for k in range(l, 3):
                a = torch.tanh(s[k] * (W[k] @ a))
            return s[3] * (W[3][0] @ a)
        return f
    for l in range(3):
        g = torch.autograd.functional.jacobian(f_from(l + 1), alphas[l + 1])
        assert ln.backward_inf[l] == pytest.approx(float(g.abs().max()))
    with pytest.raises(InputError, match="scalar-output MLP"):
        layer_norms(MLP(3, 5, 0, seed=0), x.numpy())
