"""The split of spawn->main into its stages, each a median with its 95% interval, each from
values paired inside one launch or one round, never from medians of different runs subtracted.

  exec + kernel                     per LD_DEBUG launch of the program: its own spawn->first
                                    constructor minus glibc's loader total in that same process
  ld.so: loading objects            glibc: time needed to load objects (per launch)
  ld.so: relocation + lookups       glibc: time needed for relocation (per launch)
  ld.so: start-up work any program  the empty control's loader total minus its loading and
         pays                       relocation (ld.so's own relocation, CPU feature detection,
                                    tunables, TLS, the preloaded stamp), less what LD_DEBUG
                                    itself costs a launch
  ld.so: other work for this        the program's loader total minus its loading and
         program                    relocation, minus the empty control's, paired launch by
                                    launch: the residual nothing above explains
  constructors                      stamps: first constructor -> main, in each plain launch

glibc's figures come from the LD_DEBUG=statistics launches; those launches are slower to
reach their first constructor than plain ones, and that difference (measured, with its
interval) is taken out of the start-up row, where ld.so pays it (it opens its debug output
while it reads its environment). The parts' sum against the plain launches' measured
spawn->main is a real check, reported as an error, not forced to add up.
"""
from __future__ import annotations

import statistics

from layertax.engine.analysis import analyze, stats
from layertax.elf.loaderview import unnamed_ns
from layertax.launch.stamp import EMPTY_STAMPED


def _paired(case: dict, later: str, earlier: str) -> float | None:
    diffs = [s[later] - s[earlier] for s in case["samples"] if s.get(later) is not None and s.get(earlier) is not None]
    return float(statistics.median(diffs)) if diffs else None


def constructors(case: dict) -> dict:
    return {"all_ns": _paired(case, "main_ns", "first_init_ns"),
            "libraries_ns": _paired(case, "libc_start_main_ns", "first_init_ns"),
            "program_ns": _paired(case, "main_ns", "libc_start_main_ns")}


def _per_launch(case: dict, key) -> dict[int, float]:
    """{launch: value} from a case's LD_DEBUG=statistics readings (key: a field, or a function of the reading)."""
    out = {}
    for i, r in enumerate(case.get("loader") or []):
        if r.get("status") != "ok":
            continue
        value = key(r) if callable(key) else r.get(key)
        if value is not None:
            out[r.get("round", i)] = float(value)
    return out


def _exec(r: dict) -> float | None:
    """In one launch, spawn->first constructor less everything ld.so did: the exec and the kernel."""
    if r.get("wall_ns_same_run") is None or r.get("total_ns") is None or r.get("wall_key") != "first_init_ns":
        return None
    return r["wall_ns_same_run"] - r["total_ns"]


def _shifted(summary: dict | None, by: dict | None) -> dict | None:
    """summary - by (medians and interval ends: a conservative interval for a difference of two)."""
    if summary is None or by is None:
        return None
    return {"median": summary["median"] - by["median"],
            "ci95": [summary["ci95"][0] - by["ci95"][1], summary["ci95"][1] - by["ci95"][0]],
            "n": min(summary["n"], by["n"])}


def split(result: dict, name: str) -> dict | None:
    case = next((c for c in result["cases"] if c["name"] == name and c["samples"]), None)
    empty = next((c for c in result.get("controls", []) if c["name"] == EMPTY_STAMPED and c["samples"]), None)
    if case is None or empty is None:
        return None
    measured = analyze.field_median(case, "main_ns")
    ctor_values = {i: s["main_ns"] - s["first_init_ns"] for i, s in enumerate(case["samples"])
                   if s.get("main_ns") is not None and s.get("first_init_ns") is not None}
    debug_launches = list(_per_launch(empty, "wall_ns_same_run").values())
    plain = [s["first_init_ns"] for s in empty["samples"] if s.get("first_init_ns") is not None]
    # What LD_DEBUG itself costs a launch: the empty control's spawn->first constructor, debugged vs plain.
    debug_cost = stats.difference_of_medians(debug_launches, plain)
    stages = [
        ("exec + kernel", stats.median_summary(_per_launch(case, _exec).values()),
         "per LD_DEBUG launch: spawn->first constructor minus glibc's loader total, same process"),
        ("ld.so: loading objects", stats.median_summary(_per_launch(case, "load_ns").values()),
         "glibc: time needed to load objects"),
        ("ld.so: relocation + lookups", stats.median_summary(_per_launch(case, "relocation_ns").values()),
         "glibc: time needed for relocation"),
        ("ld.so: start-up work any program pays",
         _shifted(stats.median_summary(_per_launch(empty, unnamed_ns).values()), debug_cost),
         "the empty control's loader total minus loading and relocation (ld.so's own relocation, CPU feature "
         "detection, tunables, TLS, the preloaded stamp), less LD_DEBUG's own cost"),
        ("ld.so: other work for this program", stats.paired_difference(_per_launch(case, unnamed_ns),
                                                                       _per_launch(empty, unnamed_ns)),
         "the same remainder, this program's minus the empty control's, paired launch by launch"),
        ("constructors", stats.median_summary(ctor_values.values()), "stamps: first constructor -> main"),
    ]
    if measured is None or any(s is None for _, s, _ in stages):
        return {"status": "incomplete", "reason": "a stamp or glibc's statistics are missing for this variant"}
    parts = [stage_part(p, s, src, measured) for p, s, src in stages]
    parts_sum = sum(p["ns"] for p in parts)
    return {"status": "ok", "variant": name, "measured_main_ns": measured, "parts": parts,
            "sum_ns": parts_sum, "error": parts_sum / measured - 1, "debug_cost": stats.as_time(debug_cost),
            "constructors": constructors(case), "empty_constructors_ns": constructors(empty)["all_ns"]}


def stage_part(part: str, summary: dict, source: str, measured: float) -> dict:
    """One stage as the result keeps it, never a negative time (stats.as_time), with its share
    of spawn->main (0 unless its interval is above zero)."""
    time = stats.as_time(summary)
    return {"part": part, "source": source, **time, "share": time["ns"] / measured}


def residual_share(sp: dict) -> float | None:
    """The share of spawn->main that nothing names: the other work for this program (never below 0)."""
    if not sp or sp.get("status") != "ok":
        return None
    other = next(p for p in sp["parts"] if p["part"] == "ld.so: other work for this program")
    return max(other["ns"], 0.0) / sp["measured_main_ns"]


def bar(share: float, width: int = 30) -> str:
    """A text bar (it renders the same in a terminal and in Markdown)."""
    share = max(0.0, min(share, 1.0))
    full = int(round(share * width))
    return "#" * full + "." * (width - full)
