"""What positions for scenario errors cost (issue 24 item 5): reading every scenario under
tests/scenarios/ with the runner's YAML reader, which keeps the composed YAML so that an error
can find its value's line (`file:line:col` diagnostics), against the reader as it was before
(construct, then count the expanded values), side by side.

    python -m bench.bench_scenario_errors [--rounds N]

Prints the best of N rounds of each, in ms, and the ratio (positions / plain).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from maf.compiler.tools import scenario

ROOT = Path(__file__).resolve().parents[1]


def _plain(texts: list[tuple[str, str]]) -> None:
    for _name, text in texts:
        loader = scenario._Loader(text)
        try:
            data = loader.get_single_data()
        finally:
            loader.dispose()
        scenario._expanded_size(data, scenario.MAX_YAML_NODES)


def _marked(texts: list[tuple[str, str]]) -> None:
    for name, text in texts:
        scenario.parse_yaml(text, name, scenario.Source(name))


def _best(fn, texts, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn(texts)
        best = min(best, time.perf_counter() - t0)
    return best * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="rounds of each (default 5)")
    args = ap.parse_args()
    files = sorted((ROOT / "tests" / "scenarios").rglob("*.yaml"))
    texts = [(p.as_posix(), p.read_text(encoding="utf-8-sig")) for p in files]
    plain = marked = float("inf")
    for _ in range(args.rounds):  # interleaved, so a load spike on the machine hits both
        plain = min(plain, _best(_plain, texts, 1))
        marked = min(marked, _best(_marked, texts, 1))
    print(f"{len(files)} scenario files, best of {args.rounds}")
    print(f"{'before (no positions)':<28}{plain:>10.0f} ms")
    print(f"{'with positions (maf run)':<28}{marked:>10.0f} ms   {marked / plain:.2f}x")


if __name__ == "__main__":
    main()
