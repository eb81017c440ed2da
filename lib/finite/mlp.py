"""Multi-layer perceptrons in the NTK parameterization of [LH] Eq. (1).

    a^(0)(x) = x
    a^(l)(x) = sqrt(c_s / m_l) * s(W^(l) a^(l-1)(x)),   l = 1..L
    f(x)     = W^(L+1) a^(L)(x)

All weights are i.i.d. N(0, 1); there are no biases. ``depth`` is L, the number of hidden
layers; ``depth=0`` is the linear model f(x) = W x whose NTK is the Gram matrix X X^T.
"""
from __future__ import annotations

import math
from typing import Sequence

import torch
from torch import nn

from lib.activations import Activation, get_activation
from lib.validation import (InputError, as_tensor, check_device, check_dtype, check_int, check_memory, check_seed,
                            positive_int)

__all__ = ["MLP"]


class MLP(nn.Module):
    """A bias-free MLP in NTK parameterization ([LH] Eq. 1), scalar output by default.

    Args:
        in_dim: input dimension d.
        width: hidden width m (an int), or a sequence of L per-layer widths
            (e.g. a bottleneck ``[4096, 16, 4096]``; then ``depth`` may be omitted).
        depth: number of hidden layers L >= 0 (0 = linear model).
        activation: a name from :data:`lib.activations.ACTIVATIONS` or an
            :class:`~lib.activations.Activation`; ``"linear"`` gives the linear network.
        seed: seed of the N(0, 1) weight draw, in [0, 2**63 - 1] (a private generator; global RNG untouched).
        dtype, device: of the weights. ``dtype`` must be torch.float32 or torch.float64 (ValueError
            otherwise); ``device`` may be ``"cpu"`` or an available CUDA device.
        out_dim: output width (1 gives outputs of shape (n,)).

    Raises:
        lib.validation.InputTypeError: (a TypeError) non-integer or bool ``in_dim``, ``width``,
            ``depth``, ``out_dim`` or ``seed``.
        lib.validation.InputError: (a ValueError) non-positive sizes, negative ``depth``, a seed out of range,
            or weights larger than the available memory (``MemAvailable`` of /proc/meminfo; estimated before
            anything is allocated, the message gives the estimate, the limit and ``width``).

    ``weights[l-1]`` is W^(l), of shape (m_l, m_{l-1}), l = 1..L+1.
    """

    def __init__(
        self,
        in_dim: int,
        width: int | Sequence[int],
        depth: int | None = None,
        activation: str | Activation = "relu",
        seed: int = 0,
        dtype: torch.dtype = torch.float64,
        device: str | torch.device = "cpu",
        out_dim: int = 1,
    ) -> None:
        super().__init__()
        widths = _check_shape(in_dim, width, depth, out_dim)
        check_dtype(dtype)
        self.activation = get_activation(activation)
        self.device_ = check_device(device)
        seed = check_seed(seed)
        self.in_dim = int(in_dim)
        self.hidden = tuple(widths)
        self.depth = len(widths)
        self.out_dim = int(out_dim)
        self.seed = int(seed)
        dims = (self.in_dim, *self.hidden, self.out_dim)
        n_params = sum(dims[i] * dims[i + 1] for i in range(len(dims) - 1))
        itemsize = torch.empty((), dtype=dtype).element_size()
        if self.device_.type == "cpu":
            check_memory(n_params * itemsize,
                         f"MLP weights ({n_params:,} parameters, in_dim={self.in_dim}, width={width!r}, "
                         f"depth={self.depth}, {str(dtype).replace('torch.', '')})",
                         "reduce width (or depth)")
        gen = torch.Generator(device="cpu").manual_seed(self.seed)
        self.weights = nn.ParameterList(
            nn.Parameter(torch.randn(dims[i + 1], dims[i], generator=gen, dtype=dtype).to(self.device_))
            for i in range(len(dims) - 1)
        )
        #: sqrt(c_s / m_l) for l = 1..L
        self.scales = tuple(math.sqrt(self.activation.c / m) for m in self.hidden)

    @property
    def dtype(self) -> torch.dtype:
        return self.weights[0].dtype

    @property
    def width(self) -> int | tuple[int, ...]:
        """The hidden width m if all layers share it, else the tuple of widths."""
        return self.hidden[0] if len(set(self.hidden)) == 1 else self.hidden

    def extra_repr(self) -> str:
        return (f"in_dim={self.in_dim}, hidden={list(self.hidden)}, out_dim={self.out_dim}, "
                f"activation={self.activation.name}, seed={self.seed}")

    def prepare(self, X, name: str = "X") -> torch.Tensor:
        """Validate X (shape (n, in_dim), real, finite) and move it to this model's dtype and device.

        Args:
            X: the inputs.
            name: the parameter's name, for the message.

        Raises:
            lib.validation.InputError: bad X, or weights no longer float32/float64 (e.g. after ``.half()``).
        """
        check_dtype(self.dtype, "the MLP's weight dtype (changed after construction, e.g. by .half()?)")
        return as_tensor(X, self.in_dim, dtype=self.dtype, device=self.device_, name=name)

    def check_weights(self) -> None:
        """Refuse weights that are not all float32/float64 of one dtype, or not finite.

        A kernel of such weights would be silently wrong: a float16 kernel after ``.half()``, or an all-NaN
        kernel after a diverged training step.

        Raises:
            lib.validation.InputError: naming the layer W^(l) and what is wrong with it.
        """
        for l, W in enumerate(self.weights, start=1):
            check_dtype(W.dtype, f"the dtype of W^({l}) (changed after construction, e.g. by .half()?)")
            if W.dtype != self.dtype:
                raise InputError(f"W^({l}) is {W.dtype} but W^(1) is {self.dtype}: give all weights one dtype")
            bad = int((~torch.isfinite(W.detach())).sum())
            if bad:
                raise InputError(f"W^({l}) has {bad} NaN or inf entries (a diverged training step?); "
                                 "the kernel of such weights is not defined")

    def features(self, X, keep_graph: bool = False, validate: bool = True
                 ) -> tuple[list[torch.Tensor], list[torch.Tensor], torch.Tensor]:
        """One forward pass returning (pre-activations h^(1..L+1), embeddings a^(0..L), f).

        ``h[l-1] = W^(l) a^(l-1)`` and ``a[l] = a^(l)``; the last pre-activation is the output.
        With ``keep_graph`` the pre-activations stay in the autograd graph so that
        d f / d h^(l) can be taken (used by :func:`lib.finite.ntk.empirical_ntk`). ``validate=False``
        skips the input checks (needed inside ``torch.func`` transforms, which cannot branch on data).
        """
        a = self.prepare(X) if validate else X
        hs, acts = [], [a]
        for l, W in enumerate(self.weights):
            h = self.preactivation(l, a, W)
            if keep_graph and not h.requires_grad:
                h.requires_grad_(True)
            hs.append(h)
            if l < self.depth:
                a = self.scales[l] * self.activation(h)
                acts.append(a)
        return hs, acts, hs[-1]

    def preactivation(self, l: int, a: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
        """h^(l+1) = W^(l+1) a^(l) for rows of ``a`` (0-based ``l``); subclasses may add biases."""
        return a @ W.T

    def embeddings(self, X) -> list[torch.Tensor]:
        """The layer embeddings a^(0..L)(x) of [LH] Sec. 3, as a list of (n, m_l) tensors."""
        with torch.no_grad():
            return self.features(X)[1]

    def forward(self, X, validate: bool = True) -> torch.Tensor:
        """f(X): shape (n,) for a scalar output, (n, out_dim) otherwise."""
        out = self.features(X, validate=validate)[2]
        return out.squeeze(-1) if self.out_dim == 1 else out


def _check_shape(in_dim, width, depth, out_dim) -> list[int]:
    positive_int(in_dim, "in_dim")
    positive_int(out_dim, "out_dim")
    if depth is not None:
        check_int(depth, "depth", 0, meaning="number of hidden layers")
    if isinstance(width, (list, tuple)):
        widths = [positive_int(w, "width") for w in width]
        if depth is not None and depth != len(widths):
            raise InputError(f"depth={depth} does not match the {len(widths)} widths given")
        return widths
    w = positive_int(width, "width")
    if depth is None:
        raise InputError("depth is required when width is a single integer")
    return [w] * int(depth)
