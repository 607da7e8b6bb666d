"""Reads every produced PE file back and proves what each variant claims to be, so that a
variant that is not what it says is never timed: a linker flag that silently did nothing
(GNU ld dropping .reloc, a default turning ASLR back on) or a binder bug would otherwise be
measured and published as Pietrek's figure."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from layertax.programs.generate import Shape
from layertax.programs.pe import generate, reader, variants
from layertax.programs.pe.variants import PeVariant


@dataclass(frozen=True)
class Claim:
    claim: str
    ok: bool
    detail: str

    def to_dict(self) -> dict:
        return asdict(self)


def _dir64_count(pe) -> int:
    return sum(1 for block in getattr(pe, "DIRECTORY_ENTRY_BASERELOC", [])
               for entry in block.entries if entry.type == reader.REL_BASED_DIR64)


def _bases(shape: Shape, v: PeVariant, exe, dlls: dict[str, object]) -> Claim:
    spans = sorted((d.OPTIONAL_HEADER.ImageBase, d.OPTIONAL_HEADER.ImageBase + d.OPTIONAL_HEADER.SizeOfImage, n)
                   for n, d in dlls.items())
    bases = {s[0] for s in spans}
    if v.bases == "collide":
        ok = bases == {generate.DLL_BASE}
        return Claim("every DLL prefers one base", ok, f"{len(spans)} DLLs at {', '.join(f'{b:#x}' for b in sorted(bases))}")
    exe_span = (exe.OPTIONAL_HEADER.ImageBase, exe.OPTIONAL_HEADER.ImageBase + exe.OPTIONAL_HEADER.SizeOfImage, "EXE")
    every = sorted([*spans, exe_span])
    overlaps = [f"{a[2]} and {b[2]}" for a, b in zip(every, every[1:]) if a[1] > b[0]]
    return Claim("every DLL has a base of its own, no two images overlap", not overlaps and len(bases) == len(spans),
                 f"{len(bases)} bases {min(bases):#x}..{max(bases):#x}" + (f"; overlapping: {overlaps[0]}" if overlaps else ""))


def _no_aslr(exe, dlls: dict[str, object]) -> Claim:
    on = [n for n, p in [("EXE", exe), *dlls.items()] if p.OPTIONAL_HEADER.DllCharacteristics & reader.DYNAMIC_BASE]
    return Claim("DYNAMIC_BASE off in every image", not on, f"on in {', '.join(on)}" if on else f"off in {len(dlls) + 1} image{'s' if dlls else ''}")


def _relocations(shape: Shape, dlls: dict[str, object]) -> Claim:
    want = shape.exports * shape.relocs
    counts = {n: _dir64_count(d) for n, d in dlls.items()}
    wrong = {n: c for n, c in counts.items() if c != want}
    return Claim(f"{want} DIR64 base relocations per DLL (M x K)", not wrong,
                 f"wrong: {wrong}" if wrong else f"{want} in each of {len(dlls)} DLLs")


def _imports(shape: Shape, v: PeVariant, exe, dlls: dict[str, object]) -> tuple[Claim, dict]:
    ours = {d.dll.decode("ascii"): d for d in getattr(exe, "DIRECTORY_ENTRY_IMPORT", [])
            if d.dll.decode("ascii") in dlls}
    problems = []
    if set(ours) != set(dlls):
        problems.append(f"imports {sorted(ours)}, expected {sorted(dlls)}")
    for name, desc in ours.items():
        slots = reader.slots(exe, desc)
        if len(slots) != shape.exports:
            problems.append(f"{name}: {len(slots)} imports, expected {shape.exports}")
        if v.imports == "name" and any(s.ordinal is not None or not s.name for s in slots):
            problems.append(f"{name}: an import is not by name")
        if v.imports == "ordinal":
            if any(s.ordinal is None for s in slots):
                problems.append(f"{name}: an import is not by ordinal")
            if reader.exports(dlls[name])[0]:
                problems.append(f"{name}: exports names (NONAME expected)")
    how = "by name" if v.imports == "name" else "by ordinal, from DLLs exporting no names"
    return Claim(f"{shape.libs} x {shape.exports} imports {how}", not problems,
                 problems[0] if problems else f"{len(ours) * shape.exports} imports"), ours


def _binding(v: PeVariant, exe, dlls: dict[str, object], ours: dict) -> list[Claim]:
    entry = exe.OPTIONAL_HEADER.DATA_DIRECTORY[reader.BOUND_IMPORT]
    right, filled, total = 0, 0, 0
    for name, desc in ours.items():
        by_name, by_ordinal = reader.exports(dlls[name])
        base = dlls[name].OPTIONAL_HEADER.ImageBase
        for slot in reader.slots(exe, desc):
            value = exe.get_qword_at_rva(slot.iat_rva)
            rva = reader.target(slot, by_name, by_ordinal)
            total += 1
            right += rva is not None and value == base + rva
            filled += value != slot.ilt_value
    if not v.bound:
        return [Claim("not bound: no bound import directory, IAT as the linker left it",
                      entry.Size == 0 and filled == 0, f"directory size {entry.Size}, {filled} of {total} slots changed")]
    stamps = {b.name.decode("ascii"): b.struct.TimeDateStamp for b in getattr(exe, "DIRECTORY_ENTRY_BOUND_IMPORT", [])}
    mismatched = [n for n in ours if stamps.get(n) != dlls[n].FILE_HEADER.TimeDateStamp]
    marked = all(d.struct.TimeDateStamp == reader.BOUND_STAMP for d in ours.values())
    claims = [Claim("bound import directory names every DLL with its own timestamp; descriptors marked bound",
                    entry.Size > 0 and not mismatched and marked,
                    f"timestamps differ: {mismatched}" if mismatched else f"{len(stamps)} DLLs, stamps match"),
              Claim("checksum", exe.OPTIONAL_HEADER.CheckSum == exe.generate_checksum(),
                    f"{exe.OPTIONAL_HEADER.CheckSum:#x}")]
    if v.stale:
        claims.append(Claim("every pre-filled IAT slot holds a wrong address (the stale probe)", right == 0 and filled == total,
                            f"{right} of {total} slots right"))
    else:
        claims.append(Claim("every IAT slot pre-filled with DLL base + export RVA", right == total,
                            f"{right} of {total} slots right"))
    return claims


def verify_variant(shape: Shape, root: Path, v: PeVariant) -> list[Claim]:
    where = Path(root) / "out" / v.name
    exe = reader.read(where / "prog.exe")
    if v is variants.EMPTY:
        return [_no_aslr(exe, {})]
    dlls = {generate.dll_file(i): reader.read(where / generate.dll_file(i)) for i in range(shape.libs)}
    imports, ours = _imports(shape, v, exe, dlls)
    return [_bases(shape, v, exe, dlls), _no_aslr(exe, dlls), _relocations(shape, dlls), imports,
            *_binding(v, exe, dlls, ours)]


def verify(shape: Shape, root: Path) -> dict[str, list[Claim]]:
    """Every variant's claims, checked, by variant name."""
    return {v.name: verify_variant(shape, root, v) for v in (*variants.VARIANTS, variants.EMPTY)}


def failed(report: dict[str, list[Claim]]) -> list[str]:
    return [name for name, claims in report.items() if not all(c.ok for c in claims)]
