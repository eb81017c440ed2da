"""The network of [LZB] Thm 4.1 (their Eq 31), its Hessian norm in the ball against the width, and its check.

[LZB] prove Thm 4.1 for one network: three hidden layers, the first and third of width m with the quadratic
activation sigma(z) = z^2 / 2, the second a linear bottleneck of width b, a linear output, every weight N(0, 1) and
each layer scaled by one over the square root of its fan-in:

    f(x) = v^T sigma(W3 W2 sigma(W1 x) / sqrt(m b)) / sqrt(m),

with the first layer W1 x for the chapter's unit-norm inputs (Eq 31's W1 x / sqrt(d) for inputs of norm
sqrt(d)). The theorem: for any R, with high probability ||H(w)|| stays above a positive constant at every w of
the ball B(w_0, R), however large m. The chapter's tanh [m, b, m] net
(:func:`~lib.chapters.non_constancy.bottleneck.check_bottleneck_hessian_width`) is the general case [LZB] Sec. 4
argues for; this module measures the theorem's own network.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import torch
from torch import nn

from lib.book.cache import cached_call
from lib.book.results import Check
from lib.chapters.non_constancy.ball import ball_models, ball_sup
from lib.chapters.non_constancy.rules import UNCONVERGED, flat_status
from lib.finite.hessian import model_hessian_norm
from lib.progress import tqdm
from lib.spectra import fit_slope
from lib.validation import as_tensor, check_seed

__all__ = ["QuadraticBottleneck", "measure_quadratic_bottleneck", "check_quadratic_bottleneck"]


class QuadraticBottleneck(nn.Module):
    """[LZB] Eq 31: f(x) = v^T sigma(W3 W2 sigma(W1 x) / sqrt(m b)) / sqrt(m), sigma(z) = z^2 / 2 (see the module
    docstring); weights N(0, 1) from a generator seeded by ``seed``, float64.

    Args:
        d: input dimension.
        m: the width of the first and third hidden layers.
        b: the bottleneck width.
        seed: weight seed.
    """

    def __init__(self, d: int, m: int, b: int, seed: int = 0) -> None:
        seed = check_seed(seed)
        super().__init__()
        gen = torch.Generator().manual_seed(int(seed))
        shapes = ((m, d), (b, m), (m, b), (1, m))
        self.weights = nn.ParameterList(nn.Parameter(torch.randn(*s, generator=gen, dtype=torch.float64))
                                        for s in shapes)
        self.in_dim, self.m, self.b = int(d), int(m), int(b)

    def prepare(self, X) -> torch.Tensor:
        """X as a float64 tensor of shape (n, d), checked."""
        return as_tensor(X, self.in_dim, dtype=torch.float64)

    def forward(self, X) -> torch.Tensor:
        """f(X), shape (n,)."""
        W1, W2, W3, v = self.weights
        a1 = (X @ W1.T) ** 2 / 2
        a2 = a1 @ W2.T / math.sqrt(self.m)  # the linear bottleneck
        a3 = (a2 @ W3.T / math.sqrt(self.b)) ** 2 / 2
        return (a3 @ v.T).squeeze(-1) / math.sqrt(self.m)


def measure_quadratic_bottleneck(X, widths, b: int, seeds: int, radius: float, points: int, tol: float = 1e-6,
                                 max_iter: int = 500) -> pd.DataFrame:
    """The Hessian norm of :class:`QuadraticBottleneck` (max over the rows of X) at w_0 and at ``points`` random
    points of the sphere of radius R around it (:func:`~lib.chapters.non_constancy.ball.ball_models`), per width m
    at bottleneck b ([LZB] Thm 4.1). Cached one net per record.

    Args:
        X: inputs (unit norm).
        widths: the wide-layer widths m.
        b: the bottleneck width.
        seeds: weight draws.
        radius: R.
        points: random points per net.
        tol: power iteration tolerance.
        max_iter: power iteration cap.

    Returns:
        One row per (width, seed, point): ``bottleneck``, ``distance``, ``hess_norm``, ``iterations``,
        ``converged``.
    """
    X = np.asarray(X)
    rows = []
    for m, s in tqdm([(int(m), s) for m in widths for s in range(seeds)], desc="Eq 31 Hessian norms", leave=False):
        def run(m=m, s=s):
            out = {c: [] for c in ("point", "distance", "hess_norm", "iterations", "converged")}
            for label, dist, net in ball_models(QuadraticBottleneck(X.shape[1], m, int(b), s), radius, points, s):
                h = model_hessian_norm(net, X, tol=tol, max_iter=max_iter, seed=s)
                for c, v in zip(out, (label, dist, h.norm, h.iterations, h.converged)):
                    out[c].append(v)
            return out
        key = dict(m=m, b=int(b), s=s, R=float(radius), p=int(points), tol=tol, it=max_iter, X=X)
        res = cached_call("05_non_constancy_eq31", key, run, version="1")
        rows += [dict(width=m, seed=s, bottleneck=int(b), **{c: res[c][i] for c in res})
                 for i in range(len(res["point"]))]
    return pd.DataFrame(rows)


def check_quadratic_bottleneck(h) -> Check:
    """[LZB] Thm 4.1 on the theorem's own network (Eq 31, :class:`QuadraticBottleneck`): for any fixed R the
    Hessian norm is bounded below by a positive constant at every point of the ball B(w_0, R), however wide the
    other layers.

    Measurement: per net, the smallest Hessian norm met over w_0 and the random points of the sphere of radius R
    (the inf of a lower bound), seed mean per width m, at the narrowest bottleneck. Rule: the rule of the chapter's
    tanh [m, b, m] net (:func:`~lib.chapters.non_constancy.rules.flat_status` on the log-log slope against m):
    "reproduced" within 0.15 of zero (a width-independent floor: Thm 3.3 bounds the norm above by O~(1/sqrt(b)),
    so a floor that does not fall is flat), "not reproduced" at -0.3 or steeper (it vanishes like a wide net's),
    "reproduced with caveat" between; "inconclusive" when a power iteration did not converge; "not checked"
    without the measurement.

    Args:
        h: :func:`~lib.chapters.non_constancy.hessian_norms.measure_hessian_norms` output (its ``quadratic``).

    Returns:
        The check (part "the theorem's network (Eq 31)").
    """
    part = "the theorem's network (Eq 31)"
    q = getattr(h, "quadratic", None)
    if q is None or q.empty:
        return Check("[LZB] Thm 4.1", status="not checked", part=part, measured="The network of Eq 31 was not run.",
                     caveat="not testable on this data: the theorem's network was not measured")
    inf = ball_sup(q, h.ball_radius, how="min", by=("width", "seed"))
    g = inf.groupby("width")["hess_norm"].mean()
    conv = bool(q.converged.all())
    s = fit_slope(g.index, g.to_numpy())
    status = flat_status(s) if conv else "inconclusive"
    at0 = q[q.point == "init"].groupby("width")["hess_norm"].mean()
    return Check(
        "[LZB] Thm 4.1", status=status, part=part,
        caveat={"reproduced with caveat": "the floor drifts with the width",
                "inconclusive": UNCONVERGED}.get(status, ""),
        measured=f"Network of Eq 31 (quadratic wide layers, linear bottleneck b={int(q.bottleneck.iloc[0])}): the "
        f"smallest Hessian norm over w_0 and {q[q.point != 'init'].point.nunique()} random point(s) at distance "
        f"R={h.ball_radius:g} is " + ", ".join(f"{v:.3g} (m={w})" for w, v in g.items())
        + f" (seed mean): log-log slope {s:.2f} against m (at w_0 alone: "
        + ", ".join(f"{v:.3g}" for v in at0.to_numpy()) + f"); power iteration converged: {'yes' if conv else 'no'}.")
