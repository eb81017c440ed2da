"""Chapter 01, the linear baseline ([LH] Thm 2.3, Cor 2.4, Lemma D.1): measurements, figures and verdicts.

``load_data`` loads and validates the chapter's two data sets; ``linear_sweep``, ``gradient_norm_factors``
and ``lemma_d1_sweep`` measure; ``plot_*`` draw the chapter's figures; ``check_*`` compute its verdicts
(:class:`lib.book.results.Check`, against the ids of :data:`lib.book.claims.CLAIMS`); ``table_*``
build its tables.

Every check can fail. The statements are about infinite width, so each check measures at several
finite widths and asks whether the deviation from the statement vanishes as the width grows: the
finite-width deviations of a correct statement are fluctuations of size O(1/sqrt(m)), so the
extrapolated infinite-width deviation is zero (:func:`width_trend` gives the rule and its
thresholds). Factors are checked by their exponent in L+1 (:func:`check_kernel_factor`).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib import theory as _th
from lib.book.params import ParameterError
from lib.data.pairs import angle_pairs
from lib.book.plotting import figure, mark_infinite, palette, slope_guide, value_ticks
from lib.book.results import Check
from lib.data.datasets import gaussian_data, load_digits_subset
from lib.finite.geometry import gram, layer_geometry
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.progress import tqdm
from lib.spectra import angle_matrix, extreme_eigenvalues, fit_slope, relative_error
from lib.book.provenance import profile_text
from lib.chapters.linear_baseline.trend import (  # noqa: F401 (re-exported)
    _CAVEATS, SLOPE_VANISHING, WidthTrend, _depth_zero_check, width_trend)
from lib.chapters.linear_baseline.factors import EXPONENT_TOL, _exponent  # noqa: F401

__all__ = [
    "SLOPE_VANISHING", "linear_sweep", "gradient_norm_factors",
    "table_sweep_summary", "compute_width_means", "WidthTrend", "width_trend", "plot_width_trend",
    "check_norms_angles", "check_kernel", "PAPER_SEC2", "table_paper_vs_book", "glue_values",
]


#: What [LH] Sec. 2 (Thm 2.3, Cor 2.4) states for a linear network at infinite width, in the paper's own
#: numbers: norms and angles kept, the NTK (L+1)^2 G (exponent 2 of L+1, as the gradient norm (L+1)||x||),
#: kappa_bar = kappa_0. The paper has no experiment of its own for Sec. 2.
PAPER_SEC2 = {"norm_ratio": 1.0, "angle_dev_deg": 0.0, "phi_dev_deg": 0.0, "ntk_exponent": 2.0,
              "grad_exponent": 2.0, "kappa_ratio": 1.0}


def linear_sweep(X: np.ndarray, widths: Sequence[int], depths: Sequence[int], seeds: int,
                 device: str = "cpu", activation: str = "linear") -> pd.DataFrame:
    """Finite-width deviations of linear networks from [LH] Thm 2.3 / Cor 2.4, one row per net.

    Args:
        X: data, one input per row.
        widths: hidden widths m.
        depths: depths L (number of hidden layers).
        seeds: weight draws per (width, depth).
        device: torch device name.
        activation: ``"linear"`` (the chapter); another activation of :mod:`lib.activations` measures the
            same quantities for a non-linear network (the counterfactual of the chapter's tests).

    Returns:
        Columns: width, depth, seed; ``norm_dev`` = max over layers and inputs of
        ``| ||a^(l)(x)|| / ||x|| - 1 |``; ``angle_dev`` = max over layers and pairs of ``|theta^(l) - theta_in|``;
        ``phi_dev`` = max over pairs of ``|phi - theta_in|``; ``ntk_rel_err`` = ||K/(L+1) - G||_F / ||G||_F;
        ``ntk_factor`` = <K, G>_F / <G, G>_F (the least-squares c of K ~ c G) and ``ntk_shape_err`` =
        ||K/c - G||_F / ||G||_F; ``kappa``, ``kappa0`` (``inf`` when singular);
        ``grad_sq_ratio_mean/sd`` = K_ii / ||x_i||^2.
    """
    X = np.asarray(X, dtype=np.float64)
    G = gram(X)
    kappa0 = extreme_eigenvalues(G).kappa
    theta_in = angle_matrix(G)
    off = ~np.eye(len(X), dtype=bool)
    rows = []
    grid = list(itertools.product(widths, depths, range(seeds)))
    for m, L, s in tqdm(grid, desc="linear nets", leave=False):
        net = MLP(X.shape[1], m, L, activation=activation, seed=s, device=device)
        geo = layer_geometry(net, X)
        K = empirical_ntk(net, X)
        ratio = np.diag(K) / np.diag(G)
        c = float(np.sum(K * G) / np.sum(G * G))
        rows.append(dict(
            width=m, depth=L, seed=s,
            norm_dev=float(np.abs(geo["norm_ratio"] - 1).max()),
            angle_dev=float(np.abs(geo["angles"] - theta_in)[:, off].max()),
            phi_dev=float(np.abs(angle_matrix(K) - theta_in)[off].max()),
            norm_dev_mean=float(np.abs(geo["norm_ratio"][1:] - 1).mean()) if L else 0.0,
            angle_dev_mean=float(np.abs(geo["angles"][1:] - theta_in)[:, off].mean()) if L else 0.0,
            phi_dev_mean=float(np.abs(angle_matrix(K) - theta_in)[off].mean()),
            ntk_rel_err=relative_error(K / (L + 1), G), ntk_factor=c, ntk_shape_err=relative_error(K / c, G),
            kappa=extreme_eigenvalues(K).kappa, kappa0=kappa0,
            grad_sq_ratio_mean=float(ratio.mean()), grad_sq_ratio_sd=float(ratio.std()),
        ))
    return pd.DataFrame(rows)


def gradient_norm_factors(df: pd.DataFrame) -> pd.DataFrame:
    """Mean and sd of ||grad f(x)||^2 / ||x||^2 by depth at the largest width of a :func:`linear_sweep`.

    [LH] Thm 2.3 states the gradient norm; the squared norm over ||x||^2 is K_xx / ||x||^2.

    Args:
        df: the output of :func:`linear_sweep`.

    Returns:
        Index depth; columns ``mean`` and ``sd`` (over inputs and seeds).
    """
    sub = df[df.width == df.width.max()]
    g = sub.groupby("depth")
    out = pd.DataFrame({"mean": g["grad_sq_ratio_mean"].mean()})
    # total variance = mean within-net variance + variance of the per-net means
    out["sd"] = np.sqrt(g["grad_sq_ratio_sd"].apply(lambda s: float((s ** 2).mean()))
                        + g["grad_sq_ratio_mean"].var(ddof=0).fillna(0))
    return out


def table_sweep_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Mean of every measured column of a :func:`linear_sweep` by (width, depth), to 3 significant digits.

    Args:
        df: the output of :func:`linear_sweep`.

    Returns:
        One row per (width, depth); the ``seed`` column is dropped.
    """
    summary = df.groupby(["width", "depth"]).mean(numeric_only=True).drop(columns="seed")
    return summary.apply(lambda col: col.map(lambda v: float(f"{v:.3g}")))


def compute_width_means(df: pd.DataFrame) -> pd.DataFrame:
    """Mean over depths and seeds of every column of a :func:`linear_sweep`, indexed by width ([LH] Thm 2.3).

    Args:
        df: the output of :func:`linear_sweep`.

    Returns:
        One row per width (sorted), columns as in ``df``.
    """
    return df.groupby("width").mean(numeric_only=True)


_DEV_LABELS = {"norm_dev": r"max$_l$ $|\,\|a^{(l)}\|/\|x\| - 1|$",
               "angle_dev": r"max$_l$ $|\theta^{(l)}-\theta_{in}|$ (rad)",
               "phi_dev": r"max $|\phi-\theta_{in}|$ (rad)", "ntk_rel_err": r"$\|K/(L{+}1) - G\|_F/\|G\|_F$"}
_DEV_COLS = ["norm_dev", "angle_dev", "phi_dev"]


def plot_width_trend(df: pd.DataFrame) -> Figure:
    """Figure 1.1: finite-width deviations against width, and the NTK error by depth ([LH] Thm 2.3, Cor 2.4).

    Left: every deviation of :func:`linear_sweep` (mean over depths and seeds) against the width on
    log-log axes with an m^(-1/2) guide. Right: ||K/(L+1) - G||_F/||G||_F by depth at the largest width
    (mean and standard deviation over seeds).

    Args:
        df: the output of :func:`linear_sweep`.

    Returns:
        The figure (two axes).
    """
    by_width = compute_width_means(df)
    fig, axs = figure(ncols=2)
    ax = axs[0, 0]
    for key, lab in _DEV_LABELS.items():
        ax.loglog(by_width.index, by_width[key], "o-", label=lab)
    slope_guide(ax, by_width.index, -0.5, by_width["ntk_rel_err"].iloc[0] * 1.6, label=r"$\propto m^{-1/2}$")
    ax.set(xlabel="width m", ylabel="deviation from infinite-width value", title="Linear network: finite-width error")
    value_ticks(ax, by_width.index)
    ax.legend()
    ax = axs[0, 1]
    wmax = df.width.max()
    sub = df[df.width == wmax].groupby("depth").agg(mean=("ntk_rel_err", "mean"), sd=("ntk_rel_err", "std"))
    ax.errorbar(sub.index, sub["mean"], yerr=sub["sd"].fillna(0), fmt="o-", capsize=3)
    ax.set(xlabel="depth L", ylabel=r"$\|K/(L{+}1) - G\|_F/\|G\|_F$", title=f"NTK vs (L+1) G at width {wmax}")
    return fig


def check_norms_angles(df: pd.DataFrame) -> Check:
    """Verdict on [LH] Thm 2.3 (norms and angles): a linear network keeps norms and angles, and phi_bar = theta_in.

    Measurement: for every network, the mean over depths L >= 1 of the largest norm deviation,
    embedding-angle deviation and gradient-angle deviation (:func:`linear_sweep`). Rule: each goes
    through :func:`width_trend` (is its extrapolated infinite-width value zero?); the worst of the three
    verdicts is the check's ("not reproduced" when one deviation does not vanish: a ReLU network's
    gradient angles, for instance, stay O(1) away from theta_in); "not checked" without a hidden layer
    (depth 0 has no embedding).

    Args:
        df: the output of :func:`linear_sweep`.

    Returns:
        The check.
    """
    deep = df[df.depth >= 1]
    if deep.empty:
        return _depth_zero_check("[LH] Thm 2.3", "norms and angles", "depth 0 has no hidden layer")
    per_seed = deep.groupby(["width", "seed"], as_index=False)[_DEV_COLS].mean()
    verdicts = {c: width_trend(per_seed, c) for c in _DEV_COLS}
    statuses = [v.status for v in verdicts.values()]
    status = next(s for s in ("not reproduced", "inconclusive", "reproduced with caveat", "reproduced") if s in statuses)
    wmax = df.width.max()
    worst = deep[deep.width == wmax][_DEV_COLS].max()
    names = {"norm_dev": "norm", "angle_dev": "embedding-angle", "phi_dev": "gradient-angle"}
    trends = "; ".join(f"{names[c]}: {v.describe()}" for c, v in verdicts.items())
    return Check(
        "[LH] Thm 2.3", status=status, part="norms and angles", caveat=_CAVEATS.get(status, ""),
        measured=f"At width {wmax}, over depths 1..{deep.depth.max()} and {df.seed.nunique()} seeds, the largest norm "
        f"deviation is {worst.norm_dev:.3g}, the largest embedding-angle deviation {worst.angle_dev:.3g} rad and the "
        f"largest gradient-angle deviation {worst.phi_dev:.3g} rad. Per deviation (mean over depths and seeds): "
        f"{trends}.")


def check_kernel(df: pd.DataFrame) -> Check:
    """Verdict on [LH] Cor 2.4 (proportionality): the linear-network NTK is a multiple of the Gram matrix G.

    Measurement: ||K/c - G||_F/||G||_F with c the least-squares factor (``ntk_shape_err`` of
    :func:`linear_sweep`), averaged over depths L >= 1 for every network. Rule: :func:`width_trend`
    (its infinite-width limit must be zero; a ReLU network's NTK, which is not a multiple of G, keeps an
    O(1) error: "not reproduced"). The factor itself is :func:`check_kernel_factor`.

    Args:
        df: the output of :func:`linear_sweep`.

    Returns:
        The check.
    """
    deep = df[df.depth >= 1]
    if deep.empty:
        return _depth_zero_check("[LH] Cor 2.4", "K proportional to G", "at depth 0 the NTK is G exactly")
    per_seed = deep.groupby(["width", "seed"], as_index=False)["ntk_shape_err"].mean()
    t = width_trend(per_seed, "ntk_shape_err")
    by_width = per_seed.groupby("width")["ntk_shape_err"].mean()
    return Check(
        "[LH] Cor 2.4", status=t.status, part="K proportional to G", caveat=_CAVEATS.get(t.status, ""),
        measured="||K/c - G||_F/||G||_F (c fitted; mean over depths L >= 1 and seeds) is "
        + ", ".join(f"{v:.3g} (m={w})" for w, v in by_width.items()) + f"; {t.describe()}.")


# --------------------------------------------------------------------------- paper vs book, figure settings

def table_paper_vs_book(df: pd.DataFrame, fac: pd.DataFrame) -> pd.DataFrame:
    """[LH] Sec. 2 (Thm 2.3, Cor 2.4) beside this book's measurement at the largest width.

    The paper's values are :data:`PAPER_SEC2`; ours come from :func:`linear_sweep` (mean over depths
    and seeds at the largest width; kappa at the deepest depth) and :func:`gradient_norm_factors`
    (exponents fitted as in :func:`check_kernel_factor`). Numbers are rounded to what the seed scatter
    supports (two or three significant digits).

    Args:
        df: the output of :func:`linear_sweep` (data with a finite kappa_0).
        fac: the output of :func:`gradient_norm_factors` of the same sweep.

    Returns:
        One row per statement; columns ``statement``, ``paper ([LH] Sec. 2)``, ``this book``,
        ``verdict rule``.
    """
    wmax = int(df.width.max())
    sub = df[df.width == wmax]
    Lmax = int(sub.depth.max())
    deep_fac = sub[sub.depth >= 1].groupby("depth")["ntk_factor"].median()
    deep_grad = fac["mean"][fac.index >= 1]
    p_ntk = _exponent(deep_fac.index.to_numpy(), deep_fac.to_numpy()) if len(deep_fac) else float("nan")
    p_grad = _exponent(deep_grad.index.to_numpy(), deep_grad.to_numpy()) if len(deep_grad) else float("nan")
    kap = float((sub[sub.depth == Lmax]["kappa"] / sub[sub.depth == Lmax]["kappa0"]).median())
    here = f"(m = {wmax})"
    rows = [
        ("embedding norm ||a^(l)(x)|| / ||x||, every layer", f"{PAPER_SEC2['norm_ratio']:g}",
         f"1 ± {sub.norm_dev.mean():.2g} {here}",
         "the deviation from 1 must fall with the width and extrapolate to 0"),
        ("embedding angle minus input angle (deg)", f"{PAPER_SEC2['angle_dev_deg']:g}",
         f"{np.degrees(sub.angle_dev.mean()):.2g} {here}", "must fall with the width and extrapolate to 0"),
        ("gradient angle minus input angle (deg)", f"{PAPER_SEC2['phi_dev_deg']:g}",
         f"{np.degrees(sub.phi_dev.mean()):.2g} {here}", "must fall with the width and extrapolate to 0"),
        ("exponent p of the NTK factor, K = (L+1)^p G", f"{PAPER_SEC2['ntk_exponent']:g}",
         f"{p_ntk:.2f} {here}", f"agreement when |p - 2| < {EXPONENT_TOL:g}; contradiction when |p - 2| >= "
         f"{2 * EXPONENT_TOL:g}"),
        ("exponent p of the squared gradient norm, (L+1)^p ||x||^2", f"{PAPER_SEC2['grad_exponent']:g}",
         f"{p_grad:.2f} {here}", "as the row above"),
        (f"kappa(K) / kappa_0 at depth L = {Lmax}", f"{PAPER_SEC2['kappa_ratio']:g}",
         f"{kap:.3g} {here}", "|kappa/kappa_0 - 1| must fall with the width and extrapolate to 0"),
    ]
    return pd.DataFrame(rows, columns=["statement", "paper ([LH] Sec. 2)", "this book", "verdict rule"]).set_index("statement")


def _profile_text(profile: str) -> str:
    return profile_text(profile)


def _ints(values) -> str:
    vals = [int(v) for v in values]
    if len(vals) > 3 and vals == list(range(vals[0], vals[-1] + 1)):
        return f"{vals[0]} to {vals[-1]}"
    return ", ".join(str(v) for v in vals)


def glue_values(cfg, d: int = 64, distance_d: int = 16) -> dict[str, str]:
    """The values the chapter's prose and figure captions show, as plain text to glue ([LH] Sec. 2).

    Each ``fig1_k`` entry is the line under Figure 1.k: data set(s), n, width(s), depths, seeds and
    profile that produced it, and how it departs from the paper (which has no experiment for Sec. 2).

    Args:
        cfg: the validated parameters of the notebook (``profile``, ``widths``, ``depths``, ``seeds``,
            ``n_samples``, ``n_over``, ``d_over``, ``distance_angles``, ``distance_seeds``).
        d: the digits' dimension.
        distance_d: the input dimension of the pairs of :func:`distance_sweep`.

    Returns:
        ``{name: text}``: ``fig1_1`` ... ``fig1_5`` and the prose values ``d_over``, ``n_samples``,
        ``distance_angles``, ``distance_seeds``, ``max_width``.
    """
    prof = _profile_text(cfg.profile)
    widths = ", ".join(str(w) for w in cfg.widths)
    wmax = max(cfg.widths)
    deps = _ints(cfg.depths)
    digits = f"{cfg.n_samples} scikit-learn digits (d = {d}, unit norm)"
    theory = "The paper has no experiment for Sec. 2 (an infinite-width statement); the widths are ours."
    angles = ", ".join(f"{a:g}" for a in cfg.distance_angles)
    return {
        "fig1_1": f"Setting: {digits}; linear networks of widths m = {widths}; depths L = {deps}; "
                  f"{cfg.seeds} seeds per (m, L); {prof}. {theory}",
        "fig1_2": f"Setting: left, {digits}, widths m = {widths}; right, {cfg.n_over} standard Gaussian points in "
                  f"d = {cfg.d_over} dimensions, width m = {wmax}; depths L = {deps}; {cfg.seeds} seeds; {prof}. "
                  f"{theory}",
        "fig1_3": f"Setting: {digits}; width m = {wmax}; depths L = {deps}; {cfg.seeds} seeds; {prof}. {theory}",
        "fig1_4": f"Setting: Gaussian matrices A of size m x {d} with m = {widths}; {cfg.seeds} seeds; {prof}. "
                  "The paper states Lemma D.1 without an experiment.",
        "fig1_5": f"Setting: unit input pairs in d = {distance_d} at angles {angles} deg; ReLU networks of width "
                  f"m = {wmax}; depths L = {deps}; {cfg.distance_seeds} seeds; {prof}. The paper states Remark 3.4 "
                  "without an experiment.",
        "d_over": str(cfg.d_over), "n_over": str(cfg.n_over), "n_samples": str(cfg.n_samples),
        "distance_angles": angles, "distance_seeds": str(cfg.distance_seeds), "max_width": str(wmax),
    }
