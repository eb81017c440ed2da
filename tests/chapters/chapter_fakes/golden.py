"""Golden files of verdict texts: the full verdict of every branch of a chapter's checks as a reader sees it,
pinned in ``tests/chapters/golden/<name>.json``. After a deliberate change of wording, regenerate with
``NTK_REGEN_GOLDEN=1`` and review the diff."""
import json
import os
from pathlib import Path

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"


def assert_golden(name: str, cases: dict) -> None:
    """``cases`` (name -> JSON-able verdict) equal the golden file ``name`` (rewritten first when
    ``NTK_REGEN_GOLDEN`` is set)."""
    path = GOLDEN_DIR / f"{name}.json"
    got = json.loads(json.dumps(cases))
    if os.environ.get("NTK_REGEN_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    want = json.loads(path.read_text())
    assert sorted(got) == sorted(want)
    for k in want:
        assert got[k] == want[k], k
