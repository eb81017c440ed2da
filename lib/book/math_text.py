"""Plain-text math in verdict sentences, typeset for the page: one home for "kappa_0" -> $\\kappa_0$.

A check writes its measurement as plain text (``measured=``, ``caveat=``), because the verdict files are
read by programs and by people in a terminal: ``||K/c - G||_F``, ``kappa_0``, ``m^(-1/2)``, ``sqrt(L+1)``,
``+-``. A page shows them as typeset math beside the typeset statements: :func:`typeset` turns
the notations the chapters use into MyST inline math (``$...$``) and Unicode operators, and leaves alone
what is already math or code (``$...$``, backticks, ``{ref}`` roles).

The rules, in the order they are tried at each position of the text:

* ``sqrt(a)`` -> $\\sqrt{a}$;
* ``base^exp`` with ``base`` a word, a number, ``(...)`` (one level of brackets inside: ``(sqrt(q) z)^2``),
  ``|x|`` or ``||...||`` and ``exp`` ``(...)`` or a short token (``m^(-1/2)``, ``(L+1)^p``, ``||x||^2``) -> $base^{exp}$;
* ``||a||`` (optionally followed by a subscript such as ``_F``) -> $\\|a\\|_F$;
* a Greek letter's name, with an optional subscript (``kappa_0``, ``theta_in``, ``lambda_min``,
  ``Delta_K``) -> $\\kappa_0$, $\\theta_{\\mathrm{in}}$, $\\lambda_{\\min}$, $\\Delta_K$;
* a one-letter symbol with a short subscript (``c_L``, ``K_xx``, ``w_0``) -> $c_L$, $K_{xx}$, $w_0$;
* a Greek letter or a one-letter symbol marked with a star (a fixed point: ``rho*``, ``chi*``, ``x*``) ->
  $\\rho^*$, $\\chi^*$, $x^*$, so that the star is never read as Markdown emphasis;
* outside math: ``+-`` -> ±, ``<=`` -> ≤, ``>=`` -> ≥, ``->`` -> →, ``!=`` -> ≠, and the word ``inf`` -> ∞.
"""
from __future__ import annotations

import html
import re

__all__ = ["GREEK", "typeset", "MATH_SPAN", "typeset_html", "to_tex", "escape_emphasis", "is_formula", "label_markdown", "label_text"]

#: Greek letters written out in the chapters' plain text (``Delta`` for the capital)
GREEK = ("alpha", "beta", "gamma", "delta", "Delta", "epsilon", "eta", "theta", "kappa", "lambda", "mu", "rho",
         "sigma", "tau", "phi", "chi", "psi", "omega", "pi")
_G = "|".join(sorted(GREEK, key=len, reverse=True))
_OPERATORS_TEX = (("+-", r"\pm "), ("<=", r"\le "), (">=", r"\ge "), ("!=", r"\ne "), ("->", r"\to "))
_OPERATORS_TEXT = (("+-", "±"), ("<=", "≤"), (">=", "≥"), ("!=", "≠"), ("->", "→"))
_NAMED_SUBSCRIPTS = {"min": r"\min", "max": r"\max"}
_ITALIC_SUBSCRIPTS = {"xx", "xz", "zz", "ij", "ii", "jj", "L", "t", "b", "k"}  # indices, not words
_ACCENTS = {"bar": "\\bar", "hat": "\\hat", "tilde": "\\tilde"}  # K_bar -> \bar K
_WORDS_TEX = {"grad": r"\nabla ", "inf": r"\infty", "log": r"\log ", "exp": r"\exp ", "cos": r"\cos ",
              "sin": r"\sin ", "arccos": r"\arccos "}

# a span the typesetter must leave alone: inline math, a code span, a MyST role with its target
_PROTECTED = re.compile(r"(\$[^$]+\$|\{[\w-]+\}`[^`]*`|`[^`]*`)")
_SUB = r"(?:_(?:\{[^{}]{1,12}\}|[A-Za-z0-9]{1,4}))"
_TOKEN = re.compile(
    r"(?P<sqrt>\bsqrt\((?P<arg>[^()]{1,40})\))"
    r"|(?P<power>(?P<base>\|\|[^|$`]{1,40}\|\|" + _SUB + r"?|(?<!\|)\|[^|$`\s]{1,20}\|"
    r"|\((?:[^()$`]|\([^()$`]{1,20}\)){1,30}\)"
    r"|\b[A-Za-z]\w*|\b\d+(?:\.\d+)?)"
    r"\^(?P<exp>\([^()]{1,20}\)|[-+]?[A-Za-z0-9.]+(?:/[A-Za-z0-9]+)?))"
    r"|(?P<norm>\|\|(?P<inner>[^|$`]{1,60})\|\|(?P<nsub>" + _SUB + r")?)"
    r"|(?P<star>\b(?:" + _G + r"|[A-Za-z])" + _SUB + r"?\*(?![*\w]))"
    r"|(?P<greek>\b(?:" + _G + r")" + _SUB + r"?\b)"
    r"|(?P<sym>\b[A-Za-z]_(?:[A-Za-z0-9]{1,3}|bar|hat|tilde)\b)")


def _subscript(sub: str) -> str:
    s = sub.strip("{}")
    if s in _NAMED_SUBSCRIPTS:
        return "_{" + _NAMED_SUBSCRIPTS[s] + "}"
    if len(s) == 1:
        return "_" + s
    return "_{\\mathrm{" + s + "}}" if s.isalpha() and s not in _ITALIC_SUBSCRIPTS else "_{" + s + "}"


def to_tex(expr: str) -> str:
    """TeX for a plain-text expression (the inside of a norm, a root, a power): Greek names, subscripts,
    ``||``, ``sqrt(...)``, ``grad``, the comparison operators; other words of several letters upright."""
    out = re.sub(r"\bsqrt\(([^()]*)\)", lambda m: "\\sqrt{" + to_tex(m.group(1)) + "}", expr)
    out = out.replace("||", "\\|")
    out = re.sub(r"\^\(([^()]{1,12})\)", r"^{(\1)}", out)  # a^(l): the superscript (l), brackets and all
    for a, b in _OPERATORS_TEX:
        out = out.replace(a, b)

    def word(m: re.Match) -> str:
        w, sub = m.group(1), m.group(2) or ""
        if w in GREEK:
            head = "\\" + w
        elif w in _WORDS_TEX:
            head = _WORDS_TEX[w]
        elif len(w) == 1:
            head = w
        else:
            head = "\\mathrm{" + w + "}"
        if sub[1:] in _ACCENTS:
            return _ACCENTS[sub[1:]] + "{" + head + "}"
        return head + (_subscript(sub[1:]) if sub else "")
    return re.sub(r"(?<![\\\w])([A-Za-z]+)(" + _SUB + r")?(?![\w{])", word, out)


def _math(m: re.Match) -> str:
    if m.group("sqrt"):
        return "$\\sqrt{" + to_tex(m.group("arg")) + "}$"
    if m.group("power"):
        exp = m.group("exp")
        exp = exp[1:-1] if exp.startswith("(") else exp
        return "$" + to_tex(m.group("base")) + "^{" + to_tex(exp) + "}$"
    if m.group("norm"):
        sub = m.group("nsub") or ""
        return "$\\|" + to_tex(m.group("inner")) + "\\|" + (_subscript(sub[1:]) if sub else "") + "$"
    if m.group("star"):
        return "$" + to_tex(m.group(0)[:-1]) + "^*$"
    return "$" + to_tex(m.group(0)) + "$"


def _plain(piece: str) -> str:
    piece = _TOKEN.sub(_math, piece)
    parts = re.split(r"(\$[^$]+\$)", piece)
    for i in range(0, len(parts), 2):  # operators and infinity in the text between the new math spans
        for a, b in _OPERATORS_TEXT:
            parts[i] = parts[i].replace(a, b)
        parts[i] = re.sub(r"(?<![\w.])(-?)inf\b", lambda m: ("−" if m.group(1) else "") + "∞", parts[i])
    return "".join(parts)


def typeset(text: str) -> str:
    """``text`` with its plain-text math typeset (the rules are in the module's docstring); inline math,
    code spans and MyST roles are kept as they are.

    Args:
        text: a verdict's measured sentence or caveat (``lib.book.results.Check.measured``).
    """
    pieces = _PROTECTED.split(text)
    return "".join(p if i % 2 else _plain(p) for i, p in enumerate(pieces))


#: the element Sphinx writes around inline math: its class ``math`` is one of MathJax's ``processHtmlClass`` names in
#: MyST's configuration, so MathJax typesets it even inside a notebook's output on a page marked ``mathjax_ignore``,
#: and readers of the HTML know it for math
MATH_SPAN = '<span class="math notranslate nohighlight">'


def typeset_html(text: str) -> str:
    """``text`` typeset (:func:`typeset`) for an HTML table cell, where Markdown's ``$...$`` is not read: each math
    span becomes MathJax's inline ``\\(...\\)`` in the span Sphinx writes around math (:data:`MATH_SPAN`) and
    everything is HTML-escaped (``<`` in a statement is text, never a tag).

    Args:
        text: a judged row's statement, the paper's value, this book's value or the rule
            (:func:`lib.book.wording.paper_vs_book`).
    """
    parts = re.split(r"(\$[^$]+\$)", typeset(text))
    return "".join(html.escape(p, quote=False) if i % 2 == 0 else
                   MATH_SPAN + "\\(" + html.escape(p[1:-1], quote=False) + "\\)</span>" for i, p in enumerate(parts))


def escape_emphasis(text: str) -> str:
    """``text`` with every lone ``*`` outside inline math, code spans and MyST roles escaped (``\\*``), so that
    Markdown shows it as a star instead of opening emphasis; ``**bold**`` is kept. For the verdict sentences a
    notebook displays (:func:`lib.book.results.record`); the report escapes its cells whole
    (:func:`lib.site.pages.md_escape`)."""
    pieces = _PROTECTED.split(text)
    return "".join(p if i % 2 else re.sub(r"(?<![*\\])\*(?!\*)", r"\\*", p) for i, p in enumerate(pieces))


def is_formula(text: str) -> bool:
    """Whether ``text`` is one formula in plain text (``"K = (L+1)^2 G"``): an ``=``, ``<``, ``>`` or ``^`` and, for
    words, only one-letter symbols and Greek names, so that it reads best typeset whole."""
    words = re.findall(r"[A-Za-z]+", text)
    return bool(re.search(r"[=<>^]", text)) and all(len(w) == 1 or w in GREEK or w in _WORDS_TEX for w in words)


def label_markdown(label: str) -> str:
    """A part label (:attr:`lib.book.results.Check.part`) for a Markdown page: a formula typeset whole
    (:func:`is_formula`: ``"K = (L+1)^2 G"`` -> $K = (L+1)^{2} G$), anything else through :func:`typeset`
    (``"rho* below 1"`` -> $\\rho^*$ below 1)."""
    if is_formula(label):
        return "$" + re.sub(r"\^(\w+)", r"^{\1}", to_tex(label)) + "$"
    return typeset(label)


_SUPERSCRIPTS = str.maketrans("0123456789-+", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")
_GREEK_LETTERS = dict(zip(GREEK, "αβγδΔεηθκλμρστφχψωπ"))


def label_text(label: str) -> str:
    """A part label as the plain text of a link (a link's text holds no math): Greek names as letters and short
    powers as superscripts (``"K = (L+1)^2 G"`` -> ``"K = (L+1)² G"``, ``"rho* below 1"`` -> ``"ρ* below 1"``)."""
    out = re.sub(r"\^\(?([-+]?\d{1,2})\)?", lambda m: m.group(1).translate(_SUPERSCRIPTS), label)
    for a, b in _OPERATORS_TEXT:
        out = out.replace(a, b)
    return re.sub(r"\b(" + _G + r")(?=_|\*|\b)", lambda m: _GREEK_LETTERS[m.group(1)], out)
