"""The PLT stubs callgrind leaves nameless ("0x… [???]") are named for the function they jump to,
from valgrind's own map of the run and the library's relocations (plt_stubs.py)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from layertax.engine.builder import toolchain
from layertax.engine.measure import callgrind, instructions, plt_stubs, valgrind_log

needs_valgrind = pytest.mark.skipif(not instructions.available(), reason="valgrind not installed")

# A library that calls a function it exports and also takes that function's address: the call goes
# through the library's .plt.got, which valgrind does not know as a PLT.
LIBRARY = """
int target(int x) { return x + 1; }
void *address_of_target(void) { return (void *)&target; }
int caller(int x) { return target(x) * 2; }
"""
PROGRAM = """
extern int caller(int);
int main(void) { int s = 0; for (int i = 0; i < 1000; i++) s += caller(i); return s == 0; }
"""


def _build(tmp_path: Path) -> Path:
    cc = toolchain.find("cc").path
    (tmp_path / "lib.c").write_text(LIBRARY)
    (tmp_path / "main.c").write_text(PROGRAM)
    subprocess.run([cc, "-O1", "-fPIC", "-shared", "-o", str(tmp_path / "libt.so"), str(tmp_path / "lib.c")],
                   check=True)
    subprocess.run([cc, "-O1", "-o", str(tmp_path / "main"), str(tmp_path / "main.c"), f"-L{tmp_path}", "-lt",
                    "-Wl,-rpath,$ORIGIN"], check=True)
    return tmp_path / "main"


def test_biases_read_where_valgrind_put_each_object():
    log = "\n".join([
        "--7-- Reading syms from /opt/a dir/libx.so",
        "--7--    svma 0x00000fa7d0, avma 0x00049367d0",
        "--7-- Reading syms from /usr/lib/libc.so.6",
        "--7--   Considering /usr/lib/debug/.build-id/93/ac.debug ..",
        "--7--    svma 0x0000026380, avma 0x0004e28380",
        "--7-- Reading syms from /nothing/mapped.so",
    ])
    assert valgrind_log.biases(log) == {"/opt/a dir/libx.so": 0x483c000, "/usr/lib/libc.so.6": 0x4e02000}


@needs_valgrind
def test_a_stub_in_plt_got_is_named_for_the_function_it_jumps_to(tmp_path):
    program = _build(tmp_path)
    valgrind = toolchain.find("valgrind").path
    subprocess.run([valgrind, "--tool=callgrind", *valgrind_log.VERBOSE, f"--log-file={tmp_path / 'vg.log'}",
                    f"--callgrind-out-file={tmp_path / 'cg.out'}", str(program)], check=True, cwd=tmp_path)
    raw = callgrind.parse((tmp_path / "cg.out").read_text())
    # callgrind alone: the stub is an address in no object, between caller and target.
    into_target = {a for (a, b) in raw.calls if b == ("libt.so", "target")}
    assert len(into_target) == 1 and next(iter(into_target))[0] == plt_stubs.UNKNOWN_OBJECT
    mapped = valgrind_log.biases((tmp_path / "vg.log").read_text())
    assert str(tmp_path / "libt.so") in mapped
    named = plt_stubs.named(raw, mapped)
    stub = ("libt.so", "target@plt")
    assert named.call_counts[(("libt.so", "caller"), stub)] == 1000
    assert named.call_counts[(stub, ("libt.so", "target"))] == 1000
    assert named.self_cost[stub] == 1000         # one jump a call
    assert named.total == raw.total and sum(named.self_cost.values()) == sum(raw.self_cost.values())
    assert not any(a[0] == plt_stubs.UNKNOWN_OBJECT for (a, b) in named.calls if b == ("libt.so", "target"))


def test_an_address_in_no_plt_keeps_its_name(tmp_path):
    program = _build(tmp_path)
    profile = callgrind.Profile(total=10)
    nameless = (plt_stubs.UNKNOWN_OBJECT, "0x0000000000500000")
    profile.self_cost[nameless] = 10
    assert plt_stubs.named(profile, {str(program): 0}).self_cost == {nameless: 10}
    assert plt_stubs.stub(0x500000, {str(program): 0}) is None
    assert plt_stubs.stub(0x1000, {str(tmp_path / "no-such.so"): 0}) is None      # unreadable: no name

