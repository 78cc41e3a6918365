"""Writing output: only changed files, stale files removed, all or nothing, never outside the folder."""

from __future__ import annotations

import os

import pytest

from generator import writer
from generator.pages import Page
from generator.writer import UnsafePath, write_output


def snapshot(folder):
    return {
        path.relative_to(folder).as_posix(): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()
    }


def test_first_write_then_noop_then_change(tmp_path):
    out = tmp_path / "out"
    pages = [Page("a.md", "one"), Page("sub/b.md", "two"), Page("c.bin", b"\x00\x01")]
    assert write_output(pages, out) == writer.WriteReport(written=3, unchanged=0, removed=0)
    before = {path: os.stat(out / path).st_mtime_ns for path in ("a.md", "sub/b.md")}
    assert write_output(pages, out) == writer.WriteReport(written=0, unchanged=3, removed=0)
    changed = [Page("a.md", "one!"), Page("sub/b.md", "two")]
    assert write_output(changed, out) == writer.WriteReport(written=1, unchanged=1, removed=1)
    assert snapshot(out) == {"a.md": b"one!", "sub/b.md": b"two"}
    assert os.stat(out / "sub/b.md").st_mtime_ns == before["sub/b.md"]


@pytest.mark.parametrize("path", ["../escape.md", "/etc/passwd", "a/../../b.md", "a\\b.md", "", "./a.md", "a//b.md"])
def test_paths_outside_the_folder_are_refused(tmp_path, path):
    out = tmp_path / "out"
    write_output([Page("keep.md", "kept")], out)
    with pytest.raises(UnsafePath):
        write_output([Page(path, "x")], out)
    assert snapshot(out) == {"keep.md": b"kept"}
    assert not (tmp_path / "escape.md").exists()


def test_failure_midway_leaves_previous_output(tmp_path, monkeypatch):
    out = tmp_path / "out"
    write_output([Page("a.md", "old"), Page("b.md", "old")], out)
    calls = {"n": 0}
    real_write = writer._write_file

    def disk_full(path, data):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(28, "No space left on device")
        return real_write(path, data)

    monkeypatch.setattr(writer, "_write_file", disk_full)
    with pytest.raises(OSError, match="No space left"):
        write_output([Page("a.md", "new"), Page("b.md", "new")], out)
    assert snapshot(out) == {"a.md": b"old", "b.md": b"old"}
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_two_pages_with_one_path_are_refused(tmp_path):
    with pytest.raises(UnsafePath, match="two pages have the same path"):
        write_output([Page("a.md", "1"), Page("a.md", "2")], tmp_path / "out")


def test_killed_build_leftovers_are_cleaned(tmp_path):
    out = tmp_path / "out"
    write_output([Page("a.md", "old")], out)
    leftover = tmp_path / ".out.staging-999999999"
    (leftover / "half").mkdir(parents=True)
    write_output([Page("a.md", "new")], out)
    assert snapshot(out) == {"a.md": b"new"}
    assert not leftover.exists()


def test_a_long_lived_process_does_not_read_back_what_it_knows(tmp_path, monkeypatch):
    out = tmp_path / "out"
    pages = [Page("a.md", "one"), Page("sub/b.md", "two")]
    write_output(pages, out)
    # A process that starts on existing output (mkdocs serve after `trainwreck build`) learns
    # it on its first call, even when that call changes nothing.
    known: dict = {}
    assert write_output(pages, out, known).written == 0
    monkeypatch.setattr(writer, "open", _no_reading, raising=False)
    assert write_output(pages, out, known) == writer.WriteReport(written=0, unchanged=2, removed=0)
    changed = [Page("a.md", "one!"), Page("sub/b.md", "two")]
    assert write_output(changed, out, known) == writer.WriteReport(written=1, unchanged=1, removed=0)
    assert write_output(changed, out, known).written == 0


def _no_reading(path, mode="r", *args, **kwargs):
    if "r" in mode:
        raise AssertionError(f"read back {path}")
    return open(path, mode, *args, **kwargs)
