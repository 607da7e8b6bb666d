"""The terminal view of runs from several machines (`compare --by-machine`, `fleet run`): what
differs between the machines, then per experiment one row per case and one column per machine."""
from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from layertax import units
from layertax.engine.analysis.fleet import Cell, ExperimentTable, Fleet
from layertax.report import breaking


def _cell(cell: Cell) -> Text:
    if cell.ratio is None:
        return Text(cell.status, style="dim")
    if cell.ci95 is None:
        return Text(f"{cell.ratio:.2f}x")
    # the digits its interval supports, as a run's own table prints it
    return Text(units.ratio_with_ci({"median": cell.ratio, "ci95": cell.ci95}))


def _table(f: Fleet, exp: ExperimentTable) -> Table:
    what = "instructions, exact" if exp.method == "instructions" else "paired per round, 95% CI"
    grouped = len({row.group for row in exp.rows}) > 1
    to = "each case group's baseline" if grouped else exp.baseline
    t = Table(title=f"{exp.name}: ratio to {to} on each machine ({what})", title_justify="left",
              box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    t.add_column("case", overflow="fold")
    for column in f.columns:
        t.add_column(column.label, justify="right", overflow="fold")
    with_classic = any(row.classic is not None for row in exp.rows)
    if with_classic:
        t.add_column("then", justify="right")
    for row in exp.rows:
        cells = [Text(row.case)] + [_cell(c) for c in row.cells]
        if with_classic:
            cells.append(Text("" if row.classic is None else f"{row.classic:.2f}x", style="dim"))
        t.add_row(*cells)
    return t


def render(f: Fleet, console: Console) -> None:
    for column in f.columns:
        m = column.doc.get("machine") or {}
        console.print(f"{column.label}: {column.source} ({column.doc.get('created', '?')}; "
                      f"{m.get('cpu_model', '?')}, {m.get('kernel', '?')})", markup=False, highlight=False)
        others = (column.doc.get("concurrent") or {}).get("others") or []
        if others:
            console.print(f"  measured while {len(others)} other layertax measured on the same machine: its "
                          "figures carry that load", style="yellow", markup=False, highlight=False)
    if f.differences:
        console.print("the machines differ in:", style="bold")
        for key, values in f.differences:
            shown = " | ".join(f"{c.label}: {v}" for c, v in zip(f.columns, values))
            console.print(f"  {key}: {shown}", markup=False, highlight=False)
    else:
        console.print("the machines' fingerprints do not differ (the same machine, or identical ones)", style="dim")
    for exp in f.experiments:
        console.print()
        breaking.print_trimmed(console, _table(f, exp))
        if exp.classic_source and any(r.classic is not None for r in exp.rows):
            console.print(f"  then: {exp.classic_source}", style="dim", markup=False, highlight=False)
    if not f.experiments:
        console.print("no experiment with ratios to set side by side", style="dim")
