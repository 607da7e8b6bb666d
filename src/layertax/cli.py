"""The command line: parse, call the engine, print. Nothing else lives here."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import click
from rich.table import Table

from layertax import experiments, output, paths
from layertax.engine.settings import QUICK, Settings
from layertax.errors import LayertaxError, UsageError
from layertax.version import full_version

_D = Settings()   # defaults, shown in --help
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _version(f):
    return click.version_option(full_version(), "--version", "-V", prog_name="layertax",
                                message="%(prog)s %(version)s")(f)


@click.group(context_settings=CONTEXT)
@_version
@click.option("--debug", is_flag=True, help="Show Python tracebacks on errors.")
def cli(debug: bool) -> None:
    """Measures the tax each layer under a program charges: the loader, the C runtime,
    string-conversion shims, stdio locks, TLS, and each language's standard library."""


@cli.command("list", context_settings=CONTEXT)
@_version
def list_cmd() -> None:
    """List the experiments: what each asks, and its classic source and figures."""
    out = output.console()
    for exp in experiments.registry().values():
        c = exp.classic
        out.print(f"[bold]{exp.name}[/bold] - {exp.title}")
        out.print(f"  asks: {exp.question}")
        out.print(f"  cases: {', '.join(case.name for case in exp.cases)} (baseline: {exp.baseline})")
        out.print(f"  classic: {c.source}, {c.year}; {c.machine}")
        figures = ", ".join(f"{f.label} {f.value:g} ({r:.2f}x)" for f, r in zip(c.figures, c.ratios().values()))
        out.print(f"  then ({c.unit}): {figures}" if figures else f"  then: {c.conclusion}")
        out.print()


def _export_options(f):
    f = click.option("--export-html", type=click.Path(dir_okay=False), help="Also write a self-contained HTML report "
                     "(charts, the raw tables behind them, the machine and the command) here.")(f)
    f = click.option("--export-pyperf", type=click.Path(dir_okay=False), help="Also write pyperf's JSON here (one "
                     "benchmark per timed case, one run per round), for `pyperf compare_to` and `pyperf stats`.")(f)
    f = click.option("--export-csv", type=click.Path(dir_okay=False), help="Also write one CSV row per case here.")(f)
    f = click.option("--export-markdown", type=click.Path(dir_okay=False), help="Also write the tables as Markdown here.")(f)
    f = click.option("--export-json", type=click.Path(dir_okay=False), help="Also write the full result (raw samples) here.")(f)
    return f


@cli.command(context_settings=CONTEXT)
@_version
@click.argument("experiment_names", metavar="[EXPERIMENT]...", nargs=-1)
@click.option("--quick", is_flag=True, help=f"A short run: {QUICK['runs']} rounds x {QUICK['burst']} samples of >= "
              f"{QUICK['min_sample_ns'] / 1e6:g} ms (explicit flags win).")
@click.option("--runs", type=click.IntRange(min=1), help="Measured rounds; each case runs one burst, in a fresh "
              f"process, per round. [default: {_D.runs}]")
@click.option("--warmup", type=click.IntRange(min=0), help=f"Rounds run first and discarded. [default: {_D.warmup}]")
@click.option("--burst", type=click.IntRange(min=1), help=f"Samples per case per round. [default: {_D.burst}]")
@click.option("--min-time", type=click.FloatRange(min=0.0001), help="Minimum seconds per sample; kernels calibrate "
              f"their iterations to it. [default: {_D.min_sample_ns / 1e9:g}]")
@click.option("--case", "case_globs", multiple=True, metavar="GLOB", help="Run only cases matching GLOB (repeatable); the baseline always runs.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=60.0, show_default=True, help="Seconds one kernel invocation may take before it is killed and its case marked failed.")
@click.option("--seed", type=int, help="Seed of the round shuffles (recorded in the result; give it to replay an order).")
@click.option("--cpu", type=click.IntRange(min=0), help="Pin kernels to this CPU. [default: the last usable CPU]")
@click.option("--no-pin", is_flag=True, help="Do not pin kernels to a CPU.")
@click.option("--no-priority", is_flag=True, help="Do not try to raise the kernels' scheduling priority.")
@click.option("--no-save", is_flag=True, help="Do not save the run under the data directory or record it in the history.")
@click.option("--metric", type=click.Choice(["time", "instructions"]), default="time", show_default=True,
              help="time: interleaved timed rounds. instructions: user-space instructions per operation under "
                   "valgrind's callgrind (two runs, N1 and N2 iterations, differenced), by object, with each case's "
                   "chain of functions down to the system call; deterministic, independent of machine noise.")
@click.option("--no-syscalls", is_flag=True, help="Skip the separate strace run that counts each case's system "
              "calls per operation (the timed runs are never traced).")
@_export_options
def run(experiment_names, quick, runs, warmup, burst, min_time, case_globs, timeout, seed, cpu, no_pin,
        no_priority, no_save, metric, no_syscalls, export_json, export_markdown, export_csv, export_pyperf, export_html,
        **experiment_options) -> None:
    """Run experiments (all of them if none is named) and print a table per experiment.

    Every run is saved as JSON under $XDG_DATA_HOME/layertax/runs/ with its raw samples,
    and recorded in the history. Ctrl-C keeps the rounds that finished.
    """
    from layertax.engine import run as engine_run

    chosen = [experiments.get(n) for n in dict.fromkeys(experiment_names)] or list(experiments.registry().values())
    settings = engine_run.Settings(**(engine_run.QUICK if quick else {}), quick=quick, timeout=timeout, seed=seed,
                                   raise_priority=not no_priority, count_syscalls=not no_syscalls, metric=metric)
    if metric == "instructions":
        from layertax.engine import instructions

        if not instructions.available():
            raise UsageError("--metric instructions needs valgrind: install it (Debian: apt-get install valgrind)")
    explicit = {"runs": runs, "warmup": warmup, "burst": burst,
                 "min_sample_ns": None if min_time is None else int(min_time * 1e9)}
    for name, value in explicit.items():
        if value is not None:
            setattr(settings, name, value)
    settings.runs_given = runs is not None
    settings.given = tuple(name for name, value in explicit.items() if value is not None)
    settings.options = _experiment_options(chosen, experiment_options)
    settings.cpu = None if no_pin else (cpu if cpu is not None else engine_run.default_cpu())
    if settings.cpu is not None and settings.cpu not in os.sched_getaffinity(0):
        raise UsageError(f"--cpu {settings.cpu}: this process may only use CPUs {sorted(os.sched_getaffinity(0))}")
    settings.validate()
    if metric == "instructions" and all(exp.measure is not None for exp in chosen):
        raise UsageError(f"--metric instructions does not apply to {', '.join(e.name for e in chosen)}: it counts "
                         "kernel loops, and these experiments measure their own way (whole process launches, a "
                         "correctness matrix)")
    if case_globs:
        matching = []
        for exp in chosen:
            try:
                engine_run.select_cases(exp, case_globs)
                matching.append(exp)
            except UsageError:
                pass
        if not matching:
            raise UsageError(f"no case matches {', '.join(case_globs)} in {', '.join(e.name for e in chosen)}")
        chosen = matching
    exports = output.export_paths(export_json, export_markdown, export_csv, export_pyperf, export_html)
    code = _run(chosen, settings, case_globs, exports, save=not no_save)
    if code:
        raise click.exceptions.Exit(code)


def _experiment_options(chosen, values: dict) -> dict:
    """{experiment: {option: value}} from run's experiment-owned options (named "<experiment>__<option>");
    an option given for an experiment that is not being run is a usage error, not silently ignored."""
    names = {e.name for e in chosen}
    by_experiment: dict[str, dict] = {}
    for key, value in values.items():
        owner, option = key.split("__", 1)
        given = value not in (None, False, ())
        if given and owner not in names:
            flag = "--" + option.replace("_", "-")
            raise UsageError(f"{flag} belongs to the {owner} experiment, which is not being run (add it: "
                             f"`layertax run {owner} {flag} ...`)")
        by_experiment.setdefault(owner, {})[option] = value
    return by_experiment


def _run(chosen, settings, case_globs, exports, save: bool) -> int:
    from layertax.engine import instructions, kernels, machine, results
    from layertax.engine.run import Scheduler, settings_dict
    from layertax.progress import RichProgress
    from layertax.report import terminal

    out, err = output.console(), output.console(stderr=True)
    with output.busy("building kernels"):
        prepared = kernels.prepare(chosen, paths.cache_dir())
        fingerprint = machine.fingerprint()
    doc = output.new_document(None, fingerprint)
    saved_path = results.default_path(paths.runs_dir(), doc | {"experiments": [{"name": e.name} for e in chosen]})
    scheduler = Scheduler(settings, RichProgress(err), note=lambda message: err.print(message, style="dim"))
    doc["settings"] = settings_dict(settings)
    counting_instructions = settings.metric == "instructions"
    if counting_instructions:
        doc["settings"]["method"] = instructions.METHOD
    interrupted = False
    for exp in chosen:
        kmap = {k.name: prepared[(exp.name, k.name)] for k in exp.kernels}
        if exp.measure is not None:  # measured its own way (e.g. process launches), not by kernels
            if counting_instructions:
                err.print(f"{exp.name}: measured its own way, not by kernel loops; --metric instructions does not apply "
                          f"(see `layertax {exp.name} --help`)", style="yellow")
                continue
            result, interrupted = exp.measure(exp, settings, RichProgress(err), paths.cache_dir())
        elif counting_instructions:
            result, interrupted = instructions.measure_experiment(exp, kmap, case_globs, settings, RichProgress(err),
                                                                  note=lambda message: err.print(message, style="dim"))
        else:
            result, interrupted = scheduler.run_experiment(exp, kmap, case_globs)
        doc["experiments"].append(result)
        if save:  # after every experiment, so an interruption or crash keeps what finished
            results.save(doc, saved_path)
        if interrupted:
            break
    doc["complete"] = not interrupted
    output.keep(doc, out, save, exports, saved_path, show=lambda: terminal.render(doc, out))
    if interrupted:
        err.print("interrupted: kept the rounds that finished" + ("; saved above" if save else ""))
        return 130
    failed = [c["name"] for e in doc["experiments"] for c in e["cases"] if c["status"] == "failed"]
    if failed:
        err.print(f"layertax: {len(failed)} case(s) failed: {', '.join(failed)}")
        return 1
    return 0


def _launch_options(f):
    """The options every command built on the launch timer shares."""
    f = _export_options(f)
    f = click.option("--no-save", is_flag=True, help="Do not save the run or record it in the history.")(f)
    f = click.option("--no-priority", is_flag=True, help="Do not try to raise the launches' priority.")(f)
    f = click.option("--no-pin", is_flag=True, help="Do not pin the launches to a CPU.")(f)
    f = click.option("--seed", type=click.IntRange(min=1), help="Seed of the shuffled order (recorded).")(f)
    f = click.option("--warmup", type=click.IntRange(min=0), default=1, show_default=True,
                     help="Rounds run first and discarded.")(f)
    return f


def _launch_settings(runs, warmup, timeout, seed, no_pin, no_priority):
    import random

    from layertax.engine import launch as launch_engine
    from layertax.engine.run import default_cpu

    return launch_engine.LaunchSettings(runs=runs, warmup=warmup, timeout=timeout,
                                        cpu=None if no_pin else default_cpu(), raise_priority=not no_priority,
                                        seed=seed or random.SystemRandom().randrange(1, 2**32))


def _finish_launch_command(result: dict, settings, what: str, extra: str, save: bool, exports) -> None:
    """Prints, saves and exports a launch-timer result; exits 130 if interrupted, 1 if a case failed."""
    from layertax.engine import machine
    from layertax.report import terminal

    s = settings
    method = {"runs": s.runs, "warmup": s.warmup, "burst": 1, "min_sample_ns": 0, "seed": s.seed, "cpu": s.cpu,
              "timeout": s.timeout,
              "method": f"{s.runs} launches per {what} after {s.warmup} warm-up, {what}s alternating in shuffled "
                        f"rounds (seed {s.seed}), posix_spawn, cpu {s.cpu if s.cpu is not None else 'not pinned'}"
                        + extra}
    out = output.console()
    doc = output.new_document(method, machine.fingerprint(), [result], complete=not result["interrupted"])
    output.keep(doc, out, save, exports, show=lambda: terminal.render(doc, out))
    if result["interrupted"]:
        raise click.exceptions.Exit(130)
    if any(c["status"] == "failed" for c in result["cases"]):
        raise click.exceptions.Exit(1)


@cli.command(context_settings={**CONTEXT, "ignore_unknown_options": True, "allow_interspersed_args": False})
@_version
@click.option("--runs", type=click.IntRange(min=1), default=30, show_default=True,
              help="Launches per command (Pietrek's 30); commands alternate round by round.")
@click.option("--timeout", type=click.FloatRange(min=0.01), default=10.0, show_default=True,
              help="Seconds one launch may take; a command that exceeds it is killed, reported, and not launched again.")
@click.option("-i", "--ignore-failure", is_flag=True, help="A non-zero exit status is not a failure.")
@click.option("--no-stamp", is_flag=True, help="Do not preload the stamp library: measure spawn->exit only.")
@_launch_options
@click.argument("command", nargs=-1, type=click.UNPROCESSED, required=True)
def launch(command, runs, warmup, timeout, ignore_failure, no_stamp, seed, no_pin, no_priority, no_save,
           export_json, export_markdown, export_csv, export_pyperf, export_html) -> None:
    """Time how long COMMAND takes to start (spawn->main) and to exit.

    \b
      layertax launch -- /bin/true
      layertax launch ./prog-lazy --vs ./prog-now     (A and B alternate: A B A B ...)

    A command that does not stamp itself gets a tiny stamp library preloaded; its own
    cost is measured against an empty program in the same run and reported. Nothing
    runs through a shell.
    """
    from layertax.engine import launch as launch_engine
    from layertax.engine import launch_commands
    from layertax.progress import RichProgress

    argv = list(command)
    if argv and argv[0] == "--":
        argv = argv[1:]
    groups = [[]]
    for token in argv:
        if token == "--vs":
            groups.append([])
        else:
            groups[-1].append(token)
    if len(groups) > 2:
        raise UsageError("--vs can be given once (A --vs B)")
    commands = [launch_commands.resolve(g, "COMMAND" if i == 0 else "--vs") for i, g in enumerate(groups)]
    exports = output.export_paths(export_json, export_markdown, export_csv, export_pyperf, export_html)
    settings = _launch_settings(runs, warmup, timeout, seed, no_pin, no_priority)
    tools = launch_engine.tools(paths.cache_dir())
    result = launch_commands.measure(commands, settings, tools, ignore_failure, not no_stamp,
                                     RichProgress(output.console(stderr=True)))
    _finish_launch_command(result, settings, "command", "", not no_save, exports)


@cli.command(context_settings=CONTEXT)
@_version
@click.option("--runs", type=click.IntRange(min=1), default=30, show_default=True,
              help="Launches of each variant (lazy, LD_BIND_NOW=1, and the empty controls), alternating by round.")
@click.option("--timeout", type=click.FloatRange(min=0.01), default=10.0, show_default=True,
              help="Seconds one launch may take (stdin is /dev/null); a program that exceeds it is killed and reported.")
@click.option("--model", "model_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Price the fixes with this saved `loadtime sweep` result. [default: the newest saved on this "
                   "machine, or a quick calibration run now]")
@click.option("--no-predict", is_flag=True, help="Skip the prediction and the fixes (no cost model needed).")
@_launch_options
@click.argument("binary")
@click.argument("args", nargs=-1)
def inspect(binary, args, runs, warmup, timeout, model_file, no_predict, seed, no_pin, no_priority, no_save,
            export_json, export_markdown, export_csv, export_pyperf, export_html) -> None:
    """Why does BINARY take this long to reach main, and what would fix it?

    \b
      layertax inspect /usr/bin/python3
      layertax inspect ./myprog -- --flag input.txt   (arguments after --)

    Prints the dependency tree as the loader will resolve it with what each object asks
    of it (relocations, lookups, symbols, init functions); times start-up lazy and with
    LD_BIND_NOW=1, with stamps at the first constructor and at main; splits spawn->main
    into exec, loading, relocation and constructors; and prices each fix with the
    `loadtime sweep` cost model. Nothing runs through a shell.
    """
    from layertax.inspect.measure import STATS_LAUNCHES
    from layertax.inspect.run import inspect as run_inspect
    from layertax.progress import RichProgress

    exports = output.export_paths(export_json, export_markdown, export_csv, export_pyperf, export_html)
    err = output.console(stderr=True)
    settings = _launch_settings(runs, warmup, timeout, seed, no_pin, no_priority)
    result = run_inspect(binary, list(args), settings, model_file, not no_predict, lambda: RichProgress(err),
                         lambda m: err.print(m, style="dim"))
    _finish_launch_command(result, settings, "variant", f"; {STATS_LAUNCHES} LD_DEBUG=statistics launches per variant",
                           not no_save, exports)


@cli.command(context_settings=CONTEXT)
@_version
def doctor() -> None:
    """Describe this machine and say what would make measurements steadier."""
    from layertax.engine import machine, toolchain

    out = output.console()
    fp = machine.fingerprint()
    t = Table(title="machine", show_header=False, title_justify="left")
    t.add_column("key", style="bold")
    t.add_column("value")
    for key, value in fp.items():
        if key in ("mitigations", "tools"):
            continue
        t.add_row(key, "-" if value in (None, "", []) else str(value))
    out.print(t)
    tools = Table(title="tools", show_header=False, title_justify="left")
    tools.add_column("tool", style="bold")
    tools.add_column("version")
    for name, version in fp["tools"].items():
        tools.add_row(name, version)
    out.print(tools)
    vulnerable = {k: v for k, v in fp["mitigations"].items() if v.lower() != "not affected"}
    if vulnerable:
        out.print("[bold]CPU vulnerabilities[/bold] (mitigations tax every system call and context switch):")
        for k, v in vulnerable.items():
            out.print(f"  {k}: {v}")
    before = machine.cpu_times()
    time.sleep(1.0)
    activity = machine.cpu_activity(before, machine.cpu_times())
    out.print("\n[bold]for steadier measurements[/bold]")
    marks = {"ok": "[green]ok[/green]  ", "warn": "[yellow]warn[/yellow]", "info": "[blue]info[/blue]"}
    for level, message in machine.advice(fp, activity):
        out.print(f"  {marks[level]} {message}")
    missing = [toolchain.hint(n) for n in ("cc", "liburing", "clang", "lld", "mold", "musl-gcc", "valgrind", "strace")
               if not toolchain.available(n)]
    for line in missing:
        out.print(f"  [blue]info[/blue] {line}")


@cli.command(context_settings=CONTEXT)
@_version
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True, help="Show at most this many runs.")
def history(limit: int) -> None:
    """List saved runs, newest first."""
    from layertax.engine import history as hist

    rows = hist.runs(paths.history_db(), limit)
    out = output.console()
    if not rows:
        out.print("no runs yet: `layertax run` saves one")
        return
    t = Table(title_justify="left")
    for col in ("id", "created", "experiments", "complete", "version", "machine", "file"):
        t.add_column(col)
    for r in rows:
        t.add_row(str(r["id"]), r["created"], r["experiments"], "yes" if r["complete"] else "no",
                  r["version"], r["machine"], r["path"])
    out.print(t)


@cli.command(context_settings=CONTEXT)
@_version
@click.argument("files", metavar="[A.json] [B.json]...", nargs=-1, type=click.Path(path_type=Path))
@click.option("--vs-history", type=click.IntRange(min=1), metavar="N",
              help="Compare the run (the one FILE given, or the newest saved run) with the N-th previous saved run "
                   "on this machine that ran the same experiments.")
@click.option("--threshold", type=click.FloatRange(min=0, max=1), default=0.02, show_default=True,
              help="Noise band: a ratio within 1 +- this is 'no difference' even when significant.")
def compare(files, vs_history, threshold) -> None:
    """Is B faster, slower, or no different from A, case by case?

    \b
      layertax compare before.json after.json      (more files: each compared with the first)
      layertax compare --vs-history 1              (the newest run vs the one before it)

    Cases are matched by experiment and name. For each: A, B, the ratio B/A with a bootstrap
    95% interval (per-round medians), and a verdict from the Mann-Whitney U test, Holm-corrected
    over all cases compared, together with the interval and the noise band; a geometric-mean row
    per experiment. Warns, and says how, when the two machines differ.
    """
    from layertax.engine import compare as comparing
    from layertax.engine import history as hist
    from layertax.engine import results
    from layertax.report import comparison

    if vs_history is None and len(files) < 2:
        raise UsageError("compare needs two result files (A B), or --vs-history N")
    if vs_history is not None and len(files) > 1:
        raise UsageError("--vs-history compares one run with its history: give at most one FILE")
    if vs_history is not None:
        if files:
            subject_path = files[0]
        else:
            newest = hist.runs(paths.history_db(), 1)
            if not newest:
                raise UsageError("no saved runs yet: `layertax run` saves one")
            subject_path = Path(newest[0]["path"])
        subject = results.load(subject_path)
        earlier = hist.previous(paths.history_db(), subject, subject_path, vs_history)
        if earlier is None:
            raise UsageError(f"no {_ordinal(vs_history)} earlier run of {', '.join(e['name'] for e in subject['experiments'])} "
                             "on this machine in the history (see `layertax history`)")
        pairs = [(Path(earlier["path"]), subject_path)]
    else:
        pairs = [(files[0], other) for other in files[1:]]
    out = output.console()
    loaded = {p: results.load(p) for pair in pairs for p in pair}
    for i, (a, b) in enumerate(pairs):
        if i:
            out.print()
        doc_a, doc_b = loaded[a], loaded[b]
        with output.busy(f"comparing {b.name} with {a.name}"):
            result = comparing.compare_runs(doc_a, doc_b, threshold, _run_label(a, doc_a), _run_label(b, doc_b))
        if not result.experiments:
            raise UsageError(f"{a} and {b} have no experiment in common")
        comparison.render(result, out)


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def _run_label(path: Path, doc: dict) -> str:
    return f"{path} ({doc.get('created', '?')}, layertax {doc.get('layertax_version', '?')})"


@cli.command(context_settings=CONTEXT)
@_version
@click.argument("files", metavar="FILE...", nargs=-1, required=True, type=click.Path(dir_okay=True, path_type=Path))
@click.option("--html", "html", type=click.Path(dir_okay=False), metavar="OUT.html",
              help="Write one self-contained HTML report of the run(s) (several FILEs: one after another on the "
                   "page, e.g. a timed run and a --metric instructions run).")
@_export_options
def report(files, html, export_json, export_markdown, export_csv, export_pyperf, export_html) -> None:
    """Print saved runs' tables again, or turn a run into an HTML report or another format.

    \b
      layertax report run.json --html report.html
      layertax report timed.json instructions.json --html report.html
    """
    from layertax.engine import results
    from layertax.report import terminal

    if html and export_html:
        raise UsageError("--html and --export-html are the same option: give one")
    html = html or export_html
    exports = output.export_paths(export_json, export_markdown, export_csv, export_pyperf)
    if exports and len(files) > 1:
        raise UsageError(f"{', '.join(exports)} converts one run: give one FILE (only --html takes several)")
    html_target = output.export_paths(export_html=html).get("--export-html")
    docs = [results.load(f) for f in files]
    output.write_exports(docs[0], exports)   # files before printing: a closed stdout must not lose one
    if html_target:
        from layertax.report.html import to_html

        with output.busy(f"writing {html_target.name}"):
            html_target.write_text(to_html(*docs), encoding="utf-8")
        exports["--export-html"] = html_target
    out = output.console()
    for doc in docs:
        terminal.render(doc, out)
    for target in exports.values():
        out.print(f"wrote: {target.resolve()}", markup=False, highlight=False)


@cli.command("import-hyperfine", context_settings=CONTEXT)
@_version
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@_export_options
def import_hyperfine(file: Path, export_json, export_markdown, export_csv, export_pyperf, export_html) -> None:
    """Bring a hyperfine result (`hyperfine --export-json FILE ...`) into the history.

    Each command becomes a case of the experiment "hyperfine", each of its runs a sample,
    so `layertax compare` and `compare --vs-history N` judge hyperfine runs the same way
    as layertax's own (Mann-Whitney U, Holm, the noise band).
    """
    from layertax.engine import hyperfine, machine
    from layertax.report import terminal

    exports = output.export_paths(export_json, export_markdown, export_csv, export_pyperf, export_html)
    exp = hyperfine.experiment(file)
    settings = {"method": exp["method"]}
    doc = output.new_document(settings, machine.fingerprint(), [exp], complete=True)
    out = output.console()
    output.keep(doc, out, True, exports, show=lambda: terminal.render(doc, out))


def _add_experiment_commands() -> None:
    """Experiments' own commands, and their options of `run` (named "<experiment>__<option>",
    shown as "[experiment] ..." in `run --help`). Done once, before the CLI parses."""
    if getattr(_add_experiment_commands, "done", False):
        return
    _add_experiment_commands.done = True
    for exp in experiments.registry().values():
        if exp.commands is not None:
            cli.add_command(exp.commands())
        for option in (exp.run_options() if exp.run_options else ()):
            option.name = f"{exp.name}__{option.name}"
            option.help = f"[{exp.name}] {option.help or ''}"
            run.params.append(option)


def _fail(message: str, code: int) -> None:
    click.echo(f"layertax: error: {message}", err=True)
    sys.exit(code)


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    # A terminal or PYTHONIOENCODING that cannot encode a character (é in a table) must not
    # crash the run after the measurements: such characters print as \u escapes instead.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    debug = "--debug" in args or bool(os.environ.get("LAYERTAX_DEBUG"))
    try:
        _add_experiment_commands()
        code = cli.main(args=args, prog_name="layertax", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as e:  # `layertax` alone: show the help, as git does
        click.echo(e.ctx.get_help() if e.ctx else "")
        code = 0
    except click.UsageError as e:
        # One line, not click's three; the --help hint names the command that failed.
        command = e.ctx.command_path if e.ctx else "layertax"
        _fail(f"{e.format_message()} (see `{command} --help`)", 2)
    except click.exceptions.Abort:
        _fail("interrupted", 130)
    except LayertaxError as e:
        if debug:
            raise
        _fail(str(e), e.exit_code)
    except KeyboardInterrupt:
        _fail("interrupted", 130)
    except BrokenPipeError:
        sys.exit(1)
    except Exception as e:  # a bug in layertax: still one line, unless asked for the traceback
        if debug:
            raise
        _fail(f"internal error: {type(e).__name__}: {e} (rerun with --debug for the traceback)", 1)
    sys.exit(code if isinstance(code, int) else 0)
