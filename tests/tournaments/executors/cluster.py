"""A Ray cluster of two nodes on this machine, every Ray process on 127.0.0.1: a head (two
CPUs) and a second node (two CPUs, its own raylet) that a test may kill and start again."""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import pytest

RAY = Path(sys.executable).with_name("ray")
# `ray start` for a node that joins a head. RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 keeps every
# address Ray picks on loopback (else it swaps 127.0.0.1 for this machine's network address),
# but `ray start` then refuses to join a head; that one check is lifted here.
JOIN = """import sys, types
import ray._private.ray_constants as constants
import ray.scripts.scripts as scripts
scripts.ray_constants = types.SimpleNamespace(**{**vars(constants), "ENABLE_RAY_CLUSTER": True})
sys.argv = ["ray", "start", *sys.argv[1:]]
scripts.main()
"""
#: The second node's custom resource: it tells its raylet's command line apart.
SECOND = "second_node"
#: A driver that joins the head and runs one task that only the second node can run: the
#: head's raylet must know that node's resources, as it must to hand it games. Prints the
#: pid of the raylet that ran it (the task's worker's parent).
PROBE = f"""import os, sys, ray
ray.init(address=sys.argv[1], logging_level="ERROR", log_to_driver=False)
where = ray.remote(num_cpus=0, resources={{"{SECOND}": 1}})(lambda: os.getppid())
print(ray.get(where.remote(), timeout=float(sys.argv[2])))
"""


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""


def _parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _alive(pid: int) -> bool:
    """``pid`` runs (a zombie waiting for its parent does not count)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _pids() -> list[int]:
    return [int(e.name) for e in os.scandir("/proc") if e.name.isdigit()]


@dataclass
class Cluster:
    """A head (two CPUs) and, when started, a second node (two CPUs) on 127.0.0.1."""

    address: str
    env: dict[str, str]
    #: ``ray start`` of the second node, begun in the background and not yet waited for.
    starting: subprocess.Popen[str] | None = None

    def gcs_log(self) -> Path | None:
        """The head's GCS log (it says when a node was declared dead)."""
        port = self.address.rsplit(":", 1)[1]
        for pid in _pids():
            argv = _cmdline(pid).decode(errors="replace").split("\0")
            if argv[0].endswith("/gcs_server") and f"--gcs_server_port={port}" in argv:
                for arg in argv:
                    if arg.startswith("--log_dir="):
                        return Path(arg.split("=", 1)[1]) / "gcs_server.out"
        return None

    def processes(self) -> set[int]:
        """Every process of this cluster: those naming its session folder or its head's
        address, and their children (other clusters on this machine are not touched)."""
        log = self.gcs_log()
        marks = [f"={self.address}".encode()]
        if log is not None:
            marks.append(str(log.parent.parent).encode())
        children: dict[int, list[int]] = {}
        found = []
        for pid in _pids():
            children.setdefault(_parent(pid), []).append(pid)
            if pid != os.getpid() and any(mark in _cmdline(pid) for mark in marks):
                found.append(pid)
        out: set[int] = set()
        while found:
            pid = found.pop()
            if pid not in out:
                out.add(pid)
                found.extend(children.get(pid, []))
        return out

    def stop(self) -> None:
        """End this cluster's processes (SIGTERM, then SIGKILL for any left after 3 s: some
        Ray processes linger on SIGTERM; nothing of a test's cluster needs saving)."""
        if self.starting is not None:   # a `ray start` under way: what it started is found below
            self.starting.kill()
            self.starting.communicate()
            self.starting = None
        doomed = self.processes()
        for sig, wait in ((signal.SIGTERM, 3), (signal.SIGKILL, 10)):
            for pid in doomed:
                with suppress(OSError):
                    os.kill(pid, sig)
            deadline = time.monotonic() + wait
            while (doomed := {p for p in doomed if _alive(p)}) and time.monotonic() < deadline:
                time.sleep(0.2)
        # `ray start --head` left its address for ray.init() to join (as `ray stop` would).
        current = Path(tempfile.gettempdir()) / "ray" / "ray_current_cluster"
        with suppress(OSError):
            if current.read_text().strip() == self.address:
                current.unlink()

    def second_raylet(self) -> int | None:
        """The second node's raylet, if it runs."""
        for pid in _pids():
            argv = _cmdline(pid).split(b"\0")
            if argv[0].endswith(b"/raylet") and any(f"{SECOND},".encode() in a for a in argv):
                return pid
        return None

    def start_second(self, background: bool = False) -> None:
        """Start the second node unless it runs; ``background``: only begin to (while a test
        checks what it ran, or runs what it compares with), the next call waits for it."""
        if self.starting is None:
            if self.second_raylet() is not None:
                return
            self.starting = subprocess.Popen(
                [sys.executable, "-c", JOIN, f"--address={self.address}",
                 "--node-ip-address=127.0.0.1", "--num-cpus=2",
                 f"--resources={{\"{SECOND}\": 2}}", "--disable-usage-stats"],
                env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if background:
            return
        starting, self.starting = self.starting, None
        try:
            output, _ = starting.communicate(timeout=180)
        finally:
            if starting.poll() is None:
                starting.kill()
                starting.wait()
        assert starting.returncode == 0, output
        raylet = self.second_raylet()
        assert raylet is not None
        # A task only it can run: the head hands it work (a test that waits for a game on it
        # would otherwise find out only after minutes).
        failed = self.probe_second(raylet)
        assert not failed, failed

    def probe_second(self, raylet: int | None, timeout: float = 60) -> str:
        """Run :data:`PROBE`: nothing if the second node ran its task, else what went
        wrong (the probe's output and the second raylet's last log lines)."""
        try:
            done = subprocess.run([sys.executable, "-c", PROBE, self.address, str(timeout)],
                                  env=self.env, capture_output=True, text=True,
                                  timeout=timeout + 60)
            said = done.stdout.strip().splitlines()
            if done.returncode == 0 and said and said[-1] == str(raylet):
                return ""
            why = f"probe exited {done.returncode}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
        except subprocess.TimeoutExpired:
            why = f"probe still waiting after {timeout + 60} s"
        return f"the second node (raylet {raylet}) ran no task: {why}\n{self.second_log()}"

    def second_log(self) -> str:
        """The last lines of the newest non-head raylet log (``raylet.N.out``)."""
        log = self.gcs_log()
        logs = sorted(log.parent.glob("raylet.*.out"), key=lambda p: p.stat().st_mtime) \
            if log is not None else []
        if not logs:
            return "(no second raylet log)"
        return f"{logs[-1]}:\n" + "\n".join(logs[-1].read_text(errors="replace")
                                             .splitlines()[-30:])

    def playing_on_second(self) -> list[int]:
        """Ray workers of the second node busy with a game."""
        raylet = self.second_raylet()
        return [pid for pid, parent in _playing() if parent == raylet]

    def kill_head_worker_mid_run(self, alive: Callable[[], bool], stored: Callable[[], int],
                                 at_least: int = 1) -> int:
        """SIGKILL a Ray worker process of the head node busy with a game, once ``at_least``
        games are stored (Ray retries its task; the node stays): the pid killed."""
        second = self.second_raylet()
        deadline = time.monotonic() + 240
        while True:
            assert alive(), "the run ended before a worker could be killed"
            assert time.monotonic() < deadline, "no game got under way on the head"
            if stored() >= at_least and (busy := [pid for pid, parent in _playing()
                                                  if parent != second]):
                os.kill(busy[0], signal.SIGKILL)      # at once: still at its game
                return busy[0]
            time.sleep(0.05)

    def kill_second_mid_run(self, alive: Callable[[], bool], stored: Callable[[], int],
                            at_least: int = 1) -> tuple[int, int]:
        """SIGKILL the second node's raylet once ``at_least`` games are stored and another is
        under way on that node: how many games were under way there (lost, to be played
        again) and how many were stored (read while they were under way)."""
        raylet = self.second_raylet()
        assert raylet is not None
        deadline = time.monotonic() + 240

        def node() -> str:  # said only on a failure: does the node still run a task?
            return self.probe_second(raylet, timeout=20) or "it runs a task pinned to it"

        while True:
            assert alive(), f"the run ended before the node could be killed; {node()}"
            assert time.monotonic() < deadline, \
                f"no game got under way on the second node; {node()}"
            # Stored first, then under way, then the kill at once: a game that ended between
            # a look and the kill must not leave the node killed with no game lost (two CI
            # runs: the test then waited for a game on a dead node until the run ended or for
            # 240 s).
            if (games := stored()) >= at_least and (busy := self.playing_on_second()):
                os.kill(raylet, signal.SIGKILL)
                return len(busy), games
            time.sleep(0.05)


def _playing() -> list[tuple[int, int]]:
    """(pid, parent pid) of every Ray worker busy with a game (its title names the task)."""
    return [(pid, _parent(pid)) for pid in _pids()
            if _cmdline(pid).startswith(b"ray::play_remote")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def two_nodes(quick_detection: bool = True) -> Iterator[Cluster]:
    """Start the cluster (``ray start``, as an organiser would); stop its processes after,
    whatever happened (not ``ray stop``, which would end every Ray cluster of this machine:
    other checkouts' tests run their own). ``quick_detection``: the
    head declares a silent node dead after 3 missed checks 0.5 s apart (Ray's default took
    about 15 s here: benchmarks/ray_node_loss.py); only the wait for the lost games is
    shorter."""
    if importlib.util.find_spec("ray") is None:
        pytest.skip("Ray is not installed (the dev extra installs it): pip install ray")
    port = free_port()
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    if quick_detection:
        env.update(RAY_health_check_period_ms="500", RAY_health_check_timeout_ms="500",
                   RAY_health_check_failure_threshold="3")
    if (Path.home() / ".ray" / "auth_token").is_file() or "RAY_AUTH_TOKEN" in env:
        env.setdefault("RAY_AUTH_MODE", "token")     # a node joins with the head's token
    cluster = Cluster(f"127.0.0.1:{port}", env)
    try:
        started = subprocess.run(
            [str(RAY), "start", "--head", f"--port={port}", "--node-ip-address=127.0.0.1",
             "--num-cpus=2", "--include-dashboard=false", "--disable-usage-stats"],
            env=env, capture_output=True, text=True, timeout=180)
        assert started.returncode == 0, started.stdout + started.stderr
        cluster.start_second()
        yield cluster
    finally:
        cluster.stop()
        left = cluster.processes()
        assert not left, f"Ray processes left running: {sorted(left)}"
