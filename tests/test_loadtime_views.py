"""loadtime's glibc view: several LD_DEBUG readings per variant, the median kept, the
difference from the empty program paired per round, and spawn->main split into stages
measured in the same launches (synthetic readings, no launches)."""
import io

from rich.console import Console
from test_html_report import synthetic_doc

from layertax.engine.analysis import stats
from layertax.experiments.loadtime.measure import median_reading
from layertax.experiments.loadtime.split import stage_split, variant_split
from layertax.experiments.loadtime.tables import glibc_rounds, split_table, views_table
from layertax.report import format as fmt
from layertax.report import terminal
from layertax.report.html import to_html
from layertax.report.markdown import to_markdown
from layertax.report.plots import loadtime_split
from tests.result_numbers import numbers_in


def reading(round_: int, total_ns: float, tick_scale: int = 10) -> dict:
    return {"status": "ok", "round": round_, "total_ns": total_ns, "load_ns": None, "relocation_ns": None,
            "tick_scale": tick_scale, "lookups": 83, "wall_ns_same_run": total_ns + 50_000, "wall_key": "main_ns"}


def case(name: str, totals: list[float], main_ns: list[float]) -> dict:
    return {"name": name, "status": "ok", "stats": {"median": sorted(main_ns)[len(main_ns) // 2]},
            "samples": [{"round": r, "main_ns": m} for r, m in enumerate(main_ns)],
            "loader": median_reading([reading(r, t) for r, t in enumerate(totals)])}


def test_the_median_reading_is_kept_with_every_reading():
    got = median_reading([reading(0, 900.0), reading(1, 100.0), reading(2, 500.0),
                          {"status": "failed", "reason": "no output"}])
    assert got["total_ns"] == 500.0 and got["round"] == 2
    assert got["spawn_to_main_ns_same_run"] == 50_500.0 and "wall_key" not in got and "wall_ns_same_run" not in got
    assert [r["total_ns"] for r in got["readings"]] == [900.0, 100.0, 500.0]


def test_no_reading_says_why():
    assert median_reading([])["status"] == "none"
    failed = {"status": "failed", "reason": "no output"}
    assert median_reading([failed]) == failed


def test_glibc_view_is_paired_per_round():
    # The variant's loader takes 400 more than the empty one's in every round; a slow round
    # (round 3) moves both, so pairing cancels it where a difference of medians would not.
    empty = [500.0, 510.0, 490.0, 5000.0, 505.0, 495.0, 500.0]
    variant = [e + 400.0 for e in empty]
    mains = [1e6] * 7
    result = {"cases": [case("default", variant, mains), case("empty", empty, mains)]}
    assert glibc_rounds(result["cases"][0])[3] == 5400.0
    assert glibc_rounds(result["cases"][0], as_printed=True)[3] == 540.0
    table = fmt.written(views_table(result))      # figures with their units, written as report/ writes them
    row = dict(zip(table["columns"], table["rows"][0]))
    assert row["glibc (digit restored)"] == "400 ns [400, 400]"
    assert row["glibc as printed"] == "40.0 ns [40.0, 40.0]"
    assert row["wall: spawn->main [95% CI], paired per round"].startswith("within noise")


def test_glibc_view_never_prints_a_negative_time():
    empty = [500.0, 600.0, 400.0, 550.0, 450.0, 500.0, 520.0]
    variant = [610.0, 380.0, 520.0, 430.0, 560.0, 490.0, 505.0]
    result = {"cases": [case("default", variant, [1e6] * 7), case("empty", empty, [1e6] * 7)]}
    row = fmt.written(views_table(result))["rows"][0]
    assert row[2].startswith("within noise") and "-" not in row[2]


def test_a_result_with_one_reading_still_reads():
    """Results saved before several readings were kept have one reading, with no list."""
    one = {"status": "ok", "total_ns": 900.0, "tick_scale": 10}
    assert glibc_rounds({"loader": one}) == {0: 900.0}
    assert glibc_rounds({"loader": {"status": "none"}}) == {}


def staged(round_: int, wall: float, load: float, reloc: float, other: float) -> dict:
    """A reading whose stages are known: exec etc. = wall - (load + reloc + other)."""
    return {"status": "ok", "round": round_, "total_ns": load + reloc + other, "load_ns": load,
            "relocation_ns": reloc, "tick_scale": 10, "lookups": 83, "wall_ns_same_run": wall, "wall_key": "main_ns"}


def split_case(name: str, rows: list[tuple], plain: list[float]) -> dict:
    return {"name": name, "status": "ok", "samples": [{"round": r, "main_ns": m} for r, m in enumerate(plain)],
            "loader": median_reading([staged(r, *row) for r, row in enumerate(rows)])}


def test_the_stages_are_measured_in_the_same_launch():
    rows = [(1000.0 + 10 * r, 100.0, 300.0 + r, 50.0) for r in range(7)]   # exec etc. = 550 + 9r
    got = variant_split(split_case("default", rows, [950.0] * 40))
    stages = {k: v["ns"] for k, v in got["stages"].items()}
    assert stages == {"exec, kernel, libc start-up": 577.0, "loading objects": 100.0,
                      "relocation + lookups": 303.0, "other loader work": 50.0}
    assert got["debugged_main_ns"]["ns"] == 1030.0 and got["plain_main_ns"]["ns"] == 950.0
    assert got["debug_cost"]["ns"] == 80.0 and got["stages"]["loading objects"]["n"] == 7


def test_a_variant_without_readings_is_not_split():
    static = {"name": "static", "status": "ok", "samples": [{"round": 0, "main_ns": 500.0}],
              "loader": {"status": "none", "reason": "no dynamic loader"}}
    old = {"name": "default", "status": "ok", "samples": [{"round": 0, "main_ns": 500.0}],
           "loader": {"status": "ok", "total_ns": 300.0, "tick_scale": 10}}   # saved before readings were kept
    assert variant_split(static) is None and variant_split(old) is None
    assert stage_split({"cases": [static, old]}) == []


def noisy_split_result() -> dict:
    # The loader's "other work" is 0 +- 40 ns: its interval holds zero, so it reads as noise.
    rows = [(1000.0, 100.0, 300.0, other) for other in (-40.0, 30.0, -10.0, 0.0, 20.0, -30.0, 40.0)]
    result = {"cases": [split_case("default", rows, [990.0] * 40)]}
    result["split"] = stage_split(result)
    return result


def test_the_split_table_never_shows_a_negative_stage():
    table = fmt.written(split_table(noisy_split_result()))
    row = dict(zip(table["columns"], table["rows"][0]))
    assert row["variant"] == "default" and row["other loader work"].startswith("within noise")
    assert row["loading objects"] == "100 ns [100, 100]"
    assert not any(cell.startswith("-") for cell in table["rows"][0])
    # Nor does the result: a stage within noise is kept as 0 and the noise's half-width.
    split = noisy_split_result()["split"]
    noise = stats.median_summary([-40.0, 30.0, -10.0, 0.0, 20.0, -30.0, 40.0])   # the interval of the paired rounds
    assert split[0]["stages"]["other loader work"] == {"ns": 0.0, "n": 7,
                                                      "within_noise_ns": max(-noise["ci95"][0], noise["ci95"][1])}
    assert min(numbers_in(split)) >= 0



def test_the_chart_draws_the_split_with_the_experiments_table_under_it():
    result = noisy_split_result()
    table = split_table(result)
    svg, under = loadtime_split({**result, "tables": [table]})
    assert under is table and "<svg" in svg and "default" in svg
    assert loadtime_split(result) is not None   # a table missing: the chart alone


def test_every_report_shows_the_split_once():
    doc = synthetic_doc("demo")
    exp = doc["experiments"][0]
    result = noisy_split_result()
    exp["split"], table = result["split"], split_table(result)
    exp["tables"].append(table)
    page = to_html(doc)
    assert page.count("spawn-&gt;main stage by stage, inside") == 0   # under its chart, not as a titled table
    assert page.count("100 ns [100, 100]") == 1 and "within noise (±" in page   # the row, once
    assert "the stages add up to each debugged launch" in page   # the table's notes under it
    assert to_markdown(doc).count("spawn->main stage by stage, inside") == 1
    out = io.StringIO()
    terminal.render_experiment(exp, Console(file=out, width=80, force_terminal=False), verbose=False)
    printed = out.getvalue()
    assert "stage by stage" in printed and "within noise" in printed


def test_a_run_saved_before_the_split_has_no_chart():
    assert loadtime_split({"cases": []}) is None
