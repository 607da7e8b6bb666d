"""Names the PLT stubs callgrind leaves nameless.

A call from one shared library to a function it exports itself (CPython's path_converter to
PyUnicode_FSConverter, _PyEval_Vector to _PyEval_EvalFrameDefault) goes through the
library's procedure linkage table when the library is built with semantic interposition, as
a default build is. valgrind knows a library's `.plt`, but not its `.plt.got` (the stubs of
functions whose address is also taken), and there callgrind names the stub by its address in
no object: "0x0000000004936758 [???]". The counted run asks valgrind where it mapped each
object (valgrind_log.biases); an address that falls in one of an object's PLT sections is that
object's stub, named as objdump names it, "PyUnicode_FSConverter@plt", from the GOT slot its
jump reads and the relocation that fills the slot. An address in no PLT section keeps its name:
it is not a stub, or not one this can show.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection

from layertax.engine.measure import callgrind

PLT_SECTIONS = (".plt", ".plt.got", ".plt.sec")
_NAMELESS = re.compile(r"0x([0-9a-fA-F]+)('\d+)?")     # callgrind's name for code without a symbol ('2: recursion)
UNKNOWN_OBJECT = "???"
# x86-64: endbr64, then an optional bnd prefix, then jmp *disp32(%rip): every PLT entry but the first
# of a lazy .plt starts so (with or without IBT).
_ENDBR64 = bytes.fromhex("f30f1efa")
_JMP_RIP = bytes.fromhex("ff25")
_PUSH_RIP = bytes.fromhex("ff35")       # the first entry of .plt: the lazy-binding resolver's


@dataclass(frozen=True)
class _Plt:
    name: str
    start: int          # the section's address in the file
    entry: int          # bytes per stub
    data: bytes


@functools.lru_cache(maxsize=64)
def _tables(path: str) -> tuple[tuple[_Plt, ...], dict[int, str]]:
    """An object's PLT sections, and the symbol of each GOT slot a relocation fills (slot address -> name)."""
    try:
        with open(path, "rb") as f:
            elf = ELFFile(f)
            if elf["e_machine"] != "EM_X86_64":
                return (), {}
            plts = []
            for name in PLT_SECTIONS:
                sec = elf.get_section_by_name(name)
                if sec is not None and sec["sh_size"] and sec["sh_size"] <= 1 << 24:
                    plts.append(_Plt(name, sec["sh_addr"], sec["sh_entsize"] or 16, sec.data()))
            slots = {}
            for sec in elf.iter_sections():
                if isinstance(sec, RelocationSection) and sec.name in (".rela.plt", ".rela.dyn"):
                    symbols = elf.get_section(sec["sh_link"])
                    for rel in sec.iter_relocations():
                        if rel["r_info_sym"]:
                            slots[rel["r_offset"]] = symbols.get_symbol(rel["r_info_sym"]).name
            return tuple(plts), slots
    except (OSError, ELFError, ValueError, KeyError, AttributeError):
        return (), {}


def _stub_name(plt: _Plt, at: int, slots: dict[int, str]) -> str:
    """The stub holding file address `at`: "symbol@plt", or its place where its jump cannot be read."""
    entry = plt.start + (at - plt.start) // plt.entry * plt.entry
    code = plt.data[entry - plt.start:entry - plt.start + plt.entry]
    pos = len(_ENDBR64) if code.startswith(_ENDBR64) else 0
    pos += code[pos:pos + 1] == b"\xf2"            # bnd
    if code[pos:pos + 2] == _PUSH_RIP and plt.name == ".plt" and entry == plt.start:
        return "the lazy-binding resolver's PLT entry"
    if code[pos:pos + 2] == _JMP_RIP and len(code) >= pos + 6:
        slot = entry + pos + 6 + int.from_bytes(code[pos + 2:pos + 6], "little", signed=True)
        if slots.get(slot):
            return f"{slots[slot]}@plt"
    return f"PLT stub at {entry:#x} ({plt.name})"


def stub(address: int, mapped: dict[str, int]) -> tuple[str, str] | None:
    """(object, name) of the PLT stub at a run-time address, or None where it is in no object's PLT."""
    for path, bias in mapped.items():
        plts, slots = _tables(path)
        at = address - bias
        for plt in plts:
            if plt.start <= at < plt.start + len(plt.data):
                return Path(path).name, _stub_name(plt, at, slots)
    return None


def named(profile: callgrind.Profile, mapped: dict[str, int]) -> callgrind.Profile:
    """The profile with each nameless function callgrind placed in no object renamed as the PLT
    stub it is (object and "symbol@plt"); every other function as it was."""
    renames: dict[callgrind.Func, callgrind.Func] = {}
    for fn in set(profile.self_cost) | {f for arc in profile.calls for f in arc}:
        found = _NAMELESS.fullmatch(fn[1]) if fn[0] == UNKNOWN_OBJECT else None
        if found and (where := stub(int(found.group(1), 16), mapped)):
            renames[fn] = (where[0], where[1] + (found.group(2) or ""))
    if not renames:
        return profile
    out = callgrind.Profile(total=profile.total)
    for table, into in ((profile.self_cost, out.self_cost), (profile.self_syscalls, out.self_syscalls)):
        for fn, n in table.items():
            into[renames.get(fn, fn)] += n
    for table, into in ((profile.calls, out.calls), (profile.call_counts, out.call_counts),
                        (profile.call_syscalls, out.call_syscalls)):
        for (a, b), n in table.items():
            into[(renames.get(a, a), renames.get(b, b))] += n
    return out
