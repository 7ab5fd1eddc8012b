"""Safe output files: checked before any work starts, never overwritten silently, written atomically.

Every command that writes a file calls :func:`check_output` on each output path (and
:func:`check_writable_dir` on each output directory) before it plays, trains or evaluates anything, so
a bad, read-only or missing location fails in a second rather than after the work. Files are written
with :func:`atomic_write_text` / :func:`atomic_copy` (a temporary file in the same directory, then
``os.replace``): a reader sees the old file or the new one, never half of one. A command that writes
several files as one result stages them in a temporary directory beside the target and moves them in
together (:class:`StagedDir`), so a full disk never leaves one run's file beside another's.

Files written here get the mode an ordinary ``open`` would give (``0666`` less the umask: ``0644``
under the usual ``022``), not the ``0600`` of a bare temporary file. Disk errors (read-only file
system, no space left) become a one-line ``ValueError`` naming the path (:func:`disk_error`).
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path


def is_file(path: str | Path) -> bool:
    """``Path(path).is_file()``, but ``False`` (not an exception) for a name too long for the file
    system or one holding a NUL byte: input paths come from users and must fail with a clear error."""
    try:
        return Path(path).is_file()
    except (OSError, ValueError):
        return False


def check_output(path: str | Path, *, force: bool = False, what: str = "output file") -> Path:
    """``path`` as a :class:`Path` if a file may be written there, else ``ValueError`` (one line).

    Refused: a directory, a missing parent directory, and an existing file unless ``force``.
    """
    try:
        return _check_output(Path(path), str(path), force, what)
    except OSError as e:  # e.g. a name too long for the file system
        raise ValueError(f"{what} {str(path)[:200]!r}: {e.strerror or type(e).__name__}") from None


def _check_output(p: Path, path: str, force: bool, what: str) -> Path:
    if path == "" or "\x00" in path:
        raise ValueError(f"{what} {path!r} is not a usable file name")
    if p.is_dir():
        raise ValueError(f"{what} {path!r} is a directory, not a file")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"{what} {path!r}: directory {str(parent)!r} does not exist")
    if p.exists() and not force:
        raise ValueError(f"{what} {path!r} already exists (use --force to overwrite it)")
    if p.exists() and not p.is_file():
        raise ValueError(f"{what} {path!r} is not a regular file")
    check_writable_dir(parent, what=f"{what} {path!r}: directory")
    return p


def _umask() -> int:
    """The process umask (read by setting it and setting it back: there is no other portable way)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _follow_umask(fd: int) -> None:
    """Give a temporary file the mode ``open`` would have given a new file (``0666 & ~umask``)."""
    try:
        os.fchmod(fd, 0o666 & ~_umask())
    except (OSError, AttributeError):  # no fchmod (Windows) or a file system without modes
        pass


def _temp_beside(path: Path) -> tuple[int, str]:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or Path("."))
    _follow_umask(fd)
    return fd, tmp


def disk_error(e: OSError, path: str | Path, doing: str = "cannot write") -> ValueError:
    """A one-line ``ValueError`` for an ``OSError`` from the disk, naming ``path`` and the reason."""
    reasons = {errno.ENOSPC: "no space left on the device", errno.EROFS: "read-only file system"}
    reason = reasons.get(e.errno or 0) or e.strerror or type(e).__name__
    return ValueError(f"{doing} {str(path)[:200]!r}: {reason}")


def check_writable_dir(path: str | Path, *, what: str = "output directory") -> Path:
    """``path`` as a :class:`Path` if files can be created there, else ``ValueError`` (one line).

    ``path`` need not exist: then its nearest existing ancestor must be a directory it can be made in.
    Writability is tried, not guessed from permission bits (which do not bind root, and say nothing of a
    read-only mount): a temporary file is created and removed.
    """
    p = Path(path)
    if str(path) == "" or "\x00" in str(path):
        raise ValueError(f"{what} {str(path)!r} is not a usable directory name")
    try:
        if p.exists() and not p.is_dir():
            raise ValueError(f"{what} {str(path)!r} is a file, not a directory")
        ancestor = p
        while not ancestor.exists() and ancestor != ancestor.parent:
            ancestor = ancestor.parent
        if not ancestor.is_dir():
            raise ValueError(f"{what} {str(path)!r}: {str(ancestor)!r} is not a directory")
        fd, probe = tempfile.mkstemp(prefix=".zanzibar-write-test-", dir=ancestor)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise disk_error(e, path, f"{what}") from None
    return p


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and ``os.replace`` (all or nothing)."""
    p = Path(path)
    fd, tmp = _temp_beside(p)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_copy(src: str | Path, dst: str | Path) -> None:
    """Copy the file ``src`` to ``dst`` atomically (``dst`` must not be ``src``)."""
    s, d = Path(src), Path(dst)
    if d.exists() and os.path.samefile(s, d):
        raise ValueError(f"cannot copy {str(s)!r} onto itself")
    fd, tmp = _temp_beside(d)
    try:
        with os.fdopen(fd, "wb") as out, s.open("rb") as inp:
            shutil.copyfileobj(inp, out)
        os.replace(tmp, d)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class StagedDir:
    """Files of one result, written to a temporary directory beside ``target`` and moved in together.

    ``stage.path`` is where to write (on the same file system as ``target``); :meth:`commit` moves every
    file in: when ``target`` does not exist, the staging directory is renamed to it (one step); else
    each file replaces its namesake, after the files named in ``remove`` (outputs of an earlier run
    this one does not write) are deleted. Files of ``target`` not written here are left alone. Until
    :meth:`commit`, ``target`` is untouched: a full disk or an interruption while writing leaves the
    old files as they were (the staging directory is removed on the way out, unless the process is
    killed outright, when a ``.NAME.staging-*`` directory remains beside ``target``).
    """

    def __init__(self, target: str | Path) -> None:
        self.target = Path(target)
        parent = self.target.parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
            self.path = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.staging-", dir=parent))
            os.chmod(self.path, 0o777 & ~_umask())
        except OSError as e:
            raise disk_error(e, self.target) from None

    def commit(self, remove: Iterable[str] = ()) -> None:
        """Move the staged files into ``target`` (``ValueError`` naming the path on a disk error)."""
        try:
            if not self.target.exists():
                os.rename(self.path, self.target)
                return
            for name in remove:
                (self.target / name).unlink(missing_ok=True)
            for f in sorted(self.path.iterdir()):
                os.replace(f, self.target / f.name)
        except OSError as e:
            raise disk_error(e, self.target) from None
        finally:
            self.discard()

    def discard(self) -> None:
        """Remove the staging directory and whatever is still in it."""
        shutil.rmtree(self.path, ignore_errors=True)

    def __enter__(self) -> StagedDir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.discard()


def check_free_space(path: str | Path, need: int, *, what: str = "output") -> None:
    """``ValueError`` naming ``path`` unless its file system (or its nearest existing ancestor's) has at
    least ``need`` bytes free: a command that would write that much at the end checks it at the start."""
    p = Path(path)
    while not p.exists() and p != p.parent:
        p = p.parent
    try:
        free = shutil.disk_usage(p).free
    except OSError as e:
        raise disk_error(e, path, f"cannot check the space for {what}") from None
    if free < need:
        raise ValueError(
            f"{what} {str(path)[:200]!r}: {free / 1e6:.1f} MB free, about {need / 1e6:.1f} MB needed"
        )


CLAIM_NAME = ".zanzibar-claim"


class DirClaim:
    """An exclusive claim on an output directory for one run (``with DirClaim(path, what): ...``).

    The claim is a file ``.zanzibar-claim`` made with ``O_CREAT | O_EXCL`` (atomic on every local file
    system) holding the owner's process id: a second run claiming the same directory is refused with a
    ``ValueError`` naming the owner, so two runs racing into one ``--out`` cannot both write it. A claim
    left by a process that no longer runs is taken over. The directory is created if missing (and
    removed again on release if the run left it empty).
    """

    def __init__(self, path: str | Path, what: str = "--out") -> None:
        self.dir, self.what = Path(path), what
        self.file = self.dir / CLAIM_NAME
        self.created = False

    def __enter__(self) -> DirClaim:
        try:
            self.created = not self.dir.exists()
            self.dir.mkdir(parents=True, exist_ok=True)
            for _ in range(2):
                try:
                    fd = os.open(self.file, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
                except FileExistsError:
                    if _owner_alive(self.file):
                        raise ValueError(
                            f"{self.what} {str(self.dir)[:200]!r} is being written by another run (process "
                            f"{_owner(self.file)}); wait for it, or remove {CLAIM_NAME} there if none runs"
                        ) from None
                    self.file.unlink(missing_ok=True)  # a stale claim: its process is gone
                    continue
                with os.fdopen(fd, "w") as f:
                    f.write(f"{os.getpid()}\n")
                return self
        except OSError as e:
            raise disk_error(e, self.dir, f"cannot claim {self.what}") from None
        raise ValueError(f"{self.what} {str(self.dir)[:200]!r}: could not be claimed")

    def __exit__(self, *exc: object) -> None:
        try:
            if _owner(self.file) == os.getpid():
                self.file.unlink()
            if self.created and not any(self.dir.iterdir()):
                self.dir.rmdir()
        except OSError:
            pass


def _owner(claim: Path) -> int:
    try:
        return int(claim.read_text().strip() or 0)
    except (OSError, ValueError):
        return 0


def _owner_alive(claim: Path) -> bool:
    pid = _owner(claim)
    if pid <= 0:
        return True  # being written this instant (or unreadable): not ours to take
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
