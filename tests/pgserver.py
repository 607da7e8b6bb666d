"""A throw-away PostgreSQL server for the shared-history tests: Debian's `postgresql` binaries,
a cluster in a private temporary directory, on a free port of 127.0.0.1, run as an
unprivileged user (nobody, when the tests run as root: PostgreSQL refuses root), stopped and
removed at the end. Nothing of the machine's own PostgreSQL is touched. A test run killed before
it can stop the server (a CI timeout's SIGKILL) takes the server with it: the server is told
to shut down when the process that started it dies."""
from __future__ import annotations

import ctypes
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg

HINT = "PostgreSQL's server is missing: apt-get install postgresql (make setup does, as root)"


def binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[4]))
    return Path(found[-1]).parent if found else None


_PR_SET_PDEATHSIG = 1
_prctl = ctypes.CDLL(None, use_errno=True).prctl      # resolved here: the child only calls it


def _stop_with_parent() -> None:
    """In the server's process before it starts (after its user is changed, which would clear
    it): a fast shutdown (SIGINT) when the thread that started it ends."""
    _prctl(_PR_SET_PDEATHSIG, signal.SIGINT, 0, 0, 0)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, bin_dir: Path):
        self.bin = bin_dir
        # Under the system's temporary directory, not pytest's (mode 0700 all the way down, so the
        # unprivileged server could not reach its own data).
        self.root = Path(tempfile.mkdtemp(prefix="layertax-pg-", dir="/tmp" if os.geteuid() == 0 else None))
        self.data, self.sockets = self.root / "data", self.root / "sockets"
        self.sockets.mkdir()
        self.as_user = {}
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(self.root, nobody.pw_uid, nobody.pw_gid)
            os.chown(self.sockets, nobody.pw_uid, nobody.pw_gid)
            self.as_user = {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}
        self.port = _free_port()
        self.process: subprocess.Popen | None = None

    def start(self) -> "Server":
        env = {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C.UTF-8"}
        subprocess.run([self.bin / "initdb", "-D", self.data, "-U", "layertax", "--auth=trust", "-E", "UTF8",
                        "--no-sync", "--no-instructions"], check=True, capture_output=True, env=env,
                       cwd=self.root, timeout=120, **self.as_user)
        self.process = subprocess.Popen(
            [self.bin / "postgres", "-D", self.data, "-p", str(self.port), "-k", self.sockets,
             "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=40"],
            stdout=subprocess.DEVNULL, stderr=open(self.root / "server.log", "wb"), env=env, cwd=self.root,
            preexec_fn=_stop_with_parent, **self.as_user)
        deadline = time.monotonic() + 60
        while True:
            try:
                with psycopg.connect(self.url("postgres"), connect_timeout=2):
                    return self
            except psycopg.OperationalError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    log = (self.root / "server.log").read_text(errors="replace")[-2000:]
                    self.stop()
                    raise RuntimeError(f"the test PostgreSQL server did not start:\n{log}")
                time.sleep(0.1)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://layertax@127.0.0.1:{self.port}/{database}"

    def new_database(self, name: str) -> str:
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def connect(self, url: str):
        return psycopg.connect(url, autocommit=True)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)          # "fast" shutdown: ends the sessions, then stops
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.root, ignore_errors=True)
