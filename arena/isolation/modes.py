"""The sandbox's modes as values (``--sandbox``, what a sandbox's files are), in a module that
imports nothing: options, stored settings and the command line name them without loading the
sandbox itself."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["FileView", "SandboxMode"]


class SandboxMode(StrEnum):
    """How bot processes are isolated (``--sandbox``); equal to its name as a string."""

    AUTO = "auto"    #: bwrap, and refuse to run if it does not work here
    BWRAP = "bwrap"  #: the bubblewrap sandbox with every layer this host gives
    NONE = "none"    #: plain processes: only for bots you trust


class FileView(StrEnum):
    """What a bwrap sandbox's files are."""

    IMAGE = "image"  #: a read-only copy in RAM of only what bots need (always, for bots)
    #: The host's files, read-only, as before the image: only for the tests that show what
    #: the image closes (a page-cache or directory-cache channel between sandboxes).
    HOST = "host"
