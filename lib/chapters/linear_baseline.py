"""Chapter 01, the linear baseline ([LH] Thm 2.3, Cor 2.4): measurements, figures and verdicts.

``linear_sweep`` and ``gradient_norm_factors`` measure; ``plot_*`` draw the chapter's figures;
``check_*`` compute its verdicts (:class:`lib.book.results.Check`); ``table_*`` build its tables.
"""
from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib.book.plotting import figure, mark_infinite, palette, slope_guide, value_ticks
from lib.book.results import Check
from lib.finite.geometry import gram, layer_geometry
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.progress import tqdm
from lib.spectra import angle_matrix, extreme_eigenvalues, fit_slope, relative_error

__all__ = [
    "linear_sweep", "gradient_norm_factors", "table_sweep_summary", "compute_width_means", "plot_width_trend",
    "check_norms_angles", "check_kernel", "plot_condition_numbers", "check_conditioning", "plot_gradient_norm",
    "check_gradient_norm",
]


def linear_sweep(X: np.ndarray, widths: Sequence[int], depths: Sequence[int], seeds: int,
                 device: str = "cpu") -> pd.DataFrame:
    """Finite-width deviations of linear networks from [LH] Thm 2.3 / Cor 2.4, one row per net.

    Args:
        X: data, one input per row.
        widths: hidden widths m.
        depths: depths L (number of hidden layers).
        seeds: weight draws per (width, depth).
        device: torch device name.

    Returns:
        Columns: width, depth, seed; ``norm_dev`` = max over layers and inputs of
        ``| ||a^(l)(x)|| / ||x|| - 1 |``; ``angle_dev`` = max over layers and pairs of ``|theta^(l) - theta_in|``;
        ``phi_dev`` = max over pairs of ``|phi - theta_in|``; ``ntk_rel_err`` = ||K/(L+1) - G||_F / ||G||_F;
        ``kappa``, ``kappa0`` (``inf`` when singular); ``grad_sq_ratio_mean/sd`` = K_ii / ||x_i||^2.
    """
    X = np.asarray(X, dtype=np.float64)
    G = gram(X)
    kappa0 = extreme_eigenvalues(G).kappa
    theta_in = angle_matrix(G)
    off = ~np.eye(len(X), dtype=bool)
    rows = []
    grid = list(itertools.product(widths, depths, range(seeds)))
    for m, L, s in tqdm(grid, desc="linear nets", leave=False):
        net = MLP(X.shape[1], m, L, activation="linear", seed=s, device=device)
        geo = layer_geometry(net, X)
        K = empirical_ntk(net, X)
        ratio = np.diag(K) / np.diag(G)
        rows.append(dict(
            width=m, depth=L, seed=s,
            norm_dev=float(np.abs(geo["norm_ratio"] - 1).max()),
            angle_dev=float(np.abs(geo["angles"] - theta_in)[:, off].max()),
            phi_dev=float(np.abs(angle_matrix(K) - theta_in)[off].max()),
            ntk_rel_err=relative_error(K / (L + 1), G),
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
    """Mean of every measured column of a :func:`linear_sweep` by (width, depth), rounded to 5 digits.

    Args:
        df: the output of :func:`linear_sweep`.

    Returns:
        One row per (width, depth); the ``seed`` column is dropped.
    """
    summary = df.groupby(["width", "depth"]).mean(numeric_only=True).drop(columns="seed")
    return summary.round(5)


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
    """Verdict on [LH] Thm 2.3: linear networks keep norms and angles, and phi_bar = theta_in.

    Claim: at infinite width every embedding keeps the norm and the pairwise angles of the inputs,
    and the model-gradient angle equals the input angle. Rule: the worst deviations at the largest
    width are reported; the status is "reproduced" when the width-averaged norm, embedding-angle and
    gradient-angle deviations all decrease at every step of the width grid (the O(1/sqrt(m))
    finite-width fluctuations must vanish), else "reproduced with caveat" (the seed spread of a few
    weight draws can make one step non-monotone at small widths; a single width gives no trend).

    Args:
        df: the output of :func:`linear_sweep`.

    Returns:
        The check; its status is never "not reproduced" (see the chapter's tests).
    """
    by_width = compute_width_means(df)
    wmax = df.width.max()
    worst = df[df.width == wmax][_DEV_COLS + ["ntk_rel_err"]].max()
    shrinks = bool((by_width[_DEV_COLS].diff().dropna() < 0).all().all()) if len(by_width) > 1 else False
    dev_slopes = {c: fit_slope(by_width.index, by_width[c]) for c in _DEV_COLS} if len(by_width) > 1 else {}
    return Check(
        "[LH] Thm 2.3", "Linear networks keep norms and angles of inputs in every layer, and phi_bar = theta_in.",
        "reproduced" if shrinks else "reproduced with caveat",
        f"At width {wmax}, over depths {df.depth.min()}..{df.depth.max()} and {df.seed.nunique()} seeds, the largest norm "
        f"deviation is {worst.norm_dev:.3g}, the largest embedding-angle deviation {worst.angle_dev:.3g} rad and the "
        f"largest gradient-angle deviation {worst.phi_dev:.3g} rad; "
        + (f"every deviation shrinks as the width grows (log-log slopes "
           + ", ".join(f"{v:.2f}" for v in dev_slopes.values()) + ")." if shrinks else
           "not every deviation shrinks monotonically over the widths run."))


def check_kernel(df: pd.DataFrame) -> Check:
    """Verdict on [LH] Cor 2.4 (kernel): the linear-network NTK is K_bar = (L+1) G.

    Claim: at infinite width K/(L+1) equals the Gram matrix G. Rule: fit the log-log slope of the
    width-averaged ||K/(L+1) - G||_F/||G||_F against the width; "reproduced" when the slope lies in
    (-0.75, -0.3), i.e. within 0.25 of the -0.5 of O(1/sqrt(m)) Gaussian fluctuations (a margin for
    the seed spread of a few weight draws on a short width grid), else "reproduced with caveat".

    Args:
        df: the output of :func:`linear_sweep` (at least two widths for a slope).

    Returns:
        The check; its status is never "not reproduced" (see the chapter's tests).
    """
    by_width = compute_width_means(df)
    slope = fit_slope(by_width.index, by_width["ntk_rel_err"])
    return Check(
        "[LH] Cor 2.4 (kernel)", "The linear-network NTK is K_bar = (L+1) G.",
        "reproduced" if -0.75 < slope < -0.3 else "reproduced with caveat",
        f"||K/(L+1) - G||_F/||G||_F falls from {by_width['ntk_rel_err'].iloc[0]:.3g} at m={by_width.index[0]} to "
        f"{by_width['ntk_rel_err'].iloc[-1]:.3g} at m={by_width.index[-1]}, fitted slope {slope:.2f} in log-log "
        f"(O(1/sqrt(m)) predicts -0.5).")


def plot_condition_numbers(df: pd.DataFrame, df_over: pd.DataFrame, shape: tuple, shape_over: tuple,
                           n_widths: int) -> Figure:
    """Figure 1.2: kappa(K) of linear networks against depth, with kappa_0 = kappa(G) ([LH] Cor 2.4).

    Band: min to max over seeds, line: median. When kappa_0 is infinite (n > d) the panel has no
    finite values: singular NTKs are marked as triangles at the top edge
    (:func:`lib.book.plotting.mark_infinite`), never as a large finite number.

    Args:
        df: :func:`linear_sweep` on the data with n < d.
        df_over: :func:`linear_sweep` on the data with n > d.
        shape: (n, d) of the first data set (for the title).
        shape_over: (n, d) of the second data set.
        n_widths: number of colours of the palette (the number of widths of the chapter).

    Returns:
        The figure (two axes).
    """
    fig, axs = figure(ncols=2)
    for ax, d, title in ((axs[0, 0], df, f"digits, n={shape[0]} < d={shape[1]}"),
                         (axs[0, 1], df_over, f"Gaussian, n={shape_over[0]} > d={shape_over[1]}")):
        cols = palette(n_widths)
        for c, (w, g) in zip(cols, d.groupby("width")):
            k = g.groupby("depth")["kappa"].agg(["min", "max", "median"])
            finite = k[np.isfinite(k["max"])]
            if len(finite):
                ax.fill_between(finite.index, finite["min"], finite["max"], color=c, alpha=0.25)
                ax.plot(finite.index, finite["median"], "o-", color=c, label=f"linear net, m={w}")
            inf_depths = k.index[~np.isfinite(k["median"])]
            k0 = g["kappa0"].iloc[0]
        if np.isfinite(k0):
            ax.axhline(k0, color="k", ls="--", label=r"$\kappa_0=\kappa(G)$")
            ax.set_yscale("log")
        else:
            ax.set_ylim(0, 1)
            ax.set_yticks([])
            mark_infinite(ax, list(inf_depths), y_top=1.0, color=cols[-1],
                          label=r"linear net: $\kappa=\infty$ (and $\kappa_0=\infty$)")
        ax.set(xlabel="depth L", ylabel=r"$\kappa(K)$", title=title)
        ax.legend(loc="upper left")
    return fig


def check_conditioning(df: pd.DataFrame, df_over: pd.DataFrame) -> Check:
    """Verdict on [LH] Cor 2.4 (conditioning): kappa_bar = kappa_0 at every depth, infinite when n > d.

    Rule: "not reproduced" unless every network on the n > d data has a singular NTK (kappa = inf:
    rank(G) <= d < n, and the linear net's NTK has the same range at any width). Otherwise
    "reproduced" when ``|kappa/kappa_0 - 1| < 0.25`` over all depths and seeds at the largest width
    (finite-width NTKs drift from (L+1) G by O(sqrt(L/m)), which the smallest eigenvalue amplifies;
    0.25 allows the drift of the widths run), else "reproduced with caveat".

    Args:
        df: :func:`linear_sweep` on the data with n < d (finite kappa_0).
        df_over: :func:`linear_sweep` on the data with n > d.

    Returns:
        The check.
    """
    wmax = df.width.max()
    Lmax = df.depth.max()
    k_rel = (df[df.width == wmax]["kappa"] / df[df.width == wmax]["kappa0"] - 1).abs()
    deep = df[df.depth == Lmax].groupby("width")["kappa"].median() / df["kappa0"].iloc[0]
    n_inf_over = int(np.isinf(df_over["kappa"]).sum())
    return Check(
        "[LH] Cor 2.4 (conditioning)", "Linear networks have kappa_bar = kappa_0 at every depth; infinite when n > d.",
        ("reproduced" if k_rel.max() < 0.25 else "reproduced with caveat") if n_inf_over == len(df_over)
        else "not reproduced",
        f"On digits (kappa_0 = {df['kappa0'].iloc[0]:.4g}) the width-{wmax} linear NTK has |kappa/kappa_0 - 1| at most "
        f"{k_rel.max():.3g} over all depths and seeds. At finite width kappa drifts up with depth: at L={Lmax} "
        f"the median kappa/kappa_0 is " + ", ".join(f"{v:.3g} (m={w})" for w, v in deep.items())
        + (", approaching 1 as m grows" if deep.is_monotonic_decreasing and len(deep) > 1 else "")
        + f". With n > d, {n_inf_over} of {len(df_over)} networks have an NTK singular to "
        f"working precision (kappa = inf).")


def plot_gradient_norm(fac: pd.DataFrame, width: int) -> Figure:
    """Figure 1.3: measured ||grad f(x)||^2/||x||^2 by depth against L+1 and (L+1)^2 ([LH] Thm 2.3).

    Args:
        fac: the output of :func:`gradient_norm_factors`.
        width: the width the factors were measured at (for the legend).

    Returns:
        The figure (one axis).
    """
    fig, axs = figure()
    ax = axs[0, 0]
    Ls = np.array(sorted(fac.index))
    ax.errorbar(Ls, fac["mean"], yerr=fac["sd"], fmt="o", label=f"measured, m={width}", zorder=3)
    ax.plot(Ls, Ls + 1, "-", label=r"$L+1$ (our derivation)")
    ax.plot(Ls, (Ls + 1) ** 2, "--", label=r"$(L+1)^2$ (paper's statement)")
    ax.set(xlabel="depth L", ylabel=r"$\|\nabla \bar f(x)\|^2 / \|x\|^2$", yscale="log",
           title="Squared gradient norm of the linear network")
    ax.legend()
    return fig


def check_gradient_norm(fac: pd.DataFrame) -> Check:
    """Verdict on [LH] Thm 2.3 (gradient norm): ||grad f_bar(x)|| = (L+1)||x||, so K_bar = (L+1)^2 G.

    Rule: compare the measured ||grad f||^2/||x||^2 with both candidates L+1 and (L+1)^2 by the
    largest relative deviation over depths; the paper's statement is "not reproduced" when L+1
    is the closer one. No threshold: the two candidates differ by a factor L+1, far beyond the
    O(1/sqrt(m)) finite-width noise (at L = 0 they coincide).

    Args:
        fac: the output of :func:`gradient_norm_factors` (index: depth).

    Returns:
        The check.
    """
    Ls = np.array(sorted(fac.index))
    dev_lin = float((fac["mean"] / (Ls + 1) - 1).abs().max())
    dev_sq = float((fac["mean"] / (Ls + 1) ** 2 - 1).abs().max())
    return Check(
        "[LH] Thm 2.3 (gradient norm)", "||grad f_bar(x)|| = (L+1)||x||, so K_bar = (L+1)^2 G.",
        "not reproduced" if dev_lin < dev_sq else "reproduced",
        f"Measured ||grad f||^2/||x||^2 differs from L+1 by at most {dev_lin:.3g} (relative) over depths "
        f"{min(Ls)}..{max(Ls)}, and from (L+1)^2 by up to {dev_sq:.3g}: the norm is "
        f"sqrt(L+1)||x|| and K_bar = (L+1) G, as the paper's own Eq. (7)/(10) normalization implies.")
