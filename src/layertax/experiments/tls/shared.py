"""tls's shared input: the model libraries, built (cached) and checked once per run, and
handed to the kernels in the environment. A library that fails its check is handed over
as its reason, so its case fails with it instead of timing the wrong model."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from layertax import paths
from layertax.experiment import SharedInput
from layertax.experiments.tls import models


@contextmanager
def model_libraries(options, settings, workroot: Path, note, progress) -> Iterator[SharedInput]:
    progress.start("tls: model libraries", 1)
    try:
        checked = models.build_and_check(paths.cache_dir())
    finally:
        progress.finish()
    env = {}
    for m in models.MODELS:
        got = checked[m.case]
        env[m.env] = f"!{got['error']}" if got["error"] else got["path"]
    yield SharedInput(env=env, info={"model_libraries": checked})
