"""spawn->main of each loadtime variant, stage by stage, every stage measured inside the same
process, so the stages add up to that process's spawn->main with nothing left over to go
negative.

Per LD_DEBUG=statistics launch of a variant (measure.LOADER_READINGS of them):
  exec, kernel, libc start-up   its spawn->main less glibc's loader total in that process
  loading objects               glibc: time needed to load objects
  relocation + lookups          glibc: time needed for relocation
  other loader work             glibc's total less the two above (ld.so's own start-up that
                                every program pays, and what LD_DEBUG itself costs)
Each stage is the median over the launches with its order-statistic interval. A debugged
launch is slower than a plain one (ld.so opens its output file and writes to it); that
difference is kept beside the stages (median of the debugged launches less the plain ones',
with a bootstrap interval), not taken out of any one stage, since no measurement says where
it lands.
"""
from __future__ import annotations

from layertax.engine.analysis import stats
from layertax.elf.loaderview import unnamed_ns

STAGES = ("exec, kernel, libc start-up", "loading objects", "relocation + lookups", "other loader work")


def _stage_values(reading: dict) -> list[float | None]:
    wall, unnamed = reading.get("spawn_to_main_ns_same_run"), unnamed_ns(reading)
    if wall is None or unnamed is None:
        return [None] * len(STAGES)
    return [wall - reading["total_ns"], reading["load_ns"], reading["relocation_ns"], unnamed]


def variant_split(case: dict) -> dict | None:
    """One variant's stages (None: it has no timed LD_DEBUG readings, e.g. a static program)."""
    readings = (case.get("loader") or {}).get("readings") or []
    rows = [v for v in (_stage_values(r) for r in readings) if None not in v]
    plain = [s["main_ns"] for s in case.get("samples", []) if s.get("main_ns") is not None]
    if not rows or not plain:
        return None
    debugged = [r["spawn_to_main_ns_same_run"] for r in readings if r.get("spawn_to_main_ns_same_run") is not None]
    # Each kept as stats.as_time keeps it, so that no time in the result is ever negative.
    return {"variant": case["name"], "stages": {name: stats.as_time(stats.median_summary([row[i] for row in rows]))
                                                for i, name in enumerate(STAGES)},
            "debugged_main_ns": stats.as_time(stats.median_summary(debugged)),
            "plain_main_ns": stats.as_time(stats.median_summary(plain)),
            "debug_cost": stats.as_time(stats.difference_of_medians(debugged, plain))}


def stage_split(result: dict) -> list[dict]:
    """Every variant's stages that can be split (see the module's docstring)."""
    return [s for c in result["cases"] if c["status"] == "ok" for s in [variant_split(c)] if s]
