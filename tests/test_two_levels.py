"""A ratio at two levels (engine/analysis/two_levels.py) on synthetic rounds: found where the
rounds sit at two levels with fair shares, not under one level however it is shaped, and
shown as "*" with its legend in the table."""
import numpy as np
import pytest

from layertax.engine.analysis import analyze, two_levels
from layertax.report import format as fmt
from layertax.report.markdown import to_markdown

TARGET = 0.02


def _two(rng, n: int, upper_share: float, gap: float = 0.075, sigma: float = 0.004) -> np.ndarray:
    """Rounds at 1.96x and (1 + gap) x 1.96x, as glibc's random_r's on the 2-vCPU VM."""
    upper = rng.random(n) < upper_share
    return 1.96 * np.exp(rng.normal(0, sigma, n) + np.where(upper, np.log1p(gap), 0.0))


@pytest.mark.parametrize("n", [20, 40])
def test_two_clean_levels_about_half_each_are_found(n):
    rng = np.random.default_rng(7)
    found = [two_levels.two_levels(_two(rng, n, 0.5), TARGET) for _ in range(200)]
    assert sum(f is not None for f in found) >= 0.9 * 200
    hit = next(f for f in found if f)
    assert hit["lower"] == pytest.approx(1.96, rel=0.01) and hit["upper"] == pytest.approx(1.96 * 1.075, rel=0.01)
    assert hit["gap"] == pytest.approx(0.075, abs=0.01) and 0.2 <= hit["upper_share"] <= 0.8 and hit["p"] < 0.05


@pytest.mark.parametrize("shape", ["normal", "lognormal tail", "a few slow rounds", "drift"])
def test_one_level_is_rarely_called_two(shape):
    """Under one level, of any of these shapes, fewer than the dip test's 5% are called two
    levels (it is conservative: calibrated against the uniform)."""
    rng = np.random.default_rng(11)
    called = 0
    for _ in range(400):
        n = int(rng.integers(12, 41))
        if shape == "normal":
            logs = rng.normal(0, 0.03, n)
        elif shape == "lognormal tail":
            logs = rng.lognormal(-4, 0.8, n)
        elif shape == "a few slow rounds":          # 15% of rounds 20-60% slower: a tail
            logs = rng.normal(0, 0.01, n) + np.where(rng.random(n) < 0.15, np.log(rng.uniform(1.2, 1.6, n)), 0)
        else:                                       # AR(0.6) drift
            logs = np.zeros(n)
            for i in range(1, n):
                logs[i] = 0.6 * logs[i - 1] + rng.normal(0, 0.02)
        called += two_levels.two_levels(np.exp(logs), TARGET) is not None
    assert called <= 0.05 * 400


def test_edges_few_rounds_a_small_gap_a_lone_level():
    rng = np.random.default_rng(3)
    assert two_levels.two_levels(_two(rng, 11, 0.5), TARGET) is None          # too few rounds to tell
    assert two_levels.two_levels(_two(rng, 40, 0.5, gap=0.01, sigma=0.001), TARGET) is None   # within the target
    assert two_levels.two_levels(_two(rng, 40, 0.5, gap=0.01, sigma=0.001), 0.005) is not None
    assert two_levels.two_levels(_two(rng, 40, 0.05), TARGET) is None         # 2 slow rounds are a tail
    assert two_levels.two_levels([1.5] * 40, TARGET) is None                  # ties: one level
    assert two_levels.two_levels([], TARGET) is None


def test_the_warning_names_the_levels_shares_and_the_move():
    line = two_levels.warning({"lower": 1.96, "upper": 2.107, "upper_share": 0.45, "gap": 0.075, "p": 0.001})
    assert "1.96x and 2.11x" in line and "45% of the rounds" in line and "7.5% between runs" in line
    assert "p = 0.001" in line
    assert "p < 0.001" in two_levels.warning({"lower": 1.96, "upper": 2.107, "upper_share": 0.45, "gap": 0.075,
                                              "p": 0.0})


def _exp(case_ratios) -> dict:
    samples = lambda values: [{"round": r, "iters": 1000, "ops": 1000, "ns": int(v * 1000), "csw_invol": 0}
                              for r, v in enumerate(values)]
    return {"name": "demo", "title": "demo", "question": "?", "unit": "ns/op", "baseline": "base", "groups": [],
            "cases": [{"name": "base", "kernel": "k", "layer": "floor", "language": "c", "status": "ok",
                       "reason": None, "samples": samples([100.0] * len(case_ratios))},
                      {"name": "split", "kernel": "k", "layer": "two levels", "language": "c", "status": "ok",
                       "reason": None, "samples": samples(100.0 * np.asarray(case_ratios))}]}


def test_the_table_marks_the_ratio_and_says_what_the_mark_means():
    rng = np.random.default_rng(5)
    ratios = np.r_[_two(rng, 20, 0.0), _two(rng, 20, 1.0)]
    rng.shuffle(ratios)
    exp = analyze.analyzed(_exp(ratios))
    case = next(c for c in exp["cases"] if c["name"] == "split")
    assert case["stats"]["ratio"]["two_levels"]["upper_share"] == pytest.approx(0.5)
    assert any("two levels" in w for w in case["stats"]["warnings"])
    rows = fmt.case_rows(exp, fmt.case_groups(exp)[0])
    marked = {r["case"]: fmt.marked(r)["ratio"] for r in rows}
    assert marked["split"].endswith(" *") and not marked["base (base)"].endswith("*")
    legend = fmt.marks_lines(exp, rows)
    assert any(line.startswith("* its rounds sit at two levels") for line in legend)
    doc = {"settings": {}, "machine": {}, "command": ["layertax"], "experiments": [exp]}
    markdown = to_markdown(doc)
    assert "] ~ *" in markdown and "\\* its rounds sit at two levels" in markdown
