"""lib.site.sphinxext: a constant's description is never read by napoleon as a type field."""
from sphinx.ext.napoleon import Config
from sphinx.ext.napoleon.docstring import GoogleDocstring

from lib.site.sphinxext import keep_value_docs_as_prose

LINE = "The parts of [LZB] Lemma 3.1 the checks record: (part label, frame column)."


def _napoleon(lines, what):
    return str(GoogleDocstring(lines, Config(napoleon_use_ivar=True), what=what, name="lib.x.PARTS"))


def test_without_the_handler_napoleon_makes_the_first_clause_a_type():
    assert ":type: The parts of [LZB]" in _napoleon([LINE], "data")


def test_a_constants_or_attributes_description_stays_prose():
    for what in ("data", "attribute", "property"):
        lines = _napoleon([LINE, "second line"], what).splitlines()
        keep_value_docs_as_prose(None, what, "lib.x.PARTS", None, {}, lines)
        assert lines == [LINE, "second line"]
    lines = _napoleon(["Ends with a colon:", "  indented"], "data").splitlines()
    keep_value_docs_as_prose(None, "data", "lib.x.C", None, {}, lines)
    assert lines[0] == "Ends with a colon:" and ":type:" not in "\n".join(lines)


def test_a_functions_docstring_is_left_alone():
    lines = ["", ":type: x"]
    keep_value_docs_as_prose(None, "function", "lib.x.f", None, {}, lines)
    assert lines == ["", ":type: x"]
    empty = []
    keep_value_docs_as_prose(None, "data", "lib.x.C", None, {}, empty)
    assert empty == []


def test_a_packages_reexports_are_links_and_each_function_is_documented_once():
    """A chapter package's ``__all__`` re-exports its modules' functions: the package's section links them, the module
    that defines each documents it (the API page had documented 877 names twice)."""
    from lib.site.sphinxext import module_lines, public_modules, split_reexports
    found = public_modules()
    own, moved = split_reexports("lib.chapters.conditioning", found)
    assert own == [] and moved["measure_mnist_figure3"] == "lib.chapters.conditioning.mnist_figure3"
    assert moved["CELL_VERSION"] == "lib.chapters.conditioning.cells"  # a constant: found by the module listing it
    lines = module_lines("lib.chapters.conditioning", found)
    assert "   :members:" not in lines and not any(l.startswith("   :members: ") for l in lines)
    assert any(":py:obj:`~lib.chapters.conditioning.mnist_figure3.measure_mnist_figure3`" in l for l in lines)
    assert "   :members:" in module_lines("lib.chapters.conditioning.mnist_figure3", found)  # defines its own
    own, moved = split_reexports("lib.data.base", found)  # a module that defines most and re-exports one
    assert "fingerprint" in own and moved and not set(own) & set(moved)
    assert f"   :members: {', '.join(own)}" in module_lines("lib.data.base", found)
    # every object the package exports is documented exactly once over the whole page
    import importlib
    cond = importlib.import_module("lib.chapters.conditioning")
    documented = {n: [m for m in found if n in split_reexports(m, found)[0]
                      and getattr(importlib.import_module(m), n, None) is getattr(cond, n)] for n in cond.__all__}
    assert {n: ms for n, ms in documented.items() if len(ms) != 1} == {}


def test_the_split_is_computed_once_per_module_and_no_caller_changes_it():
    """The figure index asks for a module's split once per figure's code name: it is remembered, and what a caller
    gets is its own copy (a change to it does not reach the next caller)."""
    from lib.site.sphinxext import public_modules, split_reexports
    found = public_modules()
    own, moved = split_reexports("lib.data.base", found)
    own.append("not_a_name")
    moved["not_a_name"] = "lib.data"
    again_own, again_moved = split_reexports("lib.data.base", found)
    assert "not_a_name" not in again_own and "not_a_name" not in again_moved
    assert (again_own, again_moved) == (own[:-1], {k: v for k, v in moved.items() if k != "not_a_name"})
    from lib.site import sphinxext
    before = sphinxext._split_reexports.cache_info().hits  # noqa: SLF001 - the memo under test
    split_reexports("lib.data.base", found)
    assert sphinxext._split_reexports.cache_info().hits == before + 1  # noqa: SLF001


def test_no_line_of_the_api_page_reaches_docutils_limit():
    """docutils refuses a line of 10,000 characters or more (chapter 04's package re-exports 207 names)."""
    from lib.site.sphinxext import module_lines, public_modules
    found = public_modules()
    longest = max(len(line) for m in found for line in module_lines(m, found))
    assert longest < 1000
