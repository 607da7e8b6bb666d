"""inspect's first two tables: the whole start-up (before main, after it and how the runtime
spends it) and the fixes tried by timing them. Numbers carry their units (report/ writes them)."""
from __future__ import annotations

from layertax.inspect import whole
from layertax.units import duration


def figure(p: dict) -> dict:
    """A split's part as a table's figure: its numbers (time, interval, share), without its words."""
    return {k: v for k, v in p.items() if not isinstance(v, str)}


def _interval(p: dict) -> dict:
    """A part's interval as a figure: its median and ends (report/ writes the ends in the median's unit)."""
    return {"median": p["ns"], "ci95": list(p["ci95"])}


def whole_table(result: dict) -> dict:
    """The start-up to its end (exit, or the first output with --until-output: then what follows
    it is shown too, without a share), and main->exit split by the runtime's own stages."""
    parts = result.get("whole") or {}
    split = result.get("runtime_split") or {}
    end = whole.end_of(parts)
    order = (("spawn->main", "main->output", "spawn->output", "output->exit", "main->exit") if end == "output"
             else ("spawn->main", "main->exit"))
    rows = []
    stages = whole.runtime_rows(split, parts)
    for name in order:
        if name in parts:
            p = parts[name]
            rows.append([name, p["ns"], _interval(p), p["share"]])
            if name == "main->exit":
                rows += [[f"  {r['stage']}", r["ns"], r["source"], r["share"]] for r in stages]
    if "spawn->exit" in parts:
        p = parts["spawn->exit"]
        rows.append(["spawn->exit", p["ns"], _interval(p), p["share"]])
        if "main->exit" not in parts:     # a program that does not stamp main: the stages split the whole
            rows += [[f"  {r['stage']}", r["ns"], r["source"], r["share"]] for r in stages]
    notes = list(split.get("details") or [])
    if split.get("problem"):
        notes.append(f"{split['runtime']}: {split['problem']}")
    if stages and not whole.trace_matches(split, parts):
        notes.append(f"the traced run took {duration(split.get('traced_ns') or 0)} against "
                     f"{duration(parts['spawn->exit']['ns'])} timed ({split['runtime']}'s logging slows it): each "
                     "stage is its share of the traced run applied to the timed one, an approximation")
    if end == "exit" and result.get("until_output"):
        notes.append("--until-output: the program wrote nothing to stdout or stderr, so its start-up ends at exit")
    title = "the whole start-up" + (" until the first output" if end == "output" else "")
    return {"title": f"{title} (medians of the timed launches; the runtime's stages from one traced run)",
            "columns": ["part", "time", "95% CI / source", "share"], "units": [None, "ns", "interval", "share"],
            "rows": rows, "notes": notes}


def fixes_tried_table(result: dict) -> dict:
    rows = []
    for f in result.get("fixes_tried") or []:
        if f["status"] != "ok":
            rows.append([f["fix"], "the program failed with it", "-", f.get("reason") or ""])
            continue
        rows.append([f["fix"], f.get("saving"), f.get("ratio"), f.get("caveat") or ""])
    end = whole.end_of(result.get("whole"))
    return {"title": "fixes tried: each timed against the program as it is, interleaved and paired per round "
                     f"(saving on spawn->{end})",
            "columns": ["fix", "saving", f"spawn->{end} ratio [95% CI]", "what else it changes"],
            "units": [None, "saving", "ratio_ci", None], "rows": rows,
            "align": ["left", "right", "right", "left"]}   # the last is prose: read from its left


def versus_table(result: dict) -> dict:
    """--vs: the two programs side by side, the whole start-up paired per round, then the split of
    spawn->main stage by stage (each stage its own median and interval, as in the split)."""
    vs = result.get("vs")
    if not vs:
        return {"title": "", "columns": [], "rows": []}
    rows = []
    for label in ("spawn->main", "spawn->output", "spawn->exit"):
        p = vs.get(label)
        if p:
            rows.append([label, p["first_ns"], p["other_ns"], p["ratio"]])
    splits = result.get("split") or {}
    first, other = splits.get("lazy") or {}, splits.get(vs["name"]) or {}
    if first.get("status") == "ok" and other.get("status") == "ok":
        theirs = {p["part"]: p for p in other["parts"]}
        for p in first["parts"]:
            q = theirs.get(p["part"])
            rows.append([f"  {p['part']}", figure(p), figure(q) if q else None, ""])
    return {"title": f"{result.get('title', '').removeprefix('start-up of ')} against {vs['name'][4:]} "
                     "(ratios paired per round: the second over the first)",
            "columns": ["part", "first", "second", "second / first [95% CI]"],
            "units": [None, "part", "part", "ratio_ci"], "rows": rows,
            "notes": ["the stages are each program's own split, median [95% interval]; only the whole "
                      "start-up is paired round by round"]}
