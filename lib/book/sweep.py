"""Resumable parameter sweeps: every finished cell is one small JSON record on disk.

A *cell* is a dict of JSON-serializable parameters (e.g. data set, depth, activation, width,
seed). A cell function ``fn(params, X) -> dict`` computes its results; :func:`run_sweep`
calls it for every cell that is not cached yet and writes each result the moment it is done,
as a record of the verified cache :mod:`lib.book.cache` (key, atomic write, checksum), so that

- an interrupted sweep (Ctrl-C, a killed job, a lost worker) resumes where it stopped;
- a finished sweep is not recomputed: a re-run only reads the files;
- a changed parameter is a different cell (:func:`lib.book.cache.cell_key`).

Cells run in this process by default. With ``scheduler="local"`` a ``dask.distributed``
LocalCluster is started; with a scheduler address (``"tcp://host:8786"``) or a ``Client``,
cells are dispatched to that cluster; results still come back here and are written here.
A tqdm bar shows cells done (cached ones included) and the time left. :func:`load_cells` reads
back every cached cell of a sweep; :func:`torch_threads` sets torch's thread count for a block.
"""
from __future__ import annotations

import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
import torch

from lib.book.cache import (SweepError, cell_key, clean_result, ensure_dir, make_record, read_record, sweep_dir,
                            write_record)
from lib.data.datasets import fingerprint
from lib.progress import tqdm
from lib.validation import InputError, InputTypeError

__all__ = ["run_sweep", "load_cells", "torch_threads", "SweepResult"]


@contextmanager
def torch_threads(n: int | None):
    """Run a block with ``n`` torch intra-op threads (restored afterwards); ``None`` leaves them alone.

    On a shared or busy machine one thread per process is often several times faster than
    torch's default (one per core), whose threads then wait for each other at every small matmul.

    Args:
        n: the number of threads, or None.

    Returns:
        A context manager.
    """
    if n is None:
        yield
        return
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"threads must be a positive integer or None, got {n!r}")
    old = torch.get_num_threads()
    torch.set_num_threads(int(n))
    try:
        yield
    finally:
        torch.set_num_threads(old)


def _timed_call(fn: Callable, params: dict, X, threads: int | None = None) -> tuple[dict, float]:
    """Run one cell (in this process or on a Dask worker) with ``threads`` torch threads, and time it."""
    with torch_threads(threads):
        t0 = time.perf_counter()
        res = fn(params, X) if X is not None else fn(params)
        return res, time.perf_counter() - t0


@dataclass
class SweepResult:
    """Outcome of :func:`run_sweep`.

    Attributes:
        frame: one row per cell: its parameters, its results, ``seconds`` (compute time recorded
            when the cell ran), ``cached`` (read from disk in this call) and ``key``.
        n_cached, n_computed: cells read from disk / computed in this call.
        wall_seconds: wall time of this call.
        directory: where the cell files are.
    """

    frame: pd.DataFrame
    n_cached: int
    n_computed: int
    wall_seconds: float
    directory: Path
    executor: str = "in-process"
    failed: list = field(default_factory=list)

    @property
    def compute_seconds(self) -> float:
        """Sum of the recorded per-cell compute times (what the whole sweep cost, resumed or not)."""
        return float(self.frame["seconds"].sum()) if len(self.frame) else 0.0

    def note(self) -> str:
        """One line for a reader: cells, executor, computed now vs read from the cache, times.

        The cache is named by its folder under the cache root (``sweeps/<name>``), not by a path
        of the machine that ran it.
        """
        where = f"sweeps/{self.directory.name}"
        return (f"{len(self.frame)} cells ({self.executor}): {self.n_computed} computed now, {self.n_cached} read "
                f"from the sweep cache ({where}); wall time of this run {self.wall_seconds:.1f} s; recorded "
                f"compute time of all cells {self.compute_seconds:.1f} s")


def _make_client(scheduler, n_workers: int | None, threads: int, timeout: float = 20.0):
    from dask.distributed import Client, LocalCluster
    if not isinstance(scheduler, str):  # an existing Client: the caller owns it
        return scheduler, None, False
    if scheduler == "local":
        workers = n_workers or max(1, (os.cpu_count() or 1) // threads)
        cluster = LocalCluster(n_workers=workers, threads_per_worker=threads, processes=True,
                               dashboard_address=None)
        return Client(cluster), cluster, True
    try:
        return Client(scheduler, timeout=f"{timeout}s"), None, True
    except (OSError, TimeoutError) as exc:
        raise SweepError(f"cannot reach the Dask scheduler at {scheduler!r}: {exc}") from None


def run_sweep(name: str, fn: Callable[..., Mapping], cells: Sequence[Mapping], *,
              data: Mapping[str, np.ndarray] | None = None, data_param: str = "dataset",
              version: str = "1", cache_dir: str | Path | None = None, scheduler=None,
              n_workers: int | None = None, threads_per_worker: int = 1, threads: int | None = None,
              connect_timeout: float = 20.0, progress: bool = True, desc: str | None = None) -> SweepResult:
    """Run every cell of a sweep that is not cached, writing each result as soon as it is done.

    Args:
        name: sweep name (a directory under the cache).
        fn: module-level function ``fn(params, X) -> dict`` of scalars or JSON lists/dicts (``fn(params)`` when no
            ``data``); it must be importable by Dask workers.
        cells: parameter dicts; duplicates are an error.
        data: arrays by name; a cell's ``params[data_param]`` names its array. Each array's
            :func:`lib.data.base.fingerprint` enters the key, so changed data are new cells. With
            Dask the arrays are scattered to the workers once.
        version: bump it when ``fn`` changes what it computes (old cells then no longer match).
        cache_dir: overrides ``<cache>/sweeps``.
        scheduler: ``None`` (in-process), ``"local"`` (a LocalCluster with ``n_workers`` processes
            of ``threads_per_worker`` threads), a scheduler address (given up on after
            ``connect_timeout`` seconds), or a ``dask.distributed.Client`` (left open).
        threads: torch threads per cell (in this process, or on each Dask worker; default: this
            process keeps its setting, workers use ``threads_per_worker``).
        progress: show a tqdm bar of cells done and time left.

    Returns:
        :class:`SweepResult`. Raises :class:`lib.book.cache.SweepError` when a cell fails (finished cells stay
        cached; a rerun resumes).
    """
    if not callable(fn):
        raise InputTypeError(f"fn must be callable, got {type(fn).__name__}")
    directory = ensure_dir(sweep_dir(name, cache_dir))
    data = dict(data or {})
    prints = {k: fingerprint(v) for k, v in data.items()}
    plan, seen = [], {}
    for i, params in enumerate(cells):
        if not isinstance(params, Mapping):
            raise InputTypeError(f"sweep {name!r}: cell {i} is a {type(params).__name__} ({params!r}), not a dict "
                                 "of parameters")
        params = dict(params)
        fp = None
        if data:
            ds = params.get(data_param)
            if ds not in data:
                raise InputError(f"cell {i} {params}: {data_param}={ds!r} is not one of the data arrays "
                                 f"{sorted(data)}")
            fp = prints[ds]
        key = cell_key(name, params, version, fp)
        if key in seen:
            raise InputError(f"cells {seen[key]} and {i} are identical: {params}")
        seen[key] = i
        plan.append((key, params, fp))

    t_start = time.perf_counter()
    rows: dict[str, dict] = {}
    todo = []
    for key, params, fp in plan:
        rec = read_record(directory / f"{key}.json", key, name)
        if rec is None:
            todo.append((key, params, fp))
        else:
            rows[key] = {**params, **rec["result"], "seconds": rec["seconds"], "cached": True, "key": key}
    n_cached = len(rows)

    def record(key, params, fp, res, secs):
        res = clean_result(res, params)
        write_record(directory / f"{key}.json", make_record(key, name, version, params, fp, res, secs))
        rows[key] = {**params, **res, "seconds": secs, "cached": False, "key": key}

    bar = tqdm(total=len(plan), initial=n_cached, desc=desc or name, unit="cell", disable=not progress,
               smoothing=0.1)
    executor = "in-process"
    try:
        if todo and scheduler is None:
            for key, params, fp in todo:
                X = data[params[data_param]] if data else None
                try:
                    res, secs = _timed_call(fn, params, X, threads)
                except Exception as exc:
                    raise SweepError(f"sweep {name!r}: cell {params} failed: {type(exc).__name__}: {exc}") from exc
                record(key, params, fp, res, secs)
                bar.update()
        elif todo:
            from dask.distributed import as_completed
            client, cluster, owned = _make_client(scheduler, n_workers, threads_per_worker, connect_timeout)
            executor = f"dask ({client.scheduler.address if hasattr(client, 'scheduler') else scheduler})"
            futures = {}
            try:
                needed = sorted({p[data_param] for _, p, _ in todo}) if data else []
                remote = {k: client.scatter(data[k], broadcast=True) for k in needed}
                for key, params, fp in todo:
                    X = remote[params[data_param]] if data else None
                    fut = client.submit(_timed_call, fn, params, X, threads or threads_per_worker, pure=False,
                                        key=f"{name}-{key}")
                    futures[fut] = (key, params, fp)
                for fut in as_completed(list(futures)):
                    key, params, fp = futures[fut]
                    try:
                        res, secs = fut.result()
                    except Exception as exc:
                        raise SweepError(f"sweep {name!r}: cell {params} failed on Dask: "
                                         f"{type(exc).__name__}: {exc}") from exc
                    record(key, params, fp, res, secs)
                    bar.update()
            finally:
                for fut in futures:
                    if not fut.done():
                        fut.cancel()
                if owned:
                    client.close()
                if cluster is not None:
                    cluster.close()
    finally:
        bar.close()
    frame = pd.DataFrame([rows[key] for key, _, _ in plan])
    return SweepResult(frame=frame, n_cached=n_cached, n_computed=len(plan) - n_cached,
                       wall_seconds=time.perf_counter() - t_start, directory=directory, executor=executor)


def load_cells(name: str, cache_dir: str | Path | None = None) -> pd.DataFrame:
    """Every cached cell of sweep ``name`` (any parameters, any version), one row each.

    Args:
        name: sweep name.
        cache_dir: overrides ``<cache>/sweeps``.

    Returns:
        One row per valid record: parameters, results, ``seconds``, ``version``, ``finished_utc`` and ``key``
        (records that fail :func:`lib.book.cache.verify_record` are skipped with a warning naming the file).
    """
    directory = sweep_dir(name, cache_dir)
    rows = []
    for path in sorted(directory.glob("*.json")):
        rec = read_record(path, path.stem, name)
        if rec is not None:
            rows.append({**rec["params"], **rec["result"], "seconds": rec["seconds"],
                         "version": rec.get("version"), "finished_utc": rec.get("finished_utc"), "key": rec["key"]})
    return pd.DataFrame(rows)
