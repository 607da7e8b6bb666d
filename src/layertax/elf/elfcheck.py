"""Is this ELF file sound enough to read? The headers and the tables they point to, checked
against the file's size and the ELF specification's entry sizes before pyelftools reads
anything, so that a malformed file is described in words a user understands ("the section
header table runs past the end of the file") instead of a parser's exception, and so that a
count that claims more entries than the file holds never makes a reader allocate for them."""
from __future__ import annotations

import struct
from typing import BinaryIO

EHDR = {1: ("<HHIIIIIHHHHHH", 52), 2: ("<HHIQQQIHHHHHH", 64)}   # after e_ident; little-endian form
PHDR = {1: ("<IIIIIIII", 32), 2: ("<IIQQQQQQ", 56)}
SHDR = {1: ("<IIIIIIIIII", 40), 2: ("<IIQQQQIIQQ", 64)}
# sh_type -> (what it holds, its entry size in ELF32, in ELF64)
ENTRY_SIZES = {2: ("symbol", 16, 24), 11: ("symbol", 16, 24), 4: ("relocation (RELA)", 12, 24),
               9: ("relocation (REL)", 8, 16), 6: ("dynamic", 8, 16), 19: ("RELR", 4, 8)}
PT_NAMES = {1: "PT_LOAD", 2: "PT_DYNAMIC", 3: "PT_INTERP", 4: "PT_NOTE", 6: "PT_PHDR", 7: "PT_TLS"}
SHT_NULL, SHT_STRTAB, SHT_NOBITS = 0, 3, 8
SHN_XINDEX = 0xFFFF
MAX_SECTIONS = 1 << 20   # no linker writes more; a count beyond it is corruption


class Malformed(Exception):
    """What is wrong with the file, in one sentence."""


def _unpack(fmt: str, data: bytes, big: bool) -> tuple:
    return struct.unpack((">" if big else "<") + fmt[1:], data)


def check(f: BinaryIO, size: int) -> None:
    """Raises Malformed (one sentence) for a file whose structure cannot be read soundly."""
    f.seek(0)
    ident = f.read(16)
    if len(ident) < 16 or ident[:4] != b"\x7fELF":
        raise Malformed("it is not an ELF file (no ELF header)")
    cls, data = ident[4], ident[5]
    if cls not in (1, 2):
        raise Malformed(f"its ELF class byte is {cls}, neither 1 (32-bit) nor 2 (64-bit)")
    if data not in (1, 2):
        raise Malformed(f"its byte-order byte is {data}, neither 1 (little-endian) nor 2 (big-endian)")
    big = data == 2
    fmt, ehsize = EHDR[cls]
    rest = f.read(ehsize - 16)
    if len(rest) < ehsize - 16:
        raise Malformed(f"the file ends inside its ELF header ({size} bytes; the header takes {ehsize})")
    (_type, _machine, _version, _entry, phoff, shoff, _flags, _ehsize, phentsize, phnum, shentsize, shnum,
     shstrndx) = _unpack(fmt, rest, big)
    _check_segments(f, size, cls, big, phoff, phentsize, phnum)
    _check_sections(f, size, cls, big, shoff, shentsize, shnum, shstrndx)


def _table(size: int, offset: int, entsize: int, count: int, what: str, needed: int) -> None:
    if entsize < needed:
        raise Malformed(f"its {what} entries are {entsize} bytes, smaller than the {needed} an entry takes")
    if offset + entsize * count > size:
        raise Malformed(f"the {what} table runs past the end of the file ({count} entries of {entsize} bytes at "
                        f"offset {offset}; the file has {size} bytes)")


def _check_segments(f, size, cls, big, phoff, phentsize, phnum) -> None:
    if phnum == 0:
        return
    fmt, needed = PHDR[cls]
    _table(size, phoff, phentsize, phnum, "program header", needed)
    for i in range(phnum):
        f.seek(phoff + i * phentsize)
        fields = _unpack(fmt, f.read(needed), big)
        if cls == 2:
            p_type, _flags, offset, _vaddr, _paddr, filesz, _memsz, _align = fields
        else:
            p_type, offset, _vaddr, _paddr, filesz, _memsz, _flags, _align = fields
        name = PT_NAMES.get(p_type, f"type {p_type:#x}")
        if offset + filesz > size:
            raise Malformed(f"segment {i} ({name}) runs past the end of the file")


def _check_sections(f, size, cls, big, shoff, shentsize, shnum, shstrndx) -> None:
    if shoff == 0:
        return
    fmt, needed = SHDR[cls]
    if shnum == 0:   # extended numbering: the count is section 0's sh_size
        _table(size, shoff, shentsize, 1, "section header", needed)
        f.seek(shoff)
        shnum = _unpack(fmt, f.read(needed), big)[5]
        if shnum > MAX_SECTIONS:
            raise Malformed(f"it claims {shnum:,} sections, more than any linker writes")
    _table(size, shoff, shentsize, shnum, "section header", needed)
    headers = []
    for i in range(shnum):
        f.seek(shoff + i * shentsize)
        name, sh_type, _flags, _addr, offset, sec_size, link, _info, _align, entsize = _unpack(fmt, f.read(needed), big)
        headers.append((name, sh_type, offset, sec_size, link, entsize))
    if shstrndx == SHN_XINDEX:
        shstrndx = headers[0][4] if headers else 0
    if shnum and not 0 <= shstrndx < shnum:
        raise Malformed(f"its section-name table is section {shstrndx}, and there are only {shnum} sections")
    names = b""
    if shnum and shstrndx:
        _, sh_type, offset, sec_size, _, _ = headers[shstrndx]
        if sh_type != SHT_STRTAB:
            raise Malformed(f"its section-name table (section {shstrndx}) is not a string table")
    for i, (name, sh_type, offset, sec_size, link, entsize) in enumerate(headers):
        if sh_type in (SHT_NULL, SHT_NOBITS):
            continue
        if offset + sec_size > size:
            raise Malformed(f"section {i} runs past the end of the file ({sec_size} bytes at offset {offset}; the "
                            f"file has {size})")
        if sh_type == SHT_STRTAB and sec_size:
            f.seek(offset + sec_size - 1)
            if f.read(1) != b"\0":
                raise Malformed(f"string table section {i} does not end with a NUL byte")
        if i == shstrndx and shstrndx:
            f.seek(offset)
            names = f.read(sec_size)
        if sh_type in ENTRY_SIZES:
            what, size32, size64 = ENTRY_SIZES[sh_type]
            expected = size64 if cls == 2 else size32
            if entsize != expected or sec_size % expected:
                raise Malformed(f"section {i} holds {what} entries of {entsize} bytes in {sec_size} bytes; an "
                                f"ELF{32 * cls} {what} entry takes {expected}")
        if sh_type in (2, 11, 4, 9, 6) and not 0 <= link < len(headers):
            raise Malformed(f"section {i} links to section {link}, and there are only {len(headers)} sections")
        if sh_type in (2, 11, 6) and headers[link][1] != SHT_STRTAB:
            raise Malformed(f"section {i} takes its names from section {link}, which is not a string table")
    for i, header in enumerate(headers):
        if names and header[0] >= len(names):
            raise Malformed(f"section {i}'s name lies outside the section-name table")
