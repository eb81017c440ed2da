"""Training loops: full-batch gradient descent and mini-batch SGD ([LZB] Sec. 5, [LH] Sec. 5).

Conventions ([LH] Sec. 5; [LZB] Sec. 5):

- square loss for full-batch GD is L(w) = 1/2 ||f(X) - y||^2 (a *sum* over samples and
  outputs), so that GD with step eta on the linearized model gives r_{t+1} = (I - eta K) r_t
  with K the tangent kernel: the rates (1 - eta lambda_min)^t of [LZB] Thm 5.1 / [LH] Sec. 5
  apply with this eta;
- mini-batch SGD ([LH] Figure 4, Table 1) uses the mean cross-entropy (or mean square loss)
  over the batch, as in the paper's PyTorch code.

Every loop is deterministic given its seed (shuffling uses a private ``torch.Generator``; the
network weights are drawn by :class:`lib.finite.mlp.MLP` from its own seed) and shows a tqdm bar.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from lib.progress import tqdm

from lib.finite.tangent import model_ntk
from lib.spectra import relative_error
from lib.validation import (InputError, as_matrix, check_int, check_labels, check_real, check_seed, positive_int,
                            real_array, real_tensor)

__all__ = ["square_loss", "cross_entropy", "LOSSES", "KernelTracker", "gd_train", "sgd_train",
           "lr_grid_search", "linearized_losses", "accuracy"]


def square_loss(pred: torch.Tensor, target: torch.Tensor, reduction: str = "sum") -> torch.Tensor:
    """1/2 sum (pred - target)^2 (``reduction="sum"``) or its mean over samples (``"mean"``)."""
    if pred.shape != target.shape:
        raise InputError(f"prediction shape {tuple(pred.shape)} differs from target shape {tuple(target.shape)}")
    total = 0.5 * ((pred - target) ** 2).sum()
    if reduction == "sum":
        return total
    if reduction == "mean":
        return total / pred.shape[0]
    raise InputError(f"reduction must be 'sum' or 'mean', got {reduction!r}")


def cross_entropy(logits: torch.Tensor, labels: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
    """Softmax cross-entropy of (n, k) logits against integer labels in 0..k-1."""
    real_tensor(logits, "logits"), real_tensor(labels, "labels")
    if logits.ndim != 2:
        raise InputError(f"cross-entropy needs (n, k) logits (an MLP with out_dim=k), got shape {tuple(logits.shape)}")
    if labels.dtype not in (torch.int64, torch.int32) or labels.shape != logits.shape[:1]:
        raise InputError(f"labels must be n={logits.shape[0]} integers, got {labels.dtype} of shape {tuple(labels.shape)}")
    if int(labels.min()) < 0 or int(labels.max()) >= logits.shape[1]:
        raise InputError(f"labels must lie in 0..{logits.shape[1] - 1}, got range {int(labels.min())}..{int(labels.max())}")
    return F.cross_entropy(logits, labels.long(), reduction=reduction)


LOSSES: dict[str, Callable] = {"square": square_loss, "ce": cross_entropy}


def _loss_fn(loss: str) -> Callable:
    if loss not in LOSSES:
        raise InputError(f"loss must be one of {sorted(LOSSES)}, got {loss!r}")
    return LOSSES[loss]


def _check_lr(lr) -> float:
    return check_real(lr, "lr (the learning rate)", low=0.0, low_open=True)


def _targets(model, y, loss: str, n: int) -> torch.Tensor:
    if loss == "ce":
        t = torch.from_numpy(check_labels(y, "y"))
    else:
        t = torch.from_numpy(real_array(y, "y")).to(model.dtype)
    if t.ndim == 0 or t.shape[0] != n:
        raise InputError(f"X has {n} rows but y has {t.shape[0]}")
    return t


@dataclass
class KernelTracker:
    """GD callback recording the tangent kernel change ||K(w_t) - K(w_0)||_F / ||K(w_0)||_F ([LZB] Sec. 4).

    The kernel is :func:`lib.finite.tangent.model_ntk` (exact, for any model)
    on ``X``, taken every ``every`` steps and at the last step. ``max_change`` is Delta_K.
    ``lambda_min`` records the smallest eigenvalue of each kernel after skipping ``null_dim``
    eigenvalues that are zero by construction (n for a softmax output, whose kernel annihilates
    the all-ones direction of each sample), i.e. the PL constant along the path ([LZB] Thm 5.1).
    """

    X: np.ndarray
    every: int = 10
    null_dim: int = 0
    steps: list = field(default_factory=list)
    changes: list = field(default_factory=list)
    lambda_min: list = field(default_factory=list)
    K0: np.ndarray | None = None

    def __post_init__(self):
        positive_int(self.every, "every")
        check_int(self.null_dim, "null_dim", 0)

    def __call__(self, model, step: int, last: bool = False) -> None:
        if step % self.every and not last:
            return
        if self.steps and self.steps[-1] == step:
            return
        K = model_ntk(model, self.X)
        if self.K0 is None:
            self.K0 = K
        if self.null_dim >= K.shape[0]:
            raise InputError(f"null_dim={self.null_dim} leaves no eigenvalue of a {K.shape[0]}x{K.shape[0]} kernel")
        self.steps.append(step)
        self.changes.append(relative_error(K, self.K0))
        self.lambda_min.append(float(np.linalg.eigvalsh(K)[self.null_dim]))

    @property
    def max_change(self) -> float:
        return float(max(self.changes)) if self.changes else float("nan")


def gd_train(model: torch.nn.Module, X, y, lr: float, steps: int, loss: str = "square",
             rel_tol: float | None = None, callback: Callable | None = None, progress: bool = True,
             desc: str = "GD") -> dict:
    """Full-batch gradient descent w <- w - lr grad L(w) for at most ``steps`` steps.

    Args:
        model: an MLP or OutputWrapped model (any module with ``prepare``).
        X, y: data; y of the model's output shape (square loss) or integer labels (``"ce"``).
        lr: step size eta (for the sum square loss, GD is stable for eta < 2 / lambda_max(K)).
        rel_tol: stop once L(w_t) <= rel_tol * L(w_0) (``None``: run all steps).
        callback: called as ``callback(model, t)`` before step t and ``callback(model, t, last=True)`` at the end.

    Returns:
        dict with ``loss`` (array of L(w_t), t = 0..T), ``steps`` (T) and ``converged``.
    """
    lr = _check_lr(lr)
    positive_int(steps, "steps")
    if rel_tol is not None:
        check_real(rel_tol, "rel_tol", low=0.0)
    fn = _loss_fn(loss)
    Xt = model.prepare(X)
    yt = _targets(model, y, loss, Xt.shape[0])
    params = [p for p in model.parameters() if p.requires_grad]
    losses: list[float] = []
    converged = False
    t = 0
    for t in tqdm(range(steps + 1), desc=desc, leave=False, disable=not progress):
        if callback is not None:
            callback(model, t)
        out = model(Xt)
        L = fn(out, yt)
        val = float(L.detach())
        losses.append(val)
        if not math.isfinite(val):
            break
        if rel_tol is not None and val <= rel_tol * losses[0]:
            converged = True
            break
        if t == steps:
            break
        grads = torch.autograd.grad(L, params)
        with torch.no_grad():
            for p, g in zip(params, grads):
                p.sub_(lr * g)
    if callback is not None:
        callback(model, t, last=True)
    return {"loss": np.asarray(losses), "steps": t, "converged": converged}


def accuracy(model: torch.nn.Module, X, labels) -> float:
    """Fraction of rows whose arg-max output equals the label."""
    with torch.no_grad():
        out = model(model.prepare(X))
    lab = torch.from_numpy(check_labels(labels, "labels", n=out.shape[0])).to(out.device)
    return float((out.argmax(dim=1) == lab).double().mean())


def sgd_train(model: torch.nn.Module, X, y, lr: float, epochs: int, batch_size: int, seed: int = 0,
              loss: str = "ce", X_test=None, y_test=None, progress: bool = True, desc: str = "SGD") -> dict:
    """Mini-batch SGD (mean loss per batch, reshuffled every epoch with ``seed``) ([LH] Sec. 5).

    Returns a dict with ``train_loss`` (full training loss at epochs 0..E, epoch 0 = init),
    ``diverged`` (a loss became NaN/inf; training stops there) and, when test data are given,
    ``test_acc`` (final test accuracy, for ``loss="ce"``).
    """
    lr = _check_lr(lr)
    positive_int(epochs, "epochs")
    positive_int(batch_size, "batch_size")
    seed = check_seed(seed)
    fn = _loss_fn(loss)
    Xt = model.prepare(X)
    yt = _targets(model, y, loss, Xt.shape[0])
    if X_test is not None:  # checked before any training, not after it
        X_test = model.prepare(X_test, "X_test")
        check_labels(y_test, "y_test", n=X_test.shape[0])
    n = Xt.shape[0]
    params = [p for p in model.parameters() if p.requires_grad]
    gen = torch.Generator(device="cpu").manual_seed(seed)
    red = {"reduction": "mean"}

    def full_loss() -> float:
        with torch.no_grad():
            return float(fn(model(Xt), yt, **red))

    hist = [full_loss()]
    diverged = not math.isfinite(hist[0])
    for _ in tqdm(range(epochs), desc=desc, leave=False, disable=not progress):
        if diverged:
            break
        perm = torch.randperm(n, generator=gen)
        for s in range(0, n, batch_size):
            idx = perm[s:s + batch_size]
            L = fn(model(Xt[idx]), yt[idx], **red)
            grads = torch.autograd.grad(L, params)
            with torch.no_grad():
                for p, g in zip(params, grads):
                    p.sub_(lr * g)
        hist.append(full_loss())
        diverged = not math.isfinite(hist[-1])
    out = {"train_loss": np.asarray(hist), "diverged": diverged}
    if X_test is not None:
        out["test_acc"] = accuracy(model, X_test, y_test) if not diverged else float("nan")
    return out


def lr_grid_search(make_model: Callable[[], torch.nn.Module], X, y, lrs: Sequence[float], epochs: int,
                   batch_size: int, seed: int = 0, loss: str = "ce", progress: bool = True) -> tuple[float, dict]:
    """Pick the learning rate with the smallest training loss after ``epochs`` epochs of SGD.

    ``make_model()`` must return a fresh model (same seed every call, so that only the rate
    differs). A diverged run scores ``inf``. Returns (best lr, {lr: final training loss}).
    """
    seed = check_seed(seed)
    if isinstance(lrs, (str, bytes)) or not hasattr(lrs, "__len__") or not len(lrs):
        raise InputError(f"lrs must hold at least one learning rate, got {lrs!r}")
    for lr in lrs:
        _check_lr(lr)
    scores = {}
    for lr in lrs:
        res = sgd_train(make_model(), X, y, lr, epochs, batch_size, seed, loss, progress=progress,
                        desc=f"lr {lr:g}")
        final = res["train_loss"][-1]
        scores[float(lr)] = float(final) if math.isfinite(final) and not res["diverged"] else math.inf
    best = min(scores, key=lambda k: scores[k])
    if not math.isfinite(scores[best]):
        raise RuntimeError(f"every learning rate in {list(lrs)} diverged; try smaller rates")
    return best, scores


def linearized_losses(K, r0, lr: float, steps: int) -> np.ndarray:
    """Loss 1/2 ||(I - lr K)^t r0||^2 for t = 0..steps: GD on the linearized model ([LH] Sec. 5)."""
    K = as_matrix(K)
    r0 = real_array(r0, "r0").reshape(-1)
    lr, steps = _check_lr(lr), check_int(steps, "steps", 0)
    if K.shape != (r0.size, r0.size):
        raise InputError(f"K has shape {K.shape} but the residual has {r0.size} entries")
    lam, U = np.linalg.eigh(K)
    c2 = (U.T @ r0) ** 2
    t = np.arange(steps + 1)[:, None]
    return 0.5 * ((1 - lr * lam[None, :]) ** (2 * t) * c2[None, :]).sum(axis=1)
