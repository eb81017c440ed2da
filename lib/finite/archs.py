"""Two architectures beyond the MLP, in the NTK parameterization, for [LZB] Sec. 3.3.3 / App. G.

- :class:`Conv1dNet`: a 1-D CNN on the input read as a one-channel signal of d pixels; two circular
  convolutions of ``width`` channels (filter size q), then a linear output over every channel and pixel. The width
  is the number of channels; the spatial size d stays fixed ([LZB] App. G.1).
- :class:`ResMLP`: a fully connected residual net, alpha^(1) = sigma(W1 x), then
  alpha^(l) = alpha^(l-1) + sigma(W_l alpha^(l-1) / sqrt(m)) (a skip connection at every layer, as [LZB] App. G.2
  define it), and a linear output f = v . alpha^(L) / sqrt(m).

All weights are i.i.d. N(0, 1) (a private generator), float64, no biases; the 1/sqrt(fan-in) factors are in the
layer functions. Inputs are rows of X (unit norm in the book, so the first layer needs no 1/sqrt(d)).
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from lib.activations import get_activation
from lib.validation import InputError, as_tensor, check_int, check_seed, positive_int

__all__ = ["Conv1dNet", "ResMLP"]


def _weights(shapes, seed: int) -> nn.ParameterList:
    gen = torch.Generator().manual_seed(check_seed(seed))
    return nn.ParameterList([nn.Parameter(torch.randn(*s, generator=gen, dtype=torch.float64)) for s in shapes])


class _Net(nn.Module):
    out_dim = 1

    def prepare(self, X, name: str = "X") -> torch.Tensor:
        """X as a float64 tensor of shape (n, d), validated (:func:`lib.validation.as_tensor`)."""
        return as_tensor(X, self.in_dim, dtype=torch.float64, device="cpu", name=name)


class Conv1dNet(_Net):
    """A 1-D CNN with two circular convolution layers of ``width`` channels and a linear output ([LZB] App. G.1).

    h1 = W1 * x / sqrt(q), h2 = W2 * sigma(h1) / sqrt(width q), f = <V, sigma(h2)> / sqrt(width d), with ``*`` the
    circular convolution (filter size q) and V a width x d matrix.

    Args:
        in_dim: pixels d of the one-channel input signal.
        width: channels of both hidden layers.
        activation: hidden activation (registry name).
        seed: weight seed.
        kernel_size: filter size q (odd).
    """

    def __init__(self, in_dim: int, width: int, activation: str = "tanh", seed: int = 0, kernel_size: int = 3):
        super().__init__()
        in_dim, width = positive_int(in_dim, "in_dim"), positive_int(width, "width")
        kernel_size = positive_int(kernel_size, "kernel_size")
        if kernel_size % 2 == 0 or kernel_size > in_dim:
            raise InputError(f"kernel_size must be odd and at most in_dim = {in_dim}, got {kernel_size}")
        self.in_dim, self.width, self.q = in_dim, width, kernel_size
        self.activation = get_activation(activation)
        self.weights = _weights([(width, 1, kernel_size), (width, width, kernel_size), (width, in_dim)], seed)

    def _conv(self, a: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
        p = self.q // 2
        patches = F.pad(a, (p, p), mode="circular").unfold(2, self.q, 1)  # (n, C_in, d, q)
        return torch.einsum("nipq,oiq->nop", patches, W) / math.sqrt(W.shape[1] * self.q)

    def forward(self, X) -> torch.Tensor:
        """f(X), shape (n,)."""
        x = X.unsqueeze(1)  # (n, 1, d)
        a1 = self.activation(self._conv(x, self.weights[0]))
        a2 = self.activation(self._conv(a1, self.weights[1]))
        return (a2 * self.weights[2]).sum(dim=(1, 2)) / math.sqrt(self.width * self.in_dim)


class ResMLP(_Net):
    """A residual MLP with a skip connection at every hidden layer after the first ([LZB] App. G.2).

    Args:
        in_dim: input dimension d.
        width: hidden width m.
        depth: hidden layers L (at least 2: one input layer and L - 1 residual layers).
        activation: hidden activation (registry name).
        seed: weight seed.
    """

    def __init__(self, in_dim: int, width: int, depth: int = 3, activation: str = "tanh", seed: int = 0):
        super().__init__()
        in_dim, width = positive_int(in_dim, "in_dim"), positive_int(width, "width")
        depth = check_int(depth, "depth", 2, meaning="hidden layers: one input layer and at least one residual layer")
        self.in_dim, self.width, self.depth = in_dim, width, depth
        self.activation = get_activation(activation)
        self.weights = _weights([(width, in_dim)] + [(width, width)] * (depth - 1) + [(1, width)], seed)

    def forward(self, X) -> torch.Tensor:
        """f(X), shape (n,)."""
        s = 1 / math.sqrt(self.width)
        a = self.activation(X @ self.weights[0].T)
        # weights by index, not a slice: a slice copies the ParameterList, which wraps the tensors torch.func swaps
        # in into new Parameters, so a Jacobian by functional_call would miss the residual layers
        for l in range(1, self.depth):
            a = a + self.activation(s * (a @ self.weights[l].T))
        return s * (a @ self.weights[self.depth].T).squeeze(-1)
