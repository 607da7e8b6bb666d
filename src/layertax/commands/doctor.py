"""`layertax doctor`: how steady this machine is now, measured, and what would make it steadier;
the machine's fingerprint, its tools and its CPU's mitigations behind --verbose."""
from __future__ import annotations

import subprocess
import time

from rich.table import Table
from rich.text import Text

from layertax import console as consoles
from layertax import experiments
from layertax.engine import machine
from layertax.engine.builder import toolchain
from layertax.engine.measure import budget, noise_probe
from layertax.engine.measure.settings import Settings, default_cpu, design
from layertax.report import breaking, format as fmt

OPTIONAL_TOOLS = ("cc", "liburing", "clang", "lld", "mold", "musl-gcc", "valgrind", "strace")
# Rounds a default run gives a case at its least and at its most (its stopping rule's checkpoints).
DEFAULT_RULE = Settings().stopping_rule()
# The advice's levels in the order they are printed: what to act on first.
LEVELS = ("warn", "info", "ok")
LEVEL_STYLES = {"warn": "yellow", "info": "blue", "ok": "green"}
LEVEL_WIDTH = max(map(len, LEVELS))


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
        # a default run's, of the experiments a budget shares (not launches, nor inspect's)
        usual = budget.newest_seen(fp.get("machine_id"), design(Settings().to_dict()),
                                   {e.name for e in experiments.registry().values() if e.measure is None})
    if probe:
        verdict = noise_verdict(probe["spread"], probe["seconds"], usual, noise_probe.two_speeds(probe))
        breaking.print_hanging(out, verdict, indent=0)
    else:
        breaking.print_hanging(out, f"noise probe not run: {failed}", indent=0)
    found = sum(1 for version in fp["tools"].values() if version != "missing")
    known = len(toolchain.TOOLS) + len(toolchain.LIBRARIES)
    machine_line = f"machine: {fmt.machine_line(fp)}; {found} of the {known} tools layertax uses found"
    breaking.print_hanging(out, machine_line, indent=0)
    out.print("\n[bold]for steadier measurements[/bold]", markup=True)
    advice = machine.advice(fp, activity) + [("info", toolchain.hint(name)) for name in OPTIONAL_TOOLS
                                             if not toolchain.available(name)]
    for level, message in sorted(advice, key=lambda a: LEVELS.index(a[0])):
        out.print(advice_line(level, message, out.width), soft_wrap=True)
    if verbose:
        _details(out, fp)
    else:
        breaking.print_hanging(out, "the machine's fingerprint, the tools' versions and the CPU's mitigations: "
                               "--verbose", "dim")
    return 0


def advice_line(level: str, message: str, width: int) -> Text:
    """One piece of advice, its level coloured, the lines it wraps onto under its words rather
    than under the level (breaking.hanging): each reads as one item at 80 columns."""
    label = level + "\u00a0" * (LEVEL_WIDTH - len(level))     # no-break spaces: hanging() keeps them
    text = Text(breaking.hanging(f"{label} {message}", width, indent=2, more=LEVEL_WIDTH + 1))
    text.stylize(LEVEL_STYLES[level], 2, 2 + len(level))
    return text


def noise_verdict(spread: float, seconds: float, usual: dict[str, float] | None = None,
                  speeds: str | None = None) -> str:
    """The answer: how far a ratio spreads from round to round here, and what that gives it in a
    default run's rounds (noise_probe's forecast, said as one): steady enough where a ratio as
    noisy reaches the default target within a default run's most rounds. usual: how far each
    experiment's median case spread in its newest run here (budget.seen_spreads); where there is
    one, the verdict starts from their median (the probe forecast them within a factor of 1.7-1.9
    on the 2-vCPU VM, the previous run within 1.2-1.35: bench/noise_probe.py --history), the
    probe said beside it. speeds: the probe's processes at two levels (noise_probe.two_speeds),
    said after the verdict with what it does to a ratio."""
    return _verdict(spread, seconds, usual) + (
        f". The noise probe's {speeds.removeprefix('its ')}: the machine switched speed while it measured, and "
        "a case it slows more than its baseline moves with the time spent at each (on the VM of "
        "docs/method/statistics.md, Perl's and Python's loops switch together and C's do not: scan's perl-tr "
        "against getc)" if speeds else "")


def _verdict(spread: float, seconds: float, usual: dict[str, float] | None) -> str:
    rule = DEFAULT_RULE
    typical = noise_probe.starting_spread(spread, usual)
    if usual:
        low, high = min(usual.values()), max(usual.values())
        measured = (f"in the last run here the experiments' ratios spread {low:.1%} to {high:.1%} from round to "
                    f"round (the median case of each; the noise probe reads {spread:.1%} now)")
    else:
        measured = f"pairs of processes differ by {spread:.1%} (noise probe, {seconds:.1f} s)"
    needed = noise_probe.rounds_for(typical, rule.precision)
    least, most = (noise_probe.reachable(typical, n) for n in (rule.min_rounds, rule.max_rounds))
    as_noisy = "a ratio as noisy as their median" if usual else "a ratio as noisy"
    if needed <= rule.max_rounds:
        return (f"this machine is steady enough now: {measured}, so {as_noisy} reaches ±{rule.precision:.0%} "
                f"(the default target) in about {max(needed, rule.min_rounds)} rounds; ±{least:.1%} in "
                f"{rule.min_rounds}, ±{most:.1%} in {rule.max_rounds} (a forecast)")
    return (f"this machine is noisy{'' if usual else ' now'}: {measured}, so {as_noisy} reaches only about "
            f"±{most:.1%} in {rule.max_rounds} rounds, a default run's most; ±{rule.precision:.0%} (the default "
            f"target) would take about {needed} (a forecast)")


def _details(out, fp: dict) -> None:
    """The fingerprint as a run records it, the tools' versions and the CPU's mitigations."""
    t = Table(title="machine", show_header=False, title_justify="left")
    t.add_column("key", style="bold")
    t.add_column("value")
    for key, value in fp.items():
        if key in ("mitigations", "tools"):
            continue
        t.add_row(key, "-" if value in (None, "", []) else str(value))
    breaking.print_trimmed(out, t)
    tools = Table(title="tools", show_header=False, title_justify="left")
    tools.add_column("tool", style="bold")
    tools.add_column("version")
    for name, version in fp["tools"].items():
        tools.add_row(name, version)
    breaking.print_trimmed(out, tools)
    vulnerable = {k: v for k, v in fp["mitigations"].items() if v.lower() != "not affected"}
    if vulnerable:
        out.print("[bold]CPU vulnerabilities[/bold] (mitigations tax every system call and context switch):",
                  markup=True)
        for k, v in vulnerable.items():
            out.print(f"  {k}: {v}")
