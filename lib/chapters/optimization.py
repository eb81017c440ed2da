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

#: [LH] Table 1: test accuracy (%) on MNIST by depth.
PAPER_TABLE1 = {1: 95.98, 3: 97.43, 6: 97.57, 8: 97.52, 10: 97.39, 12: 97.19}

DTYPES = {"float32": torch.float32, "float64": torch.float64}


def gd_depth_study(X, y, depths, width: int, steps: int, seed: int = 0, activation: str = "relu") -> dict:
    """GD with eta = 1 / lambda_max(K(w_0)) on ReLU nets of each depth ([LH] Sec. 5).

    Returns ``{depth: dict}`` with the measured ``loss`` (t = 0..steps), ``bound_lmin``
    = L0 (1 - eta lambda_min / 2)^t, ``bound_kappa`` = L0 (1 - 1/kappa)^t, ``linear`` (the
    linearized-model loss), and ``lambda_min``, ``lambda_max``, ``kappa``, ``eta``.
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
    """
    loss = np.asarray(loss, dtype=float)
    above = np.flatnonzero(loss > floor * loss[0])
    T = int(above[-1]) if above.size else 0
    s = int(T * (1 - frac))
    if T - s < 1 or loss[s] <= 0 or loss[-1] <= 0:
        raise ValueError("need a run of at least 2 steps with positive losses")
    return float((loss[-1] / loss[s]) ** (1.0 / (T - s)))


def train_test_split(X, y, n_test: int, seed: int = 0):
    """Random held-out split (seeded): returns X_train, y_train, X_test, y_test."""
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
    """Test accuracy (%) by depth: mean, sd and count over seeds, next to the paper's numbers if given."""
    sub = runs[runs.depth.isin(list(depths))]
    g = sub.groupby("depth")["test_acc"]
    tab = pd.DataFrame({"mean (%)": 100 * g.mean(), "sd (%)": 100 * g.std(ddof=1), "seeds": g.count()})
    if paper is not None:
        tab["[LH] MNIST (%)"] = [paper.get(int(L), np.nan) for L in tab.index]
    return tab
