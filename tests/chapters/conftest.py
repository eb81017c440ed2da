"""Chapter tests: make ``chapter_fakes`` (synthetic inputs shared by several test files) importable.

pytest runs in ``importlib`` mode, so test files cannot import each other; shared helpers live in
the plain package ``chapter_fakes`` beside them instead.
"""
import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
