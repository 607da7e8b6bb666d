"""The declarations of the commands that read results: compare, report, history (push,
migrate), import-hyperfine and import-windows."""
from __future__ import annotations

from pathlib import Path

import click

from layertax.cli.options import CONTEXT, Finite, exit_with, export_options, export_values, verbose_option, with_version


@click.command(context_settings=CONTEXT)
@with_version
@click.argument("files", metavar="[A.json] [B.json]...", nargs=-1)
@click.option("--vs-history", type=click.IntRange(min=1), metavar="N",
              help="Compare the run (the one FILE given, or the newest saved run) with the N-th previous saved run "
                   "on this machine that ran the same experiments, counted the same way (time or instructions).")
@click.option("--threshold", type=Finite(min=0, max=1), default=0.02, show_default=True,
              help="Noise band: a ratio within 1 +- this is 'no difference' even when significant.")
@click.option("--by-machine", is_flag=True, help="The fleet table: each run's ratios to the baseline side by side, "
              "one column per machine, and how the machines differ. [no RUN: each machine's newest in the history]")
@verbose_option
def compare(files, vs_history, threshold, by_machine, verbose) -> None:
    """Is B faster, slower, or no different from A, case by case? (A run is a file or @ID of the history.)

    \b
      layertax compare before.json after.json      (more files: each compared with the first)
      layertax compare --vs-history 1              (the newest run vs the one before it)
      layertax compare --by-machine a.json @12     (several machines side by side)

    Cases are matched by experiment and name. Each is judged on its ratio to its baseline round
    by round (so the machine's speed in each run cancels; a baseline on its own times): A, B,
    the ratio B/A (the median of the ratios of every round of B to every round of A) with the 95%
    interval the Mann-Whitney U test inverts, and a verdict from that test, Holm-corrected over all
    cases compared, together with the interval and the noise band, both widened for rounds that
    drifted together and for how far the ratio moves between this machine's runs where a run
    found it moving; a geometric-mean row per experiment. Warns when a
    baseline moved, and says how when the two machines differ. The counts of each verdict come
    first; --verbose adds how a verdict is reached and how each mean's interval was drawn.
    """
    from layertax.commands import compare as comparing

    exit_with(comparing.by_machine(files) if by_machine else comparing.run(files, vs_history, threshold, verbose))


@click.command(context_settings=CONTEXT)
@with_version
@click.argument("files", metavar="FILE...", nargs=-1, required=True, type=click.Path(dir_okay=True, path_type=Path))
# --export-html is the one HTML option; --html stays, hidden, for the scripts that use it.
@click.option("--html", "html", type=click.Path(dir_okay=False), metavar="OUT.html", hidden=True)
@export_options
@verbose_option
def report(files, html, verbose, **exports) -> None:
    """Print saved runs' tables again (a FILE, or @ID of the history), or turn a run into an HTML report or
    another format. --export-html takes several runs: one after another on the page.

    \b
      layertax report run.json --export-html report.html
      layertax report timed.json instructions.json --export-html report.html
      layertax report @3 --verbose
    """
    from layertax.commands import report as reporting

    exit_with(reporting.run(files, html, export_values(exports), verbose))


@click.command("import-hyperfine", context_settings=CONTEXT)
@with_version
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@export_options
def import_hyperfine(file: Path, **exports) -> None:
    """Bring a hyperfine result (`hyperfine --export-json FILE ...`) into the history.

    Each command becomes a case of the experiment "hyperfine", each of its runs a sample,
    so `layertax compare` and `compare --vs-history N` judge hyperfine runs the same way
    as layertax's own (Mann-Whitney U, Holm, the noise band).
    """
    from layertax.commands import imports

    exit_with(imports.import_hyperfine(file, export_values(exports)))



@click.group("history", context_settings=CONTEXT, invoke_without_command=True)
@with_version
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True, help="Show at most this many runs.")
@click.option("--all-machines", is_flag=True, help="In a shared history, every machine's runs, not only this "
              "machine's (the local history lists all it holds).")
@click.option("--experiment", metavar="NAME", help="Only the runs of this experiment (inspect and launch count as "
              "experiments).")
@click.option("--target", metavar="TEXT", help="Only the runs whose target (an inspected program, launched "
              "commands, the experiments) contains TEXT.")
@click.option("--machine", "machine_text", metavar="TEXT", help="Only the runs of machines whose summary (CPU, "
              "cores, kernel) contains TEXT.")
@verbose_option
@click.pass_context
def history_group(ctx, limit: int, all_machines: bool, experiment: str | None, target: str | None,
                  machine_text: str | None, verbose: bool) -> None:
    """List saved runs, newest first (in a shared history, this machine's unless --all-machines).

    \b
    The history is an SQLite file under the data directory unless LAYERTAX_HISTORY (or
    `layertax --history URL`) names a shared PostgreSQL one:
      LAYERTAX_HISTORY=postgresql://layertax@db.example/layertax layertax run
    Every run is kept whole in it, so `report @ID` and `compare @ID @ID` work from any machine.
    """
    from layertax.commands import history as histories

    if ctx.invoked_subcommand is None:
        exit_with(histories.listing(limit, all_machines, experiment, verbose, target, machine_text))


@history_group.command("push", context_settings=CONTEXT)
@with_version
@click.argument("files", metavar="FILE...", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
def push_command(files) -> None:
    """File saved runs in the history (all of them or, if anything fails, none); a run already
    there is not filed twice."""
    from layertax.commands import history as histories

    exit_with(histories.push(files))


@history_group.command("migrate", context_settings=CONTEXT)
@with_version
@click.option("--to", "target", required=True, metavar="URL", help="The history to copy into, e.g. "
              "postgresql://user@host/db (created and brought to the current schema if new).")
@click.option("--from", "source", metavar="URL", help="The history to copy. [default: this machine's SQLite "
              "history, or LAYERTAX_HISTORY]")
def migrate_command(target: str, source: str | None) -> None:
    """Copy every run of one history into another (this machine's SQLite history into a shared
    PostgreSQL one), in one transaction; runs already there are not copied twice."""
    from layertax.commands import history as histories

    exit_with(histories.migrate(target, source))


@history_group.command("prune", context_settings=CONTEXT)
@with_version
@click.option("--keep", type=click.IntRange(min=1), required=True, metavar="N",
              help="How many of this machine's newest runs stay.")
@click.option("--dry-run", is_flag=True, help="Say what would be forgotten, and remove nothing.")
def prune_command(keep: int, dry_run: bool) -> None:
    """Forget this machine's runs but the newest N: their rows in the history and their saved
    files in the runs directory (an SQLite history is compacted after, so the space comes back).

    Every run is kept whole, megabytes each, until pruned. A budgeted run reads the newest dozen
    to share its time, and the `!` mark the recent ones: keep at least that many. Runs imported
    from other machines, and a shared history's other machines' runs, stay.
    """
    from layertax.commands import history as histories

    exit_with(histories.prune(keep, dry_run))


@click.command("import-windows", context_settings=CONTEXT)
@with_version
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@export_options
def import_windows(file: Path, **exports) -> None:
    """File a results.json written by the Windows bundle's run.cmd in the history, and print its
    tables with then-vs-now beside the Linux analogues measured here."""
    from layertax.commands import windows

    exit_with(windows.import_results(file, export_values(exports)))


COMMANDS = (compare, report, import_hyperfine, history_group, import_windows)
