"""The experiment registry: every subpackage that defines EXPERIMENT is one.

Discovery is automatic, so adding an experiment is adding a package here.
"""
from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from layertax.errors import UsageError
from layertax.experiment import Experiment


@cache
def registry() -> dict[str, Experiment]:
    found: dict[str, Experiment] = {}
    for info in pkgutil.iter_modules(__path__):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        exp = getattr(module, "EXPERIMENT", None)
        if isinstance(exp, Experiment):
            found[exp.name] = exp
    return dict(sorted(found.items()))


def get(name: str) -> Experiment:
    reg = registry()
    if name not in reg:
        raise UsageError(f"unknown experiment '{name}' (known: {', '.join(reg) or 'none'}; see `layertax list`)")
    return reg[name]
