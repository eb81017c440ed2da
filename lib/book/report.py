"""Build the reproducibility report, the errata and the figure index from recorded results.

Everything here turns data the notebooks wrote (``results/*.json`` through
:func:`lib.book.results.verdict`, and the chapter notebooks themselves) into MyST Markdown that the
pages ``book/report.py`` and ``book/errata.py`` display. Nothing is typed by hand, so the pages
cannot go stale: re-running a chapter and rebuilding the book updates them.

Links to chapter sections use the heading slugs MyST computes (``myst_heading_anchors`` in
``_config.yml``); a link gets an anchor only when the heading really exists in the chapter, so a
renamed section degrades to a link to the chapter page instead of breaking the build.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from lib.book.claims import CLAIMS, Claim, match_claim, resolve_claim_id
from lib.book.results import OUTSIDE_PIPELINE, SEVERITY, VERDICTS

__all__ = ["Heading", "ClaimRow", "HEADING_ANCHOR_LEVEL", "toc_documents", "page_path", "chapter_source", "chapter_headings",
           "badge", "BADGES", "section_link", "chapter_links", "find_section", "build_rows", "overall_status", "verdict_counts",
           "report_table", "report_details", "one_line",
           "extra_table", "errata_entries", "errata_markdown", "caption_code", "figure_index", "figure_table",
           "md_escape", "provenance", "claim_counts"]

#: must equal ``myst_heading_anchors`` in ``_config.yml`` (a test checks it)
HEADING_ANCHOR_LEVEL = 3


@dataclass(frozen=True)
class Heading:
    """A Markdown heading of a chapter: level, source text (with math), text-only slug."""

    level: int
    source: str
    slug: str | None


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
    def status(self) -> str:
        """The row's verdict: its records' (:func:`overall_status`), else its borrowed rows'."""
        if self.records or not self.borrowed:
            return overall_status(self.records)
        return overall_status([dict(status=b.status) for b in self.borrowed])


# --------------------------------------------------------------------------- chapter structure

def toc_documents(root: Path) -> set[str]:
    """Every document named in ``_toc.yml`` (``root`` and each ``file``), without extension."""
    import yaml
    path = Path(root) / "_toc.yml"
    if not path.exists():
        return set()
    out: set[str] = set()

    def walk(node):
        if isinstance(node, dict):
            for key in ("root", "file"):
                if isinstance(node.get(key), str):
                    out.add(str(Path(node[key]).with_suffix("")) if Path(node[key]).suffix in
                            (".md", ".ipynb") else node[key])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(yaml.safe_load(path.read_text()) or {})
    return out


def page_path(root: Path, stem: str, folders: tuple[str, ...] = ("notebooks", "book")) -> Path | None:
    """Where the book reads the page ``stem`` from, per ``_toc.yml``, whether or not it exists yet.

    The book is built from the executed copies in ``_executed/`` (:mod:`lib.book.pipeline`), so the
    table of contents names e.g. ``_executed/notebooks/01_linear_baseline``; a page is found by
    its stem and its folder (``notebooks`` or ``book``), wherever that folder is.

    Args:
        root: the repository root (where ``_toc.yml`` is).
        stem: the page's file name without extension, e.g. ``"01_linear_baseline"``.
        folders: the folders a page may be in, in order of preference.

    Returns:
        The ``.ipynb`` path of the page (its ``.md`` when only that exists), or None when
        ``_toc.yml`` does not list it.
    """
    docs = sorted(toc_documents(root))
    for folder in folders:
        for doc in docs:
            d = Path(doc)
            if d.name == stem and d.parent.name == folder:
                md = Path(root) / f"{doc}.md"
                return md if md.exists() and not (Path(root) / f"{doc}.ipynb").exists() \
                    else Path(root) / f"{doc}.ipynb"
    return None


def chapter_source(root: Path, chapter: str) -> Path | None:
    """The page file of ``chapter`` (a notebook stem) if the book builds it (``_toc.yml`` lists
    it, see :func:`page_path`) and it exists: a link to any other file would break the build."""
    p = page_path(root, chapter)
    return p if p is not None and p.exists() else None


def _markdown_cells(path: Path) -> list[str]:
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text())
        return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                for c in nb["cells"] if c["cell_type"] == "markdown"]
    if path.suffix == ".py":
        import jupytext
        return [c.source for c in jupytext.read(path).cells if c.cell_type == "markdown"]
    return [path.read_text()]


def _md_parser():
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser
    cfg = MdParserConfig(enable_extensions={"dollarmath", "amsmath", "colon_fence", "deflist"})
    return create_md_parser(cfg, RendererHTML)


def chapter_headings(path: Path, anchor_level: int = HEADING_ANCHOR_LEVEL) -> list[Heading]:
    """Every heading of a notebook or Markdown page, with the slug MyST gives it.

    Mirrors ``myst_parser``'s ``compute_unique_slug``: the slug is made from the plain text and
    inline code of the heading (math is dropped), GitHub style, made unique across the page in
    order; headings deeper than ``anchor_level`` get no slug.
    """
    from myst_parser.mdit_to_docutils.base import default_slugify
    md = _md_parser()
    out: list[Heading] = []
    seen: set[str] = set()
    for text in _markdown_cells(Path(path)):
        tokens = md.parse(text)
        for i, tok in enumerate(tokens):
            if tok.type != "heading_open":
                continue
            inline = tokens[i + 1]
            level = int(tok.tag[1:])
            slug = None
            if level <= anchor_level:
                title = "".join(c.content for c in (inline.children or []) if c.type in ("text", "code_inline"))
                slug = base = default_slugify(title)
                k = 1
                while slug in seen:
                    slug = f"{base}-{k}"
                    k += 1
                seen.add(slug)
            out.append(Heading(level, inline.content, slug))
    return out


def _plain(s: str) -> str:
    return " ".join(s.replace("*", "").split()).strip().lower()


def find_section(headings: list[Heading], section: str | None) -> Heading | None:
    """The heading ``section`` names: exact text first, then the first heading it begins."""
    if not section:
        return None
    want = _plain(section)
    for h in headings:
        if _plain(h.source) == want:
            return h
    for h in headings:
        if h.level > 1 and _plain(h.source).startswith(want):
            return h
    return None


def section_link(root: Path, from_doc: Path, chapter: str, section: str | None) -> str:
    """Markdown for "chapter title, section" with a link that cannot break the build.

    ``from_doc`` is the page the link appears on. The link points at the section's anchor when
    the heading exists, at the chapter page when it does not, and is plain text when the
    chapter page itself is missing.
    """
    return chapter_links(root, from_doc, chapter, [section])


def chapter_links(root: Path, from_doc: Path, chapter: str, sections: list[str | None]) -> str:
    """``[chapter title](page), [§ section](page#anchor), ...`` for several sections of one
    chapter (see :func:`section_link`); duplicates are dropped."""
    sections = list(dict.fromkeys(s for s in sections if s))
    src = chapter_source(root, chapter)
    if src is None:
        return ", ".join([md_escape(chapter)] + [md_escape(s) for s in sections])
    heads = chapter_headings(src)
    title = next((h.source for h in heads if h.level == 1), chapter)
    rel = os.path.relpath(src, Path(from_doc).parent).replace(os.sep, "/")
    out = [f"[{_link_text(title)}]({rel})"]
    for section in sections:
        h = find_section(heads, section)
        if h is not None and h.slug:
            out.append(f"[§ {_link_text(section)}]({rel}#{h.slug})")
        else:
            out.append(f"§ {md_escape(section)}")
    return ", ".join(out)


def _link_text(s: str) -> str:
    return s.replace("[", "\\[").replace("]", "\\]")


# --------------------------------------------------------------------------- the claim table

def overall_status(records: list[dict]) -> str:
    """The verdict of a claim from its recorded parts: the most severe checked verdict
    (:data:`lib.book.results.SEVERITY`: not reproduced > inconclusive > with caveat > reproduced);
    "not checked" when no part was checked."""
    checked = [r["status"] for r in records if r["status"] in SEVERITY]
    if not checked:
        return "not checked"
    return max(checked, key=SEVERITY.__getitem__)


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


def md_escape(s: str) -> str:
    """One line of text safe inside a MyST list-table cell (keeps ``$...$`` math)."""
    s = " ".join(str(s).split())
    pieces = re.split(r"(\$[^$]+\$)", s)  # odd indices are inline math, kept verbatim
    return "".join(p if i % 2 else re.sub(r"([\\`*_\[\]<>|{}#$])", r"\\\1", p)
                   for i, p in enumerate(pieces))


#: one sphinx-design badge colour per verdict, all distinct: green, orange, red, blue, dark grey
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
    return md_escape(part or "main")


def _list_table(header: list[str], body: list[list[str]], widths: list[int], name: str) -> str:
    lines = [f":::{{list-table}}", ":header-rows: 1", f":widths: {' '.join(map(str, widths))}",
             ":width: 100%", f":class: {name}", ""]
    for row in [header] + body:
        for j, cell in enumerate(row):
            first, *rest = (cell or " ").split("\n")
            lines.append(("* - " if j == 0 else "  - ") + first)
            lines += [("    " + x) if x.strip() else "" for x in rest]
    lines.append(":::")
    return "\n".join(lines)


def one_line(text: str, limit: int = 110) -> str:
    """The first sentence of ``text``, cut at a word boundary to at most about ``limit`` characters.

    A cut never splits inline math: an unmatched ``$`` left by the cut is dropped with what follows it.

    Args:
        text: plain text with optional ``$...$`` math.
        limit: the longest line kept before cutting.

    Returns:
        One line, ending in "..." when something was cut.
    """
    text = " ".join(str(text).split())
    m = re.search(r"(?<=[a-z0-9)\]])\.\s+(?=[A-Z(])", text)
    short = text[:m.start() + 1] if m else text
    cut = len(short) > limit
    if cut:
        short = short[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    if short.count("$") % 2:
        short = short[:short.rindex("$")].rstrip()
        cut = True
    cut = cut or len(short) < len(text)
    return short + (" ..." if cut and not short.endswith(".") else "")


def _summary(row: ClaimRow) -> str:
    """The one-line "Measured" cell of the compact table."""
    if not row.records:
        if row.claim is not None and row.claim.untestable:
            return md_escape("Cannot be tested here: " + row.claim.untestable)
        if row.borrowed:
            return md_escape("Takes the verdict of " + ", ".join(f"{b.claim_id} ({b.status})" for b in row.borrowed))
        why = "No chapter recorded a verdict"
        if row.claim is not None and row.claim.note:
            why += f": {row.claim.note}"
        return md_escape(why)
    if len(row.records) > 1:
        return "; ".join(f"*{_part_label(r, row)}*: {md_escape(r['status'])}" for r in row.records)
    r = row.records[0]
    over = " **(run with overrides)**" if r.get("overrides") else ""
    return md_escape(one_line(r.get("measured", ""))) + over


def _where(row: ClaimRow, root: Path, from_doc: Path) -> str:
    by_chapter: dict[str, list] = {}
    for r in row.records:
        by_chapter.setdefault(r["chapter"], []).append(r.get("section"))
    return "; ".join(chapter_links(root, from_doc, ch, secs[:1]) for ch, secs in by_chapter.items())


def report_table(rows: list[ClaimRow], root: Path, from_doc: Path) -> str:
    """The reproducibility table, compact (MyST list-table): verdict badge, claim, a one-line summary of the
    measurement, and where it is checked. The full measurements are in :func:`report_details`.

    Args:
        rows: the rows of :func:`build_rows`.
        root: the repository root.
        from_doc: the page the table appears on (for relative links).

    Returns:
        MyST Markdown.
    """
    body = []
    for row in rows:
        claim = f"**{md_escape(row.claim_id)}** " + (row.statement if row.claim else md_escape(row.statement))
        body.append([badge(row.status), claim, _summary(row), _where(row, root, from_doc) if row.records else ""])
    return _list_table(["Verdict", "Claim", "Measured (in one line; in full below)", "Checked in"], body,
                       [13, 42, 30, 15], "report-table")


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
                cav = f"*{md_escape(r['caveat'])}.* " if r.get("caveat") else ""
                parts.append(f"{prefix}{cav}{md_escape(r.get('measured', ''))}\n\n"
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
                         badge(r["status"]), md_escape(r.get("measured", "")) + f" ({_md_provenance(r)})"])
    return _list_table(["Recorded claim, and where it is checked", "Verdict", "Measured"], body,
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
    return {st: [r for r in records if r["status"] == st and of_paper(r)]
            for st in ("not reproduced", "reproduced with caveat")}


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
        title = (c.claim_id if c else r["claim_id"]) + (f" ({part})" if part else "")
        cav = f"*{md_escape(r['caveat'])}.* " if r.get("caveat") else ""
        corrected = [f"**The words it corrects.** {c.part_statement(part)}", ""] \
            if c is not None and part and dict(c.parts).get(part) else []
        blocks.append("\n".join([
            f"::::{{admonition}} {md_escape(title)}", f":class: {kind}", "",
            f"**What {md_escape(where)} states.** {statement}", "", *corrected,
            f"**What we measured** ({_md_provenance(r)}). {cav}{md_escape(r.get('measured', ''))}", "",
            f"**Where.** {section_link(root, from_doc, r['chapter'], r.get('section'))}",
            "::::", ""]))
    return "\n".join(blocks)


# --------------------------------------------------------------------------- figure index

_CAPTION = re.compile(r"^\s*\*\s*Figure\s+(?P<num>\d+\.\d+)\.\s*(?P<text>.*?)\*\s*(?:\n\s*\n|\Z)", re.S | re.M)
_CODE = re.compile(r"`([^`]+)`")


def caption_code(caption: str) -> list[str]:
    """The ``lib`` objects a caption names in backticks, in order, without repeats.

    Full names (```lib.x.y```, also ```lib.x.y(...)```) are taken as written; a bare name
    (```y```) is resolved against the modules of the full names before it when it exists there.
    """
    import importlib
    out: list[str] = []
    for span in _CODE.findall(caption):
        m = re.match(r"(lib(?:\.\w+)+)", span)
        if m:
            name = m.group(1)
        elif re.fullmatch(r"[A-Za-z_]\w*", span):
            name = None
            for prev in reversed(out):
                mod = prev.rpartition(".")[0]
                try:
                    if hasattr(importlib.import_module(mod), span):
                        name = f"{mod}.{span}"
                        break
                except ImportError:
                    continue
            if name is None:
                continue
        else:
            continue
        if name not in out:
            out.append(name)
    return out


def figure_index(root: Path, chapters: list[str]) -> list[dict]:
    """Every figure caption (``*Figure N.k. ...*`` opening a Markdown cell) of the given
    chapters, with the section it is in and the ``lib`` objects it names (the code that drew
    it, see :func:`caption_code`)."""
    out = []
    for chapter in chapters:
        src = chapter_source(root, chapter)
        if src is None:
            continue
        section = None
        for text in _markdown_cells(src):
            heads = [h.source for h in chapter_headings_from_text(text)]
            if heads:
                section = heads[-1]
            for m in _CAPTION.finditer(text):
                out.append(dict(chapter=chapter, figure=m.group("num"), section=section,
                                caption=" ".join(m.group("text").split()),
                                code=caption_code(m.group("text"))))
    return out


def chapter_headings_from_text(text: str) -> list[Heading]:
    md = _md_parser()
    tokens = md.parse(text)
    return [Heading(int(t.tag[1:]), tokens[i + 1].content, None)
            for i, t in enumerate(tokens) if t.type == "heading_open"]


def _api_role(name: str, documented: set[str]) -> str:
    """``{py:obj}`` role for a documented lib object or module, plain code otherwise."""
    import importlib
    mod, _, attr = name.rpartition(".")
    if name in documented:
        return f"{{py:mod}}`{name}`"
    if mod in documented:
        try:
            obj = getattr(importlib.import_module(mod), attr)
        except (ImportError, AttributeError):
            return f"`{name}`"
        public = getattr(importlib.import_module(mod), "__all__", None)
        if (public is None and getattr(obj, "__module__", None) == mod and not attr.startswith("_")) or \
                (public is not None and attr in public):
            return f"{{py:obj}}`{name}`"
    return f"`{name}`"


def figure_table(figures: list[dict], root: Path, from_doc: Path, documented: set[str]) -> str:
    """The figure index as a list-table: figure, where it is, code that drew it (API links)."""
    body = []
    for f in figures:
        code = ", ".join(_api_role(n, documented) for n in f["code"]) or "(no lib function named)"
        body.append([f"Figure {f['figure']}", section_link(root, from_doc, f["chapter"], f["section"]),
                     code])
    return _list_table(["Figure", "Where (drawn by the cell above its caption)", "Code that drew it"],
                       body, [12, 48, 40], "figure-index-table")
