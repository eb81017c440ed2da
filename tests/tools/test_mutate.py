"""tools/mutate.py: which functions are the verdict logic, and which surviving mutants only change wording."""
import ast
import sys
import textwrap
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


# ---- the survivors of a chapter 05 run that cannot change a status, and which the classifier must see

def _check(body: str) -> str:
    return "def f(bw, radius, searched):\n" + textwrap.indent(body, "    ")


@pytest.mark.parametrize("old, new", [
    # the part label: which part a verdict belongs to, not its status
    ('return Check("c", status=status, measured=m, part="PL guarantee")',
     'return Check("c", status=status, measured=m)'),
    ('return Check("c", status=status, measured=m, part=part)', 'return Check("c", status=status, measured=m, part=None)'),
    # the judged rows dropped or emptied: a table loses its rows, the status stays
    ('return Check("c", status=status, rows=rows)', 'return Check("c", status=status, rows=None)'),
    ('return Check("c", status=status, rows=rows)', 'return Check("c", status=status)'),
    # caveat text in a tuple assignment
    ('status, caveat = "not reproduced", ""', 'status, caveat = "not reproduced", "XXXX"'),
    # a local assembled into measured only
    ('left_out = ", and " + str(n_nodiag) if n_nodiag else ""', 'left_out = ", and " + str(n_nodiag) if n_nodiag else "XXXX"'),
    ('left_out = ", and " + str(n_nodiag) if n_nodiag else ""', 'left_out = ", and " + str(n_nodiag) if not n_nodiag else ""'),
    ('lines.append(name)', 'lines.append(None)'),
    # a text field passed as **{"this book": ...} to dict(...), dropped or changed
    ('row = dict(statement="s", **{"this book": f"{m}"}, holds=True)', 'row = dict(statement="s", holds=True)'),
    ('row = dict(statement="s", **{"this book": f"{m}"}, holds=True)',
     'row = dict(statement="s", **{"this book": None}, holds=True)'),
    # a text field's key renamed in a row
    ('row = {"statement": f"{m}", "holds": True}', 'row = {"XXstatementXX": f"{m}", "holds": True}'),
])
def test_a_survivor_that_cannot_change_a_status_is_wording(old, new):
    body = ("lines, caveat, part, rows = [], '', 'p', ()\nstatus = 'reproduced' if searched else 'inconclusive'\n"
            "name, n_nodiag, m = 'x', 3, 'y'\n{}\nm = f'{{left_out}} {{lines}}'\n"
            "return Check('c', status=status, measured=m, caveat=caveat, part=part, rows=rows)\n")
    lines = ["left_out = ''", "lines.append(name)"]
    orig = _check(body.format(old if old not in lines else old) + "")
    mut = _check(body.format(new))
    if "left_out" not in old:
        orig = orig.replace("m = f'{left_out}", "m = f'{left_out}", 1)
        orig = orig.replace("\nm = f'", "\nleft_out = ''\nm = f'", 1)
        mut = mut.replace("\nm = f'", "\nleft_out = ''\nm = f'", 1)
    assert mutate.wording_only(orig, mut), (orig, mut)


@pytest.mark.parametrize("old, new", [
    # a local that a rule reads as well as the sentence is logic
    ('caveats = ["x"] if flat else []', 'caveats = ["x"] if not flat else []'),
    # a row's holds inside the rows, not the rows dropped
    ('rows = (dict(statement="s", holds=ok),)', 'rows = (dict(statement="s", holds=not ok),)'),
    # the status element of a tuple assignment
    ('status, caveat = "not reproduced", ""', 'status, caveat = "XXnot reproducedXX", ""'),
    # the status itself set to None
    ('status, caveat = "not reproduced", ""', 'status, caveat = None, ""'),
    # a dict unpacked into a row that carries a judgement is not wording
    ('row = dict(statement="s", **{"holds": ok})', 'row = dict(statement="s")'),
])
def test_a_survivor_that_can_change_a_status_is_not_wording(old, new):
    body = ("flat, ok = True, False\n{}\nstatus = locals().get('status', 'reproduced')\ncaveats = locals().get('caveats', [])\n"
            "if caveats:\n    status = 'reproduced with caveat'\nreturn Check('c', status=status, rows=locals().get('rows'))\n")
    assert not mutate.wording_only(_check(body.format(old)), _check(body.format(new)))


def test_wording_locals_follow_each_variable_to_its_uses():
    tree = ast.parse(textwrap.dedent('''
        def check(frame):
            left_out = " (3 left out)" if len(frame) else ""
            shown = f"{len(frame)} cells"
            caveats = []
            if frame.empty:
                caveats.append("empty")
            lines = []
            for r in frame:
                lines.append(f"{r}")
            def out(status, measured, caveat="", shown=None):
                return Check("c", status=status, measured=measured, caveat=caveat, rows=({"this book": shown},))
            status = "reproduced with caveat" if caveats else "reproduced"
            return out(status, "; ".join(lines) + left_out, shown=shown)
    ''')).body[0]
    names = mutate.wording_locals(tree)
    assert {"left_out", "shown", "lines"} <= names
    assert not {"caveats", "status", "frame", "r", "out"} & names


def test_a_function_whose_result_reaches_wording_only_is_all_wording(tmp_path):
    pkg = tmp_path / "lib" / "chapters" / "demo"
    pkg.mkdir(parents=True)
    (pkg / "ball.py").write_text(
        "def ball_words(bw, radius, searched):\n    return 'in the ball' if searched else 'at w_0'\n\n"
        "def ball_reduce(bw, radius):\n    return bw, radius > 0\n")
    (pkg / "backward.py").write_text(
        "from .ball import ball_reduce, ball_words\n\n"
        "def check_backward(bw):\n    sup, searched = ball_reduce(bw, 1.0)\n"
        "    status = 'reproduced' if searched else 'reproduced with caveat'\n"
        "    return Check('c', status=status, measured=f'largest entry, {ball_words(bw, 1.0, searched)}')\n")
    scope = mutate.verdict_functions(tmp_path, "demo")
    assert scope["lib/chapters/demo/ball.py"] == ["ball_reduce", "ball_words"]
    words = mutate.wording_functions(tmp_path, "demo", scope)
    assert words == {"lib.chapters.demo.ball.ball_words"}
    assert mutate.mutant_function("lib.chapters.demo.ball.x_ball_words__mutmut_7") == "lib.chapters.demo.ball.ball_words"


def test_a_returned_clause_that_every_caller_sends_to_wording_is_wording(tmp_path):
    """The ``ball_words`` survivors: a helper returns (slopes, converged, searched, words) and each check puts
    ``words`` into ``measured`` only, or discards it; a mutant of that clause changes wording only."""
    pkg = tmp_path / "lib" / "chapters" / "demo"
    pkg.mkdir(parents=True)
    helper = ("def _ball_slopes(h, how='max'):\n    searched = h > 0\n"
              "    return {'a': -0.5}, True, searched, ball_words(h, searched)\n")
    (pkg / "hw.py").write_text(
        "def ball_words(h, searched):\n    return 'in the ball' if searched else 'at w_0'\n\n" + helper +
        "\ndef check_hessian(h):\n    slopes, conv, searched, words = _ball_slopes(h)\n"
        "    status = 'reproduced' if conv and searched else 'inconclusive'\n"
        "    return Check('c', status=status, measured=f'slopes {slopes}, {words}')\n\n"
        "def check_min(h):\n    inf, _, _, _ = _ball_slopes(h, how='min')\n"
        "    return Check('c', status='reproduced' if inf else 'not reproduced')\n")
    assert mutate.wording_returns(tmp_path, "demo") == {"_ball_slopes": frozenset({3})}
    scope = mutate.verdict_functions(tmp_path, "demo")
    assert "lib.chapters.demo.hw.ball_words" in mutate.wording_functions(tmp_path, "demo", scope)
    mutant = helper.replace("ball_words(h, searched)", "ball_words(h, None)")
    assert mutate.wording_only(helper, mutant, frozenset({3}))
    assert not mutate.wording_only(helper, mutant)                                  # without the callers' reading
    assert not mutate.wording_only(helper, helper.replace("searched = h > 0", "searched = h >= 0"), frozenset({3}))


def test_a_nested_helper_and_a_tuple_with_discards_that_feed_wording_only():
    src = textwrap.dedent('''
        def f(frame, mode):
            _, _, what, kernel = next(m for m in MODES if m[0] == mode)
            status = "reproduced" if frame.ok else "not reproduced"

            def words(x):
                return "judged" if x.judged else "not judged"
            rows = tuple(dict(statement=what, **{"this book": words(x)}, holds=x.ok) for x in frame)
            return Check("c", status=status, rows=rows, measured=f"{kernel}")
    ''')
    for old, new in (('m[0] == mode', 'm[0] != mode'), ('"judged" if x.judged', '"judged" if not x.judged')):
        assert mutate.wording_only(src, src.replace(old, new)), old
    assert not mutate.wording_only(src, src.replace("holds=x.ok", "holds=not x.ok"))
    assert not mutate.wording_only(src, src.replace('if frame.ok', 'if not frame.ok'))


def test_an_argument_to_a_wording_parameter_of_a_package_function_is_wording(tmp_path):
    """not_checked(claim_id, measured, why, part): the message and the reason reach the Check's text only, so a mutant
    that changes or drops them where it is called changes wording only; the claim id is not wording."""
    pkg = tmp_path / "lib" / "chapters" / "demo"
    pkg.mkdir(parents=True)
    (pkg / "numerics.py").write_text(
        "def not_checked(claim_id, measured, why, part='', reason='not testable'):\n"
        "    return Check(claim_id, status='not checked', part=part, measured=measured, caveat=f'{reason}: {why}')\n\n"
        "def outside(claim_id, measured, why, part=''):\n"
        "    return not_checked(claim_id, measured, why, part, reason='outside the theorem')\n\n"
        "def status_of(res, depth):\n"
        "    return ('inconclusive', f'deeper than {depth} needed') if res else ('reproduced', '')\n")
    callees = mutate.wording_params(tmp_path, "demo")
    assert callees["not_checked"][1] == {"measured", "why", "part", "reason"}
    assert callees["outside"][1] == {"measured", "why", "part"}          # passed on to not_checked's: a fixed point
    assert callees["status_of"][1] == {"depth"}
    src = ("def f(st):\n    if st.empty:\n        return outside('[X] Thm 1', 'empty', 'none', 'p')\n"
           "    status, caveat = status_of(st.res, st.depth)\n    return Check('[X] Thm 1', status=status, caveat=caveat)\n")
    for old, new in (("'empty', 'none', 'p')", "None, 'no premise', 'p')"),
                     ("'empty', 'none', 'p')", "'nothing ran', 'no premise')"),
                     ("status_of(st.res, st.depth)", "status_of(st.res, None)")):
        assert mutate.wording_only(src, src.replace(old, new), callees=callees), new
        assert not mutate.wording_only(src, src.replace(old, new)), new        # without the callees' reading
    assert not mutate.wording_only(src, src.replace("outside('[X] Thm 1'", "outside('XX'"), callees=callees)
    assert not mutate.wording_only(src, src.replace("status_of(st.res,", "status_of(None,"), callees=callees)


def test_a_rule_below_the_chapters_is_mutated_by_the_chapter_whose_tests_pin_it():
    """lib.finite.width_trend is the one home of a rule chapters 01 and 04 use; chapter 01's run follows its
    check_* functions into it, chapter 04's leaves it alone (its tests do not pin it)."""
    root = Path(__file__).resolve().parents[2]
    ours = mutate.verdict_functions(root, "linear_baseline")
    assert ours["lib/finite/width_trend.py"] == ["bai_yin", "limit_status", "width_trend"]
    assert "lib/finite/width_trend.py" not in mutate.verdict_functions(root, "infinite_depth")
    assert set(mutate.RULE_MODULES.values()) <= {p.name for p in (root / "lib" / "chapters").iterdir()}


ROOT = Path(__file__).resolve().parents[2]


def _readme_scores() -> dict[str, dict[str, str]]:
    """The README's mutation table: chapter number -> its cells by column name."""
    lines = (ROOT / "README.md").read_text().splitlines()
    head = next(i for i, l in enumerate(lines) if l.startswith("| chapter | measured on | scope |"))
    cols = [c.strip() for c in lines[head].strip("|").split("|")]
    rows = {}
    for line in lines[head + 2:]:
        if not line.startswith("| 0"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0][:2]] = dict(zip(cols, cells))
    return rows


def test_the_fingerprint_follows_the_verdict_logic_not_its_docstring(tmp_path):
    root = _package(tmp_path)
    scope = mutate.verdict_functions(root, "demo")
    before = mutate.scope_fingerprint(root, scope)
    rules = root / "lib" / "chapters" / "demo" / "rules.py"
    text = rules.read_text()
    rules.write_text(text.replace("def _inner(x):\n", 'def _inner(x):\n    """Doc."""  # a comment\n'))
    assert mutate.scope_fingerprint(root, scope) == before            # docstring and comment: same logic
    rules.write_text(text.replace("def unused_rule(x):\n    return x", "def unused_rule(x):\n    return -x"))
    assert mutate.scope_fingerprint(root, scope) == before            # a function out of scope
    rules.write_text(text.replace("return x > 0", "return x >= 0"))
    assert mutate.scope_fingerprint(root, scope) != before            # a rule's comparison
    rules.write_text(text)
    assert mutate.scope_fingerprint(root, scope) == before


def test_the_readme_table_is_parsed_for_every_chapter():
    rows = _readme_scores()
    assert sorted(rows) == sorted(mutate.chapter_packages(ROOT))


@pytest.mark.parametrize("number", sorted(mutate.chapter_packages(ROOT)))
def test_each_quoted_mutation_score_was_measured_on_the_verdict_logic_as_it_is(number):
    row = _readme_scores()[number]
    if not row["score"]:
        assert row["measured on"] == "not measured on this commit", row
        return
    package = mutate.chapter_packages(ROOT)[number]
    now = mutate.scope_fingerprint(ROOT, mutate.verdict_functions(ROOT, package))
    assert row["scope"] == f"`{now}`", (
        f"chapter {number}'s verdict logic changed since its mutation score in README.md was measured "
        f"(scope {row['scope']}, now `{now}`): run `make mutate CHAPTER={number}` and update its row")
    assert float(row["score"].rstrip("%")) >= 100 * mutate.MIN_SCORE, row


FORK_AFTER_TORCH = """
import os, sys, time, signal, torch
a = torch.randn(512, 512); (a @ a).sum(); torch.randn(200000).sum()     # the parent's thread pool is in use
pid = os.fork()
if pid == 0:
    b = torch.randn(512, 512); (b @ b).sum(); torch.randn(2000000).exp().sum()
    os._exit(0)
for _ in range(80):
    if os.waitpid(pid, os.WNOHANG)[0]:
        sys.exit(0)
    time.sleep(0.1)
os.kill(pid, signal.SIGKILL)
sys.exit(3)
"""


def _fork_after_torch(env: dict) -> int:
    import subprocess
    return subprocess.run([sys.executable, "-c", FORK_AFTER_TORCH], env=env, timeout=120).returncode


def test_a_mutant_forked_after_the_tests_ran_does_not_hang_on_torchs_thread_pool():
    """mutmut forks each mutant's run from a process that ran the tests: under SINGLE_THREAD_ENV the child finishes;
    with the parent's OpenMP pool (more than one thread) it waits forever, and mutmut would count a timeout as a kill."""
    import os
    import torch
    base = {k: v for k, v in os.environ.items() if k not in mutate.SINGLE_THREAD_ENV}
    assert _fork_after_torch({**base, **mutate.SINGLE_THREAD_ENV}) == 0
    if torch.get_num_threads() > 1:
        assert _fork_after_torch({**base, "OMP_NUM_THREADS": "2"}) == 3     # counterfactual: the child hangs


def test_mutmut_runs_single_threaded_and_timeouts_are_reported(tmp_path, monkeypatch):
    seen = {}

    def fake_run(cmd, cwd=None, env=None, **kw):
        seen["env"] = env
        raise SystemExit("stop after the call")

    monkeypatch.setattr(mutate.subprocess, "run", fake_run)
    monkeypatch.setattr(mutate, "chapter_packages", lambda root: {"09": "demo"})
    root = _package(tmp_path)
    (root / "pyproject.toml").write_text("[project]\nname='x'\n")
    with pytest.raises(SystemExit, match="stop after the call"):
        mutate.run(root, ["09"], 2, "mutmut")
    assert all(seen["env"][k] == "1" for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"))
    report = {"min_score": 0.95, "score": 1.0, "chapters": {"09": dict(
        package="demo", scope="abc", functions={"f.py": ["check_a"]}, mutants=3, killed=3, timeouts=["m1"],
        survived_wording=[], survived_status=[], not_run=[], score=1.0)}}
    assert "| 09 demo | `abc` | 1 | 3 | 3 | 1 | 0 | 0 | 0 | 100.0% |" in mutate.markdown(report)


def test_mutmut_reads_a_timeout_that_covers_a_childs_start(tmp_path, monkeypatch):
    """mutmut's clean time counts only each test's call phase; the configuration it reads adds a constant that
    covers a module fixture's setup and the child's start (5 s measured for chapter 06's tiny record), so a
    mutant is not counted killed by a timeout it never hit. Counterfactual: mutmut's defaults give 4.4 s."""
    from mutmut import configuration
    (tmp_path / "lib").mkdir()
    scope = mutate.ChapterScope("demo", "09", {"lib/f.py": ["check_a"]})
    monkeypatch.chdir(tmp_path)

    def wall_limit(text):          # mutmut's wall-time limit for tests whose clean time is 0.1 s
        (tmp_path / "setup.cfg").write_text(text)
        cfg = configuration._load_config()
        return (0.1 + cfg.timeout_constant) * cfg.timeout_multiplier

    assert wall_limit(mutate._setup_cfg([scope], tmp_path)) >= 20
    assert wall_limit("[mutmut]\nsource_paths=lib\ntimeout_multiplier=4\n") < 5
