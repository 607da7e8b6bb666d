"""The Markdown export: the same tables as the terminal, pasteable into an issue or docs/."""
from __future__ import annotations

from layertax import units
from layertax.report import format as fmt


def _escape(text: str) -> str:
    """Plain text in a Markdown cell or line: HTML is shown, not rendered (a program's name may
    be `<img onerror=...>`), and a pipe or a newline cannot break the table."""
    text = str(text).replace("&", "&amp;").replace("<", "&lt;")   # no "<", no tag: ">" alone stays readable
    return text.replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def _legend(line: str) -> str:
    """A line saying what a mark means, escaped: "* ..." at a line's start would be a bullet, and
    the mark would vanish."""
    text = _escape(line)
    return "\\" + text if text.startswith("*") else text


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(_escape(h) for h in header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(_escape(c) for c in row) + " |" for row in rows]
    return out


def _instructions(exp: dict) -> list[str]:
    """A callgrind-counted experiment: instructions per operation by object, then each case's chain."""
    lines = _table(["case", "layer", "instructions/op", f"ratio to {fmt.baselines_text(exp)}",
                    "where (instructions/op by object)"],
                   [[r["case"], r["layer"], r["per_op"], r["ratio"], r["objects"]] for r in fmt.instruction_rows(exp)])
    for case in exp["cases"]:
        chain = fmt.chain_lines(case)
        if chain:
            # In a code block HTML is not rendered; only a fence in a label could close it early.
            lines += ["", f"{_escape(case['name'])}:", "", "```",
                      *("    " * depth + label.replace("`", "'") for depth, label in chain), "```"]
    return lines


def to_markdown(doc: dict) -> str:
    lines = [f"Machine: {_escape(fmt.machine_line(doc['machine']))}  "]
    if fmt.run_method_applies(doc):
        lines.append(f"Method: {_escape(fmt.settings_line(doc['settings'], doc['experiments']))}  ")
    lines += [f"Command: {_escape(' '.join(doc.get('command', [])))}", ""]
    for exp in doc["experiments"]:
        lines += [f"## {_escape(exp['name'])}: {_escape(exp['title'])}", "", _escape(exp["question"]), ""]
        said = fmt.answer(exp)          # the answer first, as the terminal's table puts it
        if said:
            lines += [_escape(said), ""]
        if exp.get("method"):
            lines += [f"Method: {_escape(exp['method'])}", ""]
        counted = exp.get("metric") == "instructions"
        if counted:
            lines += _instructions(exp)
        for i, group in enumerate([] if counted else fmt.case_groups(exp)):
            if i:
                lines += ["", f"{_escape(group['title'])}:", ""]
            rows = fmt.case_rows(exp, group)
            columns = fmt.case_columns(exp, group, rows)
            lines += _table([header for _, header in columns],
                            [[row[key] for key, _ in columns] for row in map(fmt.marked, rows)])
            marks = fmt.marks_lines(exp, rows)
            if marks:
                lines += [""] + [f"{_legend(line)}  " for line in marks]
        if exp.get("classic_now"):
            c = exp["classic"]
            lines += ["", _escape(f"Then: {c['source']} ({c['year']}), {c['machine']}."), ""]
            lines += _table(["classic layer", f"then ({c['unit']})", "then ratio", "today", "now ratio"],
                            [[r["label"], f"{r['then_value']:g}", units.ratio(r["then_ratio"]),
                              r["counterpart"] or "-", fmt.classic_now_text(exp, r)]
                             for r in exp["classic_now"]])
        for table in exp.get("tables", []):
            # A "brief" table is the terminal's short stand-in for "detail" ones, shown here in full.
            if table["rows"] and not table.get("brief"):
                lines += ["", f"{_escape(table['title'])}:", ""] + _table(table["columns"], fmt.written(table)["rows"])
                lines += [f"- {_escape(n)}" for n in table.get("notes", [])]
        extra = fmt.problems(exp) + [f"noisy: {n}" for n in fmt.noise_lines(exp)]
        stopping = fmt.stopping_line(exp)
        if stopping:
            extra.insert(0, stopping)
        extra += [line for line in (fmt.harness_line(exp), fmt.runtimes_line(exp)) if line]
        own = fmt.own_settings_line(exp)
        if own:
            extra.insert(0, own)
        if extra:
            lines += [""] + [f"- {_escape(x)}" for x in extra]
        lines.append("")
    return "\n".join(lines)
