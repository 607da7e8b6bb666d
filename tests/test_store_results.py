"""The result document: schema round-trip, atomic writes, clear errors on bad files."""
import io
import json
from pathlib import Path

import pytest

from layertax import files
from layertax.engine.store import history, results
from layertax.errors import UsageError


def sample_doc() -> dict:
    case = {"name": "a", "kernel": "k", "layer": "l", "language": "c", "status": "ok", "reason": None,
            "descriptor": {"kernel": "k"}, "samples": [{"round": 0, "iters": 10, "ops": 20, "ns": 2000}],
            "stats": {"n": 1, "median": 100.0, "min": 100.0, "max": 100.0, "mean": 100.0, "spread": 0.0,
                      "ci95": [100.0, 100.0], "warnings": []}}
    return {"schema": results.SCHEMA, "layertax_version": "0", "created": results.now_iso(), "command": ["layertax"],
            "complete": True, "settings": {"runs": 1}, "machine": {"machine_id": "m", "cpu_model": "x"},
            "experiments": [{"name": "e", "title": "t", "question": "q?", "unit": "ns", "baseline": "a", "cases": [case],
                             "classic": None}]}


def test_round_trip_is_exact(tmp_path):
    doc = sample_doc()
    path = results.save(doc, tmp_path / "r.json")
    assert results.load(path) == doc


def test_save_is_atomic_and_leaves_no_temporary_files(tmp_path):
    tmp_path = tmp_path / "w"
    tmp_path.mkdir()
    path = tmp_path / "r.json"
    results.save(sample_doc(), path)
    results.save(sample_doc() | {"complete": False}, path)
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]
    assert results.load(path)["complete"] is False


def test_unserialisable_doc_keeps_the_old_file(tmp_path):
    tmp_path = tmp_path / "w"
    tmp_path.mkdir()
    path = tmp_path / "r.json"
    results.save(sample_doc(), path)
    with pytest.raises(ValueError):
        results.save(sample_doc() | {"bad": float("nan")}, path)
    assert results.load(path)["complete"] is True
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON"),
    ("[]", "not a JSON object"),
    ('{"schema": "other/9"}', "schema is 'other/9'"),
    (json.dumps({"schema": results.SCHEMA, "machine": {}, "settings": {}}), "'experiments' is a required property"),
    (json.dumps({"schema": results.SCHEMA, "machine": {}, "settings": {}, "experiments": [{"name": "e"}]}),
     r"at experiments\[0\]: 'title' is a required property"),
])
def test_bad_files_give_one_clear_error(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(results.ResultError, match=message):
        results.load(path)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(results.ResultError, match="no such file"):
        results.load(tmp_path / "nope.json")
    with pytest.raises(results.ResultError, match="is a directory"):
        results.load(tmp_path)


def test_check_writable_creates_nothing(tmp_path):
    tmp_path = tmp_path / "w"
    tmp_path.mkdir()
    target = tmp_path / "out.json"
    assert files.check_writable(target, "--export-json") == target
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(UsageError, match="does not exist"):
        files.check_writable(tmp_path / "missing" / "out.json", "--export-json")
    with pytest.raises(UsageError, match="is a directory"):
        files.check_writable(tmp_path, "--export-json")


def test_history_records_and_lists_newest_first(tmp_path):
    db = tmp_path / "h.sqlite"
    assert history.runs(db) == []
    doc = sample_doc()
    history.record(db, doc, tmp_path / "one.json")
    history.record(db, doc | {"complete": False}, tmp_path / "two.json")
    rows = history.runs(db)
    assert [r["path"] for r in rows] == [str(tmp_path / "two.json"), str(tmp_path / "one.json")]
    assert rows[0]["experiments"] == "e" and rows[0]["complete"] == 0
    assert len(history.runs(db, limit=1)) == 1


def test_a_case_group_left_empty_by_case_selection_prints_no_table():
    from layertax.report.format import case_groups

    exp = {"title": "t", "baseline": "a", "cases": [{"name": "a", "group": ""}, {"name": "b", "group": "kept"}],
           "groups": [{"name": "kept", "title": "kept", "baseline": "b"},
                      {"name": "empty", "title": "nothing selected", "baseline": "c"},
                      {"name": "own", "title": "own table", "baseline": "b", "show_cases": False}]}
    assert [g["name"] for g in case_groups(exp)] == ["", "kept"]


def test_the_newest_run_that_kept_its_experiments_spreads_is_what_the_forecast_reads(tmp_path):
    """doctor's verdict and a run's forecast start from the spreads the newest budgeted run on this
    machine kept (settings.noise_probe.seen); a run without them is passed over, and a history of
    none gives nothing."""
    from layertax.engine.measure import budget
    from layertax.engine.measure.settings import Settings, design
    from layertax.engine.store import runs

    default = design(Settings().to_dict())
    assert budget.newest_seen("m", default, {"e"}) == {}
    older = sample_doc()
    older["settings"] = Settings().to_dict() | {"noise_probe": {"spread": 0.03, "seen": {"e": 0.05}}}
    older["experiments"][0]["stopping"] = {"rule": None, "cases": {}, "round_s_full": 2.5}
    runs.save_run(older)
    assert budget.newest_seen("m", default, {"e"}) == {"e": 0.05}
    runs.save_run(sample_doc())                                     # no probe: a --runs run
    assert budget.newest_seen("m", default, {"e"}) == {"e": 0.05}
    assert budget.newest_seen("m", default, {"e"}, tries=1) == {}
    assert budget.newest_seen("m", default, {"another experiment"}) == {}     # passed on the index, not read
    for _ in range(3):                  # launches since: not runs of these experiments, not a try each
        launch = sample_doc()
        launch["experiments"][0]["name"] = "launch"
        runs.save_run(launch)
    assert budget.newest_seen("m", default, {"e"}, tries=2) == {"e": 0.05}
    assert budget.newest_seen("another machine", default, {"e"}) == {}
    # The stopping record a run's budget reads carries it too (the newer run has no stopping record).
    stops = budget.newest_stopping("m", {"e": design(Settings().to_dict(), "e")})
    assert stops["e"]["round_s_full"] == 2.5 and budget.seen_spreads(stops) == {"e": 0.05}


def test_the_budget_and_the_forecast_pass_over_runs_measured_another_way(tmp_path):
    """A --quick run (shorter samples, smaller bursts) or one whose experiment ran with a burst of
    its own costs and spreads otherwise: a default run's budget and forecast, and doctor, read the
    newest run measured the way they will measure."""
    from layertax.engine.measure import budget
    from layertax.engine.measure.settings import Settings, design
    from layertax.engine.store import runs

    def budgeted(settings: Settings, round_s: float, spread: float, own: dict | None = None) -> dict:
        doc = sample_doc()
        doc["settings"] = settings.to_dict() | {"noise_probe": {"spread": 0.03, "seen": {"e": spread}}}
        doc["experiments"][0]["stopping"] = {"rule": None, "cases": {}, "round_s_full": round_s}
        if own:
            doc["experiments"][0]["settings"] = own
        return doc

    default, quick = Settings(), Settings.from_options(quick=True, pin=False)
    runs.save_run(budgeted(default, 2.5, 0.05))
    runs.save_run(budgeted(default, 9.0, 0.07, own={"burst": 1}))   # the experiment's own burst then
    runs.save_run(budgeted(quick, 0.4, 0.20))
    wanted = {"e": design(default.to_dict(), "e")}
    stops = budget.newest_stopping("m", wanted)
    assert stops["e"]["round_s_full"] == 2.5 and budget.seen_spreads(stops) == {"e": 0.05}
    own_burst = {"e": design(default.to_dict(), "e", {"burst": 1})}
    assert budget.newest_stopping("m", own_burst)["e"]["round_s_full"] == 9.0
    assert budget.newest_stopping("m", {"e": design(quick.to_dict(), "e")})["e"]["round_s_full"] == 0.4
    assert budget.newest_seen("m", design(default.to_dict()), {"e"}) == {"e": 0.07}
    assert budget.newest_seen("m", design(quick.to_dict()), {"e"}) == {"e": 0.20}
    assert budget.newest_stopping("m", {"e": design(Settings(burst=5).to_dict(), "e")}) == {}


def test_the_budget_finds_an_untimed_experiments_window_and_reads_only_the_newest_runs(tmp_path, monkeypatch):
    """unicode-io keeps no stopping record, only the CPUs' window while it ran: the budget keeps
    that time for it. And a design never run here does not send the search through every saved
    run (each a whole result to load and check): only the newest LOOK_BACK are read."""
    from layertax.engine.measure import budget
    from layertax.engine.measure.settings import Settings, design
    from layertax.engine.store import history, runs

    doc = sample_doc()
    doc["settings"] = Settings().to_dict()
    doc["experiments"][0]["cpu_activity"] = {"window_s": 7.5, "steal_share": 0.0, "busy_share": 0.6}
    runs.save_run(doc)
    wanted = {"e": design(Settings().to_dict(), "e")}
    stops = budget.newest_stopping("m", wanted)
    assert stops["e"]["window_s"] == 7.5 and "cases" not in stops["e"]
    assert budget.own_way_seconds(stops, {"e"}) == {"e": 7.5}
    assert budget.round_costs(stops) == {} and budget.needs(stops) == {}
    for n in range(4):                                # no window, no stopping record: not what it seeks
        runs.save_run(sample_doc() | {"command": ["layertax", str(n)]})
    loaded = []
    real_load = history.load
    monkeypatch.setattr(history, "load", lambda row, *a: loaded.append(row["id"]) or real_load(row, *a))
    monkeypatch.setattr(budget, "LOOK_BACK", 3)
    assert budget.newest_stopping("m", wanted) == {}
    assert len(loaded) == 3


def test_a_ratio_at_two_levels_in_a_table_reads_back(tmp_path):
    """loadtime's table puts each case's ratio in a cell whole; where its rounds sat at two levels
    the cell keeps where, and a run saved so had been refused when read back ("not a valid layertax
    result: at experiments[2].tables[0].rows[11][10]"): report, compare and the history's readers
    all read through the schema."""
    from rich.console import Console

    from layertax.experiments.loadtime.tables import loader_table
    from layertax.report import terminal

    doc = results.load(Path(__file__).parent / "data" / "recorded" / "loadtime.json")
    exp = doc["experiments"][0]
    case = next(c for c in exp["cases"] if (c.get("stats") or {}).get("ratio") and c["name"] != exp["baseline"])
    case["stats"]["ratio"]["two_levels"] = {"lower": 0.889, "upper": 0.957, "upper_share": 0.44, "gap": 0.076,
                                            "p": 0.04}
    exp["tables"] = [{**loader_table(exp), "detail": True}]
    assert any(isinstance(cell, dict) and cell.get("two_levels") for row in exp["tables"][0]["rows"] for cell in row)
    path = results.save(doc, tmp_path / "two-levels.json")
    again = results.load(path)
    assert again == doc
    out = io.StringIO()
    terminal.render(again, Console(file=out, width=100, no_color=True), verbose=True)
    assert case["name"] in out.getvalue() and "ratio to default" in out.getvalue()


def test_a_run_that_would_not_read_back_is_kept_as_a_file_and_not_filed(tmp_path):
    """A writer's defect (a run whose own readers refuse it) is caught where the run is kept:
    nothing measured is lost, the history is not given a row every reader of it would meet, and
    the one line says whose defect it is and where."""
    from rich.console import Console

    from layertax.commands import keeping
    from layertax.errors import LayertaxError

    doc = sample_doc()
    assert results.defect(doc) is None
    doc["experiments"][0]["tables"] = [{"title": "t", "columns": ["case", "figure"], "units": [None, None],
                                        "rows": [["a", {"median": 1.0, "ci95": [0.9, 1.1]}]]}]
    out = io.StringIO()
    with pytest.raises(LayertaxError) as refused:
        keeping.keep(doc, Console(file=out, width=100), True, {})
    line = str(refused.value)
    assert "this run: not a valid layertax result: at experiments[0].tables[0].rows[0][1]" in line
    assert "a defect of layertax's, not of the measurement" in line and "not filed in the history" in line
    saved = list((tmp_path / "data" / "layertax" / "runs").glob("*.json"))
    assert len(saved) == 1 and json.loads(saved[0].read_text()) == doc
    assert "saved:" in out.getvalue()
    assert history.runs() == []
    # Not saved (--no-save): the same line, which then claims no file.
    with pytest.raises(LayertaxError) as refused:
        keeping.keep(doc, Console(file=io.StringIO(), width=100), False, {})
    assert "a defect of layertax's" in str(refused.value) and "kept as a file" not in str(refused.value)
    assert len(list((tmp_path / "data" / "layertax" / "runs").glob("*.json"))) == 1
