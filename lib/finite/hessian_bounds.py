"""The Hessian bounds of [LZB] Sec. 3 in closed form: one and two hidden layers, from the same weights.

Nets are :class:`lib.finite.mlp.MLP` in the NTK parameterization with a *fixed* output layer v (as [LZB]
Sec. 3.1-3.2 treat it), so the Hessian is taken in the hidden weights only. With ``s_l = sqrt(c_s / m_l)`` the
MLP's scale of layer l, write the layers in [LZB]'s form:

    alpha1 = sigma(z1),  z1 = W1 x;     alpha2 = sigma(z2),  z2 = s1 W2 alpha1;     f = s_L v . alpha_L.

**One hidden layer** ([LZB] Remark 3.1, Eq 9-10): ``d^2 f / dW^2`` is block diagonal, one d x d block
``s1 v_k sigma''(z1_k) x x^T`` per neuron k, so ``||H|| = s1 max_k |v_k sigma''(z1_k)| ||x||^2`` exactly
(:func:`one_layer_hessian_norm`).

**Two hidden layers** ([LZB] Prop 3.1, Eq 17). With b1 = df/dalpha1, b2 = df/dalpha2 (the backward vectors) and
J1 = dalpha1/dW1, the Hessian blocks in (W1, W2) are

    H11 = <d^2 alpha1/dW1^2, b1> + J1^T <d^2 alpha2/dalpha1^2, b2> J1,
    H12 = J1^T <d^2 alpha2/dalpha1 dW2, b2>,      H22 = <d^2 alpha2/dW2^2, b2>,

and Hoelder's inequality ``||<T, b>|| <= ||T||_{2,2,1} ||b||_inf`` ([LZB] Prop 2.1) with
``||H|| <= ||H11|| + 2 ||H12|| + ||H22||`` gives the right side of Eq 17,

    ||T11||_{221} ||b1||_inf + (||J1||^2 ||T2aa||_{221} + 2 ||J1|| ||T2aw||_{221} + ||T2ww||_{221}) ||b2||_inf.

The (2,2,1)-norm ``||T||_{2,2,1} = sup_{||x|| = ||y|| = 1} sum_k |T(x, y, k)|`` of each 3-tensor is exact here
(:func:`two_layer_bound` derives each one in a comment): each is a largest entry or the largest eigenvalue of an
m x m matrix, so the bound is computed, not estimated, for any width a dense m x m eigenproblem allows.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from scipy.sparse.linalg import LinearOperator, eigsh

from lib.finite.mlp import MLP
from lib.validation import InputError, as_row, real_tensor

__all__ = ["second_derivative", "one_layer_hessian_norm", "TwoLayerBound", "two_layer_bound", "LayerNorms",
           "layer_norms"]


def second_derivative(activation, z: torch.Tensor) -> torch.Tensor:
    """sigma''(z) elementwise, by autograd on the activation's torch form (detached)."""
    real_tensor(z, "z")
    with torch.enable_grad():
        zz = z.detach().clone().requires_grad_(True)
        (g,) = torch.autograd.grad(activation(zz).sum(), zz, create_graph=True)
        (g2,) = torch.autograd.grad(g.sum(), zz)
    return g2.detach()


def _check(model: MLP, depth: int) -> None:
    if not isinstance(model, MLP) or model.depth != depth or model.out_dim != 1:
        raise InputError(f"expected a scalar-output MLP with {depth} hidden layer(s), got {model!r}")


def one_layer_hessian_norm(model: MLP, x) -> float:
    """||d^2 f(x) / dW^2||_2 of a one-hidden-layer MLP in its hidden weights, in closed form ([LZB] Eq 9).

    Args:
        model: a scalar-output :class:`~lib.finite.mlp.MLP` with one hidden layer.
        x: one input, shape (d,).

    Returns:
        ``s1 max_k |v_k sigma''(w_k . x)| ||x||^2``, the largest of the neuron blocks' norms.
    """
    _check(model, 1)
    xt = model.prepare(as_row(x), name="x")[0]
    W1, v = model.weights[0].detach(), model.weights[1].detach()[0]
    s2 = second_derivative(model.activation, W1 @ xt)
    return float(model.scales[0] * (v * s2).abs().max() * (xt @ xt))


@dataclass(frozen=True)
class TwoLayerBound:
    """The terms of [LZB] Eq 17 at one input (see the module docstring).

    Attributes:
        t11: ||d^2 alpha1 / dW1^2||_{2,2,1}.
        j1: ||dalpha1 / dW1||_2.
        t2aa: ||d^2 alpha2 / dalpha1^2||_{2,2,1}.
        t2aw: ||d^2 alpha2 / dalpha1 dW2||_{2,2,1}.
        t2ww: ||d^2 alpha2 / dW2^2||_{2,2,1}.
        b1: ||df / dalpha1||_inf.
        b2: ||df / dalpha2||_inf.
    """

    t11: float
    j1: float
    t2aa: float
    t2aw: float
    t2ww: float
    b1: float
    b2: float

    @property
    def bound(self) -> float:
        """The right side of [LZB] Eq 17."""
        return self.t11 * self.b1 + (self.j1 ** 2 * self.t2aa + 2 * self.j1 * self.t2aw + self.t2ww) * self.b2


def two_layer_bound(model: MLP, x) -> TwoLayerBound:
    """The terms of [LZB] Prop 3.1 (Eq 17) for a two-hidden-layer MLP at one input, each exact.

    Args:
        model: a scalar-output :class:`~lib.finite.mlp.MLP` with two hidden layers (any widths).
        x: one input, shape (d,).

    Returns:
        :class:`TwoLayerBound` (``.bound`` is the right side of Eq 17).
    """
    _check(model, 2)
    act = model.activation
    xt = model.prepare(as_row(x), name="x")[0]
    W1, W2, v = (w.detach() for w in model.weights)
    v = v[0]
    s1, s2 = model.scales
    z1 = W1 @ xt
    a1 = act(z1)
    z2 = s1 * (W2 @ a1)
    d1, dd1 = act.deriv(z1), second_derivative(act, z1)
    d2, dd2 = act.deriv(z2), second_derivative(act, z2)
    xx = float(xt @ xt)
    # T11_{(k,j),(k',j'),k''} = [k = k' = k''] sigma''(z1_k) x_j x_j': sum_k |sigma''_k| |X_k.x| |Y_k.x| is at most
    # max|sigma''| ||x||^2 (Cauchy-Schwarz over k), attained with X = Y = e_k x^T/||x|| at the largest |sigma''_k|.
    t11 = float(dd1.abs().max()) * xx
    # J1 is block diagonal with rows sigma'(z1_k) x^T: its norm is max |sigma'| ||x||.
    j1 = float(d1.abs().max()) * xx ** 0.5
    # T2ww: the same structure as T11 with s1 alpha1 in place of x.
    t2ww = float(dd2.abs().max()) * s1 ** 2 * float(a1 @ a1)
    # T2aa_{i,i',k} = s1^2 sigma''(z2_k) W2_ki W2_ki': sum_k |sigma''_k| |(W2 x)_k| |(W2 y)_k| s1^2 is at most
    # s1^2 lambda_max(W2^T diag|sigma''| W2) (Cauchy-Schwarz), attained at x = y = its top eigenvector.
    t2aa = s1 ** 2 * float(torch.linalg.eigvalsh(W2.T @ (dd2.abs()[:, None] * W2))[-1])
    # T2aw(x, Y)_k = Y_k . A_k x with A_k = s1^2 sigma''_k alpha1 W2_k^T + s1 sigma'_k I. For fixed x the sup over
    # ||Y||_F = 1 of sum_k |Y_k . c_k| is (sum_k ||c_k||^2)^(1/2) (each row along c_k, weights ||c_k||), so the norm
    # is lambda_max(sum_k A_k^T A_k)^(1/2), an m x m matrix:
    u = W2.T @ (dd2 * d2)
    M = (s1 ** 4 * float(a1 @ a1)) * (W2.T @ ((dd2 ** 2)[:, None] * W2)) \
        + s1 ** 3 * (torch.outer(u, a1) + torch.outer(a1, u))
    M += s1 ** 2 * float(d2 @ d2) * torch.eye(M.shape[0], dtype=M.dtype)
    t2aw = float(torch.linalg.eigvalsh(M)[-1]) ** 0.5
    b2v = s2 * v
    b1v = s1 * (W2.T @ (d2 * b2v))
    return TwoLayerBound(t11=t11, j1=j1, t2aa=t2aa, t2aw=t2aw, t2ww=t2ww, b1=float(b1v.abs().max()),
                         b2=float(b2v.abs().max()))


@dataclass(frozen=True)
class LayerNorms:
    """The three quantities of [LZB] Lemma 3.1 at one input, per hidden layer l = 1..L (lists, input layer first).

    Attributes:
        backward_inf: ``||df / dalpha^(l)||_inf``, the backward vectors' infinity norms (Q_inf).
        jac_w: ``||dalpha^(l) / dW^(l)||_2`` (Q_L's first kind).
        jac_a: ``||dalpha^(l) / dalpha^(l-1)||_2`` (Q_L's second kind; NaN for l = 1, whose input is not a variable).
        t_ww, t_aw, t_aa: the (2,2,1)-norms of ``d^2 alpha^(l) / dW^(l)2``, ``d^2 alpha^(l) / dalpha^(l-1) dW^(l)`` and
            ``d^2 alpha^(l) / dalpha^(l-1)2`` (Q_221's terms; NaN for the last two at l = 1).
    """

    backward_inf: list
    jac_w: list
    jac_a: list
    t_ww: list
    t_aw: list
    t_aa: list

    @property
    def q_inf(self) -> float:
        """Q_inf: the largest backward infinity norm."""
        return float(np.nanmax(self.backward_inf))

    @property
    def q_l(self) -> float:
        """Q_L: the largest spectral norm of a layer's first derivatives."""
        return float(np.nanmax(self.jac_w + self.jac_a))

    @property
    def q_221(self) -> float:
        """Q_221: the largest (2,2,1)-norm of a layer's second-derivative tensors."""
        return float(np.nanmax(self.t_ww + self.t_aw + self.t_aa))


def _top(matvec, m: int) -> float:
    """The largest eigenvalue of a symmetric PSD m x m operator given by its product (dense below 300 rows)."""
    if m <= 300:
        A = np.column_stack([matvec(e) for e in np.eye(m)])
        return float(np.linalg.eigvalsh((A + A.T) / 2)[-1])
    op = LinearOperator((m, m), matvec=matvec, dtype=float)
    return float(eigsh(op, k=1, which="LA", tol=1e-6, return_eigenvectors=False)[0])


def layer_norms(model: MLP, x) -> LayerNorms:
    """[LZB] Lemma 3.1's quantities of a scalar-output MLP of any depth at one input, each exact.

    In [LZB]'s form (see the module docstring) layer l maps alpha^(l-1) to alpha^(l) = sigma(z), z = t W alpha^(l-1),
    with t = s_(l-1) (1 for the input layer). The terms, derived as in :func:`two_layer_bound` (Cauchy-Schwarz over the
    units, attained): ``||dalpha/dW|| = t max|sigma'(z)| ||alpha^(l-1)||``; ``||dalpha/dalpha^(l-1)|| = ||t diag(sigma')
    W||_2``; ``||T_ww||_{2,2,1} = t^2 max|sigma''| ||alpha^(l-1)||^2``; ``||T_aa||_{2,2,1} = t^2 lambda_max(W^T
    diag|sigma''| W)``; ``||T_aw||_{2,2,1}`` = lambda_max(sum_k A_k^T A_k)^(1/2), A_k = t^2 sigma''_k alpha^(l-1) W_k^T +
    t sigma'_k I. The backward vectors follow b_L = s_L v, b_(l-1) = t W^(l)T (sigma'(z^(l)) b_l). Largest eigenvalues
    by the full eigensolver up to 300 units, by Lanczos on the matrix-free product above (2 m^2 flops per product).

    Args:
        model: a scalar-output :class:`~lib.finite.mlp.MLP` (any depth and widths).
        x: one input, shape (d,).

    Returns:
        :class:`LayerNorms`.
    """
    if not isinstance(model, MLP) or model.out_dim != 1 or model.depth < 1:
        raise InputError(f"expected a scalar-output MLP with at least one hidden layer, got {model!r}")
    act = model.activation
    alpha = model.prepare(torch.as_tensor(x).reshape(1, -1))[0].detach()
    Ws = [w.detach() for w in model.weights]
    scales = (1.0, *model.scales)
    zs, alphas = [], [alpha]
    for l in range(model.depth):
        z = scales[l] * (Ws[l] @ alphas[-1])
        zs.append(z)
        alphas.append(act(z))
    out = dict(backward_inf=[], jac_w=[], jac_a=[], t_ww=[], t_aw=[], t_aa=[])
    b = scales[model.depth] * Ws[-1][0]
    backs = [None] * model.depth
    for l in range(model.depth - 1, -1, -1):
        backs[l] = b
        d = act.deriv(zs[l])
        b = scales[l] * (Ws[l].T @ (d * b))
    for l in range(model.depth):
        t, a, W, z = scales[l], alphas[l], Ws[l], zs[l]
        d, dd = act.deriv(z), second_derivative(act, z)
        aa = float(a @ a)
        out["backward_inf"].append(float(backs[l].abs().max()))
        out["jac_w"].append(t * float(d.abs().max()) * aa ** 0.5)
        out["t_ww"].append(t * t * float(dd.abs().max()) * aa)
        if l == 0:
            out["jac_a"].append(np.nan)
            out["t_aw"].append(np.nan)
            out["t_aa"].append(np.nan)
            continue
        Wn, dn, ddn, an = W.numpy(), d.numpy(), dd.numpy(), a.numpy()
        m = Wn.shape[1]
        u = Wn.T @ (ddn * dn)
        out["jac_a"].append(t * _top(lambda v: Wn.T @ (dn ** 2 * (Wn @ v)), m) ** 0.5)
        out["t_aa"].append(t * t * _top(lambda v: Wn.T @ (np.abs(ddn) * (Wn @ v)), m))
        out["t_aw"].append(_top(lambda v: t ** 4 * aa * (Wn.T @ (ddn ** 2 * (Wn @ v))) + t ** 3 * (u * (an @ v) + an * (u @ v))
                                + t * t * float(dn @ dn) * v, m) ** 0.5)
    return LayerNorms(**out)
