"""encoding: what a string-conversion shim costs (Pietrek's ANSI vs Unicode, today).

Classic: M. Pietrek, "Under the Hood", MSJ, December 1997: NT's "A" APIs convert
their strings and call the "W" APIs; GetModuleHandle + GetModuleFileName +
GetCurrentDirectory cost 2.98x through the A shims. On Linux the kernel takes
bytes, so the native role is the direct call with UTF-8 bytes and the shim is a
wide-character (wchar_t) front end that converts, as NT's did, into a per-thread
buffer or heap temporaries, with three converters. Then the shims people meet
every day (Python str paths, Java and Node UTF-16 strings, with Go and Rust,
whose paths are bytes, as the control group), and each converter's throughput
against memcpy.
"""
from pathlib import Path

from layertax.experiment import (CKernel, Case, CaseGroup, Classic, ClassicFigure, Experiment,
                                       PythonKernel, RuntimeKernel)

KERNELS = (
    CKernel("classic", ("kernels/classic.c", "kernels/conv.c", "kernels/utf.c"), libs=("-ldl",)),
    CKernel("throughput", ("kernels/throughput.c", "kernels/text.c", "kernels/utf.c")),
    PythonKernel("python", "layertax.experiments.encoding.kernels.encoding_py"),
    RuntimeKernel("paths-go", "go", ("kernels/go/paths.go",)),
    RuntimeKernel("paths-rust", "rust", ("kernels/rust/main.rs",)),
    RuntimeKernel("paths-java", "java", ("kernels/java/PathsKernel.java",), main_class="PathsKernel"),
    RuntimeKernel("paths-node", "node", ("kernels/node/paths.js",)),
)

SHIMS = (("tls", "per-thread buffer"), ("heap", "heap temporaries"))
CONVERTERS = (("wcs", "wcstombs/mbstowcs"), ("iconv", "iconv"), ("hand", "hand-written loop"))
KINDS = ("ascii", "latin", "cjk", "emoji")
SIZES = ("16", "256", "64k", "16m")
C_CONVERTERS = ("memcpy", "mbstowcs", "wcstombs", "iconv-u8-u16", "iconv-u16-u8", "iconv-u8-u32", "iconv-u32-u8",
                "hand-decode", "hand-encode")
PY_CONVERTERS = ("py-encode", "py-decode")
OPS = ("getcwd", "stat", "readlink")
# The other runtimes' rows: (case name without -nonascii, kernel, language, op, what it calls).
# Go and Rust keep paths as bytes (the control group); Java and Node convert UTF-16.
RUNTIME_ROWS = (
    ("go-getcwd-os", "paths-go", "go", "getcwd", "Go os.Getwd(), $PWD stale (after os.Chdir)"),
    ("go-getcwd-os-pwd", "paths-go", "go", "getcwd", "Go os.Getwd(), $PWD right (as a shell starts it)"),
    ("go-getcwd-syscall", "paths-go", "go", "getcwd", "Go syscall.Getwd()"),
    ("go-stat-os", "paths-go", "go", "stat", "Go os.Stat(string)"),
    ("go-stat-syscall", "paths-go", "go", "stat", "Go syscall.Stat(string)"),
    ("go-readlink-os", "paths-go", "go", "readlink", "Go os.Readlink(string)"),
    ("go-readlink-syscall", "paths-go", "go", "readlink", "Go syscall.Readlink(string)"),
    ("rust-getcwd", "paths-rust", "rust", "getcwd", "Rust std::env::current_dir()"),
    ("rust-stat", "paths-rust", "rust", "stat", "Rust std::fs::metadata(path)"),
    ("rust-readlink", "paths-rust", "rust", "readlink", "Rust std::fs::read_link(path)"),
    ("rust-readlink-string", "paths-rust", "rust", "readlink", "Rust read_link(path) -> String"),
    ("java-stat-file", "paths-java", "java", "stat", "Java File.isFile()"),
    ("java-stat-path", "paths-java", "java", "stat", "Java Files.readAttributes(Path)"),
    ("java-stat-path-of-string", "paths-java", "java", "stat", "Java Files.readAttributes(Path.of(String))"),
    ("java-readlink-path", "paths-java", "java", "readlink", "Java Files.readSymbolicLink(Path)"),
    ("java-readlink-string", "paths-java", "java", "readlink", "Java readSymbolicLink(Path.of(String)).toString()"),
    ("node-getcwd", "paths-node", "node", "getcwd", "Node process.cwd() (cached)"),
    ("node-stat-string", "paths-node", "node", "stat", "Node fs.statSync(string)"),
    ("node-stat-buffer", "paths-node", "node", "stat", "Node fs.statSync(Buffer)"),
    ("node-readlink-string", "paths-node", "node", "readlink", "Node fs.readlinkSync(string)"),
    ("node-readlink-buffer", "paths-node", "node", "readlink", "Node fs.readlinkSync(Buffer) -> Buffer"),
)


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
            cases += [Case(f"{name}{suffix}", kernel, f"{what}{where}", lang, op)
                      for name, kernel, lang, row_op, what in RUNTIME_ROWS if row_op == op]
    return cases


def _throughput_cases() -> list[Case]:
    cases = [Case(f"tp-{c}-{k}-{s}", "throughput", c, "c", "throughput")
             for c in C_CONVERTERS for s in SIZES for k in KINDS]
    cases += [Case(f"tp-{c}-{k}-{s}", "python", c, "python", "throughput")
              for c in PY_CONVERTERS for s in SIZES for k in KINDS]
    return cases


GROUPS = (
    CaseGroup("nonascii", "the same shims on non-ASCII paths (Chinese and Cyrillic names)", "c-direct-nonascii"),
    *(CaseGroup(op, f"runtimes: {op}, one call per op (converted strings vs bytes; Go and Rust keep bytes: "
                    "the control group)", f"c-{op}", extended=True) for op in OPS),
    CaseGroup("throughput", "transcoding throughput", "tp-memcpy-ascii-64k", show_cases=False, extended=True),
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
        "Java has no getcwd (user.dir is read once at start-up) and cannot chdir: its readlink reads the link "
        "by its absolute path; Java runs under LC_ALL=C.UTF-8 so its path encoding is UTF-8",
    ),
    groups=GROUPS,
    # Two samples a round: a round of all 248 cases is a third cheaper (the 16 MiB conversions
    # dominate it), and the round, not the sample, is what the intervals count. Up to 80 rounds
    # under the precision rule, where callchain stops at 56: a round of the main
    # tables costs about 0.3 s, and in bare runs on the 2-vCPU VM encoding stopped its cases at 56
    # rounds at ±2.0-2.6% with 5-9 s of its share left. Two runs of its main tables' cases with
    # `--runs 80`, each width taken again on the first 56 rounds at the rule's level, had 9 and 8
    # of 12 ratios within ±2% at 56 rounds and 11 and 11 at 80.
    defaults={"burst": 2, "runs": 80},
    # Throughput cases convert in memory (no system call in the loop); the others are counted.
    syscall_groups=tuple(g.name for g in GROUPS if g.name != "throughput") + ("",),
    tables="layertax.experiments.encoding.tables:experiment_tables",
)
