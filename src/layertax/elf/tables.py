"""The two big tables of an ELF object, the dynamic symbols and the REL/RELA relocations,
read in bulk from the section's bytes with struct.

pyelftools parses these one entry at a time through construct, about 80 µs an entry: a
library of 1,100 symbols and 2,100 relocations took 0.2 s, and the quick calibration of
`inspect` reads sixty such objects. Here the sections are still found and bounded by
pyelftools (and elfcheck before it); only the fixed-size entries are unpacked here, with
the field layout of the ELF specification (Elf32_Sym/Elf64_Sym, Elf32_Rel(a)/Elf64_Rel(a)).
tests/test_elf_tables.py checks every entry against pyelftools' own reading.
"""
from __future__ import annotations

import struct
from typing import NamedTuple

# st_info's high nibble, st_other's low two bits, the undefined section index.
STB_LOCAL = 0
STV_DEFAULT, STV_INTERNAL, STV_HIDDEN, STV_PROTECTED = 0, 1, 2, 3
SHN_UNDEF = 0


class Symbol(NamedTuple):
    name: str
    bind: int           # STB_*: st_info >> 4
    visibility: int     # STV_*: st_other & 3
    shndx: int          # st_shndx (SHN_UNDEF: imported)


class Relocation(NamedTuple):
    offset: int         # r_offset
    symbol: int         # the symbol's index in the linked symbol table (0: none)
    type: int           # the machine's relocation type number


def _order(little_endian: bool) -> str:
    return "<" if little_endian else ">"


def symbols(data: bytes, strings: bytes, entsize: int, elf_class: int, little_endian: bool) -> list[Symbol]:
    """Every entry of a symbol table (its section's bytes), named from its string table's bytes.
    A name is UTF-8 with bad bytes replaced, as pyelftools reads it; it ends at its NUL or at the
    end of the string table."""
    if elf_class == 64:      # st_name, st_info, st_other, st_shndx, st_value, st_size
        layout = struct.Struct(_order(little_endian) + "IBBHQQ")
        name_at, info_at, other_at, shndx_at = 0, 1, 2, 3
    else:                    # st_name, st_value, st_size, st_info, st_other, st_shndx
        layout = struct.Struct(_order(little_endian) + "IIIBBH")
        name_at, info_at, other_at, shndx_at = 0, 3, 4, 5
    if entsize < layout.size:
        raise ValueError(f"symbol entries of {entsize} bytes, fewer than the {layout.size} of one")
    names: dict[int, str] = {}
    out = []
    for offset in range(0, (len(data) // entsize) * entsize, entsize):
        fields = layout.unpack_from(data, offset)
        at = fields[name_at]
        name = names.get(at)
        if name is None:
            end = strings.find(b"\0", at)
            name = strings[at:end if end >= 0 else len(strings)].decode("utf-8", errors="replace")
            names[at] = name
        out.append(Symbol(name, fields[info_at] >> 4, fields[other_at] & 3, fields[shndx_at]))
    return out


def relocations(data: bytes, rela: bool, elf_class: int, little_endian: bool) -> list[Relocation]:
    """Every entry of a REL or RELA section (its bytes); r_info split as the ELF class splits it."""
    if elf_class == 64:
        layout = struct.Struct(_order(little_endian) + ("QQq" if rela else "QQ"))
        shift, mask = 32, 0xFFFFFFFF
    else:
        layout = struct.Struct(_order(little_endian) + ("IIi" if rela else "II"))
        shift, mask = 8, 0xFF
    usable = (len(data) // layout.size) * layout.size
    return [Relocation(entry[0], entry[1] >> shift, entry[1] & mask)
            for entry in layout.iter_unpack(memoryview(data)[:usable])]
