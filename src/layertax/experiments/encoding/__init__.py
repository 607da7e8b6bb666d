"""encoding: what a string-conversion shim costs (Pietrek's ANSI vs Unicode, today).

Classic: M. Pietrek, "Under the Hood", MSJ, December 1997: NT's "A" APIs convert
their strings and call the "W" APIs; GetModuleHandle + GetModuleFileName +
GetCurrentDirectory cost 2.98x through the A shims. On Linux the kernel takes
bytes, so the native role is the direct call with UTF-8 bytes and the shim is a
wide-character (wchar_t) front end that converts, as NT's did, into a per-thread
buffer or heap temporaries, with three converters. Then the shims people meet
every day (Python str paths), and each converter's throughput against memcpy.
"""
from pathlib import Path

from layertax.experiments.base import (CKernel, Case, CaseGroup, Classic, ClassicFigure, Experiment,
                                       PythonKernel)
from layertax.experiments.encoding.tables import throughput_table

KERNELS = (
    CKernel("classic", ("kernels/classic.c", "kernels/conv.c", "kernels/utf.c"), libs=("-ldl",)),
    CKernel("throughput", ("kernels/throughput.c", "kernels/text.c", "kernels/utf.c")),
    PythonKernel("python", "layertax.experiments.encoding.kernels.encoding_py"),
)

SHIMS = (("tls", "per-thread buffer"), ("heap", "heap temporaries"))
CONVERTERS = (("wcs", "wcstombs/mbstowcs"), ("iconv", "iconv"), ("hand", "hand-written loop"))
KINDS = ("ascii", "latin", "cjk", "emoji")
SIZES = ("16", "256", "64k", "16m")
C_CONVERTERS = ("memcpy", "mbstowcs", "wcstombs", "iconv-u8-u16", "iconv-u16-u8", "iconv-u8-u32", "iconv-u32-u8",
                "hand-decode", "hand-encode")
PY_CONVERTERS = ("py-encode", "py-decode")
OPS = ("getcwd", "stat", "readlink")


def _classic_cases() -> list[Case]:
    cases = []
    for suffix, group, where in (("", "", ""), ("-nonascii", "nonascii", ", non-ASCII")):
        cases.append(Case(f"c-direct{suffix}", "classic", f"direct: UTF-8 bytes{where}", "c", group))
        cases += [Case(f"c-shim-{b}-{c}{suffix}", "classic", f"shim, {bw}, {cw}{where}", "c", group)
                  for b, bw in SHIMS for c, cw in CONVERTERS]
    return cases


def _runtime_cases() -> list[Case]:
    cases = []
    for op in OPS:
        for suffix, where in (("", ""), ("-nonascii", ", non-ASCII")):
            call = {"getcwd": ("os.getcwd()", "os.getcwdb()")}.get(op, (f"os.{op}(str)", f"os.{op}(bytes)"))
            cases.append(Case(f"c-{op}{suffix}", "classic", f"C {op}(){where}", "c", op))
            cases.append(Case(f"py-{op}-str{suffix}", "python", f"Python {call[0]}{where}", "python", op))
            cases.append(Case(f"py-{op}-bytes{suffix}", "python", f"Python {call[1]}{where}", "python", op))
    return cases


def _throughput_cases() -> list[Case]:
    cases = [Case(f"tp-{c}-{k}-{s}", "throughput", c, "c", "throughput")
             for c in C_CONVERTERS for s in SIZES for k in KINDS]
    cases += [Case(f"tp-{c}-{k}-{s}", "python", c, "python", "throughput")
              for c in PY_CONVERTERS for s in SIZES for k in KINDS]
    return cases


GROUPS = (
    CaseGroup("nonascii", "the same shims on non-ASCII paths (Chinese and Cyrillic names)", "c-direct-nonascii"),
    *(CaseGroup(op, f"runtimes: {op}, str vs bytes (one call per op)", f"c-{op}") for op in OPS),
    CaseGroup("throughput", "transcoding throughput", "tp-memcpy-ascii-64k", show_cases=False),
)

CLASSIC = Classic(
    source='M. Pietrek, "Under the Hood", Microsoft Systems Journal',
    year="December 1997",
    machine="Pentium Pro 200 MHz, Windows NT 4.0; 50,000 iterations of the three calls",
    unit="s per 50,000 iterations",
    baseline="Unicode (W) APIs",
    figures=(
        ClassicFigure("ANSI (A) APIs: converting shims", 0.5736, "c-shim-tls-wcs",
                      "a wide front end converting with the locale's converter into a per-thread buffer, "
                      "as GetModuleHandleA did (the heap and iconv rows show the other ways)"),
        ClassicFigure("Unicode (W) APIs", 0.1923, "c-direct",
                      "the native calls in the kernel's own string type (bytes on Linux)"),
    ),
    conclusion="the three calls cost 2.98x through the ANSI shims",
)

EXPERIMENT = Experiment(
    name="encoding",
    title="A string-conversion shim: Pietrek's three calls, direct vs converted",
    question="What does converting strings on every call cost, then and now?",
    baseline="c-direct",
    kernels=KERNELS,
    cases=(*_classic_cases(), *_runtime_cases(), *_throughput_cases()),
    classic=CLASSIC,
    package_dir=Path(__file__).parent,
    notes=(
        "one op of the classic tables = dlopen(libc.so.6, RTLD_NOLOAD) + readlink + getcwd, as Pietrek's "
        "GetModuleHandle + GetModuleFileName + GetCurrentDirectory",
        "C converters run in the C.UTF-8 locale, whatever the user's locale is",
        "paths live in a private temporary directory",
    ),
    groups=GROUPS,
    tables=lambda result: [throughput_table(result, C_CONVERTERS + PY_CONVERTERS, KINDS, SIZES)],
)
