"""`layertax fleet run`: the same experiments on every host of an Ansible inventory at once,
the results brought back, filed in the history (local or shared) and set side by side."""
from __future__ import annotations

import uuid
from pathlib import Path

import click

from layertax import console as consoles
from layertax import experiments
from layertax.commands import run as running
from layertax.commands.options import CONTEXT, exit_with, with_version
from layertax.engine.analysis import fleet as fleets
from layertax.engine.store import history, results, runs
from layertax.errors import LayertaxError
from layertax.fleet import deploy
from layertax.report import fleet as fleet_view
from layertax.scratch import private_dir


def _file(fetched: Path, hosts: list[str], fleet_id: str, inventory: Path) -> tuple[list[tuple[str, dict]], list[str]]:
    """Each host's result, marked with the host and the fleet run, saved and filed; and the hosts
    that sent none."""
    filed, missing = [], []
    for host in hosts:
        got = fetched / f"{host}.json"
        if not got.is_file():
            missing.append(host)
            continue
        doc = results.load(got)
        doc["fleet"] = {"id": fleet_id, "host": host, "inventory": inventory.name}
        path = runs.new_path(doc)
        try:
            runs.save_run(doc, path)
        except history.HistoryError as e:
            consoles.console(stderr=True).print(f"layertax: saved {path} but not in the history: {e}",
                                                markup=False, highlight=False)
        filed.append((str(path), doc))
    return filed, missing


def check_run_args(run_args: list[str]) -> None:
    """`layertax run`'s own parser on the arguments, here and now: a typo ("--bogus", an unknown
    experiment, an option of an experiment not named) fails in one line before the wheel is
    built and the hosts are set up, not once per host minutes later. The parser is the one of
    this tree, the same as the wheel's unless --wheel names another build."""
    root = click.get_current_context().find_root()
    run_command = root.command.get_command(root, "run")
    with run_command.make_context("run", list(run_args), parent=root) as ctx:
        chosen = [experiments.get(name) for name in ctx.params["experiment_names"]]
        own = {key: value for key, value in ctx.params.items() if "__" in key}
        running.experiment_options(chosen or list(experiments.registry().values()), own)


def run(inventory: Path, run_args: list[str], limit: str | None, wheel: Path | None, html: Path | None) -> int:
    err = consoles.console(stderr=True)
    html_target = results.check_writable(html, "--html") if html else None
    runs.check_store()                                  # before minutes of deploying, not after
    fleet_id = uuid.uuid4().hex[:12]
    with private_dir("fleet") as work:
        env = deploy.environment(work)
        hosts = deploy.hosts(inventory, limit, env)
        err.print(f"fleet {fleet_id}: {len(hosts)} host(s): {', '.join(hosts)}", markup=False, highlight=False)
        if wheel is None:
            with consoles.working("building the layertax wheel"):
                wheel = deploy.build_wheel(work / "wheel")
        fetched = work / "results"
        fetched.mkdir()
        code, interrupted = None, False
        try:
            with consoles.working(f"running the playbook on {len(hosts)} host(s)"):
                code = deploy.run_playbook(inventory, limit, wheel.resolve(), run_args,
                                           fetched, env, lambda line: err.print(line, markup=False, highlight=False))
        except KeyboardInterrupt:
            interrupted = True                          # what came back is still filed below
        filed, missing = _file(fetched, hosts, fleet_id, inventory.resolve())
    out = consoles.console()
    for path, doc in filed:
        out.print(f"{doc['fleet']['host']}: saved {path}", markup=False, highlight=False)
    if filed:
        out.print()
        fleet_view.render(fleets.fleet(filed), out)
    problems = []
    if html_target and filed:
        from layertax.report.html import to_html

        try:
            results.write_text(to_html(*[doc for _, doc in filed]), html_target)
            out.print(f"wrote: {html_target.resolve()}", markup=False, highlight=False)
        except OSError as e:
            problems.append(f"could not write --html {html_target}: {e.strerror or e}")
    if interrupted:
        raise KeyboardInterrupt
    if missing:
        problems.insert(0, f"no result from {', '.join(missing)} (Ansible said why, above; exit {code})")
    if problems:
        raise LayertaxError("; ".join(problems))
    return 0


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
    if wheel is None:   # another build's options may differ: its hosts judge them
        check_run_args(list(run_args))
    exit_with(run(inventory, list(run_args), limit, wheel, html))
