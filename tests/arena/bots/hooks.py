"""Uses new_game and end_game; raises if they are not called in order."""
state = {"game": False, "ended": 0}


def new_game(obs):
    state["game"] = True


def pick(obs):
    if not state["game"]:
        raise RuntimeError("pick before new_game")
    return obs.hand[0]


def end_game(result):
    assert set(result) >= {"seat", "scores", "places"}
    state["game"] = False
    state["ended"] += 1
