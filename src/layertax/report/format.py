"""Number formatting and the rows every report shares, so all formats agree."""
from __future__ import annotations

import math

from layertax import units
from layertax.engine.analysis import analyze, between_runs, stats, two_levels
from layertax.units import ci, duration, percent, ratio, ratio_with_ci


def classic_by_case(exp: dict) -> dict[str, str]:
    """case name -> "1.45x": the classic ratio of the layer each case stands for (named in the then/now table)."""
    return {row["counterpart"]: f"{row['then_ratio']:.2f}x"
            for row in exp.get("classic_now", []) if row.get("counterpart")}


def syscalls(case: dict) -> str:
    """ "newfstatat + renameat", "2x statx + rename", "0.015x io_uring_enter": one operation's system calls."""
    sc = case.get("syscalls")
    if not sc:
        return ""
    if "error" in sc:
        return "?"
    parts = [name if n == 1 else f"{n:g}x {name}" for name, n in sorted(sc["per_op"].items(), key=lambda kv: -kv[1])]
    return " + ".join(parts) or "none"


def has_syscalls(exp: dict) -> bool:
    return any(c.get("syscalls") for c in exp["cases"])


def case_groups(exp: dict) -> list[dict]:
    """The case tables to print, main first: {name, title, baseline}; groups whose cases
    the experiment presents in its own tables are left out."""
    main = {"name": "", "title": exp["title"], "baseline": exp["baseline"]}
    present = {c.get("group") or "" for c in exp.get("cases", [])}   # --case may leave a group empty
    # show_cases False: an experiment that is not timed (a correctness matrix) presents its cases itself.
    return [main] * exp.get("show_cases", True) + [g for g in exp.get("groups") or [] if g.get("show_cases", True) and g["name"] in present]


def compares(exp: dict, group: dict) -> bool:
    """Whether a group's table has anything to compare: a case with samples beside its baseline."""
    return any(c.get("stats") for c in exp["cases"]
               if (c.get("group") or "") == group["name"] and c["name"] != group["baseline"])


def case_columns(exp: dict, group: dict, rows: list[dict]) -> list[tuple[str, str]]:
    """(row key, header) of the columns a group's table shows: no ratio column when there is
    nothing to compare it to, no "then" column when no classic figure stands beside a case,
    and hyperfine's summary (mean +- sd, min ... max, runs) where the result asks for it."""
    # A median describes this run: its interval cannot hold what the machine's drift does between
    # runs (docs/method/statistics.md), so it is not printed beside it; a ratio's is.
    columns = [("case", "case"), ("layer", "layer"), ("median", f"median {exp['unit']}"),
               ("spread", "IQR/median")]
    if exp.get("summary") == "hyperfine":
        # On spawn->exit, the interval hyperfine times, where the cases keep it (launch's).
        of = " spawn->exit" if any(c.get("spawn_to_exit") for c in exp["cases"]) else ""
        columns += [("mean_sd", f"mean ± σ{of}"), ("range", f"min … max{of}"), ("n", "runs")]
    if compares(exp, group):
        columns.append(("ratio", f"ratio to {group['baseline']} [95% CI]"))
    if any(r["classic"] for r in rows):
        columns.append(("classic", "then"))
    if has_syscalls(exp):
        columns.append(("syscalls", "system calls / op"))
    return columns


# Where a result names no precision target (a fixed number of rounds, a launch), "~" marks an
# interval wider than this.
DEFAULT_TARGET = stats.DEFAULT_THRESHOLD


def precision_target(exp: dict) -> float:
    """The relative half-width a figure's interval is held to: the run's precision target."""
    return stats.precision_target(exp)


def wider_than_target(summary: dict | None, target: float) -> bool:
    """Whether an interval is wider than the target: the one thing "~" means."""
    return stats.wider_than(summary, target)


def case_rows(exp: dict, group: dict) -> list[dict]:
    """One row per case of one group (from case_groups), already formatted: the table every format
    prints (with `marked` on its figures)."""
    classic = classic_by_case(exp)
    base_mark = " (base)" if compares(exp, group) else ""
    target = precision_target(exp)
    rows = []
    for case in exp["cases"]:
        if (case.get("group") or "") != group["name"]:
            continue
        st = case.get("stats")
        whole = case.get("spawn_to_exit") or st     # hyperfine's summary: on spawn->exit where kept
        status = case["status"]
        if st is None:
            median = {"skipped": "skipped", "failed": "FAILED"}.get(status, "no samples")
        else:
            median = duration(st["median"])
        rows.append({
            "case": case["name"] + (base_mark if case["name"] == group["baseline"] else ""),
            "layer": case["layer"],
            "median": median,
            "ci95": ci(st),
            "ci95_short": f"{units.bare(st['ci95'][0], st['median'])}, {units.bare(st['ci95'][1], st['median'])}"
            if st else "",
            "min": duration(st["min"]) if st else "-",
            "spread": percent(st["spread"]) if st else "-",
            "n": str(st["n"]) if st else "0",
            "mean_sd": f"{units.duration(whole['mean'])} ± {units.duration(whole.get('stdev'))}" if whole else "-",
            "range": f"{units.duration(whole['min'])} … {units.duration(whole['max'])}" if whole else "-",
            "ratio": ratio_with_ci(st.get("ratio")) if st else "-",
            "classic": classic.get(case["name"], ""),
            "status": status,
            # "~" marks the figure a case is judged by (its ratio; a baseline's own median) when
            # its interval is wider than the precision target, and nothing else.
            "noisy": bool(st) and wider_than_target(st.get("ratio") or st, target),
            "noisy_key": "ratio" if st and st.get("ratio") else "median",
            "two_levels": bool(st and (st.get("ratio") or {}).get("two_levels")),
            "moved": bool(between_runs.found(exp, case["name"]).get("moved")),
            "every_cpu": bool(case.get("every_cpu")) and bool(st and st.get("ratio")),
            "syscalls": syscalls(case),
        })
    return rows


def problems(exp: dict) -> list[str]:
    """Skipped and failed cases with their reasons, one line each (skips of one kernel merged)."""
    lines, seen = [], set()
    if exp.get("measured_skipped"):    # inspect of a program it cannot run here
        lines.append(f"skipped: measured picture skipped: {exp['measured_skipped']}")
    if exp.get("not_run"):             # a bare run's scope (commands/run.default_scope)
        lines.append(f"skipped: {exp['not_run']}")
    for case in exp["cases"]:
        if case["status"] == "ok":
            continue
        key = (case["status"], case.get("reason"))
        names = [c["name"] for c in exp["cases"] if (c["status"], c.get("reason")) == key]
        if key in seen:
            continue
        seen.add(key)
        lines.append(f"{case['status']}: {', '.join(names)}: {case['reason']}")
    return lines


def noise_lines(exp: dict) -> list[str]:
    """The engine's warnings: the experiment's own first, then each case's."""
    return list(exp.get("warnings", [])) + [f"{c['name']}: {'; '.join(c['stats']['warnings'])}"
                                            for c in exp["cases"] if c.get("stats") and c["stats"]["warnings"]]


def machine_line(machine: dict) -> str:
    return (f"{machine.get('cpu_model')} ({machine.get('cores')} cores), {machine.get('os') or 'Linux'}, "
            f"kernel {machine.get('kernel')}, {machine.get('libc')}")


def run_method_applies(doc: dict) -> bool:
    """Whether the run's method line describes any experiment of the document: not if every
    one names its own method (a correctness matrix is not timed in rounds)."""
    return not doc["experiments"] or any(not e.get("method") for e in doc["experiments"])


def settings_line(settings: dict | None, experiments: list[dict] = ()) -> str:
    """The run's method in one line: its own, or made from its settings (what a file lacks, "?").
    An experiment that ran with its own settings (its defaults: callchain's fifteen samples of
    1 ms) has them in the line where it is the run's only one, else is named as having its own."""
    settings = settings or {}
    if settings.get("method"):
        return settings["method"]
    own = [e for e in experiments if own_settings(e)]
    if len(experiments) == 1 and own:
        settings = {**settings, **own_settings(own[0])}
    elif own:
        return (_settings_text(settings) + f"; {', '.join(e['name'] for e in own)} with "
                f"{'its' if len(own) == 1 else 'their'} own (--verbose)")
    return _settings_text(settings)


def own_settings(exp: dict) -> dict:
    """The settings an experiment ran with where they differ from the run's (plain values only)."""
    return {k: v for k, v in (exp.get("settings") or {}).items()
            if k != "options" and not isinstance(v, (dict, list, tuple))}


def _settings_text(settings: dict) -> str:
    runs = settings.get("runs", "?")
    if settings.get("precision"):
        rounds = f"{settings.get('min_rounds', runs)} to {runs} rounds (until ±{settings['precision']:.0%})"
    else:
        rounds = f"{runs} rounds"
    budget = ""
    if settings.get("budget_s"):
        used = f", {settings['measured_s'] / 60:.1f} used" if settings.get("measured_s") is not None else ""
        budget = f", a budget of {settings['budget_s'] / 60:.1f} min{used}"
    min_ns = settings.get("min_sample_ns")
    cpu = settings.get("cpu", "?")
    bursts = settings.get("baseline_bursts") or 1    # a baseline's bursts a round, where it serves 3 cases
    if settings.get("pairing") == "beside":
        baselines = ", each case beside a burst of its baseline"
    else:   # "round", or a run saved before the pairing was a setting
        baselines = f", baselines {bursts} bursts a round" if bursts > 1 else ""
    return (f"{rounds} x {settings.get('burst', '?')} samples after {settings.get('warmup', '?')} warm-up"
            f"{baselines}, samples >= {duration(min_ns) if min_ns is not None else '?'}, interleaved (seed "
            f"{settings.get('seed', '?')}), cpu {cpu if cpu is not None else 'not pinned'}{budget}")


def own_settings_line(exp: dict) -> str | None:
    """The settings this experiment ran with where they differ from the run's method line
    (its own defaults, e.g. fewer, longer rounds when one operation scans a whole file)."""
    own = own_settings(exp)
    if not own:
        return None
    names = {"runs": "rounds", "burst": "samples per round", "warmup": "warm-up rounds",
             "min_sample_ns": "min sample ns", "baseline_bursts": "baseline bursts per round",
             "jit_settle_ns": "JIT settle ns",
             "pairing": "pairing"}
    return "this experiment ran with " + ", ".join(f"{names.get(k, k)} = {v}" for k, v in own.items())


def harness_line(exp: dict) -> str | None:
    h = exp.get("harness")
    if not h or "empty_ns_per_iter" not in h:
        return None
    return (f"harness floor: empty loop {duration(h['empty_ns_per_iter'])}/iter, clock read "
            f"{h['clock_overhead_ns']} ns, resolution {h['clock_res_ns']} ns; {h['pin']}; priority {h['priority']}")


def runtimes_line(exp: dict) -> str | None:
    """ "runtimes: glibc 2.36, CPython 3.11.7, go1.26.8": what each measured case ran on, as its
    kernel reported it, in the order the cases come."""
    seen = dict.fromkeys((c.get("descriptor") or {}).get("runtime") for c in exp["cases"] if c["status"] == "ok")
    names = [str(r) for r in seen if r]
    return "runtimes: " + ", ".join(names) if names else None


def _baseline_names(exp: dict) -> set[str]:
    return {exp["baseline"], *(g["baseline"] for g in exp.get("groups") or [])}


def baselines_text(exp: dict) -> str:
    """ "getc" or "xorshift; models: global-var": the baselines the experiment's ratios are taken to."""
    groups = [g for g in exp.get("groups") or [] if any((c.get("group") or "") == g["name"] for c in exp["cases"])]
    return "; ".join([exp["baseline"], *(f"{g['name']}: {g['baseline']}" for g in groups)])


def instruction_rows(exp: dict) -> list[dict]:
    """One row per case of a callgrind-counted experiment, already formatted."""
    rows = []
    for case in exp["cases"]:
        ins = case.get("instructions")
        status = case["status"]
        top = list((ins.get("by_object") or {}).items())[:3] if ins else []
        objects = ", ".join(f"{name} {n:,.0f}" for name, n in top)
        rows.append({
            "case": case["name"] + (" (base)" if case["name"] in _baseline_names(exp) else ""),
            "layer": case["layer"],
            "per_op": f"{ins['per_op']:,.1f}" if ins else {"skipped": "skipped", "failed": "FAILED"}.get(status, "-"),
            "ratio": ratio(case.get("ratio")),
            "objects": objects,
            "by_object": [(name, f"{n:,.0f}") for name, n in top],   # the same, a pair an object
            "status": status,
        })
    return rows


# In the terminal a chain shows only what explains the operation: arcs that lead to a
# system call, and arcs worth at least this share of the loop (the JSON keeps more).
CHAIN_TERMINAL_SHARE = 0.05


def chain_children(node: dict, loop_total: float) -> list[dict]:
    """The children worth printing: a share of the loop's instructions, or on the way to a system call."""
    return [c for c in node["children"]
            if c.get("syscalls", 0) >= 0.5 or c["instructions"] >= CHAIN_TERMINAL_SHARE * max(loop_total, 1)]


def chain_lines(case: dict) -> list[tuple[int, str]]:
    """A case's layer chain as (depth, label) lines, the loop at depth 0: the terminal's tree,
    flattened for the exports. Empty if the case has no chain."""
    chain = (case.get("instructions") or {}).get("chain")
    if not chain:
        return []
    lines = [(0, chain_label(chain, root=True))]

    def walk(node: dict, depth: int) -> None:
        for child in chain_children(node, chain["instructions"]):
            lines.append((depth, chain_label(child)))
            walk(child, depth + 1)
    walk(chain, 1)
    return lines


def chain_label(node: dict, root: bool = False) -> str:
    calls = node.get("calls")
    times = "" if root or calls is None or round(calls, 2) == 1 else f" x{calls:g}"
    here = " (syscall)" if node.get("syscalls_here") else ""
    return f"{node['function']} [{node['object']}] {node['instructions']:,.0f}{times}{here}"


def stopping_line(exp: dict, verbose: bool = True) -> str | None:
    """How the rounds were spent: how many cases met the precision target, with how many rounds,
    and the ones that did not, with why (the budget, the maximum of rounds). The checkpoints the
    run reached are detail: only with verbose."""
    stop = exp.get("stopping")
    if not stop or not stop.get("rule") or not stop.get("cases"):
        return None
    rule, cases = stop["rule"], stop["cases"]
    met = [c for c in cases.values() if c["met"]]
    rounds = [c["rounds"] for c in cases.values()]
    checked = [c for c in rule["checkpoints"] if c <= max(rounds)]     # the checkpoints this run reached
    spent = (f"{max(rounds)} rounds each" if min(rounds) == max(rounds)
             else f"{min(rounds)}-{max(rounds)} rounds")
    line = (f"precision: {len(met)} of {len(cases)} cases within ±{rule['precision']:.0%} "
            f"({spent}" + ((f", checked after {', '.join(map(str, checked))})" if verbose else ")") if checked
                           else ", no checkpoint reached)"))
    missed = sorted(((c["precision"], name, c) for name, c in cases.items() if c["met"] is False), reverse=True)
    unknown = [name for name, c in cases.items() if c["met"] is None]
    if missed:
        whys = sorted({_why(c["stopped"]) for _, _, c in missed})
        # "stopped at the maximum of rounds or by the budget": the verb said once.
        whys = [w if i == 0 or not w.startswith("stopped ") or not whys[i - 1].startswith("stopped ")
                else w.removeprefix("stopped ") for i, w in enumerate(whys)]
        p, name, _ = missed[0]        # the others carry "~" in the table
        line += (f"; not met by {len(missed)} ({'worst: ' if len(missed) > 1 else ''}{name} {units.half_width(p)}), "
                 f"{' or '.join(whys)}")
    if unknown:
        line += f"; too few rounds to tell: {', '.join(unknown)}"
    return line


# Why a case that missed the target stopped, as the precision line says it. One that stopped
# "precise" met the target at its checkpoint; its interval is taken afterwards with the drift
# factor all of the experiment's rounds show, which the rounds after its stop can raise.
_WHYS = {"budget": "stopped by the budget", "out of reach": "stopped by a forecast past the budget",
         "max rounds": "stopped at the maximum of rounds", "interrupted": "interrupted", "failed": "failed",
         "precise": "widened after stopping within it, by the drift the later rounds showed"}


def _why(stopped: str) -> str:
    return _WHYS.get(stopped, f"stopped ({stopped})")


def concurrent_line(doc: dict) -> str | None:
    """The warning for a run measured while another layertax was measuring (--allow-concurrent)."""
    others = (doc.get("concurrent") or {}).get("others") or []
    if not others:
        return None
    who = ", ".join(f"pid {o['pid']} ({o['command']})" for o in others[:2]) + (" ..." if len(others) > 2 else "")
    return f"measured while another layertax was measuring on this machine: {who}; its load is in these figures"


# How a table's cell is written, by its column's unit (a table may carry numbers with their
# units rather than text: "ns" a time, "count" a count or a median of counts, "ratio" a ratio,
# "share" a fraction, "whole_share" one in whole percent; and figures with their intervals,
# {"median", "ci95"}: "ratio_ci" a ratio, "ratio_point" a ratio without its interval (the digits it
# supports only), "share_ci" a share, "stage" a time that may be within noise, "part" a stage as stats.as_time
# keeps it, "saving" a fix's saving, "rate" a throughput in GB/s, "interval" a time's interval
# alone, in its median's unit). A bare number in a figure's column is that figure without an
# interval; text is shown as it is.
CELL_WRITERS = {"ns": units.duration, "count": units.count, "ratio": units.ratio, "share": units.percent,
                "whole_share": units.whole_percent}


def _interval(figure: dict) -> str:
    """A time's interval beside its median's column: [1.10, 1.20], in the median's unit."""
    lo, hi = figure["ci95"]
    return f"[{units.bare(lo, figure['median'])}, {units.bare(hi, figure['median'])}]"


def _rate(figure: dict) -> str:
    """A throughput (GB/s) with "~" when its interval is wider than its target, and its share of
    the ceiling where it has one: 8.00 ~ (45%)."""
    target = figure.get("target")
    wide = " ~" if target is not None and stats.wider_than(figure, target) else ""
    share = figure.get("of_ceiling")
    return f"{figure['median']:.2f}{wide}" + (f" ({share:.0%})" if share is not None else "")


FIGURE_WRITERS = {"ratio_ci": units.ratio_with_ci, "ratio_point": units.ratio_point, "share_ci": units.share_with_ci,
                  "stage": units.stage, "part": units.part, "saving": units.saving, "rate": _rate,
                  "interval": _interval}       # one for each of result/schema.FIGURE_UNITS
BARE_FIGURE_WRITERS = {"ratio_ci": units.ratio, "ratio_point": units.ratio, "share_ci": units.whole_percent,
                       "stage": units.duration, "part": units.duration, "saving": units.duration,
                       "rate": lambda x: f"{x:.2f}", "interval": lambda x: "-"}


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _cell(value, unit: str | None):
    if unit in FIGURE_WRITERS:
        if isinstance(value, dict):
            return FIGURE_WRITERS[unit](value)
        if value is None:
            return "-"
        return BARE_FIGURE_WRITERS[unit](value) if _is_number(value) else value
    if isinstance(value, dict):
        return "-"          # validation refuses a figure outside a figure's column; never printed raw
    writer = CELL_WRITERS.get(unit or "")
    if writer is None or not (value is None or _is_number(value)):
        return value
    return "-" if value is None else writer(value)


def written(table: dict) -> dict:
    """The table with every number of a column that names its unit written in it (a table of
    text, as older results hold, as it is)."""
    kinds = table.get("units")
    if not kinds:
        return table
    rows = [[_cell(c, kinds[i] if i < len(kinds) else None) for i, c in enumerate(row)] for row in table["rows"]]
    return {**table, "rows": rows}


def headline(exp: dict) -> dict:
    """The experiment's "then vs now" in one line: its classic's most telling layer (the ratio
    farthest from 1x, faster or slower) and today's ratio of the nearest case."""
    classic = exp.get("classic") or {}
    rows = [r for r in exp.get("classic_now") or []
            if r.get("then_ratio") is not None and r["label"] != classic.get("baseline")]   # not the 1.00x row
    rows = [r for r in rows if r.get("now_ratio")] or rows   # a layer measured today, where there is one
    if not rows:
        return {"then": classic.get("conclusion", ""), "now": "", "label": ""}
    top = max(rows, key=lambda r: abs(math.log(r["then_ratio"])) if r["then_ratio"] > 0 else 0)   # farthest from 1x
    return {"label": top["label"], "then": units.ratio(top["then_ratio"]),
            "now": units.ratio_with_ci(top["now_ratio"]) if top["now_ratio"] else "no counterpart measured",
            "counterpart": top["counterpart"] or "-", "now_ratio": top["now_ratio"]}


def _quoted_case(exp: dict, name: str) -> dict | None:
    """A classic's counterpart case where its ratio is the one the classic quotes (both to the
    same baseline), so that what its row's marks say of that ratio holds for the classic's too."""
    case = next((c for c in exp.get("cases", []) if c["name"] == name), {})
    return case if analyze.classic_baseline(exp.get("classic") or {}) == analyze.baseline_of(exp, case) else None


def _moved_between_runs(exp: dict, name: str) -> dict | None:
    """The between-runs comparison of a classic's counterpart where its quoted ratio moved ("!")."""
    found = between_runs.found(exp, name)
    return found if found.get("moved") and _quoted_case(exp, name) is not None else None


def _at_two_levels(exp: dict, name: str) -> dict | None:
    """The two levels of a classic's counterpart's quoted ratio ("*" in its row)."""
    case = _quoted_case(exp, name) or {}
    return ((case.get("stats") or {}).get("ratio") or {}).get("two_levels") or None


def classic_now_text(exp: dict, row: dict) -> str:
    """A classic row's ratio today, with its interval, " *" where its counterpart's ratio sits at
    two levels and " !" where it moved between this machine's recent runs (as its own row in the
    main table says, whose legend explains them)."""
    name = row.get("counterpart")
    return (units.ratio_with_ci(row["now_ratio"]) + (" *" if name and _at_two_levels(exp, name) else "")
            + (" !" if name and _moved_between_runs(exp, name) else ""))


def answer(exp: dict) -> str | None:
    """The experiment's answer in one sentence, printed before its tables: the classic's most
    telling layer then and now, or each compared command's verdict (None: no one-line answer)."""
    if exp.get("answer"):             # said by the experiment itself (inspect's whole start-up)
        return exp["answer"]
    classic = exp.get("classic") or {}
    top = headline(exp)
    if top.get("label"):
        then = f"{top['label']}: {top['then']} of {classic.get('baseline')} in {classic.get('year')}"
        if not top.get("now_ratio"):
            return f"{then}; no counterpart measured today"
        lo, hi = top["now_ratio"]["ci95"]
        target = precision_target(exp)
        # An interval that holds 1 says "no different" only where it is narrow: a wide one cannot
        # tell a layer that costs nothing from one that costs the interval's width.
        verdict = ("dearer than its baseline today" if lo > 1 else "cheaper than its baseline today" if hi < 1 else
                   f"not told apart from its baseline today (its interval is wider than ±{target:.0%})"
                   if wider_than_target(top["now_ratio"], target) else "no different from its baseline today")
        # The interval excludes 1 by less than its printed digits show ([1.0, 1.3] for 1.0024 to
        # 1.27): the sentence says where it ends, so that it does not read as holding 1.
        d = units.ratio_decimals(top["now_ratio"]["median"], lo, hi)
        end = lo if lo > 1 else hi if hi < 1 else None
        if end is not None and round(end, d) == 1:
            verdict += f" (the interval ends at {units.clear_of_one(end, d + 1)})"
        moved = _moved_between_runs(exp, top["counterpart"])
        if moved:
            verdict += (f"; it moved between this machine's recent runs ({units.ratio(moved['low'])} to "
                        f"{units.ratio(moved['high'])})")
        # A sentence read alone must not pass for a steady figure where its row says it is not ("*").
        levels = _at_two_levels(exp, top["counterpart"])
        if levels:
            verdict += f"; its rounds sat at two levels, {two_levels.pair(levels)}, and the median follows their shares"
        return f"{then}, {top['now']} today ({top['counterpart']}): {verdict}"
    verdicts = [c for c in exp.get("cases", []) if c.get("verdict")]
    if verdicts:
        parts = []
        # launch's verdicts are on the start (spawn->main): said, with the ratio to exit beside it
        # where it was taken (what hyperfine times)
        on = f" in {exp['unit']}" if exp.get("unit") and any(c.get("exit_ratio") for c in verdicts) else ""
        for c in verdicts:
            ratio = c["stats"]["ratio"]
            said = (f"{c['name']} is {c['verdict']} than {exp['baseline']}{on} ({units.ratio_with_ci(ratio)})"
                    if c["verdict"] != "no difference" else
                    f"{c['name']}: no difference from {exp['baseline']}{on} ({units.ratio_with_ci(ratio)})")
            if c.get("exit_ratio"):
                said += f", spawn->exit {units.ratio_with_ci(c['exit_ratio'])}"
            parts.append(said)
        return "; ".join(parts)
    return None


def marked(row: dict) -> dict:
    """A case row with its marks on its figures, as every format prints them: "~" on the figure
    it is judged by, "*" on a ratio at two levels, "!" on a ratio that moved between runs, "^"
    on the ratio of a case that runs on every CPU at once."""
    marks = {row["noisy_key"]: " ~"} if row["noisy"] else {}
    if row.get("two_levels"):
        marks["ratio"] = marks.get("ratio", "") + " *"
    if row.get("moved"):
        marks["ratio"] = marks.get("ratio", "") + " !"
    if row.get("every_cpu"):
        marks["ratio"] = marks.get("ratio", "") + " ^"
    return {**row, **{key: row[key] + mark for key, mark in marks.items()}}


def marks_lines(exp: dict, rows: list[dict]) -> list[str]:
    """What each mark in a table means, a line each, under a table that has it."""
    lines = []
    if any(r["noisy"] for r in rows):
        lines.append(f"~ 95% interval wider than ±{precision_target(exp):.0%}, the target (a median describes this "
                     "run; a ratio compares)")
    if any(r.get("two_levels") for r in rows):
        lines.append("* its rounds sit at two levels: the median can move by the gap between runs")
    if any(r.get("moved") for r in rows):
        lines.append("! it differs between this machine's recent runs by more than their intervals: the interval "
                     "describes this run (--verbose: by how much)")
    if any(r.get("every_cpu") for r in rows):
        lines.append("^ it runs on every CPU at once and follows the load on the other CPUs, which can move it "
                     "between runs: the interval describes this run")
    return lines
