"""Ctrl-C in a command: one line on stderr and exit code 130, wherever it lands.

Three stretches of a command's life, one rule each:

* **start-up** (imports, before the command's ``main`` runs): :func:`install_startup_handler`, called
  first thing by each command module under ``if __name__ == "__main__":`` (and by the ``zanzibar``
  console script's ``main``), makes SIGINT print ``interrupted during start-up: nothing was done`` and
  exit 130 at once. Importing a module never touches signal handlers: only running a command does.
* **the command** (:func:`run_command`): SIGINT raises ``KeyboardInterrupt`` again (Python's default),
  so the command can stop cleanly and keep what was done (a tournament writes the games played so
  far, training saves a checkpoint); what is left over is caught here: one line, exit 130.
* **the way out** (after ``main`` returned, while the interpreter shuts down, which can take seconds
  once torch is loaded): Ctrl-C is ignored, so the exit code stays the command's (130 after a first
  Ctrl-C), never a traceback or death by SIGINT.

:data:`EXIT_INTERRUPTED` (130, 128 + SIGINT, the shell's convention) is the exit code throughout.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from types import FrameType

#: Exit code of a command stopped by Ctrl-C (SIGINT): 128 + 2, as shells report it.
EXIT_INTERRUPTED = 130

_COMMAND_PREFIXES = ("zanzibar_env", "train", "agents")


def launched_as_command(orig_argv: Sequence[str] | None = None) -> bool:
    """Whether this process runs one of the project's commands (not code that imports the package)."""
    argv = list(getattr(sys, "orig_argv", []) if orig_argv is None else orig_argv)
    for k, arg in enumerate(argv[1:], 1):
        if arg == "-m" and k + 1 < len(argv):
            return argv[k + 1].split(".")[0] in _COMMAND_PREFIXES
        if not arg.startswith("-"):  # a script: the console script is named zanzibar
            return os.path.basename(arg) == "zanzibar"
    return False


def _exit_now(message: str) -> Callable[[int, FrameType | None], None]:
    def handler(signum: int, frame: FrameType | None) -> None:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        os.write(2, (message + "\n").encode())
        os._exit(EXIT_INTERRUPTED)

    return handler


def install_startup_handler() -> None:
    """Until :func:`run_command` takes over, Ctrl-C exits 130 with one line (a command calls it first)."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _exit_now("interrupted during start-up: nothing was done"))


def run_command(main: Callable[[], int | None], name: str = "") -> int:
    """Run a command's ``main``; a ``KeyboardInterrupt`` it lets through becomes one line and exit 130."""
    in_main = threading.current_thread() is threading.main_thread()
    ignored = in_main and signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # e.g. a background job: stays so
    command = in_main and launched_as_command() and not ignored
    if in_main and not ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    code: int | None = EXIT_INTERRUPTED
    try:
        try:
            code = main()
        except KeyboardInterrupt:
            code = EXIT_INTERRUPTED
            print(f"interrupted{f' ({name})' if name else ''}: stopped by Ctrl-C", file=sys.stderr)
    except KeyboardInterrupt:  # a second Ctrl-C while the first was being reported
        code = EXIT_INTERRUPTED
    finally:
        if command:  # on the way out: Python resets its own handlers to the default (death by SIGINT,
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # exit -2) while it shuts down; ignored ones stay
    return int(code or 0)
