"""Passwords kept out of everything layertax writes or prints.

A shared history is named by a URL, and people write the password into it
(`postgresql://me:s3cret@db/lt`, `...?password=s3cret`) or into a libpq keyword string
(`host=db password=s3cret`). layertax records its own command line in every result and
prints the history it uses, so each such text passes through redact() first: the user stays,
the password becomes `***`. The password itself reaches only the database driver, or is
better given as libpq reads it anyway: PGPASSWORD, ~/.pgpass or a service file.
"""
from __future__ import annotations

import re

MASK = "***"

# Query and keyword parameters that carry a secret (libpq's, and the usual names elsewhere).
_SECRET_KEYS = r"(?:password|passwd|pwd|pass|sslpassword|secret|token|api[_-]?key|access[_-]?key)"
# scheme://user:password@host: the part after the first colon of the userinfo, up to the @.
# (as SQLAlchemy reads it: the password may hold a "/")
_USERINFO = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^/@:\s]*):(?P<secret>[^@\s]*)@")
# ?password=x or &password=x in a URL, and password=x or password='x y' in a keyword string.
_PARAMETER = re.compile(rf"(?P<head>(?:^|[?&;\s,]){_SECRET_KEYS}\s*=\s*)(?P<secret>'(?:[^'\\]|\\.)*'|[^&;\s,']*)",
                        re.IGNORECASE)


def redact(text: str) -> str:
    """text with every password in a URL or a keyword=value string replaced by ***."""
    text = _USERINFO.sub(lambda m: f"{m['head']}:{MASK}@", text)
    return _PARAMETER.sub(lambda m: m["head"] + (MASK if m["secret"] else ""), text)


def redact_argv(argv: list[str]) -> list[str]:
    """A command line with every argument redacted (the history URL after --history, a URL a
    launched program was given)."""
    return [redact(arg) for arg in argv]


def has_secret(text: str) -> bool:
    return redact(text) != text
