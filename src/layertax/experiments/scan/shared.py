"""scan's shared input: made (or counted) once per run, evicted before each
invocation under --cold, handed to every kernel in the environment."""
from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from layertax.engine import machine
from layertax.errors import UsageError
from layertax.experiment import SharedInput
from layertax.experiments.scan import inputfile, sizes
from layertax.experiments.scan.tables import MEMORY

def _chunks(progress, label: str, size: int):
    """A progress callback for inputfile's (done, total) that steps once per chunk."""
    progress.start(label, max(1, -(-size // inputfile.CHUNK)))
    steps = [0]

    def advance(done: int, total: int) -> None:
        while steps[0] < -(-done // inputfile.CHUNK):
            steps[0] += 1
            progress.step(f"{sizes.human(done)} of {sizes.human(total)}")
    return advance


def _make(options: dict, thorough: bool, workroot: Path, note, progress) -> tuple[Path, int, int, dict]:
    """(path, bytes, expected count, what it is) of the file to scan."""
    if options.get("file"):
        if options.get("size") is not None:
            raise UsageError("--file and --size exclude each other: a given file has its own size")
        path = inputfile.check_readable(Path(options["file"]))
        note(f"scan: counting C/G/c/g in {path} with numpy (the count every kernel must match)")
        try:
            count, size = inputfile.count_file(path, _chunks(progress, "scan: counting", path.stat().st_size))
        finally:
            progress.finish()
        if size < sizes.MIN_SCAN:
            note(f"scan: warning: {path} has {size:,} bytes, under {sizes.human(sizes.MIN_SCAN)}: the figures time "
                 "opening and mapping the file more than reading it (the counts are still checked)")
        return path, size, count, {"source": "file", "path": str(path)}
    size = options.get("size")
    size = (sizes.THOROUGH_SIZE if thorough else sizes.DEFAULT_SIZE) if size is None else size
    free = shutil.disk_usage(workroot).free
    if size > free:
        raise UsageError(f"--size {sizes.human(size)}: only {sizes.human(free)} free in {workroot.parent}")
    path = workroot / "input.fa"
    note(f"scan: generating {sizes.human(size)} of DNA-like text (seed {inputfile.SEED})")
    try:
        count = inputfile.generate(path, size, _chunks(progress, "scan: generating", size))
    finally:
        progress.finish()
    path.chmod(0o444)
    return path, size, count, {"source": "generated", "seed": inputfile.SEED,
                               "generator": "FASTA-like: a header line, then lines of 60-80 bases "
                                            "(ACGT, ~41% GC), 30% of lines lower-case"}


@contextmanager
def scan_input(options: dict, settings, workroot: Path, note, progress) -> Iterator[SharedInput]:
    path, size, count, what = _make(options, settings.thorough, workroot, note, progress)
    ceiling = sizes.ceiling_bytes(size)
    available = machine.memory_available()
    if available is not None and size + ceiling > available // 2:
        note(f"scan: warning: the file ({sizes.human(size)}) and the ceiling's buffer take more than half of the "
             f"available memory ({sizes.human(available)}): the page cache may not keep the file warm")
    info = {**what, "bytes": size, "count": count, "ceiling_bytes": ceiling,
            "page_cache": "cold" if options.get("cold") else "warm",
            # what one operation of each case reads, so any report can show GB/s ("*": every other case)
            "bytes_per_op": {"*": size, MEMORY: ceiling}}
    env = {"LAYERTAX_SCAN_FILE": str(path), "LAYERTAX_SCAN_BYTES": str(size), "LAYERTAX_SCAN_COUNT": str(count),
           "LAYERTAX_SCAN_CEILING_BYTES": str(ceiling)}
    shared = SharedInput(env, info)
    where = what.get("path", "generated")
    if options.get("cold"):
        left, how = inputfile.evict(path)
        record: list[float] = []
        info["cold"] = {"method": how, "resident_after_evict": record}
        if left > 0.5:
            note(f"scan: --cold: could not evict the file from the page cache ({left:.0%} of it stayed; {how}); "
                 "the figures are warm, not cold")
            info["cold"]["failed"] = True

        def before_each() -> None:
            record.append(round(inputfile.evict(path)[0], 4))
        shared.before_each, shared.fixed_iters, shared.burst = before_each, 1, 1
        info["summary"] = (f"{where}, {sizes.human(size)}, {count:,} C/G/c/g; cold page cache: evicted before "
                           f"every invocation ({how}), one pass per sample")
    else:
        info["summary"] = (f"{where}, {sizes.human(size)}, {count:,} C/G/c/g; warm page cache (the file was just "
                           f"{'written' if what['source'] == 'generated' else 'read'}; --cold evicts it before "
                           "every invocation)")
    yield shared
