"""End to end: two chapters run two at a time give the verdicts of a run one at a time."""
import os
import subprocess
import sys

import pytest

from lib.book.results import load_all

pytestmark = pytest.mark.slow

#: two cheap chapters under the smoke profile
CHAPTERS = ["01", "02"]


def run(root, jobs: int, tag: str):
    env = dict(os.environ, NTK_RESULTS_DIR=str(root / f"results-{tag}"), NTK_CACHE_DIR=str(root / f".cache-{tag}"))
    r = subprocess.run([sys.executable, "-m", "lib.site.pipeline", "--root", str(root), "--profile", "smoke",
                        "--only", *CHAPTERS, "--jobs", str(jobs)], cwd=root, env=env, capture_output=True, text=True,
                       timeout=1800)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    rows = load_all(root / f"results-{tag}")
    return r, {(row["chapter"], row["claim_id"], row["part"]): (row["status"], row["caveat"], row["measured"])
               for row in rows}


def test_two_at_a_time_gives_the_verdicts_of_one_at_a_time(source_copy):
    root = source_copy
    one, sequential = run(root, 1, "one")
    two, parallel = run(root, 2, "two")
    assert "one at a time" in one.stdout and "2 at a time" in two.stdout  # each ran as asked
    assert {chapter for chapter, _, _ in sequential} == {"01_linear_baseline", "02_better_separation"}
    assert len(sequential) >= 5
    assert parallel == sequential  # every status, caveat and measured text, claim by claim
