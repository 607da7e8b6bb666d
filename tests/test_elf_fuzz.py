"""The ELF reader on mutated files (hypothesis): every file is either read or refused with one
line in words (the path, then what is wrong), never a parser's exception text or a traceback.
The seed files are a small shared library and a small program built here; the mutations
hit the ELF header, the program and section header tables, and anywhere, and may cut the
file short. bench/fuzz_elf.py runs 10^5 of them and reports the slowest."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layertax.errors import LayertaxError
from layertax.elf import elfinfo

# Python's exception texts and names that must never reach a user.
LEAKS = re.compile(r"Error\(|Exception|Traceback|FieldError|offset-sized|missing terminator|\(\'|Invalid argument")

SOURCE = "int shared_counter; int exported(int x) { return x + shared_counter; }\nint main(void) { return 0; }\n"


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> list[Path]:
    d = tmp_path_factory.mktemp("elf-seeds")
    (d / "s.c").write_text(SOURCE)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", d / "lib.so", d / "s.c"], check=True)
    subprocess.run(["cc", "-o", d / "prog", d / "s.c"], check=True)
    return [d / "lib.so", d / "prog"]


def _edits(region: st.SearchStrategy[int]) -> st.SearchStrategy:
    return st.lists(st.tuples(region, st.integers(0, 255)), min_size=1, max_size=8)


anywhere = st.floats(0, 1, exclude_max=True)
mutations = st.tuples(
    st.integers(0, 1),                                              # which seed
    st.one_of(_edits(st.integers(0, 63).map(float)), _edits(anywhere)),   # ELF header, or anywhere
    st.one_of(st.none(), anywhere),                                 # cut the file short here
)


def _mutate(base: bytes, edits, cut) -> bytes:
    data = bytearray(base)
    for where, value in edits:
        offset = int(where) if where >= 1 else int(where * len(data))
        data[min(offset, len(data) - 1)] = value
    return bytes(data[: int(cut * len(data))] if cut is not None else data)


# Derandomized: the same mutations every run, so more of them here buys the suite time, not new
# inputs; bench/fuzz_elf.py is where new ones are tried (10^5 a run).
@settings(max_examples=1000, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(mutations)
def test_a_mutated_elf_file_is_read_or_refused_in_words(seeds, tmp_path, mutation):
    which, edits, cut = mutation
    path = tmp_path / "mutated"
    path.write_bytes(_mutate(seeds[which].read_bytes(), edits, cut))
    try:
        obj = elfinfo.read(path)
    except LayertaxError as e:
        message = str(e)
        assert message.startswith(f"{path}: ") and "\n" not in message, message
        assert not LEAKS.search(message), message
        return
    assert isinstance(obj.type, str) and isinstance(obj.machine, str)     # names, even for values unknown


def test_the_words_for_common_damage(seeds, tmp_path):
    lib = seeds[0].read_bytes()
    path = tmp_path / "cut"
    path.write_bytes(lib[: len(lib) - 100])           # the section header table is at the end
    with pytest.raises(LayertaxError, match="section header table runs past the end of the file"):
        elfinfo.read(path)
    bad_class = bytearray(lib)
    bad_class[4] = 7
    path.write_bytes(bytes(bad_class))
    with pytest.raises(LayertaxError, match=r"ELF class byte is 7, neither 1 \(32-bit\) nor 2 \(64-bit\)"):
        elfinfo.read(path)
    path.write_bytes(lib[:40])
    with pytest.raises(LayertaxError, match="ends inside its ELF header"):
        elfinfo.read(path)
