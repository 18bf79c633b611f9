"""Freeing what a finished runner held (its cgroup, its uid, its scratch folder) in a thread of
its own, off the game's path.

A cgroup can only be removed once the kernel has let go of the dead process, which takes a
little while (``rmdir`` says the group is busy until then); a uid is released after its cgroup.
None of that should make the next game wait, so :class:`Teardown` does it in the background, in
the order given; :meth:`Teardown.close` waits for all of it, so nothing is left behind.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

__all__ = ["Teardown"]

log = logging.getLogger(__name__)


class Teardown:
    """A thread that runs cleanups handed to it, one after the other."""

    def __init__(self) -> None:
        self._work: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="teardown", daemon=True)
        self._thread.start()
        self._closed = False

    def submit(self, cleanup: Callable[[], None]) -> None:
        """Run ``cleanup`` soon, in the background (at once if already closed)."""
        if self._closed:
            cleanup()
        else:
            self._work.put(cleanup)

    def _run(self) -> None:
        while (cleanup := self._work.get()) is not None:
            try:
                cleanup()
            except Exception as err:  # noqa: BLE001 - a cleanup must not stop the others
                log.warning("cleanup failed: %s", err)

    def close(self, timeout: float = 10.0) -> None:
        """Run what is left and stop the thread."""
        if self._closed:
            return
        self._closed = True
        self._work.put(None)
        self._thread.join(timeout)
