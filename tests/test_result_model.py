"""The typed result model (result/model.py): every recorded result reads into it and writes
back as the same text, a hostile document is refused where it enters, and a sample reads
as a mapping whether a kernel's or a launch's."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from layertax.engine.analysis import analyze
from layertax.engine.store import results
from layertax.launch import protocol
from layertax.result.model import Case, ExperimentResult, Run, Sample
from layertax.result import schema, validate
from layertax.result.validate import ResultError

DATA = Path(__file__).parent / "data"
RECORDED = sorted((DATA / "recorded").glob("*.json")) + sorted((DATA / "sampled").glob("*.json"))


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.name)
def test_every_recorded_result_reads_and_writes_back_as_the_same_text(path):
    doc = json.loads(path.read_text())
    run = Run.from_json(doc, str(path))
    assert all(isinstance(c, Case) for e in run.experiments for c in e.cases)
    assert results.dumps(run.to_json()) == results.dumps(doc)


def test_a_hostile_document_is_refused_where_it_enters():
    doc = json.loads((DATA / "recorded" / "tls.json").read_text())
    doc["experiments"][0]["cases"][0]["samples"][0:0] = [{"round": 0, "ns": -5, "ops": 1}]
    with pytest.raises(ResultError, match="negative|smaller"):
        Run.from_json(doc, "hostile.json")
    with pytest.raises(ResultError, match="not a layertax result"):
        Run.from_json([1, 2], "list.json")


@pytest.mark.parametrize("value, where, why", [
    ("x" * (schema.MAX_TEXT + 1), "experiments[0].extra", "longer than 1,000,000 characters"),
    ({"deep": [[1, 2, [3, 2e18]]]}, "experiments[0].extra.deep[0][2][1]", "larger than 1e+18"),
    ([0] * (schema.MAX_ITEMS + 1), "experiments[0].extra", "more than 100,000 items"),
    ({str(i): i for i in range(schema.MAX_ITEMS + 1)}, "experiments[0].extra", "more than 100,000 entries"),
    ({"fine": [None, True, "a", -1e18]}, None, None),
])
def test_a_field_the_schema_does_not_name_must_be_a_bounded_plain_value(value, where, why):
    """Where layertax meets a field it does not know (a newer layertax's), the field and all in it
    must still be plain JSON within the bounds, checked to the deepest place."""
    doc = json.loads((DATA / "recorded" / "tls.json").read_text())
    doc["experiments"][0]["extra"] = value
    if why is None:
        assert Run.from_json(doc, "new.json").experiments
        return
    with pytest.raises(ResultError, match=re.escape(f"new.json: not a valid layertax result: at {where}: {why}")):
        Run.from_json(doc, "new.json")


def test_a_value_nested_past_pythons_recursion_is_judged_not_crashed():
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    assert validate.plain_problem(deep) is None
    deep = [object()]
    assert validate.plain_problem(deep) == ((0,), "not a plain JSON value (a Python object)")


@pytest.mark.parametrize("change, why", [
    (lambda chain: chain["children"][0].pop("function"), "'function' is a required property"),
    (lambda chain: chain["children"][0].__setitem__("calls", "oops"), "is not of type 'number', 'null'"),
    (lambda chain: chain["children"].__setitem__(0, 0), "is not of type 'object'"),
    (lambda chain: chain["children"][0].__setitem__("children", None), "is not of type 'array'"),
    (lambda chain: chain.__setitem__("instructions", {"x": 1}), "is not of type 'number'"),
])
def test_a_layer_chain_is_read_only_as_the_reports_walk_it(change, why):
    """A case's callgrind chain is a tree the reports walk node by node: each node a function, its
    object, its instructions and its children, checked at every depth where the file enters."""
    doc = json.loads((DATA / "recorded" / "callchain-instructions.json").read_text())
    case = next(c for c in doc["experiments"][0]["cases"]
                if ((c.get("instructions") or {}).get("chain") or {}).get("children"))
    Run.from_json(doc, "chain.json")
    change(case["instructions"]["chain"])
    with pytest.raises(ResultError, match=re.escape(why)):
        Run.from_json(doc, "chain.json")


def test_a_launch_line_becomes_a_sample_the_statistics_read():
    line = json.dumps({"variant": "a", "round": 2, "pid": 7, "status": "ok", "main_ns": 900, "output_ns": None, "exit_ns": 1500,
                       "first_init_ns": None, "preload_init_ns": None, "libc_start_main_ns": None,
                       "runq_wait_ns": 0, "clear_ns": None, "dodged": False, "dodged_until": None,
                       "descendants_ended": 0, "exit_status": 0, "minflt": 60, "majflt": 0, "utime_ns": 400,
                       "stime_ns": 300, "csw_vol": 1, "csw_invol": 1, "maxrss_kb": 1000})
    launch = protocol.parse_line(line)
    sample = launch.sample(min_wait_ns=20_000)
    assert isinstance(sample, Sample) and sample["round"] == 2 and sample["main_ns"] == 900
    assert sample["preempted"] is False and "variant" not in sample and "pid" not in sample
    case = Case(name="a", layer="the command", language="-", samples=[sample, Sample(3, {**sample.values, "main_ns": 1100})])
    assert analyze.round_values(case, "main_ns") == {2: 900.0, 3: 1100.0}
    assert case.values("main_ns") == [900, 1100]
    exp = ExperimentResult(name="launch", title="t", question="q?", unit="spawn->main", baseline="a", cases=[case])
    assert exp.to_json()["cases"][0]["samples"][0] == {"round": 2, **sample.values}
    assert ExperimentResult.from_json(exp.to_json()) == exp


def test_a_case_read_without_statistics_is_written_without_them():
    case = Case.from_json({"name": "a", "layer": "l", "language": "-", "status": "ok", "samples": []})
    assert "stats" not in case.to_json() and "kernel" not in case.to_json()
    case.stats = {"median": 1.0}
    assert case.to_json()["stats"] == {"median": 1.0}
    assert Case(name="b", layer="l", language="-").to_json()["stats"] is None   # analysed: said, even if none


def _with_table(table: dict) -> dict:
    doc = json.loads((Path(__file__).parent / "data" / "recorded" / "tls.json").read_text())
    doc["experiments"][0]["tables"] = [table]
    return doc


def test_a_table_carries_figures_with_their_units_and_report_writes_them():
    from layertax.report import format as fmt
    from layertax.result import schema

    figure = {"median": 0.8, "ci95": [0.78, 0.81], "rounds": 12}
    table = {"title": "t", "columns": ["case", "share", "time", "ratio"], "units": [None, "share_ci", "ns", "ratio_ci"],
             "rows": [["a", figure, 1500.0, {"median": 1.0, "ci95": [0.97, 1.03]}], ["b", None, None, None]]}
    Run.from_json(_with_table(table))                    # a valid result
    assert fmt.written(table)["rows"] == [["a", "80% [78%, 81%]", "1.50 µs", "1.00x [0.97, 1.03]"], ["b", "-", "-", "-"]]
    assert set(fmt.FIGURE_WRITERS) == set(schema.FIGURE_UNITS)     # every figure unit the schema allows is written
    times = {"title": "t", "columns": ["part", "time", "95% CI / source"], "units": [None, "ns", "interval"],
             "rows": [["a", 1.18e6, {"median": 1.18e6, "ci95": [1.1e6, 1.2e6]}], ["b", 2e6, "-X importtime"]]}
    assert fmt.written(times)["rows"] == [["a", "1.18 ms", "[1.10, 1.20]"], ["b", "2.00 ms", "-X importtime"]]
    for unit in fmt.CELL_WRITERS:             # a missing figure is "-" in every unit
        assert fmt.written({"title": "t", "columns": ["x"], "units": [unit], "rows": [[None]]})["rows"] == [["-"]]


def test_a_figure_in_a_column_without_a_figures_unit_is_refused():
    table = {"title": "t", "columns": ["case", "share"], "units": [None, "ns"],
             "rows": [["a", {"median": 0.8, "ci95": [0.78, 0.81]}]]}
    with pytest.raises(ResultError, match=r"rows\[0\]\[1\]: a figure in a column whose unit is not a figure's"):
        Run.from_json(_with_table(table))
    with pytest.raises(ResultError):      # a figure holds numbers only
        Run.from_json(_with_table({**table, "units": [None, "share_ci"], "rows": [["a", {"median": "x"}]]}))
