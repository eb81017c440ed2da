"""Benchmark of the exact NTK against the standard ``torch.func`` methods ([LH] Sec. 4 computes NTKs by the latter).

Three methods compute the same kernel K = J J^T of a ReLU :class:`lib.finite.mlp.MLP`
([LH] Eq. 1) on the same inputs, each in a fresh Python process:

* ``ours``: :func:`lib.finite.ntk.empirical_ntk`, the Hadamard-of-Grams formula (one forward and one
  backward pass, then 2 (L+1) products of size n x m x n);
* ``jacobian``: :func:`lib.finite.reference.jacobian_ntk`, ``vmap(jacrev)`` Jacobian contraction
  (the paper's method). Variant ``full`` materializes the whole n x P Jacobian; when that does
  not fit the memory budget, variant ``per-layer`` sums J_l J_l^T over the weight matrices
  (same products, one layer's Jacobian in memory at a time);
* ``ntk_vp``: :func:`lib.finite.reference.ntk_vp`, NTK-vector products of the PyTorch tutorial.

Before a method runs, its memory and time are estimated; if either exceeds the per-peer budget
it is reported as skipped with the reason. Peak memory is ``ru_maxrss`` of the worker process
minus its value after imports, data, model and a warm-up call (the kernel's high-water mark
VmHWM, reset just before the timed calls; ``torch.cuda.max_memory_allocated`` on GPU).
Run ``python -m lib.finite.benchmark --help``; ``--sgd`` runs the SGD speed benchmark of
:mod:`lib.finite.sgd_benchmark` instead. The size, flop and memory models are in
:mod:`lib.finite.cost_model`, the tables of the results in :mod:`lib.finite.benchmark_tables`.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from lib.data.datasets import gaussian_data
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.finite.reference import jacobian_ntk, ntk_vp
from lib.finite.benchmark_tables import format_table
from lib.finite.cost_model import METHODS, BenchmarkError, flop_count, memory_estimate, ntk_vp_chunk
from lib.finite.fresh_process import (add_common_options, reset_rss_peak, rss_peak, serve_worker, spawn_worker,
                                      vm_size)
from lib.finite.sgd_benchmark import main as sgd_main
from lib.progress import tqdm
from lib.validation import check_seed

__all__ = ["run_method", "run_benchmark", "main"]

MB = 2.0 ** 20
STARTUP_ALLOWANCE = 30.0  # seconds granted beyond the budget for the worker's imports and setup


# ---------------------------------------------------------------- the worker (fresh process)
def _worker(spec: dict) -> dict:
    """Run one method in this (fresh) process; write K to ``spec['out']``; return timings and memory."""
    dev = torch.device(spec["device"])
    if spec.get("threads"):
        torch.set_num_threads(int(spec["threads"]))
    X = gaussian_data(spec["n"], spec["in_dim"], seed=spec["seed"], unit_norm=True)
    net = MLP(spec["in_dim"], spec["width"], spec["depth"], "relu", seed=spec["seed"], device=dev)
    (torch.ones(8, 8, dtype=torch.float64) @ torch.ones(8, 8, dtype=torch.float64)).sum().item()  # thread pool up
    if dev.type == "cpu" and spec.get("hard_limit"):
        lim = vm_size() + int(spec["hard_limit"])
        resource.setrlimit(resource.RLIMIT_AS, (lim, resource.getrlimit(resource.RLIMIT_AS)[1]))
    method, variant = spec["method"], spec.get("variant")
    if method == "ours":
        fn = lambda: empirical_ntk(net, X)  # noqa: E731
    elif method == "jacobian" and variant == "per-layer":
        fn = lambda: sum(jacobian_ntk(net, X, layers=[l]) for l in range(1, net.depth + 2))  # noqa: E731
    elif method == "jacobian":
        fn = lambda: jacobian_ntk(net, X)  # noqa: E731
    elif method == "ntk_vp":
        fn = lambda: ntk_vp(net, X, chunk_size=spec["chunk"])  # noqa: E731
    else:
        raise BenchmarkError(f"unknown method {method!r}")
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    X_full, X = X, X[:2]
    fn()  # warm-up on two inputs: lazy imports and kernels load before the memory baseline
    X = X_full
    if method == "ours":  # the matmul reference, interleaved with our repeats (operands allocated now)
        gen = torch.Generator().manual_seed(1)
        a = torch.randn(spec["n"], spec["width"], dtype=torch.float64, generator=gen).to(dev)
        b = torch.randn(spec["width"], spec["n"], dtype=torch.float64, generator=gen).to(dev)
        c = torch.matmul(a, b)
        mm_best = np.inf
    if dev.type == "cuda":
        torch.cuda.reset_peak_memory_stats(dev)
        base = torch.cuda.memory_allocated(dev)
    else:
        base = reset_rss_peak()
    times, K = [], None
    start = time.perf_counter()
    for _ in range(spec["repeats"]):
        sync()
        t0 = time.perf_counter()
        K = fn()
        sync()
        times.append(time.perf_counter() - t0)
        if method == "ours":
            for _ in range(3):
                sync()
                t0 = time.perf_counter()
                torch.matmul(a, b, out=c)
                sync()
                mm_best = min(mm_best, time.perf_counter() - t0)
        if time.perf_counter() - start + times[-1] > spec["time_budget"] / 4:
            break  # slow methods are timed once: repeats may use a quarter of the budget
    peak = (torch.cuda.max_memory_allocated(dev) if dev.type == "cuda" else rss_peak()) - base
    np.save(spec["out"], K)
    out = dict(seconds=min(times), seconds_all=times, peak_bytes=float(peak), repeats_done=len(times))
    if method == "ours":
        out["matmul_gflops"] = 2.0 * spec["n"] ** 2 * spec["width"] / mm_best / 1e9
    return out


# ---------------------------------------------------------------- public measurement functions
def run_method(method: str, n: int, width: int, depth: int, *, in_dim: int = 64, seed: int = 0,
               repeats: int = 3, time_budget: float = 60.0, memory_budget_mb: float = 4096.0,
               rate_gflops: float | None = None, device: str = "cpu", threads: int = 0,
               workdir: str | Path | None = None, skip: str | None = None) -> dict:
    """Measure one method at one size in a fresh process, or report why it was skipped.

    The memory estimate (:func:`~lib.finite.cost_model.memory_estimate`) must fit ``memory_budget_mb``; the time
    estimate, :func:`~lib.finite.cost_model.flop_count` over ``rate_gflops`` (in :func:`lib.finite.benchmark.run_benchmark`, the rate the method
    reached at the largest smaller size, else the matmul rate), must fit ``time_budget`` seconds. The worker is
    killed past the budget plus a start-up allowance. Returns a dict with ``status`` "ok",
    "skipped" (an estimate exceeds a budget), "timed out", "out of memory" or "failed",
    ``reason``, ``seconds``, ``peak_mb``, ``est_mb``, ``flops``, ``K_path`` and more.

    Args:
        method: one of :data:`~lib.finite.cost_model.METHODS`.
        n, width, depth: the size.
        in_dim: input dimension.
        seed: seed of the data and the weights.
        repeats: timed repeats (within a quarter of the time budget).
        time_budget: seconds allowed.
        memory_budget_mb: MB allowed.
        rate_gflops: the rate used for the time estimate (None: no time estimate).
        device: ``"cpu"`` or ``"cuda"``.
        threads: torch threads in the worker (0: torch's default).
        workdir: where the worker writes the kernel (a temporary folder by default).
        skip: if given, do not run: the row is "skipped" with this reason (estimates still filled in).

    Returns:
        The row described above.
    """
    if method not in METHODS:
        raise BenchmarkError(f"unknown method {method!r}; choose from {METHODS}")
    seed = check_seed(seed)
    budget_b = memory_budget_mb * MB
    row = dict(method=method, n=n, width=width, depth=depth, in_dim=in_dim, variant="", chunk=None,
               flops=flop_count(method, n, in_dim, width, depth), status="skipped", reason="",
               seconds=np.nan, peak_mb=np.nan, K_path=None)
    if method == "jacobian":
        row["variant"] = "full"
        if memory_estimate(method, n, in_dim, width, depth, "full") > budget_b:
            row["variant"] = "per-layer"
    if method == "ntk_vp":
        row["chunk"] = ntk_vp_chunk(n, in_dim, width, depth, budget_b)
    est = memory_estimate(method, n, in_dim, width, depth, row["variant"], row["chunk"])
    row["est_mb"] = est / MB
    if skip:
        row["reason"] = skip
        return row
    if est > budget_b:
        row["reason"] = f"needs ~{est / MB:,.4g} MB > budget {memory_budget_mb:,.4g} MB"
        return row
    if rate_gflops:
        t_est = row["flops"] / (rate_gflops * 1e9)
        if t_est > time_budget:
            row["reason"] = f"needs ~{t_est:,.0f} s at {rate_gflops:.3g} GFLOP/s > budget {time_budget:g} s"
            return row
    workdir = Path(workdir or tempfile.mkdtemp(prefix="ntkbench_"))
    out = workdir / f"K_{method}_{n}_{width}_{depth}.npy"
    spec = dict(method=method, variant=row["variant"], chunk=row["chunk"], n=n, width=width, depth=depth,
                in_dim=in_dim, seed=seed, repeats=repeats, time_budget=time_budget, device=device, threads=threads,
                out=str(out), hard_limit=int(2 * budget_b + 2 ** 30))  # safety net for the shared machine
    res, err = spawn_worker("lib.finite.benchmark", spec, timeout=time_budget + STARTUP_ALLOWANCE)
    if err:
        row["status"] = ("failed" if err.startswith("worker failed") else
                         "timed out" if err.startswith("killed") else "out of memory")
        row["reason"] = err
        return row
    row.update(status="ok", seconds=res["seconds"], peak_mb=res["peak_bytes"] / MB, repeats_done=res["repeats_done"],
               K_path=str(out), gflops=row["flops"] / res["seconds"] / 1e9, matmul_gflops=res.get("matmul_gflops"))
    return row


def _check_args(ns, width, depths, methods, in_dim, repeats, time_budget, memory_budget_mb):
    def ints(name, v, lo):
        items = [v] if isinstance(v, (int, np.integer)) and not isinstance(v, bool) else v
        if (not isinstance(items, (list, tuple)) or not items
                or any(isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < lo for x in items)):
            raise BenchmarkError(f"{name} must be a non-empty list of integers >= {lo}, got {v!r}")
        return [int(x) for x in items]
    ns, depths = ints("ns", ns, 1), ints("depths", depths, 0)
    width, in_dim, repeats = (ints(k, v, 1)[0] for k, v in
                              (("width", width), ("in_dim", in_dim), ("repeats", repeats)))
    methods = [methods] if isinstance(methods, str) else list(methods)
    bad = [m for m in methods if m not in METHODS]
    if bad or "ours" not in methods:
        raise BenchmarkError(f"methods must be drawn from {METHODS} and include 'ours', got {methods}")
    for name, v in (("time_budget", time_budget), ("memory_budget_mb", memory_budget_mb)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < float("inf"):
            raise BenchmarkError(f"{name} must be a positive number, got {v!r}")
    return ns, width, depths, methods, in_dim, repeats


def run_benchmark(ns=(256, 512, 1024), width: int = 512, depths=(1, 5, 10), methods=METHODS, *,
                  in_dim: int = 64, seed: int = 0, repeats: int = 5, time_budget: float = 60.0,
                  memory_budget_mb: float = 4096.0, device: str = "cpu", threads: int = 0,
                  progress: bool = True, peer_sizes=None) -> pd.DataFrame:
    """Every method at every (n, depth), smallest work first, plus matmul references; one row per (size, method).

    Identical networks (ReLU, seed ``seed``) and data (unit-norm Gaussian, ``in_dim`` dimensions)
    for all methods. Columns as in :func:`run_method`, plus ``max_rel_diff``
    (``max(abs(K - K_ours)) / max(abs(K_ours))``), ``matmul_gflops`` (best rate of a plain
    (n x width) @ (width x n) product, timed in our worker between our repeats) and ``load_start``
    and ``load_end`` (1-minute load averages). ``threads`` > 0 sets torch's thread count in the
    workers (1 makes timings on a shared machine much less noisy).

    Args:
        ns: numbers of inputs.
        width: hidden width.
        depths: numbers of hidden layers.
        methods: subset of :data:`~lib.finite.cost_model.METHODS` (with ``"ours"``).
        in_dim, seed, repeats, time_budget, memory_budget_mb, device, threads: as in :func:`run_method`.
        progress: show a progress bar.
        peer_sizes: the (n, depth) pairs at which the methods other than ``"ours"`` are timed
            (None: every size). The slow reference methods take minutes per size, so the book's
            default times them at one size only; their rows elsewhere are "skipped", with the reason.

    Returns:
        One row per (size, method).
    """
    if peer_sizes is not None:
        try:
            peer_sizes = {(int(a), int(b)) for a, b in peer_sizes}
        except (TypeError, ValueError):
            raise BenchmarkError(f"peer_sizes must be (n, depth) pairs, got {peer_sizes!r}") from None
    ns, width, depths, methods, in_dim, repeats = _check_args(
        ns, width, depths, methods, in_dim, repeats, time_budget, memory_budget_mb)
    seed = check_seed(seed)
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 0:
        raise BenchmarkError(f"threads must be a non-negative integer (0: torch's default), got {threads!r}")
    load0 = os.getloadavg()[0]
    workdir = Path(tempfile.mkdtemp(prefix="ntkbench_"))
    sizes = sorted(((n, L) for n in ns for L in depths),
                   key=lambda s: flop_count("jacobian", s[0], in_dim, width, s[1]))
    rows, rates = [], {}
    bar = tqdm(total=len(sizes) * len(methods), desc="benchmark", disable=not progress, leave=False)
    for n, L in sizes:
        for m in methods:
            bar.set_postfix_str(f"{m} n={n} L={L}")
            skip = None
            if m != "ours" and peer_sizes is not None and (n, L) not in peer_sizes:
                where = ", ".join(f"n={a}, depth {b}" for a, b in sorted(peer_sizes))
                skip = f"timed only at {where} (parameter peers_at)"
            row = run_method(m, n, width, L, in_dim=in_dim, seed=seed, repeats=repeats, time_budget=time_budget,
                             memory_budget_mb=memory_budget_mb, rate_gflops=rates.get(m, rates.get("matmul")),
                             device=device, threads=int(threads), workdir=workdir, skip=skip)
            if row["status"] == "ok":
                rates[m] = row["gflops"]  # the rate at the largest size so far (sizes come in order of work)
                if m == "ours":
                    rates["matmul"] = max(rates.get("matmul", 0.0), row["matmul_gflops"])
            rows.append(row)
            bar.update()
    bar.close()
    df = pd.DataFrame(rows)
    ref = df[df.method == "ours"].set_index(["n", "depth"])["matmul_gflops"]
    df["matmul_gflops"] = [ref.get((n, L), np.nan) for n, L in zip(df.n, df.depth)]
    df["load_start"], df["load_end"] = load0, os.getloadavg()[0]
    diffs = []
    for _, r in df.iterrows():
        ref = df[(df.method == "ours") & (df.n == r.n) & (df.depth == r.depth)].iloc[0]
        if r.status != "ok" or ref.status != "ok":
            diffs.append(np.nan)
            continue
        K, K0 = np.load(r.K_path), np.load(ref.K_path)
        diffs.append(float(np.abs(K - K0).max() / np.abs(K0).max()))
    df["max_rel_diff"] = diffs
    for p in workdir.glob("*.npy"):
        p.unlink()
    return df.drop(columns="K_path")


def main(argv: list[str] | None = None) -> int:
    """Command line: run the benchmark and print the table (``python -m lib.finite.benchmark --help``).

    Args:
        argv: command-line arguments (default ``sys.argv[1:]``).

    Returns:
        The exit status (0, or 2 for bad arguments).
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if "--sgd" in argv:  # the SGD speed benchmark has its own options (lib.finite.sgd_benchmark)
        return sgd_main([a for a in argv if a != "--sgd"])
    ap = argparse.ArgumentParser(prog="python -m lib.finite.benchmark", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sgd", action="store_true",
                    help="run the SGD speed benchmark instead (its options: --sgd --help)")
    ap.add_argument("-n", "--ns", type=int, nargs="+", default=[256, 512, 1024], help="numbers of inputs n")
    ap.add_argument("-w", "--width", type=int, default=512, help="hidden width m")
    ap.add_argument("-L", "--depths", type=int, nargs="+", default=[1, 5, 10], help="depths L (hidden layers)")
    ap.add_argument("--in-dim", type=int, default=64, help="input dimension d")
    ap.add_argument("--methods", nargs="+", default=list(METHODS), help=f"subset of {METHODS} (with 'ours')")
    ap.add_argument("--repeats", type=int, default=5,
                    help="timed repeats within a quarter of the time budget (the minimum is reported)")
    ap.add_argument("--time-budget", type=float, default=60.0, help="seconds per method and size")
    ap.add_argument("--memory-budget", type=float, default=4096.0, help="MB per method and size")
    add_common_options(ap)
    args = ap.parse_args(argv)
    if serve_worker(args, _worker):
        return 0
    try:
        df = run_benchmark(args.ns, args.width, args.depths, args.methods, in_dim=args.in_dim,
                           repeats=args.repeats, time_budget=args.time_budget,
                           memory_budget_mb=args.memory_budget, device=args.device, threads=args.threads)
    except BenchmarkError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(format_table(df))
    print(f"load average (1 min) at start {df.load_start.iloc[0]:.2f}, at end {df.load_end.iloc[0]:.2f}")
    if args.csv:
        df.to_csv(args.csv, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
