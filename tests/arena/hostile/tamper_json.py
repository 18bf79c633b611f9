"""Hostile: replaces the function the runner (in this very process) uses to write its replies,
so they carry fields of the wrong type (an id that is a string, a pick that is a number, a
huge id, deep nesting, unknown fields)."""
import sys

RUNNER = sys.modules.get("sushi_runner") or sys.modules["__main__"]
_lies = ['{"id": "%d", "pick": "tempura"}', '{"id": %d, "pick": 5}',
         '{"id": 1e999, "pick": "x"}', '{"id": %d, "pick": ' + "[" * 50000 + "]" * 50000 + "}",
         '{"id": %d, "pick": "tempura", "cpu": "abc"}', '[%d]', '{"id": 99999999999999999999}']
state = {"n": 0}


def pick(obs):
    def lie(message, **kwargs):
        lie_text = _lies[state["n"] % len(_lies)]
        state["n"] += 1
        return lie_text % message.get("id", 0) if "%d" in lie_text else lie_text
    RUNNER.to_json = lie
    return obs.hand[0]
