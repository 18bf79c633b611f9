def pick(obs):
    return obs.hand[0]
