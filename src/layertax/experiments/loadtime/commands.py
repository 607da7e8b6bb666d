"""`layertax loadtime gen` and `layertax loadtime sweep`: the loadtime lab's own commands.

The command line lends them what every command shares (experiment.CommandKit), so
nothing here imports the command line itself."""
from __future__ import annotations

import contextlib
import json
import os
import re
import time
from pathlib import Path

import click
from rich.console import Console

from layertax.text import printable
from layertax import files
from layertax.errors import UsageError
from layertax.experiment import CommandKit


def _shape_options(f):
    f = click.option("--name-len", type=int, default=0, show_default=True,
                     help="Pad every symbol name to at least this many characters (C++ names are long).")(f)
    f = click.option("--relocs", type=int, default=5, show_default=True,
                     help="K: globals each function writes its address to, and as many data pointers to it.")(f)
    f = click.option("--exports", type=int, default=100, show_default=True, help="M: functions each library exports.")(f)
    f = click.option("--libs", type=int, default=10, show_default=True, help="N: shared libraries.")(f)
    return f


def _variant_list(text: str | None) -> list[str] | None:
    from layertax.programs import variants

    if not text:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in variants.NAMES]
    if unknown:
        raise UsageError(f"unknown variant {', '.join(unknown)} (known: {', '.join(variants.NAMES)})")
    return names


def loadtime_commands(kit: CommandKit) -> click.Group:
    """The `loadtime` command group (the experiment's commands hook)."""

    @click.group("loadtime", context_settings=kit.context_settings)
    def loadtime_group() -> None:
        """Pietrek's load-time program: generate and build it, or sweep its size to fit a cost model."""

    loadtime_group.add_command(_gen_command(kit))
    loadtime_group.add_command(_sweep_command(kit))
    return loadtime_group


class _NinjaProgress:
    """Turns ninja's "[3/40] CC ..." lines into a progress bar (on a terminal)."""

    def __init__(self, console: Console):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(TextColumn("[bold]build[/bold]"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.description}", markup=False), TimeElapsedColumn(), console=console,
                                 transient=True, disable=not console.is_terminal)
        self.task = None

    def __enter__(self):
        self.progress.start()
        return self

    def __exit__(self, *exc):
        self.progress.stop()
        return False

    def line(self, text: str) -> None:
        m = re.match(r"\[(\d+)/(\d+)\]\s*(.*)", text)
        if not m:
            return
        done, total, what = int(m.group(1)), int(m.group(2)), m.group(3)
        if self.task is None:
            self.task = self.progress.add_task("", total=total)
        self.progress.update(self.task, completed=done, total=total, description=what[-60:])


def _check_new_directory(out: Path) -> None:
    if os.path.lexists(out):
        raise UsageError(f"--out {printable(out)}: already exists; name a new directory")
    files.resolve(out)                           # a foreign link on the way: refused here
    if not out.parent.is_dir():
        raise UsageError(f"--out {printable(out)}: the parent directory does not exist")
    if not os.access(out.parent, os.W_OK | os.X_OK):
        raise UsageError(f"--out {printable(out)}: cannot write in {printable(out.parent)}")


@contextlib.contextmanager
def _staged(out: Path, err: Console):
    """A directory to write everything into, made whole at out at the end or not at all
    (files.new_directory: a private sibling renamed to out, never over anything that appeared
    there meanwhile): a failure or Ctrl-C leaves nothing half-written behind."""
    try:
        with files.new_directory(out) as staging:
            yield staging
    except FileExistsError:
        raise UsageError(f"--out {printable(out)}: appeared while it was being written; nothing kept") from None
    except KeyboardInterrupt:   # Ctrl-C, SIGTERM, SIGHUP
        err.print(f"interrupted: nothing kept ({printable(out)} was never created; the half-written files are "
                  "removed)")
        raise click.exceptions.Exit(130) from None


def _gen_elf(kit: CommandKit, shape, out: Path, variant_names: str | None, no_build: bool) -> None:
    from layertax.engine.builder import ninja, toolchain
    from layertax.programs import estimate, generate, variants
    from layertax.programs.build import split_available

    names = _variant_list(variant_names)
    cc = toolchain.find("cc")
    if cc is None:
        raise UsageError(toolchain.hint("cc"))
    chosen, skipped = split_available(names)
    console, err = kit.console(), kit.console(stderr=True)
    guess = estimate.refuse_what_cannot_fit(shape, 0 if no_build else variants.builds([*chosen, variants.EMPTY]),
                                            out.parent)
    if guess.build_s > 10 or guess.source_bytes > 100e6:
        err.print(f"{shape.label()}: {guess.line()} (an estimate)", style="dim")
    with _staged(out, err) as staging:
        t0 = time.perf_counter()
        generate.write_sources(shape, staging)
        variants.write_ninja(shape, staging, [*chosen, variants.EMPTY], cc.path)
        t_gen = time.perf_counter() - t0
        t_build, failed = None, []
        if not no_build:
            t1 = time.perf_counter()
            with _NinjaProgress(err) as bar:
                ok, log = ninja.run_ninja(staging, on_line=bar.line)
            t_build = time.perf_counter() - t1
            failed = [v.name for v in [*chosen, variants.EMPTY] if not (staging / v.program()).is_file()]
            if failed:
                files.write_text(log, staging / "build.log")
    console.print(f"wrote {shape.label()} to {out} in {t_gen:.3f} s")
    if t_build is not None:
        built = len(chosen) + 1 - len(failed)
        console.print(f"built {built} program(s) in {t_build:.2f} s with ninja ({os.cpu_count()} CPUs): "
                      f"{', '.join(v.name for v in chosen if v.name not in failed)}, empty")
    for name in failed:
        console.print(f"failed: {name} (see {out / 'build.log'})", style="bold red")
    for name, hint in skipped.items():
        console.print(f"skipped: {name}: {hint}", style="yellow")
    console.print(f"run one: LAYERTAX_STAMP_FD=1 {out}/out/default/prog | od -An -tu8   "
                  f"(or time them all: layertax run loadtime)")
    if failed:
        raise click.exceptions.Exit(1)


def _gen_pe(kit: CommandKit, shape, out: Path, no_build: bool) -> None:
    from layertax.engine.builder import toolchain
    from layertax.programs.pe import build, generate, verify

    generate.check(shape)
    tools = [toolchain.find("mingw-gcc"), toolchain.find("mingw-dlltool")]
    if not no_build and None in tools:
        raise UsageError(toolchain.hint("mingw-gcc" if tools[0] is None else "mingw-dlltool"))
    console, err = kit.console(), kit.console(stderr=True)
    with _staged(out, err) as staging:
        t0 = time.perf_counter()
        if no_build:   # the build.ninja names the tools by their usual commands when they are missing
            gcc, dlltool = (t.path if t else f"x86_64-w64-mingw32-{n}" for t, n in zip(tools, ("gcc", "dlltool")))
            generate.write_sources(shape, staging)
            build.write_ninja(shape, staging, gcc, dlltool)
        else:
            with _NinjaProgress(err) as bar:
                build.build(shape, staging, tools[0], tools[1], on_line=bar.line)
            report = verify.verify(shape, staging)
            files.write_text(json.dumps(
                {name: [c.to_dict() for c in claims] for name, claims in report.items()}, indent=1) + "\n", staging / "verification.json")
        took = time.perf_counter() - t0
    if no_build:
        console.print(f"wrote {shape.label()} as PE sources and build.ninja to {out} in {took:.2f} s")
        return
    console.print(f"built {shape.label()} as PE32+ in {took:.2f} s: {len(report)} variants in {out}/out/")
    for name, claims in report.items():
        broken = [f"{c.claim} ({c.detail})" for c in claims if not c.ok]
        line = f"  {name}: " + ("; ".join(broken) if broken else f"verified ({len(claims)} claim{'s' if len(claims) > 1 else ''})")
        console.print(line, style="bold red" if broken else None, markup=False, highlight=False)
    console.print(f"every claim and what was found: {out}/verification.json; run them: layertax windows run "
                  f"(under Wine) or layertax windows bundle (for Windows)", markup=False, highlight=False)
    if verify.failed(report):
        raise click.exceptions.Exit(1)


def _gen_command(kit: CommandKit) -> click.Command:
    @click.command("gen", context_settings=kit.context_settings)
    @_shape_options
    @click.option("--out", type=click.Path(file_okay=False),
                  help="Directory to create (must not exist). [default: ./loadtime-NxMxK]")
    @click.option("--variants", "variant_names", metavar="LIST",
                  help="Comma-separated variants to build (default: all this machine can build).")
    @click.option("--no-build", is_flag=True, help="Only write the sources and build.ninja.")
    @click.option("--target", type=click.Choice(["elf", "pe"]), default="elf", show_default=True,
                  help="elf: the Linux program in every link variant. pe: Pietrek's own PE32+ EXE and DLLs (mingw-w64): "
                       "by name/by ordinal x collide/based/bound and the stale-bound probe, each verified.")
    def gen(libs, exports, relocs, name_len, out, variant_names, no_build, target) -> None:
        """Write N libraries x M exports x K relocations, a main that references every export,
        and a build.ninja that builds every variant (`ninja -C DIR VARIANT` rebuilds one)."""
        from layertax.programs import generate

        shape = generate.Shape(libs, exports, relocs, name_len)
        shape.validate()
        if target == "pe" and variant_names:
            raise UsageError("--variants chooses among the ELF variants; --target pe builds all of its own")
        if out is not None and not out.strip():
            raise UsageError("--out: an empty path; name a new directory")
        default = f"loadtime-{'pe-' if target == 'pe' else ''}{libs}x{exports}x{relocs}" + (f"-n{name_len}" if name_len else "")
        out = (Path(out) if out else Path(default)).absolute()
        _check_new_directory(out)
        if target == "pe":
            _gen_pe(kit, shape, out, no_build)
        else:
            _gen_elf(kit, shape, out, variant_names, no_build)

    return gen


def _parse_vary(items: tuple[str, ...]) -> dict[str, list[int]]:
    dims = {}
    for item in items:
        key, sep, values = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or key not in ("libs", "exports", "relocs", "name_len"):
            raise UsageError(f"--vary {item}: expected DIM=V1,V2,... with DIM one of libs, exports, relocs, name-len")
        try:
            dims[key] = sorted({int(v) for v in values.split(",") if v.strip()})
        except ValueError:
            raise UsageError(f"--vary {item}: values must be integers") from None
        if not dims[key]:
            raise UsageError(f"--vary {item}: no values")
    if not dims:
        raise UsageError("give at least one --vary, e.g. --vary relocs=0,5,10,20")
    return dims


def _sweep_command(kit: CommandKit) -> click.Command:
    @click.command("sweep", context_settings=kit.context_settings)
    @click.option("--vary", "vary", multiple=True, metavar="DIM=V1,V2,...",
                  help="A dimension and its values: libs, exports, relocs or name-len (repeatable; points are the "
                       "product).")
    @click.option("--variants", "variant_names", default="default,symbolic,hidden,sysv-hash", show_default=True,
                  metavar="LIST", help="Variants measured at every point (several variants separate lookups from "
                                       "relocations; sysv-hash prices a SysV hash table's search).")
    @click.option("--runs", type=click.IntRange(min=1), default=15, show_default=True,
                  help="Launches per variant per point.")
    @kit.keeping_options
    def sweep(vary, variant_names, runs, no_save, allow_concurrent, **export_options) -> None:
        """Measure the program at several sizes and fit ns per relative relocation, per symbol
        lookup, per library, per page fault and per SysV-hashed object searched (least squares
        on median spawn->main)."""
        from layertax.experiments.loadtime import sweep as sweep_lib

        dims = _parse_vary(vary)
        names = _variant_list(variant_names)
        # Every point is validated, and each must fit this machine, before anything is built.
        sweep_lib.check_points(sweep_lib.shapes_of(dims), names, err=kit.console(stderr=True))
        exports = kit.targets(export_options, not no_save)
        err = kit.console(stderr=True)
        with kit.measuring(allow_concurrent) as claim:
            doc = sweep_lib.run(dims, names, runs, kit.progress, say=lambda m: err.print(m, style="dim"))
            kit.keep(doc, not no_save, exports, claim, verbose=export_options.get("verbose", False))
        if doc["experiments"][0]["interrupted"]:
            raise click.exceptions.Exit(130)

    return sweep
