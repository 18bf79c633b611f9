"""The second hour of a bot author and an organiser (issue 22): what they still tripped over,
each point lived through the installed ``arena`` console script (or ``python`` on a script)
in a folder of their own outside the checkout, as they would.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
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
