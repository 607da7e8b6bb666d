"""The split of spawn->main into its stages, each from its own measurement.

  exec + kernel          the empty control's spawn->first constructor minus its
                         loader total (the same for every dynamic program, to a
                         first approximation: the kernel maps ld.so and the program)
  loading objects        glibc's "time needed to load objects" (median of a few launches)
  relocation + lookups   glibc's "time needed for relocation"
  other loader work      glibc's loader total minus the two above
  constructors           first constructor -> main, from the stamps of each launch

Because the parts come from three different measurements (the control, glibc's
TSC statistics, the program's own stamps), their sum against the measured
spawn->main is a real check, reported as an error, not forced to add up.
"""
from __future__ import annotations

import statistics

from layertax.engine.analysis import analyze
from layertax.loader.launch_command import EMPTY_STAMPED
from layertax.inspect.measure import median_reading


def _paired(case: dict, later: str, earlier: str) -> float | None:
    diffs = [s[later] - s[earlier] for s in case["samples"] if s.get(later) is not None and s.get(earlier) is not None]
    return float(statistics.median(diffs)) if diffs else None


def constructors(case: dict) -> dict:
    return {"all_ns": _paired(case, "main_ns", "first_init_ns"),
            "libraries_ns": _paired(case, "libc_start_main_ns", "first_init_ns"),
            "program_ns": _paired(case, "main_ns", "libc_start_main_ns")}


def split(result: dict, name: str) -> dict | None:
    case = next((c for c in result["cases"] if c["name"] == name and c["samples"]), None)
    empty = next((c for c in result.get("controls", []) if c["name"] == EMPTY_STAMPED and c["samples"]), None)
    if case is None or empty is None:
        return None
    measured = analyze.field_median(case, "main_ns")
    total = median_reading(case, "total_ns")
    load, reloc = median_reading(case, "load_ns"), median_reading(case, "relocation_ns")
    empty_first, empty_total = analyze.field_median(empty, "first_init_ns"), median_reading(empty, "total_ns")
    ctors = constructors(case)
    if None in (measured, total, load, reloc, empty_first, empty_total, ctors["all_ns"]):
        return {"status": "incomplete", "reason": "a stamp or glibc's statistics are missing for this variant"}
    parts = [("exec + kernel", empty_first - empty_total, "the empty control's spawn->first constructor minus its loader total"),
             ("loading objects", load, "glibc: time needed to load objects"),
             ("relocation + lookups", reloc, "glibc: time needed for relocation"),
             ("other loader work", total - load - reloc, "glibc: loader total minus the two above"),
             ("constructors", ctors["all_ns"], "stamps: first constructor -> main")]
    parts_sum = sum(p[1] for p in parts)
    return {"status": "ok", "variant": name, "measured_main_ns": measured,
            "parts": [{"part": p, "ns": v, "share": v / measured, "source": src} for p, v, src in parts],
            "sum_ns": parts_sum, "error": parts_sum / measured - 1, "constructors": ctors,
            "empty_constructors_ns": constructors(empty)["all_ns"]}


def bar(share: float, width: int = 30) -> str:
    """A text bar (it renders the same in a terminal and in Markdown)."""
    share = max(0.0, min(share, 1.0))
    full = int(round(share * width))
    return "#" * full + "." * (width - full)
