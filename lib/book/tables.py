"""How every table of the book is shown: no pandas index that means nothing, human column
headers, "yes"/"no" for truth values, "—" for a value not measured, "∞" for a singular kernel's kappa, one
number format per column, and a long text every row shares (a rule) stated once as the caption.

:func:`use_book_tables` registers :func:`table_html` as the notebook's HTML formatter of DataFrames (the
chapters call it through :meth:`lib.book.spec.ChapterSpec.validate`), so a chapter shows a table by leaving it
as the cell's last expression, as before.
"""
from __future__ import annotations

import html
import math
import re

import numpy as np
import pandas as pd

from lib.book.math_text import typeset_html
from lib.book.wording import TYPESET_ATTR, number

__all__ = ["ASCII_POWER", "SIGNIFICANT_DIGITS", "FIXED_RANGE", "FIXED_MIN", "REPEAT_MIN_ROWS", "REPEAT_MIN_CHARS", "header",
           "shared_columns", "column_formatter", "table_html", "styler_html",
           "use_book_tables"]

#: A power written in ASCII ("(L+1)^2", "m^(-1/2)"): a header holding one is typeset (:func:`table_html`).
ASCII_POWER = re.compile(r"[\w)\]|]\^[\w({-]")
#: Significant digits of a float column; enough for the tolerances the verdicts quote (1e-3 relative), few
#: enough that a column of measurements reads at a glance.
SIGNIFICANT_DIGITS = 4
#: Smallest largest-magnitude of a float column written with fixed decimals; below it (rounding-sized
#: values, 1e-16) significant digits read better than a row of zeros.
FIXED_MIN = 0.01
#: Largest ratio of the largest to the smallest non-zero magnitude of a float column written with fixed
#: decimals; a wider column is written in significant digits (else its small values would show as 0.000).
FIXED_RANGE = 100
#: A text column that says the same thing in every row of a table of at least this many rows is stated once,
#: above the table, instead of row after row (a rule shared by all the rows a check judged, say).
REPEAT_MIN_ROWS = 3
#: ... if its text is at least this long (a short shared value, "yes" or a data set's name, stays in its column).
REPEAT_MIN_CHARS = 20


def header(name) -> str:
    """A column or index name for a reader: ``"ntk_shape_err"`` -> ``"ntk shape err"``; tuples joined."""
    if isinstance(name, tuple):
        return " ".join(header(n) for n in name if str(n))
    return str(name).replace("_", " ") if name is not None else ""


def _float_text(v: float, fixed: int | None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    return f"{v:.{fixed}f}" if fixed is not None else number(v, SIGNIFICANT_DIGITS)


def column_formatter(col: pd.Series):
    """One format for the whole column: truth values as yes/no; integers as integers; floats with fixed
    decimals (:data:`~lib.book.tables.SIGNIFICANT_DIGITS` on the largest) when the column spans less than
    :data:`~lib.book.tables.FIXED_RANGE`, its largest value is at least :data:`~lib.book.tables.FIXED_MIN` and
    below 1e5 (so the column aligns), else
    :data:`~lib.book.tables.SIGNIFICANT_DIGITS` significant digits; NaN or None as "—" and infinities as "∞"."""
    values = col.dropna()
    if len(values) and all(isinstance(v, (bool, np.bool_)) for v in values):
        return lambda v: "—" if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else (
            "yes" if v else "no")
    if pd.api.types.is_integer_dtype(col.dtype):
        return lambda v: "—" if pd.isna(v) else f"{int(v)}"
    if pd.api.types.is_float_dtype(col.dtype):
        finite = np.abs(values[np.isfinite(values)].to_numpy(dtype=float))
        fixed = None
        if len(finite) and np.all(finite == np.round(finite)) and finite.max() < 1e15:
            fixed = 0
        elif len(finite) and FIXED_MIN <= finite.max() < 1e5 and (
                finite[finite > 0].min() * FIXED_RANGE >= finite.max()):
            fixed = max(0, SIGNIFICANT_DIGITS - 1 - int(math.floor(math.log10(finite.max()))))
        return lambda v: _float_text(v, fixed)
    return lambda v: "—" if v is None or (isinstance(v, float) and math.isnan(v)) else (
        "yes" if v is True or v is np.True_ else "no" if v is False or v is np.False_ else
        _float_text(v, None) if isinstance(v, float) else str(v))


def shared_columns(df: pd.DataFrame) -> dict[str, str]:
    """The text columns of ``df`` that say the same long thing in every row (:data:`REPEAT_MIN_ROWS`,
    :data:`REPEAT_MIN_CHARS`), with that text."""
    if len(df) < REPEAT_MIN_ROWS or len(df.columns) < 2:
        return {}
    out = {}
    for c in df.columns:
        first = df[c].iloc[0]
        if isinstance(first, str) and len(first) >= REPEAT_MIN_CHARS and (df[c] == first).all():
            out[c] = first
    return out


def table_html(df: pd.DataFrame, index: bool | None = None) -> str:
    """The HTML of ``df`` as the book shows tables (see the module docstring). By default a ``RangeIndex``
    is hidden and a meaningful index (depths, data sets) is kept as the first column; ``index`` forces either."""
    shown = df.copy()
    prose = {header(c) for c in df.attrs.get(TYPESET_ATTR, ())}  # plain-text math typeset (MathJax)
    shown.columns = [header(c) for c in shown.columns]
    keep_index = (not isinstance(df.index, pd.RangeIndex) or df.index.name is not None) if index is None else index
    if keep_index:
        names = [header(n) or "" for n in (df.index.names or [None])]
        shown = shown.reset_index()
        shown.columns = names + list(shown.columns[len(names):])
    shown = shown.loc[:, ~pd.Index(shown.columns).duplicated()]
    # a header holding a power in ASCII ("(1-eta lmin)^2") is a formula: typeset, as the prose columns' math
    typeset_headers = [isinstance(c, str) and bool(ASCII_POWER.search(c)) for c in shown.columns]
    shown.columns = [typeset_html(c) if t else c for c, t in zip(shown.columns, typeset_headers)]
    shared = shared_columns(shown)
    shown = shown.drop(columns=list(shared))
    formats = {c: column_formatter(shown[c]) for c in shown.columns}
    for c in prose & set(shown.columns):
        formats[c] = (lambda f: lambda v: typeset_html(v) if isinstance(v, str) else f(v))(formats[c])
    styler = shown.style.hide(axis="index").format(formats)
    if shared:  # stated once, as the table's caption, not row after row
        styler = styler.set_caption("; ".join(
            f"{html.escape(c)} (every row): {typeset_html(v) if c in prose else html.escape(v)}"
            for c, v in shared.items()))
    return styler.to_html()


def styler_html(styler) -> str:
    """A chapter's ``df.style...`` shown as the book's tables: its data through :func:`table_html`, its index
    hidden if the chapter hid it (the chapter's own number formats give way to the book's one per column)."""
    hidden = bool(getattr(styler, "hide_index_", [False]) and all(styler.hide_index_))
    return table_html(styler.data, index=False if hidden else None)


def use_book_tables(shell) -> None:
    """Show every DataFrame (and pandas Styler) displayed in the IPython ``shell`` (a notebook kernel's
    ``get_ipython()``) with :func:`table_html`."""
    from pandas.io.formats.style import Styler
    html = shell.display_formatter.formatters["text/html"]
    html.for_type(pd.DataFrame, table_html)
    html.for_type(Styler, styler_html)
