"""The answer first: each experiment's one-sentence answer, "~" meaning one thing, ratios with
the digits their interval supports, the notes folded behind --verbose; compare's
"inconclusive" and its load warnings. From recorded results and synthetic summaries."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from layertax import units
from layertax.engine.analysis import compare, stats
from layertax.report import format as fmt
from layertax.report import terminal

RECORDED = Path(__file__).parent / "data" / "recorded"


def _render(doc: dict, width: int = 100, verbose: bool = False) -> str:
    out = io.StringIO()
    terminal.render(doc, Console(file=out, width=width, no_color=True), verbose=verbose)
    return out.getvalue()


def test_a_classic_experiment_answers_in_one_sentence_before_its_table():
    doc = json.loads((RECORDED / "callchain.json").read_text())
    exp = doc["experiments"][0]
    said = fmt.answer(exp)
    top = fmt.headline(exp)
    assert said.startswith(f"{top['label']}: {top['then']} of ") and "today" in said and top["counterpart"] in said
    lines = _render(doc).splitlines()
    question = lines.index(exp["question"])
    assert lines[question + 1].startswith(said[:40])


def test_the_answer_says_when_its_ratio_moved_between_this_machines_runs():
    doc = json.loads((RECORDED / "callchain.json").read_text())
    exp = doc["experiments"][0]
    top = fmt.headline(exp)
    assert "moved between" not in fmt.answer(exp)
    moved = {"runs": 4, "low": 1.10, "high": 1.18, "p": 1e-5, "moved": True}
    exp["between_runs"] = {"runs": 3, "cases": {top["counterpart"]: moved}}
    said = fmt.answer(exp)
    assert said.endswith("; it moved between this machine's recent runs (1.10x to 1.18x)")
    # a ratio to another baseline than the classic's is not the one the sentence quotes
    exp["baseline"] = "some-other-case"
    assert "moved between" not in fmt.answer(exp)


def test_the_answer_says_when_its_ratio_sits_at_two_levels():
    """The sentence says what the "*" in its case's row says, where the row's ratio is the one it
    quotes."""
    doc = json.loads((RECORDED / "callchain.json").read_text())
    exp = doc["experiments"][0]
    top = fmt.headline(exp)
    assert "two levels" not in fmt.answer(exp)
    case = next(c for c in exp["cases"] if c["name"] == top["counterpart"])
    case["stats"]["ratio"]["two_levels"] = {"lower": 1.96, "upper": 2.104, "upper_share": 0.53, "gap": 0.073,
                                            "p": 0.001}
    said = fmt.answer(exp)
    assert said.endswith("; its rounds sat at two levels, 1.96x and 2.10x, and the median follows their shares")
    assert "*" in _render(doc)       # as its row does
    row = next(r for r in exp["classic_now"] if r["counterpart"] == top["counterpart"])
    assert fmt.classic_now_text(exp, row).endswith(" *")     # and its row in the classic's table
    exp["baseline"] = "some-other-case"
    assert "two levels" not in fmt.answer(exp)


@pytest.mark.parametrize("path", sorted(RECORDED.glob("*.json")), ids=lambda p: p.stem)
def test_without_verbose_the_notes_fold_into_one_line(path):
    doc = json.loads(path.read_text())
    brief, full = _render(doc), _render(doc, verbose=True)
    assert "note: " not in brief and len(brief.splitlines()) < len(full.splitlines())
    for exp in doc["experiments"]:
        if exp.get("notes"):
            assert "(--verbose prints them)" in brief
            assert all(f"note: {n.split(':')[0]}" in " ".join(full.split()) or n[:20] in full for n in exp["notes"])


def test_the_tilde_marks_a_ratio_whose_interval_is_wider_than_the_target():
    exp = {"stopping": {"rule": {"precision": 0.02, "checkpoints": [8]}}}
    assert fmt.precision_target(exp) == 0.02 and fmt.precision_target({}) == fmt.DEFAULT_TARGET
    assert not fmt.wider_than_target({"median": 1.0, "ci95": [0.99, 1.01]}, 0.02)
    assert fmt.wider_than_target({"median": 1.0, "ci95": [0.97, 1.03]}, 0.02)
    doc = json.loads((RECORDED / "callchain.json").read_text())
    exp = doc["experiments"][0]
    for row in fmt.case_rows(exp, fmt.case_groups(exp)[0]):
        case = next(c for c in exp["cases"] if row["case"].startswith(c["name"]))
        ratio = (case.get("stats") or {}).get("ratio")
        if ratio:
            assert row["noisy_key"] == "ratio"
            assert row["noisy"] == fmt.wider_than_target(ratio, fmt.precision_target(exp))


@pytest.mark.parametrize("median, lo, hi, text", [
    (1.0, 0.97, 1.03, "1.00x [0.97, 1.03]"), (0.02, 0.017, 0.023, "0.020x [0.017, 0.023]"),
    (191.39, 186.0, 196.0, "191x [186, 196]"), (1.5, 1.5, 1.5, "1.50x [1.50, 1.50]"),
    (1.0, 0.999, 1.001, "1.000x [0.999, 1.001]")])
def test_a_ratio_carries_the_digits_its_interval_supports(median, lo, hi, text):
    assert units.ratio_with_ci({"median": median, "ci95": [lo, hi]}) == text


def test_a_move_the_test_does_not_confirm_is_inconclusive():
    assert stats.verdict(1.10, (1.05, 1.15), True, 0.02) == "slower"
    assert stats.verdict(1.10, (1.05, 1.15), False, 0.02) == "inconclusive"
    assert stats.verdict(1.01, (1.005, 1.015), True, 0.02) == "no difference"     # inside the band
    assert stats.verdict(0.90, (0.80, 1.01), True, 0.02) == "no difference"       # the interval holds 1


def test_compare_warns_when_a_run_was_measured_under_load():
    doc = json.loads((RECORDED / "tls.json").read_text())
    loaded = json.loads(json.dumps(doc))
    loaded["concurrent"] = {"allowed": True, "others": [{"pid": 7, "command": "layertax run"}]}
    loaded["experiments"][0]["warnings"] = ["tasks outside this run used 12% of the CPUs' time while it ran"]
    result = compare.compare_runs(doc, loaded)
    assert any(w.startswith("B was measured while 1 other layertax") for w in result.load_warnings)
    assert any(w.startswith("B's tls: tasks outside") for w in result.load_warnings)
    assert not any(w.startswith("A ") for w in result.load_warnings)


def test_launchs_hyperfine_line_is_on_spawn_to_exit_and_says_so():
    from layertax.commands.launch import hyperfine_summary

    exits = [500_000, 520_000, 540_000, 900_000]
    summary = hyperfine_summary(exits)
    assert summary == {"mean": 615_000, "stdev": pytest.approx(190_700.46, rel=1e-6), "min": 500_000,
                       "max": 900_000, "n": 4}
    case = {"name": "true", "layer": "the command", "status": "ok", "samples": [], "spawn_to_exit": summary,
            "stats": {**stats.summarize([400_000, 410_000, 420_000, 430_000]), "ratio": None, "warnings": []}}
    exp = {"name": "launch", "title": "t", "question": "q", "unit": "spawn->main", "baseline": "true",
           "summary": "hyperfine", "cases": [case]}
    group = fmt.case_groups(exp)[0]
    rows = fmt.case_rows(exp, group)
    assert ("mean_sd", "mean ± σ spawn->exit") in fmt.case_columns(exp, group, rows)
    assert rows[0]["mean_sd"] == "615 µs ± 191 µs" and rows[0]["median"] == "415 µs"


def test_launchs_answer_says_its_verdict_is_on_the_start_and_sets_the_exit_beside_it():
    """`launch A --vs B` judges spawn->main; what hyperfine times, spawn->exit, can differ far more
    (echo against true: 1.02x to main, 1.58x to exit), so the answer names the interval its verdict
    is on and gives B/A to exit, paired, beside it. A result without the exit ratio reads as before."""
    ratio = {"median": 1.02, "ci95": [1.01, 1.05], "ci_coverage": 0.95}
    echo = {"name": "echo", "verdict": "slower", "stats": {"ratio": ratio},
            "exit_ratio": {"median": 1.58, "ci95": [1.55, 1.60], "ci_coverage": 0.95}}
    exp = {"name": "launch", "unit": "spawn->main", "baseline": "true", "cases": [{"name": "true"}, echo]}
    assert fmt.answer(exp) == "echo is slower than true in spawn->main (1.02x [1.01, 1.05]), spawn->exit 1.58x [1.55, 1.60]"
    del echo["exit_ratio"]
    echo["verdict"] = "no difference"
    assert fmt.answer(exp) == "echo: no difference from true (1.02x [1.01, 1.05])"


def test_a_bare_run_leaves_the_extended_families_out_and_says_so():
    from layertax import experiments
    from layertax.commands.run import default_scope

    chosen = list(experiments.registry().values())
    scoped, left_out = default_scope(chosen, named=False, everything=False, case_globs=())
    encoding = next(e for e in scoped if e.name == "encoding")
    assert not any(c.group in ("throughput", "getcwd", "stat", "readlink") for c in encoding.cases)
    assert {c.name for c in encoding.cases} >= {encoding.baseline, *(f.counterpart for f in encoding.classic.figures
                                                                        if f.counterpart)}
    assert "throughput (176 cases)" in left_out["encoding"] and "`layertax run encoding` or `--all`" in left_out["encoding"]
    for named, everything, globs in ((True, False, ()), (False, True, ()), (False, False, ("tp-*",))):
        assert default_scope(chosen, named, everything, globs) == (chosen, {})
    exp = {"name": "encoding", "cases": [], "not_run": left_out["encoding"]}
    assert fmt.problems(exp) == [f"skipped: {left_out['encoding']}"]


def test_the_answer_says_no_different_only_where_the_interval_is_narrow():
    """An interval that holds 1 but is wider than the target cannot tell a layer that costs
    nothing from one that costs its width: the sentence says it cannot tell."""
    doc = json.loads((RECORDED / "callchain.json").read_text())
    exp = doc["experiments"][0]
    top = fmt.headline(exp)
    row = next(r for r in exp["classic_now"] if r["counterpart"] == top["counterpart"])
    target = fmt.precision_target(exp)
    row["now_ratio"] = {**row["now_ratio"], "median": 1.05, "ci95": [0.8, 1.1]}
    assert fmt.answer(exp).endswith(f": not told apart from its baseline today (its interval is wider than "
                                    f"±{target:.0%})")
    row["now_ratio"] = {**row["now_ratio"], "median": 1.0, "ci95": [1 - target / 2, 1 + target / 2]}
    assert fmt.answer(exp).endswith(": no different from its baseline today")
    row["now_ratio"] = {**row["now_ratio"], "median": 1.5, "ci95": [1.2, 1.9]}          # wide, but clear of 1
    assert fmt.answer(exp).endswith(": dearer than its baseline today")
    # Clear of 1 by less than the printed digits show: [1.0, 1.3] would read as holding 1.
    row["now_ratio"] = {**row["now_ratio"], "median": 1.132, "ci95": [1.0024, 1.2703]}
    assert fmt.answer(exp).endswith("1.1x [1.0, 1.3] today (c-rename): dearer than its baseline today "
                                    "(the interval ends at 1.002)")
    row["now_ratio"] = {**row["now_ratio"], "median": 0.93, "ci95": [0.86, 0.9996]}
    assert fmt.answer(exp).endswith(": cheaper than its baseline today (the interval ends at 0.9996)")


def test_an_end_is_written_with_the_digits_that_keep_it_on_its_side_of_one():
    from layertax import units

    assert units.clear_of_one(1.0024, 1) == "1.002" and units.clear_of_one(0.99, 2) == "0.99"
    assert units.clear_of_one(1.3, 1) == "1.3" and units.clear_of_one(1.0000004, 1) == "1.000000"
    assert units.clear_of_one(0.99996, 2) == "0.99996"


def test_the_markdown_and_html_exports_lead_with_the_answer_too():
    """The sentence stands under each experiment's question in every format that prints one."""
    from markupsafe import escape        # as the report's template escapes

    from layertax.report import html, markdown

    doc = json.loads((RECORDED / "callchain.json").read_text())
    exp = doc["experiments"][0]
    said = fmt.answer(exp)
    lines = markdown.to_markdown(doc).splitlines()
    question = lines.index(exp["question"])
    assert lines[question + 2] == said.replace("&", "&amp;").replace("<", "&lt;")
    page = html.to_html(doc)
    assert page.index(f'<p class="answer">{escape(said)}</p>') > page.index(str(escape(exp["question"])))
