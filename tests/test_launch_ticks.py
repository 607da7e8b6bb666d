"""The launch timer's search for its CPU's periodic interruptions (native/ticks.c), on synthetic
gaps whose series are known, and the timer's record of them on real launches: which were
started clear of them, and how long each had before the next."""
from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from layertax.engine.builder import ninja
from layertax.launch import protocol, ticks
from layertax.launch import tools as launch_tools
from tests.conftest import TESTS, build_test_program

NATIVE = launch_tools.NATIVE
MS = 1_000_000
START = 10 * MS     # the time spun: 100 ms, as the timer spins
END = START + 100 * MS


@pytest.fixture(scope="module")
def checker(cache_root):
    return build_test_program(cache_root, "ticks_check",
                              (TESTS / "kernels" / "ticks_check.c", NATIVE / "ticks.c", *ninja.COMMON_SOURCES),
                              (NATIVE,))


def find(checker, gaps: list[tuple[int, int]], clear_at: tuple[int, ...] = (),
         start_at: tuple[tuple[int, int], ...] = ()) -> tuple[dict, list[int | None]]:
    """The series found in gaps; then the time to the next interruption from each of clear_at,
    and the earliest clear start of each (at, expected length) of start_at (None: none)."""
    text = f"{START} {END}\n" + "".join(f"{at} {length}\n" for at, length in sorted(gaps))
    text += "-\n" + "".join(f"clear {at}\n" for at in clear_at)
    text += "".join(f"start {at} {expect}\n" for at, expect in start_at)
    out = subprocess.run([str(checker)], input=text, capture_output=True, text=True, check=True).stdout.splitlines()
    return json.loads(out[0]), [None if x == "none" else int(x) for x in out[1:]]


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


def test_a_launch_starts_after_the_interruptions_of_both_series_that_leave_it_no_room(checker):
    # A tick every 4 ms from 0.521 ms, another series every 10 ms from 8.2 ms (times from START).
    rng = np.random.default_rng(3)
    gaps = series(4 * MS, 521_000, 20_000, rng, jitter=1) + series(10 * MS, 8_200_000, 15_000, rng, jitter=1)
    at = [(START + 621_000, 400_000),     # room now: starts at once
          (START + 4_221_000, 400_000),   # 3.7 ms after a tick: after the next (4.521) and 60 µs
          (START + 8_000_000, 300_000),   # the 10 ms one (8.2) pushes it to 8.26, the tick (8.521) on to 8.581
          (START + 100_000, 3_950_000)]   # longer than the room between two ticks: no start
    got, starts = find(checker, gaps, start_at=tuple(at))
    assert [s["period_ns"] for s in got["series"]] == [4 * MS, 10 * MS]
    want = [START + 621_000, START + 4_581_000, START + 8_581_000, None]
    assert starts[3] is None
    assert all(abs(s - w) <= 10 for s, w in zip(starts[:3], want[:3])), starts


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
        assert descriptor["ticks"]["max_wait_ns"] == 500_000   # the longest wait for room before a launch
        found = descriptor["ticks"]["series"]
        launches = [x for x in lines if x.get("round", -1) >= 0]
        assert len(launches) == 20
        # A move to another CPU (a busy machine: a placement line) learns that CPU's series anew,
        # so the descriptor's series speaks for the launches before the first move only.
        moved = next((i for i, x in enumerate(lines) if "placement" in x), len(lines))
        before_move = [x for x in lines[:moved] if x.get("round", -1) >= 0]
        for x in launches:
            # clear_ns is there whenever a series was found; a launch is dodged only when asked and possible.
            if any(x is y for y in before_move):
                assert (x["clear_ns"] is None) == (not found)
            assert x["dodged"] in (True, False) and (dodge or not x["dodged"])
            if x["dodged"]:
                assert x["clear_ns"] >= descriptor["ticks"]["guard_ns"]


def _result(dodge: bool, series: list[dict], samples: list[dict]) -> dict:
    ticks = {"learn_ns": 100 * MS, "gaps": 41, "median_gap_ns": 17_000, "after_ns": 60_000, "guard_ns": 20_000,
             "series": series}
    return {"launch": {"descriptor": {"pinned": True, "dodge": dodge, "ticks": ticks}},
            "cases": [{"name": "a", "samples": samples}], "controls": []}


def test_the_note_goes_by_the_interruptions_learned_again_where_the_timer_moved():
    """A CPU found shared with a busy task is left, and its successor's interruptions learned
    again (a placement line): the launches after it dodged those, and the note says so, where
    the first CPU's spin found none in step."""
    tick = [{"period_ns": 4 * MS, "hit": 25, "points": 25}]
    dodged = [{"exit_ns": 500_000, "clear_ns": 3 * MS, "dodged": True}] * 4
    result = _result(True, [], dodged)
    assert "no periodic interruption of the pinned CPU found" in ticks.note(result)
    moved = {"round": 3, "from": 0, "to": 1, "waited": 3, "of": 10,
             "ticks": {**result["launch"]["descriptor"]["ticks"], "series": tick}}
    result["launch"]["moves"] = [moved]
    text = ticks.note(result)
    assert text.startswith("CPU 1, where the timer moved, is interrupted every 4.00 ms")
    assert "4 of 4 launches started clear of them" in text
    # Moved to a CPU whose spin found none: the first CPU's series still tells the earlier launches.
    again = _result(True, tick, dodged)
    again["launch"]["moves"] = [{**moved, "ticks": {**moved["ticks"], "series": []}}]
    assert ticks.note(again).startswith("the pinned CPU is interrupted every 4.00 ms")


def test_the_note_counts_the_launches_an_interruption_landed_in():
    tick = [{"period_ns": 4 * MS, "hit": 25, "points": 25}]
    # Started at once: 2 of 8 took longer than the time they had, and ran 10% slower.
    samples = [{"exit_ns": 500_000, "clear_ns": 3 * MS}] * 6 + [{"exit_ns": 550_000, "clear_ns": 200_000}] * 2
    text = ticks.note(_result(False, tick, samples))
    assert "every 4.00 ms" in text and "17.0 µs each" in text and "2 of 8 met one" in text and "+10%" in text
    dodged = [{"exit_ns": 500_000, "clear_ns": 3 * MS, "dodged": True}] * 8
    assert "8 of 8 launches started clear of them and 0 met one" in ticks.note(_result(True, tick, dodged))
    # The controls' launches are counted too, and the note says so.
    with_control = {**_result(True, tick, dodged), "controls": [{"name": "c", "samples": dodged[:3]}]}
    assert "11 of 11 launches (3 of them the controls') started clear" in ticks.note(with_control)
    assert "none in step" in ticks.note(_result(True, [], [{"exit_ns": 1, "clear_ns": None}]))
    # A result of a timer that did not learn them, or an unpinned run: no note.
    assert ticks.note({"launch": {"descriptor": {"pinned": True}}}) is None
    assert ticks.note({**_result(True, tick, dodged), "launch": {"descriptor": {"pinned": False}}}) is None


def test_a_stamped_program_that_runs_on_past_the_period_is_started_clear_until_main(tools, tmp_path):
    # sleep 6 ms after main: the whole launch cannot fit between two 4 ms ticks, its
    # spawn->main (the stamp's figure) can; without a stamp, nothing is known to fit.
    spec = tmp_path / "spec"
    spec.write_text(f"variant s\narg /bin/sleep\narg 0.006\nenv LD_PRELOAD={tools.stamp_lib}\n"
                    f"variant n\narg /bin/sleep\narg 0.006\n")
    out = tmp_path / "lines"
    subprocess.run([str(tools.timer), "--spec", str(spec), "--runs", "12", "--warmup", "2", "--cpu", "0",
                    "--out", str(out)], check=True, timeout=60)
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    periods = [s["period_ns"] for s in lines[0]["ticks"]["series"]]
    launches = [x for x in lines if x.get("round", -1) >= 0]
    for x in launches:
        assert x["dodged_until"] in (None, "exit", "main") and x["dodged"] == (x["dodged_until"] is not None)
    stamped = [x for x in launches if x["variant"] == "s"]
    unstamped = [x for x in launches if x["variant"] == "n"]
    assert len(stamped) == len(unstamped) == 12 and all(x["main_ns"] is not None for x in stamped)
    assert all(x["main_ns"] is None and x["dodged_until"] != "main" for x in unstamped)
    if periods and min(periods) < 6 * MS:
        assert not any(x["dodged_until"] == "exit" for x in launches)
        assert not any(x["dodged"] for x in unstamped)
        # Whether spawn->main fits between two ticks is the machine's to say, not the test's: on a
        # loaded machine it may not. The timer expects 1.25 times the longest recent spawn->main
        # (warm-up included); where even the longest seen fits with the guards in one period of
        # a single series, a launch must have been started clear until main.
        ticks_seen = lines[0]["ticks"]
        room = min(periods) - ticks_seen["after_ns"] - ticks_seen["guard_ns"]
        longest = max(x["main_ns"] for x in lines if x.get("variant") == "s" and x.get("main_ns"))
        if len(periods) == 1 and 1.25 * longest < room:
            assert any(x["dodged_until"] == "main" for x in stamped)
    # The note judges a launch started clear until main by its spawn->main.
    # A CPU found busy is left, and the interruptions learned again on the next (a placement line).
    moves = [x["placement"] for x in lines if "placement" in x]
    result = {"launch": {"descriptor": lines[0] | {"pinned": True}, "moves": moves},
              "cases": [{"name": "s", "samples": [protocol.parse_line(json.dumps(x)).sample(None) for x in stamped]}],
              "controls": []}
    to_main = sum(x["dodged_until"] == "main" for x in stamped)
    if to_main:
        assert f" ({to_main} until main only: they run on past the period)" in ticks.note(result)


def test_a_launch_started_clear_until_main_met_one_only_if_its_main_came_late():
    tick = [{"period_ns": 4 * MS, "hit": 25, "points": 25}]
    # Both exit long after the time they had; only the second reached main after it.
    samples = [{"main_ns": 600_000, "exit_ns": 7 * MS, "clear_ns": 900_000, "dodged": True, "dodged_until": "main"},
               {"main_ns": 950_000, "exit_ns": 7 * MS, "clear_ns": 900_000, "dodged": True, "dodged_until": "main"}]
    text = ticks.note(_result(True, tick, samples))
    assert "2 of 2 launches started clear of them (2 until main only" in text and "and 1 met one" in text
    assert "started at once" not in text.split("(--no-dodge")[0]
    # One that found no room soon enough started at once: counted apart, by its spawn->exit.
    late = {"main_ns": 600_000, "exit_ns": 7 * MS, "clear_ns": 900_000, "dodged": False, "dodged_until": None}
    text = ticks.note(_result(True, tick, samples + [late]))
    assert "2 of 3 launches started clear" in text and "and 1 met one all the same" in text
    assert "1 started at once (no room soon enough), 1 of them met one" in text
