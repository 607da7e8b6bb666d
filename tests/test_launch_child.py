"""How the launch timer starts a program (native/child.c: clone with CLONE_VFORK, and only
the work the child needs): the state the program starts in, checked from inside it, and a
program that cannot start."""
from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess

import pytest

from layertax.launch import timer

from layertax.launch import settings as launch_settings
from tests.conftest import TESTS, build_test_program


@pytest.fixture(scope="module")
def child_state(cache_root):
    return build_test_program(cache_root, "child-state", (TESTS / "kernels" / "child_state.c",))


def _timer(tools, tmp_path, targets, **popen) -> list[dict]:
    spec, out = tmp_path / "spec", tmp_path / "lines.jsonl"
    timer.write_spec(targets, spec)
    done = subprocess.run([str(tools.timer), "--spec", str(spec), "--runs", "3", "--warmup", "1", "--out", str(out)],
                          capture_output=True, text=True, timeout=60, **popen)
    assert done.returncode == 0, done.stderr
    return [x for x in map(json.loads, out.read_text().splitlines()[1:]) if "variant" in x]


# rt_sigaction's number, for glibc's own signals 32 and 33, which glibc's sigaction refuses.
RT_SIGACTION = {"x86_64": 13, "aarch64": 134}.get(os.uname().machine)


def _ignore_hangup_and_glibcs_own_block_usr1():
    """The timer started as `nohup` would (SIGHUP ignored) and as GNU make 4.3 starts its
    children (signals 32 and 33 ignored, left so by glibc's posix_spawn), with a signal
    blocked: none of it may reach the program."""
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    if RT_SIGACTION is not None:
        ignore = (ctypes.c_ulong * 4)(1)   # SIG_IGN, no flags, an empty mask
        libc = ctypes.CDLL(None, use_errno=True)
        for sig in (32, 33):
            assert libc.syscall(RT_SIGACTION, sig, ignore, None, 8) == 0, ctypes.get_errno()


@pytest.mark.parametrize("inherited", [None, _ignore_hangup_and_glibcs_own_block_usr1],
                         ids=["plain", "nohup-make-and-blocked"])
def test_a_program_starts_with_default_signals_its_own_group_and_only_its_descriptors(tools, tmp_path, child_state,
                                                                                      inherited):
    report = tmp_path / "report"
    state = launch_settings.Target("state", (str(child_state),), env=(("CHILD_STATE_REPORT", str(report)),))
    lines = _timer(tools, tmp_path, [state], preexec_fn=inherited)
    said = report.read_text() if report.exists() else ""
    assert len(lines) == 4, (lines, said)   # a failed launch is its variant's last
    # exit status bits (child_state.c): 1 an ignored signal, 2 a blocked one, 4 not its own group,
    # 8 stdio not /dev/null, 16 no stamp pipes, 32 no LAYERTAX_STAMP_FD, 64 a descriptor leaked
    assert [x["status"] for x in lines] == ["ok"] * 4, lines
    assert all(x["exit_status"] == 0 and x["exit_ns"] > 0 for x in lines)


def test_a_program_that_cannot_start_is_one_failure_and_the_others_go_on(tools, tmp_path):
    not_executable = tmp_path / "data.txt"
    not_executable.write_text("not a program\n")
    lines = _timer(tools, tmp_path, [launch_settings.Target("missing", (str(tmp_path / "nope"),)),
                                     launch_settings.Target("data", (str(not_executable),)),
                                     launch_settings.Target("true", ("/bin/true",))])
    failed = {x["variant"]: x["status"] for x in lines if x["status"] != "ok"}
    assert failed == {"missing": f"cannot start {tmp_path / 'nope'}: No such file or directory",
                      "data": f"cannot start {not_executable}: Permission denied"}
    assert [x["round"] for x in lines if x["variant"] == "true"] == [-1, 0, 1, 2]
    assert all(x["status"] == "ok" for x in lines if x["variant"] == "true")
