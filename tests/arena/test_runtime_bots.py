"""Program bots run by an interpreter the organiser allows (``--allow-runtime``): Node.js bots
(and a Java one) the tests write, in real games with real sandboxed processes.

A good Node.js bot validates and plays a sandboxed tournament (with a Java bot, when a JDK is
here) with no fault, the runtimes and their versions stored and published; Node.js bots breaking
the JSON-lines protocol get the faults a C program gets (:data:`PROTOCOL_BREAKS`); a hostile one
tries to start processes, open sockets, read host files and write its folder, and is contained;
a bot naming a runtime not allowed, and a runtime not installed, are refused in one line.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import BotLoadError, BotPool, resolve_bots, resolve_runtimes
from arena.isolation import seccomp
from tests.arena.conftest import options
from tests.arena.programs import (
    PROTOCOL_BREAKS,
    check_as_an_ordinary_user,
    check_protocol_break,
    kinds,
    play,
    run_arena,
)
from tests.arena.zoo import host_secret
from tournaments import RequestError, check_runtimes

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")

#: Every Node.js bot: JSON lines in, the first card of its hand out, after ``attempt(turn)``
#: (null: nothing escaped; else the bot answers ``ESCAPED <what>``, an illegal pick the test
#: sees) and ``beforeAnswer(turn)`` (false: no answer).
PRELUDE = r"""
const readline = require("readline");
const lines = readline.createInterface({ input: process.stdin });
let turn = 0;
lines.on("line", async (line) => {
  const message = JSON.parse(line);
  if (message.type === "end_game") console.error("scores", JSON.stringify(message.result.scores));
  if (message.type !== "pick") return;
  const now = ++turn;
  const escaped = await attempt(now);
  if (escaped) {
    process.stdout.write(JSON.stringify({ pick: "ESCAPED " + escaped }) + "\n");
  } else if (beforeAnswer(now) !== false) {
    process.stdout.write(JSON.stringify({ pick: message.obs.hand[0] }) + "\n");
  }
});
"""

GOOD = "async function attempt(turn) { return null; }\nfunction beforeAnswer(turn) {}\n"


def _protocol(before: str) -> str:
    return ("async function attempt(turn) { return null; }\n"
            f"function beforeAnswer(turn) {{ {before} }}\n")


PROTOCOL = {
    "garbage": _protocol('process.stdout.write("hello there\\n");'),
    "silent": _protocol("if (turn >= 2) return false;"),
    "longline": _protocol('if (turn >= 2) process.stdout.write("x".repeat(100000));'),
    "quitter": _protocol("if (turn >= 3) process.exit(3);"),
}


def _hostile(paths: list[str]) -> str:
    """Tries, at its first pick: a shell, a process, node itself again; reading host files;
    writing its folder; a listening and a connecting socket. Its private /tmp works."""
    return f"""
const PATHS = {json.dumps(paths)};
function outcome(start) {{
  return new Promise((resolve) => {{
    try {{ start(resolve); }} catch (err) {{ resolve(null); }}
    setTimeout(() => resolve(null), 150);
  }});
}}
async function attempt(turn) {{
  if (turn !== 1) return null;
  const cp = require("child_process"), fs = require("fs"), net = require("net");
  try {{ cp.execSync("true"); return "execSync"; }} catch (err) {{}}
  const run = cp.spawnSync(process.execPath, ["-e", "1"]);
  if (!run.error && run.status === 0) return "spawnSync node";
  const child = await outcome((done) => {{
    const proc = cp.spawn(process.execPath, ["-e", "1"]);
    proc.on("error", () => done(null));
    proc.on("exit", (code) => done(code === 0 ? "spawn node" : null));
  }});
  if (child) return child;
  for (const path of PATHS) {{
    try {{ fs.readFileSync(path); return "read " + path; }} catch (err) {{}}
  }}
  try {{ fs.writeFileSync("./new_file", "x"); return "created in its folder"; }} catch (err) {{}}
  try {{ fs.appendFileSync("./bot.js", "x"); return "wrote bot.js"; }} catch (err) {{}}
  try {{ fs.writeFileSync("/tmp/scratch", "ok"); }} catch (err) {{ return "NO /tmp"; }}
  const listening = await outcome((done) => {{
    const server = net.createServer();
    server.on("error", () => done(null));
    server.listen(0, "127.0.0.1", () => done("listen"));
  }});
  if (listening) return listening;
  const connected = await outcome((done) => {{
    const socket = net.connect(22, "127.0.0.1");
    socket.on("error", () => done(null));
    socket.on("connect", () => done("connect"));
  }});
  if (connected) return connected;
  console.error("contained");
  return null;
}}
function beforeAnswer(turn) {{}}
"""


def node_bot(folder: Path, name: str, source: str) -> Path:
    """A bot folder ``folder/name``: bot.js and bot.json naming the node runtime."""
    bot = folder / name
    bot.mkdir()
    (bot / "bot.js").write_text(PRELUDE + source)
    (bot / "bot.json").write_text('{"runtime": "node", "command": ["node", "bot.js"]}')
    return bot


#: A JVM within a bot's memory (the address-space limit counts what it reserves): a small heap,
#: code cache and class space, one compiler thread, no shared perf-data file.
JAVA_FLAGS = ["-Xmx64m", "-Xss512k", "-XX:ReservedCodeCacheSize=16m",
              "-XX:CompressedClassSpaceSize=16m", "-XX:MaxMetaspaceSize=48m",
              "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1",
              "-XX:-UsePerfData"]

JAVA_BOT = r"""
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class Bot {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) {
            if (!line.startsWith("{\"type\":\"pick\"")) continue;
            int at = line.indexOf("\"hand\":[\"") + 9;
            System.out.println("{\"pick\": \"" + line.substring(at, line.indexOf('"', at)) + "\"}");
            System.out.flush();
        }
    }
}
"""


@pytest.fixture(scope="module")
def bots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("runtime-bots")
    folder.chmod(0o755)
    secret, _ = host_secret(tmp_path_factory.mktemp("runtime-secret"))
    paths = [str(secret), "/etc/passwd", "/etc/shadow", "/proc/1/environ",
             str(Path(__file__).resolve())]
    sources = {"nodefirst": GOOD, **PROTOCOL, "nodehostile": _hostile(paths)}
    return {name: node_bot(folder, name, source) for name, source in sources.items()}


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BotPool]:
    with BotPool(options(log_dir=tmp_path_factory.mktemp("runtime-logs"),
                         runtimes=("node",))) as p:
        yield p


def test_a_node_and_a_java_bot_validate_and_play_a_tournament(
        tmp_path: Path, bots: dict[str, Path]) -> None:
    done = run_arena("validate", str(bots["nodefirst"]), "--sandbox", "bwrap",
                     "--allow-runtime", "node", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "OK: nodefirst loads and plays" in done.stdout
    entrants, names = [str(bots["nodefirst"])], ["nodefirst"]
    runtimes = ["node"]
    if shutil.which("javac") and shutil.which("java"):
        java = tmp_path / "javafirst"
        java.mkdir()
        (tmp_path / "Bot.java").write_text(JAVA_BOT)
        subprocess.run(["javac", "-d", str(java), str(tmp_path / "Bot.java")], check=True,
                       capture_output=True)
        (java / "bot.json").write_text(json.dumps(
            {"runtime": "java", "command": ["java", *JAVA_FLAGS, "-cp", ".", "Bot"]}))
        entrants.append(str(java))
        names.append("javafirst")
        runtimes.insert(0, "java")
    flags = [f for r in runtimes for f in ("--allow-runtime", r)]
    # The runtime's start counts towards a game's first pick (docs/bots.md): a JVM's ~50 ms
    # here, ten times that on a machine as busy as a parallel test run makes it.
    done = run_arena("tournament", *entrants, "random", "--cycles", "1", "--seed", "3",
                     "--sandbox", "bwrap", "--move-time", "2", *flags,
                     "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    ranking = json.loads((tmp_path / "out" / "ranking.json").read_text())
    played = {b["name"]: b for b in ranking["bots"]}
    for name in names:
        assert played[name]["games"] > 0 and sum(played[name]["faults"].values()) == 0, played
    assert ranking["runtimes"] == [r.to_json() for r in resolve_runtimes(tuple(runtimes))]
    assert "program bots could run: " in (tmp_path / "out" / "ranking.md").read_text()
    # Without the flag the same bots are refused before any game, in one line.
    done = run_arena("tournament", str(bots["nodefirst"]), "random", "--sandbox", "bwrap",
                     "--out", str(tmp_path / "again"), cwd=tmp_path)
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [
        f"error: {bots['nodefirst']}: bot.json names the runtime 'node', which this arena does "
        "not allow (an organiser allows it with --allow-runtime node)"]


@pytest.mark.parametrize(("bot", "kind", "detail"), PROTOCOL_BREAKS)
def test_node_protocol_breaks_are_faults(pool: BotPool, bots: dict[str, Path], bot: str,
                                         kind: str, detail: str) -> None:
    check_protocol_break(pool, bots[bot], kind, detail)


def test_a_hostile_node_bot_is_contained(pool: BotPool, bots: dict[str, Path]) -> None:
    result = play(pool, bots["nodehostile"])
    assert kinds(result) == [], result.faults
    log = (pool.options.log_dir or Path()) / "nodehostile.log"
    assert "contained" in log.read_text()  # every attempt was made, and failed
    assert not (bots["nodehostile"] / "new_file").exists()


def test_runtimes_refused_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = tmp_path / "script"
    bot.mkdir()
    (bot / "bot.json").write_text('{"runtime": "node", "command": ["./bot.js"]}')
    with pytest.raises(BotLoadError, match="command must start with its runtime, 'node'"):
        resolve_bots([str(bot)], runtimes=("node",))
    with pytest.raises(RequestError, match=r"^--allow-runtime: 'ruby' is not a runtime this "
                       r"arena knows \(java, node\)$"):
        check_runtimes(["ruby"])
    monkeypatch.setenv("PATH", str(tmp_path))  # no node on it
    resolve_runtimes.cache_clear()
    try:
        with pytest.raises(RequestError, match="^--allow-runtime node: node is not installed "
                           r"here \(not found on PATH\); install it first$"):
            check_runtimes(["node"])
    finally:
        resolve_runtimes.cache_clear()


def test_only_a_runtime_bots_program_gets_its_calls() -> None:
    """node's filter adds pipe2 (libuv's signal pipe); every other process keeps the list."""
    assert seccomp.runtime_calls(("node",)) == ("pipe2",)
    assert seccomp.runtime_calls(("java",)) == ()
    assert "pipe2" not in seccomp.ALLOWED


def test_as_an_ordinary_user(bots: dict[str, Path]) -> None:
    """The good Node.js bot, a protocol break and the hostile bot again, with the arena run by
    an ordinary user."""
    logs = check_as_an_ordinary_user(
        bots, {"nodefirst": set(), "garbage": {"protocol"}, "nodehostile": set()},
        runtimes=("node",), logs=["nodehostile"])
    assert "contained" in logs["nodehostile"]


def test_a_league_says_its_runtimes_and_refuses_a_bot_needing_another(
        tmp_path: Path, bots: dict[str, Path]) -> None:
    from typer.testing import CliRunner

    from cli.main import app

    runner = CliRunner()
    with_node, without = tmp_path / "with", tmp_path / "without"
    done = runner.invoke(app, ["league", "new", str(with_node), "--allow-runtime", "node",
                               "--seed", "1"])
    assert done.exit_code == 0, done.output
    version = resolve_runtimes(("node",))[0].version
    assert f"program bots may run: node {version}\n" in done.output
    done = runner.invoke(app, ["league", "add", str(with_node), str(bots["nodefirst"])])
    assert done.exit_code == 0, done.output
    done = runner.invoke(app, ["league", "new", str(without), "--seed", "1"])
    assert done.exit_code == 0 and "program bots may run" not in done.output
    done = runner.invoke(app, ["league", "add", str(without), str(bots["nodefirst"])])
    assert done.exit_code != 0
    assert "bot.json names the runtime 'node', which this arena does not allow" in done.output
    assert "Traceback" not in done.output


def test_compare_and_a_league_play_program_bots(tmp_path: Path, bots: dict[str, Path]) -> None:
    """A C starter through `arena compare`, and a league of it and a Node bot through `league
    run`: console script, sandboxed, no fault."""
    if shutil.which("gcc") is None or shutil.which("make") is None:
        pytest.skip("needs gcc and make to build the C starter")
    assert run_arena("new-bot", "cbot", "--lang", "c", cwd=tmp_path).returncode == 0
    subprocess.run(["make", "-s", "-C", "cbot"], cwd=tmp_path, check=True, capture_output=True)
    done = run_arena("compare", "cbot", "greedy", "--max-games", "4", "--players", "2",
                     "--sandbox", "bwrap", "--move-time", "0.5", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "at 4 games" in done.stdout.splitlines()[-1], done.stdout
    lg = tmp_path / "lg"
    for args in (["league", "new", str(lg), "--allow-runtime", "node", "--players", "2",
                  "--seed", "3", "--move-time", "2"],
                 ["league", "add", str(lg), "cbot"],
                 ["league", "add", str(lg), str(bots["nodefirst"])],
                 ["league", "run", str(lg), "--games", "4", "--sandbox", "bwrap", "--quiet"]):
        done = run_arena(*args, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
    ranking = json.loads((lg / "ranking.json").read_text())
    played = {b["name"]: b for b in ranking["bots"]}
    assert set(played) == {"cbot", "nodefirst"}, played
    for row in played.values():
        assert row["games"] == 4 and sum(row["faults"].values()) == 0, row
