"""What ``arena doctor`` reports: which protections the sandbox has on this host, one line each."""

from __future__ import annotations

import os
import sys

from arena.isolation.sandbox import SandboxUnavailable, probe_bwrap, protections

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
    if ok:
        lines.append(_image_line())
    missing = found.missing()
    if missing and ok:
        lines.append(f"missing here: {', '.join(missing)} (see docs/security.md for what each "
                     "layer stops and what holds without it)")
    return lines, ok


def _image_line() -> str:
    """What bots read: the RAM image, its size, the packages in it, and swap (which could
    page it out, and so bring back a cold state a bot can time)."""
    from arena.isolation.image import DEFAULT_PACKAGES
    from arena.isolation.sandbox import Sandbox, SandboxMode

    box = Sandbox(SandboxMode.BWRAP, packages=DEFAULT_PACKAGES)
    try:
        image = box.image()
        assert image is not None
        packages = ", ".join(f"{p.name} {p.version}" for p in image.packages) or "none"
        line = (f"files: bots read a read-only RAM image ({len(image.files)} files, "
                f"{image.size / (1 << 20):.0f} MiB per worker; packages: {packages})")
    finally:
        box.close()
    if swap_in_use():
        line += ("; SWAP IS ON: the image's pages could be swapped out and a bot could time "
                 "that (turn swap off on a competition machine)")
    else:
        line += "; no swap"
    return line


def swap_in_use() -> bool:
    """Whether this machine has swap (``/proc/swaps`` lists a device or file)."""
    try:
        with open("/proc/swaps") as f:
            return len(f.read().strip().splitlines()) > 1
    except OSError:
        return False
