"""The verified on-disk cell cache: one small JSON record per finished computation.

A record lives in ``<cache>/sweeps/<name>/<key>.json`` with ``<cache>`` = ``$NTK_CACHE_DIR`` or
``<repo>/.cache``. Its key (:func:`cell_key`) is a hash of the cache name, the code ``version``
string, every parameter, and a fingerprint of the data array, so a changed parameter is a
different record. Records are written atomically (temporary file + ``os.replace``): an
interrupted run leaves finished records intact and resumes from them.

One computation (a training run returning loss curves, a grid search returning a tuple) is
cached with :func:`cached_call`, whose result may hold NumPy arrays, tuples, dicts with
non-string keys and DataFrames (encoded by :func:`to_json`, decoded exactly by :func:`from_json`;
float64 values round-trip bit for bit). A grid of scalar cells is run by
:func:`lib.book.sweep.run_sweep`, which writes the same records.

Every record is verified before reuse (:func:`verify_record`): required keys and their types,
the key matching the file name, the key recomputed from what the record claims to be (its sweep,
code version, parameters and data fingerprint: a record moved into another cell's file, its
``key`` edited, is refused), a SHA-256 checksum of the result, and a SHA-256 checksum of the whole
record (``record_checksum``; records written before it existed are still read, their key and
result checksum covering what they claim). A record that fails is recomputed and a warning naming
the file is printed to standard error. A cache directory that cannot be created or written (read
only, a full disk, a directory where a record should be) raises :class:`SweepError` naming the
directory or file and what to do.
"""
from __future__ import annotations

import errno
import hashlib
import json
import math
import os
import socket
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from lib.book.paths import ROOT
from lib.validation import InputError, InputTypeError

__all__ = ["cache_root", "sweep_dir", "cell_key", "SweepError", "cached_call", "to_json", "from_json",
           "result_checksum", "record_checksum", "verify_record", "read_record", "write_record", "make_record",
           "ensure_dir", "probe_writable", "clean_result", "RECORD_SCHEMA"]



class SweepError(RuntimeError):
    """A cell failed (the message names its parameters); finished cells stay cached."""


def cache_root() -> Path:
    """``$NTK_CACHE_DIR`` if set, else ``<repo>/.cache``.

    Returns:
        The cache folder (not created here).
    """
    env = os.environ.get("NTK_CACHE_DIR")
    return Path(env).expanduser() if env else ROOT / ".cache"


def sweep_dir(name: str, cache_dir: str | Path | None = None) -> Path:
    """Directory of the cells of sweep ``name``: ``<cache>/sweeps/<name>``.

    Args:
        name: sweep name: a plain non-empty string without path separators, not starting with a dot.
        cache_dir: overrides ``<cache>/sweeps``.

    Returns:
        The folder (not created here).
    """
    if not isinstance(name, str) or not name or any(c in name for c in "/\\") or name.startswith("."):
        raise InputError(f"sweep name must be a plain non-empty string without '/', got {name!r}")
    base = Path(cache_dir).expanduser() if cache_dir is not None else cache_root() / "sweeps"
    return base / name


def _canonical(obj: Any, where: str = "params") -> Any:
    """A JSON-stable form of ``obj``; numpy scalars become Python numbers, anything else is an error."""
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        v = float(obj)
        return v if math.isfinite(v) else repr(v)
    if obj is None or isinstance(obj, str):
        return obj
    if isinstance(obj, Mapping):
        bad = [k for k in obj if not isinstance(k, str)]
        if bad:
            raise InputTypeError(f"{where} keys must be strings, got {bad!r}")
        return {k: _canonical(v, f"{where}[{k!r}]") for k, v in sorted(obj.items())}
    if isinstance(obj, (list, tuple)):
        return [_canonical(v, f"{where}[{i}]") for i, v in enumerate(obj)]
    raise InputTypeError(f"{where} must hold only str/int/float/bool/None/lists/dicts to be hashed; "
                    f"got {type(obj).__name__} ({obj!r})")


def cell_key(name: str, params: Mapping, version: str = "1", data_fingerprint: str | None = None) -> str:
    """The cache key of one cell: SHA-256 (24 hex digits) of sweep name, version, parameters and data.

    Args:
        name: sweep name.
        params: the cell's parameters (see :func:`lib.book.sweep.run_sweep`).
        version: the code version string.
        data_fingerprint: the fingerprint of the cell's data array, if any.

    Returns:
        The key, also the cell's file name (without ``.json``).
    """
    if not isinstance(params, Mapping):
        raise InputTypeError(f"a cell must be a dict of parameters, got {type(params).__name__}")
    blob = json.dumps({"sweep": name, "version": str(version), "params": _canonical(params),
                       "data": data_fingerprint}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


#: Required keys of a cell record and their types (see :func:`verify_record`).
RECORD_SCHEMA: dict[str, tuple[type, ...]] = {
    "key": (str,), "sweep": (str,), "version": (str,), "params": (dict,), "result": (dict,),
    "seconds": (int, float), "checksum": (str,),
}


def result_checksum(result: Mapping) -> str:
    """SHA-256 of the canonical JSON text of a (JSON-able) result dict: what a record stores as ``checksum``.

    Args:
        result: the ``result`` of a record.

    Returns:
        64 hex digits.
    """
    blob = json.dumps(result, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def record_checksum(rec: Mapping) -> str:
    """SHA-256 of the canonical JSON text of a whole record except its ``record_checksum`` field.

    Args:
        rec: a cache record (see :func:`make_record`).

    Returns:
        64 hex digits.
    """
    body = {k: v for k, v in rec.items() if k != "record_checksum"}
    blob = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def verify_record(rec: Any, key: str, sweep: str | None = None) -> str | None:
    """Why a cache record cannot be reused, or None if it can.

    Args:
        rec: the parsed JSON content of a cache file.
        key: the key the file name says it holds.
        sweep: the sweep (cache name) the file belongs to, if known.

    Returns:
        None for a valid record; otherwise a short reason: not a JSON object, a missing key of
        :data:`RECORD_SCHEMA` or one of the wrong type, a key that is not the file's, a checksum that
        does not match the stored result, a key that does not follow from the record's sweep, version,
        parameters and data fingerprint (another cell's record), another sweep's record, or a
        ``record_checksum`` that does not match the record (records without one, written by older
        versions, are judged by the other checks).
    """
    if not isinstance(rec, dict):
        return f"content is a JSON {type(rec).__name__}, not an object"
    for name, types in RECORD_SCHEMA.items():
        if name not in rec:
            return f"missing {name!r}"
        v = rec[name]
        if not isinstance(v, types) or (isinstance(v, bool) and bool not in types):
            return f"{name!r} is a {type(v).__name__}, expected {'/'.join(t.__name__ for t in types)}"
    if rec["key"] != key:
        return f"its key {rec['key']!r} is not the file's {key!r}"
    if result_checksum(rec["result"]) != rec["checksum"]:
        return "the checksum of its result does not match (edited or corrupted)"
    if sweep is not None and rec["sweep"] != sweep:
        return f"it is a record of sweep {rec['sweep']!r}, not of {sweep!r}"
    fp = rec.get("data_fingerprint")
    if fp is not None and not isinstance(fp, str):
        return f"'data_fingerprint' is a {type(fp).__name__}, expected str or null"
    try:
        derived = cell_key(rec["sweep"], rec["params"], rec["version"], fp)
    except InputError as exc:
        return f"its params cannot be hashed ({exc})"
    if derived != key:
        return ("its key does not follow from what it claims to be (sweep, version, params, data fingerprint "
                f"give {derived!r}): it is another cell's record")
    if "record_checksum" in rec and rec["record_checksum"] != record_checksum(rec):
        return "the checksum of the whole record does not match (edited or corrupted)"
    return None


def _warn(msg: str) -> None:
    print(f"warning: {msg}", file=sys.stderr, flush=True)


def _unwritable(where: Path, exc: OSError) -> SweepError:
    """The one message for a cache location that cannot be written: which, why, and what to do."""
    if exc.errno == errno.ENOSPC:
        todo = ("the disk is full: free space there, or set NTK_CACHE_DIR to a folder on another disk; "
                "finished records are intact and a rerun resumes")
    elif exc.errno == errno.EDQUOT:
        todo = "the disk quota is exceeded: free space, or set NTK_CACHE_DIR to another folder"
    else:
        todo = "set NTK_CACHE_DIR to a writable folder"
    return SweepError(f"the cache directory {where} cannot be written ({type(exc).__name__}: "
                      f"{exc.strerror or exc}); {todo}")


def probe_writable(directory: Path) -> None:
    """Create ``directory`` and write (then remove) a probe file in it.

    Args:
        directory: the folder.

    Raises:
        OSError: as the file system raised it (read only, a file in the way, a full disk).
    """
    directory.mkdir(parents=True, exist_ok=True)
    fd, probe = tempfile.mkstemp(dir=directory, prefix=".", suffix=".probe")
    os.close(fd)
    os.unlink(probe)


def ensure_dir(directory: Path) -> Path:
    """Create ``directory`` and check it is writable.

    Args:
        directory: a cache folder.

    Returns:
        ``directory``.

    Raises:
        SweepError: naming the directory (read only, full disk, a file in the way).
    """
    try:
        probe_writable(directory)
    except OSError as exc:
        raise _unwritable(directory, exc) from None
    return directory


def write_record(path: Path, record: dict) -> None:
    """Write ``record`` to ``path`` atomically (temporary file, fsync, ``os.replace``): never a partial record.

    Args:
        path: the record's file.
        record: from :func:`make_record`.

    Raises:
        SweepError: the folder cannot be written (naming it and what to do), or a directory stands where the
            record should be.
    """
    if path.is_dir():
        raise SweepError(f"a directory stands where the cache record {path} should be; remove it "
                         f"(rm -r '{path}') and rerun")
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    except OSError as exc:
        raise _unwritable(path.parent, exc) from None
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(record, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _unwritable(path.parent, exc) from None
        raise


def read_record(path: Path, key: str, sweep: str | None = None) -> dict | None:
    """The verified record in ``path``, or None (missing, or invalid: then a warning names the file).

    Args:
        path: the record's file.
        key: the key the file should hold (its name).
        sweep: the sweep it should belong to, if known.

    Returns:
        The record, or None when it must be recomputed.
    """
    try:
        rec = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        _warn(f"ignoring cache record {path}: it is a directory, not a file; remove it (rm -r '{path}')")
        return None
    except (OSError, ValueError) as exc:
        _warn(f"ignoring unreadable cache file {path} ({exc}); the cell will be recomputed")
        return None
    why = verify_record(rec, key, sweep)
    if why is not None:
        _warn(f"ignoring cache file {path}: {why}; the cell will be recomputed")
        return None
    return rec


def make_record(key: str, name: str, version: str, params: Mapping, fp: str | None, result: dict,
                seconds: float) -> dict:
    """A cache record: key, sweep, version, params, data fingerprint, result, both checksums, time, host.

    Args:
        key: :func:`cell_key` of the other fields.
        name: the sweep (cache name).
        version: the code version string.
        params: the cell's parameters.
        fp: the data fingerprint, or None.
        result: the JSON-able result dict.
        seconds: compute time.

    Returns:
        The record, with ``checksum`` (of the result) and ``record_checksum`` (of everything else).
    """
    rec = dict(key=key, sweep=name, version=str(version), params=_canonical(params), data_fingerprint=fp,
               result=result, checksum=result_checksum(result), seconds=float(seconds),
               finished_utc=datetime.now(timezone.utc).isoformat(timespec="seconds"), host=socket.gethostname())
    rec["record_checksum"] = record_checksum(rec)
    return rec


def to_json(obj: Any) -> Any:
    """A JSON-able form of a computed result, decoded exactly by :func:`from_json`.

    Python and NumPy scalars stay numbers (NaN/inf as JSON's ``NaN``/``Infinity``); arrays become
    ``{"__ndarray__": nested list, "dtype": ..., "shape": ...}`` (float64 and float32 values
    round-trip bit for bit through their shortest repr); tuples, dicts with non-string keys,
    DataFrames and Series are tagged the same way. Anything else is a ``TypeError``.

    Args:
        obj: the value to encode.

    Returns:
        A structure of dicts, lists, str, int, float, bool and None.
    """
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, np.bool_):
        return {"__npscalar__": bool(obj), "dtype": "bool"}
    if isinstance(obj, (np.integer, np.floating)):
        return {"__npscalar__": obj.item(), "dtype": str(obj.dtype)}
    if isinstance(obj, (int, float)):
        return obj
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind not in "biuf":
            raise InputTypeError(f"cannot store an array of dtype {obj.dtype} in the cache")
        return {"__ndarray__": obj.tolist(), "dtype": str(obj.dtype), "shape": list(obj.shape)}
    if isinstance(obj, pd.DataFrame):
        return {"__dataframe__": {str(c): to_json(obj[c].to_numpy()) for c in obj.columns},
                "columns": [to_json(c) for c in obj.columns], "index": to_json(obj.index.to_numpy())}
    if isinstance(obj, pd.Series):
        return {"__series__": to_json(obj.to_numpy()), "name": to_json(obj.name), "index": to_json(obj.index.to_numpy())}
    if isinstance(obj, tuple):
        return {"__tuple__": [to_json(v) for v in obj]}
    if isinstance(obj, list):
        return [to_json(v) for v in obj]
    if isinstance(obj, Mapping):
        if all(isinstance(k, str) and not k.startswith("__") for k in obj):
            return {k: to_json(v) for k, v in obj.items()}
        return {"__dict__": [[to_json(k), to_json(v)] for k, v in obj.items()]}
    raise InputTypeError(f"cannot store a {type(obj).__name__} in the cache")


def from_json(obj: Any) -> Any:
    """Inverse of :func:`to_json`.

    Args:
        obj: a structure produced by :func:`to_json` (after a JSON round trip).

    Returns:
        The original value: arrays with their dtype and shape, tuples, dicts, DataFrames.
    """
    if isinstance(obj, list):
        return [from_json(v) for v in obj]
    if not isinstance(obj, dict):
        return obj
    if "__ndarray__" in obj:
        return np.array(obj["__ndarray__"], dtype=obj["dtype"]).reshape(obj["shape"])
    if "__npscalar__" in obj:
        return np.dtype(obj["dtype"]).type(obj["__npscalar__"])
    if "__tuple__" in obj:
        return tuple(from_json(v) for v in obj["__tuple__"])
    if "__dict__" in obj:
        return {from_json(k): from_json(v) for k, v in obj["__dict__"]}
    if "__dataframe__" in obj:
        cols = [from_json(c) for c in obj["columns"]]
        return pd.DataFrame({c: from_json(obj["__dataframe__"][str(c)]) for c in cols},
                            index=from_json(obj["index"]), columns=cols)
    if "__series__" in obj:
        return pd.Series(from_json(obj["__series__"]), index=from_json(obj["index"]), name=from_json(obj["name"]))
    return {k: from_json(v) for k, v in obj.items()}


def _key_blob(v: Any) -> Any:
    """``key`` of :func:`cached_call` with arrays replaced by their fingerprint (shape, dtype, bytes)."""
    if isinstance(v, np.ndarray):
        h = hashlib.sha256(f"{v.shape}|{v.dtype}|".encode())
        h.update(np.ascontiguousarray(v).tobytes())
        return {"__array_sha256__": h.hexdigest()[:24]}
    if isinstance(v, Mapping):
        return {str(k): _key_blob(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_key_blob(x) for x in v]
    return v


def cached_call(name: str, key: Mapping, fn: Callable[[], Any], *, version: str = "1",
                cache_dir: str | Path | None = None, keep: Callable[[Any], bool] | None = None) -> Any:
    """Return ``fn()``, computed once and then read from ``<cache>/sweeps/<name>/<hash>.json``.

    The record has the format of a :func:`lib.book.sweep.run_sweep` cell (verified the same way), with the
    result encoded by :func:`to_json` under ``result["value"]``. Calling it once per
    configuration makes a loop over configurations resumable: an interrupted run recomputes
    only the configurations that had not finished.

    Args:
        name: cache name (a directory under the cache), e.g. ``"05_non_constancy"``.
        key: what identifies the computation: JSON-able values, NumPy arrays allowed (an array
            enters the key by a hash of its shape, dtype and bytes).
        fn: computes the result (anything :func:`to_json` accepts).
        version: part of the key; bump it when ``fn`` changes what it computes.
        cache_dir: overrides ``<cache>/sweeps``.
        keep: whether a result is the computation ``key`` names (None: always). A result it refuses (say, bounds
            only because this machine lacked the memory a certified case asked for) is returned but never cached,
            and a cached one it refuses is computed again.

    Returns:
        The result, as computed or decoded from the record (arrays with their dtype and shape).
    """
    directory = sweep_dir(name, cache_dir)
    params = _canonical(_key_blob(dict(key)))
    k = cell_key(name, params, version)
    path = directory / f"{k}.json"
    rec = read_record(path, k, name)
    if rec is not None and "value" in rec["result"]:
        cached = from_json(rec["result"]["value"])
        if keep is None or keep(cached):
            return cached
    ensure_dir(directory)
    t0 = time.perf_counter()
    out = fn()
    secs = time.perf_counter() - t0
    if keep is None or keep(out):
        write_record(path, make_record(k, name, version, params, None, {"value": to_json(out)}, secs))
    return out


def clean_result(res: Any, params: Mapping) -> dict:
    """A cell's result as a dict of plain scalars (NumPy scalars unwrapped).

    Args:
        res: what the cell function returned.
        params: the cell's parameters, for the message.

    Returns:
        The result dict.

    Raises:
        SweepError: not a dict, or a value that is not a scalar.
    """
    if not isinstance(res, Mapping):
        raise SweepError(f"cell {dict(params)} returned {type(res).__name__}, expected a dict of results")
    out = {}
    for k, v in res.items():
        if isinstance(v, (np.floating, np.integer, np.bool_)):
            v = v.item()
        if isinstance(v, (list, dict)):  # a JSON structure (e.g. arrays encoded by to_json), kept as it is
            try:
                json.dumps(v, allow_nan=True)
            except (TypeError, ValueError) as exc:
                raise SweepError(f"cell {dict(params)}: result {k!r} is not JSON-able ({exc}); encode it with "
                                 f"lib.book.cache.to_json") from None
        elif not (v is None or isinstance(v, (str, int, float, bool))):
            raise SweepError(f"cell {dict(params)}: result {k!r} is a {type(v).__name__}; results must be scalars "
                             "(str/int/float/bool/None) or JSON lists/dicts (lib.book.cache.to_json)")
        out[k] = v
    return out
