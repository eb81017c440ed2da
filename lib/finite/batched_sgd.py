"""Many SGD runs of one architecture trained together as one batched model ([LH] Sec. 5, Figure 4, Table 1).

A learning-rate grid search trains the same network at several rates and seeds. Run one at a time,
a batch of 500 leaves most of a GPU idle and a Python loop pays its overhead once per run. Here the
R runs' weights are stacked into tensors of shape (R, m_out, m_in) and every layer is one
``torch.bmm``; run r draws its weights exactly as ``MLP(..., seed=seeds[r])`` and its batch order
from ``torch.Generator().manual_seed(seeds[r])``, exactly as :func:`lib.finite.training.sgd_train`,
so a batched run gives the loss curve of the same run trained alone, to float32 rounding (tested).

Each run has its own rate; a run that diverges (a batch loss that is NaN/inf or above
``divergence_factor`` times its initial loss) is stopped there and dropped from the batch, so the
rest train at full speed. The loss of an epoch is recorded either as the authors' script logs it
(``loss_record="epoch_mean"``: the sample-weighted mean of the batch losses seen during the epoch,
their ``AverageMeter``; free) or as the full training loss after the epoch (``"full"``, as
:func:`lib.finite.training.sgd_train`; one extra forward pass over the training set per epoch).
Nothing assumes a device: the tensors live on ``device``.

**Precision.** ``precision="fp32"`` (the default) computes everything in the weights' dtype (float32,
or float64 with ``dtype="float64"``). ``precision="bf16"`` is mixed precision: the master weights,
their update, the loss and the softmax stay float32, while every matrix product (forward, and both
products of the backward pass) runs in bfloat16 with float32 accumulation, on CPU (AMX) or CUDA alike.
It is the arithmetic of ``torch.autocast(dtype=torch.bfloat16)`` written out by hand, so that the
casts and the elementwise work around the products are paid once: the master weights are cast once per
update (no layer scale to apply, below), the ReLU is applied in place in bfloat16, its derivative is one
fused masking of the incoming gradient, and the learning rate multiplies only the (R, B, classes) output
gradient. The final training and test accuracies are always evaluated in the weights' own dtype.

**The network as computed.** [LH] Eq. 1 scales each hidden layer: a_l = s relu(W_l a_{l-1}) with
s = sqrt(2 / m). By positive homogeneity this is a_l = relu(V_l a_{l-1}) with V_l = s W_l, so the
trainer keeps V_l as its master weights (the output layer is not scaled: V_{L+1} = W_{L+1}) and no
product needs a scale. SGD on W in these coordinates: W_l <- W_l - lr dL/dW_l with dL/dW_l = s dL/dV_l
is V_l <- V_l - lr s^2 g_l a_{l-1}^T, where g_l is the gradient of the loss with respect to the
pre-activation of layer l. Since g_l is linear in the output gradient, s^2 g_l obeys the recursion of
g_l started from s^2 times the output gradient: one multiplication of an (R, B, classes) tensor per
update. The result is the same network and the same SGD as :class:`lib.finite.mlp.MLP` trained by
autograd, up to rounding (tested).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F

from lib.finite.mlp import MLP
from lib.progress import tqdm
from lib.validation import InputError, as_data, check_device, check_seeds

__all__ = ["BatchedRuns", "sgd_train_runs", "LOSS_RECORDS", "PRECISIONS", "DIVERGENCE_FACTOR"]

#: how the loss of an epoch is recorded (see the module docstring)
LOSS_RECORDS = ("epoch_mean", "full")

#: the arithmetic of the matrix products: in the weights' dtype, or bfloat16 with float32 master weights
PRECISIONS = ("fp32", "bf16")

#: a run is stopped as diverged once a batch loss exceeds this multiple of its initial training loss
DIVERGENCE_FACTOR = 10.0

_EVAL_CHUNK = 2048


@dataclass
class BatchedRuns:
    """The result of :func:`sgd_train_runs`: R runs of one architecture, with the settings they ran under.

    Attributes:
        depth, width, in_dim, out_dim: the architecture (bias-free ReLU MLP, [LH] Eq. 1).
        lrs, seeds: per run.
        epochs, batch_size, n_train: the training budget and data size.
        loss_record: ``"epoch_mean"`` or ``"full"``.
        divergence_factor: the stopping rule's factor.
        train_loss: (R, epochs + 1) mean cross-entropy; column 0 is the full training loss at
            initialization; NaN after a run diverged.
        diverged: (R,) the run was stopped.
        diverged_epoch: (R,) the epoch in which it was stopped (-1: never).
        test_acc: (R,) final held-out accuracy (NaN if diverged or no test data).
        train_acc: (R,) final training accuracy (NaN if diverged).
        seconds: wall time of the whole batch.
        device, dtype: where it ran and the master weights' dtype.
        precision: ``"fp32"`` or ``"bf16"`` (:data:`PRECISIONS`), the arithmetic of the matrix products.
    """

    depth: int
    width: int
    in_dim: int
    out_dim: int
    lrs: np.ndarray
    seeds: np.ndarray
    epochs: int
    batch_size: int
    n_train: int
    loss_record: str
    divergence_factor: float
    train_loss: np.ndarray
    diverged: np.ndarray
    diverged_epoch: np.ndarray
    test_acc: np.ndarray
    train_acc: np.ndarray
    seconds: float
    device: str = "cpu"
    dtype: str = "float32"
    precision: str = "fp32"
    updates_per_epoch: int = field(init=False)

    def __post_init__(self):
        self.updates_per_epoch = -(-int(self.n_train) // int(self.batch_size))

    def run(self, r: int) -> dict:
        """Run ``r`` as a plain dict (lr, seed, train_loss, diverged, diverged_epoch, test_acc, train_acc)."""
        return dict(lr=float(self.lrs[r]), seed=int(self.seeds[r]), train_loss=self.train_loss[r].copy(),
                    diverged=bool(self.diverged[r]), diverged_epoch=int(self.diverged_epoch[r]),
                    test_acc=float(self.test_acc[r]), train_acc=float(self.train_acc[r]))


def _positive_int(name: str, v) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
        raise InputError(f"{name} must be a positive integer, got {v!r}")
    return int(v)


def _labels(y, n: int, k: int, name: str, device) -> torch.Tensor:
    y = np.asarray(y)
    if y.shape != (n,) or not np.issubdtype(y.dtype, np.integer):
        raise InputError(f"{name} must be {n} integer labels, got dtype {y.dtype} and shape {y.shape}")
    if n and (y.min() < 0 or y.max() >= k):
        raise InputError(f"{name} must lie in 0..{k - 1}, got {y.min()}..{y.max()}")
    return torch.as_tensor(y, dtype=torch.long, device=device)


def _drop_runs(flags, epoch: int, active: np.ndarray, Ws: list[torch.Tensor], per_run: list[torch.Tensor],
               diverged: np.ndarray, div_epoch: np.ndarray):
    """Stop the active runs flagged in ``flags`` (one bool per entry of ``active``) at ``epoch``.

    The one place where runs leave the batch: at initialization (epoch 0, a loss that is not finite),
    after a batch (a loss not finite or above the divergence limit) and after an epoch (a full training
    loss that overflowed). Marks them in ``diverged`` and ``div_epoch`` (by run id) and returns
    ``active``, the weights ``Ws`` and the per-run tensors ``per_run`` (the run on their first axis)
    without them; all unchanged when none is flagged.
    """
    flags = np.asarray(flags, dtype=bool)
    if not flags.any():
        return active, Ws, per_run
    for r in active[flags]:
        diverged[r], div_epoch[r] = True, epoch
    keep = torch.as_tensor(np.flatnonzero(~flags), device=Ws[0].device)
    Ws = [W[keep].clone() for W in Ws]
    return active[~flags], Ws, [t[keep] for t in per_run]


def _compute_weights(Vs: list[torch.Tensor], cdt: torch.dtype) -> list[torch.Tensor]:
    """The master weights V_l as the products read them: cast to the compute dtype ``cdt`` (no copy when it is
    theirs)."""
    return [V.to(cdt) for V in Vs]


def _forward(Cs: list[torch.Tensor], a: torch.Tensor, keep: bool = False):
    """Logits of every run, (R, B, k): ``a`` is (R, B, d) or (B, d) shared by all runs, in the compute dtype.

    Every product is one ``torch.bmm`` with the weights transposed as a view (``torch.matmul`` on 3-D operands
    copies a transposed operand first). With ``keep`` also returns the layer outputs a_0..a_L (the ReLU applied in
    place) for the backward pass."""
    if a.ndim == 2:
        a = a.unsqueeze(0).expand(Cs[0].shape[0], -1, -1)
    acts = [a]
    for C in Cs[:-1]:
        a = torch.relu_(torch.bmm(a, C.transpose(1, 2)))
        if keep:
            acts.append(a)
    out = torch.bmm(a, Cs[-1].transpose(1, 2))
    return (out, acts) if keep else out


def _sgd_step(Vs: list[torch.Tensor], Cs: list[torch.Tensor], xb: torch.Tensor, yb: torch.Tensor,
              lr_t: torch.Tensor, s2: float) -> torch.Tensor:
    """One SGD update of every run in place (mean cross-entropy of its batch); returns each run's batch loss (R,).

    ``Vs`` are the master weights (the module docstring), ``Cs`` :func:`_compute_weights` of them, ``xb``
    (R, B, d) in the compute dtype, ``yb`` (R, B) labels, ``lr_t`` (R,) rates, ``s2`` the squared layer scale.
    The loss and the softmax are taken in the master dtype. The gradient of run r's mean loss with respect to
    its logits, (softmax - onehot) / B, is multiplied by lr_r once, so every product below is already an
    update; the hidden layers' updates carry s^2 from the start of their recursion."""
    out, acts = _forward(Cs, xb, keep=True)
    logp = torch.log_softmax(out.to(Vs[0].dtype), dim=-1)
    pick = yb.unsqueeze(-1)
    per_run = -logp.gather(-1, pick).squeeze(-1).mean(dim=1)
    g = logp.exp_()
    g.scatter_add_(-1, pick, torch.full_like(pick, -1, dtype=g.dtype))
    g.mul_((lr_t / xb.shape[1]).unsqueeze(-1).unsqueeze(-1))
    cdt = Cs[0].dtype
    upd = torch.bmm(g.to(cdt).transpose(1, 2), acts[-1])           # the output layer's update
    gh = torch.bmm(g.mul_(s2).to(cdt), Cs[-1])                      # s^2 lr x gradient of the last hidden output
    Vs[-1].sub_(upd)
    for l in range(len(Vs) - 2, -1, -1):
        gh = torch.ops.aten.threshold_backward(gh, acts[l + 1], 0)  # through the ReLU: s^2 lr x dL/dh_l
        upd = torch.bmm(gh.transpose(1, 2), acts[l])
        if l:
            gh = torch.bmm(gh, Cs[l])
        Vs[l].sub_(upd)
    return per_run


def _evaluate(Vs, X: torch.Tensor, y: torch.Tensor, cdt: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean cross-entropy and accuracy of every run on (X, y) with products in ``cdt``, in chunks: two (R,) tensors."""
    R = Vs[0].shape[0]
    loss = torch.zeros(R, dtype=torch.float64, device=X.device)
    hits = torch.zeros(R, dtype=torch.float64, device=X.device)
    Cs = _compute_weights(Vs, cdt)
    with torch.no_grad():
        for s in range(0, len(X), _EVAL_CHUNK):
            out = _forward(Cs, X[s:s + _EVAL_CHUNK].to(cdt)).to(Vs[0].dtype)
            lab = y[s:s + _EVAL_CHUNK]
            k = out.shape[-1]
            ce = F.cross_entropy(out.reshape(-1, k), lab.repeat(R), reduction="none").reshape(R, -1)
            loss += ce.double().sum(dim=1)
            hits += (out.argmax(dim=-1) == lab).double().sum(dim=1)
    return loss / len(X), hits / len(X)


def sgd_train_runs(X, y, *, depth: int, width: int, lrs: Sequence[float], seeds: Sequence[int], epochs: int,
                   batch_size: int, X_test=None, y_test=None, out_dim: int | None = None, dtype: str = "float32",
                   precision: str = "fp32", device: str = "cpu", loss_record: str = "epoch_mean",
                   divergence_factor: float = DIVERGENCE_FACTOR, progress: bool = True,
                   desc: str = "SGD runs") -> BatchedRuns:
    """Train R = len(lrs) bias-free ReLU MLPs ([LH] Eq. 1) together with mini-batch SGD on cross-entropy ([LH] Sec. 5).

    Run r has learning rate ``lrs[r]`` and seed ``seeds[r]`` (weights as ``MLP(..., seed)``; batch
    order from a ``torch.Generator`` seeded with it, reshuffled every epoch, the last partial batch
    kept), mean cross-entropy per batch, plain SGD ``w <- w - lr grad``: the protocol of the
    authors' training script, R runs at the cost of one batched model. The gradients are written out
    (the module docstring) rather than taken by autograd: the same numbers, fewer passes over memory.

    Args:
        X, y: training inputs (n, d) and integer labels (n,).
        depth: hidden layers L >= 1.
        width: hidden width m.
        lrs: one learning rate per run (positive, finite).
        seeds: one seed per run (same length as ``lrs``).
        epochs: passes over the training set.
        batch_size: the SGD batch (capped at n).
        X_test, y_test: held-out data for the final accuracy (optional).
        out_dim: number of classes (default: ``max(y) + 1``, over the test labels too).
        dtype: the master weights, ``"float32"`` or ``"float64"``.
        precision: ``"fp32"`` (products in ``dtype``) or ``"bf16"`` (products in bfloat16, float32 master
            weights, loss and softmax; needs ``dtype="float32"``); :data:`PRECISIONS`.
        device: a torch device (checked up front).
        loss_record: ``"epoch_mean"`` (the authors' logged loss) or ``"full"``.
        divergence_factor: stop a run once a batch loss is NaN/inf or above this multiple of its
            initial training loss (> 1).
        progress: show a tqdm bar over epochs.
        desc: the bar's label.

    Returns:
        :class:`BatchedRuns`.

    Raises:
        lib.validation.InputError: bad sizes, rates, seeds, labels, dtype, precision or device, each named.
    """
    t0 = time.perf_counter()
    depth, width = _positive_int("depth", depth), _positive_int("width", width)
    epochs, batch_size = _positive_int("epochs", epochs), _positive_int("batch_size", batch_size)
    if precision not in PRECISIONS:
        raise InputError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    if precision == "bf16" and dtype != "float32":
        raise InputError(f"precision 'bf16' keeps float32 master weights: dtype must be 'float32', got {dtype!r}")
    lrs = [float(v) if not isinstance(v, bool) and isinstance(v, (int, float, np.floating, np.integer)) else v
           for v in lrs]
    if not lrs or not all(isinstance(v, float) and math.isfinite(v) and v > 0 for v in lrs):
        raise InputError(f"lrs must be a non-empty list of positive finite learning rates, got {list(lrs)!r}")
    seeds = check_seeds(seeds, "seeds", count=len(lrs))
    if dtype not in ("float32", "float64"):
        raise InputError(f"dtype must be 'float32' or 'float64', got {dtype!r}")
    if loss_record not in LOSS_RECORDS:
        raise InputError(f"loss_record must be one of {LOSS_RECORDS}, got {loss_record!r}")
    if not (isinstance(divergence_factor, (int, float)) and divergence_factor > 1):
        raise InputError(f"divergence_factor must be a number above 1, got {divergence_factor!r}")
    dev = check_device(device)
    dt = getattr(torch, dtype)
    X = as_data(X)
    n, d = X.shape
    labels_all = np.asarray(y) if y_test is None else np.r_[np.asarray(y).ravel(), np.asarray(y_test).ravel()]
    k = _positive_int("out_dim", out_dim) if out_dim is not None else int(np.max(labels_all)) + 1
    Xt = torch.as_tensor(X, dtype=dt, device=dev)
    yt = _labels(y, n, k, "y", dev)
    if X_test is not None:
        Xte_np = as_data(X_test, d, "X_test")
        Xte = torch.as_tensor(Xte_np, dtype=dt, device=dev)
        yte = _labels(y_test, len(Xte_np), k, "y_test", dev)
    bs = min(batch_size, n)
    R = len(lrs)
    cdt = torch.bfloat16 if precision == "bf16" else dt  # the dtype of the matrix products
    Xc = Xt.to(cdt)  # the training set as the products read it (the same tensor in "fp32")

    nets = [MLP(d, width, depth, activation="relu", seed=int(s), dtype=dt, device=dev, out_dim=k) for s in seeds]
    scale = nets[0].scales[0]
    Ws = [torch.stack([net.weights[l].detach() for net in nets]) * (scale if l < depth else 1.0)
          for l in range(depth + 1)]  # the master weights V_l (the module docstring)
    del nets
    lr_t = torch.tensor(lrs, dtype=dt, device=dev)
    gens = [torch.Generator(device="cpu").manual_seed(int(s)) for s in seeds]

    hist = np.full((R, epochs + 1), np.nan)
    loss0, _ = _evaluate(Ws, Xt, yt, cdt)
    hist[:, 0] = loss0.cpu().numpy()
    diverged, div_epoch = np.zeros(R, dtype=bool), np.full(R, -1)
    active = np.arange(R)  # run ids still in the batch, in the order of Ws' first axis
    active, Ws, (lr_t,) = _drop_runs(~np.isfinite(hist[:, 0]), 0, active, Ws, [lr_t], diverged, div_epoch)
    limit = torch.as_tensor(divergence_factor * hist[active, 0], dtype=torch.float64, device=dev)

    with torch.no_grad():
        for epoch in tqdm(range(1, epochs + 1), desc=desc, leave=False, disable=not progress):
            if len(active) == 0:
                break
            perms = torch.stack([torch.randperm(n, generator=gens[r]) for r in active]).to(dev)  # (R_active, n)
            seen = torch.zeros(len(active), dtype=torch.float64, device=dev)
            for s in range(0, n, bs):
                idx = perms[:, s:s + bs]
                per_run = _sgd_step(Ws, _compute_weights(Ws, cdt), Xc[idx], yt[idx], lr_t, scale * scale)
                batch = per_run.double()
                seen += batch * idx.shape[1]
                bad = ~torch.isfinite(batch) | (batch > limit)
                if bool(bad.any()):
                    active, Ws, (lr_t, limit, seen, perms) = _drop_runs(bad.cpu().numpy(), epoch, active, Ws,
                                                                        [lr_t, limit, seen, perms], diverged,
                                                                        div_epoch)
                    if len(active) == 0:
                        break
            if len(active) == 0:
                break
            if loss_record == "epoch_mean":
                hist[active, epoch] = (seen / n).cpu().numpy()
            else:
                full, _ = _evaluate(Ws, Xt, yt, cdt)
                hist[active, epoch] = full.cpu().numpy()
            # a full loss that overflowed after the last batch
            active, Ws, (lr_t, limit) = _drop_runs(~np.isfinite(hist[active, epoch]), epoch, active, Ws,
                                                   [lr_t, limit], diverged, div_epoch)

    test_acc = np.full(R, np.nan)
    train_acc = np.full(R, np.nan)
    if len(active):  # the trained weights as they are (master dtype), whatever the precision of the training
        _, acc_tr = _evaluate(Ws, Xt, yt, dt)
        train_acc[active] = acc_tr.cpu().numpy()
        if X_test is not None:
            _, acc_te = _evaluate(Ws, Xte, yte, dt)
            test_acc[active] = acc_te.cpu().numpy()
    return BatchedRuns(depth=depth, width=width, in_dim=d, out_dim=k, lrs=np.asarray(lrs), seeds=np.asarray(seeds),
                       epochs=epochs, batch_size=bs, n_train=n, loss_record=loss_record,
                       divergence_factor=float(divergence_factor), train_loss=hist, diverged=diverged,
                       diverged_epoch=div_epoch, test_acc=test_acc, train_acc=train_acc,
                       seconds=time.perf_counter() - t0, device=str(dev), dtype=dtype, precision=precision)
