"""`layertax doctor`: describe this machine and say what would make measurements steadier."""
from __future__ import annotations

import time

from rich.markup import escape
from rich.table import Table

from layertax import console as consoles
from layertax.engine import machine
from layertax.engine.builder import toolchain

OPTIONAL_TOOLS = ("cc", "liburing", "clang", "lld", "mold", "musl-gcc", "valgrind", "strace")


def run() -> int:
    out = consoles.console()
    fp = machine.fingerprint()
    t = Table(title="machine", show_header=False, title_justify="left")
    t.add_column("key", style="bold")
    t.add_column("value")
    for key, value in fp.items():
        if key in ("mitigations", "tools"):
            continue
        t.add_row(key, "-" if value in (None, "", []) else str(value))
    out.print(t)
    tools = Table(title="tools", show_header=False, title_justify="left")
    tools.add_column("tool", style="bold")
    tools.add_column("version")
    for name, version in fp["tools"].items():
        tools.add_row(name, version)
    out.print(tools)
    vulnerable = {k: v for k, v in fp["mitigations"].items() if v.lower() != "not affected"}
    if vulnerable:
        out.print("[bold]CPU vulnerabilities[/bold] (mitigations tax every system call and context switch):",
                  markup=True)
        for k, v in vulnerable.items():
            out.print(f"  {k}: {v}")
    seen_before, before = machine.visible_ticks(), machine.cpu_times()
    time.sleep(1.0)
    activity = machine.cpu_activity(before, machine.cpu_times())
    if activity:
        activity["unseen_share"] = machine.unseen_share(activity, machine.visible_ticks() - seen_before)
    out.print("\n[bold]for steadier measurements[/bold]", markup=True)
    marks = {"ok": "[green]ok[/green]  ", "warn": "[yellow]warn[/yellow]", "info": "[blue]info[/blue]"}
    for level, message in machine.advice(fp, activity):
        out.print(f"  {marks[level]} {escape(message)}", markup=True)
    for name in OPTIONAL_TOOLS:
        if not toolchain.available(name):
            out.print(f"  [blue]info[/blue] {escape(toolchain.hint(name))}", markup=True)
    return 0
