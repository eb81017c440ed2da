"""Chapter 03 sweep cells: one network per (data set, depth, activation, seed), its NTK measured once and
read both ways ([LH] Sec. 4.1): on the full data and under the authors' batch protocol.

The batch kernels of the authors' protocol are principal sub-matrices of the full NTK (the NTK of a
batch is the restriction of the kernel), so one kernel serves both protocols, the first-layer kernel of
[LH] Thm 4.2 comes from the same forward/backward pass, and a linear network's NTK is read off a d x d
matrix (its gradient features are linear in x). At large n the full-data values come from
:func:`lib.finite.extremes.ntk_extremes`, whose kappa may be a certified interval.
"""
from __future__ import annotations

import dataclasses
import json
import math
import time
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
from scipy.sparse.linalg import eigsh

from lib.book.sweep import run_sweep
from lib.chapters.conditioning.summary import ConditioningSweep
from lib.finite.extremes import ntk_extremes
from lib.finite.mlp import MLP
from lib.finite.ntk import (SHARED_MAX_N, empirical_ntk, linear_features, linear_gram, ntk_with_layer_terms,
                            relu_depth_batch_kernels, relu_depth_kernels)
from lib.spectra import fast_extremes, min_pairwise_angle
from lib.validation import InputError, check_seed

__all__ = ["CELL_VERSION", "ACTIVATIONS", "FULL_METHODS", "DENSE_MAX", "authors_partition", "first_batches", "mean_kappa",
           "batch_kappas", "kernel_kappa", "spectrum_fields", "FULL_FIELDS", "batch_only_fields", "batch_measures",
           "batch_fields_of", "linear_gram", "linear_features", "full_and_first_layer_ntk", "ntk_cell",
           "conditioning_cells", "measure_conditioning", "dense_measurements", "relu_depths_cell",
           "sweep_cell", "expand_cells"]

#: bump when :func:`ntk_cell` changes what it computes (old cache cells stop matching; it also renews the
#: infinite-width cells, whose own version is :data:`lib.chapters.conditioning.theory_cells.THEORY_VERSION`)
CELL_VERSION = "6"
ACTIVATIONS = ("relu", "linear")
#: how the full-data kappa and angle are computed; dense kernel, :func:`lib.finite.extremes.ntk_extremes`,
#: or ``"auto"`` (dense up to :data:`~lib.chapters.conditioning.cells.DENSE_MAX` samples)
FULL_METHODS = ("auto", "dense", "extremes")
#: above this many samples ``full_method="auto"`` uses :func:`lib.finite.extremes.ntk_extremes` instead of a dense kernel
DENSE_MAX = 8000


def authors_partition(n: int, batch_size: int, seed: int) -> list[np.ndarray]:
    """The authors' batches ([LH] Sec. 4.1): a fresh random permutation per seed, cut into ``batch_size``
    pieces, the last partial batch kept.

    The batch mean of kappa is defined on the formulas page, ``book/formulas.md`` (section
    ``formulas-authors``).

    Args:
        n: samples.
        batch_size: batch size (512 in their script).
        seed: seed of the permutation (one per weight seed, as their ``torch.randperm`` after ``manual_seed``).

    Returns:
        The index arrays of the batches, in order.
    """
    seed = check_seed(seed)
    if batch_size < 1:
        raise InputError(f"batch_size must be positive, got {batch_size}")
    perm = np.random.default_rng(seed).permutation(n)
    return [perm[i:i + batch_size] for i in range(0, n, batch_size)]


def first_batches(batches: Sequence[np.ndarray], limit: int | None) -> list[np.ndarray]:
    """The first ``limit`` batches of a partition (:func:`authors_partition`), or all of them (``limit`` None).

    A batch-only cell with ``batches`` in its parameters reads this many batches of its seed's partition: the
    mean over them estimates the authors' mean over all the batches ([LH] Sec. 4.1) at a fraction of the cost
    (the partial last batch, if any, is the last to be taken).

    Args:
        batches: the partition, in order.
        limit: batches kept (a positive integer), or None for all.

    Returns:
        The batches kept.
    """
    if limit is None:
        return list(batches)
    if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
        raise InputError(f"batches must be a positive integer (batches per seed) or None, got {limit!r}")
    return list(batches[:int(limit)])


def mean_kappa(values: Iterable[float]) -> float:
    """Mean of condition numbers, ``inf`` as soon as one is infinite (the average of an infinite kappa)."""
    v = np.asarray(list(values), dtype=float)
    return math.inf if np.isinf(v).any() else float(v.mean())


def kernel_kappa(K: np.ndarray) -> float:
    """kappa of a PSD kernel by :func:`lib.spectra.fast_extremes` (``inf`` when singular to working precision)."""
    return fast_extremes(K)[2]


def batch_kappas(K: np.ndarray, batches: Sequence[np.ndarray]) -> np.ndarray:
    """kappa of each batch kernel K[b, b] (a principal sub-matrix: the NTK of the batch), ``inf`` if singular.

    Args:
        K: the full kernel (n x n).
        batches: index arrays (:func:`authors_partition`).

    Returns:
        One kappa per batch.
    """
    return np.array([kernel_kappa(K[np.ix_(b, b)]) for b in batches])


#: the full-data fields of a cell; NaN in a batch-only cell (``full=False``), whose seed has the authors'
#: protocol only (:func:`conditioning_cells` with ``full_seeds``)
FULL_FIELDS = ("min_angle", "kappa", "kappa_high", "lambda_min", "lambda_max", "diag_max", "diag_min")


def batch_only_fields(batch_kernels: Iterable[np.ndarray], n_batches: int) -> dict:
    """The fields of a batch-only cell: the authors' protocol from the batch kernels alone ([LH] Sec. 4.1).

    The NTK of a batch is the principal sub-matrix of the full NTK, so computing it batch by batch gives
    the same ``kappa_batch`` as :func:`dense_measurements` (to rounding) without the n x n kernel. The
    full-data fields (:data:`~lib.chapters.conditioning.cells.FULL_FIELDS`) are NaN, ``singular`` and ``interval`` False, ``full`` False.

    Args:
        batch_kernels: the NTK of each batch of the authors' partition, in order.
        n_batches: the number of batches (checked against the kernels given).

    Returns:
        ``kappa_batch`` (mean over the batches, inf as soon as one is singular), ``n_batches``,
        ``min_angle_batch``, and the full-data fields as NaN.
    """
    return batch_fields_of([batch_measures(Kb) for Kb in batch_kernels], n_batches)


def batch_measures(Kb: np.ndarray) -> tuple[float, float]:
    """What a batch-only cell reads off one batch's NTK ([LH] Sec. 4.1): its kappa (inf when singular) and its
    smallest pairwise gradient angle (NaN for a batch of one)."""
    return kernel_kappa(Kb), (min_pairwise_angle(Kb) if Kb.shape[0] > 1 else np.nan)


def batch_fields_of(measures: Sequence[tuple[float, float]], n_batches: int) -> dict:
    """The fields of :func:`batch_only_fields` from the :func:`batch_measures` of each batch, in order (so that the
    batch kernels need not be kept: one at a time is measured and dropped).

    Args:
        measures: ``(kappa, angle)`` per batch.
        n_batches: the number of batches (checked against the measures given).

    Returns:
        The fields of :func:`batch_only_fields`.
    """
    if len(measures) != n_batches:
        raise InputError(f"batch_only_fields got {len(measures)} batch kernels for {n_batches} batches")
    kappas, angles = [k for k, _ in measures], [a for _, a in measures]
    return {"kappa_batch": mean_kappa(kappas), "n_batches": int(n_batches), "min_angle_batch": float(np.mean(angles)),
            **{f: math.nan for f in FULL_FIELDS}, "singular": False, "interval": False, "full": False}


def full_and_first_layer_ntk(net: MLP, X) -> tuple[np.ndarray, np.ndarray | None]:
    """The full NTK and the first-layer-only NTK ([LH] Thm 4.2) from one forward/backward pass.

    K = A_L A_L^T + sum_{l=1..L} (D_l D_l^T) o (A_{l-1} A_{l-1}^T) ([LH] Sec. 2, the formulas page
    ``book/formulas.md``) and the first-layer kernel is the l = 1 term (D_1 D_1^T) o (X X^T), both from
    :func:`lib.finite.ntk.ntk_with_layer_terms`.

    Args:
        net: a scalar-output :class:`lib.finite.mlp.MLP` at its current weights.
        X: inputs of shape (n, d).

    Returns:
        ``(K, K_1)``: the full n x n NTK and the first-layer kernel (``(X X^T, None)`` at depth 0).
    """
    if net.out_dim != 1:
        raise InputError("full_and_first_layer_ntk supports scalar-output networks only")
    if net.depth == 0:
        return empirical_ntk(net, X), None
    K, terms = ntk_with_layer_terms(net, X, terms=(1,))
    return K, terms[1]


def spectrum_fields(K: np.ndarray, suffix: str = "", rank_bound: int | None = None) -> dict:
    """``kappa``, ``lambda_min``, ``lambda_max`` and ``singular`` of a PSD kernel, each name with ``suffix``.

    With ``rank_bound`` below n the kernel is singular by its rank, exactly (kappa = inf, lambda_min = 0;
    only lambda_max is computed); otherwise :func:`lib.spectra.fast_extremes`.

    Args:
        K: a symmetric PSD matrix (n x n).
        suffix: appended to every field name (e.g. ``"_first"``).
        rank_bound: a bound on the rank of K (a linear network's: d), or None.

    Returns:
        The four fields.
    """
    n = K.shape[0]
    if rank_bound is not None and rank_bound < n:  # singular by rank, exactly
        lmax = float(np.linalg.eigvalsh(K)[-1]) if n <= 1000 else float(
            eigsh(K, k=1, which="LA", tol=1e-10, return_eigenvectors=False)[0])
        return {f"kappa{suffix}": math.inf, f"lambda_min{suffix}": 0.0, f"lambda_max{suffix}": lmax,
                f"singular{suffix}": True}
    lmin, lmax, kappa, singular = fast_extremes(K)
    return {f"kappa{suffix}": kappa, f"lambda_min{suffix}": lmin, f"lambda_max{suffix}": lmax,
            f"singular{suffix}": singular}


def _batch_fields(K, K1, X, batches, small) -> dict:
    out = {"kappa_batch": mean_kappa(batch_kappas(K, batches)), "n_batches": len(batches),
           "min_angle_batch": float(np.mean([min_pairwise_angle(K[np.ix_(b, b)]) if len(b) > 1 else np.nan
                                             for b in batches]))}
    if small is not None:
        ks, k0 = batch_kappas(K, small), np.array([kernel_kappa(X[b] @ X[b].T) for b in small])
        fin = np.isfinite(k0)  # batches whose own kappa_0 is infinite test nothing: left out
        out.update(n_small_tested=int(fin.sum()), kappa_small=mean_kappa(ks[fin]) if fin.any() else math.nan,
                   kappa0_small=mean_kappa(k0[fin]) if fin.any() else math.nan,
                   below0_small=float(np.mean(ks[fin] < k0[fin])) if fin.any() else math.nan)
        if K1 is not None:
            k1 = batch_kappas(K1, small)[fin]
            out.update(kappa_first_small=mean_kappa(k1) if fin.any() else math.nan,
                       first_below0_small=float(np.mean(k1 < k0[fin])) if fin.any() else math.nan)
    return out


def dense_measurements(K: np.ndarray, K1: np.ndarray | None, X: np.ndarray, batches: Sequence[np.ndarray],
                       small: Sequence[np.ndarray] | None, rank_bound: int | None = None) -> dict:
    """Everything a cell reads off one dense NTK: full-data kappa and angle, and the batch means ([LH] Sec. 4.1).

    Args:
        K: the NTK (n x n).
        K1: the first-layer-only NTK ([LH] Thm 4.2), or None.
        X: the inputs (for the batches' kappa_0).
        batches: the authors' partition (:func:`authors_partition`).
        small: the small batches, or None.
        rank_bound: a bound on the rank of K (a linear network's: d), or None.

    Returns:
        The fields of :func:`ntk_cell` (dense path).
    """
    diag = np.diag(K)
    out = dict(min_angle=min_pairwise_angle(K), **spectrum_fields(K, rank_bound=rank_bound), interval=False,
               diag_max=float(diag.max()), diag_min=float(diag.min()))
    out["kappa_high"] = out["kappa"]
    out.update(_batch_fields(K, K1, X, batches, small))
    if K1 is not None:
        out.update(spectrum_fields(K1, "_first"))
    return out


def ntk_cell(params: dict, X: np.ndarray) -> dict:
    """One cell of [LH] Figure 3: a fresh network at initialization, its NTK read on the full data and in batches.

    ``params``: ``activation``, ``depth``, ``width``, ``seed`` (weights and the batch partition),
    ``device``, ``batch_size`` (the authors' protocol, :func:`authors_partition`), ``small_batch``
    (None, or batches of that size for a finite kappa_0), ``first_layer`` (also the NTK with only W^(1)
    trainable, [LH] Thm 4.2), ``full_method`` (:data:`~lib.chapters.conditioning.cells.FULL_METHODS`), ``full`` (default True; False: a
    batch-only cell, the authors' protocol from the batch kernels alone, :func:`batch_only_fields`, no
    small batches or first-layer kernel).

    Returns (flat dict): ``min_angle`` (full set, rad), ``kappa`` (full data; the low end when only an
    interval is known) and ``kappa_high`` (= ``kappa`` for an exact value), ``interval``, ``lambda_min``,
    ``lambda_max``, ``singular``, ``diag_max``/``diag_min`` (dense only), ``kappa_batch`` (mean over the
    batches of the authors' partition), ``n_batches``, ``min_angle_batch`` (mean over batches of the batch's
    min angle, for reference only: the authors took the angle on the full set); with ``small_batch``: ``kappa_small``,
    ``kappa0_small`` (mean kappa of the batches' Gram matrices), ``below0_small`` (fraction of batches with
    kappa < kappa_0), all over the ``n_small_tested`` batches whose own kappa_0 is finite; with ``first_layer``: ``kappa_first`` etc. and ``kappa_first_small``,
    ``first_below0_small``.

    Args:
        params: the cell's parameters (above).
        X: the data set's inputs, shape (n, d).

    Returns:
        The cell's measurements.
    """
    n, d = X.shape
    L, act, seed = int(params["depth"]), params["activation"], int(params["seed"])
    net = MLP(d, int(params["width"]), L, activation=act, seed=seed, device=params.get("device", "cpu"))
    method = params.get("full_method", "auto")
    if method not in FULL_METHODS:
        raise InputError(f"full_method must be one of {FULL_METHODS}, got {method!r}")
    if method == "auto":
        method = "dense" if n <= DENSE_MAX else "extremes"
    batches = authors_partition(n, int(params["batch_size"]), seed)
    out = {"n": int(n), "d": int(d), "batch_size": int(params["batch_size"])}
    if not params.get("full", True):  # the authors' protocol only: batch kernels, nothing n x n
        batches = first_batches(batches, params.get("batches"))
        if act == "linear" or L == 0:  # K_b = X_b Q X_b^T batch after batch: nothing n x d, no eigh of Q
            Q = linear_gram(net)
            kernels = ((lambda P: (P + P.T) / 2)(X[b] @ Q @ X[b].T) for b in batches)
        else:
            kernels = (empirical_ntk(net, X[b]) for b in batches)
        out.update(batch_only_fields(kernels, len(batches)))
        return out
    small = authors_partition(n, int(params["small_batch"]), seed) if params.get("small_batch") else None
    first = bool(params.get("first_layer")) and L >= 1 and act == "relu"
    if method == "dense":
        K1 = None
        if act == "linear" or L == 0:
            F = linear_features(net, X)
            K, rank_bound = F @ F.T, d
        elif first:
            (K, K1), rank_bound = full_and_first_layer_ntk(net, X), None
        else:
            K, rank_bound = empirical_ntk(net, X), None
        out.update(dense_measurements(K, K1, X, batches, small, rank_bound))
        return out
    # full data at large n: nothing n x n is held; batch kernels computed batch by batch
    res = ntk_extremes(net, X, progress=False)
    interval = isinstance(res.kappa, tuple)
    lo, hi = res.kappa if interval else (res.kappa, res.kappa)
    out.update(min_angle=res.min_angle, kappa=float(lo), kappa_high=float(hi), interval=interval,
               lambda_min=res.lambda_min, lambda_max=res.lambda_max, singular=res.singular,
               diag_max=np.nan, diag_min=np.nan, method_note=res.accuracy)
    out.update(kappa_batch=mean_kappa(kernel_kappa(empirical_ntk(net, X[b])) for b in batches), n_batches=len(batches))
    return out


def relu_depths_cell(params: dict, X: np.ndarray) -> dict:
    """One seed of ReLU networks at every depth of ``params["depths"]``, kernels from shared embeddings.

    The same measurements as :func:`ntk_cell` per depth (dense path), with the kernels of
    :func:`lib.finite.ntk.relu_depth_kernels` (the layer Gram matrices are computed
    once for all depths of the seed).

    With ``full=False`` (a batch-only cell) only the authors' protocol is measured: the kernels of all
    depths are computed batch by batch (each batch with its own shared embeddings), never n x n, so any
    n works; the full-data fields are NaN (:func:`batch_only_fields`).

    Args:
        params: as for :func:`ntk_cell`, with ``depths`` (a list) instead of ``depth``.
        X: the data set's inputs, shape (n, d), n <= :data:`lib.finite.ntk.SHARED_MAX_N`
            unless batch-only.

    Returns:
        ``{"rows": [...]}``: one dict of scalars per depth (with its own ``seconds``), stored as it is by the
        sweep cache; :func:`expand_cells` spreads them out.
    """
    n, d = X.shape
    seed = int(params["seed"])
    batches = authors_partition(n, int(params["batch_size"]), seed)
    if not params.get("full", True):
        return {"rows": _relu_batch_only_rows(params, X, first_batches(batches, params.get("batches")))}
    small = authors_partition(n, int(params["small_batch"]), seed) if params.get("small_batch") else None
    rows = []
    for L, K, K1, secs in relu_depth_kernels(X, int(params["width"]), params["depths"], seed,
                                             first_layer=bool(params.get("first_layer"))):
        t = time.perf_counter()
        row = {"depth": L, "n": int(n), "d": int(d), "batch_size": int(params["batch_size"]),
               **dense_measurements(K, K1, X, batches, small, rank_bound=d if L == 0 else None)}
        del K, K1
        row["seconds"] = secs + time.perf_counter() - t
        rows.append(row)
    return {"rows": [{k: _scalar(v) for k, v in r.items()} for r in rows]}


def _relu_batch_only_rows(params: dict, X: np.ndarray, batches: Sequence[np.ndarray]) -> list[dict]:
    """The rows of a batch-only :func:`relu_depths_cell`: per depth, :func:`batch_only_fields` of its batch kernels,
    each kernel measured as soon as it is computed and dropped (118 batches x 11 depths would hold 2.7 GB)."""
    n, d = X.shape
    depths = [int(L) for L in params["depths"]]
    measures: dict[int, list[tuple[float, float]]] = {L: [] for L in depths}
    secs = dict.fromkeys(depths, 0.0)
    for _, per_depth in relu_depth_batch_kernels(X, batches, int(params["width"]), depths, int(params["seed"])):
        for L, K, _, t in per_depth:
            t0 = time.perf_counter()
            measures[L].append(batch_measures(K))
            secs[L] += t + time.perf_counter() - t0
    rows = []
    for L in depths:
        row = {"depth": L, "n": int(n), "d": int(d), "batch_size": int(params["batch_size"]),
               **batch_fields_of(measures.pop(L), len(batches))}
        row["seconds"] = secs[L]
        rows.append({k: _scalar(v) for k, v in row.items()})
    return rows


def _scalar(v):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    return float(v)


def sweep_cell(params: dict, X: np.ndarray) -> dict:
    """The sweep's cell function: :func:`relu_depths_cell` for a cell with ``depths``, else :func:`ntk_cell`."""
    return relu_depths_cell(params, X) if "depths" in params else ntk_cell(params, X)


def expand_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (data set, depth, activation, seed): the per-depth rows of grouped cells spread out.

    Args:
        frame: the frame of :func:`lib.book.sweep.run_sweep` over :func:`sweep_cell`.

    Returns:
        The frame with every grouped cell replaced by its depth rows (parameters repeated).
    """
    if "rows" not in frame:
        return frame
    out = []
    for rec in frame.to_dict("records"):
        sub = rec.pop("rows", None)
        rec.pop("depths", None)
        if isinstance(sub, str):  # cells cached before the sweep stored JSON lists held the rows as JSON text
            sub = json.loads(sub)
        if isinstance(sub, list):
            rec.pop("seconds", None)
            out.extend({**rec, **r} for r in sub)
        else:
            out.append(rec)
    df = pd.DataFrame(out)
    df["depth"] = df["depth"].astype(int)
    return df


def conditioning_cells(datasets: Iterable[str], depths: Iterable[int], width: int, seeds: int, *,
                       batch_size: int = 512, small: dict[str, int] | None = None,
                       first_layer: bool | Iterable[str] = True, activations: Sequence[str] = ACTIVATIONS,
                       device: str = "cpu", full_method: str = "auto",
                       n_samples: dict[str, int] | None = None, full_seeds: dict[str, int] | None = None,
                       full_depths: dict[str, Sequence[int]] | None = None) -> list[dict]:
    """The grid of [LH] Sec. 4.1: data set x depth x activation x seed.

    Args:
        datasets: data set names.
        depths: depths L.
        width: hidden width m.
        seeds: weight draws (and batch partitions) per (data set, depth, activation).
        batch_size: the authors' batch size.
        small: ``{data set: batch size}`` of batches with a finite kappa_0 (:func:`~lib.chapters.conditioning.data.small_batch_sets`).
        first_layer: data sets whose ReLU cells also record the first-layer kernel ([LH] Thm 4.2); True:
            all, False: none.
        activations: drawn from ``("relu", "linear")``.
        device: torch device.
        full_method: :data:`~lib.chapters.conditioning.cells.FULL_METHODS`.
        n_samples: ``{data set: n}``; when given, the ReLU cells of a data set with n <=
            :data:`lib.finite.ntk.SHARED_MAX_N` (dense) become one cell per seed with
            all depths (:func:`relu_depths_cell`), whose kernels share the layer Gram matrices.
        full_seeds: ``{data set: k}``: only seeds 0..k-1 of that data set measure the full data (kappa of the
            n x n NTK and the min angle over all pairs); the other seeds are batch-only cells (``full=False``:
            the authors' protocol, from the batch kernels alone). Data sets not named: every seed. This is
            how the default build keeps the 5,000 x 5,000 kernels of MNIST-5k to one seed.
        full_depths: ``{data set: depths}``: the full data of that data set is measured at these depths only
            (of its ``full_seeds``); the other depths are batch-only cells. Data sets not named: every depth.

    Returns:
        One parameter dict per cell, for :func:`measure_conditioning`.
    """
    bad = [a for a in activations if a not in ACTIVATIONS]
    if bad:
        raise InputError(f"activations must be drawn from {ACTIVATIONS}, got {bad}")
    if full_method not in FULL_METHODS:
        raise InputError(f"full_method must be one of {FULL_METHODS}, got {full_method!r}")
    datasets = list(datasets)
    small = dict(small or {})
    first_layer = set(datasets) if first_layer is True else set() if first_layer is False else set(first_layer)
    depths = [int(L) for L in depths]
    grouped = {ds for ds, n in (n_samples or {}).items() if n <= SHARED_MAX_N and full_method != "extremes"}
    full_seeds = dict(full_seeds or {})
    bad = {ds: k for ds, k in full_seeds.items() if not isinstance(k, (int, np.integer)) or k < 0}
    if bad:
        raise InputError(f"full_seeds must map data sets to seed counts >= 0, got {bad}")

    full_depths = {ds: {int(L) for L in v} for ds, v in (full_depths or {}).items()}

    def part(ds: str, s: int, L: int | None = None) -> dict:  # absent on full cells: their cache keys do not change
        full = s < full_seeds.get(ds, seeds) and (L is None or L in full_depths.get(ds, depths))
        return {} if full else {"full": False}

    cells = []
    for ds in datasets:
        for act in activations:
            base = dict(dataset=ds, activation=act, width=int(width), device=device, batch_size=int(batch_size),
                        small_batch=small.get(ds), full_method=full_method,
                        first_layer=bool(ds in first_layer and act == "relu"))
            # one cell per seed with all depths: shared embeddings (dense ReLU), or batch by batch (batch-only)
            # one cell per seed with all its full (or all its batch-only) depths: shared embeddings (dense ReLU),
            # or batch by batch (batch-only); the rest one cell per depth
            single = []
            for s in range(seeds):
                if act != "relu" or device != "cpu":
                    single += [(L, s) for L in depths]
                    continue
                full = [L for L in depths if not part(ds, s, L)]
                only = [L for L in depths if part(ds, s, L)]
                if full and ds in grouped:
                    cells.append(dict(base, depths=full, seed=s))
                else:
                    single += [(L, s) for L in full]
                if only:
                    cells.append(dict(base, depths=only, seed=s, full=False))
            single.sort()
            cells += [dict(base, depth=L, seed=s, **part(ds, s, L)) for L, s in single]
    return cells


def measure_conditioning(data, *, depths: Iterable[int], width: int, seeds: int, batch_size: int = 512,
                         device: str = "cpu", full_method: str = "auto", scheduler=None, threads: int | None = None,
                         progress: bool = True) -> ConditioningSweep:
    """Measure [LH] Figure 3 both ways: run (or resume) the sweep, cached under ``<cache>/sweeps/conditioning``.

    The cells are those of :func:`conditioning_cells` on the data sets of ``data`` and their plan (small
    batches, first-layer kernels, the large sets' full-data seeds and depths); each is computed once by
    :func:`sweep_cell` and written to disk at once (:func:`lib.book.sweep.run_sweep`), so an interrupted run
    resumes and a finished one is only read back.

    Args:
        data: the data sets and their plan (:func:`lib.chapters.conditioning.data.load_data`).
        depths: depths L.
        width: hidden width m.
        seeds: weight draws (and batch partitions) per (data set, depth, activation).
        batch_size: the authors' batch size.
        device: torch device.
        full_method: :data:`~lib.chapters.conditioning.cells.FULL_METHODS`.
        scheduler: None (run here), ``"local"`` or a Dask scheduler address.
        threads: torch threads per cell.
        progress: show a progress bar.

    Returns:
        The sweep: one row of :func:`ntk_cell` per (data set, depth, activation, seed) in ``frame`` (grouped
        cells spread out by :func:`expand_cells`), its seed means and its settings.
    """
    depths = sorted(set(int(L) for L in depths))
    cells = conditioning_cells(data.names, depths, width, seeds, batch_size=batch_size, small=data.small,
                               first_layer=list(data.first_layer), device=device, full_method=full_method,
                               n_samples={k: n for k, (n, _) in data.sizes.items()}, full_seeds=data.full_seeds,
                               full_depths=data.full_depths)
    res = run_sweep("conditioning", sweep_cell, cells, data=data.arrays, version=CELL_VERSION, scheduler=scheduler,
                    progress=progress, desc="NTK cells", threads=threads)
    res = dataclasses.replace(res, frame=expand_cells(res.frame))
    return ConditioningSweep.from_frame(res.frame, data.names, depths, batch_size, width=int(width), seeds=int(seeds),
                                        sizes=data.sizes, data=data, run=res)
