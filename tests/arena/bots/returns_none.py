def pick(obs):
    return None
