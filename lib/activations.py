"""Activation functions and their Gaussian constants.

Every activation the book uses lives here once, in three forms: a torch function (for
the networks), a numpy function and its derivative (for the infinite-width recursions
of :mod:`lib.theory`). The scale constant ``c_s = 1 / E[s(z)^2]`` (z ~ N(0, 1)) of
[LH] Eq. (1) is computed by adaptive quadrature, never typed in, except where a closed
form exists (ReLU: 2, identity: 1, ReLU^2: 2/3).

Normalized activations ([AAK] Sec. 2) are centred and scaled so that E[s(z)] = 0 and
E[s(z)^2] = 1; their ``c_s`` is therefore 1.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

import numpy as np
import torch
from scipy import integrate, optimize, special

from lib.validation import InputError, InputTypeError, check_real

__all__ = [
    "Activation",
    "ACTIVATIONS",
    "get_activation",
    "gaussian_expectation",
    "normalized",
    "normrelu",
    "normalization_constants",
    "scale_constant",
    "AAK_NORMRELU_LAMBDA",
    "AAK_EXTRA",
    "aak_activation",
    "SELU_ALPHA",
    "SELU_SCALE",
    "LEAKY_SLOPE",
    "SHIFTED_RELU_SHIFT",
    "normrelu_lambda",
    "NORMRELU_B_RANGE",
    "normrelu_constants",
    "selu_constants",
    "shifted_relu",
    "offset_activation",
]

NpFn = Callable[[np.ndarray], np.ndarray]
TorchFn = Callable[[torch.Tensor], torch.Tensor]

_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def gaussian_expectation(fn: Callable[[float], float], kinks: tuple[float, ...] = ()) -> float:
    """E[fn(z)] for z ~ N(0, 1) by adaptive quadrature, split at the kinks of ``fn``.

    Accurate to ~1e-13 for the piecewise-smooth functions used here, where a fixed
    Gauss-Hermite rule converges only algebraically across a kink.
    """
    pts = sorted(set(float(k) for k in kinks))
    edges = [-np.inf, *pts, np.inf]
    total = 0.0
    for a, b in zip(edges[:-1], edges[1:]):
        val, _ = integrate.quad(
            lambda z: fn(z) * _INV_SQRT_2PI * math.exp(-0.5 * z * z), a, b,
            epsabs=1e-14, epsrel=1e-13, limit=200,
        )
        total += val
    return total


@dataclass(frozen=True)
class Activation:
    """One activation s with the constants [LH] Eq. (1) and [AAK] need.

    Attributes:
        name: registry name (e.g. ``"relu"``, ``"norm_tanh"``).
        torch_fn: s on tensors (used by :class:`lib.finite.mlp.MLP`).
        torch_deriv: s' on tensors, or None (then :meth:`deriv` uses autograd).
        np_fn, np_deriv: s and s' on numpy arrays (used by :mod:`lib.theory`).
        c: the scale c_s = 1 / E[s(z)^2] ([LH] Sec. 2).
        kinks: points where s or s' is not smooth (for accurate quadrature).
        homogeneous: degree k if s(a z) = a^k s(z) for a > 0, else None.
    """

    name: str
    torch_fn: TorchFn = field(repr=False)
    np_fn: NpFn = field(repr=False)
    np_deriv: NpFn = field(repr=False)
    c: float
    kinks: tuple[float, ...] = ()
    homogeneous: int | None = None
    torch_deriv: TorchFn | None = field(default=None, repr=False)

    def __call__(self, z: torch.Tensor) -> torch.Tensor:
        return self.torch_fn(z)

    def deriv(self, z: torch.Tensor) -> torch.Tensor:
        """s'(z) on tensors, elementwise.

        Args:
            z: a tensor of pre-activations.

        Returns:
            ``torch_deriv(z)`` when the activation has a closed-form derivative, else the derivative
            of ``torch_fn`` by autograd (detached, same shape as ``z``).
        """
        if self.torch_deriv is not None:
            return self.torch_deriv(z)
        with torch.enable_grad():
            zz = z.detach().requires_grad_(True)
            (g,) = torch.autograd.grad(self.torch_fn(zz).sum(), zz)
        return g

    def moment(self, fn: Callable[[float], float]) -> float:
        """E[fn(z)] for z ~ N(0,1), split at this activation's kinks."""
        return gaussian_expectation(fn, self.kinks)

    @property
    def mean(self) -> float:
        """E[s(z)], z ~ N(0, 1)."""
        return self.moment(lambda z: float(self.np_fn(np.float64(z))))

    @property
    def second_moment(self) -> float:
        """E[s(z)^2], z ~ N(0, 1)."""
        return self.moment(lambda z: float(self.np_fn(np.float64(z))) ** 2)


def _phi(z):
    return _INV_SQRT_2PI * np.exp(-0.5 * np.asarray(z) ** 2)


def _Phi(z):
    return 0.5 * (1.0 + special.erf(np.asarray(z) / _SQRT2))


def _sigmoid(z):
    return special.expit(z)


def _c_from(np_fn: NpFn, kinks: tuple[float, ...] = ()) -> float:
    """c_s = 1 / E[s(z)^2] ([LH] Eq. 1): the one computation of the scale constant.

    Raises:
        lib.validation.InputError: E[s(z)^2] is zero or overflows (no scale makes the second moment 1).
    """
    with np.errstate(over="ignore"):
        second = gaussian_expectation(lambda z: float(np_fn(np.float64(z))) ** 2, kinks)
    if not (math.isfinite(second) and second > 0):
        raise InputError(f"E[s(z)^2] = {second:g} under N(0, 1): no finite scale c_s gives the activation unit "
                         "second moment (is it zero, or does it overflow?)")
    return 1.0 / second


def _mean_sd(np_fn: NpFn, kinks: tuple[float, ...] = ()) -> tuple[float, float]:
    """(E s, sd s) for z ~ N(0, 1): the one computation of the normalization constants ([AAK] Eq. 2)."""
    mean = gaussian_expectation(lambda z: float(np_fn(np.float64(z))), kinks)
    var = gaussian_expectation(lambda z: (float(np_fn(np.float64(z))) - mean) ** 2, kinks)
    return mean, math.sqrt(var) if var > 0 else 0.0


def _swish_deriv(z: torch.Tensor) -> torch.Tensor:
    """swish'(z) = s(z) (1 + z (1 - s(z))), s = sigmoid."""
    s = torch.sigmoid(z)
    return s * (1 + z * (1 - s))


def _make_base() -> dict[str, Activation]:
    acts: dict[str, Activation] = {}
    acts["linear"] = Activation(
        "linear", lambda z: z, lambda z: np.asarray(z, dtype=float),
        lambda z: np.ones_like(np.asarray(z, dtype=float)), c=1.0, homogeneous=1,
    )
    acts["relu"] = Activation(
        "relu", torch.relu, lambda z: np.maximum(z, 0.0),
        lambda z: (np.asarray(z) > 0).astype(float), c=2.0, kinks=(0.0,), homogeneous=1,
    )
    acts["relu2"] = Activation(
        "relu2", lambda z: torch.relu(z) ** 2, lambda z: np.maximum(z, 0.0) ** 2,
        lambda z: 2.0 * np.maximum(z, 0.0), c=2.0 / 3.0, kinks=(0.0,), homogeneous=2,
    )
    gelu_np = lambda z: np.asarray(z) * _Phi(z)  # noqa: E731
    acts["gelu"] = Activation(
        "gelu", lambda z: torch.nn.functional.gelu(z), gelu_np,
        lambda z: _Phi(z) + np.asarray(z) * _phi(z), c=_c_from(gelu_np),
    )
    acts["tanh"] = Activation(
        "tanh", torch.tanh, np.tanh, lambda z: 1.0 - np.tanh(z) ** 2, c=_c_from(np.tanh),
    )
    swish_np = lambda z: np.asarray(z) * _sigmoid(z)  # noqa: E731
    acts["swish"] = Activation(
        "swish", lambda z: z * torch.sigmoid(z), swish_np,
        lambda z: _sigmoid(z) * (1.0 + np.asarray(z) * (1.0 - _sigmoid(z))), c=_c_from(swish_np),
        torch_deriv=_swish_deriv,
    )
    return acts


_BASE = _make_base()


def normalized(base: Activation | str, shift: float | None = None) -> Activation:
    """The normalized version of ``base``: (s - E s) / sd(s), so E = 0, E[.^2] = 1 ([AAK] Sec. 2).

    Args:
        base: an activation or its registry name.
        shift: only for ``relu``: use max(z, shift) instead of max(z, 0) (NormReLU of [AAK]), shift in
            :data:`NORMRELU_B_RANGE`; its mean and sd are then the closed forms of :func:`normrelu_constants`.
    """
    base = _BASE[base] if isinstance(base, str) else base
    if shift is not None and base.name != "relu":
        raise InputError("shift is only defined for the ReLU (NormReLU of [AAK])")
    if shift is None:
        f_np, d_np, f_t, kinks = base.np_fn, base.np_deriv, base.torch_fn, base.kinks
        name = f"norm_{base.name}"
        mean, sd = _mean_sd(f_np, kinks)
    else:
        b = _check_shift(shift, "shift")
        mean, var = _normrelu_moments(b)
        sd = math.sqrt(var)
        f_np = lambda z: np.maximum(z, b)  # noqa: E731
        d_np = lambda z: (np.asarray(z) > b).astype(float)  # noqa: E731
        f_t = lambda z: torch.clamp(z, min=b)  # noqa: E731
        kinks = (b,)
        name = f"normrelu(b={b:.6g})"
    if not sd > 0:
        raise InputError(f"activation {name} is constant under N(0,1); it cannot be normalized")
    return Activation(
        name,
        lambda z: (f_t(z) - mean) / sd,
        lambda z: (f_np(z) - mean) / sd,
        lambda z: d_np(z) / sd,
        c=1.0,
        kinks=kinks,
    )


@lru_cache(maxsize=None)
def _constants(act: Activation) -> tuple[float, float]:
    return _mean_sd(act.np_fn, act.kinks)


def normalization_constants(activation: str | Activation) -> tuple[float, float]:
    """(shift, scale) = (E s, sd s), z ~ N(0, 1), so that (s - shift) / scale is normalized ([AAK] Eq. 2).

    The same adaptive quadrature that :func:`normalized` uses (cached per activation).

    Args:
        activation: a registry name or an :class:`Activation`.

    Returns:
        ``(shift, scale)``; for an already normalized activation about ``(0, 1)``.

    Raises:
        ValueError: if s is constant under N(0, 1) (scale 0).
    """
    act = get_activation(activation)
    shift, scale = _constants(act)
    if not scale > 0:
        raise InputError(f"activation {act.name} is constant under N(0, 1); it cannot be normalized")
    return shift, scale


def scale_constant(activation: str | Activation) -> float:
    """c_s = 1 / E[s(z)^2], z ~ N(0, 1), of [LH] Eq. (1): the ``c`` the networks use.

    Args:
        activation: a registry name or an :class:`Activation`.

    Returns:
        ``get_activation(activation).c`` (closed forms for ReLU 2, ReLU^2 2/3, identity 1; 1 for normalized
        activations; adaptive quadrature otherwise).
    """
    return get_activation(activation).c


#: [AAK] choose the NormReLU shift b so that the scale lambda_b is about 1.0507.
AAK_NORMRELU_LAMBDA = 1.0507


#: the NormReLU shifts b with closed forms accurate to 3e-12 (tested against 400-digit evaluations); beyond
#: ``|b|`` = 37 the density phi(b) leaves float64's normal range, and with it the mean (b < 0) or the variance
#: (b > 0) of max(z, b)
NORMRELU_B_RANGE = (-37.0, 37.0)
#: from this t on, 1 - t R(t) (R: Mills' ratio) is summed from its asymptotic series (40 terms), below it from
#: ``erfcx`` (whose cancellation costs at most t^2 eps)
_MILLS_SERIES_FROM = 10.0


def _mills_deficit(t: float) -> float:
    """1 - t R(t) for t >= 0, R(t) = (1 - Phi(t)) / phi(t) (Mills' ratio), without cancellation at large t."""
    if t < _MILLS_SERIES_FROM:
        return 1.0 - t * math.sqrt(math.pi / 2.0) * float(special.erfcx(t / _SQRT2))
    total, dfact = 0.0, 1.0
    for k in range(1, 41):  # 1 - t R(t) = sum_k (-1)^(k+1) (2k - 1)!! / t^(2k)
        dfact *= 2 * k - 1
        total += (-1) ** (k + 1) * dfact / t ** (2 * k)
    return total


def _check_shift(b, name: str = "b") -> float:
    return check_real(b, name, low=NORMRELU_B_RANGE[0], high=NORMRELU_B_RANGE[1])


def _normrelu_moments(b: float) -> tuple[float, float]:
    """(E[max(z, b)], Var[max(z, b)]), z ~ N(0, 1), in closed form without cancellation.

    With p = phi(b) and A(t) = 1 - t R(t): for b > 0, max(z, b) = b + (z - b)_+ with E[(z - b)_+] = p A(b) and
    E[(z - b)_+^2] = p (R(b) - b A(b)); for b <= 0, the mean is p + b Phi(b) = p A(-b) and the second moment
    1 - Phi(b) + b p A(-b).
    """
    p = float(_phi(b))
    if b > 0:
        A = _mills_deficit(b)
        R = math.sqrt(math.pi / 2.0) * float(special.erfcx(b / _SQRT2))
        return b + p * A, p * (R - b * A - p * A * A)
    mean = p * _mills_deficit(-b)
    return mean, float(special.ndtr(-b)) + b * mean - mean * mean


def _normrelu_lambda(b: float) -> float:
    """lambda_b = 1 / sd(max(z, b)) in closed form (z ~ N(0,1))."""
    return 1.0 / math.sqrt(_normrelu_moments(b)[1])


def normrelu(b: float | None = None) -> Activation:
    """NormReLU of [AAK]: s_b(z) = lambda_b (max(z, b) - c_b), c_b = phi(b) + b Phi(b).

    With ``b=None`` the shift is solved for so that lambda_b = 1.0507 as in [AAK]; else b in
    :data:`NORMRELU_B_RANGE`.
    """
    if b is not None:
        b = _check_shift(b)
    else:
        b = optimize.brentq(lambda t: _normrelu_lambda(t) - AAK_NORMRELU_LAMBDA, -8.0, 0.0, xtol=1e-14)
    return normalized("relu", shift=b)


def _make_registry() -> dict[str, Activation]:
    reg = dict(_BASE)
    for name in ("relu", "relu2", "gelu", "tanh", "swish"):
        reg[f"norm_{name}"] = normalized(name)
    reg["normrelu"] = normrelu()
    return reg


#: Every activation available by name. ``normrelu`` is [AAK]'s NormReLU (lambda_b = 1.0507);
#: ``norm_X`` is X centred and scaled to unit second moment.
ACTIVATIONS: dict[str, Activation] = _make_registry()


def get_activation(activation: str | Activation) -> Activation:
    """Look up an activation by name (or pass an :class:`Activation` through).

    Raises:
        ValueError: naming the unknown activation and listing the known ones.
    """
    if isinstance(activation, Activation):
        return activation
    if not isinstance(activation, str):
        raise InputTypeError(f"activation must be a name or an Activation, got {type(activation).__name__}")
    key = activation.strip().lower()
    if key not in ACTIVATIONS:
        raise InputError(
            f"unknown activation {activation!r}; known activations: {', '.join(sorted(ACTIVATIONS))}"
        )
    return ACTIVATIONS[key]


# ---- activations of [AAK]'s appendices that the networks of the book do not use (App. C.4, D, H) ----------------

#: SELU's constants (Klambauer et al. 2017), the activation [AAK] App. D.4 names among the convex-concave ones.
SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805

#: The slope of leaky ReLU on z < 0 used for [AAK] App. D.4's list (any slope in (0, 1) is convex-concave).
LEAKY_SLOPE = 0.1

#: The shift s of [AAK] App. D.4's counterexample, ReLU "with a little shift", max(z - s, 0).
SHIFTED_RELU_SHIFT = 0.1


def _exp_np(z):
    return np.exp(np.minimum(z, 40.0))  # e^z, capped where the Gaussian weight e^{-z^2/2} is below 1e-300


def _extra(name: str) -> Activation:
    z0 = lambda z: np.zeros_like(np.asarray(z, dtype=float))  # noqa: E731
    s = SHIFTED_RELU_SHIFT
    table = {
        "hermite2": (lambda z: (z * z - 1) / _SQRT2, lambda z: (np.asarray(z) ** 2 - 1) / _SQRT2,
                     lambda z: _SQRT2 * np.asarray(z), ()),
        "step": (lambda z: (z > 0).to(z.dtype), lambda z: (np.asarray(z) > 0).astype(float), z0, (0.0,)),
        "exp": (torch.exp, _exp_np, _exp_np, ()),
        "leaky_relu": (lambda z: torch.nn.functional.leaky_relu(z, LEAKY_SLOPE),
                       lambda z: np.where(np.asarray(z) > 0, z, LEAKY_SLOPE * np.asarray(z)),
                       lambda z: np.where(np.asarray(z) > 0, 1.0, LEAKY_SLOPE), (0.0,)),
        "selu": (torch.selu,
                 lambda z: SELU_SCALE * np.where(np.asarray(z) > 0, z, SELU_ALPHA * np.expm1(np.minimum(z, 0.0))),
                 lambda z: SELU_SCALE * np.where(np.asarray(z) > 0, 1.0, SELU_ALPHA * np.exp(np.minimum(z, 0.0))),
                 (0.0,)),
        "sigmoid_centred": (lambda z: torch.sigmoid(z) - 0.5, lambda z: _sigmoid(z) - 0.5,
                            lambda z: _sigmoid(z) * (1.0 - _sigmoid(z)), ()),
        "arctan": (torch.atan, np.arctan, lambda z: 1.0 / (1.0 + np.asarray(z) ** 2), ()),
        "shifted_relu": (lambda z: torch.relu(z - s), lambda z: np.maximum(np.asarray(z) - s, 0.0),
                         lambda z: (np.asarray(z) > s).astype(float), (s,)),
    }
    tf, f, d, kinks = table[name]
    return Activation(name, tf, f, d, c=_c_from(f, kinks), kinks=kinks)


#: The names :func:`aak_activation` knows: the 2nd Hermite polynomial (z^2 - 1)/sqrt 2, the step 1(z > 0) and e^z of
#: [AAK] App. C.4's table; leaky ReLU, SELU, the centred sigmoid sigmoid(z) - 1/2 and arctan of App. D.4's list;
#: ReLU shifted by :data:`SHIFTED_RELU_SHIFT`, App. D.4's counterexample.
AAK_EXTRA = ("hermite2", "step", "exp", "leaky_relu", "selu", "sigmoid_centred", "arctan", "shifted_relu")


@lru_cache(maxsize=None)
def aak_activation(name: str) -> Activation:
    """An activation of [AAK]'s appendices (:data:`AAK_EXTRA`, which the networks do not use) or of the registry.

    Args:
        name: one of :data:`AAK_EXTRA` or of :data:`ACTIVATIONS`.

    Returns:
        The :class:`Activation` (one object per name, so that its cached dual-kernel tables are reused); those of
        :data:`AAK_EXTRA` have their scale constant ``c`` by quadrature and are not normalized (pass them to
        :func:`normalized` for that).

    Raises:
        InputError: an unknown name (the message lists both).
    """
    if name in ACTIVATIONS:
        return ACTIVATIONS[name]
    if name not in AAK_EXTRA:
        raise InputError(f"unknown activation {name!r}; known: {', '.join(AAK_EXTRA)}, {', '.join(ACTIVATIONS)}")
    return _extra(name)


def normrelu_lambda(b: float) -> float:
    """lambda_b = 1 / sd(max(z, b)), z ~ N(0, 1), in closed form ([AAK] App. I), the scale of :func:`normrelu`.

    Args:
        b: the shift, in :data:`NORMRELU_B_RANGE`.
    """
    return _normrelu_lambda(_check_shift(b))


# ---- [AAK] Sec 3.4 and Sec 7: uncentred ReLU variants, NormReLU's closed-form constants, SELU's constants


def normrelu_constants(b: float) -> tuple[float, float]:
    """(c_b, lambda_b) of NormReLU in closed form ([AAK] Sec 7, App. I): c_b = E[max(z, b)] = phi(b) + b Phi(b),
    lambda_b = 1 / sd(max(z, b)), z ~ N(0, 1).

    Args:
        b: the location of the kink, in :data:`NORMRELU_B_RANGE`.

    Returns:
        ``(c_b, lambda_b)``; lambda_b(b) (sd(max(z, b)))^(-1) increases from 1 (b -> -inf) to 1.713 (b = 0).
    """
    mean, var = _normrelu_moments(_check_shift(b))
    return mean, 1.0 / math.sqrt(var)


def selu_constants() -> tuple[float, float]:
    """(alpha, lambda) of SELU, lambda (z if z > 0 else alpha (e^z - 1)), from its normalization conditions
    E[s(z)] = 0 and E[s(z)^2] = 1, z ~ N(0, 1) (the conditions [AAK] Eq. 2 impose on NormReLU).

    E[s] = 0 fixes alpha = E[z; z > 0] / E[1 - e^z; z < 0] = phi(0) / (1/2 - e^(1/2) Phi(-1)); E[s^2] = 1 then
    fixes lambda by quadrature. Nothing is typed in: the values 1.6733 and 1.0507 follow.

    Returns:
        ``(alpha, lambda)``.
    """
    alpha = float(_phi(0.0)) / (0.5 - math.exp(0.5) * float(_Phi(-1.0)))
    second = gaussian_expectation(lambda z: (z if z > 0 else alpha * math.expm1(z)) ** 2, (0.0,))
    return alpha, 1.0 / math.sqrt(second)


def shifted_relu(b: float) -> Activation:
    """max(z, b), an uncentred ReLU with its kink at ``b`` ([AAK] Sec. 3.4); its ``c`` = 1 / E[max(z, b)^2] gives
    unit second moment (the normalization [AAK] Thm 3.10 assumes), its mean stays non-zero.

    Args:
        b: the kink.

    Returns:
        The :class:`Activation` (name ``"max(z, b)"``; no closed-form kernel, quadrature at the kink).
    """
    b = check_real(b, "b")
    f_np = lambda z: np.maximum(z, b)  # noqa: E731
    return Activation(f"max(z, {b:g})", lambda z: torch.clamp(z, min=b), f_np,
                      lambda z: (np.asarray(z) > b).astype(float), c=_c_from(f_np, (b,)), kinks=(b,))


def offset_activation(base: Activation | str, a: float) -> Activation:
    """s(z) + a, an activation moved off centre by ``a`` ([AAK] Sec. 3.4), with ``c`` = 1 / E[(s + a)^2] (unit
    second moment, non-zero mean).

    Args:
        base: an activation or its registry name (e.g. ``"normrelu"``).
        a: the offset.

    Returns:
        The :class:`Activation` (name ``"<base> + a"``).
    """
    base = get_activation(base)
    a = check_real(a, "a")
    f_np = lambda z: base.np_fn(z) + a  # noqa: E731
    return Activation(f"{base.name} + {a:g}", lambda z: base.torch_fn(z) + a, f_np, base.np_deriv,
                      c=_c_from(f_np, base.kinks), kinks=base.kinks, torch_deriv=base.torch_deriv)
