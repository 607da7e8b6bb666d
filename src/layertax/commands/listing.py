"""`layertax list [EXPERIMENT]`: the experiments, what each asks, its case groups with their counts,
and its classic source and figures; with an experiment's name, every case of it with its layer."""
from __future__ import annotations

from collections import Counter

from rich.table import Table
from rich.text import Text

from layertax import console as consoles
from layertax import experiments
from layertax.report import breaking


def _groups(exp) -> str:
    """ "main table 12, nonascii 8, ..." : each case group and how many cases it has."""
    counts = Counter(c.group for c in exp.cases)
    titles = {g.name: g.name for g in exp.groups}
    return ", ".join(f"{titles.get(name, name) or 'main table'} {n}" for name, n in counts.items())


def _summary(exp, out) -> None:
    c = exp.classic
    out.print(Text.assemble((exp.name, "bold"), f" - {exp.title}"))
    figures = ", ".join(f"{f.label} {f.value:g} ({r:.2f}x)" for f, r in zip(c.figures, c.ratios().values()))
    # Each item wraps under its own words (hanging): at 80 columns a wrapped line at column 0
    # reads as the next item. Printed as text, not markup: a title may hold brackets.
    for line in (f"asks: {exp.question}",
                 f"cases: {len(exp.cases)} ({_groups(exp)}); baseline {exp.baseline}; "
                 f"`layertax list {exp.name}` names them",
                 f"classic: {c.source}, {c.year}; {c.machine}",
                 f"then ({c.unit}): {figures}" if figures else f"then: {c.conclusion}"):
        breaking.print_hanging(out, line)
    out.print()


def _cases(exp, out) -> None:
    t = Table(title=f"{exp.name}: {len(exp.cases)} cases", title_justify="left")
    t.add_column("case", no_wrap=True)
    t.add_column("group")
    t.add_column("language", no_wrap=True)
    t.add_column("layer")
    for case in exp.cases:
        base = " (base)" if case.name == exp.group_baseline(case.group) else ""
        t.add_row(case.name + base, case.group or "-", case.language, case.layer)
    breaking.print_trimmed(out, t)


def run(name: str | None = None) -> int:
    out = consoles.console()
    if name:
        exp = experiments.get(name)
        _summary(exp, out)
        _cases(exp, out)
        return 0
    for exp in experiments.registry().values():
        _summary(exp, out)
    return 0
