"""The hostile-input harness: feed careless or hostile input to every API and CLI and classify the result.

Each input is one *case*: a callable that returns normally (accepted), raises ``ValueError`` (a clear
API error) or, for a command's ``main(argv)``, returns an exit code with its output captured. The
harness classifies it:

* ``clear``: a ``ValueError`` with a one-line message, or a non-zero exit whose last output line is a
  one-line error (``error: ...`` or argparse's ``prog: error: ...``) and no traceback;
* ``accepted``: the input was valid and was used (the case's own check says what valid means);
* ``traceback``: any other exception, or ``Traceback`` in the output;
* ``wrong``: an invalid input accepted (the case expected an error);
* ``lost``: a file that existed before the case changed or vanished without ``--force``;
* ``hang``: the case ran past its ``timeout`` (seconds; a ``SIGALRM`` interrupts it).

A ``TypeError`` counts as clear like a ``ValueError``; either is a traceback when its message is one
of Python's or numpy's internal ones (:data:`INTERNAL`), which names no argument.

``python -m tests.hostile.hostile_report`` runs every generator with a larger budget and prints the counts;
``tests/hostile/test_hostile.py`` runs them with a small one and requires 0 tracebacks, 0 wrong, 0 lost.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import reprlib
import signal
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OUTCOMES = ("clear", "accepted", "traceback", "wrong", "lost", "hang")
BAD_OUTCOMES = ("traceback", "wrong", "lost", "hang")
#: Fragments of messages raised from inside Python or numpy: an error that only passes one of these on
#: names no argument and no allowed value, so the harness counts it as a traceback.
INTERNAL = (
    "invalid literal for int()", "has no attribute", "object is not callable", "not subscriptable",
    "unhashable type", "SeedSequence", "out of bounds", "could not convert", "unsupported operand",
    "'NoneType'", "not supported between instances", "must be real number", "expected str, bytes or os",
    "object cannot be interpreted as an integer", "too many values to unpack", "not enough values to unpack",
)  # fmt: skip


@dataclass
class Case:
    """One hostile input. ``run`` performs it; ``bad`` says whether it must be refused."""

    name: str
    run: Callable[[], Any]
    bad: bool = True  # must end in a clear error (False: may be accepted; ``valid`` judges it)
    valid: Callable[[Any], bool] | None = None  # for an accepted result: is it really valid?
    watch: list[Path] = field(default_factory=list)  # files that must not change
    timeout: float = 60.0  # seconds before the case counts as a hang
    after: Callable[[], str | None] | None = None  # a problem left behind (e.g. a file written), or None


@dataclass
class Tally:
    """Counts per outcome and the names of the cases that went wrong (for the failure message)."""

    counts: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    @property
    def tried(self) -> int:
        return sum(self.counts.values())

    def add(self, case: Case, outcome: str, detail: str) -> None:
        self.counts[outcome] += 1
        if outcome in BAD_OUTCOMES:
            self.failures.append(f"{outcome}: {case.name}: {detail[:300]}")

    def summary(self) -> str:
        c = self.counts
        return (
            f"inputs tried {self.tried}, clear errors {c['clear']}, accepted as valid {c['accepted']}, "
            f"tracebacks {c['traceback']}, wrongly accepted {c['wrong']}, data lost {c['lost']}, "
            f"hangs {c['hang']}"
        )


def _digest(paths: list[Path]) -> dict[Path, str | None]:
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else None for p in paths}


def _one_line_error(text: str) -> bool:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if not lines or "Traceback" in text:
        return False
    last = lines[-1]
    return last.startswith("error:") or ": error:" in last


class _Hang(BaseException):
    """Raised by the alarm inside a case that ran past its timeout."""


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Interrupt the block with :class:`_Hang` after ``seconds`` (main thread only; else no limit)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def ring(signum: int, frame: object) -> None:
        raise _Hang

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def classify(case: Case) -> tuple[str, str]:
    """Run ``case`` and return ``(outcome, detail)``."""
    before = _digest(case.watch)
    out, err = io.StringIO(), io.StringIO()
    try:
        with _deadline(case.timeout), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            result = case.run()
        exc: BaseException | None = None
    except _Hang:
        return "hang", f"ran past {case.timeout} s"
    except SystemExit as e:  # argparse
        result, exc = (e.code if isinstance(e.code, int) else 2), None
    except (ValueError, TypeError) as e:
        result, exc = None, e
    except BaseException as e:
        import traceback

        return "traceback", "".join(traceback.format_exception_only(type(e), e)).strip()
    after = _digest(case.watch)
    if before != after:
        return "lost", f"changed: {[str(p) for p in case.watch if before[p] != after[p]]}"
    left = case.after() if case.after is not None else None
    if left:
        return "lost", left
    text = out.getvalue() + err.getvalue()
    if "Traceback" in text:
        return "traceback", text[-300:]
    if exc is not None:
        msg = str(exc)
        ok = bool(msg.strip()) and "\n" not in msg.strip() and not any(f in msg for f in INTERNAL)
        return ("clear", msg) if ok else ("traceback", f"unclear {type(exc).__name__}: {msg!r}")
    if isinstance(result, int) and not isinstance(result, bool) and result != 0:
        return ("clear", text) if _one_line_error(text) else ("traceback", f"exit {result}: {text[-300:]}")
    if case.bad:
        return "wrong", f"accepted: {reprlib.repr(result)[:200]}"
    if case.valid is not None and not case.valid(result):
        return "wrong", f"accepted but invalid: {reprlib.repr(result)[:200]}"
    return "accepted", ""


def run_cases(cases: Iterator[Case], tally: Tally | None = None) -> Tally:
    """Classify every case into ``tally`` (a new one if not given)."""
    tally = tally or Tally()
    for case in cases:
        outcome, detail = classify(case)
        tally.add(case, outcome, detail)
    return tally


def main_of(module: str) -> Callable[..., Any]:
    """The ``main`` of a command module (imported lazily)."""
    import importlib

    return importlib.import_module(module).main  # type: ignore[no-any-return]


if __name__ == "__main__":
    sys.exit("run: python -m tests.hostile.hostile_report")
