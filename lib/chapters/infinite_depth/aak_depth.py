"""Chapter 04, infinite depth ([LH] App. A, Thm 3.5, Thm 4.3; [AAK] Sec. 3): measurements, figures and verdicts.

All infinite-width values come from :mod:`lib.theory`; this module samples them on the grids the
chapter plots, fits rates, and runs the finite-width comparisons. ``compute_*`` gather the chapter's
data, ``plot_*`` draw its figures, ``check_*`` compute its verdicts (:class:`lib.book.results.Check`),
``table_*`` build its tables.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib import theory as _th
from lib.activations import get_activation
from lib.book.plotting import figure, palette
from lib.book.results import Check
from lib.data.datasets import gaussian_data, load_digits_subset
from lib.progress import tqdm

from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.spectra import extreme_eigenvalues
from lib.finite.geometry import layer_geometry
from lib.data.pairs import angle_pairs
from lib.book.provenance import profile_text

__all__ = [
    "log_depths", "g_iterates", "collapse_profile", "finite_collapse", "phi_depth_profile", "fit_rate",
    "relu_kappa_vs_depth", "finite_kappa", "kernel_kappa_vs_depth", "finite_kernel_kappa", "decay_slope",
    "activation_rates", "DEG", "PHI_INF", "Collapse", "compute_collapse", "plot_collapse", "check_g_plot",
    "check_prop_a1", "check_thm_a2", "plot_phi_depth", "check_thm35", "compute_kappa_study", "plot_kappa",
    "table_kappa_deepest", "check_thm43", "DualStudy", "compute_dual", "plot_dual", "check_dual_bound",
    "normrelu_moments", "check_normrelu", "AAK_MIN_RATIO", "AakDepth", "compute_aak_depth", "plot_aak_depth", "table_rates", "check_aak_rate",
    "check_relu_uncentred", "check_phi_90", "compute_phi_profile", "LEMMAS_E", "one_layer_sweep",
    "plot_one_layer", "check_lemma_e", "compute_lengths", "check_lengths", "small_angle_embedding",
    "check_lemma_e6", "PAPER_PHI_LIMIT_DEG", "paper_kappa_limit", "table_paper_vs_book", "table_rates_rounded",
    "glue_values",
]


def log_depths(max_depth: int, per_decade: int = 8) -> np.ndarray:
    """Integer depths 0, 1, 2, ... up to ``max_depth``, roughly log-spaced (``per_decade`` per factor 10).

    Args:
        max_depth: the deepest depth (a positive integer).
        per_decade: depths per factor 10.

    Returns:
        Sorted unique integer depths from 0 to ``max_depth``.
    """
    if isinstance(max_depth, bool) or not isinstance(max_depth, (int, np.integer)) or max_depth < 1:
        raise ValueError(f"max_depth must be a positive integer, got {max_depth!r}")
    n = int(per_decade * math.log10(max_depth)) + 2
    return np.unique(np.concatenate([[0], np.round(np.geomspace(1, max_depth, n)).astype(int)]))


def g_iterates(z, ls) -> pd.DataFrame:
    """g^l(z) for l in ``ls`` on the grid ``z`` ([LH] App. A), from :func:`lib.theory.relu_embedding_angles`.

    Columns l, z, g_l (radians).

    Args:
        z: angles (radians).
        ls: iterates l (positive integers).

    Returns:
        The frame above, one row per (l, z).
    """
    z = np.asarray(z, dtype=float)
    E = _th.relu_embedding_angles(z, int(max(ls)))
    return pd.concat([pd.DataFrame(dict(l=int(l), z=z, g_l=E[:, int(l)])) for l in ls], ignore_index=True)


def collapse_profile(theta_ins, max_depth: int) -> pd.DataFrame:
    """Embedding angles theta^(l) for l = 0..max_depth ([LH] App. A, Thm A.2), log-sampled.

    Columns theta_in, l, theta_l, l_theta_l (= l theta^(l); the small-angle map g(z) = z - z^2/(3 pi)
    + O(z^3) makes it tend to 3 pi).

    Args:
        theta_ins: input angles (radians).
        max_depth: deepest layer.

    Returns:
        The frame above, one row per (theta_in, sampled l).
    """
    t = np.asarray(theta_ins, dtype=float)
    E = _th.relu_embedding_angles(t, max_depth)
    ls = log_depths(max_depth, 12)
    rows = [pd.DataFrame(dict(theta_in=t0, l=ls, theta_l=E[i, ls], l_theta_l=ls * E[i, ls])) for i, t0 in enumerate(t)]
    return pd.concat(rows, ignore_index=True)


def finite_collapse(theta_ins, depth: int, width: int, seeds: int, d: int = 16, device: str = "cpu") -> pd.DataFrame:
    """Finite-width embedding angles theta^(l), l = 0..depth, on pairs at the given angles ([LH] App. A).

    Columns theta_in, l, seed, theta_l (from :func:`lib.finite.geometry.layer_geometry`).

    Args:
        theta_ins: input angles (radians).
        depth: deepest layer.
        width: hidden width.
        seeds: weight draws (and pair draws).
        d: input dimension.
        device: torch device.

    Returns:
        The frame above, one row per (seed, l, theta_in).
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

    Args:
        theta_ins: input angles (radians).
        max_depth: deepest depth.
        per_decade: sampled depths per factor 10.

    Returns:
        The frame above, one row per (theta_in, sampled depth).
    """
    t = np.asarray(theta_ins, dtype=float)
    P = _th.relu_gradient_angle_profile(t, max_depth)
    Ls = log_depths(max_depth, per_decade)
    phi_inf = _th.relu_gradient_angle_limit()
    rows = [pd.DataFrame(dict(theta_in=t0, depth=Ls, phi=P[i, Ls], gap=P[i, Ls] - phi_inf)) for i, t0 in enumerate(t)]
    return pd.concat(rows, ignore_index=True)


def fit_rate(x, y, tail: float = 0.5) -> tuple[float, float]:
    """Least-squares slope and intercept of log|y| against log x over the last ``tail`` fraction of the points.

    Args:
        x: abscissae (positive points are used).
        y: values (their absolute values, positive and finite ones, are used).
        tail: fraction of the points, from the end, that enters the fit (at least 3).

    Returns:
        ``(slope, intercept)`` of the log-log line.
    """
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

    Args:
        X: unit-norm inputs, shape (n, d).
        depths: depths L.
        ns: subset sizes (default: all rows).

    Returns:
        The frame above, one row per (depth, n).
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

    Args:
        X: inputs, shape (n, d).
        widths: widths m.
        depths: depths L.
        seeds: weight draws.
        activation: activation name.
        ns: subset sizes (default: all rows).
        device: torch device.

    Returns:
        The frame above, one row per (width, depth, seed, n).
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
    kappa_nngp, kappa_ntk, max_abs_corr_nngp, max_abs_corr_ntk (largest ``|off-diagonal|`` of the
    normalized kernels), kappa_nngp_cos, kappa_ntk_cos (condition numbers of the normalized kernels). If the recursion overflows (an unstable variance map such as relu2's
    q -> q^2 amplifies rounding errors doubly exponentially), the depth is halved until it does not,
    and the frame stops there.

    Args:
        X: unit-norm inputs, shape (n, d).
        activation: activation name.
        max_depth: deepest depth asked for.

    Returns:
        The frame above, one row per depth.
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

    Args:
        X: inputs, shape (n, d).
        activation: activation name.
        width: hidden width.
        depths: depths L.
        seeds: weight draws.
        device: torch device.

    Returns:
        The frame above, one row per (depth, seed).
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

    Args:
        depths: depths.
        values: kappa - 1 (or any positive decaying sequence).
        floor: values at or below it (rounding) are left out.

    Returns:
        (slope, first depth, last depth) of the fitted range: the asymptotic rate of the
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

    Args:
        activation: activation name of the registry (:mod:`lib.activations`).

    Returns:
        The dict above.
    """
    mean = _th.gaussian_moments(activation).mean
    mu = _th.coefficient_of_nonlinearity(activation)
    chi = _th.correlation_fixed_point(activation).chi_1
    rate = _th.ntk_offdiagonal_rate(activation)
    return dict(activation=activation, mean=mean, mu=mu, chi=chi, centred=abs(mean) < 1e-10,
                slope_nngp=math.log(1.0 - mu) if mu < 1 else -math.inf,
                slope_ntk=math.log(rate) if rate > 0 else -math.inf)


# --- the chapter's figures, tables and verdicts (notebook 04) -------------------------------------------------

#: degrees per radian
DEG = 180 / math.pi
#: the infinite-depth ReLU gradient angle arccos(1/4) ([LH] Thm 3.5)
PHI_INF = _th.relu_gradient_angle_limit()
#: the paper's limit of Thm 3.5 in degrees: arccos(1/4), about 75.52 deg ([LH] Thm 3.5)
PAPER_PHI_LIMIT_DEG = math.degrees(math.acos(0.25))


def paper_kappa_limit(n: int) -> float:
    """The paper's limit of the ReLU NTK condition number for n unit-norm inputs, (n+3)/3 ([LH] Thm 4.3).

    Args:
        n: the number of inputs.

    Returns:
        (n + 3) / 3.
    """
    return (n + 3) / 3


def _small(v: float, floor: float = 1e-9, fmt: str = ".2g") -> str:
    """A deviation to two digits, or "below <floor> (rounding)" when it is at double-precision rounding level."""
    return f"below {floor:g} (rounding)" if abs(v) < floor else format(v, fmt)


@dataclass
class Collapse:
    """The data of [LH] App. A: iterates of g on a grid, infinite- and finite-width embedding angles.

    Attributes:
        zgrid: the grid of angles z (radians).
        gi: :func:`g_iterates` on ``zgrid``.
        coll: :func:`collapse_profile`.
        fcoll: :func:`finite_collapse`.
    """

    zgrid: np.ndarray
    gi: pd.DataFrame
    coll: pd.DataFrame
    fcoll: pd.DataFrame


def compute_collapse(g_levels, collapse_angles_deg, collapse_depth: int, fw_collapse_depth: int, fw_width: int,
                     seeds: int, device: str = "cpu") -> Collapse:
    """Everything [LH] App. A needs: g^l on 181 angles, theta^(l) at infinite and finite width.

    Args:
        g_levels: iterates l of g.
        collapse_angles_deg: input angles (degrees).
        collapse_depth: deepest layer of the infinite-width curves.
        fw_collapse_depth: deepest layer at finite width.
        fw_width: finite width.
        seeds: weight draws.
        device: torch device.

    Returns:
        A :class:`Collapse`.
    """
    zgrid = np.linspace(0, math.pi, 181)
    t = np.deg2rad(collapse_angles_deg)
    return Collapse(zgrid, g_iterates(zgrid, g_levels), collapse_profile(t, collapse_depth),
                    finite_collapse(t, fw_collapse_depth, fw_width, seeds, device=device))


def plot_collapse(c: Collapse, g_levels, collapse_angles_deg, collapse_depth: int) -> Figure:
    """[LH] App. A: g and its iterates (left), embedding angles against depth with the 3 pi / l rate (right).

    Args:
        c: the data of :func:`compute_collapse`.
        g_levels: iterates l drawn.
        collapse_angles_deg: input angles (degrees).
        collapse_depth: deepest layer (for the rate guide).

    Returns:
        A figure with two axes.
    """
    gi, coll, fcoll = c.gi, c.coll, c.fcoll
    fig, axs = figure(ncols=2)
    ax = axs[0, 0]
    for col, l in zip(palette(len(g_levels)), g_levels):
        s = gi[gi.l == l]
        ax.plot(DEG * s.z, DEG * s.g_l, color=col, label=f"$g^{{{l}}}$")
    ax.plot([0, 180], [0, 180], "k--", lw=1, label="identity")
    ax.set(xlabel="z (deg)", ylabel=r"$g^l(z)$ (deg)", xlim=(0, 180), ylim=(0, 180),
           title="[LH] App. A: g and its iterates")
    ax.legend()
    ax = axs[0, 1]
    ca = dict(zip(collapse_angles_deg, palette(len(collapse_angles_deg))))
    for t0, col in ca.items():
        s = coll[(np.isclose(coll.theta_in, math.radians(t0))) & (coll.l > 0)]
        ax.loglog(s.l, s.theta_l, color=col, label=fr"$\theta_{{in}}={t0:g}^\circ$")
        f = fcoll[np.isclose(fcoll.theta_in, math.radians(t0)) & (fcoll.l > 0)].groupby("l").theta_l.mean()
        ax.loglog(f.index, f.to_numpy(), "o", ms=3, mfc="none", color=col)
    ls = np.geomspace(10, collapse_depth, 20)
    ax.loglog(ls, 3 * math.pi / ls, "k:", label=r"$3\pi/l$")
    ax.set(xlabel="layer l", ylabel=r"$\theta^{(l)}$ (rad)", title="Embedding collapse")
    ax.legend(fontsize="x-small")
    return fig


def _g_monotone(gi: pd.DataFrame) -> tuple[pd.DataFrame, bool]:
    gz = gi[(gi.l == 1) & (gi.z > 0)]
    return gz, bool((np.diff(gz.g_l) > 0).all() and (gz.g_l < gz.z).all())


def check_g_plot(c: Collapse) -> Check:
    """[LH] Fig 5: the plot of g(z) = arccos(((pi - z) cos z + sin z) / pi).

    Rule: "reproduced" if g on the grid (z > 0) is strictly increasing and below the identity, else
    "not reproduced" (exact properties of g, no tolerance).

    Args:
        c: the data of :func:`compute_collapse`.

    Returns:
        The verdict.
    """
    gz, mono_g = _g_monotone(c.gi)
    return Check(
        "[LH] Fig 5", status="reproduced" if mono_g else "not reproduced",
        measured=f"Figure 4.1 (left) draws g from lib.theory on {len(c.zgrid)} angles; g(180 deg) = "
        f"{DEG * float(gz.g_l.iloc[-1]):.4f} deg "
        f"(= 90 deg: antipodal inputs become orthogonal after one ReLU layer).")


def check_prop_a1(c: Collapse, g_levels) -> Check:
    """[LH] Prop A.1: g is increasing, g(z) <= z with equality only at 0, and g^l(z) -> 0.

    Rule: "reproduced" if g is increasing and below the identity on the grid and every embedding angle at
    the deepest sampled layer is below 1e-3 rad (theta^(l) ~ 3 pi / l: below 1e-3 from l ~ 1e4 on); else
    "not reproduced".

    Args:
        c: the data of :func:`compute_collapse`.
        g_levels: iterates l of g.

    Returns:
        The verdict.
    """
    _, mono_g = _g_monotone(c.gi)
    last = c.coll[c.coll.l == c.coll.l.max()]
    return Check(
        "[LH] Prop A.1", status="reproduced" if mono_g and last.theta_l.max() < 1e-3 else "not reproduced",
        measured=f"On the grid g is increasing and below the identity for z > 0: {mono_g}; the largest g^l over the grid at "
        f"l = {max(g_levels)} is {DEG * float(c.gi[c.gi.l == max(g_levels)].g_l.max()):.3f} deg.")


def check_thm_a2(c: Collapse, collapse_angles_deg, fw_width: int, fw_collapse_depth: int) -> Check:
    """[LH] Thm A.2: the embedding angles theta^(l) decrease with l and tend to 0.

    Rule: "reproduced" if theta^(l) is strictly decreasing on the sampled layers for every input angle and at
    most 1e-3 rad at the deepest layer (see :func:`check_prop_a1`); else "not reproduced". The finite-width
    rms deviation is reported, not tested.

    Args:
        c: the data of :func:`compute_collapse`.
        collapse_angles_deg: input angles (degrees).
        fw_width: finite width.
        fw_collapse_depth: deepest finite-width layer.

    Returns:
        The verdict.
    """
    coll, fcoll = c.coll, c.fcoll
    last = coll[coll.l == coll.l.max()]
    lt = last.l_theta_l / (3 * math.pi)
    fdev = fcoll.merge(coll, on=["theta_in", "l"], suffixes=("_m", "_inf"))
    fw_err = DEG * float(np.sqrt(((fdev.theta_l_m - fdev.theta_l_inf) ** 2).mean())) if len(fdev) else math.nan
    dec = bool(coll.groupby("theta_in").theta_l.apply(lambda v: bool((np.diff(v.to_numpy()) < 0).all())).all())
    return Check(
        "[LH] Thm A.2", status="reproduced" if dec and last.theta_l.max() < 1e-3 else "not reproduced",
        measured=f"theta^(l) strictly decreasing on the sampled layers: {dec}. At l = {int(coll.l.max())} it is at most "
        f"{last.theta_l.max():.2e} rad over input angles {collapse_angles_deg} deg, and l theta^(l) / (3 pi) lies in "
        f"[{lt.min():.4f}, {lt.max():.4f}] (-> 1: collapse like 3 pi / l). Finite width {fw_width} follows within "
        f"{fw_err:.2f} deg rms on layers 0..{fw_collapse_depth}.")


def plot_phi_depth(prof: pd.DataFrame, phi_angles_deg, max_depth: int) -> Figure:
    """[LH] Thm 3.5: phi against depth (left) and ``|phi_L - arccos(1/4)|`` with a log L / L guide (right).

    Args:
        prof: the frame of :func:`phi_depth_profile`.
        phi_angles_deg: input angles (degrees), at least two.
        max_depth: deepest depth.

    Returns:
        A figure with two axes.
    """
    fig, axs = figure(ncols=2)
    pa = dict(zip(phi_angles_deg, palette(len(phi_angles_deg))))
    for t0, c in pa.items():
        s = prof[np.isclose(prof.theta_in, math.radians(t0))]
        axs[0, 0].semilogx(s.depth.clip(lower=0.5), DEG * s.phi, color=c, label=fr"$\theta_{{in}}={t0:g}^\circ$")
        s = s[s.depth > 0]
        axs[0, 1].loglog(s.depth, DEG * np.abs(s.gap), color=c)
    axs[0, 0].axhline(DEG * PHI_INF, color="k", ls="--", label=r"$\arccos(1/4)$")
    axs[0, 0].set(xlabel="depth L (0 drawn at 0.5)", ylabel=r"$\phi$ (deg)",
                  title="[LH] Thm 3.5: gradient angle vs depth")
    axs[0, 0].legend(fontsize="x-small")
    Ls = np.geomspace(100, max_depth, 20)
    ref = prof[np.isclose(prof.theta_in, math.radians(phi_angles_deg[-2])) & (prof.depth >= 100)]
    anchor = DEG * abs(ref.gap.iloc[0]) if len(ref) else 1.0
    axs[0, 1].loglog(Ls, anchor * (np.log(Ls) / Ls) / (math.log(100) / 100), "k:", label=r"$\propto \log L / L$")
    axs[0, 1].set(xlabel="depth L", ylabel=r"$|\phi_L - \arccos(1/4)|$ (deg)", title="Rate of approach")
    axs[0, 1].legend()
    return fig


def check_thm35(prof: pd.DataFrame, phi_angles_deg) -> Check:
    """[LH] Thm 3.5: phi -> arccos(1/4) for every non-parallel pair in the infinite-width-then-depth limit.

    Rule: "reproduced" if at the deepest L every input angle has ``|phi - arccos(1/4)|`` < 1 deg (the
    approach is slow, ~ log L / L, so 1 deg is what L ~ 1e5..1e7 can reach); "inconclusive" if not yet within
    1 deg but every gap shrank over the last decade of depth (the limit lies beyond the depths computed);
    "not reproduced" if some gap is above 1 deg and did not shrink (phi settles elsewhere).

    Args:
        prof: the frame of :func:`phi_depth_profile` (depths up to at least 10).
        phi_angles_deg: input angles (degrees).

    Returns:
        The verdict.
    """
    at = prof.pivot_table(index="depth", columns="theta_in", values="phi")
    Lmax = int(at.index.max())
    L3 = int(at.index[np.argmin(np.abs(at.index - 1000))])
    gap_max = DEG * float(np.abs(at.loc[Lmax] - PHI_INF).max())
    gap_1e3 = DEG * float(np.abs(at.loc[L3] - PHI_INF).max())
    L_dec = int(at.index[np.argmin(np.abs(at.index - Lmax / 10))])
    converging = bool((np.abs(at.loc[Lmax] - PHI_INF) < np.abs(at.loc[L_dec] - PHI_INF)).all())
    slowest = DEG * float(at.columns[np.argmax(np.abs(at.loc[Lmax] - PHI_INF).to_numpy())])
    rates = {}
    for t0 in phi_angles_deg:
        s = prof[np.isclose(prof.theta_in, math.radians(t0)) & (prof.depth >= max(10, Lmax // 1000))]
        rates[t0] = fit_rate(s.depth, s.gap, tail=0.5)[0]
    status = "reproduced" if gap_max < 1.0 else ("inconclusive" if converging else "not reproduced")
    return Check(
        "[LH] Thm 3.5", status=status,
        caveat=f"depth {Lmax} is not enough: the gaps still shrink, towards a limit beyond the depths computed"
        if status == "inconclusive" else "",
        measured=f"At L = {Lmax}, phi lies within {gap_max:.2g} deg of {DEG * PHI_INF:.2f} deg for every input angle in "
        f"{phi_angles_deg} deg (at L = {L3}: within {gap_1e3:.2f} deg). Fitted log-log slopes of the gap over the "
        "last decades: " + ", ".join(f"{t0:g} deg: {r:.2f}" for t0, r in rates.items())
        + f" (log L / L has local slope just above -1): slow; every gap shrinks over the last "
        f"decade: {converging}. The slowest pair is theta_in = {slowest:g} deg: the approach starts only once "
        "L theta_in is of order 1.")


def compute_kappa_study(kappa_ns, kappa_max_depth: int, gauss_dim: int, fw_width: int, fw_depths, seeds: int,
                        device: str = "cpu") -> tuple[pd.DataFrame, pd.DataFrame]:
    """[LH] Thm 4.3 data: kappa of the ReLU NTK against depth on unit-norm digits and Gaussian points.

    Args:
        kappa_ns: numbers of inputs n (nested subsets of one sample).
        kappa_max_depth: deepest infinite-width depth (log-sampled, 6 per decade).
        gauss_dim: dimension of the Gaussian points.
        fw_width: finite width.
        fw_depths: finite-width depths.
        seeds: weight draws.
        device: torch device.

    Returns:
        ``(kap, fkap)``: :func:`relu_kappa_vs_depth` and :func:`finite_kappa` frames with a ``data`` column.
    """
    depth_grid = log_depths(kappa_max_depth, 6)
    data = {"digits": lambda n: load_digits_subset(n, seed=0, unit_norm=True),
            "Gaussian": lambda n: gaussian_data(n, gauss_dim, seed=0, unit_norm=True)}
    kap, fkap = [], []
    for name, make in data.items():
        X = make(max(kappa_ns))  # nested subsets: the first n rows for every n
        kap.append(relu_kappa_vs_depth(X, depth_grid, ns=kappa_ns).assign(data=name))
        fkap.append(finite_kappa(X, [fw_width], fw_depths, seeds, ns=kappa_ns, device=device).assign(data=name))
    return pd.concat(kap, ignore_index=True), pd.concat(fkap, ignore_index=True)


def plot_kappa(kap: pd.DataFrame, fkap: pd.DataFrame, kappa_ns, fw_width: int) -> Figure:
    """[LH] Thm 4.3: kappa against depth per data set, infinite width (lines), finite width (circles), (n+3)/3 dashed.

    Args:
        kap, fkap: the frames of :func:`compute_kappa_study`.
        kappa_ns: numbers of inputs n.
        fw_width: finite width (title).

    Returns:
        A figure with two axes (digits, Gaussian).
    """
    fig, axs = figure(ncols=2)
    nc = dict(zip(kappa_ns, palette(len(kappa_ns))))
    for ax, name in zip(axs[0], ("digits", "Gaussian")):
        for n in kappa_ns:
            s = kap[(kap.data == name) & (kap.n == n) & (kap.depth > 0)]
            ax.loglog(s.depth, s.kappa, color=nc[n], label=f"n={n}")
            ax.axhline(_th.relu_condition_number_limit(n), color=nc[n], ls="--", lw=1)
            f = fkap[(fkap.data == name) & (fkap.n == n)].groupby("depth").kappa.agg(["median", "min", "max"])
            ax.errorbar(f.index, f["median"], yerr=[f["median"] - f["min"], f["max"] - f["median"]], fmt="o", ms=4,
                        mfc="none", color=nc[n], capsize=2)
        ax.plot([], [], color="0.3", label="infinite width")
        ax.errorbar([], [], fmt="o", ms=4, mfc="none", color="0.3", label=f"width {fw_width}")
        ax.plot([], [], color="0.3", ls="--", lw=1, label="(n+3)/3")
        ax.set(xlabel="depth L", ylabel=r"$\kappa(K)$", title=name)
    handles, labels = axs[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(5, len(labels)),
               fontsize="small")
    return fig


def table_kappa_deepest(kap: pd.DataFrame) -> pd.DataFrame:
    """kappa, its limit (n+3)/3, their ratio and the smallest gradient angle at the deepest depth, per (data, n)."""
    return kap[kap.depth == kap.depth.max()].set_index(["data", "n"])


def check_thm43(kap: pd.DataFrame, fkap: pd.DataFrame, fw_width: int, fw_depths) -> Check:
    """[LH] Thm 4.3: for unit-norm non-parallel inputs the ReLU NTK kappa tends to (n+3)/3 with depth.

    Rule: "reproduced" if at the deepest depth every kappa is within 10% of (n+3)/3 (the approach is as
    slow as phi's, ~ log L / L, Thm 3.5: 10% is what depths ~ 1e3..1e4 reach on these data); otherwise
    "inconclusive" if every ``|kappa / ((n+3)/3) - 1|`` shrank over the last decade of depth (the limit lies
    beyond the depths computed), and "not reproduced" if one did not (kappa settles elsewhere). The
    finite-width comparison is reported, not tested.

    Args:
        kap, fkap: the frames of :func:`compute_kappa_study`.
        fw_width: finite width.
        fw_depths: finite-width depths.

    Returns:
        The verdict.
    """
    deepest = table_kappa_deepest(kap)
    cmp = fkap.groupby(["data", "n", "depth"]).kappa.median().rename("finite").reset_index().merge(
        kap[["data", "n", "depth", "kappa"]], on=["data", "n", "depth"])
    cmp["rel"] = cmp.finite / cmp.kappa - 1
    worst = float(np.abs(deepest.ratio - 1).max())
    Lmax = int(kap.depth.max())
    depths = np.sort(kap.depth.unique())
    L_dec = int(depths[np.argmin(np.abs(depths - Lmax / 10))])
    earlier = kap[kap.depth == L_dec].set_index(["data", "n"]).ratio
    approaching = bool((np.abs(deepest.ratio - 1) < np.abs(earlier.reindex(deepest.index) - 1)).all())
    status = "reproduced" if worst < 0.1 else ("inconclusive" if approaching else "not reproduced")
    return Check(
        "[LH] Thm 4.3", status=status,
        caveat=f"depth {Lmax} is not enough: kappa still approaches (n+3)/3" if status == "inconclusive" else "",
        measured=f"At L = {int(kap.depth.max())} kappa / ((n+3)/3) = " + ", ".join(
            f"{r.ratio:.3f} ({d}, n={n})" for (d, n), r in deepest.iterrows())
        + f"; the smallest gradient angle there is {deepest.min_phi.min():.2f} deg (limit 75.52). Finite width "
        f"{fw_width} vs infinite width at L <= {max(fw_depths)}: median relative kappa difference "
        f"{cmp.rel.abs().median():.2f}, largest {cmp.rel.abs().max():.2f} "
        f"(at L={int(cmp.loc[cmp.rel.abs().idxmax(), 'depth'])}).")


@dataclass
class DualStudy:
    """[AAK] Lemma C.7 data: dual activations of the centred activations on a grid of correlations.

    Attributes:
        rho: the correlations.
        centred: the centred activations of the study, in order.
        dual: s_hat(rho) per activation (:func:`lib.theory.dual_activation`).
        bound: (1 - mu)|rho| + mu rho^2 per activation (:func:`lib.theory.dual_activation_bound`).
        mu: coefficient of non-linearity per activation.
        excess: max over rho of ``|s_hat|`` - bound per activation.
    """

    rho: np.ndarray
    centred: list
    dual: dict
    bound: dict
    mu: dict
    excess: dict


def compute_dual(activations) -> DualStudy:
    """Dual activations and the [AAK] Lemma C.7 bound on 201 correlations in [-0.999, 0.999].

    Args:
        activations: names; only the centred ones (:func:`activation_rates`) are kept.

    Returns:
        A :class:`DualStudy`.
    """
    rho = np.linspace(-0.999, 0.999, 201)
    centred = [a for a in activations if activation_rates(a)["centred"]]
    dual, bound, mu, excess = {}, {}, {}, {}
    for a in centred:
        mu[a] = activation_rates(a)["mu"]
        dual[a] = _th.dual_activation(a, rho)
        bound[a] = _th.dual_activation_bound(a, rho)
        excess[a] = float((np.abs(dual[a]) - bound[a]).max())
    return DualStudy(rho, centred, dual, bound, mu, excess)


def plot_dual(ds: DualStudy) -> Figure:
    """[AAK] Lemma C.7: dual activations (solid) and the bound +-((1 - mu)|rho| + mu rho^2) (dashed).

    Args:
        ds: the data of :func:`compute_dual`.

    Returns:
        A figure with one axis.
    """
    rho = ds.rho
    fig, axs = figure()
    ax = axs[0, 0]
    for c, a in zip(palette(len(ds.centred)), ds.centred):
        ax.plot(rho, ds.dual[a], color=c, label=fr"{a}, $\mu$={ds.mu[a]:.4f}")
        ax.plot(rho, ds.bound[a], "--", lw=1, color=c)
        ax.plot(rho, -ds.bound[a], "--", lw=1, color=c)
    ax.plot(rho, rho, "k:", lw=1, label="identity (linear)")
    ax.set(xlabel=r"input correlation $\rho$", ylabel=r"$\hat\sigma(\rho)$",
           title="[AAK] Lemma C.7: dual activations and bound")
    ax.legend(fontsize="x-small")
    return fig


def check_dual_bound(ds: DualStudy) -> Check:
    """[AAK] Lemma C.7: ``|s_hat(rho)|`` <= (1 - mu)``|rho|`` + mu rho^2 for a normalized activation.

    Rule: "reproduced" if the largest excess ``|s_hat|`` - bound over the grid is at most 1e-10 (quadrature
    rounding; the bound is attained at rho = 0 and 1), "not reproduced" otherwise, "not checked" without a
    centred activation.

    Args:
        ds: the data of :func:`compute_dual`.

    Returns:
        The verdict.
    """
    bound_ok = ds.excess
    return Check(
        "[AAK] Lemma C.7",
        status=("reproduced" if max(bound_ok.values()) <= 1e-10 else "not reproduced") if bound_ok else "not checked",
        caveat="" if bound_ok else "not testable on this data: no centred activation in the run",
        measured="Largest excess |s_hat| - bound over 201 correlations in [-0.999, 0.999]: " + ", ".join(
            f"{a} {_small(v, 1e-12)}" for a, v in bound_ok.items())
        + " (the bound holds up to quadrature rounding, with equality at rho = 0 and 1).")


def normrelu_moments(name: str = "normrelu", samples: int = 2_000_000, seed: int = 0) -> dict:
    """Monte Carlo moments of an activation's torch implementation under N(0, 1) ([AAK] Sec 7).

    Independent of the quadrature that set NormReLU's constants: the function the networks use is
    evaluated on ``samples`` fresh Gaussian draws.

    Args:
        name: activation name of the registry (:mod:`lib.activations`).
        samples: number of draws.
        seed: generator seed.

    Returns:
        ``mean``, ``second`` (E[s^2]), their standard errors ``mean_se``, ``second_se``, and ``name``.
    """
    import torch
    act = get_activation(name)
    g = torch.Generator().manual_seed(seed)
    z = torch.randn(samples, generator=g, dtype=torch.float64)
    s = act(z)
    s2 = s * s
    return dict(name=act.name, mean=float(s.mean()), mean_se=float(s.std() / math.sqrt(samples)),
                second=float(s2.mean()), second_se=float(s2.std() / math.sqrt(samples)))


def check_normrelu(mom: dict | None = None) -> Check:
    """[AAK] Sec 7: NormReLU lambda_b (max(x, b) - c_b), lambda_b ~ 1.0507, is a normalized activation.

    Measurement: Monte Carlo moments of the torch function the networks use (:func:`normrelu_moments`),
    not the quadrature constants the code divided by. Rule: "reproduced" if ``|E[s]|`` and ``|E[s^2] - 1|``
    are both within 5 standard errors (a 5-sigma band: a false alarm has probability below 1e-6); else
    "not reproduced" (plain ReLU, for instance, has E[s] = 0.40 and E[s^2] = 0.5).

    Args:
        mom: the output of :func:`normrelu_moments` (computed for ``"normrelu"`` if omitted).

    Returns:
        The verdict.
    """
    mom = mom if mom is not None else normrelu_moments()
    ok = abs(mom["mean"]) <= 5 * mom["mean_se"] and abs(mom["second"] - 1) <= 5 * mom["second_se"]
    mu = ""
    if mom["name"].startswith("normrelu"):
        mu = (f" Its coefficient of non-linearity is mu = {activation_rates('normrelu')['mu']:.5f}: NormReLU is "
              "nearly linear, so its decorrelation is slow.")
    return Check(
        "[AAK] Sec 7", status="reproduced" if ok else "not reproduced",
        measured=f"Monte Carlo of {mom['name']} on N(0, 1): E[s] = {mom['mean']:.2e} +- {mom['mean_se']:.1e}, "
        f"E[s^2] = {mom['second']:.5f} +- {mom['second_se']:.1e}." + mu)


@dataclass
class AakDepth:
    """[AAK] depth study data.

    Attributes:
        kk: :func:`kernel_kappa_vs_depth` for every activation.
        fk: :func:`finite_kernel_kappa` for every activation.
        facts: :func:`activation_rates` per activation.
        fits: (activation, kind) -> (fitted slope, first depth, last depth, predicted slope).
        activations: the activations, in legend order.
        n: number of inputs.
    """

    kk: pd.DataFrame
    fk: pd.DataFrame
    facts: dict
    fits: dict
    activations: list
    n: int


def compute_aak_depth(activations, n: int, max_depth: int, fw_width: int, fw_depths, seeds: int,
                      device: str = "cpu") -> AakDepth:
    """[AAK] Sec. 3: kappa - 1 of the normalized NNGP and NTK against depth on n unit-norm digits, with fitted rates.

    Args:
        activations: activation names.
        n: number of digits.
        max_depth: deepest infinite-width depth.
        fw_width: finite width.
        fw_depths: finite-width depths.
        seeds: weight draws.
        device: torch device.

    Returns:
        An :class:`AakDepth`.
    """
    acts = list(activations)
    Xa = load_digits_subset(n, seed=1, unit_norm=True)
    kk = pd.concat([kernel_kappa_vs_depth(Xa, a, max_depth) for a in acts], ignore_index=True)
    facts = {a: activation_rates(a) for a in acts}
    fk = pd.concat([finite_kernel_kappa(Xa, a, fw_width, fw_depths, seeds, device=device) for a in acts],
                   ignore_index=True)
    fits = {}
    for kind in ("nngp", "ntk"):
        for a in acts:
            s = kk[kk.activation == a]
            y = s[f"kappa_{kind}_cos"] - 1
            pred = facts[a][f"slope_{kind}"]
            try:
                fits[(a, kind)] = (*decay_slope(s.depth, y), pred)
            except ValueError:
                fits[(a, kind)] = (math.nan, 0, 0, pred)
    return AakDepth(kk, fk, facts, fits, acts, int(n))


def plot_aak_depth(st: AakDepth) -> Figure:
    """[AAK] depth: kappa - 1 of the top-layer kernel (left) and the NTK (right), with predicted slopes (dotted).

    Args:
        st: the data of :func:`compute_aak_depth`.

    Returns:
        A figure with two axes and one legend below.
    """
    kk, fk, facts, fits = st.kk, st.fk, st.facts, st.fits
    fig, axs = figure(ncols=2)
    ac = dict(zip(st.activations, palette(len(st.activations))))
    for ax, kind in zip(axs[0], ("nngp", "ntk")):
        for a in st.activations:
            s = kk[kk.activation == a]
            y = s[f"kappa_{kind}_cos"] - 1
            ax.semilogy(s.depth, y, color=ac[a], label=a)
            f = fk[fk.activation == a].groupby("depth")[f"kappa_{kind}_cos"].median() - 1
            ax.semilogy(f.index, f.to_numpy(), "o", ms=4, mfc="none", color=ac[a])
            pred = facts[a][f"slope_{kind}"]
            if facts[a]["centred"] and np.isfinite(fits[(a, kind)][0]):
                L0, L1 = fits[(a, kind)][1:3]
                y0 = float(y[s.depth == L0].iloc[0])
                xs = np.arange(L0, L1 + 1)
                ax.semilogy(xs, y0 * np.exp(pred * (xs - L0)) * 4, ":", lw=2.5, color=ac[a])
        if kind == "ntk":
            ax.axhline(_th.relu_condition_number_limit(st.n) - 1, color="k", ls="--", lw=1,
                       label=f"ReLU NTK limit: (n+3)/3 - 1 = n/3 = {st.n / 3:.3g}")
        lo = kk[f"kappa_{kind}_cos"].sub(1).clip(lower=1e-15).min()
        ax.set(xlabel="depth L", ylabel=r"$\kappa - 1$", ylim=(max(1e-15, lo / 10), None),
               title=("top-layer kernel (NNGP)" if kind == "nngp" else "NTK") + f", n={st.n} digits")
    handles, labels = axs[0, 1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(4, len(labels)),
               fontsize="small")
    return fig


def table_rates(st: AakDepth) -> pd.DataFrame:
    """Fitted against predicted per-layer slopes of log(kappa - 1), per activation and kernel ([AAK]).

    Args:
        st: the data of :func:`compute_aak_depth`.

    Returns:
        Columns activation, kernel, mu, chi, centred, fitted_slope, predicted_slope, fit_range, kappa_at_max.
    """
    rows = []
    for (a, kind), (slope, L0, L1, pred) in st.fits.items():
        s = st.kk[st.kk.activation == a]
        rows.append(dict(activation=a, kernel=kind, mu=st.facts[a]["mu"], chi=st.facts[a]["chi"],
                         centred=st.facts[a]["centred"], fitted_slope=slope, predicted_slope=pred,
                         fit_range=f"{L0}-{L1}", kappa_at_max=float(s[f"kappa_{kind}_cos"].iloc[-1])))
    return pd.DataFrame(rows)


#: Smallest fitted / predicted slope of log(kappa - 1) that agrees with [AAK]'s rate, per kernel (see
#: :func:`check_aak_rate`).
AAK_MIN_RATIO = {"nngp": 0.9, "ntk": 0.75}


def check_aak_rate(rates: pd.DataFrame, kind: str) -> Check:
    """[AAK] Thm 3.2 (``kind="nngp"``) / Thm 3.4 (``"ntk"``): kappa -> 1 exponentially, at a rate set by mu.

    Measurement: the fitted per-layer slope of log(kappa - 1) over the second half of the depths
    (:func:`decay_slope`) against the predicted log(1 - mu) (NNGP) or log((1 - mu)/chi) (NTK), as the
    ratio ``r`` = fitted / predicted, for every centred activation. The prediction is an upper bound on
    the asymptotic decay for the top-layer kernel ([AAK] Lemma C.7 contracts small correlations by at
    least 1 - mu per layer), and a linearization at rho = 0 for the NTK (a sum over layers, whose
    approach to its asymptotic rate is slower). Rule:

    * "not reproduced" if some ``r < 0.1``: kappa - 1 does not decay (plain ReLU's kappa tends to
      (n+3)/3 instead);
    * "inconclusive" if kappa is still above 1.1 at the deepest layer for some activation: correlations
      are not small yet, where the bound allows a slower decay (deeper needed);
    * otherwise (asymptotic regime) "reproduced" if every ``r >= AAK_MIN_RATIO[kind]`` (0.9 for the
      top-layer kernel: the fit recovers an exponential slope to 2%, 10% is the margin; 0.75 for the NTK,
      whose sum over layers reaches its asymptotic slope only slowly), else "not reproduced" (a decay
      slower than the rate mu sets). A faster decay agrees with the bound.

    "not checked" without a centred activation (the theorem's premise).

    Args:
        rates: the frame of :func:`table_rates`.
        kind: ``"nngp"`` or ``"ntk"``.

    Returns:
        The verdict.
    """
    cid = {"nngp": "[AAK] Thm 3.2", "ntk": "[AAK] Thm 3.4"}[kind]
    sub = rates[rates.centred & (rates.kernel == kind)]
    if sub.empty:
        return Check(cid, status="not checked", measured="No centred activation in this run.",
                     caveat="not testable on this data: the theorem is about normalized (centred) activations")
    r = (sub.fitted_slope / sub.predicted_slope).fillna(0.0)
    if (r < 0.1).any():
        status = "not reproduced"
    elif (sub.kappa_at_max >= 1.1).any():
        status = "inconclusive"
    else:
        status = "reproduced" if (r >= AAK_MIN_RATIO[kind]).all() else "not reproduced"
    return Check(
        cid, status=status,
        caveat="kappa is not yet near 1 at the deepest depth computed (correlations not small): deeper needed"
        if status == "inconclusive" else "",
        measured=f"Fitted per-layer slopes of log(kappa - 1) against the predicted "
        f"log({'1 - mu' if kind == 'nngp' else '(1 - mu)/chi'}): "
        + "; ".join(f"{x.activation}: {x.fitted_slope:.3g} vs {x.predicted_slope:.3g} (mu = {x.mu:.3g}, layers "
                    f"{x.fit_range}, kappa = {x.kappa_at_max:.4g} at the deepest layer)" for x in sub.itertuples())
        + f"; fitted / predicted between {r.min():.3f} and {r.max():.3f}.")


def check_relu_uncentred(st: AakDepth) -> Check:
    """[AAK] Thm 3.10: uncentred activations like ReLU send layer correlations to 1, so kappa does not tend to 1.

    Rule: "reproduced" if plain ReLU's largest top-layer correlation at the deepest layer exceeds that at
    L = 1 and its NTK kappa there is above 1.5 (the ReLU limit (n+3)/3 is >= 5/3 for n >= 2, [LH] Thm 4.3);
    "not reproduced" otherwise (also when ReLU is not in the study).

    Args:
        st: the data of :func:`compute_aak_depth`.

    Returns:
        The verdict.
    """
    rr = st.kk[st.kk.activation == "relu"]
    if rr.empty:
        return Check("[AAK] Thm 3.10", status="not checked", measured="ReLU is not among the activations of this run.",
                     caveat="not testable on this data: no uncentred activation in the run")
    return Check(
        "[AAK] Thm 3.10",
        status="reproduced" if rr.max_abs_corr_nngp.iloc[-1] > rr.max_abs_corr_nngp.iloc[1]
        and rr.kappa_ntk.iloc[-1] > 1.5 else "not reproduced",
        measured=f"For plain ReLU the largest top-layer correlation grows from {rr.max_abs_corr_nngp.iloc[1]:.4f} (L=1) to "
        f"{rr.max_abs_corr_nngp.iloc[-1]:.6f} (L={int(rr.depth.iloc[-1])}), the top-layer kappa from "
        f"{rr.kappa_nngp.iloc[1]:.3g} to {rr.kappa_nngp.iloc[-1]:.3g}, and the NTK kappa is {rr.kappa_ntk.iloc[-1]:.3f} "
        f"(limit (n+3)/3 = {_th.relu_condition_number_limit(st.n):.3f}, [LH] Thm 4.3).")


def check_phi_90(st: AakDepth) -> Check:
    """[LH] Fig 2 (phi -> 90 deg): for ReLU^2, GeLU and tanh the gradient angle tends to 90 deg with depth.

    Measurement: for each of these activations in the study, the largest ``|phi - 90 deg|`` over all pairs
    (from the largest ``|off-diagonal|`` of the normalized infinite-width NTK) at the deepest computed layer
    and at the middle of the computed depths. Rule: "reproduced" if every deviation at the deepest layer is
    below 1 deg (the decay is exponential in depth, so 1 deg is reached within the depths computed);
    otherwise "inconclusive" if every deviation above 1 deg at least halved since the middle depth (an
    exponential approach to 90 deg not yet complete: deeper needed), "not reproduced" if one did not (phi
    settles elsewhere, as ReLU's does at arccos(1/4), where the deviation shrinks by a few percent only);
    "not checked" if none of these activations is in the study.

    Args:
        st: the data of :func:`compute_aak_depth`.

    Returns:
        The verdict.
    """
    lh2 = [a for a in st.activations if a in ("relu2", "gelu", "tanh")]
    if not lh2:
        return Check("[LH] Fig 2", status="not checked", part="phi -> 90 deg",
                     measured="None of ReLU^2, GeLU, tanh is among the activations of this run.",
                     caveat="not testable on this data: no activation of Figure 2 in the run")
    kk = st.kk[np.isfinite(st.kk["max_abs_corr_ntk"])]
    end, mid = {}, {}
    for a in lh2:
        s = kk[kk.activation == a].sort_values("depth")
        end[a] = s.iloc[-1]
        mid[a] = s.iloc[len(s) // 2]
    dev90 = {a: math.degrees(math.asin(min(1.0, float(end[a]["max_abs_corr_ntk"])))) for a in lh2}
    dev_mid = {a: math.degrees(math.asin(min(1.0, float(mid[a]["max_abs_corr_ntk"])))) for a in lh2}
    far = [a for a in lh2 if dev90[a] >= 1.0]
    status = "reproduced" if not far else (
        "inconclusive" if all(dev90[a] <= 0.5 * dev_mid[a] for a in far) else "not reproduced")
    end = pd.DataFrame(end).T
    return Check(
        "[LH] Fig 2", status=status, part="phi -> 90 deg",
        caveat="the deviation from 90 deg still shrinks fast at the deepest depth computed" if status == "inconclusive"
        else "",
        measured="Largest |phi - 90 deg| over all pairs of the NTK at the deepest computed layer: " + ", ".join(
            f"{a} {_small(v)} deg (L={int(end.loc[a, 'depth'])}; {_small(dev_mid[a])} deg at L={int(mid[a]['depth'])}; "
            f"kappa of the normalized NTK {end.loc[a, 'kappa_ntk_cos']:.4g}, "
            f"of the normalized top-layer kernel {end.loc[a, 'kappa_nngp_cos']:.4g})" for a, v in dev90.items())
        + (". relu2's variance map q -> q^2 has an unstable fixed point, so rounding errors in the diagonal grow like "
           "2^L: its recursion overflows beyond the depth shown, and its raw NTK has unequal diagonal entries"
           if "relu2" in dev90 else "")
        + ". Uncentred activations keep a correlated top layer (their correlation map has a fixed point rho* > 0), "
        "but their NTK still decorrelates; plain ReLU's stays at cos phi -> 1/4.")


def compute_phi_profile(phi_angles_deg, max_depth: int) -> pd.DataFrame:
    """:func:`phi_depth_profile` for input angles given in degrees ([LH] Thm 3.5).

    Args:
        phi_angles_deg: input angles (degrees).
        max_depth: deepest depth.

    Returns:
        The frame of :func:`phi_depth_profile` (theta_in in radians).
    """
    return phi_depth_profile(np.deg2rad(phi_angles_deg), max_depth)


#: The one-layer lemmas of [LH] App. E checked by :func:`check_lemma_e`, with what each measures.
LEMMAS_E = {
    "E.1": "fraction of rows w with w.x >= 0 and w.z >= 0, against 1/2 - theta/(2 pi)",
    "E.2": "(2/m) <relu(W x), relu(W z)>, against ((pi - theta) cos theta + sin theta)/pi",
    "E.3": "||(2/m) U D_x D_z U^T - ((pi - theta)/pi) I||_2 (D: the ReLU gates of W x, W z; U: s x m)",
}


def one_layer_sweep(angles_deg, widths, seeds: int, d: int = 8, s: int = 4, mean: float = 0.0) -> pd.DataFrame:
    """Deviations of one random ReLU layer from [LH] Lemmas E.1-E.3, per width and seed.

    For unit pairs (x, z) at each angle theta (:func:`lib.data.pairs.angle_pairs`) and W in R^(m x d) with
    i.i.d. N(``mean``, 1) entries (the lemmas: ``mean = 0``; a non-zero mean is the counterfactual of the
    tests), the largest deviation over the angles of each measured quantity of :data:`LEMMAS_E` from its
    infinite-width value (the arc-cosine kernels, the formulas page ``book/formulas.md``, section
    ``formulas-relu``).

    Args:
        angles_deg: input angles (degrees).
        widths: numbers of rows m.
        seeds: draws per width.
        d: input dimension.
        s: rows of U for Lemma E.3.
        mean: mean of the entries of W and U.

    Returns:
        Columns lemma, width, seed, dev.
    """
    t = np.deg2rad(np.asarray(angles_deg, dtype=float))
    X = angle_pairs(t, d, seed=0)
    x, z = X[0::2], X[1::2]
    p_both = 0.5 - t / (2 * math.pi)
    k_relu = ((math.pi - t) * np.cos(t) + np.sin(t)) / math.pi
    rows = []
    for m in widths:
        for seed in range(seeds):
            rng = np.random.default_rng(seed)
            W = rng.standard_normal((m, d)) + mean
            U = rng.standard_normal((s, m)) + mean
            hx, hz = x @ W.T, z @ W.T                      # (k, m)
            gx, gz = hx >= 0, hz >= 0
            e1 = np.abs((gx & gz).mean(axis=1) - p_both).max()
            e2 = np.abs(2 / m * (np.maximum(hx, 0) * np.maximum(hz, 0)).sum(axis=1) - k_relu).max()
            e3 = max(float(np.linalg.norm(2 / m * (U * (gx[i] & gz[i])) @ U.T - (math.pi - t[i]) / math.pi
                                          * np.eye(s), 2)) for i in range(t.size))
            for lemma, dev in (("E.1", e1), ("E.2", e2), ("E.3", e3)):
                rows.append(dict(lemma=lemma, width=int(m), seed=seed, dev=float(dev)))
    return pd.DataFrame(rows)


def plot_one_layer(df: pd.DataFrame) -> Figure:
    """Figure 4.6: deviations of one random ReLU layer from [LH] Lemmas E.1-E.3 against the width, log-log.

    Args:
        df: the output of :func:`one_layer_sweep`.

    Returns:
        A figure with one axis.
    """
    from lib.book.plotting import slope_guide
    fig, axs = figure()
    ax = axs[0, 0]
    for c, (lemma, g) in zip(palette(3), df.groupby("lemma")):
        st = g.groupby("width")["dev"].agg(["mean", "min", "max"])
        ax.fill_between(st.index, st["min"], st["max"], color=c, alpha=0.2)
        ax.loglog(st.index, st["mean"], "o-", color=c, label=f"Lemma {lemma}")
    st = df[df.lemma == "E.1"].groupby("width")["dev"].mean()
    slope_guide(ax, st.index, -0.5, st.iloc[0] * 2, label=r"$\propto m^{-1/2}$")
    ax.set(xlabel="width m", ylabel="largest deviation over the angles", title="[LH] App. E: one random layer")
    ax.legend(fontsize="small")
    return fig


def check_lemma_e(df: pd.DataFrame, lemma: str) -> Check:
    """[LH] Lemma E.1, E.2 or E.3: one random ReLU layer's gate agreement, kernel and gated product at infinite width.

    Measurement: the largest deviation over the input angles of the quantity :data:`LEMMAS_E` names from its
    infinite-width value, for every width and draw (:func:`one_layer_sweep`). Rule:
    :func:`lib.chapters.linear_baseline.width_trend`, the rule of the finite-width checks of chapter 1: the
    extrapolated infinite-width deviation must be zero (finite-width fluctuations are O(1/sqrt(m))); a
    lasting offset (weights with a non-zero mean, for instance) gives "not reproduced".

    Args:
        df: the output of :func:`one_layer_sweep`.
        lemma: ``"E.1"``, ``"E.2"`` or ``"E.3"``.

    Returns:
        The verdict.
    """
    from lib.chapters.linear_baseline import width_trend
    if lemma not in LEMMAS_E:
        raise ValueError(f"lemma must be one of {sorted(LEMMAS_E)}, got {lemma!r}")
    sub = df[df.lemma == lemma]
    t = width_trend(sub, "dev")
    by_width = sub.groupby("width")["dev"].mean()
    return Check(
        f"[LH] Lemma {lemma}", status=t.status,
        caveat={"inconclusive": "one width, or too few draws to estimate the scatter: no width trend to fit",
                "reproduced with caveat": "the deviation shrinks more slowly than 1/sqrt(m), or towards a small "
                "offset"}.get(t.status, ""),
        measured=f"{LEMMAS_E[lemma][0].upper()}{LEMMAS_E[lemma][1:]}: largest deviation (mean over "
        f"{sub.seed.nunique()} draws) " + ", ".join(f"{v:.3g} (m={w})" for w, v in by_width.items())
        + f"; {t.describe()}.")


def compute_lengths(activation: str, n: int, depth: int = 100, norms: tuple[float, float] = (0.5, 2.0)) -> pd.DataFrame:
    """Infinite-width top-layer kernel of inputs of different lengths, layer by layer ([AAK] Thm 3.11).

    ``n`` digits (:func:`lib.data.datasets.load_digits_subset`, seed 1) are scaled to norms evenly spaced in
    ``norms``; :func:`lib.theory.layer_kernels` gives Sigma^(l). With the scale constant c_s of the
    activation, q = 1 is a fixed point of the length map q -> c_s E[s(sqrt(q) z)^2].

    Args:
        activation: activation name of the registry (:mod:`lib.activations`).
        n: number of inputs.
        depth: deepest layer.
        norms: smallest and largest input norm.

    Returns:
        Columns activation, depth (1..``depth``), ``norm_dev`` = max_i ``|Sigma_ii - 1|`` and ``max_corr`` =
        largest ``|off-diagonal|`` of the normalized Sigma.
    """
    X = load_digits_subset(n, seed=1, unit_norm=True) * np.linspace(*norms, n)[:, None]
    lk = _th.layer_kernels(X, depth, activation)
    rows = []
    for l in range(1, depth + 1):
        S = lk.sigma[l]
        d = np.diag(S)
        C = S / np.sqrt(np.outer(d, d))
        rows.append(dict(activation=activation, depth=l, norm_dev=float(np.abs(d - 1).max()),
                         max_corr=float(np.abs(C - np.diag(np.diag(C))).max())))
    return pd.DataFrame(rows)


def check_lengths(df: pd.DataFrame) -> Check:
    """[AAK] Thm 3.11: for an odd, increasing activation concave on [0, inf) (tanh), inputs of any length reach
    the fixed point of the length map, and their correlations shrink.

    Rule: "reproduced" if at the deepest layer every ``|Sigma_ii - 1|`` is below 1e-6 (the fixed point
    attracts at a geometric rate, so tens of layers reach 1e-6, far above rounding) and the largest
    correlation is below its value at layer 1; "inconclusive" if the lengths are converging (the deviation
    at least halved since layer 1) but not yet within 1e-6; "not reproduced" otherwise (ReLU, positively
    homogeneous, keeps every length: the counterfactual of the tests).

    Args:
        df: the output of :func:`compute_lengths`.

    Returns:
        The verdict.
    """
    first, last = df.iloc[0], df.iloc[-1]
    if last.norm_dev < 1e-6 and last.max_corr < first.max_corr:
        status = "reproduced"
    elif last.norm_dev <= 0.5 * first.norm_dev:
        status = "inconclusive"
    else:
        status = "not reproduced"
    return Check(
        "[AAK] Thm 3.11", status=status,
        caveat="the lengths still converge at the deepest layer computed" if status == "inconclusive" else "",
        measured=f"For {first.activation}, inputs of norms 0.5 to 2: max |Sigma_ii - 1| is {first.norm_dev:.3g} at "
        f"L=1 and {_small(last.norm_dev, 1e-12)} at L={int(last.depth)}; the largest correlation goes from {first.max_corr:.3g} to "
        f"{last.max_corr:.3g}.")


def small_angle_embedding(angles=(1e-1, 3e-2, 1e-2, 3e-3, 1e-3), depths=(1, 3, 10),
                          coefficient: float = 1 / 3) -> pd.DataFrame:
    """Remainder of the small-angle expansion of the embedding angles ([LH] Lemma E.6).

    ``|theta^(l) - (theta_in - coefficient l theta_in^2 / pi)| / theta_in^2`` with theta^(l) from the exact
    recursion (:func:`lib.theory.relu_embedding_angles`); the lemma's coefficient is 1/3, for which the
    remainder is o(theta_in^2), i.e. the ratio vanishes as theta_in -> 0 (another coefficient is the
    counterfactual of the tests).

    Args:
        angles: input angles (radians, small).
        depths: layers l.
        coefficient: the coefficient c of the expansion theta_in - c l theta_in^2 / pi.

    Returns:
        Columns depth, theta_in, rel_remainder.
    """
    t = np.asarray(angles, dtype=float)
    E = _th.relu_embedding_angles(t, int(max(depths)))
    return pd.concat([pd.DataFrame(dict(depth=int(l), theta_in=t,
                                        rel_remainder=np.abs(E[:, l] - (t - coefficient * l * t ** 2 / math.pi)) / t ** 2))
                      for l in depths], ignore_index=True)


def check_lemma_e6(df: pd.DataFrame) -> Check:
    """[LH] Lemma E.6: theta^(l) = theta_in - l theta_in^2 / (3 pi) + o(theta_in^2) for small theta_in.

    Measurement: the remainder over theta_in^2 (:func:`small_angle_embedding`) against theta_in, per layer.
    Rule: o(theta_in^2) means the ratio vanishes as theta_in -> 0; the next term of the expansion makes it
    fall like theta_in (log-log slope 1). "reproduced" if every layer's slope is at least 0.5; "not
    reproduced" if some slope is below 0.2 (the ratio tends to a constant: a wrong coefficient, e.g. 1
    instead of 1/3, gives slope ~ 0); "reproduced with caveat" in between.

    Args:
        df: the output of :func:`small_angle_embedding`.

    Returns:
        The verdict.
    """
    slopes = {int(l): fit_rate(g.theta_in, g.rel_remainder, tail=1.0)[0] for l, g in df.groupby("depth")}
    worst = min(slopes.values())
    status = "reproduced" if worst >= 0.5 else "not reproduced" if worst < 0.2 else "reproduced with caveat"
    small = df[df.theta_in == df.theta_in.min()]
    return Check(
        "[LH] Lemma E.6", status=status,
        caveat="the remainder vanishes more slowly than theta_in^3" if status == "reproduced with caveat" else "",
        measured="|theta^(l) - (theta_in - l theta_in^2/(3 pi))| / theta_in^2 against theta_in from "
        f"{df.theta_in.max():g} to {df.theta_in.min():g} rad: log-log slopes "
        + ", ".join(f"{v:.2f} (l={l})" for l, v in slopes.items())
        + " (o(theta_in^2) needs a positive slope; the next term gives 1); at the smallest angle the ratio is "
        + ", ".join(f"{r.rel_remainder:.2g} (l={int(r.depth)})" for r in small.itertuples()) + ".")



# --- paper vs book, rounded tables, the values the prose shows ---------------------------------------------------

def table_paper_vs_book(prof: pd.DataFrame, kap: pd.DataFrame) -> pd.DataFrame:
    """The limits of [LH] Thm 3.5 (phi -> arccos(1/4)) and Thm 4.3 (kappa -> (n+3)/3) beside ours at the deepest depth.

    The paper's values are :data:`PAPER_PHI_LIMIT_DEG` and :func:`paper_kappa_limit`; ours are the
    infinite-width values of :func:`phi_depth_profile` and :func:`relu_kappa_vs_depth` at the deepest
    depth computed, rounded to two decimals (the distance to the limit is what the verdict weighs).

    Args:
        prof: the frame of :func:`phi_depth_profile` (one row per input angle and depth).
        kap: the first frame of :func:`compute_kappa_study`.

    Returns:
        One row per input angle (Thm 3.5) and per (data set, n) (Thm 4.3); columns ``result``, ``case``,
        ``paper``, ``this book``, ``verdict rule``.
    """
    rows = []
    Lp = int(prof.depth.max())
    for t0, g in prof[prof.depth == Lp].groupby("theta_in"):
        rows.append(("[LH] Thm 3.5: gradient angle phi", f"input angle {math.degrees(t0):g} deg",
                     f"{PAPER_PHI_LIMIT_DEG:.2f} deg", f"{DEG * float(g.phi.iloc[0]):.2f} deg at L = {Lp:,}",
                     "reproduced within 1 deg of the limit at the deepest depth; inconclusive if farther but the "
                     "gap still shrinks; not reproduced if it stopped shrinking"))
    Lk = int(kap.depth.max())
    for (data, n), r in kap[kap.depth == Lk].set_index(["data", "n"]).sort_index().iterrows():
        rows.append(("[LH] Thm 4.3: NTK condition number kappa", f"{data}, n = {n}",
                     f"(n+3)/3 = {paper_kappa_limit(int(n)):.2f}", f"{r.kappa:.2f} at L = {Lk:,}",
                     "reproduced within 10% of (n+3)/3 at the deepest depth; inconclusive if farther but "
                     "still approaching; not reproduced otherwise"))
    return pd.DataFrame(rows, columns=["result", "case", "paper", "this book", "verdict rule"]).set_index(["result", "case"])


def table_rates_rounded(rates: pd.DataFrame) -> pd.DataFrame:
    """:func:`table_rates` rounded for reading: slopes and mu to 3 significant digits, kappa to 4 ([AAK] Thm 3.2, 3.4).

    Args:
        rates: the frame of :func:`table_rates`.

    Returns:
        The same columns, rounded (kappa at rounding level shown as 1).
    """
    out = rates.copy()
    for col in ("mu", "chi", "fitted_slope", "predicted_slope"):
        out[col] = out[col].map(lambda v: float(f"{v:.3g}"))
    out["kappa_at_max"] = out["kappa_at_max"].map(lambda v: float(f"{v:.4g}"))
    return out


def _profile_text(profile: str) -> str:
    return profile_text(profile)


def _list(values, unit: str = "") -> str:
    return ", ".join(f"{v:g}" if isinstance(v, float) else f"{v:,}" for v in values) + unit


def glue_values(cfg, lemma_d: int = 8, collapse_d: int = 16) -> dict[str, str]:
    """The values the chapter's prose and figure captions show, as plain text to glue ([LH] App. A, E, Thm 3.5, 4.3; [AAK]).

    Each ``fig4_k`` entry is the line under Figure 4.k: data, n, widths, depths, seeds and profile, and
    how the setting departs from the paper (whose statements here are infinite-width theory, with no
    experiment of their own).

    Args:
        cfg: the validated parameters of the notebook.
        lemma_d: input dimension of :func:`one_layer_sweep`.
        collapse_d: input dimension of :func:`finite_collapse`.

    Returns:
        ``{name: text}``: ``fig4_1`` ... ``fig4_6`` and prose values (``fw_width``, ``max_depth``,
        ``gauss_dim``, ``aak_n``, ``lemma_widths``, ``collapse_angles``).
    """
    prof = _profile_text(cfg.profile)
    theory = "The paper has no experiment for this statement (infinite-width theory); sizes and depths are ours."
    return {
        "fig4_1": f"Setting: infinite width (lib.theory), input angles {_list(cfg.collapse_angles)} deg, layers up to "
                  f"{cfg.collapse_depth:,}; finite width: pairs in d = {collapse_d}, width m = {cfg.fw_width:,}, layers "
                  f"0 to {cfg.fw_collapse_depth}, {cfg.seeds} seeds; {prof}. {theory}",
        "fig4_2": f"Setting: infinite width, input angles {_list(cfg.phi_angles)} deg, depths up to "
                  f"{cfg.max_depth:,}; no data and no seeds (exact recursion); {prof}. {theory}",
        "fig4_3": f"Setting: the first n = {_list(cfg.kappa_ns)} of {max(cfg.kappa_ns)} unit-norm scikit-learn digits (d = 64) and of "
                  f"standard Gaussian points (d = {cfg.gauss_dim}); infinite width up to depth {cfg.kappa_max_depth:,}; "
                  f"finite width m = {cfg.fw_width:,} at depths {_list(cfg.fw_depths)}, {cfg.seeds} seeds; {prof}. "
                  f"{theory}",
        "fig4_4": f"Setting: activations {', '.join(cfg.aak_activations)} (centred ones drawn); exact quadrature, no "
                  f"data and no seeds; {prof}. [AAK] has no experiment for Lemma C.7.",
        "fig4_5": f"Setting: n = {cfg.aak_n} unit-norm scikit-learn digits; activations "
                  f"{', '.join(cfg.aak_activations)}; infinite width up to depth {cfg.aak_max_depth:,}; finite width "
                  f"m = {cfg.fw_width:,} at depths {_list(cfg.aak_fw_depths)}, {cfg.seeds} seeds; {prof}. [AAK] has "
                  "no experiment of this kind; the depths and data are ours.",
        "fig4_6": f"Setting: one random layer, unit pairs in d = {lemma_d} at angles {_list(cfg.collapse_angles)} deg; "
                  f"widths m = {_list(cfg.lemma_widths)}; {cfg.seeds} seeds; {prof}. The paper states Lemmas E.1-E.3 "
                  "without an experiment.",
        "fw_width": f"{cfg.fw_width:,}", "max_depth": f"{cfg.max_depth:,}", "gauss_dim": str(cfg.gauss_dim),
        "aak_n": str(cfg.aak_n), "lemma_widths": _list(cfg.lemma_widths),
        "collapse_angles": _list(cfg.collapse_angles), "phi_angles": _list(cfg.phi_angles),
        "seeds": str(cfg.seeds),
    }
