"""lib.book.sentences: a sentence ends at a full stop outside math, code and brackets that closes no
abbreviation; a long line is cut at a space outside them (the cuts it replaced: "Setting: infinite-width curves
(Eq" and the alt text "Gradient angles of the App")."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from lib.book.sentences import ABBREVIATIONS, cut_at_word, find_top_level, first_sentence, sentence_end, top_level


@pytest.mark.parametrize("abbr", ["Eq.", "Eqs.", "App.", "Sec.", "Fig.", "Thm.", "Cor.", "Prop.", "Lem.", "e.g.",
                                  "i.e.", "vs.", "cf.", "et al.", "approx.", "Ch.", "resp.", "i.i.d."])
def test_an_abbreviation_does_not_end_a_sentence(abbr):
    text = f"Curves as in {abbr} Smith and Figure 3. Then more."
    assert first_sentence(text) == f"Curves as in {abbr} Smith and Figure 3."


def test_the_abbreviations_are_compared_in_lower_case():
    assert all(a == a.lower() for a in ABBREVIATIONS)
    assert first_sentence("See EQ. Seven here. Next.") == "See EQ. Seven here."


@pytest.mark.parametrize("text, first", [
    ("Infinite-width curves (Eq. 7) at depths 1 to 8. Deviation: none.", "Infinite-width curves (Eq. 7) at depths 1 to 8."),
    ("Gradient angles of the App. B variations (markers: mean. Lines: the limit). Right: more.",
     "Gradient angles of the App. B variations (markers: mean. Lines: the limit)."),
    ("A list [one. Two] ends. Three.", "A list [one. Two] ends."),
    ("Unbalanced ) bracket. Next.", "Unbalanced ) bracket."),
    ("A bound $x = 0.27... . Y$ holds. Then more.", "A bound $x = 0.27... . Y$ holds."),
    ("Code `a. B` here. Next.", "Code `a. B` here."),
    ("Math ends $x$. Next.", "Math ends $x$."),
    ("Values 1. 2 and 3", "Values 1. 2 and 3"),          # a digit after the stop: not a new sentence
    ("Rates of 0.015 and 1.040. Next.", "Rates of 0.015 and 1.040."),  # a decimal point is not a stop
    ("Stops at 3. Next.", "Stops at 3."),
    ("lower. case goes on. Next", "lower. case goes on."),
    ("One sentence.", "One sentence."),
    ("Ends. ", "Ends. "),
    ("", ""),
])
def test_first_sentence_skips_brackets_math_code_and_decimals(text, first):
    assert first_sentence(text) == first


def test_sentence_end_is_the_index_of_the_stop_or_none():
    assert sentence_end("Ab. Cd.") == 2 and sentence_end("Ab (c. D).") is None


def test_top_level_marks_what_is_outside_math_code_and_brackets():
    assert top_level("a(b)c$d$e`f`g") == [True, False, False, False, True, False, False, False, True,
                                          False, False, False, True]
    assert top_level(r"a \$ b")[5] is True and top_level("a $ b")[4] is False  # an escaped dollar is text
    assert find_top_level(";", "a (b; c) $d;e$ f; g").start() == 16
    assert find_top_level(";", "(a; b)") is None


def test_a_cut_is_at_a_space_outside_brackets_and_math():
    text = "infinite-width curves (Eq. 7 at depths L = 0 to 10) on a grid"
    assert cut_at_word(text, 40) == "infinite-width curves"
    assert cut_at_word(text, 100) == text
    assert cut_at_word("a $x + y + z$ b", 8) == "a"
    assert cut_at_word("one, two, three", 8) == "one"  # the comma before the space goes too
    assert cut_at_word("(all one group) tail", 5) == "(all one group)"  # no earlier space: the first one
    assert cut_at_word("word", 2) == "word"


@given(st.text(alphabet="ab ().$;`Eq", max_size=60), st.integers(1, 60))
def test_a_cut_never_leaves_an_open_bracket_or_math(text, limit):
    short = cut_at_word(text, limit)
    assert text.startswith(short)
    if short != text:
        mask = top_level(text)
        assert len(short) == 0 or mask[len(short)] or text[len(short)] in ",;: "
    sentence = first_sentence(text)
    assert text.startswith(sentence)
