"""`layertax fleet run`: the same experiments on every host of an Ansible inventory at once,
the results brought back, filed in the history (local or shared) and set side by side."""
from __future__ import annotations

import uuid
from pathlib import Path

import click

from layertax import console as consoles
from layertax import experiments, files
from layertax.commands import run as running
from layertax.engine.analysis import fleet as fleets
from layertax.engine.store import history, results, runs
from layertax.errors import LayertaxError, UsageError
from layertax.fleet import deploy
from layertax.report import fleet as fleet_view
from layertax.scratch import private_dir
from layertax.text import printable, printable_data


def _file(fetched: Path, hosts: list[str], fleet_id: str, inventory: Path) -> tuple[list[tuple[str, dict]], list[str]]:
    """Each host's result, marked with the host and the fleet run, saved and filed; and the hosts
    that sent none. A host's file is named by a digest of its name (deploy.result_name), never
    by the name itself, and is read and checked like any other result."""
    filed, missing = [], []
    err = consoles.console(stderr=True)
    for host in hosts:
        got = fetched / deploy.result_name(host)
        if not got.is_file():
            missing.append(host)
            continue
        try:
            doc = results.load(got)
        except UsageError as e:
            err.print(f"layertax: {printable(host)} sent a result layertax cannot read: {e}", markup=False,
                      highlight=False)
            missing.append(host)
            continue
        doc["fleet"] = {"id": fleet_id, "host": host, "inventory": inventory.name}
        path = runs.save_file(doc)
        try:
            history.record(None, doc, path)
        except history.HistoryError as e:
            err.print(f"layertax: saved the result of {printable(host)} but not in the history: {e}", markup=False,
                      highlight=False)
        filed.append((str(path), doc))
    return filed, missing


# What `fleet run` adds to every host's `layertax run` itself: given again, they would fight it.
_OWN_OPTIONS = ("--export-json", "--no-save", "--allow-concurrent")


def check_run_args(run_args: list[str]) -> None:
    """`layertax run`'s own parser on the arguments, here and now: a typo ("--bogus", an unknown
    experiment, an option of an experiment not named, a --case that matches nothing) fails in
    one line before the wheel is built and the hosts are set up, not once per host minutes
    later. The parser is the one of this tree, the same as the wheel's unless --wheel names
    another build."""
    for arg in run_args:
        flag = arg.split("=", 1)[0]
        if flag in _OWN_OPTIONS or flag.startswith("--export-"):
            raise UsageError(f"{flag} is not a run option here: fleet run saves each host's result itself and brings "
                             "it back (use --html, or export from the history: layertax report @ID)")
    root = click.get_current_context().find_root()
    run_command = root.command.get_command(root, "run")
    with run_command.make_context("run", list(run_args), parent=root) as ctx:
        chosen = [experiments.get(name) for name in ctx.params["experiment_names"]]
        chosen = chosen or list(experiments.registry().values())
        own = {key: value for key, value in ctx.params.items() if "__" in key}
        running.experiment_options(chosen, own)
        running.with_cases(chosen, tuple(ctx.params["case_globs"]))


def run(inventory: Path, run_args: list[str], limit: str | None, wheel: Path | None, html: Path | None) -> int:
    err = consoles.console(stderr=True)
    html_target = files.check_writable(html, "--html") if html else None
    runs.check_store()                                  # before minutes of deploying, not after
    fleet_id = uuid.uuid4().hex[:12]
    with private_dir("fleet") as work:
        env = deploy.environment(work)
        hosts = deploy.hosts(inventory, limit, env)     # an inventory that is not one fails here
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
        out.print(f"{printable(doc['fleet']['host'])}: saved {printable(path)}", markup=False, highlight=False)
    if filed:
        out.print()
        fleet_view.render(fleets.fleet([(printable(path), printable_data(doc)) for path, doc in filed]), out)
    problems = []
    if html_target and filed:
        from layertax.report.html import to_html

        try:
            files.write_text(to_html(*[printable_data(doc) for _, doc in filed]), html_target)
            out.print(f"wrote: {printable(html_target.absolute())}", markup=False, highlight=False)
        except (OSError, LayertaxError) as e:
            problems.append(f"could not write --html {printable(html_target)}: {getattr(e, 'strerror', None) or e}")
    if interrupted:
        raise KeyboardInterrupt
    if missing:
        problems.insert(0, f"no result from {', '.join(map(printable, missing))} (Ansible said why, above; exit {code})")
    if problems:
        raise LayertaxError("; ".join(problems))
    return 0
