"""``arena submit``: send a bot to an ``arena serve`` and print its validation report.

The bot is read and checked here first (:func:`arena.pool.read_bot`: a ``.py`` file, a folder
holding ``bot.py``, or such a folder as ``.zip``/``.tar.gz``), within the server's limits when
it says them (``GET /api/limits``): a bot the server would refuse for its files is refused
here, in one line, and nothing is sent. A ``.py`` file is sent as it is; a folder or an archive
is sent packed (:meth:`arena.pool.BotFiles.pack`) as ``NAME.tar.gz``. The upload asks
``Expect: 100-continue``, so a server that refuses it from its headers (too large) says so
before the bot is sent, and its answer is printed rather than a broken connection.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import secrets
import select
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Annotated, Any

import typer

from arena import BotFiles, BotFilesError, BotLimits, missing_bot_hint, read_bot, safe_text
from cli.common import fail

__all__ = ["submit_command"]

#: Seconds to wait for the server's limits (validating the bot may take minutes).
LIMITS_TIMEOUT = 30
#: Seconds to wait for ``100 Continue`` before sending the bot anyway.
CONTINUE_WAIT = 5.0
#: The longest answer read from a server that refused an upload before it was sent.
EARLY_ANSWER = 1 << 16


def _request(request: urllib.request.Request, url: str, timeout: float) -> tuple[int, bytes]:
    """The status and body of the server's answer (an error status included)."""
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        fail(f"cannot reach {safe_text(url)}: {safe_text(str(reason))}")


def _server_limits(url: str) -> BotLimits | None:
    """The server's limits on a bot, when it says them (None: an older server)."""
    status, body = _request(urllib.request.Request(url.rstrip("/") + "/api/limits"), url,
                            LIMITS_TIMEOUT)
    if status != 200:
        return None
    try:
        found: Any = json.loads(body)
        return BotLimits(int(found["max_bot_bytes"]), int(found["max_bot_files"]))
    except (ValueError, TypeError, KeyError):
        return None


def _read(path: Path, limits: BotLimits, url: str | None) -> BotFiles:
    """The bot's files, checked as the server will (one-line error, nothing sent, if not)."""
    after = "; nothing was sent" + (f" ({safe_text(url)} takes bots of at most "
                                    f"{limits.max_bytes / (1 << 20):g} MiB and "
                                    f"{limits.max_files} files)" if url else "")
    try:
        files = read_bot(path, limits=limits)
        compile(files.source(), str(path), "exec", dont_inherit=True)
    except BotFilesError as err:
        fail(safe_text(str(err)) + after)
    except SyntaxError as err:
        fail(f"{safe_text(str(path))} is not valid Python (line {err.lineno}: "
             f"{safe_text(str(err.msg))}){after}")
    except (OSError, ValueError) as err:
        fail(f"cannot read {safe_text(str(path))}: {safe_text(str(err))}")
    return files


def _post(url: str, headers: dict[str, str], body: bytes, timeout: float
          ) -> tuple[int, bytes]:
    """POST ``body`` to ``URL/api/bots`` after the server's ``100 Continue`` (or after
    :data:`CONTINUE_WAIT` without an answer); its status and answer."""
    parts = urllib.parse.urlsplit(url)
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn: http.client.HTTPConnection | None = None
    try:
        conn = kind(parts.hostname or "", parts.port, timeout=timeout)
        conn.putrequest("POST", parts.path.rstrip("/") + "/api/bots")
        for key, value in {**headers, "Content-Length": str(len(body)),
                           "Expect": "100-continue"}.items():
            conn.putheader(key, value)
        conn.endheaders()
        early = _early_answer(conn)
        if early is not None:
            return early
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            conn.send(body)   # if the server answers before it has it all, the answer follows
        response = conn.getresponse()
        return response.status, response.read()
    except (OSError, http.client.HTTPException, ValueError) as err:
        fail(f"cannot reach {safe_text(url)}: {safe_text(str(err) or type(err).__name__)}")
    finally:
        if conn is not None:
            conn.close()


def _early_answer(conn: http.client.HTTPConnection) -> tuple[int, bytes] | None:
    """The server's final answer if it gave one instead of ``100 Continue`` (None: send)."""
    assert conn.sock is not None
    if not select.select([conn.sock], [], [], CONTINUE_WAIT)[0]:
        return None                       # no answer: a server that does not say "continue"
    stream = conn.sock.makefile("rb", buffering=0)   # unbuffered: nothing read past the head
    head = []
    while (line := stream.readline(8192)) not in (b"\r\n", b"\n", b""):
        head.append(line.decode("latin-1").strip())
    if not head:
        raise ConnectionResetError("the server closed the connection")
    status = int(head[0].split()[1])
    if status == 100:
        return None
    length = next((int(h.split(":", 1)[1]) for h in head[1:]
                   if h.lower().startswith("content-length:")), EARLY_ANSWER)
    return status, stream.read(min(length, EARLY_ANSWER)) or b""


def _multipart(fields: dict[str, str], filename: str, data: bytes) -> tuple[bytes, str]:
    boundary = f"sushi-{secrets.token_hex(16)}"
    parts = []
    for key, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n'
                     f"{value}\r\n".encode())
    safe_name = filename.replace('"', "_").replace("\r", "_").replace("\n", "_")
    kind = "text/x-python" if filename.endswith(".py") else "application/octet-stream"
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                 f'filename="{safe_name}"\r\nContent-Type: {kind}\r\n\r\n'.encode()
                 + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def submit_command(
    url: Annotated[str, typer.Argument(help="The server, e.g. http://127.0.0.1:8000",
                                       metavar="URL")],
    bot: Annotated[Path, typer.Argument(
        help="The bot: a .py file, a folder holding bot.py, or such a folder as .zip or "
        ".tar.gz.", metavar="BOT")],
    token: Annotated[str, typer.Option(help="Your participant token.", metavar="TOKEN")],
    name: Annotated[str | None, typer.Option(
        help="The bot's name in the league. Default: the file's or folder's name without "
        "extension.", show_default=False, metavar="NAME")] = None,
) -> None:
    """Submit a bot to an arena serve: checks it here, sends it, prints the validation report;
    exits non-zero if the bot was not entered."""
    if not url.startswith(("http://", "https://")):
        fail(f"the URL must start with http:// or https://, not {safe_text(url)}")
    if not bot.exists():
        fail(f"cannot read {safe_text(str(bot))}: no such file or folder"
             + safe_text(missing_bot_hint(str(bot))))
    limits = _server_limits(url)
    files = _read(bot, limits or BotLimits(), url if limits else None)
    if files.kind == "file":
        filename, data = bot.name, files.files[0][1]
    else:
        filename, data = f"{files.name}.tar.gz", files.pack()
    body, content_type = _multipart({"name": name} if name else {}, filename, data)
    status, text = _post(url, {"Authorization": f"Bearer {token}",
                               "Content-Type": content_type}, body, 300)
    try:
        reply: Any = json.loads(text)
    except ValueError:
        fail(f"the server answered {status} with something that is not JSON")
    if not isinstance(reply, dict):
        fail(f"the server answered {status} with an unexpected reply")
    if "error" in reply:
        fail(f"{status}: {safe_text(str(reply['error']))}")
    validation = reply.get("validation") or {}
    typer.echo(safe_text(str(validation.get("report", "")), multiline=True))
    if status == 201:
        typer.echo(f"entered: {safe_text(str(reply.get('name')))} version "
                   f"{reply.get('version')}")
        return
    typer.echo(f"not entered: {safe_text(str(reply.get('name')))} failed validation")
    raise typer.Exit(1)
