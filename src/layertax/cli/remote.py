"""The declarations of the commands that reach beyond this machine: fleet (Ansible hosts) and
windows (the PE bundle for a Windows machine, or Wine here)."""
from __future__ import annotations

from pathlib import Path

import click

from layertax.cli.options import CONTEXT, exit_with, export_values, keeping_options, with_version


@click.group("fleet", context_settings=CONTEXT)
@with_version
def fleet_group() -> None:
    """Run layertax on many machines at once with Ansible, and set their results side by side."""


@fleet_group.command("run", context_settings={**CONTEXT, "ignore_unknown_options": True})
@with_version
@click.option("--inventory", "-i", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Ansible inventory of the hosts (INI or YAML); see deploy/ansible/hosts.example.ini.")
@click.option("--limit", metavar="PATTERN", help="Only the inventory hosts matching this Ansible pattern.")
@click.option("--wheel", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Install this layertax wheel. [default: built now from the source tree layertax runs from]")
@click.option("--html", type=click.Path(dir_okay=False, path_type=Path), metavar="OUT.html",
              help="Also write an HTML report: the machines side by side, then each host's run.")
@click.argument("run_args", metavar="[EXPERIMENT]... [RUN OPTIONS]", nargs=-1, type=click.UNPROCESSED)
def run_command(inventory, limit, wheel, html, run_args) -> None:
    """Run `layertax run [EXPERIMENT]... [RUN OPTIONS]` on every host of INVENTORY at once.

    \b
      layertax fleet run --inventory hosts.ini callchain --quick
      layertax fleet run -i hosts.ini --limit 'lab:!arm-box' tls --runs 20

    The run arguments are checked here first, by `layertax run`'s own parser. Then it
    builds a layertax wheel here, and the playbook shipped with layertax (deploy/ansible/)
    installs it in its own venv on each host, runs the experiments there (each host measures
    only itself), and fetches the result JSON. Each result is saved and filed in the history
    (LAYERTAX_HISTORY for a shared one), marked with its host; then the fleet table: per case,
    each machine's ratio to the baseline, and what differs between the machines.
    """
    from layertax.commands import fleet as fleets

    # Judged by this tree's parser even with --wheel: a typo fails here, not on every host after
    # the install (a wheel of another version with other options is the rare case, and the
    # check names the option it does not know).
    fleets.check_run_args(list(run_args))
    exit_with(fleets.run(inventory, list(run_args), limit, wheel, html))


def _shape_options(f):
    """N, M and K of the generated program, and the rounds."""
    f = click.option("--relocs", type=click.IntRange(min=0, max=10000), default=5, show_default=True,
                     help="K: base relocations (absolute pointers) per exported function.")(f)
    f = click.option("--exports", type=click.IntRange(min=1, max=65535), default=100, show_default=True,
                     help="M: functions each DLL exports.")(f)
    f = click.option("--libs", type=click.IntRange(min=1, max=64), default=10, show_default=True,
                     help="N: DLLs.")(f)
    f = click.option("--runs", type=click.IntRange(min=1, max=100000), default=30, show_default=True,
                     help="Rounds: each launches every variant once, loads every DLL set once and takes one sample "
                          "of every kernel, in a shuffled order.")(f)
    return f


@click.group("windows", context_settings=CONTEXT)
@with_version
def windows_group() -> None:
    """Pietrek's experiments on their own platform: PE programs built here and verified, a bundle
    for a Windows machine, and the same bundle run here under Wine."""


@windows_group.command("bundle", context_settings=CONTEXT)
@with_version
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=Path("pietrek.zip"),
              show_default=True, help="The zip to write (a file is replaced whole; a device, a FIFO or - is written as a stream).")
@_shape_options
def bundle_command(out: Path, runs: int, libs: int, exports: int, relocs: int) -> None:
    """Build the zip to copy to a Windows machine: unpack it, run run.cmd, bring back results.json
    (then `layertax import-windows results.json`)."""
    from layertax.commands import windows

    exit_with(windows.bundle(out, runs, windows.shape_of(libs, exports, relocs)))


@windows_group.command("run", context_settings=CONTEXT)
@with_version
@_shape_options
@keeping_options
def windows_run_command(runs: int, libs: int, exports: int, relocs: int, no_save: bool, allow_concurrent: bool,
                        verbose: bool, **exports_options) -> None:
    """Build the bundle, run it under Wine end to end (run.cmd, as a user would), and print each
    variant's correctness and Wine's timings, labelled as Wine's: Wine proves correctness, never
    Windows timing."""
    from layertax.commands import windows

    shape = windows.shape_of(libs, exports, relocs)
    exit_with(windows.run(runs, shape, not no_save, allow_concurrent, export_values(exports_options), verbose))


COMMANDS = (fleet_group, windows_group)
