"""What the rest of layertax may use of loadtime (inspect prices a user's program with it):
the quick calibration sweep. Everything else in this package is loadtime's own business;
the generated programs themselves are in programs/."""
from __future__ import annotations

from collections.abc import Callable

from layertax.experiment import ProgressSink
from layertax.experiments.loadtime import sweep

SWEEP_NAME = sweep.NAME


def calibration_sweep(progress: Callable[[], ProgressSink], say: Callable[[str], None]) -> dict:
    """A quick sweep (under a minute) that fits the cost model: the whole result document, unsaved."""
    return sweep.run(sweep.QUICK_CALIBRATION, sweep.QUICK_VARIANTS, 15, progress, say)
