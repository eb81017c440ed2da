"""Input checks shared by every public function: clear messages instead of deep tracebacks.

Each class of bad input is closed here, once, and every public function that takes such an input calls the check:

* numbers: :func:`real_array` (arrays) and :func:`check_real` (scalars) refuse complex values with a non-zero
  imaginary part (never dropped to their real part), strings and other non-numbers, NaN and inf, and values outside
  the stated range; :func:`as_data` (a data matrix X), :func:`as_tensor` (X for a network) and :func:`as_matrix`
  (a kernel K) build on them;
* sizes, depths and orders: :func:`check_int` (an integer, never a float truncated to one, within its range);
* seeds: :func:`check_seed` and :func:`check_seeds` (integers in [0, :data:`SEED_MAX`], which every generator
  here accepts);
* scale: :func:`check_kernel_scale` refuses a kernel whose digits were lost to underflow or overflow, and only
  then (:func:`subnormal_scale`).

Each raises :class:`InputError` (a ValueError) or :class:`InputTypeError` (also a TypeError) with one message that
names the parameter.
"""
from __future__ import annotations

import numpy as np
import torch

__all__ = ["ShortTraceback", "InputError", "InputTypeError", "KernelOverflowError", "ResolutionWarning", "as_tensor",
           "check_device", "check_dtype", "as_matrix", "as_data", "as_row", "real_tensor", "real_array",
           "check_real", "check_int", "positive_int", "check_seed", "check_seeds", "derived_seed", "check_labels",
           "SEED_MAX", "HALF_DTYPES", "available_memory", "check_memory", "check_kernel_scale", "subnormal_scale"]


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


def check_int(value, name: str, minimum: int = 0, maximum: int | None = None, meaning: str = "",
              span: str = "") -> int:
    """Return ``value`` as an int if it is an integer in [minimum, maximum] (sizes, depths, orders, counts).

    A float is refused even when it is integral (2.0) and never truncated (2.7 is not 2); bools, strings, complex
    numbers, NaN and None are refused too.

    Args:
        value: the argument to check (a Python or numpy integer).
        name: the parameter's name, for the message.
        minimum: the smallest value allowed (0 for a depth, 1 for a width or a count).
        maximum: the largest value allowed, or None.
        meaning: what the integer counts, for the message (e.g. ``"number of hidden layers"``).
        span: the range as the message writes it (default: from ``minimum`` and ``maximum``).

    Returns:
        ``int(value)``.

    Raises:
        InputTypeError: not an integer.
        InputError: an integer outside the range.
    """
    kind = {0: "a non-negative integer", 1: "a positive integer"}.get(minimum, f"an integer >= {minimum}")
    if maximum is not None:
        kind = f"an integer in [{minimum}, {span or maximum}]"
    what = f"{name} must be {kind}" + (f" ({meaning})" if meaning else "")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InputTypeError(f"{what}, got {value!r}")
    if value < minimum or (maximum is not None and value > maximum):
        raise InputError(f"{what}, got {value}")
    return int(value)


def positive_int(value, name: str) -> int:
    """Return ``value`` as an int if it is a positive integer (:func:`check_int` with minimum 1).

    Raises:
        InputTypeError: not an integer (e.g. ``None``, ``"4"``, ``1.5``, ``True``).
        InputError: an integer below 1.
    """
    return check_int(value, name, 1)


#: the largest seed. ``torch.Generator.manual_seed`` takes integers in [-2**63, 2**64 - 1], numpy's ``default_rng``
#: any non-negative integer, and arrays and records store a seed as an int64: a seed is an integer in [0, SEED_MAX]
SEED_MAX = 2**63 - 1


def check_seed(seed, name: str = "seed") -> int:
    """Return ``seed`` as an int if every generator here accepts it.

    That is an integer in [0, :data:`~lib.validation.SEED_MAX`].

    Args:
        seed: the seed of a weight draw, a subsample or a batch order.
        name: the parameter's name, for the message.

    Returns:
        ``int(seed)``.

    Raises:
        InputTypeError: not an integer (a float, a bool, a string, None).
        InputError: negative, or above ``SEED_MAX`` (2**63 - 1).
    """
    return check_int(seed, name, 0, SEED_MAX, "the range torch, numpy and an int64 record all hold", "2**63 - 1")


def derived_seed(seed, offset: int) -> int:
    """A seed derived from ``seed`` (checked by :func:`check_seed`) for a second stream: ``seed + offset``, wrapped
    into [0, :data:`SEED_MAX`] (unchanged for every seed below ``SEED_MAX - offset``), so that the largest seed
    still gives valid derived seeds.

    Raises:
        InputTypeError, InputError: ``seed`` is not a valid seed.
    """
    return (check_seed(seed) + int(offset)) % (SEED_MAX + 1)


def check_seeds(seeds, name: str = "seeds", count: int | None = None) -> list[int]:
    """Return ``seeds`` as a list of ints, each checked by :func:`check_seed` (``count`` of them if given).

    Raises:
        InputTypeError: not a sequence of integers.
        InputError: a seed out of range, no seeds, or not ``count`` of them.
    """
    if isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__len__"):
        raise InputTypeError(f"{name} must be a sequence of integer seeds, got {seeds!r}")
    out = [check_seed(s, f"{name}[{i}]") for i, s in enumerate(seeds)]
    if not out or (count is not None and len(out) != count):
        need = f"{count}" if count is not None else "at least one"
        raise InputError(f"{name} must hold {need} seed(s), got {len(out)}")
    return out


def check_labels(y, name: str = "y", n: int | None = None, classes: int | None = None) -> np.ndarray:
    """Class labels as an int64 array: real, 1-D, whole numbers in [0, classes) (``n`` of them if given).

    A fractional label is refused, never truncated to a class.

    Raises:
        InputTypeError: not real numbers.
        InputError: complex, NaN/inf, not 1-D, fractional, negative, too large, or not ``n`` of them.
    """
    v = real_array(y, name)
    if n is not None:
        n = check_int(n, "n", 0, meaning="the number of labels")
    if v.ndim != 1 or (n is not None and v.size != n):
        raise InputError(f"{name} must be {n if n is not None else 'a 1-D array of'} class labels, got shape {v.shape}")
    if np.any(v != np.round(v)) or (v.size and v.min() < 0):
        raise InputError(f"{name} must be whole numbers >= 0 (class labels), got values such as "
                         f"{v[(v != np.round(v)) | (v < 0)][:3].tolist()}")
    if classes is not None and v.size and v.max() >= classes:
        raise InputError(f"{name} must lie in 0..{classes - 1}, got {int(v.max())}")
    return v.astype(np.int64)


def _range_text(low, high, low_open: bool, high_open: bool) -> str:
    if low is not None and high is not None:
        return f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    if low == 0:
        return "positive" if low_open else "non-negative"
    if low is not None:
        return f"{'>' if low_open else '>='} {low:g}"
    return f"{'<' if high_open else '<='} {high:g}"


def _outside(a: np.ndarray, low, high, low_open: bool, high_open: bool) -> np.ndarray:
    bad = np.zeros(a.shape, dtype=bool)
    if low is not None:
        bad |= (a <= low) if low_open else (a < low)
    if high is not None:
        bad |= (a >= high) if high_open else (a > high)
    return bad


def real_array(value, name: str, *, finite: bool = True, low: float | None = None, high: float | None = None,
               low_open: bool = False, high_open: bool = False, complex_hint: str = "",
               keep_dtype: bool = False) -> np.ndarray:
    """``value`` (an array, a nested list, a number or a torch tensor) as a float64 numpy array of real numbers.

    Complex values are refused unless every imaginary part is exactly zero (never silently dropped); strings,
    ``None``, objects and numbers too large for float64 are refused. float16 and bfloat16 tensors convert exactly.

    Args:
        value: the input.
        name: the parameter's name, for the message.
        finite: refuse NaN and inf.
        low, high: the range the values must lie in (None: unbounded), closed unless ``low_open``/``high_open``.
        complex_hint: what to do instead, appended to the message refusing a complex value.
        keep_dtype: return a real array in its own dtype (uint8 pixels stay uint8), not as float64.

    Returns:
        A float64 array (a copy only where a conversion needs one).

    Raises:
        InputTypeError: not real numbers.
        InputError: a non-zero imaginary part, NaN or inf, or a value outside the range.
    """
    if isinstance(value, (bool, np.bool_)):  # an array of bools is 0/1 data; a lone True is a mistake
        raise InputTypeError(f"{name} must be real numbers, got {value!r}")
    if isinstance(value, torch.Tensor):
        t = value.detach().cpu()
        if t.is_complex():
            if bool((t.imag != 0).any()):
                raise InputError(_complex_message(name, complex_hint))
            t = t.real
        A = t.double().numpy() if t.is_floating_point() else t.numpy()
    else:
        try:
            A = np.asarray(value)
        except (TypeError, ValueError) as exc:  # ragged nested lists
            raise InputTypeError(f"{name} must be real numbers, got a {type(value).__name__} numpy cannot read as an "
                                 f"array (rows of different lengths, or mixed types: {type(exc).__name__})") from None
    if A.dtype.kind == "O":
        try:
            A = A.astype(np.complex128)
        except (TypeError, ValueError, OverflowError):
            raise InputTypeError(f"{name} must be real numbers, got {type(value).__name__} of objects") from None
    if A.dtype.kind == "c":
        if np.any(A.imag != 0):
            raise InputError(_complex_message(name, complex_hint))
        A = A.real
    if A.dtype.kind not in "biuf":
        raise InputTypeError(f"{name} must be real numbers, got {type(value).__name__} of dtype {A.dtype}")
    if keep_dtype and not finite and low is None and high is None:
        return A
    with np.errstate(over="ignore"):
        A = np.asarray(A, dtype=np.float64)
    if finite and not np.all(np.isfinite(A)):
        raise InputError(f"{name} contains NaN or inf values" if A.ndim else
                         f"{name} must be a finite number (not NaN or inf), got {A}")
    if (low is not None or high is not None) and np.any(_outside(A, low, high, low_open, high_open)):
        span = _range_text(low, high, low_open, high_open)
        got = f"{A:g}" if A.ndim == 0 else f"values in [{np.nanmin(A):.6g}, {np.nanmax(A):.6g}]"
        raise InputError(f"{name} must be {span}, got {got}")
    return A


def _complex_message(name: str, hint: str = "") -> str:
    return (f"{name} is complex with non-zero imaginary parts; it must be real (dropping the imaginary parts "
            f"would give a wrong answer){'; ' + hint if hint else ''}")


def check_real(value, name: str, *, low: float | None = None, high: float | None = None, low_open: bool = False,
               high_open: bool = False, finite: bool = True) -> float:
    """Return ``value`` as a float if it is one real number (finite unless ``finite=False``) within the range.

    Args:
        value: a Python, numpy or 0-d torch number (a complex one only with a zero imaginary part).
        name: the parameter's name, for the message.
        finite: refuse NaN and inf.
        low, high, low_open, high_open: the range, as in :func:`real_array`.

    Returns:
        ``float(value)``.

    Raises:
        InputTypeError: not a number (a string, None, a bool, a list).
        InputError: a non-zero imaginary part, NaN, inf, or out of range.
    """
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        raise InputTypeError(f"{name} must be a real number, got {value!r}")
    A = real_array(value, name, finite=finite, low=low, high=high, low_open=low_open, high_open=high_open)
    if A.ndim != 0:
        raise InputTypeError(f"{name} must be one real number, got an array of shape {A.shape}")
    return float(A.reshape(()))


def real_tensor(t, name: str) -> torch.Tensor:
    """Return ``t`` if it is a real (floating or integer) torch tensor: for the tensor-level helpers that run inside a
    forward pass, where a copy would cost (an O(1) check).

    Raises:
        InputTypeError: not a tensor, or a complex or boolean one.
    """
    if not isinstance(t, torch.Tensor) or t.is_complex() or t.dtype == torch.bool:
        what = f"a {t.dtype} tensor" if isinstance(t, torch.Tensor) else repr(t)[:60]
        raise InputTypeError(f"{name} must be a real torch tensor, got {what}")
    return t


def _check_shape_2d(shape: tuple, name: str, in_dim: int | None) -> None:
    if len(shape) != 2:
        raise InputError(f"{name} must have shape (n, d), got shape {tuple(shape)}")
    if shape[0] == 0 or shape[1] == 0:
        raise InputError(f"{name} is empty (shape {tuple(shape)}): it needs at least one row and one column")
    if in_dim is not None and shape[1] != in_dim:
        raise InputError(f"{name} has {shape[1]} columns but the model expects in_dim={in_dim}")


def _nonfinite_rows(name: str, rows: list[int]) -> InputError:
    return InputError(f"{name} contains NaN or inf values (first bad rows: {rows})")


def as_data(X, in_dim: int | None = None, name: str = "X") -> np.ndarray:
    """Validate a data matrix (n, d) of real numbers: 2-D, non-empty, finite, ``in_dim`` columns if given.

    Args:
        X: an array, a nested list or a tensor (see :func:`real_array`).
        in_dim: the number of columns expected, or None.
        name: the parameter's name, for the message.

    Returns:
        X as a float64 numpy array.

    Raises:
        InputTypeError: not real numbers.
        InputError: complex, wrong shape, empty, NaN/inf (naming the first bad rows).
    """
    A = real_array(X, name, finite=False)
    _check_shape_2d(A.shape, name, in_dim)
    if not np.all(np.isfinite(A)):
        raise _nonfinite_rows(name, np.flatnonzero(~np.all(np.isfinite(A), axis=1))[:5].tolist())
    return A


def subnormal_scale(scale: float, dtype: torch.dtype | np.dtype = np.float64) -> bool:
    """Whether a kernel whose largest entry is ``scale`` has lost digits to underflow: 0 < scale < tiny of ``dtype``.

    Each product summed into a kernel entry is rounded with an absolute error of at most half the smallest
    subnormal number, tiny * eps / 2 (tiny: the smallest normal number, 2.2e-308 in float64). Relative to the
    kernel's scale that is at most the ordinary rounding error eps / 2 exactly while the scale is at least tiny: a
    kernel of normal floats (e.g. the NTK of X * 1e-150, whose entries are about 1e-300) is as accurate as any
    other, a kernel of subnormal ones (the NTK of X * 1e-160, or K * 1e-318) is not. Zero is not flagged (the
    spectrum's own check names a zero kernel).

    Args:
        scale: the largest absolute entry (or diagonal entry) of the kernel.
        dtype: the dtype it was computed in.

    Returns:
        True if the kernel's digits are lost to underflow.
    """
    return 0.0 < scale < float(np.finfo(np.dtype(str(dtype).replace("torch.", ""))).tiny)


def check_kernel_scale(nonfinite: int, diag_max: float, dtype: torch.dtype | np.dtype, what: str,
                       hint: str, input_scale: float = 0.0) -> None:
    """Refuse a kernel that overflowed (NaN/inf entries) or whose digits were lost to underflow.

    Underflow is judged by :func:`subnormal_scale` on the largest diagonal entry (which bounds every entry of a
    positive semi-definite kernel): a kernel of normal floats, however small, is kept.

    Args:
        nonfinite: number of NaN or inf entries of the kernel (or of its diagonal).
        diag_max: the largest diagonal entry.
        dtype: the dtype the kernel was computed in.
        what: the kernel, for the message (e.g. ``"the NTK of MLP(...)"``).
        hint: what the input looks like / what to change, for the message.
        input_scale: the largest absolute input entry: a zero kernel of non-zero inputs whose square is subnormal
            underflowed (every entry rounded to 0); any other zero kernel (zero inputs, a net whose units are all
            dead) is left to the spectrum's check.

    Raises:
        KernelOverflowError: (an InputError) overflow or underflow, with ``what`` and ``hint``.
    """
    fi = np.finfo(np.dtype(str(dtype).replace("torch.", "")))
    if nonfinite:
        raise KernelOverflowError(f"{what} has {nonfinite} NaN or inf entries: the computation overflowed; {hint}")
    if diag_max == 0.0 and 0.0 < input_scale and input_scale * input_scale < float(fi.tiny):
        raise KernelOverflowError(f"{what} is exactly zero for non-zero inputs: every entry underflowed (below "
                                  f"{float(fi.smallest_subnormal):.1e}); {hint}")
    if subnormal_scale(diag_max, fi.dtype):
        raise KernelOverflowError(f"{what} has entries of at most {diag_max:.3g}, below the smallest normal number "
                                  f"of {fi.dtype} ({float(fi.tiny):.1e}): they are subnormal and their digits are "
                                  f"lost to underflow; {hint}")


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
    """Validate a data matrix (n, d) as :func:`as_data` does and return it as a tensor of ``dtype`` on ``device``.

    A tensor stays on its device until it is moved; a complex tensor is refused unless its imaginary part is zero.

    Raises:
        InputTypeError: not real numbers.
        InputError: complex, wrong shape, empty, NaN/inf.
    """
    if not isinstance(X, torch.Tensor):
        return torch.from_numpy(as_data(X, in_dim, name)).to(dtype=dtype, device=device)
    t = X.detach()
    if t.is_complex():
        if bool((t.imag != 0).any()):
            raise InputError(_complex_message(name))
        t = t.real
    _check_shape_2d(tuple(t.shape), name, in_dim)
    if not torch.is_floating_point(t):
        t = t.to(torch.float64)
    bad = ~torch.isfinite(t)
    if bool(bad.any()):
        raise _nonfinite_rows(name, torch.nonzero(bad.any(dim=1)).flatten()[:5].tolist())
    return t.to(dtype=dtype, device=device)


#: dtypes whose kernels are refused, as 11 (float16) or 8 (bfloat16) significant bits leave kappa and the smallest
#: eigenvalue without a correct digit (the book computes kernels and eigenvalues in float64)
HALF_DTYPES = (torch.float16, torch.bfloat16)


def as_row(x, in_dim: int | None = None, *, dtype=torch.float64, device="cpu", name: str = "x") -> torch.Tensor:
    """Validate one input of shape (d,) or (1, d) (as :func:`as_tensor`) and return it with shape (1, d).

    Raises:
        InputTypeError: not real numbers.
        InputError: complex, not one row, NaN/inf, not ``in_dim`` entries.
    """
    t = x.detach() if isinstance(x, torch.Tensor) else real_array(x, name, finite=False)
    if t.ndim == 1:
        t = t[None]
    if t.ndim != 2 or t.shape[0] != 1:
        raise InputError(f"{name} must be a single input of shape (d,) or (1, d), got shape {tuple(t.shape)}")
    return as_tensor(t, in_dim, dtype=dtype, device=device, name=name)


def as_matrix(K, name: str = "K", square: bool = True) -> np.ndarray:
    """Validate a kernel matrix as a finite float64 numpy array (square and symmetric if asked).

    Args:
        K: a real 2-D array, nested list or tensor (see :func:`real_array`; float16 and bfloat16 are refused).
        name: the argument's name in messages.
        square: require a square, symmetric matrix whose largest entry is a normal float (a kernel).

    Returns:
        The matrix as float64.

    Raises:
        InputTypeError: not numeric (a string, a ragged list, objects).
        InputError: complex with non-zero imaginary parts, half precision, wrong shape, empty, NaN/inf, not
            symmetric, or (a kernel) entries that are all subnormal (their digits are lost, :func:`subnormal_scale`).
    """
    half = K.dtype in HALF_DTYPES if isinstance(K, torch.Tensor) else getattr(K, "dtype", None) == np.float16
    if half:
        raise InputError(f"{name} is {str(K.dtype).replace('torch.', '')}, whose 8 to 11 significant bits leave its "
                         "eigenvalues and kappa without a correct digit: compute it in float64")
    A = real_array(K, name, finite=False, complex_hint="for a Hermitian H, the real symmetric [[Re H, -Im H], "
                   "[Im H, Re H]] has the same eigenvalues, each twice")
    if A.ndim != 2 or (square and A.shape[0] != A.shape[1]):
        kind = "a square matrix" if square else "a 2-D matrix"
        raise InputError(f"{name} must be {kind}, got shape {A.shape}")
    if A.size == 0:
        raise InputError(f"{name} is empty")
    if not np.all(np.isfinite(A)):
        raise InputError(f"{name} contains NaN or inf entries")
    if square:
        top = float(np.abs(A).max())
        if subnormal_scale(top, A.dtype):
            raise InputError(f"{name} has entries of at most {top:.3g}, below float64's smallest normal number "
                             f"({np.finfo(np.float64).tiny:.3g}): they are subnormal and have lost digits, so its "
                             "eigenvalues would be wrong; rescale it (its inputs) before rounding to this range")
        scale = max(top, np.finfo(float).tiny)
        step = max(1, 2**22 // A.shape[0])  # row blocks: no n x n temporaries for large kernels
        asym = max(np.abs(A[i:i + step] - A[:, i:i + step].T).max() for i in range(0, A.shape[0], step)) / scale
        if asym > 1e-8:
            raise InputError(f"{name} is not symmetric (max relative asymmetry {asym:.2e})")
    return A
