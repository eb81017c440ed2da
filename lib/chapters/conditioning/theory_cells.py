"""Chapter 03 infinite-width cells: the predictions of ``lib.theory`` per (data set, depth) ([LH] Lemma 3.1,
Cor 2.4, Thm 4.2), cached like the finite-width sweep."""
from __future__ import annotations

from typing import Iterable

import numpy as np

from lib.book.sweep import SweepResult, run_sweep
from lib.chapters.conditioning.cells import CELL_VERSION, authors_partition, kernel_kappa, mean_kappa, spectrum_fields
from lib.spectra import min_pairwise_angle
from lib.theory import relu_first_layer_ntk, relu_ntk

__all__ = ["theory_cell", "run_theory"]


def theory_cell(params: dict, X: np.ndarray) -> dict:
    """Infinite-width predictions for one (data set, depth) from ``lib.theory`` ([LH] Lemma 3.1, Thm 4.2).

    ReLU: the NTK Theta^(L) (:func:`lib.theory.relu_ntk`), its min gradient angle and spectrum. Linear:
    (L+1) G ([LH] Cor 2.4), whose kappa is kappa_0 and whose angles are the input angles. With
    ``first_layer``: K_L = G o P_L (:func:`lib.theory.relu_first_layer_ntk`); with ``small_batch`` and
    ``seeds`` also its kappa and kappa_0 on the batches of the same partitions as the sweep
    (``kappa_first_small``, ``kappa0_small``, ``first_below0_small``).

    Args:
        params: ``depth``, and optionally ``first_layer``, ``small_batch``, ``seeds``.
        X: the data set's inputs, shape (n, d).

    Returns:
        ``min_angle_relu``/``_linear`` and the spectrum fields (``kappa``, ``lambda_min``, ``lambda_max``,
        ``singular``) with suffixes ``_relu``, ``_linear``, ``_first``.
    """
    L, n = int(params["depth"]), X.shape[0]
    rank = int(np.linalg.matrix_rank(X))
    G = X @ X.T
    out = {"min_angle_linear": min_pairwise_angle(G), **spectrum_fields((L + 1) * G, "_linear", rank_bound=rank)}
    K = relu_ntk(X, L) if L >= 1 else G
    out.update(min_angle_relu=min_pairwise_angle(K), **spectrum_fields(K, "_relu", rank_bound=rank if L == 0 else None))
    del K
    if params.get("first_layer"):
        KL = relu_first_layer_ntk(X, L) if L >= 1 else G
        out.update(spectrum_fields(KL, "_first", rank_bound=rank if L == 0 else None))
        if params.get("small_batch"):
            ks, k0 = [], []
            for s in range(int(params.get("seeds", 1))):
                for b in authors_partition(n, int(params["small_batch"]), s):
                    ks.append(kernel_kappa(KL[np.ix_(b, b)]))
                    k0.append(kernel_kappa(G[np.ix_(b, b)]))
            ks, k0 = np.array(ks), np.array(k0)
            fin = np.isfinite(k0)  # batches with an infinite kappa_0 of their own test nothing
            out.update(kappa_first_small=mean_kappa(ks[fin]) if fin.any() else np.nan,
                       kappa0_small=mean_kappa(k0[fin]) if fin.any() else np.nan,
                       first_below0_small=float(np.mean(ks[fin] < k0[fin])) if fin.any() else np.nan)
    return out


def run_theory(data: dict, depths: Iterable[int], first_layer: Iterable[str] = (),
               small: dict[str, int] | None = None, seeds: int = 1, progress: bool = True, **kw) -> SweepResult:
    """Infinite-width predictions per (data set, depth), cached under ``<cache>/sweeps/conditioning-theory``.

    Args:
        data: arrays by name.
        depths: depths L.
        first_layer: data sets that also get the first-layer kernel K_L ([LH] Thm 4.2).
        small: ``{data set: batch size}`` of the small batches.
        seeds: partitions of the small batches (as in the sweep).
        progress: show a progress bar.
        **kw: passed to :func:`lib.book.sweep.run_sweep`.

    Returns:
        The sweep, one row of :func:`theory_cell` per (data set, depth) in ``.frame``.
    """
    small, first_layer = dict(small or {}), set(first_layer)
    cells = [dict(dataset=ds, depth=int(L), first_layer=ds in first_layer, small_batch=small.get(ds),
                  seeds=int(seeds)) for ds in data for L in depths]
    return run_sweep("conditioning-theory", theory_cell, cells, data=data, version=CELL_VERSION,
                     progress=progress, desc="theory cells", **kw)
