"""Run the hostile-input suite with a large budget and print its counts: ``python -m tests.hostile.hostile_report``.

``--per-generator N`` sets the random inputs per generator (default 200; curated inputs come on top);
``--seed`` picks them. Prints one line per generator and a total; exits 1 if any input gave a
traceback, was wrongly accepted or lost data.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from .hostile import Tally, run_cases
from .hostile_all import GENERATORS


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m tests.hostile.hostile_report", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--per-generator", type=int, default=200, help="random inputs per generator")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="run only these generators (by function name)")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    total = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        for k, gen in enumerate(GENERATORS):
            if args.only and gen.__name__ not in args.only:
                continue
            t0 = time.perf_counter()
            scratch = Path(tmp) / gen.__name__
            scratch.mkdir()
            tally = run_cases(gen(np.random.default_rng(args.seed + k), scratch, args.per_generator))
            print(f"{gen.__name__:<14} {tally.summary()} ({time.perf_counter() - t0:.1f} s)")
            total.counts.update(tally.counts)
            total.failures += tally.failures
    print(f"{'total':<14} {total.summary()}")
    for line in total.failures[:20]:
        print("  " + line)
    bad = total.counts["traceback"] + total.counts["wrong"] + total.counts["lost"]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
