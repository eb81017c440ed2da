"""The writer of the notebooks' parameters cells and the chapters' spec registry (lib.site.specs): all notebooks
or none, each default checked and read back first."""
import pytest

from lib.book import params as P
from lib.book.params import ParameterError
from lib.book.spec import ChapterSpec, Param
from lib.site.specs import write_cells


def _spec():
    return ChapterSpec("09_demo", dict(
        profile=Param("default", P.text, "profile of the run"),
        widths=Param([64, 128], P.int_list(min_value=1), "hidden widths m"),
    ))


def _notebook(tmp_path):
    src = tmp_path / "notebooks" / "09_demo.py"
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_text('# %% tags=["parameters"]\nprofile = "x"\n\n# %%\nprint(1)\n')
    return src


def _with_default(spec, name, default):
    from dataclasses import replace
    return replace(spec, params={**spec.params, name: replace(spec.params[name], default=default)})


@pytest.mark.parametrize("name,default,match", [
    ("widths", [0], "own checks.*'widths' must contain integers >= 1"),   # refused by its own checker
    ("profile", "a\nb", "'profile' holds a line break"),                  # would end the string mid-line
    ("profile", "tab\there", "'profile' holds a line break"),
])
def test_a_default_the_writer_cannot_write_leaves_the_notebook_untouched(tmp_path, name, default, match):
    src = _notebook(tmp_path)
    before = src.read_text()
    with pytest.raises(ParameterError, match=match):
        write_cells({src: _with_default(_spec(), name, default)})
    assert src.read_text() == before and not list(src.parent.glob(".*.tmp"))


@pytest.mark.parametrize("default", [float("nan"), float("inf"), object()])
def test_a_default_without_a_literal_that_reads_back_is_refused_even_if_its_checker_takes_it(tmp_path, default):
    """NaN passes a checker that does not look (here a pass-through), but ``nan`` in a notebook is a NameError."""
    spec = ChapterSpec("09_demo", dict(profile=Param("default", P.text, "profile of the run"),
                                       scale=Param(default, lambda name, v: v, "a number")))
    src = _notebook(tmp_path)
    before = src.read_text()
    with pytest.raises(ParameterError, match="'scale'.*reads back"):
        write_cells({src: spec})
    assert src.read_text() == before
    write_cells({src: _with_default(spec, "scale", 0.5)})   # counterfactual: a finite float is written
    assert "scale = 0.5  # a number" in src.read_text()


def test_one_bad_spec_leaves_every_notebook_untouched(tmp_path):
    good, bad = _notebook(tmp_path), tmp_path / "notebooks" / "10_demo.py"
    bad.write_text(good.read_text())
    with pytest.raises(ParameterError):
        write_cells({good: _spec(), bad: _with_default(_spec(), "widths", [0])})
    assert good.read_text() == bad.read_text() == '# %% tags=["parameters"]\nprofile = "x"\n\n# %%\nprint(1)\n'


def test_the_cli_exits_2_with_one_line_and_writes_nothing(tmp_path, monkeypatch, capsys):
    import lib.site.specs as S
    src = _notebook(tmp_path)
    monkeypatch.setattr(S, "CHAPTER_PACKAGES", {"09_demo": "nowhere"})
    monkeypatch.setattr(S, "chapter_spec", lambda stem: _with_default(_spec(), "widths", [0]))
    assert S.main(["--write"], root=tmp_path) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: 09_demo:") and "no notebook was changed" in err[0]
    assert 'profile = "x"' in src.read_text()
    monkeypatch.setattr(S, "chapter_spec", lambda stem: _spec())   # counterfactual: a good spec is written
    assert S.main(["--write"], root=tmp_path) == 0 and _spec().parameters_cell() in src.read_text()
