"""The parent's side of a measured child: ending one that runs in its own session
(start_new_session=True) with everything it started, and keeping off the CPU it is pinned to."""
from __future__ import annotations

import os
import signal
import subprocess


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
    reading their output never preempts them; restores the old affinity after."""

    def __init__(self, cpu: int | None):
        self.cpu = cpu
        self.saved: set[int] | None = None
        self.moved = False

    def __enter__(self):
        if self.cpu is None:
            return self
        try:
            self.saved = os.sched_getaffinity(0)
        except OSError:
            return self
        self.keep_off(self.cpu)
        return self

    def keep_off(self, cpu: int | None) -> None:
        """Follows the kernels' process to another CPU (None: it is no longer pinned, and
        neither is this one)."""
        if not self.saved:
            return
        others = self.saved - {cpu} if cpu is not None else self.saved
        if not others:   # one CPU only: nowhere else to go
            return
        try:
            os.sched_setaffinity(0, others)
            self.moved = True
        except OSError:
            pass

    def __exit__(self, *exc):
        if self.moved and self.saved:
            os.sched_setaffinity(0, self.saved)
        return False
