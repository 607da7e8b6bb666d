"""The tables of unicode-io: the matrix, the diagnoses, and the classic finding beside today's."""
from __future__ import annotations

# How the terminal (and later reports) colour a class wherever it appears in a cell.
STYLES = {"exact": "green", "transliterated": "yellow", "replaced": "yellow", "dropped": "bold red",
          "mojibake": "bold red", "truncated": "bold red", "error": "magenta"}
# The classes in a few letters, for the matrix a terminal shows (the full words: --verbose and
# every export), so that it fits 80 to 100 columns without breaking a word.
CODES = {"exact": "ok", "transliterated": "tr", "replaced": "rep", "dropped": "DROP", "mojibake": "MOJI",
         "truncated": "TRUNC", "error": "err"}
CODE_STYLES = {CODES[word]: style for word, style in STYLES.items()}


def _cells(case: dict) -> dict[str, dict[str, dict]]:
    """{column: {channel: cell}}"""
    out: dict[str, dict[str, dict]] = {}
    for cell in case.get("cells", []):
        out.setdefault(cell["column"], {})[cell["channel"]] = cell
    return out


def cell_text(by_channel: dict[str, dict]) -> str:
    """One class if the pipe and the pty agree, else "pipe-class / pty-class"."""
    classes = [by_channel[ch]["class"] for ch in ("pipe", "pty") if ch in by_channel]
    if not classes:
        return "-"
    return classes[0] if len(set(classes)) == 1 else " / ".join(classes)


def live_columns(exp: dict) -> list[dict]:
    return [c for c in exp["columns"] if not c.get("skipped")]


def matrix_table(exp: dict) -> dict:
    cols = live_columns(exp)
    rows = []
    for case in exp["cases"]:
        if case["status"] != "ok":
            rows.append([case["name"], case["layer"], *([case["status"]] * len(cols))])
            continue
        cells = _cells(case)
        rows.append([case["name"], case["layer"], *(cell_text(cells.get(c["name"], {})) for c in cols)])
    notes = ["a cell shows one class when the pipe and the pty agree, else pipe / pty",
             "every cell runs with a clean environment: PATH, HOME and the column's LANG only"]
    notes += [f"column {c['name']} skipped: {c['skipped']}" for c in exp["columns"] if c.get("skipped")]
    return {"title": "unicode-io: what arrives, by program (rows) and locale environment (LANG=, columns)",
            "columns": ["program", "how it writes", *(c["name"] for c in cols)], "rows": rows, "notes": notes,
            "styles": STYLES, "align": ["left", "left", *(["center"] * len(cols))]}


def matrix_brief(exp: dict) -> dict:
    """The matrix in class codes, without the "how it writes" column: the terminal's stand-in
    for the full one (which --verbose prints, and every export keeps)."""
    full = matrix_table(exp)
    rows = [[row[0], *("/".join(CODES.get(w.strip(), w.strip()) for w in str(cell).split(" / "))
                       for cell in row[2:])] for row in full["rows"]]
    legend = ", ".join(f"{code} {word}" for word, code in CODES.items())
    return {"title": full["title"] + " (--verbose: in words, with how each program writes)",
            "columns": [full["columns"][0], *full["columns"][2:]], "rows": rows, "styles": CODE_STYLES,
            "align": ["left", *(["center"] * (len(full["columns"]) - 2))], "brief": True,
            "notes": [f"{legend}; a/b: the pipe's class, then the pty's"]}


def _base_and_link(case: dict) -> tuple[str, str]:
    link = (case.get("program") or {}).get("link")
    if link in ("static", "musl") and case["name"].endswith(f"-{link}"):
        return case["name"][: -len(link) - 1], link
    return case["name"], link or ""


def _programs_label(cases: list[dict]) -> str:
    """"c-wprintf (dynamic, static), cpp-wcout": twins built several ways named once."""
    links: dict[str, list[str]] = {}
    for case in cases:
        base, link = _base_and_link(case)
        links.setdefault(base, []).append(link)
    return ", ".join(base if ks == [""] else f"{base} ({', '.join(ks)})" for base, ks in links.items())


def _where(cells: list[tuple[str, str]], exp: dict) -> str:
    """"C, POSIX" when both channels of those columns share the diagnosis, else "C/pty, ..."."""
    columns = dict.fromkeys(col for col, _ in cells)
    if all((col, ch) in cells for col in columns for ch in exp["channels"]):
        return ", ".join(columns)
    return ", ".join(f"{col}/{ch}" for col, ch in cells)


def diagnosis_table(exp: dict) -> dict:
    """Each distinct diagnosis once, with the programs and cells it explains."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for case in exp["cases"]:
        by_text: dict[str, list[tuple[str, str]]] = {}
        for cell in case.get("cells", []):
            if cell.get("diagnosis"):
                by_text.setdefault(cell["diagnosis"], []).append((cell["column"], cell["channel"]))
        for text, cells in by_text.items():
            groups.setdefault((text, _where(cells, exp)), []).append(case)
    rows = [[_programs_label(cases), where, text] for (text, where), cases in groups.items()]
    return {"title": "unicode-io: why, and the fix (one line per cause)",
            "columns": ["programs", "cells (LANG=)", "what arrives, why, and the fix"], "rows": rows, "notes": [],
            "align": ["left", "left", "left"], "nowrap": 0}


def classic_table(exp: dict) -> dict:
    """The article's program (std::wcout after locale::global) linked dynamically and statically, today."""
    by_name = {c["name"]: c for c in exp["cases"]}
    rows, same, total = [], 0, 0
    for col in live_columns(exp):
        row = [col["name"]]
        classes = []
        for name in ("cpp-wcout-global", "cpp-wcout-global-static"):
            case = by_name.get(name)
            cells = _cells(case).get(col["name"], {}) if case and case["status"] == "ok" else {}
            text = cell_text(cells) if cells else (case or {}).get("status", "-")
            row.append(text)
            classes.append(text)
        rows.append(row)
        if classes[0] != "-":
            total += 1
            same += classes[0] == classes[1]
    notes = ["then (Wu Yongwei, 2017-2018; Windows 7, MSVC): with the dynamic release runtime (/MD, the Universal "
             "CRT) all output was lost from the first Chinese character on; static (/MT) and debug builds worked",
             f"now: the article's program gives the same class linked dynamically and statically in {same} of "
             f"{total} environments"]
    notes += [line for line in (_agreement_line(exp, "static", "over every C and C++ program, the static build"),
                                _agreement_line(exp, "musl", "the musl build (a different C library)"))
              if line]
    lost = sorted({_base_and_link(c)[0] for c in exp["cases"]
                   if any(cell["class"] == "truncated" for cell in c.get("cells", []))})
    if lost:
        notes.append("today's lost output (truncated: nothing after the failure arrives): " + ", ".join(lost))
    return {"title": "then vs now: the classic std::wcout program, dynamic vs static C runtime",
            "columns": ["LANG=", "dynamic (like /MD)", "static (like /MT)"], "rows": rows, "notes": notes,
            "styles": STYLES, "align": ["left", "center", "center"]}


def link_agreement(exp: dict, link: str) -> tuple[int, list[str]]:
    """(cells compared, cells that differ) between each program built `link` (static, musl) and its
    dynamic glibc twin, cell by cell."""
    by_name = {c["name"]: c for c in exp["cases"]}
    compared, differing = 0, []
    for twin in exp["cases"]:
        base, twin_link = _base_and_link(twin)
        case = by_name.get(base)
        if twin_link != link or twin["status"] != "ok" or not case or case["status"] != "ok":
            continue
        mine, theirs = _cells(case), _cells(twin)
        for col, chans in theirs.items():
            for ch, cell in chans.items():
                other = mine.get(col, {}).get(ch)
                if other is None:
                    continue
                compared += 1
                if other["class"] != cell["class"]:
                    differing.append(f"{twin['name']} {col}/{ch}: {cell['class']} (dynamic: {other['class']})")
    return compared, differing


def _agreement_line(exp: dict, link: str, what: str) -> str | None:
    compared, differing = link_agreement(exp, link)
    if not compared:
        return None
    line = f"{what} differs from the dynamic glibc build in {len(differing)} of {compared} cells"
    if differing:      # each one is in the matrix, its row beside its dynamic twin's
        line += f" (the matrix's {link} rows)"
    return line


def all_tables(exp: dict) -> list[dict]:
    # The matrix in codes and the classic beside today answer; the matrix in words and the
    # diagnosis of every cell (what arrives, why, the fix) are behind --verbose.
    return [matrix_brief(exp), {**matrix_table(exp), "detail": True}, {**diagnosis_table(exp), "detail": True},
            classic_table(exp)]
