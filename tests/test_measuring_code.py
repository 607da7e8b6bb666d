"""The digest of the code an experiment's figures rest on (engine/measuring_code.py): what
changes it and what does not, on a package tree made here, and on layertax's own."""
from __future__ import annotations

import re

import pytest

from layertax.engine import measuring_code
from layertax.experiments import registry


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A small package laid out like layertax's: engine code, a report, two experiments."""
    root = tmp_path / "layertax"
    for name, text in {"__init__.py": "", "units.py": "A = 1\n", "engine/stats.py": "LEVEL = 0.95\n",
                       "report/terminal.py": "WIDTH = 80\n", "experiments/__init__.py": "",
                       "experiments/one/__init__.py": "ONE = 1\n", "experiments/one/kernel.c": "int x;\n",
                       "experiments/two/__init__.py": "TWO = 2\n"}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    monkeypatch.setattr(measuring_code, "PACKAGE", root)
    measuring_code._common.cache_clear()
    yield root
    measuring_code._common.cache_clear()


def _digests(root):
    measuring_code._common.cache_clear()
    return {name: measuring_code.digest(root / "experiments" / name) for name in ("one", "two")}


def test_a_change_to_the_measuring_code_gives_a_new_digest_and_nothing_else_does(package):
    before = _digests(package)
    assert before["one"] != before["two"] and all(re.fullmatch("[0-9a-f]{16}", d) for d in before.values())
    assert _digests(package) == before                               # the same files, the same digest

    (package / "report" / "terminal.py").write_text("WIDTH = 100\n")   # presents results only
    (package / "engine" / "__pycache__").mkdir()
    (package / "engine" / "__pycache__" / "stats.cpython-311.pyc").write_bytes(b"\0")
    assert _digests(package) == before

    (package / "experiments" / "one" / "kernel.c").write_text("int y;\n")   # one experiment's kernel
    after = _digests(package)
    assert after["one"] != before["one"] and after["two"] == before["two"]

    (package / "engine" / "stats.py").write_text("LEVEL = 0.97\n")          # code every experiment rests on
    again = _digests(package)
    assert again["one"] != after["one"] and again["two"] != after["two"]

    (package / "engine" / "stats.py").rename(package / "engine" / "level.py")   # a file's name counts too
    assert _digests(package)["two"] != again["two"]


def test_layertax_own_experiments_each_have_a_digest_of_their_own():
    digests = {name: measuring_code.digest(exp.package_dir) for name, exp in registry().items()}
    assert len(set(digests.values())) == len(digests) >= 5
    assert digests == {name: measuring_code.digest(exp.package_dir) for name, exp in registry().items()}
