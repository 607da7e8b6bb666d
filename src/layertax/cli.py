"""The command line: declare the commands and their options, call one function per command.

Each command's work lives in layertax.commands (one module per command); the options
are declared here and handed over as they are, and the exit code comes back.
"""
from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import click

# First, before any module of ours loads numpy or scipy: their OpenBLAS must not start a
# thread that spins on the CPU we measure on (blas_threads.py). Here and not in the package's
# __init__, which every Python kernel imports with its harness and should find as it was.
from layertax import blas_threads

blas_threads.install()

from layertax import experiments, scratch  # noqa: E402 (after the hook, on purpose)
from layertax.commands.options import CONTEXT, exit_with, export_options, export_values, keeping_options, with_version
from layertax.commands.options import launch_timer_options, timer_values
from layertax.commands.options import Duration, Finite
from layertax.engine.measure.settings import QUICK, THOROUGH, Settings
from layertax.errors import LayertaxError
from layertax.redaction import redact
from layertax.text import printable

_D = Settings()   # defaults, shown in --help


_version = with_version


_exit = exit_with


@click.group(context_settings=CONTEXT)
@_version
@click.option("--debug", is_flag=True, help="Show Python tracebacks on errors.")
@click.option("--history", "history_url", metavar="URL", envvar="LAYERTAX_HISTORY", help="Keep the history in this "
              "database (postgresql://user@host/db), shared by every machine that names it. [default: "
              "$LAYERTAX_HISTORY, else an SQLite file under the data directory]")
def cli(debug: bool, history_url: str | None) -> None:
    """Measures the tax each layer under a program charges: the loader, the C runtime,
    string-conversion shims, stdio locks, TLS, and each language's standard library."""
    if history_url:
        os.environ["LAYERTAX_HISTORY"] = history_url     # read where the history is opened, and by children


@cli.command("list", context_settings=CONTEXT)
@_version
@click.argument("experiment", required=False)
def list_cmd(experiment: str | None) -> None:
    """List the experiments: what each asks, its case groups, and its classic source and figures
    (with EXPERIMENT: every case of it)."""
    from layertax.commands import listing

    _exit(listing.run(experiment))


@cli.command(context_settings=CONTEXT)
@_version
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
@click.option("--min-time", type=Finite(min=0.0001, max=60), help="Minimum seconds per sample; kernels calibrate "
              f"their iterations to it. [default: {_D.min_sample_ns / 1e9:g}]")
@click.option("--case", "case_globs", multiple=True, metavar="GLOB", help="Run only cases matching GLOB (repeatable); the baseline always runs.")
@click.option("--timeout", type=Finite(min=0.1, max=86400), default=60.0, show_default=True, help="Seconds one kernel invocation may take before it is killed and its case marked failed.")
@click.option("--seed", type=int, help="Seed of the round shuffles (recorded in the result; give it to replay an order).")
@click.option("--cpu", type=click.IntRange(min=0), help="Pin kernels to this CPU. [default: the last usable CPU]")
@click.option("--no-pin", is_flag=True, help="Do not pin kernels to a CPU.")
@click.option("--no-priority", is_flag=True, help="Do not try to raise the kernels' scheduling priority.")
@click.option("--metric", type=click.Choice(["time", "instructions"]), default="time", show_default=True,
              help="time: interleaved timed rounds. instructions: user-space instructions per operation under "
                   "valgrind's callgrind (two runs, N1 and N2 iterations, differenced), by object, with each case's "
                   "chain of functions down to the system call; deterministic, independent of machine noise.")
@click.option("--no-syscalls", is_flag=True, help="Skip the separate strace run that counts each case's system "
              "calls per operation (the timed runs are never traced).")
@keeping_options
def run(experiment_names, quick, thorough, precision, budget, runs, warmup, burst, min_time, case_globs, timeout,
        seed, cpu, no_pin, no_priority, no_save, allow_concurrent, metric, no_syscalls, **options) -> None:
    """Run experiments (all of them if none is named) and print a table per experiment.

    Every run is saved as JSON under $XDG_DATA_HOME/layertax/runs/ with its raw samples,
    and recorded in the history. Ctrl-C keeps the rounds that finished.
    """
    from layertax.commands import run as running

    exports = export_values(options)
    own = {key: value for key, value in options.items() if "__" in key}
    settings = {"quick": quick, "thorough": thorough, "precision": precision, "budget": budget, "runs": runs, "warmup": warmup, "burst": burst, "min_time": min_time,
                "timeout": timeout, "seed": seed, "cpu": cpu, "pin": not no_pin, "raise_priority": not no_priority,
                "count_syscalls": not no_syscalls, "metric": metric}
    _exit(running.run(experiment_names, case_globs, settings, own, exports, not no_save, allow_concurrent))


@cli.command(context_settings={**CONTEXT, "ignore_unknown_options": True, "allow_interspersed_args": False})
@_version
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
    from layertax.commands import launch as launching

    timer = timer_values(runs, timeout, options)
    _exit(launching.run(list(command), timer, ignore_failure, not no_stamp, not no_save, allow_concurrent,
                        export_values(options)))


@cli.command(context_settings=CONTEXT)
@_version
@click.option("--runs", type=click.IntRange(min=1), default=30, show_default=True,
              help="Launches of each variant (lazy, LD_BIND_NOW=1, and the empty controls), alternating by round.")
@click.option("--timeout", type=Finite(min=0.01, max=3600), default=10.0, show_default=True,
              help="Seconds one launch may take (stdin is /dev/null); a program that exceeds it is killed and reported.")
@click.option("--model", "model_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Price the fixes with this saved `loadtime sweep` result. [default: the newest saved on this "
                   "machine, or a quick calibration run now]")
@click.option("--no-predict", is_flag=True, help="Skip the prediction and the fixes (no cost model needed).")
@click.option("--verbose", is_flag=True, help="Print every table (the dependency tree, the measured picture, the "
              "lookups, the prediction), not only the split and the fixes; the saved result has them all.")
@launch_timer_options
@click.argument("binary")
@click.argument("args", nargs=-1)
def inspect(binary, args, runs, timeout, model_file, no_predict, verbose, no_save, allow_concurrent,
            **options) -> None:
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
    from layertax.commands import inspect as inspecting

    timer = timer_values(runs, timeout, options)
    _exit(inspecting.run(binary, list(args), timer, model_file, not no_predict, not no_save, allow_concurrent,
                         export_values(options), verbose))


@cli.command(context_settings=CONTEXT)
@_version
def doctor() -> None:
    """Describe this machine and say what would make measurements steadier."""
    from layertax.commands import doctor as doctoring

    _exit(doctoring.run())


@cli.command(context_settings=CONTEXT)
@_version
@click.argument("files", metavar="[A.json] [B.json]...", nargs=-1)
@click.option("--vs-history", type=click.IntRange(min=1), metavar="N",
              help="Compare the run (the one FILE given, or the newest saved run) with the N-th previous saved run "
                   "on this machine that ran the same experiments.")
@click.option("--threshold", type=Finite(min=0, max=1), default=0.02, show_default=True,
              help="Noise band: a ratio within 1 +- this is 'no difference' even when significant.")
@click.option("--by-machine", is_flag=True, help="The fleet table: each run's ratios to the baseline side by side, "
              "one column per machine, and how the machines differ. [no RUN: each machine's newest in the history]")
def compare(files, vs_history, threshold, by_machine) -> None:
    """Is B faster, slower, or no different from A, case by case? (A run is a file or @ID of the history.)

    \b
      layertax compare before.json after.json      (more files: each compared with the first)
      layertax compare --vs-history 1              (the newest run vs the one before it)
      layertax compare --by-machine a.json @12     (several machines side by side)

    Cases are matched by experiment and name. Each is judged on its ratio to its baseline round
    by round (so the machine's speed in each run cancels; a baseline on its own times): A, B,
    the ratio B/A with a bootstrap 95% interval, and a verdict from the Mann-Whitney U test,
    Holm-corrected over all cases compared, together with the interval and the noise band, both
    widened for rounds that drifted together; a geometric-mean row per experiment. Warns when a
    baseline moved, and says how when the two machines differ.
    """
    from layertax.commands import compare as comparing

    _exit(comparing.by_machine(files) if by_machine else comparing.run(files, vs_history, threshold))


@cli.command(context_settings=CONTEXT)
@_version
@click.argument("files", metavar="FILE...", nargs=-1, required=True, type=click.Path(dir_okay=True, path_type=Path))
@click.option("--html", "html", type=click.Path(dir_okay=False), metavar="OUT.html",
              help="Write one self-contained HTML report of the run(s) (several FILEs: one after another on the "
                   "page, e.g. a timed run and a --metric instructions run).")
@export_options
def report(files, html, **exports) -> None:
    """Print saved runs' tables again (a FILE, or @ID of the history), or turn a run into an HTML report or
    another format.

    \b
      layertax report run.json --html report.html
      layertax report timed.json instructions.json --html report.html
    """
    from layertax.commands import report as reporting

    _exit(reporting.run(files, html, export_values(exports)))


@cli.command("import-hyperfine", context_settings=CONTEXT)
@_version
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@export_options
def import_hyperfine(file: Path, **exports) -> None:
    """Bring a hyperfine result (`hyperfine --export-json FILE ...`) into the history.

    Each command becomes a case of the experiment "hyperfine", each of its runs a sample,
    so `layertax compare` and `compare --vs-history N` judge hyperfine runs the same way
    as layertax's own (Mann-Whitney U, Holm, the noise band).
    """
    from layertax.commands import imports

    _exit(imports.import_hyperfine(file, export_values(exports)))


def _add_module_commands() -> None:
    """Commands declared beside their work (a group with subcommands reads best in one place)."""
    from layertax.commands.fleet import fleet_group
    from layertax.commands.history import history_group
    from layertax.commands.windows import import_windows, windows_group

    for command in (history_group, fleet_group, windows_group, import_windows):
        cli.add_command(command)


def _add_experiment_commands() -> None:
    """Experiments' own commands, and their options of `run` (named "<experiment>__<option>",
    shown as "[experiment] ..." in `run --help`). Done once, before the CLI parses."""
    if getattr(_add_experiment_commands, "done", False):
        return
    _add_experiment_commands.done = True
    from layertax.commands.kit import CliKit

    for exp in experiments.registry().values():
        commands = exp.hook("commands")
        if commands is not None:
            cli.add_command(commands(CliKit()))
        run_options = exp.hook("run_options")
        for option in (run_options() if run_options else ()):
            option.name = f"{exp.name}__{option.name}"
            option.help = f"[{exp.name}] {option.help or ''}"
            run.params.append(option)


def _stop_on_signals() -> dict:
    """SIGTERM and SIGHUP end a run the way Ctrl-C does (KeyboardInterrupt): the rounds that
    finished are kept, children are ended, temporary directories removed; the exit code is
    128 + the signal's number. Returns where the signal that stopped it is recorded."""
    stopped: dict = {}

    def stop(signum, frame):
        stopped["signal"] = signum
        raise KeyboardInterrupt

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)
    return stopped


def _fail(message: str, code: int) -> None:
    """The one line every error ends in: a password in it redacted, its control characters
    escaped (a message may quote a file name or a program's words)."""
    click.echo(f"layertax: error: {printable(redact(message))}", err=True)
    sys.exit(code)


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    # A terminal or PYTHONIOENCODING that cannot encode a character (é in a table) must not
    # crash the run after the measurements: such characters print as \u escapes instead.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    debug = "--debug" in args or bool(os.environ.get("LAYERTAX_DEBUG"))
    stopped_by = _stop_on_signals()
    scratch.sweep_abandoned()        # the private directories of runs that were SIGKILLed
    try:
        _add_experiment_commands()
        _add_module_commands()
        code = cli.main(args=args, prog_name="layertax", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as e:  # `layertax` alone: show the help, as git does
        click.echo(e.ctx.get_help() if e.ctx else "")
        code = 0
    except click.UsageError as e:
        # One line, not click's three; the --help hint names the command that failed.
        command = e.ctx.command_path if e.ctx else "layertax"
        _fail(f"{e.format_message()} (see `{command} --help`)", 2)
    except click.exceptions.Abort:
        _fail("interrupted", 128 + stopped_by.get("signal", signal.SIGINT))
    except LayertaxError as e:
        if debug:
            raise
        _fail(str(e), e.exit_code)
    except KeyboardInterrupt:
        _fail("interrupted", 128 + stopped_by.get("signal", signal.SIGINT))
    except BrokenPipeError:
        sys.exit(1)
    except Exception as e:  # a bug in layertax: still one line, unless asked for the traceback
        if debug:
            raise
        _fail(f"internal error: {type(e).__name__}: {e} (rerun with --debug for the traceback)", 1)
    code = code if isinstance(code, int) else 0
    if code == 130 and stopped_by.get("signal"):   # stopped by SIGTERM or SIGHUP, kept like Ctrl-C
        code = 128 + stopped_by["signal"]
    sys.exit(code)
