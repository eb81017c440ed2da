"""Chapter 06, the SGD experiments of [LH] Figure 4 and Table 1 under the authors' protocol.

The protocol of [LH] Sec. 5 and of the authors' published training script: ReLU nets of width
512 without biases, ten outputs, cross-entropy, mini-batch SGD with batch 500 reshuffled every
epoch, a learning rate found per task by grid search, 500 epochs on MNIST (60,000 images: 120
updates per epoch, about 60,000 updates), pixels mapped to [-1, 1].

- :func:`sgd_depth_study`: per depth, every rate of the grid trains seed 0 for the full horizon
  (the rate is chosen on the training horizon, by the late-epoch loss), then the chosen rate
  trains the other seeds. Every (depth, rate, seed) cell is cached with
  :func:`lib.book.cache.cached_call`, so a long run resumes from its finished cells.
- :func:`compute_sgd_study`: loads a data set (MNIST from the user's IDX files, digits, faces),
  splits it and runs the study; :class:`SGDStudy` holds the result with its protocol.
- :func:`protocol_deviations`: how a study differs from the paper's protocol, in words; a verdict
  that contradicts the paper under any deviation is "inconclusive", naming them.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from lib.book.cache import cached_call
from lib.data.datasets import load_digits_subset, load_faces, load_idx_dataset
from lib.finite.mlp import MLP
from lib.finite.training import sgd_train
from lib.progress import tqdm
from lib.validation import InputError

__all__ = ["PAPER_PROTOCOL", "MIN_UPDATES", "LATE_FRACTION", "SGD_DATA", "train_test_split", "late_loss",
           "updates_per_epoch", "TEST_CAP", "sgd_depth_study", "SGDStudy", "compute_sgd_study", "protocol_deviations",
           "edge_rates", "data_deviations", "sgd_summary", "table_lr_grid", "PAPER_DATA", "compute_sgd_studies"]

#: The paper's protocol for Figure 4 / Table 1 ([LH] Sec. 5 and the authors' training script).
PAPER_PROTOCOL = dict(data="MNIST", n_train=60000, batch=500, epochs=500, updates=60000, width=512, seeds=3)

#: Fewest SGD updates at which a verdict on Figure 4 / Table 1 may contradict the paper.
MIN_UPDATES = 10_000

#: The late-epoch window: the last 10 % of the epochs (at least one) are averaged.
LATE_FRACTION = 0.1

#: Data sets the study can run on (MNIST and Fashion-MNIST need the user's IDX files).
SGD_DATA = ("MNIST", "Fashion-MNIST", "digits", "faces")

#: The data sets of [LH] Figure 4 among :data:`SGD_DATA` (Table 1 is MNIST only).
PAPER_DATA = ("MNIST", "Fashion-MNIST")

DTYPES = ("float32", "float64")

#: Held-out images at most for the small sets (faces: 50 of 200, digits: 500 of 1797), so that a
#: paper-sized ``n_test`` (10,000 for MNIST) still leaves them a training set.
TEST_CAP = {"faces": 50, "digits": 500}


def train_test_split(X, y, n_test: int, seed: int = 0):
    """Random held-out split (seeded): returns X_train, y_train, X_test, y_test.

    Args:
        X: inputs.
        y: labels.
        n_test: held-out points (1..n-1).
        seed: seed of the permutation.

    Returns:
        (X_train, y_train, X_test, y_test).

    Raises:
        lib.validation.InputError: ``n_test`` outside 1..n-1.
    """
    n = len(X)
    if not 0 < n_test < n:
        raise InputError(f"n_test must lie in 1..{n - 1} for {n} samples, got {n_test}")
    perm = np.random.default_rng(seed).permutation(n)
    te, tr = perm[:n_test], perm[n_test:]
    return X[tr], y[tr], X[te], y[te]


def late_loss(train_loss, frac: float = LATE_FRACTION) -> float:
    """Mean training loss over the last ``frac`` of the epochs (at least the last one); inf if not finite.

    This is how [LH] Figure 4 is read: the loss at the end of training, averaged over a window
    so that the epoch-to-epoch SGD noise does not decide the order of two depths.

    Args:
        train_loss: training loss at epochs 0..E.
        frac: the fraction of the epochs averaged (0 < frac <= 1).

    Returns:
        The late-epoch loss.
    """
    loss = np.asarray(train_loss, dtype=float)[1:]
    if loss.size == 0:
        raise InputError("train_loss needs at least one epoch after initialization")
    k = max(1, int(round(frac * loss.size)))
    v = float(np.mean(loss[-k:]))
    return v if math.isfinite(v) else math.inf


def updates_per_epoch(n_train: int, batch_size: int) -> int:
    """SGD updates per epoch: ceil(n_train / batch) (the last partial batch is kept, as in the authors' loader).

    Args:
        n_train: training points.
        batch_size: the batch.

    Returns:
        The number of updates.
    """
    return -(-int(n_train) // int(batch_size))


def sgd_depth_study(Xtr, ytr, Xte, yte, depths, width: int, lrs, epochs: int, batch_size: int, seeds: int,
                    dtype: str = "float32", tag: str = "digits", device: str = "cpu") -> tuple[pd.DataFrame, pd.DataFrame]:
    """[LH] Figure 4 and Table 1: cross-entropy SGD on bias-free ReLU nets of each depth, rate tuned per depth.

    Per depth, every rate of ``lrs`` trains seed 0 for the full ``epochs`` (the training horizon);
    the chosen rate has the smallest late-epoch loss (:func:`late_loss`; a diverged run scores
    inf). Seeds 1..seeds-1 then train with the chosen rate. Each (depth, rate, seed) run is one
    cached cell. The batch is ``min(batch_size, n_train)``.

    Args:
        Xtr, ytr: training inputs and labels.
        Xte, yte: held-out inputs and labels.
        depths: depths L.
        width: hidden width m.
        lrs: the learning-rate grid (increasing).
        epochs: training epochs of every run.
        batch_size: SGD batch.
        seeds: seeds per depth (seed 0 is the search run of the chosen rate).
        dtype: ``"float32"`` or ``"float64"``.
        tag: data set name (in the rows).
        device: torch device of the nets.

    Returns:
        (grid, runs): ``grid`` has one row per (depth, lr) with ``late_loss`` and a ``chosen``
        flag; ``runs`` one row per (depth, seed) with ``lr``, ``train_loss`` (array over epochs
        0..E), ``late_loss``, ``test_acc`` and ``seconds``.

    Raises:
        lib.validation.InputError: bad ``dtype``, an empty grid, or every rate of a depth diverged.
    """
    import torch

    if dtype not in DTYPES:
        raise InputError(f"dtype must be one of {DTYPES}, got {dtype!r}")
    lrs = sorted(float(v) for v in lrs)
    if not lrs:
        raise InputError("lrs must hold at least one learning rate")
    dt = getattr(torch, dtype)
    k = int(max(np.max(ytr), np.max(yte))) + 1
    bs = min(int(batch_size), len(Xtr))
    d = Xtr.shape[1]
    base = dict(m=width, bs=bs, dt=dtype, e=int(epochs), X=np.asarray(Xtr), y=np.asarray(ytr), Xt=np.asarray(Xte),
                yt=np.asarray(yte))

    def cell(L: int, lr: float, s: int) -> dict:
        def run():
            t0 = time.perf_counter()
            net = MLP(d, width, L, activation="relu", seed=s, dtype=dt, device=device, out_dim=k)
            res = sgd_train(net, Xtr, ytr, lr, int(epochs), bs, seed=s, loss="ce", X_test=Xte, y_test=yte,
                            progress=False)
            return dict(dataset=tag, depth=L, seed=s, lr=lr, train_loss=res["train_loss"],
                        late_loss=late_loss(res["train_loss"]), test_acc=res["test_acc"],
                        diverged=bool(res["diverged"]), seconds=time.perf_counter() - t0)
        return cached_call("06_optimization_sgd", dict(base, L=int(L), lr=lr, s=int(s)), run, version="2")

    grid_rows, run_rows = [], []
    for L in tqdm(list(depths), desc=f"SGD by depth ({tag})", leave=False):
        search = {lr: cell(L, lr, 0) for lr in tqdm(lrs, desc=f"depth {L}: rates", leave=False)}
        scores = {lr: (math.inf if r["diverged"] else r["late_loss"]) for lr, r in search.items()}
        best = min(scores, key=scores.get)
        if not math.isfinite(scores[best]):
            raise InputError(f"lrs: every learning rate in {lrs} diverged at depth {L}; try smaller rates")
        grid_rows += [dict(dataset=tag, depth=L, lr=lr, late_loss=v, chosen=lr == best) for lr, v in scores.items()]
        run_rows.append(search[best])
        run_rows += [cell(L, best, s) for s in range(1, seeds)]
    return pd.DataFrame(grid_rows), pd.DataFrame(run_rows)


@dataclass
class SGDStudy:
    """The SGD experiment of chapter 06 ([LH] Figure 4 and Table 1) with the protocol it ran under.

    Attributes:
        data: the data set (one of :data:`SGD_DATA`).
        grid: learning-rate search, one row per (depth, lr).
        runs: ``seeds`` rows per depth (the chosen rate).
        depths: the depths run.
        n_train, n_test: training and held-out images.
        batch: the batch size used.
        epochs: training epochs; ``updates`` = epochs x updates per epoch.
        seeds: seeds per depth.
        width: hidden width.
        lrs: the rate grid.
        seconds: wall time (cached cells included).
        note: how the data were chosen (e.g. MNIST absent), quoted in the verdicts.
    """

    data: str
    grid: pd.DataFrame
    runs: pd.DataFrame
    depths: list
    n_train: int
    n_test: int
    batch: int
    epochs: int
    seeds: int
    width: int
    lrs: list
    seconds: float
    note: str = ""
    updates: int = field(init=False)

    def __post_init__(self):
        self.updates = int(self.epochs) * updates_per_epoch(self.n_train, self.batch)


def _load(data: str, idx_dir, n_train: int | None, n_test: int):
    """Training and held-out split of ``data``; MNIST and Fashion-MNIST use their own test split."""
    if data in PAPER_DATA:
        param = "idx_dir" if data == "MNIST" else "fashion_dir"
        if idx_dir is None:
            raise InputError(f"{param}: {data} needs the folder of its IDX files (nothing is downloaded); "
                             f"set {param}, or choose sgd_data 'digits' or 'faces'")
        X, y = load_idx_dataset(idx_dir, "train", return_labels=True, name=data)
        if n_train is not None and n_train < len(X):
            keep = np.sort(np.random.default_rng(0).choice(len(X), n_train, replace=False))
            X, y = X[keep], y[keep]
        Xt, yt = load_idx_dataset(idx_dir, "test", return_labels=True, name=data)
        if n_test < len(Xt):
            keep = np.sort(np.random.default_rng(1).choice(len(Xt), n_test, replace=False))
            Xt, yt = Xt[keep], yt[keep]
        return X, y, Xt, yt
    if data == "digits":
        X, y = load_digits_subset(return_labels=True)
    elif data == "faces":
        X, y = load_faces(return_labels=True, unit_norm=True)
    else:
        raise InputError(f"sgd_data must be one of {SGD_DATA}, got {data!r}")
    return train_test_split(X, y, min(n_test, TEST_CAP[data]), seed=0)


def compute_sgd_study(data: str, depths, seeds: int, *, width: int, lrs, epochs: int, batch_size: int,
                      n_test: int, dtype: str = "float32", idx_dir=None, n_train: int | None = None,
                      device: str = "cpu", note: str = "") -> SGDStudy:
    """[LH] Figure 4 and Table 1 on one data set: :func:`sgd_depth_study` with its protocol recorded.

    Args:
        data: ``"MNIST"`` (from the IDX files in ``idx_dir``, pixels in [-1, 1] as the authors),
            ``"digits"`` (scikit-learn, unit norm) or ``"faces"`` (scikit-image's LFW subset, face
            or not, unit norm).
        depths: the depths.
        seeds: seeds per depth.
        width, lrs, epochs, batch_size, dtype, device: as in :func:`sgd_depth_study`.
        n_test: held-out images (digits, faces: a seeded split, at most :data:`TEST_CAP`; MNIST and
            Fashion-MNIST: drawn from their test split).
        idx_dir: folder of the MNIST IDX files (``data="MNIST"`` only).
        n_train: MNIST training images kept (a seeded subsample; None: all 60,000).
        note: a sentence on how the data were chosen, quoted in the verdicts.

    Returns:
        :class:`SGDStudy`.

    Raises:
        lib.validation.InputError: unknown ``data``, or MNIST without ``idx_dir`` (naming it).
    """
    Xtr, ytr, Xte, yte = _load(data, idx_dir, n_train, n_test)
    t0 = time.perf_counter()
    grid, runs = sgd_depth_study(Xtr, ytr, Xte, yte, depths, width, lrs, epochs, batch_size, seeds, dtype=dtype,
                                 tag=data, device=device)
    return SGDStudy(data, grid, runs, list(depths), len(Xtr), len(Xte), min(int(batch_size), len(Xtr)), int(epochs),
                    int(seeds), int(width), sorted(float(v) for v in lrs), time.perf_counter() - t0, note)


def compute_sgd_studies(sgd_data, depths, seeds: int, *, idx_dir=None, fashion_dir=None, **kwargs) -> dict:
    """:func:`compute_sgd_study` on each data set of ``sgd_data``, in order.

    MNIST or Fashion-MNIST without its folder is replaced by digits (once), with a note naming
    the parameter (``idx_dir``, ``fashion_dir``) that would have run it: the best real data at
    hand, and the verdicts name the deviation.

    Args:
        sgd_data: names from :data:`SGD_DATA`.
        depths: the depths.
        seeds: seeds per depth.
        idx_dir: folder of the MNIST IDX files, or None.
        fashion_dir: folder of the Fashion-MNIST IDX files, or None.
        **kwargs: the keyword arguments of :func:`compute_sgd_study` (width, lrs, epochs, ...).

    Returns:
        ``{data set name: SGDStudy}``.

    Raises:
        lib.validation.InputError: a name not in :data:`SGD_DATA` (naming ``sgd_data``).
    """
    folders = {"MNIST": idx_dir, "Fashion-MNIST": fashion_dir}
    params = {"MNIST": "idx_dir", "Fashion-MNIST": "fashion_dir"}
    out = {}
    for name in sgd_data:
        if name not in SGD_DATA:
            raise InputError(f"sgd_data: {name!r} is not one of {SGD_DATA}")
        note, folder, data = "", folders.get(name), name
        if name in PAPER_DATA and folder is None:
            data = "digits"
            note = (f"{name} was asked for but the parameter {params[name]} is not set (nothing is downloaded): "
                    f"digits instead.")
        if data in out:
            continue
        out[data] = compute_sgd_study(data, depths, seeds, idx_dir=folder, note=note, **kwargs)
    return out


def edge_rates(study: SGDStudy) -> list:
    """Depths whose chosen rate is the smallest or largest of the grid (the optimum may lie outside it).

    Args:
        study: :func:`compute_sgd_study` output.

    Returns:
        The depths, in order.
    """
    chosen = study.grid[study.grid.chosen].set_index("depth")["lr"]
    lo, hi = min(study.lrs), max(study.lrs)
    return [int(L) for L in study.depths if chosen[L] in (lo, hi)]


def protocol_deviations(study: SGDStudy, table: bool = False) -> list:
    """How ``study`` differs from the paper's protocol (:data:`PAPER_PROTOCOL`), one phrase each.

    Counted as deviations: another data set than MNIST (or Fashion-MNIST, for Figure 4), fewer than :data:`MIN_UPDATES` SGD
    updates, a batch other than 500, fewer than 3 seeds, a chosen learning rate at the edge of the
    grid, runs that diverged at the chosen rate. The width (512 in the paper) is quoted but not counted: the claim is about depth at a
    fixed width.

    Args:
        study: :func:`compute_sgd_study` output.
        table: judge for [LH] Table 1 (MNIST only) instead of Figure 4 (MNIST or Fashion-MNIST).

    Returns:
        The phrases (empty under the paper's protocol).
    """
    p = PAPER_PROTOCOL
    out = []
    if study.data not in (("MNIST",) if table else PAPER_DATA):
        out.append(f"{study.data} ({study.n_train} training images) instead of MNIST ({p['n_train']:,})")
    if study.updates < MIN_UPDATES:
        out.append(f"{study.updates:,} SGD updates instead of about {p['updates']:,} (at least {MIN_UPDATES:,} needed)")
    if study.batch != p["batch"]:
        forced = " (the whole training set)" if study.batch == study.n_train < p["batch"] else ""
        out.append(f"batch {study.batch}{forced} instead of {p['batch']}")
    if study.seeds < p["seeds"]:
        out.append(f"{study.seeds} seeds instead of at least {p['seeds']}")
    div = study.runs[study.runs.diverged.astype(bool)]
    if len(div):
        out.append(f"{len(div)} run(s) diverged at the chosen rate (depths {sorted(set(int(L) for L in div.depth))}; "
                   f"left out)")
    edge = edge_rates(study)
    if edge:
        out.append(f"chosen learning rate at the edge of the grid {study.lrs} at depths {edge}")
    return out


def data_deviations(study: SGDStudy, table: bool = False) -> list:
    """The deviations of :func:`protocol_deviations` that come from the data set alone.

    Another data set than the paper's, and a batch smaller than 500 because the whole training
    set is smaller: at the paper's number of updates, these do not stop a run from resolving the
    claim, they only make it a claim about other data.

    Args:
        study: :func:`compute_sgd_study` output.
        table: as in :func:`protocol_deviations`.

    Returns:
        The phrases.
    """
    return [d for d in protocol_deviations(study, table) if "instead of MNIST" in d or "(the whole training set)" in d]


def sgd_summary(study: SGDStudy) -> str:
    """One line: data, sizes, batch, epochs, updates, seeds, width, time, and the deviations from the paper.

    Args:
        study: :func:`compute_sgd_study` output.

    Returns:
        The line printed under the SGD cell.
    """
    dev = protocol_deviations(study)
    return (f"{study.data}: {study.n_train} training and {study.n_test} test images; batch {study.batch}, "
            f"{study.epochs} epochs = {study.updates:,} SGD updates, {study.seeds} seeds, width {study.width}; "
            f"took {study.seconds:.1f} s. "
            + (f"Deviations from the paper's protocol: {'; '.join(dev)}." if dev else "The paper's protocol.")
            + (f" {study.note}" if study.note else ""))


def table_lr_grid(study: SGDStudy) -> pd.DataFrame:
    """The learning-rate search: late-epoch training loss per depth (rows) and rate (columns), and the rate chosen.

    Args:
        study: :func:`compute_sgd_study` output.

    Returns:
        The table (``inf`` = diverged).
    """
    grid = study.grid
    return grid.pivot(index="depth", columns="lr", values="late_loss").astype(float).assign(
        chosen=grid[grid.chosen].set_index("depth")["lr"])
