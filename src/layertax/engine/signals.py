"""Ctrl-C (and SIGTERM, SIGHUP) taken where a measuring loop can stop cleanly, never lost.

Python raises KeyboardInterrupt wherever the main thread happens to be. In a finalizer (the
`__del__` of the Popen an invocation drops, run a few hundred times a second by a loop of
short kernels) it is printed as "Exception ignored" and lost, and the run goes on: 1 in 70
Ctrl-Cs of such a loop was lost that way. (Once, in the test suite, one also ended in an
internal error, EBADF; that it landed in a cleanup too is a guess.) Inside `SafeInterrupts`
the handler only notes the signal and kills the child being waited for (so no wait outlasts
the interrupt); `check()` raises it at the points the loop chooses, through the handler
installed before (KeyboardInterrupt for SIGINT, the command line's for SIGTERM and SIGHUP,
which records the signal for the exit code).
"""
from __future__ import annotations

import os
import signal
import subprocess
import threading

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class SafeInterrupts:
    def __init__(self):
        self.pending: int | None = None      # the first signal noted and not yet raised
        self.child: int | None = None        # the process group being waited for
        self.saved: dict[int, object] = {}

    def __enter__(self) -> SafeInterrupts:
        self.pending, self.child = None, None
        # Handlers can only be set from the main thread; elsewhere interrupts stay as they are.
        if threading.current_thread() is not threading.main_thread():
            return self
        for sig in SIGNALS:
            before = signal.getsignal(sig)
            if before in (signal.SIG_IGN, None):   # ignored (a background job's SIGINT) stays ignored
                continue
            self.saved[sig] = before
            signal.signal(sig, self._note)
        return self

    def __exit__(self, kind, value, traceback) -> bool:
        saved, self.saved = self.saved, {}
        for sig, before in saved.items():
            signal.signal(sig, before)
        if kind is None and self.pending is not None:
            _raise_as(self.pending, saved)
        return False

    def _note(self, signum: int, frame) -> None:
        if self.pending is not None:       # a second one: raise now, as an impatient user expects
            _raise_as(signum, self.saved)
        self.pending = signum
        self._end_child()

    def _end_child(self) -> None:
        if self.child is not None:
            try:
                os.killpg(self.child, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def watch(self, proc: subprocess.Popen | None) -> None:
        """proc (in a session of its own) is waited for now: an interrupt kills its group.
        None: nothing is. An interrupt noted before the child was watched kills it now."""
        self.child = proc.pid if proc is not None else None
        if self.pending is not None:
            self._end_child()

    def check(self) -> None:
        """Raises the interrupt noted since the last check, as its own handler would have."""
        if self.pending is not None:
            _raise_as(self.pending, self.saved)


def _raise_as(signum: int, handlers: dict) -> None:
    """Raises what the handler installed before would have: KeyboardInterrupt for SIGINT, or
    the command line's handler's (which records SIGTERM or SIGHUP for the exit code)."""
    before = handlers.get(signum)
    if callable(before):
        before(signum, None)
    raise KeyboardInterrupt
