"""Where a name or a header may break onto a second line in a terminal table: between its words
and after its hyphens, never inside a word (a table left to fold a name cuts it anywhere:
"mmap-simd-fre" / "sh")."""
from __future__ import annotations


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
    lines, a word longer than limit broken after its hyphens (hyphens())."""
    lines = [""]
    for word in text.split():
        for piece in hyphens(word, limit).split("\n"):
            if lines[-1] and len(lines[-1]) + 1 + len(piece) > limit:
                lines.append("")
            lines[-1] += (" " if lines[-1] and not lines[-1].endswith("-") else "") + piece
    return "\n".join(lines)
