"""Ending a child that runs in its own session (start_new_session=True), with everything it started."""
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
