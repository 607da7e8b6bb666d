"""The inspect report as tables (title, columns, rows, notes), rendered by the common report code."""
from __future__ import annotations

from pathlib import Path

from layertax.engine.analysis import analyze
from layertax.inspect import measure, split as split_mod, whole_tables
from layertax.launch import contention, descendants, ticks
from layertax import units
from layertax.units import duration


def _flags(e: dict) -> str:
    flags = []
    if e["pie"]:
        flags.append("PIE")
    if e["bind_now"]:
        flags.append("NOW")
    if e["relro_bytes"]:
        flags.append(f"RELRO {e['relro_bytes'] / 1024:.1f}K")
    if e["textrel"]:
        flags.append("TEXTREL")
    if e["symbolic"]:
        flags.append("SYMBOLIC")
    return " ".join(flags) or "-"


def tree_table(pic) -> dict:
    rows = []
    for o in pic.objects:
        name = "  " * o["depth"] + (Path(o["name"]).name if o["found_by"] == "program" else o["name"])
        e = o["elf"]
        if e is None:
            rows.append([name, o["found_by"]] + ["-"] * 13)
            continue
        r = e["relocations"]
        init = e["init"]
        rows.append([name, o["found_by"], r["relative"], r["relr"], r["glob_dat"], r["jump_slot"],
                     r["symbolic_other"] + r["copy"], f"{e['lookups']['lazy']:,} / {e['lookups']['now']:,}",
                     e["exported"], e["imported"], "+".join(e["hash"]) or "-", _flags(e),
                     f"{e['pages_written']} ({e['pages_written'] * 4} K)",
                     f"{init.get('init', 0)}+{init.get('init_array', 0)}" + (f"+{init['preinit_array']}p" if init.get("preinit_array") else ""),
                     len(e["needed"])])
    notes = [f"problem: {p}" for p in pic.problems]
    notes += [f"unused: {u['name']} is named by {', '.join(Path(n).name for n in u['named_by'])}, which use none of "
              "its symbols" for u in pic.unused]
    notes.append("lookups: the relocations that need a symbol lookup at start-up (lazy / with BIND_NOW), after "
                 "glibc's rules: local and hidden symbols and symbol-less relocations need none; a repeat of the "
                 "previous relocation's symbol is served by its one-entry cache. init: DT_INIT + DT_INIT_ARRAY entries. "
                 "pages: distinct 4 KiB pages the relocations write")
    return {"title": "the static picture: every object the loader maps, as it will resolve them (no execution)",
            "columns": ["object", "found by", "relative", "RELR", "GLOB_DAT", "JUMP_SLOT", "other symbolic",
                        "lookups lazy/now", "exported", "imported", "hash", "flags", "pages written", "init", "deps"],
            "units": [None, None, "count", "count", "count", "count", "count", None, "count", "count", None, None, None,
                      None, "count"], "rows": rows, "notes": notes}


def measured_table(result: dict) -> dict:
    rows = []
    for c in [*result["cases"], *result["controls"]]:
        if not c["samples"]:
            rows.append([c["name"], c.get("reason") or "no launches"] + ["-"] * 9)
            continue
        ctors = split_mod.constructors(c)
        rows.append([c["name"], analyze.field_median(c, "first_init_ns"), analyze.field_median(c, "main_ns"),
                     analyze.field_median(c, "exit_ns"), ctors["all_ns"], measure.median_reading(c, "total_ns"),
                     measure.median_reading(c, "load_ns"), measure.median_reading(c, "relocation_ns"),
                     measure.median_reading(c, "lookups"), measure.median_reading(c, "cache_lookups"),
                     analyze.field_median(c, "minflt")])
    return {"title": "the measured picture (medians; glibc's figures from LD_DEBUG=statistics launches, digit restored)",
            "columns": ["variant", "spawn->1st ctor", "spawn->main", "spawn->exit", "constructors", "loader (glibc)",
                        "load objects", "relocation", "lookups", "from cache", "minor faults"],
            "units": [None, "ns", "ns", "ns", "ns", "ns", "ns", "ns", "count", "count", "count"],
            "rows": rows, "notes": []}


def split_table(result: dict) -> dict:
    rows, notes, sources = [], [], {}
    for name, sp in (result.get("split") or {}).items():
        if not sp:
            continue
        if sp["status"] != "ok":
            notes.append(f"{name}: {sp['reason']}")
            continue
        for p in sp["parts"]:
            clear = "ci95" in p
            rows.append([f"{name}: {p['part']}", whole_tables.figure(p), p["share"] if clear else None,
                         split_mod.bar(p["share"], 20) if clear else ""])
            sources.setdefault(p["part"], p["source"])
        rows.append([f"{name}: sum of the parts (error {sp['error']:+.1%})", sp["sum_ns"],
                     sp["sum_ns"] / sp["measured_main_ns"], ""])
        notes.append(f"{name}: the parts add up to {duration(sp['sum_ns'])}; measured spawn->main "
                     f"{duration(sp['measured_main_ns'])}")
        c = sp["constructors"]
        notes.append(f"{name}: constructors {duration(c['all_ns'])} = shared objects' {duration(c['libraries_ns'])} "
                     f"+ the program's {duration(c['program_ns'])}; an empty program's take "
                     f"{duration(sp['empty_constructors_ns'])} (libc's own and the stamp library's)")
        if sp.get("debug_cost"):
            notes.append(f"{name}: LD_DEBUG's own cost (its launches' first constructor against plain "
                         f"launches'): {units.part(sp['debug_cost'])}; taken out of the start-up row")
    notes += [f"{part}: {source}" for part, source in sources.items()]
    notes.append("each stage: median [95% interval] of values paired inside one launch; an interval that "
                 "contains zero reads 'within noise'")
    return {"title": "the split of spawn->main (each part measured on its own; the sum is a check, not forced)",
            "columns": ["stage", "time [95% CI]", "share", ""], "units": [None, "part", "whole_share", None],
            "rows": rows, "notes": notes}


def lookup_table(result: dict) -> dict:
    rows = []
    for r in result.get("lookup_check") or []:
        diff = None if r["ld_debug_lookups"] is None else r["ld_debug_lookups"] - r["static_lookups"]
        rows.append([r["variant"], r["static_lookups"], r["ld_debug_lookups"],
                     "-" if diff is None else f"{diff:+,.0f}", r["static_cache"], r["ld_debug_cache"]])
    return {"title": "symbol lookups at start-up: predicted from the files vs counted by glibc",
            "columns": ["variant", "files", "LD_DEBUG", "difference", "cache (files)", "cache (LD_DEBUG)"],
            "units": [None, "count", "count", None, "count", "count"], "rows": rows,
            "notes": ["the files' count covers every object mapped (the stamp libraries included); glibc also counts "
                      "the ~9 lookups ld.so makes for itself (the vDSO's five functions; calloc, free, malloc and "
                      "realloc when it moves to libc's malloc), the same for every program: the difference should "
                      "be the empty control's, +-1"]}


def prediction_table(result: dict) -> dict:
    pred = result.get("prediction")
    if not pred:
        return {"title": "", "columns": [], "rows": []}
    if pred["status"] != "ok":
        return {"title": "prediction", "columns": ["status"], "rows": [[f"no prediction: {pred['reason']}"]]}
    m = pred["model"]

    def over(r: dict, key: str) -> int:
        return r["counts"].get(key, 0) - r["empty_counts"].get(key, 0)

    rows = [[r["variant"], duration(r["predicted_ns"]), duration(r["measured_ns"]),
             "-" if r["error"] is None else f"{r['error']:+.0%}",
             f"{over(r, 'symbol_lookups'):+,} lookups, {over(r, 'relative_relocations'):+,} relative, "
             f"{over(r, 'libraries'):+,} libraries" + (f", {over(r, 'sysv_probes'):+,} SysV searches"
                                                       if over(r, "sysv_probes") else "")]
            for r in pred.get("rows", [])]
    c = m["coefficients"]
    sysv = c.get("sysv_probes")
    notes = [f"model: {c['symbol_lookups']['ns_per_unit']:.1f} ns per lookup, "
             f"{c['relative_relocations']['ns_per_unit']:.2f} ns per relative relocation, "
             f"{c['libraries']['ns_per_unit'] / 1e3:.1f} us per library"
             + (f", {sysv['ns_per_unit']:.1f} ns per SysV-hashed object a lookup searches" if sysv else "")
             + f" (R^2 {m['r2']:.3f}, {m['n_points']} points; from {m['source']})",
             "measured: spawn->first constructor minus the empty control's (paired per round); predicted: the "
             "model's difference between the two object sets"]
    cal = pred.get("calibration")
    if cal:
        notes.append(f"calibrated on the day: the reference program (generated, {cal['shape']['libs']} libraries x "
                     f"{cal['shape']['relocs']} relocations, one of the sweep's points, variant "
                     f"{cal['variant']}; the program was linked by {cal['linker']}) measured "
                     f"{duration(cal['measured_ns'])} in these rounds against the model's "
                     f"{duration(cal['predicted_ns'])}, so every slope is scaled by {cal['factor']:.2f}")
    else:
        notes.append(f"not calibrated on the day ({pred.get('uncalibrated') or 'no reference measurement'}): the "
                     "slopes are the sweep's")
    if "sysv_probes" in pred.get("unpriced", []) and any(over(r, "sysv_probes") for r in pred.get("rows", [])):
        notes.append("the saved sweep had no SysV-hash variant: SysV searches are priced as GNU ones (run "
                     "`layertax loadtime sweep` to price them)")
    return {"title": "the loader's time: predicted from the static counts vs measured",
            "columns": ["variant", "predicted", "measured", "error", "counts over the empty program"], "rows": rows,
            "notes": notes}


def fixes_table(result: dict) -> dict:
    pred = result.get("prediction") or {}
    main = None
    lazy = next((c for c in result["cases"] if c["name"] == measure.LAZY), None)
    if lazy:
        main = analyze.field_median(lazy, "main_ns")
    rows = []
    for f in pred.get("fixes", []):
        share = f"{f['saves_ns'] / main:.0%}" if main and f["saves_ns"] else "-"
        rows.append([f["fix"], _saves(f), share, f["what"], f["how"]])
    notes = [f"{f['fix']}: {f['caveat']}" for f in pred.get("fixes", []) if f.get("caveat")]
    error = next((r["error"] for r in pred.get("rows", []) if r["variant"] == measure.LAZY and r["error"] is not None),
                 None)
    if error is not None:
        notes.insert(0, f"the model's own error on this program: it predicts the loader's time {error:+.0%} off "
                        "the measured (--verbose: the prediction table); read its estimates with that")
    return {"title": "what each fix would save (estimates, each at most the stage it removes; share of spawn->main)",
            "columns": ["fix", "saves", "share", "what", "estimated as"], "rows": rows, "notes": notes}


def _saves(fix: dict) -> str:
    """A fix's saving as estimated or measured, never negative: a measured one whose interval holds
    zero is no measurable saving; an upper bound says so."""
    if fix.get("saving"):
        return units.saving(fix["saving"])
    if fix.get("upper_bound"):
        return f"up to {duration(fix['saves_ns'])}"
    return duration(fix["saves_ns"]) + (" (bounded)" if fix.get("bounded") else "")


def fixes_summary(result: dict) -> dict:
    """The fixes in one line each: what it is, what it would save (the full table is --verbose)."""
    full = fixes_table(result)
    return {"title": "what each fix would save (estimates)", "columns": ["fix", "saves", "of spawn->main"],
            "rows": [row[:3] for row in full["rows"]], "notes": full["notes"][:1] if full["notes"] and
            full["notes"][0].startswith("the model's own error") else []}


def startup_work_table(result: dict) -> dict:
    """ld.so's start-up work any program pays, by function (callgrind on the empty program)."""
    work = result.get("startup_work") or {}
    rows = [[f["function"], f["instructions"], f["share"], f["what"] or "-", f["change"] or "-", f["source"] or "-"]
            for f in work.get("functions", [])]
    return {"title": "ld.so: start-up work any program pays, by function (instructions under callgrind, the "
                     "empty dynamic program)",
            "columns": ["function", "instructions", "share", "what it does", "what you can change", "glibc source"],
            "units": [None, "count", "share", None, None, None], "rows": rows,
            "notes": ["instructions, not time: CPU feature detection is few instructions and, under a "
                      "hypervisor that traps CPUID, much of the time", "valgrind runs the program with its own "
                      "preloaded objects and environment, so its counts are a little above a plain run's"]}


def startup_work_note(result: dict) -> str | None:
    """The split's largest unexplained stage in one line: its biggest parts by callgrind."""
    rows = (result.get("startup_work") or {}).get("functions") or []
    if not rows:
        return None
    top = ", ".join(f"{r['what'] or r['function']} {r['share']:.0%}" for r in rows[:2] if r["share"] is not None)
    return f"ld.so's start-up work any program pays, by callgrind's instructions: {top} (--verbose: by function)"


def split_summary(result: dict) -> dict:
    """The split as the user runs the program (lazy binding); --verbose has both variants and sources."""
    full = split_table(result)
    rows = [row for row in full["rows"] if row[0].startswith(f"{measure.LAZY}: ")]
    note = startup_work_note(result)
    return {**full, "rows": [[row[0][len(measure.LAZY) + 2:], *row[1:]] for row in rows], "notes": [note] if note else [],
            "title": f"the split of spawn->main, {measure.LAZY} (stages paired per launch, 95% CIs; more: --verbose)"}


def all_tables(result: dict, pic) -> list[dict]:
    """Every table, in the result; the terminal shows the split and the fixes in short and keeps the
    rest (the dependency tree, the measured picture, the full split, the lookups, the prediction,
    the fixes with how each was priced) for --verbose."""
    # Not measured (a foreign ELF file): the static picture is all there is, so it is shown.
    tables = [whole_tables.whole_table(result), whole_tables.versus_table(result), whole_tables.fixes_tried_table(result),
              {**tree_table(pic), "detail": bool(result.get("cases"))}]
    if result.get("cases"):
        tables += [{**measured_table(result), "detail": True}, {**split_summary(result), "brief": True},
                   {**split_table(result), "detail": True}, {**lookup_table(result), "detail": True},
                   {**startup_work_table(result), "detail": True},
                   {**prediction_table(result), "detail": True}, {**fixes_summary(result), "brief": True},
                   {**fixes_table(result), "detail": True}]
    return [t for t in tables if t.get("rows")]


def notes(result: dict) -> list[str]:
    out = []    # a skipped measured picture is said as a problem (report/format.problems), never folded
    order = (result.get("init_order") or {}).get("order") or []
    if order and not _first_ran_first(order):
        out.append("WARNING: the first-constructor stamp did not run first, so 'constructors' is not exact "
                   "(the order: --verbose)")
    elif order:
        out.append("constructor order checked (LD_DEBUG=files): the first-constructor stamp ran first")
    cost = result.get("preload_cost")
    if cost:
        out.append(f"the stamp preload adds {units.part(cost)} to "
                   "an empty program's spawn->exit; the figures include it, the differences against the empty "
                   "control cancel it")
    by_status: dict[str, list[str]] = {}   # one line for every case that exited the same way
    for c in result.get("cases", []):
        statuses = {s["exit_status"] for s in c["samples"]}
        if statuses - {0}:
            by_status.setdefault(", ".join(map(str, sorted(statuses))), []).append(c["name"])
    for status, names in by_status.items():
        out.append(f"exit status {status} ({', '.join(names)}): start-up is measured anyway; give the program's "
                   "arguments after --")
    if result.get("cases") and result.get("unit") == "spawn->exit":
        out.append("no main stamp: the program does not start through glibc's __libc_start_main (static, or "
                   "another runtime), or ignores LD_PRELOAD (setuid): figures are spawn->exit")
    return out + ticks.notes(result) + contention.notes(result) + descendants.notes(result)


def detail_notes(result: dict) -> list[str]:
    """What --verbose adds under the tables: how the figures were checked and what a stage holds."""
    out = []
    order = (result.get("init_order") or {}).get("order") or []
    if order:
        out.append("constructor order (LD_DEBUG=files): " + " -> ".join(_object_names(order)))
    if result.get("cases"):
        out.append("constructors: from the first constructor's stamp (a dependency-free library initialised first) "
                   "to main; includes libc's own initialisation and the stamp library's, not IFUNC resolvers (those "
                   "run during relocation) nor lazy binding in main")
    return out


def _object_names(order: list[str]) -> list[str]:
    return [Path(p.replace("(program) ", "")).name for p in order]


def _first_ran_first(order: list[str]) -> bool:
    real = [n for n in _object_names(order) if not n.startswith("ld-linux")]
    return bool(real) and real[0] == "liblayertax-first.so"
