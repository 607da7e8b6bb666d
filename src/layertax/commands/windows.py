"""`layertax windows bundle|run` and `layertax import-windows`: Pietrek's experiments as PE
programs for a Windows machine, run here under Wine, and their results brought home."""
from __future__ import annotations

import contextlib
import zipfile
from pathlib import Path

from layertax import console as consoles
from layertax import files
from layertax.text import printable
from layertax.scratch import private_dir


def shape_of(libs: int, exports: int, relocs: int):
    from layertax.programs.generate import Shape
    from layertax.programs.pe import generate

    shape = Shape(libs, exports, relocs)
    generate.check(shape)
    return shape


def bundle_line(bundle) -> str:
    proved = sum(len(c) for c in bundle.verified.values())
    return (f"{len(bundle.verified)} variants, {proved} claims checked by the verifier; "
            f"{len(bundle.timed)} packed to be timed")


def bundle(out: Path, runs: int, shape) -> int:
    """`windows bundle`: the zip to copy to a Windows machine, built and verified here."""
    from layertax.windows import bundle as bundles

    out = files.check_writable(out, "--out")     # a file, a device, a FIFO or -; never a foreign link
    with consoles.working(f"building and verifying {shape.label()} as PE32+"):
        made = bundles.make(shape, runs, out)
    console = consoles.console()
    console.print(f"wrote {printable(out)}: {bundle_line(made)}", markup=False, highlight=False)
    for name in sorted(set(made.verified) - set(made.timed)):
        console.print(f"not timed: {name} failed its verification", style="bold red")
    console.print("on Windows: unpack it, run pietrek\\run.cmd, then here: layertax import-windows results.json",
                  markup=False, highlight=False)
    return 0


def run(runs: int, shape, save: bool, allow_concurrent: bool, exports: dict, verbose: bool = False) -> int:
    """`windows run`: the bundle run under Wine end to end (run.cmd, as a user would)."""
    from layertax.commands import keeping
    from layertax.engine.measure.lock import Measuring
    from layertax.windows import bundle as bundles, results, wine

    wine.wine()                                   # a missing Wine fails before anything is built
    targets = keeping.targets(exports, save)
    err = consoles.console(stderr=True)
    with private_dir("windows") as tmp:
        with consoles.working(f"building and verifying {shape.label()} as PE32+"):
            made = bundles.make(shape, runs, tmp / "pietrek.zip")
        err.print(f"bundle: {bundle_line(made)}", markup=False, highlight=False)
        with zipfile.ZipFile(made.zip_path) as z:
            z.extractall(tmp / "unpacked")
        with Measuring(allow_concurrent) as claim:
            with contextlib.ExitStack() as held:
                with consoles.working("preparing Wine's prefix (first time: a few seconds)"):
                    where = held.enter_context(wine.prefix())
                with consoles.working(f"running run.cmd under Wine ({runs} rounds)"):
                    path, _ = wine.run_bundle(tmp / "unpacked" / "pietrek", where)
            doc = results.normalise(results.load(path))
            keeping.keep(doc, consoles.console(), save, targets, verbose=verbose, claim=claim)
    return 0


def import_results(file: Path, exports: dict) -> int:
    """`import-windows`: a results.json of the bundle's run.cmd filed in the history and shown."""
    from layertax.commands import keeping
    from layertax.windows import results

    targets = keeping.targets(exports, True)
    doc = results.normalise(results.load(file))
    keeping.keep(doc, consoles.console(), True, targets)
    return 0
