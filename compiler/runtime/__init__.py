"""The runtime every generated engine carries: real Python, copied into each engine.

The modules of this package are the generic part of an engine (docs/runtime.md):

- ``api``: what a bot asks (``legal_actions``, ``wake``, ``waiting``...), class ``_BotApi``;
- ``state``: saved states (``StateError``, ``check_state``);
- ``tables``: tables derived from the spec's tables, and ``_short``;
- ``core``: the resolver, class ``Game(_BotApi)``, and its JSON helpers.

They read the tables the generated part of an engine defines above them (``ROLES``, ``RUN``...).
Here those come from ``spec``, a small hand-written reference spec, so the package imports, runs
and is tested on its own (tests/test_runtime.py). Each module takes them through an import block
fenced by ``# maf: omit`` / ``# maf: end omit``, which ``source`` strips.

A spec that does not use a piece of machinery (attack levels, visits, blocks, delayed effects,
``on any death``, phase hooks) gets an engine without it: that code sits under
``if FEATURE_X:`` / ``else:`` on the constants declared in ``spec`` (all True here, so the package
is the largest runtime), and ``source(features)`` folds them line by line: it keeps the branch
taken, dedented, and drops the other, so an engine checks no feature flag on its hot paths.
Anything it does not understand raises ``FoldError`` rather than emit wrong code.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

__all__ = ["FEATURES", "MODULES", "FoldError", "fold", "source", "table_types"]

# the modules copied into an engine, in engine order (each may use, at import time, only what
# the generated part and the modules before it define)
MODULES = ("api", "state", "tables", "core")

# the features an engine may leave out; `if FEATURE_<NAME upper>:` selects code on each
FEATURES = frozenset(
    (
        "levels",  # attack and defence levels (`protect x at N`, `kill x ... at N`)
        "visits",  # visits are recorded (visitors(), visits(), `on visited`)
        "blocks",  # some statement blocks a player
        "delays",  # delayed effects (`in N nights`, `next night`)
        "moderator",  # the moderator's choices (`moderator chooses`, `registers as`)
        "any_deaths",  # `on any death` triggers
        "statuses",  # marks `powerless` / `malfunctions`: a carrier's role powers suspended
        "replacements",  # `instead of death`
        "at_once",  # kills `at once`: settled as they run
        "at_wake",  # target filters / `when` read at the ability's wake (they read the night)
        "hook_night_start",  # phase hooks, one feature per phase boundary
        "hook_night_end",
        "hook_dawn",
        "hook_day_start",
        "hook_day_end",
    )
)

OMIT, END_OMIT = "# maf: omit", "# maf: end omit"
_HEADER = re.compile(r"( *)if FEATURE_([A-Z0-9_]+):")
_INDENT = "    "


class FoldError(ValueError):
    """Runtime source the folding preprocessor does not understand (a bug in the runtime)."""


def _fail(name: str, lineno: int, problem: str, line: str) -> FoldError:
    return FoldError(f"{name}:{lineno}: {problem}: {line.strip()!r}")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _strip_omitted(lines: list[str], name: str) -> list[tuple[int, str]]:
    """Drop the `# maf: omit` ... `# maf: end omit` blocks (both markers at one indentation,
    e.g. declarations in a class body only type checkers read); numbers the lines that stay."""
    out: list[tuple[int, str]] = []
    inside = 0
    indent = ""
    for k, line in enumerate(lines, 1):
        if "\t" in line[: len(line) - len(line.lstrip())]:
            raise _fail(name, k, "tab in the indentation", line)
        mark = line.strip()
        if mark == OMIT:
            if inside:
                raise _fail(name, k, "nested omit block", line)
            inside, indent = k, line[: _indent(line)]
        elif mark == END_OMIT:
            if not inside:
                raise _fail(name, k, "end of an omit block that was not opened", line)
            if line != indent + END_OMIT:
                raise _fail(name, k, "omit block ending at another indentation", line)
            inside = 0
        elif "maf:" in line and line.lstrip().startswith("#"):
            raise _fail(name, k, "unknown maf: marker", line)
        elif not inside:
            out.append((k, line))
    if inside:
        raise FoldError(f"{name}:{inside}: omit block never closed")
    return out


def _block(lines: list[tuple[int, str]], i: int, indent: str, name: str) -> tuple[list, int]:
    """The body of the block whose header is at `i - 1`, dedented by one level, and the index
    of the first line after it. Blank lines after its last line are not part of it."""
    inner = indent + _INDENT
    end = i
    j = i
    while j < len(lines):
        k, line = lines[j]
        if not line.strip():
            j += 1
            continue
        if line.startswith(inner):
            j += 1
            end = j
            continue
        if _indent(line) > len(indent):
            raise _fail(name, k, "line indented between a feature block and its header", line)
        break
    if end == i:
        k, line = lines[i - 1]
        raise _fail(name, k, "feature block without a body", line)
    start = _next_code(lines, i)  # blank lines after the header go with it
    body = [(k, line[len(_INDENT) :] if line.strip() else "") for k, line in lines[start:end]]
    return body, end


def _fold(lines: list[tuple[int, str]], features: frozenset[str], name: str) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        k, line = lines[i]
        m = _HEADER.fullmatch(line)
        if m is None:
            if "FEATURE_" in line:
                raise _fail(name, k, "FEATURE_ outside an `if FEATURE_X:` header", line)
            out.append(line)
            i += 1
            continue
        indent, flag = m.group(1), m.group(2).lower()
        if flag not in FEATURES:
            raise _fail(name, k, f"unknown feature {flag!r} (known: {sorted(FEATURES)})", line)
        body, i = _block(lines, i + 1, indent, name)
        other: list[tuple[int, str]] = []
        j = _next_code(lines, i)
        if j < len(lines) and lines[j][1] == indent + "else:":
            other, i = _block(lines, j + 1, indent, name)
            j = _next_code(lines, i)
        if j < len(lines) and lines[j][1].startswith((indent + "else", indent + "elif ")):
            raise _fail(
                name, lines[j][0], "only one `else:` may follow a feature block", lines[j][1]
            )
        taken, dropped = (body, other) if flag in features else (other, body)
        _fold(dropped, features, name)  # checked even when dropped
        out.extend(_fold(taken, features, name))
    return out


def _next_code(lines: list[tuple[int, str]], i: int) -> int:
    """The index of the first non-blank line from `i` on (len(lines) if none)."""
    while i < len(lines) and not lines[i][1].strip():
        i += 1
    return i


def fold(text: str, features: Iterable[str], name: str = "<runtime>") -> str:
    """Runtime source with the omit blocks stripped and the feature blocks folded for
    `features` (a subset of FEATURES); raises FoldError on anything it does not understand."""
    feats = frozenset(features)
    unknown = feats - FEATURES
    if unknown:
        raise FoldError(f"unknown features {sorted(unknown)} (known: {sorted(FEATURES)})")
    lines = _strip_omitted(text.split("\n"), name)
    return "\n".join(_fold(lines, feats, name))


@lru_cache(maxsize=64)
def _source(features: frozenset[str]) -> str:
    here = Path(__file__).parent
    parts = [
        fold((here / f"{m}.py").read_text(encoding="utf-8"), features, f"compiler/runtime/{m}.py")
        for m in MODULES
    ]
    text = "\n\n\n".join(p.strip("\n") for p in parts)
    compile(text, "<runtime>", "exec")  # a fold that broke the syntax fails here, not in an engine
    return text


def source(features: Iterable[str]) -> str:
    """The runtime an engine carries for a spec using `features`: every module in MODULES order,
    folded. Cached per feature set."""
    return _source(frozenset(features))


@lru_cache(maxsize=1)
def table_types() -> dict[str, str]:
    """The type of each table the generated part of an engine defines, as the reference spec
    (``spec.py``) declares it, by name: the emitter writes it on the engine's own table, so a
    type checker reads an engine's tables with the types the runtime was checked against rather
    than with the narrow types it would infer from one spec's values. ``Rule`` is spelled out;
    ``Final`` constants are left to inference (an engine's values are literals)."""
    tree = ast.parse((Path(__file__).parent / "spec.py").read_text(encoding="utf-8"))
    aliases = {
        node.targets[0].id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id[:1].isupper()
        and isinstance(node.value, ast.Subscript)  # a type alias, e.g. Rule = Callable[...]
    }

    class Spell(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return aliases.get(node.id, node)

    out: dict[str, str] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and not node.target.id.startswith("FEATURE_")
            and not (isinstance(node.annotation, ast.Name) and node.annotation.id == "Final")
        ):
            out[node.target.id] = ast.unparse(Spell().visit(node.annotation))
    return out
