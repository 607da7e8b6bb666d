"""numpy's and scipy's OpenBLAS loaded with one thread, so no worker of ours spins on the CPU
we measure on.

Each OpenBLAS library (numpy and scipy bring one each) starts a worker thread per extra CPU
as it loads, and the worker spins for about 0.1 s before it sleeps: 103 ms of CPU right after
`import numpy`, with no BLAS call made. layertax
moves its own thread off the CPU it measures on, but the worker may run anywhere; a launch
run started inside that 0.1 s shared its CPU with it. The arithmetic layertax does is on a few
thousand numbers at most: one thread is all it needs.

OpenBLAS reads OPENBLAS_NUM_THREADS once, when it loads. So the variable is set to 1 while a
numpy or scipy module is being loaded, and put back as it was at once after: the programs
layertax starts, and measures, get the environment it was given.
"""
from __future__ import annotations

import os
import sys
import threading

VARIABLE = "OPENBLAS_NUM_THREADS"
PACKAGES = frozenset({"numpy", "scipy"})


class _OneThreadWhileLoading:
    """Sets VARIABLE to 1 while the outermost of any nested numpy or scipy loads runs."""

    def __init__(self):
        self.lock = threading.Lock()
        self.depth = 0
        self.saved: str | None = None

    def __enter__(self):
        with self.lock:
            if self.depth == 0:
                self.saved = os.environ.get(VARIABLE)
                os.environ[VARIABLE] = "1"
            self.depth += 1

    def __exit__(self, *exc):
        with self.lock:
            self.depth -= 1
            if self.depth == 0:
                if self.saved is None:
                    os.environ.pop(VARIABLE, None)
                else:
                    os.environ[VARIABLE] = self.saved
        return False


class _Loader:
    """A module's own loader, run with one BLAS thread. An extension module's library is
    loaded in create_module, a package's submodules in exec_module: both are covered."""

    def __init__(self, loader, guard: _OneThreadWhileLoading):
        self._loader, self._guard = loader, guard

    def create_module(self, spec):
        create = getattr(self._loader, "create_module", None)
        with self._guard:
            return create(spec) if create else None

    def exec_module(self, module):
        with self._guard:
            self._loader.exec_module(module)

    def __getattr__(self, name):          # everything else (get_resource_reader, is_package...) as it was
        return getattr(self._loader, name)


class _Finder:
    """A finder on sys.meta_path: one needs only find_spec (not importlib.abc's base class, which
    imports importlib.resources at every start)."""

    def __init__(self):
        self.guard = _OneThreadWhileLoading()

    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] not in PACKAGES:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Loader(spec.loader, self.guard)
                return spec
        return None


def install() -> None:
    """From here on, numpy and scipy load with one BLAS thread (once per process)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
