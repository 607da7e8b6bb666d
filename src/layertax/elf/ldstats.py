"""glibc's own view of the loader: LD_DEBUG=statistics, parsed.

glibc prints, per process, the loader's total time, the time spent relocating
and loading objects (in TSC ticks, which it calls cycles), the number of
relocations that needed a symbol lookup, how many of those hit the one-entry
lookup cache, and the relative relocations in DT_REL(A)COUNT (RELR entries
are not counted: layertax counts those from the ELF files).

A trap, found on glibc 2.36: its HP_TIMING_PRINT writes the digits and then
puts the terminating NUL over the last one, so every printed tick count has
lost its last digit: it is floor(ticks / 10). layertax reads the digits as
printed, says whether it believes a digit was dropped, and converts with the
factor it chose (docs/method/loader-views.md).
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass

_PATTERNS = {
    # [^\n]*? before "cycles": glibc 2.30 printed the digits and then whatever the unterminated
    # buffer held (from 2.31 on, the NUL overwrites the last digit instead; see DIGIT_DROPPED_SINCE).
    "total_ticks": r"total startup time in dynamic loader:\s+(\d+)[^\n]*?cycles",
    "relocation_ticks": r"time needed for relocation:\s+(\d+)[^\n]*?cycles",
    "lookups": r"^\s*number of relocations:\s+(\d+)",
    "cache_lookups": r"^\s*number of relocations from cache:\s+(\d+)",
    "relative_relocations": r"number of relative relocations:\s+(\d+)",
    "load_ticks": r"time needed to load objects:\s+(\d+)[^\n]*?cycles",
    "final_lookups": r"final number of relocations:\s+(\d+)",
    "final_cache_lookups": r"final number of relocations from cache:\s+(\d+)",
}
_PID_PREFIX = re.compile(r"^\s*\d+:\s?", re.MULTILINE)

# glibc versions whose HP_TIMING_PRINT drops the last digit. Its body (sysdeps/generic/
# hp-timing-common.h) reads
#     char *__cp = _itoa ((Val), __buf + sizeof (__buf), 10, 0);
#     size_t __cp_len = MIN (__buf + sizeof (__buf) - __cp, __len);
#     memcpy (__dest, __cp, __cp_len);
#     __dest[__cp_len - 1] = '\0';
# __cp_len counts the digits only, so the NUL lands on the last digit. The last line came
# with glibc commit b881217f17 (2019-09-17, "Fix small error in HP_TIMING_PRINT trailing
# null char setting"), first released in 2.31; 2.30 (after the hp-timing refactor,
# 1e372ded4f) printed every digit but did not terminate them, so stray bytes could follow.
# Unfixed through 2.42 and master (2026-01), per the issue-26 review of glibc's history; the
# wall clock of the same run checks every reading anyway (tick_scale).
DIGIT_DROPPED_SINCE = (2, 31)


@dataclass
class LoaderStats:
    total_ticks: int | None = None
    relocation_ticks: int | None = None
    load_ticks: int | None = None
    lookups: int | None = None
    cache_lookups: int | None = None
    relative_relocations: int | None = None
    final_lookups: int | None = None
    final_cache_lookups: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)


class ParseError(ValueError):
    pass


def parse(text: str) -> LoaderStats:
    """Parses the statistics of one process (the first block, at start-up, and the final counts)."""
    body = _PID_PREFIX.sub("", text)
    stats = LoaderStats()
    for field, pattern in _PATTERNS.items():
        m = re.search(pattern, body, re.MULTILINE)
        if m:
            setattr(stats, field, int(m.group(1)))
    if stats.lookups is None and stats.total_ticks is None:
        raise ParseError("no 'runtime linker statistics' in the output (is this glibc's ld.so?)")
    return stats


def glibc_drops_digit(glibc_version: str | None) -> bool:
    m = re.search(r"(\d+)\.(\d+)", glibc_version or "")
    return bool(m) and (int(m.group(1)), int(m.group(2))) >= DIGIT_DROPPED_SINCE


def tick_scale(stats: LoaderStats, glibc_version: str | None, tsc_per_ns: float | None,
               spawn_to_main_ns: float | None) -> tuple[int, str]:
    """The factor that turns printed ticks into real ones (10 if a digit was dropped), and why.

    The wall clock of the same run is the check: the loader's total cannot
    exceed spawn->main, and it is never under a fifth of it either for a
    dynamically linked program (loading and relocating is most of start-up).
    """
    version_says = 10 if glibc_drops_digit(glibc_version) else 1
    if not (stats.total_ticks and tsc_per_ns and spawn_to_main_ns):
        return version_says, f"glibc {glibc_version}: {'a digit dropped' if version_says == 10 else 'printed as is'} (no wall clock to check against)"
    as_printed = stats.total_ticks / tsc_per_ns
    if as_printed * 10 > spawn_to_main_ns * 1.05:
        return 1, "x10 would exceed spawn->main of the same run: read as printed"
    if as_printed < spawn_to_main_ns / 5:
        return 10, (f"as printed the loader would take {as_printed / spawn_to_main_ns:.0%} of spawn->main of the same run; "
                    "glibc's HP_TIMING_PRINT drops the last digit: x10")
    return version_says, f"glibc {glibc_version}: {'a digit dropped' if version_says == 10 else 'printed as is'}"
