"""The whole start-up, spawn to exit (or to the program's first output, --until-output): the part
before main (the loader's, split elsewhere), the part after it (the runtime's, split by its own
tracing, with the residual shown), each with its interval and share; the fixes tried, each
priced by its paired saving on the same interval; and the answer in one sentence."""
from __future__ import annotations

import statistics

from layertax.engine.analysis import analyze, stats
from layertax.units import duration

# The runtime's stages are read from a traced run and the whole from the timed ones: when they
# differ by more than this share of main->exit, the split says so.
SUM_TOLERANCE = 0.10
FIX_PREFIX = "fix: "


def _per_round(case: dict, key) -> dict[int, float]:
    """One value per round: the median over the round's launches of key(sample) (a derived
    figure; analyze.round_values reads a sample's own fields)."""
    rounds: dict[int, list[float]] = {}
    for s in case["samples"]:
        v = key(s)
        if v is not None:
            rounds.setdefault(s["round"], []).append(v)
    return {r: statistics.median(v) for r, v in rounds.items()}


def _between(case: dict, start: str, end: str) -> dict:
    """The median of the round medians of a case's time from one of its marks to a later one, with
    its interval (launches missing either mark left out)."""
    gap = (lambda s: s[end] - s[start] if s.get(start) is not None and s.get(end) is not None else None)
    return stats.median_summary(list(_per_round(case, gap).values()))


def end_of(parts: dict | None) -> str:
    """Where the start-up ends: "output" (its first output, --until-output) or "exit"."""
    return "output" if parts and "spawn->output" in parts else "exit"


def whole(result: dict, lazy_name: str, until_output: bool = False) -> dict | None:
    """spawn->main, main->exit and spawn->exit of the program as the user runs it, each the median
    of its round medians with the 95% interval of that median; with until_output also
    main->output, spawn->output and output->exit, the shares then of spawn->output (the
    start-up ends at the first byte written). None without samples."""
    lazy = next((c for c in result["cases"] if c["name"] == lazy_name), None)
    if not lazy or not lazy["samples"]:
        return None
    parts = {"spawn->exit": stats.median_summary(list(analyze.round_values(lazy, "exit_ns").values()))}
    main = analyze.round_values(lazy, "main_ns")
    if main:
        parts["spawn->main"] = stats.median_summary(list(main.values()))
        parts["main->exit"] = _between(lazy, "main_ns", "exit_ns")
    output = analyze.round_values(lazy, "output_ns") if until_output else {}
    if output:
        parts["spawn->output"] = stats.median_summary(list(output.values()))
        parts["output->exit"] = _between(lazy, "output_ns", "exit_ns")
        if main:
            parts["main->output"] = _between(lazy, "main_ns", "output_ns")
    within = ("spawn->main", "main->output", "spawn->output") if output else ("spawn->main", "main->exit", "spawn->exit")
    total = parts["spawn->output" if output else "spawn->exit"]["median"]
    return {name: {"ns": p["median"], "ci95": p["ci95"],
                   "share": p["median"] / total if total and name in within else None}
            for name, p in parts.items()}


def runtime_rows(split: dict | None, whole_parts: dict | None) -> list[dict]:
    """The runtime's stages against the measured part they split (main->exit, or spawn->exit for a
    program that does not stamp main), and the residual: what the trace does not name.

    A traced run its logging slowed (-X importtime makes python3 2-3x slower) names stages larger
    than the timed run's: each stage is then taken as its share of the traced run, applied to
    the timed spawn->exit (the table's note says so); the residual is never below zero. Each row's
    "share" is of spawn->exit, as the measured parts' are, where the start-up ends at exit (None
    where it ends at the first output: the stages are after it)."""
    if not split or not split.get("stages") or not whole_parts:
        return []
    measured = whole_parts.get("main->exit") or whole_parts["spawn->exit"]
    traced, total = split.get("traced_ns"), whole_parts["spawn->exit"]["ns"]
    scale = 1.0 if trace_matches(split, whole_parts) or not traced else total / traced
    rows = [{"stage": s["name"], "ns": s["ns"] * scale, "source": s["source"]} for s in split["stages"]]
    named = sum(r["ns"] for r in rows)
    rows.append({"stage": "not named by the trace (residual)", "ns": max(0.0, measured["ns"] - named),
                 "source": "measured - named"})
    exit_shares = end_of(whole_parts) == "exit" and total
    return [{**r, "share": r["ns"] / total if exit_shares else None} for r in rows]


def trace_matches(split: dict | None, whole_parts: dict | None) -> bool:
    """Whether the traced run took as long as the timed ones (spawn->exit within SUM_TOLERANCE):
    then its stages are the timed run's; a traced run that its logging slowed names stages
    that are larger than the timed run's, and they read as shares."""
    traced, parts = (split or {}).get("traced_ns"), whole_parts or {}
    measured = (parts.get("spawn->exit") or {}).get("ns")
    return bool(traced and measured) and abs(traced - measured) <= SUM_TOLERANCE * measured


def fix_rows(result: dict, lazy_name: str, end: str = "exit") -> list[dict]:
    """Each fix tried: its paired saving on spawn->exit (or spawn->output: end) against the program
    as it is (never a negative saving: an interval that holds zero is "no measurable saving"),
    its ratio, and whether the program still ran."""
    lazy = next((c for c in result["cases"] if c["name"] == lazy_name), None)
    if not lazy:
        return []
    key = f"{end}_ns"
    base = analyze.round_values(lazy, key)
    rows = []
    for case in result["cases"]:
        if not case["name"].startswith(FIX_PREFIX):
            continue
        row = {"fix": case["name"][len(FIX_PREFIX):], "status": case["status"], "reason": case.get("reason"),
               "caveat": case.get("caveat")}
        if case["status"] == "ok" and case["samples"]:
            mine = analyze.round_values(case, key)
            row["saving"] = stats.as_time(stats.paired_difference(base, mine))
            row["ratio"] = stats.ratio_summary(stats.paired_ratios(mine, base))
        rows.append(row)
    return rows


def answer(name: str, parts: dict | None, runtime: str | None, rows: list[dict], fixes: list[dict]) -> str | None:
    """"java -version: 48.5 ms; 2% reaching main, 98% after it (the JVM's start-up: VM creation
    30.1 ms); biggest measured saving: AppCDS archive of its classes, 6.2 ms"."""
    if not parts:
        return None
    end = end_of(parts)
    total = parts[f"spawn->{end}"]
    text = f"{name}: {duration(total['ns'])} spawn->{end}"
    if f"main->{end}" in parts:
        before, after = parts["spawn->main"], parts[f"main->{end}"]
        text += f"; {before['share']:.0%} reaching main, {after['share']:.0%} after it"
        text += " until its first output" if end == "output" else ""
    if runtime and rows:
        named = max((r for r in rows if r["source"] != "measured - named"), key=lambda r: r["ns"])
        text += f" ({runtime}: {named['stage']} {duration(named['ns'])})"
    saved = [f for f in fixes if f.get("saving") and f["saving"].get("ci95")]
    if saved:
        best = max(saved, key=lambda f: f["saving"]["ns"])
        text += f"; biggest measured saving: {best['fix']}, {duration(best['saving']['ns'])}"
    elif fixes:
        text += "; no fix tried saved a measurable time"
    return text


def versus(result: dict, lazy_name: str, other_name: str) -> dict | None:
    """The second program against the first (--vs): its spawn->main, spawn->output (timed with
    --until-output) and spawn->exit, each paired
    per round as a ratio to the first's (its stages are set side by side from the split)."""
    lazy = next((c for c in result["cases"] if c["name"] == lazy_name), None)
    other = next((c for c in result["cases"] if c["name"] == other_name), None)
    if not lazy or not other or not lazy["samples"] or not other["samples"]:
        return None
    out = {"name": other_name}
    for key, label in (("main_ns", "spawn->main"), ("output_ns", "spawn->output"), ("exit_ns", "spawn->exit")):
        a, b = analyze.round_values(lazy, key), analyze.round_values(other, key)
        if a and b:
            out[label] = {"first_ns": statistics.median(a.values()), "other_ns": statistics.median(b.values()),
                          "ratio": stats.ratio_summary(stats.paired_ratios(b, a))}
    return out
