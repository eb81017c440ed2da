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
