"""Print the time of `maf check specs/bazpors.maf` (compile + all checks, all table sizes).

No assertions; the target is under 2 seconds. Run: python bench/bench_check.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    t0 = time.perf_counter()
    import z3  # noqa: F401 - count the import like the CLI pays it

    from compiler.check import CHECKS, check_program
    from compiler.driver import compile_file
    t_import = time.perf_counter() - t0
    spec = ROOT / "specs" / "bazpors.maf"
    t1 = time.perf_counter()
    c = compile_file(spec, display="specs/bazpors.maf")
    t_compile = time.perf_counter() - t1
    src = spec.read_text(encoding="utf-8")
    per = {}
    for code, title, _ in CHECKS:
        t = time.perf_counter()
        check_program(c.program, src, c.python, only={code})
        per[code] = time.perf_counter() - t
    t2 = time.perf_counter()
    findings = check_program(c.program, src, c.python)
    t_checks = time.perf_counter() - t2
    for code, title, _ in CHECKS:
        print(f"  {code} {title:<26} {per[code] * 1000:7.1f} ms")
    print(f"imports (z3, compiler)       {t_import * 1000:7.1f} ms")
    print(f"compile specs/bazpors.maf    {t_compile * 1000:7.1f} ms")
    print(f"all checks                   {t_checks * 1000:7.1f} ms "
          f"({len(findings)} finding(s))")
    print(f"maf check specs/bazpors.maf  {(t_import + t_compile + t_checks) * 1000:7.1f} ms "
          "(target < 2000 ms)")


if __name__ == "__main__":
    main()
