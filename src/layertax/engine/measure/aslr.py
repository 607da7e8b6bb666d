"""Address-space layout randomisation off for one child, where the kernel allows it.

Instruction counts are meant to repeat exactly. With ASLR on, where the heap
and the mappings land varies per run, and some runtimes' allocators do a
different amount of work for it (Go's page allocator grows its heap a
different number of times). personality(ADDR_NO_RANDOMIZE) in the child,
between fork and exec, fixes the layout for that child only, as `setarch -R`
does; it needs no privilege, but some container sandboxes forbid it.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools

ADDR_NO_RANDOMIZE = 0x0040000
QUERY = 0xFFFFFFFF


@functools.cache
def _personality():
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    fn = libc.personality
    fn.argtypes, fn.restype = [ctypes.c_ulong], ctypes.c_int
    return fn


@functools.cache
def can_disable() -> bool:
    """Whether this process may turn ASLR off (it is turned back on at once)."""
    try:
        personality = _personality()
    except (OSError, AttributeError):
        return False
    current = personality(QUERY)
    if current == -1:
        return False
    if personality(current | ADDR_NO_RANDOMIZE) == -1:
        return False
    allowed = personality(QUERY) & ADDR_NO_RANDOMIZE != 0
    personality(current)
    return allowed


def preexec_without_aslr():
    """A preexec function turning ASLR off in the child; None where that is not allowed."""
    if not can_disable():
        return None
    personality = _personality()   # loaded before fork: the child only makes the call

    def preexec() -> None:
        current = personality(QUERY)
        if current != -1:
            personality(current | ADDR_NO_RANDOMIZE)
    return preexec
