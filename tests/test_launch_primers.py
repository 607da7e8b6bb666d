"""The timer's primers: a timed launch that follows another target's comes after
PRIMERS untimed launches of its own target (native/launch.c says why). Each test target
appends its tag to a log, so the log holds every launch the timer made, in order, and the
timer's lines say which of them were timed."""
from __future__ import annotations

import json
import subprocess

import pytest

from layertax.launch import timer

from layertax.launch import settings as launch_settings
from tests.conftest import TESTS, build_test_program, run_cli


@pytest.fixture(scope="module")
def launch_log(cache_root):
    return build_test_program(cache_root, "launch-log", (TESTS / "kernels" / "launch_log.c",))


def _run(tools, tmp_path, targets: list[launch_settings.Target], *extra: str) -> list[dict]:
    """The timer's lines (descriptor first) for targets, 5 rounds after 1 warm-up (its
    "warmed" line and its last, "descendants", left out)."""
    spec, out = tmp_path / "spec", tmp_path / "lines.jsonl"
    timer.write_spec(targets, spec)
    p = subprocess.run([str(tools.timer), "--spec", str(spec), "--runs", "5", "--warmup", "1", "--seed", "7",
                        "--out", str(out), *extra], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return [x for x in map(json.loads, out.read_text().splitlines()) if "warmed" not in x and "descendants" not in x]


def _target(launch_log, log, tag: str, status: int = 0, ignore_status: bool = False) -> launch_settings.Target:
    return launch_settings.Target(tag, (str(launch_log), str(log), tag, str(status)), ignore_status=ignore_status)


def _expected_log(timed: list[str], primers: int) -> str:
    """Every launch the timer should have made, given the timed ones in order."""
    log, last = "", None
    for tag in timed:
        if tag != last:
            log += tag * primers
        log += tag
        last = tag
    return log


@pytest.mark.parametrize("primers", [0, 1, 2, 3])
def test_each_switch_of_target_is_primed_by_untimed_launches_of_the_next(tools, tmp_path, launch_log, primers):
    log = tmp_path / "log"
    lines = _run(tools, tmp_path, [_target(launch_log, log, "a"), _target(launch_log, log, "b")],
                 "--primers", str(primers))
    assert lines[0]["primers"] == primers
    timed = [x["variant"] for x in lines[1:]]
    assert sorted(timed) == ["a"] * 6 + ["b"] * 6 and all(x["status"] == "ok" for x in lines[1:])
    assert log.read_text() == _expected_log(timed, primers)


def test_one_target_alone_is_never_primed_but_once_at_the_start(tools, tmp_path, launch_log):
    """Every launch of a lone target follows its own: only the run's first is primed."""
    log = tmp_path / "log"
    lines = _run(tools, tmp_path, [_target(launch_log, log, "a")], "--primers", "2")
    assert len(lines) == 7 and log.read_text() == "a" * 8


def test_the_default_is_two_primers_and_layertax_asks_for_its_own(tools, tmp_path, launch_log):
    """The count is written in three places (launch_settings.PRIMERS, the timer's default, `launch
    --help`); they must agree."""
    log = tmp_path / "log"
    assert launch_settings.PRIMERS == 2
    assert _run(tools, tmp_path, [_target(launch_log, log, "a")])[0]["primers"] == launch_settings.PRIMERS
    assert "follows two untimed ones" in " ".join(run_cli("launch", "--help").stdout.split())
    run = timer.run([_target(launch_log, log, "a"), _target(launch_log, log, "b")],
                     launch_settings.LaunchSettings(runs=3, warmup=0), tools)
    assert run.descriptor["primers"] == launch_settings.PRIMERS
    assert f"primed by {launch_settings.PRIMERS} untimed launches" in launch_settings.LaunchSettings().method("command")["method"]


def test_a_primer_that_fails_is_reported_once_and_its_target_not_launched_again(tools, tmp_path, launch_log):
    log = tmp_path / "log"
    lines = _run(tools, tmp_path, [_target(launch_log, log, "a"), _target(launch_log, log, "f", status=3)],
                 "--primers", "2")
    failed = [x for x in lines[1:] if x["variant"] == "f"]
    assert len(failed) == 1 and failed[0]["status"] == "exit status 3" and "exit_ns" not in failed[0]
    assert log.read_text().count("f") == 1      # its first primer, and nothing after it
    assert [x["variant"] for x in lines[1:] if "exit_ns" in x] == ["a"] * 6


def test_a_primer_whose_status_is_ignored_does_not_stop_its_target(tools, tmp_path, launch_log):
    log = tmp_path / "log"
    lines = _run(tools, tmp_path, [_target(launch_log, log, "a"),
                                   _target(launch_log, log, "f", status=3, ignore_status=True)], "--primers", "1")
    timed = [x["variant"] for x in lines[1:]]
    assert sorted(timed) == ["a"] * 6 + ["f"] * 6
    assert log.read_text() == _expected_log(timed, 1)
