"""The JVM: VM creation and its phases from -Xlog:startuptime, the classes loaded (and how many
came from a CDS archive) from -Xlog:class+load, and the class loader's time from HotSpot's own
counters saved at exit (hsperfdata.py); the fixes: an AppCDS archive of this program's classes,
built in a private directory, and CDS off to show what the default archive saves."""
from __future__ import annotations

import re
from pathlib import Path

from layertax import files
from layertax.inspect.runtime.hsperfdata import MAX_BYTES, class_loading, counters
from layertax.inspect.runtime.stage import Fix, Split, Stage

RUNTIME = "JVM"
LOG = "jvm.log"
COUNTERS = "jvm.hsperfdata"
# "[0.051s][info][startuptime] Create VM, 0.0499655 secs"
_PHASE = re.compile(r"\[startuptime\s*\]\s*(.+?), ([\d.]+) secs")
# "[0.020s][info][class,load] java.lang.Object source: shared objects file"
_CLASS = re.compile(r"\[class,load\s*\]\s*(\S+) source: (.*)$")


def recognise(path: Path, argv: list[str]) -> bool:
    return path.name == "java"


def traced(argv: list[str], workdir: Path) -> tuple[list[str], dict[str, str]]:
    log = workdir / LOG
    return [argv[0], f"-Xlog:startuptime,class+load=info:file={log}", "-XX:+UsePerfData", "-XX:+PerfDataSaveToFile",
            f"-XX:PerfDataSaveFile={workdir / COUNTERS}", *argv[1:]], {}


def parse(stdout: str, stderr: str, workdir: Path) -> Split:
    split = Split(RUNTIME)
    log = workdir / LOG
    text = files.read_text(log, "the JVM's log") if log.exists() else ""
    phases, classes, shared = {}, 0, 0
    for line in text.splitlines():
        m = _PHASE.search(line)
        if m:
            phases[m.group(1)] = float(m.group(2)) * 1e9
            continue
        m = _CLASS.search(line)
        if m:
            classes += 1
            shared += "shared objects file" in m.group(2)
    if "Create VM" not in phases:
        split.problem = "-Xlog:startuptime said nothing of creating the VM (not a HotSpot JVM?)"
        return split
    split.stages.append(Stage("VM creation", phases["Create VM"], "-Xlog:startuptime"))
    inner = {k: v for k, v in phases.items() if k != "Create VM"}
    top = sorted(inner.items(), key=lambda kv: -kv[1])[:4]
    split.details.append("VM creation, its largest phases: " + ", ".join(f"{k} {v / 1e6:.1f} ms" for k, v in top))
    split.details.append(f"classes loaded: {classes:,}, {shared:,} of them from a CDS archive (-Xlog:class+load)")
    saved = workdir / COUNTERS
    loading = class_loading(counters(files.read_bytes(saved, "the JVM's counters", MAX_BYTES))) if saved.exists() else None
    if loading:
        split.details.append(
            f"class loading, linking and initialisation: {loading['total'] / 1e6:.2f} ms in all (HotSpot's "
            f"sun.cls.time), of it initialisation {loading['initialisation'] / 1e6:.2f} ms, linking "
            f"{loading['linking'] / 1e6:.2f} ms, verification {loading['verification'] / 1e6:.2f} ms (their own "
            "times, in the traced run)")
    return split


def fixes(argv: list[str], workdir: Path) -> list[Fix]:
    archive = workdir / "app.jsa"
    return [Fix("AppCDS archive of its classes", (argv[0], f"-XX:SharedArchiveFile={archive}", *argv[1:]),
                prepare=(argv[0], f"-XX:ArchiveClassesAtExit={archive}", *argv[1:]),
                caveat="the archive must be rebuilt when the JDK or the program's classes change"),
            Fix("CDS off (what the default archive saves)", (argv[0], "-Xshare:off", *argv[1:]),
                caveat="not a fix: the price of turning the JDK's own archive off")]
