"""Binds an EXE to its DLLs, as BIND.EXE did: no open tool writes a bound import directory
(pefile only reads one; Wine's BindImageEx is a stub), so this does it over pefile.

For every DLL of ours the EXE imports (found beside it): each IAT slot gets the DLL's
preferred base + the export's RVA; the import descriptor's TimeDateStamp and ForwarderChain
become 0xFFFFFFFF ("bound, see the bound import directory"); an
IMAGE_BOUND_IMPORT_DESCRIPTOR {TimeDateStamp of the DLL, offset of its name, 0 forwarders}
per DLL and their names go into the header slack (the EXE is linked with a file alignment
that leaves room), data directory 11 points at them, and the checksum is recomputed.
System DLLs (kernel32) stay unbound: the loader resolves a descriptor with stamp 0 as usual.

Every change is a byte edit at an offset pefile reports, on a copy of the file: pefile's
write() re-packs its cached structures over byte edits, so it is never called.
"""
from __future__ import annotations

import struct
from pathlib import Path

from layertax import files
from layertax.errors import LayertaxError
from layertax.programs.pe import reader

DESCRIPTOR = struct.Struct("<IHH")   # IMAGE_BOUND_IMPORT_DESCRIPTOR


def bound_directory(entries: list[tuple[str, int]]) -> bytes:
    """The bound import directory for (dll name, its timestamp) pairs: descriptors, a zero
    descriptor, then the names, each offset counted from the directory's start."""
    names_at = DESCRIPTOR.size * (len(entries) + 1)
    head, names = b"", b""
    for name, stamp in entries:
        head += DESCRIPTOR.pack(stamp, names_at + len(names), 0)
        names += name.encode("ascii") + b"\0"
    return head + DESCRIPTOR.pack(0, 0, 0) + names


def header_room(pe) -> tuple[int, int]:
    """(offset, bytes) free between the end of the section table and the first section's data."""
    table = pe.sections[-1].get_file_offset() + 40 if pe.sections else pe.OPTIONAL_HEADER.get_file_offset()
    start = (table + 7) & ~7
    first_data = min([s.PointerToRawData for s in pe.sections if s.SizeOfRawData] + [pe.OPTIONAL_HEADER.SizeOfHeaders])
    return start, max(0, first_data - start)


def _put(data: bytearray, structure, field: str, fmt: str, value: int) -> None:
    struct.pack_into(fmt, data, structure.get_field_absolute_offset(field), value)


def bind(exe: Path, dll_dir: Path, stale: bool = False) -> list[str]:
    """Binds exe (in place) to the DLLs in dll_dir; returns the DLLs bound. stale: every IAT
    slot gets another import's address (rotated by one) with the right timestamps, the probe
    that tells whether a loader trusts bindings."""
    data = bytearray(Path(exe).read_bytes())
    pe = reader.parse(bytes(data), str(exe))
    entries: list[tuple[str, int]] = []
    fills: list[tuple[int, int]] = []          # (IAT rva, value)
    for desc in getattr(pe, "DIRECTORY_ENTRY_IMPORT", []):
        name = desc.dll.decode("ascii")
        path = Path(dll_dir) / name
        if not path.is_file():
            continue                           # a system DLL: not ours to bind
        dll = reader.read(path)
        by_name, by_ordinal = reader.exports(dll)
        base = dll.OPTIONAL_HEADER.ImageBase
        for slot in reader.slots(pe, desc):
            rva = reader.target(slot, by_name, by_ordinal)
            if rva is None:
                raise LayertaxError(f"bind {exe}: {name} has no export {slot.name or slot.ordinal}")
            fills.append((slot.iat_rva, base + rva))
        _put(data, desc.struct, "TimeDateStamp", "<I", reader.BOUND_STAMP)
        _put(data, desc.struct, "ForwarderChain", "<I", reader.BOUND_STAMP)
        entries.append((name, dll.FILE_HEADER.TimeDateStamp))
    if not entries:
        raise LayertaxError(f"bind {exe}: none of its DLLs is in {dll_dir}")
    values = [v for _, v in fills]
    if stale:
        values = values[1:] + values[:1] if len(values) > 1 else [values[0] + 0x1000]
    for (rva, _), value in zip(fills, values):
        struct.pack_into("<Q", data, pe.get_offset_from_rva(rva), value)
    directory = bound_directory(entries)
    at, room = header_room(pe)
    if len(directory) > room:
        raise LayertaxError(f"bind {exe}: the bound import directory needs {len(directory)} bytes and the headers "
                            f"have {room} free (link with a larger --file-alignment)")
    data[at:at + len(directory)] = directory
    entry = pe.OPTIONAL_HEADER.DATA_DIRECTORY[reader.BOUND_IMPORT]
    _put(data, entry, "VirtualAddress", "<I", at)       # in the headers an RVA is the file offset
    _put(data, entry, "Size", "<I", len(directory))
    checksum = reader.parse(bytes(data), str(exe)).generate_checksum()
    _put(data, pe.OPTIONAL_HEADER, "CheckSum", "<I", checksum)
    files.write_bytes(bytes(data), Path(exe))
    return [name for name, _ in entries]
