"""Units at the ground floor: how times, ratios, intervals and shares are written, so that
every table, note and report that prints a figure writes it the same way."""
from __future__ import annotations


def time_unit(ns: float) -> tuple[str, float]:
    """The unit a time of ns nanoseconds reads best in (s, ms, µs or ns) and its size in ns."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(ns) >= scale:
            return unit, scale
    return "ns", 1.0


def _decimals(value: float) -> int:
    """Decimals that write value with three significant digits (none from 100 up): 1.20, 12.0, 123."""
    text = f"{value:#.3g}"
    return 0 if value == 0 or abs(value) >= 100 or "e" in text else len(text.split(".")[1])


def duration(ns: float | None) -> str:
    """A time in the unit it reads best in, three significant digits kept (1.20 ms, not 1.2 ms)."""
    if ns is None:
        return "-"
    unit, scale = time_unit(ns)
    return f"{ns / scale:.{_decimals(ns / scale)}f} {unit}"


def bare(ns: float, like: float) -> str:
    """ns in the unit and with the decimals `like` is written with, without the unit: an
    interval's ends beside a median (1.18 ms [1.10, 1.20], never [1.1, 1.2])."""
    unit, scale = time_unit(like)
    return f"{ns / scale:.{_decimals(like / scale)}f}"


def count(x: float | None) -> str:
    """A count, or the median of counts: whole numbers without a decimal point (27, not 27.0);
    a median between two counts keeps its half (27.5)."""
    if x is None:
        return "-"
    return f"{int(x):,}" if float(x).is_integer() else f"{x:,.1f}"


def ratio(r: float | None) -> str:
    return "-" if r is None else f"{r:.2f}x"


def ratio_decimals(median: float, lo: float, hi: float) -> int:
    """The decimals a ratio and its interval carry: as many as the interval supports, one
    significant digit of its half-width (1.00x [0.97, 1.03]; 0.020x [0.017, 0.023];
    191x [186, 196]); two where the interval has no width (a count, exact)."""
    import math

    half = (hi - lo) / 2
    if half <= 0 or not math.isfinite(half):
        return 2
    return min(4, max(0, -math.floor(math.log10(half) + 1e-9)))


def ratio_with_ci(summary: dict | None) -> str:
    if not summary:
        return "-"
    lo, hi = summary["ci95"]
    d = ratio_decimals(summary["median"], lo, hi)
    return f"{summary['median']:.{d}f}x [{lo:.{d}f}, {hi:.{d}f}]"


def clear_of_one(x: float, decimals: int) -> str:
    """x with at least `decimals` decimals and as many more (up to six) as keep it on its side of
    1 when written: an interval's end of 1.0024 is 1.0 at one decimal, which reads as touching 1
    when the interval excludes it; here it is 1.002."""
    for d in range(decimals, 7):
        if (x > 1) == (round(x, d) > 1) and (x < 1) == (round(x, d) < 1):
            return f"{x:.{d}f}"
    return f"{x:.6f}"


def ratio_interval(median: float, lo: float, hi: float) -> str:
    """A ratio judged on whether its interval excludes 1 (compare's B/A, launch's verdict), with
    the digits the interval supports (ratio_with_ci's), and an end that keeps the interval clear
    of 1 with the digits that show it: 1.05x [1.002, 1.11], not [1.00, 1.11]."""
    d = ratio_decimals(median, lo, hi)
    low = clear_of_one(lo, d) if lo > 1 else f"{lo:.{d}f}"
    high = clear_of_one(hi, d) if hi < 1 else f"{hi:.{d}f}"
    return f"{median:.{d}f}x [{low}, {high}]"


def ratio_point(summary: dict | None) -> str:
    """A ratio alone, with the digits its interval supports (ratio_with_ci's), for a column
    too narrow for the interval itself: 0.017x, 2.2x."""
    if not summary:
        return "-"
    lo, hi = summary["ci95"]
    return f"{summary['median']:.{ratio_decimals(summary['median'], lo, hi)}f}x"


def ci(stats: dict | None) -> str:
    if not stats:
        return "-"
    lo, hi = stats["ci95"]
    return f"{duration(lo)} .. {duration(hi)}"


def percent(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def half_width(x: float) -> str:
    """A relative half-width against a target, in percent with one decimal, rounded up: one that
    missed ±2% by a hair (0.0201) reads ±2.1%, never the ±2.0% it missed."""
    import math

    return f"±{math.ceil(x * 1000 - 1e-9) / 10:.1f}%"


def whole_percent(x: float | None) -> str:
    return "-" if x is None else f"{x:.0%}"


def share_with_ci(summary: dict | None) -> str:
    """A share and its interval in whole percent: 80% [78%, 81%]."""
    if not summary:
        return "-"
    lo, hi = summary["ci95"]
    return f"{whole_percent(summary['median'])} [{whole_percent(lo)}, {whole_percent(hi)}]"


def stage(summary: dict | None) -> str:
    """A measured stage of a whole (a median with its 95% interval) as a time that is never
    negative: an interval that contains zero reads "within noise (±x)", one wholly below zero
    says the stage took less than what it was measured against."""
    if not summary:
        return "-"
    median, (lo, hi) = summary["median"], summary["ci95"]
    if lo <= 0 <= hi:
        return f"within noise (±{duration(max(abs(lo), abs(hi)))})"
    if hi < 0:
        return f"less than the control's (by {with_interval(-median, -hi, -lo)})"
    return with_interval(median, lo, hi)


def with_interval(ns: float, lo: float, hi: float) -> str:
    """A time and its interval, the ends in the time's unit as the case tables write them: 1.18 ms [1.17, 1.23]."""
    return f"{duration(ns)} [{bare(lo, ns)}, {bare(hi, ns)}]"


def part(stage_part: dict, noise: str = "within noise ({})", below: str = "less than the control's (by {})") -> str:
    """A time as stats.as_time keeps it (a stage, a cost): its time and interval, within noise,
    or below the control's ("-" for none). noise and below word the last two ({} the figure)."""
    if not stage_part:
        return "-"
    if "within_noise_ns" in stage_part:
        return noise.format(f"±{duration(stage_part['within_noise_ns'])}")
    if "below_control_ns" in stage_part:
        lo, hi = stage_part["below_control_ci95"]
        return below.format(with_interval(stage_part["below_control_ns"], lo, hi))
    return with_interval(stage_part["ns"], *stage_part["ci95"])


def saving(fix_saving: dict) -> str:
    """A fix's paired saving (stats.as_time of the program's time less the fix's), never a
    negative one: within noise, or slower, said in words."""
    return part(fix_saving, noise="no measurable saving ({})", below="none: slower by {}")
