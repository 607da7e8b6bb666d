"""Reading back what the Windows runner wrote: a layertax/1 document with raw samples only.
Filed like any run once its statistics are filled in, with three tables added: whether each
variant ran correctly (and what the stale-bound probe found), the loader's view of each DLL
set (where each DLL landed), and then-vs-now beside the Linux analogues saved here."""
from __future__ import annotations

from pathlib import Path

from layertax import units
from layertax.engine import machine
from layertax.engine.analysis import analyze
from layertax.engine.store import history, results
from layertax.errors import UsageError
from layertax.programs.generate import Shape
from layertax.programs.pe import build
from layertax.windows.experiments import LINUX_ANALOGUE
from layertax.text import printable

PRODUCER = "layertax windows runner"


def load(path: Path) -> dict:
    """The runner's results.json, read and checked like any result, and its shape too."""
    doc = results.load(path)
    if doc.get("producer") != PRODUCER:
        raise UsageError(f"{printable(path)} was not written by the Windows runner (run.cmd of `layertax windows "
                         "bundle`); `layertax report` reads other results")
    for exp in doc["experiments"]:
        if exp.get("shape") is not None:
            _check_shape(exp["shape"], path)
    return doc


def _check_shape(shape, path: Path) -> None:
    fields = set(Shape.__dataclass_fields__)
    if (not isinstance(shape, dict) or not set(shape) <= fields
            or not all(type(v) is int for v in shape.values())):
        raise UsageError(f"{printable(path)}: its shape is not the bundle's (integers {', '.join(sorted(fields))})")
    try:
        Shape(**shape).validate()
    except UsageError as e:
        raise UsageError(f"{printable(path)}: its shape is not one the bundle makes: {e}") from None


def _wine_note(doc: dict) -> str | None:
    wine = doc["machine"].get("wine")
    return f"timed under Wine {wine}: Wine's loader, not Windows; correct results, never Windows timings" \
        if wine else None


def correctness_table(exp: dict) -> dict:
    not_timed = set(exp.get("not_timed") or [])
    rows = []
    for case in exp["cases"]:
        st = case.get("stats") or {}
        if case.get("probe"):
            ran = case["probe"]
        elif case["status"] == "ok":
            ran = f"yes: {len(case['samples'])}/{len(case['samples'])} exit 0"
        else:
            ran = f"NO: {case.get('reason')}"
        rows.append([case["name"], "yes", ran, units.duration(st.get("median")), units.duration(st.get("min")),
                     units.ratio_with_ci(st.get("ratio"))])
    rows += [[name, "NO", "not timed (failed verification)", "-", "-", "-"] for name in sorted(not_timed)]
    return {"title": "each variant: verified, ran correctly, spawn->entry", "nowrap": 1,
            "columns": ["variant", "verified", "ran correctly", "median", "min", "ratio [95% CI]"], "rows": rows,
            "align": ["left", "left", "left", "right", "right", "right"]}


def loader_view_table(doc: dict, shape: Shape) -> dict:
    rows = []
    exp = next(e for e in doc["experiments"] if e["name"] == "loadlibrary-pe")
    for case in exp["cases"]:
        bases = (case.get("loader_view") or {}).get("bases") or []
        preferred = [build.dll_base(shape, case["name"], i) for i in range(len(bases))]
        moved = sum(1 for got, want in zip(bases, preferred) if got != want)
        rows.append([case["name"], str(len(bases)), str(len(bases) - moved), str(moved)])
    return {"title": "the loader's view: where each DLL of a set landed (LoadLibrary, first round)",
            "columns": ["DLL set", "DLLs", "at its preferred base", "relocated"], "rows": rows}


def _linux_run(name: str, machine_id: str | None) -> tuple[dict, str] | None:
    """The newest saved run of a Linux experiment (this machine's first, any machine's otherwise)."""
    rows = [r for r in history.runs() if name in (r["experiments"] or "").split(",")]
    rows.sort(key=lambda r: r["machine_id"] != machine_id)     # stable: newest first within each
    for row in rows:
        try:
            doc = history.load(row)
        except UsageError:
            continue
        exp = next((e for e in doc["experiments"] if e["name"] == name and e.get("metric") != "instructions"), None)
        if exp is not None:
            return exp, row["created"]
    return None


def analogue_table(exp: dict, here: str | None) -> dict | None:
    """here: this machine's id, whose Linux runs are preferred."""
    linux = LINUX_ANALOGUE.get(exp["name"])
    if not linux or not exp.get("classic_now"):
        return None
    found = _linux_run(linux, here)
    linux_rows = {r["label"]: r for r in (found[0].get("classic_now") or [])} if found else {}
    rows = []
    for r in exp["classic_now"]:
        other = linux_rows.get(r["label"]) or {}
        rows.append([r["label"], units.ratio(r["then_ratio"]), units.ratio_with_ci(r["now_ratio"]),
                     other.get("counterpart") or "-", units.ratio_with_ci(other.get("now_ratio"))])
    where = f"the Linux run of {found[1]}" if found else f"no saved `layertax run {linux}` here yet"
    return {"title": f"then vs now, on Windows and beside its Linux analogue ({linux}: {where})", "nowrap": 1,
            "columns": ["classic layer", "then", "Windows now", "Linux analogue", "Linux now"], "rows": rows}


def normalise(doc: dict) -> dict:
    """Statistics, the machine's id, the three tables and Wine's label, in place."""
    doc["machine"]["machine_id"] = machine.machine_id(doc["machine"])
    note = _wine_note(doc)
    here = machine.this_machine_id()
    shape = None
    doc["experiments"] = [analyze.analyzed(exp) for exp in doc["experiments"]]
    for exp in doc["experiments"]:
        if exp.get("shape"):
            shape = Shape(**exp["shape"])
        tables = [t for t in exp.get("tables", []) if t.get("detail")]   # the verifier's, from the bundle
        if exp["name"] == "loadtime-pe":
            tables.insert(0, correctness_table(exp))
        if exp["name"] == "loadlibrary-pe" and shape is not None:
            tables.insert(0, loader_view_table(doc, shape))
        analogue = analogue_table(exp, here)
        if analogue:
            tables.append(analogue)
        exp["tables"] = tables
        if note:
            exp["notes"] = [note, *[n for n in exp.get("notes", []) if n != note]]
            if not exp["question"].startswith("[Wine"):
                exp["question"] = f"[Wine, not Windows] {exp['question']}"
    return doc
