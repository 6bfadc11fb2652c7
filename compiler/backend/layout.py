"""The layout of generated code: no physical line longer than the line length the repository's
linter holds (100 columns, pyproject.toml), whatever the spec's names, texts and table sizes.

The emitter and the templates write each statement and each table on one line; `wrap` then
breaks a line that is too long inside its brackets: after a comma or an opening bracket, or
before `and`, `or`, `if`, `else` and `for`, filling each line greedily, continuation lines
indented 4 more (8 for the header of a block, so that it stands apart from the body). A plain
string literal too long for a line is split into adjacent literals (implicit concatenation:
the same value), in parentheses if it stands outside brackets; a comment too long is continued
on the next line. A trailing comment that no longer fits moves above its line. Lines that fit
are left as they are, so the layout is deterministic and a short engine is unchanged. Only
whitespace, line breaks, parentheses around a split literal and the place of comments change:
tests/test_layout.py checks that each engine parses to the same AST before and after.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import unicodedata

WIDTH = 100
_BLOCK = {"if", "elif", "while", "for", "def", "with", "class", "async"}
_BREAK_BEFORE = {"and", "or", "if", "else", "for"}
_OPEN, _CLOSE = "([{", ")]}"
_FSTART = getattr(tokenize, "FSTRING_START", -1)  # Python 3.12+: f-strings are tokenized
_FEND = getattr(tokenize, "FSTRING_END", -1)


def width(text: str) -> int:
    """Columns as the linter counts them: wide (CJK) characters take 2, combining marks 0."""
    if text.isascii():
        return len(text)
    n = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        n += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return n


def wrap(source: str, limit: int = WIDTH) -> str:
    """`source` (Python) with every line longer than `limit` broken as described above."""
    lines = source.splitlines(keepends=True)
    long = [i for i, ln in enumerate(lines) if width(ln.rstrip("\n")) > limit]
    if not long:
        return source
    depth, frozen = _scan(source)
    for i in reversed(long):
        if i in frozen:
            continue
        body = lines[i].rstrip("\n")
        toks = _tokens(body, depth[i])
        if toks is None:
            continue
        block = depth[i] == 0 and toks[0][0].string in _BLOCK
        wrapped = _wrap_line(body, toks, limit, block)
        end = lines[i][len(body) :]
        lines[i : i + 1] = [w + "\n" for w in wrapped[:-1]] + [wrapped[-1] + end]
    return "".join(lines)


_SCAN = re.compile(
    r"""(?P<tq>\"\"\"|''')|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|\#[^\n]*"""
    r"""|(?P<o>[(\[{])|(?P<c>[)\]}])|(?P<nl>\n)"""
)


def _scan(source: str) -> tuple[list[int], set[int]]:
    """A light pass over the whole source (the tokenizer is ten times slower, and only the long
    lines need it): the bracket depth at the start of each line, and the lines that lie in a
    triple-quoted string (never touched)."""
    depth = [0]
    frozen: set[int] = set()
    level, line, pos = 0, 0, 0
    while True:
        m = _SCAN.search(source, pos)
        if m is None:
            return depth, frozen
        pos = m.end()
        kind = m.lastgroup
        if kind == "nl":
            line += 1
            depth.append(level)
        elif kind == "o":
            level += 1
        elif kind == "c":
            level -= 1
        elif kind == "tq":
            quote, start = m.group(), line
            while True:
                end = source.find(quote, pos)
                if end < 0:
                    end = len(source)
                    break
                k = end
                while k > 0 and source[k - 1] == "\\":
                    k -= 1
                pos = end + 3
                if (end - k) % 2 == 0:  # not escaped
                    break
            newlines = source.count("\n", m.start(), pos)
            frozen.update(range(start, start + newlines + 1))
            for _ in range(newlines):
                line += 1
                depth.append(level)


def _tokens(body: str, depth: int) -> list[tuple[tokenize.TokenInfo, int, bool]] | None:
    """The tokens of one physical line that starts at bracket depth `depth`, each with the
    depth before it and whether it lies in an f-string; columns are the line's own."""
    text = body.lstrip()
    shift = len(body) - len(text) - depth
    out: list[tuple[tokenize.TokenInfo, int, bool]] = []
    level, fdepth = 0, 0
    try:
        for t in tokenize.generate_tokens(io.StringIO("(" * depth + text).readline):
            if t.type == tokenize.ERRORTOKEN:
                return None
            if t.start[0] != 1 or t.type in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER):
                continue
            if t.type == _FSTART:
                fdepth += 1
            if level >= depth or t.start[1] >= depth:
                moved = t._replace(
                    start=(1, t.start[1] + shift), end=(t.end[0], t.end[1] + shift), line=body
                )
                out.append((moved, level, fdepth > 0))
            if t.type == _FEND:
                fdepth -= 1
            if t.type == tokenize.OP and fdepth == 0:
                level += t.string in _OPEN
                level -= t.string in _CLOSE
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # the line ends inside brackets: its tokens are all read by then
    out = [x for x in out if x[0].start[1] >= len(body) - len(text)]
    return out or None


def _wrap_line(body: str, toks, limit: int, block: bool) -> list[str]:
    indent = body[: len(body) - len(body.lstrip())]
    code_toks = [
        (t, d, f)
        for t, d, f in toks
        if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT)
    ]
    comment = ""
    if code_toks and code_toks[-1][0].type == tokenize.COMMENT:
        comment = code_toks[-1][0].string
        code_toks = code_toks[:-1]
    if not code_toks:  # a comment alone on its line
        return _wrap_comment(indent, comment, limit)
    cont = indent + " " * (8 if block else 4)
    room = limit - width(cont) - 2  # a continuation line also holds `,` or a closing bracket
    # pieces of the line, each a token and the blanks after it, with whether a line may break
    # before it (columns from the line itself: the tokenizer's strings of f-string parts are
    # not always the source text)
    code_end = len(body.rstrip()) if not comment else len(body[: _comment_col(toks)].rstrip())
    pieces: list[tuple[str, int]] = []  # (text, depth of a break before it, or -1: none)
    prev = None
    subscript = False
    for k, (t, d, in_f) in enumerate(code_toks):
        stop = code_toks[k + 1][0].start[1] if k + 1 < len(code_toks) else code_end
        text = body[t.start[1] : stop]
        can_break = (
            prev is not None
            and not in_f
            and d >= 1
            and t.string not in _CLOSE
            and (
                (prev.type == tokenize.OP and prev.string in ",({")
                or (prev.string == "[" and not subscript)
                or (t.type == tokenize.NAME and t.string in _BREAK_BEFORE)
            )
        )
        # a `[` right after a name or a closing bracket indexes: no break inside `x[...]`
        subscript = (
            t.string == "["
            and prev is not None
            and (prev.type in (tokenize.NAME, tokenize.STRING) or prev.string in _CLOSE)
        )
        at = d if can_break else -1
        prev = t
        split = _split_string(t, room) if not in_f and width(t.string) > room else None
        if split is None or t.end[0] != t.start[0]:
            pieces.append((text, at))
            continue
        gap = body[t.end[1] : stop]
        if d == 0:  # outside brackets: parenthesize the literal so that it may span lines
            pieces.append(("(", at))
            pieces.extend((c + " ", 1) for c in split[:-1])
            pieces.append((split[-1] + ")" + gap, 1))
        else:
            pieces.append((split[0] + " ", at))
            pieces.extend((c + " ", d + 1) for c in split[1:-1])
            pieces.append((split[-1] + gap, d + 1))
    # atoms: the text between two places where the line may break, with the bracket depth of
    # that place; a line that overflows breaks at the outermost place that lets it fit (the
    # last one of those), so that a line ends where a clause or an item ends
    atoms: list[tuple[str, int]] = []
    for text, depth in pieces:
        if depth >= 0 or not atoms:
            atoms.append((text, depth))
        else:
            atoms[-1] = (atoms[-1][0] + text, atoms[-1][1])
    lines: list[str] = []
    cur: list[tuple[str, int, int, int]] = []  # (text, depth, width, width without end blanks)

    def render(part: list[tuple[str, int, int, int]]) -> str:
        return ((cont if lines else indent) + "".join(a for a, _, _, _ in part)).rstrip()

    def span(part: list[tuple[str, int, int, int]]) -> int:  # the width of part as a line
        lead = width(cont if lines else indent)
        return lead + sum(w for _, _, w, _ in part[:-1]) + part[-1][3]

    for text, depth in atoms:
        cur.append((text, depth, width(text), width(text.rstrip())))
        while len(cur) > 1 and span(cur) > limit:
            fits = [j for j in range(1, len(cur)) if span(cur[:j]) <= limit]
            if fits:
                outer = min(cur[j][1] for j in fits)
                j = max(j for j in fits if cur[j][1] == outer)
            else:  # nothing fits: break as early as possible
                j = 1
            lines.append(render(cur[:j]))
            cur = cur[j:]
    lines.append(render(cur))
    if comment:
        if width(lines[-1] + "  " + comment) <= limit:
            lines[-1] += "  " + comment
        else:  # the comment goes above the line it describes
            lines = _wrap_comment(indent, comment, limit) + lines
    return lines


def _comment_col(toks) -> int:
    """The column of the line's trailing comment."""
    return next(t.start[1] for t, _, _ in toks if t.type == tokenize.COMMENT)


def _split_string(t: tokenize.TokenInfo, room: int) -> list[str] | None:
    """A plain string literal as adjacent literals of at most `room` columns, or None."""
    if t.type != tokenize.STRING:
        return None
    prefix = re.match(r"[A-Za-z]*", t.string)
    if prefix is None or prefix.group().lower() not in ("", "u") or t.string[-3:] in ('"""', "'''"):
        return None
    try:
        value = ast.literal_eval(t.string)
    except (ValueError, SyntaxError):  # pragma: no cover - the tokenizer read a literal
        return None
    if not isinstance(value, str):  # pragma: no cover
        return None
    chunks: list[str] = []
    cur = ""
    for word in re.findall(r"\S*\s*", value):
        if not word:
            continue
        while word:
            if width(repr(cur + word)) <= room:
                cur += word
                word = ""
            elif cur:
                chunks.append(cur)
                cur = ""
            else:  # one word longer than a line: cut it
                k = len(word)
                while k > 1 and width(repr(word[:k])) > room:
                    k -= 1
                chunks.append(word[:k])
                word = word[k:]
    if cur:
        chunks.append(cur)
    return [repr(c) for c in chunks] if len(chunks) > 1 else None


def _wrap_comment(indent: str, comment: str, limit: int) -> list[str]:
    """A comment as lines of at most `limit` columns: broken at blanks (kept as they are
    elsewhere), continued with `#   `; a word longer than a line is cut."""
    head, more = indent + "# ", indent + "#   "
    lines: list[str] = []
    cur = head
    for piece in re.findall(r"\s*\S+", comment[1:].strip()):
        if cur not in (head, more) and width(cur + piece) <= limit:
            cur += piece
            continue
        if cur not in (head, more):
            lines.append(cur)
            cur = more
        word = piece.lstrip()
        while width(cur + word) > limit and len(word) > 1:  # a word longer than a line
            k = len(word)
            while k > 1 and width(cur + word[:k]) > limit:
                k -= 1
            lines.append(cur + word[:k])
            word = word[k:]
            cur = more
        cur += word
    lines.append(cur)
    return lines
