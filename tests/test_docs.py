"""Every command and Python example in README.md and docs/*.md runs as a user would (issue 33).

Each doc is one user's session: a folder of its own (holding the files the doc takes a user to
have, ``FILES``), where its fenced blocks run in order. A ``python`` block is saved as a script
and run with the venv's python; a ``sh``/``bash`` block runs in bash, command by command
(``set -e``), with ``arena``, ``python`` and the rest standing for tests/doc_shell.py, which runs
``arena`` commands for real but capped, and parses the options of benchmarks and servers.

A block may be marked by an HTML comment on the line before its fence:

- ``<!-- doc-test: continues -->``: the rest of the previous Python block (they run as one);
- ``<!-- doc-test: file PATH -->``: saved as PATH (a bot's file) for the commands after it;
- ``<!-- doc-test: prelude (CODE) -->``: run after CODE (what the text around it gives);
- ``<!-- doc-test: imports (why) -->``: an API sketch: only its import statements run;
- ``<!-- doc-test: parse-only (why) -->``: commands that take minutes, a cluster or a server:
  their options are parsed, nothing runs;
- ``<!-- doc-test: run-by tests/FILE.py::TEST -->``: another test runs it as written (the suite
  pays once); that test must exist and name the doc;
- ``<!-- doc-test: skip (why) -->``: not run at all (rare).

A new block is run unless marked; a mark that is not one of these fails.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LANGS = ("python", "sh", "bash")
MARK = re.compile(r"<!-- doc-test: (continues|file|prelude|imports|parse-only|run-by|skip)\b"
                  r" ?(.*?) ?-->$")
#: Files a doc takes its reader to have already (their own bots): name -> content.
BOT = "def pick(obs):\n    return obs.hand[0]\n"
FILES: dict[str, dict[str, str]] = {
    "README.md": {},
    "bots.md": {"my_bot.py": BOT, "my_bot_v2.py": BOT, "my_bot_v2/bot.py": BOT,
                "my_bot/bot.py": BOT},
    "compare.md": {"my_bot_v1.py": BOT, "my_bot_v2.py": BOT, "my_bot.py": BOT,
                   "v2/bot.py": BOT, "v1/bot.py": BOT, "nodenial.py": BOT},
    "leagues.md": {"alice.py": BOT, "alice_v2.py": BOT, "learned/bot.py": BOT,
                   "net/bot.py": BOT},
    "learning.md": {"path/to/my_bot.py": BOT,
                    "my_bot/bot.py": BOT},   # what python -m learn.train my_bot makes (minutes)
    "publish.md": {"my_bot.py": BOT, "bots/random.py": (ROOT / "bots/random.py").read_text(),
                   "bots/greedy.py": (ROOT / "bots/greedy.py").read_text(),
                   "bots/heuristic.py": (ROOT / "bots/heuristic.py").read_text()},
    "serve.md": {},
}
#: What the reader has made before the doc starts, in the doc's own words elsewhere (commands).
SETUP = {"publish.md": "arena league new my-league --seed 1",
         "serve.md": "arena league new comp --seed 1   # the league that arena serve comp serves"}
#: Archives made from folders above: archive -> folder.
ARCHIVES = {"compare.md": {"v1.tar.gz": "v1"}, "leagues.md": {"net.zip": "net"}}
SHIMS = ("arena", "python", "python3", "pip", "ray", "curl", "git", "patch", "cp", "nice")
IN_FOLDER = ("bin/arena", "bin/test", ".venv/bin/python", ".venv/bin/arena")


@dataclass(frozen=True)
class Block:
    doc: Path
    line: int          # the fence's line, 1-based
    lang: str
    text: str
    mark: str = ""     # continues, file, prelude, imports, parse-only, skip, or ""
    detail: str = ""   # the mark's argument

    @property
    def name(self) -> str:
        return f"{self.doc.name}:{self.line}"

    @property
    def python(self) -> bool:
        return self.lang == "python"


def blocks(doc: Path) -> Iterator[Block]:
    lines = doc.read_text().split("\n")
    at = 0
    while at < len(lines):
        fence = re.match(r"^```(\w*)\s*$", lines[at])
        if not fence:
            at += 1
            continue
        end = next(i for i in range(at + 1, len(lines)) if lines[i].startswith("```"))
        before = lines[at - 1].strip() if at else ""
        mark = MARK.match(before)
        assert mark or not before.startswith("<!-- doc-test"), f"{doc.name}:{at}: {before}"
        if fence.group(1) in LANGS:
            detail = mark.group(2).strip() if mark else ""
            if detail.startswith("(") and detail.endswith(")"):
                detail = detail[1:-1]
            yield Block(doc, at + 1, fence.group(1), "\n".join(lines[at + 1:end]) + "\n",
                        mark.group(1) if mark else "", detail)
        else:
            assert not mark, f"{doc.name}:{at + 1}: a mark on a {fence.group(1)!r} block"
        at = end + 1


def units(doc: Path) -> list[list[Block]]:
    """The doc's blocks in the order they run, a Python block and its continuations as one."""
    out: list[list[Block]] = []
    for block in blocks(doc):
        if block.mark == "continues":
            assert out and out[-1][-1].python and block.python, f"{block.name}: continues what?"
            out[-1].append(block)
        else:
            if block.mark in ("skip", "imports", "parse-only"):
                assert block.detail, f"{block.name}: a {block.mark} mark says why"
            out.append([block])
    return out


def make_folder(folder: Path, doc: Path) -> dict[str, str]:
    """The doc's folder: the files it assumes, the project's bots and benchmarks beside them as
    in a checkout, and the commands a user types; the environment its blocks run in."""
    for name, text in FILES.get(doc.name, {}).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    for archive, source in ARCHIVES.get(doc.name, {}).items():
        fmt = "zip" if archive.endswith(".zip") else "gztar"
        shutil.make_archive(str(folder / archive.split(".")[0]), fmt, folder, source)
    for name in ("bots", "benchmarks"):   # as in a checkout, unless the reader has their own
        if not (folder / name).exists():
            (folder / name).symlink_to(ROOT / name)
    shims = folder.parent / "shims"
    script = f'#!/bin/sh\nexec "{sys.executable}" "{ROOT / "tests" / "doc_shell.py"}" "{{}}" "$@"\n'
    if not shims.exists():
        shims.mkdir()
        for name in SHIMS:
            (shims / name).write_text(script.format(name))
            (shims / name).chmod(0o755)
    for name in IN_FOLDER:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(script.format(name))
        (folder / name).chmod(0o755)
    (folder / ".venv" / "bin" / "activate").write_text(f'PATH="{shims}:$PATH"\n')
    return dict(os.environ, PATH=f"{shims}:/usr/bin:/bin", DOC_ROOT=str(ROOT), PS4="+ $SECONDS s: ",
                DOC_PYTHON=sys.executable, DOC_LOG=str(folder / "doc-test.log"),
                PYTHONPATH=str(ROOT))


def import_lines(text: str) -> str:
    """The import statements of an API sketch (a parenthesised list's ``...`` dropped)."""
    out = re.findall(r"^(?:from \S+ import \([^)]*\)|from \S+ import .*|import .*)$", text,
                     re.M)
    return re.sub(r"\s+#.*$", "", "\n".join(out), flags=re.M).replace(", ...)", ")") + "\n"


def run_unit(unit: list[Block], folder: Path, env: dict[str, str]) -> str:
    first = unit[0]
    env = dict(env, DOC_BLOCK=first.name, DOC_MODE=first.mark)
    if first.mark == "skip":
        return "skipped"
    if first.mark == "run-by":
        file, _, test = first.detail.partition("::")
        source = (ROOT / file).read_text()
        assert f"def {test}(" in source and first.doc.name in source, first.detail
        return "run by " + first.detail
    if first.mark == "file":
        (folder / first.detail).parent.mkdir(parents=True, exist_ok=True)
        (folder / first.detail).write_text("".join(b.text for b in unit))
        return "saved"
    if first.python:
        code = "".join(b.text for b in unit)
        if first.mark == "imports":
            code = import_lines(code)
            assert code.strip(), f"{first.name}: no import statement to run"
        if first.mark == "prelude":
            code = first.detail + "\n" + code
        script = folder / f"example_{first.line}.py"
        script.write_text(code)
        command = [sys.executable, script.name]
    else:
        script = folder / f"commands_{first.line}.sh"
        script.write_text(first.text)
        command = ["bash", "-e", "-o", "pipefail", "-x", script.name]
    done = subprocess.run(command, cwd=folder, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=300)
    output = done.stdout
    assert done.returncode == 0, f"{first.name} failed:\n{output[-4000:]}"
    assert "Traceback" not in output, f"{first.name}:\n{output[-4000:]}"
    return output


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.name)
def test_every_example_runs(doc: Path, tmp_path: Path) -> None:
    folder = tmp_path / doc.stem
    folder.mkdir()
    env = make_folder(folder, doc)
    if doc.name in SETUP:
        subprocess.run(["bash", "-e", "-c", SETUP[doc.name]], cwd=folder, check=True,
                       env=dict(env, DOC_BLOCK="setup"), stdout=subprocess.DEVNULL)
    for unit in units(doc):
        start = time.perf_counter()
        run_unit(unit, folder, env)
        print(f"{unit[0].name}: {time.perf_counter() - start:.1f} s")
    log = folder / "doc-test.log"
    ran = {line.split("\t")[0] for line in log.read_text().splitlines()
           if line.split("\t")[1] in ("ran", "capped", "parsed")} if log.exists() else set()
    for unit in units(doc):
        if not unit[0].python and unit[0].mark not in ("skip", "run-by"):
            assert unit[0].name in ran, f"{unit[0].name}: not one command ran: mark it skip"


def test_the_marks_are_few() -> None:
    every = [b for doc in DOCS for b in blocks(doc)]
    skipped = [b.name for b in every if b.mark == "skip"]
    assert len(every) > 40 and len(skipped) <= 8, skipped


def test_the_benchmarks_the_docs_name_exist() -> None:
    """A number the docs state names the benchmark that prints it: that benchmark exists."""
    named = {(doc.name, name) for doc in DOCS
             for name in re.findall(r"benchmarks/([\w/]+\.py)", doc.read_text())}
    assert len(named) > 20
    missing = [f"{doc}: benchmarks/{name}" for doc, name in sorted(named)
               if not (ROOT / "benchmarks" / name).exists()]
    assert not missing, missing
