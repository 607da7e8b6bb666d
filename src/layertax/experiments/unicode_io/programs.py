"""The matrix's rows: each program, how it is built, and the facts its diagnoses use.

A native program is one source built with a few -D switches, once per link mode
(dynamic glibc, static glibc, static musl where musl-gcc exists). The runtimes'
programs are built by the engine (kernels.prepare) and differ by the flags or
environment they run with.
"""
from __future__ import annotations

from dataclasses import dataclass, field

LINKS = ("dynamic", "static", "musl")


@dataclass(frozen=True)
class Program:
    name: str
    language: str                 # c, c++, python, java, go, rust, node
    layer: str                    # what the row shows, for the table
    source: str = ""              # native: the source under programs/; runtimes: the kernel's name
    defines: tuple[str, ...] = ()
    link: str = ""                # native programs: dynamic | static | musl
    env: dict[str, str] = field(default_factory=dict)     # added to the cell's environment
    flags: tuple[str, ...] = ()   # runtime flags before the program (java -D...)
    # The facts the diagnoses reason from.
    output: str = "bytes"         # bytes | wide | wide-mixed | wcout | runtime
    sets_locale: bool = False     # setlocale(LC_ALL, "") or std::locale::global(std::locale(""))
    imbues: bool = False
    synced: bool = True           # C++: sync_with_stdio left on

    @property
    def native(self) -> bool:
        return self.language in ("c", "c++")


def _c(name: str, layer: str, source: str, defines=(), **facts) -> list[Program]:
    out = []
    for link in LINKS:
        suffix = "" if link == "dynamic" else f"-{link}"
        out.append(Program(f"{name}{suffix}", "c", f"{layer} ({link})", source, tuple(defines), link, **facts))
    return out


def _cpp(name: str, layer: str, defines=(), **facts) -> list[Program]:
    # No musl row: musl-gcc has no C++ library to link.
    return [Program(f"{name}{'' if link == 'dynamic' else '-' + link}", "c++", f"{layer} ({link})", "cpp/wcout.cpp",
                    tuple(defines), link, output="wcout", **facts) for link in ("dynamic", "static")]


NATIVE = (
    *_c("c-printf", "printf of UTF-8 bytes", "c/narrow.c"),
    *_c("c-wprintf", "wprintf, no setlocale", "c/wide.c", output="wide"),
    *_c("c-wprintf-setlocale", "wprintf after setlocale(LC_ALL, \"\")", "c/wide.c", ("CALL_SETLOCALE",),
        output="wide", sets_locale=True),
    *_c("c-fputws", "fputws, no setlocale", "c/wide.c", ("USE_FPUTWS",), output="wide"),
    *_c("c-fputws-setlocale", "fputws after setlocale", "c/wide.c", ("USE_FPUTWS", "CALL_SETLOCALE"),
        output="wide", sets_locale=True),
    *_c("c-mixed", "printf then wprintf on stdout (orientation)", "c/mixed.c", output="wide-mixed", sets_locale=True),
    *_cpp("cpp-wcout", "std::wcout"),
    *_cpp("cpp-wcout-global", "wcout after locale::global(locale(\"\"))", ("GLOBAL_LOCALE",), sets_locale=True),
    *_cpp("cpp-wcout-imbue", "wcout.imbue(locale(\"\"))", ("IMBUE",), imbues=True),
    *_cpp("cpp-wcout-nosync", "wcout, sync_with_stdio(false)", ("NO_SYNC",), synced=False),
    *_cpp("cpp-wcout-nosync-global", "wcout, no sync, locale::global", ("NO_SYNC", "GLOBAL_LOCALE"),
          synced=False, sets_locale=True),
    *_cpp("cpp-wcout-nosync-imbue", "wcout, no sync, imbue(locale(\"\"))", ("NO_SYNC", "IMBUE"),
          synced=False, imbues=True),
)

PYTHON = (
    Program("py-print", "python", "print()", output="runtime"),
    Program("py-ioencoding-utf8", "python", "print(), PYTHONIOENCODING=utf-8", env={"PYTHONIOENCODING": "utf-8"},
            output="runtime"),
    Program("py-ioencoding-ascii", "python", "print(), PYTHONIOENCODING=ascii", env={"PYTHONIOENCODING": "ascii"},
            output="runtime"),
    Program("py-ioencoding-replace", "python", "print(), PYTHONIOENCODING=ascii:replace",
            env={"PYTHONIOENCODING": "ascii:replace"}, output="runtime"),
    Program("py-ioencoding-latin1", "python", "print(), PYTHONIOENCODING=latin-1",
            env={"PYTHONIOENCODING": "latin-1"}, output="runtime"),
    Program("py-utf8-mode", "python", "print(), PYTHONUTF8=1", env={"PYTHONUTF8": "1"}, output="runtime"),
    Program("py-legacy", "python", "print(), no C-locale coercion or UTF-8 mode",
            env={"PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}, output="runtime"),
)

RUNTIMES = (
    Program("java-default", "java", "System.out", "unicode-java", output="runtime"),
    Program("java-stdout-encoding", "java", "System.out, -Dstdout.encoding=UTF-8", "unicode-java",
            flags=("-Dstdout.encoding=UTF-8",), output="runtime"),
    Program("java-file-encoding", "java", "System.out, -Dfile.encoding=UTF-8", "unicode-java",
            flags=("-Dfile.encoding=UTF-8",), output="runtime"),
    Program("java-both-encodings", "java", "System.out, -Dfile.encoding and -Dsun.stdout.encoding=UTF-8",
            "unicode-java", flags=("-Dfile.encoding=UTF-8", "-Dsun.stdout.encoding=UTF-8"), output="runtime"),
    Program("go-fmt", "go", "fmt.Print", "unicode-go", output="runtime"),
    Program("rust-print", "rust", "print!", "unicode-rust", output="runtime"),
    Program("node-write", "node", "process.stdout.write", "unicode-node", output="runtime"),
)

PROGRAMS = (*NATIVE, *PYTHON, *RUNTIMES)


def by_name(name: str) -> Program:
    return next(p for p in PROGRAMS if p.name == name)
