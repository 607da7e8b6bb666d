"""The launch timer's programs, built once into the cache: the timer itself (native/launch.c),
the stamp libraries a program that does not stamp itself gets preloaded (native/stamp.c,
native/first.c), and the empty control programs (native/empty.c)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from layertax.engine.builder import graph, ninja, toolchain
from layertax.errors import LayertaxError

NATIVE = Path(__file__).resolve().parent / "native"   # the timer's C side (common.h comes from ninja.NATIVE_DIR)


@dataclass(frozen=True)
class LaunchTools:
    timer: Path        # native/launch.c
    stamp_lib: Path    # native/stamp.c as a shared library, for LD_PRELOAD: the main stamp only, as cheap as it can be
    empty: Path        # native/empty.c: does nothing, stamps nothing
    first_lib: Path    # native/first.c: the phases stamp's dependency, initialised first
    stamp_phases_lib: Path  # native/stamp.c -DLAYERTAX_PHASES, needing first_lib: main and the stages before it
    empty_static: Path | None = None  # native/empty.c linked -static (None: no static libc here)


# The preloaded libraries link no start files (nothing of crtbegin's to relocate or
# look up), and the first-constructor library not even libc (first.c says why).
FREESTANDING = ("-nostdlib", "-ffreestanding", "-fno-stack-protector", "-fno-builtin")
# Two LOAD segments (code and read-only data in one, data in the other) and no RELRO:
# ld.so maps each segment with its own mmap, and a RELRO that ends inside the data
# segment splits that mapping with an mprotect. The layout, not the stamp's code, was
# most of what the preload cost (the (empty) and (empty+stamp) controls of a run
# measure it). The price: the
# stamp's own GOT stays writable, which matters to nothing but the stamp.
COMPACT_LAYOUT = ("-Wl,-z,noseparate-code", "-Wl,-z,norelro")
# dlsym is in libc since glibc 2.34; --as-needed drops libdl there and keeps it before.
STAMP_LINKS = ("-nostartfiles", *COMPACT_LAYOUT, "-Wl,--as-needed", "-ldl")


def _cc() -> toolchain.Tool:
    cc = toolchain.find("cc")
    if cc is None:
        raise LayertaxError(toolchain.hint("cc"))
    return cc


def tool_targets(cc: toolchain.Tool) -> list[ninja.BuildTarget]:
    """The timer, the stamp libraries and the empty programs, as build targets. The phases
    stamp is not among them: it links against the first library where the cache keeps it,
    so it is built once that one is published (tools() does it)."""
    common = ninja.COMMON_SOURCES
    return [
        ninja.BuildTarget("launch", (NATIVE / "launch.c", NATIVE / "placement.c", NATIVE / "child.c", NATIVE / "ticks.c",
                                     *common),
                          (NATIVE,), (), (), cc.path, cc.version, kind="program"),
        ninja.BuildTarget("liblayertax-first.so", (NATIVE / "first.c",), (), FREESTANDING,
                          ("-nostdlib", *COMPACT_LAYOUT), cc.path, cc.version, kind="shared"),
        ninja.BuildTarget("empty", (NATIVE / "empty.c",), (), (), (), cc.path, cc.version, kind="program"),
        ninja.BuildTarget("liblayertax-stamp.so", (NATIVE / "stamp.c",), (), ("-fno-stack-protector",),
                          STAMP_LINKS, cc.path, cc.version, kind="shared"),
        # The static empty program: what start-up costs with no loader at all. Optional
        # (it needs libc.a); without it, inspect does not price static linking.
        ninja.BuildTarget("empty-static", (NATIVE / "empty.c",), (), (), ("-static",), cc.path, cc.version,
                          kind="program"),
    ]


def tools(cache_root: Path) -> LaunchTools:
    cc = _cc()
    built = graph.build(tool_targets(cc), cache_root)
    for name, result in built.items():
        if isinstance(result, Exception) and name != "empty-static":
            raise LayertaxError(str(result))
    static = built["empty-static"]
    # The phases stamp names the first one by its absolute path (DT_NEEDED with a
    # slash: loaded from there, no search), so it needs no RPATH and no LD_LIBRARY_PATH.
    first = built["liblayertax-first.so"]
    phases = _build_all([ninja.BuildTarget("liblayertax-stamp-phases.so", (NATIVE / "stamp.c",), (),
                                           ("-DLAYERTAX_PHASES", "-fno-stack-protector"),
                                           ("-Wl,--no-as-needed", str(first), *STAMP_LINKS), cc.path, cc.version,
                                           kind="shared")], cache_root)
    return LaunchTools(built["launch"], built["liblayertax-stamp.so"], built["empty"], first,
                       phases["liblayertax-stamp-phases.so"], static if isinstance(static, Path) else None)


def _build_all(targets: list[ninja.BuildTarget], cache_root: Path) -> dict[str, Path]:
    built = graph.build(targets, cache_root)
    for result in built.values():
        if isinstance(result, Exception):
            raise LayertaxError(str(result))
    return built
