"""unicode-io: the classifier on recorded bytes, real cells whose outcome glibc fixes,
the message every language carries, and a run that leaves the user's locale alone."""
from __future__ import annotations

import base64
import json
import locale
import os
import sys
from pathlib import Path

import pytest

from conftest import run_cli
from layertax.engine.builder import toolchain
from layertax.experiments.unicode_io import capture, classify, diagnose, environments, message, native, programs
from layertax.experiments.unicode_io.tables import cell_text, link_agreement

PROGRAM_DIR = Path(native.__file__).parent / "programs"
E, T = message.EXPECTED, message.TEXT


# -- the classifier, on recorded byte strings --

GLIBC_C_LOCALE = (b"ascii: Hello, world\nlatin: caf?, na?ve, AEr?sk?bing\nchinese: ????\nemoji: ?\n"
                  b"end: the last line, in ASCII\n")       # glibc's wprintf in the C locale
MUSL_C_LOCALE = b"ascii: Hello, world\nlatin: cafchinese: emoji: end: the last line, in ASCII\n"   # musl's


@pytest.mark.parametrize("got,kind", [
    (E, "exact"),
    (GLIBC_C_LOCALE, "transliterated"),
    (T.encode("ascii", "replace"), "replaced"),
    (T.encode("ascii", "backslashreplace"), "replaced"),
    (T.encode("utf-8").decode("ascii", "replace").encode("utf-8"), "replaced"),   # U+FFFD per byte
    (MUSL_C_LOCALE, "dropped"),
    (b"ascii: Hello, world\nend: the last line, in ASCII\n", "dropped"),           # whole lines gone
    (T.encode("utf-8").decode("latin-1").encode("utf-8"), "mojibake"),            # UTF-8 read as Latin-1
    (T.encode("utf-16-le"), "mojibake"),
    (b"", "truncated"),
    (E[:E.index("\xe4\xb8\xad".encode("latin-1"))], "truncated"),                # stops at the first Chinese
])
def test_classes_of_recorded_bytes(got, kind):
    assert classify.classify(got).kind == kind


def test_error_beats_everything_else():
    assert classify.classify(E, exit_code=1).kind == "error"
    assert classify.classify(E, stderr=b"warning: something\n").kind == "error"
    assert classify.classify(b"", timed_out=True, exit_code=None).kind == "error"
    assert classify.classify(E, stderr=b"  \n").kind == "exact"    # whitespace alone is no message


def test_facts_say_where_and_what():
    v = classify.classify(GLIBC_C_LOCALE)
    assert v.facts["expected_code"] == "U+00E9" and v.facts["line"] == 2
    assert v.facts["arrived_as"]["Æ"] == "AE" and v.facts["arrived_as"]["中"] == "?"
    v = classify.classify(MUSL_C_LOCALE)
    assert v.facts["lines_cut"] == [2, 3, 4]
    assert classify.classify(b"").facts["lines_arrived"] == 0


def test_the_message_has_every_script_and_ends_in_ascii():
    assert any(ord(c) > 0xFFFF for c in T) and any("\u4e00" <= c <= "\u9fff" for c in T)
    assert any(0x80 <= ord(c) <= 0xFF for c in T)
    assert message.SENTINEL.isascii() and E.endswith(message.SENTINEL)


@pytest.mark.parametrize("lang,path", [("go", "go/main.go"), ("rust", "rust/main.rs"),
                                       ("java", "java/Show.java"), ("node", "node/show.js")])
def test_every_runtime_source_carries_the_same_message(lang, path):
    source = (PROGRAM_DIR / path).read_text()
    for line in message.LINES:
        assert message.literal(line, lang) in source, (lang, line)


def test_python_program_is_ascii_and_prints_the_message():
    code = message.python_code()
    assert code.isascii()
    got = capture.run([sys.executable, "-c", code], {**environments.base_env(), "PYTHONUTF8": "1"}, "pipe", 30)
    assert got.stdout == E


# -- capture --

def test_pty_is_a_terminal_and_its_newlines_are_undone():
    code = "import sys; print(sys.stdout.isatty()); print('x', file=sys.stderr)"
    got = capture.run([sys.executable, "-c", code], environments.base_env(), "pty", 30)
    assert got.stdout == b"True\r\n" and got.output("pty") == b"True\n" and got.stderr == b"x\n"
    got = capture.run([sys.executable, "-c", code], environments.base_env(), "pipe", 30)
    assert got.output("pipe") == b"False\n" and got.exit_code == 0


def test_a_hung_program_is_killed_and_called_an_error():
    got = capture.run([sys.executable, "-c", "import time; print('a', flush=True); time.sleep(60)"],
                      environments.base_env(), "pty", 1.0)
    assert got.timed_out and got.exit_code is None
    assert classify.classify(got.output("pty"), got.stderr, got.exit_code, got.timed_out).kind == "error"


# -- real cells whose outcome glibc fixes --

@pytest.fixture(scope="module")
def wcout_programs(tmp_path_factory):
    if not toolchain.available("c++"):
        pytest.skip(toolchain.hint("c++"))
    chosen = [programs.by_name(n) for n in ("c-printf", "cpp-wcout", "cpp-wcout-global", "cpp-wcout-nosync")]
    built, skipped, failed = native.build_all(chosen, tmp_path_factory.mktemp("cache"))
    assert not failed, failed
    return built


def _cell(exe: Path, lang: str, channel: str = "pipe") -> classify.Verdict:
    got = capture.run([str(exe)], {**environments.base_env(), "LANG": lang}, channel, 30)
    return classify.classify(got.output(channel), got.stderr, got.exit_code, got.timed_out)


@pytest.mark.parametrize("channel", capture.CHANNELS)
def test_wcout_in_the_c_locale_does_not_print_chinese(wcout_programs, channel):
    v = _cell(wcout_programs["cpp-wcout"], "C", channel)
    assert v.kind != "exact"
    assert "中".encode() not in base64.b64decode(base64.b64encode(v.facts.get("got", "").encode()))
    assert v.facts["arrived_as"]["中"] == "?"


@pytest.mark.parametrize("channel", capture.CHANNELS)
def test_wcout_after_locale_global_under_c_utf8_is_exact(wcout_programs, channel):
    assert _cell(wcout_programs["cpp-wcout-global"], "C.UTF-8", channel).kind == "exact"


def test_wcout_without_sync_loses_everything(wcout_programs):
    v = _cell(wcout_programs["cpp-wcout-nosync"], "C")
    assert v.kind == "truncated" and v.facts["lines_arrived"] == 0


def test_printf_bytes_arrive_whatever_the_locale(wcout_programs):
    for lang in ("C", "POSIX", "C.UTF-8", "xx_XX.UTF-8"):
        assert _cell(wcout_programs["c-printf"], lang).kind == "exact"


# -- diagnoses --

def _diag(name: str, kind: str, column: dict, facts=None, channel="pipe", stderr="", code=0,
          versions=None) -> str:
    cell = {"class": kind, "facts": facts or {"expected_char": "é", "expected_code": "U+00E9", "line": 2},
            "channel": channel, "stderr": stderr, "exit_code": code, "timed_out": False}
    return diagnose.diagnose(programs.by_name(name), column, cell, versions or {"java": 'openjdk version "17.0.2"'})


C_COL = {"env": {"LANG": "C"}, "installed": True}
XX_COL = {"env": {"LANG": "xx_XX.UTF-8"}, "installed": False}


def test_diagnoses_follow_the_facts():
    assert 'setlocale(LC_ALL, "")' in _diag("c-wprintf", "transliterated", C_COL)
    assert "not installed" in _diag("c-wprintf-setlocale", "transliterated", XX_COL)
    assert "byte-oriented" in _diag("c-mixed", "dropped", C_COL)
    assert "imbue" in _diag("cpp-wcout-nosync-global", "truncated", C_COL)
    thrown = _diag("cpp-wcout-global", "error", XX_COL, code=-6,
                   stderr="terminate called after throwing an instance of 'std::runtime_error'\n"
                          "  what():  locale::facet::_S_create_c_locale name not valid\n")
    assert "std::runtime_error" in thrown and "C.UTF-8" in thrown
    assert "Java 17 ignores -Dstdout.encoding" in _diag("java-stdout-encoding", "replaced", C_COL)
    assert "sun.stdout.encoding" in _diag("java-file-encoding", "replaced", C_COL, channel="pty")
    assert diagnose.java_major('openjdk version "21.0.1" 2023-10-17') == 21
    assert diagnose.java_major('java version "1.8.0_292"') == 8
    assert _diag("c-printf", "exact", C_COL) is None


def test_cell_text_and_link_agreement():
    assert cell_text({"pipe": {"class": "exact"}, "pty": {"class": "exact"}}) == "exact"
    assert cell_text({"pipe": {"class": "exact"}, "pty": {"class": "replaced"}}) == "exact / replaced"
    cells = lambda k: [{"column": "C", "channel": "pipe", "class": k}]   # noqa: E731
    exp = {"cases": [{"name": "a", "status": "ok", "program": {"link": "dynamic"}, "cells": cells("exact")},
                     {"name": "a-static", "status": "ok", "program": {"link": "static"}, "cells": cells("exact")},
                     {"name": "a-musl", "status": "ok", "program": {"link": "musl"}, "cells": cells("dropped")}]}
    assert link_agreement(exp, "static") == (1, [])
    assert link_agreement(exp, "musl")[1] == ["a-musl C/pipe: dropped (dynamic: exact)"]


# -- the whole experiment --

def test_run_keeps_bytes_and_leaves_the_locale_alone(tmp_path):
    before = locale.setlocale(locale.LC_ALL, None)
    environ = dict(os.environ)
    out = tmp_path / "u.json"
    # The user's own settings must not leak into any cell (nor crash the report): the run sees
    # hostile values here, and an ASCII-only stdout.
    proc = run_cli("run", "unicode-io", "--verbose", "--export-json", str(out), "--export-markdown",
                   str(tmp_path / "u.md"), env={"LC_ALL": "C", "PYTHONIOENCODING": "ascii", "PYTHONUTF8": "0", "JAVA_TOOL_OPTIONS": "-Dx=1"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert locale.setlocale(locale.LC_ALL, None) == before and dict(os.environ) == environ
    doc = json.loads(out.read_text())
    exp = doc["experiments"][0]
    assert base64.b64decode(exp["message"]["expected_b64"]) == E
    assert exp["cpu_activity"]["window_s"] > 0       # how long it ran: a budgeted run keeps that for it next time
    by_name = {c["name"]: c for c in exp["cases"]}
    live = [c for c in exp["columns"] if not c.get("skipped")]
    assert {c["name"] for c in live} >= {"unset", "C", "POSIX", "C.UTF-8", "xx_XX.UTF-8"}
    assert next(c for c in exp["columns"] if c["name"] == "xx_XX.UTF-8")["installed"] is False
    for case in exp["cases"]:
        if case["status"] != "ok":
            assert case["reason"]
            continue
        assert len(case["cells"]) == len(live) * 2
        for cell in case["cells"]:
            assert set(cell["env"]) <= {"LANG", "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONCOERCECLOCALE"}
            got = base64.b64decode(cell["stdout_b64"])
            out_bytes = got.replace(b"\r\n", b"\n") if cell["channel"] == "pty" else got
            assert classify.classify(out_bytes, cell["stderr"].encode(), cell["exit_code"],
                                     cell["timed_out"]).kind == cell["class"]
            assert (cell["diagnosis"] is None) == (cell["class"] == "exact")
    assert all(cell["class"] == "exact" for cell in by_name["c-printf"]["cells"])
    # Runtimes that write UTF-8 whatever the locale, and Java told to on every channel: their
    # literals carry the message, and JAVA_TOOL_OPTIONS ("Picked up ..." on stderr) did not leak.
    for name in ("go-fmt", "rust-print", "node-write", "java-both-encodings"):
        if by_name[name]["status"] == "ok":
            assert {cell["class"] for cell in by_name[name]["cells"]} == {"exact"}, name
    assert all(cell["class"] == "exact" for cell in by_name["py-print"]["cells"]
               if cell["column"] == "C.UTF-8")
    assert {t["title"].split(":")[0] for t in exp["tables"]} >= {"unicode-io", "then vs now"}
    assert "what arrives" in proc.stdout and "then vs now" in proc.stdout
    assert "\\u4e2d" in proc.stdout     # the ASCII-only stdout got escapes, not a crash
    assert "| c-printf |" in (tmp_path / "u.md").read_text()


@pytest.mark.parametrize("width", [90, 100])
def test_the_matrix_a_terminal_shows_is_in_codes_that_fit_whole(width):
    """The matrix in class codes (the full words behind --verbose): every line fits, no class or
    program name is broken across lines (at 80 columns the longest program names still fold)."""
    import io
    import json
    from pathlib import Path

    from rich.console import Console

    from layertax.experiments.unicode_io.tables import CODES, all_tables
    from layertax.report import terminal

    doc = json.loads((Path(__file__).parent / "data" / "recorded" / "unicode-io.json").read_text())
    exp = doc["experiments"][0]
    exp["tables"] = all_tables(exp)
    out = io.StringIO()
    terminal.render_experiment(exp, Console(file=out, width=width, no_color=True), verbose=False)
    lines = out.getvalue().splitlines()
    assert max(map(len, lines)) <= width
    live = [c for c in exp["columns"] if not c.get("skipped")]
    rows = [line.split() for line in lines if line.split() and line.split()[0] in {c["name"] for c in exp["cases"]}
            and len(line.split()) == 1 + len(live)]      # the matrix's rows: a name and a code a column
    assert len(rows) >= len(exp["cases"])
    assert all(cell in CODES.values() or "/" in cell or cell in ("skipped", "failed") for row in rows for cell in row[1:])
