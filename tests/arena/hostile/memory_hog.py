"""Hostile: holds memory the address-space limit does not see: files in its private /tmp
(tmpfs, charged to its cgroup) on top of ordinary allocations, past the limit together."""


def pick(obs):
    block = b"x" * (1 << 20)
    with open("/tmp/fill", "wb") as f:
        for _ in range(60):
            f.write(block)
    hold = bytearray(80 << 20)
    for i in range(0, len(hold), 4096):
        hold[i] = 1
    return obs.hand[len(hold) % 1]
