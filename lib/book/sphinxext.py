"""The book's Sphinx extension: the API reference directive and offline page hygiene.

The directive ``{lib-api}`` (for MyST Markdown pages) documents every public module of the
``lib`` package with ``automodule`` (members, in source order), one section per module. The
module list is found by walking the package at build time, so a module added later appears by
itself and a module that is not there yet cannot break the build. ``:modules:`` restricts the
page to a list (names that do not import are reported in the page, not as build warnings).

The docstrings of ``lib`` are plain text with Google-style sections (``Args:``, ``Returns:``,
``Raises:``, ``Attributes:``) and formulas such as ``|x|`` or ``a^(l)``, not reStructuredText.
:func:`docstring_to_rst` converts them so that they render as written and can never emit a
Sphinx warning: sections become field lists, indented or ragged paragraphs (formulas) become
literal blocks, and reST markup characters elsewhere are escaped (``literal`` and
``:role:`target``` spans are kept). Cross-references in the API page that do not resolve are
shown as code and listed in the build log instead of failing the build.

Page hygiene: Jupyter Book 1 always loads ``sphinx_thebe``, which writes its inline configuration
script twice into every page (a JavaScript error, "THEBE_JS_URL has already been declared") and
points at a CDN. The book runs no live kernels (``launch_buttons: thebe: false``), so
:func:`drop_thebe_scripts` removes those scripts from every page. ``html_context: default_mode``
in ``_config.yml`` fixes the theme's other console error.

Loaded through ``_config.yml`` (``sphinx: extra_extensions: [..., lib.book.sphinxext]``); documents the
``lib`` that Python imports (the editable install of the repository).
"""
from __future__ import annotations

import importlib
import pkgutil
import re

__all__ = ["public_modules", "docstring_to_rst", "escape_rst", "drop_thebe_scripts", "setup"]

API_DOCS_KEY = "lib_api_docnames"
_SECTIONS = {
    "args": "param", "arguments": "param", "parameters": "param", "params": "param",
    "keyword args": "param", "keyword arguments": "param", "other parameters": "param",
    "attributes": "ivar", "returns": "returns", "return": "returns", "yields": "returns",
    "raises": "raises", "example": "rubric", "examples": "rubric", "note": "rubric",
    "notes": "rubric", "see also": "rubric", "references": "rubric", "warning": "rubric",
    "warnings": "rubric",
}
_KEEP = re.compile(r"(``.+?``|:[\w.+-]+(?::[\w.+-]+)?:`[^`]+`)")
_ITEM = re.compile(r"^(\*{0,2}[A-Za-z_][\w.,\s]*?)\s*(?:\(([^)]*)\))?\s*:(?:\s+(.*))?$")
_BULLET = re.compile(r"^([-*+]|\d+[.)])\s+")


def public_modules(package: str = "lib") -> list[str]:
    """Names of the importable public modules of ``package`` (no ``_private`` parts), sorted,
    the package itself first. A module that fails to import is left out."""
    pkg = importlib.import_module(package)
    names = [package]
    for info in pkgutil.walk_packages(pkg.__path__, prefix=package + "."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        names.append(info.name)
    out = []
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a broken module must not break the book
            continue
        out.append(name)
    return [out[0]] + sorted(out[1:]) if out else []


def escape_rst(text: str) -> str:
    """Escape reST inline markup in one line of plain text, keeping ````literal```` and
    ``:role:`target``` spans as they are."""
    out = []
    for i, piece in enumerate(_KEEP.split(text)):
        if i % 2:
            out.append(piece)
            continue
        piece = re.sub(r"([\\*|`])", r"\\\1", piece)
        piece = re.sub(r"(?<=\w)_(?=\W|$)", r"\\_", piece)   # name_ would be a reference
        piece = re.sub(r"(?<![\w\\])_(?=\w)", r"\\_", piece)  # _name could start a target
        out.append(piece)
    return "".join(out)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _paragraphs(lines: list[str]) -> list[list[str]]:
    paras, cur = [], []
    for line in lines:
        if line.strip():
            cur.append(line.rstrip())
        elif cur:
            paras.append(cur)
            cur = []
    if cur:
        paras.append(cur)
    return paras


def _literal(lines: list[str]) -> list[str]:
    base = min(_indent(x) for x in lines)
    return ["::", ""] + ["    " + x[base:] for x in lines] + [""]


def _free_text(lines: list[str]) -> list[str]:
    """Plain paragraphs: flush-left ones are escaped text (bullets kept), others literal."""
    out: list[str] = []
    i = 0
    block = [x.rstrip() for x in lines]
    while i < len(block):
        line = block[i]
        if line.rstrip().endswith("::"):          # an explicit literal block: keep verbatim
            out.append(escape_rst(line.rstrip()[:-2]) + "::")
            j = i + 1
            while j < len(block) and (not block[j].strip() or _indent(block[j]) > _indent(line)):
                out.append(block[j])
                j += 1
            out.append("")
            i = j
            continue
        j = i
        para = []
        while j < len(block) and block[j].strip():
            para.append(block[j])
            j += 1
        i = j + 1 if j > i else i + 1
        if not para:
            continue
        if para[0].lstrip().startswith(">>>"):
            out += [x.strip() for x in para] + [""]
        elif all(_indent(x) == 0 for x in para):
            out += [escape_rst(x) for x in para] + [""]
        elif _BULLET.match(para[0]) and _bullet_list(para):
            out += _bullet_list(para) + [""]
        else:
            out += _literal(para)
    return out


def _bullet_list(para: list[str]) -> list[str] | None:
    """A flush-left bullet list whose continuation lines are indented: reST list, else None."""
    items: list[list[str]] = []
    for x in para:
        m = _BULLET.match(x)
        if m and _indent(x) == 0:
            items.append([m.group(0), x[m.end():]])
        elif items and _indent(x) > 0:
            items[-1].append(x.strip())
        else:
            return None
    return ["- " + escape_rst(" ".join(it[1:]).strip()) for it in items]


def _section(kind: str, title: str, body: list[str]) -> list[str]:
    if kind == "rubric":
        return [f".. rubric:: {title}", ""] + _free_text(body)
    if kind in ("returns", "raises"):
        text = " ".join(x.strip() for x in body if x.strip())
        label = "Returns" if kind == "returns" else "Raises"
        return [f":{label}: {escape_rst(text)}", ""] if text else []
    items: list[list] = []
    base = min((_indent(x) for x in body if x.strip()), default=0)
    for x in body:
        if not x.strip():
            continue
        m = _ITEM.match(x.strip()) if _indent(x) == base else None
        if m:
            items.append([m.group(1).strip(), m.group(2), [m.group(3) or ""]])
        elif items:
            items[-1][2].append(x.strip())
        else:
            items.append(["", None, [x.strip()]])
    out = []
    for name, typ, desc in items:
        text = escape_rst(" ".join(d for d in desc if d).strip())
        if typ:
            text = f"({escape_rst(typ)}) {text}".strip()
        field = kind if name else "param"
        safe = re.sub(r"[^\w.,*]", "", name.replace(" ", "")) or "value"
        out.append(f":{field} {escape_rst(safe)}: {text}" if name else f":Notes: {text}")
    return out + [""]


def docstring_to_rst(lines: list[str]) -> list[str]:
    """Convert a plain-text, Google-style docstring (already dedented) to warning-free reST."""
    out: list[str] = []
    i = 0
    free: list[str] = []
    while i < len(lines):
        line = lines[i]
        key = line.strip().rstrip(":").lower()
        if _indent(line) == 0 and line.strip().endswith(":") and key in _SECTIONS:
            out += _free_text(free)
            free = []
            j = i + 1
            body = []
            while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > 0):
                body.append(lines[j])
                j += 1
            out += _section(_SECTIONS[key], line.strip().rstrip(":"), body)
            i = j
            continue
        free.append(line)
        i += 1
    out += _free_text(free)
    while out and not out[-1].strip():
        out.pop()
    return out


def _process_docstring(app, what, name, obj, options, lines):
    lines[:] = docstring_to_rst(list(lines)) + [""]


def drop_thebe_scripts(app, pagename, templatename, context, doctree) -> None:
    """``html-page-context`` handler: remove sphinx-thebe's scripts (thebe is off)."""
    scripts = context.get("script_files")
    if not scripts:
        return
    keep = [s for s in scripts
            if "thebe" not in str(s) and "THEBE_JS_URL" not in str(getattr(s, "attributes", {}).get("body", ""))]
    context["script_files"] = keep


def setup(app):
    from docutils import nodes
    from docutils.parsers.rst import directives
    from docutils.statemachine import StringList
    from sphinx.util import logging
    from sphinx.util.docutils import SphinxDirective
    from sphinx.util.nodes import nested_parse_with_titles

    log = logging.getLogger(__name__)
    unresolved: list[str] = []

    class LibApi(SphinxDirective):
        has_content = False
        option_spec = {"modules": directives.unchanged, "package": directives.unchanged}

        def run(self):
            docs = getattr(self.env, API_DOCS_KEY, set())
            docs.add(self.env.docname)
            setattr(self.env, API_DOCS_KEY, docs)
            package = self.options.get("package", "lib")
            found = public_modules(package)
            wanted = self.options.get("modules")
            names = [n.strip() for n in wanted.replace(",", " ").split()] if wanted else found
            missing = [n for n in names if n not in found]
            lines: list[str] = []  # MyST Markdown: the directive is used in book/api.md
            for name in names:
                if name in missing:
                    continue
                # autodoc writes reStructuredText, so its directive must run inside eval-rst
                lines += [f"## `{name}`", "", "```{eval-rst}", f".. automodule:: {name}",
                          "   :members:", "   :member-order: bysource", "```", ""]
            if missing:
                lines += ["Not documented (module missing or failing to import): "
                          + ", ".join(f"`{n}`" for n in missing), ""]
            node = nodes.container()
            nested_parse_with_titles(self.state, StringList(lines, source="lib-api"), node)
            return node.children

    def quiet_api_refs(app_, domain, node):
        """Unresolved references on the API page come from docstrings: keep them as code."""
        if app_.env.docname in getattr(app_.env, API_DOCS_KEY, set()) or \
                "docstring of" in str(node.source or ""):
            unresolved.append(f"{node.get('reftype')}:{node.get('reftarget')}")
            return True
        return None

    def report(app_, exc):
        if unresolved:
            log.info(f"lib.book.sphinxext: {len(unresolved)} docstring reference(s) left as code: "
                     + ", ".join(sorted(set(unresolved))[:40]))

    app.add_directive("lib-api", LibApi)
    app.connect("autodoc-process-docstring", _process_docstring, priority=400)
    app.connect("warn-missing-reference", quiet_api_refs)
    app.connect("build-finished", report)
    app.connect("html-page-context", drop_thebe_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
