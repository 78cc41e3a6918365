"""The MkDocs hook: what a `mkdocs serve` session keeps between rebuilds."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest
from jinja2 import DictLoader, Environment
from mkdocs.structure.files import Files

from generator import mkdocs_hook


@pytest.fixture
def serve_session(monkeypatch):
    monkeypatch.delitem(sys.modules, mkdocs_hook.MEMO_HOLDER, raising=False)
    mkdocs_hook.on_startup(command="serve", dirty=True)
    yield sys.modules[mkdocs_hook.MEMO_HOLDER]
    sys.modules.pop(mkdocs_hook.MEMO_HOLDER, None)


def env_event(env: Environment) -> Environment:
    """The hook's on_env, for a build without pages or static files."""
    return mkdocs_hook.on_env(env, SimpleNamespace(docs_dir="docs"), Files([]))


def test_a_one_off_build_keeps_nothing(monkeypatch):
    monkeypatch.delitem(sys.modules, mkdocs_hook.MEMO_HOLDER, raising=False)
    mkdocs_hook.on_startup(command="build", dirty=False)
    assert mkdocs_hook.MEMO_HOLDER not in sys.modules
    env = Environment()
    assert env_event(env).bytecode_cache is None


def test_compiled_theme_templates_outlive_a_rebuild(serve_session):
    templates = {"page.html": "Hello {{ name }}"}
    first = env_event(Environment(loader=DictLoader(templates)))
    assert first.get_template("page.html").render(name="a") == "Hello a"
    assert len(serve_session.template_code.code) == 1
    # The next rebuild's environment is new, but the compiled code is found again.
    compiled = []
    second = env_event(Environment(loader=DictLoader(templates)))
    second.compile = lambda *args, **kwargs: compiled.append(args) or Environment.compile(second, *args, **kwargs)
    assert second.get_template("page.html").render(name="b") == "Hello b"
    assert compiled == []
    # An edited template is compiled afresh (Jinja checks the source checksum).
    templates["page.html"] = "Bye {{ name }}"
    third = env_event(Environment(loader=DictLoader(templates)))
    assert third.get_template("page.html").render(name="c") == "Bye c"


def test_serve_watches_by_file_events_and_not_the_generated_pages(tmp_path):
    from types import SimpleNamespace

    import watchdog.observers
    from mkdocs.livereload import LiveReloadServer

    folders = {name: tmp_path / name for name in ("docs_out", "theme", "entries")}
    for folder in folders.values():
        folder.mkdir()
    config_file = tmp_path / "mkdocs.yml"
    config_file.write_text("site_name: t\n")
    config = SimpleNamespace(
        docs_dir=str(folders["docs_out"]),
        config_file_path=str(config_file),
        theme=SimpleNamespace(dirs=[str(folders["theme"])]),
    )
    server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(tmp_path))
    # What `mkdocs serve` watches before this event (the theme only with --watch-theme).
    server.watch(config.docs_dir)
    server.watch(config.config_file_path)
    server = mkdocs_hook.on_serve(server, config, builder=None)
    server.watch(str(folders["entries"]))  # mkdocs.yml's `watch:` list comes after the event

    assert isinstance(server.observer, watchdog.observers.Observer)
    # (watchdog watches a file through its folder)
    watched = sorted(emitter.watch.path for emitter in server.observer.emitters)
    assert watched == sorted([str(tmp_path), str(folders["entries"])])
    server.observer.start()
    try:
        (folders["docs_out"] / "page.md").write_text("# Written by the hook\n")
        with server._rebuild_cond:
            assert not server._rebuild_cond.wait_for(lambda: server._want_rebuild, timeout=0.5)
        # An edit under a watched folder asks for a rebuild within moments, not at the next scan.
        (folders["entries"] / "a.yaml").write_text("id: a\n")
        with server._rebuild_cond:
            assert server._rebuild_cond.wait_for(lambda: server._want_rebuild, timeout=2)
    finally:
        server.observer.stop()
        server.observer.join()
