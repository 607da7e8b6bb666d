"""What an ELF file asks of the loader, read statically with pyelftools.

Relocations by kind (RELR entries decoded into the addresses they relocate,
since glibc's statistics leave them out), the symbol lookups the loader will
do for them, dynamic symbols, hash tables, init functions, the pages the
relocations write, and the flags that change what the loader does (BIND_NOW,
PIE, RELRO, TEXTREL). Nothing is executed.

Any file may be handed to this module by a user, so a malformed one must end
in one LayertaxError, never a traceback: pyelftools can fail almost anywhere
inside a corrupt file (its own errors, construct's, IndexError, ValueError...).
"""
from __future__ import annotations

import os
import struct
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from elftools.elf.descriptions import describe_reloc_type
from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile
from elftools.elf.gnuversions import GNUVerNeedSection
from elftools.elf.relocation import RelocationSection, RelrRelocationSection

from layertax.errors import LayertaxError
from layertax.elf import elfcheck, tables

# Relocation kinds, by the suffix of the type name (R_X86_64_GLOB_DAT, R_AARCH64_GLOB_DAT...).
# _IRELATIVE before _RELATIVE: the first suffix that matches wins.
_KINDS = (("_IRELATIVE", "irelative"), ("_RELATIVE", "relative"), ("_GLOB_DAT", "glob_dat"),
          ("_JUMP_SLOT", "jump_slot"), ("_COPY", "copy"))
# glibc's elf_machine_type_class: the one-entry lookup cache only serves a
# relocation of the same class as the one before it.
_PLT_CLASS = ("_JUMP_SLOT", "_DTPMOD64", "_DTPOFF64", "_TPOFF64", "_TLSDESC", "_TLS_DTPMOD64", "_TLS_DTPREL64",
              "_TLS_TPREL64", "_TLSDESC")
PAGE_SIZE = 4096
_MACHINES = {"EM_X86_64": "x86_64", "EM_386": "i386", "EM_AARCH64": "aarch64", "EM_ARM": "arm",
             "EM_RISCV": "riscv", "EM_PPC64": "ppc64", "EM_S390": "s390x"}


_EM_NUMBERS = {62: "x86_64", 3: "i386", 183: "aarch64", 40: "arm", 243: "riscv", 21: "ppc64", 22: "s390x"}


def machine_name(e_machine: int) -> str:
    """The name layertax uses for a numeric e_machine (as in a raw ELF header)."""
    return _EM_NUMBERS.get(e_machine, f"machine {e_machine}")


def _kind(type_name: str) -> str:
    return next((kind for suffix, kind in _KINDS if type_name.endswith(suffix)), "symbolic_other")


def _machine(e_machine) -> str:
    if isinstance(e_machine, int):
        return machine_name(e_machine)
    return _MACHINES.get(e_machine, str(e_machine))


def _type_class(type_name: str) -> int:
    if type_name.endswith("_COPY"):
        return 2
    return 1 if type_name.endswith(_PLT_CLASS) else 0


@dataclass
class Lookups:
    """The symbol lookups glibc's loader does for one object's relocations at start-up."""
    lazy: int = 0           # with lazy binding: DT_RELA(DT_REL) relocations only (all, if flagged BIND_NOW)
    now: int = 0            # with BIND_NOW / LD_BIND_NOW: the PLT slots too
    cache_lazy: int = 0     # served by the one-entry cache instead (glibc counts these apart)
    cache_now: int = 0
    self_bound: int = 0     # lookups of a symbol this object defines itself: -Bsymbolic or hidden would bind them
    # Objects with only a SysV hash table searched by these lookups (set by scope_probes):
    # glibc rejects a GNU-hashed object with its Bloom filter, a SysV one costs a chain walk.
    sysv_probes_lazy: int = 0
    sysv_probes_now: int = 0
    names_lazy: Counter = field(default_factory=Counter, repr=False)   # the symbols looked up
    names_now: Counter = field(default_factory=Counter, repr=False)


@dataclass
class ElfObject:
    path: str
    elf_class: int = 64
    machine: str = "?"
    type: str = "?"
    soname: str | None = None
    interp: str | None = None
    needed: list[str] = field(default_factory=list)
    rpath: list[str] = field(default_factory=list)
    runpath: list[str] = field(default_factory=list)
    pie: bool = False
    entry: int = 0                  # e_entry: 0 in a library that cannot be run
    bind_now: bool = False
    symbolic: bool = False
    textrel: bool = False
    relro_bytes: int = 0
    hash: list[str] = field(default_factory=list)
    linker: str = "GNU ld"   # what linked it, from the marks gold, lld and mold leave (GNU ld leaves none)
    relocations: dict[str, int] = field(default_factory=dict)
    lookups: Lookups = field(default_factory=Lookups)
    exported: int = 0
    imported: int = 0
    init: dict[str, int] = field(default_factory=dict)
    pages_written: int = 0          # distinct pages the relocations write (PAGE_SIZE each)
    pages_written_relro: int = 0    # of those, inside PT_GNU_RELRO (made read-only after relocation)
    relative_rela_bytes: int = 0    # relative relocations stored as REL(A) entries
    relative_as_relr_bytes: int = 0  # the same addresses packed as RELR
    # For cross-object analysis (not exported): names defined and names wanted, and
    # the files named by version requirements.
    defines: set[str] = field(default_factory=set, repr=False)
    wants: set[str] = field(default_factory=set, repr=False)
    version_files: set[str] = field(default_factory=set, repr=False)

    def to_dict(self) -> dict:
        d = {k: v for k, v in self.__dict__.items() if k not in ("defines", "wants", "version_files")}
        d["lookups"] = {k: v for k, v in self.lookups.__dict__.items() if not k.startswith("names_")}
        return d


def relr_size(addresses: list[int], word: int) -> int:
    """Bytes the RELR encoding of these relative-relocation addresses takes (lld's algorithm)."""
    addrs = sorted(a for a in addresses if a % word == 0)
    odd = len(addresses) - len(addrs)     # misaligned ones cannot be packed: they stay REL(A)
    bits = word * 8 - 1
    entries, i = 0, 0
    while i < len(addrs):
        entries += 1                      # an address entry
        base = addrs[i] + word
        i += 1
        while True:
            covered = 0
            while i < len(addrs) and 0 <= addrs[i] - base < bits * word:
                covered += 1
                i += 1
            if not covered:
                break
            entries += 1                  # a bitmap entry
            base += bits * word
    return entries * word + odd * (3 * word)


def _linker(by_name: dict) -> str:
    """gold adds a .note.gnu.gold-version; lld and mold sign .comment; GNU ld signs nothing."""
    if ".note.gnu.gold-version" in by_name:
        return "gold"
    comment = by_name.get(".comment")
    text = comment.data()[:4096] if comment is not None and comment["sh_type"] != "SHT_NOBITS" else b""
    if b"LLD " in text:
        return "lld"
    if b"mold " in text:
        return "mold"
    return "GNU ld"


def _dynamic(elf: ELFFile, sections: list) -> DynamicSection | None:
    for section in sections:
        if isinstance(section, DynamicSection):
            return section
    for segment in elf.iter_segments():   # a stripped section table: the segment still has it
        if segment["p_type"] == "PT_DYNAMIC":
            return segment
    return None


def _read_dynamic(obj: ElfObject, dyn, word: int) -> None:
    flags = flags_1 = 0
    for tag in dyn.iter_tags():
        t = tag.entry.d_tag
        if t == "DT_NEEDED":
            obj.needed.append(tag.needed)
        elif t == "DT_SONAME":
            obj.soname = tag.soname
        elif t == "DT_RPATH":
            obj.rpath += [p for p in tag.rpath.split(":") if p]
        elif t == "DT_RUNPATH":
            obj.runpath += [p for p in tag.runpath.split(":") if p]
        elif t == "DT_FLAGS":
            flags = tag.entry.d_val
        elif t == "DT_FLAGS_1":
            flags_1 = tag.entry.d_val
        elif t == "DT_TEXTREL":
            obj.textrel = True
        elif t == "DT_BIND_NOW":
            obj.bind_now = True
        elif t == "DT_SYMBOLIC":
            obj.symbolic = True
        elif t == "DT_INIT":
            obj.init["init"] = 1
        elif t == "DT_INIT_ARRAYSZ":
            obj.init["init_array"] = tag.entry.d_val // word
        elif t == "DT_PREINIT_ARRAYSZ":
            obj.init["preinit_array"] = tag.entry.d_val // word
    obj.bind_now = obj.bind_now or bool(flags & 0x8) or bool(flags_1 & 0x1)   # DF_BIND_NOW, DF_1_NOW
    obj.symbolic = obj.symbolic or bool(flags & 0x2)                           # DF_SYMBOLIC
    obj.textrel = obj.textrel or bool(flags & 0x4)                             # DF_TEXTREL
    obj.pie = bool(flags_1 & 0x08000000)                                       # DF_1_PIE


def _section_bytes(section) -> bytes:
    """A section's bytes, all of them: a table cut short by the end of the file is not sound."""
    data = section.data()
    if len(data) != section["sh_size"]:
        raise ValueError(f"section {section.name!r} runs past the end of the file")
    return data


def _symbols(obj: ElfObject, elf: ELFFile, by_name: dict) -> list[tables.Symbol] | None:
    dynsym = by_name.get(".dynsym")
    if dynsym is None:
        return None
    symbols = tables.symbols(_section_bytes(dynsym), _section_bytes(dynsym.stringtable), dynsym["sh_entsize"],
                             elf.elfclass, elf.little_endian)
    for sym in symbols:
        if not sym.name or sym.bind == tables.STB_LOCAL:
            continue
        if sym.shndx == tables.SHN_UNDEF:
            obj.imported += 1
            obj.wants.add(sym.name)
        elif sym.visibility in (tables.STV_DEFAULT, tables.STV_PROTECTED):
            obj.exported += 1
            obj.defines.add(sym.name)
    return symbols


def _relocations(obj: ElfObject, elf: ELFFile, sections: list, symbols: list[tables.Symbol] | None,
                 relro: tuple[int, int] | None, word: int) -> None:
    """Counts by kind, simulates glibc's lookups (with its one-entry cache), and the pages written."""
    counts: Counter[str] = Counter({k: 0 for _, k in _KINDS} | {"symbolic_other": 0, "relr": 0})
    targets: set[int] = set()
    relative_addrs: list[int] = []
    relative_rela = 0
    lk = obj.lookups
    # The cache is one entry per object and lives across its RELA and JMPREL tables.
    # Lazy and eager are simulated side by side; they only differ on the PLT table.
    cache = {"lazy": None, "now": None}
    type_names: dict[int, str] = {}
    sections = [s for s in sections if isinstance(s, (RelocationSection, RelrRelocationSection))]
    # glibc applies DT_RELR, then DT_RELA (DT_REL), then DT_JMPREL.
    order = {".relr.dyn": 0, ".rela.dyn": 1, ".rel.dyn": 1, ".rela.plt": 2, ".rel.plt": 2}
    for section in sorted((s for s in sections if s.name in order), key=lambda s: order[s.name]):
        if isinstance(section, RelrRelocationSection):
            for reloc in section.iter_relocations():
                counts["relr"] += 1
                targets.add(reloc["r_offset"] // PAGE_SIZE)
            continue
        plt = order[section.name] == 2
        entsize = section["sh_entsize"] or (3 * word if section.is_RELA() else 2 * word)
        for reloc in tables.relocations(_section_bytes(section), section.is_RELA(), elf.elfclass, elf.little_endian):
            type_name = type_names.get(reloc.type)
            if type_name is None:
                type_name = type_names[reloc.type] = describe_reloc_type(reloc.type, elf)
            kind = _kind(type_name)
            counts[kind] += 1
            targets.add(reloc.offset // PAGE_SIZE)
            if kind == "relative":
                relative_rela += entsize
                relative_addrs.append(reloc.offset)
                continue
            index = reloc.symbol
            if not index or symbols is None or index >= len(symbols):
                continue          # no symbol (IRELATIVE, local TLS): applied without a lookup
            sym = symbols[index]
            if sym.bind == tables.STB_LOCAL or sym.visibility in (tables.STV_HIDDEN, tables.STV_PROTECTED):
                continue          # binds locally: glibc does not look it up
            key = (index, _type_class(type_name))
            modes = ("now",) if plt else ("lazy", "now")
            for mode in modes:
                if cache[mode] == key:
                    setattr(lk, f"cache_{mode}", getattr(lk, f"cache_{mode}") + 1)
                else:
                    cache[mode] = key
                    setattr(lk, mode, getattr(lk, mode) + 1)
                    getattr(lk, f"names_{mode}")[sym.name] += 1
            if not plt and sym.shndx != tables.SHN_UNDEF and obj.type == "ET_DYN" and not obj.pie:
                lk.self_bound += 1
    obj.relocations = dict(counts)
    obj.pages_written = len(targets)
    if relro:
        lo, hi = relro
        obj.pages_written_relro = sum(1 for p in targets if lo <= p * PAGE_SIZE < hi)
    obj.relative_rela_bytes = relative_rela
    obj.relative_as_relr_bytes = relr_size(relative_addrs, word) if relative_addrs else 0


def read(path: Path) -> ElfObject:
    """One object's static picture; a LayertaxError (one line, in words) for anything that is not
    a sound ELF file: never a parser's exception text."""
    path = Path(path)
    if path.is_dir():
        raise LayertaxError(f"{path}: is a directory, not a program")
    try:
        f = open(path, "rb")
    except OSError as e:
        raise LayertaxError(f"{path}: cannot read it ({e.strerror or e})") from None
    with f:
        if f.read(4) != b"\x7fELF":
            raise LayertaxError(f"{path}: not an ELF file")
        try:
            elfcheck.check(f, os.fstat(f.fileno()).st_size)
        except elfcheck.Malformed as e:
            raise LayertaxError(f"{path}: a malformed ELF file: {e}") from None
        except (OSError, struct.error):
            raise LayertaxError(f"{path}: a malformed ELF file: its headers cannot be read") from None
        f.seek(0)
        try:
            return _read(path, ELFFile(f))
        except LayertaxError:
            raise
        except MemoryError:
            raise LayertaxError(f"{path}: a malformed ELF file: a table claims more entries than the file "
                                "holds") from None
        except Exception:  # noqa: BLE001 - past the structural check, pyelftools can still fail deep inside
            raise LayertaxError(f"{path}: a malformed ELF file: its headers are sound, but a table they point to "
                                "(symbols, relocations, the dynamic section or version needs) is not") from None


def _name(value, what: str) -> str:
    """pyelftools' name of an enum field, or a name for a value it does not know (it hands back the int)."""
    return value if isinstance(value, str) else f"unknown {what} {value:#x}"


def _read(path: Path, elf: ELFFile) -> ElfObject:
    word = elf.elfclass // 8
    obj = ElfObject(str(path), elf_class=elf.elfclass, machine=_machine(elf["e_machine"]),
                    type=_name(elf["e_type"], "type"), entry=elf["e_entry"])
    relro = None
    for seg in elf.iter_segments():
        if seg["p_type"] == "PT_INTERP":
            obj.interp = seg.get_interp_name()
        elif seg["p_type"] == "PT_GNU_RELRO":
            obj.relro_bytes = seg["p_memsz"]
            relro = (seg["p_vaddr"], seg["p_vaddr"] + seg["p_memsz"])
    # Each pass over pyelftools' sections parses every header again: one pass, kept.
    sections = list(elf.iter_sections())
    by_name = {section.name: section for section in sections}   # the last of a name, as get_section_by_name
    obj.hash = [h for h, sec in (("gnu", ".gnu.hash"), ("sysv", ".hash")) if sec in by_name]
    obj.linker = _linker(by_name)
    dyn = _dynamic(elf, sections)
    if dyn is not None:
        _read_dynamic(obj, dyn, word)
    # A PIE program says so (DF_1_PIE) since binutils 2.35; before, it is an ET_DYN
    # with an interpreter and no soname (libc.so.6 has an interpreter and a soname).
    obj.pie = obj.type == "ET_DYN" and (obj.pie or (obj.interp is not None and obj.soname is None))
    symbols = _symbols(obj, elf, by_name)
    _relocations(obj, elf, sections, symbols, relro, word)
    if obj.bind_now:  # glibc relocates an object flagged BIND_NOW eagerly, whatever the process asks
        obj.lookups.lazy, obj.lookups.cache_lazy = obj.lookups.now, obj.lookups.cache_now
        obj.lookups.names_lazy = Counter(obj.lookups.names_now)
    for section in sections:
        if isinstance(section, GNUVerNeedSection):
            # The entry count comes from DT_VERNEEDNUM, not from the section's size, and
            # pyelftools trusts it: a corrupt count (with vn_next 0) would re-read one
            # entry billions of times. A sound section holds at most size/16 entries.
            limit = section["sh_size"] // 16
            for i, (verneed, _) in enumerate(section.iter_versions()):
                if i >= limit:
                    raise LayertaxError(f"{path}: corrupt version-needs section (more entries than it can hold)")
                obj.version_files.add(verneed.name)
    return obj


def scope_probes(scope: list[ElfObject]) -> None:
    """How many SysV-only objects each object's lookups search, walking the global scope
    (the program, then its dependencies breadth-first: the load order) up to the first
    object that defines the symbol, or through all of it when none here does (libc, say).
    DT_SYMBOLIC objects searching themselves first and copy relocations skipping the
    program are not modelled: they change which objects are searched, rarely how many."""
    sysv = [o.hash == ["sysv"] for o in scope]
    for obj in scope:
        lk = obj.lookups
        for mode in ("lazy", "now"):
            probes = 0
            for name, n in getattr(lk, f"names_{mode}").items():
                seen = 0
                for other, is_sysv in zip(scope, sysv):
                    seen += is_sysv
                    if name in other.defines:
                        break
                probes += n * seen
            setattr(lk, f"sysv_probes_{mode}", probes)


def _described(obj: ElfObject) -> dict:
    """One object's static picture, as plain data (the loadtime lab's view)."""
    info = obj.to_dict()
    info["dynsym_defined"] = obj.exported
    info["dynsym_undefined"] = obj.imported
    return info


def describe_tree(program: Path) -> dict:
    """The program and the libraries beside it that it names (a generated variant's directory)."""
    scope = [read(program)]
    scope += [read(program.parent / name) for name in scope[0].needed if (program.parent / name).is_file()]
    scope_probes(scope)
    objects = [_described(o) for o in scope]
    totals: Counter[str] = Counter()
    for obj in objects:
        totals.update(obj["relocations"])
    return {"objects": objects, "relocations": dict(totals), "libraries": len(objects) - 1,
            "dynsym_defined": sum(o["dynsym_defined"] for o in objects)}
