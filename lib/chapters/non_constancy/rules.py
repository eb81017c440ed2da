"""The rules the verdicts of chapter 05 share: flat against decaying log-log slopes ([LZB] Sec. 3-4).

Every check of the chapter fits a log-log slope (:func:`lib.spectra.fit_slope`) and reads it with one of
the rules below: :func:`~lib.chapters.non_constancy.rules.decay_status` for every "O(m^(-1/2))" of [LZB] (one
rule for "decays at least as fast as m^(-1/2)", whatever the quantity), and
:func:`~lib.chapters.non_constancy.rules.flat_status` for a quantity that should not depend on the width.
:func:`~lib.chapters.non_constancy.rules.slope_row` writes the row a check judged
(:attr:`lib.book.results.Check.rows`) with the rule it applied, so the "paper vs this book" table never judges
a second time.
"""
from __future__ import annotations

import pandas as pd

from lib.book.wording import paper_vs_book

__all__ = ["FLAT", "BOUND_EXPONENT", "SLOPE_NOISE", "VANISHING", "DECAY_RULE", "PAPER_EXPONENTS", "decay_status",
           "steeper_note", "hessian_slope_status", "UNCONVERGED", "is_flat", "flat_status", "holds", "slope_row",
           "hessian_row", "table_paper_vs_book", "band_status", "bounded_status"]


#: A log-log slope within this of zero is flat (width-independent); a decaying quantity of the chapter falls
#: with slope -1/2 or steeper, so 0.15 separates the two with room for seed noise over two to three decades.
FLAT = 0.15
#: The exponent of the bounds of [LZB] on every decaying quantity of the chapter, O(m^(-1/2)) for a linear output
#: (Remark 3.5's kernel change, Thm 3.2's Hessian norm, Lemma 3.1's backward vectors) and O(b^(-1/2)) with a
#: bottleneck of width b (Thm 3.3, and Fig 2's kernel change, which the Hessian bound controls).
BOUND_EXPONENT = -0.5
#: The spread of a log-log slope fitted over 1.5 to 2.5 decades with 2 to 3 seeds, which also covers the
#: logarithmic factors an O~ hides (sqrt(log m) flattens a slope by about 0.09 over m = 32 to 8,192).
SLOPE_NOISE = 0.2
#: A log-log slope at or below this decays at least as fast as the bound; -1/2 within :data:`~lib.chapters.non_constancy.rules.SLOPE_NOISE`, or
#: steeper (:func:`decay_status`).
VANISHING = BOUND_EXPONENT + SLOPE_NOISE

#: The words of :func:`decay_status`, as the judged rows quote it.
DECAY_RULE = (f"reproduced at slope {VANISHING:g} or steeper (at least as fast as {BOUND_EXPONENT:g}, within the "
              f"slope noise); not reproduced above {-FLAT:g} (no decay); with caveat between")

#: The exponents of [LZB]. The kernel change and the Hessian norm of a linear-output net fall like m^(-1/2)
#: (Thm 3.2, Remark 3.5), a non-linear output's kernel change is width-independent (exponent 0, Fig 1), and a
#: bottleneck of width b sets both to b^(-1/2) (Thm 3.3 and the dashed line of Fig 2).
PAPER_EXPONENTS = {"linear_kernel": -0.5, "nonlinear_kernel": 0.0, "bottleneck_kernel": -0.5,
                   "linear_hessian": -0.5, "bottleneck_hessian": -0.5}


def decay_status(s: float) -> str:
    """The one rule for "decays at least as fast as m^(-1/2)" (or b^(-1/2)): [LZB]'s O(m^(-1/2)) read as the
    upper bound it is.

    "reproduced" if ``s <= VANISHING`` (-1/2 within :data:`~lib.chapters.non_constancy.rules.SLOPE_NOISE`, or steeper: a faster decay does not
    contradict a bound); "not reproduced" if ``s > -FLAT`` (the quantity does not decay); "reproduced with
    caveat" in between (it decays, but more slowly than m^(-1/2) beyond the slope noise).

    Args:
        s: the fitted log-log slope.

    Returns:
        The status.
    """
    if s <= VANISHING:
        return "reproduced"
    return "not reproduced" if s > -FLAT else "reproduced with caveat"


def steeper_note(s: float, var: str = "m") -> str:
    """A clause for a slope steeper than the bound's -1/2 beyond the slope noise (wording only: the status of
    :func:`decay_status` is "reproduced" either way); empty otherwise.

    Args:
        s: the fitted log-log slope.
        var: the width the slope is fitted against (``"m"`` or ``"b"``).

    Returns:
        The clause, starting with a space, or ``""``.
    """
    if s < BOUND_EXPONENT - SLOPE_NOISE:
        return f" Steeper than {var}^(-1/2): the bound's rate is an upper bound, not tight here."
    return ""


def hessian_slope_status(s: float, converged: bool) -> str:
    """A Hessian norm bounded by O~(1/sqrt(m)) ([LZB] Thm 3.2, 3.3): :func:`decay_status`, and "inconclusive"
    when a power iteration did not converge (its norm is an underestimate, not a measurement).

    Args:
        s: the fitted log-log slope.
        converged: whether every power iteration converged.

    Returns:
        The status.
    """
    if not converged:
        return "inconclusive"
    return decay_status(s)


#: The caveat of a Hessian check whose power iterations did not all converge.
UNCONVERGED = "a power iteration did not converge within its cap: its norm is an underestimate, not a measurement"


def is_flat(s: float) -> bool:
    """Whether a log-log slope is flat (the quantity does not depend on the width): strictly within
    :data:`~lib.chapters.non_constancy.rules.FLAT` of zero. The one reading of "flat" of every check of the chapter."""
    return abs(s) < FLAT


def flat_status(s: float) -> str:
    """A quantity predicted not to depend on the width: "reproduced" within :data:`~lib.chapters.non_constancy.rules.FLAT` of zero, "not
    reproduced" at :data:`~lib.chapters.non_constancy.rules.VANISHING` or steeper (it vanishes with the width), "reproduced with caveat" in
    between (it drifts).

    Args:
        s: the fitted log-log slope.

    Returns:
        The status.
    """
    return "reproduced" if is_flat(s) else "not reproduced" if s <= VANISHING else "reproduced with caveat"


def band_status(s: float) -> str:
    """A quantity predicted to be Theta(1) in the width, neither vanishing nor growing ([LZB] Thm 3.2's kernel):
    "reproduced" when flat (:func:`is_flat`), "not reproduced" when ``|s| >= -VANISHING`` (0.3: a power of m
    either way, as steep as the decay rule's reproduced slopes), "reproduced with caveat" between (a drift).

    Args:
        s: the fitted log-log slope.

    Returns:
        The status.
    """
    return "reproduced" if is_flat(s) else "not reproduced" if abs(s) >= -VANISHING else "reproduced with caveat"


def bounded_status(s: float) -> str:
    """A quantity bounded by O(1) in the width ([LZB] Lemma 3.1's first derivatives and (2,2,1)-norms), read as the
    upper bound it is: "reproduced" when it does not grow (slope below :data:`~lib.chapters.non_constancy.rules.FLAT`;
    a decay agrees with a bound), "not reproduced" when it grows like a power of m (slope ``-VANISHING`` = 0.3 or
    more, as steep as the decay rule's reproduced slopes), "reproduced with caveat" between (a drift upwards).

    Args:
        s: the fitted log-log slope.

    Returns:
        The status.
    """
    return "reproduced" if s < FLAT else "not reproduced" if s >= -VANISHING else "reproduced with caveat"


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
                     DECAY_RULE + "; inconclusive if a power iteration did not converge", status)


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
