"""inspect's first two tables: the whole start-up (before main, after it and how the runtime
spends it) and the fixes tried by timing them. Numbers carry their units (report/ writes them)."""
from __future__ import annotations

from layertax.inspect import whole
from layertax import units
from layertax.units import bare, duration, saving


def _interval(p: dict) -> str:
    lo, hi = p["ci95"]
    return f"[{bare(lo, p['ns'])}, {bare(hi, p['ns'])}]"


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


def versus_table(result: dict) -> dict:
    """--vs: the two programs side by side, the whole start-up paired per round, then the split of
    spawn->main stage by stage (each stage its own median and interval, as in the split)."""
    vs = result.get("vs")
    if not vs:
        return {"title": "", "columns": [], "rows": []}
    rows = []
    for label in ("spawn->main", "spawn->exit"):
        p = vs.get(label)
        if p:
            r = p["ratio"]
            text = "-" if not r else f"{r['median']:.3f}x [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"
            rows.append([label, duration(p["first_ns"]), duration(p["other_ns"]), text])
    splits = result.get("split") or {}
    first, other = splits.get("lazy") or {}, splits.get(vs["name"]) or {}
    if first.get("status") == "ok" and other.get("status") == "ok":
        theirs = {p["part"]: p for p in other["parts"]}
        for p in first["parts"]:
            q = theirs.get(p["part"])
            rows.append([f"  {p['part']}", units.part(p), units.part(q) if q else "-", ""])
    return {"title": f"{result.get('title', '').removeprefix('start-up of ')} against {vs['name'][4:]} "
                     "(ratios paired per round: the second over the first)",
            "columns": ["part", "first", "second", "second / first [95% CI]"], "rows": rows,
            "notes": ["the stages are each program's own split, median [95% interval]; only the whole "
                      "start-up is paired round by round"]}
