"""The command line: the top-level group, the commands of each family added to it, and main.

Options are declared in this package, one module per family (measuring.py, results.py,
remote.py; options.py what they share); each command's work lives in layertax.commands and
gets the options as they are, and its exit code comes back. An experiment's own commands and
run options come from the experiment's declaration (kit.py lends them what they need).
"""
from __future__ import annotations

import inspect
import os
import signal
import sys

import click

# First, before any module of ours loads numpy or scipy: their OpenBLAS must not start a
# thread that spins on the CPU we measure on (blas_threads.py). Here and not in the package's
# __init__, which every Python kernel imports with its harness and should find as it was.
from layertax import blas_threads

blas_threads.install()

from layertax import scratch  # noqa: E402 (after the hook, on purpose)
from layertax.cli import measuring, remote, results  # noqa: E402
from layertax.cli.options import CONTEXT, with_version  # noqa: E402
from layertax.errors import LayertaxError
from layertax.redaction import redact
from layertax.text import printable


class _Commands(click.Group):
    """The top-level group. The experiments' own commands and their options of `run` are added
    when a command is looked up that may need them (`run`, a name that is not a family's
    command) or when the commands are listed, not at every start: every experiment's
    declaration and hooks load then, which `--version`, `history` or `report` never use."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name == "run" or cmd_name not in self.commands:
            _add_experiment_commands()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        _add_experiment_commands()
        return super().list_commands(ctx)


@click.group(cls=_Commands, context_settings=CONTEXT)
@with_version
@click.option("--debug", is_flag=True, help="Show Python tracebacks on errors.")
@click.option("--history", "history_url", metavar="URL", envvar="LAYERTAX_HISTORY", help="Keep the history in this "
              "database (postgresql://user@host/db), shared by every machine that names it. [default: "
              "$LAYERTAX_HISTORY, else an SQLite file under the data directory]")
def cli(debug: bool, history_url: str | None) -> None:
    """Measures the tax each layer under a program charges: the loader, the C runtime,
    string-conversion shims, stdio locks, TLS, and each language's standard library."""
    if history_url:
        os.environ["LAYERTAX_HISTORY"] = history_url     # read where the history is opened, and by children


def _add_family_commands() -> None:
    """Every command of every family, in the order `layertax --help` lists them."""
    for command in (*measuring.COMMANDS, *results.COMMANDS, *remote.COMMANDS):
        if command.name not in cli.commands:
            cli.add_command(command)


def _add_experiment_commands() -> None:
    """Experiments' own commands, and their options of `run` (named "<experiment>__<option>",
    shown as "[experiment] ..." in `run --help`). Done once, before the CLI parses."""
    if getattr(_add_experiment_commands, "done", False):
        return
    _add_experiment_commands.done = True
    from layertax import experiments
    from layertax.cli.kit import CliKit

    names = ", ".join(experiments.registry())
    measuring.run.help = inspect.cleandoc(measuring.run.help or "") + \
        f"\n\nExperiments: {names} (`layertax list` says what each asks)."
    for exp in experiments.registry().values():
        commands = exp.hook("commands")
        if commands is not None:
            cli.add_command(commands(CliKit()))
        run_options = exp.hook("run_options")
        for option in (run_options() if run_options else ()):
            option.name = f"{exp.name}__{option.name}"
            option.help = f"[{exp.name}] {option.help or ''}"
            measuring.run.params.append(option)


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
        _add_family_commands()
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
