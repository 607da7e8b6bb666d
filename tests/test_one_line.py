"""A progress line kept to its window (one_line.fitted), over any step and any width."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from layertax.one_line import ELLIPSIS, SHORTEST, fitted


def _line(step: str) -> str:
    return f"layertax: scan: 4/20 (20%) {step} [1m01s]" if step else "layertax: scan: 4/20 (20%) [1m01s]"


@given(step=st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7e), max_size=120), width=st.integers(0, 200))
def test_a_step_is_kept_whole_cut_at_its_end_or_left_out_and_nothing_else_is_cut(step, width):
    line = fitted(_line, step, width)
    room = width - len(_line(""))                    # what the step may take, with its space
    if len(_line(step)) <= width:
        assert line == _line(step)
    elif room - 1 < SHORTEST + len(ELLIPSIS):
        assert line == _line("")                     # too little of the step would show
    else:
        assert len(line) <= width
        assert line == _line(step[:room - 1 - len(ELLIPSIS)].rstrip() + ELLIPSIS)


def test_the_line_from_a_default_make_run_at_100_columns():
    """The build's heartbeat a clean-clone `make run` printed at 105 characters."""
    def building(detail):
        return f"layertax: building 36 kernels (first run only; cached after) (10 s{'; ' + detail if detail else ''})"

    assert fitted(building, "[83/85] JAVA unicode-io-unicode-java", 100) == (
        "layertax: building 36 kernels (first run only; cached after) (10 s; [83/85] JAVA unicode-io-unic...)")
    assert fitted(building, "[83/85] JAVA unicode-io-unicode-java", 70) == (
        "layertax: building 36 kernels (first run only; cached after) (10 s)")
