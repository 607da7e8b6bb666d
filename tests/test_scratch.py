"""Private temporary directories: named for the process that made them, removed on the way
out, and removed by a later command when a SIGKILL left them behind (and only then)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from layertax import scratch
from tests.conftest import run_cli


def _dead_pid() -> int:
    p = subprocess.Popen(["/bin/true"])
    p.wait()
    return p.pid


def _old(path, seconds: float = scratch.ABANDONED_AFTER_S + 60):
    then = time.time() - seconds
    os.utime(path, (then, then))
    return path


def test_a_private_dir_carries_its_process_and_goes_on_the_way_out(tmp_path):
    with scratch.private_dir("probe", tmp_path) as d:
        assert d.is_dir() and d.parent == tmp_path
        assert d.name.startswith(f"layertax-probe-p{os.getpid()}-")
        assert oct(d.stat().st_mode & 0o777) == "0o700"
        (d / "f").write_text("x")
    assert not d.exists()
    made = scratch.make_private_dir("callchain-instructions", tmp_path)
    assert made.name.startswith(f"layertax-callchain-instructions-p{os.getpid()}-") and made.is_dir()


def test_the_sweep_removes_only_old_directories_of_processes_that_are_gone(tmp_path):
    dead = _dead_pid()
    abandoned = tmp_path / f"layertax-launch-p{dead}-abc_12"
    abandoned.mkdir()
    (abandoned / "launches.jsonl").write_text("{}\n")
    _old(abandoned)
    kept = {
        "fresh": tmp_path / f"layertax-launch-p{dead}-fresh1",                   # touched just now
        "alive": tmp_path / f"layertax-launch-p{os.getpid()}-alive1",            # its process runs
        "unnamed": tmp_path / "layertax-pg-xyz",                                  # not ours to judge
        "other": tmp_path / f"something-p{dead}-abc",
    }
    for name, path in kept.items():
        path.mkdir()
        if name != "fresh":
            _old(path)
    a_file = tmp_path / f"layertax-launch-p{dead}-file1"
    a_file.write_text("not a directory")
    _old(a_file)
    target = tmp_path / "elsewhere"
    target.mkdir()
    link = tmp_path / f"layertax-launch-p{dead}-link1"
    link.symlink_to(target)
    removed = scratch.sweep_abandoned((tmp_path, tmp_path / "absent"))
    assert removed == [abandoned] and not abandoned.exists()
    assert all(p.exists() for p in kept.values()) and a_file.exists() and link.is_symlink() and target.is_dir()


def test_a_sigkilled_launch_leaves_no_timer_running_and_the_next_command_clears_its_directory(tmp_path):
    """SIGKILL gives layertax no chance to clean up: its timer ends with it (the kernel's
    parent-death signal), and the next command removes the directory once it is old enough."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "layertax", "launch", "--no-stamp", "--runs", "5",
                             "--warmup-time", "60", "--no-save", "--", "/bin/true"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + 120
        while not (left := [p for p in tmp_path.iterdir() if p.name.startswith("layertax-launch-")]):
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.1)
        time.sleep(1)
        timers = subprocess.run(["pgrep", "-f", str(left[0])], capture_output=True, text=True).stdout.split()
        assert timers, "the timer should be running in the directory"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 30
        while subprocess.run(["pgrep", "-f", str(left[0])], capture_output=True).returncode == 0:
            assert time.monotonic() < deadline, "the timer outlived its parent"
            time.sleep(0.1)
    finally:
        proc.kill()
        for pid in subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True).stdout.split():
            os.kill(int(pid), signal.SIGKILL)
    assert left[0].exists()
    assert run_cli("--version", env=env).returncode == 0
    assert left[0].exists()                       # too recent to be judged abandoned
    _old(left[0])
    assert run_cli("--version", env=env).returncode == 0
    assert not left[0].exists()
