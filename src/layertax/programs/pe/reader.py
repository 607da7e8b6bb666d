"""Reading PE files with pefile, whole: its import and export limits raised to our largest
shape (by default it stops at 0x2000 symbols without an error), and the two lookups the
binder and the verifier share."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pefile

from layertax.errors import LayertaxError
from layertax.programs.pe.generate import MAX_PE_FUNCTIONS

BOUND_IMPORT = pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_BOUND_IMPORT"]
BASERELOC = pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_BASERELOC"]
DYNAMIC_BASE = pefile.DLL_CHARACTERISTICS["IMAGE_DLLCHARACTERISTICS_DYNAMIC_BASE"]
REL_BASED_DIR64 = pefile.RELOCATION_TYPE["IMAGE_REL_BASED_DIR64"]
BOUND_STAMP = 0xFFFFFFFF   # an import descriptor's TimeDateStamp once bound ("see the bound directory")


# pefile reads these module globals at parse time; raised once, for every parse.
pefile.MAX_IMPORT_SYMBOLS = max(pefile.MAX_IMPORT_SYMBOLS, MAX_PE_FUNCTIONS + 1024)
pefile.MAX_SYMBOL_EXPORT_COUNT = max(pefile.MAX_SYMBOL_EXPORT_COUNT, 65536)


def parse(data: bytes, what: str) -> pefile.PE:
    try:
        return pefile.PE(data=data, fast_load=False)
    except pefile.PEFormatError as e:
        raise LayertaxError(f"{what}: not a PE file ({e})") from None


def read(path: Path) -> pefile.PE:
    return parse(Path(path).read_bytes(), str(path))


def exports(dll: pefile.PE) -> tuple[dict[bytes, int], dict[int, int]]:
    """The DLL's exports: RVA by name, RVA by ordinal."""
    symbols = getattr(dll, "DIRECTORY_ENTRY_EXPORT", None)
    symbols = symbols.symbols if symbols else []
    return ({s.name: s.address for s in symbols if s.name}, {s.ordinal: s.address for s in symbols})


@dataclass(frozen=True)
class Slot:
    """One import: what it names and where its IAT slot is."""
    name: bytes | None
    ordinal: int | None
    iat_rva: int
    ilt_value: int     # what the import lookup table holds for it (the IAT's value before binding)


def slots(pe: pefile.PE, desc) -> list[Slot]:
    base = pe.OPTIONAL_HEADER.ImageBase
    ilt = desc.struct.OriginalFirstThunk
    return [Slot(imp.name, imp.ordinal if imp.import_by_ordinal else None, imp.address - base,
                 pe.get_qword_at_rva(ilt + 8 * i) if ilt else 0) for i, imp in enumerate(desc.imports)]


def target(slot: Slot, by_name: dict[bytes, int], by_ordinal: dict[int, int]) -> int | None:
    """The export RVA an import resolves to, None if the DLL has no such export."""
    return by_ordinal.get(slot.ordinal) if slot.ordinal is not None else by_name.get(slot.name)
