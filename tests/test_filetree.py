"""A mapped file reads as its bytes, whatever the file system does with mapping."""

from __future__ import annotations

import mmap

import pytest

from generator import filetree
from generator.filetree import mapped_file


def test_a_mapped_file_reads_as_its_bytes(tmp_path):
    path = tmp_path / "cache"
    path.write_bytes(b"version\nrecord one\n")
    with mapped_file(path) as data:
        assert data[:8] == b"version\n"
        assert data.find(b"\n", 8) == 18
        assert data[8:18] == b"record one"
        assert len(data) == 19


@pytest.mark.parametrize("kind", ["missing", "empty"])
def test_a_missing_or_empty_file_maps_to_no_bytes(tmp_path, kind):
    path = tmp_path / "cache"
    if kind == "empty":
        path.write_bytes(b"")
    with mapped_file(path) as data:
        assert data == b""


def test_a_file_that_cannot_be_mapped_is_read(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError(19, "No such device")

    monkeypatch.setattr(filetree.mmap, "mmap", refuse)
    path = tmp_path / "cache"
    path.write_bytes(b"version\nrecord\n")
    with mapped_file(path) as data:
        assert data == b"version\nrecord\n"


def test_the_file_is_unmapped_when_the_block_ends(tmp_path):
    path = tmp_path / "cache"
    path.write_bytes(b"data")
    with mapped_file(path) as data:
        assert isinstance(data, mmap.mmap)
    assert data.closed
    filetree.replace_file(path, [b"new"])  # nothing holds the old file open
    assert path.read_bytes() == b"new"
