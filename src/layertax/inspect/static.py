"""The static picture: every object the loader will load, and what each asks of it.

Nothing is executed (the system loader is asked only for its search
directories). Counts are summed over every object the loader maps, because
that is what it works through; the counts the cost model uses are the same
sums (relative relocations, lookups, libraries).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from layertax.elf import elfinfo, libpath
from layertax.errors import LayertaxError


@dataclass
class StaticPicture:
    program: elfinfo.ElfObject
    objects: list[dict] = field(default_factory=list)   # one row per loaded object, load order
    problems: list[str] = field(default_factory=list)   # libraries not found or unreadable
    unused: list[dict] = field(default_factory=list)    # DT_NEEDED entries whose symbols nobody uses

    @property
    def dynamic(self) -> bool:
        return self.program.interp is not None

    def counts(self, bind_now: bool = False) -> dict[str, int]:
        """The cost model's regressors for this object set."""
        rows = [o for o in self.objects if o.get("elf")]
        mode = "now" if bind_now else "lazy"
        return {
            "relative_relocations": sum(o["elf"]["relocations"]["relative"] + o["elf"]["relocations"]["relr"]
                                        for o in rows),
            "symbol_lookups": sum(o["elf"]["lookups"][mode] for o in rows),
            "sysv_probes": sum(o["elf"]["lookups"].get(f"sysv_probes_{mode}", 0) for o in rows),
            "libraries": sum(1 for o in rows if o["found_by"] != "program"),
        }

    def without(self, paths: tuple[str, ...]) -> "StaticPicture":
        """The same picture without some objects (layertax's own stamp libraries, for the user's view)."""
        return StaticPicture(self.program, [o for o in self.objects if o["path"] not in paths], list(self.problems),
                             [u for u in self.unused if u["path"] not in paths])

    def to_dict(self) -> dict:
        return {"program": self.program.to_dict(), "objects": self.objects, "problems": self.problems,
                "unused": self.unused, "dynamic": self.dynamic}


def host_machine() -> tuple[int, str]:
    m = os.uname().machine
    return (64 if m in ("x86_64", "aarch64", "ppc64le", "ppc64", "s390x", "riscv64") else 32,
            {"ppc64le": "ppc64", "riscv64": "riscv"}.get(m, m))


def runnable_here(program: elfinfo.ElfObject) -> str | None:
    """Why this machine cannot run the program under layertax's stamps (None: it can); what is
    not a program at all is not_a_program's to say."""
    cls, machine = host_machine()
    if (program.machine, machine) in (("i386", "x86_64"), ("arm", "aarch64")):
        return (f"a 32-bit ({program.machine}) program on a 64-bit machine: layertax's stamp library is 64-bit, "
                "so start-up cannot be measured with it")
    if program.machine != machine:
        return f"an ELF for {program.machine}, and this machine is {machine}: it cannot run here"
    if program.elf_class != cls:
        return (f"a {program.elf_class}-bit program on a {cls}-bit machine: layertax's stamp library is "
                f"{cls}-bit, so start-up cannot be measured with it")
    return None


def not_a_program(program: elfinfo.ElfObject) -> str | None:
    """Why this ELF file is not a program at all, whatever the machine (None: it is one)."""
    kinds = {"ET_REL": "an object file (ET_REL), not a program: link it into one first",
             "ET_CORE": "a core dump (ET_CORE), not a program"}
    if program.type in kinds:
        return kinds[program.type]
    if program.type not in ("ET_EXEC", "ET_DYN"):
        return f"not a program ({program.type})"
    if (program.type == "ET_DYN" and not program.pie and program.interp is None
            and (program.entry == 0 or program.soname)):
        return "a shared library without an entry point, not a program (inspect a program that loads it)"
    return None


def picture(path: Path, env: dict[str, str] | None = None, preload: list[str] | None = None,
            program: elfinfo.ElfObject | None = None) -> StaticPicture:
    """program: the object already read from path, if the caller has it."""
    program = program or elfinfo.read(path)
    pic = StaticPicture(program)
    if program.interp is None and not program.needed:
        pic.objects.append(_row(libpath.Resolved(str(path), str(path), "program", None, 0), program))
        return pic

    def read(p: Path) -> elfinfo.ElfObject | None:
        # A library that cannot be read is a hole in the tree (reported), not the end of the analysis.
        try:
            return elfinfo.read(p)
        except LayertaxError as e:
            pic.problems.append(str(e))
            return None

    resolved = []
    try:
        f = libpath.facts(program.interp) if program.interp else None
        resolved = libpath.resolve(program, read, env, preload, f)
    except LayertaxError as e:
        pic.problems.append(str(e))
    elfinfo.scope_probes([obj for _, obj in resolved if obj is not None])
    for r, obj in resolved:
        pic.objects.append(_row(r, obj))
        if r.path is None:
            pic.problems.append(f"{r.name}: not found (needed by {r.needed_by})")
    pic.unused = _unused(resolved)
    return pic


def _row(r: libpath.Resolved, obj: elfinfo.ElfObject | None) -> dict:
    if obj is not None and r.found_by == "interpreter":
        # ld.so relocates itself (its second pass, in dl_main) without lazy binding,
        # whatever the program asks for.
        obj.lookups.lazy, obj.lookups.cache_lazy = obj.lookups.now, obj.lookups.cache_now
        obj.lookups.sysv_probes_lazy = obj.lookups.sysv_probes_now
    return {"name": r.name, "path": r.path, "found_by": r.found_by, "needed_by": r.needed_by, "depth": r.depth,
            "elf": obj.to_dict() if obj is not None else None}


def _unused(resolved: list) -> list[dict]:
    """Libraries named in DT_NEEDED by objects that use none of their symbols (like `ldd -u -r`).

    A library is removable if no object that names it uses it; it may still be
    wanted for its constructors (say so, do not decide).
    """
    objs = [(r, o) for r, o in resolved if o is not None]
    by_name: dict[str, tuple] = {}
    for r, o in objs:
        by_name[r.name] = (r, o)
        if o.soname:
            by_name.setdefault(o.soname, (r, o))
    users: dict[str, list[str]] = {}
    namers: dict[str, list[str]] = {}
    for r, o in objs:
        for name in o.needed:
            if name not in by_name:
                continue
            lr, lib = by_name[name]
            namers.setdefault(lr.path, []).append(r.path)
            if (o.wants & lib.defines) or (lib.soname and lib.soname in o.version_files) or name in o.version_files:
                users.setdefault(lr.path, []).append(r.path)
    out = []
    for path, who in namers.items():
        if path not in users:
            lr, lib = next((x for x in by_name.values() if x[0].path == path))
            out.append({"path": path, "name": lr.name, "named_by": sorted(set(who)),
                        "relocations": lib.relocations, "lookups_lazy": lib.lookups.lazy,
                        "init_functions": sum(lib.init.values())})
    return out
