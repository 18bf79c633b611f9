"""Inside a new sandbox: copy the image to a fresh tmpfs, make it the root, start from it.

The first thing a sandbox runs (the host's interpreter, seeing the host's files read-only):
it copies every file of the image's manifest (:mod:`arena.isolation.image`) into a new, plain tmpfs,
binds the few devices in, makes it the root (``pivot_root``, the old root detached), remounts it
read-only, ``noatime``, ``nosuid`` and ``nodev``, and ``exec``s the interpreter's copy with the
command it was given: the zygote (:mod:`arena.inside.zygote`) or a runner. From then on nothing
in the sandbox maps or reads a host file; the host's page cache and directory cache are out of
its reach. No bot code has run when this runs.

Like the runner, this file runs inside the sandbox (as ``sushi_boot`` in the library), imports
only the standard library, and is started as ``python -S -s -B -P -c "..." ARGS``: argv[1] is the
manifest's path, argv[2] the new root's mount point, argv[3:] the command to exec from the image.
"""

from __future__ import annotations

import marshal
import os
import platform
import sys

TYPE_CHECKING = False
if TYPE_CHECKING or __package__:  # on the host (type checks, documentation): the arena's copy
    from arena.inside import kernel
else:  # started as a script (``-P``: its folder is not on the path): the library's copy
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import sushi_kernel as kernel

__all__ = ["build", "enter", "main", "private_namespace"]

_CHUNK = 1 << 20


def _copy(source: str, dest: str, mode: int, mtime_ns: int) -> None:
    fd_in = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        fd_out = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            while chunk := os.read(fd_in, _CHUNK):
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd_out, view):]
            os.fchmod(fd_out, (mode & 0o555) | 0o444)  # nobody writes; mtimes kept for .pyc
        finally:
            os.close(fd_out)
    finally:
        os.close(fd_in)
    os.utime(dest, ns=(mtime_ns, mtime_ns), follow_symlinks=False)


def build(manifest: dict[str, list], root: str) -> None:  # type: ignore[type-arg]
    """Mount a tmpfs at ``root`` and copy the image into it."""
    kernel.mount_tmpfs(kernel.libc(), root, kernel.MS_PLAIN, "mode=0755", "mount the image's tmpfs")
    for folder in manifest["dirs"]:
        os.makedirs(root + folder, mode=0o755, exist_ok=True)
    for source, dest, mode, mtime_ns in manifest["files"]:
        os.makedirs(os.path.dirname(root + dest), mode=0o755, exist_ok=True)
        _copy(source, root + dest, mode, mtime_ns)
    for dest, target in manifest["links"]:
        os.makedirs(os.path.dirname(root + dest), mode=0o755, exist_ok=True)
        if not os.path.lexists(root + dest):
            os.symlink(target, root + dest)
    for device in manifest["devices"]:
        os.makedirs(os.path.dirname(root + device), mode=0o755, exist_ok=True)
        os.close(os.open(root + device, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))


def private_namespace() -> None:
    """A mount namespace of this process's own user namespace (bubblewrap's
    ``--disable-userns`` leaves the sandbox in a nested one, which may not change the mounts
    it was given), every mount in it private."""
    libc = kernel.libc()
    kernel.check(libc.unshare(kernel.CLONE_NEWNS), "unshare the mount namespace")
    kernel.private_mounts(libc)


def enter(root: str, devices: list[str]) -> None:
    """Make ``root`` the root of this mount namespace, read-only, with ``devices`` bound in
    (read-only too: a device's atime does not move)."""
    libc = kernel.libc()
    for device in devices:
        target = root + device
        kernel.check(libc.mount(device.encode(), target.encode(), None, kernel.MS_BIND, None),
                     f"bind {device}")
        flags = kernel.MS_NOSUID | kernel.MS_NOEXEC
        try:
            kernel.remount_read_only(libc, target, flags | kernel.MS_NOATIME, "")
        except OSError:
            # A bind of a mount from a more privileged namespace keeps its atime setting;
            # read-only, it never updates atimes anyway.
            kernel.remount_read_only(libc, target, flags, f"remount {device} read-only")
    old = root + "/.old-root"
    os.mkdir(old, 0o700)
    number = kernel.SYS_PIVOT_ROOT[platform.machine()]
    kernel.check(libc.syscall(number, root.encode(), old.encode()), "pivot_root")
    os.chdir("/")
    kernel.check(libc.umount2(b"/.old-root", kernel.MNT_DETACH), "detach the old root")
    os.rmdir("/.old-root")
    kernel.remount_read_only(libc, "/", kernel.MS_PLAIN, "remount the image read-only")


def main() -> None:
    """Entry point: ``sushi_boot MANIFEST ROOT COMMAND...``; never returns."""
    manifest_path, root, *command = sys.argv[1:]
    with open(manifest_path, "rb") as f:
        manifest = marshal.loads(f.read())
    try:
        private_namespace()
        build(manifest, root)
        enter(root, manifest["devices"])
    except OSError as err:
        sys.stderr.write(f"the sandbox's image could not be built: {err}\n")
        sys.stderr.flush()
        os._exit(72)
    sys.stdout.flush()
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
