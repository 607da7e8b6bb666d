"""`layertax list`: the experiments, what each asks, and its classic source and figures."""
from __future__ import annotations

from layertax import console as consoles
from layertax import experiments


def run() -> int:
    out = consoles.console()
    for exp in experiments.registry().values():
        c = exp.classic
        out.print(f"[bold]{exp.name}[/bold] - {exp.title}")
        out.print(f"  asks: {exp.question}")
        out.print(f"  cases: {', '.join(case.name for case in exp.cases)} (baseline: {exp.baseline})")
        out.print(f"  classic: {c.source}, {c.year}; {c.machine}")
        figures = ", ".join(f"{f.label} {f.value:g} ({r:.2f}x)" for f, r in zip(c.figures, c.ratios().values()))
        out.print(f"  then ({c.unit}): {figures}" if figures else f"  then: {c.conclusion}")
        out.print()
    return 0
