"""Test bot: takes two cards with chopsticks whenever it can, else the last card."""


def pick(obs):
    if obs.can_use_chopsticks:
        return [obs.hand[0], obs.hand[1]]
    if "chopsticks" in obs.hand:
        return "chopsticks"
    return obs.hand[-1]
