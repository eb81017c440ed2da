"""The book's Sphinx extension: the API reference directive and offline page hygiene.

The directive ``{lib-api}`` (for MyST Markdown pages) documents every public module of the
``lib`` package with ``automodule`` (members, in source order), one section per module. A package's
``__all__`` that re-exports its submodules' functions (a chapter's thin public layer) is listed as links to
where they are documented, once (:func:`split_reexports`), never documented a second time. The
module list is found by walking the package at build time, so a module added later appears by
itself and a module that is not there yet cannot break the build. ``:modules:`` restricts the
page to a list (names that do not import are reported in the page, not as build warnings).
The docstrings themselves (Google style: ``Args:``, ``Returns:``, ``Raises:``, ``Attributes:``)
are rendered by Sphinx's own ``sphinx.ext.napoleon`` (options in ``_config.yml``).

Page hygiene: Jupyter Book 1 always loads ``sphinx_thebe``, which writes its inline configuration
script twice into every page (a JavaScript error, "THEBE_JS_URL has already been declared") and
points at a CDN. The book runs no live kernels (``launch_buttons: thebe: false``), so
:func:`drop_thebe_scripts` removes those scripts from every page. ``html_context: default_mode``
in ``_config.yml`` fixes the theme's other console error.

Loaded through ``_config.yml`` (``sphinx: extra_extensions: [..., lib.site.sphinxext]``); documents the
``lib`` that Python imports (the editable install of the repository).
"""
from __future__ import annotations

import functools
import gc
import importlib
import pkgutil

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

__all__ = ["public_modules", "split_reexports", "api_home", "module_lines", "LibApi", "drop_thebe_scripts", "keep_value_docs_as_prose", "setup", "PARALLEL_SAFE_UNDECLARED", "declare_parallel_safe",
           "COLLECT_EVERY", "freeze_read_objects", "collect_now_and_then", "unfreeze"]


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


def _lists(module: str, attr: str) -> bool:
    """Whether ``module`` documents ``attr`` as its own public member (in its ``__all__``, or with no ``__all__``
    a public name it defines)."""
    mod = importlib.import_module(module)
    public = getattr(mod, "__all__", None)
    if public is not None:
        return attr in public
    obj = getattr(mod, attr, None)
    return not attr.startswith("_") and getattr(obj, "__module__", None) == module


def split_reexports(name: str, modules: list[str]) -> tuple[list[str], dict[str, str]]:
    """A module's public names split into those it defines and those it re-exports from another of ``modules``.

    A name is re-exported when another module of ``modules`` defines the same object and lists it
    (listed in its ``__all__``, or defined there when it has none): a function's or class's ``__module__``; for a constant, a module inside ``name`` (not a
    package) whose ``__all__`` lists it under that name. A module without ``__all__`` defines all its members.

    Args:
        name: the module (e.g. ``"lib.chapters.conditioning"``).
        modules: the public modules documented beside it (:func:`public_modules`).

    Returns:
        ``(own, reexported)``: the names documented here, in ``__all__``'s order, and the others with the module
        that documents each.
    """
    own, moved = _split_reexports(name, tuple(modules))
    return list(own), dict(moved)


@functools.lru_cache(maxsize=None)
def _split_reexports(name: str, modules: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """:func:`split_reexports`, once per module and documented set in a process (the figure index asks once per
    figure's code name, about 90 times a build), as tuples so that no caller can change the memo."""
    mod = importlib.import_module(name)
    own, moved = [], {}
    for n in list(getattr(mod, "__all__", []) or []):
        obj = getattr(mod, n, None)
        home = getattr(obj, "__module__", None) if callable(obj) or isinstance(obj, type) else None
        if home is None or home == name:  # a constant: the module inside this one that lists and holds it
            home = next((m for m in modules if m.startswith(name + ".") and _lists(m, n)
                         and getattr(importlib.import_module(m), n, None) is obj
                         and not hasattr(importlib.import_module(m), "__path__")), None)
        if home and home != name and home in modules and _lists(home, n) \
                and getattr(importlib.import_module(home), n, None) is obj:
            moved[n] = home
        else:
            own.append(n)
    return tuple(own), tuple(moved.items())


def api_home(module: str, attr: str, modules: list[str]) -> str | None:
    """The module whose section of the API page documents ``module.attr`` (:func:`split_reexports`), or None when
    the page does not document it (not public there, or ``module`` not on the page)."""
    if module not in modules or not _lists(module, attr):
        return None
    return split_reexports(module, modules)[1].get(attr, module)


def _documented(module: str, attr: str) -> bool:
    """Whether autodoc writes an entry for ``module.attr``: a function or class with a docstring, a constant with a
    ``#:`` comment (autodoc leaves undocumented members out)."""
    obj = getattr(importlib.import_module(module), attr, None)
    if callable(obj) or isinstance(obj, type):
        return bool(getattr(obj, "__doc__", None))
    from sphinx.pycode import ModuleAnalyzer
    try:
        return ("", attr) in ModuleAnalyzer.for_module(module).find_attr_docs()
    except Exception:  # noqa: BLE001 - no source: nothing documented
        return False


def module_lines(name: str, modules: list[str]) -> list[str]:
    """The MyST lines of one module's section of the API page: ``automodule`` with the members it defines, then
    one line naming the members it re-exports (:func:`split_reexports`), each a link to where it is documented."""
    own, moved = split_reexports(name, modules)
    if not moved:
        members = ["   :members:"]
    else:
        members = ["   :members: " + ", ".join(own)] if own else []
    rst = [f".. automodule:: {name}", *members, "   :member-order: bysource"]
    if moved:
        refs = [f":py:obj:`~{home}.{n}`" if _documented(home, n) else f"``{n}`` (``{home}``)"
                for n, home in moved.items()]
        # one reference per line of one paragraph: docutils refuses a line longer than 10,000 characters
        rst += ["", "Re-exported from its modules:", *[r + ("," if i < len(refs) - 1 else ".") for i, r in enumerate(refs)]]
    return [f"## `{name}`", "", "```{eval-rst}", *rst, "```", ""]


class LibApi(SphinxDirective):
    """``{lib-api}``: one section with ``automodule`` per public module of a package.

    Options: ``:package:`` (default ``lib``) and ``:modules:`` (a space- or comma-separated list).
    """

    has_content = False
    option_spec = {"modules": directives.unchanged, "package": directives.unchanged}

    def run(self) -> list:
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
            lines += module_lines(name, found)
        if missing:
            lines += ["Not documented (module missing or failing to import): "
                      + ", ".join(f"`{n}`" for n in missing), ""]
        node = nodes.container()
        nested_parse_with_titles(self.state, StringList(lines, source="lib-api"), node)
        return node.children


def drop_thebe_scripts(app, pagename, templatename, context, doctree) -> None:
    """``html-page-context`` handler: remove sphinx-thebe's scripts (thebe is off)."""
    scripts = context.get("script_files")
    if not scripts:
        return
    keep = [s for s in scripts
            if "thebe" not in str(s) and "THEBE_JS_URL" not in str(getattr(s, "attributes", {}).get("body", ""))]
    context["script_files"] = keep


def keep_value_docs_as_prose(app, what: str, name: str, obj, options, lines: list[str]) -> None:
    """``autodoc-process-docstring`` handler, run after napoleon's: a constant's, attribute's or property's description
    stays prose.

    Napoleon reads the first line of a ``data`` or ``attribute`` docstring as ``type: description`` wherever it
    has a colon, so "The parts of [LZB] Lemma 3.1 the checks record: (label, ...)" became a type field
    ``[LZB] Lemma 3.1 ...`` (an unresolved ``LZB`` target, and a wrong type shown). The line napoleon split
    is joined again and its ``:type:`` field dropped; types belong in annotations here, never in that line.
    """
    if what not in ("data", "attribute", "property"):
        return
    typed = [i for i, line in enumerate(lines) if line.startswith(":type: ")]
    if not typed:
        return
    i = typed[-1]
    head = lines[i][len(":type: "):]
    del lines[i]
    if i > 0 and not lines[i - 1].strip():
        del lines[i - 1]
    if lines and lines[0].strip():
        lines[0] = f"{head}: {lines[0]}"
    else:
        lines[:1] = [f"{head}:"]


def setup(app) -> dict:
    """Register ``{lib-api}`` and the thebe-script filter."""
    app.add_directive("lib-api", LibApi)
    app.connect("html-page-context", drop_thebe_scripts)
    app.connect("builder-inited", declare_parallel_safe)
    app.connect("env-updated", freeze_read_objects)
    app.connect("autodoc-process-docstring", keep_value_docs_as_prose, priority=600)  # after napoleon's (500)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


#: Extensions of the book that do not say whether Sphinx may read and write pages in parallel (Sphinx then
#: reads one page at a time and warns, which ``-W`` makes an error), each read for why it may:
#: ``sphinx_multitoc_numbering`` (loaded by ``sphinx_external_toc``) only replaces the toctree collector's
#: ``assign_section_numbers``, which Sphinx calls in the main process on the merged environment after every
#: page was read; ``sphinx-mathjax-offline`` only sets ``mathjax_path`` and copies its files when the build
#: has finished; ``sphinx_jupyterbook_latex`` (loaded by Jupyter Book) changes only the doctree of the page
#: being read, and sets its environment values at ``builder-inited`` for a LaTeX builder only.
PARALLEL_SAFE_UNDECLARED = ("sphinx_multitoc_numbering", "sphinx-mathjax-offline", "sphinx_jupyterbook_latex")


def declare_parallel_safe(app) -> None:
    """Declare the extensions of :data:`PARALLEL_SAFE_UNDECLARED` safe for Sphinx's parallel build (``-j``),
    as their authors did not; an extension that declares it itself is left alone. Connected to
    ``builder-inited``, when every extension is loaded and before any page is read."""
    for name in PARALLEL_SAFE_UNDECLARED:
        ext = app.extensions.get(name)
        if ext is None:
            continue
        if ext.parallel_read_safe is None:
            ext.parallel_read_safe = True
        if ext.parallel_write_safe is None:
            ext.parallel_write_safe = True


#: While pages are written, a full garbage collection after every this many pages (see :func:`freeze_read_objects`).
COLLECT_EVERY = 40

_written = [0]  # pages written by this process


def freeze_read_objects(app, env) -> None:
    """Once every page is read, move what the build holds (the environment, and ``lib`` and torch that
    autodoc imported: about 1.9 million objects) out of the garbage collector's reach (``gc.freeze``),
    and collect only every :data:`COLLECT_EVERY` pages while writing (:func:`collect_now_and_then`).

    Sphinx then writes the pages and ~140 ``viewcode`` module pages; the collector's automatic full
    collections walked all those objects again and again: on the smoke book, on a loaded 2-core machine,
    59 of them took 193 s of a 299 s build; frozen, with automatic collection on, still 102 s of 208 s
    (the frozen heap makes them frequent); frozen with a collection every 40 pages, 104 s in all and a
    peak of 1.6 GB (3.3 GB never collecting). Forked writer processes (``-j``) share the frozen objects
    instead of copying them.
    """
    gc.collect()
    gc.freeze()
    gc.disable()
    app.connect("html-page-context", collect_now_and_then)
    app.connect("build-finished", unfreeze)


def collect_now_and_then(app, pagename, templatename, context, doctree) -> None:
    """Collect garbage after every :data:`COLLECT_EVERY` pages written (automatic collection is off)."""
    _written[0] += 1
    if _written[0] % COLLECT_EVERY == 0:
        gc.collect()


def unfreeze(app, exception) -> None:
    """At the end of the build: the garbage collector as it was (automatic, nothing frozen)."""
    gc.unfreeze()
    gc.enable()
