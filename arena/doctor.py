"""What ``arena doctor`` reports: which protections the sandbox has on this host, one line each."""

from __future__ import annotations

import os
import sys

from arena.sandbox import SandboxUnavailable, probe_bwrap, protections

__all__ = ["report"]


def report() -> tuple[list[str], bool]:
    """The lines ``arena doctor`` prints, and whether bots can be run sandboxed here."""
    lines = [f"python: {sys.version.split()[0]} ({os.path.realpath(sys.executable)}); "
             f"running as {'root' if os.getuid() == 0 else f'uid {os.getuid()}'}"]
    try:
        probe_bwrap()
        lines.append("bwrap: works (namespaces: mount, pid, net, ipc, uts"
                     + (", user" if os.getuid() != 0 else "") + "; read-only view; private /tmp)")
        ok = True
    except SandboxUnavailable as err:
        lines.append(f"bwrap: NOT AVAILABLE: {err}")
        ok = False
    found = protections()
    lines += found.lines()
    missing = found.missing()
    if missing and ok:
        lines.append(f"missing here: {', '.join(missing)} (see docs/security.md for what each "
                     "layer stops and what holds without it)")
    return lines, ok
