"""A value the server rebuilds from the league now and then (the leaderboard, the live site):
by one request at a time while the others get the previous value, and no more often than
:data:`SHARE` allows: a rebuild that took *t* seconds is not done again for ``t / SHARE``
seconds (nor for ``min_age``), so rebuilding takes at most that share of the server's time
however large the league grows."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["SHARE", "Rebuilt"]

#: The most of the server's time one cached value may spend being rebuilt.
SHARE = 0.1

_T = TypeVar("_T")


class Rebuilt(Generic[_T]):
    """``build()`` cached: checked again after ``min_age`` seconds (or longer, see
    :data:`SHARE`), and built again only when ``key()`` changed (thread-safe)."""

    def __init__(self, build: Callable[[], _T], key: Callable[[], Hashable], *,
                 min_age: float) -> None:
        self._build = build
        self._key = key
        self.min_age = min_age
        self._lock = threading.Lock()
        self._value: tuple[Hashable, _T] | None = None
        self._checked = 0.0
        self._age = min_age          #: how long a value is served before it is checked
        self.builds = 0

    @property
    def previous(self) -> _T | None:
        """The value built last (``None`` before the first build): a build may start from it."""
        value = self._value
        return None if value is None else value[1]

    def get(self) -> _T:
        value = self._value
        if value is not None and time.monotonic() - self._checked < self._age:
            return value[1]
        if not self._lock.acquire(blocking=value is None):
            assert value is not None
            return value[1]          # another request is rebuilding it: the previous one
        try:
            value = self._value
            if value is not None and time.monotonic() - self._checked < self._age:
                return value[1]
            key = self._key()
            if value is None or value[0] != key:
                start = time.monotonic()
                value = self._value = (key, self._build())
                self.builds += 1
                self._age = max(self.min_age, (time.monotonic() - start) / SHARE)
            self._checked = time.monotonic()
            return value[1]
        finally:
            self._lock.release()
