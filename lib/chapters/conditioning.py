"""Chapter 03: NTK conditioning at initialization, [LH] Sec. 4 (Figure 3, Prop 4.1, Thm 4.2, App. F).

The sweep of [LH] Sec. 4.1: for each data set, depth L, activation (ReLU or linear) and seed,
one network of width m, its exact full n x n NTK (``lib.finite.ntk.empirical_ntk``), the minimum
pairwise gradient angle and the extreme eigenvalues. Each (data set, L, activation, seed) is
one cached cell of :func:`lib.book.sweep.run_sweep`, so the paper-size sweep resumes after an
interruption and can run on a Dask cluster. The infinite-width predictions come from
``lib.theory`` (:func:`relu_ntk`, :func:`relu_first_layer_ntk`), cached the same way.
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from lib.data.datasets import DataMissingError, IDX_DATASETS, load_dataset
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk, layer_factors
from lib.spectra import extreme_eigenvalues, min_pairwise_angle
from lib.book.sweep import SweepResult, run_sweep, torch_threads

__all__ = ["load_datasets", "full_and_first_layer_ntk", "ntk_cell", "theory_cell", "conditioning_cells", "run_conditioning",
           "run_theory", "summarize", "prop41_bound", "monotone_violations", "two_sample_table",
           "CELL_VERSION"]

#: bump when :func:`ntk_cell` or :func:`theory_cell` change what they compute (old cache cells stop matching)
CELL_VERSION = "2"
ACTIVATIONS = ("relu", "linear")


def load_datasets(names: Sequence[str], *, n_synthetic: int, d_synthetic: int = 5, n_digits: int | None = None,
                  n_idx: int = 2000, n_file: int | None = None, idx_dir=None, data_file=None,
                  data_key: str | None = None, unit_norm: bool = False, seed: int = 0
                  ) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """The data sets of the chapter by name; MNIST-style sets whose files are absent are skipped.

    Names: ``synthetic`` (n_synthetic x d_synthetic Gaussian), ``digits`` (n_digits of 1797, None = all),
    ``mnist`` / ``fashion_mnist`` (n_idx training images from IDX files under ``idx_dir``),
    ``file`` (n_file rows of the user's ``data_file``). Real sets are subsampled with ``seed``.

    Returns:
        (arrays by name, messages by name for the skipped ones, saying what is missing and where).
    """
    data, skipped = {}, {}
    for name in names:
        opts = dict(seed=seed, unit_norm=unit_norm)
        try:
            if name == "synthetic":
                X = load_dataset(name, n=n_synthetic, d=d_synthetic, **opts)
            elif name == "digits":
                X = load_dataset(name, n=n_digits, **opts)
            elif name in IDX_DATASETS:
                X = load_dataset(name, n=n_idx, idx_dir=idx_dir, **opts)
            elif name == "file":
                if data_file is None:
                    raise DataMissingError("data set 'file' was asked for but no data_file was given")
                X = load_dataset(name, n=n_file, path=data_file, key=data_key, **opts)
            else:
                X = load_dataset(name)  # raises the unknown-name error
        except DataMissingError as exc:
            skipped[name] = str(exc)
            continue
        data[name] = X
    return data, skipped


def _spectrum_fields(K: np.ndarray, suffix: str = "") -> dict:
    sp = extreme_eigenvalues(K)
    return {f"kappa{suffix}": sp.kappa, f"lambda_min{suffix}": sp.lambda_min,
            f"lambda_max{suffix}": sp.lambda_max, f"singular{suffix}": sp.singular}


def _batch_fields(K: np.ndarray, batch_size: int, seed: int) -> dict:
    """The authors' protocol: NTKs of disjoint batches (principal sub-matrices), kappa and min angle averaged."""
    n = K.shape[0]
    perm = np.random.default_rng(seed).permutation(n)
    nb = max(1, n // batch_size)
    kappas, angles = [], []
    for b in range(nb):
        idx = np.sort(perm[b * batch_size:(b + 1) * batch_size] if n >= batch_size else perm)
        sub = K[np.ix_(idx, idx)]
        kappas.append(extreme_eigenvalues(sub).kappa)
        angles.append(min_pairwise_angle(sub))
    return {"kappa_batch": float(np.mean(kappas)), "min_angle_batch": float(np.mean(angles)), "n_batches": nb}


def full_and_first_layer_ntk(net: MLP, X) -> tuple[np.ndarray, np.ndarray | None]:
    """The full NTK and the first-layer-only NTK ([LH] Thm 4.2) from one forward/backward pass.

    With the factors of :func:`lib.finite.ntk.layer_factors` (THEORY.md Sec. 2),
    K = A_L A_L^T + sum_{l=1..L} (D_l D_l^T) o (A_{l-1} A_{l-1}^T) and the first-layer kernel is
    the l = 1 term (D_1 D_1^T) o (X X^T). Same values as two calls of :func:`lib.finite.ntk.empirical_ntk`
    (``layers=None`` and ``"first"``) at about half the cost. Depth 0: (X X^T, None). Scalar output only.
    """
    if net.out_dim != 1:
        raise ValueError("full_and_first_layer_ntk supports scalar-output networks only")
    A, D = layer_factors(net, X)
    L = net.depth
    K = A[L] @ A[L].T
    first = None
    for l in range(1, L + 1):
        term = (D[0][l - 1] @ D[0][l - 1].T) * (A[l - 1] @ A[l - 1].T)
        if l == 1:
            first = term.cpu().numpy().copy()
        K += term
    return K.cpu().numpy(), first


def ntk_cell(params: dict, X: np.ndarray) -> dict:
    """One cell of the [LH] Figure 3 sweep: a fresh network at initialization and its full NTK.

    ``params``: ``activation`` ("relu" or "linear"), ``depth``, ``width``, ``seed`` (weights),
    ``device``, ``first_layer`` (also the NTK with only W^(1) trainable, [LH] Thm 4.2),
    ``batch_size`` (None, or also the authors' batch-averaged kappa and angle), ``batch_seed``.

    Returns min pairwise gradient angle (rad), kappa (``inf`` if singular), lambda_min,
    lambda_max, the largest and smallest diagonal entry (||grad f(x)||^2), and the optional
    first-layer (``*_first``) and batch (``*_batch``) fields.
    """
    net = MLP(X.shape[1], int(params["width"]), int(params["depth"]), activation=params["activation"],
              seed=int(params["seed"]), device=params.get("device", "cpu"))
    if params.get("first_layer") and net.depth >= 1:
        K, K1 = full_and_first_layer_ntk(net, X)
    else:
        K, K1 = empirical_ntk(net, X), None
    diag = np.diag(K)
    out = {"min_angle": min_pairwise_angle(K), **_spectrum_fields(K),
           "diag_max": float(diag.max()), "diag_min": float(diag.min()), "n": int(X.shape[0]), "d": int(X.shape[1])}
    if params.get("batch_size"):
        out.update(_batch_fields(K, int(params["batch_size"]), int(params.get("batch_seed", 0))))
    del K
    if K1 is not None:
        out.update(_spectrum_fields(K1, "_first"))
    return out


def theory_cell(params: dict, X: np.ndarray) -> dict:
    """Infinite-width predictions for one (data set, depth) from ``lib.theory`` ([LH] Lemma 3.1, Thm 4.2).

    ReLU: the NTK Theta^(L) (:func:`lib.theory.relu_ntk`); its min gradient angle and spectrum.
    Linear: (L+1) G ([LH] Cor 2.4), whose kappa is kappa_0 and whose angles are the input angles.
    First layer only: K_L = G o P_L (:func:`lib.theory.relu_first_layer_ntk`).
    """
    from lib.theory import relu_first_layer_ntk, relu_ntk
    L = int(params["depth"])
    K = relu_ntk(X, L)
    G = X @ X.T
    out = {"min_angle_relu": min_pairwise_angle(K), **_spectrum_fields(K, "_relu"),
           "min_angle_linear": min_pairwise_angle(G), **_spectrum_fields((L + 1) * G, "_linear")}
    out.update(_spectrum_fields(relu_first_layer_ntk(X, L), "_first"))
    return out


def conditioning_cells(datasets: Iterable[str], depths: Iterable[int], width: int, seeds: int, *,
                       activations: Sequence[str] = ACTIVATIONS, device: str = "cpu", first_layer: bool = True,
                       batch_size: int | None = None) -> list[dict]:
    """The grid of [LH] Sec. 4.1: data set x depth x activation x seed (first-layer kernels for ReLU only)."""
    bad = [a for a in activations if a not in ACTIVATIONS]
    if bad:
        raise ValueError(f"activations must be drawn from {ACTIVATIONS}, got {bad}")
    cells = []
    for ds in datasets:
        for L in depths:
            for act in activations:
                for s in range(seeds):
                    c = dict(dataset=ds, depth=int(L), activation=act, width=int(width), seed=s, device=device,
                             first_layer=bool(first_layer and act == "relu"), batch_size=batch_size)
                    if batch_size:
                        c["batch_seed"] = 0
                    cells.append(c)
    return cells


def run_conditioning(data: dict, cells: list[dict], scheduler=None, progress: bool = True,
                     **kw) -> SweepResult:
    """Run (or resume) the Figure 3 sweep: cached under ``<cache>/sweeps/conditioning``."""
    return run_sweep("conditioning", ntk_cell, cells, data=data, version=CELL_VERSION, scheduler=scheduler,
                     progress=progress, desc="NTK cells", **kw)


def run_theory(data: dict, depths: Iterable[int], progress: bool = True, **kw) -> SweepResult:
    """Infinite-width predictions per (data set, depth), cached under ``<cache>/sweeps/conditioning-theory``."""
    cells = [dict(dataset=ds, depth=int(L)) for ds in data for L in depths]
    return run_sweep("conditioning-theory", theory_cell, cells, data=data, version=CELL_VERSION,
                     progress=progress, desc="theory cells", **kw)


def _mean_inf(s: pd.Series) -> float:
    """Mean over seeds; ``inf`` as soon as one seed is infinite (the average of an infinite kappa is infinite)."""
    return math.inf if np.isinf(s).any() else float(s.mean())


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean and spread over seeds per (dataset, activation, depth); angles in degrees.

    Columns: ``angle_mean/min/max`` (deg), ``kappa_mean`` (inf if any seed is singular),
    ``kappa_min/max``, ``n_inf`` (singular seeds), ``lambda_min_mean``, ``lambda_max_mean``,
    and ``kappa_first_mean``, ``kappa_batch_mean``, ``angle_batch_mean`` when present.
    """
    df = frame.copy()
    df["angle_deg"] = np.degrees(df["min_angle"])
    g = df.groupby(["dataset", "activation", "depth"], sort=True)
    out = pd.DataFrame({
        "angle_mean": g["angle_deg"].mean(), "angle_min": g["angle_deg"].min(), "angle_max": g["angle_deg"].max(),
        "kappa_mean": g["kappa"].agg(_mean_inf), "kappa_min": g["kappa"].min(), "kappa_max": g["kappa"].max(),
        "n_inf": g["kappa"].agg(lambda s: int(np.isinf(s).sum())), "seeds": g["seed"].nunique(),
        "lambda_min_mean": g["lambda_min"].mean(), "lambda_max_mean": g["lambda_max"].mean(),
    })
    if "kappa_first" in df:
        out["kappa_first_mean"] = g["kappa_first"].agg(lambda s: _mean_inf(s.dropna()) if s.notna().any() else np.nan)
    if "kappa_batch" in df:
        out["kappa_batch_mean"] = g["kappa_batch"].agg(_mean_inf)
        out["angle_batch_mean"] = np.degrees(g["min_angle_batch"].mean())
    return out.reset_index()


def prop41_bound(frame: pd.DataFrame) -> pd.DataFrame:
    """[LH] Prop 4.1 per cell: lambda_min <= (1 - cos phi_min) max_i K_ii <= phi_min^2/2 max_i K_ii.

    (Rayleigh quotient of v ~ e_i/|F_i| - e_j/|F_j| for the pair at the minimum angle.) Adds
    ``phi2`` = phi_min^2, ``lmin_rel`` = lambda_min / max_i K_ii, ``bound_rel`` = 1 - cos phi_min,
    ``tightness`` = lmin_rel / bound_rel, and ``kappa_lower`` = 1/(1 - cos phi_min) (since
    lambda_max >= max_i K_ii, kappa >= 1/(1 - cos phi_min) >= 2/phi_min^2).
    """
    df = frame.copy()
    df["phi2"] = df["min_angle"] ** 2
    df["lmin_rel"] = df["lambda_min"] / df["diag_max"]
    df["bound_rel"] = 2.0 * np.sin(df["min_angle"] / 2.0) ** 2
    df["tightness"] = df["lmin_rel"] / df["bound_rel"]
    df["kappa_lower"] = 1.0 / df["bound_rel"]
    return df


def monotone_violations(values: Sequence[float], rtol: float = 1e-9) -> list[int]:
    """Indices i with values[i+1] > values[i] (1 + rtol): where a sequence fails to be non-increasing."""
    v = np.asarray(values, dtype=float)
    return [i for i in range(len(v) - 1) if v[i + 1] > v[i] * (1 + rtol) and not (np.isinf(v[i]))]


def _two_point_kappa(K: np.ndarray) -> float:
    return extreme_eigenvalues(K).kappa


def two_sample_table(theta_in: Sequence[float], depths: Sequence[int], width: int, seeds: int,
                     device: str = "cpu") -> pd.DataFrame:
    """[LH] App. F: two unit inputs at angle theta_in, all layers trained.

    Infinite width: K = (L+1) [[1, cos phi], [cos phi, 1]], so kappa = (1 + cos phi)/(1 - cos phi)
    = cot^2(phi/2) with phi from :func:`lib.theory.relu_gradient_angle`; the linear network has
    kappa_0 = cot^2(theta_in/2). Finite width: the exact 2 x 2 NTK of ``seeds`` ReLU networks per
    depth (one network serves every angle: its NTK on x_0 and all x_theta, 2 x 2 blocks taken out).
    One row per (theta_in, depth): ``phi``, ``kappa_theory``, ``kappa0``, and over seeds ``kappa_mean``,
    ``kappa_sd``, ``kappa_median``, ``kappa_q10``, ``kappa_q90``.
    """
    from lib.theory import relu_gradient_angle
    th = np.asarray(theta_in, dtype=float)
    if th.ndim != 1 or th.size == 0 or not np.all((th > 0) & (th <= math.pi)):
        raise ValueError(f"theta_in must be angles in (0, pi] radians, got {theta_in!r}")
    X = np.vstack([[1.0, 0.0], np.column_stack([np.cos(th), np.sin(th)])])
    k0 = 1.0 / np.tan(th / 2.0) ** 2
    rows = []
    for L in depths:
        ks = np.empty((seeds, th.size))
        for s in range(seeds):
            with torch_threads(1):  # 3-row inputs: more threads only wait for each other
                K = empirical_ntk(MLP(2, width, int(L), "relu", seed=s, device=device), X)
            for j in range(th.size):
                ks[s, j] = _two_point_kappa(K[np.ix_([0, j + 1], [0, j + 1])])
        phi = np.asarray(relu_gradient_angle(th, int(L)), dtype=float)
        for j in range(th.size):
            rows.append(dict(theta_in=float(th[j]), depth=int(L), phi=float(phi[j]),
                             kappa_theory=float(1.0 / np.tan(phi[j] / 2.0) ** 2), kappa0=float(k0[j]),
                             kappa_mean=float(ks[:, j].mean()), kappa_sd=float(ks[:, j].std()),
                             kappa_median=float(np.median(ks[:, j])), kappa_q10=float(np.quantile(ks[:, j], 0.1)),
                             kappa_q90=float(np.quantile(ks[:, j], 0.9))))
    return pd.DataFrame(rows).sort_values(["theta_in", "depth"]).reset_index(drop=True)
