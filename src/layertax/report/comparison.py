"""The terminal view of `layertax compare`: a table per experiment, verdicts coloured."""
from __future__ import annotations

import math

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from layertax.engine.analysis.compare import Comparison, ExperimentComparison, Row
from layertax import units
from layertax.report import breaking, widths

# The narrowest the case column gets at a narrow terminal before its names' parts decide.
CASE_MIN = 12

VERDICT_STYLE = {"slower": "bold red", "faster": "bold green", "no difference": "dim", "inconclusive": "yellow"}


def _figure(value: float, row: Row) -> str:
    if math.isnan(value):
        return ""
    if row.to_baseline:                      # the case's median ratio to its baseline, not a time
        return f"{value:#.3g}x"
    return f"{value:,.1f}" if row.method == "instructions" else units.duration(value)


def _ratio(row: Row) -> str:
    """B/A and its interval with the digits the interval supports, as a run's ratios are printed
    (units.ratio_interval); instruction counts, exact, with three decimals."""
    lo, hi = row.ci95
    return f"{row.ratio:.3f}x" if lo == hi else units.ratio_interval(row.ratio, lo, hi)


def _p(row: Row) -> str:
    if row.p_holm is None:
        return "exact" if row.method == "instructions" else "-"
    return f"{row.p_holm:.2g}"


def _table(e: ExperimentComparison, width: int, verbose: bool = False) -> tuple[Table, bool]:
    """The full table where each row fits on one line; else a compact one (no outer rules) with
    each row's figures on one line where they fit (the mean's name may take two); else, but for
    --verbose, the same without the p column, so that each row's figures and verdict still take
    one line and a long name breaks between its words; or else each ratio above its interval,
    names and verdicts wrapping between words. So no figure is ever cut or split at 80 columns.
    Returns the table and whether it left the p column out."""
    what = ("instructions/op" if e.method == "instructions" else
            "medians of per-round ratios to the baseline (x) or times" if any(r.to_baseline for r in e.rows)
            else "median (per-round medians)")
    title = f"{e.name}: B vs A ({what})"
    rows = [(row, [_name(row, e), _figure(row.a, row), _figure(row.b, row), _ratio(row), _p(row), row.verdict])
            for row in e.rows + ([e.geomean] if e.geomean else [])]
    headers = ["case", "A", "B", "B/A [95% CI]", "p (Holm)", "verdict"]
    columns = [widths.column(h, (cells[i] for _, cells in rows)) for i, h in enumerate(headers)]
    full = widths.boxed(columns) <= width
    # One row a line without the outer rules: the figures whole, the names as wide as the cases'
    # (the mean's "(interval ≥95%)" goes under its name).
    figures = columns[1:]
    names = widths.column("case", (cells[0] for row, cells in rows if row is not e.geomean))
    narrow = not full and widths.compact([max(names, len("geometric mean")), *figures]) > width
    # Without p (the verdict already says what the test decided), every figure and the whole
    # verdict: the names get what is left, where that is at least CASE_MIN.
    lean_others = [*columns[1:4], columns[5]]
    lean = narrow and not verbose and width - widths.compact([0, *lean_others]) >= CASE_MIN
    split = narrow and not lean
    t = Table(title=title, title_justify="left") if full else \
        Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False, show_edge=False)
    verdict_word = max((len(w) for _, cells in rows for w in cells[5].split()), default=None)
    limit = None
    if not full:
        # The names get what the figures (each ratio above its interval where split) and the
        # verdicts' longest word leave; a longer name breaks between its words and after its
        # hyphens, never inside a word (a folded one read "py-os-rename-byt" / "es").
        others = lean_others if lean else figures if not split else \
            [widths.column(h, (line for _, cells in rows for line in _above(cells[i]).split("\n")))
             for i, h in enumerate(headers) if 0 < i < 5] + [max(verdict_word or 0, len("verdict"))]
        limit = max(CASE_MIN, width - widths.compact([0, *others]))
    shown = [i for i in range(1, 5) if not (lean and i == 4)]
    t.add_column("case", no_wrap=True)
    for i in shown:
        t.add_column(headers[i], justify="right", no_wrap=True)
    t.add_column("verdict", min_width=columns[5] if lean else verdict_word, no_wrap=lean)
    for row, cells in rows:
        style = "bold" if row is e.geomean else ""
        name = breaking.name(cells[0], limit) if limit and len(cells[0]) > limit else cells[0]
        t.add_row(Text(name, style=style), *(_above(cells[i]) if split and i == 3 else cells[i] for i in shown),
                  Text(cells[5], style=VERDICT_STYLE[row.verdict]))
    return t, lean


def _above(figure: str) -> str:
    """A ratio above its interval: "0.97x" over "[0.93, 0.999]" (the bracket stays with it)."""
    return figure.replace(" [", "\n[", 1)


def _name(row, e: ExperimentComparison) -> str:
    """The row's name; the geometric mean's says its interval is a bound: a bootstrap that holds
    the true mean 95-100% of the time (docs/method/statistics.md), not 95% as the column says."""
    if row is e.geomean and e.geomean_method != "exact":
        return f"{row.case} (interval ≥95%)"
    return row.case


def _counts(rows) -> str:
    """How many of rows came out each way: "1 slower, 0 faster, 20 no difference, 0 inconclusive"."""
    return ", ".join(f"{sum(r.verdict == v for r in rows)} {v}" for v in VERDICT_STYLE)


def _verdicts(c: Comparison) -> str:
    """The answer in one line: how many of the cases compared came out each way."""
    rows = [r for e in c.experiments for r in e.rows]
    return f"{len(rows)} case{'s' if len(rows) != 1 else ''} compared: {_counts(rows)}"


def _how(c: Comparison) -> str:
    return (f"verdict: Mann-Whitney U on one value per round (a case's ratio to its baseline, shown as x, so that "
            f"the machine's speed in each run cancels; a baseline's own median), Holm-corrected over "
            f"{sum(1 for e in c.experiments for r in e.rows if r.p_holm is not None)} timed cases, and the 95% "
            f"interval of B/A that test inverts outside 1 +- {c.threshold:.0%} (the noise band); both widened "
            f"where rounds drifted together, and by how far a ratio moves between this machine's runs where "
            f"a run found it moving (a note names those cases); \"inconclusive\": the interval and the band "
            f"say it moved, the corrected test does not; B/A: the median of the ratios of every round of B to "
            f"every round of A, which is A's and B's medians' ratio only where every round moved alike")


def render(c: Comparison, console: Console, verbose: bool = False) -> None:
    """The runs, the answer (how many cases came out each way), what to know before reading it
    (the machines differ; something else ran), then a table per experiment with its warnings.
    How a verdict is reached, and how each mean's interval was drawn, with --verbose."""
    for side, label in (("A", c.a_label), ("B", c.b_label)):
        breaking.print_hanging(console, f"{side}: {label}", indent=0, more=3)
    console.print(_verdicts(c), style="bold")
    if c.without_history:
        prior = any(r.prior_spread for e in c.experiments if e.name in c.without_history for r in e.rows)
        breaking.print_hanging(console, f"note: {', '.join(c.without_history)}: no earlier runs here beside "
                               "A or B, so B/A's intervals hold each run's rounds, not how far ratios move "
                               "between runs" + (" (but for cases on every CPU, noted below)" if prior else "")
                               + "; compare adds that once a run has two before it", "dim", indent=0, more=2)
    if c.machine_differences:
        breaking.print_hanging(console, "warning: the machines differ, so part of any difference may be the "
                               "machine's:", "yellow", indent=0, more=2)
        for line in c.machine_differences:
            breaking.print_hanging(console, line, "yellow")
    if c.load_warnings:
        breaking.print_hanging(console, "warning: something else ran while these were measured; its load is in "
                               "the figures:", "yellow", indent=0, more=2)
        for line in c.load_warnings:
            breaking.print_hanging(console, line, "yellow")
    if verbose:
        breaking.print_hanging(console, _how(c), "dim", indent=0, more=2)
    without_p = False
    for e in c.experiments:
        console.print()
        if e.rows:
            table, lean = _table(e, console.width, verbose)
            without_p |= lean
            breaking.print_trimmed(console, table)
            console.print(f"  {_counts(e.rows)}", style="dim")
            if verbose and e.geomean and e.geomean_method != "exact":
                breaking.print_hanging(console, f"geometric mean interval: {e.geomean_method}", "dim")
        else:
            console.print(e.name, style="bold")
        for line in e.warnings:
            breaking.print_hanging(console, f"warning: {line}", "yellow")
        for line in e.notes:
            breaking.print_hanging(console, f"note: {line}", "dim")
        for line in e.not_compared:
            breaking.print_hanging(console, f"not compared: {line}", "dim")
    for name in c.only_in_a:
        console.print(f"{name}: only in A", style="dim")
    for name in c.only_in_b:
        console.print(f"{name}: only in B", style="dim")
    if not verbose:
        breaking.print_hanging(console, ("each case's p (Holm), " if without_p else "") + "how each verdict is "
                               "reached, and how each mean's interval was drawn: --verbose", "dim", indent=0, more=2)
