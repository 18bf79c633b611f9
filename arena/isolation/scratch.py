"""The scratch folders of bot processes that run without a sandbox (``--sandbox none``).

Each is ``sushi-bot-<pid>-XXXXXXXX`` in the temporary folder, ``<pid>`` the process that made it.
The runtime removes a folder once its runner is reaped; a run that is itself killed (SIGKILL, a
lost machine) cannot, and :func:`sweep_scratch` removes those a later run finds: folders whose
maker is gone, older than a minute. A folder whose maker's pid is alive again (reused) is left
alone: it costs a folder, never another run's files.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
import time

__all__ = ["PREFIX", "STALE_AGE", "make_scratch", "sweep_scratch"]

log = logging.getLogger(__name__)

PREFIX = "sushi-bot-"
#: Folders younger than this are left alone (their maker may be starting up elsewhere).
STALE_AGE = 60.0
_NAME = re.compile(re.escape(PREFIX) + r"(\d+)-[A-Za-z0-9_]+\Z")


def make_scratch() -> str:
    """A fresh scratch folder, named for this process."""
    return tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def sweep_scratch(folder: str | None = None, *, min_age: float = STALE_AGE) -> int:
    """Remove the scratch folders of processes that are gone; return how many."""
    folder = folder if folder is not None else tempfile.gettempdir()
    now = time.time()
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError as err:
        log.warning("cannot list %s: %s", folder, err.strerror or err)
        return 0
    for entry in entries:
        found = _NAME.match(entry.name)
        if found is None or int(found.group(1)) == os.getpid():
            continue
        try:
            if not entry.is_dir(follow_symlinks=False) or \
                    now - entry.stat(follow_symlinks=False).st_mtime < min_age:
                continue
        except OSError:
            continue
        if _alive(int(found.group(1))):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed += not os.path.lexists(entry.path)
    return removed
