"""A real ``arena serve`` in a subprocess, and a small HTTP client for tests."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.processes import children, running, tree

__all__ = ["ARENA", "FIRST", "Server", "arena", "children", "game_process", "listening",
           "rss_mib", "running", "submit", "tree", "workers"]

ARENA = [sys.executable, "-c", "from cli.main import main; main()"]
#: A test's server starts a game process that ended again after this many seconds, not the
#: real server's serve.status.RESTART_SECONDS (10): what it does and says is the same.
RESTART_SECONDS = 1.0


def serve_command(http: dict[str, float] | None = None) -> list[str]:
    """``arena`` as the tests' servers run it: RESTART_SECONDS, and ``http``'s settings of
    :mod:`serve.http` (its connections' timeouts: ``{"HEADER_TIMEOUT": 1.0}``) in place of the
    real ones."""
    code = f"import serve.status; serve.status.RESTART_SECONDS = {RESTART_SECONDS!r}\n"
    if http:
        code += "import serve.http\n" + "".join(
            f"assert hasattr(serve.http, {name!r}); serve.http.{name} = {value!r}\n"
            for name, value in http.items())
    return [sys.executable, "-c", code + "from cli.main import main; main()"]
FIRST = '"""Keeps the first card."""\n\n\ndef pick(obs):\n    return obs.hand[0]\n'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``arena serve DIR`` on a free port (unsandboxed bots: quick), its output collected."""

    def __init__(self, directory: Path, *extra: str, http: dict[str, float] | None = None
                 ) -> None:
        """``http``: settings of :mod:`serve.http` for this server (:func:`serve_command`)."""
        self.directory = directory
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [*serve_command(http), "serve", str(directory), "--port", str(self.port),
             "--sandbox", "none", "--workers", "2", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
            start_new_session=True)
        self.lines: list[str] = []
        #: Collects the output; it ends when every process of the server has closed it.
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        deadline = time.monotonic() + 60
        while True:
            assert self.proc.poll() is None, "\n".join(self.lines)
            assert time.monotonic() < deadline, "the server did not start"
            try:
                if self.get("/api/ranking")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.2)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    @property
    def organiser(self) -> str | None:
        for line in self.lines:
            if line.startswith("organiser token: "):
                return line.split(": ", 1)[1]
        return None

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, Any]:
        req = urllib.request.Request(self.url + path, data=body, method=method,
                                     headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=60) as reply:
                status, text = reply.status, reply.read()
        except urllib.error.HTTPError as err:
            status, text = err.code, err.read()
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text.decode("utf-8", "replace")

    def get(self, path: str) -> tuple[int, Any]:
        return self.request("GET", path)

    def participant(self, name: str, token: str) -> str:
        status, body = self.request("POST", "/api/participants",
                                    json.dumps({"name": name}).encode(),
                                    {"Authorization": f"Bearer {token}",
                                     "Content-Type": "application/json"})
        assert status == 201, body
        return str(body["token"])

    def games(self) -> int:
        return int(self.get("/api/ranking")[1]["games"])

    def wait_games(self, at_least: int, timeout: float = 120) -> int:
        deadline = time.monotonic() + timeout
        while (n := self.games()) < at_least:
            assert self.proc.poll() is None, "\n".join(self.lines)
            assert time.monotonic() < deadline, (
                f"only {n} games in {timeout} s; status {self.get('/api/status')[1]}; the "
                "server's last lines:\n" + "\n".join(self.lines[-40:]))
            time.sleep(0.1)
        return n

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=60)


def submit(url: str, path: Path, token: str, *extra: str) -> subprocess.CompletedProcess[str]:
    """``arena submit`` as a participant runs it."""
    return subprocess.run([*ARENA, "submit", url, str(path), "--token", token, *extra],
                          capture_output=True, text=True, timeout=300)


def rss_mib(pid: int) -> float:
    """A process's resident memory (MiB), 0 if it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def listening(port: int) -> list[str]:
    """The local addresses listening on ``port`` (IPv4, from /proc/net/tcp)."""
    out = []
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, hexport = local.split(":")
        if int(hexport, 16) == port and state == "0A":
            out.append(".".join(str(int(address[i:i + 2], 16)) for i in (6, 4, 2, 0)))
    return out


def arena(*args: str, env: dict[str, str] | None = None, timeout: float = 300
          ) -> subprocess.CompletedProcess[str]:
    """The console script, as an organiser runs it."""
    return subprocess.run([*ARENA, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def workers(pid: int) -> set[int]:
    """The game process's worker processes under ``pid``: the forkserver's children."""
    below = children()
    forked = set()                      # the forkserver, and the workers it forked
    for p in tree(pid):
        try:
            if b"multiprocessing.forkserver" in Path(f"/proc/{p}/cmdline").read_bytes():
                forked.add(p)
        except OSError:
            continue
    found: set[int] = set()
    for p in forked:
        if not any(p in below.get(q, []) for q in forked):     # the forkserver itself
            found |= set(below.get(p, []))
    return running(found)


def game_process(pid: int) -> int | None:
    """The server ``pid``'s game process (its spawned child), if it runs."""
    for child in children().get(pid, []):
        try:
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"spawn_main" in cmdline and running({child}):
            return child
    return None
