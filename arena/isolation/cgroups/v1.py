"""A bot's cgroup on cgroup v1: one folder per controller (memory, pids, freezer, cpuacct,
cpu), each bot's folder in every hierarchy the host mounts."""

from __future__ import annotations

import os

from arena.isolation.cgroups.cgroup import CPU_PERIOD_US, BotCgroup
from arena.isolation.cgroups.cgroupfs import parse_keyed, read_file, write_file

__all__ = ["CgroupV1"]


class CgroupV1(BotCgroup):
    """One bot's cgroup on cgroup v1."""

    FREEZER = "freezer"

    def limit(self, memory_bytes: int, pids: int) -> None:
        # The OOM killer, not a hang, when the limit is hit (v1 inherits the parent's
        # setting); then RAM, then RAM+swap (it may not be below the RAM limit).
        self._set("memory", "memory.oom_control", "0", optional=True)
        self._set("memory", "memory.limit_in_bytes", str(memory_bytes))
        self._set("memory", "memory.memsw.limit_in_bytes", str(memory_bytes), optional=True)
        self._set("pids", "pids.max", str(pids))
        if "cpu" in self.dirs:
            self._set("cpu", "cpu.cfs_period_us", str(CPU_PERIOD_US), optional=True)
            self._set("cpu", "cpu.cfs_quota_us", str(CPU_PERIOD_US), optional=True)

    def _set_frozen(self, directory: str, frozen: bool) -> None:
        write_file(os.path.join(directory, "freezer.state"), "FROZEN" if frozen else "THAWED")

    def _is_frozen(self, directory: str) -> bool:
        return read_file(os.path.join(directory, "freezer.state")).strip() == "FROZEN"

    def cpu_time(self) -> float:
        if "cpuacct" not in self.dirs:
            return 0.0
        return int(self._stat("cpuacct", "cpuacct.usage")) / 1e9

    def memory_peak(self) -> int:
        return int(self._stat("memory", "memory.max_usage_in_bytes"))

    def oom_killed(self) -> bool:
        control = parse_keyed(self._stat("memory", "memory.oom_control"))
        if "oom_kill" in control:
            return control["oom_kill"] > 0
        # Kernels before 4.13 have no counter: report whether the limit was ever hit.
        # With memsw limit == memory limit, it is the memsw counter that fails first.
        counters = ["memory.failcnt"]
        if "memory+swap" in self.support.controllers:
            counters.append("memory.memsw.failcnt")
        return any(int(self._stat("memory", name)) > 0 for name in counters)
