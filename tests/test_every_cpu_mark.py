"""The "^" mark: a case that runs on every CPU at once follows the load on the machine's other
CPUs, which moves it between runs while each run holds steady (tls's -threads cases); it is
marked in every run, with its legend, from what the experiment says of the case."""
from __future__ import annotations

import copy
import io
import json
from pathlib import Path

from rich.console import Console

from layertax.engine.store import results
from layertax.experiments.tls import EXPERIMENT as TLS
from layertax.report import format as fmt
from layertax.report import markdown, terminal

RECORDED = Path(__file__).parent / "data" / "recorded" / "tls.json"


def test_the_tls_cases_on_every_cpu_are_the_threads_ones():
    assert {c.name for c in TLS.cases if c.every_cpu} == {"rand-threads", "rand-r-threads"}


def _tls_doc(every_cpu: set[str]) -> dict:
    doc = json.loads(RECORDED.read_text())
    doc = copy.deepcopy(doc)
    for case in doc["experiments"][0]["cases"]:
        case.pop("every_cpu", None)
        if case["name"] in every_cpu:
            case["every_cpu"] = True
    return doc


def test_a_case_on_every_cpu_is_marked_in_each_format_with_its_legend():
    doc = _tls_doc({"rand-r-threads"})
    results.validate(doc)                                       # the schema takes the field
    exp = doc["experiments"][0]
    rows = {r["case"]: fmt.marked(r) for g in fmt.case_groups(exp) for r in fmt.case_rows(exp, g)}
    assert rows["rand-r-threads"]["ratio"].endswith(" ^")
    assert not any(r["ratio"].endswith("^") for name, r in rows.items() if name != "rand-r-threads")
    legend = "^ it runs on every CPU at once and follows the load on the other CPUs"
    out = io.StringIO()
    terminal.render(doc, Console(file=out, width=100, no_color=True), verbose=False)
    row = next(line for line in out.getvalue().splitlines() if line.startswith("rand-r-threads "))
    assert row.rstrip().endswith("^") and legend in out.getvalue()
    assert legend in markdown.to_markdown(doc)


def test_without_the_field_nothing_is_marked():
    doc = _tls_doc(set())
    out = io.StringIO()
    terminal.render(doc, Console(file=out, width=100, no_color=True), verbose=False)
    assert "^ it runs on every CPU" not in out.getvalue()
