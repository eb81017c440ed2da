"""What the browser tests share: the system Chromium driven by Playwright (no browser download), and the one rule
for a machine without it: skipped, except under ``REQUIRE_BROWSER=1`` (CI), where the test fails."""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from lib.site.pdf import chromium_path, serve_directory

ROOT = Path(__file__).resolve().parents[2]
#: where browser tests keep their screenshots, for a reviewer to look at
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def missing_browser(reason: str):
    """Skip the test for want of ``reason``; fail it under ``REQUIRE_BROWSER=1``."""
    if os.environ.get("REQUIRE_BROWSER") == "1":
        pytest.fail(f"REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


def require_chromium() -> str:
    """The Chromium executable, after checking that Playwright is installed (else :func:`missing_browser`)."""
    if importlib.util.find_spec("playwright") is None:
        missing_browser("the Python package playwright is not installed (pip install playwright)")
    exe = chromium_path()
    if exe is None:
        missing_browser("no Chromium found (apt-get install -y chromium, or set CHROMIUM=/path)")
    return exe


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium (Playwright's Browser), closed after the module."""
    exe = require_chromium()
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_FLAGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def server(html_dir):
    """The built HTML over http://127.0.0.1:<free port>/ (a thread; stopped after the module)."""
    with serve_directory(html_dir) as base:
        yield base
