"""How wide a rich table comes out with every cell on one line: the rule behind each
"does it fit, or go compact / stacked?" decision (the case tables, the extra tables,
compare, history), written once."""
from __future__ import annotations

from collections.abc import Iterable


def column(header: str, cells: Iterable[str]) -> int:
    """A column's width on one line: its widest cell, or its header if that is wider."""
    return max([len(header), *(len(c) for c in cells)])


def boxed(widths: list[int]) -> int:
    """rich's default box: a space either side of each column and a rule after it, plus the
    first rule."""
    return 1 + sum(w + 3 for w in widths)


def compact(widths: list[int]) -> int:
    """box.SIMPLE_HEAD with no edges and pad_edge=False: three columns between two columns
    (padding, rule, padding), none at the edges."""
    return sum(widths) + 3 * (len(widths) - 1)
