"""tls's extra tables: the access-model check of each library, and the spread of today's
access paths beside the classic 18%."""
from __future__ import annotations

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
    """Today's cheapest and dearest way to reach a thread-local, as time over the no-TLS floor."""
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
        spread = ratios[dear] / ratios[cheap]
        rows.append(["then: a redundant TlsGetValue (VC 2005)", 1.18, "removing it: about 18% faster"])
        rows.append(["now: dearest over cheapest access path", spread,
                     f"{dear} ({ratios[dear]:.2f}x) over {cheap} ({ratios[cheap]:.2f}x)"])
    return {"title": "then vs now: what one per-thread lookup costs", "columns": ["", "ratio", ""],
            "units": [None, "ratio", None], "rows": rows, "align": ["left", "right", "left"], "notes": [
                f"ratios are medians of per-round paired ratios to {FLOOR} (the same call, no TLS)"]}


def tables(result: dict) -> list[dict]:
    return [model_check_table(result), spread_table(result)]
