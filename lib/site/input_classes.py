"""The classes of bad input, each closed where it enters by one shared check: the first table of the troubleshooting
page, and the list the property tests enumerate.

A class is one way an input goes wrong (a complex number where a real one is meant, a seed no generator takes, a
depth of 2.7, ...). It is closed once, in a shared check (mostly :mod:`lib.validation`), that every public function
taking such an input calls where the input enters. :func:`public_callables` lists the public functions and classes
of the science layer (everything in ``__all__`` of :data:`SCIENCE`, results dataclasses aside: they carry settings,
they do not take input), and :func:`takers` those whose signature has a parameter of the class. The property tests
(``tests/test_input_classes.py``) drive every one of them with the class's inputs, so a new public function that
takes a seed, an ``X`` or a ``depth`` is covered (and must be given a call there) the day it is added.
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from dataclasses import dataclass
from typing import Callable

__all__ = ["InputClass", "INPUT_CLASSES", "SCIENCE", "public_callables", "takers", "classes_markdown"]

#: the packages and modules where inputs enter the library (the chapters call into them)
SCIENCE = ("lib.activations", "lib.spectra", "lib.validation", "lib.data", "lib.finite", "lib.theory")


@dataclass(frozen=True)
class InputClass:
    """One class of bad input.

    Attributes:
        key: a short name (``"real"``, ``"seed"``, ...), used by the tests.
        title: the class, in a few words.
        before: what such an input gave before the class was closed.
        now: what it gets now.
        check: the shared check(s) that close it.
        params: the parameter names that carry the input into a public function (empty: the class is not
            carried by a parameter name; its takers are listed by the tests themselves).
    """

    key: str
    title: str
    before: str
    now: str
    check: str
    params: tuple[str, ...] = ()


#: the classes of bad input, in the order of the troubleshooting page
INPUT_CLASSES: tuple[InputClass, ...] = (
    InputClass(
        "real", "complex numbers, NaN and text where real numbers are meant",
        "silently dropped to their real part (only a kernel K was checked)",
        "refused, naming the parameter (a complex value only when an imaginary part is not 0: then it is the real "
        "answer); so are strings, ragged lists and objects",
        "`lib.validation.real_array` (arrays), `check_real` (numbers), and on them `as_data` (X), `as_tensor`, "
        "`as_row` (one input x), `as_matrix` (a kernel K), `check_labels`",
        ("X", "x", "X1", "X2", "Z", "z", "K", "G", "A", "B", "theta", "theta_in", "rho", "q", "q0", "q1", "q2", "qi",
         "qj", "angles", "layer_weights", "weights", "coefficients", "r0", "y", "labels", "X_test", "base_kernel",
         "delta", "delta0", "mu", "eps", "b", "a", "shift", "norms", "layer_std", "layer_mult", "bias_std", "lr")),
    InputClass(
        "seed", "seeds outside the generators' range",
        "torch's 'Overflow when unpacking long long' (`2**64`, `-2**63 - 1`), or a negative seed taken by one "
        "function and refused by another",
        "one range for every function that takes a seed: integers in [0, `2**63 - 1`] (what torch, numpy and an "
        "int64 record all hold)",
        "`lib.validation.check_seed`, `check_seeds`",
        ("seed", "seeds")),
    InputClass(
        "order", "sizes, depths, orders and real parameters",
        "a depth of 2.7 silently truncated to 2, -1 an IndexError, a width of 0 a ZeroDivisionError, rho = 2 "
        "clipped to 1, NaN passed through, a tiny eps an OverflowError",
        "an integer in its range (a float is never truncated), a finite real number in its range; a value the "
        "formula can take (eps = 1e-310, delta = 1e-320) is computed exactly",
        "`lib.validation.check_int`, `positive_int`, `check_real`, `real_array(low=, high=)`",
        ("depth", "depths", "width", "in_dim", "out_dim", "n", "d", "n_terms", "kernel_size", "layer_sizes",
         "block_size", "chunk_size", "epochs", "batch_size", "steps", "max_iter", "tile", "sub_size", "top_pairs",
         "refine_iters", "max_tries", "every", "null_dim", "mu", "delta", "delta0", "eps", "b", "a", "shift", "rho",
         "tol", "lr")),
    InputClass(
        "certified", "certified bounds on premises that fail",
        "a 'certified' lower bound of 2.0 on a complex Hermitian G whose lambda_min is 0.79, 0 for an indefinite "
        "G (truth -0.2) or a NaN G",
        "a certified bound checks its own premises (real, finite, symmetric, unit diagonal, positive "
        "semi-definite) and refuses what it cannot certify",
        "`lib.validation.as_matrix`, `lib.spectra.spectrum` (positive semi-definite beyond rounding)"),
    InputClass(
        "writer", "writers that leave broken files",
        "`python -m lib.site.specs --write` wrote `seeds = 0`, `n_samples = nan` or an unterminated string and "
        "exited 0",
        "the value is checked before anything is written, what would be written is read back, all files or "
        "none are replaced (in one rename each); the command exits 2 with one line",
        "`lib.site.specs.write_cells`; the cache's `write_record` (atomic, refuses what JSON cannot hold)"),
    InputClass(
        "underflow", "inputs refused although their answer is exact (and the converse)",
        "X * 1e-150 refused as 'lost to underflow' though its kernel (about 1e-300) is exact; K * 1e-318 "
        "accepted with kappa wrong in the 5th digit",
        "a kernel is refused only when its entries are subnormal (below 2.2e-308, their digits really lost); "
        "any kernel of normal floats, however small, is computed",
        "`lib.validation.subnormal_scale` (in `check_kernel_scale` and `as_matrix`)"),
)


def public_callables(prefixes: tuple[str, ...] = SCIENCE) -> dict[str, Callable]:
    """The public functions and classes of the modules under ``prefixes``, by their home (``module.qualname``).

    Public means listed in a module's ``__all__``; each object is listed once, under the module that defines it.
    Dataclasses are left out (results and settings: they carry values, they take no input to check), and so are
    exceptions and warnings.

    Args:
        prefixes: module or package names (``"lib.finite"`` covers its submodules).

    Returns:
        ``{"lib.finite.mlp.MLP": MLP, ...}``, sorted by name.
    """
    found: dict[str, Callable] = {}
    for prefix in prefixes:
        root = importlib.import_module(prefix)
        names = [prefix]
        if hasattr(root, "__path__"):
            names += [m.name for m in pkgutil.walk_packages(root.__path__, prefix + ".")
                      if not m.name.endswith("__main__")]
        for name in names:
            mod = importlib.import_module(name)
            for attr in getattr(mod, "__all__", ()):
                obj = getattr(mod, attr, None)
                if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                    continue
                if inspect.isclass(obj) and (dataclasses.is_dataclass(obj) or issubclass(obj, BaseException)):
                    continue
                home = f"{obj.__module__}.{obj.__qualname__}"
                if home.startswith(prefix.split(".")[0] + ".") and obj.__module__.startswith(prefixes):
                    found.setdefault(home, obj)
    return dict(sorted(found.items()))


def takers(cls: InputClass, prefixes: tuple[str, ...] = SCIENCE) -> dict[str, list[str]]:
    """The public callables whose signature has a parameter of ``cls``, with those parameters.

    Args:
        cls: one of :data:`INPUT_CLASSES`.
        prefixes: as in :func:`public_callables`.

    Returns:
        ``{home: [parameter, ...]}``.
    """
    out = {}
    for home, obj in public_callables(prefixes).items():
        try:
            params = inspect.signature(obj).parameters
        except (TypeError, ValueError):  # a builtin without a signature
            continue
        hit = [p for p in params if p in cls.params]
        if hit:
            out[home] = hit
    return out


def classes_markdown() -> str:
    """The classes as a Markdown table: class, what it gave before, what it gets now, the shared check, and how
    many public functions of the science layer take such an input (:func:`takers`; '-' where the tests list
    them)."""
    rows = ["| class of bad input | before | now | closed by | public functions taking it |", "|---|---|---|---|---|"]
    for c in INPUT_CLASSES:
        count = str(len(takers(c))) if c.params else "-"
        rows.append(f"| {c.title} | {c.before} | {c.now} | {c.check} | {count} |")
    return "\n".join(rows)
