"""What the rest of layertax may use of loadtime (inspect prices a user's program with it):
build the generated program of a given shape and link, and run the quick calibration
sweep. Everything else in this package is loadtime's own business."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from layertax.engine.builder.ninja import BuildFailed
from layertax.experiment import ProgressSink
from layertax.experiments.loadtime import generate, sweep, variants
from layertax.experiments.loadtime.measure import build_variants

SWEEP_NAME = sweep.NAME


def build_program(shape: dict, variant: str, cache_root: Path) -> Path | None:
    """The generated program of this shape ({"libs": 8, "relocs": 10, ...}, the rest Pietrek's),
    linked as `variant` (a loadtime variant name); built once into the cache. None if that
    variant does not build here."""
    chosen = variants.by_name(variant)
    try:
        tree, _ = build_variants(generate.Shape(**shape), [chosen], cache_root)
    except BuildFailed:
        return None
    program = tree / chosen.program()
    return program if program.is_file() else None


def calibration_sweep(progress: Callable[[], ProgressSink], say: Callable[[str], None]) -> dict:
    """A quick sweep (under a minute) that fits the cost model: the whole result document, unsaved."""
    return sweep.run(sweep.QUICK_CALIBRATION, sweep.QUICK_VARIANTS, 15, progress, say)
