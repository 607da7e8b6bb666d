"""The controller's side of a fleet run: find Ansible, read the inventory, build the wheel,
run the playbook. Nothing runs through a shell; every argument is a list item."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from layertax import files
from layertax.errors import LayertaxError, UsageError
from layertax.text import printable

PLAYBOOK = Path(__file__).parent / "ansible" / "playbook.yml"
HINT = "install Ansible with: pip install 'layertax[fleet]' (ansible-core)"


def tool(name: str) -> str:
    """An Ansible command: beside this Python first (a venv), then on PATH."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if not found:
        raise UsageError(f"{name} is not installed: {HINT}")
    return found


def environment(private_tmp: Path) -> dict[str, str]:
    """Ansible's environment: UTF-8 (it refuses to start otherwise), its controller-side
    temporary files in our private directory, no colour or cows in logs."""
    env = dict(os.environ)
    env.update({"LC_ALL": "C.UTF-8", "ANSIBLE_LOCAL_TEMP": str(private_tmp), "ANSIBLE_NOCOWS": "1",
                "ANSIBLE_RETRY_FILES_ENABLED": "0", "PYTHONUNBUFFERED": "1",
                # An inventory Ansible cannot parse is an error, not a warning and an empty (or,
                # for random bytes read as INI, a nonsense) list of hosts.
                "ANSIBLE_INVENTORY_UNPARSED_FAILED": "1", "ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED": "1"})
    if not sys.stdout.isatty():
        env["ANSIBLE_NOCOLOR"] = "1"
    return env


# An inventory host is a host name, an address (IPv4, IPv6) or an alias of Ansible's (web_1): a
# word of letters, digits and . _ : - that does not start with one of . - :. Anything else (a
# path such as ../../tmp/victim, a space, a control character) is refused before anything runs.
_HOST = re.compile(r"^[A-Za-z0-9_\[][A-Za-z0-9_.:\[\]-]{0,252}$")


def check_host(name: str) -> str:
    if not isinstance(name, str) or not _HOST.match(name) or ".." in name:
        raise UsageError(f"the inventory names a host {printable(repr(name))[:80]}, which is not a host name, an "
                         "address or an alias (letters, digits and . _ : - only)")
    return name


def result_name(host: str) -> str:
    """The file a host's result is fetched to: a digest of its name, so no name can lead out of
    the fetch directory (the playbook names it the same way: sha1 of inventory_hostname)."""
    return f"host-{hashlib.sha1(host.encode('utf-8')).hexdigest()}.json"


def hosts(inventory: Path, limit: str | None, env: dict[str, str]) -> list[str]:
    """The inventory's hosts (within --limit), as Ansible reads them: a bad inventory (unreadable,
    not text, not an inventory, or naming a host that is not a host name) fails here, in one
    line, before anything is built or copied."""
    if not inventory.is_file():
        raise UsageError(f"no such inventory file: {printable(inventory)}")
    files.read_text(inventory, "inventory (INI or YAML)", limit=16 << 20)   # text, bounded, a regular file
    argv = [tool("ansible-inventory"), "-i", str(inventory), "--list"] + (["--limit", limit] if limit else [])
    done = subprocess.run(argv, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=120,
                          errors="replace")
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise UsageError(f"ansible-inventory cannot read {printable(inventory)}: {printable(last)[:300]}")
    try:
        listing = json.loads(done.stdout)
    except ValueError:
        raise UsageError(f"ansible-inventory gave no host list for {printable(inventory)}") from None
    found: list[str] = []
    pending, seen = ["all"], set()
    while pending:
        name = pending.pop(0)
        if name in seen:
            continue
        seen.add(name)
        group = listing.get(name, {}) if isinstance(listing, dict) else {}
        found += [check_host(h) for h in group.get("hosts", []) if h not in found]
        pending += [g for g in group.get("children", []) if isinstance(g, str)]
    if not found:
        raise UsageError(f"{printable(inventory)} names no host" + (f" matching --limit {printable(limit)}" if limit else ""))
    return found


def source_tree() -> Path | None:
    """The project this layertax runs from, when it runs from a clone (the wheel is built from it)."""
    root = Path(__file__).resolve().parents[3]
    return root if (root / "pyproject.toml").is_file() and (root / "src" / "layertax").is_dir() else None


def build_wheel(out_dir: Path) -> Path:
    root = source_tree()
    if root is None:
        raise UsageError("layertax is not running from its source tree, so it cannot build the wheel to install: "
                         "give one with --wheel FILE (pip wheel --no-deps <layertax source>)")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(out_dir),
                           str(root)], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600)
    wheels = sorted(out_dir.glob("layertax-*.whl"))
    if done.returncode != 0 or not wheels:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise LayertaxError(f"building the layertax wheel failed: {last}")
    return wheels[-1]


def run_playbook(inventory: Path, limit: str | None, wheel: Path, run_args: list[str], fetch_dir: Path,
                 env: dict[str, str], echo) -> int:
    """Runs the playbook, handing each line of Ansible's output to echo; returns its exit code."""
    extra = {"layertax_wheel": str(wheel), "layertax_run_args": run_args, "layertax_fetch_dir": str(fetch_dir)}
    argv = [tool("ansible-playbook"), "-i", str(inventory), str(PLAYBOOK), "--extra-vars", json.dumps(extra)]
    if limit:
        argv += ["--limit", limit]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                          stdin=subprocess.DEVNULL, errors="replace") as proc:
        for line in proc.stdout:
            echo(line.rstrip("\n"))
        return proc.wait()
