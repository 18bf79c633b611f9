"""What the tests of program bots (a folder with ``bot.json``) share: the C programs they
build with gcc (a good one, the protocol breaks every language's programs commit, hostile
programs: the Python zoo's attacks, in C), built once per session by
``tests/arena/conftest.py``'s ``programs`` fixture; a game of one against two good Python bots
(:func:`play`), the check of a protocol break (:data:`PROTOCOL_BREAKS`,
:func:`check_protocol_break`), games with the arena run by an ordinary user
(:func:`check_as_an_ordinary_user`), and the command line as a user runs it
(:func:`run_arena`)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from arena import MAX_FAULTS, BotPool, BotSpec, GameResult
from engine import replay

#: The tests' good Python bots (tests/arena/bots).
_BOTS = Path(__file__).resolve().parent / "bots"

#: Every program: reads JSON lines, answers each pick with the first card of its hand, after
#: ``attempt(turn)`` (NULL: nothing escaped) and ``before_answer(turn)``.
PRELUDE = r"""
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>

static char line[1 << 17];
static const char *attempt(int turn);
static void before_answer(int turn);

int main(void) {
    int turn = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        if (!strstr(line, "\"type\":\"pick\"")) continue;
        turn++;
        const char *escaped = attempt(turn);
        if (escaped) { printf("{\"pick\": \"ESCAPED %s\"}\n", escaped); continue; }
        char *hand = strstr(line, "\"hand\":[\"");
        if (!hand) return 2;
        hand += 9;
        *strchr(hand, '"') = 0;
        before_answer(turn);
        printf("{\"pick\": \"%s\"}\n", hand);
    }
    return 0;
}
"""

GOOD = """
static const char *attempt(int turn) { (void)turn; return NULL; }
static void before_answer(int turn) { (void)turn; }
"""


def _protocol(before: str) -> str:
    return ("static const char *attempt(int turn) { (void)turn; return NULL; }\n"
            f"static void before_answer(int turn) {{ {before} }}\n")


def _hostile(body: str) -> str:
    return ("static const char *attempt(int turn) {\n    if (turn != 1) return NULL;\n"
            f"{body}\n    return NULL;\n}}\n"
            "static void before_answer(int turn) { (void)turn; }\n")


PROGRAMS = {
    "cfirst": GOOD,
    # Protocol breaks.
    "garbage": _protocol('printf("hello there\\n");'),
    # Writes a line naming the round and turn its pick's obs gives, from its second pick on.
    "chatter": _protocol('if (turn >= 2) printf("chat at round %d, turn %d of the game\\n", '
                         'atoi(strstr(line, "\\"round\\":") + 8), '
                         'atoi(strstr(line, "\\"turn\\":") + 7));'),
    "silent": _protocol("if (turn >= 2) { for (;;) pause(); }"),
    "longline": _protocol('if (turn >= 2) { for (int i = 0; i < 100000; i++) putchar(\'x\'); }'),
    "quitter": _protocol("if (turn >= 3) exit(3);"),
    # Hostile programs.
    "forker": _hostile("""
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    if (pid > 0) return "fork";
    if (syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) >= 0) return "clone";
    if (syscall(SYS_vfork) >= 0) return "vfork";
    char *argv[] = {"sh", "-c", "true", NULL};
    execv("/bin/sh", argv);  /* nothing to exec: the image holds no shell */
"""),
    "sockets": _hostile("""
    if (socket(AF_INET, SOCK_STREAM, 0) >= 0) return "inet socket";
    if (socket(AF_UNIX, SOCK_STREAM, 0) >= 0) return "unix socket";
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0) return "socketpair";
"""),
    "tracer": _hostile("""
    if (ptrace(PTRACE_TRACEME, 0, 0, 0) == 0) return "traceme";
    if (ptrace(PTRACE_ATTACH, getppid(), 0, 0) == 0) return "attach to the runner";
    if (ptrace(PTRACE_ATTACH, 1, 0, 0) == 0) return "attach to pid 1";
"""),
    "writer": _hostile("""
    if (open("./bot.json", O_WRONLY | O_APPEND) >= 0) return "wrote bot.json";
    if (open("./new_file", O_WRONLY | O_CREAT, 0644) >= 0) return "created in its folder";
    if (open("/usr/escaped", O_WRONLY | O_CREAT, 0644) >= 0) return "created in /usr";
    if (open("/escaped", O_WRONLY | O_CREAT, 0644) >= 0) return "created in /";
    int fd = open("/tmp/scratch", O_WRONLY | O_CREAT, 0644);  /* its private /tmp works */
    if (fd < 0 || write(fd, "ok", 2) != 2) return "NO /tmp";
"""),
    "locker": _hostile("""
    int fd = open("./bot.json", O_RDONLY);
    if (fd < 0) return "NO bot.json";
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) return "flock";
    struct flock lock = {.l_type = F_RDLCK, .l_whence = SEEK_SET};
    if (fcntl(fd, F_SETLK, &lock) == 0) return "fcntl lock";
    if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0) return "fadvise";
    if (syscall(SYS_memfd_create, "x", 0) >= 0) return "memfd";
"""),
    "threads": _hostile("""
    static pthread_t ids[300];
    int made = 0;
    for (int i = 0; i < 300; i++) {
        if (pthread_create(&ids[i], NULL, (void *(*)(void *))pause, NULL) != 0) break;
        made++;
    }
    if (made >= 300) return "300 threads";
    fprintf(stderr, "threads made: %d\\n", made);
"""),
    "hog": _hostile("""
    for (;;) {
        char *p = malloc(64 << 20);
        if (!p) { fprintf(stderr, "malloc refused\\n"); exit(9); }
        memset(p, 1, 64 << 20);
    }
"""),
    # Thinks on other bots' time: a thread spins; between its answer and its next request
    # (>= 0.1 s: an opponent sleeps) it must have had no CPU.
    "ponderer": """
#include <time.h>
static double last_cpu, last_wall;
static double now(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}
static void *spin(void *arg) { for (volatile long i = 0;; i++) {} return arg; }
static const char *attempt(int turn) {
    static pthread_t id;
    if (turn == 1) { pthread_create(&id, NULL, spin, NULL); return NULL; }
    double cpu = now(CLOCK_PROCESS_CPUTIME_ID) - last_cpu;
    double wall = now(CLOCK_MONOTONIC) - last_wall;
    fprintf(stderr, "between turns: %.3f s, %.3f CPU-s\\n", wall, cpu);
    return wall > 0.08 && cpu > wall / 2 ? "pondered" : NULL;
}
static void before_answer(int turn) {
    (void)turn;
    last_cpu = now(CLOCK_PROCESS_CPUTIME_ID);
    last_wall = now(CLOCK_MONOTONIC);
}
""",
}


def _reader(secret: Path) -> str:
    paths = [str(secret), "/etc/passwd", "/etc/shadow", "/root/.bashrc", "/proc/1/environ",
             str(Path(__file__).resolve())]
    names = ", ".join(json.dumps(p) for p in paths)
    return _hostile(f"""
    const char *paths[] = {{{names}}};
    for (unsigned i = 0; i < sizeof paths / sizeof *paths; i++) {{
        if (open(paths[i], O_RDONLY) >= 0) return paths[i];
    }}
""")


def build(folder: Path, name: str, source: str) -> Path:
    """A bot folder ``folder/name`` holding the program built from ``source`` and bot.json."""
    bot = folder / name
    bot.mkdir()
    (bot / "main.c").write_text(PRELUDE + source)
    subprocess.run(["gcc", "-O1", "-pthread", "-o", str(bot / name), str(bot / "main.c")],
                   check=True, capture_output=True)
    (bot / "main.c").unlink()
    (bot / "bot.json").write_text(json.dumps({"command": [f"./{name}"]}))
    return bot


def build_all(folder: Path, secret: Path) -> dict[str, Path]:
    """Every program of :data:`PROGRAMS` and the reader (which tries ``secret``), in ``folder``."""
    sources = {**PROGRAMS, "reader": _reader(secret)}
    return {name: build(folder, name, source) for name, source in sources.items()}


def play(pool: BotPool, bot: Path, seed: int = 1) -> GameResult:
    """The program in seat 0 against two good Python bots; checks what every test needs."""
    result = pool.play([BotSpec(bot.name, bot.resolve()),
                        *(BotSpec(name, _BOTS / f"{name}.py") for name in ("first", "seeded"))],
                       seed=seed)
    replay(result.record)
    assert [f for f in result.faults if f.seat != 0] == []
    return result


def kinds(result: GameResult) -> list[str]:
    """The kinds of a game's faults, in order."""
    return [f.kind for f in result.faults]


#: The protocol breaks every language's programs commit (garbage on stdout, no answer, a line
#: too long, an exit mid-game): the bot, its fault kind, and words of the fault's detail.
PROTOCOL_BREAKS = [
    ("garbage", "protocol", "hello there"),
    ("silent", "timeout", "no reply in"),
    ("longline", "protocol", "longer than"),
    ("quitter", "crash", "exited with code 3"),
]


def check_protocol_break(pool: BotPool, bot: Path, kind: str, detail: str) -> None:
    """``bot`` (one of :data:`PROTOCOL_BREAKS`, in any language) faults as it says, at every
    pick it is asked until it is no longer asked, and nobody else does."""
    result = play(pool, bot)
    assert kinds(result) == [kind] * MAX_FAULTS, result.faults
    assert detail in result.faults[0].detail, result.faults[0]


def check_as_an_ordinary_user(bots: Mapping[str, Path], expected: Mapping[str, set[str]],
                              opponents: Sequence[str] = ("first",), *,
                              runtimes: tuple[str, ...] = (), logs: Sequence[str] = ()
                              ) -> dict[str, str]:
    """A game of each bot of ``expected`` (by name, in ``bots``) in seat 0 against
    ``opponents`` (tests/arena/bots), with the arena run by an ordinary user (bubblewrap in a
    user namespace, no uid per bot, no cgroups: :mod:`tests.arena.unprivileged`): its faults
    are of the kinds expected, nobody else's, and nothing is left running. Skips where no
    ordinary user can run it. The logs of the bots named in ``logs``, by name."""
    from tests.arena import unprivileged

    reason = unprivileged.unavailable()
    if reason:
        pytest.skip(f"unprivileged arena tests: {reason}")
    others = [(name, _BOTS / f"{name}.py") for name in opponents]
    games = [unprivileged.Game(bot, [(bot, bots[bot]), *others], runtimes=runtimes)
             for bot in expected]
    try:
        run = unprivileged.run_games(games, logs=logs)
    except unprivileged.Unavailable as err:
        pytest.skip(f"unprivileged arena tests: {err}")
    assert run.result["error"] is None, run.result["error"]
    for bot, kinds_expected in expected.items():
        played = run.game(bot)
        assert played["error"] is None and played["replay"] is None, played
        assert [f for f in played["faults"] if f["seat"] != 0] == []
        assert {f["kind"] for f in played["faults"]} == kinds_expected, played["faults"]
    assert run.leftovers == []
    return dict(run.result.get("logs", {}))


def run_arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` in ``cwd``, with this checkout's code and a plain PATH."""
    code = "import sys; from cli.main import main; sys.argv[0] = 'arena'; main()"
    root = Path(__file__).resolve().parents[2]
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env={"PYTHONPATH": str(root),
                                                       "PATH": "/usr/bin:/bin"})
