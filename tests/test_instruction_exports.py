"""The Markdown and CSV exports of a --metric instructions run carry the counts (not "no samples")."""
import csv
import io

import pytest

from layertax.engine.analysis import analyze
from layertax.report.csv import to_csv
from layertax.report.markdown import to_markdown


def _doc() -> dict:
    chain = {"function": "run_rename", "object": "prog", "instructions": 12.0, "self": 7.0, "children": [
        {"function": "rename", "object": "libc.so.6", "instructions": 5.0, "self": 5.0, "calls": 1.0,
         "syscalls": 1.0, "syscalls_here": 1.0, "children": []}]}
    cases = [
        {"name": "raw", "layer": "bare syscall", "language": "c", "status": "ok", "reason": None, "group": None,
         "instructions": {"per_op": 8.5, "by_object": {"prog": 8.5}, "chain": None}},
        {"name": "libc-rename", "layer": "libc rename()", "language": "c", "status": "ok", "reason": None, "group": None,
         "instructions": {"per_op": 12.0, "by_object": {"prog": 7.0, "libc.so.6": 5.0}, "chain": chain}},
        {"name": "go-x", "layer": "Go", "language": "go", "status": "ok", "reason": None, "group": None,
         "instructions": {"per_op": 900.0, "by_object": {"kernel": 900.0}, "chain": None, "floor_gap": 0.003,
                          "all_totals": [[1, 2, 3], [4, 5, 6]]}},
        {"name": "jit", "layer": "Java", "language": "java", "status": "skipped", "reason": "JIT", "group": None},
    ]
    classic = {"source": "a 2008 blog", "unit": "ms", "baseline": "native",
               "figures": [{"label": "native", "value": 1.0, "counterpart": "raw", "why": "the floor"},
                           {"label": "C runtime", "value": 2.1, "counterpart": "libc-rename", "why": "libc"}],
               "ratios": {"native": 1.0, "C runtime": 2.1}}
    exp = {"name": "demo", "title": "a demo", "question": "what?", "unit": "instructions/op", "baseline": "raw",
           "metric": "instructions", "cases": cases, "tables": [], "classic": classic}
    exp = analyze.instructions_analyzed(exp)
    return {"machine": {"cpu_model": "cpu", "cores": 2}, "settings": {"method": "callgrind, the difference of two runs"}, "command": ["layertax", "run"],
            "experiments": [exp]}


def test_markdown_has_the_counts_the_ratios_and_the_chain():
    md = to_markdown(_doc())
    assert "no samples" not in md
    assert "| libc-rename | libc rename() | 12.0 | 1.41x | prog 7, libc.so.6 5 |" in md
    assert "| jit | Java | skipped | - |  |" in md
    assert "run_rename [prog] 12\n    rename [libc.so.6] 5 (syscall)" in md
    assert "go-x: the fewest instructions of 3 runs did not settle" in md   # the warning is said


def test_csv_has_instructions_per_op_and_the_ratio():
    rows = {r["case"]: r for r in csv.DictReader(io.StringIO(to_csv(_doc())))}
    assert rows["libc-rename"]["instructions_per_op"] == "12.0"
    assert abs(float(rows["libc-rename"]["ratio"]) - 12.0 / 8.5) < 1e-9
    assert rows["jit"]["instructions_per_op"] == "" and rows["jit"]["status"] == "skipped"


def test_an_instruction_count_is_never_set_beside_a_classic_time():
    """The classics timed their layers: an instruction ratio is another quantity, so a counted
    run has no then-vs-now table (it once printed os.rename's 191x beside MoveFileA's 1.45x)."""
    doc = _doc()
    assert doc["experiments"][0]["classic_now"] == []
    assert "2.10x" not in to_markdown(doc) and "a 2008 blog" not in to_markdown(doc)


def test_bmf_carries_the_exact_counts_and_no_made_up_interval():
    import json

    from layertax.report.bmf import to_bmf
    data = json.loads(to_bmf(_doc()))
    assert data["demo/libc-rename"] == {"instructions": {"value": 12.0},
                                        "ratio-to-baseline": {"value": pytest.approx(12.0 / 8.5)}}
    assert "demo/jit" not in data                  # skipped: no figure, not a zero


def test_gbench_leaves_instruction_counts_out():
    import json

    from layertax.report.gbench import to_gbench
    assert json.loads(to_gbench(_doc()))["benchmarks"] == []
