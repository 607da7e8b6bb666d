"""loadtime: what the dynamic loader costs, and what each way of linking saves.

Classic: Matt Pietrek, "Under the Hood", MSDN Magazine, May 2000: 10 DLLs x 100
exports x 5 base relocations each, loaded 30 times, fastest run kept; default,
rebased and rebased+bound, imported by name and by ordinal. Today: the same
program generated for ELF and built in every way a linker offers (PIE or not,
lazy or -z now, -Bsymbolic, hidden visibility, RELR, hash styles, static,
static-pie, four linkers), timed from the spawn (clone, execve) to the top of main.
"""
from pathlib import Path

from layertax.experiment import Case, Classic, ClassicFigure, Experiment
from layertax.programs import variants

CLASSIC = Classic(
    source='Matt Pietrek, "Under the Hood", MSDN Magazine',
    year="May 2000",
    machine="Pentium III 550 MHz, Windows 2000, FAT16; fastest of 30 runs",
    unit="s",
    baseline="by name: default",
    figures=(
        ClassicFigure("by name: default", 0.016283, "default", "every DLL relocated and every import looked up by "
                      "name; ELF's default (PIC libraries, PIE program, lazy binding) does the same work"),
        ClassicFigure("by name: based", 0.014698, "relr", "ELF libraries cannot be rebased: PIC code always has "
                      "relative relocations; RELR packs them (the work that remains is cheapest); only static "
                      "linking removes them"),
        ClassicFigure("by name: bound", 0.013691, "symbolic", "binding precomputed import addresses; prelink did "
                      "that for ELF and is gone; -Bsymbolic binds each library's own references at link time, "
                      "which removes those lookups"),
        ClassicFigure("by ordinal: default", 0.016154, "hidden", "ELF has no import by ordinal: every import is by "
                      "name; the closest is exporting fewer names (hidden visibility): fewer lookups, shorter chains"),
        ClassicFigure("by ordinal: based", 0.014138, None, "no ELF counterpart (no ordinals, no rebasing)"),
        ClassicFigure("by ordinal: bound", 0.013759, None, "no ELF counterpart (no ordinals, no prebinding)"),
    ),
    conclusion="rebasing saved ~12%, rebasing + binding ~18%, ordinals ~1%; the loader is rarely to blame, "
               "initialization code is",
)



CASES = tuple(Case(v.name, "launch", v.what, "c") for v in (*variants.VARIANTS, variants.EMPTY))

EXPERIMENT = Experiment(
    name="loadtime",
    title="the loader's tax: relocations, symbol lookups, libraries",
    question="How long does the loader take to start Pietrek's 10 x 100 x 5 program, linked each way?",
    baseline="default",
    kernels=(),
    cases=CASES,
    classic=CLASSIC,
    package_dir=Path(__file__).resolve().parent,
    needs_workdir=False,
    unit="spawn->main",
    notes=("spawn->main: from the clone that starts it until the generated main() stamps CLOCK_MONOTONIC "
           "(its first act), then _exit(0); one launch per variant per round, variants shuffled each round",
           "min is Pietrek's statistic (fastest of N); the median and its CI are layertax's"),
    measure="layertax.experiments.loadtime.measure:measure",
    builds="layertax.experiments.loadtime.measure:builds",
    commands="layertax.experiments.loadtime.commands:loadtime_commands",
)
