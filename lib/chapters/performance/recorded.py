"""Chapter 07, full-data section: the record of the n = 60,000 cases, too slow for a book build ([LH] Sec. 4).

The certified kappa interval at MNIST's size needs a factorization of a 60,000 x 60,000 kernel
(about half an hour on 2 cores, 14 GiB of tiles), so the default build cannot re-run it. Such a case
is run once by this module's command line, through :func:`lib.chapters.performance.scale.measure_scale_cases`
(the same cached cell the ``paper`` profile of chapter 07 computes), and its row is written with the
command, commit and date to ``notebooks/records/``; the chapter shows those rows as a record, labelled
as such, and a build that computed the same case shows its own numbers instead. From a terminal::

    python -m lib.chapters.performance --n 60000 --depth 1 --shift 60
"""
from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
from pathlib import Path

import pandas as pd

from lib.book.pipeline import ROOT
from lib.chapters.performance.scale import SCALE_TILE, ScaleRun, measure_scale_cases
from lib.validation import InputError

__all__ = ["RECORD_DIR", "RECORD_FIELDS", "record_path", "record_scale_case", "check_record", "recorded_scale",
           "recorded_text", "recorded_table", "main"]

#: where the recorded cases live (one JSON file each, committed with the sources)
RECORD_DIR = ROOT / "notebooks" / "records"


def _integer(low: int):
    def check(v):
        return None if (isinstance(v, int) and not isinstance(v, bool) and v >= low) else f"an integer >= {low}"
    return check


def _number(low: float = -math.inf, high: float = math.inf, inf_ok: bool = False, none_ok: bool = False):
    def check(v):
        if v is None and none_ok:
            return None
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isnan(v) \
            and (inf_ok or math.isfinite(v)) and low <= v <= high
        what = "a finite number" if not inf_ok else "a number (not NaN)"
        rng = f" in [{low:g}, {high:g}]" if math.isfinite(low) and math.isfinite(high) else \
            f" >= {low:g}" if math.isfinite(low) else ""
        return None if ok else what + rng + (" or null" if none_ok else "")
    return check


def _text(v):
    return None if isinstance(v, str) and v.strip() else "a non-empty string"


#: what every field of a record must be (the fields the chapter shows; others are kept as they are)
RECORD_FIELDS = {
    "n": _integer(2), "depth": _integer(0), "width": _integer(1), "in_dim": _integer(1),
    "min_angle": _number(0.0, math.pi), "lambda_max": _number(0.0, inf_ok=False),
    "lambda_max_low": _number(0.0), "lambda_max_high": _number(0.0),
    "kappa_low": _number(1.0, inf_ok=True, none_ok=True), "kappa_high": _number(1.0, inf_ok=True, none_ok=True),
    "lambda_min_mode": lambda v: None if v in ("exact", "certified", "bounds") else "'exact', 'certified' or 'bounds'",
    "seconds": _number(0.0), "peak_gib": _number(0.0), "load_start": _number(0.0), "load_end": _number(0.0),
    "cpus": _integer(1), "command": _text, "commit": _text, "recorded": _text, "date": _text,
}
#: fields that may be missing or null (older records); when present they must be finite numbers
_OPTIONAL_NUMBERS = ("t_angle_scan", "t_lambda_max", "t_lambda_min", "t_certified_factor", "shift")


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
        if row.get(name) is not None and _number(0.0)(row[name]) is not None:
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
    return row


def record_path(n: int, depth: int, record_dir: Path = RECORD_DIR) -> Path:
    """The file of the recorded case (n, depth).

    Args:
        n: number of inputs.
        depth: hidden layers L.
        record_dir: the records folder.

    Returns:
        ``record_dir / "07_scale_n<n>_depth<depth>.json"``.
    """
    return Path(record_dir) / f"07_scale_n{int(n)}_depth{int(depth)}.json"


def record_scale_case(n: int, depth: int, *, width: int = 512, in_dim: int = 784, lambda_min: str = "certified",
                      shift: float | None = None, tile: int = SCALE_TILE, device: str = "cpu",
                      record_dir: Path = RECORD_DIR, cache_dir=None) -> dict:
    """Run one full-data case through the sweep cache and write its row as a record ([LH] Sec. 4, 4.1).

    Args:
        n: number of inputs (Gaussian, MNIST's shape by default).
        depth: hidden layers L.
        width: hidden width m.
        in_dim: input dimension d.
        lambda_min: see :func:`lib.finite.extremes.ntk_extremes`.
        shift: the certified shift (one factorization), or None (two factorizations).
        tile: tile edge of the certified factorization.
        device: ``"cpu"`` or ``"cuda"``.
        record_dir: where to write the record.
        cache_dir: overrides the sweep cache directory.

    Returns:
        The row of :func:`lib.chapters.performance.scale.measure_scale_cases`, with ``command``, ``commit``
        (of the checkout writing the record) and ``recorded`` (UTC date) added.
    """
    from lib.book.provenance import run_info
    df = measure_scale_cases([n], [depth], width=width, in_dim=in_dim, lambda_min=lambda_min, device=device, tile=tile,
                       shifts=None if shift is None else [shift], cache_dir=cache_dir)
    row = {k: (None if isinstance(v, float) and v != v else v) for k, v in df.iloc[0].to_dict().items()}
    row = {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
    args = ["--n", n, "--depth", depth, "--width", width, "--in-dim", in_dim, "--lambda-min", lambda_min,
            "--tile", tile, "--device", device] + ([] if shift is None else ["--shift", f"{shift:g}"])
    info = run_info()
    row.update(command="python -m lib.chapters.performance " + shlex.join(str(a) for a in args),
               commit=info["commit"], recorded=info["date"])
    path = record_path(n, depth, record_dir)
    check_record(row, path)  # never write a record the chapter would refuse
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(row, indent=1, sort_keys=True) + "\n")
    return row


def recorded_scale(record_dir: Path = RECORD_DIR, exclude: ScaleRun | pd.DataFrame | None = None) -> pd.DataFrame:
    """The recorded full-data cases, sorted by n and depth, minus those this build computed itself.

    Args:
        record_dir: the records folder.
        exclude: this build's cases (:func:`lib.chapters.performance.scale.measure_scale`, or the rows of
            :func:`lib.chapters.performance.scale.measure_scale_cases`); a record of the same (n, depth, width,
            in_dim) is left out, the build's own numbers standing instead.

    Returns:
        One row per record (the columns of ``measure_scale_cases`` plus ``command``, ``commit``, ``recorded``);
        empty when there is none.

    Raises:
        lib.validation.InputError: a record that is not valid JSON, or fails :func:`check_record` (a missing
            field, a wrong type, a reversed interval, an angle outside [0, pi], NaN), naming file and field.
    """
    rows = []
    for path in sorted(Path(record_dir).glob("07_scale_*.json")):
        try:
            row = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, ValueError) as e:
            raise InputError(f"the record {path} is not valid JSON ({e}); re-run the command it came from") from None
        rows.append(check_record(row, path))
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    if isinstance(exclude, ScaleRun):
        exclude = exclude.frame
    if exclude is not None and len(exclude):
        have = set(zip(exclude.n, exclude.depth, exclude.width, exclude.in_dim))
        df = df[[k not in have for k in zip(df.n, df.depth, df.width, df.in_dim)]]
    return df.sort_values(["n", "depth"]).reset_index(drop=True)


def recorded_text(rec: pd.DataFrame) -> str:
    """Markdown: what the recorded cases are, and per case what it measured and where it came from.

    Args:
        rec: :func:`lib.chapters.performance.recorded.recorded_scale`.

    Returns:
        A paragraph saying that these rows were not computed by this build, then the stage-by-stage
        bullets and the depth comparison of :func:`lib.chapters.performance.scale.scale_text`, and one
        line per record with its command, commit and date. Without records: one sentence saying so.
    """
    from lib.chapters.performance.scale import scale_text
    if rec.empty:
        return ("No recorded case: `notebooks/records/` holds none that this build did not compute itself. "
                "Write one with `python -m lib.chapters.performance --n 60000 --depth 1`.")
    mins = rec.seconds.max() / 60
    head = (f"**A record, not re-run by this build.** The cases below take up to {mins:.0f} minutes each on "
            "this machine, too long for a book build, so they were run once by the command named beside them "
            "and their rows were committed to `notebooks/records/`. The `paper` profile of this chapter "
            "computes the same cases again, and then its own numbers stand here instead.")
    src = "\n".join(f"- n = {r.n:,}, depth {r.depth}: `{r.command}` (commit `{r.commit}`, recorded {r.recorded})."
                     for r in rec.itertuples())
    return f"{head}\n\n{scale_text(rec)}\n\nWhere each record came from:\n\n{src}"


def recorded_table(rec: pd.DataFrame):
    """The recorded cases as the full-data table (a Styler, no index), or nothing to show.

    Args:
        rec: :func:`lib.chapters.performance.recorded.recorded_scale`.

    Returns:
        The Styler of :func:`lib.chapters.performance.scale.table_scale`, or an empty Markdown object.
    """
    from IPython.display import Markdown

    from lib.chapters.performance.scale import table_scale
    return Markdown("") if rec.empty else table_scale(rec).style.hide(axis="index")


def main(argv: list[str] | None = None) -> int:
    """Command line: run (or read from the cache) one case and write its record.

    Args:
        argv: arguments (default: ``sys.argv[1:]``).

    Returns:
        The exit code.
    """
    p = argparse.ArgumentParser(prog="python -m lib.chapters.performance",
                                description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=60000)
    p.add_argument("--depth", type=int, required=True)
    p.add_argument("--width", type=int, default=512)
    p.add_argument("--in-dim", type=int, default=784)
    p.add_argument("--lambda-min", default="certified", choices=["auto", "exact", "certified", "bounds"])
    p.add_argument("--shift", type=float, default=None)
    p.add_argument("--tile", type=int, default=SCALE_TILE)
    p.add_argument("--device", default="cpu")
    a = p.parse_args(argv)
    from lib.validation import check_device
    try:
        for name, low in (("n", 2), ("depth", 0), ("width", 1), ("in_dim", 1), ("tile", 1)):
            if getattr(a, name) < low:
                raise InputError(f"--{name.replace('_', '-')} must be an integer >= {low}, got {getattr(a, name)}")
        if a.shift is not None and not (math.isfinite(a.shift) and a.shift >= 0):
            raise InputError(f"--shift must be a finite number >= 0, got {a.shift}")
        check_device(a.device)
        row = record_scale_case(a.n, a.depth, width=a.width, in_dim=a.in_dim, lambda_min=a.lambda_min,
                                shift=a.shift, tile=a.tile, device=a.device)
    except InputError as exc:
        p.exit(2, f"error: {exc}\n")
    print(json.dumps(row, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
