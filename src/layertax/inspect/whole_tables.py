"""inspect's first two tables: the whole start-up (before main, after it and how the runtime
spends it) and the fixes tried by timing them. Numbers carry their units (report/ writes them)."""
from __future__ import annotations

from layertax.inspect import whole
from layertax.units import bare, duration, with_interval


def _interval(p: dict) -> str:
    lo, hi = p["ci95"]
    return f"[{bare(lo, p['ns'])}, {bare(hi, p['ns'])}]"


def saving(s: dict) -> str:
    """A fix's paired saving, never a negative one: within noise, or slower, said in words."""
    if "within_noise_ns" in s:
        return f"no measurable saving (±{duration(s['within_noise_ns'])})"
    if "below_control_ns" in s:
        lo, hi = s["below_control_ci95"]
        return f"none: slower by {with_interval(s['below_control_ns'], lo, hi)}"
    return with_interval(s["ns"], *s["ci95"])


def whole_table(result: dict) -> dict:
    parts = result.get("whole") or {}
    split = result.get("runtime_split") or {}
    rows = []
    for name in ("spawn->main", "main->exit"):
        if name in parts:
            p = parts[name]
            rows.append([name, p["ns"], _interval(p), p["share"]])
    stages = whole.runtime_rows(split, parts)
    for r in stages:
        rows.append([f"  {r['stage']}", r["ns"], r["source"], None])
    if "spawn->exit" in parts:
        p = parts["spawn->exit"]
        rows.append(["spawn->exit", p["ns"], _interval(p), 1.0])
    notes = list(split.get("details") or [])
    if split.get("problem"):
        notes.append(f"{split['runtime']}: {split['problem']}")
    if stages and not whole.trace_matches(split, parts):
        notes.append(f"the traced run took {duration(split.get('traced_ns') or 0)} against "
                     f"{duration(parts['spawn->exit']['ns'])} timed ({split['runtime']}'s logging slows it): each "
                     "stage is its share of the traced run applied to the timed one, an approximation")
    return {"title": "the whole start-up (medians of the timed launches; the runtime's stages from one traced run)",
            "columns": ["part", "time", "95% CI / source", "share"], "units": [None, "ns", None, "share"],
            "rows": rows, "notes": notes}


def fixes_tried_table(result: dict) -> dict:
    rows = []
    for f in result.get("fixes_tried") or []:
        if f["status"] != "ok":
            rows.append([f["fix"], "the program failed with it", "-", f.get("reason") or ""])
            continue
        ratio = f.get("ratio")
        text = "-" if not ratio else f"{ratio['median']:.3f}x [{ratio['ci95'][0]:.3f}, {ratio['ci95'][1]:.3f}]"
        rows.append([f["fix"], saving(f["saving"]) if f.get("saving") else "-", text, f.get("caveat") or ""])
    return {"title": "fixes tried: each timed against the program as it is, interleaved and paired per round "
                     "(saving on spawn->exit)",
            "columns": ["fix", "saving", "spawn->exit ratio [95% CI]", "what else it changes"], "rows": rows}
