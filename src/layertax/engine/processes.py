"""The parent's side of a measured child: ending one that runs in its own session
(start_new_session=True) with everything it started, and keeping off the CPU it is pinned to."""
from __future__ import annotations

import os
import signal
import subprocess
import threading
import time


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the child's whole process group and reap the child. A child that has just
    exited (the race between a deadline and its exit) is not an error."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def session_members(sid: int) -> list[int]:
    """Every live process in session sid (from /proc: field 6 of each stat)."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()   # after "pid (comm) ": state ppid pgrp session ...
        if len(fields) > 3 and fields[3] == str(sid).encode() and fields[0] != b"Z":
            members.append(int(entry))
    return members


def end_session(proc: subprocess.Popen, grace_s: float = 2.0) -> None:
    """Ends a child started with start_new_session=True and everything it started, wherever in
    its session that is: a build tool such as ninja puts each command in a process group of its
    own, so the group's SIGKILL alone left compilers writing into a directory being removed.
    SIGTERM first (ninja then stops its commands itself), then SIGKILL to every process still in
    the session, until none is left; reaps the child."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    for _ in range(200):
        members = session_members(proc.pid)
        if not members:
            break
        for pid in members:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.01)
        proc.poll()                   # reaps the child, which is ours; the others are ninja's
    proc.wait()


class ParentAwayFrom:
    """Keeps this (parent) process off the kernels' CPU while they run, so that
    reading their output never preempts them; restores the old affinity after.

    Every thread of the process is moved, not only the caller: sched_setaffinity(0) moves
    the calling thread alone, and a library's worker thread (numpy's OpenBLAS had one that
    spun for 0.1 s, blas_threads.py) would otherwise stay free to run on the kernels' CPU."""

    def __init__(self, cpu: int | None):
        self.cpu = cpu
        self.saved: dict[int, set[int]] = {}     # thread id -> its affinity before
        self.moved = False                         # whether any thread was kept off it

    def __enter__(self):
        if self.cpu is None:
            return self
        for tid in _threads():
            try:
                self.saved[tid] = os.sched_getaffinity(tid)
            except OSError:                        # a thread that has just ended
                pass
        self.keep_off(self.cpu)
        return self

    def keep_off(self, cpu: int | None) -> None:
        """Follows the kernels' process to another CPU (None: it is no longer pinned, and
        neither is this one)."""
        for tid, before in self.saved.items():
            others = before - {cpu} if cpu is not None else before
            if not others:   # one CPU only: nowhere else to go
                continue
            try:
                os.sched_setaffinity(tid, others)
                self.moved = True
            except OSError:
                pass

    def __exit__(self, *exc):
        saved, self.saved = self.saved, {}
        for tid, before in saved.items():
            try:
                os.sched_setaffinity(tid, before)
            except OSError:
                pass
        return False


def _threads() -> list[int]:
    """This process's threads (the caller's own id where /proc cannot say)."""
    try:
        return [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        return [threading.get_native_id()]
