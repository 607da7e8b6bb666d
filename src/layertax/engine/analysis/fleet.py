"""Runs from several machines side by side: per case, each machine's ratio to the case's
baseline (the figure layertax answers with: a machine's clock speed cancels out of it), and
what differs between the machines.

Only ratios are set side by side, never absolute times: two machines' nanoseconds differ
by everything at once, while the ratio of a layer to the layer under it, measured on the
same machine in the same rounds, is the tax of that layer there.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# What is said to differ between machines, in this order (a fingerprint's nested tables,
# tools and mitigations, are compared key by key).
MACHINE_KEYS = ("cpu_model", "arch", "cores", "memory_gib", "virtualized", "os", "kernel", "libc", "python",
                "clocksource", "governors", "turbo", "aslr")
NESTED_KEYS = ("tools", "mitigations")


@dataclass
class Column:
    label: str            # the host's name in a fleet run, else a short machine id
    source: str           # the file or history reference it came from
    doc: dict = field(repr=False)


@dataclass
class Cell:
    ratio: float | None
    ci95: tuple[float, float] | None     # None for an exact (counted) ratio
    status: str                           # "ok", or why there is no figure ("failed", "skipped", "absent")


@dataclass
class CaseRow:
    case: str
    cells: list[Cell]
    classic: float | None                 # the classic's ratio for the layer this case stands for
    group: str = ""                       # its case group ("" the main one), whose baseline the ratio is to


@dataclass
class ExperimentTable:
    name: str
    title: str
    method: str                           # "time" or "instructions"
    baseline: str
    rows: list[CaseRow]
    classic_source: str | None


@dataclass
class Fleet:
    columns: list[Column]
    differences: list[tuple[str, list[str]]]    # (key, each machine's value) where they differ
    experiments: list[ExperimentTable]


def _label(doc: dict) -> str:
    host = (doc.get("fleet") or {}).get("host")
    return host or f"machine {(doc.get('machine') or {}).get('machine_id', '?')[:8]}"


def _labels(docs: list[dict]) -> list[str]:
    """Each run's label, numbered where two would read the same (two runs of one machine)."""
    labels = [_label(d) for d in docs]
    return [f"{lab} ({labels[:i].count(lab) + 1})" if labels.count(lab) > 1 else lab for i, lab in enumerate(labels)]


def _text(value) -> str:
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "-"
    return "-" if value is None else str(value)


def differences(machines: list[dict]) -> list[tuple[str, list[str]]]:
    found = []
    for key in MACHINE_KEYS:
        values = [_text(m.get(key)) for m in machines]
        if len(set(values)) > 1:
            found.append((key, values))
    for key in NESTED_KEYS:
        tables = [m.get(key) or {} for m in machines]
        for sub in sorted(set().union(*tables)):
            values = [_text(t.get(sub, "absent")) for t in tables]
            if len(set(values)) > 1:
                found.append((f"{key}.{sub}", values))
    return found


def _cell(exp: dict | None, case_name: str) -> Cell:
    case = next((c for c in exp["cases"] if c["name"] == case_name), None) if exp else None
    if case is None:
        return Cell(None, None, "absent")
    if case["status"] != "ok":
        return Cell(None, None, case["status"])
    if exp.get("metric") == "instructions":
        return Cell(case.get("ratio"), None, "ok") if case.get("ratio") is not None else Cell(None, None, "no count")
    ratio = (case.get("stats") or {}).get("ratio")
    if not ratio:
        return Cell(None, None, "no ratio")
    return Cell(ratio["median"], tuple(ratio["ci95"]), "ok")


def _classic_ratios(exp: dict) -> dict[str, float]:
    classic = exp.get("classic") or {}
    ratios = classic.get("ratios") or {}
    return {f["counterpart"]: ratios[f["label"]] for f in classic.get("figures", [])
            if f.get("counterpart") and f["label"] in ratios}


def _method(exp: dict) -> str:
    return "instructions" if exp.get("metric") == "instructions" else "time"


def fleet(runs: list[tuple[str, dict]]) -> Fleet:
    """runs: (where it came from, result document), one per machine (or per run)."""
    docs = [doc for _, doc in runs]
    columns = [Column(label, source, doc) for label, (source, doc) in zip(_labels(docs), runs)]
    tables = []
    seen: list[tuple[str, str]] = []
    for doc in docs:
        for exp in doc["experiments"]:
            if (exp["name"], _method(exp)) not in seen:
                seen.append((exp["name"], _method(exp)))
    for name, method in seen:
        per_column = [next((e for e in d["experiments"] if e["name"] == name and _method(e) == method), None)
                      for d in docs]
        first = next(e for e in per_column if e is not None)
        groups: dict[str, str] = {}
        for exp in per_column:
            for case in (exp or {}).get("cases", []):
                groups.setdefault(case["name"], case.get("group") or "")
        classic = _classic_ratios(first)
        rows = [CaseRow(case, [_cell(exp, case) for exp in per_column], classic.get(case), group)
                for case, group in groups.items()]
        if not any(cell.ratio is not None for row in rows for cell in row.cells):
            continue        # an untimed experiment (a correctness matrix) has no ratio to set side by side
        tables.append(ExperimentTable(name, first.get("title", name), method, first.get("baseline", ""), rows,
                                      (first.get("classic") or {}).get("source")))
    return Fleet(columns, differences([d.get("machine") or {} for d in docs]), tables)
