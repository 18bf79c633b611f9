"""Inside the sandbox: the relay between the runner's requests and a bot that is a program.

A bot folder holding ``bot.json`` (``{"command": ["./mybot", "arg"]}``) instead of ``bot.py``
is a program that speaks JSON lines (INTERFACES.md, "Any language"). Its runner does not load
Python code: at ``load`` it starts the program (:func:`start`), in the bot's folder, with a
pipe on its stdin and one on its stdout, its stderr the bot's log; then, for the rest of the
game, :class:`Program` turns each request into one line on the program's stdin and each answer
line into the runner's reply. The hub sees the same runner and the same replies as for a
Python bot: no answer is a timeout (the hub's time rule), the program's exit is the runner's
(a crash), and anything on stdout that is not an answer to a pick is a protocol fault (a reply
line the hub cannot parse, which names what the program wrote).

The program is forked and exec'd before the runner locks itself down, so the relay needs no
system call the seccomp filter denies (pipes and a new process are made before the filter);
the child locks itself down the same way (limits, the bot's uid, no capability, the same
filter) right before ``execve``, so the program runs under exactly what a Python bot runs
under, and cannot start a process of its own (docs/security.md, "Bots that are programs").

Like the runner, this file runs inside the sandbox (as ``sushi_program`` in its library) and
imports only the standard library.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING or __package__:  # on the host (type checks, documentation): the arena's copy
    from typing import Any

    from arena.inside import jail as sushi_jail
else:  # in the sandbox: the library's copy, next to this file
    import sushi_jail

__all__ = ["CONFIG", "MAX_LINE", "Program", "ProgramError", "command", "start"]

#: The file naming a program bot's command.
CONFIG = "bot.json"
#: The longest line the program may write on stdout (the hub's limit on a reply line).
MAX_LINE = 64 << 10
#: Seconds a program may take to exit after the arena is done with it (it read end_game).
_EXIT_GRACE = 0.2


def _shown(line: bytes) -> str:
    """The line the program wrote, quoted, for a fault's detail: at most 64 characters (cut:
    ``...`` before the closing quote), so the runner's whole message is shown (the hub shows
    100 characters of a line that is not a reply: ``arena.runtime.protocol.SHOWN``)."""
    quoted = repr(line[:64].decode("utf-8", "backslashreplace"))
    return quoted if len(quoted) <= 64 else f"{quoted[:60]}...{quoted[0]}"


class ProgramError(Exception):
    """``bot.json`` names no program this runner can start; the message says why."""


def command(files: dict[str, bytes], runtimes: dict[str, str] | None = None) -> list[str]:
    """The command ``bot.json`` names: a list of strings whose first is a file of the bot's
    folder (``./name``); or, for a bot naming a runtime of ``runtimes`` (name -> its
    executable's absolute path, those the organiser allows), the runtime's name, replaced by
    its executable's path."""
    import json

    try:
        config = json.loads(files[CONFIG].decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise ProgramError(f"{CONFIG} is not valid JSON: {err}") from None
    argv = config.get("command") if isinstance(config, dict) else None
    if (not isinstance(argv, list) or not argv or len(argv) > 64
            or not all(isinstance(a, str) and "\0" not in a for a in argv)):
        raise ProgramError(f"{CONFIG} needs \"command\": a list of strings, the program first")
    runtime = config.get("runtime")
    if runtime is not None:
        if not isinstance(runtime, str):
            raise ProgramError(f"{CONFIG}'s \"runtime\" must be a name, like \"node\"")
        if runtime not in (runtimes or {}):
            raise ProgramError(f"{CONFIG} names the runtime {runtime!r}, which this arena does "
                               f"not allow (an organiser allows it with --allow-runtime "
                               f"{runtime})")
        if argv[0] != runtime:
            raise ProgramError(f"{CONFIG}'s command must start with its runtime, {runtime!r} "
                               f"(not {argv[0]!r})")
        return [(runtimes or {})[runtime], *argv[1:]]
    path = os.path.normpath(argv[0])
    if path.startswith(("/", "..")) or path not in files:
        raise ProgramError(f"{CONFIG}'s command {argv[0]!r} is not a file of the bot's folder")
    return [path, *argv[1:]]


def start(folder: str, argv: list[str], jail: sushi_jail.Jail | None) -> Program:
    """Fork the program's process: its stdin and stdout pipes to this process, its stderr the
    bot's log (fd 2), in ``folder``; the child locks itself down with ``jail`` (None: the
    limits were applied at the runner's start) and execs ``folder/argv[0]`` (a runtime's
    executable when ``argv[0]`` is absolute: :func:`command`)."""
    to_child_r, to_child_w = os.pipe()
    from_child_r, from_child_w = os.pipe()
    runtime = argv[0].startswith("/")  # an allowed runtime's executable, in the image
    path = argv[0] if runtime else f"{folder}/{argv[0]}"
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child, replaced by the program
        try:
            os.dup2(to_child_r, 0)
            os.dup2(from_child_w, 1)
            os.closerange(3, 1 << 16)
            os.chdir(folder)
            import signal

            signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # as a program started by a shell
            if jail is not None:  # a runtime's program: its filter (docs/security.md)
                jail.lock(0, runtime=runtime)
            sushi_jail.die_with_parent()
            # The loader finds $ORIGIN through /proc/self/exe, which the sandbox lacks.
            env = {**os.environ, "LD_ORIGIN_PATH": os.path.dirname(path)}
            os.execve(path, [os.path.basename(argv[0]), *argv[1:]], env)
        except BaseException as err:  # noqa: BLE001 - said on the log, then exit 127
            try:  # noqa: SIM105 - no contextlib here
                os.write(2, f"cannot start the program {argv[0]!r}: {err}\n".encode())
            except OSError:
                pass
        os._exit(127)
    os.close(to_child_r)
    os.close(from_child_w)
    return Program(pid, to_child_w, from_child_r)


class Program:
    """The running program of a bot: writes it requests, reads its answers."""

    def __init__(self, pid: int, stdin: int, stdout: int) -> None:
        self.pid = pid
        self.stdin = stdin
        self.stdout = stdout
        self.buffer = b""
        #: The program has exited and was reaped (its pid no longer ours to signal).
        self.reaped = False
        #: Seconds of the last pick's time limit: how long it may take to end its game.
        self.time_limit = 0.5
        #: Why the program broke the protocol. A later pick would be refused with the same
        #: words, but none comes: the arena replaces the process after a protocol fault
        #: (arena.game.faults), so each fault quotes what its own pick got.
        self.broken = ""

    # ------------------------------------------------------------------ requests
    def begin(self, request: dict[str, Any]) -> None:
        """``new_game`` (also for a fresh process joining a game in progress)."""
        self.write({"type": "new_game", "obs": request["obs"], "seed": request["seed"]})

    def end(self, request: dict[str, Any]) -> None:
        """``end_game``, then end of file on its stdin: the program's game is over, and it
        may take most of a pick's time limit to exit (killed after that, with no fault: it had
        no question to answer). A program that exited after its last pick is done."""
        self.write({"type": "end_game", "result": request["result"]}, ending=True)
        os.close(self.stdin)
        self.stdin = -1
        self.wait(0.8 * self.time_limit)

    def pick(self, request: dict[str, Any]) -> object:
        """The program's answer to ``pick``: the value of its ``"pick"``; raises
        :class:`ProgramError` (a protocol fault) for anything else."""
        if not self.broken and self.pending():
            line = self.line()
            self.broken = f"stdout before a pick: {_shown(line)}"
        if self.broken:
            raise ProgramError(self.broken)
        self.time_limit = float(request["obs"].get("time_limit", self.time_limit))
        self.write({"type": "pick", "obs": request["obs"]})
        line = self.line()
        import json

        try:
            answer = json.loads(line)
        except ValueError:
            answer = None
        if not isinstance(answer, dict) or list(answer) != ["pick"]:
            self.broken = f"stdout: {_shown(line)}"
            raise ProgramError(self.broken)
        return answer["pick"]

    # ------------------------------------------------------------------ the pipes
    def pause(self, stop: bool) -> None:
        """Stop the program once it has answered, continue it when it is asked again: it
        gets no CPU between its turns. (The arena stops the runner alone, under seccomp, as
        a Python bot's process can start no other; the cgroup's freeze would stop both.)"""
        if self.reaped:
            return
        try:  # noqa: SIM105 - no contextlib here
            os.kill(self.pid, 19 if stop else 18)  # SIGSTOP, SIGCONT
        except OSError:
            pass  # exited: the next read or write says so

    def write(self, message: dict[str, Any], *, ending: bool = False) -> None:
        import json

        self.pause(False)
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self.stdin, view):]
        except BrokenPipeError:
            if not ending:
                self.exited()

    def pending(self) -> bool:
        """The program wrote something not asked for (or closed its stdout)."""
        import select

        return bool(self.buffer) or bool(select.select([self.stdout], [], [], 0)[0])

    def line(self) -> bytes:
        """The next line the program writes on stdout (without its newline)."""
        while b"\n" not in self.buffer:
            if len(self.buffer) > MAX_LINE:
                self.broken = f"stdout: a line longer than {MAX_LINE} bytes"
                raise ProgramError(self.broken)
            data = os.read(self.stdout, MAX_LINE)
            if not data:
                self.exited()
            self.buffer += data
        line, _, self.buffer = self.buffer.partition(b"\n")
        if len(line) > MAX_LINE:
            self.broken = f"stdout: a line longer than {MAX_LINE} bytes"
            raise ProgramError(self.broken)
        return line

    def exited(self) -> None:
        """The program closed its stdout or stdin: the runner ends with its exit status (a
        crash, as when a Python bot's process dies)."""
        status = self.wait(_EXIT_GRACE)
        if os.WIFSIGNALED(status):
            code = 128 + os.WTERMSIG(status)
            said = f"killed by signal {os.WTERMSIG(status)}"
        else:
            code = os.WEXITSTATUS(status)
            said = f"exited with status {code}"
        try:  # noqa: SIM105 - no contextlib here
            os.write(2, f"the program {said} during the game\n".encode())
        except OSError:
            pass
        os._exit(code or 1)

    def wait(self, grace: float) -> int:
        """The program's wait status; killed after ``grace`` seconds."""
        import time

        if self.reaped:
            return 0
        until = time.monotonic() + grace
        status = None
        while status is None and time.monotonic() < until:
            pid, found = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                status = found
            else:
                time.sleep(0.002)
        if status is None:
            try:  # noqa: SIM105 - no contextlib here
                os.kill(self.pid, 9)
            except OSError:
                pass
            status = os.waitpid(self.pid, 0)[1]
        self.reaped = True
        return status

    def close(self) -> None:
        """The arena is done with this process: the program's stdin closed, a moment to
        finish, then killed."""
        if self.stdin >= 0:
            os.close(self.stdin)
            self.stdin = -1
        self.pause(False)
        self.wait(_EXIT_GRACE)
