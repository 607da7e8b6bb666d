"""The Windows experiments of the bundle: their fixed fields (the runner copies them into its
result) and their cases (the runner's manifest names them). Each carries the classic it
re-runs, with its figures pointed at this bundle's cases instead of the Linux analogues."""
from __future__ import annotations

from dataclasses import replace

from layertax.experiment import Classic
from layertax.experiments.callchain import CLASSIC as RENAME_2008
from layertax.experiments.encoding import CLASSIC as SHIMS_1997
from layertax.experiments.loadtime import CLASSIC as LOADER_2000
from layertax.programs.pe import variants

# Which Linux experiment each one is the original of (then-vs-now prints them side by side).
LINUX_ANALOGUE = {"loadtime-pe": "loadtime", "encoding-pe": "encoding", "callchain-pe": "callchain"}

LOADER_COUNTERPARTS = {"by name: default": "name-collide", "by name: based": "name-based",
                       "by name: bound": "name-bound", "by ordinal: default": "ordinal-collide",
                       "by ordinal: based": "ordinal-based", "by ordinal: bound": "ordinal-bound"}
SHIM_COUNTERPARTS = {"ANSI (A) APIs: converting shims": "ansi", "Unicode (W) APIs": "unicode"}
RENAME_COUNTERPARTS = {"C runtime rename()": "rename (CRT)", "MoveFileA": "MoveFileA",
                       "MoveFileWithProgressW": "MoveFileWithProgressW",
                       "NtOpenFile + NtSetInformationFile + NtClose": "NtSetInformationFile"}

SHIM_CASES = (
    ("unicode", "GetModuleHandleW + GetModuleFileNameW + GetCurrentDirectoryW: the native (W) calls"),
    ("ansi", "the same three through their A shims (convert in, call W, convert out)"),
    ("SetEnvironmentVariableW", "a W call taking two strings"),
    ("SetEnvironmentVariableA", "its A shim: the strings converted into heap-allocated copies"),
)
RENAME_CASES = (
    ("NtSetInformationFile", "NtOpenFile + NtSetInformationFile(FileRenameInformation) + NtClose, from ntdll"),
    ("MoveFileWithProgressW", "kernel32's most general move, which the others funnel into"),
    ("MoveFileA", "the A shim over it"),
    ("rename (CRT)", "msvcrt.dll's rename(), the C runtime on top"),
)


def _pointed(classic: Classic, counterparts: dict[str, str], why: str) -> dict:
    figures = tuple(replace(f, counterpart=counterparts.get(f.label), why=why) for f in classic.figures)
    return replace(classic, figures=figures).to_dict()


def metas() -> dict[str, dict]:
    """Each experiment's fixed fields, as they appear in the result."""
    loader_notes = ["spawn->entry: QueryPerformanceCounter before CreateProcessW to the child's own reading at the "
                    "top of its entry point; one launch per variant per round, shuffled",
                    "min is Pietrek's statistic (fastest of N); the median and its CI are layertax's"]
    return {
        "loadtime-pe": {
            "name": "loadtime-pe", "title": "the Windows loader's tax: relocations, binding, ordinals",
            "question": "How long does the loader take to start Pietrek's program, based, bound, by ordinal?",
            "unit": "spawn->entry", "baseline": "name-collide", "metric": "main_ns", "groups": [],
            "kernels": {}, "harness": None, "interrupted": False, "notes": loader_notes,
            "classic": _pointed(LOADER_2000, LOADER_COUNTERPARTS, "the same program, built and linked the same way")},
        "loadlibrary-pe": {
            "name": "loadlibrary-pe", "title": "LoadLibrary of each DLL set, in process",
            "question": "How long do LoadLibrary + FreeLibrary of the ten DLLs take, relocated or based?",
            "unit": "per set loaded", "baseline": "name-collide", "groups": [], "kernels": {}, "harness": None,
            "interrupted": False, "classic": None,
            "notes": ["the time of the N LoadLibraryExW calls; load_free_ns in each sample adds the FreeLibrary calls",
                      "loader_view: the base each DLL got in the first round"]},
        "encoding-pe": {
            "name": "encoding-pe", "title": "Pietrek's A vs W benchmark on its own platform",
            "question": "What do the ANSI shims cost over the Unicode calls, then and now?",
            "unit": "per iteration", "baseline": "unicode", "groups": [], "kernels": {}, "harness": None,
            "interrupted": False, "notes": ["one iteration: the three calls of Pietrek's loop"],
            "classic": _pointed(SHIMS_1997, SHIM_COUNTERPARTS, "the same three calls, A and W")},
        "callchain-pe": {
            "name": "callchain-pe", "title": "the rename chain on its own platform",
            "question": "What does each layer above NtSetInformationFile cost a rename?",
            "unit": "per rename", "baseline": "NtSetInformationFile", "groups": [], "kernels": {}, "harness": None,
            "interrupted": False, "notes": ["a file moved back and forth in a private temporary directory, checked "
                                            "after every sample; one operation = one rename"],
            "classic": _pointed(RENAME_2008, RENAME_COUNTERPARTS, "the same API, called directly")},
    }


def manifest_cases(dll_count: int, timed: list[str]) -> list[str]:
    """The manifest's case lines: the launch variants that passed verification (timed), the
    in-process DLL sets, and the kernels."""
    lines = []
    for v in (*variants.VARIANTS, variants.EMPTY):
        if v.name in timed:
            kind = "probe" if v.stale else "launch"
            lines.append(f"{kind}\t{v.name}\tvariants\\{v.name}\\prog.exe\t{v.what}")
    for dll_set in variants.DLL_SETS:
        if dll_set in timed:
            lines.append(f"loadlib\t{dll_set}\tvariants\\{dll_set}\t{dll_count}\tthe {dll_set} DLL set")
    lines += [f"kernel\tencoding-pe\t{name}\t{layer}" for name, layer in SHIM_CASES]
    lines += [f"kernel\tcallchain-pe\t{name}\t{layer}" for name, layer in RENAME_CASES]
    return lines
