"""The matrix's columns: the locale environments each program runs in.

Every cell starts from a clean environment (PATH and HOME only), so nothing of the
user's own locale settings (LANG, LC_*, PYTHONIOENCODING, JAVA_TOOL_OPTIONS...)
leaks into a cell, and nothing of the user's is ever changed: the settings exist
only in the environment handed to each child process.
"""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field

LOCALE_VARS = ("LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_COLLATE", "LC_NUMERIC", "LC_TIME",
               "LC_MONETARY")


@dataclass(frozen=True)
class Column:
    name: str
    env: dict[str, str] = field(default_factory=dict)
    what: str = ""
    only_if_installed: bool = False   # skipped (with a hint) where the locale is not installed


COLUMNS = (
    Column("unset", {}, "no LANG, LC_ALL or LC_* at all"),
    Column("C", {"LANG": "C"}, "LANG=C"),
    Column("POSIX", {"LANG": "POSIX"}, "LANG=POSIX"),
    Column("C.UTF-8", {"LANG": "C.UTF-8"}, "LANG=C.UTF-8 (built into glibc since 2.35)"),
    Column("xx_XX.UTF-8", {"LANG": "xx_XX.UTF-8"}, "LANG names a UTF-8 locale that is not installed"),
    Column("en_US.UTF-8", {"LANG": "en_US.UTF-8"}, "LANG=en_US.UTF-8", only_if_installed=True),
)

_PROBE = "import locale, sys\ntry:\n    locale.setlocale(locale.LC_ALL, sys.argv[1])\nexcept locale.Error:\n    sys.exit(1)\n"


def base_env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}


def installed(name: str) -> bool:
    """Whether the C library can load this locale: setlocale in a child process, so this
    process's own locale is never touched."""
    env = base_env()
    proc = subprocess.run([sys.executable, "-c", _PROBE, name], env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30, check=False)
    return proc.returncode == 0


def describe(col: Column) -> dict:
    """The column as the result records it: its settings and whether the locale is installed."""
    locale_name = col.env.get("LANG")
    return {"name": col.name, "env": dict(col.env), "what": col.what,
            "installed": installed(locale_name) if locale_name else None}


def skip_reason(col: Column, info: dict) -> str | None:
    if col.only_if_installed and not info["installed"]:
        return (f"{col.env['LANG']} is not installed here (Debian: apt-get install locales, then "
                f"dpkg-reconfigure locales)")
    return None
