"""`maf explain CODE`: what a diagnostic code means, with a broken and a fixed example, like
`rustc --explain`. Everything comes from the registry (maf.dsl.codes) and its explanations."""

from __future__ import annotations

import difflib
import sys

from maf.dsl.codes import REGISTRY, explanation, info


def add_parser(sub) -> None:
    e = sub.add_parser(
        "explain",
        help="explain a diagnostic code (E0xx, K0xx), with a broken and a fixed example",
        description="Print what a diagnostic code means, why it is reported and how to fix "
        "it, with a broken and a fixed example spec. Without a code, list every code.",
    )
    e.add_argument("code", nargs="?", help="a code such as E020 or K004 (any case)")
    e.set_defaults(fn=cmd_explain)


def cmd_explain(args) -> int:
    if args.code is None:
        for i in REGISTRY.values():
            print(f"{i.code}  {i.severity:<16}  {i.title}")
        print("\n`maf explain CODE` explains one.")
        return 0
    found = info(args.code)
    if found is None:
        close = difflib.get_close_matches(args.code.upper(), [str(c) for c in REGISTRY], n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        print(
            f"maf explain: unknown code {args.code!r}{hint}; `maf explain` lists them",
            file=sys.stderr,
        )
        return 2
    sys.stdout.write(explanation(found.code))
    return 0
