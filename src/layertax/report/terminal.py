"""The terminal report: one table per experiment, then-vs-now, and every caveat."""
from __future__ import annotations

import re

from rich import box
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from layertax import units
from layertax.text import printable_data
from layertax.report import breaking
from layertax.report import format as fmt
from layertax.report import widths


def _row_style(status: str) -> str | None:
    return "red" if status == "failed" else ("dim" if status == "skipped" else None)


# Below this many columns, or when the full table would not fit, the case tables go compact:
# each median and ratio beside its interval in one cell, and the layers (prose) in a legend
# under the table, so every number stays whole in an 80-column terminal.
WIDE = 120
# A figure: a number with its unit, an interval, a ratio, or a bar of '#' and '.' (a share drawn).
FIGURE = re.compile(r"^[-+\s\d.,:%~±…\[\]()x/<>=#]*(?:[µnm]?s|GB/s|[KMG]iB|B)?[-+\s\d.,:%~±…\[\]()x/<>=µnms*]*$")


def _wide_fits(columns: list[tuple[str, str]], rows: list[dict], width: int) -> bool:
    """Whether the full table fits on one line a row: each column its widest cell, one space
    of padding either side and a rule. A wider table would wrap every row into three lines
    (a callchain run with its system-calls column needs about 190 columns), which is harder
    to read than the compact table with its legend."""
    def widest(key: str, header: str) -> int:
        cells = [row[key] for row in rows]
        return widths.column("ratio [95% CI]" if key == "ratio" else header, cells)
    return widths.boxed([widest(key, header) for key, header in columns]) <= width


# hyperfine's summary columns: the first to leave a compact table that would not fit (to a
# line of their own under it), so that no figure is cut.
SUMMARY_KEYS = ("mean_sd", "range", "n")
CASE_MIN = 12   # the case column folds; this much of it is kept when deciding what fits


def _compact_fits(keys: list[str], headers: dict[str, str], rows: list[dict], width: int) -> bool:
    """Whether the compact table fits `width`: each column its widest cell or header, three
    columns of padding and rule between two columns (box.SIMPLE_HEAD, no edges)."""
    def widest(key: str) -> int:
        w = widths.column(headers[key], (row[key] for row in rows))
        return min(w, CASE_MIN) if key == "case" else w
    return widths.compact([widest(key) for key in keys]) <= width


def _case_table(exp: dict, group: dict, rows: list[dict], width: int) -> tuple[Table, list[str], list[str]]:
    """The group's table (rows: fmt.case_rows of it), the legend that goes under it, and
    hyperfine's summary line a case when its columns did not fit (the compact table only)."""
    columns = fmt.case_columns(exp, group, rows)
    rows = [fmt.marked(row) for row in rows]     # as printed: the widths are the marked cells'
    compared = f" (ratios to {group['baseline']}, paired per round)" if fmt.compares(exp, group) else ""
    title = Text(f"{exp['name']}: {group['title']}{compared}")
    if width >= WIDE and _wide_fits(columns, rows, width):
        t = Table(title=title, title_justify="left", show_lines=False)
        for key, header in columns:
            left = key in ("case", "layer", "syscalls")
            t.add_column("ratio [95% CI]" if key == "ratio" else header, justify="left" if left else "right",
                         no_wrap=key in ("case", "layer"))
        for row in rows:
            t.add_row(*(Text(row[key]) if key in ("case", "layer") else row[key] for key, _ in columns),
                      style=_row_style(row["status"]))
        return t, [], []
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False,
              show_edge=False)
    keys = [key for key, _ in columns if key not in ("layer", "ci95", "syscalls")]
    headers = {"median": f"median {exp['unit']}", "ratio": "ratio [95% CI]", "classic": "then",
               "syscalls": "system calls", "mean_sd": dict(columns).get("mean_sd", "mean ± σ"),
               "range": dict(columns).get("range", "min … max"), "n": "runs"}
    headers = {**dict(columns), **headers}
    summaries = []
    if not _compact_fits(keys, headers, rows, width) and any(k in keys for k in SUMMARY_KEYS):
        keys = [key for key in keys if key not in SUMMARY_KEYS]
        of = headers["mean_sd"].removeprefix("mean ± σ").strip()
        summaries = [f"{row['case']}: {of + ' ' if of else ''}{row['mean_sd']} ({row['range']}), {row['n']} runs"
                     for row in rows if row["n"] != "0"]   # a failed case has no summary to give
    for key in keys:
        prose = key == "case"
        t.add_column(headers.get(key, dict(columns)[key]), justify="left" if prose else "right", no_wrap=not prose,
                     overflow="fold" if prose else "ellipsis")
    # The case column gets what the figures leave; a name longer than that wraps after a hyphen
    # (never inside a word; a part longer still folds).
    room = width - widths.compact([0, *(widths.column(headers.get(k, k), (row[k] for row in rows))
                                        for k in keys if k != "case")])
    legend = []
    for row in rows:
        name = breaking.hyphens(row["case"], max(room, CASE_MIN)) if len(row["case"]) > room else row["case"]
        t.add_row(*(Text(name) if key == "case" else row[key] for key in keys), style=_row_style(row["status"]))
        calls = f" [{row['syscalls']}]" if row.get("syscalls") else ""
        legend.append(f"{row['case']}: {row['layer']}{calls}")
    return t, legend, summaries


INSTRUCTION_COLUMNS = (("case", "case"), ("layer", "layer"), ("per_op", "instructions/op"), ("ratio", "ratio"),
                       ("objects", "where (instructions/op by object)"))


def _instructions_table(exp: dict, width: int) -> tuple[list[Table], list[str]]:
    """The counted cases' tables and, when they are compact, the legend under them. As with the
    timed tables: the full table only where each row fits on one line; else the figures stay in
    a compact table (whole, never cut), where the instructions go gets a table of its own (one
    line an object), and the layers (prose) move to a legend that wraps at word boundaries."""
    rows = fmt.instruction_rows(exp)
    title = Text(f"{exp['name']}: {exp['title']} (user-space instructions per operation under callgrind; "
                 f"ratios to {fmt.baselines_text(exp)})")
    full = widths.boxed([widths.column(header, (row[key] for row in rows)) for key, header in INSTRUCTION_COLUMNS])
    if width >= WIDE and full <= width:
        t = Table(title=title, title_justify="left")
        for key, header in INSTRUCTION_COLUMNS:
            t.add_column(header, justify="right" if key in ("per_op", "ratio") else "left", no_wrap=True)
        for row in rows:
            t.add_row(*(Text(row[key]) for key, _ in INSTRUCTION_COLUMNS), style=_row_style(row["status"]))
        return [t], []
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False,
              show_edge=False)
    t.add_column("case", overflow="fold")
    t.add_column("instructions/op", justify="right", no_wrap=True)
    t.add_column("ratio", justify="right", no_wrap=True)
    for row in rows:
        t.add_row(Text(row["case"]), row["per_op"], row["ratio"], style=_row_style(row["status"]))
    tables = [t]
    placed = [row for row in rows if row["by_object"]]
    if placed:
        where = Table(title="where the instructions go (the three largest objects)", title_justify="left",
                      box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False, show_edge=False)
        where.add_column("case", overflow="fold")
        where.add_column("object", overflow="fold")
        where.add_column("instructions/op", justify="right", no_wrap=True)
        for row in placed:
            for i, (name, n) in enumerate(row["by_object"]):
                where.add_row(Text(row["case"] if i == 0 else ""), Text(name), n)
        tables.append(where)
    return tables, ["layers: " + "; ".join(f"{row['case']}: {row['layer']}" for row in rows)]


def _chain_tree(case: dict) -> Tree | None:
    chain = (case.get("instructions") or {}).get("chain")
    if not chain:
        return None
    tree = Tree(Text.assemble((case["name"], "bold"), f": {fmt.chain_label(chain, root=True)}"))

    def add(branch: Tree, node: dict) -> None:
        for child in fmt.chain_children(node, chain["instructions"]):
            add(branch.add(Text(fmt.chain_label(child))), child)
    add(tree, chain)
    return tree


def _titled_table(title: str, width: int) -> Table:
    """A table under its title, ruled all round from WIDE columns; narrower, the rules go (a line
    under the header only): four lines fewer a table."""
    if width >= WIDE:
        return Table(title=title, title_justify="left")
    return Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False)


def _drawn_width(column_widths: list[int], width: int) -> int:
    """How wide _titled_table draws columns this wide at a terminal this wide: ruled all round
    from WIDE columns; narrower, no edges and a space at either end (two more than compact)."""
    return widths.boxed(column_widths) if width >= WIDE else widths.compact(column_widths) + 2


CLASSIC_COLUMNS = ("classic layer", "then", "then ratio", "nearest case today", "now ratio [95% CI]")


def _name_limits(names: list[list[str]], room: int) -> list[int] | None:
    """How wide each name column of a table may be, together within room: each on one line where
    they all fit; else each at least its longest unbreakable part (a word, or a part between
    hyphens), and what is left given first to the column that needs least more to be on one
    line; None where even those parts do not fit."""
    longest = [max((len(n) for n in column), default=0) for column in names]
    if sum(longest) <= room:
        return longest
    parts = [max((len(piece) for n in column for word in n.split() for piece in breaking.hyphens(word, 1).split("\n")),
                 default=0) for column in names]
    if sum(parts) > room:
        return None
    limits = parts[:]
    for i in sorted(range(len(names)), key=lambda i: longest[i] - parts[i]):
        limits[i] = min(longest[i], room - sum(limits) + limits[i])
    return limits


def _classic_table(exp: dict, width: int) -> Table | Group | None:
    """The classic's figures beside today's counterparts. The layer and the case wrap between
    their words and after their hyphens, never inside a word; where even their longest words
    leave the figures no room, the table is printed row by row."""
    rows = exp.get("classic_now") or []
    if not rows:
        return None
    c = exp["classic"]
    title = f"then ({c['source']}, {c['year']}; {c['machine']}; in {c['unit']}) vs now"
    cells = [[r["label"], f"{r['then_value']:g}", units.ratio(r["then_ratio"]), r["counterpart"] or "-",
              fmt.classic_now_text(exp, r)] for r in rows]
    figures = [widths.column(CLASSIC_COLUMNS[i], (row[i] for row in cells)) for i in (1, 2, 4)]
    room = width - _drawn_width([*figures, 0, 0], width)
    names = [[CLASSIC_COLUMNS[i], *(row[i] for row in cells)] for i in (0, 3)]   # a header wraps too
    limits = _name_limits(names, room)
    if limits is None:
        return _stacked({"title": title, "columns": list(CLASSIC_COLUMNS), "rows": cells}, {}, width)
    t = _titled_table(title, width)
    for i, header in enumerate(CLASSIC_COLUMNS):
        name = {0: limits[0], 3: limits[1]}.get(i)
        t.add_column(breaking.words(header, name) if name else header, justify="left" if name else "right",
                     no_wrap=True)
    for row in cells:
        t.add_row(breaking.name(row[0], max(limits[0], 1)), *row[1:3], breaking.name(row[3], max(limits[1], 1)),
                  row[4])
    return t


def _cell(text: str, styles: dict[str, str]) -> Text:
    """A cell as plain text (never parsed as markup: it may hold program output), with
    the table's styled words (e.g. a class of the unicode-io matrix) coloured."""
    cell = Text(str(text))
    for word, style in styles.items():
        cell.highlight_regex(rf"\b{re.escape(word)}\b", style)
    return cell


def _extra_table(table: dict, console: Console) -> Table | Group:
    """An experiment's own table: columns of figures never wrap (a number is whole or absent),
    prose wraps; a table whose figures alone are wider than the terminal is printed row by
    row instead, one "column: value" a line, so no figure is ever cut. A written table
    (fmt.written: render_experiment writes it once, for _prose_below and this)."""
    table = _without_bars(table, console.width)
    t = _titled_table(table["title"], console.width)
    align = table.get("align") or ["left"] + ["right"] * (len(table["columns"]) - 1)
    nowrap = table.get("nowrap", 1)   # leading columns (names) kept whole: the prose beside them wraps
    # The names on one line where they fit; else broken into lines as wide as the room the other
    # columns leave, between their words and after their hyphens.
    room = _name_room(table, nowrap, console.width)
    longest = max((len(str(row[i])) for row in table["rows"] for i in range(min(nowrap, len(row)))), default=0)
    limit = None if longest <= room else max(room, PROSE_MIN)
    for i, col in enumerate(table["columns"]):
        cells = [str(row[i]) for row in table["rows"] if i < len(row)]
        whole = _whole(cells) and i >= nowrap
        # Names are never wrapped by the table (it would cut them anywhere): they are on one line,
        # or broken beforehand between their words and after their hyphens (limit); prose wraps
        # between its words. A column that does not wrap keeps its header to its own width too.
        header = breaking.words(str(col), widths.column(max(str(col).split(), key=len, default=""), cells)) \
            if whole else col
        t.add_column(header, justify=align[i], no_wrap=whole or i < nowrap,
                     overflow="ellipsis" if whole else "fold",
                     min_width=None if whole or i < nowrap else _prose_min([str(col), *cells]))
    styles = table.get("styles") or {}
    prose, prose_room = _prose_room(table, nowrap, console.width, limit)
    for row in table["rows"]:
        t.add_row(*(_cell(breaking.name(str(c), limit) if i < nowrap and limit else
                          breaking.hanging(str(c), prose_room, 0, 0) if i == prose else c, styles)
                    for i, c in enumerate(row)))
    if _fits(table, nowrap, console.width, limit):
        return t
    return _stacked(table, styles, console.width)


def _prose_room(table: dict, nowrap: int, width: int, limit: int | None) -> tuple[int | None, int]:
    """The one prose column of a table that has one, and the columns the others leave it, its
    cells to be wrapped there beforehand (breaking.hanging): rich would break "(±390 µs)" between
    the figure and its unit. (None, 0) where there are several, or too little room: rich wraps them."""
    needs = _needs(table, nowrap, limit)
    prose = [i for i in range(nowrap, len(table["columns"]))
             if not _whole([str(row[i]) for row in table["rows"] if i < len(row)])]
    if len(prose) != 1:
        return None, 0
    needs[prose[0]] = 0
    room = width - _drawn_width(needs, width)
    cells = [str(table["columns"][prose[0]]), *(str(row[prose[0]]) for row in table["rows"] if prose[0] < len(row))]
    return (prose[0], room) if room >= _prose_min(cells) else (None, 0)


# A trailing prose column that would get fewer columns than this beside the others goes under its
# table, a line a row: at 80 columns inspect's "what else it changes" got 14, five lines a fix,
# where scan's findings (22) read well beside their figures in two lines or three.
PROSE_BESIDE = 20


def _prose_below(table: dict, width: int) -> tuple[dict, list[str]]:
    """The table without its trailing prose column where that column would get fewer than
    PROSE_BESIDE columns at this width beside the others, and its cells as lines to print under
    it ("{the row's name} — {the cell}", each row that has one, the column's header first if it
    has one); else the table as it was and no lines. A written table (fmt.written): its cells
    are text."""
    columns, nowrap = table["columns"], table.get("nowrap", 1)
    last = len(columns) - 1
    cells = [str(row[last]) for row in table["rows"] if last < len(row)]
    if last <= nowrap or _whole(cells) or not any(c.strip() for c in cells):
        return table, []
    rest = {**table, "columns": columns[:last], "rows": [list(row[:last]) for row in table["rows"]]}
    for key in ("align", "units"):
        if table.get(key):
            rest[key] = table[key][:last]
    if width - _drawn_width([*_needs(rest, nowrap, None), 0], width) >= PROSE_BESIDE:
        return table, []
    lines = [f"{row[0]} — {row[last]}" for row in table["rows"] if last < len(row) and str(row[last]).strip()]
    return rest, ([f"{columns[last]}:"] if str(columns[last]).strip() else []) + lines


TOKEN_MAX = 12  # a column of single words no longer than this (ok, DROP, tr) is kept whole, like figures


def _whole(cells: list[str]) -> bool:
    """Whether a column is never wrapped: figures, or short one-word codes."""
    return _figures(cells) or all(len(c) <= TOKEN_MAX and " " not in c.strip() for c in cells)


def _name_width(cells: list[str], limit: int) -> int:
    """How wide a name column is with its names broken at limit (breaking.name): its longest line."""
    longest = max((len(line) for c in cells for line in breaking.name(c, limit).split("\n")), default=0)
    return max(PROSE_MIN, longest)


def _name_room(table: dict, nowrap: int, width: int) -> int:
    """What the other columns leave the name columns (one name column: all of it)."""
    rest = _needs(table, nowrap, None)[nowrap:]
    return max(0, (width - widths.boxed(rest) - 3 * nowrap) // max(nowrap, 1))


BAR = re.compile(r"^[#.]+$")


def _without_bars(table: dict, width: int) -> dict:
    """A column with no header that only draws shares ('####....', the figure beside it) is
    dropped where keeping it would push the names onto two lines (an 80-column terminal)."""
    def drawn(i: int) -> bool:
        cells = [str(row[i]) for row in table["rows"] if i < len(row) and row[i] not in ("", "-")]
        return not table["columns"][i] and bool(cells) and all(BAR.match(c) for c in cells)
    bars = [i for i in range(len(table["columns"])) if drawn(i)]
    if not bars or _fits(table, table.get("nowrap", 1), width):
        return table
    keep = [i for i in range(len(table["columns"])) if i not in bars]
    out = {**table, "columns": [table["columns"][i] for i in keep],
           "rows": [[row[i] for i in keep if i < len(row)] for row in table["rows"]]}
    if table.get("align"):
        out["align"] = [table["align"][i] for i in keep]
    return out


def _figures(cells: list[str]) -> bool:
    """A column of figures: most of its cells are numbers with their units (a "within noise
    (±x)" among them stays a figure: it must not wrap either)."""
    filled = [c for c in cells if c not in ("", "-")]
    return bool(filled) and sum(bool(FIGURE.match(c)) for c in filled) * 2 >= len(filled)


PROSE_MIN = 8   # the narrowest a wrapping (prose) column is allowed to get


def _fits(table: dict, nowrap: int, width: int, limit: int | None = None) -> bool:
    """Whether the table fits `width` (_needs)."""
    return widths.boxed(_needs(table, nowrap, limit)) <= width


def _needs(table: dict, nowrap: int, limit: int | None) -> list[int]:
    """Each column's least width: a figure column whole, a prose column PROSE_MIN, the names on
    one line (limit None) or broken at limit (breaking.name); widths.boxed adds the borders."""
    needs = []
    for i, col in enumerate(table["columns"]):
        cells = [str(row[i]) for row in table["rows"] if i < len(row)]
        figures = _whole(cells) and i >= nowrap
        if figures:                 # whole; the header may wrap between its words
            needs.append(widths.column(max(str(col).split(), key=len, default=""), cells))
        elif i < nowrap:            # a name: on one line, or its longest part when wrapped
            head = len(max(str(col).split(), key=len, default=""))
            needs.append(max(head, _name_width(cells, limit) if limit else widths.column("", cells)))
        else:
            needs.append(_prose_min([str(col), *cells]))
    return needs


def _prose_min(cells: list[str]) -> int:
    """The narrowest a prose column may get: PROSE_MIN, or its longest word, so that it wraps
    between words and never folds one ("site-package" then "s"); a table that cannot give it
    that much is printed row by row (_stacked)."""
    return max(PROSE_MIN, *(len(word) for c in cells for word in c.split()))


def _stacked(table: dict, styles: dict, width: int) -> Group:
    """The table as records: each row's first cell, then "column: value" lines under it (the
    value on a line of its own when both do not fit, so a figure is never broken)."""
    lines = [Text(table["title"])]
    for row in table["rows"]:
        lines.append(_cell(f"  {row[0]}", styles))
        for col, cell in zip(table["columns"][1:], row[1:]):
            if len(f"    {col}: {cell}") <= width:
                lines.append(_cell(f"    {col}: {cell}", styles))
            else:
                lines += [_cell(f"    {col}:", styles), _cell(f"      {cell}", styles)]
    return Group(*lines)


def _print_table(console: Console, table) -> None:
    """A table under its title, the title wrapped at the terminal's width between its words as a
    note is (breaking.hanging: no trailing space, a figure kept whole): rich would wrap it at the
    table's own width, two or three lines where the terminal has room for one. The title is
    text, never markup (it may name a case or a program)."""
    if isinstance(table, Table) and table.title:
        title = table.title.plain if isinstance(table.title, Text) else str(table.title)
        table.title = None
        breaking.print_hanging(console, title, "table.title", indent=0, more=0)
    breaking.print_trimmed(console, table)


def render_experiment(exp: dict, console: Console, verbose: bool = True,
                      legends_said: set[str] | None = None) -> None:
    """One experiment: its question, its one-sentence answer, its tables and the lines under them.
    legends_said: the marks' legends printed already for the run's earlier experiments; without
    --verbose each is printed once, under the first table that has the mark (a run of several
    experiments would repeat it under each)."""
    legends_said = set() if legends_said is None else legends_said
    console.print()
    breaking.print_hanging(console, exp["question"], "bold", indent=0, more=0)
    said = fmt.answer(exp)
    if said:
        breaking.print_hanging(console, said, indent=0, more=0)
    instructions = exp.get("metric") == "instructions"
    if instructions:
        tables, legend = _instructions_table(exp, console.width)
        _print_table(console, tables[0])
        for line in legend:
            breaking.print_hanging(console, line, "dim")
        for table in tables[1:]:
            _print_table(console, table)
    legends = 0                       # case legends left out without --verbose
    if not instructions:
        for group in fmt.case_groups(exp):
            rows = fmt.case_rows(exp, group)
            table, legend, summaries = _case_table(exp, group, rows, console.width)
            _print_table(console, table)
            for line in summaries:
                breaking.print_hanging(console, line)
            if legend and verbose:      # what each case is: detail (the wide table has it as a column)
                breaking.print_hanging(console, "layers" + (" [system calls per op]" if fmt.has_syscalls(exp) else "")
                                       + ": " + "; ".join(legend), "dim")
            elif legend:
                legends += 1
            for line in fmt.marks_lines(exp, rows):
                if verbose or line not in legends_said:
                    breaking.print_hanging(console, line, "dim")
                legends_said.add(line)
    if instructions:
        breaking.print_hanging(console, "the layer chains: from the loop down to the system call, inclusive "
                               "instructions per operation (x calls per operation); (syscall) marks the function "
                               "that made it", "dim", indent=0)
        for case in exp["cases"]:
            tree = _chain_tree(case)
            if tree is not None:
                breaking.print_trimmed(console, tree)
    # "detail" tables print only with --verbose; a "brief" one stands in for them without it.
    hidden = [table["title"] for table in exp.get("tables", []) if table["rows"] and table.get("detail")
              and not verbose]
    for table in exp.get("tables", []):
        shown = not table.get("detail") and not table.get("brief") or (verbose and table.get("detail")) or \
            (not verbose and table.get("brief"))
        if table["rows"] and shown:
            table, below = _prose_below(fmt.written(table), console.width)
            _print_table(console, _extra_table(table, console))
            for line in below:
                breaking.print_hanging(console, line, indent=2, more=4)
            for note in table.get("notes", []):
                breaking.print_hanging(console, note, "dim")
    classic = _classic_table(exp, console.width)
    if classic is not None:
        _print_table(console, classic)
    if verbose:
        for r in exp.get("classic_now") or []:
            breaking.print_hanging(console, f"{r['label']} -> {r['counterpart'] or 'no counterpart'}: {r['why']}",
                                   "dim")
    stopping = fmt.stopping_line(exp, verbose)
    if stopping:
        style = "yellow" if "not met" in stopping or "too few" in stopping else "dim"
        breaking.print_hanging(console, stopping, style)
    details = [*exp.get("notes", []), *exp.get("detail_notes", [])]
    if exp.get("method"):
        details.insert(0, f"method: {exp['method']}")
    own = fmt.own_settings_line(exp)
    if own:
        details.insert(0, own)
    if exp.get("workdir_fs"):
        details.append(f"work directory on {exp['workdir_fs']}")
    details += [line for line in (fmt.harness_line(exp), fmt.runtimes_line(exp)) if line]
    warnings = fmt.noise_lines(exp)
    for line in fmt.problems(exp):
        breaking.print_hanging(console, line, "yellow" if line.startswith("skipped") else "bold red")
    if verbose:
        for line in details:
            breaking.print_hanging(console, f"note: {line}", "dim")
        if warnings:
            console.print("  warnings (the figures' own, and the machine's while it ran):", style="yellow")
            for line in warnings:
                breaking.print_hanging(console, line, "yellow", indent=4)
    elif details or warnings or legends or hidden:
        # The answer first: the notes and warnings are folded into one line, as the HTML report does.
        counted = ["what each case is"] * bool(legends) + \
            [f"{len(hidden)} more table{'s' * (len(hidden) != 1)}"] * bool(hidden) + \
            [f"{len(details)} note{'s' * (len(details) != 1)}"] * bool(details) + \
            [f"{len(warnings)} warning{'s' * (len(warnings) != 1)}"] * bool(warnings)
        said = counted[0] if len(counted) == 1 else ", ".join(counted[:-1]) + " and " + counted[-1]
        breaking.print_hanging(console, f"{said} (--verbose prints them)", "dim")
    if exp.get("interrupted"):
        console.print("  interrupted: the figures above use only the rounds that finished", style="bold yellow")


def render(doc: dict, console: Console, verbose: bool = True) -> None:
    """Prints a result's tables. What it prints is the result with every control character in
    its text escaped (text.py): a case or a program named with an escape sequence shows as text."""
    doc = printable_data(doc)
    # The header lines wrap under their own words; text, not markup: a result file's machine
    # names are whatever its machine said.
    breaking.print_hanging(console, f"machine: {fmt.machine_line(doc['machine'])}", "dim", indent=0)
    timed = (doc["settings"] or {}).get("metric", "time") == "time"
    brief = not verbose and (doc["settings"] or {}).get("method_brief")
    if fmt.run_method_applies(doc) and brief:
        breaking.print_hanging(console, f"method: {brief} (--verbose: the whole method)", "dim", indent=0)
    elif fmt.run_method_applies(doc):
        breaking.print_hanging(console, f"method: {fmt.settings_line(doc['settings'], doc['experiments'])}"
                               + ("; ratios paired per round, 95% CI from interpolated order statistics"
                                  if timed else ""), "dim", indent=0)
    concurrent = fmt.concurrent_line(doc)
    if concurrent:
        breaking.print_hanging(console, concurrent, "bold yellow", indent=0)
    legends_said: set[str] = set()
    for exp in doc["experiments"]:
        render_experiment(exp, console, verbose, legends_said)
