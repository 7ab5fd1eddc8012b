"""Safe output files: checked before any work starts, never overwritten silently, written atomically.

Every command that writes a file calls :func:`check_output` on each output path before it plays,
trains or evaluates anything, so a bad path fails in a second rather than after the work. Files
are written with :func:`atomic_write_text` / :func:`atomic_copy` (a temporary file in the same
directory, then ``os.replace``): a reader sees the old file or the new one, never half of one.
"""

from __future__ import annotations

import os
import shutil
import tempfile
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
    return p


def _temp_beside(path: Path) -> tuple[int, str]:
    return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or Path("."))


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
