"""Compile memory against spec size (issue 13): peak traced memory / spec bytes, per shape.

Run: python bench/bench_memory.py [--max-bytes N]
Prints, for specs of growing size, the peak memory `compile_source` allocates (tracemalloc) and
its ratio to the spec's size. Linear memory shows as a flat ratio down each column. No timing,
no assertion: a figure to compare side by side with a baseline run.
"""
from __future__ import annotations

import argparse
import gc
import sys
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maf.compiler.driver import compile_source  # noqa: E402
from maf.dsl.diagnostics import CompileError  # noqa: E402

HEAD = """\
game bench {
  name fa "b" en "Bench"
  players 5..8
}
team mafia { name fa "m" en "Mafia" }
team city  { name fa "c" en "City" }
cause shot
role godfather in mafia {
  name fa "g" en "Godfather"
  ability shoot at night {
    target x: alive(x) and team(x) != mafia
    kill x by shot
  }
}
"""
TAIL = """\
setup 5..8: godfather, citizen * rest
win city when living(mafia) == 0
win mafia when living(mafia) >= alive - living(mafia)
"""


def roles_spec(n: int) -> str:
    """n roles, each with a night ability and an expression: the shape of a big rulebook."""
    body = "".join(f"""\
role r{i} in city {{
  name fa "r{i}" en "Role {i}"
  ability look at night {{
    target x: alive(x) and x != self and (role(x) == r{i} or team(x) == mafia)
    if has(x, m) or living(city) > {i % 7} {{ tell "seen", x }} else {{ tell role(x) }}
  }}
}}
""" for i in range(n))
    return HEAD + "mark m until dawn\n" + body + \
        'role citizen in city { name fa "c" en "Citizen" }\n' + TAIL


def strings_spec(n: int) -> str:
    """n tells of the longest text allowed: the shape of a spec that is mostly text."""
    tells = "".join(f'    tell "{"x" * 9_990}{i:08d}"\n' for i in range(n))
    return HEAD.replace("    kill x by shot\n", "    kill x by shot\n" + tells) + \
        'role citizen in city { name fa "c" en "Citizen" }\n' + TAIL


def peak(text: str) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        compile_source(text, "bench.maf")
    except CompileError as e:
        raise SystemExit(f"bench spec does not compile:\n{e.render()[:2000]}") from None
    _, top = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return top


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-bytes", type=int, default=1_000_000)
    args = ap.parse_args()
    print(f"{'shape':<8} {'spec bytes':>12} {'peak bytes':>14} {'peak/spec':>10}")
    for shape, make, unit in (("roles", roles_spec, 300), ("strings", strings_spec, 10_020)):
        n = 1
        while True:
            text = make(n)
            size = len(text.encode())
            if size > args.max_bytes:
                break
            if size > 20_000:
                top = peak(text)
                print(f"{shape:<8} {size:>12,} {top:>14,} {top / size:>10.1f}")
            n *= 2


if __name__ == "__main__":
    main()
