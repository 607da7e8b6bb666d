"""One line per non-exact cell: what went wrong, from the cell's own facts, and the fix.

The facts: what the program does (narrow bytes, wide stdio, std::wcout with or
without sync and locale calls, a runtime with its flags), which C library it
runs on, the locale the column asks for and whether it is installed, the
channel, the exit status and stderr, and what arrived in place of the message.
The wording names no column: the table lists the cells each line explains.
"""
from __future__ import annotations

import re

from layertax.experiments.unicode_io.programs import Program

C_LOCALE = 'the "C" locale (ASCII)'


def utf8_locale(column: dict) -> bool:
    name = (column["env"].get("LANG") or "").lower().replace("-", "")
    return "utf8" in name and column.get("installed") is not False


def _locale_story(column: dict) -> str:
    """Which locale setlocale(LC_ALL, "") ends up with on glibc under this column."""
    if column["env"].get("LANG") and column.get("installed") is False:
        return f'the locale LANG names is not installed, so setlocale fails and {C_LOCALE} stays'
    if utf8_locale(column):
        return "the environment selects a UTF-8 locale"
    return f"the environment selects {C_LOCALE}"


def _char(facts: dict) -> str:
    ch = facts.get("expected_char")
    return f"{facts['expected_code']} '{ch}'" if ch else "the end"


def outcome(kind: str, facts: dict) -> str:
    """What arrived, in words."""
    if kind in ("transliterated", "replaced"):
        by_marker: dict[str, list[str]] = {}
        for ch, got in facts.get("arrived_as", {}).items():
            by_marker.setdefault(got, []).append(ch)
        return "non-ASCII text arrives as " + "; ".join(f"{''.join(chs)} -> {got}" for got, chs in by_marker.items())
    if kind == "truncated":
        if not facts.get("lines_arrived"):
            return "nothing arrives, not even the ASCII first line"
        return f"output stops in line {facts['line']} at {_char(facts)}; nothing after it arrives"
    if kind == "dropped":
        cut = ", ".join(str(n) for n in facts.get("lines_cut", []))
        ch = facts.get("expected_char") or ""
        at = f", the first at {_char(facts)}" if ch and ord(ch) > 127 else ""
        return f"lines {cut} arrive cut short or not at all{at}, silently, and the last line arrives"
    if kind == "mojibake":
        return f"{_char(facts)} arrives as other bytes ({facts.get('got', '')!r})"
    return kind


def _stderr_line(cell: dict, limit: int = 110) -> str:
    lines = [ln.strip() for ln in cell["stderr"].splitlines() if ln.strip()]
    last = lines[-1] if lines else ""
    return last if len(last) <= limit else last[:limit - 3] + "..."


def _error(p: Program, column: dict, cell: dict) -> str:
    last = _stderr_line(cell)
    if cell["timed_out"]:
        return "did not finish within the time limit"
    if "UnicodeEncodeError" in last:
        if p.env.get("PYTHONIOENCODING"):
            why = f"PYTHONIOENCODING={p.env['PYTHONIOENCODING']} cannot encode the message"
        else:
            why = (f"{_locale_story(column)}, and with C-locale coercion (PEP 538) and UTF-8 mode (PEP 540) "
                   "switched off Python encodes stdout in it")
        return f"Python raised {last}: {why}; use PYTHONIOENCODING=utf-8 or PYTHONUTF8=1"
    if "_S_create_c_locale" in last or "runtime_error" in cell["stderr"]:
        return ('std::locale("") threw std::runtime_error, uncaught, so the program aborted: the locale LANG names '
                'is not installed (C\'s setlocale would have failed quietly instead); catch it and fall back to '
                'std::locale("C.UTF-8")')
    code = cell["exit_code"]
    return (f"exit status {code}" + (f": {last}" if last else "")) if code else f"wrote to stderr: {last}"


def _musl_wide(p: Program, column: dict, what: str) -> str:
    if not p.sets_locale:
        return (f'{what}: musl starts in its "C" locale, which encodes nothing above U+007F, and a wide call '
                'gives up at the first such character, losing the rest of its text; call setlocale(LC_ALL, "") '
                "(musl's default locale is UTF-8)")
    orientation = " (musl does not enforce stream orientation)" if p.output == "wide-mixed" else ""
    return (f'{what}: LANG=C or POSIX keeps musl in its ASCII "C" locale; musl takes every other locale name, '
            f"installed or not, and no LANG at all, as UTF-8{orientation}")


def _wide_c(p: Program, column: dict, cell: dict) -> str:
    what = outcome(cell["class"], cell["facts"])
    if p.link == "musl":
        return _musl_wide(p, column, what)
    if p.output == "wide-mixed":
        return (f"{what}: the first printf made stdout byte-oriented, and every wide call on a byte-oriented "
                "stream fails without a word (C11 7.21.2; glibc returns -1); use one orientation per stream")
    if not p.sets_locale:
        return (f"{what}: the program never calls setlocale, so glibc converts wide characters in {C_LOCALE}, "
                'transliterating what it can; call setlocale(LC_ALL, "") first')
    if not utf8_locale(column):
        return (f"{what}: {_locale_story(column)}; run under a UTF-8 locale (LANG=C.UTF-8), or fall back in code: "
                'if (!setlocale(LC_ALL, "")) setlocale(LC_ALL, "C.UTF-8")')
    return f"{what}, although {_locale_story(column)}"


def _wcout(p: Program, column: dict, cell: dict) -> str:
    what = outcome(cell["class"], cell["facts"])
    if p.synced and not p.sets_locale:
        if p.imbues:
            return (f"{what}: imbue() does not help while sync_with_stdio is on: wcout hands each wide character "
                    'to C stdio, which converts in the C library\'s locale (still "C"); use '
                    'std::locale::global(std::locale("")), which also calls setlocale')
        return (f"{what}: no locale is set, so wcout, through C stdio, converts in {C_LOCALE}; call "
                'std::locale::global(std::locale("")) first')
    if not p.synced and not p.imbues:
        lost = ("; the stream converts its buffer whole at the flush, so one bad character loses everything "
                "buffered with it, and the stream stays failed") if cell["class"] == "truncated" else ""
        if p.sets_locale:
            return (f"{what}: after sync_with_stdio(false) wcout converts with the locale it was imbued with when "
                    'it was made, the classic "C" (ASCII); locale::global does not reach a stream that already '
                    f"exists{lost}; add std::wcout.imbue(std::locale())")
        return (f'{what}: after sync_with_stdio(false) wcout converts with its own locale, the classic "C" '
                f'(ASCII){lost}; imbue std::locale("")')
    if not utf8_locale(column):
        return f"{what}: {_locale_story(column)}; run under a UTF-8 locale (LANG=C.UTF-8)"
    return f"{what}, although {_locale_story(column)}"


def _java(p: Program, column: dict, cell: dict, versions: dict[str, str]) -> str:
    what = outcome(cell["class"], cell["facts"])
    major = java_major(versions.get("java", ""))
    flags = " ".join(p.flags)
    if (cell["channel"] == "pty" and 0 < major < 19 and "-Dfile.encoding=UTF-8" in flags
            and "sun.stdout.encoding" not in flags):
        return (f"{what}: on a terminal Java {major} encodes System.out in sun.stdout.encoding, which it sets from "
                "the locale whatever file.encoding says; add -Dsun.stdout.encoding=UTF-8")
    ignored = (f"; Java {major} ignores -Dstdout.encoding (read from Java 19 on)"
               if "-Dstdout.encoding" in flags and 0 < major < 19 else "")
    fix = ("-Dfile.encoding=UTF-8 -Dsun.stdout.encoding=UTF-8 on Java 17 and 18, -Dstdout.encoding=UTF-8 from 19"
           if major < 19 else "-Dstdout.encoding=UTF-8")
    return (f"{what}: System.out encodes in the charset the JVM takes from the locale ({_locale_story(column)})"
            f"{ignored}; use {fix}, or a UTF-8 locale")


def java_major(version: str) -> int:
    """17 from 'openjdk version "17.0.15" 2025-04-15' (0 if it cannot tell)."""
    m = re.search(r'version "(?:1\.)?(\d+)', version) or re.search(r"(\d+)", version)
    return int(m.group(1)) if m else 0


def _runtime(p: Program, column: dict, cell: dict, versions: dict[str, str]) -> str:
    if p.language == "java":
        return _java(p, column, cell, versions)
    what = outcome(cell["class"], cell["facts"])
    if p.language == "python":
        enc = p.env.get("PYTHONIOENCODING")
        if enc:
            return f"{what}: PYTHONIOENCODING={enc} asked for it; use PYTHONIOENCODING=utf-8"
        return f"{what}: stdout encodes in the locale's encoding ({_locale_story(column)}); set PYTHONUTF8=1"
    return f"{what}: {p.language} writes UTF-8 whatever the locale; this was not expected"


def diagnose(p: Program, column: dict, cell: dict, versions: dict[str, str]) -> str | None:
    """The one-line diagnosis and fix of one cell; None if the cell is exact."""
    kind = cell["class"]
    if kind == "exact":
        return None
    if kind == "error":
        return _error(p, column, cell)
    if p.output in ("wide", "wide-mixed"):
        return _wide_c(p, column, cell)
    if p.output == "wcout":
        return _wcout(p, column, cell)
    if p.output == "runtime":
        return _runtime(p, column, cell, versions)
    return f"{outcome(kind, cell['facts'])}: bytes written unchanged should arrive unchanged; this was not expected"
