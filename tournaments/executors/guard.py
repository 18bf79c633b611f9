"""The main script's guard. Worker processes started by ``forkserver`` (or ``spawn``) import
the script that started them again, as ``__mp_main__``: code at its top level runs again in
every worker, and a tournament started there would start its own workers from each of them
(which multiprocessing refuses, in a traceback per worker). Such a call is found before any
worker starts, and said in one line.
"""

from __future__ import annotations

import ast
import multiprocessing as mp
import sys
import tokenize
from pathlib import Path
from types import FrameType

__all__ = ["REIMPORTED", "REIMPORTED_TEXT", "inheriting", "unguarded_call"]

#: A worker's exit status when it was about to start workers while importing the main script.
REIMPORTED = 86
#: What to do about it, when the line is not known.
REIMPORTED_TEXT = ("the worker processes import the main script again, and it started a "
                   "tournament again at its top level: put the code that starts the tournament "
                   "under `if __name__ == \"__main__\":`")


def _guard_test(test: ast.expr, *, equal: bool) -> bool:
    """``__name__ == "__main__"`` (``!=`` when not ``equal``), either way round."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq if equal else ast.NotEq)):
        return False
    sides = {ast.dump(test.left), ast.dump(test.comparators[0])}
    return sides == {ast.dump(ast.Name("__name__", ast.Load())),
                     ast.dump(ast.Constant("__main__"))}


def _guarded(tree: ast.Module, line: int) -> bool:
    """Whether ``line`` runs only when the module is ``__main__`` (inside the guard)."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.If):
            continue
        for body, equal in ((node.body, True), (node.orelse, False)):
            if body and _guard_test(node.test, equal=equal) and \
                    body[0].lineno <= line <= (body[-1].end_lineno or body[-1].lineno):
                return True
    return False


def _top_level_frame(globals_: dict[str, object]) -> FrameType | None:
    """The frame running the main module's top level, if the code running now was called
    from it."""
    frame = sys._getframe(1)
    found = None
    while frame is not None:
        if frame.f_code.co_name == "<module>" and frame.f_globals is globals_:
            found = frame
        frame = frame.f_back  # type: ignore[assignment]
    return found


def unguarded_call() -> str | None:
    """One line saying what to do when the code running now was called from the main
    script's top level outside its ``if __name__ == "__main__":`` guard, so that worker
    processes importing the script again would run it again; else None (an interactive
    session, a notebook, ``python -c``, a package's ``__main__.py``, a guarded call, or a
    script whose source cannot be read)."""
    main = sys.modules.get("__main__")
    name = getattr(getattr(main, "__spec__", None), "name", None)
    path = getattr(main, "__file__", None)
    if main is None or not isinstance(path, str) or (
            isinstance(name, str) and (name == "__main__" or name.endswith(".__main__"))):
        return None     # what multiprocessing does not import again
    frame = _top_level_frame(vars(main))
    if frame is None:
        return None
    line = frame.f_lineno
    try:
        with tokenize.open(path) as source:
            tree = ast.parse(source.read(), path)
    except (OSError, SyntaxError, ValueError):
        return None
    if _guarded(tree, line):
        return None
    script = Path(path).name
    return (f"{script} starts a tournament at its top level (line {line}), outside "
            f"`if __name__ == \"__main__\":`; its worker processes import {script} again and "
            "would start it again: put the code that starts the tournament under that guard")


def inheriting() -> bool:
    """Whether this process is a worker still importing its parent's main script."""
    return bool(getattr(mp.current_process(), "_inheriting", False))
