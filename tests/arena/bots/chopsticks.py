"""Takes chopsticks when it can, then uses them (two cards), and handles the dummy."""


def pick(obs):
    hand = [str(c) for c in obs.hand]
    if obs.can_use_chopsticks and len(hand) >= 2:
        return [hand[0], hand[1]]
    if "chopsticks" in hand and not obs.for_dummy:
        return "chopsticks"
    return hand[-1]
