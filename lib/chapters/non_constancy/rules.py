"""The rules the verdicts of chapter 05 share: flat against decaying log-log slopes ([LZB] Sec. 3-4).

Every check of the chapter fits a log-log slope (:func:`lib.spectra.fit_slope`) and reads it with one of
the rules below; the same function also writes the row the check judged
(:attr:`lib.book.results.Check.rows`), so the "paper vs this book" table never judges a second time.
"""
from __future__ import annotations

import pandas as pd

from lib.book.wording import paper_vs_book

__all__ = ["FLAT", "VANISHING", "KERNEL_WINDOW", "HESSIAN_WINDOW", "PAPER_EXPONENTS", "slope_status",
           "hessian_slope_status", "flat_status", "window_rule", "holds", "slope_row", "hessian_row",
           "table_paper_vs_book"]


#: A log-log slope within this of zero is flat (width-independent); a decaying quantity of the chapter falls
#: with slope -1/2 or steeper, so 0.15 separates the two with room for seed noise over two to three decades.
FLAT = 0.15
#: A log-log slope at or below this vanishes with the width (the predicted -1/2 with 0.2 of margin for seed
#: noise over two to three decades).
VANISHING = -0.3
#: The "reproduced" window of a kernel change predicted to fall with slope -1/2 ([LZB] Fig 2), wide enough for
#: finite-width and seed noise over a short range.
KERNEL_WINDOW = (-0.75, -0.3)
#: The "reproduced" window of a Hessian norm predicted to fall with slope -1/2 ([LZB] Thm 3.2, 3.3); the upper end
#: allows the logarithmic factors of the O~, the lower end seed noise.
HESSIAN_WINDOW = (-0.7, -0.35)

#: The exponents of [LZB]. The kernel change and the Hessian norm of a linear-output net fall like m^(-1/2)
#: (Thm 3.2, Remark 3.5), a non-linear output's kernel change is width-independent (exponent 0, Fig 1), and a
#: bottleneck of width b sets both to b^(-1/2) (Thm 3.3 and the dashed line of Fig 2).
PAPER_EXPONENTS = {"linear_kernel": -0.5, "nonlinear_kernel": 0.0, "bottleneck_kernel": -0.5,
                   "linear_hessian": -0.5, "bottleneck_hessian": -0.5}


def slope_status(s: float, window: tuple[float, float] = KERNEL_WINDOW) -> str:
    """A power law predicted with slope -1/2: inside ``window`` "reproduced", steeper "reproduced with caveat"
    (faster than the bound's rate), flatter "not reproduced".

    Args:
        s: the fitted log-log slope.
        window: the open interval of "reproduced" slopes (:data:`~lib.chapters.non_constancy.rules.KERNEL_WINDOW` or :data:`~lib.chapters.non_constancy.rules.HESSIAN_WINDOW`).

    Returns:
        The status.
    """
    lo, hi = window
    return "reproduced" if lo < s < hi else "reproduced with caveat" if s <= lo else "not reproduced"


def hessian_slope_status(s: float, converged: bool) -> str:
    """A Hessian norm predicted to fall with slope -1/2 ([LZB] Thm 3.2, 3.3): :func:`slope_status` with
    :data:`~lib.chapters.non_constancy.rules.HESSIAN_WINDOW`, and "not reproduced" when a power iteration did not converge (an underestimate,
    not a measurement).

    Args:
        s: the fitted log-log slope.
        converged: whether every power iteration converged.

    Returns:
        The status.
    """
    if not converged:
        return "not reproduced"
    return slope_status(s, HESSIAN_WINDOW)


def flat_status(s: float) -> str:
    """A quantity predicted not to depend on the width: "reproduced" within :data:`~lib.chapters.non_constancy.rules.FLAT` of zero, "not
    reproduced" at :data:`~lib.chapters.non_constancy.rules.VANISHING` or steeper (it vanishes with the width), "reproduced with caveat" in
    between (it drifts).

    Args:
        s: the fitted log-log slope.

    Returns:
        The status.
    """
    return "reproduced" if abs(s) < FLAT else "not reproduced" if s <= VANISHING else "reproduced with caveat"


def window_rule(window: tuple[float, float]) -> str:
    """The words of :func:`slope_status` for ``window``, as the judged rows quote it."""
    return f"reproduced between {window[0]:g} and {window[1]:g}; with caveat if steeper; not reproduced if flatter"


def holds(status: str) -> bool | None:
    """Whether a judged statement holds, from the check's status: True unless "not reproduced"; None when
    nothing was judged ("not checked", "inconclusive")."""
    if status in ("not checked", "inconclusive"):
        return None
    return status != "not reproduced"


def slope_row(statement: str, exponent: str, this_book: str, rule: str, status: str) -> dict:
    """One judged row of a slope check (:attr:`lib.book.results.Check.rows`): [LZB]'s exponent beside the
    fitted slope, the rule, and whether it holds (:func:`holds`).

    Args:
        statement: what is fitted against what (the claim id is added by the table).
        exponent: the key of :data:`~lib.chapters.non_constancy.rules.PAPER_EXPONENTS`.
        this_book: the fitted slope(s) and the range fitted over, as text.
        rule: the rule the check applied, in words.
        status: the check's status.

    Returns:
        The row.
    """
    return {"statement": statement, "paper": f"{PAPER_EXPONENTS[exponent]:g}", "this book": this_book,
            "rule": rule, "holds": holds(status)}


def hessian_row(statement: str, exponent: str, s: float, over: str, status: str) -> dict:
    """The judged row of a Hessian-norm slope (:func:`slope_row` with the rule of :func:`hessian_slope_status`).

    Args:
        statement: what is fitted against what.
        exponent: the key of :data:`~lib.chapters.non_constancy.rules.PAPER_EXPONENTS`.
        s: the fitted slope.
        over: the range fitted over, e.g. ``"m = 32 to 8,192"``.
        status: the check's status.

    Returns:
        The row.
    """
    return slope_row(statement, exponent, f"{s:.2f} ({over})",
                     window_rule(HESSIAN_WINDOW) + "; not reproduced if a power iteration did not converge", status)


def table_paper_vs_book(*checks) -> pd.DataFrame:
    """[LZB]'s exponents beside this chapter's slopes: the rows the given checks judged
    (:func:`lib.book.wording.paper_vs_book`; checks that judged no row add none), indexed by claim and
    statement.

    Args:
        *checks: :class:`lib.book.results.Check` objects already recorded.

    Returns:
        One row per judged statement: paper, this book, rule, holds.
    """
    return paper_vs_book(checks).set_index(["claim", "statement"])
