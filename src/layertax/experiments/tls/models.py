"""The TLS access models of the dlopened libraries: how each is built, and the check that
a built library really uses the model it claims, from its dynamic relocations.

On x86-64 each model leaves its own mark in a shared library's .rela.dyn:
  initial-exec     R_X86_64_TPOFF64   (the offset from the thread pointer, fixed at load)
  global-dynamic   R_X86_64_DTPMOD64  (module id + offset, resolved by __tls_get_addr)
  TLS descriptors  R_X86_64_TLSDESC   (a descriptor whose resolver the code calls)
A library with the wrong mark (say, built without -mtls-dialect=gnu2) is rejected, and
its case fails with the reason instead of timing the wrong thing.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from elftools.elf.descriptions import describe_reloc_type
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection

from layertax.engine.builder import graph, ninja, toolchain
from layertax.errors import LayertaxError

KERNEL_DIR = Path(__file__).resolve().parent / "kernels"
TLS_RELOCS = ("R_X86_64_TPOFF64", "R_X86_64_DTPMOD64", "R_X86_64_DTPOFF64", "R_X86_64_TLSDESC")


@dataclass(frozen=True)
class Model:
    case: str            # the case that times it
    env: str             # where the kernel finds the library
    what: str
    cflags: tuple[str, ...]
    must_have: str       # the relocation that proves the model
    must_not: tuple[str, ...]


MODELS = (
    Model("tls-ie", "LAYERTAX_TLS_LIB_IE", "initial-exec", ("-ftls-model=initial-exec",),
          "R_X86_64_TPOFF64", ("R_X86_64_DTPMOD64", "R_X86_64_TLSDESC")),
    Model("tls-gd", "LAYERTAX_TLS_LIB_GD", "global-dynamic (__tls_get_addr)",
          ("-ftls-model=global-dynamic", "-mtls-dialect=gnu"), "R_X86_64_DTPMOD64", ("R_X86_64_TLSDESC",)),
    Model("tls-desc", "LAYERTAX_TLS_LIB_DESC", "TLS descriptors",
          ("-ftls-model=global-dynamic", "-mtls-dialect=gnu2"), "R_X86_64_TLSDESC", ("R_X86_64_DTPMOD64",)),
    # The same, with a 64 KiB TLS block that static TLS cannot hold (the kernel checks with dlinfo).
    Model("tls-desc-dynamic", "LAYERTAX_TLS_LIB_DESC_DYN", "TLS descriptors, dynamic TLS",
          ("-ftls-model=global-dynamic", "-mtls-dialect=gnu2", "-DLAYERTAX_TLS_PAD=65536"), "R_X86_64_TLSDESC",
          ("R_X86_64_DTPMOD64",)),
)


def target(model: Model, cflags: tuple[str, ...] | None = None) -> ninja.BuildTarget:
    cc = toolchain.find("cc")
    if cc is None:
        raise LayertaxError(toolchain.hint("cc"))
    flags = model.cflags if cflags is None else cflags
    return ninja.BuildTarget(f"libtls-{model.case}.so", (KERNEL_DIR / "lib_model.c",), (), flags, (),
                             cc.path, cc.version, kind="shared")


def tls_relocations(path: Path) -> dict[str, int]:
    """The TLS relocation types of a shared library's dynamic relocations, counted."""
    found: dict[str, int] = {}
    with open(path, "rb") as f:
        elf = ELFFile(f)
        for section in elf.iter_sections():
            if not isinstance(section, RelocationSection):
                continue
            for rel in section.iter_relocations():
                name = describe_reloc_type(rel["r_info_type"], elf)
                if name in TLS_RELOCS:
                    found[name] = found.get(name, 0) + 1
    return found


def check(model: Model, path: Path) -> str | None:
    """None if the library uses the model it claims, else why not."""
    found = tls_relocations(path)
    if model.must_have not in found:
        return (f"{path.name} claims {model.what} but has no {model.must_have} "
                f"(TLS relocations: {', '.join(sorted(found)) or 'none'})")
    wrong = [r for r in model.must_not if r in found]
    if wrong:
        return f"{path.name} claims {model.what} but also has {', '.join(wrong)}"
    return None


def builds(experiment, cache_root: Path, case_globs: tuple[str, ...] = ()) -> list[ninja.BuildTarget]:
    """The model libraries, for the run's one ninja graph (build_and_check then finds them cached)."""
    return [target(m) for m in MODELS] if toolchain.find("cc") else []


def build_and_check(cache_root: Path) -> dict[str, dict]:
    """Every model library built (cached) and checked: {case: {path, relocations, error}}."""
    built = graph.build([target(m) for m in MODELS], cache_root)
    out = {}
    for m in MODELS:
        result = built[f"libtls-{m.case}.so"]
        if isinstance(result, Exception):
            out[m.case] = {"model": m.what, "path": None, "relocations": {}, "error": str(result)}
            continue
        out[m.case] = {"model": m.what, "path": str(result), "cflags": list(m.cflags),
                       "relocations": tls_relocations(result), "error": check(m, result)}
    return out
