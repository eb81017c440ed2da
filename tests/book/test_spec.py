"""The chapter parameter specs (lib.book.spec): one declaration gives defaults, checks, the
parameters cell and the profile checks."""
import pytest

from lib.book import params as P
from lib.book.params import ParameterError
from lib.book.spec import ChapterSpec, Param
from lib.site.specs import write_cell


def _spec():
    def same_len(cfg):
        P.one_per(cfg, "labels", "widths")
    return ChapterSpec("09_demo", dict(
        profile=Param("default", P.text, "profile of the run"),
        widths=Param([64, 128], P.int_list(min_value=1), "hidden widths m"),
        labels=Param(None, P.optional(P.choices_list(["a", "b"])), "one label per width"),
    ), joint=(same_len,))


def test_validate_takes_the_spec_names_from_a_namespace_and_ignores_others():
    cfg = _spec().validate({"profile": "smoke", "widths": [8], "labels": None, "np": object()})
    assert cfg.widths == [8] and cfg.chapter == "09_demo" and cfg.values() == dict(profile="smoke", widths=[8],
                                                                                  labels=None)


def test_every_bad_parameter_is_named_in_one_message():
    with pytest.raises(ParameterError) as e:
        _spec().validate({"profile": "", "widths": [0], "labels": None})
    assert "'profile'" in str(e.value) and "'widths'" in str(e.value)


def test_a_missing_parameter_is_named():
    with pytest.raises(ParameterError, match="widths"):
        _spec().validate({"profile": "x", "labels": None})


def test_joint_rules_run_on_the_validated_config():
    with pytest.raises(ParameterError, match="labels"):
        _spec().config(labels=["a"])
    assert _spec().config(labels=["a", "b"]).labels == ["a", "b"]


def test_config_refuses_unknown_names_and_check_profile_names_the_profile():
    with pytest.raises(ParameterError, match="unknown parameter.*width"):
        _spec().config(width=3)
    with pytest.raises(ParameterError, match="profile 'smoke' of 09_demo"):
        _spec().check_profile("smoke", {"widths": [-1]})
    _spec().check_profile("paper", {"widths": [512]})


def test_parameters_cell_is_plain_literals_with_one_comment_each(tmp_path):
    cell = _spec().parameters_cell()
    assert cell.splitlines() == ['profile = "default"  # profile of the run',
                                 "widths = [64, 128]  # hidden widths m",
                                 "labels = None  # one label per width"]
    ns: dict = {}
    exec(cell, ns)
    assert _spec().validate(ns).widths == [64, 128]
    src = tmp_path / "09_demo.py"
    src.write_text('# %% tags=["parameters"]\nprofile = "x"\n\n# %%\nprint(1)\n')
    assert write_cell(src, _spec()) and cell in src.read_text() and not write_cell(src, _spec())


def test_a_doc_that_would_hide_the_line_from_papermill_is_refused():
    spec = ChapterSpec("09_demo", dict(profile=Param("default", P.text, "a = b")))
    with pytest.raises(ValueError, match="papermill"):
        spec.parameters_cell()


def test_the_parameters_table_names_what_set_each_value():
    from lib.book import params as P
    from lib.book.spec import ChapterSpec, Param
    spec = ChapterSpec("01_linear_baseline", dict(profile=Param("default", P.text, "the profile"),
                                                  widths=Param([2, 4], P.int_list(), "hidden widths | m"),
                                                  seeds=Param(3, P.positive_int, "weight draws"),
                                                  d=Param(5, P.positive_int, "input dimension")))
    cfg = spec.config(profile="paper", widths=[8], seeds=7)
    src = cfg.sources(overrides={"seeds": 7}, profile_values={"widths": [8], "seeds": 5})
    assert src == {"profile": "pipeline", "widths": "profile paper", "seeds": "override", "d": "default"}
    table = cfg.markdown(src)
    assert table.startswith("**Parameters of this run**")
    assert "| `widths` | `[8]` | profile paper | hidden widths / m |" in table
    assert "| `seeds` | `7` | override | weight draws |" in table and "| `d` | `5` | default |" in table


def test_the_executed_page_hides_the_parameter_cells_and_the_validate_code(tmp_path):
    import nbformat
    from lib.site.pipeline import hide_parameter_cells
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# T"),
                nbformat.v4.new_code_cell("a = 1", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell("a = 2", metadata={"tags": ["injected-parameters"]}),
                nbformat.v4.new_code_cell("from x import S\ncfg = S.validate(locals())"),
                nbformat.v4.new_code_cell("plot(cfg)", metadata={"tags": ["hide-input"]})]
    path = tmp_path / "n.ipynb"
    nbformat.write(nb, str(path))
    hide_parameter_cells(path)
    hide_parameter_cells(path)                       # idempotent
    tags = [c.metadata.get("tags", []) for c in nbformat.read(str(path), as_version=4).cells]
    assert tags == [[], ["parameters", "remove-cell"], ["injected-parameters", "remove-cell"], ["remove-input"],
                    ["hide-input"]]
