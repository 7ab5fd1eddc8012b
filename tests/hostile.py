"""The hostile-input harness: feed careless or hostile input to every API and CLI and classify the result.

Each input is one *case*: a callable that returns normally (accepted), raises ``ValueError`` (a clear
API error) or, for a command's ``main(argv)``, returns an exit code with its output captured. The
harness classifies it:

* ``clear``: a ``ValueError`` with a one-line message, or a non-zero exit whose last output line is a
  one-line error (``error: ...`` or argparse's ``prog: error: ...``) and no traceback;
* ``accepted``: the input was valid and was used (the case's own check says what valid means);
* ``traceback``: any other exception, or ``Traceback`` in the output;
* ``wrong``: an invalid input accepted (the case expected an error);
* ``lost``: a file that existed before the case changed or vanished without ``--force``.

``python -m tests.hostile_report`` runs every generator with a larger budget and prints the counts;
``tests/test_hostile.py`` runs them with a small one and requires 0 tracebacks, 0 wrong, 0 lost.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OUTCOMES = ("clear", "accepted", "traceback", "wrong", "lost")


@dataclass
class Case:
    """One hostile input. ``run`` performs it; ``bad`` says whether it must be refused."""

    name: str
    run: Callable[[], Any]
    bad: bool = True  # must end in a clear error (False: may be accepted; ``valid`` judges it)
    valid: Callable[[Any], bool] | None = None  # for an accepted result: is it really valid?
    watch: list[Path] = field(default_factory=list)  # files that must not change
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
        if outcome in ("traceback", "wrong", "lost"):
            self.failures.append(f"{outcome}: {case.name}: {detail[:300]}")

    def summary(self) -> str:
        c = self.counts
        return (
            f"inputs tried {self.tried}, clear errors {c['clear']}, accepted as valid {c['accepted']}, "
            f"tracebacks {c['traceback']}, wrongly accepted {c['wrong']}, data lost {c['lost']}"
        )


def _digest(paths: list[Path]) -> dict[Path, str | None]:
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else None for p in paths}


def _one_line_error(text: str) -> bool:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if not lines or "Traceback" in text:
        return False
    last = lines[-1]
    return last.startswith("error:") or ": error:" in last


def classify(case: Case) -> tuple[str, str]:
    """Run ``case`` and return ``(outcome, detail)``."""
    before = _digest(case.watch)
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            result = case.run()
        exc: BaseException | None = None
    except SystemExit as e:  # argparse
        result, exc = (e.code if isinstance(e.code, int) else 2), None
    except ValueError as e:
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
        ok = bool(msg.strip()) and "\n" not in msg.strip()
        return ("clear", msg) if ok else ("traceback", f"unclear ValueError: {msg!r}")
    if isinstance(result, int) and not isinstance(result, bool) and result != 0:
        return ("clear", text) if _one_line_error(text) else ("traceback", f"exit {result}: {text[-300:]}")
    if case.bad:
        return "wrong", f"accepted: {str(result)[:200]}"
    if case.valid is not None and not case.valid(result):
        return "wrong", f"accepted but invalid: {str(result)[:200]}"
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
    sys.exit("run: python -m tests.hostile_report")
