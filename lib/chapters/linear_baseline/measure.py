"""The linear-network sweep of chapter 01 and its summaries ([LH] Thm 2.3, Cor 2.4).

:func:`lib.chapters.linear_baseline.measure.measure_linear` measures, for every (width, depth, seed),
how far a finite-width network is from the infinite-width statements of [LH] Sec. 2 (norms, angles,
NTK shape and factor, condition number, gradient norm);
:func:`lib.chapters.linear_baseline.measure.gradient_norm_factors`,
:func:`lib.chapters.linear_baseline.measure.width_means` and
:func:`lib.chapters.linear_baseline.measure.table_sweep_summary` summarize it for the figures, checks
and tables of the other modules.
"""
from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np
import pandas as pd

from lib.book.spec import reads_config
from lib.book.wording import ints
from lib.finite.geometry import gram, layer_geometry
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.progress import tqdm
from lib.spectra import angle_matrix, extreme_eigenvalues, relative_error

__all__ = ["measure_linear", "measure_linear_over", "gradient_norm_factors", "table_sweep_summary", "width_means", "NO_EXPERIMENT",
           "digits_text", "sweep_setting"]


@reads_config(widths="widths", depths="depths", seeds="seeds", device="device")
def measure_linear(X: np.ndarray, widths: Sequence[int], depths: Sequence[int], seeds: int,
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
        Columns: width, depth, seed, ``n`` and ``d`` (the data's shape, so the frame carries its setting);
        ``norm_dev`` = max over layers and inputs of
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
            width=m, depth=L, seed=s, n=X.shape[0], d=X.shape[1],
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


def measure_linear_over(cfg, X_over: np.ndarray) -> pd.DataFrame:
    """:func:`measure_linear` on the n > d set (``X_over``, :func:`~lib.chapters.linear_baseline.data.load_data`) at the
    widest width of ``cfg.widths`` only: [LH] Cor 2.4's conditioning where kappa_0 is infinite (Figure 1.2)."""
    return measure_linear(cfg, X_over, widths=[max(cfg.widths)])


def gradient_norm_factors(df: pd.DataFrame) -> pd.DataFrame:
    """Mean and sd of ||grad f(x)||^2 / ||x||^2 by depth at the largest width of a linear sweep ([LH] Thm 2.3).

    The sweep is :func:`~lib.chapters.linear_baseline.measure.measure_linear`. [LH] Thm 2.3 states the gradient
    norm; the squared norm over ||x||^2 is K_xx / ||x||^2.

    Args:
        df: the output of :func:`~lib.chapters.linear_baseline.measure.measure_linear`.

    Returns:
        Index depth; columns ``mean`` and ``sd`` (over inputs and seeds), ``width`` (the width they were
        measured at) and ``seeds``.
    """
    sub = df[df.width == df.width.max()]
    g = sub.groupby("depth")
    out = pd.DataFrame({"mean": g["grad_sq_ratio_mean"].mean()})
    # total variance = mean within-net variance + variance of the per-net means
    out["sd"] = np.sqrt(g["grad_sq_ratio_sd"].apply(lambda s: float((s ** 2).mean()))
                        + g["grad_sq_ratio_mean"].var(ddof=0).fillna(0))
    out["width"] = int(df.width.max())
    out["seeds"] = int(df.seed.nunique())
    return out


def table_sweep_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Mean of every measured column of a linear sweep by (width, depth), to 3 significant digits ([LH] Sec. 2).

    The sweep is :func:`~lib.chapters.linear_baseline.measure.measure_linear`.

    Args:
        df: the output of :func:`~lib.chapters.linear_baseline.measure.measure_linear`.

    Returns:
        One row per (width, depth); the ``seed`` column is dropped.
    """
    summary = df.groupby(["width", "depth"]).mean(numeric_only=True).drop(columns=["seed", "n", "d"], errors="ignore")
    return summary.apply(lambda col: col.map(lambda v: float(f"{v:.3g}")))


def width_means(df: pd.DataFrame) -> pd.DataFrame:
    """Mean over depths and seeds of every column of a linear sweep, indexed by width ([LH] Thm 2.3).

    The sweep is :func:`~lib.chapters.linear_baseline.measure.measure_linear`.

    Args:
        df: the output of :func:`~lib.chapters.linear_baseline.measure.measure_linear`.

    Returns:
        One row per width (sorted), columns as in ``df``.
    """
    return df.groupby("width").mean(numeric_only=True)


# --------------------------------------------------------------------------- paper vs book, figure settings


#: the sentence closing every setting of the chapter's figures; [LH] Sec. 2 has no experiment
NO_EXPERIMENT = "The paper has no experiment for Sec. 2 (an infinite-width statement); the widths are ours."


def digits_text(df: pd.DataFrame) -> str:
    """The digits data of a :func:`~lib.chapters.linear_baseline.measure.measure_linear` frame, in words."""
    return f"{int(df.n.iloc[0])} scikit-learn digits (d = {int(df.d.iloc[0])}, unit norm)"


def sweep_setting(df: pd.DataFrame) -> str:
    """The setting line of Figure 1.1 ([LH] Thm 2.3, Cor 2.4), read from the measured frame.

    Args:
        df: the output of :func:`~lib.chapters.linear_baseline.measure.measure_linear` on the digits.

    Returns:
        ``"Setting: <data>; linear networks of widths m = ...; depths L = ...; k seeds per (m, L); {profile}. ..."`` (the recorder writes the profile text for ``{profile}``).
    """
    widths = ", ".join(str(int(w)) for w in sorted(df.width.unique()))
    return (f"Setting: {digits_text(df)}; linear networks of widths m = {widths}; depths L = "
            f"{ints(sorted(df.depth.unique()))}; {df.seed.nunique()} seeds per (m, L); {{profile}}. "
            f"{NO_EXPERIMENT}")
