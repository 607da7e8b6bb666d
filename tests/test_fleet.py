"""The fleet: `layertax fleet run` over Ansible with two inventory hosts that are this machine
(tests/data/two-local-hosts.ini), the fleet table of `compare --by-machine`, and the machines
side by side in the HTML report."""
from __future__ import annotations

import copy
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import run_cli

from layertax.engine.analysis import fleet
from layertax.engine.store import results

DATA = Path(__file__).parent / "data"
PROJECT = Path(__file__).parent.parent
RECORDED = DATA / "recorded" / "callchain.json"


def _machine(doc: dict, **changes) -> dict:
    doc = copy.deepcopy(doc)
    doc["machine"] = {**doc["machine"], **changes}
    return doc


def _ansible_missing() -> bool:
    return not (Path(sys.executable).parent / "ansible-playbook").exists() and not shutil.which("ansible-playbook")


def test_the_fleet_table_puts_each_machines_ratio_side_by_side_and_says_what_differs(tmp_path):
    base = results.load(RECORDED)
    other = _machine(base, machine_id="other", kernel="6.1.0-99", libc="glibc 2.41")
    a, b = results.save(base, tmp_path / "a.json"), results.save(other, tmp_path / "b.json")
    table = fleet.fleet([("a", base), ("b", other)])
    assert [key for key, _ in table.differences] == ["kernel", "libc"]
    exp = table.experiments[0]
    rename = next(r for r in exp.rows if r.case == "c-rename")
    case = next(c for c in base["experiments"][0]["cases"] if c["name"] == "c-rename")
    assert rename.cells[0].ratio == case["stats"]["ratio"]["median"] == rename.cells[1].ratio
    assert rename.cells[0].ci95 == tuple(case["stats"]["ratio"]["ci95"])
    assert rename.classic == base["experiments"][0]["classic"]["ratios"]["C runtime rename()"]
    shown = run_cli("compare", "--by-machine", str(a), str(b), env={"COLUMNS": "80"})
    assert shown.returncode == 0, shown.stderr
    assert "the machines differ in:" in shown.stdout and "libc: machine" in shown.stdout
    assert "c-rename" in shown.stdout and "then" in shown.stdout
    assert max(len(line) for line in shown.stdout.splitlines()) <= 80
    alone = run_cli("compare", "--by-machine", str(a))
    assert alone.returncode == 2 and "two or more" in alone.stderr


def test_the_html_report_sets_the_machines_side_by_side(tmp_path):
    from layertax.report.html import to_html

    base = results.load(RECORDED)
    page = to_html(base, _machine(base, machine_id="other", cpu_model="AMD EPYC"))
    assert "The machines side by side" in page and "AMD EPYC" in page
    section = page[page.index("The machines side by side"):page.index('id="run-1"')]
    assert section.count("<svg") == 1                  # one chart for the one experiment
    assert "c-rename" in section
    assert "The machines side by side" not in to_html(base, base)     # one machine: no fleet section


@pytest.mark.slow
def test_fleet_run_on_two_local_hosts_files_both_results_and_prints_the_table(tmp_path, shared_history):
    if _ansible_missing():
        pytest.skip("ansible-core is missing: pip install 'layertax[fleet]'")
    hosts = tmp_path / "hosts"
    # layertax's dependencies (and its wheel's build requirements, for the controller) fetched
    # once, into a directory the two hosts' pip installs from (pip's own variables, which reach
    # the hosts' commands over the local connection): each host resolving against the package
    # index on its own took longer than this one download.
    wheels = tmp_path / "wheels"
    build_requires = tomllib.loads((PROJECT / "pyproject.toml").read_text())["build-system"]["requires"]
    fetched = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                              "--dest", str(wheels), str(PROJECT), *build_requires],
                             capture_output=True, text=True, timeout=600)
    assert fetched.returncode == 0, fetched.stderr
    env = {"LAYERTAX_FLEET_HOME": str(hosts), "XDG_DATA_HOME": str(tmp_path / "data"), "LAYERTAX_HISTORY": shared_history,
           "ANSIBLE_HOME": str(tmp_path / "ansible"), "ANSIBLE_REMOTE_TEMP": str(tmp_path / "ansible-remote"),
           "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels)}
    page = tmp_path / "fleet.html"
    done = run_cli("fleet", "run", "--inventory", str(DATA / "two-local-hosts.ini"), "--html", str(page),
                   "callchain", "--case", "c-rename", "--runs", "3", "--no-syscalls", env=env, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PLAY RECAP" in done.stderr and "failed=0" in done.stderr
    saved = sorted((tmp_path / "data" / "layertax" / "runs").glob("*.json"))
    docs = [results.load(p) for p in saved]
    assert sorted(d["fleet"]["host"] for d in docs) == ["alpha", "beta"]
    assert len({d["fleet"]["id"] for d in docs}) == 1
    for doc in docs:
        assert [c["name"] for c in doc["experiments"][0]["cases"] if c["status"] == "ok"] == ["c-raw-syscall",
                                                                                              "c-rename"]
        assert doc["concurrent"]["allowed"] is True      # the two hosts are one machine: said in the result
    # Each host kept its own venv, data and cache.
    for host in ("alpha", "beta"):
        assert (hosts / host / "venv" / "bin" / "layertax").exists()
        assert list((hosts / host / "data" / "layertax" / "runs").glob("*.json"))
        assert any((hosts / host / "cache").iterdir())
    # Filed in the shared history once each (the hosts keep theirs in their own), and the fleet table printed.
    from layertax.engine.store import history
    rows = history.runs(shared_history)
    assert len(rows) == 2 and sorted(history.load(r, shared_history)["fleet"]["host"] for r in rows) == ["alpha", "beta"]
    table = done.stdout[done.stdout.index("callchain: ratio to"):]
    assert "alpha" in table and "beta" in table and "c-rename" in table
    assert "The machines side by side" in page.read_text()


def test_a_bad_inventory_is_one_line(tmp_path):
    if _ansible_missing():
        pytest.skip("ansible-core is missing: pip install 'layertax[fleet]'")
    missing = run_cli("fleet", "run", "--inventory", str(tmp_path / "nope.ini"), "callchain")
    assert missing.returncode == 2 and "no such inventory file" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1
    empty = tmp_path / "empty.ini"
    empty.write_text("[lab]\n")
    none = run_cli("fleet", "run", "--inventory", str(empty), "callchain",
                   env={"ANSIBLE_HOME": str(tmp_path / "ansible")})
    assert none.returncode == 2 and "names no host" in none.stderr, none.stderr


@pytest.mark.parametrize("run_args, message", [
    (["--bogus"], "No such option '--bogus'"),
    (["nosuch"], "unknown experiment 'nosuch'"),
    (["--runs", "0"], "Invalid value for '--runs'"),
    (["tls", "--size", "1M"], "--size belongs to the scan experiment"),
])
def test_bad_run_arguments_fail_here_before_any_host_is_set_up(tmp_path, run_args, message):
    """`layertax run`'s parser judges the arguments first: one line, exit 2, nothing built or
    deployed (the inventory is not even read: it does not exist)."""
    done = run_cli("fleet", "run", "--inventory", str(tmp_path / "nope.ini"), *run_args)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "fleet " not in done.stderr and not done.stdout
