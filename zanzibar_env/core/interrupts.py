"""Ctrl-C in a command: one line on stderr and exit code 130, wherever it lands.

Three stretches of a command's life, one rule each:

* **start-up** (imports, before the command's ``main`` runs): :func:`install_startup_handler`, called
  first thing by each command module under ``if __name__ == "__main__":`` (and by the ``zanzibar``
  console script's ``main``), makes SIGINT print ``interrupted during start-up: nothing was done`` and
  exit 130 at once. Importing a module never touches signal handlers: only running a command does.
* **the command** (:func:`run_command`): SIGINT raises ``KeyboardInterrupt`` again (Python's default)
  and SIGTERM raises :class:`Terminated` (a ``KeyboardInterrupt``), so the command can stop cleanly and
  keep what was done (a tournament writes the games played so far, training saves its policy); what is
  left over is caught here: one line, exit 130 (Ctrl-C) or 143 (SIGTERM). A result being written is
  finished first (:class:`deferred_interrupts`).
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
#: Exit code of a command stopped by SIGTERM (``kill``, a batch system's time limit): 128 + 15.
EXIT_TERMINATED = 143


class Terminated(KeyboardInterrupt):
    """SIGTERM inside a command (:func:`run_command`): a ``KeyboardInterrupt``, so every place that keeps
    the work done on Ctrl-C (a tournament's finished deals, training's updates) keeps it on SIGTERM too."""

    signum = signal.SIGTERM


_COMMAND_PID = [0]  # the process running the command (workers forked from it die by SIGTERM as usual)


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    if os.getpid() != _COMMAND_PID[0]:  # a forked worker inherited the handler: the default death
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    raise Terminated


def stopped_by(e: BaseException) -> str:
    """``"SIGTERM"`` or ``"Ctrl-C"``: what an interrupt was."""
    return "SIGTERM" if isinstance(getattr(e, "cause", None) or e, Terminated) else "Ctrl-C"


def exit_code_of(e: BaseException) -> int:
    """143 for SIGTERM, 130 for Ctrl-C."""
    return EXIT_TERMINATED if stopped_by(e) == "SIGTERM" else EXIT_INTERRUPTED


class deferred_interrupts:  # (a context manager: ``with deferred_interrupts() as held``)
    """Hold Ctrl-C and SIGTERM while a result is written (main thread only): the block finishes, then
    ``held.caught`` is the interrupt that came (or ``None``) for the caller to report; it is not raised."""

    def __init__(self) -> None:
        self.caught: KeyboardInterrupt | None = None
        self._old: dict[int, object] = {}

    def __enter__(self) -> deferred_interrupts:
        if threading.current_thread() is threading.main_thread():
            for sig, exc in ((signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, Terminated)):
                self._old[sig] = signal.signal(sig, self._hold(exc))
        return self

    def _hold(self, exc: type[KeyboardInterrupt]) -> Callable[[int, FrameType | None], None]:
        def handler(signum: int, frame: FrameType | None) -> None:
            self.caught = self.caught or exc()

        return handler

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)  # type: ignore[arg-type]  # the handler signal.signal returned


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
    _COMMAND_PID[0] = os.getpid()
    old_term = signal.signal(signal.SIGTERM, _raise_terminated) if command else None
    code: int | None = EXIT_INTERRUPTED
    try:
        try:
            code = main()
        except KeyboardInterrupt as e:
            code = exit_code_of(e)
            print(f"interrupted{f' ({name})' if name else ''}: stopped by {stopped_by(e)}", file=sys.stderr)
    except KeyboardInterrupt as e:  # a second Ctrl-C while the first was being reported
        code = exit_code_of(e)
    finally:
        if command:  # on the way out: Python resets its own handlers to the default (death by SIGINT,
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # exit -2) while it shuts down; ignored ones stay
            signal.signal(signal.SIGTERM, old_term if old_term is not None else signal.SIG_DFL)
    return int(code or 0)
