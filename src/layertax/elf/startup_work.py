"""What "ld.so: start-up work any program pays" is on this glibc: the loader's work for an empty
dynamic program, by the function of ld.so that does it, counted under callgrind (instructions,
not time: a CPUID that a hypervisor traps is one instruction and many microseconds).

Each function is named with the glibc source that defines it and what it does there, so the
split's largest unexplained stage is shown, not guessed; which of it a user can change is said
where glibc lets them."""
from __future__ import annotations

import subprocess

from layertax import files
from layertax.engine.builder import toolchain
from layertax.engine.measure import callgrind
from layertax.scratch import private_dir

# ld.so's own entry and driver: their callees are the work.
ENTRIES = ("_dl_start", "_dl_start_final", "_dl_sysdep_start", "dl_main")
# What each function does, from glibc's source (2.36), and what a user can change of it.
WHAT = {
    "_dl_relocate_object": ("elf/dl-reloc.c", "relocating libc and ld.so themselves, IRELATIVE (ifunc) "
                            "resolvers included", "nothing in a program's control; the program's own "
                            "relocations are the split's 'relocation + lookups'"),
    "__GI___tunables_init": ("elf/dl-tunables.c", "walking the environment for GLIBC_TUNABLES", "the size of the "
                             "environment the program is started with"),
    "__tunables_init": ("elf/dl-tunables.c", "walking the environment for GLIBC_TUNABLES", "the size of the "
                        "environment the program is started with"),
    "_dl_map_object_deps": ("elf/dl-deps.c", "finding and mapping libc (and any preload)", "fewer libraries"),
    "_dl_x86_init_cpu_features": ("sysdeps/x86/cpu-features.c", "CPU feature detection (CPUID), which picks "
                                  "the string functions' variants", "nothing; under a hypervisor each CPUID "
                                  "is a trap, so its time is far above its instructions"),
    "_dl_receive_error": ("elf/rtld.c", "checking every object's required symbol versions (dl_main calls "
                          "version_check_doit through it)", "nothing"),
    "_dl_init_paths": ("elf/dl-load.c", "building the library search path (LD_LIBRARY_PATH, hwcaps "
                       "subdirectories)", "LD_LIBRARY_PATH: each entry is searched"),
    "handle_preload_list": ("elf/rtld.c", "loading LD_PRELOAD objects", "LD_PRELOAD (here: layertax's stamp)"),
    "__rtld_malloc_init_real": ("elf/dl-minimal.c", "switching ld.so to libc's malloc", "nothing"),
    "_dl_call_libc_early_init": ("elf/libc_early_init.c", "libc's early initialisation", "nothing"),
    "init_tls": ("elf/rtld.c", "setting up thread-local storage", "fewer TLS-using libraries"),
}
TOP = 8


def available() -> bool:
    return toolchain.available("valgrind")


def by_function(program: str, timeout: float = 60) -> dict:
    """The loader's instructions for program (an empty dynamic one), by function of ld.so."""
    with private_dir("startup-work") as tmp:
        out = tmp / "callgrind.out"
        subprocess.run([toolchain.find("valgrind").path, "--tool=callgrind", f"--callgrind-out-file={out}", program],
                       capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL, cwd=tmp)
        if not out.is_file():
            raise RuntimeError("callgrind wrote nothing")
        profile = callgrind.parse(files.read_text(out, "callgrind profile", limit=1 << 28))
    return summarise(profile)


def summarise(profile: callgrind.Profile) -> dict:
    """The entry's inclusive instructions and its callees', largest first (each function once)."""
    functions = profile.self_cost.keys() | {callee for _, callee in profile.calls}
    total = max((profile.inclusive(f) for f in functions if f[1] == "_dl_start"), default=0)
    work: dict[str, int] = {}
    for (caller, callee), n in profile.calls.items():
        if caller[1] in ENTRIES and callee[1] not in ENTRIES and "ld-linux" in callee[0] + caller[0]:
            work[callee[1]] = work.get(callee[1], 0) + n
    rows = []
    for name, n in sorted(work.items(), key=lambda kv: -kv[1])[:TOP]:
        source, what, change = WHAT.get(name, (None, None, None))
        rows.append({"function": name, "instructions": n, "share": n / total if total else None,
                     "source": source, "what": what, "change": change})
    return {"loader_instructions": total, "functions": rows}
