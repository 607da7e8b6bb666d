"""Headless Chromium for the report tests: a screenshot, the DOM after rendering, and the
console's complaints (a resource that failed to load, a blocked fetch)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
         "--disable-extensions", "--enable-logging=stderr", "--v=0"]
# What Chromium logs when a page tries to fetch something, or a fetch fails: our pages run no
# script, so any console message at all (a CSP violation is one) is a failure.
LOAD_FAILURES = (":CONSOLE", "Content Security Policy", "Failed to load resource", "Refused to", "net::ERR_",
                 "Uncaught", "Not allowed to load local resource")


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if path is None:
        pytest.skip("chromium is not installed (the set-up installs Debian's chromium: run `make test` as root)")
    return path


def _run(args: list[str], tmp: Path) -> subprocess.CompletedProcess:
    # A private profile: two test runs never share one, and nothing is left in $HOME.
    return subprocess.run([chromium(), *FLAGS, f"--user-data-dir={tmp / 'profile'}", *args], capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL, env={"HOME": str(tmp), "PATH": "/usr/bin:/bin"})


def screenshot(page: Path, out: Path, tmp: Path, width: int = 1200, height: int = 3000) -> subprocess.CompletedProcess:
    return _run([f"--window-size={width},{height}", f"--screenshot={out}", page.resolve().as_uri()], tmp)


def dom(page: Path, tmp: Path) -> subprocess.CompletedProcess:
    return _run(["--dump-dom", page.resolve().as_uri()], tmp)


def load_failures(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if any(f in line for f in LOAD_FAILURES)]


def colour_share(png: Path, rgb: tuple[int, int, int], tolerance: int = 12) -> float:
    """The share of the screenshot's pixels within tolerance of rgb (e.g. the bars' colour)."""
    import numpy as np
    from PIL import Image

    pixels = np.asarray(Image.open(png).convert("RGB"), dtype=int)
    close = (np.abs(pixels - np.array(rgb)).max(axis=2) <= tolerance)
    return float(close.mean())
