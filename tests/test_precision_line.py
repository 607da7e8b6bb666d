"""The precision line under each table: how many cases met the target, in how many rounds, and
for those that did not, the worst and why, in words that read as a sentence for every reason a
case can stop (the budget, a forecast, the maximum of rounds, an interruption, or a stop within
the target that the drift of later rounds widened)."""
from __future__ import annotations

from layertax import units
from layertax.report import format as fmt

RULE = {"precision": 0.02, "min_rounds": 8, "max_rounds": 40, "checkpoints": [8, 12, 16, 24, 32, 40]}


def _exp(cases: dict) -> dict:
    return {"stopping": {"rule": RULE, "cases": cases}}


def _case(rounds: int, precision: float, stopped: str) -> dict:
    return {"rounds": rounds, "precision": precision, "met": precision <= 0.02, "stopped": stopped}


def test_every_case_met_says_so_with_the_checkpoints_reached():
    line = fmt.stopping_line(_exp({"a": _case(8, 0.01, "precise"), "b": _case(16, 0.015, "precise")}))
    assert line == "precision: 2 of 2 cases within ±2% (8-16 rounds, checked after 8, 12, 16)"


def test_cases_that_all_ran_the_same_rounds_say_it_once():
    line = fmt.stopping_line(_exp({"a": _case(14, 0.03, "budget"), "b": _case(14, 0.01, "precise")}))
    assert line.startswith("precision: 1 of 2 cases within ±2% (14 rounds each, checked after 8, 12); ")


def test_a_miss_names_the_worst_and_why_in_words():
    line = fmt.stopping_line(_exp({"a": _case(40, 0.031, "max rounds"), "b": _case(24, 0.045, "budget"),
                                   "c": _case(8, 0.01, "precise")}))
    assert line.endswith("; not met by 2 (worst: b ±4.5%), stopped at the maximum of rounds or by the budget")
    assert "precision: 1 of 3 cases" in line


def test_a_case_widened_after_it_stopped_within_the_target_is_not_said_to_be_stopped_by_precise():
    line = fmt.stopping_line(_exp({"a": _case(8, 0.03, "precise"), "b": _case(40, 0.01, "precise")}))
    assert line.endswith("; not met by 1 (a ±3.0%), widened after stopping within it, by the drift the later "
                         "rounds showed")
    assert "stopped by precise" not in line


def test_every_reason_reads_as_words():
    for why in ("budget", "out of reach", "max rounds", "interrupted", "precise", "something new"):
        line = fmt.stopping_line(_exp({"a": _case(8, 0.05, why)}))
        assert "by precise" not in line and "by out of" not in line and line.count("(") == line.count(")")


def test_without_verbose_the_checkpoints_are_left_out():
    cases = {"a": _case(14, 0.03, "budget"), "b": _case(14, 0.01, "precise")}
    assert fmt.stopping_line(_exp(cases), verbose=False).startswith("precision: 1 of 2 cases within ±2% "
                                                                    "(14 rounds each); not met by 1")
    assert "checked after 8, 12" in fmt.stopping_line(_exp(cases))
    early = {"a": _case(6, 0.03, "interrupted")}
    assert "no checkpoint reached" in fmt.stopping_line(_exp(early), verbose=False)


def test_a_case_that_missed_by_a_hair_never_reads_as_the_target():
    """0.0201 missed ±2%: written with one decimal it would read ±2.0%, the target itself, beside a
    count that says it missed. A missed half-width is rounded up."""
    line = fmt.stopping_line(_exp({"a": _case(40, 0.0201, "max rounds"), "b": _case(8, 0.01, "precise")}))
    assert "(a ±2.1%)" in line
    assert units.half_width(0.0201) == "±2.1%" and units.half_width(0.045) == "±4.5%"
    assert units.half_width(0.02) == "±2.0%" and units.half_width(0.0449999) == "±4.5%"
