"""The launch timer's search for its CPU's periodic interruptions (native/ticks.c), on synthetic
gaps whose series are known, and the timer's record of them on real launches: which were
started clear of them, and how long each had before the next."""
from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from layertax.engine.builder import ninja
from layertax.loader import interruptions, launch
from tests.conftest import TESTS, build_test_program

NATIVE = launch.NATIVE
MS = 1_000_000
START = 10 * MS     # the time spun: 100 ms, as the timer spins
END = START + 100 * MS


@pytest.fixture(scope="module")
def checker(cache_root):
    return build_test_program(cache_root, "ticks_check",
                              (TESTS / "kernels" / "ticks_check.c", NATIVE / "ticks.c", *ninja.COMMON_SOURCES),
                              (NATIVE,))


def find(checker, gaps: list[tuple[int, int]], clear_at: tuple[int, ...] = ()) -> tuple[dict, list[int]]:
    text = f"{START} {END}\n" + "".join(f"{at} {length}\n" for at, length in sorted(gaps))
    text += "-\n" + "".join(f"clear {at}\n" for at in clear_at)
    out = subprocess.run([str(checker)], input=text, capture_output=True, text=True, check=True).stdout.splitlines()
    return json.loads(out[0]), [int(x) for x in out[1:]]


def series(period: int, phase: int, length: int, rng, jitter: int = 2000, missing: int = 0) -> list[tuple[int, int]]:
    points = [t for t in range(START + phase, END, period)]
    keep = rng.choice(len(points), len(points) - missing, replace=False)
    return [(points[i] + int(rng.integers(-jitter, jitter)), length) for i in sorted(keep)]


def test_the_tick_and_a_second_series_are_found_among_stray_gaps(checker):
    rng = np.random.default_rng(1)
    stray = [(int(t), 5000) for t in rng.integers(START, END, 15)]
    got, clear = find(checker, series(4 * MS, 521_000, 20_000, rng, missing=2) + series(10 * MS, 7_342_000, 15_000, rng)
                      + stray, clear_at=(START + 521_000 + 100_000, START + 521_000 + 3_000_000))
    assert [(s["period_ns"], s["points"]) for s in got["series"]] == [(4 * MS, 25), (10 * MS, 10)]
    assert got["series"][0]["hit"] >= 23 and got["series"][1]["hit"] == 10
    assert got["median_gap_ns"] == 20_000 and got["gaps"] == 25 - 2 + 10 + 15
    # 100 µs after a tick: the next is ~3.9 ms away; 3 ms after: ~1 ms, unless the 10 ms series is nearer.
    assert 3_880_000 <= clear[0] <= 3_910_000 and 980_000 <= clear[1] <= 1_010_000


@pytest.mark.parametrize("hz", [1000, 300, 250, 100])
def test_each_tick_rate_of_the_kernel_is_found_as_itself(checker, hz):
    period = {1000: MS, 300: 3_333_333, 250: 4 * MS, 100: 10 * MS}[hz]
    got, _ = find(checker, series(period, 123_000, 8_000, np.random.default_rng(hz)))
    assert [s["period_ns"] for s in got["series"]] == [period]


def test_no_series_where_the_gaps_keep_no_time(checker):
    rng = np.random.default_rng(2)
    got, clear = find(checker, [(int(t), 4000) for t in rng.integers(START, END, 80)], clear_at=(START,))
    assert got["series"] == [] and got["gaps"] == 80
    assert clear == [2**64 - 1]   # none: nothing to start clear of


def test_a_burst_of_gaps_does_not_make_a_series(checker):
    # Hundreds of gaps packed into 2 ms (a host's busy spell) sit near at most two points of a 1 ms grid.
    burst = [(START + 40 * MS + k * 10_000, 3500) for k in range(200)]
    got, _ = find(checker, burst)
    assert got["series"] == []


def test_every_launch_says_whether_it_was_dodged_and_how_long_it_had(tools, tmp_path):
    spec = tmp_path / "spec"
    spec.write_text(f"variant e\narg {tools.empty}\n")
    for dodge in (True, False):
        out = tmp_path / f"lines-{dodge}"
        subprocess.run([str(tools.timer), "--spec", str(spec), "--runs", "20", "--warmup", "2", "--cpu", "0",
                        "--out", str(out), *([] if dodge else ["--no-dodge"])], check=True, timeout=60)
        lines = [json.loads(x) for x in out.read_text().splitlines()]
        descriptor = lines[0]
        assert descriptor["dodge"] is dodge and descriptor["ticks"]["learn_ns"] == 100 * MS
        found = descriptor["ticks"]["series"]
        launches = [x for x in lines if x.get("round", -1) >= 0]
        assert len(launches) == 20
        for x in launches:
            # clear_ns is there whenever a series was found; a launch is dodged only when asked and possible.
            assert (x["clear_ns"] is None) == (not found)
            assert x["dodged"] in (True, False) and (dodge or not x["dodged"])
            if x["dodged"]:
                assert x["clear_ns"] >= descriptor["ticks"]["guard_ns"]


def _result(dodge: bool, series: list[dict], samples: list[dict]) -> dict:
    ticks = {"learn_ns": 100 * MS, "gaps": 41, "median_gap_ns": 17_000, "after_ns": 60_000, "guard_ns": 20_000,
             "series": series}
    return {"launch": {"descriptor": {"pinned": True, "dodge": dodge, "ticks": ticks}},
            "cases": [{"name": "a", "samples": samples}], "controls": []}


def test_the_note_counts_the_launches_an_interruption_landed_in():
    tick = [{"period_ns": 4 * MS, "hit": 25, "points": 25}]
    # Started at once: 2 of 8 took longer than the time they had, and ran 10% slower.
    samples = [{"exit_ns": 500_000, "clear_ns": 3 * MS}] * 6 + [{"exit_ns": 550_000, "clear_ns": 200_000}] * 2
    text = interruptions.note(_result(False, tick, samples))
    assert "every 4.00 ms" in text and "17.0 µs each" in text and "2 of 8 met one" in text and "+10%" in text
    dodged = [{"exit_ns": 500_000, "clear_ns": 3 * MS, "dodged": True}] * 8
    assert "8 of 8 launches started clear of them and 0 met one" in interruptions.note(_result(True, tick, dodged))
    # The controls' launches are counted too, and the note says so.
    with_control = {**_result(True, tick, dodged), "controls": [{"name": "c", "samples": dodged[:3]}]}
    assert "11 of 11 launches (3 of them the controls') started clear" in interruptions.note(with_control)
    assert "none in step" in interruptions.note(_result(True, [], [{"exit_ns": 1, "clear_ns": None}]))
    # A result of a timer that did not learn them, or an unpinned run: no note.
    assert interruptions.note({"launch": {"descriptor": {"pinned": True}}}) is None
    assert interruptions.note({**_result(True, tick, dodged), "launch": {"descriptor": {"pinned": False}}}) is None
