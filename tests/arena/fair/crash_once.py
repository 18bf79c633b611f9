"""Crashes its process at round 1, turn 2; the fresh process must be told it resumes a game in
progress (``resume_game`` at turn 3), never that a new game starts."""
import os

calls = []


def new_game(obs):
    calls.append(("new_game", obs.round, obs.turn))


def resume_game(obs):
    calls.append(("resume_game", obs.round, obs.turn))


def pick(obs):
    if calls == [("new_game", 1, 1)] and (obs.round, obs.turn) == (1, 2):
        os._exit(7)
    if calls[:1] != [("new_game", 1, 1)] and calls != [("resume_game", 1, 3)]:
        return "WRONG-HOOKS-" + repr(calls)
    return obs.hand[0]
