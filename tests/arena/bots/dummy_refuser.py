"""Plays its own picks properly but answers nonsense when asked for the dummy's card."""


def pick(obs):
    if obs.for_dummy:
        return "not-a-card-for-the-dummy"
    return obs.hand[0]
