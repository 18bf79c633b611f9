"""The descriptors one event loop watches, and whose each is.

:class:`Watcher` wraps one ``epoll`` object: every descriptor the hub watches (a process's reply
channel, its output, its pidfd, its request pipe while a request waits to be written; the
zygote's socket and output) is registered with its owner and its role, and :meth:`poll`
hands back (owner, role) pairs. It knows nothing of what the roles mean. Where there is no
``epoll`` (macOS: ``--sandbox none`` only) it uses the platform's own selector instead
(``selectors.DefaultSelector``: kqueue there).
"""

from __future__ import annotations

import contextlib
import select
import selectors
from collections.abc import Iterator
from enum import Enum
from typing import Generic, TypeVar

__all__ = ["Role", "Watcher"]

Owner = TypeVar("Owner")


class Role(Enum):
    """What a watched descriptor is."""

    CHANNEL = "channel"        #: a process's replies
    OUTPUT = "output"          #: a process's stdout and stderr
    EXIT = "exit"              #: a process's pidfd
    WRITABLE = "writable"      #: a process's request pipe, with a request left to write
    SLOT = "slot"              #: the slot waiter's signal: a core slot arrived
    ZYGOTE = "zygote"          #: the zygote's control socket
    ZYGOTE_OUTPUT = "zygote output"


class Watcher(Generic[Owner]):
    """One epoll object and the owner and role of each descriptor it watches."""

    def __init__(self) -> None:
        self._epoll = select.epoll() if hasattr(select, "epoll") else None
        #: The portable selector, where there is no epoll (macOS).
        self._selector = selectors.DefaultSelector() if self._epoll is None else None
        self._fds: dict[int, tuple[Owner | None, Role]] = {}

    def watch(self, fd: int, owner: Owner | None, role: Role) -> None:
        """Watch ``fd`` (for writability when its role is ``WRITABLE``, else readability)."""
        if self._epoll is not None:
            self._epoll.register(fd, select.EPOLLOUT if role is Role.WRITABLE else select.EPOLLIN)
        else:
            assert self._selector is not None
            self._selector.register(fd, selectors.EVENT_WRITE if role is Role.WRITABLE
                                    else selectors.EVENT_READ)
        self._fds[fd] = (owner, role)

    def unwatch(self, fd: int) -> None:
        """Stop watching ``fd`` (nothing if it is not watched)."""
        if self._fds.pop(fd, None) is not None:
            with contextlib.suppress(OSError, ValueError, KeyError):  # closed already
                if self._epoll is not None:
                    self._epoll.unregister(fd)
                elif self._selector is not None:
                    self._selector.unregister(fd)

    def owned_by(self, owner: Owner, fd: int) -> bool:
        """Whether ``fd`` is watched for ``owner``."""
        return fd >= 0 and fd in self._fds and self._fds[fd][0] is owner

    def owners(self) -> Iterator[Owner]:
        """Every owner with a watched descriptor (repeated once per descriptor)."""
        return (owner for owner, _ in self._fds.values() if owner is not None)

    def poll(self, timeout: float) -> list[tuple[Owner | None, Role]]:
        """The (owner, role) of every descriptor ready within ``timeout`` seconds."""
        if self._epoll is not None:
            fds = [fd for fd, _event in self._epoll.poll(timeout)]
        else:
            assert self._selector is not None
            fds = [key.fd for key, _events in self._selector.select(max(timeout, 0))]
        ready = []
        for fd in fds:
            entry = self._fds.get(fd)
            if entry is not None:
                ready.append(entry)
        return ready

    def close(self) -> None:
        if self._epoll is not None:
            self._epoll.close()
        elif self._selector is not None:
            self._selector.close()
