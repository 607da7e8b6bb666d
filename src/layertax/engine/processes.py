"""The parent's side of a measured child: ending one that runs in its own session
(start_new_session=True) with everything it started, and keeping off the CPU it is pinned to."""
from __future__ import annotations

import os
import signal
import subprocess
import threading


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the child's whole process group and reap the child. A child that has just
    exited (the race between a deadline and its exit) is not an error."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
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
