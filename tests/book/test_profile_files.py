"""The notebooks' profile files as a chapter reads them while it runs (lib.book.profile_files)."""
import pytest

from lib.book.paths import ROOT
from lib.book.profile_files import ProfileError, load_profiles, profile_values


def _root(tmp_path, **files):
    (tmp_path / "notebooks" / "profiles").mkdir(parents=True)
    for stem, text in files.items():
        (tmp_path / "notebooks" / "profiles" / f"{stem}.yaml").write_text(text)
    return tmp_path


def test_profile_values_are_one_chapters_values_under_one_profile(tmp_path):
    root = _root(tmp_path, **{"09_demo": "smoke:\n  n: 3\npaper:\n  n: 60000\n  seeds: [0, 1]\n"})
    assert profile_values("09_demo", "paper", root) == {"n": 60000, "seeds": [0, 1]}
    assert profile_values("09_demo", "smoke", root) == {"n": 3}
    # a profile, or a chapter, that sets nothing: no values (the parameters cell's defaults run)
    assert profile_values("09_demo", "default", root) == {} and profile_values("10_none", "paper", root) == {}


def test_only_the_chapters_own_file_is_read_and_a_damaged_one_is_one_line(tmp_path):
    root = _root(tmp_path, **{"09_demo": "paper:\n  n: 5\n", "08_other": "paper: {n: [1\n"})
    assert profile_values("09_demo", "paper", root) == {"n": 5}      # the other chapter's damage is not read
    with pytest.raises(ProfileError, match="08_other.yaml is not valid YAML") as exc:
        profile_values("08_other", "paper", root)
    assert "\n" not in str(exc.value)


def test_the_repository_root_holds_the_profiles_the_chapters_read():
    assert (ROOT / "lib" / "book" / "paths.py").is_file()
    assert profile_values("07_performance", "paper") == load_profiles(ROOT)["paper"]["07_performance"]
