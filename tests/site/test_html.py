"""The HTML build: Sphinx's parallel jobs allowed, and the garbage collector kept off what was read."""
import gc
from types import SimpleNamespace

import pytest

from lib.site import sphinxext
from lib.site.html import main as html_main


class FakeApp:
    """What the hooks use of a Sphinx application: its extensions and ``connect``."""

    def __init__(self, extensions=None):
        self.extensions = extensions or {}
        self.connected = []

    def connect(self, event, handler):
        self.connected.append((event, handler))


def ext(read=None, write=None):
    return SimpleNamespace(parallel_read_safe=read, parallel_write_safe=write)


def test_only_the_listed_extensions_that_declare_nothing_are_declared_parallel_safe():
    listed = sphinxext.PARALLEL_SAFE_UNDECLARED[0]
    app = FakeApp({listed: ext(), "some_other_ext": ext(), "declared_unsafe": ext(False, False)})
    app.extensions[sphinxext.PARALLEL_SAFE_UNDECLARED[1]] = ext(False, None)  # its own word stands
    sphinxext.declare_parallel_safe(app)
    assert (app.extensions[listed].parallel_read_safe, app.extensions[listed].parallel_write_safe) == (True, True)
    assert app.extensions["some_other_ext"].parallel_read_safe is None  # not read, not declared
    assert app.extensions["declared_unsafe"].parallel_read_safe is False
    second = app.extensions[sphinxext.PARALLEL_SAFE_UNDECLARED[1]]
    assert (second.parallel_read_safe, second.parallel_write_safe) == (False, True)


def test_what_was_read_is_frozen_and_garbage_is_collected_every_few_pages(monkeypatch):
    app = FakeApp()
    was_enabled = gc.isenabled()
    collections = []
    try:
        sphinxext.freeze_read_objects(app, env=None)
        assert gc.get_freeze_count() > 0 and not gc.isenabled()
        assert {e for e, _ in app.connected} == {"html-page-context", "build-finished"}
        monkeypatch.setattr(sphinxext.gc, "collect", lambda *a: collections.append(1))
        page = dict(app.connected)["html-page-context"]
        for _ in range(2 * sphinxext.COLLECT_EVERY):
            page(app, "p", "page.html", {}, None)
        assert len(collections) == 2  # one per COLLECT_EVERY pages, wherever the count started
        monkeypatch.undo()
    finally:
        sphinxext.unfreeze(app, None)
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    if not was_enabled:
        gc.disable()


def test_a_bad_jobs_value_is_one_message(capsys):
    assert html_main(["--jobs", "0"]) == 2
    assert capsys.readouterr().err.strip() == "error: --jobs must be at least 1, got 0"
    with pytest.raises(SystemExit):
        html_main(["--jobs", "two"])
