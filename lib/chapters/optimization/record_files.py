"""Chapter 06, the files of the paper-protocol record of [LH] Figure 4 / Table 1: written piece by piece, checked as data.

The record of :mod:`lib.chapters.optimization.paper_record` takes hours on full MNIST, so it is computed
and committed in pieces, each its own JSON file in a folder of ``notebooks/records/``:

- ``search_depth{L:02d}.json``: the learning-rate search of depth L (seed 0, the coarse grid and its
  refinement, every rate's late loss and the rate chosen);
- ``run_depth{L:02d}_seed{s}.json``: one run of the chosen rate for the full training (its loss curve by
  epoch and its accuracies).

Every piece carries the whole protocol, the data it ran on (with the training set's fingerprint), the
command, commit, date and machine that wrote it, and a SHA-256 of its content. :func:`read_piece` checks
one piece as data; :func:`assemble_pieces` checks a folder's pieces against each other (one protocol and one
data set, each run's rate the one its depth's search chose, no piece twice) and assembles them into one
record, the same shape as the single-file record of MNIST-5k (:func:`read_single_record`), with what it
does not hold yet in ``missing``. :func:`check_record` cross-checks either kind against its own grid and
runs. Every refusal is one :class:`lib.validation.InputError` naming the file and the field.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Sequence

import numpy as np

from lib.book.cache import result_checksum
from lib.book.wording import ints, noun_for
from lib.finite.batched_sgd import PRECISIONS
from lib.validation import InputError, check_int, check_seed

__all__ = ["PROTOCOL_FIELDS", "RERUN", "search_piece_name", "run_piece_name", "write_piece", "read_piece",
           "assemble_pieces", "read_single_record", "check_record", "missing_text", "pieces_table"]

#: the protocol's fields every record holds (:class:`lib.chapters.optimization.paper_record.PaperSGDProtocol`); a
#: single-file record written before ``data``, ``precision`` and ``refine`` existed ran MNIST-5k in float32
#: without refinement, and is read so
PROTOCOL_FIELDS = ("depths", "width", "batch", "epochs", "seeds", "lrs", "search_epochs", "n_test", "split_seed",
                   "divergence_factor", "dtype", "loss_record", "data", "precision", "refine")
_LEGACY_DEFAULTS = dict(data="mnist_5k", precision="fp32", refine=False)
#: what a refusal tells the reader to do
RERUN = "re-run `python -m lib.chapters.optimization --record` (it recomputes only what is missing)"


def search_piece_name(depth: int) -> str:
    """File name of the search piece of ``depth`` ([LH] Figure 4's rate search)."""
    return f"search_depth{int(depth):02d}.json"


def run_piece_name(depth: int, seed: int) -> str:
    """File name of the run piece of ``depth`` and ``seed``."""
    seed = check_seed(seed)
    return f"run_depth{check_int(depth, 'depth', minimum=1):02d}_seed{seed}.json"


class _Fields:
    """Refusals that name the file and the field."""

    def __init__(self, path: Path, what: str = "the record"):
        self.path, self.what = Path(path), what

    def bad(self, field: str, why: str):
        raise InputError(f"{self.what} {self.path}: field {field!r} {why}; {RERUN}")

    def pos_int(self, field: str, v, zero: bool = False) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or v < (0 if zero else 1):
            self.bad(field, f"is {v!r}, not a {'non-negative' if zero else 'positive'} integer")
        return v

    def pos_float(self, field: str, v) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (math.isfinite(v) and v > 0):
            self.bad(field, f"is {v!r}, not a positive number")
        return float(v)

    def text(self, field: str, v) -> str:
        if not isinstance(v, str) or not v:
            self.bad(field, f"is {v!r}, not a text")
        return v


def _check_protocol(f: _Fields, proto) -> dict:
    """The protocol as data (fills the fields a legacy record lacks)."""
    if not isinstance(proto, dict):
        f.bad("protocol", "is not a JSON object")
    proto = {**_LEGACY_DEFAULTS, **proto}
    missing = [k for k in PROTOCOL_FIELDS if k not in proto]
    if missing:
        f.bad("protocol", f"lacks {missing}")
    for k in ("width", "batch", "epochs", "seeds", "search_epochs", "n_test"):
        f.pos_int(f"protocol.{k}", proto[k])
    f.pos_int("protocol.split_seed", proto["split_seed"], zero=True)
    if proto["search_epochs"] > proto["epochs"]:
        f.bad("protocol.search_epochs", f"is {proto['search_epochs']}, more than the {proto['epochs']} epochs")
    depths = proto["depths"]
    if not isinstance(depths, list) or not depths or len(set(map(str, depths))) != len(depths):
        f.bad("protocol.depths", f"is {depths!r}, not a list of distinct positive integers")
    for L in depths:
        f.pos_int("protocol.depths", L)
    lrs = proto["lrs"]
    if not isinstance(lrs, list) or not lrs:
        f.bad("protocol.lrs", f"is {lrs!r}, not a list of positive rates")
    for v in lrs:
        f.pos_float("protocol.lrs", v)
    if f.pos_float("protocol.divergence_factor", proto["divergence_factor"]) <= 1:
        f.bad("protocol.divergence_factor", f"is {proto['divergence_factor']!r}, not a number above 1")
    if proto["precision"] not in PRECISIONS:
        f.bad("protocol.precision", f"is {proto['precision']!r}, not one of {list(PRECISIONS)}")
    if not isinstance(proto["refine"], bool):
        f.bad("protocol.refine", "is not true/false")
    return proto


def _check_grid(f: _Fields, L: str, g, chosen, proto: dict, piece: bool = False) -> None:
    """One depth's rate search against itself: lists of one length, the protocol's rates in it, and the chosen
    rate a rate of the grid, the one with the smallest late loss (:func:`lib.chapters.optimization.sgd.rate_score`;
    ``null``: excluded). The fields are named as a record names them (``grid.L``, ``chosen_lr.L``), or as a
    piece does with ``piece`` (``grid``, ``chosen_lr``)."""
    gname, cname = ("grid", "chosen_lr") if piece else (f"grid.{L}", f"chosen_lr.{L}")
    if not isinstance(g, dict) or not all(k in g for k in ("lrs", "late_loss", "diverged_epoch")):
        f.bad(gname, "must hold lrs, late_loss and diverged_epoch")
    lrs, late, div = g["lrs"], g["late_loss"], g["diverged_epoch"]
    if not (isinstance(lrs, list) and isinstance(late, list) and isinstance(div, list)) \
            or not len(lrs) == len(late) == len(div) or not lrs:
        f.bad(gname, "must hold lrs, late_loss and diverged_epoch of one length")
    for v in lrs:
        f.pos_float(f"{gname}.lrs", v)
    if sorted(lrs) != lrs or len(set(lrs)) != len(lrs):
        f.bad(f"{gname}.lrs", f"is {lrs}, not increasing")
    if not set(proto["lrs"]) <= set(lrs):
        f.bad(f"{gname}.lrs", f"is {lrs}, which lacks rates of the protocol's grid {proto['lrs']}")
    for v in late:
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0):
            f.bad(f"{gname}.late_loss", f"holds {v!r}, not a non-negative loss or null")
    for e in div:
        if isinstance(e, bool) or not isinstance(e, int) or e < -1:
            f.bad(f"{gname}.diverged_epoch", f"holds {e!r}, not an epoch (-1: never)")
    if isinstance(chosen, bool) or not isinstance(chosen, (int, float)) or chosen not in lrs:
        f.bad(cname, f"is {chosen!r}, not a rate of the grid {lrs}")
    scores = [math.inf if v is None else v for v in late]
    if not math.isfinite(min(scores)):
        f.bad(f"{gname}.late_loss", "holds no rate that trained (every one excluded)")
    best = lrs[int(np.argmin(scores))]
    if chosen != best:
        f.bad(cname, f"is {chosen:g}, but the rate of the grid with the smallest late loss is {best:g}")


def _check_run(f: _Fields, where: str, r, proto: dict, chosen: dict) -> None:
    """One run against the protocol and its depth's chosen rate."""
    if not isinstance(r, dict):
        f.bad(where, "is not a JSON object")
    if r.get("depth") not in proto["depths"]:
        f.bad(f"{where}.depth", f"is {r.get('depth')!r}, not one of the protocol's depths {proto['depths']}")
    seed = r.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < proto["seeds"]:
        f.bad(f"{where}.seed", f"is {seed!r}, not one of the protocol's seeds 0..{proto['seeds'] - 1}")
    lr = f.pos_float(f"{where}.lr", r.get("lr"))
    c = chosen.get(str(r["depth"]))
    if c is not None and lr != c:
        f.bad(f"{where}.lr", f"is {lr:g}, but the rate search chose {c:g} at depth {r['depth']}")
    E = proto["epochs"]
    tl = r.get("train_loss")
    if not isinstance(tl, list) or len(tl) != E + 1 or not all(
            v is None or (not isinstance(v, bool) and isinstance(v, (int, float)) and v >= 0) for v in tl):
        f.bad(f"{where}.train_loss", f"is not {E + 1} non-negative losses (null after a divergence)")
    if not isinstance(r.get("diverged"), bool):
        f.bad(f"{where}.diverged", "is not true/false")
    for k in ("test_acc", "train_acc"):
        acc = r.get(k)
        if acc is not None and (isinstance(acc, bool) or not isinstance(acc, (int, float)) or not 0 <= acc <= 1):
            f.bad(f"{where}.{k}", f"is {acc!r}, not an accuracy in [0, 1]")


def missing_text(rec: dict, depths: Sequence[int] | None = None) -> str:
    """What a record does not hold yet, in words ("" when it is whole): the depths without a rate search or with
    fewer runs than the protocol's seeds.

    Args:
        rec: a record (:func:`check_record` has checked it).
        depths: only what these depths lack (a part of the record: [LH] Table 1 reads 1, 3, 6, 8, 10, 12); default
            every depth of the protocol. The count of runs is the whole record's.

    Returns:
        E.g. ``"no rate search at depths 7, 8; seeds 1, 2 missing at depth 3 (20 of 33 runs recorded)"``.
    """
    proto = rec["protocol"]
    read = [L for L in proto["depths"] if depths is None or L in depths]
    have: dict[int, set] = {}
    for r in rec["runs"]:
        have.setdefault(r["depth"], set()).add(r["seed"])
    parts = []
    no_search = [L for L in read if str(L) not in rec["grid"]]
    if no_search:
        parts.append(f"no rate search at {noun_for(len(no_search), 'depth')} {ints(no_search, ranges=False)}")
    for L in read:
        lack = [s for s in range(proto["seeds"]) if s not in have.get(L, set())]
        if lack and str(L) in rec["grid"]:
            parts.append(f"{noun_for(len(lack), 'seed')} {ints(lack, ranges=False)} missing at depth {L}")
    if not parts:
        return ""
    total = len(proto["depths"]) * proto["seeds"]
    return "; ".join(parts) + f" ({len(rec['runs'])} of {total} runs recorded)"


def check_record(rec: dict, path: Path, *, whole: bool) -> dict:
    """Cross-check a record against its own grid and runs ([LH] Figure 4 / Table 1's rate search and runs).

    Checked: the protocol's fields and ranges; every depth's grid (its rates increasing and holding the
    protocol's, the chosen rate a rate of it and the one with the smallest late loss); every run (a depth of the
    protocol, a seed of the protocol's, the rate its depth's search chose, a loss per epoch, accuracies in
    [0, 1]); no (depth, seed) twice; with ``whole``, every depth searched and every seed run.

    Args:
        rec: the record (``protocol``, ``data``, ``grid``, ``chosen_lr``, ``runs``, provenance).
        path: the file (or folder) it came from, named in a refusal.
        whole: refuse a record that lacks a depth or a seed (a single-file record is written whole).

    Returns:
        The record, its protocol completed (a legacy record's ``data``, ``precision``, ``refine``), with
        ``missing`` (:func:`missing_text`).

    Raises:
        lib.validation.InputError: naming the file and the field.
    """
    f = _Fields(path)
    if not isinstance(rec, dict):
        f.bad("(top level)", "is not a JSON object")
    for k in ("protocol", "data", "grid", "chosen_lr", "runs"):
        if k not in rec:
            f.bad(k, "is missing")
    proto = _check_protocol(f, rec["protocol"])
    grid, chosen = rec["grid"], rec["chosen_lr"]
    if not isinstance(grid, dict) or not isinstance(chosen, dict) or set(grid) != set(chosen):
        f.bad("chosen_lr", "must name one rate for every depth of the grid")
    for L in grid:
        if L not in {str(d) for d in proto["depths"]}:
            f.bad(f"grid.{L}", f"is a depth the protocol does not run ({proto['depths']})")
        _check_grid(f, L, grid[L], chosen[L], proto)
    runs = rec["runs"]
    if not isinstance(runs, list):
        f.bad("runs", "is not a list")
    seen = set()
    for i, r in enumerate(runs):
        _check_run(f, f"runs[{i}]", r, proto, chosen)
        if str(r["depth"]) not in grid:
            f.bad(f"runs[{i}].depth", f"is {r['depth']}, a depth with no rate search")
        if (r["depth"], r["seed"]) in seen:
            f.bad(f"runs[{i}]", f"repeats depth {r['depth']}, seed {r['seed']}")
        seen.add((r["depth"], r["seed"]))
    out = dict(rec, protocol=proto)
    out["missing"] = missing_text(out)
    if whole and out["missing"]:
        f.bad("runs", f"is not whole: {out['missing']}")
    return out


def read_single_record(path: Path) -> dict | None:
    """A record written as one file (the MNIST-5k record), checked whole, or None when there is no such file.

    Args:
        path: the file.

    Returns:
        The record (:func:`check_record`), with ``from_file`` and its ``pieces`` (the file).

    Raises:
        lib.validation.InputError: not valid JSON, or a field missing, out of range or inconsistent with the grid
            and runs (naming the file and the field).
    """
    path = Path(path)
    if not path.exists():
        return None
    try:
        rec = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"the record {path} is not valid JSON ({e}); {RERUN}") from None
    f = _Fields(path)
    if not isinstance(rec, dict):
        f.bad("(top level)", "is not a JSON object")
    for k in ("command", "commit", "recorded"):
        f.text(k, rec.get(k))
    rec = check_record(rec, path, whole=True)
    rec.update(from_file=True, pieces=[path.name])
    return rec


def write_piece(path: Path, piece: dict) -> None:
    """Write one piece (its SHA-256 added as ``checksum``); the file appears whole or not at all.

    Args:
        path: the piece's file.
        piece: its content (JSON-able, no NaN).

    Raises:
        lib.validation.InputError: the folder cannot be written (naming it).
    """
    body = dict(piece)
    body.pop("checksum", None)
    text = json.dumps(dict(body, checksum=result_checksum(body)), indent=0, sort_keys=True, allow_nan=False)
    tmp = Path(path).with_suffix(".json.tmp")
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text + "\n")
        tmp.replace(path)
    except OSError as exc:
        raise InputError(f"cannot write the record piece {path}: {exc.strerror or exc}") from None


def read_piece(path: Path) -> dict:
    """One piece, checked as data: its checksum, its kind's fields, and a search piece's grid against itself.

    Args:
        path: a ``search_depthLL.json`` or ``run_depthLL_seedS.json``.

    Returns:
        The piece, its protocol completed.

    Raises:
        lib.validation.InputError: not valid JSON, a checksum that does not match its content (the file was
            edited or damaged), a field missing or out of range, or a name that is not its depth and seed.
    """
    path = Path(path)
    f = _Fields(path, "the record piece")
    try:
        piece = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"the record piece {path} is not valid JSON ({e}); {RERUN}") from None
    if not isinstance(piece, dict):
        f.bad("(top level)", "is not a JSON object")
    body = {k: v for k, v in piece.items() if k != "checksum"}
    if piece.get("checksum") != result_checksum(body):
        f.bad("checksum", "does not match the piece's content (edited or damaged)")
    kind = piece.get("kind")
    if kind not in ("search", "run"):
        f.bad("kind", f"is {kind!r}, not 'search' or 'run'")
    proto = _check_protocol(f, piece.get("protocol"))
    if not isinstance(piece.get("data"), dict) or not isinstance(piece["data"].get("fingerprint"), str):
        f.bad("data", "must describe the data with its fingerprint")
    for k in ("command", "commit", "recorded"):
        f.text(k, piece.get(k))
    if isinstance(piece.get("seconds"), bool) or not isinstance(piece.get("seconds"), (int, float)) \
            or not piece["seconds"] >= 0:
        f.bad("seconds", f"is {piece.get('seconds')!r}, not a time")
    L = piece.get("depth")
    if L not in proto["depths"]:
        f.bad("depth", f"is {L!r}, not one of the protocol's depths {proto['depths']}")
    if kind == "search":
        if path.name != search_piece_name(L):
            f.bad("depth", f"is {L}, but the file is named {path.name}")
        _check_grid(f, str(L), piece.get("grid"), piece.get("chosen_lr"), proto, piece=True)
    else:
        _check_run(f, "run", piece.get("run"), proto, {})
        if piece["run"]["depth"] != L or path.name != run_piece_name(L, piece["run"]["seed"]):
            f.bad("run.depth", f"is {piece['run']['depth']}, seed {piece['run']['seed']}, but the file is named "
                               f"{path.name}")
    return dict(piece, protocol=proto)


def _same(a: dict, b: dict) -> str:
    """The first field where two protocols (or data descriptions) differ, or ""."""
    for k in sorted(set(a) | set(b)):
        if json.dumps(a.get(k), sort_keys=True) != json.dumps(b.get(k), sort_keys=True):
            return k
    return ""


def assemble_pieces(folder: Path) -> dict | None:
    """The record held by a folder of pieces, checked piece by piece and as a whole, or None when it holds none.

    Args:
        folder: the record's folder.

    Returns:
        The record (:func:`check_record`, ``whole=False``): the protocol and data of its pieces, ``grid`` and
        ``chosen_lr`` of the depths searched, ``runs`` in (depth, seed) order, ``seconds`` (search and final:
        the sums of the pieces' compute times), ``provenance`` (one entry per distinct command and commit, with
        its dates), ``pieces`` (the file names), ``from_file`` and ``missing``.

    Raises:
        lib.validation.InputError: a bad piece (:func:`read_piece`), two pieces of different protocols or data
            (naming both files), or a run whose rate is not its depth's chosen one (naming the run's file).
    """
    folder = Path(folder)
    paths = sorted(folder.glob("*.json")) if folder.is_dir() else []
    if not paths:
        return None
    pieces = [(p, read_piece(p)) for p in paths]
    p0, first = pieces[0]
    for p, piece in pieces[1:]:
        for what in ("protocol", "data"):
            k = _same(first[what], piece[what])
            if k:
                raise InputError(f"the record pieces {p0} and {p} conflict: their {what} differs in {k!r} "
                                 f"({first[what].get(k)!r} against {piece[what].get(k)!r}); a record's pieces share "
                                 "one protocol and one data set: move one of them to another folder")
    grid, chosen, runs, prov = {}, {}, [], {}
    secs = dict(search=0.0, final=0.0)
    for p, piece in pieces:
        key = (piece["command"], piece["commit"])
        prov.setdefault(key, []).append(piece["recorded"])
        if piece["kind"] == "search":
            grid[str(piece["depth"])] = dict(piece["grid"], seconds=piece["seconds"])
            chosen[str(piece["depth"])] = piece["chosen_lr"]
            secs["search"] += piece["seconds"]
        else:
            runs.append((p, piece["run"]))
            secs["final"] += piece["seconds"]
    for p, r in runs:
        c = chosen.get(str(r["depth"]))
        if c is None:
            raise InputError(f"the record piece {p}: field 'run.depth' is {r['depth']}, a depth whose rate search "
                             f"({search_piece_name(r['depth'])}) is not in {folder}; {RERUN}")
        if r["lr"] != c:
            raise InputError(f"the record piece {p}: field 'run.lr' is {r['lr']:g}, but "
                             f"{search_piece_name(r['depth'])} chose {c:g}; {RERUN}")
    runs = sorted((r for _, r in runs), key=lambda r: (r["depth"], r["seed"]))
    rec = dict(protocol=first["protocol"], data=first["data"], grid=grid, chosen_lr=chosen, runs=runs,
               seconds=secs, provenance=[dict(command=c, commit=k, recorded=sorted(d)) for (c, k), d in prov.items()],
               **{k: first.get(k) for k in ("cpu", "cores", "torch", "device")})
    rec = check_record(rec, folder, whole=False)
    rec.update(from_file=True, pieces=[p.name for p in paths])
    return rec


def _diverged(train_loss: list) -> str:
    """A diverged run's result in the pieces table: the first epoch whose loss is not finite (None in the file;
    index 0 is the loss before training), if any."""
    gone = np.flatnonzero(~np.isfinite(np.asarray(train_loss, dtype=float)))
    return f"diverged (stopped in epoch {gone[0]})" if gone.size else "diverged"


def pieces_table(folder: Path) -> str:
    """The pieces of a record folder as a Markdown table, one row per piece in (depth, kind, seed) order: what it
    is, the command's arguments after ``--record``, the commit that wrote it, its compute time (worker seconds)
    and its result (the rate a search chose, a run's test accuracy); the README quotes it
    ([LH] Figure 4 / Table 1 record).

    Args:
        folder: the record's folder.

    Returns:
        The table (header and rows, no trailing newline), then a line counting the runs and searches held
        against the protocol's (depths x seeds, depths); just the header for an empty or absent folder.

    Raises:
        lib.validation.InputError: a bad piece (:func:`read_piece`).
    """
    folder = Path(folder)
    pieces = [read_piece(p) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []
    order = lambda x: (x["depth"], x["kind"] == "run", x["run"]["seed"] if x["kind"] == "run" else -1)  # noqa: E731
    rows = ["| piece | command (after `--record`) | commit | worker s | result |", "|---|---|---|---:|---|"]
    for x in sorted(pieces, key=order):
        what = (f"search, depth {x['depth']}" if x["kind"] == "search"
                else f"run, depth {x['depth']}, seed {x['run']['seed']}")
        args = x["command"].split("--record", 1)[-1].strip()
        result = (f"rate {x['chosen_lr']:.4g}" if x["kind"] == "search" else
                  _diverged(x["run"]["train_loss"]) if x["run"]["test_acc"] is None
                  else f"test accuracy {100 * x['run']['test_acc']:.2f}%")
        rows.append(f"| {what} | `{args}` | {x['commit'][:7]} | {x['seconds']:,.0f} | {result} |")
    if pieces:
        proto = pieces[0]["protocol"]
        runs = sum(x["kind"] == "run" for x in pieces)
        rows += ["", f"{runs} of the {len(proto['depths']) * proto['seeds']} runs and {len(pieces) - runs} of the "
                     f"{len(proto['depths'])} rate searches."]
    return "\n".join(rows)
