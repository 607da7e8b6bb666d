"""`layertax doctor`: how steady this machine is now, measured, and what would make it steadier;
the machine's fingerprint, its tools and its CPU's mitigations behind --verbose."""
from __future__ import annotations

import subprocess
import time

from rich.markup import escape
from rich.table import Table

from layertax import console as consoles
from layertax.engine import machine
from layertax.engine.builder import toolchain
from layertax.engine.measure import noise_probe
from layertax.engine.measure.settings import Settings, default_cpu
from layertax.report import format as fmt

OPTIONAL_TOOLS = ("cc", "liburing", "clang", "lld", "mold", "musl-gcc", "valgrind", "strace")
# Rounds a default run gives a case at its least and at its most (its stopping rule's checkpoints).
DEFAULT_RULE = Settings().stopping_rule()
# The advice's levels in the order they are printed: what to act on first.
LEVELS = ("warn", "info", "ok")


def run(verbose: bool = False) -> int:
    out = consoles.console()
    fp = machine.fingerprint()
    seen_before, before = machine.visible_ticks(), machine.cpu_times()
    with consoles.busy("watching the CPUs for a second, then measuring this machine's noise (a few seconds)"):
        time.sleep(1.0)
        activity = machine.cpu_activity(before, machine.cpu_times())
        if activity:
            activity["unseen_share"] = machine.unseen_share(activity, machine.visible_ticks() - seen_before)
        try:
            probe = noise_probe.measure(default_cpu())
        except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as e:
            probe, failed = None, str(e)
    if probe:
        out.print(noise_verdict(probe["spread"], probe["seconds"]), markup=False, highlight=False)
    else:
        out.print(f"noise probe not run: {failed}", markup=False, highlight=False)
    found = sum(1 for version in fp["tools"].values() if version != "missing")
    known = len(toolchain.TOOLS) + len(toolchain.LIBRARIES)
    out.print(f"machine: {fmt.machine_line(fp)}; {found} of the {known} tools layertax uses found",
              markup=False, highlight=False)
    out.print("\n[bold]for steadier measurements[/bold]", markup=True)
    marks = {"ok": "[green]ok[/green]  ", "warn": "[yellow]warn[/yellow]", "info": "[blue]info[/blue]"}
    advice = machine.advice(fp, activity) + [("info", toolchain.hint(name)) for name in OPTIONAL_TOOLS
                                             if not toolchain.available(name)]
    for level, message in sorted(advice, key=lambda a: LEVELS.index(a[0])):
        out.print(f"  {marks[level]} {escape(message)}", markup=True)
    if verbose:
        _details(out, fp)
    else:
        out.print("  the machine's fingerprint, the tools' versions and the CPU's mitigations: --verbose",
                  style="dim", markup=False)
    return 0


def noise_verdict(spread: float, seconds: float) -> str:
    """The answer: how far apart two processes doing the same work land here now, and what that
    gives a ratio in a default run's rounds (noise_probe's forecast, said as one): steady enough
    where a ratio as noisy reaches the default target within a default run's most rounds."""
    rule = DEFAULT_RULE
    needed = noise_probe.rounds_for(spread, rule.precision)
    least, most = (noise_probe.reachable(spread, n) for n in (rule.min_rounds, rule.max_rounds))
    measured = f"pairs of processes differ by {spread:.1%} (noise probe, {seconds:.1f} s)"
    if needed <= rule.max_rounds:
        return (f"this machine is steady enough now: {measured}, so a ratio as noisy reaches ±{rule.precision:.0%} "
                f"(the default target) in about {max(needed, rule.min_rounds)} rounds; ±{least:.1%} in "
                f"{rule.min_rounds}, ±{most:.1%} in {rule.max_rounds} (a forecast)")
    return (f"this machine is noisy now: {measured}, so a ratio as noisy reaches only about ±{most:.1%} in "
            f"{rule.max_rounds} rounds, a default run's most; ±{rule.precision:.0%} (the default target) would "
            f"take about {needed} (a forecast)")


def _details(out, fp: dict) -> None:
    """The fingerprint as a run records it, the tools' versions and the CPU's mitigations."""
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
