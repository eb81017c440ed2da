"""Chapter 06: conditioning and optimization speed ([LH] Sec. 5; the formulas page, book/formulas.md).

- :func:`gd_depth_study`: full-batch GD on the sum square loss of wide ReLU nets of several
  depths, with the worst-case bounds (1 - eta lambda_min / 2)^t and (1 - 1/kappa)^t computed from
  the measured NTK at initialization, and the linearized prediction 1/2 ||(I - eta K)^t r_0||^2.
- :func:`sgd_depth_study`: [LH] Figure 4 / Table 1: mini-batch SGD with cross-entropy on a
  classification set, learning rate chosen per depth by a small grid search.

Every GD run, grid search and SGD run is cached with :func:`lib.book.sweep.cached_call` (one
JSON record each), so an interrupted chapter resumes from the finished runs.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from matplotlib import colormaps
from matplotlib.figure import Figure
from scipy.stats import spearmanr

from lib.book.plotting import figure
from lib.book.results import Check
from lib.book.sweep import cached_call
from lib.data.datasets import DataMissingError, load_digits_subset, load_idx_dataset
from lib.progress import tqdm

from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.spectra import extreme_eigenvalues
from lib.finite.training import gd_train, linearized_losses, lr_grid_search, sgd_train

__all__ = ["PAPER_TABLE1", "gd_depth_study", "late_rate", "train_test_split", "sgd_depth_study", "accuracy_table",
           "table_gd_rates", "plot_gd_bounds", "check_worst_case", "SGDStudy", "compute_sgd_digits", "sgd_summary",
           "table_lr_grid", "plot_loss_curves", "depth_speed", "check_depth_speed", "IdxStudies",
           "compute_idx_studies", "idx_summary", "plot_idx_curves", "plot_accuracy", "check_accuracy"]

#: Test accuracy (%) on MNIST by depth, [LH] Table 1.
PAPER_TABLE1 = {1: 95.98, 3: 97.43, 6: 97.57, 8: 97.52, 10: 97.39, 12: 97.19}

DTYPES = {"float32": torch.float32, "float64": torch.float64}


def gd_depth_study(X, y, depths, width: int, steps: int, seed: int = 0, activation: str = "relu") -> dict:
    """GD with eta = 1 / lambda_max(K(w_0)) on ReLU nets of each depth ([LH] Sec. 5).

    Returns ``{depth: dict}`` with the measured ``loss`` (t = 0..steps), ``bound_lmin``
    = L0 (1 - eta lambda_min / 2)^t, ``bound_kappa`` = L0 (1 - 1/kappa)^t, ``linear`` (the
    linearized-model loss), and ``lambda_min``, ``lambda_max``, ``kappa``, ``eta``.

    Args:
        X: inputs (n, d).
        y: targets (n,).
        depths: depths L.
        width: hidden width m.
        steps: GD steps.
        seed: weight seed.
        activation: hidden activation.

    Returns:
        The dict described above (each depth cached with :func:`lib.book.sweep.cached_call`).
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    out = {}
    for L in tqdm(list(depths), desc="GD by depth", leave=False):
        def run(L=L):
            net = MLP(X.shape[1], width, L, activation=activation, seed=seed)
            K = empirical_ntk(net, X)
            sp = extreme_eigenvalues(K)
            eta = 1.0 / sp.lambda_max
            with torch.no_grad():
                r0 = (net(X) - torch.as_tensor(y)).numpy()
            res = gd_train(net, X, y, eta, steps, "square", progress=False, desc=f"depth {L}")
            t = np.arange(len(res["loss"]))
            L0 = res["loss"][0]
            return dict(depth=L, loss=res["loss"], lambda_min=sp.lambda_min, lambda_max=sp.lambda_max,
                        kappa=sp.kappa, eta=eta, bound_lmin=L0 * (1 - eta * sp.lambda_min / 2) ** t,
                        bound_kappa=L0 * (1 - 1 / sp.kappa) ** t, linear=linearized_losses(K, r0, eta, steps))
        key = dict(L=L, m=width, steps=steps, seed=seed, act=activation, X=X, y=y)
        out[L] = cached_call("06_optimization_gd", key, run, version="1")
    return out


def late_rate(loss, frac: float = 0.5, floor: float = 1e-10) -> float:
    """Per-step contraction factor (L_T / L_s)^(1/(T-s)) over the last ``frac`` of the run.

    The run is first cut where L_t / L_0 falls below ``floor`` (rounding noise, not optimization).

    Args:
        loss: the loss per step.
        frac: the fraction of the run (its end) over which the factor is taken.
        floor: relative loss below which the run is cut.

    Returns:
        The per-step factor.
    """
    loss = np.asarray(loss, dtype=float)
    above = np.flatnonzero(loss > floor * loss[0])
    T = int(above[-1]) if above.size else 0
    s = int(T * (1 - frac))
    if T - s < 1 or loss[s] <= 0 or loss[-1] <= 0:
        raise ValueError("need a run of at least 2 steps with positive losses")
    return float((loss[-1] / loss[s]) ** (1.0 / (T - s)))


def train_test_split(X, y, n_test: int, seed: int = 0):
    """Random held-out split (seeded): returns X_train, y_train, X_test, y_test.

    Args:
        X: inputs.
        y: labels.
        n_test: held-out points (1..n-1).
        seed: seed of the permutation.

    Returns:
        (X_train, y_train, X_test, y_test).
    """
    n = len(X)
    if not 0 < n_test < n:
        raise ValueError(f"n_test must lie in 1..{n - 1} for {n} samples, got {n_test}")
    perm = np.random.default_rng(seed).permutation(n)
    te, tr = perm[:n_test], perm[n_test:]
    return X[tr], y[tr], X[te], y[te]


def sgd_depth_study(Xtr, ytr, Xte, yte, depths, width: int, lrs, search_epochs: int, epochs: int,
                    batch_size: int, seeds: int, dtype: str = "float32", tag: str = "digits") -> tuple[pd.DataFrame, pd.DataFrame]:
    """[LH] Figure 4 and Table 1: cross-entropy SGD on ReLU nets of each depth.

    Per depth, the learning rate is the one of ``lrs`` with the smallest training loss after
    ``search_epochs`` epochs (seed 0, :func:`lib.finite.training.lr_grid_search`); then every seed trains
    for ``epochs`` epochs. The batch is ``min(batch_size, n_train)``.

    Returns (grid, runs): ``grid`` has one row per (depth, lr) with the search loss and a
    ``chosen`` flag; ``runs`` one row per (depth, seed) with ``lr``, ``train_loss`` (array over
    epochs 0..E), ``test_acc`` and ``seconds``.

    Args:
        Xtr, ytr: training inputs and labels.
        Xte, yte: held-out inputs and labels.
        depths: depths L.
        width: hidden width m.
        lrs: the learning-rate grid.
        search_epochs: epochs of each grid-search run.
        epochs: training epochs.
        batch_size: SGD batch.
        seeds: seeds per depth.
        dtype: ``"float32"`` or ``"float64"``.
        tag: data set name (in the rows).

    Returns:
        (grid, runs) as described above.
    """
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {sorted(DTYPES)}, got {dtype!r}")
    dt = DTYPES[dtype]
    k = int(np.max(ytr)) + 1
    bs = min(int(batch_size), len(Xtr))
    d = Xtr.shape[1]
    base = dict(m=width, bs=bs, dt=dtype, X=np.asarray(Xtr), y=np.asarray(ytr), Xt=np.asarray(Xte))
    grid_rows, run_rows = [], []
    for L in tqdm(list(depths), desc=f"SGD by depth ({tag})", leave=False):
        def search(L=L):
            def make():
                return MLP(d, width, L, activation="relu", seed=0, dtype=dt, out_dim=k)
            return lr_grid_search(make, Xtr, ytr, lrs, search_epochs, bs, seed=0, progress=False)
        best, scores = cached_call("06_optimization_grid", dict(base, L=L, lrs=list(lrs), e=search_epochs), search,
                                   version="1")
        grid_rows += [dict(dataset=tag, depth=L, lr=lr, search_loss=s, chosen=lr == best) for lr, s in scores.items()]
        for s in range(seeds):
            def run(L=L, s=s, lr=best):
                t0 = time.perf_counter()
                net = MLP(d, width, L, activation="relu", seed=s, dtype=dt, out_dim=k)
                res = sgd_train(net, Xtr, ytr, lr, epochs, bs, seed=s, loss="ce", X_test=Xte, y_test=yte,
                                progress=False)
                return dict(dataset=tag, depth=L, seed=s, lr=lr, train_loss=res["train_loss"],
                            test_acc=res["test_acc"], diverged=res["diverged"], seconds=time.perf_counter() - t0)
            run_rows.append(cached_call("06_optimization_sgd", dict(base, L=L, s=s, lr=best, e=epochs,
                                                                  yt=np.asarray(yte)), run, version="1"))
    return pd.DataFrame(grid_rows), pd.DataFrame(run_rows)


def accuracy_table(runs: pd.DataFrame, depths, paper: dict | None = None) -> pd.DataFrame:
    """Test accuracy (%) by depth: mean, sd and count over seeds, next to the paper's numbers if given.

    Args:
        runs: the ``runs`` of :func:`sgd_depth_study`.
        depths: the depths to keep.
        paper: ``{depth: accuracy %}`` of [LH] Table 1, or None.

    Returns:
        A frame indexed by depth.
    """
    sub = runs[runs.depth.isin(list(depths))]
    g = sub.groupby("depth")["test_acc"]
    tab = pd.DataFrame({"mean (%)": 100 * g.mean(), "sd (%)": 100 * g.std(ddof=1), "seeds": g.count()})
    if paper is not None:
        tab["[LH] MNIST (%)"] = [paper.get(int(L), np.nan) for L in tab.index]
    return tab


# ---------------------------------------------------------------- the chapter: tables, figures, verdicts
def table_gd_rates(gd: dict, depths) -> pd.DataFrame:
    """Per depth: kappa, the measured late factor, the linearized and bound factors, and measured/bound ratios.

    Args:
        gd: :func:`gd_depth_study` output.
        depths: the depths, in the order of the rows.

    Returns:
        A frame indexed by ``depth`` with columns ``kappa``, ``measured late factor``,
        ``(1-eta lmin)^2``, ``1-eta lmin/2``, ``1-1/kappa``, ``max_t measured/bound`` and
        ``loss/bound at the end`` (both against the (1 - 1/kappa)^t bound).
    """
    tab = pd.DataFrame({
        "kappa": {L: gd[L]["kappa"] for L in depths},
        "measured late factor": {L: late_rate(gd[L]["loss"]) for L in depths},
        "(1-eta lmin)^2": {L: (1 - gd[L]["eta"] * gd[L]["lambda_min"]) ** 2 for L in depths},
        "1-eta lmin/2": {L: 1 - gd[L]["eta"] * gd[L]["lambda_min"] / 2 for L in depths},
        "1-1/kappa": {L: 1 - 1 / gd[L]["kappa"] for L in depths},
        "max_t measured/bound": {L: float(np.max(gd[L]["loss"] / gd[L]["bound_kappa"])) for L in depths},
        "loss/bound at the end": {L: gd[L]["loss"][-1] / gd[L]["bound_kappa"][-1] for L in depths},
    })
    tab.index.name = "depth"
    return tab


def plot_gd_bounds(gd: dict, depths) -> Figure:
    """Figure 6.1: relative GD loss per depth with the two worst-case bounds and the linearized prediction.

    Args:
        gd: :func:`gd_depth_study` output.
        depths: one panel per depth (4 panels per row).

    Returns:
        The figure (4 x ceil(len/4) axes for more than 4 depths, else len(depths); unused ones hidden).
    """
    nd = len(depths)
    fig, axs = figure(ncols=min(nd, 4), nrows=(nd + 3) // 4, width=3.6, height=3.3, sharey=True)
    for i, L in enumerate(depths):
        ax = axs.flat[i]
        r = gd[L]
        L0 = r["loss"][0]
        ax.semilogy(r["loss"] / L0, lw=2.5, label="measured")
        ax.semilogy(r["linear"] / L0, "--", label=r"linearized $\frac{1}{2}\|(I-\eta K)^t r_0\|^2$")
        ax.semilogy(r["bound_lmin"] / L0, ":", label=r"$(1-\eta\lambda_{\min}/2)^t$")
        ax.semilogy(r["bound_kappa"] / L0, "-.", label=r"$(1-1/\kappa)^t$")
        ax.set(title=f"depth L={L}, $\\kappa$={r['kappa']:.0f}", xlabel="GD step t", ylim=(1e-16, 2))
        if i % 4 == 0:
            ax.set_ylabel(r"$\mathcal{L}(w_t)/\mathcal{L}(w_0)$")
    for ax in list(axs.flat)[nd:]:
        ax.set_visible(False)
    axs.flat[0].legend(loc="lower left", fontsize="x-small")
    return fig


def check_worst_case(gd: dict, depths, width: int, n_samples: int) -> Check:
    """[LH] Sec. 5 (worst-case rates): GD loss <= L_0 (1 - 1/kappa)^t, and kappa falls with depth.

    Rule: "reproduced" if the measured loss never exceeds the (1 - 1/kappa)^t bound (ratio at most
    1 + 1e-9 at every step: the bound is a theorem for the linearized model, and 1e-9 only absorbs
    float64 rounding of the ratio) and kappa(K(w_0)) falls strictly with every added layer, as
    [LH] Thm 4.3 predicts for ReLU nets; "reproduced with caveat" if the bound holds but kappa
    does not fall at every depth (finite-width noise at the largest depths); "not reproduced" if
    the bound is violated.

    Args:
        gd: :func:`gd_depth_study` output.
        depths: the depths, in the order run.
        width: the hidden width (quoted).
        n_samples: the number of training points (quoted).

    Returns:
        The check, claim id ``"[LH] Sec. 5 (worst-case rates)"``.
    """
    tab = table_gd_rates(gd, depths)
    kappas = np.array([gd[L]["kappa"] for L in depths])
    holds = bool((tab["max_t measured/bound"] <= 1 + 1e-9).all())
    kappa_falls = bool(np.all(np.diff(kappas) < 0))
    gap = float(np.median(tab["loss/bound at the end"]))
    status = "reproduced" if holds and kappa_falls else "reproduced with caveat" if holds else "not reproduced"
    measured = (
        f"kappa(K(w_0)) = {', '.join(f'{k:.0f}' for k in kappas)} at depths {list(depths)} (width {width}, "
        f"n={n_samples}); the measured loss stays below both bounds at every step: {holds}. The bounds are loose: "
        f"at the last step the loss is {gap:.2g} times the (1-1/kappa)^t bound (median over depths), and the measured "
        f"late per-step factors ({', '.join(f'{v:.4f}' for v in tab['measured late factor'])}) sit near the "
        f"slowest-mode factor (1-eta lambda_min)^2 of the linearized model "
        f"({', '.join(f'{v:.4f}' for v in tab['(1-eta lmin)^2'])}), i.e. the bound has the right mode but squares "
        f"it away.")
    return Check("[LH] Sec. 5 (worst-case rates)", "GD on the square loss converges at least as fast as "
                 "(1 - 1/kappa)^t, and deeper ReLU nets, with smaller kappa, have a faster worst case.",
                 status, measured)


@dataclass
class SGDStudy:
    """The SGD experiments of chapter 06 on digits ([LH] Figure 4 and Table 1).

    Attributes:
        grid: learning-rate search, one row per (depth, lr), both depth lists merged.
        runs_fig: one seed per depth of ``fig_depths`` (the loss curves).
        runs_table: ``seeds`` seeds per depth of ``table_depths`` (the accuracy table).
        fig_depths, table_depths: the depths.
        n_train, n_test: training and held-out images.
        batch: the batch size used.
        epochs, seeds: training epochs and seeds of the table.
        seconds: wall time of the SGD part (cached runs included).
        sgd_args: the arguments shared by every :func:`sgd_depth_study` call.
    """

    grid: pd.DataFrame
    runs_fig: pd.DataFrame
    runs_table: pd.DataFrame
    fig_depths: list
    table_depths: list
    n_train: int
    n_test: int
    batch: int
    epochs: int
    seeds: int
    seconds: float
    sgd_args: dict


def compute_sgd_digits(n_test: int, fig_depths, table_depths, seeds: int, *, width: int, lrs, search_epochs: int,
                       epochs: int, batch_size: int, dtype: str) -> SGDStudy:
    """[LH] Figure 4 and Table 1 on scikit-learn's digits: one seed per ``fig_depths``, ``seeds`` per ``table_depths``.

    Args:
        n_test: held-out images (seeded split, :func:`train_test_split`).
        fig_depths: depths of the loss curves.
        table_depths: depths of the accuracy table.
        seeds: seeds per depth of the table.
        width, lrs, search_epochs, epochs, batch_size, dtype: as in :func:`sgd_depth_study`.

    Returns:
        :class:`SGDStudy`.
    """
    X, y = load_digits_subset(return_labels=True)
    Xtr, ytr, Xte, yte = train_test_split(X, y, n_test, seed=0)
    sgd_args = dict(width=width, lrs=lrs, search_epochs=search_epochs, epochs=epochs, batch_size=batch_size,
                    dtype=dtype, tag="digits")
    t0 = time.perf_counter()
    grid_f, runs_f = sgd_depth_study(Xtr, ytr, Xte, yte, fig_depths, seeds=1, **sgd_args)
    grid_t, runs_t = sgd_depth_study(Xtr, ytr, Xte, yte, table_depths, seeds=seeds, **sgd_args)
    seconds = time.perf_counter() - t0
    grid = pd.concat([grid_f, grid_t]).drop_duplicates(["depth", "lr"])
    return SGDStudy(grid, runs_f, runs_t, list(fig_depths), list(table_depths), len(Xtr), len(Xte),
                    min(batch_size, len(Xtr)), int(epochs), int(seeds), seconds, sgd_args)


def sgd_summary(study: SGDStudy) -> str:
    """One line: training and test images, batch, and the time of the SGD part.

    Args:
        study: :func:`compute_sgd_digits` output.

    Returns:
        The line printed under the SGD cell.
    """
    return (f"digits: {study.n_train} training and {study.n_test} test images; batch {study.batch}; "
            f"SGD part took {study.seconds:.1f} s")


def table_lr_grid(study: SGDStudy) -> pd.DataFrame:
    """The learning-rate search: loss after the search epochs per depth (rows) and rate (columns), and the rate chosen.

    Args:
        study: :func:`compute_sgd_digits` output.

    Returns:
        The table, rounded to 4 decimals.
    """
    grid = study.grid
    return grid.pivot(index="depth", columns="lr", values="search_loss").round(4).assign(
        chosen=grid[grid.chosen].set_index("depth")["lr"])


def plot_loss_curves(runs: pd.DataFrame, depths, title: str) -> Figure:
    """Figure 6.2 (and 6.3): training loss against epoch, one line per depth (seed 0), viridis by depth.

    Args:
        runs: the ``runs`` of :func:`sgd_depth_study`.
        depths: the depths to draw.
        title: the axes title.

    Returns:
        The figure (one axes).
    """
    fig, axs = figure()
    ax = axs[0, 0]
    cmap = colormaps["viridis"]
    for i, L in enumerate(depths):
        r = runs[(runs.depth == L) & (runs.seed == 0)].iloc[0]
        ax.semilogy(r.train_loss, color=cmap(i / max(len(depths) - 1, 1)), label=f"L={L} (lr {r.lr:g})")
    ax.set(xlabel="epoch", ylabel="training loss (cross-entropy)", title=title)
    ax.legend(ncol=2, fontsize="x-small")
    return fig


def depth_speed(runs: pd.DataFrame, depths) -> tuple[float, list]:
    """Spearman correlation of depth with the mean log training loss over all epochs (negative: deeper is faster).

    Args:
        runs: the ``runs`` of :func:`sgd_depth_study` (seed 0 of each depth is used).
        depths: the depths, in order.

    Returns:
        (rho, curves): the correlation and the seed-0 loss curves by depth.
    """
    curves = [runs[(runs.depth == L) & (runs.seed == 0)].iloc[0].train_loss for L in depths]
    score = [float(np.mean(np.log(c[1:]))) for c in curves]
    return float(spearmanr(depths, score).statistic), curves


def check_depth_speed(study: SGDStudy) -> Check:
    """[LH] Figure 4: deeper ReLU nets reduce the training loss faster under SGD with cross-entropy.

    Rule: Spearman correlation rho of depth with the mean log training loss over the epochs
    (seed 0 per depth, learning rate tuned per depth as in the paper). "reproduced" if
    rho < -0.5 (a clear monotone trend: with 3 depths only rho = -1 passes, with 10 depths most
    pairs must be ordered, which single-seed noise between neighbouring depths does not
    produce); "reproduced with caveat" if -0.5 <= rho < 0 (deeper is faster on balance);
    "not reproduced" otherwise.

    Args:
        study: :func:`compute_sgd_digits` output.

    Returns:
        The check, claim id ``"[LH] Figure 4"``.
    """
    depths = study.fig_depths
    rho, curves = depth_speed(study.runs_fig, depths)
    mid = max(1, study.epochs // 5)
    rho_mid = float(spearmanr(depths, [c[mid] for c in curves]).statistic)
    rho_end = float(spearmanr(depths, [c[-1] for c in curves]).statistic)
    status = "reproduced" if rho < -0.5 else "reproduced with caveat" if rho < 0 else "not reproduced"
    measured = (
        f"On digits, Spearman correlation of depth ({depths[0]}..{depths[-1]}) with the mean log training "
        f"loss over the {study.epochs} epochs: {rho:.2f} (-1 = uniformly faster with every added layer); with the loss "
        f"after {mid} epochs: {rho_mid:.2f}; after the last epoch: {rho_end:.2f} (final losses {curves[0][-1]:.3g} at "
        f"depth {depths[0]} and {curves[-1][-1]:.3g} at depth {depths[-1]}). Learning rates were tuned per depth, "
        f"as in the paper.")
    return Check("[LH] Figure 4", "Deeper ReLU nets reduce the training loss faster under SGD with cross-entropy.",
                 status, measured)


@dataclass
class IdxStudies:
    """The loss curves on MNIST / Fashion-MNIST when their IDX files are given.

    Attributes:
        runs: ``{name: runs of sgd_depth_study}`` for the data sets that ran.
        sizes: ``{name: number of training images}``.
        messages: one line per data set (skipped, with the reason, or its results), in order.
    """

    runs: dict
    sizes: dict
    messages: list

    @property
    def ran(self) -> bool:
        """Whether at least one data set ran."""
        return bool(self.runs)


def compute_idx_studies(folders: dict, depths, n_idx: int, idx_epochs: int, sgd_args: dict) -> IdxStudies:
    """The curves of [LH] Figure 4 on MNIST / Fashion-MNIST from local IDX files (nothing is downloaded).

    Args:
        folders: ``{name: (folder or None, parameter name)}``, e.g. ``{"MNIST": (idx_dir, "idx_dir")}``.
        depths: the depths (one seed each).
        n_idx: training images kept (a seeded subsample when the file has more).
        idx_epochs: training epochs.
        sgd_args: the :attr:`SGDStudy.sgd_args` of the digits study (epochs and tag are replaced).

    Returns:
        :class:`IdxStudies`.
    """
    runs, sizes, messages = {}, {}, []
    for name, (folder, param) in folders.items():
        if folder is None:
            messages.append(f"{name}: skipped (set the parameter {param} to a folder with the IDX files to run it)")
            continue
        try:
            Xm, ym = load_idx_dataset(folder, "train", return_labels=True, name=name)
            if len(Xm) > n_idx:  # seeded subsample of the training images
                keep = np.sort(np.random.default_rng(0).choice(len(Xm), n_idx, replace=False))
                Xm, ym = Xm[keep], ym[keep]
            Xmt, ymt = load_idx_dataset(folder, "test", return_labels=True, name=name)
        except DataMissingError as exc:
            messages.append(f"{name}: skipped -- {exc}")
            continue
        args = dict(sgd_args, epochs=idx_epochs, tag=name)
        _, runs_m = sgd_depth_study(Xm, ym, Xmt, ymt, depths, seeds=1, **args)
        runs[name], sizes[name] = runs_m, len(Xm)
        rho_m, _ = depth_speed(runs_m, depths)
        messages.append(f"{name}: Spearman correlation of depth with the mean log training loss: {rho_m:.2f}; "
                        f"test accuracy by depth: "
                        + ", ".join(f"L={r.depth}: {100 * r.test_acc:.2f}%" for r in runs_m.itertuples()))
    return IdxStudies(runs, sizes, messages)


def idx_summary(idx: IdxStudies) -> str:
    """The lines of :attr:`IdxStudies.messages`, joined.

    Args:
        idx: :func:`compute_idx_studies` output.

    Returns:
        Text, one line per data set.
    """
    return "\n".join(idx.messages)


def plot_idx_curves(idx: IdxStudies, depths) -> Figure:
    """Figure 6.3: the loss curves of :func:`plot_loss_curves` for each IDX data set that ran, side by side.

    Args:
        idx: :func:`compute_idx_studies` output (at least one data set must have run).
        depths: the depths.

    Returns:
        The figure (one axes per data set that ran).
    """
    if not idx.ran:
        raise ValueError("no IDX data set ran: nothing to draw")
    fig, axs = figure(ncols=len(idx.runs))
    cmap = colormaps["viridis"]
    for ax, (name, runs) in zip(axs.flat, idx.runs.items()):
        for i, L in enumerate(depths):
            r = runs[(runs.depth == L) & (runs.seed == 0)].iloc[0]
            ax.semilogy(r.train_loss, color=cmap(i / max(len(depths) - 1, 1)), label=f"L={L} (lr {r.lr:g})")
        ax.set(xlabel="epoch", ylabel="training loss (cross-entropy)",
               title=f"ReLU nets on {name} ({idx.sizes[name]} images), SGD")
        ax.legend(ncol=2, fontsize="x-small")
    return fig


def plot_accuracy(acc: pd.DataFrame, seeds: int) -> Figure:
    """Figure 6.4: test accuracy against depth (mean +- sd over seeds) beside [LH] Table 1.

    Args:
        acc: :func:`accuracy_table` output with the paper's column.
        seeds: seeds per depth (in the legend).

    Returns:
        The figure (one axes).
    """
    fig, axs = figure()
    ax = axs[0, 0]
    ax.errorbar(acc.index, acc["mean (%)"], yerr=acc["sd (%)"], fmt="o-", capsize=3,
                label=f"digits (ours), mean $\\pm$ sd over {seeds} seeds")
    ax.plot(acc.index, acc["[LH] MNIST (%)"], "s--", label="[LH] Table 1, MNIST")
    ax.set(xlabel="depth L", ylabel="test accuracy (%)", title="Test accuracy against depth")
    ax.legend()
    return fig


def check_accuracy(acc: pd.DataFrame, study: SGDStudy) -> Check:
    """[LH] Table 1: test accuracy rises with depth up to about 6 layers, then decreases slightly.

    Rule: let L* be the depth of best mean accuracy. The rise (L* over the shallowest depth) and
    the fall (L* over the deepest) count if they exceed twice their standard error
    2 sqrt(sd_a^2/n_a + sd_b^2/n_b) over seeds (about a 95% two-sided level; the binomial noise of
    the test set is inside the seed spread). "reproduced" if both count and L* is strictly
    inside the depth range (rise then fall); "reproduced with caveat" if only the rise counts
    (the paper's fall, 0.38 points on MNIST, is below our seed noise on a small data set);
    "not reproduced" otherwise.

    Args:
        acc: :func:`accuracy_table` output.
        study: :func:`compute_sgd_digits` output (sizes, epochs and seeds are quoted).

    Returns:
        The check, claim id ``"[LH] Table 1"``.
    """
    m, sd, ns = acc["mean (%)"], acc["sd (%)"], acc["seeds"]
    best_L = int(m.idxmax())

    def gap(a, b):
        return m[a] - m[b], 2 * float(np.sqrt(sd[a] ** 2 / ns[a] + sd[b] ** 2 / ns[b]))

    first, last = acc.index[0], acc.index[-1]
    (rise, rise_se), (fall, fall_se) = gap(best_L, first), gap(best_L, last)
    rises, falls = rise > rise_se, fall > fall_se
    paper_fall = PAPER_TABLE1[6] - PAPER_TABLE1[12]
    status = ("reproduced" if rises and falls and first < best_L < last else "reproduced with caveat" if rises
              else "not reproduced")
    measured = (
        f"On digits ({study.n_train} training / {study.n_test} test images, {study.epochs} epochs, {study.seeds} "
        f"seeds), the mean test accuracy is {', '.join(f'{v:.2f}' for v in m)} % at depths {list(acc.index)} (sd over "
        f"seeds up to {sd.max():.2f}): best at depth {best_L}, {rise:.2f} points above depth {first} (twice the "
        f"standard error: {rise_se:.2f}) and {fall:.2f} points above depth {last} ({fall_se:.2f}); the paper's fall "
        f"from depth 6 to 12 is {paper_fall:.2f} points. A different, much smaller data set than the paper's MNIST; "
        f"the largest spread over seeds is at depth {int(sd.idxmax())}.")
    return Check("[LH] Table 1", "Test accuracy rises with depth up to about 6 layers, then decreases slightly "
                 "(MNIST: 95.98 at depth 1, 97.57 at depth 6, 97.19 at depth 12).", status, measured)
