"""The infinite-width NNGP / NTK recursion for any activation ([LH] Sec. 3, Fig. 2; book/formulas.md).

With Sigma^(0)(x, z) = <x, z> and, for l = 1..L, (u, v) ~ N(0, Sigma^(l-1) restricted to {x, z}):

    Sigma^(l)     = c_s E[s(u) s(v)]
    Sigma_dot^(l) = c_s E[s'(u) s'(v)]
    Theta^(0) = Sigma^(0),   Theta^(l) = Sigma^(l) + Theta^(l-1) Sigma_dot^(l)

Theta^(L) is the NTK of the MLP of [LH] Eq. (1) (output layer included; Jacot et al. 2018,
Arora et al. 2019). Only the upper triangle of pairs is computed. For ``relu`` (method
``"auto"``) the layer map is the closed form of [LH] Cor. 4.2 iterated on the angle with the
stable step of :mod:`lib.theory.relu`; for ``linear`` it is the identity. Everything else goes
through :func:`lib.theory.dual_kernel.dual_expectations` (tables or quadrature).

The layer angles theta^(l) are carried along without ``arccos`` (see
:func:`lib.theory.dual_kernel.layer_map`), because Sigma_dot of a kinked activation has a slope
in theta at 0 (ReLU: 1 - theta/pi): an angle error of sqrt(eps) would become a kernel error of
1e-8. Accuracy: ~1e-13 relative per layer. The final gradient angle of a general activation
is an ``arccos`` of the NTK and so limited to ~1e-8 rad near 0; use
:func:`lib.theory.relu_gradient_angle` for tiny ReLU angles.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from lib.activations import Activation, get_activation

from ._common import check_angles, check_data, check_depth, input_angles, row_norms
from .dual_kernel import check_method, closed_form_name, diagonal_expectations, layer_map
from .relu import _step, relu_gradient_angle

__all__ = ["nngp", "ntk", "first_layer_ntk", "gradient_angle", "layer_kernels", "LayerKernels"]


@dataclass
class _State:
    """Sigma on the diagonal (q, shape (n,)) and on pairs i < j (off, theta), plus the pair index."""

    q: np.ndarray
    off: np.ndarray
    theta: np.ndarray
    i: np.ndarray
    j: np.ndarray


def _closed_name(act: Activation, method: str) -> str | None:
    return closed_form_name(act) if method == "auto" else None


def _layer(st: _State, act: Activation, method: str, layer: int = 0):
    """One layer: returns the new state and Sigma_dot on (diagonal, pairs)."""
    closed = _closed_name(act, method)
    if closed == "linear":
        return st, np.ones_like(st.q), np.ones_like(st.off)
    if closed == "relu":  # [LH] Cor. 4.2: norms kept, theta -> g(theta), Sigma_dot = 1 - theta/pi
        dot = 1.0 - st.theta / math.pi
        theta, _ = _step(st.theta, np.sin(st.theta / 2.0))
        off = np.sqrt(st.q[st.i] * st.q[st.j]) * np.cos(theta)
        return _State(st.q, off, theta, st.i, st.j), np.ones_like(st.q), dot
    c = act.c
    with np.errstate(over="ignore", invalid="ignore"):
        _, edd, theta = layer_map(act, st.theta, st.q[st.i], st.q[st.j], method)
        dss, ddd = diagonal_expectations(act, st.q, method)
    q = c * dss
    off = np.sqrt(q[st.i]) * np.sqrt(q[st.j]) * np.cos(theta)  # = c E[s(u)s(v)], consistent with the accurate angle
    if np.any(q <= 0) or not np.all(np.isfinite(q)):
        raise FloatingPointError(
            f"the {act.name} recursion produced non-positive or non-finite variances at layer {layer} "
            f"(range of Sigma(x, x) before it: {st.q.min():.3g}..{st.q.max():.3g}); e.g. ReLU^2 maps q -> q^2 "
            "and overflows for inputs of norm != 1: normalize the rows of X")
    return _State(q, off, theta, st.i, st.j), c * ddd, c * edd


def _initial(X) -> tuple[_State, np.ndarray]:
    A = check_data(X)
    row_norms(A)
    n = A.shape[0]
    i, j = np.triu_indices(n, k=1)
    G = A @ A.T
    theta = input_angles(A)[i, j]
    return _State(np.diag(G).copy(), G[i, j], theta, i, j), G


def _assemble(n: int, st: _State, diag: np.ndarray, off: np.ndarray) -> np.ndarray:
    M = np.empty((n, n))
    M[st.i, st.j] = off
    M[st.j, st.i] = off
    M[np.diag_indices(n)] = diag
    return M


@dataclass
class LayerKernels:
    """Per-layer infinite-width kernels on a data set (lists indexed by layer l).

    ``sigma[l]`` = Sigma^(l) (l = 0..L), ``sigma_dot[l]`` = Sigma_dot^(l) (l = 1..L; entry 0 is None),
    ``theta[l]`` = Theta^(l) (l = 0..L).
    """

    sigma: list
    sigma_dot: list
    theta: list


def _run(X, depth, activation, method, keep_all: bool = False):
    act = get_activation(activation)
    method = check_method(method)
    L = check_depth(depth)
    st, G = _initial(X)
    n = G.shape[0]
    t_diag, t_off = st.q.copy(), st.off.copy()
    p_diag, p_off = np.ones(n), np.ones_like(st.off)
    hist = LayerKernels([G], [None], [G.copy()]) if keep_all else None
    for layer in range(1, L + 1):
        st, d_diag, d_off = _layer(st, act, method, layer)
        with np.errstate(over="ignore", invalid="ignore"):
            t_diag, t_off = st.q + t_diag * d_diag, st.off + t_off * d_off
            p_diag, p_off = p_diag * d_diag, p_off * d_off
        if not (np.all(np.isfinite(t_diag)) and np.all(np.isfinite(p_diag))):
            raise FloatingPointError(f"the {act.name} NTK overflows float64 at layer {layer}: normalize the rows of X")
        if keep_all:
            hist.sigma.append(_assemble(n, st, st.q, st.off))
            hist.sigma_dot.append(_assemble(n, st, d_diag, d_off))
            hist.theta.append(_assemble(n, st, t_diag, t_off))
    return st, G, (t_diag, t_off), (p_diag, p_off), hist


def nngp(X: ArrayLike, depth: int, activation: str | Activation = "relu", method: str = "auto") -> np.ndarray:
    """Sigma^(L): the infinite-width kernel <a^(L)(x), a^(L)(z)> of the top hidden layer ([LH] Sec. 3).

    For ReLU this is ``|x| |z| cos theta^(L)`` ([LH] Cor. 4.2); ``depth=0`` gives X X^T.
    ``method``: ``"auto"`` (closed forms for relu/linear), ``"quadrature"`` (never closed forms),
    ``"direct"`` (per-pair quadrature, no tables).
    """
    st, G, _, _, _ = _run(X, depth, activation, method)
    return _assemble(G.shape[0], st, st.q, st.off)


def ntk(X: ArrayLike, depth: int, activation: str | Activation = "relu", method: str = "auto") -> np.ndarray:
    """Theta^(L): the infinite-width NTK of the bias-free MLP of [LH] Eq. (1), output layer included.

    General activations by the dual-kernel recursion (the book's formulas page, book/formulas.md); for ReLU it equals
    :func:`lib.theory.relu_ntk` ([LH] Lemma 3.1), for ``linear`` it is (L+1) X X^T ([LH] Cor. 2.4
    with the erratum (L+1), not (L+1)^2, of the book's formulas page, book/formulas.md).
    """
    st, G, (t_diag, t_off), _, _ = _run(X, depth, activation, method)
    return _assemble(G.shape[0], st, t_diag, t_off)


def first_layer_ntk(X: ArrayLike, depth: int, activation: str | Activation = "relu",
                    method: str = "auto") -> np.ndarray:
    """NTK with only W^(1) trainable: G o prod_{l=1..L} Sigma_dot^(l) (for ReLU: [LH] Thm 4.2, G o P_L)."""
    st, G, _, (p_diag, p_off), _ = _run(X, depth, activation, method)
    return G * _assemble(G.shape[0], st, p_diag, p_off)


def layer_kernels(X: ArrayLike, depth: int, activation: str | Activation = "relu",
                  method: str = "auto") -> LayerKernels:
    """All Sigma^(l), Sigma_dot^(l), Theta^(l) for l = 0..L as n x n matrices (memory 3 (L+1) n^2 floats)."""
    return _run(X, depth, activation, method, keep_all=True)[4]


def gradient_angle(theta_in: ArrayLike, depth: int, activation: str | Activation = "relu",
                   method: str = "auto") -> np.ndarray:
    """Model gradient angle phi (radians) between two unit-norm inputs at angle theta_in, infinite width.

    cos phi = Theta^(L)(x, z) / sqrt(Theta^(L)(x, x) Theta^(L)(z, z)) ([LH] Lemma 3.1; book/formulas.md);
    vectorized over theta_in. For ReLU (method ``"auto"``) this is the stable
    :func:`lib.theory.relu_gradient_angle` ([LH] Lemma 3.1); otherwise it is accurate to ~1e-8 rad
    near phi = 0 (``arccos``) and ~1e-12 elsewhere. Used for [LH] Fig. 2 (ReLU^2, GeLU, tanh).
    """
    act = get_activation(activation)
    method = check_method(method)
    t = check_angles(theta_in)
    L = check_depth(depth)
    if _closed_name(act, method) == "relu":
        return relu_gradient_angle(t, L)
    flat = t.ravel()
    idx = np.zeros(flat.size, dtype=int)
    st = _State(np.ones(1), np.cos(flat), flat.copy(), idx, idx)
    t_diag, t_off = np.ones(1), np.cos(flat)
    # with c_s = 1/E[s^2], unit inputs keep unit variance exactly; pin it, because the length map can be
    # unstable at q = 1 (ReLU^2: q -> q^2 doubles a rounding error per layer and overflows by L ~ 60)
    unit = abs(act.c * diagonal_expectations(act, np.ones(1), method)[0][0] - 1.0) < 1e-9
    for _ in range(L):
        st, d_diag, d_off = _layer(st, act, method)
        if unit:
            st.q[:] = 1.0
        t_diag, t_off = st.q + t_diag * d_diag, st.off + t_off * d_off
    return np.arccos(np.clip(t_off / t_diag[0], -1.0, 1.0)).reshape(t.shape)
