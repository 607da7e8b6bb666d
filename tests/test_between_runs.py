"""A ratio beside the same case's in this machine's recent runs: how often the mark falls on
runs of one true ratio (synthetic), the mark on a ratio that moved, the earlier runs chosen
from a real history, and the "!" the report prints."""
from __future__ import annotations

import contextlib
import copy
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from layertax.engine.analysis import between_runs, stats
from layertax.engine.session import beside_recent_runs
from layertax.engine.store import results, runs
from layertax.engine.store.recent import Recent
from layertax.report import terminal

RECORDED = Path(__file__).parent / "data" / "recorded"


def _ratio(median: float, half: float, coverage: float = 0.95) -> dict:
    """A ratio's summary whose interval is median x exp(±half), as a 95% interval is for a log
    normal estimate with standard error half / 1.96."""
    return {"median": median, "ci95": [median * math.exp(-half), median * math.exp(half)], "ci_coverage": coverage}


def test_runs_of_one_true_ratio_are_marked_about_once_in_a_thousand():
    rng = np.random.default_rng(7)
    trials, marks = 10_000, 0
    for _ in range(trials):
        se = rng.uniform(0.004, 0.02, between_runs.WINDOW)
        ratios = [_ratio(2.0 * math.exp(rng.normal(0, s)), 1.959964 * s) for s in se]
        found = between_runs.compared(ratios[0], ratios[1:])
        assert found is not None and found["runs"] == between_runs.WINDOW
        marks += found["moved"]
    # 10 expected at ALPHA = 0.001; 25 is more than four standard deviations above
    assert marks <= 25


def test_runs_whose_intervals_come_from_their_rounds_are_marked_rarely_too():
    # An order-statistic interval of 20 rounds is a noisy estimate of its own width: weighed by
    # each run's own, such windows are marked several times as often as ALPHA; the floor keeps the
    # share at or below it (bench/between_runs_marks.py).
    rng = np.random.default_rng(3)
    trials = 1500
    marks = 0
    for _ in range(trials):
        window = [stats.ratio_summary(list(np.exp(rng.normal(0, 0.03, 20)))) for _ in range(between_runs.WINDOW)]
        marks += between_runs.compared(window[0], window[1:])["moved"]
    # 1.5 expected at ALPHA; 8 or more would be a chance of about 1 in 6,000
    assert marks < 8


def test_the_spread_between_runs_is_recovered_where_it_is_and_mostly_zero_where_it_is_not():
    """tau, the spread of a run's own offset beyond its interval: 400 runs each with its own
    offset (sd 3%) and interval (se 1-2%) give it back within a tenth; runs of one true ratio give
    0 in about half the windows of six (Q below its degrees of freedom), and little in the rest."""
    rng = np.random.default_rng(11)
    se = rng.uniform(0.01, 0.02, 400)
    offsets = [(rng.normal(0, 0.03) + rng.normal(0, s), s) for s in se]
    assert between_runs.spread_between(offsets) == pytest.approx(0.03, rel=0.1)
    taus = []
    for _ in range(2000):
        window = rng.uniform(0.01, 0.02, between_runs.WINDOW)
        taus.append(between_runs.spread_between([(rng.normal(0, s), s) for s in window]))
    assert 0.35 < np.mean(np.equal(taus, 0.0)) < 0.75 and np.median(taus) < 0.005
    assert between_runs.spread_between([(0.1, 0.01)] * 3) == 0.0


def test_the_record_keeps_the_spread_between_runs_with_the_test():
    found = between_runs.compared(_ratio(2.0, 0.02), [_ratio(2.3, 0.02), _ratio(1.8, 0.02), _ratio(2.0, 0.02)])
    assert found["moved"] and found["tau"] > 0.05
    steady = between_runs.compared(_ratio(2.0, 0.02), [_ratio(2.0, 0.02), _ratio(2.0, 0.02)])
    assert not steady["moved"] and steady["tau"] == 0.0


def test_a_ratio_that_moved_between_runs_is_marked_in_both_of_a_back_to_back_pair():
    # rand-r-threads on the 2-vCPU VM: steady within each run (±1%), 3.37x in one, 3.62x in another
    history = [_ratio(3.40, 0.01), _ratio(3.63, 0.01), _ratio(3.42, 0.01)]       # newest first
    first = _ratio(3.42, 0.01)
    second = _ratio(3.62, 0.01)
    for now, before in ((first, history), (second, [first, *history])):
        found = between_runs.compared(now, before)
        assert found["moved"] and found["p"] < between_runs.ALPHA
        assert math.isclose(found["low"], 3.40) and math.isclose(found["high"], 3.63)
    steady = between_runs.compared(_ratio(3.41, 0.01), [_ratio(3.42, 0.01), _ratio(3.40, 0.01)])
    assert steady is not None and not steady["moved"]


def test_nothing_is_said_without_an_interval_or_with_too_few_runs():
    assert between_runs.compared(_ratio(1.1, 0.01), [_ratio(1.1, 0.01)]) is None     # two runs
    assert between_runs.compared(None, [_ratio(1.1, 0.01)] * 3) is None
    baseline = {"median": 1.0, "ci95": [1.0, 1.0], "ci_coverage": 0.0}
    assert between_runs.compared(baseline, [baseline] * 5) is None
    # earlier runs without an interval do not count towards the three
    assert between_runs.compared(_ratio(1.1, 0.01), [baseline, baseline, _ratio(1.1, 0.01)]) is None
    # at most WINDOW runs: the oldest are left out
    found = between_runs.compared(_ratio(1.1, 0.01), [_ratio(1.1, 0.01)] * 10)
    assert found["runs"] == between_runs.WINDOW


def _experiment(ratios: dict[str, dict | None]) -> dict:
    return {"name": "e", "cases": [{"name": n, "stats": {"ratio": r} if r else None} for n, r in ratios.items()]}


def test_cases_that_move_together_move_their_mean_beyond_what_its_runs_allow():
    """Ten cases, each ±2% a run, all moved together by ±1.5% from run to run: no case's runs
    disagree beyond their intervals (each offset is under its interval), but the mean's, whose
    error is about a third of a case's, do; tau comes out near the common move. Runs of cases
    that move independently leave the mean's tau near 0."""
    rng = np.random.default_rng(5)
    common, independent = [], []
    for _ in range(200):
        shifts = rng.normal(0, 0.015, between_runs.WINDOW)
        runs = [_experiment({f"c{i}": _ratio(2.0 * math.exp(s + rng.normal(0, 0.01)), 0.02) for i in range(10)})
                for s in shifts]
        common.append(between_runs.mean_compared(runs[0], runs[1:]))
        runs = [_experiment({f"c{i}": _ratio(2.0 * math.exp(rng.normal(0, 0.01)), 0.02) for i in range(10)})
                for _ in shifts]
        independent.append(between_runs.mean_compared(runs[0], runs[1:]))
    assert all(m["cases"] == 10 and m["runs"] == between_runs.WINDOW for m in common + independent)
    assert np.mean([m["p"] < 0.05 for m in common]) > 0.5
    assert 0.008 < np.median([m["tau"] for m in common]) < 0.02
    assert np.mean([m["p"] < 0.05 for m in independent]) < 0.1
    assert np.median([m["tau"] for m in independent]) < 0.003


def test_the_mean_is_taken_over_the_cases_every_run_has_and_needs_two_and_three_runs():
    baseline = {"median": 1.0, "ci95": [1.0, 1.0], "ci_coverage": 0.0}
    now = _experiment({"base": baseline, "x": _ratio(2.0, 0.02), "y": _ratio(3.0, 0.02), "new": _ratio(1.5, 0.02)})
    before = _experiment({"base": baseline, "x": _ratio(2.0, 0.02), "y": _ratio(3.0, 0.02)})
    found = between_runs.mean_compared(now, [before, before])
    assert found["cases"] == 2 and found["runs"] == 3                 # not the baseline, not the new case
    assert math.isclose(found["low"], math.sqrt(6.0)) and found["tau"] == 0.0
    assert between_runs.mean_compared(now, [before]) is None          # two runs
    one_case = _experiment({"x": _ratio(2.0, 0.02)})
    assert between_runs.mean_compared(now, [one_case, before]) is None
    marked = between_runs.marked(now, [before, before])
    assert marked["between_runs"]["mean"] == found
    assert "mean" not in between_runs.marked(now, [before])["between_runs"]


def test_an_interval_labelled_short_of_95_percent_is_weighed_by_what_it_covers():
    # the same interval labelled 80% implies a larger standard error than at 95%: the same gap
    # between runs is then less surprising
    wide = [_ratio(1.00, 0.01, 0.80), _ratio(1.03, 0.01, 0.80), _ratio(1.00, 0.01, 0.80)]
    tight = [_ratio(1.00, 0.01), _ratio(1.03, 0.01), _ratio(1.00, 0.01)]
    assert between_runs.compared(wide[0], wide[1:])["p"] > between_runs.compared(tight[0], tight[1:])["p"]


def _tls(version: str = "0.1.0 (test)", machine_id: str = "m1", created: str = "2026-11-23T09:00:00+00:00",
         ratio: float = 2.0, **settings) -> dict:
    doc = json.loads((RECORDED / "tls.json").read_text())
    doc["layertax_version"], doc["created"] = version, created
    doc["machine"]["machine_id"] = machine_id
    doc["settings"].update(settings)
    exp = doc["experiments"][0]
    for case in exp["cases"]:
        if case["name"] == "rand-r":
            case["stats"]["ratio"] = _ratio(ratio, 0.01)
    return doc


def _rand_r(exp: dict) -> dict:
    return next(c for c in exp["cases"] if c["name"] == "rand-r")


def test_the_earlier_runs_are_this_machines_measured_the_same_way_newest_first():
    kept = [
        _tls(created="2026-11-23T08:00:00+00:00", ratio=2.00)                      # alone: as saved
        | {"concurrent": {"allowed": False, "others": []}},
        _tls(created="2026-11-23T10:00:00+00:00", ratio=2.01),
        _tls(created="2026-11-23T11:00:00+00:00", ratio=2.02),
    ]
    left_out = [
        _tls(created="2026-11-23T12:00:00+00:00", version="0.1.0 (other)"),        # another layertax, no digest
        _tls(created="2026-11-23T12:00:01+00:00", machine_id="m2"),                 # another machine
        _tls(created="2026-11-23T12:00:02+00:00", min_sample_ns=2_000_000),         # shorter samples
        _tls(created="2026-11-23T12:00:03+00:00")                                   # beside another run
        | {"concurrent": {"allowed": True, "others": [{"pid": 1, "command": "layertax run"}]}},
    ]
    loaded = _tls(created="2026-11-23T12:00:04+00:00")
    loaded["experiments"][0]["warnings"] = ["tasks outside this run used 9% of the CPUs' time while it ran"]
    for doc in [*kept, *left_out, loaded]:
        runs.save_run(doc)
    now = _tls(created="2026-11-23T13:00:00+00:00")
    found = Recent("m1", "0.1.0 (test)", want=5).experiments(now, now["experiments"][0])
    assert [_rand_r(e)["stats"]["ratio"]["median"] for e in found] == [2.02, 2.01, 2.00]
    assert all(results.validate(doc) for doc in [*kept, *left_out, loaded])    # each was loadable
    assert len(Recent("m1", "0.1.0 (test)", want=2).experiments(now, now["experiments"][0])) == 2
    assert Recent("m3", "0.1.0 (test)", want=5).experiments(now, now["experiments"][0]) == []


def _coded(doc: dict, code: str) -> dict:
    doc["experiments"][0]["code"] = code
    return doc


def test_runs_are_set_side_by_side_where_the_same_code_measured_them_whatever_the_version():
    """Two checkouts of one commit with different uncommitted edits share the version ("-dirty"):
    the digest of the measuring code tells them apart. A commit that changed only the docs keeps
    the digest: the runs before it count. Rows filed before the index named the code are found by
    their version only, so runs of other versions are not read one by one."""
    same, dirty = "a" * 16, "0.1.0 (g3-dirty)"
    kept = [_coded(_tls(created="2026-11-23T08:00:00+00:00", version="0.1.0 (g2)", ratio=2.00), same),
            _coded(_tls(created="2026-11-23T09:00:00+00:00", version=dirty, ratio=2.01), same)]
    left_out = [_coded(_tls(created="2026-11-23T10:00:00+00:00", version=dirty), "b" * 16),   # other edits
                _tls(created="2026-11-23T11:00:00+00:00", version=dirty),                      # no digest
                _coded(_tls(created="2026-11-23T11:30:00+00:00", version="0.1.0 (g1)"), "c" * 16)]
    before_the_index_had_codes = _coded(_tls(created="2026-11-23T12:00:00+00:00", version="0.1.0 (g0)"), same)
    for doc in [*kept, *left_out, before_the_index_had_codes]:
        runs.save_run(doc)
    from layertax.engine.store import history
    with history.database.transaction(history.url_of(None)) as conn:   # as a schema-2 history filed it
        conn.exec_driver_sql("UPDATE runs SET codes = NULL WHERE version = '0.1.0 (g0)'")
    assert [r["codes"] for r in history.runs()][:2] == [None, "tls=" + "c" * 16]
    now = _coded(_tls(created="2026-11-23T13:00:00+00:00", version=dirty), same)
    found = Recent("m1", dirty, want=5).experiments(now, now["experiments"][0])
    assert [_rand_r(e)["stats"]["ratio"]["median"] for e in found] == [2.01, 2.00]
    assert all(results.validate(doc) for doc in [*kept, *left_out, now])    # the schema takes the digest


def test_a_run_is_set_beside_the_history_when_it_ends_and_the_report_marks_what_moved():
    for i, ratio in enumerate((2.00, 2.20, 2.00)):
        runs.save_run(_tls(created=f"2026-11-23T0{i}:00:00+00:00", ratio=ratio))
    now = _tls(created="2026-11-23T13:00:00+00:00", ratio=2.20)
    given = copy.deepcopy(now)
    beside_recent_runs(now)
    exp = now["experiments"][0]
    assert exp["between_runs"]["runs"] == 3
    moved = exp["between_runs"]["cases"]["rand-r"]
    assert moved["moved"] and moved["runs"] == 4 and (moved["low"], moved["high"]) == (2.00, 2.20)
    assert any("differs between this machine's recent runs" in w for w in _rand_r(exp)["stats"]["warnings"])
    assert given["experiments"][0]["cases"] == _tls(created="2026-11-23T13:00:00+00:00", ratio=2.20)[
        "experiments"][0]["cases"]                                       # the saved ones are untouched
    results.validate(now)                                                # the schema takes it

    out = io.StringIO()
    terminal.render(now, Console(file=out, width=80, no_color=True))
    text = out.getvalue()
    row = next(line for line in text.splitlines() if line.startswith("rand-r "))
    assert row.rstrip().endswith("!")
    assert "! it differs between this machine's recent runs" in text
    verbose = io.StringIO()
    terminal.render(now, Console(file=verbose, width=80, no_color=True), verbose=True)
    assert "2x to 2.2x over 4 runs" in " ".join(verbose.getvalue().split())


def _session_after(doc: dict, monkeypatch) -> tuple:
    """run_session's end on a run already measured as doc (no kernels, no rounds): the session it
    returns, and each line it said (its notes and progress lines)."""
    from layertax.engine import session as sessions

    monkeypatch.setattr(sessions.kernels, "prepare", lambda *args: {})
    monkeypatch.setattr(sessions, "_measure", lambda *args: sessions.Session(doc, False, None))
    said = []

    @contextlib.contextmanager
    def busy(message):
        said.append(message)
        yield
    return sessions.run_session([], None, (), False, progress=lambda: None, note=said.append, busy=busy), said


def test_ctrl_c_while_the_history_is_read_keeps_the_run_as_measured(monkeypatch):
    from layertax.engine import session as sessions

    def interrupted(_doc):
        raise KeyboardInterrupt
    monkeypatch.setattr(sessions, "beside_recent_runs", interrupted)
    doc = _tls()
    result, said = _session_after(doc, monkeypatch)
    assert result.interrupted and result.doc is doc and "between_runs" not in doc["experiments"][0]
    assert said == ["setting each ratio beside this machine's recent runs"]


def test_a_run_without_ratios_reads_no_history_and_says_nothing(monkeypatch):
    doc = _tls()
    for case in doc["experiments"][0]["cases"]:
        case["stats"] = None                      # an instruction count's cases carry no ratio stats
    result, said = _session_after(doc, monkeypatch)
    assert not result.interrupted and said == [] and "between_runs" not in doc["experiments"][0]


def test_a_classic_counterpart_that_moved_is_marked_in_the_classic_table_too():
    """The classic table quotes a case's ratio: where that ratio moved between runs, the quote
    carries the "!" its own row does, in the terminal, Markdown and HTML alike."""
    from layertax.report import format as fmt

    now = {"median": 1.5, "ci95": [1.49, 1.51], "ci_coverage": 0.95}
    exp = {"baseline": "base", "cases": [{"name": "base"}, {"name": "case"}],
           "classic": {"baseline": "then-base", "figures": [{"label": "then-base", "counterpart": "base"},
                                                             {"label": "then-case", "counterpart": "case"}]},
           "between_runs": {"runs": 3, "cases": {"case": {"moved": True, "runs": 4, "low": 1.4, "high": 1.5}}}}
    row = {"counterpart": "case", "now_ratio": now}
    assert fmt.classic_now_text(exp, row) == "1.50x [1.49, 1.51] !"
    exp["between_runs"]["cases"]["case"]["moved"] = False
    assert fmt.classic_now_text(exp, row) == "1.50x [1.49, 1.51]"
    assert fmt.classic_now_text(exp, {"counterpart": None, "now_ratio": None}) == "-"
