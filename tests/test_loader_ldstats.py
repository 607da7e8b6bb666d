"""glibc's LD_DEBUG=statistics output, parsed from recorded text, and the dropped digit."""
from pathlib import Path

import pytest

from layertax.elf import ldstats

DATA = Path(__file__).parent / "data"


def test_parses_a_generated_programs_statistics():
    s = ldstats.parse((DATA / "ld_debug_statistics_default.txt").read_text())
    assert (s.total_ticks, s.relocation_ticks, s.load_ticks) == (1295416, 252415, 940206)
    assert (s.lookups, s.cache_lookups, s.relative_relocations) == (7123, 7, 5033)
    assert s.final_lookups is None  # the program _exit()s before glibc prints the final counts


def test_parses_the_final_counts_of_a_program_that_exits_normally():
    s = ldstats.parse((DATA / "ld_debug_statistics_true.txt").read_text())
    assert s.final_lookups is not None and s.final_lookups >= s.lookups
    assert s.total_ticks > 0


def test_text_without_statistics_is_an_error():
    with pytest.raises(ldstats.ParseError):
        ldstats.parse("hello\n")


def test_which_glibc_versions_drop_a_digit():
    assert ldstats.glibc_drops_digit("glibc 2.36") and ldstats.glibc_drops_digit("glibc 2.31")
    assert not ldstats.glibc_drops_digit("glibc 2.30")     # printed every digit (b881217f17 came in 2.31)
    assert not ldstats.glibc_drops_digit("glibc 2.28")
    assert not ldstats.glibc_drops_digit(None)


@pytest.mark.parametrize("name, version, printed, scale", [
    # 2.31 on (recorded on 2.36): the NUL overwrote the last digit.
    ("ld_debug_statistics_true.txt", "glibc 2.31", 293_579, 10),
    # 2.30: every digit, then stray bytes from the unterminated buffer before " cycles".
    ("ld_debug_statistics_glibc230_style.txt", "glibc 2.30", 2_935_794, 1),
])
def test_the_x10_decision_on_each_style_of_text(name, version, printed, scale):
    s = ldstats.parse((DATA / name).read_text(encoding="latin-1"))
    assert s.total_ticks == printed
    # Without a wall clock the version decides; with one (2.5 ticks/ns, spawn->main 1.5 ms, which
    # holds 1.17 ms of loader), the same run's clock agrees with the version.
    assert ldstats.tick_scale(s, version, 2.5, None)[0] == scale
    assert ldstats.tick_scale(s, version, 2.5, 1_500_000)[0] == scale


def test_tick_scale_is_checked_against_the_wall_clock():
    s = ldstats.LoaderStats(total_ticks=100_000)  # 100,000 ticks at 2.5/ns = 40 us as printed
    # spawn->main 500 us: 40 us would be 8% of it, 400 us is plausible: a digit was dropped.
    assert ldstats.tick_scale(s, "glibc 2.36", 2.5, 500_000)[0] == 10
    # spawn->main 100 us: x10 (400 us) would exceed it, so the figure was printed whole.
    assert ldstats.tick_scale(s, "glibc 2.36", 2.5, 100_000)[0] == 1
    # No wall clock: the version decides.
    assert ldstats.tick_scale(s, "glibc 2.28", 2.5, None)[0] == 1
