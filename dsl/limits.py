"""Size and nesting limits, checked right after parsing and before any recursive pass (E004, E005).

Every later stage (analysis, lowering, the checker, the emitter, and CPython compiling the
generated engine) walks the tree recursively or turns nesting into Python nesting, and CPython
refuses some nesting outright (100 indentation levels, 200 open brackets, 20 nested loops).
So the limits are set well inside what every stage is known to handle (tests/test_hostile.py
compiles, checks and imports specs at each limit), and a spec beyond them gets a diagnostic at
the offending node instead of a traceback or an engine that does not import.

The walk is iterative and generic over the AST dataclasses, so constructs added later are
counted too. docs/security.md lists the limits.

  E004 nesting too deep              E005 spec too large
"""

from __future__ import annotations

import dataclasses

from maf.dsl import ast as A
from maf.dsl.codes import Code
from maf.dsl.diagnostics import Diagnostics, Span

MAX_SPEC_BYTES = 1_000_000  # the whole spec file, UTF-8
MAX_STRING = 10_000  # characters in one string literal
MAX_BLOCK_DEPTH = 16  # statements nested in statements (`if` in `each` in `if` ...)
MAX_EXPR_DEPTH = 32  # expressions nested in expressions; a chain of one operator is 1
MAX_TREE_DEPTH = 200  # every node, chains included (what a recursive pass sees)
MAX_EACH_DEPTH = 2  # `each` loops nested in `each` loops: the engine's work per
#                                action grows as (players ** depth), 10,000 at most

# a chain of these operators is emitted flat, so it costs one level of Python nesting
_FLAT_BOTH = {"and": "and", "or": "or"}  # associative: either side
_FLAT_LEFT = {"+": "+-", "-": "+-", "*": "*"}  # left-associative: left side


_EACH = getattr(A, "Each", ())


def _kinds(union) -> tuple[type, ...]:
    return tuple(getattr(union, "__args__", ()))


def check_size(text: str, file: str, diags: Diagnostics) -> bool:
    """Before parsing: the spec is not larger than MAX_SPEC_BYTES. False when it is."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_SPEC_BYTES:
        diags.error(
            Code.E005,
            f"the spec is {size:,} bytes; maf compiles specs up to {MAX_SPEC_BYTES:,} bytes",
            Span(file, 1, 1, 1, 1),
            "split the rules, or shorten long texts",
        )
        return False
    return True


def check_limits(module: A.Module, diags: Diagnostics) -> bool:
    """After parsing: every nesting limit holds. Adds one diagnostic per offending construct
    (the outermost node past a limit) and returns False if any does."""
    exprs, stmts = _kinds(A.Expr), _kinds(A.Stmt)
    ok = True
    reported: set[int] = set()  # top-level items already given a limit diagnostic (one each)
    # (node, tree depth, enclosing statements, enclosing loops, expression depth, parent
    #  expression, field, owner span, top-level item)
    stack: list[tuple] = [
        (item, 0, 0, 0, 0, None, "", module.span, k) for k, item in enumerate(module.items)
    ]
    while stack:
        node, tree, block, loops, expr, parent, side, owner, item = stack.pop()
        if item in reported:
            continue
        if isinstance(node, (tuple, list)):
            stack.extend((x, tree, block, loops, expr, parent, side, owner, item) for x in node)
            continue
        problem = None
        if isinstance(node, str):
            if len(node) > MAX_STRING:
                problem = (
                    Code.E005,
                    f"a text of {len(node):,} characters is longer than maf "
                    f"allows ({MAX_STRING:,})",
                    "shorten it",
                )
        elif not dataclasses.is_dataclass(node) or isinstance(node, (Span, A.Ident)):
            continue
        else:
            span = getattr(node, "span", None)
            owner = span if isinstance(span, Span) else owner
            tree += 1
            if isinstance(node, stmts):
                expr = 0
                if block > MAX_BLOCK_DEPTH:
                    problem = (
                        Code.E004,
                        f"blocks nest more than {MAX_BLOCK_DEPTH} deep here",
                        "move inner conditions into `and`/`or`, or split the ability",
                    )
                if isinstance(node, _EACH):
                    loops += 1
                    if loops > MAX_EACH_DEPTH and problem is None:
                        problem = (
                            Code.E004,
                            f"`each` loops nest more than {MAX_EACH_DEPTH} deep "
                            "here (the engine would run the body players ** depth "
                            "times)",
                            "filter with one `each` and conditions instead",
                        )
                block += 1
            elif isinstance(node, exprs):
                chained = (
                    isinstance(node, A.Binary)
                    and isinstance(parent, A.Binary)
                    and (
                        _FLAT_BOTH.get(parent.op) == node.op
                        or (side == "left" and node.op in _FLAT_LEFT.get(parent.op, "-"))
                    )
                )
                expr += 0 if chained else 1
                if expr > MAX_EXPR_DEPTH:
                    problem = (
                        Code.E004,
                        f"this expression nests more than {MAX_EXPR_DEPTH} deep",
                        "split it into simpler conditions",
                    )
            else:
                expr = 0
            if problem is None and tree > MAX_TREE_DEPTH:
                problem = (
                    Code.E004,
                    f"this construct nests more than {MAX_TREE_DEPTH} deep (a "
                    "chain of operators counts each one)",
                    "split long chains of `and`/`or`/`+` into several conditions",
                )
        if problem is not None:
            code, message, hint = problem
            diags.error(code, message, owner, hint)
            reported.add(item)
            ok = False
            continue
        if isinstance(node, str):
            continue
        is_expr = isinstance(node, exprs)
        for f in dataclasses.fields(node):
            if f.name != "span":
                stack.append(
                    (
                        getattr(node, f.name),
                        tree,
                        block,
                        loops,
                        expr,
                        node if is_expr else None,
                        f.name,
                        owner,
                        item,
                    )
                )
    return ok
