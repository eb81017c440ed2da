"""Values the chapter's prose and figure captions show, computed from the notebook's parameters (chapter 07)."""
from __future__ import annotations

import os
from types import SimpleNamespace

from lib.chapters.performance.benchmark import LABELS
from lib.chapters.performance.scale import MNIST_N, SCALE_TILE
from lib.chapters.performance.targets import MEMORY_TARGET, SPEEDUP_TARGET, TARGET_SIZE, THROUGHPUT_TARGET
from lib.finite.extremes import tiled_bytes
from lib.finite.sgd_benchmark import IN_DIM as SGD_IN_DIM, OUT_DIM as SGD_OUT_DIM, SGD_LR

__all__ = ["glue_values"]

#: what [LH] Sec. 4 says about how its NTKs were computed (the setting every caption compares with)
PAPER_SETTING = ("the paper computed its NTKs by Jacobian contraction on an A100 GPU in batches of 512 inputs "
                 "(width 512, depth up to 10) and reports no timing beyond 'hours'")


def _ints(values) -> str:
    return ", ".join(str(int(v)) for v in values)


def _device(device: str) -> str:
    return "a CUDA GPU" if device == "cuda" else f"CPU ({os.cpu_count()} shared cores)"


def _threads(threads: int) -> str:
    if threads == 0:
        return "torch's default number of threads"
    return f"{threads} torch thread{'s' if threads != 1 else ''}"


def _methods(methods) -> str:
    names = [LABELS[m] for m in methods]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _paper_profile() -> dict:
    """The ``paper`` profile of notebook 07 (empty if the profiles cannot be read)."""
    try:
        from lib.book.pipeline import load_profiles
        return dict((load_profiles().get("paper") or {}).get("07_performance") or {})
    except Exception:  # noqa: BLE001 - the prose then just omits what the paper profile runs
        return {}


def _shifts(cfg) -> str:
    shifts = getattr(cfg, "scale_shifts", None)
    if cfg.scale_lambda_min not in ("certified", "auto") or not shifts:
        return ""
    given = ", ".join(f"s = {s:g} at depth {L}" for s, L in zip(shifts, cfg.scale_depths))
    return f", one factorization at the given shift ({given})"


#: the parameters of the SGD section (:mod:`lib.chapters.performance.sgd`)
SGD_KEYS = ("sgd_depths", "sgd_width", "sgd_batch", "sgd_runs", "sgd_n_train")


def _sgd_sizes(cfg) -> str:
    return (f"depth{'s' if len(cfg.sgd_depths) > 1 else ''} {_ints(cfg.sgd_depths)}, width {cfg.sgd_width}, "
            f"batch {cfg.sgd_batch}, a grid of {cfg.sgd_runs} runs, {cfg.sgd_n_train:,} training inputs")


def glue_values(cfg) -> dict[str, str]:
    """The values chapter 07's prose and figure captions show, as plain text to glue ([LH] Sec. 4).

    Each ``fig7_k`` entry is the line under Figure 7.k: inputs, n, width, depths, threads, methods
    timed, profile, and how the run departs from the paper's setting (NTKs on an A100 GPU in
    batches of 512 inputs). ``scale_caption`` is the line under the full-data table.

    Args:
        cfg: the validated parameters of notebook 07 (``profile``, ``ns``, ``width``, ``depths``,
            ``in_dim``, ``methods``, ``repeats``, ``threads``, ``time_budget``, ``memory_budget_mb``,
            ``target_n``, ``target_depth``, ``peers_everywhere``, ``device``, ``scale_ns``,
            ``scale_depths``, ``scale_width``, ``scale_in_dim``, ``scale_lambda_min``, ``scale_shifts``,
            ``sgd_depths``, ``sgd_width``, ``sgd_batch``, ``sgd_runs``, ``sgd_n_train``).

    Returns:
        ``{name: text}``: ``fig7_1``, ``fig7_2``, ``scale_caption``, ``fig7_1_axes`` (what Figure 7.1 plots
        against, :func:`lib.chapters.performance.benchmark.plot_time_memory`) and the prose values ``target_size``,
        ``speedup_target``, ``memory_target``, ``throughput_target``, ``target_verdicts``, ``threads``,
        ``in_dim``, ``time_budget``, ``memory_budget``, ``peer_sizes``, ``peers_everywhere``,
        ``paper_peers_everywhere``, ``scale_sizes``, ``scale_in_dim``, ``scale_lambda_min``, ``paper_scale_n``,
        ``mnist_n``, ``mnist_tiles``; for the SGD section ``sgd_caption`` (the line under its table),
        ``sgd_sizes`` and ``paper_sgd_sizes``; ``methods_timed`` and ``paper_methods`` (the NTK methods
        this run and the ``paper`` profile time).
    """
    from lib.book.provenance import profile_text
    prof = profile_text(cfg.profile)
    tn, tw, td = TARGET_SIZE
    target_size = f"n = {tn}, width {tw}, depth {td}"
    at_target = (cfg.target_n, cfg.width, cfg.target_depth) == TARGET_SIZE
    run_target = f"n = {cfg.target_n}, width {cfg.width}, depth {cfg.target_depth}"
    peers = [LABELS[m] for m in cfg.methods if m != "ours"]
    peer_sizes = ("at every size" if cfg.peers_everywhere else
                  f"only at the targets' size, n = {cfg.target_n}, depth {cfg.target_depth}")
    methods = f"{LABELS['ours']} at every size" + (f"; {' and '.join(peers)} {peer_sizes}" if peers else
                                                    "; no torch.func method")
    threads = _threads(cfg.threads)
    inputs = (f"n = {_ints(cfg.ns)} unit-norm Gaussian inputs in d = {cfg.in_dim} (seed 0 for data and weights)")
    net = f"ReLU MLP of width m = {cfg.width}, depths L = {_ints(cfg.depths)}, float64"
    batch = ("n = 512, the paper's batch, is among the sizes" if 512 in cfg.ns else
             "no size here is the paper's batch of 512 inputs")
    width_dev = "" if cfg.width == tw else f", width {cfg.width} instead of {tw}"
    deviation = (f"Deviation: {PAPER_SETTING}; here {_device(cfg.device)}, {threads} per worker, synthetic "
                 f"inputs; {batch}{width_dev}.")
    paper = _paper_profile()
    paper_scale = paper.get("scale_ns")
    lam = {"exact": "exact (dense eigendecomposition)", "bounds": "bounds only (lower bound 0)",
           "certified": "certified interval (shifted Cholesky factorization where its tiles fit)",
           "auto": "auto (exact where a dense factorization fits, else certified or bounds)"}
    return {
        "fig7_1": f"Setting: {inputs}; {net}; methods timed: {methods}; minimum over up to {cfg.repeats} "
                  f"repeats, budgets {cfg.time_budget:g} s and {cfg.memory_budget_mb:g} MB per method and size; "
                  f"{prof}. {deviation}",
        "fig7_2": f"Setting: the runs of Figure 7.1: n = {_ints(cfg.ns)}, d = {cfg.in_dim}, width m = {cfg.width}, "
                  f"depths L = {_ints(cfg.depths)}, float64, {threads} per worker on {_device(cfg.device)}; ours is "
                  "our counted matrix-product flops over our measured time, the reference the best rate of a plain "
                  f"float64 product of the same n and m timed in the same worker; {prof}. Deviation: the paper "
                  "reports no throughput; " + deviation[len("Deviation: "):],
        "scale_caption": f"Setting: n = {_ints(cfg.scale_ns)} inputs from N(0, I_d), d = {cfg.scale_in_dim} "
                         f"(seed 0 for data and weights); ReLU MLP of width m = {cfg.scale_width}, depths L = "
                         f"{_ints(cfg.scale_depths)}, float64 on {_device(cfg.device)}; lambda_min mode "
                         f"{lam[cfg.scale_lambda_min]}{_shifts(cfg)}; {prof}. Deviation: the paper computed its NTKs on an A100 "
                         f"GPU in batches of 512 inputs, not on the full {MNIST_N:,}; the inputs here are Gaussian "
                         "of MNIST's shape, not MNIST images.",
        "fig7_1_axes": ("against the number of inputs (log axis), one column per depth" if len(set(cfg.ns)) > 1 else
                        f"against depth at n = {cfg.ns[0]}"),
        "target_size": target_size,
        "speedup_target": str(SPEEDUP_TARGET),
        "memory_target": str(MEMORY_TARGET),
        "throughput_target": f"{100 * THROUGHPUT_TARGET:.0f}%",
        "target_verdicts": (f"This run evaluates them at {run_target}, the targets' size, so the checks below "
                            "give verdicts." if at_target else
                            f"This run evaluates them at {run_target}, not the targets' size, so the checks below "
                            "report the measurements without a verdict."),
        "threads": threads,
        "in_dim": str(cfg.in_dim),
        "time_budget": f"{cfg.time_budget:g} s",
        "memory_budget": f"{cfg.memory_budget_mb:g} MB",
        "peer_sizes": peer_sizes,
        "peers_everywhere": "on" if cfg.peers_everywhere else "off",
        "paper_peers_everywhere": "on" if paper.get("peers_everywhere") else "off",
        "scale_sizes": f"n = {_ints(cfg.scale_ns)}, depths {_ints(cfg.scale_depths)}, width {cfg.scale_width}, "
                       f"lambda_min mode {cfg.scale_lambda_min}",
        "scale_in_dim": str(cfg.scale_in_dim),
        "scale_lambda_min": cfg.scale_lambda_min,
        "paper_scale_n": ", ".join(f"{int(v):,}" for v in paper_scale) if paper_scale else "the full data set",
        "sgd_caption": f"Setting: {_sgd_sizes(cfg)} (unit-norm Gaussian, d = {SGD_IN_DIM}: MNIST's shape), "
                       f"random labels in {SGD_OUT_DIM} classes; ReLU MLP of [LH] Eq. (1), cross-entropy, "
                       f"plain SGD, float32, every run at rate {SGD_LR:g} with seeds 0 to {cfg.sgd_runs - 1}; "
                       f"{_threads(cfg.threads)} on {_device(cfg.device)}; {prof}. Deviation: the paper trains on "
                       "MNIST's 60,000 images on a GPU and reports no training speed; the speed does not depend on "
                       "the pixel values or the labels, and one small rate keeps every run in the batch (a run "
                       "stopped as diverged would shrink it).",
        "sgd_sizes": _sgd_sizes(cfg),
        "paper_sgd_sizes": (_sgd_sizes(SimpleNamespace(**{k: paper.get(k, getattr(cfg, k)) for k in SGD_KEYS}))
                            if any(k in paper for k in SGD_KEYS) else "the same sizes"),
        "methods_timed": _methods(cfg.methods),
        "paper_methods": _methods(paper.get("methods", cfg.methods)),
        "mnist_n": f"{MNIST_N:,}",
        "mnist_tiles": f"{tiled_bytes(MNIST_N, SCALE_TILE) / 2**30:.3g} GiB",
    }
