"""What the experiments write reads back. tests/result_fuzz.py fuzzes what layertax reads; here
the writers are fuzzed: each recorded experiment's rounds are reshaped into what a run can meet
(two levels, a slow tail, ties, a round or two, a case that failed), analysed as a run analyses
them, given its tables as a run gives them, and the document checked as it would be written.
A run once saved a figure its own readers refused (a two-level ratio in a table)."""
from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rich.console import Console

from layertax.engine.analysis import analyze
from layertax.engine.store import results
from layertax.experiments import registry
from layertax.experiments.loadtime.split import stage_split
from layertax.experiments.loadtime.tables import loader_table, split_table, views_table
from layertax.report import terminal

RECORDED = Path(__file__).parent / "data" / "recorded"
# The experiments whose statistics and tables a run builds from their rounds: through the
# generic hook (scheduler), and loadtime's in its own measure.
HOOKED = ("callchain", "encoding", "loadtime", "scan", "tls")

# What a case's rounds can look like in a run.
SHAPES = ("as recorded", "two levels", "slow tail", "all equal", "two rounds", "one round", "failed")


def _recorded(name: str) -> dict:
    return results.load(RECORDED / f"{name}.json")


def _samples(case: dict, shape: str, rounds: int, upper: float, share: float, seed: int,
             launches: bool) -> list[dict]:
    """A round's samples (a burst of three; a launch) about the case's recorded median (the
    recorded results keep statistics, not samples), in the given shape."""
    if shape == "failed":
        return []
    rng = random.Random(seed)
    ns_per_op = (case.get("stats") or {}).get("median") or 100.0
    rounds = {"two rounds": 2, "one round": 1}.get(shape, rounds)
    lifted = set(range(max(1, round(share * rounds))))
    out = []
    for r in range(rounds):
        factor = upper if shape == "two levels" and r in lifted else 1.0
        factor *= 3 * upper if shape == "slow tail" and r == 0 else 1.0
        for _ in range(1 if launches else 3):
            noise = 1.0 if shape == "all equal" else rng.lognormvariate(0, 0.02)
            ns = ns_per_op * factor * noise
            out.append({"round": r, "main_ns": ns, "exit_ns": ns * 1.1, "exit_status": 0, "minflt": 50} if launches
                       else {"round": r, "iters": 1000, "ops": 1000, "ns": ns * 1000})
    return out


def _written(exp: dict, shapes: list[str], rounds: int, upper: float, share: float) -> dict:
    """The experiment's cases given rounds in turn (its baselines one level, so that a case's
    ratio takes its shape), analysed and given its tables as a run does (the scheduler)."""
    baselines = {analyze.baseline_of(exp, c) for c in exp["cases"]}
    cases = []
    for i, case in enumerate(exp["cases"]):
        shape = "as recorded" if case["name"] in baselines else shapes[i % len(shapes)]
        samples = _samples(case, shape, rounds, upper, share, seed=i, launches=exp.get("metric") == "main_ns")
        raw = {k: v for k, v in case.items() if k not in ("stats", "samples")}
        cases.append({**raw, "samples": samples} if samples else
                     {**raw, "status": "failed", "reason": "the kernel exited with status 1", "samples": []})
    result = analyze.analyzed({**exp, "cases": cases})
    if exp["name"] == "loadtime":       # its own measure builds these (loadtime/measure.py)
        result["split"] = stage_split(result)
        result["tables"] = [{**loader_table(result), "detail": True}, {**views_table(result), "detail": True},
                            {**split_table(result), "detail": True}]
        return result
    hook = registry()[exp["name"]].hook("tables")
    if hook is not None:
        result["tables"] = hook(result)
    return result


@pytest.mark.parametrize("name", HOOKED)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shapes=st.lists(st.sampled_from(SHAPES), min_size=1, max_size=6), rounds=st.integers(1, 40),
       upper=st.floats(1.05, 2.5), share=st.floats(0.2, 0.8))
def test_what_an_experiment_writes_from_any_rounds_reads_back(name, shapes, rounds, upper, share):
    doc = _recorded(name)
    exp = _written(doc["experiments"][0], shapes, rounds, upper, share)
    written = {**doc, "experiments": [exp]}
    assert results.defect(written) is None, (shapes, results.defect(written))


@pytest.mark.parametrize("name", HOOKED)
def test_two_levels_reach_the_tables_and_read_back(name):
    """Every ratio of the experiment at two clean levels, so the mark is set where a table keeps a
    ratio whole: the cell it writes must still be one its readers take."""
    doc = _recorded(name)
    exp = _written(doc["experiments"][0], ["two levels"], 20, 1.6, 0.5)
    marked = [c["name"] for c in exp["cases"] if ((c.get("stats") or {}).get("ratio") or {}).get("two_levels")]
    assert marked, f"{name}: no ratio marked at two levels"
    written = {**doc, "experiments": [exp]}
    assert results.defect(written) is None
    out = io.StringIO()
    terminal.render(json.loads(results.dumps(written)), Console(file=out, width=80, no_color=True), verbose=True)
    assert marked[0] in out.getvalue()
