"""Where an engine's lines go (issue 25 step 7): the runtime every engine carries, the tables, and
each ability's code, with how many times each ability's spec lines are written out.

An ability's body is compiled into up to three places by design: `_run_ROLE_0AB` (the generic
resolver's rule, which every path can fall back to), its target filter `_f_...` and the fast
validator `_fast_...` (the filter inlined), and the compiled night `_night_fast` (the body
inlined once more, specialised to the night's plan). This prints, per shipped spec, the engine's
size and those shares, and counts the copies: how many functions quote each spec line of an
ability body. The speed each copy buys is measured by bench/bench_compiled_night.py (the
compiled night against the generic resolver, same engine) and bench/bench_legal.py.
Prints figures; asserts nothing. Run: python bench/bench_engine_size.py
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

_DEF = re.compile(r"^(?:def|class) (\w+)", re.M)
_QUOTE = re.compile(r"# (?:[\w./-]+\.maf):(\d+): ")


def regions(text: str) -> list[tuple[str, str]]:
    """(name, text) of each top-level def/class, plus '<tables>' for the rest."""
    out, last, name = [], 0, "<tables>"
    for m in _DEF.finditer(text):
        out.append((name, text[last : m.start()]))
        last, name = m.start(), m.group(1)
    out.append((name, text[last:]))
    return out


def kind(name: str, runtime: set[str]) -> str:
    if name in runtime:
        return "runtime"
    for prefix, k in (("_run_", "rule"), ("_fast_", "validator"), ("_f_", "filter"),
                      ("_night_fast", "compiled night"), ("_fn_", "compiled night")):
        if name.startswith(prefix):
            return k
    return "tables and other generated code"


def main() -> int:
    from maf.compiler.runtime import MODULES  # the runtime's modules, copied into every engine

    runtime_names: set[str] = set()
    for m in MODULES:
        src = (ROOT / "compiler" / "runtime" / f"{m}.py").read_text(encoding="utf-8")
        runtime_names |= set(_DEF.findall(src))
    print(f"{'spec':<9} {'lines':>6} {'runtime':>8} {'rules':>6} {'filters':>8} {'validators':>11}"
          f" {'night':>6} {'other':>6}   copies per ability line (1/2/3/4+)")
    for path in sorted((ROOT / "generated").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = Counter()
        copies: Counter[int] = Counter()
        for name, body in regions(text):
            lines[kind(name, runtime_names)] += body.count("\n")
            if kind(name, runtime_names) in ("rule", "compiled night", "validator", "filter"):
                for ln in set(_QUOTE.findall(body)):
                    copies[int(ln)] += 1
        total = text.count("\n")
        dist = Counter(min(c, 4) for c in copies.values())
        share = lambda k: f"{100 * lines[k] / total:.0f}%"  # noqa: E731
        print(f"{path.stem:<9} {total:>6} {share('runtime'):>8} {share('rule'):>6} "
              f"{share('filter'):>8} {share('validator'):>11} {share('compiled night'):>6} "
              f"{share('tables and other generated code'):>6}   "
              f"{dist[1]}/{dist[2]}/{dist[3]}/{dist[4]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
