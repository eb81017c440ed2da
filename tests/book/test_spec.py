"""The chapter parameter specs (lib.book.spec): one declaration gives defaults, checks, the
parameters cell and the profile checks."""
import pytest

from lib.book import params as P
from lib.book.params import ParameterError
from lib.book.spec import ChapterSpec, Param, write_cell


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
