"""Bots that are programs (a folder with ``bot.json``): C bots the tests build with gcc, each
in real games with real sandboxed processes.

A good C bot validates, plays a sandboxed tournament with no fault; programs that break the
JSON-lines protocol get the fault a Python bot breaking it gets; hostile programs (the
Python zoo's attacks, in C) are contained: each tries its attack at its first pick and, when
the attack works, answers ``ESCAPED <what>`` (an illegal pick the test sees), else plays on.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import BotPool
from engine import Variant
from tests.arena.conftest import options, spec
from tests.arena.programs import (
    GOOD,
    PRELUDE,
    PROTOCOL_BREAKS,
    check_as_an_ordinary_user,
    check_protocol_break,
    kinds,
    play,
    run_arena,
)
from tests.arena.zoo import processes_of_uids, wait_until, write_bot

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

#: Checks the messages against INTERFACES.md's contract: every key of OBS in new_game and pick,
#: new_game's seed first, end_game's result last (logged).
CONTRACT = r"""
#include <stdio.h>
#include <string.h>

static char line[1 << 17];
static const char *KEYS[] = {"\"seat\":", "\"players\":", "\"round\":", "\"turn\":",
    "\"hand\":", "\"tableaux\":", "\"puddings\":", "\"scores\":", "\"known_hands\":",
    "\"can_use_chopsticks\":", "\"pass_direction\":", "\"time_limit\":",
    "\"variant\":", "\"for_dummy\":"};

static const char *missing(void) {
    for (unsigned i = 0; i < sizeof KEYS / sizeof *KEYS; i++)
        if (!strstr(line, KEYS[i])) return KEYS[i];
    return NULL;
}

int main(int argc, char **argv) {
    int began = 0;
    if (argc != 2 || strcmp(argv[1], "an argument") != 0) return 5;
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "{\"type\":\"new_game\"") == line) {
            began = strstr(line, "\"seed\":") && !missing();
            fprintf(stderr, "new_game ok: %d\n", began);
        } else if (strstr(line, "{\"type\":\"end_game\"") == line) {
            fprintf(stderr, "end_game: %s", line);
        } else if (strstr(line, "{\"type\":\"pick\"") == line) {
            const char *gap = missing();
            char *hand = strstr(line, "\"hand\":[\"") + 9;
            *strchr(hand, '"') = 0;
            if (!began) printf("{\"pick\": \"NO new_game\"}\n");
            else if (gap) printf("{\"pick\": \"MISSING %.20s\"}\n", gap + 1);
            else printf("{\"pick\": \"%s\"}\n", hand);
            fflush(stdout);
        } else {
            fprintf(stderr, "unknown message: %s", line);
            return 4;
        }
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BotPool]:
    with BotPool(options(log_dir=tmp_path_factory.mktemp("exec-logs"))) as p:
        yield p


def test_a_c_bot_plays_without_fault(pool: BotPool, programs: dict[str, Path]) -> None:
    result = play(pool, programs["cfirst"])
    assert kinds(result) == []
    first = result.record["rounds"][0]
    assert first["picks"][0][0] == [first["hands"][0][0]]  # it played its first card


@pytest.mark.parametrize(("bot", "kind", "detail"), PROTOCOL_BREAKS)
def test_protocol_breaks_are_faults(pool: BotPool, programs: dict[str, Path], bot: str,
                                    kind: str, detail: str) -> None:
    check_protocol_break(pool, programs[bot], kind, detail)


@pytest.mark.parametrize("bot", ["forker", "sockets", "tracer", "writer", "locker", "threads",
                                 "reader"])
def test_hostile_programs_are_contained(pool: BotPool, programs: dict[str, Path],
                                        bot: str) -> None:
    result = play(pool, programs[bot])
    assert kinds(result) == [], result.faults


def test_the_messages_follow_the_contract(tmp_path: Path) -> None:
    bot = tmp_path / "contract"
    bot.mkdir()
    (tmp_path / "contract.c").write_text(CONTRACT)
    subprocess.run(["gcc", "-o", str(bot / "contract"), str(tmp_path / "contract.c")],
                   check=True, capture_output=True)
    (bot / "bot.json").write_text('{"command": ["./contract", "an argument"]}')
    with BotPool(options(log_dir=tmp_path / "logs")) as pool:
        result = pool.play([spec("contract", bot), spec("first")], seed=5,
                           variant=(Variant.TWO_PLAYER_DUMMY,))
    assert kinds(result) == [], result.faults
    log = (tmp_path / "logs" / "contract.log").read_text()
    assert "new_game ok: 1" in log and "unknown message" not in log
    assert '"result":{"seat":0,"players":["contract","first","dummy"]' in log


def test_a_program_gets_no_cpu_between_its_turns(tmp_path: Path, programs: dict[str, Path]
                                                ) -> None:
    sleeper = write_bot(tmp_path, "sleeper", "import time\n\ndef pick(obs):\n"
                                             "    time.sleep(0.1)\n    return obs.hand[0]\n")
    with BotPool(options(log_dir=tmp_path)) as pool:
        result = pool.play([spec("ponderer", programs["ponderer"]), spec("sleeper", sleeper)],
                           seed=2)
    assert kinds(result) == [], result.faults
    assert "between turns: " in (tmp_path / "ponderer.log").read_text()


def test_a_memory_bomb_is_stopped(tmp_path: Path, programs: dict[str, Path]) -> None:
    # A small limit, so that touching it all takes no longer than a pick may.
    with BotPool(options(log_dir=tmp_path, memory_mb=128)) as pool:
        result = play(pool, programs["hog"])
    assert set(kinds(result)) == {"crash"}, result.faults
    assert "malloc refused" in (tmp_path / "hog.log").read_text()


def test_nothing_is_left_running(tmp_path: Path, programs: dict[str, Path]) -> None:
    with BotPool(options(log_dir=tmp_path)) as pool:
        for bot in ("cfirst", "silent", "threads"):
            play(pool, programs[bot])
        pool.close()
        assert wait_until(lambda: not processes_of_uids(pool.hub.uids))


def test_the_program_logs_to_the_bot_log_and_leaks_no_secret(
        tmp_path: Path, programs: dict[str, Path], secret: tuple[Path, str]) -> None:
    with BotPool(options(log_dir=tmp_path)) as pool:
        play(pool, programs["threads"])
        play(pool, programs["reader"])
    assert "threads made: " in (tmp_path / "threads.log").read_text()
    assert secret[1] not in (tmp_path / "reader.log").read_text()


def test_validate_and_a_sandboxed_tournament(tmp_path: Path, programs: dict[str, Path]
                                             ) -> None:
    done = run_arena("validate", str(programs["cfirst"]), "--sandbox", "bwrap", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "OK: cfirst loads and plays" in done.stdout
    done = run_arena("tournament", str(programs["cfirst"]), "random", "--players", "2",
                     "--cycles", "1", "--seed", "3", "--sandbox", "bwrap", "--move-time", "0.5",
                     "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    ranking = json.loads((tmp_path / "out" / "ranking.json").read_text())
    bots = {b["name"]: b for b in ranking["bots"]}
    assert bots["cfirst"]["games"] > 0
    assert sum(bots["cfirst"]["faults"].values()) == 0
    # Its published site says the program's language (the store keeps it: no copy of bots).
    from typer.testing import CliRunner

    from cli.main import app

    site = tmp_path / "site"
    done_site = CliRunner().invoke(app, ["publish", str(tmp_path / "out"), "--site", str(site)])
    assert done_site.exit_code == 0, done_site.output
    page = (site / "bots" / "cfirst.html").read_text()
    assert '<p class="lead" id="language">Language: C · a compiled program (bot.json)</p>' \
        in page
    assert "the arena runs the program bot.json names" in page
    assert 'id="language"' not in (site / "bots" / "random.html").read_text()
    # A tournament stored before languages were kept gets them when it is resumed.
    from tournaments.store.tournament import TournamentStore

    with TournamentStore.open(tmp_path / "out") as store:
        assert store.languages() == [("C", None), None]
        store._conn.execute("DELETE FROM meta WHERE key = 'languages'")
        store._conn.commit()
        assert store.languages() == [None, None]
    resumed = CliRunner().invoke(app, ["tournament", str(programs["cfirst"]), "random",
                                       "--players", "2", "--sandbox", "bwrap", "--quiet",
                                       "--move-time", "0.5", "--out", str(tmp_path / "out")])
    assert resumed.exit_code == 0, resumed.output
    with TournamentStore.open(tmp_path / "out") as store:
        assert store.languages() == [("C", None), None]


def test_validate_explains_a_protocol_break(tmp_path: Path, programs: dict[str, Path]) -> None:
    done = run_arena("validate", str(programs["garbage"]), "--sandbox", "bwrap", cwd=tmp_path)
    assert done.returncode != 0
    said = " ".join(done.stdout.split())
    assert ("- game 1, round 1, turn 2: bot.json's program wrote 'hello there' on stdout where "
            'a pick was expected: {"pick": ...} expected') in said, done.stdout
    assert ("protocol: 9 time(s). bot.json's program must write on stdout only its answers to "
            'picks, one line each: {"pick": "CARD"}') in said


@pytest.mark.parametrize(("bot", "said"), [
    ("longline", "- game 1, round 1, turn 2: bot.json's program wrote a line longer than 65536 "
                 "bytes on stdout (a pick's answer is one short line)"),
    ("quitter", "crash: 9 time(s). bot.json's program exited or was killed mid-game (its exit "
                "status below; what it wrote on stderr is in its log). - game 1, round 1, turn 3: "
                "exited with code 3"),
])
def test_validate_explains_what_a_program_did(programs: dict[str, Path], bot: str,
                                              said: str) -> None:
    from arena.tools.validate import validation_report

    validation = validation_report(spec(bot, programs[bot]), options())
    assert not validation.ok
    assert said in " ".join(validation.report.split()), validation.report


def test_each_protocol_fault_quotes_what_its_own_pick_got(programs: dict[str, Path]) -> None:
    """After a protocol fault the process is replaced: each later fault quotes the line
    written for its own pick (the program names the turn it was asked; a fresh one answers
    its first pick, then chats again), whole."""
    from arena.tools.validate import validation_report

    validation = validation_report(spec("chatter", programs["chatter"]), options())
    said = " ".join(validation.report.split())
    for turn in (2, 4, 6):
        assert (f"- game 1, round 1, turn {turn}: bot.json's program wrote 'chat at round 1, "
                f"turn {turn} of the game' on stdout where a pick was expected") in said, said


def test_a_program_needing_a_library_the_sandbox_lacks_is_refused(tmp_path: Path) -> None:
    (tmp_path / "h.c").write_text("int sushi_helper(void) { return 1; }\n")
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(tmp_path / "libsushitest.so"),
                    str(tmp_path / "h.c")], check=True, capture_output=True)
    bot = tmp_path / "needy"
    bot.mkdir()
    (tmp_path / "u.c").write_text("int sushi_helper(void);\n"
                                  "int main(void) { return sushi_helper(); }\n")
    subprocess.run(["gcc", "-o", str(bot / "needy"), str(tmp_path / "u.c"), f"-L{tmp_path}",
                    "-lsushitest"], check=True, capture_output=True)
    (bot / "bot.json").write_text('{"command": ["./needy"]}')
    done = run_arena("validate", str(bot), "--sandbox", "bwrap", cwd=tmp_path)
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [
        f"error: {bot}: needy needs libsushitest.so, which the sandbox does not hold (it holds "
        "the C library and the other libraries of the arena's Python)"]


@pytest.mark.parametrize(("config", "said"), [
    ("{", "bot.json is not valid JSON"),
    ('{"command": "./x"}', 'bot.json needs "command": a list of strings'),
    ('{"command": ["/bin/sh"]}', "is not a file of the bot's folder"),
    ('{"command": ["./bot.json"]}', "is not a 64-bit ELF program"),
    ('{"command": ["node", "bot.js"], "runtime": "node"}',
     "which this arena does not allow (an organiser allows it with --allow-runtime node)"),
])
def test_a_bad_bot_json_is_refused_in_one_line(tmp_path: Path, config: str, said: str) -> None:
    from arena import BotLoadError, resolve_bots

    bot = tmp_path / "bad"
    bot.mkdir()
    (bot / "bot.json").write_text(config)
    with pytest.raises(BotLoadError) as caught:
        resolve_bots([str(bot)])
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_static_programs_and_their_own_libraries_play(pool: BotPool, tmp_path: Path) -> None:
    """A static program needs no library; a program may bring its own (``$ORIGIN``)."""
    source = tmp_path / "main.c"
    source.write_text(PRELUDE + "int sushi_helper(void);\n" + GOOD.replace(
        "(void)turn; }\n", "(void)turn; if (!sushi_helper()) abort(); }\n", 1))
    (tmp_path / "h.c").write_text("int sushi_helper(void) { return 1; }\n")
    own = tmp_path / "own"
    own.mkdir()
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(own / "libsushiown.so"),
                    str(tmp_path / "h.c")], check=True, capture_output=True)
    subprocess.run(["gcc", "-o", str(own / "own"), str(source), f"-L{own}", "-lsushiown",
                    "-Wl,-rpath,$ORIGIN"], check=True, capture_output=True)
    (own / "bot.json").write_text('{"command": ["./own"]}')
    static = tmp_path / "static"
    static.mkdir()
    done = subprocess.run(["gcc", "-static", "-o", str(static / "static"), str(source),
                           str(tmp_path / "h.c")], capture_output=True)
    (static / "bot.json").write_text('{"command": ["./static"]}')
    from arena import resolve_bots

    for bot in (own, static) if done.returncode == 0 else (own,):
        resolve_bots([str(bot)])  # accepted by the host's check
        assert kinds(play(pool, bot)) == []


def test_as_an_ordinary_user(programs: dict[str, Path]) -> None:
    """The good program, a protocol break and the hostile programs again, with the arena run
    by an ordinary user."""
    check_as_an_ordinary_user(programs, {
        "cfirst": set(), "garbage": {"protocol"}, "quitter": {"crash"},
        **{bot: set() for bot in ("forker", "sockets", "tracer", "writer", "locker", "reader")}},
        ("first", "seeded"))


def test_bench_measures_a_program_next_to_a_python_bot(programs: dict[str, Path]) -> None:
    from arena import SandboxMode, language_costs

    costs = language_costs([("C: cfirst", programs["cfirst"])], games=1, repeats=1,
                           sandbox=SandboxMode.BWRAP)
    assert list(costs) == ["python", "C: cfirst"]
    assert all(c["start_ms"] > 0 and c["request_us"] > 0 for c in costs.values()), costs


def test_a_rebuilt_program_is_a_new_version_in_a_league(tmp_path: Path) -> None:
    """A league's C bot rebuilt with another behaviour (same name, same bot.json) and added
    again is version 2, and version 2 is what plays; built again unchanged it is the same bot."""
    from typer.testing import CliRunner

    from cli.main import app
    from tests.arena.programs import PROGRAMS, build

    lg = tmp_path / "lg"

    def league(command: str, *args: str) -> str:
        """What ``arena COMMAND LG ARGS`` wrote on stdout (its warnings go to stderr: a
        loaded machine's starved picks, for one)."""
        done = CliRunner().invoke(app, [*command.split(), str(lg), *args])
        assert done.exit_code == 0, done.output
        return done.stdout

    bot = build(tmp_path, "cbot", GOOD)
    league("league new", "--players", "2", "--seed", "3", "--move-time", "0.5")
    league("league add", str(bot), "greedy")
    league("league run", "--games", "2", "--sandbox", "bwrap", "--quiet")
    shutil.rmtree(bot)
    bot = build(tmp_path, "cbot", GOOD)  # the same source, built again: the same files
    assert league("league add", str(bot)) == "cbot: unchanged (this bot is entered already)\n"
    shutil.rmtree(bot)
    bot = build(tmp_path, "cbot", PROGRAMS["garbage"])  # writes a line before each answer
    assert league("league add", str(bot)) == (
        "cbot: version 2 (version 1 leaves the leaderboard; its games stay)\n")
    league("league run", "--games", "2", "--sandbox", "bwrap", "--quiet")
    ranking = json.loads(league("rank", "--format", "json"))
    rows = {(b["name"], b["version"], b["status"]): (b["games"], b["faults"]["protocol"])
            for b in ranking["bots"] + ranking["retired"] if b["name"] != "greedy"}
    assert rows == {("cbot", 2, "active"): (2, 6), ("cbot@v1", 1, "replaced"): (2, 0)}, rows
