"""Number formatting and the rows every report shares, so all formats agree."""
from __future__ import annotations


def duration(ns: float | None) -> str:
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(ns) >= scale:
            return f"{ns / scale:.3g} {unit}" if ns / scale < 100 else f"{ns / scale:.0f} {unit}"
    return f"{ns:.3g} ns" if ns < 100 else f"{ns:.0f} ns"


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


def classic_by_case(exp: dict) -> dict[str, str]:
    """case name -> "1.45x": the classic ratio of the layer each case stands for (named in the then/now table)."""
    return {row["counterpart"]: f"{row['then_ratio']:.2f}x"
            for row in exp.get("classic_now", []) if row.get("counterpart")}


def case_rows(exp: dict) -> list[dict]:
    """One row per case, already formatted: the table every format prints."""
    classic = classic_by_case(exp)
    rows = []
    for case in exp["cases"]:
        st = case.get("stats")
        status = case["status"]
        if st is None:
            median = {"skipped": "skipped", "failed": "FAILED"}.get(status, "no samples")
        else:
            median = duration(st["median"])
        rows.append({
            "case": case["name"] + (" (base)" if case["name"] == exp["baseline"] else ""),
            "layer": case["layer"],
            "median": median,
            "ci95": ci(st),
            "min": duration(st["min"]) if st else "-",
            "spread": percent(st["spread"]) if st else "-",
            "n": str(st["n"]) if st else "0",
            "ratio": ratio_with_ci(st.get("ratio")) if st else "-",
            "classic": classic.get(case["name"], ""),
            "status": status,
            "noisy": bool(st and st["warnings"]),
        })
    return rows


def problems(exp: dict) -> list[str]:
    """Skipped and failed cases with their reasons, one line each (skips of one kernel merged)."""
    lines, seen = [], set()
    for case in exp["cases"]:
        if case["status"] == "ok":
            continue
        key = (case["status"], case["reason"])
        names = [c["name"] for c in exp["cases"] if (c["status"], c["reason"]) == key]
        if key in seen:
            continue
        seen.add(key)
        lines.append(f"{case['status']}: {', '.join(names)}: {case['reason']}")
    return lines


def noise_lines(exp: dict) -> list[str]:
    """The engine's warnings: the experiment's own first, then each case's."""
    return list(exp.get("warnings", [])) + [f"{c['name']}: {'; '.join(c['stats']['warnings'])}"
                                            for c in exp["cases"] if c.get("stats") and c["stats"]["warnings"]]


def machine_line(machine: dict) -> str:
    return (f"{machine.get('cpu_model')} ({machine.get('cores')} cores), {machine.get('os') or 'Linux'}, "
            f"kernel {machine.get('kernel')}, {machine.get('libc')}")


def settings_line(settings: dict) -> str:
    if settings.get("method"):
        return settings["method"]
    return (f"{settings['runs']} rounds x {settings['burst']} samples after {settings['warmup']} warm-up, "
            f"samples >= {duration(settings['min_sample_ns'])}, interleaved (seed {settings['seed']}), "
            f"cpu {settings['cpu'] if settings['cpu'] is not None else 'not pinned'}")


def harness_line(exp: dict) -> str | None:
    h = exp.get("harness")
    if not h or "empty_ns_per_iter" not in h:
        return None
    return (f"harness floor: empty loop {duration(h['empty_ns_per_iter'])}/iter, clock read "
            f"{h['clock_overhead_ns']} ns, resolution {h['clock_res_ns']} ns; {h['pin']}; priority {h['priority']}")
