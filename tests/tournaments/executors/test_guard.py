"""The main script's guard: a script starting a tournament at its top level, outside
``if __name__ == "__main__":``, is told so in one line before any worker starts."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tournaments.executors.guard import _guarded, unguarded_call

SOURCE = '''\
import os
print("top")                                # line 2: unguarded
if __name__ == "__main__":
    print("guarded")                        # line 4
    for i in range(2):
        print(i)                            # line 6
if "__main__" == __name__:
    print("also guarded")                   # line 8
if __name__ != "__main__":
    print("imported")                       # line 10: runs in the workers
else:
    print("guarded by else")                # line 12
def main():
    print("in a function")                  # line 14
'''


@pytest.mark.parametrize(("line", "guarded"), [(2, False), (4, True), (6, True), (8, True),
                                               (10, False), (12, True), (14, False)])
def test_which_lines_the_guard_covers(line: int, guarded: bool) -> None:
    assert _guarded(ast.parse(SOURCE), line) is guarded


def test_no_script_no_problem() -> None:
    assert unguarded_call() is None     # pytest's own main module starts this test guarded


@pytest.mark.parametrize(("body", "said"), [
    ("check()", "line 3"),
    ("def main():\n    check()\n\nmain()", "line 6"),
    ("if __name__ == '__main__':\n    check()", None),
    ("def main():\n    check()\n\nif __name__ == '__main__':\n    main()", None),
])
def test_a_script_is_told_where_it_starts_a_tournament(tmp_path: Path, body: str,
                                                       said: str | None) -> None:
    script = tmp_path / "api.py"
    script.write_text("from tournaments.executors.guard import unguarded_call\n"
                      "check = lambda: print(unguarded_call())\n" + textwrap.dedent(body) + "\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=60, check=True)
    if said is None:
        assert done.stdout == "None\n"
    else:
        assert said in done.stdout and "api.py starts a tournament" in done.stdout
        assert 'if __name__ == "__main__":' in done.stdout and len(done.stdout.splitlines()) == 1
