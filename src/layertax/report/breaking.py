"""Where a name or a header may break onto a second line in a terminal table: between its words
and after its hyphens, never inside a word (a table left to fold a name cuts it anywhere:
"mmap-simd-fre" / "sh"); and the two printers that keep to it: a wrapped line (print_hanging)
and a table with no line ending in spaces (print_trimmed)."""
from __future__ import annotations

import re

from layertax.text import printable_lines

# A figure and the unit after it, kept on one line by hanging().
UNIT = re.compile(r"(\d) (ns|µs|ms|s|min|KiB|MiB|GiB|kB|MB|GB|GB/s|B|cycles|instructions)\b")
# An interval's two ends, kept on one line by hanging(): "[0.89," / "1.04]" read as two figures.
INTERVAL = re.compile(r"\[([^\]\s]+), ([^\]\s]+)\]")


def hyphens(word: str, limit: int) -> str:
    """A word longer than limit broken into lines after its hyphens, each at most limit where the
    parts allow (a part longer still is left whole)."""
    if len(word) <= limit or "-" not in word or "\n" in word:
        return word
    parts = [p + "-" for p in word.split("-")]
    parts[-1] = parts[-1][:-1]
    lines = [""]
    for part in parts:
        if lines[-1] and len(lines[-1]) + len(part) > limit:
            lines.append("")
        lines[-1] += part
    return "\n".join(lines)


def words(text: str, width: int) -> str:
    """Words packed onto lines of at most width (a longer word on a line of its own)."""
    lines = [""]
    for word in text.split():
        if lines[-1] and len(lines[-1]) + 1 + len(word) > width:
            lines.append("")
        lines[-1] += (" " if lines[-1] else "") + word
    return "\n".join(lines)


def name(text: str, limit: int) -> str:
    """A name in lines of at most limit where its words and hyphens allow: its words packed onto
    lines, a word longer than limit broken after its hyphens (hyphens()). A name indented (a
    stage under the part it splits, "  site's imports") keeps its indent on every line."""
    indent = text[:len(text) - len(text.lstrip(" "))]
    room = max(1, limit - len(indent))
    lines = [""]
    for word in text.split():
        for piece in hyphens(word, room).split("\n"):
            if lines[-1] and len(lines[-1]) + 1 + len(piece) > room:
                lines.append("")
            lines[-1] += (" " if lines[-1] and not lines[-1].endswith("-") else "") + piece
    return "\n".join(indent + line for line in lines)


def hanging(text: str, width: int, indent: int = 2, more: int = 2) -> str:
    """A line under a table as a paragraph with a hanging indent: its first line `indent` spaces
    in, the lines it wraps onto `more` further, so that each note reads as one item at 80
    columns (a terminal, or rich, starts them at column 0). Breaks between words, never between
    a figure and its unit ("1.3 ms") nor inside an interval ("[0.97, 1.03]"), measured in
    terminal cells; a word wider than a whole line is folded, as rich folds it. Line breaks in
    the text start a new first line. Every other control character is escaped first (its
    printed escape is what is measured): the caller prints the result as a Text, which the
    console's own escaping does not see."""
    from rich.cells import cell_len, chop_cells

    out = []
    kept = INTERVAL.sub("[\\1,\u00a0\\2]", UNIT.sub("\\1\u00a0\\2", printable_lines(text)))
    for paragraph in kept.split("\n"):
        line, room = " " * indent, max(1, width - indent - more)
        for word in (w for w in paragraph.split(" ") if w):
            if line.strip() and cell_len(line) + 1 + cell_len(word) > width:
                out.append(line)
                line = " " * (indent + more)
            pieces = chop_cells(word, room) if cell_len(word) > room else [word]
            for piece in pieces[:-1]:
                if line.strip():
                    out.append(line)
                out.append(" " * (indent + more) + piece)
                line = " " * (indent + more)
            line += (" " if line.strip() else "") + pieces[-1]
        out.append(line)
    return "\n".join(out).replace("\u00a0", " ")


def print_hanging(console, text: str, style: str | None = None, indent: int = 2, more: int = 2) -> None:
    """Prints text wrapped by hanging() at the console's width (a note under a table, a question,
    an answer, a command's own message): text, never markup, its control characters escaped."""
    from rich.text import Text

    console.print(Text(hanging(str(text), console.width, indent, more)), style=style, highlight=False,
                  soft_wrap=True)


def print_trimmed(console, renderable) -> None:
    """Prints a table (or a tree) without the spaces rich pads each line's last cell with: a row
    whose last column is blank (a case with no classic figure) would otherwise end in a run of
    spaces, which a log, a diff or a pasted report keeps. Its cells are escaped as they render
    (the console's render_str)."""
    from rich.segment import Segment, Segments

    segments = []
    for line in console.render_lines(renderable, pad=False, new_lines=False):
        segments += _trimmed(line)
        segments.append(Segment.line())
    console.print(Segments(segments))


def _trimmed(line: list) -> list:
    """A rendered line without its trailing whitespace (a whole segment of it, or a segment's end)."""
    line = list(line)
    while line and not line[-1].control:
        text = line[-1].text.rstrip()
        if text:
            line[-1] = line[-1]._replace(text=text)
            break
        line.pop()
    return line
