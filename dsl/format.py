"""`maf fmt`: the canonical layout of a spec.

The formatter knows no statement of the language. It re-lays the token stream that the
grammar's own lexer produces (comments included), reading only the shape of the parse tree
(which minus negates, where a statement starts), so a rule added to dsl/grammar.lark formats
without a change here:

- the author's line breaks are kept (a statement per line is the author's call); runs of blank
  lines become one, and there is none right after a `{` or right before a `}`;
- each line is indented two spaces per open `{`; a line that continues an expression (inside
  parentheses, after a trailing operator or comma, or starting with one) four spaces more;
- between the tokens of a line: one space, except two between statements on one line
  (`{ tier 2  target x: alive(x)  kill x by shot }`), and none inside `( )`, around `.` and
  `..`, before `,` `:` `)`, between a function name and its `(`, and after a unary minus
  (`players - 4` subtracts, although `players` is also a keyword);
- a comment keeps its text (trailing spaces dropped); trailing comments of consecutive lines
  at the same depth are aligned two spaces after the longest code among them;
- no trailing whitespace, one newline at the end; `\r\n` and a lone `\r` end a line, as they
  do for the compiler, and come out as `\n`.

Only whitespace changes: `format_source` re-lexes its output and refuses (FormatError) if the
tokens are not the input's tokens, and it formats only text that parses.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lark import Token
from lark.exceptions import LarkError

from maf.dsl.diagnostics import CompileError, Diagnostics
from maf.dsl.parser import lark_parser, parse

if TYPE_CHECKING:
    from lark import Tree

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_NO_SPACE_BEFORE = {",", ":", ")", "]", ".", ".."}
_NO_SPACE_AFTER = {"(", "[", ".", ".."}
_OPENERS = {"(": ")", "[": "]"}
_CONTINUES = {"and", "or", "+", "-", "*", "/", "%", "==", "!=", "<=", ">=", "<", ">", ","}
_INDENT = "  "


class FormatError(Exception):
    """The formatter would change the meaning of the text (never expected; a safety net)."""


@dataclass
class _Line:
    depth: int  # braces open before the line
    # (type, text, space before it in the source, a keyword?, a unary minus?, a statement?)
    tokens: list = field(default_factory=list)
    comment: str | None = None
    blank_before: bool = False
    continuation: bool = False


@dataclass
class _Out:
    """A line as written: a blank line before it?, indentation, code, trailing comment."""

    blank: bool
    indent: str
    code: str
    comment: str | None
    depth: int


def _lex(text: str) -> list:
    """The grammar's tokens of `text`, with whitespace and comments, in order."""
    return list(lark_parser().lex(text, dont_ignore=True))


def _is_keyword(tok) -> bool:
    return tok.type != "NAME" and bool(_WORD.match(str(tok)))


def _code_tokens(text: str) -> list[tuple[str, str]]:
    return [(t.type, str(t)) for t in _lex(text) if t.type not in ("WS", "COMMENT")]


def _multiline_braces(tokens: list) -> set[int]:
    """The positions of the `{` and `}` of every brace pair that spans several lines: a block
    laid out over lines opens at the end of a line and closes on a line of its own."""
    marks: set[int] = set()
    stack: list[int] = []
    for i, tok in enumerate(tokens):
        if tok.type == "WS" or tok.type == "COMMENT":
            continue
        if str(tok) == "{":
            stack.append(i)
        elif str(tok) == "}" and stack:
            j = stack.pop()
            if tokens[j].line != tok.line:
                marks.update((i, j))
    return marks


def _span(node) -> tuple[int, int] | None:
    if isinstance(node, Token):
        # a token from the parser always has its offsets (propagate_positions)
        return None if node.start_pos is None else (node.start_pos, node.end_pos or 0)
    return None if node.meta.empty else (node.meta.start_pos, node.meta.end_pos)


def _tree_marks(tree: Tree, tokens: list) -> tuple[set[int], set[int]]:
    """From the parse tree, the offsets of (1) the minus signs that negate (`-1`), as opposed
    to subtract (`players - 4`, although `players` is also a keyword), and (2) the first token
    of every statement but the first inside a `{ }`: the children of a node that lie inside its
    own braces with no token between them (`tier 2  target x: alive(x)  kill x by shot`)."""
    unary: set[int] = set()
    starts: set[int] = set()
    braces = [(t.start_pos, str(t)) for t in tokens if str(t) in ("{", "}")]
    offsets = [b[0] for b in braces]
    code = [t.start_pos for t in tokens if t.type not in ("WS", "COMMENT")]
    for node in tree.iter_subtrees():
        if node.data == "neg" and not node.meta.empty:
            unary.add(node.meta.start_pos)
        if node.meta.empty:
            continue
        kids = [s for s in map(_span, node.children) if s]
        if len(kids) < 2:
            continue
        lo = bisect.bisect_left(offsets, node.meta.start_pos)
        hi = bisect.bisect_left(offsets, node.meta.end_pos)
        own = [braces[i] for i in range(lo, hi) if not any(a <= braces[i][0] < b for a, b in kids)]
        if not own:
            continue
        for (a1, b1), (a2, _) in zip(kids, kids[1:], strict=False):
            if bisect.bisect_left(code, a2) > bisect.bisect_left(code, b1):
                continue  # a token between them (`,`, `by`, `}`): not two statements
            if sum(1 if v == "{" else -1 for pos, v in own if pos < a1) > 0:
                starts.add(a2)
    return unary, starts


def _lines(text: str, tree: Tree | None = None) -> list[_Line]:
    lines: list[_Line] = []
    cur = _Line(0)
    depth = 0
    newlines = 0
    spaced = False
    tokens = _lex(text)
    unary, starts = _tree_marks(tree, tokens) if tree is not None else (set(), set())
    breaks = _multiline_braces(tokens)
    break_next = False
    for i, tok in enumerate(tokens):
        if (
            tok.type not in ("WS", "COMMENT")
            and cur.tokens
            and (break_next or (i in breaks and str(tok) == "}"))
        ):
            lines.append(cur)  # a line break the layout adds
            cur = _Line(depth)
        if tok.type not in ("WS", "COMMENT"):
            break_next = False
        if tok.type == "WS":
            n = str(tok).count("\n")
            if n:
                if cur.tokens or cur.comment is not None:
                    lines.append(cur)
                    newlines = n
                else:
                    newlines += n
                cur = _Line(depth, blank_before=newlines > 1 and bool(lines))
            spaced = True
            continue
        if tok.type == "COMMENT":
            cur.comment = str(tok).rstrip()
            continue
        if not cur.tokens and cur.comment is None:
            cur.depth = depth
        value = str(tok)
        if value == "{":
            depth += 1
        elif value == "}":
            depth = max(0, depth - 1)
            if not cur.tokens:
                cur.depth = depth
        cur.tokens.append(
            (
                tok.type,
                value,
                spaced,
                _is_keyword(tok),
                tok.start_pos in unary,
                tok.start_pos in starts,
            )
        )
        spaced = False
        break_next = i in breaks and value == "{"
    if cur.tokens or cur.comment is not None:
        lines.append(cur)
    return lines


def _join(tokens: list) -> str:
    out: list[str] = []
    prev = None  # (type, value, spaced, keyword, unary, statement)
    for tok in tokens:
        kind, value, spaced, keyword, _, statement = tok
        if prev is None:
            sep = ""
        elif statement:
            sep = "  "  # two statements of a block on one line
        elif prev[1] == "{" or value == "}":
            sep = " " if spaced else ""  # inside braces on one line: as the author wrote it
        elif prev[4] or value in _NO_SPACE_BEFORE or prev[1] in _NO_SPACE_AFTER:
            sep = ""
        elif value in _OPENERS and prev[0] == "NAME":
            sep = ""  # a call: `alive(x)`
        elif value in _OPENERS and prev[3]:
            sep = " " if spaced else ""  # a keyword before `(`: as the author wrote it
        else:
            sep = " "
        out.append(sep + value)
        prev = tok
    return "".join(out)


def _layout(lines: list[_Line]) -> str:
    # which lines continue the expression of the line before
    parens = 0
    prev_last = None
    for ln in lines:
        if not ln.tokens:
            continue
        first = ln.tokens[0][1]
        ln.continuation = (
            parens > 0
            or prev_last in _CONTINUES
            or prev_last in _OPENERS
            or (
                first in _CONTINUES
                and first != "-"
                and prev_last is not None
                and prev_last not in ("{", "}")
            )
        )
        for _, value, *_ in ln.tokens:
            if value in _OPENERS:
                parens += 1
            elif value in (")", "]"):
                parens = max(0, parens - 1)
        prev_last = ln.tokens[-1][1]
        if first == "}" or ln.tokens[-1][1] in ("{", "}"):
            parens = 0
    rendered: list[_Out] = []
    for i, ln in enumerate(lines):
        blank = (
            ln.blank_before
            and i > 0
            and not (lines[i - 1].tokens and lines[i - 1].tokens[-1][1] == "{")
            and not (ln.tokens and ln.tokens[0][1] == "}")
        )
        rendered.append(
            _Out(
                blank,
                _INDENT * ln.depth + (_INDENT * 2 if ln.continuation else ""),
                _join(ln.tokens) if ln.tokens else "",
                ln.comment,
                ln.depth,
            )
        )
    # align trailing comments of consecutive lines at one depth
    i = 0
    while i < len(rendered):
        j = i
        while (
            j < len(rendered)
            and rendered[j].code
            and rendered[j].comment is not None
            and rendered[j].depth == rendered[i].depth
            and (j == i or not rendered[j].blank)
        ):
            j += 1
        if j > i:
            width = max(len(r.indent) + len(r.code) for r in rendered[i:j])
            for r in rendered[i:j]:
                r.code += " " * (width - len(r.indent) - len(r.code) + 2)
            i = j
        else:
            i += 1
    out = []
    for r in rendered:
        if r.blank:
            out.append("")
        text = r.code + (r.comment or "") if r.code else (r.comment or "")
        out.append((r.indent + text).rstrip())
    return "\n".join(out) + "\n" if out else ""


def format_source(text: str, file: str = "<spec>") -> str:
    """The canonical layout of spec `text`. Raises CompileError if it does not parse."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:  # as the compiler reads it (compiler/driver.py): "\r\n", a lone "\r"
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    diags = Diagnostics()
    if parse(text, file, diags) is None or diags.has_errors:
        raise CompileError(diags.sorted(), {file: text})
    try:
        out = _layout(_lines(text, lark_parser().parse(text)))
        same = _code_tokens(out) == _code_tokens(text)
    except LarkError as e:  # pragma: no cover - what parses also lexes
        raise FormatError(f"{file}: cannot lex: {e}") from None
    if not same:  # pragma: no cover - a safety net: only whitespace may change
        raise FormatError(f"{file}: formatting would change the tokens; please report this")
    return out
