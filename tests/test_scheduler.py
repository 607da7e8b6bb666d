"""The scheduler on a synthetic experiment: interleaving, failures, timeouts, clean-up."""
import os

from conftest import probe_experiment

from layertax.engine.builder import kernels
from layertax.engine.measure.scheduler import Scheduler, select_cases
from layertax.engine.measure.settings import Settings


def _prepared(exp, cache_root):
    prepared = kernels.prepare([exp], cache_root / "layertax")
    return {k.name: prepared[(exp.name, k.name)] for k in exp.kernels}


def test_runs_cases_in_rounds_and_isolates_bad_ones(cache_root, isolated_dirs):
    exp = probe_experiment()
    settings = Settings(runs=4, warmup=1, burst=2, min_sample_ns=200_000, timeout=2.0, seed=42, cpu=None)
    result, interrupted = Scheduler(settings).run_experiment(exp, _prepared(exp, cache_root))
    assert not interrupted
    cases = {c["name"]: c for c in result["cases"]}
    count = cases["count"]
    assert count["status"] == "ok"
    assert sorted({s["round"] for s in count["samples"]}) == [0, 1, 2, 3]
    assert len(count["samples"]) == 8 and len({s["iters"] for s in count["samples"]}) == 1
    assert count["stats"]["n"] == 8 and count["stats"]["ratio"]["median"] == 1.0
    assert cases["wrong"]["status"] == "failed" and "wrong result" in cases["wrong"]["reason"]
    assert cases["skip"]["status"] == "skipped" and cases["skip"]["reason"] == "feature X is not available here"
    assert cases["hang"]["status"] == "failed" and "timed out after 2 s" in cases["hang"]["reason"]
    assert cases["crash"]["status"] == "failed"
    assert all(c["samples"] == [] for n, c in cases.items() if n != "count")
    assert result["harness"]["empty_ns_per_iter"] > 0
    assert [r["label"] for r in result["classic_now"]] == ["base", "top"]
    # The private work directory is gone.
    assert os.listdir(isolated_dirs / "tmp") == []


def test_same_seed_gives_same_order(cache_root):
    orders = []
    for _ in range(2):
        s = Scheduler(Settings(seed=5))
        order = list(range(10))
        s.rng.shuffle(order)
        orders.append(order)
    assert orders[0] == orders[1]


def test_case_globs_always_keep_the_baseline():
    exp = probe_experiment()
    assert [c.name for c in select_cases(exp, ("wr*",))] == ["count", "wrong"]
    assert [c.name for c in select_cases(exp, ())] == [c.name for c in exp.cases]
