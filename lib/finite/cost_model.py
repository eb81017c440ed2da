"""Size, operation-count and memory models of the three NTK methods the benchmark compares.

:mod:`lib.finite.benchmark` uses them to decide, before a method runs, whether it fits the time and
memory budgets, and to quote the ratio of operation counts beside the measured speed-up ([LH] Sec. 4
computes NTKs by Jacobian contraction).
"""
from __future__ import annotations

from lib.validation import InputError, check_int, positive_int

__all__ = ["METHODS", "BenchmarkError", "param_count", "flop_count", "memory_estimate", "ntk_vp_chunk"]

#: The NTK methods the benchmark compares.
METHODS = ("ours", "jacobian", "ntk_vp")


class BenchmarkError(InputError):
    """Bad benchmark arguments."""


def _dims(in_dim: int, width: int, depth: int) -> list[int]:
    in_dim, width = positive_int(in_dim, "in_dim"), positive_int(width, "width")
    return [in_dim] + [width] * check_int(depth, "depth", 0, meaning="number of hidden layers") + [1]


def param_count(in_dim: int, width: int, depth: int) -> int:
    """P, the number of weights of the bias-free scalar-output MLP.

    Args:
        in_dim: input dimension d.
        width: hidden width m.
        depth: number of hidden layers L.

    Returns:
        P = d m + (L - 1) m^2 + m ([LH] Eq. 1 without biases; d for L = 0).
    """
    d = _dims(in_dim, width, depth)
    return sum(d[i] * d[i + 1] for i in range(len(d) - 1))


def flop_count(method: str, n: int, in_dim: int, width: int, depth: int) -> float:
    """Floating-point operations of the matrix products each method performs (elementwise ops not counted).

    ``ours``: forward 2 n P, backward to the pre-activations 2 n (P - d m), the Grams
    A_l A_l^T (2 n^2 m_l, l = 0..L, m_0 = d) and D_l D_l^T (2 n^2 m, l = 1..L) and one
    multiply-add of n^2 entries per hidden layer. ``jacobian``: 2 n^2 P for F F^T plus 6 n P to
    form the per-sample gradients. ``ntk_vp``: per basis vector one VJP (4 n P) and one JVP
    tangent pass (4 n P), so 8 n^2 P, plus one forward 2 n P.

    Args:
        method: one of :data:`METHODS`.
        n: number of inputs.
        in_dim, width, depth: the network's sizes (see :func:`param_count`).

    Returns:
        The operation count (float).
    """
    P, n = param_count(in_dim, width, depth), positive_int(n, "n")
    if method == "ours":
        grams = 2 * n * n * (in_dim + width * depth) + 2 * n * n * width * depth + 2 * n * n * depth
        return float(2 * n * P + 2 * n * (P - in_dim * (width if depth else 1)) + grams)
    if method == "jacobian":
        return float(2 * n * n * P + 6 * n * P)
    if method == "ntk_vp":
        return float(8 * n * n * P + 2 * n * P)
    raise BenchmarkError(f"unknown method {method!r}; choose from {METHODS}")


def memory_estimate(method: str, n: int, in_dim: int, width: int, depth: int,
                    variant: str | None = None, chunk: int | None = None) -> float:
    """Rough peak working memory in bytes (float64) used to decide whether a method fits.

    ``ours``: activations, pre-activations, their gradients and masks, ~(6L+4) n m numbers, plus
    the kernel and its block temporaries (4 n^2). ``jacobian`` ``full``: the Jacobian twice
    (``vmap`` output and its concatenation), 2 n P; ``per-layer``: 2 n P_l for the largest layer.
    ``ntk_vp``: per chunk of c basis vectors, c parameter-sized gradients and tangents (3 c P)
    and c batched activations (4 c n m (L+1)). Compare with the measured peaks in the table.

    Args:
        method: one of :data:`METHODS`.
        n: number of inputs.
        in_dim, width, depth: the network's sizes.
        variant: ``"full"`` or ``"per-layer"`` for ``jacobian``.
        chunk: basis vectors per chunk for ``ntk_vp`` (default n).

    Returns:
        Bytes.
    """
    P, n = param_count(in_dim, width, depth), positive_int(n, "n")
    if chunk is not None:
        positive_int(chunk, "chunk")
    nm = n * max(width, in_dim) * (depth + 1)
    if method == "ours":
        return 8.0 * ((6 * depth + 4) * n * width + n * in_dim + 4 * n * n)
    if method == "jacobian":
        if variant == "per-layer":
            d = _dims(in_dim, width, depth)
            p_max = max(d[i] * d[i + 1] for i in range(len(d) - 1))
            return 8.0 * (2 * n * p_max + 3 * n * n + 4 * nm)
        return 8.0 * (2 * n * P + 2 * n * n + 4 * nm)
    if method == "ntk_vp":
        c = chunk or n
        return 8.0 * (3 * c * P + 4 * c * nm + 2 * n * n + 4 * nm)
    raise BenchmarkError(f"unknown method {method!r}; choose from {METHODS}")


def ntk_vp_chunk(n: int, in_dim: int, width: int, depth: int, memory_budget: float, cap: int = 32) -> int:
    """Largest basis chunk (at most ``cap``, at least 1) whose estimated memory is half the budget.

    Args:
        n: number of inputs.
        in_dim, width, depth: the network's sizes.
        memory_budget: bytes allowed.
        cap: the largest chunk tried.

    Returns:
        The chunk size (a power-of-two fraction of ``min(cap, n)``).
    """
    c = min(positive_int(cap, "cap"), positive_int(n, "n"))
    while c > 1 and memory_estimate("ntk_vp", n, in_dim, width, depth, chunk=c) > memory_budget / 2:
        c //= 2
    return c
