"""The PE variants of the load-time program: Pietrek's by-name/by-ordinal x collide/based/bound,
the stale-bound probe, and the empty control."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PeVariant:
    name: str
    what: str
    imports: str = "name"        # name | ordinal: how the EXE imports (ordinal DLLs export NONAME)
    bases: str = "collide"       # collide: every DLL at one base | based: a base each
    bound: bool = False          # the EXE's IAT pre-filled and a bound import directory written
    stale: bool = False          # bound with wrong addresses (and the right timestamps)

    def dll_set(self) -> str:
        return f"{self.imports}-{self.bases}"

    def program(self) -> str:
        return f"out/{self.name}/prog.exe"


VARIANTS: tuple[PeVariant, ...] = (
    PeVariant("name-collide", "every DLL at one preferred base (all but the first relocated); imports by name"),
    PeVariant("name-based", "a distinct preferred base per DLL (none relocated); imports by name", bases="based"),
    PeVariant("name-bound", "based, and the EXE bound: import addresses pre-filled, checked by timestamp",
              bases="based", bound=True),
    PeVariant("ordinal-collide", "every DLL at one base; imports by ordinal (NONAME exports)", imports="ordinal"),
    PeVariant("ordinal-based", "a base per DLL; imports by ordinal", imports="ordinal", bases="based"),
    PeVariant("ordinal-bound", "based and bound; imports by ordinal", imports="ordinal", bases="based", bound=True),
    PeVariant("stale-bound", "the probe: bound with wrong addresses but matching timestamps; runs right only "
              "on a loader that ignores bindings", bases="based", bound=True, stale=True),
)
EMPTY = PeVariant("empty", "the same stamp and exit with no DLLs of ours (the control)")
NAMES = tuple(v.name for v in VARIANTS)
DLL_SETS = ("name-collide", "name-based", "ordinal-collide", "ordinal-based")
