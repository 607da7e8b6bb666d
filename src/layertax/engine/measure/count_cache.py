"""System-call counts kept between runs: a count depends only on what ran (the kernel as built,
the case, the iteration counts, the shared input), not on the machine's noise, so a warm
run reuses it instead of tracing every case again. The key is a hash of all of that: a
rebuilt kernel, an edited Python kernel or another input gets a fresh count."""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from layertax import files, paths
from layertax.errors import UsageError

FORMAT = "layertax-syscalls/1"   # bump to drop every kept count


def key(kernel, case: str, iters, shared_info: dict | None) -> str:
    """What a count depends on, hashed: the kernel's build record (a content-addressed build key
    or tree), its Python file's source, the case, the iteration counts and the input."""
    h = hashlib.sha256()
    script = (kernel.info or {}).get("file")      # a Python kernel's file, as kernels.prepare found it
    source = Path(script).read_bytes() if script and Path(script).is_file() else b""
    for part in (FORMAT, json.dumps(kernel.info, sort_keys=True, default=str), case, json.dumps(iters),
                 json.dumps(shared_info, sort_keys=True, default=str)):
        h.update(part.encode() + b"\0")
    h.update(source)
    return h.hexdigest()[:32]


def cached(count_key: str, compute: Callable[[], dict]) -> dict:
    """The kept count for this key, or compute() kept for next time (errors are never kept)."""
    path = paths.cache_dir() / "syscalls" / f"{count_key}.json"
    try:
        return {**json.loads(path.read_text(encoding="utf-8")), "cached": True}
    except (OSError, ValueError):
        pass
    counted = compute()
    if "error" not in counted:
        try:
            files.own_directory(paths.cache_dir(), "the cache directory")
            path.parent.mkdir(mode=0o700, exist_ok=True)
            files.write_text(json.dumps(counted), path)
        except (OSError, UsageError):
            pass   # a cache that cannot be written costs a recount next time, nothing more
    return counted
