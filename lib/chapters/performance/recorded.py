"""Chapter 07, full-data section: the record of the n = 60,000 cases, too slow for a book build ([LH] Sec. 4).

The certified kappa interval at MNIST's size needs a factorization of a 60,000 x 60,000 kernel
(about half an hour on 2 cores, 14 GiB of tiles), so the default build cannot re-run it. Such a case
is run once by this module's command line, through :func:`lib.chapters.performance.scale.measure_scale_cases`
(the same cached cell the ``paper`` profile of chapter 07 computes), and its row is written with the
command, commit and date to ``notebooks/records/``; the chapter shows those rows as a record, labelled
as such and with their data (Gaussian inputs of MNIST's shape, or the real MNIST training images), and a
build that computed the same case shows its own numbers instead. From a terminal::

    python -m lib.chapters.performance --data mnist --n 60000 --depth 1
    python -m lib.chapters.performance --n 60000 --depth 1 --shift 60     # Gaussian inputs

Every record is checked as data and each field against the others (:func:`check_record`), and two records
of one case (the same data, n and depth) are a conflict, refused with both file names (:func:`recorded_scale`).
"""
from __future__ import annotations

import argparse
import functools
import json
import math
import shlex
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from lib.book.math_text import label_text
from lib.book.paths import ROOT
from lib.book.provenance import run_info
from lib.chapters.performance.scale import (DATA_WORDS, MNIST_N, SCALE_TILE, ScaleRun, data_label, measure_scale_cases,
                                            scale_text, table_scale)
from lib.data.datasets import load_dataset
from lib.finite.extremes.bench import SCALE_DATA
from lib.validation import InputError, check_device

__all__ = ["RECORD_DIR", "RECORD_FIELDS", "RECORD_RTOL", "MNIST_RECORD_DEPTHS", "record_path", "record_scale_case",
           "check_record", "recorded_scale", "record_command", "missing_mnist", "recorded_text", "recorded_table",
           "linear_rank", "mnist_rank", "linear_text", "intro_text", "glue_recorded", "main"]

#: where the recorded cases live (one JSON file each, committed with the sources)
RECORD_DIR = ROOT / "notebooks" / "records"


def _integer(v, low: int) -> str | None:
    """None if ``v`` is an integer >= ``low`` (not a bool), else what it must be (called when a record is read, so
    that the tests that read records pin it)."""
    return None if (isinstance(v, int) and not isinstance(v, bool) and v >= low) else f"an integer >= {low}"


def _number(v, low: float = -math.inf, high: float = math.inf, inf_ok: bool = False,
            none_ok: bool = False) -> str | None:
    """None if ``v`` is a number in [low, high] (finite unless ``inf_ok``; None allowed if ``none_ok``), else what it
    must be, in words."""
    if v is None and none_ok:
        return None
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isnan(v) \
        and (inf_ok or math.isfinite(v)) and low <= v <= high
    what = "a finite number" if not inf_ok else "a number (not NaN)"
    rng = f" in [{low:g}, {high:g}]" if math.isfinite(low) and math.isfinite(high) else \
        f" >= {low:g}" if math.isfinite(low) else ""
    return None if ok else what + rng + (" or null" if none_ok else "")


def _text(v):
    return None if isinstance(v, str) and v.strip() else "a non-empty string"


#: what every field of a record must be (the fields the chapter shows; others are kept as they are)
RECORD_FIELDS = {
    "n": functools.partial(_integer, low=2), "depth": functools.partial(_integer, low=0),
    "width": functools.partial(_integer, low=1), "in_dim": functools.partial(_integer, low=1),
    "min_angle": functools.partial(_number, low=0.0, high=math.pi), "lambda_max": functools.partial(_number, low=0.0),
    "lambda_max_low": functools.partial(_number, low=0.0), "lambda_max_high": functools.partial(_number, low=0.0),
    "kappa_low": functools.partial(_number, low=1.0, inf_ok=True, none_ok=True),
    "kappa_high": functools.partial(_number, low=1.0, inf_ok=True, none_ok=True),
    "lambda_min_mode": lambda v: None if v in ("exact", "certified", "bounds") else "'exact', 'certified' or 'bounds'",
    "seconds": functools.partial(_number, low=0.0), "peak_gib": functools.partial(_number, low=0.0),
    "load_start": functools.partial(_number, low=0.0), "load_end": functools.partial(_number, low=0.0),
    "cpus": functools.partial(_integer, low=1), "command": _text, "commit": _text, "recorded": _text, "date": _text,
}
#: fields that may be missing or null (older records); when present they must be finite numbers
_OPTIONAL_NUMBERS = ("t_angle_scan", "t_lambda_max", "t_lambda_min", "t_certified_factor", "shift")
#: relative tolerance of the cross-checks between a record's fields (kappa's ends against the eigenvalue bounds
#: they are quotients of; the JSON holds float64 values written with repr, so only rounding separates them)
RECORD_RTOL = 1e-9
#: fields of the lambda_min interval a record may carry (every record written by this module does)
_LMIN = ("lambda_min_low", "lambda_min", "lambda_min_high")


def check_record(row, path: Path) -> dict:
    """Check one record as data: every field of ``RECORD_FIELDS`` present with its type and range,
    ``low <= value <= high`` for the intervals, the angle in [0, pi], every number finite.

    Args:
        row: the parsed JSON of a record.
        path: its file, for the message.

    Returns:
        ``row`` unchanged.

    Raises:
        lib.validation.InputError: the first problem, naming the file and the field.
    """
    redo = "re-run the command it came from (or restore the file from git)"
    if not isinstance(row, dict):
        raise InputError(f"the record {path} holds a JSON {type(row).__name__}, not an object; {redo}")
    for name, check in RECORD_FIELDS.items():
        if name not in row:
            raise InputError(f"the record {path} lacks the field {name!r}; {redo}")
        need = check(row[name])
        if need is not None:
            raise InputError(f"the record {path}: field {name!r} must be {need}, got {row[name]!r}; {redo}")
    for name in _OPTIONAL_NUMBERS:
        if row.get(name) is not None and _number(row[name], 0.0) is not None:
            raise InputError(f"the record {path}: field {name!r} must be a finite number >= 0 or null, got "
                             f"{row[name]!r}; {redo}")
    for low, mid, high in (("lambda_max_low", "lambda_max", "lambda_max_high"), ("kappa_low", None, "kappa_high")):
        lo, hi = row[low], row[high]
        if lo is not None and hi is not None and lo > hi:
            raise InputError(f"the record {path}: the interval [{low}, {high}] = [{lo:.6g}, {hi:.6g}] is reversed "
                             f"(low > high); {redo}")
        if mid is not None and not lo <= row[mid] <= hi:
            raise InputError(f"the record {path}: field {mid!r} = {row[mid]} lies outside [{low}, {high}] = "
                             f"[{lo}, {hi}]; {redo}")
    _cross_check(row, path, redo)
    return row


def _cross_check(row: dict, path: Path, redo: str) -> None:
    """Each field of a record against the others: its data, ``singular``, the lambda_min interval, and kappa's
    ends as quotients of the eigenvalue bounds (:data:`~lib.chapters.performance.recorded.RECORD_RTOL`)."""
    def bad(why: str):
        raise InputError(f"the record {path}: {why}; {redo}")

    data = row.get("data", "gaussian")
    if data not in SCALE_DATA:
        bad(f"field 'data' must be one of {list(SCALE_DATA)} (absent: gaussian), got {data!r}")
    if data == "mnist" and (row["in_dim"] != 784 or row["n"] > MNIST_N):
        bad(f"an MNIST case has in_dim 784 and n <= {MNIST_N:,}, got in_dim {row['in_dim']} and n {row['n']:,}")
    singular = row.get("singular")
    if not isinstance(singular, bool):
        bad(f"field 'singular' must be true or false, got {singular!r}")
    if not all(k in row for k in _LMIN):
        bad(f"it lacks the lambda_min interval {list(_LMIN)}")
    lo, mid, hi = (row[k] for k in _LMIN)
    for k in _LMIN:
        if row[k] is not None and _number(row[k]) is not None:
            bad(f"field {k!r} must be a finite number or null, got {row[k]!r}")
    if lo is None or hi is None:
        bad(f"the lambda_min interval [{lo}, {hi}] has a missing end")
    if not lo <= hi or (mid is not None and not lo <= mid <= hi):
        bad(f"lambda_min_low <= lambda_min <= lambda_min_high fails: {lo!r}, {mid!r}, {hi!r}")
    if lo < 0 and not singular:
        bad(f"lambda_min_low = {lo!r} < 0 with singular: false (a lower bound of an NTK's lambda_min is >= 0; a "
            "kernel with no positive lower bound is singular or undecided, never certified)")
    if hi > row["lambda_max_high"]:
        bad(f"lambda_min_high = {hi!r} exceeds lambda_max_high = {row['lambda_max_high']!r}")
    k_lo, k_hi = row["kappa_low"], row["kappa_high"]
    if singular:
        if k_lo is not None or k_hi is not None:
            bad(f"a singular kernel has kappa = infinity (kappa_low and kappa_high null), got [{k_lo}, {k_hi}]")
        return
    if row["lambda_min_mode"] == "exact":  # a point: lambda_max / lambda_min
        point = row["lambda_max"] / mid if mid else None
        wants = (("kappa_low", k_lo, point), ("kappa_high", k_hi, point))
        rule = "kappa_low = kappa_high = lambda_max / lambda_min in mode exact"
    else:  # an interval: the quotients of the eigenvalue bounds
        wants = (("kappa_low", k_lo, row["lambda_max_low"] / hi if hi > 0 else None),
                 ("kappa_high", k_hi, row["lambda_max_high"] / lo if lo > 0 else None))
        rule = ("kappa_low = lambda_max_low / lambda_min_high, kappa_high = lambda_max_high / lambda_min_low, null "
                "when the divisor is 0")
    for name, got, want in wants:
        got = None if got is None or math.isinf(got) else got  # an unbounded end: null in JSON, inf in a frame
        if (got is None) != (want is None) or (got is not None and abs(got - want) > RECORD_RTOL * abs(want)):
            bad(f"field {name!r} = {got!r} does not follow from its eigenvalues ({want!r}: {rule})")


def record_path(n: int, depth: int, record_dir: Path = RECORD_DIR, data: str = "gaussian") -> Path:
    """The file of the recorded case (data, n, depth).

    Args:
        n: number of inputs.
        depth: hidden layers L.
        record_dir: the records folder.
        data: the inputs, ``"gaussian"`` or ``"mnist"``.

    Returns:
        ``record_dir / "07_scale_n<n>_depth<depth>.json"`` for Gaussian inputs,
        ``record_dir / "07_scale_mnist_n<n>_depth<depth>.json"`` for MNIST.
    """
    tag = "" if data == "gaussian" else f"{data}_"
    return Path(record_dir) / f"07_scale_{tag}n{int(n)}_depth{int(depth)}.json"


def record_command(n: int, depth: int, data: str = "gaussian") -> str:
    """The command that writes the record of (data, n, depth) with the defaults (certified lambda_min, width 512)."""
    return f"python -m lib.chapters.performance --data {data} --n {int(n)} --depth {int(depth)}"


def record_scale_case(n: int, depth: int, *, width: int = 512, in_dim: int = 784, lambda_min: str = "certified",
                      shift: float | None = None, tile: int = SCALE_TILE, device: str = "cpu",
                      record_dir: Path = RECORD_DIR, cache_dir=None, data: str = "gaussian") -> dict:
    """Run one full-data case through the sweep cache and write its row as a record ([LH] Sec. 4, 4.1).

    Args:
        n: number of inputs.
        depth: hidden layers L.
        width: hidden width m.
        in_dim: input dimension d.
        lambda_min: see :func:`lib.finite.extremes.ntk_extremes`.
        shift: the certified shift (one factorization), or None (two factorizations).
        tile: tile edge of the certified factorization.
        device: ``"cpu"`` or ``"cuda"``.
        record_dir: where to write the record.
        cache_dir: overrides the sweep cache directory.
        data: the inputs, ``"gaussian"`` (N(0, I_d)) or ``"mnist"`` (MNIST's training images).

    Returns:
        The row of :func:`lib.chapters.performance.scale.measure_scale_cases`, with ``command``, ``commit``
        (of the checkout writing the record) and ``recorded`` (UTC date) added.
    """
    df = measure_scale_cases([n], [depth], width=width, in_dim=in_dim, lambda_min=lambda_min, device=device, tile=tile,
                             shifts=None if shift is None else [shift], cache_dir=cache_dir, data=data)
    row = {k: (None if isinstance(v, float) and v != v else v) for k, v in df.iloc[0].to_dict().items()}
    row = {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
    args = ["--data", data, "--n", n, "--depth", depth, "--width", width, "--in-dim", in_dim, "--lambda-min",
            lambda_min, "--tile", tile, "--device", device] + ([] if shift is None else ["--shift", f"{shift:g}"])
    info = run_info()
    row.update(command="python -m lib.chapters.performance " + shlex.join(str(a) for a in args),
               commit=info["commit"], recorded=info["date"])
    path = record_path(n, depth, record_dir, data)
    check_record(row, path)  # never write a record the chapter would refuse
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(row, indent=1, sort_keys=True) + "\n")
    return row


def _case(row) -> tuple:
    """A record's case: (data, n, depth); records written before ``data`` was recorded are Gaussian."""
    data = row.get("data") if isinstance(row, dict) else getattr(row, "data", None)
    return (data if isinstance(data, str) else "gaussian", int(row["n"]), int(row["depth"]))


def recorded_scale(record_dir: Path = RECORD_DIR, exclude: ScaleRun | pd.DataFrame | None = None) -> pd.DataFrame:
    """The recorded full-data cases, sorted by data, n and depth, minus those this build computed itself.

    Args:
        record_dir: the records folder.
        exclude: this build's cases (:func:`lib.chapters.performance.scale.measure_scale`, or the rows of
            :func:`lib.chapters.performance.scale.measure_scale_cases`); a record of the same (data, n, depth,
            width, in_dim) is left out, the build's own numbers standing instead.

    Returns:
        One row per record (the columns of ``measure_scale_cases`` plus ``data``, ``command``, ``commit``,
        ``recorded``, ``file``); empty when there is none.

    Raises:
        lib.validation.InputError: a record that is not valid JSON, or fails :func:`check_record` (a missing
            field, a wrong type, a reversed interval, an angle outside [0, pi], NaN, fields that contradict each
            other), naming file and field; two records of one case (the same data, n and depth: a copy, or a
            second run), naming both files.
    """
    rows, seen = [], {}
    for path in sorted(Path(record_dir).glob("07_scale_*.json")):
        try:
            row = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, ValueError) as e:
            raise InputError(f"the record {path} is not valid JSON ({e}); re-run the command it came from") from None
        check_record(row, path)
        case = _case(row)
        if case in seen:
            raise InputError(f"the records {seen[case]} and {path} are two records of one case ({data_label(case[0])}"
                             f" inputs, n = {case[1]:,}, depth {case[2]}): a conflict; keep the one its command "
                             f"wrote (`{record_command(case[1], case[2], case[0])}`) and remove the other")
        seen[case] = path
        rows.append({**row, "data": case[0], "file": path.name})
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    if isinstance(exclude, ScaleRun):
        exclude = exclude.frame
    if exclude is not None and len(exclude):
        data = exclude["data"] if "data" in exclude else ["gaussian"] * len(exclude)
        have = set(zip(data, exclude.n, exclude.depth, exclude.width, exclude.in_dim))
        df = df[[k not in have for k in zip(df.data, df.n, df.depth, df.width, df.in_dim)]]
    return df.sort_values(["data", "n", "depth"]).reset_index(drop=True)


#: the depths of the MNIST records the chapter and the introduction ask for ([LH] Figure 3's shallowest and deepest)
MNIST_RECORD_DEPTHS = (1, 10)


def missing_mnist(rec: pd.DataFrame, scale: ScaleRun | None = None) -> list[int]:
    """The depths of :data:`~lib.chapters.performance.recorded.MNIST_RECORD_DEPTHS` with no MNIST case at
    n = 60,000, neither recorded nor computed.

    Args:
        rec: :func:`recorded_scale`.
        scale: this build's cases (:func:`lib.chapters.performance.scale.measure_scale`), or None.

    Returns:
        The missing depths, in order.
    """
    have = {(d, int(n), int(L)) for d, n, L in zip(rec.get("data", []), rec.get("n", []), rec.get("depth", []))}
    if scale is not None and len(scale.frame):
        f = scale.frame
        have |= {(d, int(n), int(L)) for d, n, L in zip(f.get("data", ["gaussian"] * len(f)), f.n, f.depth)}
    return [L for L in MNIST_RECORD_DEPTHS if ("mnist", MNIST_N, L) not in have]


def _missing_text(depths: list[int], markdown: bool = True) -> str:
    """The MNIST cases at n = 60,000 not recorded yet, and the commands that write them ("" when none is missing);
    Markdown for the chapter (naming its Gaussian rows), or plain text for the introduction."""
    if not depths:
        return ""
    q, b = ("`", "**") if markdown else ("'", "")
    cmds = " and ".join(f"{q}{record_command(MNIST_N, L, 'mnist')}{q}" for L in depths)
    gauss = "Rows labelled Gaussian are inputs of MNIST's shape drawn from N(0, I), not MNIST. " if markdown else ""
    return (f"{b}Not yet recorded: the real MNIST images at n = {MNIST_N:,}, depth{'s' if len(depths) > 1 else ''} "
            f"{' and '.join(str(L) for L in depths)}.{b} {gauss}{cmds} write{'s' if len(depths) == 1 else ''} "
            f"{'it' if len(depths) == 1 else 'them'} (about 35-55 min and 15-20 GiB of memory each on 2 cores).")


def recorded_text(rec: pd.DataFrame, scale: ScaleRun | None = None) -> str:
    """Markdown: what the recorded cases are, and per case what it measured and where it came from.

    Args:
        rec: :func:`lib.chapters.performance.recorded.recorded_scale`.
        scale: this build's cases, or None (a case it computed is not missing).

    Returns:
        A paragraph saying that these rows were not computed by this build, then the stage-by-stage
        bullets and the depth comparison of :func:`lib.chapters.performance.scale.scale_text`, one line per
        record with its data, command, commit and date, and a paragraph naming the MNIST cases of
        :data:`~lib.chapters.performance.recorded.MNIST_RECORD_DEPTHS` at n = 60,000 that are neither recorded
        nor computed, with their commands.
        Without records: one sentence saying so, and that paragraph.
    """
    missing = _missing_text(missing_mnist(rec, scale))
    if rec.empty:
        return ("No recorded case: `notebooks/records/` holds none that this build did not compute itself. "
                + (missing or f"Write one with `{record_command(MNIST_N, 1, 'mnist')}`."))
    mins = rec.seconds.max() / 60
    head = (f"**A record, not re-run by this build.** The cases below take up to {mins:.0f} minutes each on "
            "this machine, too long for a book build, so they were run once by the command named beside them "
            "and their rows were committed to `notebooks/records/`. The `paper` profile of this chapter "
            "computes the same cases again, and then its own numbers stand here instead.")
    src = "\n".join(f"- {data_label(r.data)}, n = {r.n:,}, depth {r.depth}: `{r.command}` (commit `{r.commit}`, "
                    f"recorded {r.recorded}; `notebooks/records/{r.file}`)." for r in rec.itertuples())
    return f"{head}\n\n{scale_text(rec)}\n\nWhere each record came from:\n\n{src}" + (f"\n\n{missing}" if missing else "")


def linear_rank(X) -> int:
    """The rank of the data matrix X (n x d), which bounds the rank of a linear network's NTK ([LH] Cor 2.4).

    A linear network's NTK is X Q X^T with Q = its NTK on the unit vectors (d x d; chapter 3), so its rank is at
    most rank X <= d at every depth and width. Computed as the numerical rank of the d x d Gram matrix X^T X
    (:func:`numpy.linalg.matrix_rank`, tolerance d eps lambda_max).

    Args:
        X: the inputs.

    Returns:
        rank X.
    """
    X = np.asarray(X, dtype=np.float64)
    return int(np.linalg.matrix_rank(X.T @ X, hermitian=True))


@functools.lru_cache(maxsize=1)
def mnist_rank() -> int:
    """:func:`linear_rank` of MNIST's 60,000 training images, pixels in [-1, 1] as the authors map them (713);
    computed once per process."""
    return linear_rank(load_dataset("mnist"))


def linear_text(n: int, d: int, rank: int) -> str:
    """The linear network's kappa on n inputs of rank ``rank``: infinite (singular) when rank < n, with its rank.

    Args:
        n: inputs.
        d: input dimension.
        rank: :func:`linear_rank` of the inputs.

    Returns:
        One sentence.
    """
    if rank < n:
        return (f"The linear network's NTK on the {n:,} MNIST training images is $X Q X^\\top$ ($Q$: its NTK on the {d} unit "
                f"vectors), of rank at most rank $X$ = {rank} $\\le$ {d} < {n:,} at every depth and width, so its "
                "$\\kappa$ is **infinite** (the kernel is singular), exactly: not a large number.")
    return (f"On these {n:,} inputs of rank {rank} the linear network's NTK $X Q X^\\top$ can be non-singular: its "
            "$\\kappa$ is measured, not implied by its rank.")


def intro_text(rec: pd.DataFrame, rank: int | None) -> str:
    """The introduction's sentences on the full-data kappa of the real MNIST images at n = 60,000 ([LH] Sec. 4.1).

    The paper computed NTKs on batches of 512 only, calling a full-data NTK "hours" per kernel; this states the
    certified full-data kappa interval of each MNIST record (depths 1 and 10), the exact min angle and the cost,
    the linear network's infinite kappa with its rank, and names the commands of the records still missing.
    Plain text (glued into the introduction, which pastes text across pages as it is).

    Args:
        rec: :func:`recorded_scale` (all records).
        rank: rank of MNIST's 60,000 x 784 training matrix (:func:`linear_rank`), or None when not computed.

    Returns:
        The sentences.
    """
    mn = rec[(rec.data == "mnist") & (rec.n == MNIST_N)].sort_values("depth") if len(rec) else rec
    parts = []
    for r in mn.itertuples():
        def big(v: float) -> str:  # 249,361; 5.059 × 10⁹ in plain text (the introduction pastes it as it is)
            if v >= 1e6:
                mant, exp = f"{v:.3e}".split("e")
                return label_text(f"{mant} × 10^{int(exp)}")  # the power as superscripts, as a link's text
            return f"{v:,.0f}" if v >= 1e4 else f"{v:.4g}"
        kap = ("infinite (singular)" if r.kappa_low is None or not np.isfinite(r.kappa_low) else
               f"in [{big(r.kappa_low)}, {big(r.kappa_high)}]" if r.kappa_high is not None
               and np.isfinite(r.kappa_high) else f"at least {big(r.kappa_low)}")
        parts.append(f"at depth {r.depth} its κ lies {kap}, certified, and its smallest pairwise gradient angle is "
                     f"{np.degrees(r.min_angle):.3g}° ({r.seconds / 60:.0f} min and {r.peak_gib:.0f} GiB on "
                     f"{r.cpus} cores, recorded {r.recorded})")
    found = (f"On all {MNIST_N:,} real MNIST training images, the full-data NTK of the ReLU network of width 512 "
             "(never held in memory, chapter 7): " + "; ".join(parts) + "." if parts else "")
    lin = "" if rank is None else (
        f"The linear network's NTK on MNIST's {MNIST_N:,} training images is X Q Xᵀ, of rank at most rank X = {rank} ≤ 784 < {MNIST_N:,} "
        "at every depth and width, so its κ is infinite (singular), exactly." if rank < MNIST_N else "")
    return " ".join(x for x in (found, lin, _missing_text(missing_mnist(rec), markdown=False)) if x)


def recorded_table(rec: pd.DataFrame):
    """The recorded cases as the full-data table (a Styler, no index), or nothing to show.

    Args:
        rec: :func:`lib.chapters.performance.recorded.recorded_scale`.

    Returns:
        The Styler of :func:`lib.chapters.performance.scale.table_scale`, or an empty Markdown object.
    """
    from IPython.display import Markdown

    return Markdown("") if rec.empty else table_scale(rec).style.hide(axis="index")


def glue_recorded() -> dict[str, str]:
    """The introduction's sentences on the full-data MNIST records (:func:`intro_text` of every record)."""
    return {"mnist_full_data": intro_text(recorded_scale(), mnist_rank())}


def main(argv: list[str] | None = None) -> int:
    """Command line: run (or read from the cache) one case and write its record.

    Args:
        argv: arguments (default: ``sys.argv[1:]``).

    Returns:
        The exit code.
    """
    p = argparse.ArgumentParser(prog="python -m lib.chapters.performance",
                                description=__doc__.splitlines()[0])
    p.add_argument("--data", default="gaussian", choices=list(SCALE_DATA),
                   help="the inputs: gaussian (N(0, I_d), the default) or mnist (MNIST's training images)")
    p.add_argument("--n", type=int, default=60000)
    p.add_argument("--depth", type=int, required=True)
    p.add_argument("--width", type=int, default=512)
    p.add_argument("--in-dim", type=int, default=784)
    p.add_argument("--lambda-min", default="certified", choices=["auto", "exact", "certified", "bounds"])
    p.add_argument("--shift", type=float, default=None)
    p.add_argument("--tile", type=int, default=SCALE_TILE)
    p.add_argument("--device", default="cpu")
    a = p.parse_args(argv)
    try:
        for name, low in (("n", 2), ("depth", 0), ("width", 1), ("in_dim", 1), ("tile", 1)):
            if getattr(a, name) < low:
                raise InputError(f"--{name.replace('_', '-')} must be an integer >= {low}, got {getattr(a, name)}")
        if a.shift is not None and not (math.isfinite(a.shift) and a.shift >= 0):
            raise InputError(f"--shift must be a finite number >= 0, got {a.shift}")
        check_device(a.device)
        if a.data == "mnist" and (a.in_dim != 784 or a.n > MNIST_N):
            raise InputError(f"--data mnist needs --in-dim 784 and --n at most {MNIST_N} (MNIST's training images), "
                             f"got --in-dim {a.in_dim} and --n {a.n}")
        row = record_scale_case(a.n, a.depth, width=a.width, in_dim=a.in_dim, lambda_min=a.lambda_min,
                                shift=a.shift, tile=a.tile, device=a.device, data=a.data)
    except InputError as exc:
        p.exit(2, f"error: {exc}\n")
    print(json.dumps(row, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
