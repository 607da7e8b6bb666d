"""`layertax windows bundle|run` and `layertax import-windows`: Pietrek's experiments as PE
programs for a Windows machine, run here under Wine, and their results brought home."""
from __future__ import annotations

import zipfile
from pathlib import Path

import click

from layertax import console as consoles
from layertax import files
from layertax.text import printable
from layertax.commands.options import CONTEXT, export_options, export_values, keeping_options
from layertax.scratch import private_dir


def _shape_options(f):
    f = click.option("--relocs", type=click.IntRange(min=0, max=10000), default=5, show_default=True,
                     help="K: base relocations (absolute pointers) per exported function.")(f)
    f = click.option("--exports", type=click.IntRange(min=1, max=65535), default=100, show_default=True,
                     help="M: functions each DLL exports.")(f)
    f = click.option("--libs", type=click.IntRange(min=1, max=64), default=10, show_default=True,
                     help="N: DLLs.")(f)
    f = click.option("--runs", type=click.IntRange(min=1, max=100000), default=30, show_default=True,
                     help="Rounds: each launches every variant once, loads every DLL set once and takes one sample "
                          "of every kernel, in a shuffled order.")(f)
    return f


def _shape(libs: int, exports: int, relocs: int):
    from layertax.programs.generate import Shape
    from layertax.programs.pe import generate

    shape = Shape(libs, exports, relocs)
    generate.check(shape)
    return shape


def _bundle_line(bundle) -> str:
    proved = sum(len(c) for c in bundle.verified.values())
    return (f"{len(bundle.verified)} variants, {proved} claims checked by the verifier; "
            f"{len(bundle.timed)} packed to be timed")


@click.group("windows", context_settings=CONTEXT)
def windows_group() -> None:
    """Pietrek's experiments on their own platform: PE programs built here and verified, a bundle
    for a Windows machine, and the same bundle run here under Wine."""


@windows_group.command("bundle", context_settings=CONTEXT)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=Path("pietrek.zip"),
              show_default=True, help="The zip to write (a file is replaced whole; a device, a FIFO or - is written as a stream).")
@_shape_options
def bundle_command(out: Path, runs: int, libs: int, exports: int, relocs: int) -> None:
    """Build the zip to copy to a Windows machine: unpack it, run run.cmd, bring back results.json
    (then `layertax import-windows results.json`)."""
    from layertax.windows import bundle

    shape = _shape(libs, exports, relocs)
    out = files.check_writable(out, "--out")     # a file, a device, a FIFO or -; never a foreign link
    with consoles.working(f"building and verifying {shape.label()} as PE32+"):
        made = bundle.make(shape, runs, out)
    console = consoles.console()
    console.print(f"wrote {printable(out)}: {_bundle_line(made)}", markup=False, highlight=False)
    for name in sorted(set(made.verified) - set(made.timed)):
        console.print(f"not timed: {name} failed its verification", style="bold red")
    console.print("on Windows: unpack it, run pietrek\\run.cmd, then here: layertax import-windows results.json",
                  markup=False, highlight=False)


@windows_group.command("run", context_settings=CONTEXT)
@_shape_options
@keeping_options
def run_command(runs: int, libs: int, exports: int, relocs: int, no_save: bool, allow_concurrent: bool,
                **exports_options) -> None:
    """Build the bundle, run it under Wine end to end (run.cmd, as a user would), and print each
    variant's correctness and Wine's timings, labelled as Wine's: Wine proves correctness, never
    Windows timing."""
    from layertax.commands import keeping
    from layertax.engine.measure.lock import Measuring
    from layertax.windows import bundle, results, wine

    shape = _shape(libs, exports, relocs)
    wine.wine()                                   # a missing Wine fails before anything is built
    targets = keeping.targets(export_values(exports_options), not no_save)
    err = consoles.console(stderr=True)
    with private_dir("windows") as tmp:
        with consoles.working(f"building and verifying {shape.label()} as PE32+"):
            made = bundle.make(shape, runs, tmp / "pietrek.zip")
        err.print(f"bundle: {_bundle_line(made)}", markup=False, highlight=False)
        with zipfile.ZipFile(made.zip_path) as z:
            z.extractall(tmp / "unpacked")
        with Measuring(allow_concurrent) as claim:
            with consoles.working("preparing Wine's prefix (first time: a few seconds)"):
                wine.prefix()
            try:
                with consoles.working(f"running run.cmd under Wine ({runs} rounds)"):
                    path, _ = wine.run_bundle(tmp / "unpacked" / "pietrek")
            finally:
                wine.stop_server()
            doc = results.normalise(results.load(path))
            keeping.keep(doc, consoles.console(), not no_save, targets, claim=claim)


@click.command("import-windows", context_settings=CONTEXT)
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@export_options
def import_windows(file: Path, **exports_options) -> None:
    """File a results.json written by the Windows bundle's run.cmd in the history, and print its
    tables with then-vs-now beside the Linux analogues measured here."""
    from layertax.commands import keeping
    from layertax.windows import results

    targets = keeping.targets(export_values(exports_options), True)
    doc = results.normalise(results.load(file))
    keeping.keep(doc, consoles.console(), True, targets)
