"""The cost model recovers known slopes from synthetic points, and says when it cannot."""
import numpy as np

from layertax.elf import costmodel


def _points(n=40, noise=0.0, seed=1):
    rng = np.random.default_rng(seed)
    truth = {"relative_relocations": 4.0, "symbol_lookups": 80.0, "libraries": 20_000.0, "page_faults": 700.0}
    points = []
    for _ in range(n):
        p = {"relative_relocations": int(rng.integers(0, 50_000)), "symbol_lookups": int(rng.integers(0, 20_000)),
             "libraries": int(rng.integers(0, 100)), "page_faults": int(rng.integers(50, 2_000))}
        p["spawn_to_main_ns"] = 300_000 + sum(truth[k] * p[k] for k in truth) + rng.normal(0, noise)
        points.append(p)
    return points, truth


def test_exact_points_give_the_exact_slopes():
    points, truth = _points()
    model = costmodel.fit(points)
    assert model["status"] == "ok" and model["r2"] > 0.999999
    for k, v in truth.items():
        assert abs(model["coefficients"][k]["ns_per_unit"] - v) < 1e-6 * max(1, v)
    assert abs(model["coefficients"]["intercept"]["ns_per_unit"] - 300_000) < 1e-3


def test_noisy_points_give_intervals_that_cover_the_truth():
    points, truth = _points(n=200, noise=20_000)
    model = costmodel.fit(points)
    for k, v in truth.items():
        lo, hi = model["coefficients"][k]["ci95"]
        assert lo <= v <= hi, (k, lo, hi)


def test_a_dimension_that_never_varies_is_not_estimated():
    points, _ = _points()
    for p in points:
        p["libraries"] = 10
    model = costmodel.fit(points)
    assert model["coefficients"]["libraries"] is None
    assert costmodel.predict(model, {"relative_relocations": 1, "symbol_lookups": 1, "libraries": 3}) is None


def test_collinear_regressors_are_reported_not_trusted():
    points, _ = _points()
    for p in points:
        p["symbol_lookups"] = 2 * p["relative_relocations"]
    assert costmodel.fit(points)["status"] == "degenerate"


def test_too_few_points_are_reported():
    points, _ = _points(n=3)
    assert costmodel.fit(points)["status"] == "underdetermined"
    assert costmodel.fit([])["status"] == "failed"


def test_predict_adds_up_the_terms():
    points, truth = _points()
    model = costmodel.fit(points)
    counts = {"relative_relocations": 100, "symbol_lookups": 10, "libraries": 1, "page_faults": 5}
    expected = 300_000 + sum(truth[k] * counts[k] for k in truth)
    assert abs(costmodel.predict(model, counts) - expected) < 1e-3


def test_sysv_searches_are_priced_when_a_sysv_variant_is_swept_and_absent_otherwise():
    points, truth = _points()
    old = costmodel.fit(points)   # points saved before the term existed have no sysv_probes key
    assert old["status"] == "ok" and old["coefficients"]["sysv_probes"] is None
    rng = np.random.default_rng(3)
    for p in points:
        p["sysv_probes"] = int(rng.integers(0, 5_000))
        p["spawn_to_main_ns"] += 35.0 * p["sysv_probes"]
    model = costmodel.fit(points)
    assert abs(model["coefficients"]["sysv_probes"]["ns_per_unit"] - 35.0) < 1e-6
    assert abs(model["coefficients"]["symbol_lookups"]["ns_per_unit"] - truth["symbol_lookups"]) < 1e-6


def test_a_sweep_result_carries_its_tables_so_every_report_shows_them():
    """The sweep's points and model are tables of the result itself (not drawn by its command
    alone), so `report`, the Markdown and CSV exports and the HTML report all show them."""
    import io
    import json

    from rich.console import Console

    from layertax.engine.store import results
    from layertax.experiments.loadtime.tables import sweep_model_table, sweep_points_table
    from layertax.report import exporters, terminal

    points, truth = _points(n=12)
    for i, p in enumerate(points):
        p.update(variant=("default", "symbolic")[i % 2], libs=10, exports=100, relocs=i, sysv_probes=0, rounds=15)
    result = {"name": "loadtime-sweep", "title": "cost model of the loader", "question": "What does each unit cost?",
              "unit": "spawn->main", "baseline": None, "classic": None, "cases": [], "points": points,
              "model": costmodel.fit(points), "interrupted": False, "show_cases": False}
    result["tables"] = [sweep_points_table(result), sweep_model_table(result)]
    doc = results.new_document({"method": "synthetic"}, {"cpu_model": "test"}, [result], complete=True)
    doc = json.loads(results.dumps(doc))   # as `report` reads it back from the file

    out = io.StringIO()
    terminal.render(doc, Console(file=out, width=200, no_color=True))
    text = out.getvalue()
    assert "points (median spawn->main" in text and "cost model: spawn->main = intercept" in text
    slope = f"{truth['symbol_lookups']:,.1f}"   # the model recovered the exact slope, printed in its table
    assert slope in text and text.count("symbolic") >= 6
    markdown = exporters.EXPORTERS["markdown"].to_text(doc)
    assert "cost model: spawn->main" in markdown and slope in markdown
