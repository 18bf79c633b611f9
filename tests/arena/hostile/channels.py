"""Hostile: tries every kernel object that could carry a message to another sandbox or hold
memory outside its limits, and plays an illegal marker naming the first that works."""
import ctypes
import errno
import fcntl
import os
import socket

libc = ctypes.CDLL(None, use_errno=True)
SYS = {"keyctl": 250, "add_key": 248, "inotify_init1": 294, "unshare": 272, "shmget": 29,
       "sysinfo": 99, "mq_open": 240, "io_uring_setup": 425, "perf_event_open": 298,
       "userfaultfd": 323, "ptrace": 101}


def _syscall(name, *args):
    result = libc.syscall(SYS[name], *args)
    return result >= 0 or ctypes.get_errno() not in (errno.EPERM, errno.ENOSYS, errno.EACCES)


def attempts():
    def flock():
        with open("/usr/bin/env", "rb") as f:
            fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)

    def lockf():
        with open("/tmp/lockf", "wb") as f:
            fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def memfd():
        os.memfd_create("x")

    def sock():
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)

    def fork():
        pid = os.fork()
        if pid == 0:
            os._exit(0)

    def loadavg():
        with open("/proc/loadavg") as f:
            f.read()

    yield "flock", flock
    yield "lockf", lockf
    yield "memfd", memfd
    yield "socket", sock
    yield "fork", fork
    yield "proc", loadavg
    yield "keyctl", lambda: _syscall("keyctl", 1, 0) or (_ for _ in ()).throw(OSError())
    yield "add_key", lambda: _syscall("add_key", b"user", b"k", b"v", 1, -3) \
        or (_ for _ in ()).throw(OSError())
    buffer = ctypes.create_string_buffer(128)
    for name, args in (("inotify_init1", (0,)), ("unshare", (0x10000000,)),
                       ("shmget", (0, 1 << 20, 0o1600)), ("sysinfo", (buffer,)),
                       ("mq_open", (b"/q", 0o100, 0o600, None)), ("io_uring_setup", (1, buffer)),
                       ("userfaultfd", (0,)), ("ptrace", (16, 1, 0, 0))):
        yield name, (lambda n=name, a=args: _syscall(n, *a) or (_ for _ in ()).throw(OSError()))


def pick(obs):
    for name, attempt in attempts():
        try:
            attempt()
        except OSError:
            continue
        return "OPENED-" + name
    return obs.hand[0]
