"""The seccomp-BPF allow-list every bot sandbox runs under.

bubblewrap installs the program (``bwrap --seccomp FD``, with ``no_new_privs`` set) right
before it execs the bot's interpreter, so it holds from Python's first instruction, for every
thread, and across any ``execve``. The program is built with libseccomp through ``ctypes``
for the native architecture only:

- a system call on the allow-list runs (:data:`ALLOWED`, plus a few allowed only with
  checked arguments, below);
- ``clone3`` fails with ``ENOSYS``, so glibc falls back to ``clone`` for threads, where the
  flags can be checked (``clone3`` passes them in memory, out of the filter's reach);
- anything else fails with ``EPERM``: Python raises ``PermissionError`` and the bot's pick
  fails cleanly instead of the process dying;
- a call through another ABI (i386 ``int 0x80``, x32 numbers on x86-64) kills the process.

Allowed only with checked arguments:

- ``clone``: threads only: ``CLONE_THREAD`` set and no ``CLONE_NEW*`` or ``CLONE_PIDFD``
  flag (no fork; a pidfd's inode number counts every process and thread of the machine);
- ``ioctl``: ``TCGETS``, ``TIOCGWINSZ``, ``FIONREAD``, ``FIONBIO``, ``FIOCLEX``, ``FIONCLEX``;
- ``fcntl``: ``F_DUPFD``, ``F_DUPFD_CLOEXEC``, ``F_GETFD``, ``F_SETFD``, ``F_GETFL``,
  ``F_SETFL`` (no record locks);
- ``prlimit64``: on the calling process only (pid 0), as glibc's ``getrlimit`` and
  ``setrlimit`` call it;
- ``madvise``: the advice malloc and threads give (no ``MADV_MERGEABLE``, ``MADV_PAGEOUT``,
  ``MADV_COLD``, ``MADV_WILLNEED``: memory deduplication and page-cache eviction and
  prefetching are cross-process side channels);
- ``prctl``: reading and setting the process's own name, parent-death signal, dumpable flag
  and no_new_privs, and reading the capability bounding set and seccomp mode.

Denied by omission, each a channel between sandboxes or kernel surface a bot does not need:

- ``fork``, ``vfork``, ``clone`` without ``CLONE_THREAD`` (no new processes; a bot is one
  process), ``unshare``, ``setns`` and ``CLONE_NEW*`` (no namespaces);
- ``mount``, ``umount2``, ``pivot_root``, ``chroot``, the new mount API (``fsopen``,
  ``move_mount``, ``open_tree``...);
- ``flock`` and ``fcntl`` record locks (``F_SETLK``, ``F_SETLKW``, ``F_GETLK``, ``F_OFD_*``):
  locks on the read-only files every sandbox shares are a channel between them;
- ``add_key``, ``request_key``, ``keyctl``: kernel keyrings are shared per uid and by name;
- ``inotify_*``, ``fanotify_*``: watching the shared files for other sandboxes' accesses;
- ``ptrace``, ``process_vm_readv``, ``process_vm_writev``, ``kcmp``, ``pidfd_*``;
- ``perf_event_open``, ``bpf``, ``userfaultfd``, ``io_uring_*``: large kernel surfaces;
- ``memfd_create``, ``memfd_secret``, SysV IPC (``shmget``, ``shmat``, ``shmctl``,
  ``shmdt``, ``msg*``, ``sem*``) and POSIX message queues (``mq_*``): memory outside the
  limits and IPC objects;
- ``socket``, ``socketpair``, ``connect``, ``bind``, ``listen``, ``accept``, ``send*``,
  ``recv*`` (there is no network in the sandbox anyway);
- ``pipe``, ``pipe2``: every new pipe takes the next number of one machine-wide inode counter,
  which another sandbox reads in the inode number of its own channel (``fstat``): a bot could
  set the counter to a value for the next game's bot to read (the arena gives every runner its
  pipes; nothing in a bot needs new ones, as it cannot start processes);
- ``sysinfo``, ``syslog``: machine-wide counters (free memory, load, process count) one
  sandbox can move and another read (glibc's ``qsort`` asks ``sysinfo`` for the memory size
  and copes with the refusal: it still sorts correctly);
- ``fadvise64``, ``readahead``, ``mincore``, ``preadv2``/``pwritev2`` (``RWF_NOWAIT``),
  ``cachestat``: probing or evicting the shared page cache;
- ``sched_setaffinity``, ``setpriority``, ``getpriority``, ``ioprio_set``, ``sched_setattr``:
  pinning to a chosen CPU makes CPU contention a much better channel, and nothing in Python
  needs priorities (a bot can only lower its own, which is harmless, but useless);
- ``personality``, ``acct``, ``quotactl``, ``swapon``, ``swapoff``, ``reboot``,
  ``kexec_load``, ``kexec_file_load``, ``init_module``, ``finit_module``,
  ``delete_module``, ``ioperm``, ``iopl``, ``modify_ldt``, ``clock_settime``,
  ``settimeofday``, ``adjtimex``, ``clock_adjtime``, ``move_pages``, ``migrate_pages``,
  ``mbind``, ``set_mempolicy``, ``name_to_handle_at``, ``open_by_handle_at``,
  ``lookup_dcookie``, ``vhangup``, ``nfsservctl``, ``seccomp`` (no further filters or user
  notification), ``landlock_*``, and every system call this list does not name (newer ones
  included: libseccomp only lets through what it was told).

``kill``, ``tgkill`` and ``tkill`` are allowed: the PID namespace confines them to the bot's
own process (and bubblewrap's init, which ignores them). ``execve`` is allowed because
bubblewrap execs the interpreter under the filter; whatever it execs stays under the filter
and cannot fork.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import sys
import termios
import threading

__all__ = ["ALLOWED", "RUNTIME_CALLS", "SeccompUnavailable", "describe", "filter_pipe",
           "filter_program", "runtime_calls"]

#: System calls allowed whatever their arguments. Names the kernel or libseccomp does not
#: know on this architecture (``open`` on arm64, say) are skipped.
ALLOWED: tuple[str, ...] = (
    # Files: reading the Python installation, writing the private /tmp.
    "read", "write", "readv", "writev", "pread64", "pwrite64", "open", "openat", "close",
    "close_range", "lseek", "stat", "fstat", "lstat", "newfstatat", "statx", "access",
    "faccessat", "faccessat2", "readlink", "readlinkat", "getdents64", "getcwd", "chdir",
    "fchdir", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat",
    "renameat2", "truncate", "ftruncate", "fsync", "fdatasync", "chmod", "fchmod", "fchmodat",
    "utimensat", "umask", "getxattr", "lgetxattr", "fgetxattr", "listxattr", "llistxattr",
    "flistxattr",
    # Memory (PROT_EXEC too: C extension modules and ctypes callbacks).
    "mmap", "munmap", "mprotect", "mremap", "brk",
    # Signals, threads, process lifetime.
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigsuspend",
    "rt_sigtimedwait", "sigaltstack", "pause", "alarm", "getitimer", "setitimer", "kill",
    "tgkill", "tkill", "restart_syscall", "futex", "set_robust_list", "rseq",
    "set_tid_address", "arch_prctl", "exit", "exit_group", "wait4", "waitid", "execve",
    "execveat",
    # Identity; the runner drops from root to a uid of its own under the filter.
    "getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid", "getresuid",
    "getresgid", "getgroups", "getpgrp", "getpgid", "getsid", "setuid", "setgid",
    "setresuid", "setresgid", "setgroups", "uname",
    # Time, randomness, scheduling, limits.
    "clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday", "time",
    "getrandom", "getcpu", "sched_yield", "sched_getaffinity", "sched_getparam",
    "sched_getscheduler", "sched_setscheduler", "sched_get_priority_max",
    "sched_get_priority_min", "getrlimit", "setrlimit", "getrusage", "times",
    # Descriptors and waiting on them, all within the process.
    "dup", "dup2", "dup3", "poll", "ppoll", "select", "pselect6",
    "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait", "epoll_pwait2",
    "eventfd2",
)

#: What an interpreter allowed with ``--allow-runtime`` needs besides :data:`ALLOWED` (found by
#: running it under the filter; each justified in docs/security.md, "Runtimes"). Only the
#: process of a bot naming that runtime gets them: its relay installs the filter with them in
#: the child right before ``execve``; every other process keeps :data:`ALLOWED` alone.
RUNTIME_CALLS: dict[str, tuple[str, ...]] = {
    "node": ("pipe2",),
    "java": (),
}

# Linux's clone flags (include/uapi/linux/sched.h), the same on every architecture.
_CLONE_THREAD = 0x00010000
_CLONE_PIDFD = 0x00001000
_CLONE_NEW = {"CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000,
             "CLONE_NEWUTS": 0x04000000, "CLONE_NEWIPC": 0x08000000,
             "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
             "CLONE_NEWNET": 0x40000000}
# include/uapi/asm-generic/mman-common.h
_MADVICE = {"MADV_NORMAL": 0, "MADV_RANDOM": 1, "MADV_SEQUENTIAL": 2, "MADV_DONTNEED": 4,
            "MADV_FREE": 8, "MADV_HUGEPAGE": 14, "MADV_NOHUGEPAGE": 15, "MADV_DONTDUMP": 16,
            "MADV_DODUMP": 17}
# include/uapi/linux/prctl.h
_PRCTL = {"PR_SET_PDEATHSIG": 1, "PR_GET_PDEATHSIG": 2, "PR_GET_DUMPABLE": 3,
          "PR_SET_DUMPABLE": 4, "PR_SET_NAME": 15, "PR_GET_NAME": 16, "PR_GET_SECCOMP": 21,
          "PR_CAPBSET_READ": 23, "PR_SET_NO_NEW_PRIVS": 38, "PR_GET_NO_NEW_PRIVS": 39}

# libseccomp's ABI (seccomp.h, 2.5).
_ACT_KILL_PROCESS = 0x80000000
_ACT_KILL_THREAD = 0x00000000
_ACT_ALLOW = 0x7FFF0000
_FLTATR_ACT_BADARCH = 2
_FLTATR_CTL_OPTIMIZE = 8
_CMP_EQ = 4
_CMP_MASKED_EQ = 7


def _act_errno(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


# The architectures this policy is written for, by libseccomp's token (AUDIT_ARCH_*): clone()
# takes its flags first (not on s390), and the madvise and prctl numbers are the generic ones
# (not on alpha, mips, parisc). Calls through any other ABI (i386 and x32 on x86-64, arm on
# arm64) hit the bad-architecture action.
_ARCHES = {0xC000003E: "x86_64", 0xC00000B7: "aarch64", 0xC00000F3: "riscv64",
           0xC0000015: "ppc64le"}


class SeccompUnavailable(RuntimeError):
    """No seccomp filter can be built here; the message says why (no libseccomp, ...)."""


class _ArgCmp(ctypes.Structure):
    """``struct scmp_arg_cmp``."""

    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int),
                ("datum_a", ctypes.c_uint64), ("datum_b", ctypes.c_uint64)]


class _Version(ctypes.Structure):
    """``struct scmp_version``."""

    _fields_ = [("major", ctypes.c_uint), ("minor", ctypes.c_uint), ("micro", ctypes.c_uint)]


#: (syscall, action, [(arg index, compare op, datum_a, datum_b)]): one rule per line; the
#: rules of one system call are alternatives, the comparisons of one rule all must hold.
_Rule = tuple[str, int, list[tuple[int, int, int, int]]]


def _conditional_rules() -> list[_Rule]:
    rules: list[_Rule] = []
    new = 0
    for flag in _CLONE_NEW.values():
        new |= flag
    # (flags & (CLONE_THREAD | CLONE_PIDFD | CLONE_NEW*)) == CLONE_THREAD: a thread, no
    # namespace, no pidfd.
    rules.append(("clone", _ACT_ALLOW,
                  [(0, _CMP_MASKED_EQ, _CLONE_THREAD | _CLONE_PIDFD | new, _CLONE_THREAD)]))
    for request in (termios.TCGETS, termios.TIOCGWINSZ, termios.FIONREAD, termios.FIONBIO,
                    termios.FIOCLEX, termios.FIONCLEX):
        rules.append(("ioctl", _ACT_ALLOW, [(1, _CMP_EQ, request, 0)]))
    for command in (fcntl.F_DUPFD, fcntl.F_DUPFD_CLOEXEC, fcntl.F_GETFD, fcntl.F_SETFD,
                    fcntl.F_GETFL, fcntl.F_SETFL):
        rules.append(("fcntl", _ACT_ALLOW, [(1, _CMP_EQ, command, 0)]))
    rules.append(("prlimit64", _ACT_ALLOW, [(0, _CMP_EQ, 0, 0)]))
    for advice in _MADVICE.values():
        rules.append(("madvise", _ACT_ALLOW, [(2, _CMP_EQ, advice, 0)]))
    for option in _PRCTL.values():
        rules.append(("prctl", _ACT_ALLOW, [(0, _CMP_EQ, option, 0)]))
    rules.append(("clone3", _act_errno(errno.ENOSYS), []))
    return rules


class _Lib:
    """The few libseccomp functions used, with their C signatures."""

    def __init__(self) -> None:
        if not sys.platform.startswith("linux"):
            raise SeccompUnavailable(f"seccomp needs Linux, this is {sys.platform}")
        lib = None
        with contextlib.suppress(OSError):
            lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
        if lib is None:
            from ctypes.util import find_library  # slow (runs ldconfig): only when needed

            name = find_library("seccomp")
            if name:
                with contextlib.suppress(OSError):
                    lib = ctypes.CDLL(name, use_errno=True)
        if lib is None:
            raise SeccompUnavailable("libseccomp.so.2 not found (apt install libseccomp2)")
        try:
            self.init = lib.seccomp_init
            self.release = lib.seccomp_release
            self.attr_set = lib.seccomp_attr_set
            self.resolve = lib.seccomp_syscall_resolve_name
            self.rule_add = lib.seccomp_rule_add_array
            self.export_bpf = lib.seccomp_export_bpf
            self.arch_native = lib.seccomp_arch_native
            version = lib.seccomp_version
        except AttributeError as err:
            raise SeccompUnavailable(f"libseccomp is too old ({err})") from None
        self.init.argtypes = [ctypes.c_uint32]
        self.init.restype = ctypes.c_void_p
        self.release.argtypes = [ctypes.c_void_p]
        self.release.restype = None
        self.attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
        self.attr_set.restype = ctypes.c_int
        self.resolve.argtypes = [ctypes.c_char_p]
        self.resolve.restype = ctypes.c_int
        self.rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                  ctypes.POINTER(_ArgCmp)]
        self.rule_add.restype = ctypes.c_int
        self.export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self.export_bpf.restype = ctypes.c_int
        self.arch_native.argtypes = []
        self.arch_native.restype = ctypes.c_uint32
        version.argtypes = []
        version.restype = ctypes.POINTER(_Version)
        v = version().contents
        self.version = (v.major, v.minor, v.micro)
        if self.version < (2, 5, 0):
            raise SeccompUnavailable(
                "libseccomp {}.{}.{} is too old (2.5 or later needed)".format(*self.version))

    def number(self, name: str) -> int | None:
        """The native syscall number of ``name``, or None where it does not exist."""
        nr = int(self.resolve(name.encode()))
        return nr if nr >= 0 else None


class _Built:
    def __init__(self, program: bytes, unconditional: int, checked: int,
                 version: tuple[int, int, int]) -> None:
        self.program = program
        self.unconditional = unconditional
        self.checked = checked
        self.version = version


_lock = threading.Lock()
_built: dict[tuple[str, ...], _Built] = {}
_problem: str | None = None


def _check(result: int, what: str) -> None:
    if result < 0:
        raise SeccompUnavailable(f"libseccomp: {what} failed: {os.strerror(-result)}")


def _build(extra: tuple[str, ...] = ()) -> _Built:
    lib = _Lib()
    arch = int(lib.arch_native())
    if arch not in _ARCHES:
        raise SeccompUnavailable(f"no seccomp policy for this architecture (token {arch:#x})")
    ctx = lib.init(_act_errno(errno.EPERM))
    if not ctx:
        raise SeccompUnavailable("libseccomp: seccomp_init failed")
    try:
        if lib.attr_set(ctx, _FLTATR_ACT_BADARCH, _ACT_KILL_PROCESS) < 0:
            _check(lib.attr_set(ctx, _FLTATR_ACT_BADARCH, _ACT_KILL_THREAD), "bad-arch action")
        lib.attr_set(ctx, _FLTATR_CTL_OPTIMIZE, 2)  # a binary tree; not essential
        unconditional = 0
        for name in (*ALLOWED, *extra):
            nr = lib.number(name)
            if nr is not None:
                _check(lib.rule_add(ctx, _ACT_ALLOW, nr, 0, None), f"allowing {name}")
                unconditional += 1
        checked: set[str] = set()
        for name, action, compares in _conditional_rules():
            nr = lib.number(name)
            if nr is None:
                continue
            array = (_ArgCmp * max(1, len(compares)))(*(_ArgCmp(*c) for c in compares))
            _check(lib.rule_add(ctx, action, nr, len(compares), array), f"a rule for {name}")
            if action == _ACT_ALLOW:
                checked.add(name)
        program = _export(lib, ctx)
    finally:
        lib.release(ctx)
    if not program or len(program) % 8:
        raise SeccompUnavailable(f"libseccomp exported a bad program ({len(program)} bytes)")
    return _Built(program, unconditional, len(checked), lib.version)


def _export(lib: _Lib, ctx: int) -> bytes:
    try:
        fd = os.memfd_create("seccomp-bpf", os.MFD_CLOEXEC)
    except (AttributeError, OSError):
        import tempfile

        with tempfile.TemporaryFile() as scratch:
            fd = os.dup(scratch.fileno())
    try:
        _check(lib.export_bpf(ctx, fd), "seccomp_export_bpf")
        size = os.lseek(fd, 0, os.SEEK_END)
        return os.pread(fd, size, 0)
    finally:
        os.close(fd)


def _get(extra: tuple[str, ...] = ()) -> _Built:
    global _problem
    with _lock:
        if extra not in _built and _problem is None:
            try:
                _built[extra] = _build(extra)
            except SeccompUnavailable as err:
                _problem = str(err)
        if extra not in _built:
            raise SeccompUnavailable(_problem)
        return _built[extra]


def runtime_calls(runtimes: tuple[str, ...]) -> tuple[str, ...]:
    """The system calls the program of a bot running one of ``runtimes`` may make besides
    :data:`ALLOWED` (:data:`RUNTIME_CALLS`), sorted."""
    return tuple(sorted({c for r in runtimes for c in RUNTIME_CALLS.get(r, ())}))


def filter_program(extra: tuple[str, ...] = ()) -> bytes:
    """The BPF program (``struct sock_filter`` array) for the native architecture: the
    allow-list, and ``extra`` system calls besides (:func:`runtime_calls`: a runtime's).

    Built on first use and cached for the life of the process. Raises
    :class:`SeccompUnavailable` when it cannot be built here.
    """
    return _get(extra).program


def filter_pipe(extra: tuple[str, ...] = ()) -> int:
    """A fresh, non-inheritable pipe read end holding :func:`filter_program` (of ``extra``),
    then EOF: the runner reads it (``config["seccomp"]``) and closes it.
    """
    program = filter_program(extra)
    read, write = os.pipe()
    try:
        if len(program) > 65536:  # more than a pipe holds by default (never, so far)
            fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, len(program))
        view = memoryview(program)
        while view:
            view = view[os.write(write, view):]
    except BaseException:
        os.close(read)
        raise
    finally:
        os.close(write)
    return read


def describe() -> str:
    """One line for ``arena doctor``: the filter, or why there is none."""
    try:
        built = _get()
    except SeccompUnavailable as err:
        return f"seccomp: unavailable ({err})"
    total = built.unconditional + built.checked
    return ("seccomp: allow-list of {} system calls, {} with argument checks "
            "(libseccomp {}.{}.{})".format(total, built.checked, *built.version))
