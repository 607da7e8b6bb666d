"""tls's extra tables: the access-model check of each library, and the spread of today's
access paths beside the classic 18%."""
from __future__ import annotations

from layertax.engine.analysis import analyze, stats

# The no-TLS floor: a plain global reached through a register. Not the RIP-relative global:
# on some CPUs that addressing form alone makes a read-modify-write loop several times slower.
FLOOR = "global-var-ptr"
TLS_PATHS = ("tls-le", "tls-ie", "tls-gd", "tls-desc", "tls-desc-dynamic", "pthread-getspecific", "cpp-thread-local-ctor",
             "tls-le-static", "pthread-getspecific-static", "cpp-thread-local-ctor-static")


def model_check_table(result: dict) -> dict:
    libs = ((result.get("input") or {}).get("model_libraries") or {})
    rows = []
    for case, got in libs.items():
        found = ", ".join(f"{k} x{v}" for k, v in sorted(got.get("relocations", {}).items())) or "none"
        rows.append([case, got["model"], " ".join(got.get("cflags", [])), found,
                     "FAILED: " + got["error"] if got.get("error") else "ok"])
    # Detail while every library checks out (--verbose, every export); shown when one does not.
    passed = bool(rows) and all(row[-1] == "ok" for row in rows)
    return {"title": "tls: each dlopened library uses the access model it claims (its dynamic relocations, "
                     "read with pyelftools)",
            "columns": ["case", "model", "built with", "TLS relocations", "check"], "rows": rows,
            "align": ["left", "left", "left", "left", "left"], "notes": [], "detail": passed}


def spread_table(result: dict) -> dict:
    """Today's cheapest and dearest way to reach a thread-local, as time over the no-TLS floor,
    and the dearest over the cheapest with its interval: their per-round ratio, paired over the
    rounds both ran, as a case's ratio to its baseline is (where fewer than two, the bare ratio
    of their medians)."""
    cases = {c["name"]: c for c in result["cases"]}
    base = cases.get(FLOOR, {}).get("stats")
    rows, ratios = [], {}
    for name in TLS_PATHS:
        st = (cases.get(name) or {}).get("stats")
        if st and st.get("ratio") and base:
            ratios[name] = st["ratio"]["median"]
    if len(ratios) >= 2:
        cheap = min(ratios, key=ratios.get)
        dear = max(ratios, key=ratios.get)
        per_round = stats.paired_ratios(analyze.round_values(cases[dear]), analyze.round_values(cases[cheap]))
        spread = stats.ratio_summary(per_round) if len(per_round) >= 2 else ratios[dear] / ratios[cheap]
        rows.append(["then: a redundant TlsGetValue (VC 2005)", 1.18, "removing it: about 18% faster"])
        # The names go in the first column, which breaks them after their hyphens where it must;
        # prose beside them wraps between words and would cut a long name anywhere.
        rows.append([f"now: {dear} over {cheap}", spread, "the dearest path over the cheapest"])
    return {"title": "then vs now: what one per-thread lookup costs", "columns": ["", "ratio [95% CI]", ""],
            "units": [None, "ratio_ci", None], "rows": rows, "align": ["left", "right", "left"], "notes": [
                f"ratios are medians of per-round paired ratios to {FLOOR} (the same call, no TLS)"]}


def tables(result: dict) -> list[dict]:
    return [model_check_table(result), spread_table(result)]
