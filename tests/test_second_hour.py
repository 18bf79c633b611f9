"""The second hour of a bot author and an organiser (issue 22): what they still tripped over,
each point lived through the installed ``arena`` console script (or ``python`` on a script)
in a folder of their own outside the checkout, as they would.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARENA = Path(sys.executable).with_name("arena")


def run(folder: Path, *command: str | Path, code: int = 0, timeout: float = 300) -> str:
    """Run ``command`` in ``folder``; its output (stdout then stderr) when it exits with
    ``code``."""
    done = subprocess.run([str(c) for c in command], cwd=folder, capture_output=True, text=True,
                          timeout=timeout)
    output = done.stdout + done.stderr
    assert done.returncode == code, output[-3000:]
    return output


def arena(folder: Path, *args: str | Path, code: int = 0) -> str:
    """``arena ARGS`` in ``folder``: its output, never a traceback."""
    output = run(folder, ARENA, *args, code=code)
    assert "Traceback" not in output
    return output


def readme_block(marker: str) -> str:
    """The README's Python example holding ``marker``."""
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    return next(block for block in blocks if marker in block)


def test_1_the_readme_python_api_example_runs_as_a_script(tmp_path: Path) -> None:
    arena(tmp_path, "new-bot", "my_bot")
    example = readme_block("from tournaments.api import")
    (tmp_path / "api.py").write_text(example)
    said = run(tmp_path, sys.executable, "api.py")
    assert re.search(r"\('mcts', [\d.]+\)", said) and "my_bot" in said
    assert "Traceback" not in said
    # The same without the guard: one line says what is wrong, before any worker starts.
    guard = 'if __name__ == "__main__":'
    head, body = example.split(guard)
    unguarded = head + textwrap.dedent(body.split("\n", 1)[1])
    (tmp_path / "unguarded.py").write_text(unguarded)
    said = run(tmp_path, sys.executable, "unguarded.py", code=1)
    last = said.strip().splitlines()[-1]
    assert last.startswith("tournaments.checks.RequestError: unguarded.py starts a tournament "
                           "at its top level (line 3)"), said
    assert guard in last and said.count("Traceback") == 1 and "resume" not in said
    assert len(said.splitlines()) < 15


def test_2_validate_says_the_limits_a_server_applies(tmp_path: Path) -> None:
    arena(tmp_path, "new-bot", "my_bot")
    said = " ".join(arena(tmp_path, "validate", "my_bot.py").split())
    assert "in 1 file, within the limits a server applies by default (16 MiB and 256 files; " \
           "a server's organiser may set others" in said
    (tmp_path / "heavy").mkdir()
    (tmp_path / "heavy" / "bot.py").write_text("def pick(obs):\n    return obs.hand[0]\n")
    (tmp_path / "heavy" / "weights.bin").write_bytes(bytes(3 << 19))     # 1.5 MiB
    said = " ".join(arena(tmp_path, "validate", "heavy", "--max-bot-mb", "2").split())
    assert "Size: 1.5 MiB in 2 files, near the limits given (2 MiB and 256 files)" in said
    said = " ".join(arena(tmp_path, "validate", "heavy/", "--max-bot-mb", "1", code=1).split())
    assert "over the limits given (1 MiB and 256 files): a server with these limits refuses " \
           "it (a tournament of your own takes it with --max-bot-mb 2)" in said
    assert "OK: heavy loads" not in said


def test_3_a_loud_bots_last_lines_are_what_it_printed_last(tmp_path: Path) -> None:
    (tmp_path / "loud.py").write_text(
        "def pick(obs):\n"
        "    for _ in range(40):\n"
        "        print('x' * 5000)\n"
        "    print(f'picked in round {obs.round}, turn {obs.turn}, of {len(obs.players)}')\n"
        "    return obs.hand[0]\n\n"
        "def end_game(result):\n"
        "    print('the very last words, game of', len(result['players']))\n")
    said = arena(tmp_path, "validate", "loud.py")
    shown = [line for line in said.splitlines() if line.startswith("  | ")]
    assert shown[-1] == "  | the very last words, game of 5"
    assert shown[-2].startswith("  | picked in round 3, turn ")
    assert "these are the last lines it printed" in said
    assert max(map(len, said.splitlines())) < 400    # a long line is cut, saying so
    assert "(4700 more characters)" in said


def test_7_the_new_bot_template_says_what_end_game_gets(tmp_path: Path) -> None:
    said = arena(tmp_path, "new-bot", "my_bot")
    hint = re.search(r"then run `(.+)`", said)       # a command that works here, as written
    assert hint is not None and "OK: my_bot" in run(tmp_path, *shlex.split(hint.group(1)))
    source = (tmp_path / "my_bot.py").read_text()
    doc = source.split("def end_game(result):", 1)[1]
    documented = set(re.findall(r"\b(seat|seed|players|scores|places|puddings)\b", doc))
    (tmp_path / "my_bot.py").write_text(source + "    print('end_game got', sorted(result))\n")
    said = arena(tmp_path, "validate", "my_bot.py")
    got = re.search(r"end_game got (\[.*\])", said)
    assert got is not None and set(ast.literal_eval(got.group(1))) == documented
    assert "numpy" in source.split('"""', 2)[1]


def test_8_smaller_things(tmp_path: Path) -> None:
    # A misspelt card: what the bot probably meant.
    (tmp_path / "typo.py").write_text("def pick(obs):\n    return 'tempora'\n")
    said = " ".join(arena(tmp_path, "validate", "typo.py", code=1).split())
    assert "'tempora' is not a card name (did you mean 'tempura'?)" in said
    # A bare name is a built-in bot; every command says which file was meant.
    arena(tmp_path, "new-bot", "my_bot")
    for command in (["validate", "my_bot"], ["play", "my_bot", "greedy"],
                    ["tournament", "my_bot", "greedy", "--dry-run"],
                    ["submit", "http://127.0.0.1:9", "my_bot", "--token", "t"]):
        said = arena(tmp_path, *command, code=2)
        assert said.strip().endswith("(did you mean my_bot.py?)"), said
    said = arena(tmp_path, "play", "my_bto.py", "gredy", code=2)
    assert said.strip() == "error: no such bot file: my_bto.py (did you mean my_bot.py?)"
    said = arena(tmp_path, "play", "my_bot.py", "gredy", code=2)
    assert said.strip().endswith("gredy (did you mean greedy?)")
    # arena play shows the hand each pick was made from.
    said = arena(tmp_path, "play", "my_bot.py", "greedy", "--seed", "3", "--record", "g.json")
    record = json.loads((tmp_path / "g.json").read_text())
    lines = said.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  T1 "))
    first = lines[at]
    for line in lines[at + 1:]:                     # wrapped at 80 columns
        if not line.startswith(" " * 20):
            break
        first += " " + line.strip()
    dealt = Counter(record["rounds"][0]["hands"][0])
    hand = dict(re.findall(r"(\w+)(?: x(\d))?", first.split(" from ")[1]))
    assert {card: int(n or 1) for card, n in hand.items()} == dealt
    assert record["rounds"][0]["picks"][0][0][0] in first.split(" from ")[0]
    assert "its replay page: arena publish g.json --site DIR" in said


def quickstart(doc: Path, heading: str) -> list[list[str]]:
    """The commands of the shell blocks in ``doc``'s section ``heading``, comments dropped."""
    section = doc.read_text().split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```(?:bash|sh)\n(.*?)```", section, re.S)
    lines = (line.split(" #", 1)[0].strip() for block in blocks for line in block.splitlines())
    return [shlex.split(line) for line in lines if line]


@pytest.mark.parametrize(("doc", "heading"), [("README.md", "## Quickstart"),
                                              ("docs/bots.md", "## Quick start")])
def test_7_the_quick_starts_run_as_written(tmp_path: Path, doc: str, heading: str) -> None:
    """Each command of the quick start, in a folder of one's own (tournaments as dry runs;
    the test suite and the shell's activation aside)."""
    ran = []
    for words in quickstart(ROOT / doc, heading):
        if words[0] in ("bin/test", "source"):
            continue
        assert words[0] in ("bin/arena", "arena"), words
        args = words[1:] + (["--dry-run"] if words[1] == "tournament" else [])
        arena(tmp_path, *args)
        ran.append(args[0])
    assert {"new-bot", "validate", "play", "tournament"} <= set(ran)
