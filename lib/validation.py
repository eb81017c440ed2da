"""Input checks shared by every public function: clear messages instead of deep tracebacks."""
from __future__ import annotations

import numpy as np
import torch

__all__ = ["ShortTraceback", "InputError", "InputTypeError", "KernelOverflowError", "ResolutionWarning", "as_tensor", "check_device",
           "check_dtype", "as_matrix", "available_memory", "check_memory", "positive_int", "check_kernel_scale"]


class ShortTraceback:
    """Mixin for errors about the user's input: in a notebook (IPython) only the message is shown.

    IPython prints ``_render_traceback_()`` instead of the traceback, so a bad parameter or data
    file run through plain papermill ends with one line naming the problem, not the frames of the
    library that found it (which say nothing about what to change).
    """

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


class InputError(ShortTraceback, ValueError):
    """A bad value or shape given to a public function; the message names the parameter or file."""


class InputTypeError(InputError, TypeError):
    """An argument of the wrong type (catchable as TypeError as before, and as :class:`InputError`)."""


class KernelOverflowError(InputError):
    """A kernel whose computation overflowed (NaN/inf entries) or underflowed: refused, never returned.

    Measurements that expect it for some nets (e.g. deep ReLU^2, whose variance map squares) catch this
    class and report the net as overflowed."""


class ResolutionWarning(UserWarning):
    """A computed value lies below the resolution of the method that computed it (e.g. a gradient angle
    below ~2e-8 rad computed from the kernel): the value is an upper bound, not exact."""


def positive_int(value, name: str) -> int:
    """Return ``value`` as an int if it is a positive integer (bools, floats, strings and None refused).

    Args:
        value: the argument to check.
        name: the parameter's name, for the message.

    Returns:
        ``int(value)``.

    Raises:
        InputTypeError: not an integer (e.g. ``None``, ``"4"``, ``1.5``, ``True``).
        InputError: an integer below 1.
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InputTypeError(f"{name} must be a positive integer, got {value!r}")
    if value < 1:
        raise InputError(f"{name} must be a positive integer, got {value}")
    return int(value)


def check_kernel_scale(nonfinite: int, diag_max: float, dtype: torch.dtype | np.dtype, what: str,
                       hint: str) -> None:
    """Refuse a kernel that overflowed (NaN/inf entries) or whose scale is in the underflow range.

    A kernel whose largest diagonal entry is below ``tiny / eps`` of its dtype (about 1e-292 in float64)
    was computed through subnormal intermediate products: its leading digits are lost to underflow, so
    its eigenvalues and kappa would be wrong numbers that look fine. (An exactly zero kernel is left to the
    spectrum's own check, which names it.)

    Args:
        nonfinite: number of NaN or inf entries of the kernel (or of its diagonal).
        diag_max: the largest diagonal entry.
        dtype: the dtype the kernel was computed in.
        what: the kernel, for the message (e.g. ``"the NTK of MLP(...)"``).
        hint: what the input looks like / what to change, for the message.

    Raises:
        KernelOverflowError: (an InputError) overflow or underflow, with ``what`` and ``hint``.
    """
    fi = np.finfo(np.dtype(str(dtype).replace("torch.", "")))
    if nonfinite:
        raise KernelOverflowError(f"{what} has {nonfinite} NaN or inf entries: the computation overflowed; {hint}")
    if 0.0 < diag_max < float(fi.tiny) / float(fi.eps):
        raise KernelOverflowError(f"{what} has entries of at most {diag_max:.3g}, below the normal range of {fi.dtype} "
                         f"divided by eps ({float(fi.tiny) / float(fi.eps):.1e}): its digits are lost to underflow; "
                         f"{hint}")


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (``MemAvailable`` of /proc/meminfo), or None if unknown."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def check_memory(nbytes: int, what: str, hint: str) -> None:
    """Refuse an allocation of ``nbytes`` that exceeds the available memory (no check where it is unknown).

    Args:
        nbytes: estimated size of the allocation.
        what: what would be allocated, for the message (e.g. "the MLP weights (width=10000000, depth=2)").
        hint: the parameter to change, for the message (e.g. "reduce width").

    Raises:
        InputError: the estimate, the limit and ``hint``.
    """
    limit = available_memory()
    if limit is not None and nbytes > limit:
        raise InputError(f"{what} would need about {nbytes / 2**30:.3g} GiB but only {limit / 2**30:.3g} GiB "
                         f"of memory is available (MemAvailable in /proc/meminfo): {hint}")

#: the floating-point types the networks support (float16/bfloat16 lose the digits the kernels need)
FLOAT_DTYPES = (torch.float32, torch.float64)


def check_device(device: str | torch.device) -> torch.device:
    """Return ``torch.device(device)``, failing clearly if it is unknown or not available here."""
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise InputError(f"unknown device {device!r}: use 'cpu' or 'cuda[:i]'") from exc
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise InputError(f"device {device!r} requested but CUDA is not available on this machine; use device='cpu'")
    if dev.type == "mps" and not (hasattr(torch.backends, "mps") and torch.backends.mps.is_available()):
        raise InputError(f"device {device!r} requested but MPS (Apple GPU) is not available on this machine; "
                         "use device='cpu'")
    if dev.type == "cuda" and dev.index is not None and dev.index >= torch.cuda.device_count():
        raise InputError(f"device {device!r} requested but only {torch.cuda.device_count()} CUDA device(s) exist")
    if dev.type not in ("cpu", "cuda", "mps"):
        raise InputError(f"unsupported device {device!r}: use 'cpu' or 'cuda[:i]'")
    return dev


def check_dtype(dtype, name: str = "dtype") -> torch.dtype:
    """Return ``dtype`` if it is torch.float32 or torch.float64.

    Args:
        dtype: the requested weight dtype.
        name: the argument name used in the error message.

    Returns:
        ``dtype`` unchanged.

    Raises:
        ValueError: naming ``name`` for any other value (float16, bfloat16, integer types, strings, ...).
    """
    if not isinstance(dtype, torch.dtype) or dtype not in FLOAT_DTYPES:
        raise InputError(f"{name} must be torch.float32 or torch.float64, got {dtype!r}")
    return dtype


def as_tensor(X, in_dim: int | None = None, *, dtype=torch.float64, device="cpu", name: str = "X") -> torch.Tensor:
    """Validate a data matrix (n, d): 2-D, non-empty, finite, matching ``in_dim``."""
    if isinstance(X, torch.Tensor):
        t = X.detach() if X.requires_grad else X
    else:
        try:
            arr = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InputTypeError(f"{name} must be a numeric array of shape (n, d); got {type(X).__name__}") from exc
        t = torch.from_numpy(arr)
    if t.ndim != 2:
        raise InputError(f"{name} must have shape (n, d), got shape {tuple(t.shape)}")
    if t.shape[0] == 0:
        raise InputError(f"{name} has no rows")
    if in_dim is not None and t.shape[1] != in_dim:
        raise InputError(f"{name} has {t.shape[1]} columns but the model expects in_dim={in_dim}")
    if not torch.is_floating_point(t):
        t = t.to(torch.float64)
    bad = ~torch.isfinite(t)
    if bool(bad.any()):
        rows = torch.nonzero(bad.any(dim=1)).flatten()[:5].tolist()
        raise InputError(f"{name} contains NaN or inf values (first bad rows: {rows})")
    return t.to(dtype=dtype, device=device)


def as_matrix(K, name: str = "K", square: bool = True) -> np.ndarray:
    """Validate a kernel matrix as a finite float64 numpy array (square and symmetric if asked).

    Args:
        K: a numeric 2-D array, nested list or tensor (real: a complex matrix with imaginary parts is refused).
        name: the argument's name in messages.
        square: require a square, symmetric matrix.

    Returns:
        The matrix as float64.

    Raises:
        InputTypeError: not numeric (a string, a ragged list, objects).
        InputError: complex with non-zero imaginary parts, wrong shape, empty, NaN/inf, not symmetric.
    """
    if isinstance(K, torch.Tensor):
        K = K.detach().cpu().numpy()
    try:
        A = np.asarray(K)
    except (TypeError, ValueError) as exc:  # ragged nested lists
        raise InputTypeError(f"{name} must be a numeric 2-D array, got a {type(K).__name__} numpy cannot read as "
                             f"one (rows of different lengths, or mixed types: {type(exc).__name__})") from None
    if np.iscomplexobj(A):
        if np.any(A.imag != 0):
            raise InputError(f"{name} is complex with non-zero imaginary parts; kernels here are real symmetric "
                             "(for a Hermitian H, the real symmetric [[Re H, -Im H], [Im H, Re H]] has the same "
                             "eigenvalues, each twice)")
        A = A.real
    if A.dtype.kind not in "biuf":
        raise InputTypeError(f"{name} must be a numeric 2-D array, got {type(K).__name__} of dtype {A.dtype}")
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or (square and A.shape[0] != A.shape[1]):
        kind = "a square matrix" if square else "a 2-D matrix"
        raise InputError(f"{name} must be {kind}, got shape {A.shape}")
    if A.size == 0:
        raise InputError(f"{name} is empty")
    if not np.all(np.isfinite(A)):
        raise InputError(f"{name} contains NaN or inf entries")
    if square:
        scale = max(np.abs(A).max(), np.finfo(float).tiny)
        step = max(1, 2**22 // A.shape[0])  # row blocks: no n x n temporaries for large kernels
        asym = max(np.abs(A[i:i + step] - A[:, i:i + step].T).max() for i in range(0, A.shape[0], step)) / scale
        if asym > 1e-8:
            raise InputError(f"{name} is not symmetric (max relative asymmetry {asym:.2e})")
    return A
