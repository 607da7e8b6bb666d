"""loadtime's glibc view: several LD_DEBUG readings per variant, the median kept, the
difference from the empty program paired per round (synthetic readings, no launches)."""
from layertax.experiments.loadtime.measure import median_reading
from layertax.experiments.loadtime.tables import glibc_rounds, views_table


def reading(round_: int, total_ns: float, tick_scale: int = 10) -> dict:
    return {"status": "ok", "round": round_, "total_ns": total_ns, "tick_scale": tick_scale, "lookups": 83,
            "wall_ns_same_run": total_ns + 50_000, "wall_key": "main_ns"}


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
    table = views_table(result)
    row = dict(zip(table["columns"], table["rows"][0]))
    assert row["glibc (digit restored)"] == "400 ns [400 ns, 400 ns]"
    assert row["glibc as printed"] == "40 ns [40 ns, 40 ns]"
    assert row["wall: spawn->main [95% CI], paired per round"].startswith("within noise")


def test_glibc_view_never_prints_a_negative_time():
    empty = [500.0, 600.0, 400.0, 550.0, 450.0, 500.0, 520.0]
    variant = [610.0, 380.0, 520.0, 430.0, 560.0, 490.0, 505.0]
    result = {"cases": [case("default", variant, [1e6] * 7), case("empty", empty, [1e6] * 7)]}
    row = views_table(result)["rows"][0]
    assert row[2].startswith("within noise") and "-" not in row[2]


def test_a_result_with_one_reading_still_reads():
    """Results saved before several readings were kept have one reading, with no list."""
    one = {"status": "ok", "total_ns": 900.0, "tick_scale": 10}
    assert glibc_rounds({"loader": one}) == {0: 900.0}
    assert glibc_rounds({"loader": {"status": "none"}}) == {}
