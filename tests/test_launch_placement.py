"""The launch timer's move off a CPU it finds shared with a busy task (native/placement.c),
driven with synthetic run-queue waits: nothing here is timed. The waits the real timer
records are checked for their structure in test_launch_timer.py."""
from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest

import layertax
from layertax.engine.builder import ninja
from layertax.engine.processes import ParentAwayFrom
from layertax.launch import contention
from tests.conftest import TESTS, build_test_program

NATIVE = Path(layertax.__file__).parent / "launch" / "native"
MS, US = 1_000_000, 1_000
ALLOWED = sorted(os.sched_getaffinity(0))
LAST, FIRST = ALLOWED[-1], ALLOWED[0]
two_cpus = pytest.mark.skipif(len(ALLOWED) < 2, reason="needs two CPUs to move between")


@pytest.fixture(scope="module")
def driver(cache_root) -> Path:
    return build_test_program(cache_root, "placement_check",
                              (TESTS / "kernels" / "placement_check.c", NATIVE / "placement.c", *ninja.COMMON_SOURCES),
                              (NATIVE,))


def drive(driver: Path, cpu: int, launches: list[tuple[int, int]]) -> tuple[str, list[str], list[str]]:
    """The pin line, then per launch what the rule did ("stay" / "moved A B") and the CPUs after."""
    p = subprocess.run([str(driver), str(cpu)], input="".join(f"{w} {e}\n" for w, e in launches),
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    return lines[0], lines[1::2], lines[2::2]


def quiet(n: int) -> list[tuple[int, int]]:
    return [(5 * US, 600 * US)] * n


def test_a_quiet_cpu_keeps_the_timer_where_it_was_pinned(driver):
    pinned, actions, cpus = drive(driver, LAST, quiet(40))
    assert pinned == f"pinned true (cpu {LAST})"
    assert set(actions) == {"stay"} and set(cpus) == {f"cpus {LAST}"}


def test_two_waits_in_any_ten_launches_are_not_contention(driver):
    launches = [(2 * MS, 600 * US) if i % 5 == 0 else (5 * US, 600 * US) for i in range(40)]
    _, actions, _ = drive(driver, LAST, launches)
    assert set(actions) == {"stay"}


@two_cpus
def test_a_third_wait_within_ten_launches_moves_to_the_next_cpu(driver):
    launches = quiet(3) + [(2 * MS, 600 * US), *quiet(3), (2 * MS, 600 * US), *quiet(2), (2 * MS, 600 * US)]
    _, actions, cpus = drive(driver, LAST, launches + quiet(5))
    moved_at = len(launches) - 1
    assert actions[:moved_at] == ["stay"] * moved_at
    assert actions[moved_at] == f"moved {LAST} {FIRST}"     # the next allowed CPU, wrapping round
    assert cpus[moved_at:] == [f"cpus {FIRST}"] * 6 and set(actions[moved_at + 1:]) == {"stay"}


def test_contention_on_every_cpu_unpins_the_timer(driver):
    """Each move starts a fresh window; after as many moves as CPUs it lets the scheduler choose."""
    _, actions, cpus = drive(driver, LAST, [(3 * MS, 600 * US)] * (3 * len(ALLOWED) + 5))
    moves = [a for a in actions if a != "stay"]
    assert len(moves) == len(ALLOWED) and moves[-1].endswith(" -1")
    assert [int(m.split()[1]) for m in moves] == [LAST, *ALLOWED[:-1]]
    assert cpus[-1] == "cpus " + ",".join(map(str, ALLOWED))
    assert actions.index(moves[0]) == 2          # the third waited launch of the first window
    assert set(actions[actions.index(moves[-1]) + 1:]) == {"stay"}   # unpinned: never moves again


def test_a_wait_counts_only_over_250_us_and_a_tenth_of_its_launch(driver):
    long_launches = [(300 * US, 10 * MS)] * 12                         # 3% of a 10-ms launch
    assert set(drive(driver, LAST, long_launches)[1]) == {"stay"}
    at_the_floor = [(250 * US, 600 * US)] * 12                         # not over 250 µs
    assert set(drive(driver, LAST, at_the_floor)[1]) == {"stay"}
    _, actions, _ = drive(driver, LAST, [(300 * US, 600 * US)] * 3)    # half of a 0.6-ms launch
    assert actions[:2] == ["stay", "stay"] and actions[2].startswith(f"moved {LAST} ")


def test_an_unknown_wait_or_an_unpinned_timer_never_moves(driver):
    assert set(drive(driver, LAST, [(-1, 600 * US)] * 20)[1]) == {"stay"}     # no /proc/PID/schedstat
    pinned, actions, _ = drive(driver, -1, [(3 * MS, 600 * US)] * 20)
    assert pinned == "pinned false (not requested)" and set(actions) == {"stay"}


def _launch(wait_us: float | None, exit_us: float) -> dict:
    return {"exit_ns": exit_us * US, "runq_wait_ns": None if wait_us is None else wait_us * US}


def test_the_notes_name_each_move_and_count_the_launches_that_waited():
    result = {"launch": {"descriptor": {"placement": {"min_wait_ns": 250 * US, "window": 10, "contended": 3}},
                         "moves": [{"round": 1, "from": 1, "to": 0, "waited": 3, "of": 10},
                                   {"round": 40, "from": 0, "to": -1, "waited": 3, "of": 10}]},
              "cases": [{"samples": [_launch(5, 600), _launch(2000, 2600), _launch(300, 600), _launch(None, 600)]}],
              "controls": [{"samples": [_launch(300, 10_000), _launch(3000, 3600)]}]}
    notes = contention.notes(result)
    assert notes[0] == "cpu 1 was shared with a busy task (3 of 10 launches waited for it): the timer moved to cpu 0 in round 2"
    assert notes[1].startswith("cpu 0 was shared") and "no CPU in particular" in notes[1] and "round 41" in notes[1]
    # 2000, 300 (of 600) and 3000 µs count; 5 µs, an unknown wait and 300 µs of a 10-ms launch do not.
    assert notes[2].startswith("3 of 6 launches waited for a CPU (median 2.00 ms,")


def test_no_move_and_no_wait_make_no_note():
    assert contention.notes({"launch": {"moves": []}, "cases": [{"samples": [_launch(5, 600)]}]}) == []
    assert contention.notes({"cases": []}) == []      # results saved before the timer kept waits


def test_the_parent_keeps_every_thread_of_its_own_off_the_measured_cpu_and_puts_them_back():
    """sched_setaffinity(0) moves the calling thread only; a library's worker thread must
    move too (numpy's OpenBLAS had one spinning for 0.1 s beside the timer)."""
    allowed = os.sched_getaffinity(0)
    if len(allowed) < 2:
        pytest.skip("one CPU: nowhere else to keep the parent")
    cpu = max(allowed)
    ready, done = threading.Event(), threading.Event()
    worker = threading.Thread(target=lambda: (ready.set(), done.wait(30)))
    worker.start()
    ready.wait(10)
    try:
        with ParentAwayFrom(cpu) as away:
            assert cpu not in os.sched_getaffinity(0) and cpu not in os.sched_getaffinity(worker.native_id)
            assert away.moved
        assert os.sched_getaffinity(0) == allowed and os.sched_getaffinity(worker.native_id) == allowed
    finally:
        done.set()
        worker.join()
