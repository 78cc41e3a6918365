"""The MkDocs hook: what a `mkdocs serve` session keeps between rebuilds."""

from __future__ import annotations

import sys

import pytest
from jinja2 import DictLoader, Environment

from generator import mkdocs_hook


@pytest.fixture
def serve_session(monkeypatch):
    monkeypatch.delitem(sys.modules, mkdocs_hook.MEMO_HOLDER, raising=False)
    mkdocs_hook.on_startup(command="serve", dirty=True)
    yield sys.modules[mkdocs_hook.MEMO_HOLDER]
    sys.modules.pop(mkdocs_hook.MEMO_HOLDER, None)


def test_a_one_off_build_keeps_nothing(monkeypatch):
    monkeypatch.delitem(sys.modules, mkdocs_hook.MEMO_HOLDER, raising=False)
    mkdocs_hook.on_startup(command="build", dirty=False)
    assert mkdocs_hook.MEMO_HOLDER not in sys.modules
    env = Environment()
    assert mkdocs_hook.on_env(env, None, None).bytecode_cache is None


def test_compiled_theme_templates_outlive_a_rebuild(serve_session):
    templates = {"page.html": "Hello {{ name }}"}
    first = mkdocs_hook.on_env(Environment(loader=DictLoader(templates)), None, None)
    assert first.get_template("page.html").render(name="a") == "Hello a"
    assert len(serve_session.template_code.code) == 1
    # The next rebuild's environment is new, but the compiled code is found again.
    compiled = []
    second = mkdocs_hook.on_env(Environment(loader=DictLoader(templates)), None, None)
    second.compile = lambda *args, **kwargs: compiled.append(args) or Environment.compile(second, *args, **kwargs)
    assert second.get_template("page.html").render(name="b") == "Hello b"
    assert compiled == []
    # An edited template is compiled afresh (Jinja checks the source checksum).
    templates["page.html"] = "Bye {{ name }}"
    third = mkdocs_hook.on_env(Environment(loader=DictLoader(templates)), None, None)
    assert third.get_template("page.html").render(name="c") == "Bye c"
