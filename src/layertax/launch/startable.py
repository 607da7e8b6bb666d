"""Can this program start at all? The dynamic loader's own answer, asked before anything is
timed: a program whose library is missing exits 127 before main, and timing that failure as
start-up would print a figure for something that never started."""
from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile


def interpreter(path: Path) -> str | None:
    """The PT_INTERP of an ELF file (None: not dynamic, or not a readable ELF file)."""
    try:
        with open(path, "rb") as f:
            if f.read(4) != b"\x7fELF":
                return None
            f.seek(0)
            for seg in ELFFile(f).iter_segments():
                if seg["p_type"] == "PT_INTERP":
                    return seg.get_interp_name()
    except (OSError, ELFError, ValueError, KeyError, TypeError, AttributeError, AssertionError):
        return None
    return None


def not_timeable(path: Path) -> str | None:
    """Why layertax cannot time the start-up of the program at path as it is, or None.

    A link under /proc (/proc/self/exe) names a different program in each process that opens
    it: layertax would read one program and launch another. A program that is setuid or
    setgid to someone else starts in secure-execution mode (AT_SECURE): the loader ignores
    LD_PRELOAD, LD_DEBUG and LD_BIND_NOW for it, so neither the stamp at main nor the
    loader's own view can be had, and it would run with another user's rights."""
    text = str(path)
    if text == "/proc" or text.startswith("/proc/"):
        real = os.path.realpath(path)
        return (f"a link under /proc names a different program in each process that opens it; give the program's "
                f"own path{f' ({real})' if not real.startswith('/proc') else ''}")
    try:
        st = os.stat(path)
    except OSError:
        return None
    if (st.st_mode & stat.S_ISUID and st.st_uid != os.geteuid()) or (st.st_mode & stat.S_ISGID and st.st_gid != os.getegid()):
        who = "setuid" if st.st_mode & stat.S_ISUID and st.st_uid != os.geteuid() else "setgid"
        return (f"{who} to another user, so it starts in secure-execution mode: the loader ignores LD_PRELOAD and "
                "LD_DEBUG for it, and it runs with that user's rights; time a copy without the bit "
                f"(cp {path} ./copy) instead")
    return None


def loader_complaint(path: Path, interp: str | None = None, env: dict[str, str] | None = None) -> str | None:
    """What glibc's loader says is missing for path (e.g. "libf.so => not found"), or None.

    Only asked of a program that glibc's ld.so loads: with LD_TRACE_LOADED_OBJECTS set, ld.so
    lists the objects and exits before any of the program's code runs (a static program would
    ignore the variable and run, so it is never asked). interp: its PT_INTERP, if the caller
    has already read it."""
    interp = interp or interpreter(path)
    if interp is None or "ld-linux" not in Path(interp).name:
        return None
    try:
        done = subprocess.run([str(Path(path).absolute())], env={**(env or os.environ), "LD_TRACE_LOADED_OBJECTS": "1"},
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace", timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = done.stdout + done.stderr
    missing = [line.strip() for line in text.splitlines() if "not found" in line or "error while loading" in line]
    if missing:
        return "; ".join(missing[:3]) + (f" (and {len(missing) - 3} more)" if len(missing) > 3 else "")
    if done.returncode != 0:
        return (text.strip().splitlines() or [f"exit status {done.returncode}"])[-1][:200]
    return None
