"""Every fault reproducible (issue 35, item 1), as a bot author lives it through the console
script: a bot that crashes when its hand holds a maki3 in round 2 faults in a tournament with
--records; the end-of-run summary shows the observation and the command that asks the bot
again; that command crashes it again at the same observation; the published bot page shows the
fault's observation, its record and the same command."""

from __future__ import annotations

import base64
import json
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

from typer.testing import CliRunner

from cli.main import app

ARENA = Path(sys.executable).with_name("arena")

MAKICRASH = textwrap.dedent('''\
    """Picks its hand's first card; crashes when its hand holds a maki3 in round 2."""


    def check(obs):
        if obs.round == 2 and "maki3" in [str(card) for card in obs.hand]:
            raise RuntimeError("a maki3 in round 2")


    def pick(obs):
        print(f"round {obs.round}, turn {obs.turn}: {len(obs.hand)} cards")
        check(obs)
        return obs.hand[0]
''')


def arena(folder: Path, *args: str, code: int = 0) -> str:
    done = subprocess.run([str(ARENA), *args], cwd=folder, capture_output=True, text=True,
                          timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode == code, output[-3000:]
    assert "Traceback" not in done.stderr      # the arena's own: none (the bot's are shown)
    return output


def test_a_crash_in_a_tournament_is_reproduced_by_the_command_its_summary_prints(
        tmp_path: Path) -> None:
    (tmp_path / "makicrash.py").write_text(MAKICRASH)
    said = arena(tmp_path, "tournament", "makicrash.py", "greedy", "random", "--players", "3",
                 "--cycles", "1", "--seed", "3", "--records", "--out", "run", "--quiet")
    assert "faults: makicrash 1" in said
    header = re.search(r"makicrash: crash in game (\d+), round (\d), turn (\d+): pick raised "
                       r"RuntimeError: a maki3 in round 2 \(line 6, in check\)", said)
    assert header is not None, said
    game, round_, turn = map(int, header.groups())
    record_file = tmp_path / "run" / "games" / f"game-{game:06d}.json"
    record = json.loads(record_file.read_text())
    fault, = record["faults"]
    seat = fault["seat"]
    assert record["players"][seat] == "makicrash"
    assert (fault["round"], fault["turn"], fault["kind"]) == (round_, turn, "crash")
    obs = fault["obs"]     # the observation it was answering, as the protocol's OBS
    assert (obs["round"], obs["turn"], obs["seat"]) == (2, turn, seat) and "maki3" in obs["hand"]
    hand = re.search(r"\n    hand: (.*)\n", said)
    assert hand is not None and "maki3" in hand[1]
    shown_log = said.split("its log in that game, up to the fault (the last ")[1].split(
        "again: ")[0]
    assert f"| {'[game'}" in shown_log and "--- arena: RuntimeError: a maki3 in round 2" \
        in shown_log
    command = re.search(r"again: (arena play .*)", said)
    assert command is not None
    assert shlex.split(command[1]) == [
        "arena", "play", "--from", f"run/games/game-{game:06d}.json", "--seat", str(seat),
        "--run-seed", "3", str(tmp_path / "makicrash.py")]

    # Its log: each line marked with its game (the deal's seed and its seat) and turn, each
    # process's lines together, the crash's traceback after what it printed, naming its file.
    log = (tmp_path / "run" / "logs" / "makicrash.log").read_text().splitlines()
    mark = f"[game {record['seed']} seat {seat} r2t{turn}] "
    at = log.index(f"--- arena: crash fault, game {record['seed']} seat {seat}, round 2, "
                   f"turn {turn}: pick raised RuntimeError: a maki3 in round 2 (line 6, in "
                   "check)")
    assert log[at - 1] == f"{mark}round 2, turn {turn}: {9 - turn + 1} cards"
    assert '--- arena:   File "makicrash.py", line 6, in check' in log[at:]
    assert all(re.match(r"\[game \d+ seat \d r\dt\d\] |--- arena: ", line) for line in log)
    assert not any("new process" in line for line in log)

    again = arena(tmp_path, *shlex.split(command[1])[1:])
    assert f"makicrash asked again in seat {seat} at round 2, turn {turn}" in again
    assert "  (the one the record keeps)" in again
    assert "Its answer: crash fault: pick raised RuntimeError: a maki3 in round 2" in again
    assert "Where it raised (the most recent call last):" in again
    assert 'File "makicrash.py", line 6, in check' in again     # its own name
    assert "The fault is reproduced." in again
    # Its log: the bot was asked every pick of the game up to that one, in order.
    log = again.split("Its log")[1]
    assert f"| {mark}round 2, turn {turn}: {9 - turn + 1} cards" in log
    assert f"  hand: {hand[1]}" in again

    # The published bot page: the observation, the game's record and the same command.
    arena(tmp_path, "publish", "run", "--site", "site")
    page = (tmp_path / "site" / "bots" / "makicrash.html").read_text()
    assert 'id="reproduce"' in page and f"hand: {hand[1]}" in page
    shown = re.search(r'download="(game-\d+\.json)" href="data:application/json;base64,'
                      r'([^"]+)"', page)
    assert shown is not None and shown[1] == record_file.name
    assert json.loads(base64.b64decode(shown[2])) == record
    assert (f"arena play --from {record_file.name} --seat {seat} makicrash.py"
            in page)
    greedy = (tmp_path / "site" / "bots" / "greedy.html").read_text()
    assert 'id="reproduce"' not in greedy


def test_asking_again_needs_a_seat_with_a_fault_or_a_turn(tmp_path: Path) -> None:
    from tests.publish.helpers import play_record

    record = tmp_path / "game.json"
    record.write_text(json.dumps(play_record(["greedy", "random"], 5)))
    runner = CliRunner()
    for args, message in [
            ([], "--from needs --seat N"),
            (["--seat", "4"], "the record has no bot in seat 4"),
            (["--seat", "1"], "seat 1 (random) has no fault on a pick in this record: name one "
                              "with --turn ROUND.TURN"),
            (["--seat", "1", "--turn", "4.1"], "--turn takes ROUND.TURN"),
            (["--seat", "1", "--turn", "2.11"], "the record has no round 2, turn 11")]:
        result = runner.invoke(app, ["play", "--from", str(record), *args,
                                     "--sandbox", "none"])
        assert result.exit_code == 2, result.output
        assert message in result.output, result.output
