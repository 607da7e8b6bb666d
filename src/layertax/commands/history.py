"""`layertax history`: the saved runs, newest first; `history push` files saved runs in the
history (a shared one, typically); `history migrate` copies one history into another;
`history prune` forgets this machine's older runs."""
from __future__ import annotations

from pathlib import Path

from rich.table import Table

from layertax import console as consoles
from layertax.engine import machine
from layertax.engine.store import history, results, runs
from layertax.errors import UsageError
from layertax.report import breaking, widths
from layertax.text import printable


FIELDS = ("id", "created", "what", "complete")
VERBOSE_FIELDS = (*FIELDS, "version", "machine", "file")
# Runs of these measure a program the user named: the listing says which (from the run's title).
NAMED_TARGETS = ("inspect", "launch")


def _what(row: dict) -> str:
    """The experiments a run ran, and what it counted where that is not time (a bare `make run`
    files callchain twice: timed, then its instructions); for inspect and launch, what they measured."""
    if row["experiments"] not in NAMED_TARGETS:
        counted = f" ({row['metric']})" if row.get("metric") not in (None, "time") else ""
        return row["experiments"].replace(",", ", ") + counted
    try:
        doc = history.load(row)
    except Exception:      # a row whose document cannot be read still lists
        return row["experiments"]
    exp = doc["experiments"][0] if doc.get("experiments") else {}
    names = [c["name"] for c in exp.get("cases", []) if not c["name"].startswith("fix: ")]
    target = exp.get("title", "").removeprefix("start-up of ") if row["experiments"] == "inspect" else \
        " vs ".join(names[:2])
    return f"{row['experiments']} {target}".strip()


def listing(limit: int, all_machines: bool, experiment: str | None = None, verbose: bool = False,
            target: str | None = None, machine_text: str | None = None) -> int:
    """This machine's runs in a shared history (unless all_machines); every run in the local one,
    which holds what this machine ran and what was imported into it (a Windows bundle's result)."""
    where = history.configured()
    here = None if all_machines or not where else machine.this_machine_id()
    # --target and --machine match text the listing shows (what was measured, the machine's
    # summary), so they filter after the query: up to LIMIT of the newest that match.
    filtered = target is not None or machine_text is not None
    rows = history.runs(None, None if filtered else limit, machine_id=here, experiment=experiment)
    if filtered:
        rows = [r for r in rows if (machine_text is None or machine_text.lower() in (r["machine"] or "").lower())
                and (target is None or target.lower() in _what(r).lower())][:limit]
    out = consoles.console()
    if where:
        out.print(f"history: {history.shown(where)}", markup=False, highlight=False, style="dim")
    if not rows:
        others = " on this machine (--all-machines shows the others')" if here and history.runs(None, 1) else ""
        out.print(f"no runs yet{others}: `layertax run` saves one", markup=False, highlight=False)
        return 0
    # A shared history's rows come from any machine: their text is shown made printable (text.py).
    cells = [{key: printable(value) for key, value in {
        "id": str(r["id"]), "created": r["created"][:16].replace("T", " "), "what": _what(r)[:60],
        "complete": "yes" if r["complete"] else "no", "version": r["version"], "machine": r["machine"],
        "file": r["path"]}.items()} for r in rows]
    fields = VERBOSE_FIELDS if verbose else FIELDS
    if widths.boxed([widths.column(col, (c[col] for c in cells)) for col in fields]) <= out.width:
        breaking.print_trimmed(out, _table(cells, fields))
    else:   # soft_wrap: a long path stays one line (the terminal folds it; copying it keeps it whole)
        out.print(_stacked(cells), markup=False, highlight=False, soft_wrap=True)
    return 0


def _table(cells: list[dict], fields: tuple[str, ...]) -> Table:
    t = Table(title_justify="left")
    for col in fields:
        t.add_column(col, no_wrap=True)
    for c in cells:
        t.add_row(*(c[col] for col in fields))
    return t


def _stacked(cells: list[dict]) -> str:
    """Where the table would not fit (an 80-column terminal: a path alone can take 70), each
    run as a few lines with a blank line between runs, as `git log` does, so that no id, date
    or path is ever cut."""
    blocks = []
    for c in cells:
        state = "" if c["complete"] == "yes" else "  (incomplete)"
        blocks.append(f"#{c['id']}  {c['created']}  layertax {c['version']}{state}\n"
                      f"    what: {c['what']}\n    machine: {c['machine']}\n    file: {c['file']}")
    return "\n\n".join(blocks)


def push(files: tuple[Path, ...]) -> int:
    """Every file is read and checked before anything is sent; then all are filed in one transaction."""
    docs = [(results.load(f), Path(f).resolve()) for f in files]
    out = consoles.console()
    with consoles.working(f"filing {len(docs)} run(s) in the history"):
        filed = history.push(None, docs)
    for (doc, path), (run_id, new) in zip(docs, filed):
        said = "filed as" if new else "already in the history as"
        out.print(f"{printable(path)}: {said} #{run_id}", markup=False, highlight=False, soft_wrap=True)
    return 0


def migrate(target: str, source: str | None) -> int:
    source_url = history.url_of(source)
    target_url = history.url_of(target)
    if source_url == target_url:
        raise UsageError("--to names the history being copied: give another")
    with consoles.working(f"copying {history.shown(source_url)} into {history.shown(target_url)}"):
        new, already = history.copy(source_url, target_url)
    consoles.console().print(f"copied {new} run(s) into {history.shown(target_url)}"
                             + (f"; {already} were there already" if already else ""), markup=False, highlight=False)
    return 0


def prune(keep: int, dry_run: bool) -> int:
    """Forgets this machine's runs but the newest `keep`: their rows (one transaction), then their
    saved files where they are this user's own in the runs directory (runs.remove_saved). Runs
    imported from other machines stay, as do a shared history's other machines' runs."""
    here = machine.this_machine_id()
    rows = history.runs(None, machine_id=here)          # newest first
    old = rows[keep:]
    out = consoles.console()
    if not old:
        out.print(f"nothing to forget: the history holds {len(rows)} run(s) of this machine, and --keep is {keep}",
                  markup=False, highlight=False)
        return 0
    ids = [r["id"] for r in old]
    span = f"#{min(ids)}" if len(ids) == 1 else f"#{min(ids)} to #{max(ids)}"
    said = (f"{len(old)} run(s) of this machine ({span}, up to {printable(old[0]['created'][:16].replace('T', ' '))}); "
            f"the newest {len(rows) - len(old)} stay")
    if dry_run:
        out.print(f"would forget {said} (--dry-run: nothing removed)", markup=False, highlight=False)
        return 0
    with consoles.working(f"forgetting {len(old)} run(s)"):
        # The rows first: a file left behind is only disk, while a row whose file is gone could not
        # be read back where it keeps no copy of its own (rows an older layertax filed).
        problem = history.forget(None, ids)
        # A file a kept row names too stays (the same file pushed again under another digest).
        named = {r["path"] for r in history.runs(None)}
        freed = runs.remove_saved([r["path"] for r in old if r["path"] not in named])
    removed = [size for size in freed if size is not None]
    out.print(f"forgot {said}; removed {len(removed)} saved file(s), {sum(removed) / 2 ** 20:.0f} MiB"
              + (f" ({len(old) - len(removed)} left: not this user's own files in the runs directory)"
                 if len(removed) < len(old) else ""), markup=False, highlight=False, soft_wrap=True)
    if problem:
        out.print(f"the history was not compacted ({printable(problem)}): its file keeps its size until a later "
                  "prune compacts it", markup=False, highlight=False, soft_wrap=True)
    return 0
