"""Submissions validated in the sandbox, a bounded number at once: :data:`VALIDATORS` run, at
most :data:`VALIDATION_QUEUE` more wait, and beyond those a submission is told to try again
(503) rather than queued without end."""

from __future__ import annotations

import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from arena import (
    ArenaOptions,
    BotFiles,
    BotSpec,
    SandboxUnavailable,
    Validation,
    validation_report,
    write_tree,
)
from serve.errors import Refused

__all__ = ["VALIDATION_QUEUE", "VALIDATORS", "Validator"]

#: Submissions validated at once, and waiting beyond those (then 503: try again later).
VALIDATORS = 1
VALIDATION_QUEUE = 4


class Validator:
    """Validates bots with the league's arena options (no bot log: a validation's output is
    its report)."""

    def __init__(self, options: ArenaOptions) -> None:
        self.options = replace(options, log_dir=None)
        self._pool = ThreadPoolExecutor(VALIDATORS, thread_name_prefix="validate")
        self.slots = threading.BoundedSemaphore(VALIDATORS + VALIDATION_QUEUE)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def validate(self, bot: str, files: BotFiles) -> Validation:
        """Validate in the sandbox, at most VALIDATORS at once (503 when too many wait)."""
        if not self.slots.acquire(blocking=False):
            raise Refused(503, "the validation queue is full; try again in a minute")
        try:
            return self._pool.submit(self._validate_now, bot, files).result()
        finally:
            self.slots.release()

    def _validate_now(self, bot: str, files: BotFiles) -> Validation:
        with tempfile.TemporaryDirectory(prefix="sushi-submission-") as scratch:
            # Named by content, never by anything the request chose.
            path = Path(scratch) / files.digest[:16]
            if files.kind == "file":
                path = path.with_suffix(".py")
                path.write_bytes(files.files[0][1])
            else:
                write_tree(files, path)
            try:
                result = validation_report(BotSpec(bot, path), self.options)
            except SandboxUnavailable as err:
                raise Refused(503, f"the sandbox cannot run on the server: {err}") from None
            shown = f"{bot}.py" if files.kind == "file" else bot
            return Validation(result.ok, result.report.replace(str(path), shown))
