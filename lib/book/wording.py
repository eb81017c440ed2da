"""Shared wording of the book: how numbers, lists and the "paper vs this book" tables are written.

One home for the formatting every chapter needs, so that a depth list, a condition number or an
infinite value reads the same on every page:

* :func:`ints`, :func:`floats`, :func:`words` -- lists in prose (``"0 to 10"``, ``"0.5, 1, 2"``);
* :func:`count`, :func:`noun_for` -- a number of things (``"1 pair"``, ``"2 pairs"``), or the noun alone (``"depth"``, ``"depths"``);
* :func:`number` -- one measured number (``"∞"`` for an infinite one, ``"—"`` for one not measured);
* :func:`paper_vs_book` -- the table of the rows a chapter's checks judged (:attr:`lib.book.results.Check.rows`).
"""
from __future__ import annotations

import math
from typing import Iterable

import pandas as pd

__all__ = ["ints", "floats", "words", "noun_for", "count", "number", "TYPESET_ATTR", "PAPER_TABLE_COLUMNS", "paper_vs_book"]


def ints(values: Iterable, ranges: bool = True) -> str:
    """Integers as prose: ``"0 to 10"`` for a run of more than three consecutive values (when
    ``ranges``), else ``"1, 3, 6"``."""
    vals = [int(v) for v in values]
    if ranges and len(vals) > 3 and vals == list(range(vals[0], vals[-1] + 1)):
        return f"{vals[0]} to {vals[-1]}"
    return ", ".join(str(v) for v in vals)


def floats(values: Iterable) -> str:
    """Numbers as prose, each in its shortest form (``"0.5, 1, 2"``)."""
    return ", ".join(f"{float(v):g}" for v in values)


def words(values: Iterable) -> str:
    """Anything as a comma-separated list."""
    return ", ".join(str(v) for v in values)


def noun_for(n: int, noun: str, plural: str | None = None) -> str:
    """The noun for ``n`` things, in the singular for one: ``noun_for(1, "depth")`` is ``"depth"``,
    ``noun_for(3, "depth")`` is ``"depths"`` (``plural`` for a noun that does not take an ``s``)."""
    return noun if n == 1 else (plural or noun + "s")


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` things in words, the noun in the singular for one: ``count(1, "pair")`` is ``"1 pair"``,
    ``count(2, "pair")`` is ``"2 pairs"`` (``plural`` for a noun that does not take an ``s``)."""
    return f"{n} {noun_for(n, noun, plural)}"


def number(v: float | None, digits: int = 3, unit: str = "") -> str:
    """One measured number with ``digits`` significant digits: ``"∞"`` when infinite (a singular
    kernel's kappa), ``"—"`` when not measured (None or NaN)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    return f"{v:.{digits}g}{unit}"


#: The ``DataFrame.attrs`` key naming the text columns whose plain-text math a page typesets
#: (:func:`lib.book.tables.table_html` through :func:`lib.book.math_text.typeset_html`): prose written for a terminal
#: ("L^(-1/2)", "kappa_0", "+-"), not identifiers.
TYPESET_ATTR = "typeset_columns"
#: the columns of a "paper vs this book" table, in order (keys of a :attr:`lib.book.results.Check.rows` row)
PAPER_TABLE_COLUMNS = ("statement", "paper", "this book", "rule", "holds")


def paper_vs_book(checks: Iterable) -> pd.DataFrame:
    """The "paper vs this book" table: the rows the given checks judged, in order, never recomputed.

    Args:
        checks: :class:`lib.book.results.Check` objects; each row of their ``rows`` has the keys of
            :data:`PAPER_TABLE_COLUMNS` (``holds`` is True, False or None for "not tested").

    Returns:
        One row per judged statement, with the claim id first; ``holds`` written "yes", "no" or "—".
    """
    out = []
    for c in checks:
        for r in c.rows:
            missing = [k for k in PAPER_TABLE_COLUMNS if k not in r]
            if missing:
                raise KeyError(f"{c.claim_id}: a judged row lacks {missing}")
            holds = r["holds"]
            out.append({"claim": c.claim_id, **{k: r[k] for k in PAPER_TABLE_COLUMNS[:-1]},
                        "holds": "—" if holds is None else ("yes" if holds else "no")})
    table = pd.DataFrame(out, columns=["claim", *PAPER_TABLE_COLUMNS])
    table.attrs[TYPESET_ATTR] = list(PAPER_TABLE_COLUMNS[:-1])  # their plain-text math typeset on the page
    return table
