"""Model Hessian norms at initialization of chapter 05's nets, cached one net per record ([LZB] Thm 3.2, 3.3, 4.1).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib.book.cache import cached_call
from lib.chapters.non_constancy.nets import build
from lib.finite.hessian import model_hessian_norm
from lib.progress import tqdm

__all__ = ["hessian_sweep", "bottleneck_hessian_sweep", "HessianNorms", "compute_hessian_norms", "hessian_summary"]


def bottleneck_hessian_sweep(X, widths, bottleneck_width: int, bottlenecks, seeds: int, activation: str = "tanh",
                             tol: float = 1e-6, max_iter: int = 500) -> pd.DataFrame:
    """Spectral norm of the model Hessian of [m, b, m] nets at initialization ([LZB] Thm 3.3, Thm 4.1).

    Two sweeps: every b of ``bottlenecks`` at m = ``bottleneck_width``, and every m of ``widths`` at the
    narrowest b.

    Args:
        X: inputs over which the norm is maximized.
        widths: wide-layer widths m of the second sweep.
        bottleneck_width: m of the first sweep.
        bottlenecks: bottleneck widths b.
        seeds: weight draws per configuration.
        activation: hidden activation.
        tol: power iteration tolerance (relative change).
        max_iter: power iteration cap.

    Returns:
        One row per (sweep, width, bottleneck, seed): ``hess_norm``, ``iterations``, ``converged``; ``sweep`` is
        ``"b"`` or ``"m"``.
    """
    grid = [("b", int(bottleneck_width), int(b), s) for b in bottlenecks for s in range(seeds)]
    grid += [("m", int(m), int(min(bottlenecks)), s) for m in widths for s in range(seeds)]
    rows = []
    for sweep, m, b, s in tqdm(grid, desc="bottleneck Hessian norms", leave=False):
        def run(m=m, b=b, s=s):
            model, _ = build("bottleneck", X.shape[1], m, s, activation, bottleneck=b)
            h = model_hessian_norm(model, X, tol=tol, max_iter=max_iter, seed=s)
            return dict(width=m, bottleneck=b, seed=s, hess_norm=h.norm, iterations=h.iterations,
                        converged=h.converged)
        key = dict(m=m, b=b, s=s, act=activation, tol=tol, it=max_iter, X=np.asarray(X))
        rows.append(dict(cached_call("05_non_constancy_hessian_b", key, run, version="1"), sweep=sweep))
    return pd.DataFrame(rows)


def hessian_sweep(X, widths, seeds: int, archs=("linear", "swish", "softmax"), activation: str = "tanh",
                  k: int = 3, tol: float = 1e-6, max_iter: int = 500) -> pd.DataFrame:
    """Spectral norm of the model Hessian at initialization, max over the rows of X ([LZB] Thm 3.2).

    For softmax the norm is the max over the k probability outputs as well.

    Args:
        X: inputs over which the norm is maximized.
        widths: hidden widths m.
        seeds: weight draws per configuration.
        archs: output types.
        activation: hidden activation.
        k: softmax outputs.
        tol: power iteration tolerance (relative change).
        max_iter: power iteration cap.

    Returns:
        One row per (arch, width, seed): ``hess_norm``, ``iterations``, ``converged``.
    """
    rows = []
    grid = [(a, int(m), s) for a in archs for m in widths for s in range(seeds)]
    for a, m, s in tqdm(grid, desc="Hessian norms", leave=False):
        def run(a=a, m=m, s=s):
            model, _ = build(a, X.shape[1], m, s, activation, k, bottleneck=m)
            h = model_hessian_norm(model, X, tol=tol, max_iter=max_iter, seed=s)
            return dict(arch=a, width=m, seed=s, hess_norm=h.norm, iterations=h.iterations, converged=h.converged)
        key = dict(a=a, m=m, s=s, act=activation, k=k, tol=tol, it=max_iter, X=np.asarray(X))
        rows.append(cached_call("05_non_constancy_hessian", key, run, version="1"))
    return pd.DataFrame(rows)


@dataclass
class HessianNorms:
    """Model Hessian norms at initialization (:func:`hessian_sweep`) and the widths they cover.

    Attributes:
        frame: one row per (arch, width, seed): ``hess_norm``, ``iterations``, ``converged``.
        widths: the widths m, in the order given.
        k: softmax outputs.
        bottleneck: :func:`bottleneck_hessian_sweep` (None if not run).
    """

    frame: pd.DataFrame
    widths: list
    k: int
    bottleneck: pd.DataFrame | None = None


def compute_hessian_norms(data: dict, n_hessian: int, widths, seeds: int, *, activation: str, k: int,
                          tol: float, max_iter: int, bottleneck_width: int | None = None,
                          bottlenecks=None) -> HessianNorms:
    """Model Hessian norms at initialization over the first ``n_hessian`` inputs ([LZB] Thm 3.2, 3.3, 4.1).

    Args:
        data: :func:`~lib.chapters.non_constancy.nets.synthetic_regression` output.
        n_hessian: inputs over which the norm is maximized.
        widths, seeds, activation, k, tol, max_iter: as in :func:`hessian_sweep`.
        bottleneck_width, bottlenecks: as in :func:`bottleneck_hessian_sweep` (no bottleneck sweep if None).

    Returns:
        :class:`HessianNorms`.
    """
    X = data["X"][:n_hessian]
    frame = hessian_sweep(X, widths, seeds, activation=activation, k=k, tol=tol, max_iter=max_iter)
    bott = None
    if bottleneck_width is not None and bottlenecks is not None:
        bott = bottleneck_hessian_sweep(X, widths, bottleneck_width, bottlenecks, seeds, activation=activation,
                                        tol=tol, max_iter=max_iter)
    return HessianNorms(frame, list(widths), int(k), bott)


def hessian_summary(h: HessianNorms) -> str:
    """One line on the power iterations: all converged, and the largest iteration count.

    Args:
        h: :func:`compute_hessian_norms` output.

    Returns:
        The line printed under Figure 5.4.
    """
    dh = h.frame
    return f"power iteration: all converged = {bool(dh.converged.all())}, at most {int(dh.iterations.max())} iterations"
