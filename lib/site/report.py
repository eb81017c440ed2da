"""Build the claim-by-claim reproducibility report and the errata from recorded results.

Everything here turns data the notebooks wrote (``results/*.json`` through
:func:`lib.book.results.verdict`) into MyST Markdown that the pages ``book/report.py`` and
``book/errata.py`` display. Nothing is typed by hand, so the pages cannot go stale: re-running a
chapter and rebuilding the book updates them. Links to the chapters come from
:mod:`lib.site.pages`; the figure index of the report page is :mod:`lib.site.figure_index`.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from lib.book.claims import CLAIMS, Claim, erratum_by_key, match_claim, resolve_claim_id
from lib.book.math_text import label_markdown, typeset
from lib.book.results import OUTSIDE_PIPELINE, VERDICTS, claim_status, report_label
from lib.book.sentences import cut_at_word, find_top_level, first_sentence, top_level
from lib.book.wording import count
from lib.site.pages import (chapter_headings, chapter_source, find_section, md_escape, section_link,
                            short_chapter_link)

__all__ = ["ClaimRow", "badge", "BADGES", "build_rows", "overall_status", "verdict_counts", "claim_counts",
           "KINDS", "row_kind", "rows_by_kind", "counts_apart", "GROUP_ORDER", "first_clause", "cut_phrase", "DANGLING",
           "deciding_record", "reason", "distinct_reasons", "phrase_problems", "where_checked",
           "report_table", "report_details", "one_line", "extra_table", "errata_entries", "errata_markdown",
           "confirmed_errata", "erratum_markdown",
           "provenance", "list_table"]

@dataclass
class ClaimRow:
    """One row of the report: a registry claim (or an unknown recorded id) and its verdicts.

    Attributes:
        claim_id: the registry id (or the unknown recorded id).
        statement: the claim's statement.
        records: the verdicts recorded on it.
        claim: the registry entry (None for an unknown id).
        borrowed: for a claim that takes the verdicts of others (:attr:`lib.book.claims.Claim.verdict_of`),
            their rows.
    """

    claim_id: str
    statement: str
    records: list[dict] = field(default_factory=list)
    claim: Claim | None = None
    borrowed: list["ClaimRow"] = field(default_factory=list)

    @property
    def unchecked_parts(self) -> int:
        """How many recorded parts are "not checked" while the row has a verdict of its own (shown beside
        the badge, so that a part that tested nothing never drops out of the row unseen)."""
        if self.status == "not checked":
            return 0
        return sum(r["status"] == "not checked" for r in self.records)

    @property
    def errata(self) -> list[str]:
        """The keys of the errata its records confirm (:attr:`lib.book.results.Check.erratum`), in order."""
        return list(dict.fromkeys(r["erratum"] for r in self.records if r.get("erratum")))

    @property
    def substance(self) -> list[dict]:
        """Its records without the parts that confirm an erratum: what the claim is judged on (an erratum is
        counted once, on the errata page, not as a failure of every claim that carries it)."""
        return [r for r in self.records if not r.get("erratum")] or self.records

    @property
    def status(self) -> str:
        """The row's verdict: its substance's (:func:`overall_status`), else its borrowed rows'."""
        if self.records or not self.borrowed:
            return overall_status(self.substance)
        return overall_status([dict(status=b.status) for b in self.borrowed])


# --------------------------------------------------------------------------- the claim table

def overall_status(records: list[dict]) -> str:
    """The verdict of a claim from its recorded parts: :func:`lib.book.results.claim_status` of their statuses
    (the most severe decisive verdict; "inconclusive" when every checked part is; "not checked" when no part was
    checked)."""
    return claim_status(r["status"] for r in records)


def build_rows(records: list[dict], claims: tuple[Claim, ...] = CLAIMS) -> tuple[list[ClaimRow], list[ClaimRow]]:
    """(one row per registry claim in paper order, one row per recorded id not in the registry).

    A record is matched by its exact registry id; anything else (e.g. a record of an older run under a
    retired id) is listed apart, never dropped. A claim with
    :attr:`lib.book.claims.Claim.verdict_of` and no record of its own takes the verdicts of those claims.

    Args:
        records: recorded verdicts (:func:`lib.book.results.load_all`).
        claims: the registry.

    Returns:
        The registry rows and the rows of unknown ids.

    Raises:
        ValueError: a record's status is not one of :data:`lib.book.results.VERDICTS`.
    """
    rows = {c.claim_id: ClaimRow(c.claim_id, c.statement, claim=c) for c in claims}
    extra: dict[str, ClaimRow] = {}
    for r in records:
        if r.get("status") not in VERDICTS:
            raise ValueError(f"{r.get('chapter')}: claim {r.get('claim_id')!r} has status "
                             f"{r.get('status')!r}, not one of {VERDICTS}")
        try:
            cid, part = resolve_claim_id(r["claim_id"])
        except KeyError:
            cid, part = None, ""
        if cid is not None and cid in rows:
            if part and not r.get("part"):
                r = dict(r, part=part)
            rows[cid].records.append(r)
        else:
            extra.setdefault(r["claim_id"], ClaimRow(r["claim_id"], r.get("claim", ""))).records.append(r)
    for row in rows.values():
        row.borrowed = [rows[i] for i in row.claim.verdict_of if i in rows]
    return list(rows.values()), list(extra.values())


def verdict_counts(rows: list[ClaimRow]) -> dict[str, int]:
    """How many rows have each overall verdict (every verdict name present, zeros included)."""
    counts = {v: 0 for v in VERDICTS}
    for row in rows:
        counts[row.status] += 1
    return counts


def claim_counts(claims: tuple[Claim, ...] = CLAIMS) -> dict[str, dict[str, int]]:
    """Per paper tag: how many claims the registry has, how many the book can test, how many it cannot.

    Args:
        claims: the registry.

    Returns:
        ``{paper: {"claims": n, "testable": k, "untestable": n - k}}``.
    """
    out: dict[str, dict[str, int]] = {}
    for c in claims:
        d = out.setdefault(c.paper, {"claims": 0, "testable": 0, "untestable": 0})
        d["claims"] += 1
        d["testable" if c.testable else "untestable"] += 1
    return out


#: How the report counts its rows; the papers' claims judged on their own, the rows that take another row's
#: verdict (:attr:`lib.book.claims.Claim.verdict_of`), and the book's own performance targets.
KINDS = {"paper": "the papers' claims", "inherited": "rows that take another row's verdict",
         "target": "the book's own performance targets"}


def row_kind(row: ClaimRow) -> str:
    """Which count of :data:`KINDS` a row belongs to: ``"target"`` for a book target, ``"inherited"`` for a row
    with no record of its own that takes the verdicts of others, else ``"paper"``."""
    if row.claim is not None and row.claim.paper == "book":
        return "target"
    if not row.records and row.borrowed:
        return "inherited"
    return "paper"


def rows_by_kind(rows: list[ClaimRow]) -> dict[str, list[ClaimRow]]:
    """The rows split by :func:`row_kind` (every kind present, in the order of :data:`KINDS`)."""
    out: dict[str, list[ClaimRow]] = {k: [] for k in KINDS}
    for row in rows:
        out[row_kind(row)].append(row)
    return out


def counts_apart(rows: list[ClaimRow]) -> dict[str, dict[str, int]]:
    """:func:`verdict_counts` of each kind of row (:data:`KINDS`), so that the papers' claims are counted apart
    from the book's targets and from the rows that only repeat another row's verdict."""
    return {kind: verdict_counts(group) for kind, group in rows_by_kind(rows).items()}


def provenance(r: dict) -> str:
    """One line saying how a record was produced: profile, overrides (labelled), commit, versions, wall time.

    Args:
        r: a recorded verdict (see :func:`lib.book.results.record`).

    Returns:
        E.g. ``"profile default, no overrides; commit 1a2b3c4d5e; python 3.11.9, numpy 1.26.4, torch 2.3.0;
        42 s into the run"``; a record made with ``-p`` overrides starts with **run with overrides**.
    """
    prof = r.get("profile") or "unknown"
    if not r.get("pipeline"):
        head = f"profile {prof}, {OUTSIDE_PIPELINE}"
    elif r.get("overrides"):
        head = ("**run with overrides**: profile " + prof + ", "
                + ", ".join(f"{k} = {json.dumps(v)}" for k, v in sorted(r["overrides"].items())))
    else:
        head = f"profile {prof}, no overrides"
    parts = [head]
    if r.get("commit"):
        parts.append(f"commit {r['commit']}")
    v = r.get("versions") or {}
    if v:
        parts.append(", ".join(f"{k} {x}" for k, x in v.items() if x))
    if r.get("wall_time_s") is not None:
        parts.append(f"{r['wall_time_s']:.0f} s into the run")
    return "; ".join(parts)



#: one sphinx-design badge colour per verdict, all distinct; green, orange, red, blue, dark grey
BADGES = {"reproduced": "bdg-success", "reproduced with caveat": "bdg-warning",
          "not reproduced": "bdg-danger", "inconclusive": "bdg-info", "not checked": "bdg-muted"}


def badge(status: str) -> str:
    """A coloured sphinx-design badge for a verdict."""
    return f"{{{BADGES[status]}}}`{status}`"


def _part_label(r: dict, row: ClaimRow) -> str:
    part = r.get("part")
    if part is None:
        try:
            part = resolve_claim_id(r["claim_id"])[1]
        except KeyError:
            part = r["claim_id"]
    return md_escape(label_markdown(part)) if part else "main"


def list_table(header: list[str], body: list[list[str]], widths: list[int], name: str) -> str:
    """A MyST ``list-table`` of ``body`` under ``header``, column ``widths`` in percent, CSS class ``name``."""
    lines = [":::{list-table}", ":header-rows: 1", f":widths: {' '.join(map(str, widths))}",
             ":width: 100%", f":class: {name}", ""]
    for row in [header] + body:
        for j, cell in enumerate(row):
            first, *rest = (cell or " ").split("\n")
            lines.append(("* - " if j == 0 else "  - ") + first)
            lines += [("    " + x) if x.strip() else "" for x in rest]
    lines.append(":::")
    return "\n".join(lines)


def one_line(text: str, limit: int = 110) -> str:
    """The first sentence of ``text`` (:func:`lib.book.sentences.first_sentence`), cut at a word boundary to at
    most about ``limit`` characters.

    A cut never splits inline math or a parenthesis (:func:`lib.book.sentences.cut_at_word`).

    Args:
        text: plain text with optional ``$...$`` math.
        limit: the longest line kept before cutting.

    Returns:
        One line, ending in "..." when something was cut.
    """
    text = " ".join(str(text).split())
    short = cut_at_word(first_sentence(text), limit)
    cut = len(short) < len(text)
    return short + (" ..." if cut and not short.endswith(".") else "")


#: Words a phrase cut for length may not end on: it would read as cut mid-thought ("... though their ...",
#: "... by up to 32% at ..."); :func:`cut_phrase` drops them before its ellipsis.
DANGLING = frozenset({"a", "an", "the", "of", "at", "by", "to", "in", "on", "for", "from", "with", "and", "or", "nor",
                      "than", "vs", "versus", "against", "over", "their", "its", "his", "her", "though", "although",
                      "as", "into", "that", "which", "while", "but", "is", "are", "was", "were", "be", "so", "if",
                      "when", "where", "whose", "every", "each", "per", "up", "down", "not", "no", "only", "still"})


def _shown_length(text: str) -> int:
    """About how many characters ``text`` takes on the page: inline math counts its symbols, not its TeX."""
    def math(m: re.Match) -> str:
        return "x" * len(re.sub(r"\\[A-Za-z]+|[{}$^_ ]", "", re.sub(r"\\[A-Za-z]+", "x", m.group(0))))
    return len(re.sub(r"\$[^$]+\$", math, text))


def cut_phrase(text: str, limit: int = 130) -> str:
    """``text`` when it shows at most about ``limit`` characters, else its longest start that does: cut after a whole
    item of a list (at a comma outside math and brackets) when that keeps at least half, else at a space outside math, code and
    brackets; trailing words that leave the phrase hanging (:data:`DANGLING`: "at", "their", "by", ...) and
    punctuation are dropped, and " ..." marks the cut. A cut never splits a word, a number or inline math.

    >>> cut_phrase("the late rate differs by up to 32% at depth 1 in seed 2", 40)
    'the late rate differs by up to 32% ...'
    """
    text = " ".join(str(text).split())
    if _shown_length(text) <= limit:
        return text
    mask = top_level(text)
    ends = [m.start() for m in re.finditer(r", ", text) if mask[m.start()]]
    fits = [i for i in ends if _shown_length(text[:i]) <= limit]
    if fits and _shown_length(text[:fits[-1]]) >= limit / 2:
        short = text[:fits[-1]]
    else:
        spaces = [i for i, ch in enumerate(text) if ch == " " and mask[i]]
        inside = [i for i in spaces if 0 < i and _shown_length(text[:i]) <= limit]
        short = text[:inside[-1]] if inside else text[:next(iter(spaces), len(text))]
    words = short.rstrip(",;: ").split(" ")
    while len(words) > 1 and words[-1].lower().strip(",;:") in DANGLING:
        words.pop()
    return " ".join(words).rstrip(",;: ") + " ..."


#: A bracket that holds data, not a remark: a number or a reference ("Eq. (7)"), a tuple of numbers ("(0.25, 1)").
_DATA_BRACKET = re.compile(r"\(\s*[-+]?[\d.,\s]+[a-z]?\s*\)")


def _drop_remarks(text: str) -> str:
    """``text`` without its parenthetical remarks. A remark is a bracket opened after a space, outside inline math,
    with what it holds (nested brackets too). Kept: a bracket glued to what precedes it (``1/(1 - cos phi)``,
    ``f(x)``: part of a formula), one after an operator (``x / (sqrt(L+1) y)``) or glued to what follows
    (``((pi - t) cos t)/pi``), one holding data
    (:data:`_DATA_BRACKET`), and a short label of at most 20 characters right after a number ("0.128 (m=128)",
    "-0.09 (swish)"), which says what the number is."""
    spans = re.findall(r"\$[^$]+\$", text)  # inline math is one token: never cut inside, never split on
    index = iter(range(len(spans)))
    text = re.sub(r"\$[^$]+\$", lambda m: f"\x00{next(index)}\x01", text)
    out, i = [], 0
    while i < len(text):
        if text[i] == "(" and i > 0 and text[i - 1].isspace():
            depth, j = 0, i
            while j < len(text):
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                if depth == 0:
                    break
                j += 1
            before = "".join(out).rstrip()
            bracket = text[i:j + 1]
            glued = j + 1 < len(text) and text[j + 1] not in " ,;:.)]"  # "(a + b)/c": a formula
            keep = (j == len(text) or glued or not before or before[-1] in "/*+-=<>^×·≤≥−(,"
                    or _DATA_BRACKET.fullmatch(bracket)
                    or (before[-1].isdigit() or before[-1] == "%") and len(bracket) <= 22)
            if not keep:
                out = [before]
                i = j + 1
                continue
        out.append(text[i])
        i += 1
    text = "".join(out)
    return re.sub(r"\x00(\d+)\x01", lambda m: spans[int(m.group(1))], text)


def first_clause(text: str, limit: int = 130) -> str:
    """The first clause of ``text``, for a reason cell: up to the first ``;``, ``:``, ``, which`` or sentence
    end, parenthetical remarks dropped (``_drop_remarks``), then at most about ``limit`` characters
    (:func:`cut_phrase`).

    Args:
        text: a caveat, a reason, a note.
        limit: the longest clause kept before cutting.

    Returns:
        The clause, with no final full stop ("..." when it was cut).
    """
    text = first_sentence(_drop_remarks(" ".join(str(text).split())))
    stop = find_top_level(r";\s|:\s|,\s+which\s|,\s+so\s", text)
    text = text[:stop.start()] if stop else text
    short = cut_phrase(text.strip().rstrip("."), limit)
    return short if short.endswith(" ...") else short.rstrip(".")


#: Openings of a measurement that only set the scene ("At n=512, width 512: ..."): the figure after the colon
#: stands for the row, the setting is in the dropdown.
_SETTING = re.compile(r"(At|On|Over|For|Where|With|Across|Along|In|Under)\b")


def _measured_clause(text: str, limit: int = 130) -> str:
    """The phrase of a part's measurement that states its figure: the first sentence up to a ``;``; a setting that
    opens it and ends at a colon ("At n=512, width 512, depth 10: the ratio is 1.02") gives way to the figure that
    follows; any other head before a colon is kept with what follows ("Crossover angles: L=1: 66.8 deg, ...", "On the
    grid g is increasing: yes"), so that a list never stands without what it lists."""
    flat = first_sentence(_drop_remarks(" ".join(str(text).split())))
    stop = find_top_level(r";\s", flat)
    flat = flat[:stop.start()] if stop else flat
    flat = flat.strip().rstrip(".")
    colon = find_top_level(r":\s", flat)
    if colon and re.search(r"\d", flat[colon.end():]):
        head, rest = flat[:colon.start()], flat[colon.end():]
        if _SETTING.match(head) and not re.search(r"\d.*(=|<|>|≤|≥| is | are | falls | rises )", head) \
                and len(rest) >= 25:
            flat = rest
        elif _shown_length(flat) > limit:  # the figure after the colon stays; what it is of gives way
            comma = find_top_level(r",\s", head) if _SETTING.match(head) else None
            if comma and len(head) - comma.end() >= 10:  # "On n = 30 points, kappa of ReLU / linear: ..."
                head = head[comma.end():]
            rest = cut_phrase(rest, limit * 2 // 3)
            flat = f"{cut_phrase(head, max(30, limit - _shown_length(rest) - 2))}: {rest}"
            return flat if flat.endswith(" ...") else flat.rstrip(".")
    short = cut_phrase(flat, limit)
    return short if short.endswith(" ...") else short.rstrip(".")


def _judged_clause(r: dict, status: str, limit: int = 130) -> str:
    """The statement a part judged (:attr:`lib.book.results.Check.rows`) that carries its verdict, as "what: the
    measured figure (paper: what it states)": the first judged row that holds for a reproduced part, the first that
    fails for a refuted one; ``""`` when the part judged none. The figure is kept whole; the statement is cut
    (:func:`cut_phrase`) to leave it room, and the paper's value is added only when it fits."""
    want = status == "reproduced"
    row = next((j for j in r.get("judged") or () if j.get("holds") is want), None)
    if row is None:
        return ""
    value = cut_phrase(" ".join(str(row["this book"]).split()), limit * 2 // 3)
    what = cut_phrase(" ".join(str(row["statement"]).split()), max(30, limit - _shown_length(value) - 2))
    text = f"{what}: {value}"
    paper = " ".join(str(row.get("paper", "")).split())
    if paper and not re.fullmatch(r"\([^()]*\)", paper) and _shown_length(f"{text} (paper: {paper})") <= limit:
        text += f" (paper: {paper})"
    return text


def _ref(text: str, label: str) -> str:
    """A MyST ``{ref}`` to ``label`` shown as ``text``."""
    return f"{{ref}}`{text.replace('<', chr(92) + '<').replace('`', chr(39))} <{label}>`"


def deciding_record(row: ClaimRow) -> dict | None:
    """The recorded part that gives a row its verdict: the first part of its substance with the row's verdict, one
    that names a caveat first (what qualifies or leaves open the claim); None for a row with no record. The
    row's reason (:func:`reason`) quotes it and its "Checked in" link (:func:`where_checked`) lands on its section."""
    decisive = [r for r in row.substance if r["status"] == row.status]
    return next((r for r in decisive if r.get("caveat")), decisive[0] if decisive else None)


def reason(row: ClaimRow) -> str:
    """Why a row has its verdict, in a phrase (MyST), derived from what is recorded only: for a row that takes
    other rows' verdicts, links to them; for a claim with no record, why (:attr:`lib.book.claims.Claim.untestable`,
    else its note); else, from the part that decides it (:func:`deciding_record`), the first clause
    (:func:`first_clause`) of its caveat (a deviation from the paper's protocol, a named caveat), else the statement it
    judged with the measured figure (``_judged_clause``), else the phrase of its measurement that states the figure
    (``_measured_clause``), or a word on the verdict itself. An erratum the row carries is linked, not counted
    (:attr:`ClaimRow.errata`); parts that tested nothing are counted.

    Args:
        row: a row of :func:`build_rows`.

    Returns:
        One short line of MyST Markdown.
    """
    if not row.records:
        if row.borrowed:
            return "takes the verdict of " + ", ".join(
                f"{_ref(b.claim_id, report_label(b.claim_id))} ({b.status})" for b in row.borrowed)
        if row.claim is not None and row.claim.untestable:
            return "cannot be tested here: " + md_escape(first_clause(row.claim.untestable))
        if row.claim is not None and row.claim.note:
            return "no chapter recorded a verdict: " + md_escape(first_clause(row.claim.note))
        return "no chapter recorded a verdict"
    r = deciding_record(row) or {}
    if r.get("caveat"):
        why = md_escape(first_clause(typeset(r["caveat"])))
    else:
        n = len(row.substance)
        many = "both parts agree: " if n == 2 else f"all {n} parts agree: " if n > 2 else ""
        figure = ""
        if row.status in ("reproduced", "not reproduced"):  # the measured figure against the rule
            figure = (_judged_clause(r, row.status) and typeset(_judged_clause(r, row.status))) \
                or (r.get("measured") and _measured_clause(typeset(r["measured"])))
        if figure:
            why = many + md_escape(figure)
        else:
            why = {"reproduced": many.rstrip(": ") or "agrees within the check's tolerance",
                   "not reproduced": "contradicted under the paper's protocol",
                   "not checked": "nothing measured"}.get(row.status, row.status)
    if row.unchecked_parts:
        why += f"; {row.unchecked_parts} of {len(row.records)} parts not checked"
    why += "".join(f"; its {_ref('erratum', key)} is counted once, apart" for key in row.errata)
    if any(r.get("overrides") for r in row.records):
        why += " **(run with overrides)**"
    return why


def _short_title(title: str, limit: int = 48) -> str:
    """A section's title short enough for a narrow column: up to a top-level colon, then cut at a word
    (:func:`cut_phrase`)."""
    title = " ".join(title.split())
    colon = find_top_level(r":\s", title)
    return cut_phrase(title[:colon.start()] if colon else title, limit)


def where_checked(row: ClaimRow, root: Path, from_doc: Path) -> str:
    """The "Checked in" cell: one link per chapter that recorded the row, to the section of its first record there
    (the deciding part's, :func:`deciding_record`, first), shown as the chapter's number and the section's title
    (``_short_title``); a section the page lacks gives the chapter's number and a link to its top."""
    first = deciding_record(row)
    by_chapter: dict[str, str | None] = {}
    for r in ([first] if first else []) + [r for r in row.records if r is not first]:
        by_chapter.setdefault(r["chapter"], r.get("section"))
    out = []
    for chapter, section in by_chapter.items():
        src = chapter_source(root, chapter)
        h = find_section(chapter_headings(src), section) if src is not None and section else None
        if src is None or h is None or not h.slug or h.level == 1:
            out.append(short_chapter_link(root, from_doc, chapter, None))
            continue
        number = int(chapter[:2]) if chapter[:2].isdigit() else chapter
        rel = os.path.relpath(src, Path(from_doc).parent).replace(os.sep, "/")
        title = _short_title(h.source).replace("[", "\\[").replace("]", "\\]")
        out.append(f"[Ch. {number} § {title}]({rel}#{h.slug})")
    return ", ".join(out)


#: The order of the verdict groups of the report's table; what contradicts or qualifies a claim first.
GROUP_ORDER = ("not reproduced", "reproduced with caveat", "inconclusive", "reproduced", "not checked")


def _claim_cell(row: ClaimRow) -> str:
    """The claim cell: the row's anchor (:func:`lib.book.results.report_label`), its id and its statement; only
    the first sentence (:func:`lib.book.sentences.first_sentence`, with " …") when the claim has a dropdown of measurements, which holds the
    whole statement (:func:`report_details`)."""
    statement = row.statement if row.claim else md_escape(row.statement)
    if row.records:
        first = first_sentence(statement)
        statement = first + " …" if len(first) < len(statement.rstrip()) else statement
    return f"({report_label(row.claim_id)})=\n**{md_escape(row.claim_id)}** {statement}"


def distinct_reasons(rows: list[ClaimRow]) -> dict[str, str]:
    """:func:`reason` of every row, by claim id, made distinct among the rows with records: rows whose reasons read
    alike (one caveat shared by three training theorems) each add a detail of the part that decides them: the head
    of its measurement (its first clause, :func:`first_clause`), else its part label, else the claim's statement, else
    its id: the first of these that the reason does not already say and that tells the rows apart, so that no two
    measured rows give the same reason (two targets whose caveat is their shared setting add their statements)."""
    out = {row.claim_id: reason(row) for row in rows}
    groups: dict[str, list[ClaimRow]] = {}
    for row in rows:
        if row.records:
            groups.setdefault(out[row.claim_id], []).append(row)
    for why, group in groups.items():
        if len(group) < 2:
            continue
        options = {row.claim_id: [x for x in _details(row) if x.lower() not in why.lower()] for row in group}
        levels = max(map(len, options.values()))
        for level in range(levels):
            shown = {cid: opts[min(level, len(opts) - 1)] if opts else "" for cid, opts in options.items()}
            if len(set(shown.values())) == len(shown):
                break
        for row in group:
            extra = shown[row.claim_id] if levels else ""
            if extra:
                out[row.claim_id] = f"{why} ({md_escape(extra[0].lower() + extra[1:])})"
    return out


def _details(row: ClaimRow) -> list[str]:
    """What tells a row apart, in order: its deciding part's measurement head, that part's label, the statement."""
    rec = deciding_record(row) or {}
    statement = row.claim.statement if row.claim is not None else ""
    found = [first_clause(typeset(str(x)), 60) for x in (rec.get("measured", ""), rec.get("part", ""), statement) if x]
    return [x for x in found if x] + [row.claim_id]


def phrase_problems(text: str) -> list[str]:
    """What keeps a reason cell (its text as shown, math included) from reading as a phrase: a bare word, a cut in
    the middle of a word or after a word that leaves it hanging ("... at ...", "... their ..."), a line that ends on
    a colon or a comma, or an unclosed bracket or formula. Empty when it reads as a phrase; the report's reasons
    (:func:`reason`) keep this rule, and the book's browser test reads every reason cell with it."""
    flat = " ".join(str(text).split())
    bare = re.sub(r"\$[^$]*\$|\\\(.*?\\\)", "x", flat)
    found = []
    if len(re.findall(r"[^\W\d_]{2,}|\d", bare)) < 2:
        found.append(f"a bare word: {flat!r}")
    cut = re.search(r"(\S*)\s*(?:\.\.\.|…)$", bare)
    if cut:
        word = cut.group(1).lower().strip(",;:")
        if not re.search(r"\s(?:\.\.\.|…)$", bare):
            found.append(f"cut inside a word: {flat[-40:]!r}")
        elif word in DANGLING or not re.search(r"[^\W_]", word):
            found.append(f"cut after {word!r}: {flat[-40:]!r}")
    if re.search(r"[:,;]$", bare):
        found.append(f"ends on a {bare[-1]!r}: {flat[-40:]!r}")
    if sum(map(bare.count, "([")) != sum(map(bare.count, ")]")):  # "(0, 60]" is an interval
        found.append(f"an unclosed bracket: {flat!r}")
    if flat.count("$") % 2:
        found.append(f"an unclosed formula: {flat!r}")
    return found


def _group_table(rows: list[ClaimRow], root: Path, from_doc: Path, with_badge: bool,
                 reasons: dict[str, str] | None = None) -> str:
    reasons = reasons if reasons is not None else distinct_reasons(rows)
    body = [[_claim_cell(row), (badge(row.status) + " " if with_badge else "") + reasons[row.claim_id],
             where_checked(row, root, from_doc) if row.records else ""] for row in rows]
    if not any(row.records for row in rows):  # e.g. rows that take others' verdicts: no empty column
        return list_table(["Claim", "Why"], [b[:2] for b in body], [62, 38], "report-table")
    return list_table(["Claim", "Why", "Checked in"], body, [56, 27, 17], "report-table")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def report_table(rows: list[ClaimRow], root: Path, from_doc: Path) -> str:
    """The reproducibility table (MyST list-tables), grouped: the papers' claims by verdict
    (:data:`GROUP_ORDER`, one table per verdict under its badge and count), then, counted apart
    (:func:`counts_apart`), the rows that take another row's verdict and the book's own targets, each row
    with its verdict badge. Every row carries its anchor (:func:`lib.book.results.report_label`), the claim,
    a short reason (:func:`reason`) and where it is checked; the measurements are in :func:`report_details`.

    Args:
        rows: the rows of :func:`build_rows`.
        root: the repository root.
        from_doc: the page the table appears on (for relative links).

    Returns:
        MyST Markdown (level-3 headings, one per group).
    """
    kinds = rows_by_kind(rows)
    reasons = distinct_reasons(rows)
    blocks = []
    for status in GROUP_ORDER:
        group = [r for r in kinds["paper"] if r.status == status]
        if group:
            blocks += [f"### {status.capitalize()}: {_plural(len(group), 'claim')}", "",
                       _group_table(group, root, from_doc, with_badge=False, reasons=reasons), ""]
    for kind in ("inherited", "target"):
        if kinds[kind]:
            counts = ", ".join(f"{n} {v}" for v, n in verdict_counts(kinds[kind]).items() if n)
            blocks += [f"### Counted apart: {KINDS[kind]} ({counts})", "",
                       _group_table(kinds[kind], root, from_doc, with_badge=True, reasons=reasons), ""]
    return "\n".join(blocks)


def report_details(rows: list[ClaimRow], root: Path, from_doc: Path) -> str:
    """The full measurement of every claim with recorded verdicts, one collapsed dropdown per claim,
    grouped by the chapter that recorded it: each part's verdict, caveat, measurement and how it was
    produced (:func:`provenance`), and a link to the section.

    Args:
        rows: the rows of :func:`build_rows`.
        root: the repository root.
        from_doc: the page the details appear on (for relative links).

    Returns:
        MyST Markdown (one level-3 heading per chapter).
    """
    by_chapter: dict[str, list[ClaimRow]] = {}
    for row in rows:
        if row.records:
            by_chapter.setdefault(row.records[0]["chapter"], []).append(row)
    blocks = []
    for chapter in sorted(by_chapter):
        src = chapter_source(root, chapter)
        title = next((h.source for h in chapter_headings(src) if h.level == 1), chapter) if src else chapter
        blocks.append(f"### {md_escape(title)}\n")
        for row in by_chapter[chapter]:
            parts = []
            many = len(row.records) > 1
            for r in row.records:
                prefix = f"*{_part_label(r, row)}* ({md_escape(r['status'])}): " if many else ""
                cav = f"*{md_escape(typeset(r['caveat']))}.* " if r.get("caveat") else ""
                parts.append(f"{prefix}{cav}{md_escape(typeset(r.get('measured', '')))}\n\n"
                             f"<small>{_md_provenance(r)}; "
                             f"{section_link(root, from_doc, r['chapter'], r.get('section'))}</small>")
            statement = row.statement if row.claim else md_escape(row.statement)
            blocks.append("\n".join([f":::{{dropdown}} {md_escape(row.claim_id)}: {row.status}",
                                      f"**The claim.** {statement}", "", "\n\n".join(parts), ":::", ""]))
    return "\n".join(blocks) if blocks else "*No verdict recorded.*"


def _md_provenance(r: dict) -> str:
    """:func:`provenance` with its text escaped (the bold override label kept)."""
    text = provenance(r)
    label = "**run with overrides**"
    if text.startswith(label):
        return label + md_escape(text[len(label):])
    return md_escape(text)


def extra_table(extra: list[ClaimRow], root: Path, from_doc: Path) -> str:
    """Recorded verdicts whose id is not in :data:`lib.book.claims.CLAIMS` (shown, never dropped)."""
    body = []
    for row in extra:
        for r in row.records:
            where = section_link(root, from_doc, r["chapter"], r.get("section"))
            body.append([f"**{md_escape(r['claim_id'])}** {md_escape(r.get('claim', ''))}\n\nChecked in: {where}",
                         badge(r["status"]), md_escape(typeset(r.get("measured", ""))) + f" ({_md_provenance(r)})"])
    return list_table(["Recorded claim, and where it is checked", "Verdict", "Measured"], body,
                       [38, 14, 48], "report-extra-table")


# --------------------------------------------------------------------------- errata

def errata_entries(records: list[dict]) -> dict[str, list[dict]]:
    """Recorded verdicts that contradict a paper ("not reproduced": by the verdict rules of
    :mod:`lib.book.results`, only a measurement under the paper's protocol, or one at least as
    favourable to the claim, earns it), and those that refine it ("reproduced with caveat"), in
    recording order. Only claims of a paper count; the book's own targets are not errata.

    Args:
        records: recorded verdicts.

    Returns:
        ``{"not reproduced": [...], "reproduced with caveat": [...]}``.
    """
    def of_paper(r):
        c = match_claim(r["claim_id"])
        return c is not None and c.paper != "book"
    return {st: [r for r in records if r["status"] == st and of_paper(r) and not r.get("erratum")]
            for st in ("not reproduced", "reproduced with caveat")}


def confirmed_errata(records: list[dict]) -> dict[str, list[dict]]:
    """The errata of :data:`lib.book.claims.ERRATA` that recorded verdicts confirm, each with the records that
    confirm it (one erratum, however many claims carry it)."""
    out: dict[str, list[dict]] = {}
    for r in records:
        if r.get("erratum"):
            out.setdefault(r["erratum"], []).append(r)
    return out


def erratum_markdown(confirmed: dict[str, list[dict]], root: Path, from_doc: Path) -> str:
    """One box per confirmed erratum (:func:`confirmed_errata`), under its anchor: what the paper states, what
    holds instead, and each claim that carries it with its measurement and where it was made."""
    if not confirmed:
        return "*None confirmed in this run.*"
    blocks = []
    for key, recs in confirmed.items():
        e = erratum_by_key(key)
        carried = [f"- **{md_escape(r['claim_id'])}** ({md_escape(label_markdown(r.get('part') or ''))}): "
                   f"{md_escape(typeset(r.get('measured', '')))} "
                   f"({section_link(root, from_doc, r['chapter'], r.get('section'))})" for r in recs]
        blocks.append("\n".join([
            f"({key})=", f"::::{{admonition}} Erratum: {e.title}", ":class: warning", "",
            f"**The paper states** {e.paper}.", "", f"**What holds instead.** {e.correct}", "",
            f"**Carried by {count(len(recs), 'claim part')}, each measured** ({_md_provenance(recs[0])}):", "",
            *carried, "::::", ""]))
    return "\n".join(blocks)


def errata_markdown(entries: list[dict], root: Path, from_doc: Path, kind: str = "warning") -> str:
    """One admonition box per entry: the exact statement of the paper it corrects (from the
    registry), what was measured and how (:func:`provenance`), and where."""
    if not entries:
        return "*None recorded in this run.*"
    blocks = []
    for r in entries:
        c = match_claim(r["claim_id"])
        where = f"{c.where} of the paper" if c else "the paper"
        statement = c.statement if c else md_escape(r.get("claim", ""))
        try:
            part = r.get("part") or resolve_claim_id(r["claim_id"])[1]
        except KeyError:
            part = ""
        title = md_escape(c.claim_id if c else r["claim_id"]) + (f" ({md_escape(label_markdown(part))})" if part else "")
        cav = f"*{md_escape(typeset(r['caveat']))}.* " if r.get("caveat") else ""
        corrected = [f"**The words it corrects.** {c.part_statement(part)}", ""] \
            if c is not None and part and dict(c.parts).get(part) else []
        blocks.append("\n".join([
            f"::::{{admonition}} {title}", f":class: {kind}", "",
            f"**What {md_escape(where)} states.** {statement}", "", *corrected,
            f"**What we measured** ({_md_provenance(r)}). {cav}{md_escape(typeset(r.get('measured', '')))}", "",
            f"**Where.** {section_link(root, from_doc, r['chapter'], r.get('section'))}",
            "::::", ""]))
    return "\n".join(blocks)
