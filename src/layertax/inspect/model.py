"""The prediction: the loader's time from the static counts, and what each fix would save.

The model is the loadtime sweep's, refitted on the static counts only
(relative relocations, symbol lookups, libraries): page faults are measured,
not read from the files, and move with relocations anyway. The sweep is found
in the history (the newest complete one from this machine); without one, a
quick calibration sweep runs and is saved for next time.

The loader's time is predicted as the model's difference between the program
and the empty control (both with the same preload, which cancels out), and
compared with the measured difference of their spawn->first-constructor.

A sweep saved last week was measured on a machine that may run faster or slower
today (frequency, neighbours on a shared host): 15-25% in our runs. So one of
the sweep's own programs (the reference) runs in the same shuffled rounds as
the user's, and every slope is scaled by its measured / predicted loader time.
"""
from __future__ import annotations

import math
from pathlib import Path

from layertax import units
from layertax.errors import LayertaxError, UsageError
from layertax.programs import build
from layertax.experiments.loadtime.api import SWEEP_NAME
from layertax.elf import costmodel

CORE_REGRESSORS = ("relative_relocations", "symbol_lookups", "libraries")
# Priced only when the sweep had a SysV-hash variant (older saved sweeps did not);
# without it a SysV search is priced as a GNU one, and the prediction says so.
OPTIONAL_REGRESSORS = ("sysv_probes",)
STATIC_REGRESSORS = CORE_REGRESSORS + OPTIONAL_REGRESSORS


def saved_sweep(machine_id: str | None) -> tuple[dict, str] | None:
    """The newest complete loadtime sweep run on this machine: (document, path)."""
    from layertax.engine.store import history

    for row in history.runs(machine_id=machine_id):
        if SWEEP_NAME not in row["experiments"].split(",") or not row["complete"]:
            continue
        if machine_id and row["machine_id"] != machine_id:
            continue
        try:
            return history.load(row), row["path"]
        except Exception:  # noqa: BLE001 - a moved or damaged file: try the next one
            continue
    return None


def load_sweep(path: Path) -> dict:
    from layertax.engine.store import results

    doc = results.load(path)
    if not any(e.get("name") == SWEEP_NAME for e in doc.get("experiments", [])):
        raise UsageError(f"{path}: not a `layertax loadtime sweep` result")
    return doc


def fit(doc: dict, source: str) -> dict:
    exp = next(e for e in doc["experiments"] if e.get("name") == SWEEP_NAME)
    model = costmodel.fit(exp["points"], regressors=STATIC_REGRESSORS)
    model["source"] = source
    model["sweep_created"] = doc.get("created")
    model["sweep_machine"] = (doc.get("machine") or {}).get("machine_id")
    return model


def usable(model: dict) -> str | None:
    """Why the model cannot price a fix (None: it can)."""
    if model.get("status") != "ok":
        return model.get("reason") or model.get("status")
    missing = [r for r in CORE_REGRESSORS if not (model.get("coefficients") or {}).get(r)]
    if missing:
        return f"the sweep did not vary {', '.join(missing)}"
    return None


def slope(model: dict, term: str) -> float:
    return model["coefficients"][term]["ns_per_unit"]


# The program measured beside the user's to calibrate the model on the day: one of the
# quick calibration's own points (8 libraries x 10 relocations), linked by the linker that
# linked the user's program. The same counts start 15-30% faster from gold, lld or mold
# output than from GNU ld's (loadtime.md, inspect.md), for reasons the counts do not
# show, so the reference carries the linker's share as well as the machine's speed today.
REFERENCE_SHAPE = {"libs": 8, "relocs": 10}
REFERENCE_VARIANT = {"gold": "ld-gold", "lld": "ld-lld", "mold": "ld-mold"}


def reference_program(cache_root: Path, linker: str = "GNU ld") -> tuple[Path, str]:
    """Builds (or finds in the cache) the reference program: (path, its variant). Built by the
    same linker when that linker is installed, else by GNU ld. Raises LayertaxError."""
    for name in dict.fromkeys((REFERENCE_VARIANT.get(linker, "default"), "default")):
        program = build.build_program(REFERENCE_SHAPE, name, cache_root)
        if program is not None:
            return program, name
    raise LayertaxError("the reference program could not be built")


def scaled(model: dict, factor: float) -> dict:
    """The model with every slope multiplied by factor (the machine's speed today vs the sweep's)."""
    out = {**model, "coefficients": {k: (None if v is None else
                                         {**v, "ns_per_unit": v["ns_per_unit"] * factor,
                                          "ci95": [c * factor for c in v["ci95"]]})
                                     for k, v in (model.get("coefficients") or {}).items()},
           "calibration_factor": factor}
    return out


def priced(model: dict) -> tuple[str, ...]:
    """The regressors this model has a price for (every core one, if usable)."""
    coefs = model.get("coefficients") or {}
    return tuple(r for r in STATIC_REGRESSORS if coefs.get(r))


def predict_difference(model: dict, counts: dict, baseline: dict) -> float:
    return sum(slope(model, r) * (counts.get(r, 0) - baseline.get(r, 0)) for r in priced(model))


def fixes(pic, model: dict, loader_total_ns: float | None, lookups: int, bind_now_gain: dict | None,
          static_gain: float | None, ldso_ns: float | None = None) -> list[dict]:
    """What each fix would save, with how it was estimated. pic: static.StaticPicture. ldso_ns:
    the loader's measured stages of spawn->main; no estimate of a loader fix exceeds it (a
    fix cannot remove more than the stage it removes), and one that would is marked bounded."""
    rows = _estimates(pic, model, loader_total_ns, lookups, bind_now_gain, static_gain)
    for row in rows:
        if ldso_ns and row.get("kind") != "measured" and row["saves_ns"] > ldso_ns:
            row["how"] += f"; {row['saves_ns'] / 1e3:,.0f} us estimated, bounded by the loader's measured stages"
            row["saves_ns"], row["bounded"] = ldso_ns, True
    return rows


def _estimates(pic, model: dict, loader_total_ns: float | None, lookups: int, bind_now_gain: dict | None,
               static_gain: float | None) -> list[dict]:
    rows = []
    ns_lookup, ns_rel, ns_lib = slope(model, "symbol_lookups"), slope(model, "relative_relocations"), slope(model, "libraries")
    objs = [o for o in pic.objects if o.get("elf") and o["found_by"] not in ("program", "LD_PRELOAD")]
    # Lookups of a library's own symbols: -Bsymbolic or hidden visibility turns each
    # into a relative relocation (a lookup saved, a cheap add paid).
    own = sorted(((o["elf"]["lookups"]["self_bound"], o["name"]) for o in objs if o["elf"]["lookups"]["self_bound"]),
                 reverse=True)
    n_own = sum(n for n, _ in own)
    rows.append({"fix": "-Bsymbolic / -fvisibility=hidden", "saves_ns": n_own * (ns_lookup - ns_rel),
                 "what": f"{n_own:,} lookups of a library's own symbols bound at link time"
                         + (f" (most in {', '.join(name for _, name in own[:3])})" if own else ""),
                 "how": f"{n_own:,} x ({ns_lookup:.0f} - {ns_rel:.1f}) ns: the model's lookup minus relative relocation",
                 "caveat": "a symbol a program copies (COPY relocation) or that must stay interposable cannot be bound"})
    rela = sum(o["elf"]["relative_rela_bytes"] for o in pic.objects if o.get("elf") and not o["elf"]["relocations"]["relr"])
    relr = sum(o["elf"]["relative_as_relr_bytes"] for o in pic.objects if o.get("elf") and not o["elf"]["relocations"]["relr"])
    saved = max(rela - relr, 0)
    relative = sum(o["elf"]["relocations"].get("relative", 0) for o in pic.objects
                   if o.get("elf") and not o["elf"]["relocations"]["relr"])
    rows.append({"fix": "RELR (-z pack-relative-relocs)", "saves_ns": relative * ns_rel, "upper_bound": True,
                 "what": f"{saved:,} bytes of relocation table ({math.ceil(saved / 4096):,} pages) not read: "
                         f"{rela:,} B of REL(A) entries become {relr:,} B",
                 "how": f"at most the model's price of the {relative:,} relative relocations it packs "
                        f"({ns_rel:.2f} ns each): they are still applied, so the saving is the part of that "
                        "spent reading their entries, which is not measured here (a hypothesis)",
                 "caveat": "needs binutils >= 2.38 or lld/mold and glibc >= 2.36"})
    for u in pic.unused:
        rel = u["relocations"]
        est = ns_lib + ns_rel * (rel.get("relative", 0) + rel.get("relr", 0)) + ns_lookup * u["lookups_lazy"]
        rows.append({"fix": f"drop {u['name']}", "saves_ns": est,
                     "what": f"named by {', '.join(Path(n).name for n in u['named_by'])}, none of its symbols used",
                     "how": f"{ns_lib:.0f} ns per library + its own relocations and lookups",
                     "caveat": "unless it is wanted for its constructors" if u["init_functions"] else
                               "link with -Wl,--as-needed"})
    rows.append({"fix": "fewer libraries (each one)", "saves_ns": ns_lib,
                 "what": f"{len(objs)} shared objects loaded; merging or dropping one saves its mapping and search",
                 "how": "the model's ns per library (its own relocations and lookups on top)", "caveat": ""})
    rows.append({"fix": "prelinking-style binding", "saves_ns": lookups * ns_lookup,
                 "what": f"all {lookups:,} start-up lookups resolved ahead of time; what remains is loading and "
                         "relative relocation" + (f" (of {loader_total_ns / 1e3:,.0f} us in the loader)" if loader_total_ns else ""),
                 "how": f"{lookups:,} x {ns_lookup:.0f} ns", "caveat": "prelink is gone; ASLR makes it moot"})
    if static_gain is not None:
        rows.append({"fix": "static linking", "saves_ns": static_gain,
                     "what": "no ld.so at run time: no objects to load, no lookups",
                     "how": "measured: the program's loader time over the empty dynamic program, plus the empty "
                            "dynamic program's spawn->exit over a static one's (paired rounds)",
                     "caveat": "constructors remain; a static-pie still applies its relative relocations; "
                               "dlopen and NSS still need the loader"})
    if bind_now_gain:
        saving, ratio = bind_now_gain["lazy_saves"], bind_now_gain["ratio"]
        rows.append({"fix": "lazy binding (keep it) vs -z now", "saves_ns": saving["ns"], "kind": "measured",
                     "saving": saving,
                     "what": "LD_BIND_NOW=1 measured: spawn->main "
                             f"{units.ratio_interval(ratio['median'], *ratio['ci95'])} of lazy",
                     "how": "measured in this run (paired rounds)", "caveat": "-z now is what RELRO needs to be full"})
    return rows
