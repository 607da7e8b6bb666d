"""scan's options of `layertax run`: --file, --size, --cold (imported only by the CLI)."""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import click

from layertax.experiments.scan import sizes


class InputFile(click.ParamType):
    name = "path"

    def convert(self, value, param, ctx):
        from layertax.experiments.scan.inputfile import check_readable   # numpy: only when used

        try:
            return str(check_readable(Path(value)))
        except ValueError as e:
            self.fail(str(e), param, ctx)


class ByteSize(click.ParamType):
    name = "size"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        try:
            n = sizes.parse_size(value)
        except ValueError as e:
            self.fail(str(e), param, ctx)
        if n < sizes.MIN_SCAN:
            self.fail(f"{value!r} is {sizes.human(n)}: at least {sizes.human(sizes.MIN_SCAN)}, or the scans time opening "
                      "the file rather than reading it", param, ctx)
        free = shutil.disk_usage(tempfile.gettempdir()).free
        if n > free:
            self.fail(f"{value!r} needs {sizes.human(n)} of disk for the generated file; the temporary directory "
                      f"{tempfile.gettempdir()} has {sizes.human(free)} free", param, ctx)
        from layertax.engine.machine import memory_available

        memory, available = n + sizes.ceiling_bytes(n), memory_available()
        if available is not None and memory > available:
            self.fail(f"{value!r} needs about {sizes.human(memory)} of memory (the file in the page cache and the "
                      f"memory ceiling's buffer); {sizes.human(available)} is available", param, ctx)
        return n


def _file_or_size(ctx: click.Context, param: click.Parameter, value):
    """--file and --size exclude each other; said while parsing, before anything is built.
    (The run command names the options "scan__file" and "scan__size".)"""
    prefix, _, name = param.name.rpartition("__")
    other = {"file": "size", "size": "file"}[name]
    if value is not None and ctx.params.get(f"{prefix}__{other}" if prefix else other) is not None:
        raise click.UsageError("--file and --size exclude each other: a given file has its own size", ctx)
    return value


def run_options() -> list[click.Option]:
    return [
        click.Option(["--file", "file"], type=InputFile(), metavar="PATH", callback=_file_or_size,
                     help="Scan this file instead of a generated one (opened read-only, never modified)."),
        click.Option(["--size", "size"], type=ByteSize(), metavar="SIZE", callback=_file_or_size,
                     help=f"Size of the generated file, e.g. 64M, 1.5GiB, 500MB (K/M/G are powers of 1024, KB/MB/GB "
                          f"of 1000). [default: {sizes.human(sizes.DEFAULT_SIZE)}; {sizes.human(sizes.THOROUGH_SIZE)} with --thorough]"),
        click.Option(["--cold", "cold"], is_flag=True,
                     help="Evict the file from the page cache before every kernel invocation and time one pass "
                          "each (posix_fadvise; root's drop_caches if pages stay). [default: warm cache]"),
    ]
