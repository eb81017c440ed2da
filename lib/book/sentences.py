"""Where a sentence or a clause of the book's own text ends, and where a long one may be cut: one home for
every shortened line (a figure's alt text, the title of its folded setting, the report's statement and reason
cells).

A full stop ends a sentence only when it stands outside inline math (``$...$``), code spans and brackets,
does not close an abbreviation of :data:`ABBREVIATIONS` ("Eq.", "App.", "e.g."), and is followed by white
space and a word that does not start in lower case or with a digit ("Values 1. 2" and "e.g. the" go on). A
line cut for length is cut at a space outside math, code and brackets, so that no cut leaves "(Eq" or an
unmatched ``$``.
"""
from __future__ import annotations

import re

__all__ = ["ABBREVIATIONS", "top_level", "find_top_level", "sentence_end", "first_sentence", "cut_at_word"]

#: Words after which a full stop does not end a sentence (the papers' references and common abbreviations),
#: compared in lower case.
ABBREVIATIONS = frozenset({"eq", "eqs", "sec", "secs", "thm", "thms", "fig", "figs", "app", "apps", "cor", "prop",
                           "def", "lem", "tab", "ch", "ref", "refs", "e.g", "i.e", "i.i.d", "vs", "cf", "al",
                           "resp", "approx", "viz", "param", "params"})

_OPEN, _CLOSE = "([{", ")]}"


def top_level(text: str) -> list[bool]:
    """For each character of ``text``, whether it stands outside inline math (``$...$``; ``\\$`` is a dollar),
    code spans (backticks) and brackets (``()``, ``[]``, ``{}``; an unmatched closing one is ignored).
    A delimiter itself counts as inside."""
    out: list[bool] = []
    math = code = False
    depth = 0
    for i, ch in enumerate(text):
        escaped = i > 0 and text[i - 1] == "\\"
        if ch == "$" and not escaped and not code:
            math = not math
            out.append(False)
        elif ch == "`" and not math:
            code = not code
            out.append(False)
        elif math or code:
            out.append(False)
        elif ch in _OPEN:
            depth += 1
            out.append(False)
        elif ch in _CLOSE:
            depth = max(depth - 1, 0)
            out.append(False)
        else:
            out.append(depth == 0)
    return out


def find_top_level(pattern: str, text: str) -> re.Match | None:
    """The first match of the regular expression ``pattern`` in ``text`` that starts outside math, code and
    brackets (:func:`top_level`), or None."""
    mask = top_level(text)
    return next((m for m in re.finditer(pattern, text) if m.start() < len(mask) and mask[m.start()]), None)


def _ends_sentence(text: str, i: int) -> bool:
    rest = text[i + 1:]
    if not rest[:1].isspace() or not rest.strip():
        return False
    nxt = rest.lstrip()[0]
    if nxt.islower() or nxt.isdigit():
        return False
    words = text[:i].split()
    word = words[-1].lstrip("([{*_\"'") if words else ""
    return word.lower() not in ABBREVIATIONS


def sentence_end(text: str) -> int | None:
    """The index of the full stop that ends the first sentence of ``text`` (see the module's docstring), or
    None when ``text`` is one sentence."""
    mask = top_level(text)
    return next((i for i, ch in enumerate(text) if ch == "." and mask[i] and _ends_sentence(text, i)), None)


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` with its full stop (all of ``text`` when it is one sentence).

    >>> first_sentence("Curves of Eq. 7 (see App. B. There). Next.")
    'Curves of Eq. 7 (see App. B. There).'
    """
    end = sentence_end(text)
    return text if end is None else text[:end + 1]


def cut_at_word(text: str, limit: int) -> str:
    """``text`` when it has at most ``limit`` characters, else its longest start of at most ``limit``
    characters that ends at a space outside math, code and brackets (without that space and a trailing
    ``,;:``); when there is none, the text up to the first such space, or all of it. The caller adds the
    ellipsis it wants."""
    if len(text) <= limit:
        return text
    mask = top_level(text)
    spaces = [i for i, ch in enumerate(text) if ch == " " and mask[i]]
    inside = [i for i in spaces if 0 < i <= limit]
    at = inside[-1] if inside else next((i for i in spaces if i > 0), len(text))
    return text[:at].rstrip(",;: ")
