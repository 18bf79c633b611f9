"""What the server refuses: :class:`Refused`, the HTTP status and the message for the client
(``serve.app`` answers it as ``{"error": message}``)."""

from __future__ import annotations

__all__ = ["Refused"]


class Refused(Exception):
    """A request the server turns down: the HTTP status and the message for the client."""

    def __init__(self, status: int, message: str,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        #: Headers of the answer (``Retry-After`` of a 429).
        self.headers = headers
