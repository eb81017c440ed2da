"""The linear-network sweep of chapter 01 and its summaries ([LH] Thm 2.3, Cor 2.4).

:func:`lib.chapters.linear_baseline.measure.linear_sweep` measures, for every (width, depth, seed),
how far a finite-width network is from the infinite-width statements of [LH] Sec. 2 (norms, angles,
NTK shape and factor, condition number, gradient norm);
:func:`lib.chapters.linear_baseline.measure.gradient_norm_factors`,
:func:`lib.chapters.linear_baseline.measure.compute_width_means` and
:func:`lib.chapters.linear_baseline.measure.table_sweep_summary` summarize it for the figures, checks
and tables of the other modules.
"""
from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np
import pandas as pd

from lib.finite.geometry import gram, layer_geometry
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.progress import tqdm
from lib.spectra import angle_matrix, extreme_eigenvalues, relative_error

__all__ = ["linear_sweep", "gradient_norm_factors", "table_sweep_summary", "compute_width_means"]


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
    """Mean and sd of ||grad f(x)||^2 / ||x||^2 by depth at the largest width of a linear sweep ([LH] Thm 2.3).

    The sweep is :func:`~lib.chapters.linear_baseline.measure.linear_sweep`. [LH] Thm 2.3 states the gradient
    norm; the squared norm over ||x||^2 is K_xx / ||x||^2.

    Args:
        df: the output of :func:`~lib.chapters.linear_baseline.measure.linear_sweep`.

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
    """Mean of every measured column of a linear sweep by (width, depth), to 3 significant digits ([LH] Sec. 2).

    The sweep is :func:`~lib.chapters.linear_baseline.measure.linear_sweep`.

    Args:
        df: the output of :func:`~lib.chapters.linear_baseline.measure.linear_sweep`.

    Returns:
        One row per (width, depth); the ``seed`` column is dropped.
    """
    summary = df.groupby(["width", "depth"]).mean(numeric_only=True).drop(columns="seed")
    return summary.apply(lambda col: col.map(lambda v: float(f"{v:.3g}")))


def compute_width_means(df: pd.DataFrame) -> pd.DataFrame:
    """Mean over depths and seeds of every column of a linear sweep, indexed by width ([LH] Thm 2.3).

    The sweep is :func:`~lib.chapters.linear_baseline.measure.linear_sweep`.

    Args:
        df: the output of :func:`~lib.chapters.linear_baseline.measure.linear_sweep`.

    Returns:
        One row per width (sorted), columns as in ``df``.
    """
    return df.groupby("width").mean(numeric_only=True)


# --------------------------------------------------------------------------- paper vs book, figure settings
