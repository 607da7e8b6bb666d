"""The HTML report: one self-contained file (inline CSS, inline SVG charts, no script, no
fetch) that shows a run the way the terminal does, with charts and the raw tables behind them.

Everything taken from a result (case names, paths, program output, commands) reaches
the page through Jinja2's autoescaping; the only markup inserted as is are the SVG
charts matplotlib drew (it escapes their text as XML). A Content-Security-Policy
forbids scripts and network fetches, as a second line of defence.
"""
from __future__ import annotations

import math
import re
import shlex

import jinja2

from layertax import units
from layertax.engine.analysis import fleet
from layertax.report import format as fmt
from layertax.report import plots

# rich styles of the experiments' tables (e.g. the unicode-io classes) -> CSS classes of the page
STYLE_CLASSES = {"green": "good", "yellow": "warn", "bold red": "bad", "red": "bad", "magenta": "odd",
                 "dim": "dim", "blue": "info", "cyan": "info", "bold": "strong"}
MACHINE_SKIP = ("mitigations", "tools", "usable_cpus")


def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.PackageLoader("layertax.report", "templates"),
                              autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def _chart(made) -> dict | None:
    if made is None:
        return None
    svg, table = made
    return {"svg": svg, "table": fmt.written(table) if table else None}   # its numbers written in their units


def _cell_class(text: str, styles: dict[str, str]) -> str:
    for word, style in styles.items():
        if re.search(rf"\b{re.escape(word)}\b", str(text)):
            return STYLE_CLASSES.get(style, "strong")
    return ""


def _extra_table(table: dict) -> dict:
    table = fmt.written(table)
    styles = table.get("styles") or {}
    align = table.get("align") or ["left"] + ["right"] * (len(table["columns"]) - 1)
    return {"title": table["title"], "columns": table["columns"], "notes": table.get("notes", []), "align": align,
            "rows": [[{"text": str(c), "class": _cell_class(c, styles)} for c in row] for row in table["rows"]]}


def _chain_lines(case: dict) -> list[dict]:
    """The layer chain as an indented list: the terminal's tree."""
    return [{"depth": depth, "label": label} for depth, label in fmt.chain_lines(case)]


def _groups(exp: dict) -> list[dict]:
    groups = []
    for group in fmt.case_groups(exp):
        rows = fmt.case_rows(exp, group)
        groups.append({"title": group["title"], "baseline": group["baseline"], "rows": [fmt.marked(r) for r in rows],
                       "columns": fmt.case_columns(exp, group, rows), "marks": fmt.marks_lines(exp, rows),
                       "bars": _chart(plots.case_bars(exp, group)), "strips": _chart(plots.case_strips(exp, group))})
    return groups


def _experiment(exp: dict) -> dict:
    instructions = exp.get("metric") == "instructions"
    details = [*exp.get("notes", []), *exp.get("detail_notes", [])]
    for line in (fmt.own_settings_line(exp), fmt.harness_line(exp), fmt.runtimes_line(exp)):
        if line:
            details.append(line)
    if exp.get("workdir_fs"):
        details.append(f"work directory on {exp['workdir_fs']}")
    return {
        "name": exp["name"], "title": exp.get("title", ""), "question": exp.get("question", ""),
        "answer": fmt.answer(exp), "unit": exp.get("unit", ""), "method": exp.get("method"),
        "headline": fmt.headline(exp),
        "instructions": instructions,
        "groups": [] if instructions else _groups(exp),
        "instruction_rows": fmt.instruction_rows(exp) if instructions else [],
        "instruction_chart": _chart(plots.instruction_bars(exp)) if instructions else None,
        "chains": [{"case": c["name"], "lines": lines} for c in exp["cases"] for lines in [_chain_lines(c)] if lines],
        "split": _chart(plots.loadtime_split(exp)) if not instructions else None,
        "sweep": _chart(plots.sweep(exp)),
        # A "brief" table is the terminal's short stand-in for "detail" ones, shown here in full; a
        # table with a "chart" key is shown under its chart.
        "tables": [_extra_table(t) for t in exp.get("tables", []) if t["rows"] and not t.get("brief")
                   and not t.get("chart")],
        "classic": exp.get("classic") or {}, "conclusion": (exp.get("classic") or {}).get("conclusion"),
        "classic_now": [{"label": r["label"], "then_value": f"{r['then_value']:g}", "then": units.ratio(r["then_ratio"]),
                         "counterpart": r["counterpart"] or "-", "now": fmt.classic_now_text(exp, r),
                         "why": r["why"]} for r in exp.get("classic_now") or []],
        "details": details, "problems": fmt.problems(exp), "noise": fmt.noise_lines(exp),
        "interrupted": exp.get("interrupted", False),
    }


def noise_floor(doc: dict) -> list[str]:
    """What the run's own floor was: each harness's empty loop and clock, and the empty program's launch."""
    lines = []
    for exp in doc["experiments"]:
        h = fmt.harness_line(exp)
        if h:
            lines.append(f"{exp['name']}: {h}")
        empty = next((c for c in exp["cases"] if c["name"] == "empty" and c.get("stats")), None)
        if empty and exp.get("metric") == "main_ns":
            lines.append(f"{exp['name']}: an empty program reaches main in {units.duration(empty['stats']['median'])} "
                         f"(median of {empty['stats']['n']} launches)")
    return lines


def _title(doc: dict) -> str:
    names = ", ".join(e["name"] + (" (instructions)" if e.get("metric") == "instructions" else "")
                      for e in doc["experiments"])
    return names or "empty run"


def run_context(doc: dict, index: int) -> dict:
    machine = doc.get("machine") or {}
    return {
        "id": f"run-{index}", "title": _title(doc),
        "created": doc.get("created", ""), "version": doc.get("layertax_version", ""),
        "command": shlex.join(doc.get("command") or []), "complete": doc.get("complete", False),
        "machine_line": fmt.machine_line(machine),
        "machine": [(k, "-" if v in (None, "", []) else str(v)) for k, v in machine.items() if k not in MACHINE_SKIP],
        "tools": sorted((machine.get("tools") or {}).items()),
        "method": fmt.settings_line(doc["settings"], doc["experiments"]) if doc.get("settings") and fmt.run_method_applies(doc) else None,
        "floor": noise_floor(doc),
        "experiments": [_experiment(e) for e in doc["experiments"]],
    }


def _machines(docs: tuple[dict, ...]) -> dict | None:
    """The machines side by side, when the runs come from more than one (a fleet run): what
    differs between them, and per experiment a chart of each machine's ratios."""
    hosts = {((d.get("fleet") or {}).get("host"), (d.get("machine") or {}).get("machine_id")) for d in docs}
    if len(docs) < 2 or len(hosts) < 2:
        return None
    table = fleet.fleet([(f"run {i + 1}", doc) for i, doc in enumerate(docs)])
    labels = [c.label for c in table.columns]
    return {"labels": labels, "differences": table.differences,
            "experiments": [{"name": e.name, "title": e.title, "baseline": e.baseline,
                             "chart": _chart(plots.fleet_bars(e, labels))} for e in table.experiments]}


def to_html(*docs: dict) -> str:
    """One page for one run, or for several shown one after another (e.g. a timed run and a
    --metric instructions run of callchain, whose layer chains only the latter has); runs
    from several machines are first set side by side."""
    runs = [run_context(doc, i + 1) for i, doc in enumerate(docs)]
    title = "layertax: " + "; ".join(r["title"] for r in runs)
    return _environment().get_template("report.html").render(title=title, runs=runs, machines=_machines(docs))
