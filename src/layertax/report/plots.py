"""The charts of the HTML report, drawn with matplotlib as SVG text to inline in the page.

Each chart function returns (svg, table): the SVG and the raw table behind it
({"columns": [...], "rows": [[...]]}), so the page can show the numbers a
reader would otherwise read off the picture. Text is kept as SVG text (not
paths), so names stay searchable; matplotlib escapes it as XML.
"""
from __future__ import annotations

import io

import numpy as np
from matplotlib import rcParams
from matplotlib.figure import Figure

from layertax.engine.analysis import analyze
from layertax import units

BAR = "#4c72b0"          # the bars (the Chromium test looks for this colour)
THEN = "#dd8452"         # the classic's ratio, placed where today's case would be if it still held
POINT = "#55a868"
ROW_INCHES = 0.28

rcParams["svg.fonttype"] = "none"     # text as <text>, not glyph paths
rcParams["svg.hashsalt"] = "layertax"  # stable ids: the same run gives the same file


def _label(text: str) -> str:
    """Names are data, not mathtext: a $ would start a formula."""
    return str(text).replace("$", r"\$")


def _svg(fig: Figure) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})   # no timestamp
    text = buf.getvalue()
    return text[text.index("<svg"):]   # inline: drop the XML declaration and DOCTYPE


def _legend_below(ax) -> None:
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.6 / ax.figure.get_figheight() - 0.08), ncol=3,
              fontsize="small", frameon=False)


def _height(n: int) -> float:
    return max(1.6, 0.8 + ROW_INCHES * n)


def bytes_per_op(exp: dict, case: dict) -> int | None:
    """The bytes one operation of case processes: from its kernel's descriptor, or from the
    experiment's shared input (e.g. scan's file: {"*": size, "mem-read": buffer size})."""
    own = (case.get("descriptor") or {}).get("bytes_per_op")
    shared = (exp.get("input") or {}).get("bytes_per_op") or {}
    return own or shared.get(case["name"]) or shared.get("*")


def throughput(exp: dict, cases: list[dict]) -> bool:
    """Whether a group is about throughput: every timed case says how many bytes one operation moves."""
    return bool(cases) and all(bytes_per_op(exp, c) for c in cases)


def _time_scale(values) -> tuple[float, str]:
    """(divisor, unit) that keeps axis numbers readable: the unit of the largest value."""
    unit, scale = units.time_unit(max((v for v in values if v), default=0))
    return scale, unit


def _log_if_wide(ax, values) -> None:
    values = [v for v in values if v and v > 0]
    if values and max(values) / min(values) > 30:
        ax.set_xscale("log")


WHISKER_ROOM = 2.0   # the axis reaches this many times the largest bar or marker, whatever a whisker does


def _clip_long_whiskers(ax, y, medians, highs, markers) -> None:
    """One noisy case's interval (a 95% CI reaching 7x its median) must not squeeze every bar
    into a corner of the axis: the axis ends at WHISKER_ROOM x the largest bar or marker, and a
    whisker running past it is written at the edge as its end's value."""
    if ax.get_xscale() == "log":
        return
    limit = WHISKER_ROOM * max([*medians, *(m for m in markers if m)])
    ends = [med + high for med, high in zip(medians, highs)]
    if max(ends) <= limit:
        return
    ax.set_xlim(0, limit)
    for end, yy in zip(ends, y):
        if end > limit:
            ax.annotate(f"{end:.3g} →", (limit, yy), xytext=(-2, 4), textcoords="offset points",
                        ha="right", va="bottom", fontsize=7)


def case_bars(exp: dict, group: dict) -> tuple[str, dict] | None:
    """Median per case with its 95% CI as whiskers (ns/op, or GB/s for throughput groups),
    and each classic figure's ratio as a marker at baseline x then-ratio."""
    cases = [c for c in exp["cases"] if (c.get("group") or "") == group["name"] and c.get("stats")]
    if not cases:
        return None
    gbps = throughput(exp, cases)
    by_name = {c["name"]: c for c in exp["cases"]}
    base = by_name.get(group["baseline"])
    base_median = base["stats"]["median"] if base and base.get("stats") else None
    then = {r["counterpart"]: r["then_ratio"] for r in exp.get("classic_now") or [] if r.get("counterpart")}

    def scale(ns: float, case: dict) -> float:
        return bytes_per_op(exp, case) / ns if gbps else ns

    names, medians, lows, highs, markers, rows = [], [], [], [], [], []
    for c in cases:
        st = c["stats"]
        lo, hi = sorted((scale(st["ci95"][0], c), scale(st["ci95"][1], c)))
        med = scale(st["median"], c)
        marker = scale(base_median * then[c["name"]], c) if base_median and c["name"] in then else None
        names.append(_label(c["name"]))
        medians.append(med)
        lows.append(med - lo)
        highs.append(hi - med)
        markers.append(marker)
        rows.append([c["name"], med, lo, hi, marker, st["n"]])
    divisor, unit = 1.0, "GB/s (higher is faster)"
    if not gbps:
        divisor, short = _time_scale(medians)
        medians, lows, highs = ([v / divisor for v in seq] for seq in (medians, lows, highs))
        markers = [None if m is None else m / divisor for m in markers]
        unit = f"{short} per operation ({exp['unit']})"
    rows = [[r[0], *("" if v is None else f"{v / divisor:.4g}" for v in r[1:5]), str(r[5])] for r in rows]
    fig = Figure(figsize=(7.5, _height(len(cases))))
    ax = fig.subplots()
    y = np.arange(len(cases))[::-1]
    ax.barh(y, medians, color=BAR, height=0.6, label="median")
    ax.errorbar(medians, y, xerr=[lows, highs], fmt="none", ecolor="black", capsize=3, linewidth=1, label="95% CI")
    marked = [(m, yy) for m, yy in zip(markers, y) if m is not None]
    if marked:
        ax.scatter([m for m, _ in marked], [yy for _, yy in marked], marker="D", color=THEN, zorder=3,
                   label="classic ratio applied to today's baseline")
    ax.set_yticks(y, names)
    ax.set_xlabel(unit)
    _log_if_wide(ax, medians + [m for m in markers if m])
    _clip_long_whiskers(ax, y, medians, highs, markers)
    _legend_below(ax)
    ax.grid(axis="x", alpha=0.3)
    table = {"columns": ["case", "median", "95% CI low", "95% CI high", "classic marker", "samples"], "rows": rows,
             "unit": unit}
    return _svg(fig), table


def case_strips(exp: dict, group: dict, seed: int = 0) -> tuple[str, dict] | None:
    """Every sample of every case (ns/op), jittered vertically: the distribution behind each median."""
    metric = exp.get("metric")
    cases = [c for c in exp["cases"] if (c.get("group") or "") == group["name"] and c.get("stats")]
    if not cases:
        return None
    rng = np.random.default_rng(seed)
    fig = Figure(figsize=(7.5, _height(len(cases))))
    ax = fig.subplots()
    y = np.arange(len(cases))[::-1]
    divisor, short = _time_scale([c["stats"]["median"] for c in cases])
    rows, every = [], []
    for yy, c in zip(y, cases):
        values = [v / divisor for v in (analyze.value(s, metric) for s in c["samples"]) if v is not None]
        every += values
        ax.scatter(values, yy + rng.uniform(-0.25, 0.25, len(values)), s=6, color=POINT, alpha=0.6, linewidths=0)
        ax.plot([c["stats"]["median"] / divisor] * 2, [yy - 0.35, yy + 0.35], color="black", linewidth=1.5)
        rows.append([c["name"], str(len(values)), " ".join(f"{v:.4g}" for v in values)])
    columns = ["case", "samples", f"{short} per operation" if metric in (None, "time") else f"{metric} ({short})"]
    ax.set_yticks(y, [_label(c["name"]) for c in cases])
    what = f"{short} per operation" if metric in (None, "time") else f"{metric}, {short}, per launch"
    ax.set_xlabel(f"{what}, every sample (black: the median)")
    _log_if_wide(ax, every)
    ax.grid(axis="x", alpha=0.3)
    return _svg(fig), {"columns": columns, "rows": rows}


def instruction_bars(exp: dict) -> tuple[str, dict] | None:
    """Instructions per operation under callgrind (deterministic: no whiskers)."""
    cases = [c for c in exp["cases"] if c.get("instructions")]
    if not cases:
        return None
    fig = Figure(figsize=(7.5, _height(len(cases))))
    ax = fig.subplots()
    y = np.arange(len(cases))[::-1]
    per_op = [c["instructions"]["per_op"] for c in cases]
    ax.barh(y, per_op, color=BAR, height=0.6)
    ax.set_yticks(y, [_label(c["name"]) for c in cases])
    ax.set_xlabel("user-space instructions per operation (callgrind)")
    _log_if_wide(ax, per_op)
    ax.grid(axis="x", alpha=0.3)
    rows = [[c["name"], f"{c['instructions']['per_op']:,.1f}",
             "" if c.get("ratio") is None else f"{c['ratio']:.2f}x"] for c in cases]
    return _svg(fig), {"columns": ["case", "instructions/op", "ratio"], "rows": rows}


SPLIT_COLORS = ("#8c8c8c", BAR, "#c44e52", "#8172b3")
SPLIT_TABLE = "loadtime-split"   # the "chart" key of the loadtime table that holds this chart's numbers


def _drawn(time: dict | None) -> float:
    """A stage's bar, µs: its time, or nothing where its interval reaches zero (the table says
    "within noise"). Results saved before stats.as_time kept a stage as a median and interval."""
    if not time:
        return 0.0
    if "median" in time:
        return time["median"] / 1e3 if time["ci95"][0] > 0 else 0.0
    return time["ns"] / 1e3


def loadtime_split(exp: dict) -> tuple[str, dict | None] | None:
    """spawn->main of each variant stacked into the stages the experiment measured inside its
    LD_DEBUG launches (exp["split"], experiments/loadtime/split.py), with the experiment's own
    table of them (its "chart" key names this chart) as the numbers under it; a run saved
    before the split was kept has no chart."""
    split = exp.get("split") or []
    if not split or not isinstance(split, list):   # inspect keeps its split per variant, another shape
        return None
    stages = list(split[0]["stages"])
    fig = Figure(figsize=(7.5, _height(len(split))))
    ax = fig.subplots()
    y = np.arange(len(split))[::-1]
    left = np.zeros(len(split))
    for stage, color in zip(stages, SPLIT_COLORS):
        widths = np.array([_drawn(v["stages"][stage]) for v in split])
        ax.barh(y, widths, left=left, color=color, height=0.6, label=stage)
        left += widths
    ax.set_yticks(y, [_label(v["variant"]) for v in split])
    ax.set_xlabel("µs from spawn to main, in the LD_DEBUG launches (medians)")
    _legend_below(ax)
    ax.grid(axis="x", alpha=0.3)
    return _svg(fig), next((t for t in exp.get("tables", []) if t.get("chart") == SPLIT_TABLE), None)


def sweep(exp: dict) -> tuple[str, dict] | None:
    """The loader cost-model sweep: measured spawn->main against symbol lookups, one series per
    variant and library count, and the fitted model's prediction for the same points as lines."""
    points, model = exp.get("points") or [], exp.get("model") or {}
    coefficients = model.get("coefficients") or {}
    if not points or not coefficients:
        return None

    def predict(p: dict) -> float:
        return coefficients["intercept"]["ns_per_unit"] + sum(
            c["ns_per_unit"] * (p.get(name) or 0) for name, c in coefficients.items() if name != "intercept")

    fig = Figure(figsize=(7.5, 4.5))
    ax = fig.subplots()
    series: dict[tuple, list[dict]] = {}
    for p in points:
        series.setdefault((p["variant"], p["libs"]), []).append(p)
    colors = rcParams["axes.prop_cycle"].by_key()["color"]
    rows = []
    for i, ((variant, libs), pts) in enumerate(sorted(series.items())):
        pts = sorted(pts, key=lambda p: p["symbol_lookups"])
        x = [p["symbol_lookups"] for p in pts]
        color = colors[i % len(colors)]
        ax.scatter(x, [p["spawn_to_main_ns"] / 1e3 for p in pts], color=color, s=14,
                   label=_label(f"{variant}, {libs} libs"))
        ax.plot(x, [predict(p) / 1e3 for p in pts], color=color, linewidth=1)
        rows += [[variant, str(libs), str(p["symbol_lookups"]), f"{p['spawn_to_main_ns'] / 1e3:.1f}",
                  f"{predict(p) / 1e3:.1f}"] for p in pts]
    ax.set_xlabel("symbol lookups at start-up")
    ax.set_ylabel("spawn->main, µs (points: measured; lines: the model)")
    ax.legend(fontsize="x-small", ncol=2)
    ax.grid(alpha=0.3)
    return _svg(fig), {"columns": ["variant", "libraries", "symbol lookups", "measured µs", "model µs"], "rows": rows}



MACHINE_COLORS = ("#4c72b0", "#55a868", "#c44e52", "#8172b3", "#ccb974", "#64b5cd", "#8c8c8c", "#937860")


def fleet_bars(table, labels: list[str]) -> tuple[str, dict] | None:
    """One experiment on several machines: per case of its main group, one bar per machine (its
    ratio to the baseline, with the 95% interval as whiskers), and the classic's ratio as a marker.
    The other groups (each with its own baseline) are in the table behind the chart."""
    measured = [r for r in table.rows if any(c.ratio is not None for c in r.cells)]
    if not measured:
        return None
    rows = [r for r in measured if r.group == measured[0].group]
    n = len(labels)
    fig = Figure(figsize=(7.5, max(1.8, 0.8 + ROW_INCHES * len(rows) * max(1.0, n * 0.6))))
    ax = fig.subplots()
    y = np.arange(len(rows))[::-1].astype(float)
    height = 0.8 / n
    for i, label in enumerate(labels):
        offset = (n - 1 - 2 * i) * height / 2
        cells = [r.cells[i] for r in rows]
        values = [c.ratio if c.ratio is not None else np.nan for c in cells]
        low = [c.ratio - c.ci95[0] if c.ci95 else 0 for c in cells if c.ratio is not None]
        high = [c.ci95[1] - c.ratio if c.ci95 else 0 for c in cells if c.ratio is not None]
        shown = [yy + offset for yy, c in zip(y, cells) if c.ratio is not None]
        color = MACHINE_COLORS[i % len(MACHINE_COLORS)]
        ax.barh(y + offset, values, height=height * 0.9, color=color, label=_label(label))
        ax.errorbar([c.ratio for c in cells if c.ratio is not None], shown, xerr=[low, high], fmt="none",
                    ecolor="black", capsize=2, linewidth=0.8)
    marked = [(r.classic, yy) for r, yy in zip(rows, y) if r.classic is not None]
    if marked:
        ax.scatter([m for m, _ in marked], [yy for _, yy in marked], marker="D", color=THEN, zorder=3,
                   label="the classic's ratio")
    ax.axvline(1.0, color="black", linewidth=0.6, alpha=0.5)
    _log_if_wide(ax, [c.ratio for r in rows for c in r.cells if c.ratio] + [m for m, _ in marked])
    ax.set_yticks(y, [_label(r.case) for r in rows])
    ax.set_xlabel(f"ratio to the baseline ({'instructions' if table.method == 'instructions' else 'time'})")
    _legend_below(ax)
    ax.grid(axis="x", alpha=0.3)
    columns = ["case", "group"] + [f"{label}: ratio [95% CI]" for label in labels] + ["classic"]

    def text(cell) -> str:
        if cell.ratio is None:
            return cell.status
        # the digits its interval supports, as the terminal prints it; an instruction count is exact
        return (units.ratio_with_ci({"median": cell.ratio, "ci95": cell.ci95}) if cell.ci95
                else f"{cell.ratio:.3f}x (exact)")
    table_rows = [[r.case, r.group or "main"] + [text(c) for c in r.cells] + ["" if r.classic is None else f"{r.classic:.2f}"]
                  for r in table.rows]
    return _svg(fig), {"columns": columns, "rows": table_rows}
