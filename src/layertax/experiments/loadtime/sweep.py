"""The loadtime sweep as a function: measure the generated program at several sizes, fit the cost model.

Used by `layertax loadtime sweep` and by `layertax inspect` (which runs a quick
calibration when this machine has no saved sweep).
"""
from __future__ import annotations

import itertools
import random

from layertax.elf import costmodel
from layertax.launch.settings import LaunchSettings
from layertax.engine import machine
from layertax.engine.store import results
from layertax.engine.analysis.analyze import field_median
from layertax.engine.measure.settings import Settings, default_cpu
from layertax.programs import generate
from layertax.experiments.loadtime.measure import measure_shape
from layertax.experiments.loadtime.tables import sweep_model_table, sweep_points_table
from layertax import paths

NAME = "loadtime-sweep"
# Enough to separate lookups, relative relocations and libraries (three variants
# move lookups at a fixed size) and to price a SysV-hash search (sysv-hash keeps the
# lookups and changes only the hash table), small enough to run in under a minute.
QUICK_CALIBRATION = {"libs": [2, 8], "relocs": [0, 10]}
QUICK_VARIANTS = ["default", "symbolic", "hidden", "sysv-hash"]


def sweep_points(raw: dict) -> list[dict]:
    """One model point per measured variant of one shape: the response and the counts that explain it."""
    points = []
    for c in raw["cases"]:
        if c["status"] != "ok" or not c["samples"] or "elf" not in c:
            continue
        rel = c["elf"]["relocations"]
        points.append({
            "variant": c["name"], **raw["shape"],
            "spawn_to_main_ns": field_median(c, "main_ns"),
            "relative_relocations": rel["relative"] + rel["relr"],
            # "lazy" already counts every PLT slot of an object flagged BIND_NOW (-z now)
            "symbol_lookups": sum(o["lookups"]["lazy"] for o in c["elf"]["objects"]),
            "sysv_probes": sum(o["lookups"].get("sysv_probes_lazy", 0) for o in c["elf"]["objects"]),
            "libraries": c["elf"]["libraries"],
            "page_faults": field_median(c, "minflt"),
            "rounds": len(c["samples"]),
        })
    return points


def shapes_of(dims: dict[str, list[int]]) -> list[generate.Shape]:
    base = generate.Shape()
    shapes = []
    for combo in itertools.product(*dims.values()):
        shape = generate.Shape(**{**base.to_dict(), **dict(zip(dims, combo))})
        shape.validate()
        shapes.append(shape)
    return shapes


def check_points(shapes: list[generate.Shape], names: list[str] | None, err=None) -> None:
    """Refuses (one line, with the estimate) a point this machine cannot build; says how long
    the builds may take when it is more than a minute."""
    from layertax.programs import estimate, variants
    from layertax.programs.build import split_available

    chosen, _ = split_available(names)
    builds = variants.builds([*chosen, variants.EMPTY])
    cache = paths.cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    guesses = [estimate.refuse_what_cannot_fit(shape, builds, cache) for shape in shapes]
    total = sum(g.build_s for g in guesses)
    if err is not None and total > 60:
        err.print(f"building the {len(shapes)} points may take about {total / 60:.0f} min (an estimate; cached "
                  "after)", style="dim")


def run(dims: dict[str, list[int]], names: list[str] | None, runs: int, progress_factory, say=None) -> dict:
    """Measures every point and fits the model; returns the whole result document (not yet saved)."""
    settings = Settings(runs=runs, warmup=1, runs_given=True, cpu=default_cpu(),
                        seed=random.SystemRandom().randrange(1, 2**32))
    shapes = shapes_of(dims)
    points, interrupted = [], False
    for i, shape in enumerate(shapes, 1):
        if say:
            say(f"point {i}/{len(shapes)}: {shape.label()}")
        raw, interrupted = measure_shape(shape, names, settings, paths.cache_dir(), progress_factory(), views=False)
        points += sweep_points(raw)
        if interrupted:
            break
    model = costmodel.fit(points)
    result = {"name": NAME, "title": "cost model of the loader", "question": "What does each "
              "relocation, lookup, library and fault cost?", "unit": "spawn->main", "baseline": None,
              "classic": None, "cases": [], "points": points, "model": model, "dims": dims,
              "variants": names, "interrupted": interrupted, "show_cases": False}
    result["tables"] = [sweep_points_table(result), sweep_model_table(result)]
    warm = LaunchSettings(warmup=settings.warmup)   # what measure_shape's launches warmed up with
    sweep_settings = {"runs": runs, "warmup": warm.warmup, "warmup_time": warm.warmup_time, "burst": 1,
                      "min_sample_ns": 0, "seed": settings.seed, "cpu": settings.cpu,
                      "method": f"{runs} launches per variant per point after {warm.warm_up()}, variants shuffled "
                                f"in rounds (seed {settings.seed}); OLS on the medians"}
    return results.new_document(sweep_settings, machine.fingerprint(), [result], complete=not interrupted)
