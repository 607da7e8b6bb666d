"""A progress or status line kept to one line of its window.

Progress goes out as whole lines (rich's soft wrap: a line a log keeps is not broken where
rich would break it), so a line longer than the window is folded by the terminal, mid-word
and at column 0. Of such a line's parts the step under way (a ninja command, a case's name)
is the one that can be long and the one a reader can spare: it is shortened to fit, the
count and the clock around it are kept whole.
"""
from __future__ import annotations

from typing import Callable

ELLIPSIS = "..."
# Fewer characters of a step than this, with the ellipsis, say nothing: the step is left out.
SHORTEST = 4


def fitted(line_with: Callable[[str], str], detail: str, width: int) -> str:
    """line_with(detail) in at most width characters where shortening detail allows: detail cut
    at its end and marked by an ellipsis, or given as "" (line_with leaves it out) when too
    little of it would remain. The rest of the line is never cut: a window narrower than it
    gets it whole."""
    line = line_with(detail)
    if len(line) <= width:
        return line
    room = width - (len(line) - len(detail))
    if room < SHORTEST + len(ELLIPSIS):
        return line_with("")
    return line_with(detail[:room - len(ELLIPSIS)].rstrip() + ELLIPSIS)
