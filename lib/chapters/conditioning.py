"""Chapter 03: NTK conditioning at initialization, [LH] Sec. 4 (Figure 3, Prop 4.1, Thm 4.2, App. F).

The sweep of [LH] Sec. 4.1: for each data set, depth L, activation (ReLU or linear) and seed,
one network of width m, its exact full n x n NTK (``lib.finite.ntk.empirical_ntk``), the minimum
pairwise gradient angle and the extreme eigenvalues. Each (data set, L, activation, seed) is
one cached cell of :func:`lib.book.sweep.run_sweep`, so the paper-size sweep resumes after an
interruption and can run on a Dask cluster. The infinite-width predictions come from
``lib.theory`` (:func:`lib.theory.relu_ntk`, :func:`lib.theory.relu_first_layer_ntk`), cached the same way.
``compute_data`` and the sweeps gather the chapter's data, ``plot_*`` draw its figures, ``check_*``
compute its verdicts (:class:`lib.book.results.Check`), ``table_*`` build its tables.
"""
from __future__ import annotations

import math
import os
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from lib.data.datasets import DataMissingError, IDX_DATASETS, load_dataset
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk, ntk_with_layer_terms
from lib.spectra import extreme_eigenvalues, min_pairwise_angle
from lib.theory import relu_first_layer_ntk, relu_gradient_angle, relu_ntk
from lib.book.plotting import figure, mark_infinite, palette
from lib.book.results import Check
from lib.book.sweep import SweepResult, run_sweep, torch_threads

__all__ = ["load_datasets", "full_and_first_layer_ntk", "ntk_cell", "theory_cell", "conditioning_cells", "run_conditioning",
           "run_theory", "summarize", "prop41_bound", "monotone_violations", "two_sample_table",
           "CELL_VERSION", "compute_data", "colors", "by", "table_datasets", "sweep_note", "plot_figure3",
           "check_figure3", "plot_prop41", "check_prop41", "plot_first_layer", "table_first_layer", "check_first_layer",
           "plot_two_sample", "check_two_sample", "plot_theory_comparison", "table_theory_comparison",
           "check_theory_prediction", "table_cell_times", "cost_note", "table_measured"]

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

    Args:
        names: data set names.
        n_synthetic, d_synthetic: size and dimension of the synthetic set.
        n_digits: digits used (None: all 1797).
        n_idx: images drawn from MNIST or Fashion-MNIST.
        n_file: rows of ``data_file`` used (None: all).
        idx_dir: folder of the IDX files.
        data_file, data_key: the user's array and its key inside an .npz file.
        unit_norm: rescale every input to unit norm.
        seed: seed of the synthetic draw and of the subsamples.

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

    K = A_L A_L^T + sum_{l=1..L} (D_l D_l^T) o (A_{l-1} A_{l-1}^T) ([LH] Sec. 2, the formulas page
    ``book/formulas.md``) and the first-layer kernel is the l = 1 term (D_1 D_1^T) o (X X^T), both from
    :func:`lib.finite.ntk.ntk_with_layer_terms`. Same values as two calls of
    :func:`lib.finite.ntk.empirical_ntk` (``layers=None`` and ``"first"``) at about half the cost.

    Args:
        net: a scalar-output :class:`lib.finite.mlp.MLP` at its current weights.
        X: inputs of shape (n, d).

    Returns:
        ``(K, K_1)``: the full n x n NTK and the first-layer kernel (``(X X^T, None)`` at depth 0).
    """
    if net.out_dim != 1:
        raise ValueError("full_and_first_layer_ntk supports scalar-output networks only")
    if net.depth == 0:
        return empirical_ntk(net, X), None
    K, terms = ntk_with_layer_terms(net, X, terms=(1,))
    return K, terms[1]


def ntk_cell(params: dict, X: np.ndarray) -> dict:
    """One cell of the [LH] Figure 3 sweep: a fresh network at initialization and its full NTK.

    ``params``: ``activation`` ("relu" or "linear"), ``depth``, ``width``, ``seed`` (weights),
    ``device``, ``first_layer`` (also the NTK with only W^(1) trainable, [LH] Thm 4.2),
    ``batch_size`` (None, or also the authors' batch-averaged kappa and angle), ``batch_seed``.

    The measurements: min pairwise gradient angle (rad), kappa (``inf`` if singular), lambda_min,
    lambda_max, the largest and smallest diagonal entry (||grad f(x)||^2), and the optional
    first-layer (``*_first``) and batch (``*_batch``) fields.

    Args:
        params: the cell's parameters (above).
        X: the data set's inputs, shape (n, d).

    Returns:
        The cell's measurements (a flat dict of numbers).
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

    Args:
        params: ``{"depth": L}``.
        X: the data set's inputs, shape (n, d).

    Returns:
        ``min_angle_relu``/``_linear`` and the spectrum fields (``kappa``, ``lambda_min``, ``lambda_max``,
        ``singular``) with suffixes ``_relu``, ``_linear``, ``_first``.
    """
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
    """The grid of [LH] Sec. 4.1: data set x depth x activation x seed (first-layer kernels for ReLU only).

    Args:
        datasets: data set names.
        depths: depths L.
        width: hidden width m.
        seeds: weight draws per (data set, depth, activation).
        activations: drawn from ``("relu", "linear")``.
        device: torch device.
        first_layer: also the first-layer kernel ([LH] Thm 4.2) for ReLU cells.
        batch_size: None, or also the authors' batch-averaged kappa and angle.

    Returns:
        One parameter dict per cell, for :func:`run_conditioning`.
    """
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
    """Run (or resume) the Figure 3 sweep: cached under ``<cache>/sweeps/conditioning``.

    Args:
        data: arrays by name.
        cells: the cells of :func:`conditioning_cells`.
        scheduler: None (run here), ``"local"`` or a Dask scheduler address.
        progress: show a progress bar.
        **kw: passed to :func:`lib.book.sweep.run_sweep` (e.g. ``threads``).

    Returns:
        The sweep, one row of :func:`ntk_cell` per cell in ``.frame``.
    """
    return run_sweep("conditioning", ntk_cell, cells, data=data, version=CELL_VERSION, scheduler=scheduler,
                     progress=progress, desc="NTK cells", **kw)


def run_theory(data: dict, depths: Iterable[int], progress: bool = True, **kw) -> SweepResult:
    """Infinite-width predictions per (data set, depth), cached under ``<cache>/sweeps/conditioning-theory``.

    Args:
        data: arrays by name.
        depths: depths L.
        progress: show a progress bar.
        **kw: passed to :func:`lib.book.sweep.run_sweep`.

    Returns:
        The sweep, one row of :func:`theory_cell` per (data set, depth) in ``.frame``.
    """
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

    Args:
        frame: the per-cell frame of :func:`run_conditioning`.

    Returns:
        One row per (dataset, activation, depth).
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

    (Rayleigh quotient of v ~ e_i/``|F_i|`` - e_j/``|F_j|`` for the pair at the minimum angle.) Adds
    ``phi2`` = phi_min^2, ``lmin_rel`` = lambda_min / max_i K_ii, ``bound_rel`` = 1 - cos phi_min,
    ``tightness`` = lmin_rel / bound_rel, and ``kappa_lower`` = 1/(1 - cos phi_min) (since
    lambda_max >= max_i K_ii, kappa >= 1/(1 - cos phi_min) >= 2/phi_min^2).

    Args:
        frame: the per-cell frame of :func:`run_conditioning`.

    Returns:
        A copy of ``frame`` with the columns above.
    """
    df = frame.copy()
    df["phi2"] = df["min_angle"] ** 2
    df["lmin_rel"] = df["lambda_min"] / df["diag_max"]
    df["bound_rel"] = 2.0 * np.sin(df["min_angle"] / 2.0) ** 2
    df["tightness"] = df["lmin_rel"] / df["bound_rel"]
    df["kappa_lower"] = 1.0 / df["bound_rel"]
    return df


def monotone_violations(values: Sequence[float], rtol: float = 1e-9) -> list[int]:
    """Indices i with values[i+1] > values[i] (1 + rtol): where a sequence fails to be non-increasing.

    Args:
        values: the sequence (e.g. kappa against depth).
        rtol: relative increase tolerated (rounding).

    Returns:
        The indices i where the sequence rises from i to i + 1 (none after an infinite value).
    """
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

    Args:
        theta_in: input angles in (0, pi] radians.
        depths: depths L.
        width: width of the finite networks.
        seeds: weight draws per depth.
        device: torch device.

    Returns:
        The frame described above, sorted by (theta_in, depth).
    """
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


# --- the chapter's tables, figures and verdicts (notebook 03) -------------------------------------------------


def compute_data(names: Sequence[str], **kw) -> tuple[dict[str, np.ndarray], str]:
    """The chapter's data sets (:func:`load_datasets`) and a Markdown note on the skipped ones ([LH] Sec. 4.1).

    Args:
        names: data set names, in legend order.
        **kw: the keyword arguments of :func:`load_datasets`.

    Returns:
        ``(arrays by name, note)``; the note is empty when nothing was skipped.

    Raises:
        RuntimeError: if none of the requested data sets is available.
    """
    data, skipped = load_datasets(names, **kw)
    note = "\n\n".join(f"> **{name} skipped.** {msg}" for name, msg in skipped.items())
    if not data:
        raise RuntimeError("none of the requested data sets is available; see the messages above"
                           + (f":\n{note}" if note else ""))
    return data, note


def colors(names: Sequence[str]) -> dict:
    """One colour of the book's palette per data set, in legend order."""
    return dict(zip(names, palette(len(names))))


def by(summary: pd.DataFrame, ds: str, act: str, col: str) -> pd.Series:
    """One column of :func:`summarize` for one data set and activation, as a depth-indexed series.

    Args:
        summary: the frame of :func:`summarize`.
        ds: data set name.
        act: ``"relu"`` or ``"linear"``.
        col: column name.

    Returns:
        The column indexed by depth.
    """
    return summary[(summary.dataset == ds) & (summary.activation == act)].set_index("depth")[col]


def table_datasets(data: dict, theory: pd.DataFrame) -> pd.DataFrame:
    """Size, rank of G = X X^T, smallest input angle and kappa_0 of each data set ([LH] Sec. 4.1, Thm 4.2).

    Args:
        data: arrays by name.
        theory: the frame of :func:`run_theory`.

    Returns:
        One row per data set: n, d, rank_G, min_input_angle_deg, kappa0.
    """
    d0 = theory.depth.min()
    return pd.DataFrame([dict(dataset=k, n=X.shape[0], d=X.shape[1], rank_G=int(np.linalg.matrix_rank(X)),
                              min_input_angle_deg=np.degrees(theory[(theory.dataset == k) & (theory.depth == d0)]
                                                             ["min_angle_linear"].iloc[0]),
                              kappa0=theory[(theory.dataset == k)]["kappa_linear"].iloc[0])
                         for k, X in data.items()]).set_index("dataset")


def sweep_note(sweep: SweepResult) -> str:
    """One line on the sweep: cells, executor, computed vs cached, wall and compute time."""
    return (f"{len(sweep.frame)} cells ({sweep.executor}): {sweep.n_computed} computed now, {sweep.n_cached} read "
            f"from {sweep.directory}; wall time of this run {sweep.wall_seconds:.1f} s; recorded compute time of all "
            f"cells {sweep.compute_seconds:.1f} s")


def plot_figure3(summary: pd.DataFrame, names: Sequence[str], depths: Sequence[int]) -> Figure:
    """[LH] Figure 3: smallest gradient angle (left) and NTK kappa (right) against depth, ReLU vs linear.

    Args:
        summary: the frame of :func:`summarize`.
        names: data sets, in legend order.
        depths: the sorted depths of the sweep.

    Returns:
        A figure with two axes; an infinite kappa is a triangle on the top edge.
    """
    S, NAMES, DEPTHS, COLORS = summary, list(names), list(depths), colors(names)
    fig, axs = figure(ncols=2, width=6.0, height=4.3)
    ax_a, ax_k = axs[0, 0], axs[0, 1]
    for ds in NAMES:
        c = COLORS[ds]
        for act, ls in (("relu", "-"), ("linear", "--")):
            ax_a.plot(DEPTHS, by(S, ds, act, "angle_mean"), ls=ls, marker="o", ms=3, color=c, label=f"{ds}, {act}")
            ax_a.fill_between(DEPTHS, by(S, ds, act, "angle_min"), by(S, ds, act, "angle_max"), color=c, alpha=0.2,
                              lw=0)
            k = by(S, ds, act, "kappa_mean")
            fin = k[np.isfinite(k)]
            if len(fin):
                ax_k.plot(fin.index, fin, ls=ls, marker="o", ms=3, color=c, label=f"{ds}, {act}")
                lo, hi = by(S, ds, act, "kappa_min")[fin.index], by(S, ds, act, "kappa_max")[fin.index]
                ax_k.fill_between(fin.index, lo, np.where(np.isfinite(hi), hi, np.nan), color=c, alpha=0.2, lw=0)
    ax_a.set(xlabel="depth L", ylabel=r"min pairwise gradient angle $\phi_{\min}$ (deg)",
             title=r"Separation: smallest gradient angle")
    ax_k.set_yscale("log")
    ax_k.set(xlabel="depth L", ylabel=r"NTK condition number $\kappa$",
             title=r"Conditioning: $\kappa$ of the full NTK")
    top = ax_k.get_ylim()[1] * 3
    ax_k.set_ylim(top=top)
    for i, ds in enumerate(NAMES):
        for j, (act, face) in enumerate((("relu", COLORS[ds]), ("linear", "none"))):
            off = (2 * i + j - (2 * len(NAMES) - 1) / 2) * 0.09
            inf_d = [L + off for L, v in by(S, ds, act, "kappa_mean").items() if np.isinf(v)]
            mark_infinite(ax_k, inf_d, y_top=top, facecolors=face, edgecolors=COLORS[ds], label=None)
    handles = [Line2D([], [], color=COLORS[ds], lw=6, alpha=0.6, label=ds) for ds in NAMES] + [
        Line2D([], [], color="0.3", ls="-", label="ReLU"), Line2D([], [], color="0.3", ls="--", label="linear"),
        Line2D([], [], color="0.3", marker="^", ls="", label=r"ReLU: $\kappa=\infty$"),
        Line2D([], [], color="0.3", marker="^", mfc="none", ls="", label=r"linear: $\kappa=\infty$")]
    ax_a.legend(handles=handles[:len(NAMES) + 2], fontsize="x-small")
    ax_k.legend(handles=handles, fontsize="x-small", loc="lower left")
    for ax in (ax_a, ax_k):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return fig


def check_figure3(summary: pd.DataFrame, theory: pd.DataFrame, data: dict, depths: Sequence[int], width: int,
                  seeds: int) -> Check:
    """[LH] Fig 3: ReLU has a larger phi_min and a smaller kappa than linear at every depth; kappa decreases.

    Rule: "reproduced" if the seed-mean ReLU angle exceeds the linear one and the seed-mean ReLU kappa is
    below the linear one at every (data set, L >= 1), and the seed-mean ReLU kappa is non-increasing in depth
    (no tolerance: any rise is reported); "reproduced with caveat" if only the monotonicity fails (at width
    512 the seed-to-seed spread of kappa is comparable with its change between consecutive large depths, so a
    3- or 5-seed mean can tick up); "not reproduced" if ReLU loses to linear anywhere. The infinite-width
    kappa (:func:`lib.theory.relu_ntk`, monotone up to 1e-9 relative rounding) is reported alongside.

    Args:
        summary: the frame of :func:`summarize`.
        theory: the frame of :func:`run_theory`.
        data: arrays by name (for n and d).
        depths: the sorted depths of the sweep (at least two).
        width: hidden width m.
        seeds: weight draws per cell.

    Returns:
        The verdict.
    """
    S, NAMES, DEPTHS = summary, list(data), list(depths)
    checks, mono = [], []
    for ds in NAMES:
        for L in DEPTHS:
            if L == 0:
                continue
            r_a, l_a = by(S, ds, "relu", "angle_mean")[L], by(S, ds, "linear", "angle_mean")[L]
            r_k, l_k = by(S, ds, "relu", "kappa_mean")[L], by(S, ds, "linear", "kappa_mean")[L]
            checks.append(dict(dataset=ds, depth=L, angle_better=r_a > l_a, kappa_better=r_k < l_k))
        k_relu = by(S, ds, "relu", "kappa_mean")
        viol = monotone_violations(k_relu.values, rtol=0.0)
        mono.append(dict(dataset=ds, violations=[int(k_relu.index[i + 1]) for i in viol]))
    checks = pd.DataFrame(checks)
    all_better = bool(checks.angle_better.all() and checks.kappa_better.all())
    mono_ok = all(not m["violations"] for m in mono)
    status = ("reproduced" if all_better and mono_ok else "reproduced with caveat" if all_better else "not reproduced")
    lines = []
    for ds in NAMES:
        Lmax = DEPTHS[-1]
        lines.append(
            f"{ds} (n={data[ds].shape[0]}, d={data[ds].shape[1]}): phi_min {by(S, ds, 'linear', 'angle_mean')[Lmax]:.3g} "
            f"deg (linear) vs {by(S, ds, 'relu', 'angle_mean')[Lmax]:.3g} deg (ReLU) at L={Lmax}; ReLU kappa "
            f"{by(S, ds, 'relu', 'kappa_mean')[DEPTHS[1]]:.3g} at L={DEPTHS[1]} -> "
            f"{by(S, ds, 'relu', 'kappa_mean')[Lmax]:.3g} at "
            f"L={Lmax}, linear kappa {by(S, ds, 'linear', 'kappa_mean')[Lmax]:.3g}")
    mono_txt = "; ".join(f"{m['dataset']}: ReLU kappa rises at L={m['violations']}" for m in mono if m["violations"])
    theory_mono = [ds for ds in NAMES if not monotone_violations(
        theory[theory.dataset == ds].sort_values("depth").kappa_relu.values, rtol=1e-9)]
    return Check(
        "[LH] Fig 3", "ReLU nets have a larger min gradient angle and smaller NTK kappa than linear nets of the "
        "same shape at every depth, and kappa decreases monotonically with depth.",
        status,
        f"Width {width}, {seeds} seeds, full NTKs. ReLU beats linear in {int(checks.angle_better.sum())}/"
        f"{len(checks)} (angle) and {int(checks.kappa_better.sum())}/{len(checks)} (kappa) data-set-depth pairs with "
        f"L >= 1. " + "; ".join(lines) + ". " +
        (f"Seed-mean ReLU kappa is non-increasing in depth on every data set." if mono_ok else
         f"Not monotone: {mono_txt}, within the seed-to-seed spread") +
        f"; the infinite-width ReLU kappa (lib.theory.relu_ntk) is non-increasing on {len(theory_mono)}/{len(NAMES)} "
        f"data sets.")


def plot_prop41(p41: pd.DataFrame, names: Sequence[str]) -> Figure:
    """[LH] Prop 4.1: lambda_min / max K_ii against phi_min^2 (left) and kappa against 1/phi_min^2 (right).

    Args:
        p41: the frame of :func:`prop41_bound` (singular cells are left out).
        names: data sets, in legend order.

    Returns:
        A figure with two axes, the bounds dashed.
    """
    COLORS = colors(names)
    fin = p41[~p41.singular]
    fig, axs = figure(ncols=2, width=5.6, height=4.2)
    ax = axs[0, 0]
    for ds in names:
        for act, mk in (("relu", "o"), ("linear", "s")):
            s = fin[(fin.dataset == ds) & (fin.activation == act)]
            if len(s):
                ax.scatter(s.phi2, s.lmin_rel, s=14, marker=mk, color=COLORS[ds], alpha=0.7,
                           facecolors=COLORS[ds] if act == "relu" else "none", label=f"{ds}, {act}")
    xs = np.geomspace(p41.phi2.min() * 0.8, p41.phi2.max() * 1.2, 50)
    ax.plot(xs, xs / 2, "k--", label=r"bound $\phi_{\min}^2/2$")
    ax.set(xscale="log", yscale="log", xlabel=r"$\phi_{\min}^2$ (rad$^2$)", ylabel=r"$\lambda_{\min}/\max_i K_{ii}$",
           title=r"$\lambda_{\min} = O(\phi_{\min}^2)$")
    ax.legend(fontsize="x-small")
    ax = axs[0, 1]
    for ds in names:
        s = fin[fin.dataset == ds]
        ax.scatter(1 / s.phi2, s.kappa, s=14, color=COLORS[ds], alpha=0.7, label=ds)
    xs = np.geomspace((1 / p41.phi2).min() * 0.8, (1 / p41.phi2).max() * 1.2, 50)
    ax.plot(xs, 2 * xs, "k--", label=r"bound $2/\phi_{\min}^2$")
    ax.set(xscale="log", yscale="log", xlabel=r"$1/\phi_{\min}^2$", ylabel=r"$\kappa$ (finite cells)",
           title=r"$\kappa = \Omega(1/\phi_{\min}^2)$")
    ax.legend(fontsize="x-small")
    return fig


def check_prop41(p41: pd.DataFrame) -> Check:
    """[LH] Prop 4.1: lambda_min(K) = O(phi_min^2) and kappa = Omega(1/phi_min^2).

    Rule: "reproduced" if every non-singular cell satisfies the explicit bounds lambda_min <= (1 - cos phi_min)
    max_i K_ii and kappa >= 1/(1 - cos phi_min), each with a 1e-9 relative allowance for float64 rounding of
    the eigenvalues; otherwise "not reproduced". Singular cells (lambda_min = 0) satisfy any bound.

    Args:
        p41: the frame of :func:`prop41_bound`.

    Returns:
        The verdict.
    """
    fin = p41[~p41.singular]
    ok_l = bool((fin.lmin_rel <= fin.bound_rel * (1 + 1e-9)).all())
    ok_k = bool((fin.kappa >= fin.kappa_lower * (1 - 1e-9)).all())
    relu_fin = fin[fin.activation == "relu"]
    rho = float(pd.Series(np.log(relu_fin.phi2)).corr(pd.Series(np.log(relu_fin.lmin_rel)), method="spearman")) \
        if len(relu_fin) > 2 else float("nan")
    return Check(
        "[LH] Prop 4.1", "lambda_min(K) = O(phi^2) and kappa = Omega(1/phi^2) for the smallest gradient angle phi.",
        "reproduced" if ok_l and ok_k else "not reproduced",
        f"All {len(fin)} non-singular cells satisfy lambda_min <= (1 - cos phi_min) max K_ii "
        f"({'yes' if ok_l else 'NO'}) and kappa >= 1/(1 - cos phi_min) ({'yes' if ok_k else 'NO'}); "
        f"the ratio lambda_min / bound lies in [{fin.tightness.min():.2g}, {fin.tightness.max():.2g}], and across "
        f"ReLU cells log lambda_min and log phi_min^2 have Spearman correlation {rho:.2f}. "
        f"{int(p41.singular.sum())} singular cells (lambda_min = 0, kappa = inf) are consistent with any angle.")


def plot_first_layer(theory: pd.DataFrame, frame: pd.DataFrame, names: Sequence[str], width: int,
                     first_layer: bool = True) -> Figure:
    """[LH] Thm 4.2: kappa of the first-layer NTK K_L against depth (left) and lambda_min(K_L) (right).

    Args:
        theory: the frame of :func:`run_theory`.
        frame: the per-cell frame of :func:`run_conditioning` (finite-width points if ``first_layer``).
        names: data sets, in legend order.
        width: hidden width m (legend).
        first_layer: whether the sweep recorded first-layer kernels.

    Returns:
        A figure with two axes.
    """
    COLORS, df = colors(names), frame
    fig, axs = figure(ncols=2, width=5.6, height=4.2)
    ax = axs[0, 0]
    for ds in names:
        t = theory[theory.dataset == ds].set_index("depth").sort_index()
        k = t.kappa_first
        ax.plot(k.index[np.isfinite(k)], k[np.isfinite(k)], "-", color=COLORS[ds], label=f"{ds}, infinite width")
        if first_layer:
            f = df[(df.dataset == ds) & (df.activation == "relu") & (df.depth >= 1)].groupby("depth")["kappa_first"]
            m = f.agg(_mean_inf)
            ok = np.isfinite(m)
            ax.errorbar(m.index[ok], m[ok], yerr=[m[ok] - f.min()[ok], f.max()[ok] - m[ok]], fmt="o", ms=4,
                        color=COLORS[ds], capsize=2, label=f"{ds}, width {width}")
        k0 = t.kappa_linear.iloc[0]
        if np.isfinite(k0):
            ax.axhline(k0, color=COLORS[ds], ls="--", lw=1, label=rf"{ds}: $\kappa_0$")
    ax.set_yscale("log")
    top = ax.get_ylim()[1] * 3
    ax.set_ylim(top=top)
    for i, ds in enumerate(names):
        t = theory[theory.dataset == ds].set_index("depth")
        mark_infinite(ax, [L + (i - 0.5) * 0.15 for L, v in t.kappa_first.items() if np.isinf(v)], y_top=top,
                      color=COLORS[ds], label=f"{ds}: " + r"$\kappa=\infty$ ($L=0$ is $G$)")
    ax.set(xlabel="depth L", ylabel=r"$\kappa(K_L)$, first layer trained", title="Thm 4.2: first-layer NTK")
    ax.legend(fontsize="x-small")
    ax = axs[0, 1]
    for ds in names:
        t = theory[theory.dataset == ds].set_index("depth").sort_index()
        ax.plot(t.index, t.lambda_min_first / t.lambda_max_first.iloc[0], "-o", ms=3, color=COLORS[ds], label=ds)
    ax.set(xlabel="depth L", ylabel=r"$\lambda_{\min}(K_L)/\lambda_{\max}(G)$", yscale="symlog",
           title=r"infinite width: $\lambda_{\min}(K_L)$ grows from $\lambda_{\min}(G)$")
    ax.set_yscale("symlog", linthresh=1e-8)
    ax.legend(fontsize="x-small")
    for ax in axs.flat:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return fig


def table_first_layer(theory: pd.DataFrame, frame: pd.DataFrame, names: Sequence[str],
                      first_layer: bool = True) -> pd.DataFrame:
    """Per data set, the [LH] Thm 4.2 quantities at infinite width and (if recorded) at finite width.

    Args:
        theory: the frame of :func:`run_theory`.
        frame: the per-cell frame of :func:`run_conditioning`.
        names: data sets.
        first_layer: whether the sweep recorded first-layer kernels.

    Returns:
        One row per data set: kappa0, below, lmin_ok, mono, kappa_L1, kappa_Lmax, fw_below, fw_mono, fw_L1, fw_Lmax.
    """
    df, rows42 = frame, []
    for ds in names:
        t = theory[theory.dataset == ds].set_index("depth").sort_index()
        k0, lmin0 = t.kappa_linear.iloc[0], t.lambda_min_linear.iloc[0] / (t.index[0] + 1)
        deep = t[t.index >= 1]
        tol = 1e-10 * t.lambda_max_first.max()
        fw = (df[(df.dataset == ds) & (df.activation == "relu") & (df.depth >= 1)].groupby("depth")["kappa_first"]
              .agg(_mean_inf) if first_layer else pd.Series(dtype=float))
        rows42.append(dict(
            dataset=ds, kappa0=k0,
            below=bool((deep.kappa_first < k0).all()), lmin_ok=bool((deep.lambda_min_first >= lmin0 - tol).all()),
            mono=monotone_violations(t.kappa_first.values, rtol=1e-9),
            kappa_L1=deep.kappa_first.iloc[0], kappa_Lmax=deep.kappa_first.iloc[-1],
            fw_below=bool((fw < k0).all()) if len(fw) else None,
            fw_mono=[int(fw.index[i + 1]) for i in monotone_violations(fw.values, rtol=0.0)] if len(fw) else [],
            fw_L1=fw.iloc[0] if len(fw) else np.nan, fw_Lmax=fw.iloc[-1] if len(fw) else np.nan))
    return pd.DataFrame(rows42).set_index("dataset")


def check_first_layer(t42: pd.DataFrame, depths: Sequence[int], width: int, first_layer: bool = True) -> Check:
    """[LH] Thm 4.2: with only W^(1) trained, lambda_min(K_L) >= lambda_min(G), kappa(K_L) < kappa_0, non-increasing.

    Rule: "reproduced" if at infinite width every data set has kappa(K_L) < kappa_0 for all L >= 1,
    lambda_min(K_L) >= lambda_min(G) up to 1e-10 lambda_max (float64 eigenvalue rounding) and kappa(K_L)
    non-increasing up to 1e-9 relative, and the finite-width seed means (if recorded) are below kappa_0 and
    non-increasing; "reproduced with caveat" if only the finite-width part fails (its kappa carries
    O(1/sqrt(m)) noise); "not reproduced" if the infinite-width statement fails. Note that kappa_0 = inf
    (singular G, n > d) makes "below" hold for any finite kappa(K_L).

    Args:
        t42: the frame of :func:`table_first_layer`.
        depths: the sorted depths of the sweep (at least two).
        width: hidden width m.
        first_layer: whether the sweep recorded first-layer kernels.

    Returns:
        The verdict.
    """
    inf_ok = bool(t42.below.all() and t42.lmin_ok.all() and all(not v for v in t42.mono))
    fw_ok = (not first_layer) or bool(t42.fw_below.all() and all(not v for v in t42.fw_mono))
    status = "reproduced" if inf_ok and fw_ok else "reproduced with caveat" if inf_ok else "not reproduced"
    txt = "; ".join(
        f"{ds}: kappa_0 = {r.kappa0:.3g}, infinite-width kappa(K_L) {r.kappa_L1:.3g} (L={depths[1]}) -> "
        f"{r.kappa_Lmax:.3g} (L={depths[-1]})" + (f", width-{width} mean {r.fw_L1:.3g} -> {r.fw_Lmax:.3g}"
                                                  + (f" (rises at L={r.fw_mono})" if r.fw_mono else "")
                                                  if first_layer else "")
        for ds, r in t42.iterrows())
    return Check(
        "[LH] Thm 4.2", "With only the first layer trained (infinite width), lambda_min(K_L) >= lambda_min(G), "
        "kappa(K_L) < kappa_0, and kappa(K_L) is non-increasing in L.",
        status,
        f"Infinite width: kappa(K_L) < kappa_0 for all L >= 1 on {int(t42.below.sum())}/{len(t42)} data sets, "
        f"lambda_min(K_L) >= lambda_min(G) on {int(t42.lmin_ok.sum())}/{len(t42)}, non-increasing on "
        f"{sum(not v for v in t42.mono)}/{len(t42)}. {txt}.")


def plot_two_sample(t2: pd.DataFrame, angles: Sequence[float]) -> Figure:
    """[LH] App. F: kappa / kappa_0 of the two-sample NTK against depth, theory (lines) and finite width (points).

    Args:
        t2: the frame of :func:`two_sample_table`.
        angles: the input angles (radians), for the palette.

    Returns:
        A figure with one axis.
    """
    fig, axs = figure(width=6.4, height=4.2)
    ax = axs[0, 0]
    cols = palette(len(angles))
    for c, (th, g) in zip(cols, t2.groupby("theta_in")):
        ax.plot(g.depth, g.kappa_theory / g.kappa0, "-", color=c, label=rf"$\theta_{{in}}$ = {th:g} rad")
        med = g.kappa_median / g.kappa0
        ax.errorbar(g.depth, med, yerr=[med - g.kappa_q10 / g.kappa0, g.kappa_q90 / g.kappa0 - med], fmt="o", ms=3,
                    color=c, capsize=2)
    ax.axhline(1.0, color="k", ls="--", lw=1, label=r"linear: $\kappa = \kappa_0$")
    ax.set(yscale="log", xlabel="depth L", ylabel=r"$\kappa / \kappa_0$", title="Two samples: ReLU vs linear")
    ax.legend(fontsize="x-small")
    for ax in axs.flat:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return fig


def check_two_sample(t2: pd.DataFrame, angles: Sequence[float], width: int, seeds: int) -> Check:
    """[LH] Thm F.1: two inputs at a small angle, all layers trained: kappa < kappa_0 and decreasing in depth.

    Rule (infinite width, exact closed form cot^2(phi/2)): "reproduced" if kappa < kappa_0 at every angle and
    L >= 1 and kappa is non-increasing in L up to 1e-12 relative (rounding of the closed form); otherwise
    "not reproduced". The finite-width medians are reported, not tested (their 2 x 2 kappa is
    ill-conditioned at small angles where 1 - cos phi is tiny).

    Args:
        t2: the frame of :func:`two_sample_table` (depths must include one >= 1 besides the first).
        angles: the input angles (radians).
        width: width of the finite networks.
        seeds: weight draws.

    Returns:
        The verdict.
    """
    deep2 = t2[t2.depth >= 1]
    below = bool((deep2.kappa_theory < deep2.kappa0).all())
    mono2 = {th: monotone_violations(g.sort_values("depth").kappa_theory.values, rtol=1e-12)
             for th, g in t2.groupby("theta_in")}
    rel = (deep2.kappa_median / deep2.kappa_theory - 1).abs()
    small = t2.theta_in.min()
    g_small = t2[t2.theta_in == small].set_index("depth")
    return Check(
        "[LH] Thm F.1", "For two inputs at a small angle, all layers trained, the ReLU NTK has kappa < kappa_0 and "
        "kappa decreases with depth.",
        "reproduced" if below and not any(mono2.values()) else "not reproduced",
        f"Infinite width, theta_in in {list(angles)} rad, L = 1..{int(t2.depth.max())}: kappa < kappa_0 "
        f"{'everywhere' if below else 'NOT everywhere'}, decreasing in L for "
        f"{sum(not v for v in mono2.values())}/{len(mono2)} angles. At theta_in = {small:g}: kappa_0 = "
        f"{g_small.kappa0.iloc[0]:.4g}, kappa = {g_small.kappa_theory.iloc[1]:.4g} at L={g_small.index[1]} and "
        f"{g_small.kappa_theory.iloc[-1]:.4g} at L={g_small.index[-1]}. Width-{width} networks "
        f"({seeds} seeds) give a seed-median kappa within {rel.median():.2g} (median over angles and "
        f"depths; max {rel.max():.2g}, at the smallest angles where 1 - cos phi is tiny) of the theory.")


def plot_theory_comparison(theory: pd.DataFrame, summary: pd.DataFrame, names: Sequence[str], width: int) -> Figure:
    """Finite-width phi_min and ReLU kappa (points) against the infinite-width prediction (lines), [LH] Fig 3.

    Args:
        theory: the frame of :func:`run_theory`.
        summary: the frame of :func:`summarize`.
        names: data sets, in legend order.
        width: hidden width m (legend).

    Returns:
        A figure with two axes.
    """
    COLORS, S = colors(names), summary
    fig, axs = figure(ncols=2, width=5.6, height=4.2)
    for ds in names:
        t = theory[theory.dataset == ds].set_index("depth").sort_index()
        c = COLORS[ds]
        ax = axs[0, 0]
        ax.plot(t.index, np.degrees(t.min_angle_relu), "-", color=c, label=f"{ds}, ReLU theory")
        ax.plot(t.index, np.degrees(t.min_angle_linear), "--", color=c, label=f"{ds}, linear theory")
        for act, mk in (("relu", "o"), ("linear", "s")):
            m, lo, hi = by(S, ds, act, "angle_mean"), by(S, ds, act, "angle_min"), by(S, ds, act, "angle_max")
            ax.errorbar(m.index, m, yerr=[m - lo, hi - m], fmt=mk, ms=3, color=c, capsize=2,
                        mfc=c if act == "relu" else "none")
        ax = axs[0, 1]
        k = t.kappa_relu
        ax.plot(k.index[np.isfinite(k)], k[np.isfinite(k)], "-", color=c, label=f"{ds}, ReLU theory")
        m = by(S, ds, "relu", "kappa_mean")
        ax.plot(m.index[np.isfinite(m)], m[np.isfinite(m)], "o", ms=4, color=c, label=f"{ds}, ReLU width {width}")
    axs[0, 0].set(xlabel="depth L", ylabel=r"$\phi_{\min}$ (deg)", title="min gradient angle: measured vs theory")
    axs[0, 0].legend(fontsize="x-small")
    axs[0, 1].set(xlabel="depth L", ylabel=r"$\kappa$", yscale="log", title=r"ReLU $\kappa$: measured vs theory")
    axs[0, 1].legend(fontsize="x-small")
    for ax in axs.flat:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return fig


def table_theory_comparison(theory: pd.DataFrame, summary: pd.DataFrame, names: Sequence[str],
                            depths: Sequence[int]) -> pd.DataFrame:
    """Seed-mean phi_min (deg) and ReLU kappa against the infinite-width values, per (data set, depth).

    Args:
        theory: the frame of :func:`run_theory`.
        summary: the frame of :func:`summarize`.
        names: data sets.
        depths: depths of the sweep.

    Returns:
        Columns dataset, depth, angle_relu(_theory), angle_linear(_theory), kappa_relu(_theory), angle_rel_dev.
    """
    S, cmp_rows = summary, []
    for ds in names:
        t = theory[theory.dataset == ds].set_index("depth").sort_index()
        for L in depths:
            cmp_rows.append(dict(
                dataset=ds, depth=L,
                angle_relu=by(S, ds, "relu", "angle_mean")[L], angle_relu_theory=np.degrees(t.min_angle_relu[L]),
                angle_linear=by(S, ds, "linear", "angle_mean")[L],
                angle_linear_theory=np.degrees(t.min_angle_linear[L]),
                kappa_relu=by(S, ds, "relu", "kappa_mean")[L], kappa_relu_theory=t.kappa_relu[L]))
    cmp = pd.DataFrame(cmp_rows)
    cmp["angle_rel_dev"] = (cmp.angle_relu / cmp.angle_relu_theory - 1).abs()
    return cmp


def check_theory_prediction(cmp: pd.DataFrame, width: int) -> Check:
    """[LH] Fig 3 (infinite-width prediction): Lemma 3.1 / Theta^(L) predict the finite-width phi_min and kappa.

    Rule: "reproduced" if the largest relative deviation of the seed-mean ReLU phi_min from the
    infinite-width value is below 5/sqrt(m) (finite-width fluctuations of an angle are O(1/sqrt(m)); 5 such
    units cover the downward bias of a minimum over n(n-1)/2 noisy pairs), else "reproduced with caveat".
    This check cannot return "not reproduced" as written.

    Args:
        cmp: the frame of :func:`table_theory_comparison`.
        width: hidden width m.

    Returns:
        The verdict.
    """
    fin_k = cmp[np.isfinite(cmp.kappa_relu) & np.isfinite(cmp.kappa_relu_theory)]
    k_ratio = (fin_k.kappa_relu / fin_k.kappa_relu_theory)
    worst = cmp.loc[cmp.angle_rel_dev.idxmax()]
    tol = 5.0 / math.sqrt(width)
    return Check(
        "[LH] Fig 3 (infinite-width prediction)", "The infinite-width theory (Lemma 3.1 angles, NTK "
        "Theta^(L)) predicts the finite-width min gradient angle and kappa of Figure 3.",
        "reproduced" if cmp.angle_rel_dev.max() < tol else "reproduced with caveat",
        f"Measured ReLU phi_min is within {cmp.angle_rel_dev.median():.2g} (median) and {cmp.angle_rel_dev.max():.2g} "
        f"(max, {worst.dataset} L={worst.depth}) relative of the prediction (tolerance 5/sqrt(m) = {tol:.2g}); the "
        f"finite-width ReLU kappa is {k_ratio.min():.3g} to {k_ratio.max():.3g} times the infinite-width kappa "
        f"(finite width adds noise to the smallest eigenvalue).")


def table_cell_times(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean seconds per cell by data set (rows) and depth (columns)."""
    return frame.groupby(["dataset", "depth"])["seconds"].mean().unstack("depth")


def cost_note(sweep: SweepResult, data: dict, depths: Sequence[int], width: int, profile: str) -> str:
    """A Markdown paragraph on the cost of the sweep on this machine, against "hours" per NTK in [LH] Sec. 4.1.

    Args:
        sweep: the result of :func:`run_conditioning`.
        data: arrays by name.
        depths: the sorted depths of the sweep.
        width: hidden width m.
        profile: parameter profile of the run.

    Returns:
        The paragraph (includes the machine's load average).
    """
    df = sweep.frame
    nmax_ds = max(data, key=lambda k: data[k].shape[0])
    per_ntk = df[(df.dataset == nmax_ds) & (df.depth == depths[-1])]["seconds"].mean()
    return (
        f"Profile **{profile}**: {len(df)} cells on {os.cpu_count()} CPU core(s) ({sweep.executor}). Recorded "
        f"compute time of the whole sweep (sum over cells, as measured when each ran): "
        f"**{sweep.compute_seconds / 60:.1f} min**; this run's wall time {sweep.wall_seconds:.1f} s "
        f"({sweep.n_cached} cells read from the cache). "
        f"Largest kernel: {nmax_ds}, n = {data[nmax_ds].shape[0]}, depth {depths[-1]}, width {width}: "
        f"{per_ntk:.2f} s per cell, against 'hours' per NTK on an A100 in the paper. The machine's load average "
        f"(runnable processes, all users) at the end of this run was {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores: cell times include waiting for the CPU.")


def table_measured(summary: pd.DataFrame, data: dict, batch_size: int | None = None) -> pd.DataFrame:
    """The closing table: seed-mean phi_min (deg) and kappa by (data set, depth), ReLU vs linear.

    Args:
        summary: the frame of :func:`summarize`.
        data: arrays by name (row order and n, d in the index).
        batch_size: if set, also the authors' batch-averaged kappa and phi_min ([LH] Sec. 4.1).

    Returns:
        Indexed by (dataset, depth).
    """
    S, tabs = summary, {}
    for ds in data:
        tab = pd.DataFrame({
            "phi_min ReLU": by(S, ds, "relu", "angle_mean"), "phi_min linear": by(S, ds, "linear", "angle_mean"),
            "kappa ReLU": by(S, ds, "relu", "kappa_mean"), "kappa linear": by(S, ds, "linear", "kappa_mean"),
            "singular seeds ReLU": by(S, ds, "relu", "n_inf"), "singular seeds linear": by(S, ds, "linear", "n_inf")})
        if batch_size:
            tab[f"kappa ReLU, batch {batch_size}"] = by(S, ds, "relu", "kappa_batch_mean")
            tab[f"phi_min ReLU, batch {batch_size}"] = by(S, ds, "relu", "angle_batch_mean")
        tabs[f"{ds} (n = {data[ds].shape[0]}, d = {data[ds].shape[1]})"] = tab
    return pd.concat(tabs, names=["dataset", "depth"])
