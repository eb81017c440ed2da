"""Chapter 03 infinite-width cells: the predictions of ``lib.theory`` per (data set, depth) ([LH] Lemma 3.1,
Cor 2.4, Thm 4.2), cached like the finite-width sweep."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib.book.spec import reads_config
from lib.book.sweep import SweepResult, run_sweep
from lib.chapters.conditioning.cells import CELL_VERSION, authors_partition, mean_kappa, spectrum_fields
from lib.spectra import fast_extremes, min_pairwise_angle
from lib.theory import relu_first_layer_ntk, relu_ntk

__all__ = ["THEORY_VERSION", "TheoryResult", "theory_cell", "measure_theory"]

#: bump when :func:`theory_cell` changes what it computes (its cached cells stop matching; the finite-width
#: cells, :data:`~lib.chapters.conditioning.cells.CELL_VERSION`, are not recomputed). "5.1": lambda_min of each
#: small batch's K_L against its own G (``first_lmin_gap_small``).
THEORY_VERSION = f"{CELL_VERSION}.1"


@dataclass(frozen=True, eq=False)
class TheoryResult:
    """The infinite-width predictions of one run, per (data set, depth) ([LH] Lemma 3.1, Cor 2.4, Thm 4.2).

    Attributes:
        frame: one row of :func:`theory_cell` per (data set, depth).
        names: the data sets with predictions (the large sets have none), in legend order.
        depths: the sorted depths L.
        run: the cached run (:class:`lib.book.sweep.SweepResult`), or None.
    """

    frame: pd.DataFrame
    names: tuple
    depths: tuple
    run: SweepResult | None = None


def theory_cell(params: dict, X: np.ndarray) -> dict:
    """Infinite-width predictions for one (data set, depth) from ``lib.theory`` ([LH] Lemma 3.1, Thm 4.2).

    ReLU: the NTK Theta^(L) (:func:`lib.theory.relu_ntk`), its min gradient angle and spectrum. Linear:
    (L+1) G ([LH] Cor 2.4), whose kappa is kappa_0 and whose angles are the input angles. With
    ``first_layer``: K_L = G o P_L (:func:`lib.theory.relu_first_layer_ntk`); with ``small_batch`` and
    ``seeds`` also its kappa and kappa_0 on the batches of the same partitions as the sweep
    (``kappa_first_small``, ``kappa0_small``, ``first_below0_small``) and the smallest
    (lambda_min(K_L) - lambda_min(G)) / lambda_max(K_L) over those batches (``first_lmin_gap_small``; [LH] Thm 4.2
    says it is >= 0).

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
            ks, k0, gap = [], [], []
            for s in range(int(params.get("seeds", 1))):
                for b in authors_partition(n, int(params["small_batch"]), s):
                    lmin, lmax, kappa, _ = fast_extremes(KL[np.ix_(b, b)])
                    lmin0, _, kappa0, _ = fast_extremes(G[np.ix_(b, b)])
                    ks.append(kappa)
                    k0.append(kappa0)
                    gap.append((lmin - lmin0) / lmax)
            ks, k0, gap = np.array(ks), np.array(k0), np.array(gap)
            fin = np.isfinite(k0)  # batches with an infinite kappa_0 of their own test nothing
            out.update(kappa_first_small=mean_kappa(ks[fin]) if fin.any() else np.nan,
                       kappa0_small=mean_kappa(k0[fin]) if fin.any() else np.nan,
                       first_below0_small=float(np.mean(ks[fin] < k0[fin])) if fin.any() else np.nan,
                       first_lmin_gap_small=float(gap[fin].min()) if fin.any() else np.nan)
    return out


@reads_config(threads="threads")
def measure_theory(data, sweep, progress: bool = True, **kw) -> TheoryResult:
    """Infinite-width predictions per (data set, depth), cached under ``<cache>/sweeps/conditioning-theory``.

    On the data sets of ``data`` without a large n (``ChapterData.theory_names``),
    at the depths of the sweep; the first-layer kernel K_L ([LH] Thm 4.2) on the sets of
    ``data.first_layer``, its small batches on ``data.small`` with the sweep's partitions (one per seed).

    Args:
        data: the data sets and their plan (:func:`lib.chapters.conditioning.data.load_data`).
        sweep: the finite-width sweep (:func:`lib.chapters.conditioning.cells.measure_conditioning`): its depths
            and seeds.
        progress: show a progress bar.
        **kw: passed to :func:`lib.book.sweep.run_sweep` (e.g. ``threads``).

    Returns:
        The predictions, one row of :func:`theory_cell` per (data set, depth) in ``frame``.
    """
    names = data.theory_names
    small, first_layer = dict(data.small), set(data.first_layer)
    cells = [dict(dataset=ds, depth=int(L), first_layer=ds in first_layer, small_batch=small.get(ds),
                  seeds=int(sweep.seeds)) for ds in names for L in sweep.depths]
    res = run_sweep("conditioning-theory", theory_cell, cells, data={k: data.arrays[k] for k in names},
                    version=THEORY_VERSION, progress=progress, desc="theory cells", **kw)
    return TheoryResult(frame=res.frame, names=tuple(names), depths=tuple(sweep.depths), run=res)
