"""The HTML report on synthetic results: every part present, every text escaped, nothing fetched."""
import re

import pytest
from conftest import run_cli

from layertax.engine.analysis import analyze
from layertax.engine.store import results
from layertax.report.html import to_html

HOSTILE = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


def _samples(base: float, rounds: int = 8) -> list[dict]:
    return [{"round": r, "iters": 1000, "ops": 1000, "ns": int(base * 1000 * (1 + 0.01 * ((r * 7 + i) % 5))),
             "csw_invol": 0} for r in range(rounds) for i in range(3)]


def synthetic_doc(hostile: str = HOSTILE) -> dict:
    """A run with a timed experiment (one case named hostile), a classic, a styled extra
    table holding hostile program output, and a hostile command line."""
    exp = {"name": "demo", "title": f"demo {hostile}", "question": f"why {hostile}?", "unit": "ns/op",
           "baseline": "base", "groups": [], "notes": [f"note {hostile}"],
           "classic": {"source": f"src {hostile}", "year": "1997", "machine": "m", "unit": "s", "baseline": "then-base",
                       "figures": [{"label": "then-base", "value": 1.0, "counterpart": "base", "why": "w"},
                                   {"label": "then-top", "value": 2.0, "counterpart": hostile, "why": hostile}],
                       "ratios": {"then-base": 1.0, "then-top": 2.0}, "conclusion": ""},
           "cases": [{"name": "base", "kernel": "k", "layer": "raw", "language": "c", "status": "ok", "reason": None,
                      "samples": _samples(100)},
                     {"name": hostile, "kernel": "k", "layer": hostile, "language": "c", "status": "ok",
                      "reason": None, "samples": _samples(150)},
                     {"name": "gone", "kernel": "k", "layer": "x", "language": "c", "status": "failed",
                      "reason": f"crashed {hostile}", "samples": []}],
           "tables": [{"title": f"matrix {hostile}", "columns": ["program", "C"], "rows": [[hostile, "exact"],
                                                                                          ["p", f"dropped {hostile}"]],
                       "styles": {"exact": "green", "dropped": "bold red"}, "notes": [hostile]}]}
    exp = analyze.analyzed(exp)
    return {"schema": results.SCHEMA, "layertax_version": "test", "created": "2026-01-01T00:00:00+00:00",
            "command": ["layertax", "run", hostile], "complete": True,
            "settings": {"runs": 8, "burst": 3, "warmup": 1, "min_sample_ns": 1000, "seed": 1, "cpu": None},
            "machine": {"cpu_model": hostile, "cores": 2, "kernel": "k", "libc": "glibc", "tools": {"cc": hostile},
                        "mitigations": {}}, "experiments": [exp]}


def test_a_hostile_name_renders_as_text_everywhere():
    html = to_html(synthetic_doc())
    assert HOSTILE not in html and "<script" not in html.lower()
    assert html.count(ESCAPED) >= 8     # title, question, case, layer, table cell, note, command, machine...
    # In the SVG charts too: matplotlib writes the name as escaped XML text.
    charts = re.findall(r"<svg.*?</svg>", html, flags=re.S)
    assert len(charts) == 2 and all(ESCAPED in c for c in charts)


def test_the_page_has_every_part():
    html = to_html(synthetic_doc("plain-name"))
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert "layertax run plain-name" in html                 # the exact command
    assert "the numbers behind the bar chart" in html and "the distribution of samples" in html
    assert 'class="right good"' in html and 'class="right bad"' in html   # the styled matrix cells
    assert "crashed plain-name" in html                      # a failed case says why
    assert "then-top" in html and "2.00x" in html           # then vs now
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html)


def test_a_dollar_in_a_name_is_not_mathtext():
    html = to_html(synthetic_doc("cost $x$ of y"))
    assert "cost $x$ of y" in html


def test_several_runs_in_one_page():
    one, two = synthetic_doc("first"), synthetic_doc("second")
    html = to_html(one, two)
    assert 'id="run-1"' in html and 'id="run-2"' in html and "first" in html and "second" in html


def test_report_html_cli_and_errors(tmp_path):
    saved = results.save(synthetic_doc(), tmp_path / "run.json")
    out = tmp_path / "r.html"
    p = run_cli("report", str(saved), "--html", str(out))
    assert p.returncode == 0, p.stderr
    assert out.exists() and HOSTILE not in out.read_text()
    both = run_cli("report", str(saved), "--html", str(out), "--export-html", str(out))
    assert both.returncode == 2 and "same option" in both.stderr
    many = run_cli("report", str(saved), str(saved), "--export-csv", str(tmp_path / "x.csv"))
    assert many.returncode == 2 and "give one FILE" in many.stderr
    bad = run_cli("report", str(saved), "--html", str(tmp_path / "missing-dir" / "r.html"))
    assert bad.returncode == 2 and "does not exist" in bad.stderr


def test_chromium_shows_the_hostile_name_as_text(tmp_path):
    from browser import dom, load_failures

    page = tmp_path / "hostile.html"
    page.write_text(to_html(synthetic_doc()), encoding="utf-8")
    d = dom(page, tmp_path)
    assert d.returncode == 0 and not load_failures(d.stderr), d.stderr[-2000:]
    # The DOM Chromium built holds the name as text (serialised escaped), never as an element.
    assert ESCAPED in d.stdout and "<script" not in d.stdout.lower()


def test_the_load_check_itself_catches_a_fetch(tmp_path):
    """The Chromium checks are not vacuous: a page of ours that tried to fetch an image is caught."""
    from browser import dom, load_failures

    html = to_html(synthetic_doc("plain")).replace("<body>", '<body><img src="missing.png">', 1)
    page = tmp_path / "fetching.html"
    page.write_text(html, encoding="utf-8")
    assert load_failures(dom(page, tmp_path).stderr)


def test_throughput_is_charted_in_gb_per_s_when_bytes_per_op_is_known():
    doc = synthetic_doc("plain")
    exp = doc["experiments"][0]
    exp["input"] = {"bytes_per_op": {"*": 1000, "base": 2000}}     # scan's shape: a default and one exception
    html = to_html(doc)
    assert "GB/s (higher is faster)" in html
    from layertax.report import plots
    svg, table = plots.case_bars(exp, {"name": "", "baseline": "base"})
    by_case = {row[0]: float(row[1]) for row in table["rows"]}
    medians = {c["name"]: c["stats"]["median"] for c in exp["cases"] if c.get("stats")}
    assert by_case["base"] == pytest.approx(2000 / medians["base"], rel=1e-3)
    assert by_case["plain"] == pytest.approx(1000 / medians["plain"], rel=1e-3)


def test_the_headline_is_a_measured_layer_not_the_baseline():
    from layertax.report.format import headline
    exp = synthetic_doc("plain")["experiments"][0]
    assert headline(exp)["label"] == "then-top" and headline(exp)["counterpart"] == "plain"
    exp["classic_now"][1]["now_ratio"] = None              # its counterpart was not measured today
    assert headline(exp)["now"] == "no counterpart measured"


def test_the_same_run_gives_the_same_page():
    doc = synthetic_doc("plain")
    assert to_html(doc) == to_html(doc)      # no timestamps in the charts: reports of one run diff clean


def test_one_wide_interval_does_not_squeeze_every_bar():
    """A whisker 7x past the largest bar ends at the axis's edge, its value written there."""
    from matplotlib.figure import Figure

    from layertax.report import plots

    ax = Figure().subplots()
    medians, highs, y = [2.0, 3.0, 12.0], [0.5, 0.4, 72.0], [2, 1, 0]
    ax.barh(y, medians)
    plots._clip_long_whiskers(ax, y, medians, highs, [5.0, None, None])
    assert ax.get_xlim() == (0, plots.WHISKER_ROOM * 12.0)
    assert [t.get_text() for t in ax.texts] == ["84 →"]
    ax = Figure().subplots()                           # nothing past the edge: the axis is matplotlib's own
    ax.barh(y, medians)
    plots._clip_long_whiskers(ax, y, medians, [0.5, 0.4, 2.0], [None] * 3)
    assert len(ax.texts) == 0 and ax.get_xlim()[1] < plots.WHISKER_ROOM * 12.0


def test_the_table_marks_the_ratio_as_the_terminal_does():
    """The page's case table has the terminal's columns (a median without an interval) and
    "~" beside the figure a case is judged by, explained under the table."""
    doc = synthetic_doc("plain-name")
    exp = doc["experiments"][0]
    case = next(c for c in exp["cases"] if c["name"] == "plain-name")
    case["samples"] = [{**s, "ns": int(s["ns"] * (1 + 0.04 * ((s["round"] * 3) % 4)))} for s in case["samples"]]
    doc["experiments"][0] = analyze.analyzed(exp)
    html = to_html(doc)
    table = re.search(r"<table>\s*<tr><th>case</th>.*?</table>", html, flags=re.S).group(0)
    assert "<th>IQR/median</th>" in table and "<th>95% CI</th>" not in table
    case = next(c for c in doc["experiments"][0]["cases"] if c["name"] == "plain-name")
    # 8 rounds whose ratios spread a few percent: wider than the 2% target.
    assert case["stats"]["ratio"]["ci95"][1] / case["stats"]["ratio"]["median"] > 1.02
    row = re.search(r"<tr class=\"ok\"><td>plain-name</td>.*?</tr>", table).group(0)
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", row)
    assert [c for c in cells if c.endswith(" ~")] == [c for c in cells if "x [" in c]   # the ratio alone
    assert "~ 95% interval wider than" in html
    assert "usually tighter" not in html
