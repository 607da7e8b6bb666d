"""The controller's side of a fleet run: find Ansible, read the inventory, build the wheel,
run the playbook. Nothing runs through a shell; every argument is a list item."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from layertax.errors import LayertaxError, UsageError

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
                "ANSIBLE_RETRY_FILES_ENABLED": "0", "PYTHONUNBUFFERED": "1"})
    if not sys.stdout.isatty():
        env["ANSIBLE_NOCOLOR"] = "1"
    return env


def hosts(inventory: Path, limit: str | None, env: dict[str, str]) -> list[str]:
    """The inventory's hosts (within --limit), as Ansible reads them: a bad inventory fails here,
    in one line, before anything is built or copied."""
    if not inventory.is_file():
        raise UsageError(f"no such inventory file: {inventory}")
    argv = [tool("ansible-inventory"), "-i", str(inventory), "--list"] + (["--limit", limit] if limit else [])
    done = subprocess.run(argv, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=120)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise UsageError(f"ansible-inventory cannot read {inventory}: {last}")
    listing = json.loads(done.stdout)
    found: list[str] = []
    pending = ["all"]
    while pending:
        group = listing.get(pending.pop(0), {})
        found += [h for h in group.get("hosts", []) if h not in found]
        pending += group.get("children", [])
    if not found:
        raise UsageError(f"{inventory} names no host" + (f" matching --limit {limit}" if limit else ""))
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
