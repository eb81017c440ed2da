"""Dual kernels E[s(u) s(v)] and E[s'(u) s'(v)] of an activation ([AAK] Sec. 3; book/formulas.md).

(u, v) ~ N(0, [[q1, r], [r, q2]]) with r = sqrt(q1 q2) cos theta. Three ways to evaluate:

* closed forms for ``relu`` (the arc-cosine kernels, :func:`lib.theory.relu.arccos_kernel`) and ``linear``
  (method ``"auto"``);
* a table in the angle theta when q1 = q2 = q for every pair (equal input norms), or when the
  activation is positively homogeneous (ReLU, ReLU^2: any norms reduce to q = 1). Values at
  Chebyshev-Lobatto angles come from :func:`lib.theory.quadrature.pair_expectations`; the degree
  is doubled from 32 until the top quarter of the Chebyshev coefficients is below 1e-13 of the
  largest (measured: 32 for relu, relu2, norm_relu; 64 for tanh, gelu, swish; 128 for normrelu).
  As functions of theta, not of cos theta, the kernels of kinked activations have no endpoint
  singularity, hence the fast convergence. Evaluation is by cubic Hermite interpolation on 4097
  angles (<= 3e-15 from the Chebyshev interpolant). Build ~0.1-1 s (cached per activation and
  q); n = 2000 inputs, depth 10: ~1.3 s CPU for the whole NTK;
* per-pair quadrature otherwise (unequal norms and a non-homogeneous activation, or method
  ``"direct"``): ~0.85 ms CPU per pair and layer for tanh, i.e. n = 100 at depth 2 in ~8 s and
  n = 2000 at depth 10 in hours. Normalize the rows of X to the sphere to get the table path.

End-to-end accuracy of the NTK (tests): <= 1e-14 relative against closed forms (relu, relu2,
norm_relu), <= 1e-13 against a 200-point Gauss-Hermite recursion (tanh, gelu, swish).
"""
from __future__ import annotations

import math
import warnings

import numpy as np
from numpy.typing import ArrayLike
from numpy.polynomial import chebyshev as cheb
from scipy.fft import dct

from lib.activations import Activation, get_activation
from lib.validation import InputError, as_matrix, check_real, positive_int, real_array

from ._common import check_angles, check_variances
from .quadrature import gaussian_rule, pair_expectations
from .relu import arccos_kernel

__all__ = ["dual_expectations", "diagonal_expectations", "layer_map", "dual_kernel_matrix", "ThetaTable", "theta_table",
           "METHODS"]

#: how far a unit Gram matrix may stray from a unit diagonal and from [-1, 1] by rounding (:func:`dual_kernel_matrix`)
GRAM_ATOL = 1e-12

#: ``auto``; closed forms where they exist, else tables/quadrature; ``quadrature``; never closed forms;
#: ``direct``: per-pair quadrature, no tables (the slow reference for the tables)
METHODS = ("auto", "quadrature", "direct")
_GRID = 4097
_Q_REL_TOL = 1e-13


def closed_form_name(act: Activation) -> str | None:
    """``"relu"`` or ``"linear"`` if ``act`` is that activation with its [LH] constant (c = 2, resp. 1), else None."""
    if act.name == "relu" and act.c == 2.0 and act.kinks == (0.0,) and act.homogeneous == 1:
        return "relu"
    if act.name == "linear" and act.c == 1.0 and act.homogeneous == 1 and not act.kinks:
        return "linear"
    return None


def check_method(method: str) -> str:
    if method not in METHODS:
        raise InputError(f"method must be one of {METHODS}, got {method!r}")
    return method


def _closed_form(name: str, q1, q2, theta):
    t = np.asarray(theta, dtype=float)
    r = np.sqrt(np.asarray(q1, dtype=float) * np.asarray(q2, dtype=float))
    if name == "relu":  # Cho & Saul: E[relu u relu v] = r J_1 / (2 pi), E[1(u>0) 1(v>0)] = J_0 / (2 pi)
        return r * arccos_kernel(1, t) / (2 * math.pi), arccos_kernel(0, t) / (2 * math.pi) + 0 * r
    return r * np.cos(t), np.ones_like(r * t)


def _lobatto_coefficients(vals: np.ndarray) -> np.ndarray:
    """Chebyshev coefficients of the interpolant through values at x_j = cos(pi j / M), j = 0..M (DCT-I; exact)."""
    M = vals.shape[-1] - 1
    c = dct(vals, type=1, axis=-1) / M
    c[..., 0] /= 2.0
    c[..., -1] /= 2.0
    return c


class _UniformHermite:
    """Cubic Hermite interpolation of Chebyshev series (in x = 2 theta/pi - 1) on a uniform theta grid.

    Error <= h^4/384 max|f^(4)| with h = pi/4096, i.e. ~1e-15 times the fourth derivative.
    Evaluation: one index computation shared by all series, 4 gathers each (~20 ns per point).
    """

    def __init__(self, coef: np.ndarray, n: int = _GRID):
        grid = np.linspace(0.0, math.pi, n)
        self.h = grid[1] - grid[0]
        xg = grid * (2.0 / math.pi) - 1.0
        y = np.stack([cheb.chebval(xg, c) for c in coef])
        dy = np.stack([cheb.chebval(xg, cheb.chebder(c)) for c in coef]) * (2.0 / math.pi) * self.h
        y0, y1, d0, d1 = y[:, :-1], y[:, 1:], dy[:, :-1], dy[:, 1:]
        # p(t) = y0 + d0 t + (3(y1 - y0) - 2 d0 - d1) t^2 + (2(y0 - y1) + d0 + d1) t^3, t in [0, 1]
        self.c = np.stack([y0, d0, 3 * (y1 - y0) - 2 * d0 - d1, 2 * (y0 - y1) + d0 + d1], axis=1)  # (k, 4, n-1)
        self.n = n

    def __call__(self, theta: np.ndarray) -> tuple[np.ndarray, ...]:
        pos = theta / self.h
        i = np.clip(pos.astype(np.intp), 0, self.n - 2)
        t = pos - i
        out = []
        for c in self.c:
            r = np.take(c[3], i)
            for k in (2, 1, 0):
                r *= t
                r += np.take(c[k], i)
            out.append(r)
        return tuple(out)


class ThetaTable:
    """Dual kernels of one activation as functions of theta, for fixed variances q1 = q2 = q.

    Tabulates C(theta) = E[s(u)s(v)], Cd(theta) = E[s'(u)s'(v)] and the ratio
    R(theta) = E[(s(u) - s(v))^2] / (4 sin^2(theta/2)) (R(0) = q E[s'(u)^2]), from which the next
    layer's angle follows without cancellation: sin(theta'/2) = sin(theta/2) sqrt(R(theta)/C(0)).
    Chebyshev interpolation in theta at Lobatto angles (degree doubled from 32 until the top
    quarter of the coefficients is below ``tol`` of the largest), evaluated through cubic Hermite
    splines on 4097 angles. ``degree`` and ``tail`` document the achieved accuracy.
    """

    def __init__(self, activation: Activation, q: float = 1.0, tol: float = 1e-13, max_degree: int = 512):
        self.activation, self.q = activation, check_real(q, "q", low=0.0, low_open=True)
        tol, max_degree = check_real(tol, "tol", low=0.0, low_open=True), positive_int(max_degree, "max_degree")
        M, vals = 32, None
        while True:
            x = np.cos(np.pi * np.arange(M + 1) / M)
            theta = (x + 1.0) * (math.pi / 2.0)
            if vals is None:
                vals = self._values(theta)
            else:  # the Lobatto points of degree M/2 are the even ones of degree M
                new = np.empty((3, M + 1))
                new[:, ::2] = vals
                new[:, 1::2] = self._values(theta[1::2])
                vals = new
            coef = _lobatto_coefficients(vals)
            scale = np.maximum(np.abs(coef).max(axis=1), np.finfo(float).tiny)
            self.tail = float((np.abs(coef[:, 3 * M // 4:]).max(axis=1) / scale).max())
            if self.tail < tol or M >= max_degree:
                break
            M *= 2
        if self.tail >= tol:
            warnings.warn(f"dual kernel table of {activation.name} (q={q:g}) reached degree {M} with "
                          f"Chebyshev tail {self.tail:.1e}", RuntimeWarning, stacklevel=2)
        self.degree, self.coef = M, coef
        self._spline = _UniformHermite(coef)
        #: (E[s(u)^2], E[s'(u)^2]) at theta = 0, the last Lobatto point
        self.diagonal = (float(vals[0, -1]), float(vals[1, -1]))

    def _values(self, theta: np.ndarray) -> np.ndarray:
        act, q = self.activation, self.q
        one = np.ones_like(theta)
        ess, edd, ediff = pair_expectations(act.np_fn, q, q, theta, act.kinks, act.np_deriv, scales=(one, one))
        s2 = np.sin(theta / 2.0) ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(theta > 0, ediff / (4.0 * s2), 0.0)
        ratio[theta == 0] = q * edd[theta == 0]
        return np.stack([ess, edd, ratio])

    def __call__(self, theta) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(C(theta), Cd(theta), R(theta)) by spline."""
        return self._spline(np.asarray(theta, dtype=float))

    def exact(self, theta) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The Chebyshev interpolants themselves (Clenshaw; slower, no spline error)."""
        x = np.asarray(theta, dtype=float) * (2.0 / math.pi) - 1.0
        return tuple(cheb.chebval(x, c) for c in self.coef)


_TABLES: dict[Activation, list[ThetaTable]] = {}


def theta_table(activation: Activation, q: float = 1.0) -> ThetaTable:
    """Cached :class:`ThetaTable` of ``activation`` at variance q (reused for ``|q' - q| <= 1e-13 q``)."""
    q = check_real(q, "q", low=0.0, low_open=True)
    tables = _TABLES.setdefault(activation, [])
    for t in tables:
        if abs(t.q - q) <= _Q_REL_TOL * q:
            return t
    t = ThetaTable(activation, q)
    tables.append(t)
    return t


def _as_pairs(q1, q2, theta, names: tuple[str, str] = ("q1", "q2")):
    q1, q2 = check_variances(q1, names[0]), check_variances(q2, names[1])
    try:
        return tuple(np.asarray(v, dtype=float) for v in np.broadcast_arrays(q1, q2, real_array(theta, "theta")))
    except ValueError:
        raise InputError(f"q1, q2 and theta must broadcast to one shape, got shapes {q1.shape}, {q2.shape} and "
                         f"{np.shape(theta)}") from None


def _route(act: Activation, method: str, qs: np.ndarray) -> str:
    """Which evaluation applies: 'closed', 'homogeneous' (unit table), 'table' (common q) or 'direct'."""
    if method == "auto" and closed_form_name(act) is not None:
        return "closed"
    if method == "direct":
        return "direct"
    if act.homogeneous is not None:
        return "homogeneous"
    if qs.size and qs.max() - qs.min() <= _Q_REL_TOL * qs.max():
        return "table"
    return "direct"


def _diag_rule(act: Activation, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    uniq, inv = np.unique(q.ravel(), return_inverse=True)
    vals = np.empty((2, uniq.size))
    for i, qi in enumerate(uniq):
        r = math.sqrt(qi)
        z, w = gaussian_rule(tuple(k / r for k in act.kinks), h=min(0.5, 0.5 / r))
        u = r * z
        vals[0, i] = w @ act.np_fn(u) ** 2
        vals[1, i] = w @ act.np_deriv(u) ** 2
    return vals[0, inv].reshape(q.shape), vals[1, inv].reshape(q.shape)


def diagonal_expectations(activation: str | Activation, q: ArrayLike,
                          method: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """(E[s(u)^2], E[s'(u)^2]) for u ~ N(0, q), consistent with :func:`dual_expectations` at theta = 0."""
    act = get_activation(activation)
    q = check_variances(q, positive=False)
    route = _route(act, check_method(method), q)
    if route == "closed":
        return (q / 2.0, np.full_like(q, 0.5)) if act.name == "relu" else (q.copy(), np.ones_like(q))
    if route == "homogeneous":
        a, ad = theta_table(act, 1.0).diagonal
        k = act.homogeneous
        return a * q ** k, ad * q ** (k - 1)
    if route == "table":
        a, ad = theta_table(act, float(q.mean())).diagonal
        return np.full_like(q, a), np.full_like(q, ad)
    return _diag_rule(act, q)


def layer_map(activation: str | Activation, theta: ArrayLike, qi: ArrayLike, qj: ArrayLike,
              method: str = "auto") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One layer of the recursion on pairs: E[s s], E[s' s'] and the next angle theta'.

    Returns ``(ess, edd, theta_next)`` with theta' = angle of (s(u), s(v)) computed from
    ``E[(s(u)/|s(u)| - s(v)/|s(v)|)^2]`` (no ``arccos`` near 0). ``qi``, ``qj``: variances of u, v.
    """
    act = get_activation(activation)
    check_angles(theta, "theta")  # validation only: values within 1e-12 of [0, pi] pass unchanged
    q1, q2, t = _as_pairs(qi, qj, theta, ("qi", "qj"))
    route = _route(act, check_method(method), np.concatenate([q1.ravel(), q2.ravel()]))
    if route == "closed":
        raise InputError("layer_map is for the quadrature routes; relu/linear closed forms live in recursion")
    if route in ("homogeneous", "table"):
        k = act.homogeneous
        tab = theta_table(act, 1.0 if route == "homogeneous" else float(np.mean(q1)))
        ess, edd, ratio = tab(t)
        a0 = tab.diagonal[0]
        sin_half = np.sin(t / 2.0) * np.sqrt(np.maximum(ratio, 0.0) / a0)
        if route == "homogeneous":
            prod = q1 * q2
            ess, edd = ess * prod ** (k / 2.0), edd * prod ** ((k - 1) / 2.0)
    elif act.homogeneous is not None:  # direct, at unit variances (the angle map does not depend on norms)
        k = act.homogeneous
        ones = np.ones_like(t)
        a = _diag_rule(act, np.ones(1))[0][0]
        ess, edd, ediff = pair_expectations(act.np_fn, ones, ones, t, act.kinks, act.np_deriv,
                                            scales=(math.sqrt(a) * ones, math.sqrt(a) * ones))
        prod = q1 * q2
        ess, edd = ess * prod ** (k / 2.0), edd * prod ** ((k - 1) / 2.0)
        sin_half = np.sqrt(np.maximum(ediff, 0.0)) / 2.0
    else:
        a1, a2 = _diag_rule(act, q1)[0], _diag_rule(act, q2)[0]
        ess, edd, ediff = pair_expectations(act.np_fn, q1, q2, t, act.kinks, act.np_deriv,
                                            scales=(np.sqrt(a1), np.sqrt(a2)))
        sin_half = np.sqrt(np.maximum(ediff, 0.0)) / 2.0
    return ess, edd, 2.0 * np.arcsin(np.minimum(sin_half, 1.0))


def dual_expectations(activation: str | Activation, theta: ArrayLike, q1: ArrayLike = 1.0, q2: ArrayLike = 1.0,
                      method: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """(E[s(u) s(v)], E[s'(u) s'(v)]) for (u, v) ~ N(0, [[q1, r], [r, q2]]), r = sqrt(q1 q2) cos theta.

    The layer map of the infinite-width recursion (book/formulas.md): Sigma^(l) = c_s E[s(u)s(v)],
    Sigma_dot^(l) = c_s E[s'(u)s'(v)]. ``method``: see :data:`lib.theory.dual_kernel.METHODS`. No c_s factor is applied.
    """
    act = get_activation(activation)
    method = check_method(method)
    q1, q2, t = _as_pairs(q1, q2, check_angles(theta, "theta"))
    if _route(act, method, np.concatenate([q1.ravel(), q2.ravel()])) == "closed":
        return _closed_form(act.name, q1, q2, t)
    ess, edd, _ = layer_map(act, t, q1, q2, method)
    return ess, edd


def dual_kernel_matrix(activation: str | Activation, G: ArrayLike, method: str = "auto") -> np.ndarray:
    """The one-layer dual kernel E_w[s(w.x_i) s(w.x_j)], w ~ N(0, I), of unit vectors x_i with Gram matrix G.

    For unit x_i, x_j the pair (w.x_i, w.x_j) is standard Gaussian with correlation G_ij, so the entry is
    :func:`dual_expectations` at theta = arccos G_ij and unit variances; the diagonal is E[s(z)^2]. No c_s factor
    is applied. It is the kernel of one hidden layer at infinite width of [AAK] Sec 3.3 (Assumption A to B), Thm H.1
    (ReLU, un-normalized) and Thm H.5 (activations with infinitely many even and odd Hermite terms).

    Args:
        activation: a registry name or an :class:`lib.activations.Activation`.
        G: the Gram matrix of unit vectors: real, symmetric, unit diagonal and entries in [-1, 1] (both to within
            ``GRAM_ATOL`` = 1e-12; off-diagonal entries are clipped to [-1, 1]).
        method: see :data:`lib.theory.dual_kernel.METHODS`.

    Returns:
        The (n, n) float64 kernel, symmetric.

    Raises:
        lib.validation.InputError: G is not such a matrix, or a bad activation or method, naming the parameter.
    """
    act = get_activation(activation)
    method = check_method(method)
    G = as_matrix(G, "G")
    d = np.diag(G)
    if not np.allclose(d, 1.0, rtol=0.0, atol=GRAM_ATOL):
        raise InputError("G must be the Gram matrix of unit vectors (unit diagonal), got diagonal entries in "
                         f"[{d.min():.6g}, {d.max():.6g}]")
    if float(np.abs(G).max()) > 1.0 + GRAM_ATOL:
        raise InputError(f"G must be the Gram matrix of unit vectors (entries in [-1, 1]), got an entry of "
                         f"{float(np.abs(G).max()):.6g}")
    n = G.shape[0]
    iu = np.triu_indices(n, 1)
    K = np.empty((n, n))
    K[iu] = dual_expectations(act, np.arccos(np.clip(G[iu], -1.0, 1.0)), method=method)[0]
    K[(iu[1], iu[0])] = K[iu]
    K[np.diag_indices(n)] = dual_expectations(act, np.zeros(1), method=method)[0][0]
    return K
