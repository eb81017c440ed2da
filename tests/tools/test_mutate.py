"""tools/mutate.py: which functions are the verdict logic, and which surviving mutants only change wording."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import mutate  # noqa: E402


def _package(tmp_path: Path) -> Path:
    pkg = tmp_path / "lib" / "chapters" / "demo"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "rules.py").write_text(
        "def decay_status(x):\n    return _inner(x)\n\ndef _inner(x):\n    return x > 0\n\n"
        "def unused_rule(x):\n    return x\n")
    (pkg / "claims.py").write_text(
        "from . import rules\nfrom .helpers import band\nfrom lib.other import far\n\n"
        "def check_one(r):\n    ok = rules.decay_status(r) and band(r) and far(r)\n    return local(ok)\n\n"
        "def local(ok):\n    return ok\n\ndef plot_one(r):\n    return band(r)\n")
    (pkg / "helpers.py").write_text("def band(r):\n    return r\n\ndef measure(r):\n    return r\n")
    return tmp_path


def test_the_scope_is_the_checks_and_the_chapter_functions_they_call_transitively(tmp_path):
    scope = mutate.verdict_functions(_package(tmp_path), "demo")
    assert scope == {"lib/chapters/demo/claims.py": ["check_one", "local"],
                     "lib/chapters/demo/helpers.py": ["band"],
                     "lib/chapters/demo/rules.py": ["_inner", "decay_status"]}


def test_mutant_name_patterns_name_each_function_in_scope(tmp_path):
    s = mutate.ChapterScope("demo", "09", mutate.verdict_functions(_package(tmp_path), "demo"))
    assert "lib.chapters.demo.rules.x_decay_status__mutmut_*" in s.patterns()
    assert not any("plot_one" in p or "measure" in p or "unused_rule" in p for p in s.patterns())


def _pair(old: str, new: str) -> tuple[str, str]:
    return (f"def f(x):\n    {old}\n    return Check('c', status=status)\n",
            f"def f(x):\n    {new}\n    return Check('c', status=status)\n")


@pytest.mark.parametrize("old, new", [
    ('measured = f"rho = {rho:.2f}, p = {p:.2g}"', 'measured = f"XXrho = {rho:.2f}, p = {p:.2g}XX"'),
    ('caveat = "the bound is vacuous"', 'caveat = "THE BOUND IS VACUOUS"'),
    ('text = "kappa falls " + note', 'text = "XXkappa fallsXX " + note'),
    ('measured += " " + "; ".join(parts)', 'measured = " " + "; ".join(parts)'),        # a wording variable
    ('row = dict(statement="s", rule=f"at most {TOL}", holds=ok)', 'row = dict(statement="s", holds=ok)'),
    ('row = dict(statement="s", rule=f"at most {TOL}", holds=ok)', 'row = dict(statement="s", rule=None, holds=ok)'),
    ('row = {"this book": f"{v:.2f}", "holds": ok}', 'row = {"this book": None, "holds": ok}'),
    ('c = Check("x", status=s, measured=m, caveat=cv)', 'c = Check("x", status=s, caveat=cv)'),
])
def test_a_mutant_inside_prose_or_a_text_field_only_changes_wording(old, new):
    assert mutate.wording_only(*_pair(old, new))


@pytest.mark.parametrize("old, new", [
    ('lin = df[df.arch == "linear"]', 'lin = df[df.arch == "XXlinearXX"]'),          # what the rule reads
    ('status = "reproduced"', 'status = "XXreproducedXX"'),                          # a status
    ('ok = rho >= RHO and p < ALPHA', 'ok = rho >= RHO or p < ALPHA'),               # logic
    ('ok = x <= 1 + TOL', 'ok = x < 1 + TOL'),
    ('label = "a b" if x > 1 else "c d"', 'label = "a b" if x >= 1 else "c d"'),     # prose, but also logic
    ('row = dict(statement="s", holds=ok)', 'row = dict(statement="s", holds=not ok)'),  # what a row judged
    ('c = Check("x", status=s, measured=m)', 'c = Check("x", status=None, measured=m)'),
    ('n = 2', 'n = 3'),
    ('m = measured_value(x)', 'm = measured_value(None)'),
])
def test_a_mutant_of_logic_or_of_a_name_can_change_a_status(old, new):
    assert not mutate.wording_only(*_pair(old, new))


def test_an_identical_or_unparsable_mutant_is_never_wording_only():
    src = "def f(x):\n    return x\n"
    assert not mutate.wording_only(src, src)
    assert not mutate.wording_only(src, "def f(x:\n")


def test_an_unknown_chapter_is_named(tmp_path):
    with pytest.raises(SystemExit, match="--chapter: unknown chapter"):
        mutate.run(Path(__file__).resolve().parents[2], ["99"], None, "mutmut")
