"""scan's throughput table: every kernel as GB/s and as a share of the two ceilings
measured in the same rounds, with the classic's findings beside its rows.

Shares are paired per round like every ratio here: in round r a kernel's share of
the memory ceiling is (its bytes / its time) / (the ceiling's bytes / the
ceiling's time), and the median and interval are taken over rounds."""
from __future__ import annotations

from layertax.engine.analysis import analyze, stats
from layertax.experiments.scan import sizes

MEMORY, PAGECACHE, PERL = "mem-read", "pagecache-read", "perl-tr"


def _bytes(case: dict, info: dict) -> int:
    return info["ceiling_bytes"] if case["name"] == MEMORY else info["bytes"]


def _time_ratios(case: dict, ref: dict | None) -> list[float]:
    """case time / ref time in every round both ran."""
    if ref is None or not ref.get("stats") or not case.get("stats"):
        return []
    return stats.paired_ratios(analyze.round_values(case), analyze.round_values(ref))


def _time_vs(case: dict, ref: dict | None) -> dict | None:
    """Median and 95% CI over rounds of case time / ref time."""
    return stats.ratio_summary(_time_ratios(case, ref))


def _rate_share(case: dict, ref: dict | None, scale: float) -> dict | None:
    """Median and 95% CI over rounds of the case's rate as a share of ref's:
    (case bytes / case time) / (ref bytes / ref time) = scale x ref time / case time."""
    return stats.ratio_summary([scale / r for r in _time_ratios(case, ref) if r > 0])


def throughput(result: dict, findings: dict[str, str]) -> dict:
    info = result.get("input") or {}
    cases = [c for c in result["cases"] if c["status"] == "ok" and c.get("stats")]
    by_name = {c["name"]: c for c in cases}
    if not info or not cases:
        return {"title": "scan throughput", "columns": [], "rows": [], "notes": []}
    memory, pagecache, perl = by_name.get(MEMORY), by_name.get(PAGECACHE), by_name.get(PERL)
    rows, best = [], None
    for case in sorted(cases, key=lambda c: c["stats"]["median"] / max(_bytes(c, info), 1)):
        size = _bytes(case, info)
        gbps = size / case["stats"]["median"] if size else None   # bytes per ns = GB/s
        of_mem = _rate_share(case, memory, size / info["ceiling_bytes"]) if size else None
        of_cache = _rate_share(case, pagecache, 1.0) if size and case["name"] != MEMORY else None
        vs_perl = _time_vs(case, perl) if size and case["name"] != MEMORY else None
        if case["name"] not in (MEMORY, PAGECACHE) and of_mem and (best is None or of_mem["median"] > best[1]["median"]):
            best = (case["name"], of_mem, gbps)
        rate = analyze.rate_figure(size, case["stats"], stats.precision_target(result)) if size else None
        rows.append([case["name"], rate, of_mem, of_cache,
                     vs_perl, findings.get(case["name"], "")])
    notes = [f"input: {info['summary']}",
             f"GB/s = bytes of one pass / median time of a pass; the memory ceiling reads an in-RAM buffer of its own "
             f"({sizes.human(info['ceiling_bytes'])}, the file's size within 1 MiB..1 GiB); shares and times are "
             "paired per round (median [95% CI])"]
    if best:
        notes.append(f"best kernel: {best[0]}, {best[2]:.2f} GB/s = {best[1]['median']:.0%} of one core's memory "
                     "read bandwidth")
    if "mmap-mask" in by_name and "mmap-mask" in findings:
        notes.append("mmap-mask: GCC compiles mmap-loop's four compares to the same code today")
    if info.get("bytes", 0) == 0:
        notes.append("the file is empty: every kernel counts 0 and there is no throughput to report")
    return {"title": "scan throughput: GB/s, share of the ceilings, time vs Perl's tr, and the classic's findings",
            "columns": ["case", "GB/s", "of memory ceiling", "of page-cache read", "time vs perl-tr", "then (2017)"],
            "align": ["left", "right", "right", "right", "right", "left"],
            "units": [None, "rate", "share_ci", "share_ci", "ratio_ci", None],
            "rows": rows, "notes": notes, "best": {"case": best[0], "share_of_memory": best[1], "gbps": best[2]}
            if best else None}


# The article's finding beside each of its rows (it gave no figures for most).
FINDINGS = {
    "getc": "~2x Perl's time (Linux); ~10x on macOS",
    "getc-unlocked": "beat Perl on Linux",
    "perl-tr": "the challenger",
    "mmap-loop": "faster than Perl and getc_unlocked",
    "mmap-mask": "what GCC made of the four compares",
    "cpp-lines-copy": "on par with Perl",
    "cpp-lines-view": "faster than the copying reader",
    "mmap-simd": "\"SIMD can approach the ceiling\"",
}


def brief(table: dict, keep: set[str]) -> dict:
    """The throughput table cut to the rows that answer scan's question: the two ceilings, the best
    kernel and the rows the article had a finding for (the whole table is detail: --verbose and
    every export). The time vs Perl's tr keeps the digits its interval supports, not the interval."""
    drop = table["columns"].index("of page-cache read")      # in the whole table; room for the findings here
    cut = lambda row: [cell for i, cell in enumerate(row) if i != drop]
    units = ["ratio_point" if u == "ratio_ci" else u for u in cut(table["units"])]
    return {**table, "title": table["title"] + " (the ceilings, the best and the article's rows; all: --verbose)",
            "columns": cut(table["columns"]), "align": cut(table["align"]), "units": units,
            "rows": [cut(row) for row in table["rows"] if row[0] in keep],
            "notes": [n for n in table["notes"] if n.startswith("best kernel")]}


def experiment_tables(result: dict) -> list[dict]:
    """The scan experiment's tables hook: throughput beside the article's findings, whole behind
    --verbose and in short without it."""
    whole = throughput(result, FINDINGS)
    if not whole["rows"]:
        return [whole]
    keep = {MEMORY, PAGECACHE, *FINDINGS, *([whole["best"]["case"]] if whole.get("best") else [])}
    return [{**whole, "detail": True}, {**brief(whole, keep), "brief": True}]
