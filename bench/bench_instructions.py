"""Benchmark that a loaded machine cannot move: CPU instructions per Bazpors night, counted by
valgrind (cachegrind), for the new engine, the previous shape and the hand-written resolver, on
the same random legal nights as bench_bazpors.py, with the ratios (issue 9).

Wall-clock ratios on a shared two-core machine swing by 10-30% with the load; instruction
counts do not (a fixed PYTHONHASHSEED makes dict and set layouts, hence the counts, repeatable
to about 0.1%). They are not time: they miss cache misses and the cost of each instruction, so
they decide between two versions of the code, and bench_bazpors.py on a quiet machine gives the
figures. Each count is the difference of two runs under valgrind, one that builds the games and
one that also resolves their nights, divided by the number of nights.

Needs valgrind (a Debian package: apt-get install valgrind); says so on one line without it.
Prints figures; asserts nothing. Run: python bench/bench_instructions.py [--nights 2000]
"""

from __future__ import annotations

import argparse
import gc
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

ENGINES = {  # name -> how to make a game at night 2 of a table
    "new engine": "generated/bazpors.py",
    "previous shape": "bench/bazpors_previous.py",
    "hand-written": None,
}


def _maker(name: str):
    if ENGINES[name] is None:
        from handwritten_bazpors import HandGame

        return HandGame
    from bench_bazpors import _fresh

    from maf.compiler.driver import import_generated

    eng = import_generated(ROOT / ENGINES[name])
    return lambda roles: _fresh(eng, roles)


def _child(name: str, nights_file: str, resolve: bool) -> None:
    """Under valgrind: build a game per night, and resolve the nights if `resolve`."""
    with open(nights_file, "rb") as f:
        nights = pickle.load(f)
    make = _maker(name)
    games = [make(roles) for roles, _ in nights]
    gc.disable()
    if resolve:
        for g, (_, actions) in zip(games, nights, strict=True):
            g.resolve_night(actions)


def _count(name: str, nights_file: str, resolve: bool) -> int:
    cmd = [
        "valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
        sys.executable, __file__, "--child", name, nights_file, "1" if resolve else "0",
    ]  # fmt: skip
    env = dict(os.environ, PYTHONHASHSEED="0")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    m = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if out.returncode or m is None:
        sys.exit(f"bench_instructions: valgrind failed on {name}:\n{out.stderr[-2000:]}")
    return int(m.group(1).replace(",", ""))


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3], sys.argv[4] == "1")
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--nights", type=int, default=2000)
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        print("bench_instructions: valgrind is not installed (apt-get install valgrind)")
        return
    from bench_bazpors import random_nights

    from maf.compiler.driver import import_generated

    new = import_generated(ROOT / ENGINES["new engine"])
    with tempfile.TemporaryDirectory() as tmp:
        for size in (10, 16):
            path = os.path.join(tmp, f"nights{size}.pkl")
            with open(path, "wb") as f:
                pickle.dump(random_nights(new, size, args.nights, seed=size), f)
            per = {}
            for name in ENGINES:
                spent = _count(name, path, True) - _count(name, path, False)
                per[name] = spent / args.nights
            print(f"{size}-player nights ({args.nights} nights, cachegrind, PYTHONHASHSEED=0):")
            for name, n in per.items():
                print(f"  {name:15s} {n:10,.0f} instructions per night")
            new_n = per["new engine"]
            print(f"  previous / new = {per['previous shape'] / new_n:.2f}x   (target >= 3x)")
            print(f"  hand / new     = {per['hand-written'] / new_n:.2f}x")


if __name__ == "__main__":
    main()
