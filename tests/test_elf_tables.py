"""The bulk readers of the dynamic symbol and relocation tables agree with pyelftools' reading of
the same entries, one by one, on real objects (this machine's C library and Python, a program
and a library built here with and without RELA, the generated loadtime libraries' shape), and
unpack every ELF class and byte order the way the specification lays them out."""
from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection

from layertax.elf import elfinfo, tables

SOURCE = """
extern int imported_counter;
int exported_counter = 3;
static int hidden_one(int x) { return x + 1; }
__attribute__((visibility("hidden"))) int hidden_two(int x) { return x * 2; }
__attribute__((visibility("protected"))) int protected_one(int x) { return x - 1; }
int (*pointers[])(int) = { hidden_one, hidden_two, protected_one };
int exported(int x) { return x + imported_counter + exported_counter + pointers[x & 1](x); }
"""


@pytest.fixture(scope="module")
def objects(tmp_path_factory) -> list[Path]:
    d = tmp_path_factory.mktemp("elf-tables")
    (d / "s.c").write_text(SOURCE)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", d / "lib.so", d / "s.c"], check=True)
    subprocess.run(["cc", "-shared", "-fPIC", "-Wl,-z,pack-relative-relocs", "-o", d / "librelr.so", d / "s.c"],
                   check=True)
    (d / "main.c").write_text("int imported_counter = 1; int exported(int);\n"
                              "int main(void) { return exported(2) > 100; }\n")
    subprocess.run(["cc", "-o", d / "prog", d / "main.c", d / "lib.so"], check=True)
    found = [Path(p) for p in ("/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6")
             if Path(p).is_file()][:1]
    return [d / "lib.so", d / "librelr.so", d / "prog", Path(sys.executable).resolve(), *found]


def _by_pyelftools(path: Path):
    with open(path, "rb") as f:
        elf = ELFFile(f)
        dynsym = elf.get_section_by_name(".dynsym")
        symbols = [(s.name, s["st_info"]["bind"], s["st_other"]["visibility"], s["st_shndx"])
                   for s in dynsym.iter_symbols()]
        relocs = {sec.name: [(r["r_offset"], r["r_info_sym"], r["r_info_type"]) for r in sec.iter_relocations()]
                  for sec in elf.iter_sections() if isinstance(sec, RelocationSection)}
    return symbols, relocs


def _by_tables(path: Path):
    with open(path, "rb") as f:
        elf = ELFFile(f)
        dynsym = elf.get_section_by_name(".dynsym")
        symbols = tables.symbols(dynsym.data(), dynsym.stringtable.data(), dynsym["sh_entsize"], elf.elfclass,
                                 elf.little_endian)
        relocs = {sec.name: [tuple(r) for r in tables.relocations(sec.data(), sec.is_RELA(), elf.elfclass,
                                                                  elf.little_endian)]
                  for sec in elf.iter_sections() if isinstance(sec, RelocationSection)}
    return symbols, relocs


_BIND = {0: "STB_LOCAL", 1: "STB_GLOBAL", 2: "STB_WEAK", 10: "STB_LOOS"}
_VISIBILITY = {0: "STV_DEFAULT", 1: "STV_INTERNAL", 2: "STV_HIDDEN", 3: "STV_PROTECTED"}


def test_every_symbol_and_relocation_is_read_as_pyelftools_reads_it(objects):
    kinds = set()
    for path in objects:
        theirs_symbols, theirs_relocs = _by_pyelftools(path)
        ours_symbols, ours_relocs = _by_tables(path)
        assert len(ours_symbols) == len(theirs_symbols) > 1, path
        for ours, theirs in zip(ours_symbols, theirs_symbols):
            name, bind, visibility, shndx = theirs
            assert ours.name == name and _BIND.get(ours.bind, ours.bind) == bind, (path, ours, theirs)
            assert _VISIBILITY[ours.visibility] == visibility, (path, ours, theirs)
            assert (ours.shndx == tables.SHN_UNDEF) == (shndx == "SHN_UNDEF"), (path, ours, theirs)
            kinds.add((ours.bind, ours.visibility, ours.shndx == tables.SHN_UNDEF))
        assert ours_relocs == theirs_relocs and sum(map(len, ours_relocs.values())) > 0, path
    # The objects hold locals, globals, imports, and hidden and protected definitions.
    assert {b for b, _, _ in kinds} >= {0, 1} and {v for _, v, _ in kinds} >= {0, 3}
    assert {u for _, _, u in kinds} == {True, False}


def test_the_object_read_through_the_tables_counts_what_it_holds(objects):
    lib = elfinfo.read(objects[0])
    assert {"exported", "exported_counter", "protected_one"} <= lib.defines
    assert "hidden_two" not in lib.defines and "imported_counter" in lib.wants
    assert lib.relocations["relative"] > 0 and lib.relocations["glob_dat"] > 0
    # A protected or hidden target binds locally: only the imported and the default ones are looked up.
    assert lib.lookups.now >= 2
    packed = elfinfo.read(objects[1])
    assert packed.relocations["relr"] > 0 and packed.relocations["relative"] < lib.relocations["relative"]


@pytest.mark.parametrize("elf_class, little", [(32, True), (32, False), (64, True), (64, False)])
def test_each_class_and_byte_order_is_unpacked_as_the_specification_lays_it_out(elf_class, little):
    order = "<" if little else ">"
    strings = b"\0alpha\0beta\0"
    # (st_name, bind << 4 | type, other, shndx): a global import, a protected weak definition.
    entries = [(1, 0x10, 0, 0), (7, 0x22, 3, 12)]
    if elf_class == 64:
        data = b"".join(struct.pack(order + "IBBHQQ", n, i, o, s, 0x1000, 8) for n, i, o, s in entries)
        entsize = 24
    else:
        data = b"".join(struct.pack(order + "IIIBBH", n, 0x1000, 8, i, o, s) for n, i, o, s in entries)
        entsize = 16
    read = tables.symbols(data, strings, entsize, elf_class, little)
    assert read == [tables.Symbol("alpha", 1, 0, 0), tables.Symbol("beta", 2, 3, 12)]
    # A wider entry than the layout (sh_entsize says so): the rest of each entry is skipped.
    padded = b"".join(data[i:i + entsize] + b"\xff" * 8 for i in range(0, len(data), entsize))
    assert tables.symbols(padded, strings, entsize + 8, elf_class, little) == read
    with pytest.raises(ValueError):
        tables.symbols(data, strings, entsize - 1, elf_class, little)

    if elf_class == 64:
        rela = struct.pack(order + "QQq", 0x2000, (5 << 32) | 7, -4)
        rel = struct.pack(order + "QQ", 0x3000, (6 << 32) | 8)
    else:
        rela = struct.pack(order + "IIi", 0x2000, (5 << 8) | 7, -4)
        rel = struct.pack(order + "II", 0x3000, (6 << 8) | 8)
    assert tables.relocations(rela, True, elf_class, little) == [tables.Relocation(0x2000, 5, 7)]
    assert tables.relocations(rel, False, elf_class, little) == [tables.Relocation(0x3000, 6, 8)]


def test_a_name_without_its_nul_ends_at_the_table_and_bad_bytes_are_replaced():
    strings = b"\0ok\0tail-without-nul\xff"
    data = struct.pack("<IBBHQQ", 4, 0x10, 0, 0, 0, 0) + struct.pack("<IBBHQQ", 1, 0x10, 0, 0, 0, 0)
    names = [s.name for s in tables.symbols(data, strings, 24, 64, True)]
    assert names == ["tail-without-nul\ufffd", "ok"]


def test_a_table_cut_short_by_the_end_of_the_file_is_refused_in_words(objects, tmp_path):
    whole = objects[0].read_bytes()
    with open(objects[0], "rb") as f:
        elf = ELFFile(f)
        dynsym = elf.get_section_by_name(".dynsym")
        end = dynsym["sh_offset"] + dynsym["sh_size"]
    # Keep the headers where they are readable, cut inside the symbol table: not a short list.
    cut = tmp_path / "cut.so"
    cut.write_bytes(whole[:end - 8])
    with pytest.raises(elfinfo.LayertaxError) as refused:
        elfinfo.read(cut)
    assert "malformed ELF file" in str(refused.value)
