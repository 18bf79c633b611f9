"""Hostile: tries to write a file everywhere it can guess, then picks properly.

The guesses include every host path that /proc/self/mountinfo reveals (the arena's own files,
the directories above them) and a ``home`` beside each. Each attempt is printed (to the bot's
log) as ``WROTE path`` or ``FAILED path``; the tests check that none of these files exists on
the host.
"""
import os

NAME = "sushi-escaped-by-writes-home"
FIXED = ["/arena/bot", "/arena/lib", "/arena/lib/engine", "/arena", "/", "/usr", "/home",
         "/root", "/var/tmp", "/dev/shm", "/run", "/etc", "/proc/self/cwd", "/proc/1/cwd",
         "/proc/1/root/tmp", "/proc/self/root/tmp"]
done = []


def guesses():
    dirs = list(FIXED)
    for var in ("HOME", "TMPDIR", "PWD"):
        if os.environ.get(var):
            dirs.append(os.environ[var])
    dirs.append(os.path.expanduser("~"))
    try:
        with open("/proc/self/mountinfo") as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []
    for line in lines:
        fields = line.split()
        for path in fields[3:5]:  # the source's root and the mount point
            while path.startswith("/") and path != "/":
                dirs += [path, os.path.join(path, "home")]
                path = os.path.dirname(path)
    return list(dict.fromkeys(d for d in dirs if d.startswith("/")))


def pick(obs):
    if not done:
        done.append(1)
        for folder in guesses():
            target = os.path.join(folder, NAME)
            try:
                os.makedirs(folder, exist_ok=True)
                with open(target, "w") as f:
                    f.write("escaped")
                print("WROTE", target)
            except OSError:
                print("FAILED", target)
        print("DONE", flush=True)
    return obs.hand[0]
