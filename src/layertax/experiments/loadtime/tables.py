"""The loadtime result's extra tables, which every report format prints: numbers and figures with
their units (report/format.py writes them)."""
from __future__ import annotations

from layertax.engine.analysis import stats
from layertax.engine.analysis.analyze import field_median, round_values

SPLIT_CHART = "loadtime-split"   # the HTML report draws this table as its stage chart, the numbers under it


def _cases(result: dict) -> list[dict]:
    return [c for c in result["cases"] if c["status"] == "ok"]


def loader_table(result: dict) -> dict:
    """Each variant's spawn->main, exit and the counts that explain them, as numbers with their
    units (report/ writes them)."""
    rows = []
    for c in _cases(result):
        st, elf, ld, cg = c.get("stats") or {}, c.get("elf") or {}, c.get("loader") or {}, c.get("callgrind") or {}
        rel = elf.get("relocations", {})
        rows.append([
            c["name"], st.get("min"), st.get("median"), field_median(c, "exit_ns"), ld.get("lookups"),
            rel.get("relative", 0) + rel.get("relr", 0) if rel else None,
            rel.get("glob_dat", 0) + rel.get("symbolic_other", 0) if rel else None,
            field_median(c, "minflt"), ld.get("total_ns"), (cg.get("phases") or {}).get("loader"), st.get("ratio"),
        ])
    return {"title": "the loader, variant by variant (spawn->main; lookups and loader time from LD_DEBUG=statistics, "
                     "the median launch; relocations from the files; faults from rusage; instructions from callgrind)",
            "columns": ["variant", "min", "median", "exit", "lookups", "relative+relr", "symbolic",
                        "minor faults", "loader (glibc)", "loader instr", "ratio to default"],
            "units": [None, "ns", "ns", "ns", "count", "count", "count", "count", "ns", "count", "ratio_ci"],
            "rows": rows}


def glibc_rounds(case: dict, as_printed: bool = False) -> dict[int, float]:
    """glibc's loader time of each LD_DEBUG launch of a case, by round: digit restored, or as
    glibc printed it (a result from before several readings were kept has its one reading)."""
    loader = case.get("loader") or {}
    readings = loader.get("readings", [{"round": 0, **loader}] if loader.get("status") == "ok" else [])
    return {r["round"]: r["total_ns"] / (r["tick_scale"] if as_printed else 1) for r in readings
            if r.get("total_ns") is not None and r.get("tick_scale")}


def views_table(result: dict) -> dict:
    """Three views of what the loader adds over the empty program. The wall clock's and glibc's
    are paired per round (both ran in every round, so a slow moment of the machine cancels)."""
    by_name = {c["name"]: c for c in _cases(result)}
    empty = by_name.get("empty")
    if empty is None:
        return {"title": "three views: the empty program did not run", "columns": [], "rows": []}
    e_wall = (empty.get("stats") or {}).get("median")
    e_cg = ((empty.get("callgrind") or {}).get("phases") or {}).get("loader")
    e_glibc, e_printed = glibc_rounds(empty), glibc_rounds(empty, as_printed=True)
    rows = []
    for c in _cases(result):
        if c["name"] == "empty":
            continue
        wall = (c.get("stats") or {}).get("median")
        cg = (c.get("callgrind") or {}).get("phases") or {}
        reloc_share = cg["relocation"] / cg["loader"] if cg.get("loader") else None
        rows.append([
            c["name"],
            stats.paired_difference(round_values(c, "main_ns"), round_values(empty, "main_ns"))
            if wall is not None and e_wall is not None else None,
            stats.paired_difference(glibc_rounds(c), e_glibc),
            stats.paired_difference(glibc_rounds(c, as_printed=True), e_printed),
            # A static program has no ld.so: callgrind finds no loader to count.
            cg["loader"] - e_cg if cg.get("loader") and e_cg is not None else None,
            f"{reloc_share:.0%}" if reloc_share is not None else "-",
        ])
    return {"title": "three views of what the loader adds over the empty program (medians of differences paired "
                     "per round)",
            "columns": ["variant", "wall: spawn->main [95% CI], paired per round", "glibc (digit restored)", "glibc as printed",
                        "instructions", "in relocation"],
            "units": [None, "stage", "stage", "stage", "count", None], "rows": rows,
            "notes": ["glibc 2.36 prints its tick counts with the last digit cut off (a NUL written over it), "
                      "so as printed they are 10x too small (docs/method/loader-views.md)"]}


def split_table(result: dict) -> dict:
    """result["split"] (split.py) as a table: each variant's stages inside its LD_DEBUG launches,
    beside its plain and debugged spawn->main and what LD_DEBUG itself cost."""
    split = result.get("split") or []
    stages = list(split[0]["stages"]) if split else []
    rows = [[v["variant"], v["plain_main_ns"], v["debugged_main_ns"], *(v["stages"][s] for s in stages),
             v["debug_cost"]] for v in split]
    return {"title": "spawn->main stage by stage, inside the same LD_DEBUG=statistics launches (median [95% "
                     "interval] over them; a static program has no loader to split)",
            "columns": ["variant", "spawn->main", "with LD_DEBUG", *stages, "LD_DEBUG's own cost"],
            "units": [None, "part", "part", *("part" for _ in stages), "part"], "rows": rows, "chart": SPLIT_CHART,
            "notes": ["exec, kernel, libc start-up: each launch's spawn->main less glibc's loader total in that "
                      "process; loading, relocation: glibc's own figures (digit restored); other loader work: its "
                      "total less the two (ld.so's own start-up, in a VM mostly CPU feature detection)",
                      "the stages add up to each debugged launch's spawn->main; LD_DEBUG's own cost (debugged "
                      "less plain) is shown, not taken out of any stage; an interval that reaches zero reads "
                      "'within noise'"]}


def sweep_points_table(result: dict) -> dict:
    """The sweep's points: each variant at each size, its median start-up and the counts that explain it."""
    rows = [[p["variant"], p["libs"], p["exports"], p["relocs"], p["spawn_to_main_ns"], p["relative_relocations"],
             p["symbol_lookups"], p.get("sysv_probes", 0), p["libraries"], p["page_faults"]] for p in result["points"]]
    return {"title": "points (median spawn->main; counts from the files; faults from rusage)",
            "columns": ["variant", "libs", "exports", "relocs", "spawn->main", "relative", "lookups",
                        "SysV searches", "libraries", "faults"],
            "units": [None, "count", "count", "count", "ns", "count", "count", "count", "count", "count"], "rows": rows}


def sweep_model_table(result: dict) -> dict:
    """The cost model fitted on the points: ns per unit of each term, with its interval."""
    model = result["model"]
    rows = []
    for term, c in model.get("coefficients", {}).items():
        if c is None:
            rows.append([term, "not varied", "-"])
        else:
            rows.append([term, f"{c['ns_per_unit']:,.1f}", f"{c['ci95'][0]:,.1f} .. {c['ci95'][1]:,.1f}"])
    r2 = f", R^2 {model['r2']:.3f}" if model.get("r2") is not None else ""
    notes = [] if model.get("status") == "ok" else [f"model: {model.get('reason')}"]
    return {"title": f"cost model: spawn->main = intercept + sum(slope x count); {model['n_points']} points{r2}",
            "columns": ["term", "ns per unit", "95% CI"], "rows": rows, "notes": notes}
