"""The precision-driven protocol on synthetic samples: it stops early for tight cases, goes on for
wide ones, keeps each case's baseline running while the case runs (pairing), respects the
maximum of rounds and the budget; and the progress lines a pipe gets."""
from __future__ import annotations

import dataclasses
import io
import re
import time
from types import SimpleNamespace

import numpy as np
import pytest
from rich.console import Console

from layertax.engine.analysis import stats
from layertax.engine.measure.budget import MOST_MARGIN, RAISE_AT_MOST, Budget, needs, own_way_seconds, round_cases
from layertax.engine.measure.rounds import RoundPlan
from layertax.engine.measure.settings import Settings
from layertax.engine.measure.stopping import StoppingRule, at_checkpoint, half_widths, precision_reached, still_going
from layertax.errors import UsageError
from layertax.progress import LineProgress
from tests.conftest import probe_experiment


def _rounds(rng, n, median, spread):
    return {r: float(median * np.exp(rng.normal(0, spread))) for r in range(n)}


def test_a_tight_case_stops_and_a_wide_one_goes_on_with_its_baseline():
    rng = np.random.default_rng(1)
    drift = rng.normal(0, 0.05, 12)                    # the machine, shared by every case in a round
    base = {r: 100 * np.exp(d) for r, d in enumerate(drift)}
    tight = {r: 150 * np.exp(d + rng.normal(0, 0.002)) for r, d in enumerate(drift)}
    wide = {r: 150 * np.exp(d + rng.normal(0, 0.2)) for r, d in enumerate(drift)}
    cases = {"base": base, "tight": tight, "wide": wide}
    baselines = {"base": None, "tight": "base", "wide": "base"}
    rule = StoppingRule(precision=0.02, min_rounds=8, max_rounds=40)
    going = still_going(cases, baselines, rule, set())
    # The tight ratio is precise (the drift cancels in the pairing); the baseline's own median is
    # not (5% drift), but it must run anyway while the wide case runs.
    assert precision_reached(tight, base) < 0.02 < precision_reached(wide, base)
    assert going == {"wide", "base"}


def test_a_checkpoint_resumes_a_precise_stop_that_widened_and_keeps_other_stops():
    """The whole decision at a checkpoint (the scheduler's, and the coverage bench's): a case that
    stopped precise and is now wider than the target goes on, with its baseline; a tight case
    stops precise; a case the budget stopped stays stopped, however wide."""
    rng = np.random.default_rng(3)
    base = _rounds(rng, 12, 100, 0.001)
    tight = {r: 150 * v / 100 * np.exp(rng.normal(0, 0.002)) for r, v in base.items()}
    widened = {r: 150 * v / 100 * np.exp(rng.normal(0, 0.2)) for r, v in base.items()}
    budget = {r: 150 * v / 100 * np.exp(rng.normal(0, 0.2)) for r, v in base.items()}
    values = {"base": base, "tight": tight, "widened": widened, "budget": budget}
    baselines = {"base": None, "tight": "base", "widened": "base", "budget": "base"}
    rule = StoppingRule(precision=0.02, min_rounds=8, max_rounds=40)
    stopped, going = at_checkpoint(values, baselines, rule, {"widened": "precise", "budget": "budget"})
    assert stopped == {"tight": "precise", "budget": "budget"}
    assert going == {"widened", "base"}
    # Nothing left going: the baseline stops too, and a baseline's own median resumes nothing.
    stopped, going = at_checkpoint({"base": base, "tight": tight}, {"base": None, "tight": "base"}, rule,
                                   {"base": "precise", "tight": "precise"})
    assert stopped == {"base": "precise", "tight": "precise"} and going == set()


def test_the_rule_s_confidence_decides_the_stop():
    """A case stops when its interval at the rule's own level is within the target: a case whose
    interval at 97% is just wider than it and at 95% within it goes on under the kernels' rule and
    stops under a rule at 95%."""
    rng = np.random.default_rng(5)
    base = _rounds(rng, 40, 100, 0.001)
    for seed in range(50):
        noise = np.random.default_rng(seed).normal(0, 0.05, 40)
        case = {r: 150 * v / 100 * np.exp(e) for (r, v), e in zip(base.items(), noise)}
        strict, plain = precision_reached(case, base), precision_reached(case, base, 0.95)
        if plain < 0.02 < strict:
            break
    else:
        pytest.fail("no case between the two levels")
    values, baselines = {"base": base, "x": case}, {"base": None, "x": "base"}
    kernels, launches = StoppingRule(0.02, 8, 40), StoppingRule(0.02, 8, 40, confidence=0.95)
    assert at_checkpoint(values, baselines, kernels, {})[1] == {"base", "x"}
    assert at_checkpoint(values, baselines, launches, {}) == ({"base": "precise", "x": "precise"}, set())
    assert launches.to_dict()["confidence"] == 0.95


def test_every_case_precise_stops_everything():
    rng = np.random.default_rng(2)
    cases = {"base": _rounds(rng, 8, 100, 0.001), "x": _rounds(rng, 8, 130, 0.001)}
    assert still_going(cases, {"base": None, "x": "base"}, StoppingRule(0.02), set()) == set()


def test_precision_is_checked_only_at_fixed_points():
    rule = StoppingRule(0.02, min_rounds=8, max_rounds=40)
    checked = [n for n in range(1, 41) if rule.checkpoint(n)]
    assert checked == [8, 12, 16, 24, 32, 40]
    assert rule.to_dict()["checkpoints"] == [8, 12, 16, 24, 32, 40]


def _plan(samples_per_case, rule, deadline=None, clock=None):
    exp = probe_experiment()
    runs = []
    for case in exp.cases:
        runs.append(SimpleNamespace(case=case, active=True, samples=samples_per_case.get(case.name, [])))
    kwargs = {"clock": clock} if clock else {}
    return exp, runs, RoundPlan(exp, runs, rule, deadline, **kwargs)


def _add_round(runs, r, values):
    for run in runs:
        run.samples.append({"round": r, "iters": 1, "ops": 1, "ns": values[run.case.name]})


def test_the_plan_stops_precise_cases_at_a_checkpoint_and_records_why():
    exp, runs, plan = _plan({}, StoppingRule(0.02, min_rounds=6, max_rounds=24))
    rng = np.random.default_rng(3)
    noisy = [c.name for c in exp.cases if c.name != exp.baseline][0]
    for r in range(6):
        d = rng.normal(0, 0.01)
        _add_round(runs, r, {c.name: (300 if c.name == noisy else 100) * np.exp(d + (rng.normal(0, 0.3) if c.name == noisy else 0))
                             for c in exp.cases})
        plan.finished(r + 1, 0.1)
    assert plan.checked
    going = {r.case.name for r in runs if plan.going(r)}
    assert noisy in going and exp.baseline in going           # the noisy one and the baseline it needs
    assert all(plan.stopped[n] == "precise" for n in {c.name for c in exp.cases} - going)
    record = plan.record(interrupted=False)
    assert record["cases"][noisy]["met"] is False and record["cases"][noisy]["rounds"] == 6
    assert record["rule"]["precision"] == 0.02


def test_the_budget_stops_every_case_still_going_and_says_so():
    now = [0.0]
    exp, runs, plan = _plan({}, StoppingRule(0.02, min_rounds=3), deadline=10.0, clock=lambda: now[0])
    rng = np.random.default_rng(4)
    for r in range(2):
        _add_round(runs, r, {c.name: 100.0 * np.exp(rng.normal(0, 0.3)) for c in exp.cases})
        now[0] += 4.0
        plan.finished(r + 1, 4.0)
    assert not plan.out_of_time()          # past the deadline, but not yet at the minimum of rounds
    for r in range(2, 3):
        _add_round(runs, r, {c.name: 100.0 * np.exp(rng.normal(0, 0.3)) for c in exp.cases})
        now[0] += 4.0
        plan.finished(r + 1, 4.0)
    # 12 s used of a deadline at 10 s: another 4 s round does not fit.
    assert plan.out_of_time()
    assert set(plan.stopped.values()) == {"budget"}
    assert {c["stopped"] for c in plan.record(False)["cases"].values()} == {"budget"}


def _eight_rounds_under_a_deadline(deadline, spread, seed=7):
    """Eight rounds 5 s each; each case's need of rounds foretold from its interval alone (the
    forecast from the rounds' spread has its own test below), so that the widths the tests name
    are the ones the plan reads."""
    now = [0.0]
    exp, runs, plan = _plan({}, StoppingRule(0.02, min_rounds=8, max_rounds=40), deadline=deadline,
                            clock=lambda: now[0])
    plan.forecast = "interval"
    rng = np.random.default_rng(seed)
    for r in range(8):
        _add_round(runs, r, {name: 100.0 * np.exp(rng.normal(0, s)) for name, s in spread.items()})
        now[0] += 5.0
        plan.finished(r + 1, 5.0)                  # five processes, 1 s each
    assert plan.checked
    return runs, plan


def test_under_a_deadline_the_cases_cheapest_to_finish_go_on_and_the_dearest_give_way():
    # Base "count"; "wrong" at about +-4.1% after 8 rounds, so it needs about 26 more; "skip" and
    # "hang" far from +-2%; "crash" already precise. 60 s left at 1 s a process: alone with its
    # baseline "wrong" gets 30 rounds (it can finish); with all four still going, 15, which even
    # with REACH_SLACK is short of 26. The dearest ("skip") stops, said as out of reach; with
    # three going, 20 rounds fit within REACH_SLACK, so "hang" goes on.
    spread = {"count": 0.001, "wrong": 0.032, "skip": 0.3, "hang": 0.4, "crash": 0.001}
    runs, plan = _eight_rounds_under_a_deadline(100.0, spread)
    assert plan.stopped == {"crash": "precise", "skip": "out of reach"}
    assert {r.case.name for r in runs if plan.going(r)} == {"count", "wrong", "hang"}
    record = plan.record(interrupted=False)
    assert record["cases"]["skip"]["stopped"] == "out of reach" and record["cases"]["skip"]["met"] is False


def test_the_case_dearest_in_seconds_gives_way_not_the_one_needing_most_rounds():
    """What a round of a case costs is what its bursts took: "hang" needs the most rounds, but
    its bursts cost a hundredth of the others', so "skip", whose rounds to go cost the most
    seconds, gives way instead (60 s left; "wrong" needs about 26 more rounds)."""
    exp, runs, plan = _plan({}, StoppingRule(0.02, min_rounds=8, max_rounds=40), deadline=100.0,
                            clock=lambda: 40.0)
    widths = {"count": 0.001, "wrong": 0.041, "skip": 0.3, "hang": 0.4}
    values = {name: {r: 1.0 for r in range(8)} for name in widths}
    assert plan._out_of_reach(values, set(widths), widths, 1.0) == {"hang"}     # every burst alike
    for name in widths:
        for _ in range(8):
            plan.spent(name, 0.01 if name == "hang" else 1.0)
    assert plan._round_seconds({"wrong", "hang"}, 1.0) == pytest.approx(2.01)   # wrong, count, hang
    assert plan._out_of_reach(values, set(widths), widths, 1.0) == {"skip"}


def test_where_no_case_can_finish_none_gives_way():
    # Every ratio far from +-2%: stopping some would help none of the others, so all go on and
    # the rounds left narrow every interval.
    spread = {"count": 0.001, "wrong": 0.3, "skip": 0.3, "hang": 0.4, "crash": 0.3}
    runs, plan = _eight_rounds_under_a_deadline(60.0, spread)
    assert "out of reach" not in plan.stopped.values()


def test_cases_that_gave_way_go_on_again_where_they_are_all_that_is_left():
    # After 8 rounds (40 s of a 100 s deadline): "wrong" and "crash" are precise, and what is
    # left is "skip" and "hang", stopped out of reach for cases that are done now. They go on
    # again, with their baseline, rather than end the experiment with 60 s unspent.
    spread = {"count": 0.001, "wrong": 0.032, "skip": 0.3, "hang": 0.4, "crash": 0.001}
    runs, plan = _eight_rounds_under_a_deadline(100.0, spread)
    values = plan._round_values()
    done = {"crash": "precise", "wrong": "precise"}
    plan.stopped = {**done, "count": "precise", "skip": "out of reach", "hang": "out of reach"}
    plan._resume_if_idle(values, 1.0)
    assert plan.stopped == done
    # Not while a case still goes on ("wrong"), nor where a round of them does not fit the time
    # left (three processes at 30 s each, against 60 s).
    plan.stopped = {"crash": "precise", "skip": "out of reach", "hang": "out of reach"}
    plan._resume_if_idle(values, 1.0)
    assert plan.stopped == {"crash": "precise", "skip": "out of reach", "hang": "out of reach"}
    plan.stopped = {**done, "count": "precise", "skip": "out of reach", "hang": "out of reach"}
    plan._resume_if_idle(values, 30.0)
    assert plan.stopped["skip"] == plan.stopped["hang"] == "out of reach"
    # Nor after the experiment's last round: none follows, and they keep why they stopped.
    plan.rounds_done = plan.rule.max_rounds
    plan._resume_if_idle(values, 1.0)
    assert plan.stopped["skip"] == plan.stopped["hang"] == "out of reach"


def test_where_the_time_left_is_enough_for_all_none_gives_way():
    spread = {"count": 0.001, "wrong": 0.03, "skip": 0.3, "hang": 0.4, "crash": 0.001}
    runs, plan = _eight_rounds_under_a_deadline(1000.0, spread)
    assert "out of reach" not in plan.stopped.values()


def test_without_a_deadline_nothing_is_out_of_reach():
    exp, runs, plan = _plan({}, StoppingRule(0.02, min_rounds=8, max_rounds=40))
    rng = np.random.default_rng(7)
    for r in range(8):
        _add_round(runs, r, {c.name: 100.0 * np.exp(rng.normal(0, 0.3)) for c in exp.cases})
        plan.finished(r + 1, 5.0)
    assert "out of reach" not in plan.stopped.values()


def test_rounds_that_fit_are_guessed_from_the_warm_up_and_never_below_the_minimum_owed():
    now = [0.0]
    exp, runs, plan = _plan({}, StoppingRule(0.02, min_rounds=6, max_rounds=24), deadline=60.0,
                            clock=lambda: now[0])
    assert plan.rounds_that_fit() == 1 << 30       # nothing timed yet: no guess
    now[0] = 5.0
    plan.warmed_up(2.0, burst=3)                   # a measured round guessed at 6 s
    assert plan.rounds_that_fit() == 9             # 55 s left // 6 s
    assert not plan.out_of_time()                  # the guess never stops a case
    now[0] = 55.0
    assert plan.rounds_that_fit() == 6             # 0 fit, but the rule's 6 rounds are still owed
    _add_round(runs, 0, {c.name: 100.0 for c in exp.cases})
    plan.finished(1, 10.0)                         # the first real round replaces the guess
    assert plan.rounds_that_fit() == 5
    now[0] = 20.0
    assert plan.rounds_that_fit() == 5             # 40 s left // 10 s is 4; 5 still owed


def test_the_budget_is_shared_by_cases_and_what_is_left_goes_on():
    now = [0.0]
    a = probe_experiment()
    b = dataclasses.replace(a, name="other", cases=a.cases[:2])
    budget = Budget(100.0, [a, b], clock=lambda: now[0])
    first = budget.deadline_for(a)
    assert first == pytest.approx(100.0 * len(a.cases) / (len(a.cases) + len(b.cases)))
    now[0] = 10.0                                   # a finished early: b gets all that is left
    assert budget.deadline_for(b) == pytest.approx(10.0 + 90.0)
    assert Budget(None, [a]).deadline_for(a) is None


def test_the_time_an_experiment_measured_its_own_way_took_is_kept_for_it_until_it_has_run():
    """loadtime's launches are not shared out: what they took last time (40 s) is kept out of the
    shares of the experiments before it, and once it has run, what it left is the others'."""
    now = [0.0]
    a = probe_experiment()
    b = dataclasses.replace(a, name="other")
    budget = Budget(100.0, [a, b], clock=lambda: now[0], reserved={"loadtime": 40.0})
    assert budget.deadline_for(a) == pytest.approx(30.0)          # half of the 60 s not kept
    now[0] = 30.0
    budget.ran("loadtime")                                        # it took 20 s of its 40
    now[0] = 50.0
    assert budget.deadline_for(b) == pytest.approx(100.0)         # all that is left
    stops = {"loadtime": {"window_s": 41.5}, "callchain": {"window_s": 70.0}, "unicode-io": {}}
    assert own_way_seconds(stops, {"loadtime", "unicode-io"}) == {"loadtime": 41.5}


def test_an_experiment_that_needed_less_last_time_gets_that_and_the_rest_goes_to_the_others():
    """Left to the experiments after it, the time one does not need goes unused (they finish early
    too); given to the others from the start, the first ones get it."""
    now = [0.0]
    a = probe_experiment()
    b = dataclasses.replace(a, name="other")
    c = dataclasses.replace(a, name="third")
    budget = Budget(120.0, [a, b, c], clock=lambda: now[0], needs={"other": 8.0})
    assert budget.shares(120.0) == pytest.approx({"probe": 53.0, "other": 14.0, "third": 53.0})   # 8 s + 5%
    assert budget.deadline_for(a) == pytest.approx(53.0)
    # A need above its proportional share changes nothing; with --case, the needs (of all the
    # cases) are not used.
    assert Budget(120.0, [a, b], needs={"other": 100.0}).shares(120.0) == pytest.approx({"probe": 60.0, "other": 60.0})
    assert Budget(120.0, [a, b], ("count",), needs={"other": 8.0}).needs == {}


def test_a_cheap_experiment_is_given_its_limit_above_its_share():
    """Its cases are the cheapest to finish: by rounds' cost encoding got 5-7 s where it had
    finished in 11. Its limit (here what its maximum of 10 rounds can use, 1 s x 11 x 1.15) is
    given up to RAISE_AT_MOST of the budget and half of what is left; a larger one is given that
    much."""
    a = probe_experiment()
    b = dataclasses.replace(a, name="other")
    costs, most = {"probe": 30.0, "other": 1.0}, 11 * MOST_MARGIN
    budget = Budget(200.0, [a, b], round_costs=costs, max_rounds={"other": 10})
    assert 200.0 / 31 < most <= RAISE_AT_MOST * 200.0
    assert budget.shares(200.0) == pytest.approx({"probe": 200.0 - most, "other": most})
    assert budget.shares(150.0) == pytest.approx({"probe": 150.0 - most, "other": most})   # later in the run
    # A limit past that part of the budget, or past half of what is left, is given up to there.
    assert Budget(100.0, [a, b], round_costs=costs, max_rounds={"other": 10}).shares(100.0) == pytest.approx(
        {"probe": 90.0, "other": 10.0})
    assert budget.shares(20.0) == pytest.approx({"probe": 10.0, "other": 10.0})
    # Where its share by rounds' cost is more than that, it keeps its share.
    big = {"probe": 30.0, "other": 8.0}
    assert Budget(200.0, [a, b], round_costs=big, max_rounds={"other": 10}).shares(200.0) == pytest.approx(
        {"probe": 200 * 30 / 38, "other": 200 * 8 / 38})


def test_a_need_is_never_below_the_minimum_of_rounds_and_an_interrupted_run_has_none():
    a = probe_experiment()
    b = dataclasses.replace(a, name="other")
    # 8 s needed last time, but a round costs 2 s and no experiment is cut below 8 rounds and its
    # warm-up: 18 s, or it overruns its share into the experiments after it.
    budget = Budget(120.0, [a, b], round_costs={"other": 2.0}, needs={"other": 8.0}, min_rounds=8)
    assert budget.shares(120.0) == pytest.approx({"probe": 102.0, "other": 18.0})
    stop = {"allotted_s": 50.0, "rounds_s": 16.0}
    assert needs({"x": {**stop, "cases": {"a": {"stopped": "precise"}, "b": {"stopped": "max rounds"}}}}) == {"x": 16.0}
    for why in ("budget", "out of reach", "interrupted"):
        assert needs({"x": {**stop, "cases": {"a": {"stopped": "precise"}, "b": {"stopped": why}}}}) == {}


def test_an_experiment_is_never_given_more_than_its_maximum_of_rounds_can_use():
    a = probe_experiment()
    b = dataclasses.replace(a, name="other")
    # "other" stops at 10 rounds of 2 s whatever its share: its warm-up and ten rounds, with
    # MOST_MARGIN, is what it can use; the rest goes to "probe" from the start.
    budget = Budget(120.0, [a, b], round_costs={"probe": 2.0, "other": 2.0}, max_rounds={"probe": 80, "other": 10})
    most = 2.0 * 11 * MOST_MARGIN
    assert budget.shares(120.0) == pytest.approx({"probe": 120.0 - most, "other": most})
    # Without a known round cost there is no ceiling: a guess could starve it.
    assert Budget(120.0, [a, b], max_rounds={"other": 10}).shares(120.0) == pytest.approx({"probe": 60.0, "other": 60.0})


def test_the_least_a_run_measures_is_known_where_every_round_cost_is():
    """A --quick run's minimum of 6 rounds of every experiment can take longer than its minute:
    the budget knows that least from the saved round costs (warm-up and minimum rounds of each,
    and the time kept for the experiments measured their own way), and the run says it first."""
    a = probe_experiment()
    b = dataclasses.replace(a, name="other")
    budget = Budget(60.0, [a, b], round_costs={"probe": 4.0, "other": 2.0}, min_rounds=6, reserved={"launches": 10.0})
    assert budget.floor_s == pytest.approx(4.0 * 7 + 2.0 * 7 + 10.0)
    assert Budget(60.0, [a, b], round_costs={"probe": 4.0}, min_rounds=6).floor_s is None      # "other": a guess
    assert Budget(60.0, [a, b], round_costs={"probe": 4.0, "other": 2.0}).floor_s is None       # no minimum
    from layertax.engine import session

    assert session._over_budget(budget, 6) is None                  # 52 s of 60: within it, nothing said
    short = Budget(40.0, [a, b], round_costs={"probe": 4.0, "other": 2.0}, min_rounds=6, reserved={"launches": 10.0})
    assert session._over_budget(short, 6) == ("the budget: 6 rounds of every case, the fewest a run gives, took about "
                                              "0.9 min here in the last runs, more than the 0.7 min budget; this run "
                                              "measures at least that long")


def test_a_saved_round_cost_is_scaled_to_the_cases_run_and_a_need_is_kept_only_for_the_same_cases():
    a = probe_experiment()                                  # five cases
    b = dataclasses.replace(a, name="other")
    # Last time "other" ran ten cases in 4 s rounds (a family a bare run now leaves out was in it):
    # five now cost 2 s a round, and what it needed then says nothing of now.
    budget = Budget(120.0, [a, b], round_costs={"probe": 2.0, "other": 4.0}, needs={"other": 8.0},
                    round_cases={"other": 10})
    assert budget.weights == pytest.approx({"probe": 2.0, "other": 2.0}) and budget.needs == {}
    assert round_cases({"x": {"cases": {"a": {}, "b": {}}}, "y": {}}) == {"x": 2}


def test_time_left_when_every_experiment_has_its_need_goes_to_the_one_starting():
    """Last time each needed little; kept for the last experiment, the surplus would go unused
    while the first, at a noisier moment, ran out (a bare run stopped callchain's cases by the
    budget at 34 s of 240, then measured for 105 s more and ended with 100 s left). The others
    keep their needs with a margin, and what the first leaves is theirs when they start."""
    a = probe_experiment()
    b, c = dataclasses.replace(a, name="other"), dataclasses.replace(a, name="third")
    costs = {"probe": 2.0, "other": 0.25, "third": 2.5}
    needs = {"probe": 20.0, "other": 2.0, "third": 40.0}
    budget = Budget(200.0, [a, b, c], round_costs=costs, needs=needs, min_rounds=8,
                    max_rounds={"probe": 40, "other": 40, "third": 40})
    limits = {n: budget._limit(n) for n in costs}            # 32, 11.8 (its ceiling) and 60 s
    shares = budget.shares(200.0, first="probe")
    assert sum(shares.values()) == pytest.approx(200.0)
    # the one about to start takes the surplus, up to what its rounds can use (2 s x 41 x 1.15)
    assert shares["probe"] == pytest.approx(budget.most["probe"])
    assert shares["other"] == pytest.approx(limits["other"])        # at what its rounds can use
    assert shares["third"] == pytest.approx(200.0 - budget.most["probe"] - limits["other"])
    assert all(shares[n] <= budget.most[n] + 1e-9 for n in costs)  # none past it
    # with no one about to start, the surplus by the rounds' cost (2 : 2.5) below the ceilings
    even = budget.shares(200.0)
    assert (even["probe"] - limits["probe"]) / (even["third"] - limits["third"]) == pytest.approx(2 / 2.5)
    # past every ceiling, what is left is still given (the rounds may run slower than last time)
    assert sum(budget.shares(400.0, first="probe").values()) == pytest.approx(400.0)
    # the deadline of the one starting is its share
    assert budget.deadline_for(a) == pytest.approx(budget.started + budget.most["probe"])


def test_the_last_experiment_left_gets_all_that_is_left_even_past_its_ceiling():
    a = probe_experiment()
    # Its rounds may run slower than last time: a ceiling with no one else to take the rest
    # would leave the rest unused.
    budget = Budget(120.0, [a], round_costs={"probe": 2.0}, max_rounds={"probe": 10})
    assert budget.shares(100.0) == pytest.approx({"probe": 100.0})


def test_an_experiments_own_rounds_are_its_maximum_and_thorough_keeps_forty_where_they_are_more():
    """encoding's cases go on to 80 rounds under the precision rule (its rounds are cheap), scan's
    stop at 20; --thorough's fixed protocol is 40 rounds of every case, scan's fewer; --quick's
    maximum and a --runs given stand."""
    from layertax.experiments import get

    encoding, scan = get("encoding").defaults, get("scan").defaults
    default, thorough = Settings.from_options(pin=False), Settings.from_options(thorough=True, pin=False)
    assert default.for_experiment(encoding).stopping_rule().max_rounds == 80
    assert default.for_experiment(scan).stopping_rule().max_rounds == 20
    assert thorough.for_experiment(encoding).runs == 40 and thorough.for_experiment(scan).runs == 20
    assert thorough.for_experiment(encoding).burst == encoding["burst"]      # its other defaults stand
    assert Settings.from_options(quick=True, pin=False).for_experiment(encoding).stopping_rule().max_rounds == 24
    assert Settings.from_options(runs=90, pin=False).for_experiment(encoding).runs == 90


def test_settings_presets_and_their_contradictions():
    default = Settings.from_options(pin=False)
    assert default.precision == 0.02 and default.budget_s and default.stopping_rule().max_rounds == 56
    fixed = Settings.from_options(runs=7, pin=False)
    assert fixed.precision is None and fixed.budget_s is None and fixed.stopping_rule() is None and fixed.runs == 7
    thorough = Settings.from_options(thorough=True, pin=False)
    assert thorough.runs == 40 and thorough.stopping_rule() is None and thorough.budget_s is None
    quick = Settings.from_options(quick=True, pin=False)
    assert quick.precision == 0.05 and quick.budget_s <= 90
    assert Settings.from_options(budget=0, pin=False).budget_s is None
    for bad in ({"quick": True, "thorough": True}, {"runs": 5, "precision": 0.01}):
        with pytest.raises(UsageError):
            Settings.from_options(pin=False, **bad)


def test_progress_lines_on_a_pipe_never_leave_ten_seconds_of_silence():
    out = io.StringIO()
    now = [0.0]
    progress = LineProgress(Console(file=out, width=200, no_color=True), every_s=10.0, clock=lambda: now[0], quiet_s=0, beats=False)
    progress.start("callchain", 100)
    for i in range(100):
        now[0] += 0.5                                # 50 s of steps half a second apart
        progress.step(f"round {i}")
    progress.finish()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("layertax: callchain: 0/100 (0%) started")
    assert lines[-1].startswith("layertax: callchain: 100/100 (100%) done")
    assert 5 <= len(lines) <= 8                      # about one every 10 s, never a flood
    assert any("left]" in line for line in lines[1:-1])   # an ETA once there is a rate


def test_work_that_ends_within_a_second_prints_no_progress_line():
    """A cached build or one point of a calibration: no "started [0s]" and "done [0s]" pair. Work
    still going after quiet_s says it has started, from a timer (its first step may be long), and
    ends with "done"; Ctrl-C says where it stopped however soon."""
    out = io.StringIO()
    progress = LineProgress(Console(file=out, width=200, no_color=True), quiet_s=0.2)
    progress.start("loadtime build", 1)
    progress.step("build")
    progress.finish()
    time.sleep(0.3)                                  # the cancelled timer says nothing later either
    assert out.getvalue() == ""
    progress.start("scan: generating", 4)
    time.sleep(0.5)                                  # past quiet_s, no step yet
    assert out.getvalue().splitlines() == ["layertax: scan: generating: 0/4 (0%) started [0s]"]
    for _ in range(4):
        progress.step("block")
    progress.finish()
    assert out.getvalue().splitlines()[-1].startswith("layertax: scan: generating: 4/4 (100%) done [")
    out.truncate(0), out.seek(0)
    progress.start("scan: generating", 4)            # every step taken within quiet_s, the work not ended
    for _ in range(4):
        progress.step("block")
    time.sleep(0.5)
    progress.finish()
    assert [line.split(" [")[0] for line in out.getvalue().splitlines()] == [
        "layertax: scan: generating: 4/4 (100%) finishing", "layertax: scan: generating: 4/4 (100%) done"]
    out.truncate(0), out.seek(0)
    progress.start("tls", 10)
    progress.step("round 1")
    progress.finish(stopped=True)
    assert out.getvalue().splitlines() == ["layertax: tls: 1/10 (10%) stopped [0s]"]


def test_a_long_step_is_never_silent_longer_than_the_beat():
    """A build is one step that can take a minute: while no step comes, the line is said again
    each every_s, with the last step's description (none yet: "under way")."""
    out = io.StringIO()
    progress = LineProgress(Console(file=out, width=200, no_color=True), every_s=0.3, quiet_s=0.1)
    progress.start("loadtime build", 1)
    time.sleep(1.2)
    progress.finish()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("layertax: loadtime build: 0/1 (0%) started [")
    assert any(line.startswith("layertax: loadtime build: 0/1 (0%) under way [") for line in lines[1:-1]), lines
    assert lines[-1].startswith("layertax: loadtime build: 1/1 (100%) done [")
    time.sleep(0.4)
    assert len(out.getvalue().splitlines()) == len(lines)      # nothing after the work is done


def test_progress_lines_say_stopped_where_ctrl_c_stopped_the_work():
    out = io.StringIO()
    progress = LineProgress(Console(file=out, width=200, no_color=True), every_s=10.0, clock=lambda: 0.0, quiet_s=0, beats=False)
    progress.start("inspect", 277)
    for i in range(40):
        progress.step(f"round {i}")
    progress.finish(stopped=True)
    assert out.getvalue().splitlines()[-1] == "layertax: inspect: 40/277 (14%) stopped [0s]"   # and no ETA


def test_progress_lines_with_a_total_not_known_yet_show_no_share_and_no_eta():
    out = io.StringIO()
    now = [0.0]
    progress = LineProgress(Console(file=out, width=200, no_color=True), every_s=10.0, clock=lambda: now[0], quiet_s=0, beats=False)
    progress.start("encoding", None)                # a budgeted run before its warm-up is timed
    for i in range(3):
        now[0] += 6.0
        progress.step(f"warm-up {i}")
    progress.retotal(12)                            # the warm-up gave a guess
    now[0] += 6.0
    progress.step("round 1/40 a")
    progress.finish()
    lines = out.getvalue().splitlines()
    assert lines[0] == "layertax: encoding: 0/? started [0s]"
    assert lines[1] == "layertax: encoding: 2/? warm-up 1 [12s]"    # counted, no ETA
    assert lines[2] == "layertax: encoding: 4/12 (33%) round 1/40 a [24s, about 48s left]"
    assert lines[-1] == "layertax: encoding: 12/12 (100%) done [24s]"


def test_an_eta_never_goes_past_the_experiments_deadline():
    """A budgeted experiment ends by its share's deadline whatever the rate of its steps so far
    says (the cheap cases stop first, and a Java burst costs ten C ones): a run's line had read
    "about 55s left" eight seconds before its deadline."""
    out = io.StringIO()
    now = [0.0]
    progress = LineProgress(Console(file=out, width=200, no_color=True), every_s=10.0, clock=lambda: now[0], quiet_s=0, beats=False)
    progress.start("callchain", None)
    progress.deadline(60.0)
    progress.retotal(1000)
    for i in range(100):
        now[0] += 0.5                                # 100 steps in 50 s: 900 more would take 450 s
        progress.step(f"round {i}")
    lines = out.getvalue().splitlines()
    assert lines[-1].endswith("[50s, about 10s left]"), lines[-1]
    progress.finish()
    progress.start("tls", 100)                       # the next experiment's own: none until it says
    for i in range(30):
        now[0] += 0.5
        progress.step(f"round {i}")
    assert out.getvalue().splitlines()[-1].endswith("[10s, about 40s left]")   # 20 of 100 in 10 s


def test_the_bars_time_left_never_goes_past_the_deadline_either():
    from rich.progress import Task

    from layertax import progress as progress_module

    column = progress_module._TimeLeft()
    task = Task(0, "", total=100.0, completed=0.0, _get_time=time.monotonic, fields={"ends_by": time.monotonic() + 30})
    shown = column.render(task).plain                                # no rate yet: the deadline
    assert shown.startswith("0:00:") and 20 <= int(shown[-2:]) <= 30, shown
    assert progress_module._left(120.0, 100.0, 90.0) == 10.0
    assert progress_module._left(5.0, 100.0, 90.0) == 5.0
    assert progress_module._left(None, None, 0.0) is None and progress_module._left(7.0, None, 0.0) == 7.0
    # Past the deadline the rule's minimum of rounds goes on: the rate's estimate again, not "0s".
    assert progress_module._left(120.0, 100.0, 101.0) == 120.0 and progress_module._left(None, 100.0, 101.0) is None


def test_run_quick_prints_progress_lines_when_stderr_is_a_pipe(tmp_path):
    from tests.conftest import run_cli

    # The started line comes once the work has gone on for a second (LineProgress's quiet_s): four
    # rounds of two cases' bursts of samples of at least 0.1 s each are past it by construction (a
    # --quick run of c-rename alone can end within it on a quiet machine, and print no line).
    p = run_cli("run", "callchain", "--quick", "--case", "c-rename", "--runs", "4", "--min-time", "0.1", "--no-save",
                "--no-syscalls")
    assert p.returncode == 0, p.stderr
    lines = [line for line in p.stderr.splitlines() if line.startswith("layertax: callchain:")]
    assert lines, p.stderr
    assert re.search(r" started \[\ds[],]", lines[0]) and "done" in lines[-1]
    assert "c-rename" in p.stdout


def test_working_off_a_terminal_beats_with_the_step_under_way(monkeypatch, capsys):
    import time

    from layertax import console

    monkeypatch.setattr(console, "HEARTBEAT_S", 0.05)
    with console.working("building 3 kernels") as status:
        status.update("[2/9] GO callchain-rename-go\n")
        time.sleep(0.3)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "layertax: building 3 kernels"
    assert len(lines) >= 3 and all(line.startswith("layertax: building 3 kernels (") for line in lines[1:])
    assert lines[-1].endswith("; [2/9] GO callchain-rename-go)")


def test_a_progress_line_fits_its_window_by_shortening_only_the_step(monkeypatch, capsys):
    """A build's heartbeat at 60 columns and an experiment's progress at 72: the step under way (a
    ninja line, a case's name) is cut with an ellipsis, the count and the clock are kept whole."""
    import time

    from layertax import console

    monkeypatch.setenv("COLUMNS", "60")
    monkeypatch.setattr(console, "HEARTBEAT_S", 0.05)
    with console.working("building 36 kernels") as status:
        status.update("[83/85] JAVA unicode-io-unicode-java-with-a-very-long-name\x1b[31m")
        time.sleep(0.3)
    beats = capsys.readouterr().err.splitlines()[1:]
    assert beats and all(len(line) <= 60 for line in beats), beats
    assert re.fullmatch(r"layertax: building 36 kernels \(\d+ s; \[83/85\] JAVA unicode.*\.\.\.\)", beats[-1])

    out, now = io.StringIO(), [0.0]
    progress = LineProgress(Console(file=out, width=72, no_color=True), every_s=1.0, clock=lambda: now[0],
                            quiet_s=0, beats=False)
    progress.start("callchain", 10)
    for i in range(10):
        now[0] += 2.0
        progress.step(f"round {i + 1}/56 java-files-move-atomic-and-then-some")
    progress.finish()
    lines = out.getvalue().splitlines()
    assert len(lines) == 12 and all(len(line) <= 72 for line in lines), lines
    assert re.fullmatch(r"layertax: callchain: 5/10 \(50%\) round 5/56 java.*\.\.\. \[10s, about 10s left\]",
                        lines[5])
    assert lines[-1] == "layertax: callchain: 10/10 (100%) done [20s]"


def test_busy_off_a_terminal_is_silent_when_quick_and_speaks_when_slow(monkeypatch, capsys):
    import time

    from layertax import console

    with console.busy("comparing a.json with b.json"):
        pass
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(console, "QUIET_S", 0.05)
    monkeypatch.setattr(console, "HEARTBEAT_S", 0.05)
    with console.busy("writing report.html"):
        time.sleep(0.3)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) >= 2 and all(line.startswith("layertax: writing report.html (") for line in lines)


def test_the_cost_of_a_round_kept_for_the_next_budget_is_a_round_of_every_case():
    """Rounds get shorter as cases stop; the budget shares the next run by a round of all of
    them (round_s_full), or a share taken from the short ones would starve that experiment."""
    exp, runs, plan = _plan({}, StoppingRule(0.02, min_rounds=2, max_rounds=6))
    for r in range(4):
        _add_round(runs, r, {c.name: 100.0 for c in exp.cases})     # all exact: every case stops at 2
        plan.finished(r + 1, 10.0 if r < 2 else 1.0)
    record = plan.record(False)
    assert record["round_s_full"] == 10.0 and record["round_s_median"] == 5.5


def test_a_case_widened_after_its_stop_goes_on_again_with_its_baseline(monkeypatch):
    """The drift factor is pooled over every case's rounds, so the rounds after a case's stop can
    widen its interval past the target: at the next checkpoint it goes on again, and so does its
    baseline if it had stopped; a baseline's own median never resumes anything by itself."""
    from layertax.engine.measure import rounds as rounds_module

    widths = {8: {"count": 0.01, "wrong": 0.01, "skip": 0.05, "hang": 0.01, "crash": 0.01},
              12: {"count": 0.01, "wrong": 0.03, "skip": 0.01, "hang": 0.01, "crash": 0.01},
              16: {"count": 0.01, "wrong": 0.01, "skip": 0.01, "hang": 0.01, "crash": 0.01},
              24: {"count": 0.03, "wrong": 0.01, "skip": 0.01, "hang": 0.01, "crash": 0.01}}
    exp, runs, plan = _plan({}, StoppingRule(0.02, min_rounds=8, max_rounds=40))
    monkeypatch.setattr(rounds_module, "half_widths", lambda values, baselines, bases=None, confidence=None, factors=None: widths[plan.rounds_done])
    for r in range(8):
        _add_round(runs, r, {c.name: 100.0 for c in exp.cases})
        plan.finished(r + 1, 0.1)
    assert {r.case.name for r in runs if plan.going(r)} == {"skip", "count"}    # skip with its baseline
    for r in range(8, 12):
        _add_round([x for x in runs if plan.going(x)], r, {c.name: 100.0 for c in exp.cases})
        plan.finished(r + 1, 0.1)
    # skip is precise now and stops; wrong, stopped at 8, is wider than the target now: it goes
    # on again, and its baseline with it.
    assert {r.case.name for r in runs if plan.going(r)} == {"wrong", "count"}
    assert plan.stopped["skip"] == "precise" and "wrong" not in plan.stopped
    for r in range(12, 16):
        _add_round([x for x in runs if plan.going(x)], r, {c.name: 100.0 for c in exp.cases})
        plan.finished(r + 1, 0.1)
    assert {r.case.name for r in runs if plan.going(r)} == set()
    # A baseline whose own median is wider than the target at a later look resumes nothing.
    for r in range(16, 24):
        plan.finished(r + 1, 0.1)
    assert {r.case.name for r in runs if plan.going(r)} == set() and plan.stopped["count"] == "precise"
    record = plan.record(interrupted=False)
    assert record["cases"]["wrong"]["rounds"] == 12 and record["cases"]["skip"]["rounds"] == 12


def test_a_classic_counterpart_wider_than_five_percent_never_gives_way():
    """The same rounds as above, with "skip" set beside the classic's figure: it is the
    experiment's answer, so it goes on (at +-30% it is far from +-5%) and the next dearest,
    "hang", gives way instead; once within CLASSIC_PRECISION a counterpart is one case among
    the others."""
    from layertax.experiment import ClassicFigure

    spread = {"count": 0.001, "wrong": 0.032, "skip": 0.3, "hang": 0.4, "crash": 0.001}
    now = [0.0]
    exp = probe_experiment()
    exp = dataclasses.replace(exp, classic=dataclasses.replace(
        exp.classic, figures=(*exp.classic.figures, ClassicFigure("answer", 3.0, "skip", "the layer asked about"))))
    runs = [SimpleNamespace(case=case, active=True, samples=[]) for case in exp.cases]
    plan = RoundPlan(exp, runs, StoppingRule(0.02, min_rounds=8, max_rounds=40), 100.0, clock=lambda: now[0])
    plan.forecast = "interval"                    # as _eight_rounds_under_a_deadline
    rng = np.random.default_rng(7)
    for r in range(8):
        _add_round(runs, r, {name: 100.0 * np.exp(rng.normal(0, s)) for name, s in spread.items()})
        now[0] += 5.0
        plan.finished(r + 1, 5.0)
    assert plan.counterparts == {"skip"}          # "count", the baseline, is not one to protect
    # Nor the case beside the classic's own baseline figure, where that is not the experiment's
    # baseline (tls: rand beside "one TlsGetValue", compared with xorshift): its row is 1.00x.
    from layertax import experiments
    tls = experiments.registry()["tls"]
    tls_runs = [SimpleNamespace(case=case, active=True, samples=[]) for case in tls.cases]
    assert RoundPlan(tls, tls_runs, StoppingRule(0.02), 100.0).counterparts == set()
    assert plan.stopped == {"crash": "precise", "hang": "out of reach"}
    assert {r.case.name for r in runs if plan.going(r)} == {"count", "wrong", "skip"}
    # Just outside +-5% it is held back and "hang" gives way; just inside, it is one case among
    # the others and gives way as the dearest (60 s left at 1 s a process, as above).
    values = {name: {r: 1.0 for r in range(8)} for name in ("count", "wrong", "skip", "hang")}
    widths = {"count": 0.001, "wrong": 0.041, "skip": 0.051, "hang": 0.048}
    assert plan._out_of_reach(values, set(widths), widths, 1.0) == {"hang"}
    widths["skip"] = 0.0499
    assert plan._out_of_reach(values, set(widths), widths, 1.0) == {"skip"}
    # Where no case can reach +-2%, a counterpart that can reach +-5% is one that can finish: the
    # dearest cases give way until it fits ("hang", then "wrong"; three processes then give 20
    # rounds, 30 with REACH_SLACK, for the 24 it needs from +-10% at 8 rounds).
    widths = {"count": 0.001, "wrong": 0.3, "skip": 0.1, "hang": 0.4, "crash": 0.25}
    values = {name: {r: 1.0 for r in range(8)} for name in widths}
    assert plan._out_of_reach(values, set(widths), widths, 1.0) == {"hang", "wrong"}
    # A counterpart too far even from +-5% (at +-30% it needs 280 more rounds): nothing can finish,
    # and none gives way.
    widths["skip"] = 0.3
    assert plan._out_of_reach(values, set(widths), widths, 1.0) == set()


def _eight_rounds_with_a_wild_one(forecast: str):
    """Eight rounds 5 s each under an 80 s deadline: "wrong" spreads 3.2% about its baseline but
    one of its rounds ran 60% slow; "skip" and "hang" are far from +-2%, "crash" is precise."""
    now = [0.0]
    exp, runs, plan = _plan({}, StoppingRule(0.02, min_rounds=8, max_rounds=40), deadline=80.0,
                            clock=lambda: now[0])
    plan.forecast = forecast
    spread = {"count": 0.001, "wrong": 0.032, "skip": 0.3, "hang": 0.4, "crash": 0.001}
    rng = np.random.default_rng(5)
    for r in range(8):
        values = {name: 100.0 * np.exp(rng.normal(0, s)) for name, s in spread.items()}
        values["wrong"] *= 1.6 if r == 3 else 1.0
        _add_round(runs, r, values)
        now[0] += 5.0
        plan.finished(r + 1, 5.0)
    return runs, plan


def test_one_wild_round_among_eight_does_not_put_a_case_out_of_reach_when_the_forecast_reads_the_spread():
    """At 8 rounds a 97% interval stands on the extreme rounds: one round 60% slow makes "wrong"
    look far from +-2% and none can finish, so none gives way. Foretold from the spread of its
    rounds (RoundPlan._foreseen_widths) it needs about 16 more rounds, as without the wild one:
    it can finish, but not in the 10 rounds of all four the 40 s left give (15 with the
    leniency), and the dearest of the two far from it gives way for it."""
    runs, by_interval = _eight_rounds_with_a_wild_one("interval")
    values = by_interval._round_values()
    bases = by_interval._paired_bases(values)
    factors = stats.ratio_factors(values, by_interval.baselines, bases)
    widths = half_widths(values, by_interval.baselines, bases, factors=factors)
    foreseen = by_interval._foreseen_widths(values, bases, factors, widths)
    assert widths["wrong"] > 0.10 and 0.02 < foreseen["wrong"] < 0.06
    assert foreseen["count"] == widths["count"]                # a baseline keeps its own width
    assert all(foreseen[n] <= widths[n] for n in widths if widths[n] is not None)
    assert "out of reach" not in by_interval.stopped.values()
    runs, by_spread = _eight_rounds_with_a_wild_one("spread")
    gave_way = {name for name, why in by_spread.stopped.items() if why == "out of reach"}
    assert by_spread.stopped["crash"] == "precise" and len(gave_way) == 1 and gave_way < {"skip", "hang"}
    assert {r.case.name for r in runs if by_spread.going(r)} == {"count", "wrong", "skip", "hang"} - gave_way
