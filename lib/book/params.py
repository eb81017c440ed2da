"""Checks for notebook parameters (papermill ``-p``), with messages that name the parameter.

Each notebook validates its tagged ``parameters`` cell right after papermill injects values::

    P = validate(width=(width, positive_int), depths=(depths, int_list(min_value=0)))

A checker takes ``(name, value)`` and returns the normalized value or raises
:class:`ParameterError`. Unknown parameter names are rejected by :mod:`lib.site.pipeline`
before any notebook runs (plain papermill only warns about them).
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Callable, Iterable

from lib.validation import InputError, ShortTraceback, check_device, check_seed

__all__ = [
    "ParameterError", "validate", "positive_int", "int_at_least", "nonneg_int", "seed", "positive_float", "unit_float",
    "int_list", "float_list", "choice", "choices_list", "device_name", "boolean", "optional",
    "path_or_none", "text", "one_per", "among", "at_most",
]

Checker = Callable[[str, Any], Any]


class ParameterError(ShortTraceback, ValueError):
    """A notebook parameter has a wrong type or value."""


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def positive_int(name: str, v) -> int:
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if not _is_int(v) or v < 1:
        raise ParameterError(f"parameter {name!r} must be a positive integer, got {v!r}")
    return v


def int_at_least(minimum: int) -> Checker:
    """An integer >= ``minimum``."""
    def check(name: str, v) -> int:
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if not _is_int(v) or v < minimum:
            raise ParameterError(f"parameter {name!r} must be an integer >= {minimum}, got {v!r}")
        return v
    return check


def nonneg_int(name: str, v) -> int:
    if not _is_int(v) or v < 0:
        raise ParameterError(f"parameter {name!r} must be a non-negative integer, got {v!r}")
    return v


def seed(name: str, v) -> int:
    """A seed: an integer in [0, 2**63 - 1], the range every generator of the library takes
    (:func:`lib.validation.check_seed`)."""
    try:
        return check_seed(v, f"parameter {name!r}")
    except InputError as exc:
        raise ParameterError(str(exc)) from None


def positive_float(name: str, v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0 or v != v or v == float("inf"):
        raise ParameterError(f"parameter {name!r} must be a positive finite number, got {v!r}")
    return float(v)


def unit_float(name: str, v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1:
        raise ParameterError(f"parameter {name!r} must be a number in (0, 1], got {v!r}")
    return float(v)


def boolean(name: str, v) -> bool:
    if not isinstance(v, bool):
        raise ParameterError(f"parameter {name!r} must be True or False, got {v!r}")
    return v


def text(name: str, v) -> str:
    if not isinstance(v, str) or not v:
        raise ParameterError(f"parameter {name!r} must be a non-empty string, got {v!r}")
    return v


def _parse_list(v):
    """Plain papermill passes ``-p depths "[1, 2]"`` as a string: read such a string as YAML."""
    if isinstance(v, str) and v.strip().startswith("["):
        import yaml
        try:
            return yaml.safe_load(v)
        except yaml.YAMLError:
            return v
    return v


def int_list(min_value: int = 0, min_len: int = 1) -> Checker:
    """A list of integers >= ``min_value`` (a single int is accepted as a one-element list)."""
    def check(name: str, v) -> list[int]:
        v = _parse_list(v)
        items = [v] if _is_int(v) else v
        if not isinstance(items, (list, tuple)) or len(items) < min_len or not all(_is_int(x) for x in items):
            raise ParameterError(f"parameter {name!r} must be a list of at least {min_len} integer(s), got {v!r}")
        bad = [x for x in items if x < min_value]
        if bad:
            raise ParameterError(f"parameter {name!r} must contain integers >= {min_value}, got {bad}")
        return list(items)
    return check


def float_list(min_len: int = 1, positive: bool = False, max_value: float | None = None,
               below: float | None = None) -> Checker:
    """A list of finite numbers (positive if asked; at most ``max_value`` and strictly below ``below`` if given)."""
    def check(name: str, v) -> list[float]:
        v = _parse_list(v)
        items = [v] if isinstance(v, (int, float)) and not isinstance(v, bool) else v
        ok = isinstance(items, (list, tuple)) and len(items) >= min_len and all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and x == x and abs(x) != float("inf")
            for x in items)
        if not ok or (positive and any(x <= 0 for x in items)):
            kind = "positive " if positive else ""
            raise ParameterError(f"parameter {name!r} must be a list of {kind}finite numbers, got {v!r}")
        if max_value is not None and max(items) > max_value:
            raise ParameterError(f"parameter {name!r} must contain numbers <= {max_value:.6g}, got {list(items)}")
        if below is not None and max(items) >= below:
            raise ParameterError(f"parameter {name!r} must contain numbers below {below:.6g}, got {list(items)}")
        return [float(x) for x in items]
    return check


def choice(options: Iterable[str]) -> Checker:
    """One string out of ``options``."""
    opts = list(options)

    def check(name: str, v) -> str:
        if v not in opts:
            raise ParameterError(f"parameter {name!r} must be one of {opts}, got {v!r}")
        return v
    return check


def choices_list(options: Iterable[str]) -> Checker:
    """A non-empty list of strings out of ``options``."""
    opts = list(options)

    def check(name: str, v) -> list[str]:
        v = _parse_list(v)
        items = [v] if isinstance(v, str) else v
        if not isinstance(items, (list, tuple)) or not items or any(x not in opts for x in items):
            raise ParameterError(f"parameter {name!r} must be a list drawn from {opts}, got {v!r}")
        return list(items)
    return check


def device_name(name: str, v) -> str:
    """'cpu' or an available CUDA device."""
    try:
        check_device(v)
    except (ValueError, TypeError) as exc:
        raise ParameterError(f"parameter {name!r}: {exc}") from exc
    return str(v)


def path_or_none(name: str, v):
    if v is not None and (not isinstance(v, str) or not v):
        raise ParameterError(f"parameter {name!r} must be a path string or None, got {v!r}")
    return v


def optional(checker: Checker) -> Checker:
    """``None`` or whatever ``checker`` accepts."""
    def check(name: str, v):
        return None if v is None else checker(name, v)
    return check


def validate(**spec: tuple[Any, Checker]) -> SimpleNamespace:
    """Check every ``name=(value, checker)`` pair and return the normalized values as attributes.

    All problems are collected and raised together in one :class:`ParameterError`.
    """
    out, errors = {}, []
    for name, (value, checker) in spec.items():
        try:
            out[name] = checker(name, value)
        except ParameterError as exc:
            errors.append(str(exc))
    if errors:
        raise ParameterError("bad notebook parameter(s):\n  " + "\n  ".join(errors))
    return SimpleNamespace(**out)


def one_per(cfg: SimpleNamespace, name: str, other: str) -> None:
    """Check that the list parameter ``name`` (None allowed) has one entry per entry of ``other``.

    Args:
        cfg: the result of :func:`lib.book.params.validate`.
        name: a list parameter, or None (then there is nothing to check).
        other: the list parameter it must match entry for entry.

    Raises:
        ParameterError: the two lists differ in length; the message names both parameters.
    """
    value, ref = getattr(cfg, name), getattr(cfg, other)
    if value is not None and len(value) != len(ref):
        raise ParameterError(f"parameter {name!r} must give one value per entry of {other!r} ({len(ref)}), "
                             f"got {list(value)}")


def _entries(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def among(cfg: SimpleNamespace, name: str, other: str, why: str) -> None:
    """Check that the parameter ``name`` (a value or a list; None: nothing to check) takes only entries of the list
    parameter ``other``.

    Args:
        cfg: the validated parameters.
        name: the parameter whose entries must be among ``other``'s.
        other: a list parameter.
        why: what goes wrong otherwise, for the message (e.g. "the targets are read at that size").

    Raises:
        ParameterError: an entry of ``name`` is not in ``other``; the message names both parameters and the entries.
    """
    value, ref = getattr(cfg, name), list(getattr(cfg, other))
    if value is None:
        return
    outside = [v for v in _entries(value) if v not in ref]
    if outside:
        raise ParameterError(f"parameter {name!r} takes entries of {other!r} ({ref}) only, got {outside} outside "
                             f"it: {why}")


def at_most(cfg: SimpleNamespace, name: str, other: str, why: str, strict: bool = False) -> None:
    """Check that the parameter ``name`` (a number or a list of numbers; None: nothing to check) is at most (with
    ``strict``, below) the number parameter ``other``.

    Args:
        cfg: the validated parameters.
        name: the bounded parameter.
        other: the bound.
        why: what goes wrong otherwise, for the message.
        strict: refuse equality too.

    Raises:
        ParameterError: an entry of ``name`` exceeds ``other``; the message names both parameters and their values.
    """
    value, bound = getattr(cfg, name), getattr(cfg, other)
    if value is None:
        return
    over = [v for v in _entries(value) if (v >= bound if strict else v > bound)]
    if over:
        rel = "below" if strict else "at most"
        raise ParameterError(f"parameter {name!r} must be {rel} {other!r} ({bound}), got {getattr(cfg, name)}: {why}")
