"""Spectral norm of the Hessian of the *model* (not the loss), d^2 f(x) / dw^2 ([LZB] Sec. 3-4).

[LZB] Thm 3.2: for wide networks with a linear output layer ||H_f(w)|| = O~(1/sqrt(m)) in a ball
of fixed radius around initialization, which makes the tangent kernel nearly constant; with a
non-linear output layer ||H_f|| = O(1) ([LZB] Sec. 4).

The Hessian is never formed: Hessian-vector products come from autograd double backward
(grad of <grad f, v>), and the spectral norm from power iteration on them. For a batch of
inputs, the reported norm is **the maximum over the inputs x_i (and over output coordinates
for a vector output) of ||d^2 f_c(x_i) / dw^2||_2**, the quantity that bounds the kernel change
in [LZB] Prop. 2.3.

Power iteration v <- Hv / ||Hv|| with the estimate ||H v|| (which is non-decreasing and
converges to ``max |eigenvalue|`` even when +lambda and -lambda are both eigenvalues, as happens
for one-hidden-layer ReLU nets). A dense reference for tiny nets is :func:`dense_model_hessian`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from lib.finite.reference import model_inputs
from lib.validation import InputError, as_row, check_real, check_seed, derived_seed, positive_int

__all__ = ["HessianNorm", "hvp_operator", "power_iteration", "model_hessian_norm", "dense_model_hessian"]


@dataclass(frozen=True)
class HessianNorm:
    """Result of :func:`model_hessian_norm`.

    Attributes:
        norm: max over inputs and outputs of the spectral norm of d^2 f / dw^2.
        per_input: array (n, k) of the per-input, per-output spectral norms.
        iterations: the largest number of power iterations any of them used.
        converged: every power iteration met the tolerance before the cap.
    """

    norm: float
    per_input: np.ndarray
    iterations: int
    converged: bool


def _scalar_output(model: nn.Module, x: torch.Tensor, output: int) -> torch.Tensor:
    f = model(x)
    f = f.reshape(-1)
    if output < 0 or output >= f.numel():
        raise InputError(f"output index {output} out of range for a model with {f.numel()} output(s)")
    return f[output]


def hvp_operator(model: nn.Module, x, output: int = 0):
    """Return (hvp, P): ``hvp(v)`` = H v for H = d^2 f_output(x) / dw^2 at a single input x (shape (d,) or (1, d)).

    ``v`` is a flat tensor over all trainable parameters (P entries, in ``model.parameters()`` order).
    The gradient graph is built once and reused for every product.
    """
    params = [p for p in model.parameters() if p.requires_grad]
    if not params:
        raise InputError("the model has no trainable parameters")
    x = as_row(x, dtype=params[0].dtype, device=params[0].device)
    with torch.enable_grad():
        f = _scalar_output(model, x, output)
        grads = torch.autograd.grad(f, params, create_graph=True, allow_unused=True)
    grads = [torch.zeros_like(p) if g is None else g for p, g in zip(params, grads)]
    g_flat = torch.cat([g.reshape(-1) for g in grads])
    P = g_flat.numel()

    def hvp(v: torch.Tensor) -> torch.Tensor:
        if v.shape != (P,):
            raise InputError(f"v must be a flat vector of {P} entries, got shape {tuple(v.shape)}")
        if not g_flat.requires_grad:  # f is linear in w (e.g. depth 0): the Hessian is zero
            return torch.zeros_like(v)
        with torch.enable_grad():
            hv = torch.autograd.grad(g_flat @ v, params, retain_graph=True, allow_unused=True)
        return torch.cat([(torch.zeros_like(p) if h is None else h).reshape(-1) for p, h in zip(params, hv)]).detach()

    return hvp, P


def power_iteration(matvec, dim: int, tol: float = 1e-6, max_iter: int = 500, seed: int = 0,
                    dtype=torch.float64, device="cpu") -> tuple[float, int, bool]:
    """Spectral norm of a symmetric operator by power iteration: returns (norm, iterations, converged).

    Stops when the estimate ||A v_t|| changes by at most ``tol`` relative to itself, or after
    ``max_iter`` products. A zero operator returns (0.0, 1, True).
    """
    check_real(tol, "tol", low=0.0, low_open=True)
    positive_int(max_iter, "max_iter")
    gen = torch.Generator(device="cpu").manual_seed(check_seed(seed))
    v = torch.randn(dim, generator=gen, dtype=dtype).to(device)
    v /= v.norm()
    est = 0.0
    for it in range(1, max_iter + 1):
        w = matvec(v)
        new = float(w.norm())
        if new == 0.0:
            return 0.0, it, True
        v = w / new
        if abs(new - est) <= tol * new:
            return new, it, True
        est = new
    return est, max_iter, False


def model_hessian_norm(model: nn.Module, X, outputs: list[int] | None = None, tol: float = 1e-6,
                       max_iter: int = 500, seed: int = 0) -> HessianNorm:
    """max over rows x_i of X (and output coordinates) of ||d^2 f(x_i) / dw^2||_2 ([LZB] Thm 3.2).

    Args:
        model: an MLP, an :class:`lib.finite.wrapped.OutputWrapped` model or any module (inputs checked by
            :func:`lib.finite.reference.model_inputs`).
        X: inputs (n, d); keep n small (one power iteration per input and output).
        outputs: output coordinates to include (default: all).
        tol, max_iter: power-iteration tolerance (relative change of the estimate) and cap.
    """
    seed = check_seed(seed)
    Xt = model_inputs(model, X)
    k = int(getattr(model, "out_dim", 1))
    outs = list(range(k)) if outputs is None else [int(o) for o in outputs]
    if not outs or min(outs) < 0 or max(outs) >= k:
        raise InputError(f"outputs must be indices in 0..{k - 1}, got {outputs!r}")
    norms = np.full((Xt.shape[0], k), np.nan)
    its, conv = 0, True
    for i in range(Xt.shape[0]):
        for c in outs:
            hvp, P = hvp_operator(model, Xt[i:i + 1], c)
            val, it, ok = power_iteration(hvp, P, tol, max_iter, seed=derived_seed(seed, i), dtype=Xt.dtype,
                                          device=Xt.device)
            norms[i, c] = val
            its, conv = max(its, it), conv and ok
    return HessianNorm(float(np.nanmax(norms)), norms, its, conv)


def dense_model_hessian(model: nn.Module, x, output: int = 0) -> np.ndarray:
    """The full P x P Hessian d^2 f_output(x) / dw^2 at one input (tiny nets only; for tests)."""
    hvp, P = hvp_operator(model, x, output)
    if P > 5000:
        raise InputError(f"dense Hessian of {P} parameters is too large; use model_hessian_norm")
    params = [p for p in model.parameters() if p.requires_grad]
    eye = torch.eye(P, dtype=params[0].dtype, device=params[0].device)
    return torch.stack([hvp(eye[j]) for j in range(P)]).cpu().numpy()
