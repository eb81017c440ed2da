"""The nets of chapter 05 and their training with a tracked kernel ([LZB] Sec. 3-5).

Architectures (``arch``), all in the NTK parameterization of :class:`lib.finite.mlp.MLP`:

- ``"linear"``: one hidden layer of width m, linear scalar output (transition to linearity);
- ``"swish"``: the same followed by swish on the scalar output ([LZB] Sec. 4);
- ``"softmax"``: one hidden layer, k outputs, softmax over them ([LZB] Sec. 4);
- ``"bottleneck"``: hidden widths [m, b, m] with a linear output ([LZB] Sec. 4.2);
- ``"linear_model"``: the model f(x) = W x, linear in its weights ([LZB] Prop 2.2; the width is unused).

Every net is trained by full-batch GD on the sum square loss with step
eta = lr_scale / (g^2 lambda_max(K(w_0))), K the base network's kernel and g = ``sup |phi'|`` of the
output non-linearity (1 for linear, ~1.0998 for swish, 1/2 for softmax), so that the step is
stable for the wrapped kernel K~ = J K J^T as long as the base kernel is nearly constant.
Non-linear outputs are centered at initialization, phi(f(x) - f_{w_0}(x)) (see
:class:`lib.finite.wrapped.OutputWrapped`), so that every output starts at phi(0).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from lib.activations import get_activation
from lib.book.params import ParameterError
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.finite.training import KernelTracker, gd_train
from lib.finite.wrapped import OutputWrapped, output_jacobians
from lib.spectra import extreme_eigenvalues
from lib.validation import check_seed

__all__ = ["ARCHS", "SUP_DERIV", "NONLINEAR", "LZB_DEPARTURE", "NetSetting", "check_parameters",
           "describe_data", "build", "gd_step", "flat_weights", "OutputSlopeTracker", "train_tracked"]


#: The architectures compared; linear output, swish output, softmax output, bottleneck, and the linear model.
ARCHS = ("linear", "swish", "softmax", "bottleneck", "linear_model")
#: ``sup_z |phi'(z)|`` of each output; swish' (from the activation registry) peaks at z ~ 2.3994 with value
#: ~1.0998, computed on a fine grid, not typed
SUP_DERIV = {"linear": 1.0, "bottleneck": 1.0, "linear_model": 1.0, "softmax": 0.5,
             "swish": float(get_activation("swish").deriv(torch.linspace(-10, 10, 200001, dtype=torch.float64))
                            .abs().max())}
#: The non-linear outputs ([LZB] Sec. 4).
NONLINEAR = ("swish", "softmax")
#: How the chapter's training departs from [LZB]'s experiments (their App. B), quoted under the figures of
#: trained nets.
LZB_DEPARTURE = ("Departs from [LZB] Sec. 6: they train on their synthetic classification set (App. B); we "
                 "regress on Gaussian points, with {activation} hidden units and centred non-linear outputs.")


@dataclass(frozen=True, eq=False, kw_only=True)
class NetSetting:
    """What every result of the chapter was measured on (the base of its result classes).

    Attributes:
        n: training points (:func:`lib.data.synthetic_regression`, seed 0).
        d: input dimension.
        seeds: weight draws per configuration.
        activation: hidden activation.
        profile: the parameter profile of the run ("" when unknown).
    """

    n: int = 0
    d: int = 0
    seeds: int = 1
    activation: str = "tanh"
    profile: str = ""

    def setting(self, nets: str, how: str, note: str, extra: str = "") -> str:
        """The setting line under a figure: the data, the nets, how they were trained or measured, the profile,
        ``extra`` (a measured summary), then ``note`` (how the setting departs from [LZB])."""
        extra = f"; {extra}" if extra else ""
        return f"Setting: {describe_data(self.n, self.d)}; {nets}; {how}; {{profile}}{extra}. {note}"


def check_parameters(k: int, lr_scale: float, n_hessian: int, n_samples: int) -> None:
    """Refuse parameters the chapter cannot run with, naming them.

    Args:
        k: softmax outputs (at least 2: softmax over one output is constant).
        lr_scale: the GD step factor (below 2: GD diverges beyond).
        n_hessian: inputs of the Hessian norm (at most ``n_samples``).
        n_samples: training points.

    Raises:
        lib.book.params.ParameterError: a bad value, every problem listed.
    """
    errors = []
    if k < 2:
        errors.append("parameter 'k' must be at least 2 (softmax over one output is constant)")
    if lr_scale >= 2:
        errors.append(f"parameter 'lr_scale' must be below 2 (GD diverges beyond), got {lr_scale}")
    if n_hessian > n_samples:
        errors.append("parameter 'n_hessian' cannot exceed 'n_samples'")
    if errors:
        raise ParameterError("bad notebook parameter(s):\n  " + "\n  ".join(errors))


def describe_data(n: int, d: int) -> str:
    """The data of :func:`lib.data.synthetic_regression` in words, for the settings under the figures."""
    return f"n = {n} unit-norm Gaussian points in d = {d}"


def build(arch: str, d: int, width: int, seed: int, activation: str = "tanh", k: int = 3,
          bottleneck: int | None = None, center: bool = True):
    """The network of one architecture (see the module docstring); returns (model, base MLP).

    Non-linear outputs are centered at initialization (``center``, see :class:`lib.finite.wrapped.OutputWrapped`).

    Args:
        arch: one of :data:`~lib.chapters.non_constancy.nets.ARCHS`.
        d: input dimension.
        width: hidden width m.
        seed: weight seed.
        activation: hidden activation.
        k: softmax outputs.
        bottleneck: the bottleneck width b (``arch="bottleneck"`` only).
        center: center non-linear outputs at initialization.

    Returns:
        (model, base MLP); for a linear output both are the same net.
    """
    seed = check_seed(seed)
    if arch == "linear":
        net = MLP(d, width, 1, activation=activation, seed=seed)
        return net, net
    if arch == "swish":
        net = MLP(d, width, 1, activation=activation, seed=seed)
        return OutputWrapped(net, "swish", center=center), net
    if arch == "softmax":
        net = MLP(d, width, 1, activation=activation, seed=seed, out_dim=k)
        return OutputWrapped(net, "softmax", center=center), net
    if arch == "linear_model":
        net = MLP(d, width, 0, activation=activation, seed=seed)
        return net, net
    if arch == "bottleneck":
        if bottleneck is None:
            raise ValueError("arch 'bottleneck' needs the bottleneck width b")
        net = MLP(d, [width, bottleneck, width], activation=activation, seed=seed)
        return net, net
    raise ValueError(f"arch must be one of {ARCHS}, got {arch!r}")


def gd_step(arch: str, base, X, lr_scale: float) -> float:
    """The chapter's GD step eta = lr_scale / (g^2 lambda_max(K(w_0))), K the base network's kernel on X and
    g = :data:`~lib.chapters.non_constancy.nets.SUP_DERIV` of the output (see the module docstring).

    Args:
        arch: one of :data:`~lib.chapters.non_constancy.nets.ARCHS`.
        base: the base MLP (the second value of :func:`build`).
        X: the training inputs.
        lr_scale: the step factor.

    Returns:
        eta.
    """
    return lr_scale / (SUP_DERIV[arch] ** 2 * extreme_eigenvalues(empirical_ntk(base, X)).lambda_max)


def flat_weights(model) -> torch.Tensor:
    """All trainable weights of ``model`` in one flat vector (a detached copy), in ``parameters()`` order."""
    return torch.cat([p.detach().reshape(-1).clone() for p in model.parameters()])


class OutputSlopeTracker:
    """GD callback recording, at every step, the smallest slope of the output function met on the training inputs:
    ``min_i sigma_min(J_phi(f(x_i)))``, J_phi the Jacobian of phi at the base outputs (``|phi'(f(x_i))|`` for swish; for
    softmax, whose Jacobian diag(p) - p p^T annihilates the all-ones direction, 0), 1 for a linear output. It is
    [LZB] Thm 5.1's premise, "the derivative of the activation function is separated from zero", read along the
    path GD takes.

    Attributes:
        X: the training inputs.
        values: one value per step, in order.
    """

    def __init__(self, X) -> None:
        self.X = X
        self.values: list[float] = []
        self.f0 = None   # the base outputs at the first step: a centred output's reference, computed once

    def __call__(self, model, step: int, last: bool = False) -> None:
        if last and len(self.values) > step:
            return
        if not isinstance(model, OutputWrapped):
            self.values.append(1.0)
            return
        with torch.no_grad():
            f = model.net(model.prepare(self.X))
            if self.f0 is None:
                self.f0 = model.base_output(model.prepare(self.X)) - f if model.center else torch.zeros_like(f)
            J = output_jacobians(model.output, f + self.f0)
        self.values.append(float(torch.linalg.svdvals(J)[:, -1].min()))


def train_tracked(arch: str, data: dict, width: int, seed: int, activation: str = "tanh",
                  bottleneck: int | None = None, max_steps: int = 3000, rel_tol: float = 1e-4,
                  track_every: int = 10, lr_scale: float = 1.0) -> dict:
    """Train one net by full-batch GD to L <= rel_tol L(0), tracking the kernel change ([LZB] Sec. 4-5).

    Returns a dict: ``delta_K`` (max_t ||K_t - K_0||_F / ||K_0||_F), ``kernel_steps``/``kernel_change``
    (the tracked curve), ``loss`` (per step), ``steps``, ``converged``, ``lr``, ``weight_move``
    (||w_T - w_0||_2), ``weight_max`` (``max_i |w_T,i - w_0,i|``, the largest move of one weight),
    ``weight_max_layers`` (the same per weight matrix, input layer first), ``lambda_min`` (the PL constant:
    smallest non-trivial eigenvalue of the model's kernel at each tracked step, see
    :class:`lib.finite.training.KernelTracker`) and ``output_slope`` (the smallest slope of the output function on
    the inputs at every step, :class:`OutputSlopeTracker`: [LZB] Thm 5.1's premise).

    Args:
        arch: one of :data:`~lib.chapters.non_constancy.nets.ARCHS`.
        data: :func:`lib.data.synthetic_regression` output.
        width: hidden width m.
        seed: weight seed.
        activation: hidden activation.
        bottleneck: the bottleneck width b (``arch="bottleneck"`` only).
        max_steps: cap on GD steps.
        rel_tol: stop once L <= rel_tol L(0).
        track_every: GD steps between kernel evaluations.
        lr_scale: the step is lr_scale / (g^2 lambda_max(K(w_0))).

    Returns:
        The dict described above.
    """
    seed = check_seed(seed)
    X = data["X"]
    y = data["y_soft"] if arch == "softmax" else data["y"]
    k = data["y_soft"].shape[1]
    model, base = build(arch, X.shape[1], width, seed, activation, k, bottleneck)
    lr = gd_step(arch, base, X, lr_scale)
    w0 = [p.detach().clone() for p in model.parameters()]
    tracker = KernelTracker(X, every=track_every, null_dim=X.shape[0] if arch == "softmax" else 0)
    slopes = OutputSlopeTracker(X)

    def both(m, t, last=False):
        tracker(m, t, last=last)
        slopes(m, t, last=last)

    res = gd_train(model, X, y, lr, max_steps, "square", rel_tol=rel_tol, callback=both, progress=False)
    moves = [(p.detach() - p0).reshape(-1) for p, p0 in zip(model.parameters(), w0)]
    layer_max = [float(v.abs().max()) for v in moves]
    return dict(arch=arch, width=width, bottleneck=bottleneck, seed=seed, delta_K=tracker.max_change,
                kernel_steps=np.asarray(tracker.steps), kernel_change=np.asarray(tracker.changes),
                loss=res["loss"], steps=res["steps"], converged=res["converged"], lr=lr,
                weight_move=float(torch.cat(moves).norm()), weight_max=max(layer_max),
                weight_max_layers=np.asarray(layer_max), lambda_min=np.asarray(tracker.lambda_min),
                output_slope=np.asarray(slopes.values))
