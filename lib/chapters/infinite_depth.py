"""Measurements for chapter 04: infinite depth ([LH] App. A, Thm 3.5, Thm 4.3; [AAK] Sec. 3).

All infinite-width values come from :mod:`lib.theory`; this module only samples them on the
grids the chapter plots, fits rates, and runs the finite-width comparisons.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
from lib.progress import tqdm

from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.spectra import extreme_eigenvalues
from lib.finite.geometry import layer_geometry
from lib.data.pairs import angle_pairs
from lib import theory as _th

__all__ = [
    "log_depths", "g_iterates", "collapse_profile", "finite_collapse", "phi_depth_profile", "fit_rate",
    "relu_kappa_vs_depth", "finite_kappa", "kernel_kappa_vs_depth", "finite_kernel_kappa", "decay_slope",
    "activation_rates",
]


def log_depths(max_depth: int, per_decade: int = 8) -> np.ndarray:
    """Integer depths 0, 1, 2, ... up to ``max_depth``, roughly log-spaced (``per_decade`` per factor 10)."""
    if isinstance(max_depth, bool) or not isinstance(max_depth, (int, np.integer)) or max_depth < 1:
        raise ValueError(f"max_depth must be a positive integer, got {max_depth!r}")
    n = int(per_decade * math.log10(max_depth)) + 2
    return np.unique(np.concatenate([[0], np.round(np.geomspace(1, max_depth, n)).astype(int)]))


def g_iterates(z, ls) -> pd.DataFrame:
    """g^l(z) for l in ``ls`` on the grid ``z`` ([LH] App. A), from :func:`lib.theory.relu_embedding_angles`.

    Columns l, z, g_l (radians).
    """
    z = np.asarray(z, dtype=float)
    E = _th.relu_embedding_angles(z, int(max(ls)))
    return pd.concat([pd.DataFrame(dict(l=int(l), z=z, g_l=E[:, int(l)])) for l in ls], ignore_index=True)


def collapse_profile(theta_ins, max_depth: int) -> pd.DataFrame:
    """Embedding angles theta^(l) for l = 0..max_depth ([LH] App. A, Thm A.2), log-sampled.

    Columns theta_in, l, theta_l, l_theta_l (= l theta^(l); the small-angle map g(z) = z - z^2/(3 pi)
    + O(z^3) makes it tend to 3 pi).
    """
    t = np.asarray(theta_ins, dtype=float)
    E = _th.relu_embedding_angles(t, max_depth)
    ls = log_depths(max_depth, 12)
    rows = [pd.DataFrame(dict(theta_in=t0, l=ls, theta_l=E[i, ls], l_theta_l=ls * E[i, ls])) for i, t0 in enumerate(t)]
    return pd.concat(rows, ignore_index=True)


def finite_collapse(theta_ins, depth: int, width: int, seeds: int, d: int = 16, device: str = "cpu") -> pd.DataFrame:
    """Finite-width embedding angles theta^(l), l = 0..depth, on pairs at the given angles ([LH] App. A).

    Columns theta_in, l, seed, theta_l (from :func:`lib.finite.geometry.layer_geometry`).
    """
    t = np.asarray(theta_ins, dtype=float)
    rows = []
    for s in range(seeds):
        X = angle_pairs(t, d, seed=s)
        ang = layer_geometry(MLP(d, width, depth, seed=s, device=device), X)["angles"]  # (L+1, n, n)
        i = np.arange(0, 2 * t.size, 2)
        for l in range(depth + 1):
            rows.append(pd.DataFrame(dict(theta_in=t, l=l, seed=s, theta_l=ang[l, i, i + 1])))
    return pd.concat(rows, ignore_index=True)


def phi_depth_profile(theta_ins, max_depth: int, per_decade: int = 12) -> pd.DataFrame:
    """phi_L for L = 0..max_depth (log-sampled) for each theta_in ([LH] Thm 3.5), one O(L) pass per angle.

    Columns theta_in, depth, phi, gap (= phi - phi_inf with phi_inf = arccos(1/4)), from
    :func:`lib.theory.relu_gradient_angle_profile`.
    """
    t = np.asarray(theta_ins, dtype=float)
    P = _th.relu_gradient_angle_profile(t, max_depth)
    Ls = log_depths(max_depth, per_decade)
    phi_inf = _th.relu_gradient_angle_limit()
    rows = [pd.DataFrame(dict(theta_in=t0, depth=Ls, phi=P[i, Ls], gap=P[i, Ls] - phi_inf)) for i, t0 in enumerate(t)]
    return pd.concat(rows, ignore_index=True)


def fit_rate(x, y, tail: float = 0.5) -> tuple[float, float]:
    """Least-squares slope and intercept of log|y| against log x over the last ``tail`` fraction of the points."""
    x, y = np.asarray(x, float), np.abs(np.asarray(y, float))
    ok = (x > 0) & (y > 0) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if x.size < 3:
        raise ValueError("need at least 3 positive points to fit a rate")
    k = max(3, int(round(tail * x.size)))
    s, b = np.polyfit(np.log(x[-k:]), np.log(y[-k:]), 1)
    return float(s), float(b)


def _nested(n_total: int, ns) -> list[int]:
    ns = sorted({int(n) for n in (ns or [n_total])})
    if ns[0] < 2 or ns[-1] > n_total:
        raise ValueError(f"subset sizes must lie in 2..{n_total} (rows of X), got {ns}")
    return ns


def _kappa_row(K: np.ndarray, n: int) -> dict:
    lim = _th.relu_condition_number_limit(n)
    sub = K[:n, :n]
    sp = extreme_eigenvalues(sub)
    C = sub / np.sqrt(np.outer(np.diag(sub), np.diag(sub)))
    np.fill_diagonal(C, -np.inf)
    return dict(n=n, kappa=sp.kappa, limit=lim, ratio=sp.kappa / lim,
                min_phi=math.degrees(math.acos(min(1.0, C.max()))), max_cos=float(C.max()))


def relu_kappa_vs_depth(X, depths, ns=None) -> pd.DataFrame:
    """kappa of the infinite-width ReLU NTK :func:`lib.theory.relu_ntk` at each depth ([LH] Thm 4.3).

    ``ns``: subset sizes; the kernel of the first n rows is the leading n x n block, so one kernel per
    depth serves every n (default: all rows). Columns depth, n, kappa, limit (= (n+3)/3), ratio
    (kappa / limit), min_phi (deg), max_cos.
    """
    X = np.asarray(X, dtype=float)
    ns = _nested(X.shape[0], ns)
    rows = []
    for L in tqdm(list(depths), desc="ReLU NTK vs depth", leave=False):
        K = _th.relu_ntk(X[:ns[-1]], int(L))
        rows.extend(dict(depth=int(L), **_kappa_row(K, n)) for n in ns)
    return pd.DataFrame(rows)


def finite_kappa(X, widths, depths, seeds: int, activation: str = "relu", ns=None, device: str = "cpu") -> pd.DataFrame:
    """kappa of the finite-width empirical NTK (:func:`lib.finite.ntk.empirical_ntk`) on the first n rows of X, n in ``ns``.

    Columns activation, width, depth, seed, n, kappa.
    """
    X = np.asarray(X, dtype=float)
    ns = _nested(X.shape[0], ns)
    rows = []
    for m, L, s in tqdm(list(itertools.product(widths, depths, range(seeds))), desc="finite NTK", leave=False):
        K = empirical_ntk(MLP(X.shape[1], m, int(L), activation=activation, seed=s, device=device), X[:ns[-1]])
        rows.extend(dict(activation=activation, width=m, depth=int(L), seed=s, n=n,
                         kappa=extreme_eigenvalues(K[:n, :n]).kappa) for n in ns)
    return pd.DataFrame(rows)


def kernel_kappa_vs_depth(X, activation: str, max_depth: int) -> pd.DataFrame:
    """kappa of the infinite-width top-layer kernel (NNGP) and NTK at every depth 0..max_depth ([AAK] Sec. 3).

    Kernels Sigma^(L) and Theta^(L) from :func:`lib.theory.layer_kernels` (one pass for all depths). Columns activation, depth,
    kappa_nngp, kappa_ntk, max_abs_corr_nngp, max_abs_corr_ntk (largest |off-diagonal| of the
    normalized kernels), kappa_nngp_cos, kappa_ntk_cos (condition numbers of the normalized kernels). If the recursion overflows (an unstable variance map such as relu2's
    q -> q^2 amplifies rounding errors doubly exponentially), the depth is halved until it does not,
    and the frame stops there.
    """
    depth = int(max_depth)
    while True:  # an unstable variance map (e.g. relu2: q -> q^2) overflows at some depth: keep what is finite
        try:
            hist = _th.layer_kernels(X, depth, activation)
            break
        except FloatingPointError:
            if depth <= 1:
                raise
            depth //= 2
    rows = []
    for L in range(depth + 1):
        row = dict(activation=activation, depth=L)
        for kind, K in (("nngp", hist.sigma[L]), ("ntk", hist.theta[L])):
            C = K / np.sqrt(np.outer(np.diag(K), np.diag(K)))
            np.fill_diagonal(C, 0.0)
            row[f"kappa_{kind}"] = extreme_eigenvalues(K).kappa
            row[f"max_abs_corr_{kind}"] = float(np.abs(C).max())
            np.fill_diagonal(C, 1.0)
            row[f"kappa_{kind}_cos"] = extreme_eigenvalues(C).kappa  # unit diagonal: angles only
        rows.append(row)
    return pd.DataFrame(rows)


def _cos(K: np.ndarray) -> np.ndarray:
    d = np.sqrt(np.diag(K))
    return K / np.outer(d, d)


def finite_kernel_kappa(X, activation: str, width: int, depths, seeds: int, device: str = "cpu") -> pd.DataFrame:
    """Finite-width kappa of the top-layer kernel A_L A_L^T and of the NTK, raw and normalized to unit diagonal.

    Columns activation, depth, seed, overflow, kappa_nngp, kappa_ntk, kappa_nngp_cos, kappa_ntk_cos (nan if the
    net overflows float64).
    """
    rows = []
    for L, s in tqdm(list(itertools.product(depths, range(seeds))), desc=f"{activation} finite", leave=False):
        net = MLP(X.shape[1], width, int(L), activation=activation, seed=s, device=device)
        A = net.embeddings(X)[-1]
        row = dict(activation=activation, depth=int(L), seed=s, overflow=False)
        for kind, K in (("nngp", (A @ A.T).numpy()), ("ntk", empirical_ntk(net, X))):
            if not (np.isfinite(K).all() and np.all(np.diag(K) > 0)):
                row.update({f"kappa_{kind}": math.nan, f"kappa_{kind}_cos": math.nan, "overflow": True})
                continue
            row[f"kappa_{kind}"] = extreme_eigenvalues(K).kappa
            row[f"kappa_{kind}_cos"] = extreme_eigenvalues(_cos(K)).kappa
        rows.append(row)
    return pd.DataFrame(rows)


def decay_slope(depths, values, floor: float = 1e-12) -> tuple[float, int, int]:
    """Per-layer slope of log(values) against depth, fitted where floor < values (kappa - 1 above rounding).

    Returns (slope, first depth, last depth) of the fitted range: the asymptotic rate of the
    exponential approach, to compare with log(1 - mu) ([AAK]).
    """
    d, v = np.asarray(depths, float), np.asarray(values, float)
    ok = np.isfinite(v) & (v > floor)
    if ok.sum() < 3:
        raise ValueError("fewer than 3 points above the floor: cannot fit a decay rate")
    d, v = d[ok], v[ok]
    half = d >= d[0] + (d[-1] - d[0]) / 2  # the second half: asymptotic regime
    if half.sum() < 3:
        half = np.ones_like(d, bool)
    s = np.polyfit(d[half], np.log(v[half]), 1)[0]
    return float(s), int(d[half][0]), int(d[half][-1])


def activation_rates(activation: str) -> dict:
    """The constants that set the [AAK] rates, all from :mod:`lib.theory` (activation facts and limits).

    ``mean`` = E[s(z)] (0 for a centred activation), ``mu`` = coefficient of non-linearity of the normalized
    activation ([AAK] Def. 3.1, :func:`lib.theory.coefficient_of_nonlinearity`), ``chi`` = c E[s'(z)^2]
    (per-layer growth of the NTK diagonal, :func:`lib.theory.correlation_fixed_point`), and the predicted
    per-layer slopes of log(kappa - 1): ``slope_nngp`` = log(1 - mu) (top-layer kernel: the dual activation
    has slope a_1^2 = 1 - mu at correlation 0) and ``slope_ntk`` = log of
    :func:`lib.theory.ntk_offdiagonal_rate` (= (1 - mu)/chi for centred activations).
    """
    mean = _th.gaussian_moments(activation).mean
    mu = _th.coefficient_of_nonlinearity(activation)
    chi = _th.correlation_fixed_point(activation).chi_1
    rate = _th.ntk_offdiagonal_rate(activation)
    return dict(activation=activation, mean=mean, mu=mu, chi=chi, centred=abs(mean) < 1e-10,
                slope_nngp=math.log(1.0 - mu) if mu < 1 else -math.inf,
                slope_ntk=math.log(rate) if rate > 0 else -math.inf)
