"""Findings an author can answer: a warning is settled by a `RULING` comment citing its code.

`// RULING(K010): a tied runoff eliminates nobody (rulebook §3)` on the finding's line, or in
the block of comment lines right above it, states that what the check points at is the rule as
intended: the warning is dropped. Several codes may be cited at once (`RULING(K005, K010)`).
Errors are never settled this way (they are defects, or unknowns); a RULING citing another code
settles nothing. Every warning that is not settled names what to write: its own hint (a
construct stating the outcome, when the language has one) and the RULING that would settle it.
"""

from __future__ import annotations

import re

from maf.dsl.codes import Code

_RULING = re.compile(r"//.*?\bRULING\(\s*(K\d{3}(?:\s*,\s*K\d{3})*)\s*\)")


def cited(line: str) -> set[str]:
    """The check codes a `// RULING(K...)` comment on this source line cites."""
    m = _RULING.search(line)
    return {c.strip() for c in m.group(1).split(",")} if m else set()


def ruled(lines: list[str], code: str, line: int) -> bool:
    """Does a RULING citing `code` sit on `line` (1-based) or in the comment block right above?"""
    if not 0 < line <= len(lines):
        return False
    if code in cited(lines[line - 1]):
        return True
    i = line - 2
    while i >= 0 and lines[i].lstrip().startswith("//"):
        if code in cited(lines[i]):
            return True
        i -= 1
    return False


def settle(findings: list, lines: list[str]) -> list:
    """Drop the warnings a RULING settles; tell every other warning how it would be settled."""
    out = []
    for f in findings:
        if f.severity == "warning" and f.code != Code.K000:
            if ruled(lines, f.code, f.span.line):
                continue
            how = (
                f"or, if this is the rule as intended, say so: `// RULING({f.code}): why` on "
                f"line {f.span.line} or right above it"
            )
            f.hint = f"{f.hint}; {how}" if f.hint else how[0].upper() + how[1:]
        out.append(f)
    return out
