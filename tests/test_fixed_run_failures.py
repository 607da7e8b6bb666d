"""A counted run that fails says why in one line, though valgrind writes its own messages to a
log file (plt_stubs.py needs its verbose map there): a fatal signal as valgrind saw it, else the
kernel's last word, else valgrind's last message that is not its closing counts."""
from __future__ import annotations

import subprocess

import pytest

from layertax.engine.builder import toolchain
from layertax.engine.measure import instructions
from layertax.engine.measure.fixed_run import _failure_line, fixed_run

needs_valgrind = pytest.mark.skipif(not instructions.available(), reason="valgrind not installed")

CLOSING = "==9== \n==9== Events    : Ir\n==9== Collected : 121271\n==9== \n==9== I   refs:      121,271\n"


@needs_valgrind
def test_a_crash_under_callgrind_is_told_by_its_signal(tmp_path):
    cc = toolchain.find("cc").path
    (tmp_path / "crash.c").write_text("int main(void) { volatile int *p = 0; return *p; }\n")
    subprocess.run([cc, "-O0", "-o", str(tmp_path / "crash"), str(tmp_path / "crash.c")], check=True)
    valgrind = toolchain.find("valgrind").path
    tool = lambda d: [valgrind, "--tool=callgrind", "-v", "-v", f"--log-file={d / 'vg.log'}",  # noqa: E731
                      f"--callgrind-out-file={d / 'cg.out'}"]
    with pytest.raises(RuntimeError) as failed:
        with fixed_run(tool, [str(tmp_path / "crash")], {}, 1, tmp_path, 60, valgrind_log="vg.log"):
            pass
    said = str(failed.value)
    assert "signal 11 (SIGSEGV)" in said and "Access not within mapped region" in said, said
    assert "\n" not in said and "refs" not in said


def test_without_a_signal_the_kernels_own_word_comes_first(tmp_path):
    log = tmp_path / "vg.log"
    log.write_text("==9== Callgrind, a call-graph generating cache profiler\n--9-- Reading syms from /bin/x\n"
                   + CLOSING)
    assert _failure_line("warming up\nkernel: cannot open /x: Permission denied\n", log) == \
        "kernel: cannot open /x: Permission denied"
    # Nothing of its own: valgrind's last message, not its closing counts nor its verbose lines.
    assert _failure_line("", log) == "Callgrind, a call-graph generating cache profiler"
    assert _failure_line("", tmp_path / "missing.log") == "?" and _failure_line("", None) == "?"
