"""Shared wording (lib.book.wording): lists, numbers, and the paper-vs-book table of judged rows."""
import math

import pytest

from lib.book.results import Check
from lib.book.wording import count, floats, ints, noun_for, number, paper_vs_book


def test_lists_and_numbers():
    assert ints([0, 1, 2, 3, 4]) == "0 to 4" and ints([0, 1, 2]) == "0, 1, 2"
    assert ints([0, 1, 2, 3], ranges=False) == "0, 1, 2, 3" and floats([0.5, 2.0]) == "0.5, 2"
    assert number(math.inf) == "∞" and number(float("nan")) == "—" and number(None) == "—"
    assert number(1234.5) == "1.23e+03" and number(0.1234, 2) == "0.12"


def test_a_count_names_one_thing_in_the_singular():
    assert count(1, "pair") == "1 pair" and count(2, "pair") == "2 pairs" and count(0, "pair") == "0 pairs"
    assert count(1, "data set/protocol pair") == "1 data set/protocol pair" and count(3, "axis", "axes") == "3 axes"
    assert count(1, "axis", "axes") == "1 axis"
    assert (noun_for(1, "depth"), noun_for(0, "depth"), noun_for(2, "depth")) == ("depth", "depths", "depths")
    assert noun_for(2, "axis", "axes") == "axes" and noun_for(1, "axis", "axes") == "axis"


def test_paper_vs_book_renders_the_rows_a_check_judged():
    row = dict(statement="kappa falls", paper="yes", **{"this book": "3 -> 2"}, rule="strict", holds=True)
    c = Check("[LH] Thm 2.3", status="reproduced", measured="m", rows=(row, dict(row, holds=None)))
    t = paper_vs_book([c, Check("[LH] Thm 2.3", status="reproduced", measured="m")])
    assert list(t.holds) == ["yes", "—"] and list(t.claim) == ["[LH] Thm 2.3"] * 2
    with pytest.raises(KeyError, match="rule"):
        paper_vs_book([Check("[LH] Thm 2.3", status="reproduced", rows=({"statement": "x"},))])
