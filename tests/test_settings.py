from __future__ import annotations

from pathlib import Path

from generator.settings import INSTALLED_ROOT, find_root


def test_the_nearest_checkout_above_the_folder_wins(tmp_path):
    (tmp_path / "entries" / "_vocab").mkdir(parents=True)
    (tmp_path / "logs" / "run1").mkdir(parents=True)
    assert find_root(tmp_path / "logs" / "run1") == tmp_path.resolve()


def test_outside_any_checkout_the_installed_one_is_used(tmp_path):
    assert find_root(tmp_path) == INSTALLED_ROOT
    assert Path(__file__).resolve().parent.parent == INSTALLED_ROOT
    assert (INSTALLED_ROOT / "entries" / "_vocab").is_dir()
