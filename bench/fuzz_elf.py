"""The ELF reader on 10^5 mutated files: how many it reads, how many it refuses and with
which words, whether any escapes as a crash (an exception other than layertax's one-line
error, or a message that leaks a parser's text), and the slowest input (kept for replay).

Seeds: a small shared library and a small program built here, and /bin/true. Each mutation
sets 1 to 8 bytes (40% of them in the 64-byte ELF header, the rest anywhere) and cuts one file
in ten short. Not a test: tests/test_elf_fuzz.py runs a few thousand under hypothesis.

    .venv/bin/python bench/fuzz_elf.py [--count 100000] [--seed 1] [--slowest slowest.elf]
"""
from __future__ import annotations

import argparse
import collections
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from layertax.errors import LayertaxError
from layertax.elf import elfinfo

from _common import finish   # this folder's

LEAKS = re.compile(r"Error\(|Exception|Traceback|FieldError|offset-sized|missing terminator|\(\'|Invalid argument")
SOURCE = "int shared_counter; int exported(int x) { return x + shared_counter; }\nint main(void) { return 0; }\n"


def seeds(work: Path) -> list[bytes]:
    (work / "s.c").write_text(SOURCE)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", work / "lib.so", work / "s.c"], check=True)
    subprocess.run(["cc", "-o", work / "prog", work / "s.c"], check=True)
    return [(work / "lib.so").read_bytes(), (work / "prog").read_bytes(), Path("/bin/true").read_bytes()]


def mutate(rng: random.Random, base: bytes) -> bytes:
    data = bytearray(base)
    for _ in range(rng.randint(1, 8)):
        offset = rng.randrange(64) if rng.random() < 0.4 else rng.randrange(len(data))
        data[offset] = rng.randrange(256)
    return bytes(data[: rng.randrange(len(data))] if rng.random() < 0.1 else data)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--slowest", type=Path, help="write the slowest input here")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    read = 0
    refused: collections.Counter[str] = collections.Counter()
    crashes: list[str] = []
    slowest = (0.0, b"")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="layertax-fuzz-") as tmp:
        work = Path(tmp)
        bases = seeds(work)
        path = work / "mutated"
        for i in range(args.count):
            data = mutate(rng, rng.choice(bases))
            path.write_bytes(data)
            t0 = time.perf_counter()
            try:
                elfinfo.read(path)
                read += 1
            except LayertaxError as e:
                message = str(e)[len(str(path)) + 2:]
                if "\n" in message or LEAKS.search(message):
                    crashes.append(f"leaks: {message[:160]}")
                refused[re.sub(r"\d+", "N", message)[:90]] += 1
            except BaseException as e:  # noqa: BLE001 - what the bench is looking for
                if isinstance(e, KeyboardInterrupt):
                    raise
                crashes.append(f"{type(e).__name__}: {str(e)[:160]}")
            took = time.perf_counter() - t0
            if took > slowest[0]:
                slowest = (took, data)
            if (i + 1) % 10_000 == 0:
                print(f"  {i + 1:,} files, {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    print(f"{args.count:,} mutated files (seed {args.seed}) in {time.monotonic() - started:.0f} s: {read:,} read, "
          f"{sum(refused.values()):,} refused in one line, {len(crashes)} crashes")
    for message, n in refused.most_common(12):
        print(f"  {n:7,}  {message}")
    for crash in crashes[:10]:
        print(f"  crash: {crash}")
    print(f"slowest: {slowest[0] * 1e3:.1f} ms ({len(slowest[1]):,} bytes)")
    if args.slowest:
        args.slowest.write_bytes(slowest[1])
        print(f"  kept in {args.slowest}")
    return 1 if crashes else 0


if __name__ == "__main__":
    finish(main)
