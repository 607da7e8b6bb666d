"""Every experiment's tables at 80 columns, rendered from recorded results: every number whole.

The recorded results (tests/data/recorded/*.json) are real runs of each experiment with their
raw samples removed (the tables are drawn from the statistics). A figure that does not fit
must never come out cut ("1.0…", "medi…"): prose wraps or moves to a legend instead.
"""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from layertax.report import format as fmt
from layertax.report import terminal

RECORDED = sorted((Path(__file__).parent / "data" / "recorded").glob("*.json"))


def _render(doc: dict, width: int) -> str:
    out = io.StringIO()
    terminal.render(doc, Console(file=out, width=width, no_color=True), verbose=True)
    return out.getvalue()


def _joined(text: str) -> str:
    """The output with each table row's cells side by side, so a figure is found whole or not at all."""
    return re.sub(r"[ \t]+", " ", text)


def test_there_is_a_recording_of_every_experiment():
    from layertax import experiments

    names = {e["name"] for path in RECORDED for e in json.loads(path.read_text())["experiments"]}
    assert set(experiments.registry()) <= names


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
@pytest.mark.parametrize("width", [80, 100])
def test_every_number_is_whole_at_80_and_100_columns(path, width):
    doc = json.loads(path.read_text())
    text = _render(doc, width)
    assert max(len(line) for line in text.splitlines()) <= width
    assert "…" not in "".join(line for line in text.splitlines() if "min … max" not in line)
    flat = _joined(text)
    checked = 0
    for exp in doc["experiments"]:
        if exp.get("metric") == "instructions":
            # Each count and ratio whole, and each object's count on its object's line.
            for row in fmt.instruction_rows(exp):
                for key in ("per_op", "ratio"):
                    if row[key] != "-":
                        assert row[key] in flat, (row["case"], key, row[key])
                        checked += 1
                for name, n in row["by_object"]:
                    assert re.search(re.escape(name) + r" +" + re.escape(n) + r"$", flat, re.M), (row["case"], name)
                    checked += 1
            continue
        for group in fmt.case_groups(exp):
            for row in fmt.case_rows(exp, group):
                for key in ("median", "spread", "ratio", "classic"):
                    value = row[key]
                    if value and value != "-":
                        assert value in flat, (exp["name"], row["case"], key, value)
                        checked += 1
        for table in exp.get("tables", []):
            for row in table["rows"]:
                for cell in row:
                    cell = str(cell)
                    if cell and terminal.FIGURE.match(cell) and len(cell) <= 40:
                        assert cell in flat, (exp["name"], table["title"], cell)
                        checked += 1
    # The test looked at real figures (unicode-io's matrix holds classes, not numbers).
    assert checked > 10 or all(e["name"] == "unicode-io" for e in doc["experiments"])


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
def test_wide_terminals_keep_the_full_table(path):
    doc = json.loads(path.read_text())
    text = _render(doc, 200)
    for exp in doc["experiments"]:
        if exp.get("metric") != "instructions" and any(g for g in fmt.case_groups(exp)):
            rows = [r for g in fmt.case_groups(exp) for r in fmt.case_rows(exp, g)]
            if rows:
                assert "95% CI" in text and rows[0]["layer"].split()[0] in text


def test_inspect_is_a_compact_summary_at_100_columns():
    """inspect's terminal summary: at most ~40 lines at 100 columns; --verbose has everything."""
    doc = json.loads((Path(__file__).parent / "data" / "recorded" / "inspect-git.json").read_text())
    out = io.StringIO()
    terminal.render(doc, Console(file=out, width=100, no_color=True), verbose=False)
    brief = out.getvalue().splitlines()
    assert len(brief) <= 42 and max(len(line) for line in brief) <= 100
    assert re.search(r"\d+ more tables?\b.*\(--verbose prints them\)", out.getvalue())
    full = _render(doc, 100)
    exp = doc["experiments"][0]
    assert all(" ".join(table["title"].split()[:3]) in full for table in exp["tables"] if table["rows"])
    assert all(note.split(":")[0] in full for note in exp["detail_notes"])


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
@pytest.mark.parametrize("width", [120, 140, 160])
def test_a_case_row_is_one_line_between_80_and_a_full_screen(path, width):
    """Wider than 120 columns the full table is drawn only if it fits: one that does not
    (callchain with its system-calls column needs about 190) would wrap each row into three
    lines; the compact table takes its place. So a case's ratio is on its name's line."""
    doc = json.loads(path.read_text())
    lines = _render(doc, width).splitlines()
    assert max(len(line) for line in lines) <= width
    for exp in doc["experiments"]:
        for group in fmt.case_groups(exp):
            for row in fmt.case_rows(exp, group):
                if row["ratio"] and row["ratio"] != "-":
                    name = re.compile(rf"^[\s│┃]*{re.escape(row['case'])}(?: \(base\))?\s")
                    assert any(name.match(line) and row["ratio"] in line for line in lines), \
                        (exp["name"], row["case"], width)


def _cli_with_terminal_stdin(columns: int, *args: str, env_columns: str | None = None) -> str:
    """layertax's stdout piped (as in `layertax report F | tee log`) while its stdin is a
    terminal of `columns` columns (a pseudo-terminal made here); COLUMNS unset, as shells
    leave it, unless env_columns."""
    import fcntl
    import os
    import pty
    import struct
    import subprocess
    import sys
    import termios

    leader, follower = pty.openpty()
    try:
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
        if env_columns is not None:
            env["COLUMNS"] = env_columns
        done = subprocess.run([sys.executable, "-m", "layertax", *args], stdin=follower, capture_output=True,
                              text=True, timeout=120, env=env)
    finally:
        os.close(leader)
        os.close(follower)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("columns", [80, 100])
def test_piped_output_read_in_a_terminal_takes_its_width(columns):
    text = _cli_with_terminal_stdin(columns, "report", str(RECORDED[0]))
    assert "│" in text and max(len(line) for line in text.splitlines()) <= columns


def test_columns_set_by_the_user_wins_over_the_terminal():
    text = _cli_with_terminal_stdin(80, "report", str(RECORDED[0]), env_columns="150")
    assert max(len(line) for line in text.splitlines()) > 80


def test_a_drawn_share_gives_way_to_whole_names_at_80_columns():
    """inspect's split: the bar beside each share is dropped where it would push the stage
    names onto two lines; a wide terminal keeps it."""
    table = {"title": "the split", "columns": ["stage", "time [95% CI]", "share", ""],
             "rows": [["ld.so: start-up work any program pays", "433 µs [235 µs, 590 µs]", "26%",
                       "#####..............."],
                      ["ld.so: other work for this program", "within noise (±70.2 µs)", "-", ""],
                      ["sum of the parts (error -7.2%)", "1.55 ms", "93%", ""]]}
    for width, drawn in ((80, False), (200, True)):
        out = io.StringIO()
        console = Console(file=out, width=width, no_color=True)
        console.print(terminal._extra_table(table, console))
        text = out.getvalue()
        assert all(cell in text for row in table["rows"] for cell in row[:3]), width
        assert ("#####" in text) == drawn and max(map(len, text.splitlines())) <= width


def _cut_names(text: str, names: set[str]) -> set[str]:
    """The case names the output shows folded inside a word: its first piece and the piece after
    it both there as tokens ("mmap-simd-fre" then "sh"). A name wrapped after one of its hyphens
    or between its words ("c-wprintf-setlocale-" then "static") is not cut."""
    tokens = set(re.findall(r"[\w.+-]+", text))
    found = set()
    for name in names:
        for k in range(3, len(name) - 1):
            head, rest = name[:k], name[k:]
            # A head with no hyphen may be an ordinary word of the prose ("page" of "page cache").
            if head[-1] in "- " or rest[0] in "- ,(" or "-" not in head or head not in tokens or head in names:
                continue
            if any(rest.startswith(t) for t in tokens if len(t) >= 2):
                found.add(f"{head} (of {name})")
    return found


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
@pytest.mark.parametrize("width", [80, 100])
@pytest.mark.parametrize("verbose", [False, True], ids=["brief", "verbose"])
def test_no_name_is_broken_inside_a_word_at_80_and_100_columns(path, width, verbose):
    doc = json.loads(path.read_text())
    out = io.StringIO()
    terminal.render(doc, Console(file=out, width=width, no_color=True), verbose=verbose)
    names = {c["name"] for exp in doc["experiments"] for c in exp.get("cases", []) + exp.get("controls", [])}
    assert not _cut_names(out.getvalue(), names)


def test_the_cut_name_check_finds_a_name_folded_mid_word():
    names = {"mmap-simd-fresh", "c-wprintf-setlocale-static", "getc", "getc-unlocked"}
    assert _cut_names(" mmap-simd-fre   28.17\n sh\n", names) == {"mmap-simd-fre (of mmap-simd-fresh)"}
    assert _cut_names(" global-v   1.00x\n ar\n", {"global-var"}) == {"global-v (of global-var)"}
    assert not _cut_names(" c-wprintf-setlocale-   tr\n static\n getc   getc-unlocked\n", names)


def test_names_break_between_words_and_after_hyphens_never_inside_a_word():
    from layertax.report import breaking

    assert breaking.hyphens("c-wprintf-setlocale-static", 20) == "c-wprintf-setlocale-\nstatic"
    assert breaking.hyphens("c-rename", 20) == "c-rename"                        # fits: whole
    assert breaking.hyphens("averyveryverylongword", 5) == "averyveryverylongword"   # no hyphen: whole
    assert breaking.name("lazy: ld.so: start-up work any program pays", 16) == \
        "lazy: ld.so:\nstart-up work\nany program pays"
    assert breaking.words("cache (LD_DEBUG)", 10) == "cache\n(LD_DEBUG)"
    for text, limit in (("java-stat-path-of-string-nonascii", 12), ("now (LD_BIND_NOW=1)", 8)):
        pieces = breaking.name(text, limit).split("\n")
        assert "".join(p if p.endswith("-") else p + " " for p in pieces).strip() == text


@pytest.mark.parametrize("width", [80, 100])
def test_the_classic_table_breaks_no_word_even_beside_three_decimal_ratios(width):
    # A ratio whose interval supports three decimals ("1.185x [1.177, 1.196]") is the widest
    # figure the table holds: beside it, the layers and the cases wrap between words and after
    # hyphens, never inside a word ("MoveFileWithProg" / "ressW", "py-os-rename-st" / "r").
    doc = json.loads((Path(__file__).parent / "data" / "recorded" / "callchain.json").read_text())
    exp = next(e for e in doc["experiments"] if e.get("classic_now"))
    for row in exp["classic_now"]:
        if row["now_ratio"]:
            row["now_ratio"] = {**row["now_ratio"], "median": 1.185, "ci95": [1.177, 1.196]}
    out = io.StringIO()
    terminal.render(doc, Console(file=out, width=width, no_color=True), verbose=False)
    text = out.getvalue()
    assert max(len(line) for line in text.splitlines()) <= width
    assert "1.185x [1.177, 1.196]" in text
    counterparts = {r["counterpart"] for r in exp["classic_now"] if r["counterpart"]}
    assert not _cut_names(text, counterparts)
    words = set(text.split())
    for row in exp["classic_now"]:
        for word in row["label"].split():
            assert word in words, (row["label"], word)


def test_a_marks_legend_is_printed_once_a_run_without_verbose():
    """A run of several experiments prints the "~" legend under the first table that has the
    mark, not under every one; --verbose prints it under each."""
    docs = [json.loads((Path(__file__).parent / "data" / "recorded" / f"{name}.json").read_text())
            for name in ("callchain", "encoding")]
    doc = {**docs[0], "experiments": [*docs[0]["experiments"], *docs[1]["experiments"]]}
    legend = "~ 95% interval wider than"
    alone = []                                    # each experiment alone has the mark and its legend
    for exp in doc["experiments"]:
        out = io.StringIO()
        terminal.render_experiment(exp, Console(file=out, width=100, no_color=True), verbose=True)
        alone.append(out.getvalue().count(legend))
    assert all(alone)
    for verbose, times in ((False, 1), (True, sum(alone))):
        out = io.StringIO()
        terminal.render(doc, Console(file=out, width=100, no_color=True), verbose=verbose)
        assert out.getvalue().count(legend) == times


@pytest.mark.parametrize("width", [80, 100])
def test_a_table_title_wraps_at_the_terminal_between_words_and_is_never_markup(width):
    """A table's title takes the terminal's width, not the table's: the callchain title (86
    characters) is one line at 100 columns beside its 81-column table, and at 80 it breaks
    between words. A title is text: brackets in it are printed, not read as markup."""
    doc = json.loads((Path(__file__).parent / "data" / "recorded" / "callchain.json").read_text())
    exp = doc["experiments"][0]
    group = fmt.case_groups(exp)[0]
    title = f"{exp['name']}: {group['title']} (ratios to {group['baseline']}, paired per round)"
    text = _render(doc, width)
    lines = text.splitlines()
    if len(title) <= width:
        assert title in lines
    else:
        start = next(i for i, line in enumerate(lines) if line.startswith(f"{exp['name']}: {group['title'][:20]}"))
        joined = " ".join(line.strip() for line in lines[start:start + 2])
        assert joined.startswith(title) and all(len(line) <= width for line in lines[start:start + 2])
    # An experiment's own table (scan's throughput) with brackets in its title.
    scan = json.loads((Path(__file__).parent / "data" / "recorded" / "scan.json").read_text())["experiments"][0]
    shown = next(t for t in scan["tables"] if t["rows"] and not t.get("detail"))
    shown["title"] = "[bold]kept[/bold] " + shown["title"]
    out = io.StringIO()
    terminal.render_experiment(scan, Console(file=out, width=width, no_color=True), verbose=False)
    assert "[bold]kept[/bold] " + shown["title"].split()[1] in out.getvalue()


@pytest.mark.parametrize("width", [80, 100])
def test_a_prose_cell_wraps_between_its_words_never_inside_one(width):
    """inspect's fixes table beside two wide figure columns: its prose column ("what else it
    changes") is at least as wide as its longest word ("site-packages"), so the words are whole
    on their lines; where the figures leave less than that, the table is printed row by row."""
    table = {"title": "fixes tried", "columns": ["fix", "saving", "spawn->exit ratio [95% CI]", "what else it changes"],
             "align": ["left", "right", "right", "left"],
             "rows": [["python -S (no site module)", "4.26 ms [4.04, 4.59]", "0.71x [0.70, 0.72]",
                       "site-packages are not on sys.path: a program that imports from them fails"],
                      ["python -I (isolated)", "no measurable saving (±550 µs)", "1.00x [0.97, 1.03]",
                       "ignores PYTHON* variables and the user's site-packages"]]}
    for squeeze in ("", " " * 30):   # a longer fix name leaves the prose too little: row by row
        rows = [[row[0] + squeeze.replace(" ", "x") if i == 0 else row[0], *row[1:]]
                for i, row in enumerate(table["rows"])]
        out = io.StringIO()
        console = Console(file=out, width=width, no_color=True)
        console.print(terminal._extra_table({**table, "rows": rows}, console))
        text = out.getvalue()
        assert max(len(line) for line in text.splitlines()) <= width
        printed = set(re.findall(r"\S+", text))
        for row in rows:
            for word in row[3].split():
                assert word in printed, (word, text)


@pytest.mark.parametrize("width", [80, 160])
def test_a_trailing_prose_column_squeezed_narrow_goes_under_its_table(width):
    """At 80 columns inspect's "what else it changes" would get about 14 columns beside the
    figures, five lines a fix: it goes under the table, one "fix — what it changes" a row, each
    wrapping under its own words. Where it has room (160 columns) it stays in the table."""
    table = {"title": "fixes tried", "columns": ["fix", "saving", "spawn->exit ratio [95% CI]", "what else it changes"],
             "align": ["left", "right", "right", "left"],
             "rows": [["python -S (no site module)", "4.26 ms [4.04, 4.59]", "0.71x [0.70, 0.72]",
                       "site-packages are not on sys.path: a program that imports from them fails"],
                      ["python -X frozen_modules=on", "4.11 ms [3.90, 4.30]", "0.72x [0.70, 0.73]", ""]]}
    exp = json.loads((Path(__file__).parent / "data" / "recorded" / "scan.json").read_text())["experiments"][0]
    exp["tables"] = [table]
    out = io.StringIO()
    terminal.render_experiment(exp, Console(file=out, width=width, no_color=True), verbose=False)
    lines = out.getvalue().splitlines()
    assert max(map(len, lines)) <= width
    beside = any("what else it changes" in line and "fix" in line for line in lines)
    below = [i for i, line in enumerate(lines) if line.strip() == "what else it changes:"]
    if width == 80:
        assert not beside and len(below) == 1
        item = lines[below[0] + 1:]
        assert item[0].startswith("  python -S (no site module) — site-packages")
        assert item[1].startswith("      ") and "python -X" not in "\n".join(item[:3])   # no text: no line
        assert " ".join(line.strip() for line in item[:2]).endswith("imports from them fails")
    else:
        assert beside and not below


def test_a_prose_cell_never_parts_a_figure_from_its_unit_at_any_width():
    """The one prose column of a table (inspect's saving, where a fix saved nothing measurable) is
    wrapped beforehand at the room the other columns leave it: rich's own wrapping put "(±550" at
    the end of one line and "µs)" on the next at 60, 64-68, 80 and 82 columns."""
    table = {"title": "fixes tried", "columns": ["fix", "saving", "spawn->exit ratio [95% CI]"],
             "align": ["left", "right", "right"],
             "rows": [["python -S (no site module)", "4.26 ms [4.04, 4.59]", "0.71x [0.70, 0.72]"],
                      ["python -X frozen_modules=on", "no measurable saving (±760 µs)", "1.01x [0.99, 1.05]"],
                      ["python -I (isolated)", "no measurable saving (±550 µs)", "1.00x [0.97, 1.03]"]]}
    for width in range(60, 90, 2):
        out = io.StringIO()
        console = Console(file=out, width=width, no_color=True)
        console.print(terminal._extra_table(table, console))
        text = out.getvalue()
        assert max(map(len, text.splitlines())) <= width
        assert "(±550 µs)" in text and "(±760 µs)" in text, (width, text)


def test_a_name_indented_under_its_part_keeps_its_indent_on_every_line():
    """inspect's runtime stages sit two spaces in under main->exit; broken at 80 columns they lost
    it and read as parts of their own."""
    from layertax.report import breaking

    lines = breaking.name("  the interpreter's own imports (15 modules)", 33).split("\n")
    assert lines == ["  the interpreter's own imports", "  (15 modules)"]
    assert breaking.name("node-renamesync-buffer", 17) == "node-renamesync-\nbuffer"


def test_a_line_under_a_table_wraps_with_a_hanging_indent_and_keeps_a_figure_with_its_unit():
    from layertax.report import breaking

    text = "imports by package (self time): site 2.0 ms, encodings 1.7 ms, _collections_abc 1.3 ms, certifi 0.6 ms"
    lines = breaking.hanging(text, 60).split("\n")
    assert lines[0].startswith("  imports") and all(line.startswith("    ") and line[4] != " " for line in lines[1:])
    assert all(len(line) <= 60 for line in lines)
    assert " ".join(line.strip() for line in lines) == text
    assert not any(line.rstrip().endswith(tuple("0123456789")) for line in lines[:-1])   # "1.3" / "ms" never apart
    # A word wider than the line is folded (as rich folds it), a line break starts a new item.
    folded = breaking.hanging("saved: /" + "x" * 100, 40).split("\n")
    assert all(len(line) <= 40 for line in folded) and "".join(p.strip() for p in folded[1:]) == "/" + "x" * 100
    assert breaking.hanging("one\ntwo", 40) == "  one\n  two"
    # Wide characters count as the two cells they take.
    wide = breaking.hanging("名前 " * 30, 40).split("\n")
    from rich.cells import cell_len
    assert all(cell_len(line) <= 40 for line in wide)


@pytest.mark.parametrize("width", [60, 80, 100])
def test_the_answer_never_parts_an_interval_and_wraps_within_the_width(width):
    """An experiment's one-sentence answer, printed before its tables, wraps between words at the
    console's width, never inside an interval: "[0.89," / "1.04]" read as two figures."""
    import re

    from layertax.report import breaking, format as fmt

    exp = json.loads((Path(__file__).parent / "data" / "recorded" / "callchain.json").read_text())["experiments"][0]
    said = fmt.answer(exp)
    intervals = re.findall(r"\[[^\]]+\]", said)
    assert intervals
    out = io.StringIO()
    terminal.render_experiment(exp, Console(file=out, width=width, no_color=True), verbose=False)
    lines = out.getvalue().splitlines()
    first = next(i for i, line in enumerate(lines) if line.strip() and said.startswith(line.strip()))
    answer = lines[first:first + len(said) // (width // 2) + 2]
    joined = " ".join(line.strip() for line in answer)
    assert joined.startswith(said) and all(len(line) <= width for line in answer)
    for interval in intervals:
        assert any(interval in line for line in answer), interval
    assert breaking.hanging("a " * 30 + "[0.89, 1.04]", 66, 0, 0).split("\n")[-1] == "[0.89, 1.04]"


@pytest.mark.parametrize("width", [40, 60])
def test_the_question_wraps_between_words_with_no_trailing_space(width):
    """An experiment's question, its first line, wraps as the answer does: between words, within
    the width, and no line left with the trailing space rich's own wrapping leaves."""
    exp = json.loads((Path(__file__).parent / "data" / "recorded" / "callchain.json").read_text())["experiments"][0]
    out = io.StringIO()
    terminal.render_experiment(exp, Console(file=out, width=width, no_color=True), verbose=False)
    lines = out.getvalue().splitlines()
    first = next(i for i, line in enumerate(lines) if line.strip())
    question = lines[first:first + 2 + len(exp["question"]) // width]
    assert " ".join(question).startswith(exp["question"])
    assert all(len(line) <= width and line == line.rstrip() for line in question)
    assert len([line for line in question if line]) > 1


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
@pytest.mark.parametrize("width", [80, 100])
def test_no_line_ends_in_spaces(path, width):
    """A table row whose last column is blank (a case with no classic figure) ends where its last
    figure does: rich pads the blank cell to its column's width, and a log or a diff keeps it."""
    text = _render(json.loads(path.read_text()), width)
    padded = [line for line in text.splitlines() if line != line.rstrip()]
    assert not padded, padded[:3]
