"""`layertax history`: the saved runs, newest first."""
from __future__ import annotations

from rich.table import Table

from layertax import console as consoles
from layertax import paths
from layertax.engine.store import history


def run(limit: int) -> int:
    rows = history.runs(paths.history_db(), limit)
    out = consoles.console()
    if not rows:
        out.print("no runs yet: `layertax run` saves one")
        return 0
    t = Table(title_justify="left")
    for col in ("id", "created", "experiments", "complete", "version", "machine", "file"):
        t.add_column(col)
    for r in rows:
        t.add_row(str(r["id"]), r["created"], r["experiments"], "yes" if r["complete"] else "no",
                  r["version"], r["machine"], r["path"])
    out.print(t)
    return 0
