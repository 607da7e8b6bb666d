"""The CSV export: one row per case with unformatted numbers (ns/op, or instructions/op), for spreadsheets and scripts."""
from __future__ import annotations

import csv
import io

COLUMNS = ["experiment", "group", "case", "layer", "language", "status", "n", "median_ns", "min_ns", "ci95_low_ns",
           "ci95_high_ns", "spread", "ratio", "ratio_ci95_low", "ratio_ci95_high", "warnings", "reason",
           "syscalls_per_op", "instructions_per_op"]


# A cell a spreadsheet would read as a formula (OWASP, "CSV Injection"): a program's name or
# output could be `=HYPERLINK(...)`. Such text cells get a leading apostrophe; numbers stay numbers.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def neutral(value):
    """value, or a text value that would start a formula, made inert."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def to_csv(doc: dict) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    for exp in doc["experiments"]:
        for case in exp["cases"]:
            st = case.get("stats") or {}
            ratio = st.get("ratio") or {}
            w.writerow({key: neutral(value) for key, value in {
                "experiment": exp["name"], "group": case.get("group") or "", "case": case["name"], "layer": case["layer"],
                "language": case["language"], "status": case["status"], "n": st.get("n", 0),
                "median_ns": st.get("median"), "min_ns": st.get("min"),
                "ci95_low_ns": (st.get("ci95") or [None, None])[0], "ci95_high_ns": (st.get("ci95") or [None, None])[1],
                # a callgrind-counted case has one exact count, and its ratio on the case itself
                "spread": st.get("spread"), "ratio": ratio.get("median", case.get("ratio")),
                "ratio_ci95_low": (ratio.get("ci95") or [None, None])[0],
                "ratio_ci95_high": (ratio.get("ci95") or [None, None])[1],
                "warnings": "; ".join(st.get("warnings", [])), "reason": case.get("reason") or "",
                "syscalls_per_op": (case.get("syscalls") or {}).get("total_per_op"),
                "instructions_per_op": (case.get("instructions") or {}).get("per_op"),
            }.items()})
    return buf.getvalue()
