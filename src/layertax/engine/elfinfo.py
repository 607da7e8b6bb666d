"""What an ELF file asks of the loader, read statically with pyelftools.

Relocations by kind (RELR entries decoded into the addresses they relocate,
since glibc's statistics leave them out), dynamic symbols, hash tables and
the flags that change what the loader does (BIND_NOW, PIE, TEXTREL).
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.descriptions import describe_reloc_type
from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection, RelrRelocationSection

from layertax.errors import LayertaxError

# Relocation kinds, by the suffix of the type name (R_X86_64_GLOB_DAT, R_AARCH64_GLOB_DAT...).
# _IRELATIVE before _RELATIVE: the first suffix that matches wins.
_KINDS = (("_IRELATIVE", "irelative"), ("_RELATIVE", "relative"), ("_GLOB_DAT", "glob_dat"),
          ("_JUMP_SLOT", "jump_slot"), ("_COPY", "copy"))


def _kind(type_name: str) -> str:
    return next((kind for suffix, kind in _KINDS if type_name.endswith(suffix)), "symbolic_other")


def relocation_counts(elf: ELFFile) -> dict[str, int]:
    counts: Counter[str] = Counter({k: 0 for _, k in _KINDS} | {"symbolic_other": 0, "relr": 0})
    for section in elf.iter_sections():
        if isinstance(section, RelrRelocationSection):
            counts["relr"] += section.num_relocations()
        elif isinstance(section, RelocationSection) and section.name in (".rela.dyn", ".rel.dyn", ".rela.plt", ".rel.plt"):
            for reloc in section.iter_relocations():
                counts[_kind(describe_reloc_type(reloc["r_info_type"], elf))] += 1
    return dict(counts)


def describe(path: Path) -> dict:
    """One object's static picture."""
    try:
        with open(path, "rb") as f:
            elf = ELFFile(f)
            info = {"path": str(path), "type": elf["e_type"], "relocations": relocation_counts(elf)}
            dyn = next((s for s in elf.iter_sections() if isinstance(s, DynamicSection)), None)
            names = {s.name for s in elf.iter_sections()}
            info["hash"] = [h for h, sec in (("gnu", ".gnu.hash"), ("sysv", ".hash")) if sec in names]
            info["interp"] = any(seg["p_type"] == "PT_INTERP" for seg in elf.iter_segments())
            info["pie"] = elf["e_type"] == "ET_DYN" and info["interp"]
            needed, flags, flags_1, textrel = [], 0, 0, False
            if dyn is not None:
                for tag in dyn.iter_tags():
                    if tag.entry.d_tag == "DT_NEEDED":
                        needed.append(tag.needed)
                    elif tag.entry.d_tag == "DT_FLAGS":
                        flags = tag.entry.d_val
                    elif tag.entry.d_tag == "DT_FLAGS_1":
                        flags_1 = tag.entry.d_val
                    elif tag.entry.d_tag == "DT_TEXTREL":
                        textrel = True
            info["needed"] = needed
            info["bind_now"] = bool(flags & 0x8) or bool(flags_1 & 0x1)  # DF_BIND_NOW, DF_1_NOW
            info["symbolic"] = bool(flags & 0x2)                          # DF_SYMBOLIC
            info["textrel"] = textrel or bool(flags & 0x4)
            dynsym = elf.get_section_by_name(".dynsym")
            defined = undefined = 0
            if dynsym is not None:
                for sym in dynsym.iter_symbols():
                    if not sym.name:
                        continue
                    if sym["st_shndx"] == "SHN_UNDEF":
                        undefined += 1
                    else:
                        defined += 1
            info["dynsym_defined"] = defined
            info["dynsym_undefined"] = undefined
            return info
    except (OSError, ELFError) as e:
        raise LayertaxError(f"{path}: not a readable ELF file ({e})") from e


def describe_tree(program: Path) -> dict:
    """The program and the libraries beside it that it names (a generated variant's directory)."""
    objects = [describe(program)]
    for name in objects[0]["needed"]:
        lib = program.parent / name
        if lib.is_file():
            objects.append(describe(lib))
    totals: Counter[str] = Counter()
    for obj in objects:
        totals.update(obj["relocations"])
    return {"objects": objects, "relocations": dict(totals), "libraries": len(objects) - 1,
            "dynsym_defined": sum(o["dynsym_defined"] for o in objects)}
