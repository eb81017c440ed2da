"""Measurements for chapter 01: the linear baseline ([LH] Thm 2.3, Cor 2.4)."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from lib.progress import tqdm

from lib.finite.geometry import gram, layer_geometry
from lib.spectra import relative_error
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.spectra import angle_matrix, extreme_eigenvalues

__all__ = ["linear_sweep", "gradient_norm_factors"]


def linear_sweep(X, widths, depths, seeds: int, device: str = "cpu") -> pd.DataFrame:
    """Finite-width deviations of linear networks from [LH] Thm 2.3 / Cor 2.4, one row per net.

    Columns: width, depth, seed; ``norm_dev`` = max over layers and inputs of
    | ||a^(l)(x)|| / ||x|| - 1 |; ``angle_dev`` = max over layers and pairs of |theta^(l) - theta_in|;
    ``phi_dev`` = max over pairs of |phi - theta_in|; ``ntk_rel_err`` = ||K/(L+1) - G||_F / ||G||_F;
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
    """Mean and sd of ||grad f(x)||^2 / ||x||^2 by depth at the largest width of a :func:`linear_sweep`."""
    sub = df[df.width == df.width.max()]
    g = sub.groupby("depth")
    out = pd.DataFrame({"mean": g["grad_sq_ratio_mean"].mean()})
    # total variance = mean within-net variance + variance of the per-net means
    out["sd"] = np.sqrt(g["grad_sq_ratio_sd"].apply(lambda s: float((s ** 2).mean()))
                        + g["grad_sq_ratio_mean"].var(ddof=0).fillna(0))
    return out
