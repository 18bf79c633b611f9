"""A bot's cgroup on cgroup v2: one folder in the unified hierarchy, with the controllers the
host delegates (memory, pids, cpu), its own freezer and, on newer kernels, ``cgroup.kill``."""

from __future__ import annotations

import logging
import os

from arena.isolation.cgroups.cgroup import CPU_PERIOD_US, BotCgroup
from arena.isolation.cgroups.cgroupfs import parse_keyed, read_file, write_file

__all__ = ["CgroupV2"]

log = logging.getLogger(__name__)


class CgroupV2(BotCgroup):
    """One bot's cgroup on cgroup v2."""

    FREEZER = ""

    def _memory(self) -> bool:
        return any(c.startswith("memory") for c in self.support.controllers)

    def limit(self, memory_bytes: int, pids: int) -> None:
        if self._memory():
            self._set("", "memory.max", str(memory_bytes))
            self._set("", "memory.swap.max", "0", optional=True)
        if "pids" in self.support.controllers:
            self._set("", "pids.max", str(pids))
        self._set("", "cpu.max", f"{CPU_PERIOD_US} {CPU_PERIOD_US}", optional=True)

    def _set_frozen(self, directory: str, frozen: bool) -> None:
        write_file(os.path.join(directory, "cgroup.freeze"), "1" if frozen else "0")

    def _is_frozen(self, directory: str) -> bool:
        return parse_keyed(read_file(os.path.join(directory, "cgroup.events"))).get("frozen") == 1

    def _kill_at_once(self) -> bool:
        kill = os.path.join(self.paths[0], "cgroup.kill")
        if not os.path.exists(kill):
            return False
        try:
            write_file(kill, "1")
        except FileNotFoundError:
            return True  # already removed
        except OSError as err:
            log.warning("cgroup.kill failed in %s (%s); killing one by one", self.paths[0], err)
            return False
        return True

    def cpu_time(self) -> float:
        return parse_keyed(self._stat("", "cpu.stat")).get("usage_usec", 0) / 1e6

    def memory_peak(self) -> int:
        if not self._memory():
            return 0
        directory = self.dirs[""]
        name = "memory.peak" if os.path.exists(f"{directory}/memory.peak") else "memory.current"
        return int(self._stat("", name))

    def oom_killed(self) -> bool:
        if not self._memory():
            return False
        return parse_keyed(self._stat("", "memory.events")).get("oom_kill", 0) > 0
