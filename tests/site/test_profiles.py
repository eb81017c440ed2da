"""The profiles page reads its tables from the sources (lib.site.profiles)."""
from pathlib import Path

from lib.book.paths import ROOT
from lib.book.profile_files import PROFILES
from lib.site.profiles import chapter_tables, parameter_table

DEMO = """# %% [markdown]
# # 9. Demo

# %% tags=["parameters"]
profile = "default"  # parameter profile
n = 2  # a size (the paper has 2000)
widths = [64, 128]  # widths
"""


def test_profile_values_are_the_cell_with_the_yaml_on_top(tmp_path):
    (tmp_path / "notebooks" / "profiles").mkdir(parents=True)
    src = tmp_path / "notebooks" / "09_demo.py"
    src.write_text(DEMO)
    (tmp_path / "notebooks" / "profiles" / "09_demo.yaml").write_text("smoke:\n  n: 1\npaper:\n  n: 2000\n")
    (tmp_path / "jupytext.toml").write_text((ROOT / "jupytext.toml").read_text())
    t = parameter_table(src, tmp_path).set_index("parameter")
    assert list(t.index) == ["n", "widths"]
    assert (t.loc["n", "smoke"], t.loc["n", "default"], t.loc["n", "paper"]) == ("1", "2", "2000")
    assert t.loc["widths", "paper"] == "[64, 128]"  # not overridden: the default
    assert t.loc["n", "what it is"] == "a size (the paper has 2000)"


def test_every_chapter_has_a_table_with_every_profile():
    tables = chapter_tables()
    assert len(tables) == len(list((ROOT / "notebooks").glob("[0-9][0-9]_*.py")))
    for title, t in tables.items():
        assert list(t.columns) == ["parameter", *PROFILES, "what it is"], title
        assert len(t) >= 1 and "profile" not in set(t["parameter"])
