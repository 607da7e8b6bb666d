"""SafeInterrupts: a signal is noted, ends the child being waited for, and is raised only
where the loop checks, as the handler before would have raised it. Real signals, real children."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from layertax.engine.signals import SafeInterrupts


@pytest.fixture(autouse=True)
def _ctrl_c_as_in_a_foreground_process():
    """A suite started in the background by a shell without job control inherits SIGINT ignored,
    which SafeInterrupts rightly leaves ignored; these tests are about a foreground process."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_a_ctrl_c_is_raised_at_the_check_not_where_it_arrived():
    reached = []
    with pytest.raises(KeyboardInterrupt):
        with SafeInterrupts() as interrupts:
            os.kill(os.getpid(), signal.SIGINT)
            reached.append("after the signal")     # a finalizer running here would not lose it
            interrupts.check()
            reached.append("after the check")
    assert reached == ["after the signal"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_interrupt_ends_the_watched_child_and_the_wait_returns():
    with pytest.raises(KeyboardInterrupt):
        with SafeInterrupts() as interrupts:
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"],
                                     stdout=subprocess.PIPE, start_new_session=True)
            interrupts.watch(child)
            os.kill(os.getpid(), signal.SIGINT)
            child.communicate(timeout=60)          # returns at once: the handler killed its group
            interrupts.watch(None)
            assert child.returncode == -signal.SIGKILL
            interrupts.check()


def test_an_interrupt_before_the_child_is_watched_ends_it_when_it_is():
    with pytest.raises(KeyboardInterrupt):
        with SafeInterrupts() as interrupts:
            os.kill(os.getpid(), signal.SIGINT)
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"],
                                     start_new_session=True)
            interrupts.watch(child)
            assert child.wait(timeout=60) == -signal.SIGKILL
            interrupts.check()


def test_sigterm_goes_through_the_handler_installed_before_it():
    seen = []

    def command_line_handler(signum, frame):
        seen.append(signum)
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, command_line_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with SafeInterrupts():
                os.kill(os.getpid(), signal.SIGTERM)
                assert seen == []                    # noted, not yet raised
        # Nothing checked inside: leaving the block raises it, through the handler before.
        assert seen == [signal.SIGTERM]
        assert signal.getsignal(signal.SIGTERM) is command_line_handler
    finally:
        signal.signal(signal.SIGTERM, before)


def test_a_second_interrupt_is_raised_at_once():
    reached = []
    with pytest.raises(KeyboardInterrupt):
        with SafeInterrupts():
            os.kill(os.getpid(), signal.SIGINT)
            reached.append("first noted")
            os.kill(os.getpid(), signal.SIGINT)
            reached.append("never")
    assert reached == ["first noted"]


def test_an_ignored_signal_stays_ignored():
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with SafeInterrupts() as interrupts:
            os.kill(os.getpid(), signal.SIGINT)
            interrupts.check()
            assert interrupts.pending is None
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
