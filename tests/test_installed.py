"""The tests exercise the package as installed: its modules and its bundled data come from the
installation, not from the checkout (unless the installation is an editable one of it)."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import pytest

import svmtune
from svmtune.datasets import load

ROOT = Path(__file__).resolve().parents[1]


def _editable() -> bool:
    text = metadata.distribution("svmtune").read_text("direct_url.json")
    return bool(text) and bool(json.loads(text).get("dir_info", {}).get("editable", False))


def test_svmtune_is_the_installed_package() -> None:
    if _editable():
        pytest.skip("an editable install is the checkout itself")
    # not the checkout's source folder (a virtual environment inside the checkout, such as
    # ./.venv, is fine: its site-packages holds the installed copy)
    assert Path(svmtune.__file__).resolve().parent != (ROOT / "svmtune").resolve()
    assert metadata.version("svmtune") == svmtune.__version__


def test_the_bundled_data_ships_with_it() -> None:
    X, y = load("heart")
    assert X.shape == (270, 23) and set(y.tolist()) == {-1.0, 1.0}
    data = Path(svmtune.__file__).resolve().parent / "datasets" / "data"
    assert (data / "heart.dat.gz").is_file()
