"""Measures the load-time program: build every variant, then three views of the loader.

1. The wall clock: spawn->main of every variant and of an empty program, launched
   round by round in a shuffled order by the C launch timer (the figure users wait for).
2. glibc's statistics (LD_DEBUG=statistics), LOADER_READINGS extra launches per variant.
3. Instructions per loader phase under callgrind, where valgrind exists.
Plus the static picture of every variant's files (relocations by kind, symbols).
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from layertax.engine import machine
from layertax.engine.analysis import analyze
from layertax.engine.builder import ninja, toolchain
from layertax.engine.measure.scheduler import select_cases
from layertax.engine.measure.settings import Settings
from layertax.engine.measure.stopping import StoppingRule
from layertax.programs import generate, variants
from layertax.programs.build import build_variants, split_available, variants_tree
from layertax.experiments.loadtime.split import stage_split
from layertax.experiments.loadtime.tables import loader_table, split_table, views_table
from layertax.elf import phases, elfinfo, loaderview
from layertax.launch import timer
from layertax.launch import settings as launch_settings
from layertax.launch import tools as launch_tools
from layertax.launch.rounds import FixedRounds, PreciseRounds
from layertax.launch.timer import launch_cases
from layertax.progress import NoProgress

LAUNCH_TIMEOUT_S = 10.0
# A round of every variant takes about a tenth of a second, so the rounds the kernels stop at are
# cheap here: the variants' ratios are checked first after 40 rounds (32 for --quick, about
# Pietrek's 30; the kernels' six leave intervals of +-20% here), and a variant whose ratio is
# not yet within the precision target goes on, with its baseline, to the next checkpoint, up to
# 320 (56). The ratios narrow as the square root of the launches: on the 2-vCPU VM 160 rounds
# left 3 of 14 within +-2% and 320 left 12 (`layertax run loadtime --runs 320`, each width
# taken again on the first 160 and 240 rounds), for about 20 s more of launches.
LAUNCH_ROUNDS = (40, 320)
QUICK_LAUNCH_ROUNDS = (32, 56)
# The level a launch's ratio stops at, and is reported at when it stopped precise. Nearly every
# ratio is looked at first after 40 rounds, where there is less selection for a stricter level
# to offset than at the kernels' 8: at their 97% the heavy-tailed model's stopped intervals
# covered 97.7%, at 96% 96.9% (bench/interval_coverage.py --rule 40:320:0.96,
# docs/method/statistics.md).
LAUNCH_CONFIDENCE = 0.96
# LD_DEBUG=statistics launches per variant. One launch's figure for what the loader adds over
# the empty program can be far off the wall clock's, so the tables read the median of several,
# paired with the empty program's reading of the same round; with fifteen a stage's interval
# lies inside the readings' range rather than spanning it (docs/method/loader-views.md). An
# odd count makes the median one of the readings.
LOADER_READINGS = 15


def loader_statistics(targets: list[launch_settings.Target], tools: launch_tools.LaunchTools, lsettings: launch_settings.LaunchSettings,
                      tsc: float | None, glibc: str | None) -> dict[str, dict]:
    """LOADER_READINGS LD_DEBUG=statistics launches per target, each timed too so that its tick
    scale can be checked. Per target: the reading with the median loader time (the counts are
    the same in every one), and under "readings" every reading's round and times."""
    readings = loaderview.statistics(targets, tools, lsettings, tsc, glibc, launches=LOADER_READINGS,
                                     wall_key="main_ns")
    return {name: median_reading(got) for name, got in readings.items()}


def median_reading(got: list[dict]) -> dict:
    """One target's readings as the loadtime result keeps them (see loader_statistics)."""
    ok = [r for r in got if r["status"] == "ok"]
    if not ok:
        return got[0] if got else {"status": "none", "reason": "no statistics printed (no dynamic loader?)"}
    timed = sorted((r for r in ok if r["total_ns"] is not None), key=lambda r: r["total_ns"])
    reading = dict(timed[(len(timed) - 1) // 2] if timed else ok[0])
    reading["spawn_to_main_ns_same_run"] = reading.pop("wall_ns_same_run")   # the name the tables have always read
    reading.pop("wall_key")
    reading["readings"] = [{"round": r["round"], "total_ns": r["total_ns"], "load_ns": r["load_ns"],
                            "relocation_ns": r["relocation_ns"], "tick_scale": r["tick_scale"],
                            "spawn_to_main_ns_same_run": r["wall_ns_same_run"]} for r in ok]
    return reading


def launch_rounds(settings: Settings) -> StoppingRule | None:
    """The run's stopping rule with the launches' rounds (LAUNCH_ROUNDS), None where the run's
    rounds are fixed (--runs, --thorough: Settings.stopping_rule)."""
    rule = settings.stopping_rule()
    if rule is None:
        return None
    least, most = QUICK_LAUNCH_ROUNDS if settings.quick else LAUNCH_ROUNDS
    return replace(rule, min_rounds=least, max_rounds=most, confidence=LAUNCH_CONFIDENCE)


def measure_shape(shape: generate.Shape, names: list[str] | None, settings: Settings, cache_root: Path,
                  progress=None, callgrind_for: set[str] | None = None, views: bool = True,
                  exp=None) -> tuple[dict, bool]:
    """Builds and measures one shape; returns the raw result (no statistics yet) and whether interrupted.

    callgrind_for: the variants counted under callgrind (None: all of them). exp: the experiment
    whose cases the variants are, when their rounds go on until each ratio is precise
    (launch_rounds); without it (a sweep's point) every variant runs settings.runs rounds.
    """
    progress = progress or NoProgress()
    chosen, skipped = split_available(names)
    progress.start("loadtime build", 1)
    tree, log = build_variants(shape, chosen, cache_root)
    progress.finish()
    tools = launch_tools.tools(cache_root)
    # Only glibc's view needs the TSC rate (a 100 ms measurement): not measured for a sweep point.
    tsc = timer.tsc_per_ns(tools) if views else None

    cases: list[dict] = []
    targets: list[launch_settings.Target] = []
    for v in [*chosen, variants.EMPTY]:
        program = tree / v.program()
        case = {"name": v.name, "kernel": "launch", "layer": v.what, "language": "c", "status": "ok",
                "reason": None, "descriptor": None, "samples": [], "program": str(program)}
        if not program.is_file():
            case["status"], case["reason"] = "failed", f"the build failed: {ninja.first_error(log)}"
        else:
            case["elf"] = elfinfo.describe_tree(program)
            targets.append(launch_settings.Target(v.name, (str(program),)))
        cases.append(case)
    for name, hint in skipped.items():
        cases.append({"name": name, "kernel": "launch", "layer": variants.by_name(name).what, "language": "c",
                      "status": "skipped", "reason": hint, "descriptor": None, "samples": []})

    rule = launch_rounds(settings) if exp is not None else None
    runs = rule.min_rounds if rule else settings.runs
    lsettings = launch_settings.LaunchSettings(runs=runs, warmup=settings.warmup, seed=settings.seed or 1,
                                      timeout=min(settings.timeout, LAUNCH_TIMEOUT_S), cpu=settings.cpu,
                                      raise_priority=settings.raise_priority)
    by_name = {c["name"]: c for c in cases}

    def loader_views(run: timer.LaunchRun) -> None:
        """glibc's statistics and callgrind's phases of every variant that launched."""
        live = [t for t in targets if t.name not in run.failures]
        progress.step("LD_DEBUG=statistics")
        for name, stats in loader_statistics(live, tools, lsettings, tsc, machine.libc_version()).items():
            by_name[name]["loader"] = stats
        if phases.available():
            for t in live:
                if callgrind_for is None or t.name in callgrind_for:
                    progress.step(f"callgrind {t.name}")
                    try:
                        by_name[t.name]["callgrind"] = phases.count(list(t.argv), {})
                    except Exception as e:  # a view that fails is reported, the run goes on
                        by_name[t.name]["callgrind"] = {"error": str(e)}

    rounds = PreciseRounds(exp, [t.name for t in targets], rule, "main_ns") if rule else FixedRounds(runs)
    launched = launch_cases(targets, lsettings, tools, progress, "loadtime",
                            extra_steps=(len(targets) if views else 0) * 2, then=loader_views if views else None,
                            rounds=rounds)
    for name, launched_case in launched.cases.items():
        by_name[name].update(samples=[s.to_json() for s in launched_case.samples], status=launched_case.status,
                             reason=launched_case.reason)
    interrupted = launched.interrupted
    # Its own method line: the run's ("rounds x samples >= 5 ms") describes the kernels' rounds.
    stopping = rounds.record(interrupted)
    launches = None
    if stopping and stopping["cases"]:
        done = [c["rounds"] for c in stopping["cases"].values()]
        launches = (f"{min(done)}-{max(done)} launches per variant (from {rule.min_rounds}, up to {rule.max_rounds} "
                    f"until its ratio is within ±{rule.precision:.0%}: checked after "
                    f"{', '.join(map(str, stopping['rule']['checkpoints']))})")
    result = {"shape": shape.to_dict(), "tree": str(tree), "metric": "main_ns", "cases": cases,
              "method": lsettings.method("variant", launches=launches)["method"], "stopping": stopping,
              "launch": {**launched.run.record(), "tsc_per_ns": tsc,
                         "stamp": "the generated main() writes CLOCK_MONOTONIC to a pipe as its first act"},
              "cpu_activity": launched.cpu_activity, "interrupted": interrupted,
              "callgrind": "valgrind --tool=callgrind" if phases.available() else toolchain.hint("valgrind")}
    return result, interrupted


def _variant_names(exp, case_globs: tuple[str, ...]) -> list[str] | None:
    """The variants --case names (None: all of them); the empty control is always measured."""
    if not case_globs:
        return None
    return [c.name for c in select_cases(exp, case_globs) if c.name != variants.EMPTY.name]


def builds(exp, cache_root: Path, case_globs: tuple[str, ...] = ()) -> list:
    """For the run's one ninja graph: the launch tools, and the classic shape's tree of the
    variants `measure` will launch (it then finds both in the cache)."""
    cc = toolchain.find("cc")
    if cc is None:
        return []
    chosen, _ = split_available(_variant_names(exp, case_globs))
    return [*launch_tools.tool_targets(cc), variants_tree(generate.Shape(), chosen, cc)]


def measure(exp, settings: Settings, progress, cache_root: Path, case_globs: tuple[str, ...] = ()
            ) -> tuple[dict, bool]:
    """`layertax run loadtime`: the classic configuration, every available variant (or those
    --case names, with the baseline; the empty control is always measured)."""
    quick_callgrind = {"default", "empty"} if settings.quick else None
    raw, interrupted = measure_shape(generate.Shape(), _variant_names(exp, case_globs), settings, cache_root, progress,
                                     quick_callgrind, exp=exp)
    result = {"name": exp.name, "title": exp.title, "question": exp.question, "unit": exp.unit,
              "baseline": exp.baseline, "notes": list(exp.notes), "classic": exp.classic.to_dict(),
              "harness": None, "kernels": {}, **raw}
    result = analyze.analyzed(result)
    result["split"] = stage_split(result)
    # The variants' table answers the question; the loader's views and the split are the detail
    # behind it (--verbose, and every export).
    result["tables"] = [{**loader_table(result), "detail": True}, {**views_table(result), "detail": True},
                        {**split_table(result), "detail": True}]
    return result, interrupted
