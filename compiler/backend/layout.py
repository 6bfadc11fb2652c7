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
    # the lines copied into a new list, each long one as its wrapped lines (replacing it in
    # place moved every line after it: quadratic in an engine of a million lines)
    out: list[str] = []
    done = 0  # lines[:done] are in `out`
    for i in long:
        if i in frozen:
            continue
        body = lines[i].rstrip("\n")
        toks = _tokens(body, depth[i])
        if toks is None:
            continue
        block = depth[i] == 0 and toks[0][1] in _BLOCK
        wrapped = _wrap_line(body, toks, limit, block)
        end = lines[i][len(body) :]
        out += lines[done:i]
        out += [w + "\n" for w in wrapped[:-1]]
        out.append(wrapped[-1] + end)
        done = i + 1
    out += lines[done:]
    return "".join(out)


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


# A token as the wrapper reads it: (type, string, start column, end column, whether it ends on
# a later line, bracket depth before it, whether it lies in an f-string)
_Tok = tuple[int, str, int, int, bool, int, bool]

_PSEUDO = re.compile(tokenize.PseudoToken)  # the pure-Python tokenizer's own token pattern
_NUMCHARS = frozenset("0123456789")
_STRING_START = frozenset(tokenize.single_quoted)
_TRIPLE = frozenset(tokenize.triple_quoted)
_OP, _NAME, _STRING, _COMMENT = tokenize.OP, tokenize.NAME, tokenize.STRING, tokenize.COMMENT


def _fast_tokens(body: str, depth: int) -> list[_Tok] | None:
    """The tokens of one physical line as `_tokens` gives them, read with the tokenizer's own
    pattern in one pass (the generic tokenizer costs several times more, and a table's line
    holds tens of thousands of tokens); None for anything but plain tokens (a triple-quoted
    string, a backslash, an unknown character), which `_tokens` then reads the slow way.
    f-strings are one STRING token, as Python 3.11's tokenizer reads them."""
    pos = len(body) - len(body.lstrip())
    end = len(body)
    level = depth
    out: list[_Tok] = []
    append = out.append
    match = _PSEUDO.match
    while pos < end:
        m = match(body, pos)
        if m is None:
            return None
        start, pos = m.span(1)
        if start == pos:
            if pos >= end:
                break
            return None
        token = body[start:pos]
        initial = token[0]
        if initial.isidentifier():
            kind = _NAME
        elif initial in _NUMCHARS or (initial == "." and token != "." and token != "..."):
            kind = tokenize.NUMBER
        elif initial == "#":
            kind = _COMMENT
        elif token in _TRIPLE or initial == "\\" or initial in "\r\n":
            return None
        elif initial in _STRING_START or token[:2] in _STRING_START or token[:3] in _STRING_START:
            if token[-1] not in "'\"":  # pragma: no cover - a continued string
                return None
            kind = _STRING
        else:
            append((_OP, token, start, pos, False, level, False))
            if token in _OPEN:
                level += 1
            elif token in _CLOSE:
                level -= 1
            continue
        append((kind, token, start, pos, False, level, False))
    return out or None


def _tokens(body: str, depth: int) -> list[_Tok] | None:
    """The tokens of one physical line that starts at bracket depth `depth`, each with the
    depth before it and whether it lies in an f-string; columns are the line's own."""
    if _FSTART < 0:  # Python 3.11: the fast reader gives the tokenizer's own tokens
        fast = _fast_tokens(body, depth)
        if fast is not None:
            return fast
    return _slow_tokens(body, depth)


def _slow_tokens(body: str, depth: int) -> list[_Tok] | None:
    """`_tokens` read by the generic tokenizer."""
    text = body.lstrip()
    shift = len(body) - len(text) - depth
    out: list[_Tok] = []
    level, fdepth = 0, 0
    try:
        for t in tokenize.generate_tokens(io.StringIO("(" * depth + text).readline):
            if t.type == tokenize.ERRORTOKEN:
                return None
            if t.start[0] != 1 or t.type in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER):
                continue
            if t.type == _FSTART:
                fdepth += 1
            if (level >= depth or t.start[1] >= depth) and t.type not in (
                tokenize.INDENT,
                tokenize.DEDENT,
            ):
                out.append(
                    (
                        t.type,
                        t.string,
                        t.start[1] + shift,
                        t.end[1] + shift,
                        t.end[0] != t.start[0],
                        level,
                        fdepth > 0,
                    )
                )
            if t.type == _FEND:
                fdepth -= 1
            if t.type == tokenize.OP and fdepth == 0:
                level += t.string in _OPEN
                level -= t.string in _CLOSE
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # the line ends inside brackets: its tokens are all read by then
    out = [x for x in out if x[2] >= len(body) - len(text)]
    return out or None


def _wrap_line(body: str, toks: list[_Tok], limit: int, block: bool) -> list[str]:
    indent = body[: len(body) - len(body.lstrip())]
    code_toks = toks
    comment = ""
    if code_toks and code_toks[-1][0] == _COMMENT:
        comment = code_toks[-1][1]
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
    append = pieces.append
    ptype, pstring = -1, ""  # the previous token's (none yet)
    subscript = False
    last = len(code_toks) - 1
    for k, (kind, string, scol, ecol, multi, d, in_f) in enumerate(code_toks):
        stop = code_toks[k + 1][2] if k < last else code_end
        text = body[scol:stop]
        can_break = (
            ptype >= 0
            and not in_f
            and d >= 1
            and string not in _CLOSE
            and (
                (ptype == _OP and pstring in ",({")
                or (pstring == "[" and not subscript)
                or (kind == _NAME and string in _BREAK_BEFORE)
            )
        )
        # a `[` right after a name or a closing bracket indexes: no break inside `x[...]`
        subscript = (
            string == "[" and ptype >= 0 and (ptype in (_NAME, _STRING) or pstring in _CLOSE)
        )
        at = d if can_break else -1
        ptype, pstring = kind, string
        split = (
            _split_string(kind, string, room)
            if kind == _STRING and not in_f and not multi and width(string) > room
            else None
        )
        if split is None:
            append((text, at))
            continue
        gap = body[ecol:stop]
        if d == 0:  # outside brackets: parenthesize the literal so that it may span lines
            append(("(", at))
            pieces.extend((c + " ", 1) for c in split[:-1])
            append((split[-1] + ")" + gap, 1))
        else:
            append((split[0] + " ", at))
            pieces.extend((c + " ", d + 1) for c in split[1:-1])
            append((split[-1] + gap, d + 1))
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

    # `total` is the width of `cur`'s atoms with their blanks; `cur` as a line is as wide as
    # its lead, `total`, less the last atom's end blanks: each atom is measured once, and a
    # break looks at each atom of the line once (linear in the line, whatever its length)
    total = 0
    for text, depth in atoms:
        w = width(text)
        cur.append((text, depth, w, w if text[-1:] not in " \t" else width(text.rstrip())))
        total += w
        lead = width(cont if lines else indent)
        while len(cur) > 1 and lead + total - cur[-1][2] + cur[-1][3] > limit:
            # the line ending before atom j (1 <= j < len(cur)) fits when its width does
            best_depth, j, run = None, 1, lead
            for k in range(1, len(cur)):
                prev = cur[k - 1]
                if run + prev[3] <= limit and (best_depth is None or cur[k][1] <= best_depth):
                    best_depth, j = cur[k][1], k
                run += prev[2]
            lines.append(render(cur[:j]))
            cur = cur[j:]
            total = sum(a[2] for a in cur)
            lead = width(cont)
    lines.append(render(cur))
    if comment:
        if width(lines[-1] + "  " + comment) <= limit:
            lines[-1] += "  " + comment
        else:  # the comment goes above the line it describes
            lines = _wrap_comment(indent, comment, limit) + lines
    return lines


def _comment_col(toks: list[_Tok]) -> int:
    """The column of the line's trailing comment."""
    return next(t[2] for t in toks if t[0] == _COMMENT)


def _split_string(kind: int, string: str, room: int) -> list[str] | None:
    """A plain string literal as adjacent literals of at most `room` columns, or None."""
    if kind != _STRING:
        return None
    prefix = re.match(r"[A-Za-z]*", string)
    if prefix is None or prefix.group().lower() not in ("", "u") or string[-3:] in ('"""', "'''"):
        return None
    try:
        value = ast.literal_eval(string)
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
