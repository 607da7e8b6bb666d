"""The measuring commands' declarations: list, run, launch, inspect, doctor. Each hands its
options, as they are, to one function in layertax.commands and exits with its code."""
from __future__ import annotations

from pathlib import Path

import click

from layertax.cli.options import CONTEXT, Duration, Finite, exit_with, keeping_options, launch_timer_options
from layertax.cli.options import export_values, timer_values, with_version
from layertax.engine.measure.settings import PAIRINGS, QUICK, THOROUGH, Settings

_D = Settings()   # defaults, shown in --help


@click.command("list", context_settings=CONTEXT)
@with_version
@click.argument("experiment", required=False)
def list_cmd(experiment: str | None) -> None:
    """List the experiments: what each asks, its case groups, and its classic source and figures
    (with EXPERIMENT: every case of it)."""
    from layertax.commands import listing

    exit_with(listing.run(experiment))


@click.command(context_settings=CONTEXT)
@with_version
@click.argument("experiment_names", metavar="[EXPERIMENT]...", nargs=-1)
@click.option("--quick", is_flag=True, help=f"A first answer in about a minute: precision +-{QUICK['precision']:.0%}, "
              f"{QUICK['min_rounds']} to {QUICK['runs']} rounds x {QUICK['burst']} samples of >= "
              f"{QUICK['min_sample_ns'] / 1e6:g} ms, a budget of {QUICK['budget_s']:g} s (explicit flags win).")
@click.option("--thorough", is_flag=True, help=f"The full fixed protocol: {THOROUGH['runs']} rounds of every case, "
              "no budget (tens of minutes for every experiment).")
@click.option("--precision", type=Finite(min=0.001, max=0.5), metavar="FRACTION",
              help="Add rounds to a case until the 95% interval of its ratio to its baseline (of its median, for "
                   f"a baseline) is within +-FRACTION. [default: {_D.precision}, i.e. +-{_D.precision:.0%}]")
@click.option("--budget", type=Duration(), metavar="TIME", help="Measuring time for the whole run (90s, 5m, 1h), "
              "shared among the experiments; cases that run out of it are flagged. 0: no limit. "
              f"[default: {_D.budget_s / 60:g}m]")
@click.option("--runs", type=click.IntRange(min=1), help="Exactly this many measured rounds for every case (no "
              "precision target, no budget); each case runs one burst, in a fresh process, per round. "
              f"[default: {_D.min_rounds} to {_D.runs}, driven by --precision]")
@click.option("--warmup", type=click.IntRange(min=0), help=f"Rounds run first and discarded. [default: {_D.warmup}]")
@click.option("--burst", type=click.IntRange(min=1), help=f"Samples per case per round. [default: {_D.burst}]")
@click.option("--pairing", type=click.Choice(PAIRINGS), help="beside: each case's burst runs next to a burst of "
              "its baseline, and its ratio divides by that one; round: cases and baselines shuffled through the "
              f"round, every ratio divided by the baseline's round median. [default: {_D.pairing}]")
@click.option("--baseline-bursts", type=click.IntRange(min=1, max=10), metavar="K", help="With --pairing round: "
              "bursts of each baseline per round, each in its own process; every ratio divides by the baseline's "
              f"round median, so more of them take its noise out of the ratios. [default: {_D.baseline_bursts}]")
@click.option("--min-time", type=Finite(min=0.0001, max=60), help="Minimum seconds per sample; kernels calibrate "
              f"their iterations to it. [default: {_D.min_sample_ns / 1e9:g}]")
@click.option("--jit-settle", type=Finite(min=0, max=60), metavar="SECONDS", help="Seconds a Java or Node.js "
              "kernel runs untimed after its warm-up, before its timed samples, while the JIT's compiler threads "
              f"(on its CPU) finish. [default: {_D.jit_settle_ns / 1e9:g}]")
@click.option("--case", "case_globs", multiple=True, metavar="GLOB", help="Run only cases matching GLOB (repeatable); the baseline always runs.")
@click.option("--timeout", type=Finite(min=0.1, max=86400), default=60.0, show_default=True, help="Seconds one kernel invocation may take before it is killed and its case marked failed.")
@click.option("--seed", type=int, help="Seed of the round shuffles (recorded in the result; give it to replay an order).")
@click.option("--cpu", type=click.IntRange(min=0), help="Pin kernels to this CPU. [default: $LAYERTAX_CPU, else the last usable CPU]")
@click.option("--no-pin", is_flag=True, help="Do not pin kernels to a CPU.")
@click.option("--no-priority", is_flag=True, help="Do not try to raise the kernels' scheduling priority.")
@click.option("--metric", type=click.Choice(["time", "instructions"]), default="time", show_default=True,
              help="time: interleaved timed rounds. instructions: user-space instructions per operation under "
                   "valgrind's callgrind (two runs, N1 and N2 iterations, differenced), by object, with each case's "
                   "chain of functions down to the system call; deterministic, independent of machine noise.")
@click.option("--all", "everything", is_flag=True, help="With no EXPERIMENT named: also the extended families "
              "(encoding's throughput matrix and per-runtime tables, scan's language runtimes), which a bare run leaves out.")
@click.option("--no-syscalls", is_flag=True, help="Skip the separate strace run that counts each case's system "
              "calls per operation (the timed runs are never traced).")
@keeping_options
def run(experiment_names, quick, thorough, precision, budget, runs, warmup, burst, pairing, baseline_bursts, min_time,
        jit_settle, case_globs, timeout, seed, cpu, no_pin, no_priority, no_save, allow_concurrent, metric, no_syscalls,
        everything, **options) -> None:
    """Run experiments (all of them if none is named) and print a table per experiment.

    A bare `layertax run` runs every experiment, building what it needs first (a
    minute or two the first time), then measuring for about its budget (4 minutes by default,
    --quick one; the minimum of rounds of every case can take longer, and says so).

    Every run is saved as JSON under $XDG_DATA_HOME/layertax/runs/ with its raw samples,
    and recorded in the history. Ctrl-C keeps the rounds that finished.
    """
    from layertax.commands import run as running

    exports = export_values(options)
    own = {key: value for key, value in options.items() if "__" in key}
    settings = {"quick": quick, "thorough": thorough, "precision": precision, "budget": budget, "runs": runs, "warmup": warmup, "burst": burst,
                "baseline_bursts": baseline_bursts, "pairing": pairing, "min_time": min_time, "jit_settle": jit_settle,
                "timeout": timeout, "seed": seed, "cpu": cpu, "pin": not no_pin, "raise_priority": not no_priority,
                "count_syscalls": not no_syscalls, "metric": metric}
    exit_with(running.run(experiment_names, case_globs, settings, own, exports, not no_save, allow_concurrent,
                          options["verbose"], everything))


@click.command(context_settings={**CONTEXT, "ignore_unknown_options": True, "allow_interspersed_args": False})
@with_version
@click.option("--runs", type=click.IntRange(min=1), default=100, show_default=True,
              help="Launches per command; commands alternate round by round (bench/launch_power.py "
                   "shows how many find a given difference on your machine).")
@click.option("--timeout", type=Finite(min=0.01, max=3600), default=10.0, show_default=True,
              help="Seconds one launch may take; a command that exceeds it is killed, reported, and not launched again.")
@click.option("-i", "--ignore-failure", is_flag=True, help="A non-zero exit status is not a failure.")
@click.option("--no-stamp", is_flag=True, help="Do not preload the stamp library: measure spawn->exit only.")
@launch_timer_options
@click.argument("command", nargs=-1, type=click.UNPROCESSED, required=True)
def launch(command, runs, timeout, ignore_failure, no_stamp, no_save, allow_concurrent, **options) -> None:
    """Time how long COMMAND takes to start (spawn->main) and to exit.

    \b
      layertax launch -- /bin/true
      layertax launch ./prog-lazy --vs ./prog-now     (A and B alternate: A B A B ...)

    A command that does not stamp itself gets a tiny stamp library preloaded; its own cost is
    measured against an empty program in the same run and reported. Nothing runs through a
    shell. A launch after another command's follows two untimed ones of its own (up to 3x the
    launches): a program starts slower right after a larger one (docs/method/launch-timer.md).
    """
    from layertax.commands import launch_args

    timer = timer_values(runs, timeout, options)
    exports = export_values(options)
    commands = launch_args.judged(list(command), runs, not no_stamp)
    from layertax.commands import launch as launching     # the engine and numpy: only for a sound command

    exit_with(launching.run(commands, timer, ignore_failure, not no_stamp, not no_save, allow_concurrent,
                            exports, options["verbose"]))


@click.command(context_settings=CONTEXT)
@with_version
@click.option("--runs", type=click.IntRange(min=1), default=30, show_default=True,
              help="Launches of each variant (lazy, LD_BIND_NOW=1, and the empty controls), alternating by round.")
@click.option("--timeout", type=Finite(min=0.01, max=3600), default=10.0, show_default=True,
              help="Seconds one launch may take (stdin is /dev/null); a program that exceeds it is killed and reported.")
@click.option("--model", "model_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Price the fixes with this saved `loadtime sweep` result. [default: the newest saved on this "
                   "machine, or a quick calibration run now]")
@click.option("--no-predict", is_flag=True, help="Skip the prediction and the fixes (no cost model needed).")
@click.option("--vs", metavar="OTHER", help="A second program (with its arguments, in one string) timed in the "
              "same rounds and split beside the first, stage by stage, with paired ratios.")
@click.option("--until-output", is_flag=True, help="The start-up ends at the program's first output (the first "
              "byte it writes to stdout or stderr), not at its exit; the fixes are priced on spawn->output.")
@launch_timer_options
@click.argument("binary")
@click.argument("args", nargs=-1)
def inspect(binary, args, runs, timeout, model_file, no_predict, vs, until_output, verbose, no_save,
            allow_concurrent, **options) -> None:
    """Why does BINARY take this long to reach main, and what would fix it?

    \b
      layertax inspect /usr/bin/python3
      layertax inspect ./myprog -- --flag input.txt   (arguments after --)
      layertax inspect ./prog-old --vs ./prog-new     (two programs, stage by stage)
      layertax inspect python3 --vs "python3 -S" -- -c pass
      layertax inspect --until-output java -- -version   (up to its first byte of output)

    Prints the answer first: the whole start-up, spawn->main and main->exit, and for
    CPython, the JVM, Node and Go the runtime's own split of the part after main; times
    start-up lazy and with LD_BIND_NOW=1, with stamps at the first constructor and at
    main; splits spawn->main into exec, loading, relocation and constructors; tries the
    fixes that need no rebuild and prices the others with the `loadtime sweep` cost model.
    --vs OTHER: a second program in the same rounds, split beside the first with paired
    ratios (OTHER with spaces is split like a shell would, no shell runs; without arguments of
    its own it gets BINARY's). Nothing runs through a shell.
    """
    from layertax.commands import inspect as inspecting

    timer = timer_values(runs, timeout, options)
    exit_with(inspecting.run(binary, list(args), timer, model_file, not no_predict, not no_save, allow_concurrent,
                             export_values(options), verbose, vs, until_output))


@click.command(context_settings=CONTEXT)
@with_version
@click.option("-v", "--verbose", is_flag=True, help="Also print the machine's fingerprint, the tools' versions "
              "and the CPU's mitigations.")
def doctor(verbose: bool) -> None:
    """How steady this machine is now, measured, and what would make it steadier.

    Watches the CPUs for a second, then runs the noise probe a run starts with (a few seconds):
    how far apart two processes doing the same work land here now, and what that gives a ratio
    in a default run's rounds. Then what would make measurements steadier, what to act on
    first.
    """
    from layertax.commands import doctor as doctoring

    exit_with(doctoring.run(verbose))


COMMANDS = (list_cmd, run, launch, inspect, doctor)
