"""lib.book.tables: how the book shows a DataFrame (no repr debris, one format per column)."""
import numpy as np
import pandas as pd

from lib.book.tables import FIXED_RANGE, column_formatter, header, table_html


def test_headers_are_words():
    assert header("inf_ratio_0.01rad_L3") == "inf ratio 0.01rad L3" and header(("kappa", "mean")) == "kappa mean"


def test_truth_values_read_yes_no_and_missing_values_a_dash():
    f = column_formatter(pd.Series([True, False, None], dtype=object))
    assert [f(v) for v in (True, False, None)] == ["yes", "no", "—"]


def test_a_float_column_has_one_format_with_infinity_and_dash():
    f = column_formatter(pd.Series([0.0160, 0.145, np.inf, np.nan]))
    assert [f(v) for v in (0.0160, 0.145, np.inf, np.nan)] == ["0.0160", "0.1450", "∞", "—"]
    g = column_formatter(pd.Series([83860.0, 2.0]))                  # whole numbers: no decimals
    assert g(83860.0) == "83860" and g(2.0) == "2"


def test_a_column_wider_than_the_fixed_range_uses_significant_digits():
    lo, hi = 0.001, 0.001 * FIXED_RANGE * 1.01
    f = column_formatter(pd.Series([lo, hi]))
    assert f(lo) == "0.001" and f(-1.65e-2) == "-0.0165"
    g = column_formatter(pd.Series([lo, 0.001 * FIXED_RANGE * 0.99]))  # just inside: fixed decimals
    assert g(lo) == "0.00100" and g(0.099) == "0.09900"


def test_the_html_has_no_default_index_nan_or_python_repr():
    df = pd.DataFrame({"ntk_shape_err": [0.5, np.nan], "holds": [True, False]})
    html = table_html(df)
    assert "nan" not in html.lower().replace("—", "") and "True" not in html and "ntk shape err" in html
    assert ">0<" not in html                                         # the RangeIndex is hidden
    named = table_html(pd.DataFrame({"kappa": [1.0, np.inf]}, index=pd.Index([1, 2], name="depth")))
    assert "depth" in named and "∞" in named


def test_a_chapters_styler_is_shown_as_the_books_tables():
    from lib.book.tables import styler_html
    df = pd.DataFrame({"kappa": [np.inf, np.nan]}, index=pd.Index(["a", "b"], name="data"))
    html = styler_html(df.style.format("{:.4g}"))
    assert "∞" in html and ">inf<" not in html and ">nan<" not in html and "data" in html
    assert ">a<" not in styler_html(df.style.hide(axis="index"))   # an index the chapter hid stays hidden


def test_rounding_sized_values_keep_significant_digits():
    from lib.book.tables import FIXED_MIN
    f = column_formatter(pd.Series([1.61e-16, 4.0e-16]))
    assert f(1.61e-16) == "1.61e-16"
    g = column_formatter(pd.Series([FIXED_MIN * 0.99, FIXED_MIN * 0.5]))        # just below: significant digits
    assert g(FIXED_MIN * 0.99) == "0.0099"
    h = column_formatter(pd.Series([FIXED_MIN, FIXED_MIN * 0.5]))               # at it: fixed decimals
    assert h(FIXED_MIN * 0.5) == "0.00500"


def test_a_notebook_shell_shows_dataframes_and_stylers_as_the_books_tables():
    from types import SimpleNamespace

    from IPython.core.formatters import HTMLFormatter

    from lib.book.tables import use_book_tables
    html = HTMLFormatter()
    use_book_tables(SimpleNamespace(display_formatter=SimpleNamespace(formatters={"text/html": html})))
    df = pd.DataFrame({"kappa": [np.inf]})
    assert "∞" in html(df) and "∞" in html(df.style)


def test_a_long_text_every_row_shares_is_stated_once_as_the_caption():
    from lib.book.tables import REPEAT_MIN_CHARS, REPEAT_MIN_ROWS, shared_columns
    rule = "r" * REPEAT_MIN_CHARS
    rows = REPEAT_MIN_ROWS
    df = pd.DataFrame({"claim": [f"c{i}" for i in range(rows)], "rule": [rule] * rows, "holds": ["yes"] * rows})
    assert shared_columns(df) == {"rule": rule}  # "holds" is shared but short
    html = table_html(df)
    assert f"<caption>rule (every row): {rule}</caption>" in html and html.count(rule) == 1
    assert shared_columns(df.iloc[:rows - 1]) == {}  # too few rows
    assert shared_columns(df.assign(rule=rule[:-1])) == {}  # too short
    assert shared_columns(df.assign(rule=[rule] * (rows - 1) + [rule + "!"])) == {}  # not every row


def test_the_paper_vs_book_tables_prose_is_typeset_and_other_columns_are_not():
    """The columns a table names in ``attrs`` (the "paper vs this book" table's statement, paper, this book and
    rule) get their plain-text math as MathJax; an identifier column (a parameter's name) keeps its underscores."""
    from lib.book.results import Check
    from lib.book.wording import TYPESET_ATTR, paper_vs_book
    row = {"statement": "the gap shrinks like L^(-1/2)", "paper": "kappa_0 <= 3", "this book": "92.77 +- 0.35 %",
           "rule": "a < b", "holds": True}
    t = paper_vs_book([Check("[LH] Thm 2.3", status="reproduced", measured="m", rows=(row,))])
    html = table_html(t)
    assert r"\(L^{-1/2}\)</span>" in html and r"\(\kappa_0\)</span> ≤ 3" in html and "92.77 ± 0.35 %" in html
    assert html.count('<span class="math notranslate nohighlight">') == 2  # Sphinx's own markup of inline math
    assert "a &lt; b" in html and "L^(-1/2)" not in html
    plain = table_html(t.assign(claim="kappa_ns"))  # the claim column is not prose
    assert "kappa_ns" in plain
    bare = t.copy()
    bare.attrs.pop(TYPESET_ATTR)  # counterfactual: without the attribute nothing is typeset
    assert "L^(-1/2)" in table_html(bare) and r"\(L^{-1/2}\)" not in table_html(bare)
    many = pd.concat([t] * 3, ignore_index=True)  # a shared rule is the caption, typeset too
    many.attrs = dict(t.attrs)
    assert "<caption>" in table_html(many.assign(rule="every row: x^2 >= kappa_0 always"))
    assert r"\(x^{2}\)</span> ≥ <span" in table_html(many.assign(rule="every row: x^2 >= kappa_0 always"))


def test_a_header_with_an_ascii_power_is_typeset_and_others_are_kept():
    from lib.book.tables import ASCII_POWER
    df = pd.DataFrame({"(1-eta lmin)^2": [0.5], "1-1/kappa": [0.25], "kappa_ns": [3.0]})
    html = table_html(df)
    assert r"\((1-\eta \mathrm{lmin})^{2}\)</span>" in html and "(1-eta lmin)^2" not in html
    assert "1-1/kappa" in html and "kappa ns" in html  # no power: as header() writes them
    assert ASCII_POWER.search("m^(-1/2)") and ASCII_POWER.search("|x|^2") and not ASCII_POWER.search("x ^ y")
