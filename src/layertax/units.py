"""Units at the ground floor: how times, ratios, intervals and shares are written, so that
every table, note and report that prints a figure writes it the same way."""
from __future__ import annotations


def time_unit(ns: float) -> tuple[str, float]:
    """The unit a time of ns nanoseconds reads best in (s, ms, µs or ns) and its size in ns."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(ns) >= scale:
            return unit, scale
    return "ns", 1.0


def duration(ns: float | None) -> str:
    if ns is None:
        return "-"
    unit, scale = time_unit(ns)
    return f"{ns / scale:.3g} {unit}" if ns / scale < 100 else f"{ns / scale:.0f} {unit}"


def ratio(r: float | None) -> str:
    return "-" if r is None else f"{r:.2f}x"


def ratio_with_ci(summary: dict | None) -> str:
    if not summary:
        return "-"
    lo, hi = summary["ci95"]
    return f"{summary['median']:.2f}x [{lo:.2f}, {hi:.2f}]"


def ci(stats: dict | None) -> str:
    if not stats:
        return "-"
    lo, hi = stats["ci95"]
    return f"{duration(lo)} .. {duration(hi)}"


def percent(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"
