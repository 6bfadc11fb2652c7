"""`maf lsp`: a language server over stdio (pygls), for any editor that speaks LSP.

- diagnostics as you type: the compiler's own (same codes, spans, hints and notes as the CLI);
  on open and save also the consistency checks (`maf check`);
- hover on a role, ability, team, mark or cause; go to definition; find references;
- completion of what can follow at the cursor (the grammar's parser state there); document
  symbols; formatting (`maf fmt`).

It survives its channel (issue 23): its own frame reader (FrameReader) bounds every frame and
skips malformed ones; every request gets a response, an error one if it cannot be handled; a
document past the size limit costs its E005 and no parse. It keeps up with typing (issue 24):
a change is compiled once the keys pause for DEBOUNCE, in a worker thread whose job for an
older version is stopped at once, re-parsing only the top-level items that changed
(parse_items), and only the newest version is published; the Z3 checks run in a subprocess
of their own, killed when the document changes.

The index (`SpecIndex`) is plain Python over the AST and the analysis, testable without pygls.
It walks AST nodes generically (any dataclass with spans), so constructs added to the language
later are indexed by the names their fields carry.
"""

from __future__ import annotations

import asyncio
import ctypes
import dataclasses
import json
import logging
import os
import queue
import re
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from maf.compiler.ir import nodes as ir
from maf.compiler.ir.lower import lower
from maf.compiler.tools.describe import Describer, rulings, rulings_within
from maf.dsl import ast as A
from maf.dsl.analysis import BUILTIN_FUNCS, Analysis, analyze
from maf.dsl.codes import Code
from maf.dsl.codes import info as code_info
from maf.dsl.diagnostics import Diagnostic, Diagnostics, Span, source_lines
from maf.dsl.limits import check_limits, check_size
from maf.dsl.parser import lark_parser, parse

KINDS = ("role", "ability", "team", "mark", "cause", "card")

# an Ident held by a field of this name refers to a symbol of this kind
_FIELD_KIND = {
    "cause": "cause",
    "causes": "cause",
    "mark": "mark",
    "unless": "mark",
    "exempt": "mark",
    "forced": "mark",
    "granted": "mark",
    "team": "team",
    "role": "role",
    "held": "role",
    "roles": "role",
}
# the `name` field of these declarations is the declaration of a symbol of this kind
_DECL_KIND = {
    "Role": "role",
    "Team": "team",
    "MarkDecl": "mark",
    "Card": "card",
    "Ability": "ability",
    "CauseDecl": "cause",
}


@dataclass(frozen=True)
class Occurrence:
    kind: str
    key: str  # "medic" or, for abilities, "medic.save"
    span: Span
    is_def: bool = False


@dataclass
class SpecIndex:
    """Every symbol of one spec: its definition and every place that names it."""

    text: str
    file: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    analysis: Analysis | None = None
    program: ir.Program | None = None
    defs: dict[tuple[str, str], Span] = field(default_factory=dict)
    occurrences: list[Occurrence] = field(default_factory=list)
    spans: dict[tuple[str, str], Span] = field(default_factory=dict)  # whole declaration

    @classmethod
    def build(cls, text: str, file: str, compiled=None, items=None) -> "SpecIndex":
        """Compile and index one version of a document: the driver's steps (compile_source),
        each once. The size limit comes before any parse (a document past it costs nothing
        but its E005); a Cancelled raised into the thread doing this (the document changed)
        stops it wherever it is. `compiled(idx)`, if given, is called with the diagnostics
        known and before the index is built, so they can be published first. `items`, a
        dict kept per document, lets the parse reuse the top-level items that have not
        changed since the last version (parse_items)."""
        idx = cls(text, file)
        if text.startswith("\ufeff"):
            text = text[1:]
        if "\r" in text:  # as compile_source reads it: "\r\n" and a lone "\r" end a line
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        idx.text = text
        diags = Diagnostics()
        module = None
        cold = not items  # no items kept yet: one parse of the whole (faster), items after
        try:
            if check_size(text, file, diags):
                module = parse(text, file, diags) if cold else parse_items(text, file, diags, items)
            if module is not None and check_limits(module, diags):
                idx.analysis = analyze(module, diags)
                if not diags.has_errors:
                    idx.program = lower(idx.analysis, diags, file)
            else:
                module = None  # past a nesting limit: no recursive walk over it
        except RecursionError:
            diags.error(
                Code.E004,
                "the spec nests too deeply to compile",
                Span(file, 1, 1, 1, 1),
                "split deeply nested expressions or blocks",
            )
            module = None
        except Exception:  # an editor must never lose its server to one input
            module = None
        if diags.has_errors:
            idx.program = None
        idx.diagnostics = diags.sorted()
        if compiled is not None:
            compiled(idx)
        if module is not None:
            try:
                idx._index(module)
            except Exception:  # a partial index is better than none
                pass
            if cold and items is not None:
                parse_items(text, file, Diagnostics(), items)  # for the next version
        return idx

    # ---------------------------------------------------------------- indexing
    def _names(self, kind: str) -> set[str]:
        return {k for (kd, k) in self.defs if kd == kind}

    def _declare(self, kind: str, key: str, ident_span: Span, decl_span: Span) -> None:
        self.defs.setdefault((kind, key), ident_span)
        self.spans.setdefault((kind, key), decl_span)
        self.occurrences.append(Occurrence(kind, key, ident_span, True))

    def _index(self, module: A.Module) -> None:
        # declarations first, so references can be resolved by name
        for item in module.items:
            self._declarations(item, None)
        self._walk(module, None, None, None)

    def _declarations(self, node, role: str | None) -> None:
        kind = _DECL_KIND.get(type(node).__name__)
        if kind == "cause":
            for ident in node.names:
                self._declare("cause", ident.name, ident.span, node.span)
        elif kind == "ability" and role is not None:
            self._declare("ability", f"{role}.{node.name.name}", node.name.span, node.span)
        elif kind is not None and isinstance(getattr(node, "name", None), A.Ident):
            self._declare(kind, node.name.name, node.name.span, node.span)
            if kind == "role":
                role = node.name.name
        for child in _children(node):
            if dataclasses.is_dataclass(child):
                self._declarations(child, role)

    def _walk(self, node, parent, fname: str | None, role: str | None) -> None:
        tname = type(node).__name__
        if tname == "Role":
            role = node.name.name
        if isinstance(node, A.Ident):
            self._ident(node, parent, fname, role)
            return
        if isinstance(node, (A.AbilityRef, A.Ref)):
            self._dotted(node.owner, node.name, node.span)
        elif isinstance(node, A.Name) and self.analysis is not None:
            kind, value = self.analysis.res.get(id(node), (None, None))
            if kind in KINDS and isinstance(value, str):
                self.occurrences.append(Occurrence(kind, value, node.span))
            elif kind is None:
                self._by_name(node.name, node.span)
        for f in dataclasses.fields(node) if dataclasses.is_dataclass(node) else ():
            value = getattr(node, f.name)
            for child in _flatten(value):
                if dataclasses.is_dataclass(child) and not isinstance(child, Span):
                    self._walk(child, node, f.name, role)

    def _ident(self, ident: A.Ident, parent, fname: str | None, role: str | None) -> None:
        pname = type(parent).__name__ if parent is not None else ""
        if fname == "name" and pname in _DECL_KIND:
            return  # a declaration, recorded already
        if pname == "CauseDecl":
            return
        kind = _FIELD_KIND.get(fname or "")
        if kind == "role" and ident.name not in self._names("role"):
            kind = None
        if kind is not None:
            self.occurrences.append(Occurrence(kind, ident.name, ident.span))
        elif "." in ident.name:
            owner, _, name = ident.name.partition(".")
            self._dotted(owner, name, ident.span)
        elif (
            role is not None
            and f"{role}.{ident.name}" in self._names("ability")
            and pname not in ("Target", "Choose", "Each", "Remember", "Timer")
        ):
            self.occurrences.append(Occurrence("ability", f"{role}.{ident.name}", ident.span))
        elif pname not in ("Target", "Choose", "Each", "Remember", "Timer"):
            self._by_name(ident.name, ident.span)

    def _by_name(self, name: str, span: Span) -> None:
        for kind in ("role", "team", "mark", "cause", "card"):
            if (kind, name) in self.defs:
                self.occurrences.append(Occurrence(kind, name, span))
                return

    def _dotted(self, owner: str, name: str, span: Span) -> None:
        if span.line != span.end_line:
            return
        self.occurrences.append(
            Occurrence(
                "role",
                owner,
                Span(span.file, span.line, span.col, span.line, span.col + len(owner)),
            )
        )
        start = span.col + len(owner) + 1
        self.occurrences.append(
            Occurrence(
                "ability",
                f"{owner}.{name}",
                Span(span.file, span.line, start, span.line, start + len(name)),
            )
        )

    # ---------------------------------------------------------------- queries
    def at(self, line: int, col: int) -> Occurrence | None:
        """The symbol occurrence at a 1-based line and column."""
        best = None
        for occ in self.occurrences:
            s = occ.span
            if (
                s.line == line
                and s.col <= col <= s.end_col
                and (best is None or s.end_col - s.col < best.span.end_col - best.span.col)
            ):
                best = occ
        return best

    def definition(self, occ: Occurrence) -> Span | None:
        return self.defs.get((occ.kind, occ.key))

    def references(self, occ: Occurrence, include_declaration: bool = True) -> list[Span]:
        return [
            o.span
            for o in self.occurrences
            if (o.kind, o.key) == (occ.kind, occ.key) and (include_declaration or not o.is_def)
        ]

    def symbols(self) -> list[tuple[str, str, Span, Span, list]]:
        """(kind, name, declaration span, name span, children) for the outline."""
        out = []
        for (kind, key), span in self.spans.items():
            if kind == "ability":
                continue
            children: list = [
                ("ability", k.split(".", 1)[1], s, self.defs[(kd, k)], [])
                for (kd, k), s in self.spans.items()
                if kd == "ability" and kind == "role" and k.split(".", 1)[0] == key
            ]
            out.append((kind, key, span, self.defs[(kind, key)], children))
        return sorted(out, key=lambda x: (x[2].line, x[2].col))

    def completions(self, before: str | None = None) -> list[tuple[str, str]]:
        """(label, kind) of what can follow `before` (the document up to the cursor): the
        keywords the grammar accepts there and, where it accepts a name, the spec's ids and
        the builtins, starting with the word being typed. After `role.` that role's
        abilities. Without `before`, or where the text before the cursor does not parse,
        every id, keyword and builtin."""
        typed = re.search(r"[a-z0-9_]*\Z", before or "")
        word = typed.group(0) if typed else ""
        if before is not None:
            m = re.search(r"([a-z_][a-z0-9_]*)\.([a-z0-9_]*)\Z", before)
            if m:
                return [
                    (k.split(".", 1)[1], "ability")
                    for (kd, k) in self.defs
                    if kd == "ability"
                    and k.split(".", 1)[0] == m.group(1)
                    and k.split(".", 1)[1].startswith(m.group(2))
                ]
        accepted = None if before is None else accepted_terminals(before[: len(before) - len(word)])
        words = keywords()
        if accepted is not None:
            words = [w for w in words if w in accepted[0]]
        out: list[tuple[str, str]] = []
        if accepted is None or accepted[1]:
            out += [(key, kind) for (kind, key) in self.defs if kind != "ability"]
            out += [(f, "function") for f in BUILTIN_FUNCS]
        out += [(w, "keyword") for w in words]
        unique: dict[str, str] = {}
        for label, kind in out:
            if label.startswith(word):
                unique.setdefault(label, kind)
        return list(unique.items())

    # ---------------------------------------------------------------- hover
    def hover(self, occ: Occurrence) -> str:
        p = self.program
        if p is None:
            span = self.defs.get((occ.kind, occ.key))
            where = f" (line {span.line})" if span else ""
            return f"**{occ.kind}** `{occ.key}`{where}\n\n_(fix the errors for details)_"
        d = Describer(p, self.text)
        f = getattr(self, f"_hover_{occ.kind}", None)
        text = f(p, d, occ.key) if f else None
        return text or f"**{occ.kind}** `{occ.key}`"

    def _hover_role(self, p, d: Describer, key: str) -> str | None:
        role = next((r for r in p.roles if r.id == key), None)
        if role is None:
            return None
        team = d.team_of(role)
        out = [
            f"**role** `{role.id}` — {d.display(role.names, role.id)}",
            f"team: `{team}`" if team else "independent (plays alone)",
        ]
        if role.abilities:
            out.append("abilities:")
            out += [
                f"- `{p.abilities[a].name}` {d.phase(p.abilities[a])}: {d.effect(p.abilities[a])}"
                for a in role.abilities
            ]
        out += [f"- {s}" for s in d.immunities(role) + d.triggers(role)]
        return "\n".join(out)

    def _hover_ability(self, p, d: Describer, key: str) -> str | None:
        ab = next((a for a in p.abilities if a.id == key), None)
        if ab is None:
            return None
        out = [f"**ability** `{ab.id}` — {d.phase(ab)}"]
        rank = d.night_rank(ab)
        if rank is not None:
            out.append(f"night order: {rank} of {len(p.night_order)} (tier {ab.tier})")
        out += [f"- {t}" for t in d.targets(ab)]
        out.append(f"effect: {d.effect(ab)}")
        limits = d.limits(ab)
        if limits:
            out.append("limits: " + "; ".join(limits))
        decl = self.spans.get(("ability", key))
        for r in rulings_within(rulings(self.text), decl or ab.span):
            out.append(f"RULING {r.id}: {r.text}")
        return "\n\n".join(out)

    def _hover_team(self, p, d: Describer, key: str) -> str | None:
        team = next((t for t in p.teams if t.id == key), None)
        if team is None:
            return None
        roles = [r.id for r in p.roles if r.team == team.idx]
        return f"**team** `{team.id}` — {d.display(team.names, team.id)}\n\nroles: " + ", ".join(
            f"`{r}`" for r in roles
        )

    def _hover_mark(self, p, d: Describer, key: str) -> str | None:
        m = next((m for m in p.marks if m.id == key), None)
        if m is None:
            return None
        flags = [
            f
            for f in ("inverts", "silences", "expels", "voteless", "powerless", "malfunctions")
            if getattr(m, f)
        ]
        return f"**mark** `{m.id}` until {m.lifetime}" + (f" ({', '.join(flags)})" if flags else "")

    def _hover_cause(self, p, d: Describer, key: str) -> str | None:
        if key not in p.causes:
            return None
        c = p.causes.index(key)
        killers = [a.id for a in p.abilities if _kills_by(a.body, c)]
        immune = [r.id for r in p.roles if any(c in im.causes or not im.causes for im in r.immune)]
        out = [f"**cause** `{key}`"]
        if killers:
            out.append("killed by: " + ", ".join(f"`{k}`" for k in killers))
        if immune:
            out.append("immune: " + ", ".join(f"`{r}`" for r in immune))
        return "\n\n".join(out)


_ITEM = re.compile(r"^[a-z]", re.MULTILINE)  # a top-level item starts a line with a letter


def parse_items(text: str, file: str, diags: Diagnostics, cache: dict) -> A.Module | None:
    """The parse of `text`, item by item: the text is cut where a line starts with a letter
    (where `maf fmt` puts every top-level item), each piece is parsed alone (behind as many
    newlines as come before it, so every span is the one of the whole text) or taken from
    `cache` if the same piece was in the last version (its spans moved by the lines added or
    removed above it), and the items are put together as the whole text's parse would. So
    typing re-parses the item that changed, not the spec. If a piece does not parse alone (a
    syntax error, or a cut inside an item), the whole text is parsed as `maf` parses it, so
    errors are the CLI's. tests/test_lsp.py checks that the result equals parse() on every
    shipped spec and on random edits of them."""
    starts = [m.start() for m in _ITEM.finditer(text)]
    if len(starts) < 2:
        return parse(text, file, diags)
    starts[0] = 0
    bounds = list(zip(starts, starts[1:] + [len(text)], strict=True))
    if len(cache) > 4 * len(bounds) + 64:  # versions that never parsed left too much behind
        cache.clear()
    used = set()
    items: list = []
    line = 0
    at = 0
    for a, b in bounds:
        line += text.count("\n", at, a)
        at = a
        piece = text[a:b]
        got = None
        entry = cache.get(piece)
        if entry is not None:
            got = entry[1] if entry[0] == line else _moved(entry[1], line - entry[0])
        if got is None:
            alone = Diagnostics()
            module = parse("\n" * line + piece, file, alone)
            if module is None or alone.items:
                return parse(text, file, diags)
            got = module.items
        # kept at once: a parse stopped by a newer version still leaves what it did
        cache[piece] = (line, got)
        used.add(piece)
        items.extend(got)
    for piece in [k for k in cache if k not in used]:
        del cache[piece]
    if not items:
        return parse(text, file, diags)
    first, last = items[0].span, items[-1].span
    span = Span(file, first.line, first.col, last.end_line, last.end_col)
    return A.Module(span, file, tuple(items))


_FIELDS: dict[type, tuple[str, ...]] = {}


def _moved(items: tuple, delta: int) -> tuple | None:
    """`items` with every span `delta` lines further down (a span at line 1 of a piece below
    the first is the parser's stand-in for an empty rule, the same in every parse, and stays);
    None if the tree is too deep to walk (it is parsed again)."""

    def move(node):
        if isinstance(node, Span):
            if node.line == 1:
                return node
            return Span(node.file, node.line + delta, node.col, node.end_line + delta, node.end_col)
        if isinstance(node, tuple):
            return tuple(move(x) for x in node)
        if isinstance(node, list):
            return [move(x) for x in node]
        kind = type(node)
        if not dataclasses.is_dataclass(kind):
            return node
        names = _FIELDS.get(kind)
        if names is None:
            names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind))
        return kind(*[move(getattr(node, n)) for n in names])

    try:
        return move(items)
    except RecursionError:
        return None


def _kills_by(body, cause: int) -> bool:
    for s in _flatten(body):
        if isinstance(s, ir.Kill) and s.cause == cause:
            return True
        if dataclasses.is_dataclass(s) and any(
            _kills_by(getattr(s, f.name), cause)
            for f in dataclasses.fields(s)
            if f.name in ("body", "branches", "orelse")
        ):
            return True
    return False


def _flatten(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _flatten(v)
    else:
        yield value


def _children(node):
    if not dataclasses.is_dataclass(node):
        return
    for f in dataclasses.fields(node):
        for child in _flatten(getattr(node, f.name)):
            if dataclasses.is_dataclass(child) and not isinstance(child, Span):
                yield child


_WORD = re.compile(r"[a-z_]+\Z")


def accepted_terminals(before: str) -> tuple[set[str], bool] | None:
    """What the grammar accepts right after `before`: (the keywords, whether a name is
    accepted), from the LALR parser fed the tokens of `before`; None if `before` does not
    lex or parse as the start of a spec (completion then offers everything)."""
    parser = lark_parser()
    try:
        ip = parser.parse_interactive(before)
        ip.exhaust_lexer()
        names = ip.accepts()
    except Exception:  # any lexer or parser error: no context
        return None
    words = set()
    for name in names:
        try:
            pattern = parser.get_terminal(name).pattern
        except KeyError:
            continue
        if pattern.type == "str" and _WORD.match(pattern.value):
            words.add(pattern.value)
    return words, "NAME" in names


def keywords() -> list[str]:
    """The grammar's keywords (its word terminals), for completion and the TextMate grammar."""
    words = set()
    for t in lark_parser().terminals:
        if t.pattern.type == "str" and _WORD.match(t.pattern.value):
            words.add(t.pattern.value)
    return sorted(words)


# ------------------------------------------------------------------ positions
def utf16_col(line_text: str, col: int) -> int:
    """LSP character offset (UTF-16 code units) of a 1-based code-point column."""
    return len(line_text[: max(col - 1, 0)].encode("utf-16-le")) // 2


def from_utf16(line_text: str, character: int) -> int:
    """1-based code-point column of an LSP (UTF-16) character offset."""
    units = 0
    for i, ch in enumerate(line_text):
        if units >= character:
            return i + 1
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line_text) + 1


def path_of(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


# ------------------------------------------------------------------ the transport
# What the channel may carry (docs/security.md): a frame's body is read only when its
# Content-Length is a plain number up to MAX_FRAME (a 1 MB spec, JSON-escaped, fits), and a
# header block is at most MAX_HEADER bytes. Anything else is a malformed frame: skipped, and
# reading goes on at the next `Content-Length:` header.
MAX_FRAME = 8 * 1024 * 1024
MAX_HEADER = 4096
DEBOUNCE = 0.13  # seconds without a change before a document is compiled (8 keys/s: 0.125)

_HEADER_START = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)
# a header line inside a body: JSON never holds a raw CR, so a body that does is cut short
# (its Content-Length was too large) and the next frame starts there
_EMBEDDED = re.compile(rb"content-length[ \t]*:[ \t]*[0-9]+[ \t]*\r\n", re.IGNORECASE)
_HEADER_LINE = re.compile(rb"([A-Za-z0-9-]+)[ \t]*:[ \t]*([^\r\n]*?)[ \t]*")
_HEADER_LINES = re.compile(rb"\s*(?:[A-Za-z0-9-]+[ \t]*:[^\r\n]*\r\n)*")
_HEADER_PREFIX = re.compile(
    rb"\s*(?:[A-Za-z0-9-]+[ \t]*:[^\r\n]*\r\n)*[A-Za-z0-9-]*(?:[ \t]*:[^\r\n]*)?\r?"
)


class FrameReader:
    """LSP base-protocol frames from a byte stream (`read(n)` returns at most n bytes, b"" at
    the end), never holding more than one bounded frame. `next()` returns the JSON value of
    the next well-formed frame, and raises EOFError at the end of the input. Malformed
    frames (a length that is missing, not a number, negative, too large for MAX_FRAME,
    smaller or larger than the body; a body that is not JSON; bytes outside any frame) are
    skipped and reported through `on_skip`; a body that is not JSON is read again as bytes
    outside a frame, so a frame it cut into is found."""

    def __init__(self, read, on_skip=None):
        self._read = read
        self._buf = bytearray()
        self._eof = False
        self._junk = False
        self.skipped = 0
        self.on_skip = on_skip

    def _more(self) -> bool:
        if self._eof:
            return False
        data = self._read(65536)
        if not data:
            self._eof = True
            return False
        self._buf += data
        return True

    def _skip(self, problem: str) -> None:
        self.skipped += 1
        if self.on_skip is not None:
            self.on_skip(problem)

    def next(self):
        buf = self._buf
        while True:
            m = _HEADER_START.search(buf)
            if m is None:
                if len(buf) <= MAX_HEADER and _HEADER_PREFIX.fullmatch(buf):
                    if not self._more():  # header lines (Content-Type) before the length
                        raise EOFError
                    continue
                keep = 24  # the start of a header cut by the end of a read
                if len(buf) > keep:
                    self._junk = self._junk or bool(bytes(buf[:-keep]).strip())
                    del buf[:-keep]
                if not self._more():
                    if self._junk or bytes(buf).strip():
                        self._skip("bytes outside a frame")
                    raise EOFError
                continue
            if m.start():
                # other header lines (Content-Type) may come first; anything else is junk
                lead = _HEADER_LINES.fullmatch(buf, 0, m.start())
                self._junk = self._junk or lead is None
                del buf[: m.start()]
            if self._junk:
                self._junk = False
                self._skip("bytes outside a frame")
            end = buf.find(b"\r\n\r\n", 0, MAX_HEADER + 4)
            if end < 0:
                if len(buf) > MAX_HEADER:
                    self._skip(f"a header block longer than {MAX_HEADER} bytes")
                    del buf[: m.end() - m.start()]
                    continue
                if not self._more():
                    self._skip("the input ended inside a frame's header")
                    raise EOFError
                continue
            length, problem = self._length(bytes(buf[:end]))
            if problem:
                self._skip(problem)
                del buf[: m.end() - m.start()]  # the body that follows is skipped as junk
                continue
            start = end + 4
            scanned = start
            while True:
                have = min(len(buf), start + length)
                cut = _EMBEDDED.search(buf, max(start, scanned - 64), have)
                if cut is not None:
                    self._skip("a Content-Length longer than its body")
                    del buf[: cut.start()]
                    break
                if len(buf) >= start + length:
                    body = bytes(buf[start : start + length])
                    del buf[: start + length]
                    try:
                        return json.loads(body)
                    except (ValueError, RecursionError):
                        self._skip("a body that is not JSON")
                        buf[:0] = body
                        break
                scanned = have
                if not self._more():
                    self._skip("the input ended inside a frame's body")
                    raise EOFError

    @staticmethod
    def _length(block: bytes) -> tuple[int, str | None]:
        length = None
        for line in block.split(b"\r\n"):
            h = _HEADER_LINE.fullmatch(line)
            if h is None:
                return 0, "a malformed header line"
            if h.group(1).lower() != b"content-length":
                continue
            value = h.group(2).decode("ascii", "replace")
            if length is not None:
                return 0, "two Content-Length headers"
            if not value.isascii() or not value.isdigit():
                return 0, f"a Content-Length that is not a number: {value[:20]!r}"
            if len(value) > 12 or int(value) > MAX_FRAME:
                return 0, f"a frame of {value[:20]} bytes (at most {MAX_FRAME:,} are read)"
            length = int(value)
        if length is None:
            return 0, "a header block without Content-Length"
        return length, None


def frame(message: dict) -> bytes:
    """One message as a base-protocol frame (what the server writes, what tests send)."""
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Cancelled(BaseException):
    """Raised into the worker thread when the document it is compiling has changed."""


class Worker:
    """One daemon thread running jobs in turn. `cancel(key)` stops the running job of that key
    at once (an asynchronous Cancelled: the compiler is pure Python, so it stops within a
    bytecode) and drops it; the caller still checks that a result is for the newest version."""

    def __init__(self):
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._running: object = None
        self.cancelled = 0
        self._thread = threading.Thread(target=self._loop, name="maf-lsp-worker", daemon=True)
        self._thread.start()

    def submit(self, key, fn, args: tuple, done) -> None:
        self._jobs.put((key, fn, args, done))

    def cancel(self, key) -> None:
        if not self._lock.acquire(timeout=1.0):
            return  # never wait on the worker: at worst the old job runs to its end
        try:
            if self._running is not None and self._running == key:
                self._running = None  # at most one Cancelled per job
                self.cancelled += 1
                ctypes.pythonapi.PyThreadState_SetAsyncExc(
                    ctypes.c_ulong(self._thread.ident or 0), ctypes.py_object(Cancelled)
                )
        finally:
            self._lock.release()

    def _loop(self) -> None:
        while True:
            try:
                key, fn, args, done = self._jobs.get()
                with self._lock:
                    self._running = key
                result = fn(*args)
                with self._lock:
                    finished = self._running is not None
                    self._running = None
                if finished:
                    done(result)
            except Cancelled:
                continue
            except Exception:  # a job never ends the worker
                continue


def checks_main() -> None:  # pragma: no cover - run by the server in a subprocess
    """The consistency checks of one document, in a process of their own (Z3 takes seconds
    and holds the interpreter): JSON {"text", "file"} on stdin, a JSON list of findings out."""
    req = json.loads(sys.stdin.buffer.read())
    out = []
    try:
        from maf.compiler.verify.check import check_source

        for f in check_source(req["text"], req["file"]):
            s = f.span
            out.append(
                {
                    "code": f.code,
                    "message": f.message,
                    "hint": getattr(f, "hint", None),
                    "severity": f.severity,
                    "span": [s.file, s.line, s.col, s.end_line, s.end_col],
                }
            )
    except Exception:  # checks are a bonus, never a crash
        pass
    sys.stdout.write(json.dumps(out))


class _OneLine(logging.Filter):
    """Log records as their first line, without tracebacks, at most 50 and then one in 100."""

    def __init__(self):
        super().__init__()
        self.n = 0

    def filter(self, record: logging.LogRecord) -> bool:
        self.n += 1
        if self.n > 50 and self.n % 100:
            return False
        msg = " ".join(record.getMessage().strip().split("\n", 1)[0].split())
        record.msg, record.args = (msg if len(msg) <= 200 else msg[:200] + "..."), None
        record.exc_info = record.exc_text = record.stack_info = None
        return True


def _one_line_logs() -> logging.Handler:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("maf lsp: %(message)s"))
    handler.addFilter(_OneLine())
    for name in ("pygls", "asyncio", "maf.lsp"):
        log = logging.getLogger(name)
        log.handlers[:] = [handler]
        log.setLevel(logging.ERROR if name != "maf.lsp" else logging.INFO)
        log.propagate = False
    return handler


_log = logging.getLogger("maf.lsp")


# ------------------------------------------------------------------ the server
def server():  # pragma: no cover - exercised over stdio by tests/test_lsp.py
    from lsprotocol import types as T
    from pygls.lsp.server import LanguageServer

    from maf.compiler import version

    ls = LanguageServer("maf", version())
    indexes: dict[str, SpecIndex] = {}
    worker = Worker()
    ls.maf_worker = worker  # type: ignore[attr-defined]
    generation: dict[str, int] = {}  # bumped on every open and change: newer work wins
    timers: dict[str, asyncio.TimerHandle] = {}
    item_caches: dict[str, dict] = {}  # parse_items' items of each document's last version
    pending: dict[str, asyncio.Future] = {}  # the index being built for the newest version
    programs: dict = {}  # the last program each document compiled to (for hover)

    def landed(uri: str) -> None:
        fut = pending.pop(uri, None)
        if fut is not None and not fut.done():
            fut.set_result(None)

    async def current(uri: str) -> SpecIndex | None:
        """The index of `uri`; if the one of the newest version is being built (the
        diagnostics are out, the index follows within milliseconds), once it is in."""
        fut = pending.get(uri)
        if fut is not None and not fut.done():
            try:
                await asyncio.wait_for(asyncio.shield(fut), 5.0)
            except asyncio.TimeoutError:
                pass
        return indexes.get(uri)

    check_tasks: dict[str, asyncio.Task] = {}
    ls.maf_check_tasks = check_tasks  # type: ignore[attr-defined]

    def document(uri: str):
        return ls.workspace.text_documents.get(unquote(uri))

    def rng(text_lines: list[str], span: Span) -> T.Range:
        def pos(line: int, col: int) -> T.Position:
            line = max(line, 1)
            src = text_lines[line - 1] if line <= len(text_lines) else ""
            return T.Position(line - 1, utf16_col(src, col))

        end_line, end_col = (
            (span.end_line, span.end_col) if span.end_line else (span.line, span.col + 1)
        )
        return T.Range(pos(span.line, max(span.col, 1)), pos(end_line, max(end_col, 1)))

    def code_description(code: str) -> T.CodeDescription | None:
        """Where the docs explain `code` (the registry's anchor, maf.dsl.codes), when the docs
        are there (a checkout); `maf explain CODE` prints the same everywhere."""
        found = code_info(code)
        if found is None:
            return None
        page, _, anchor = found.anchor.partition("#")
        doc = Path(__file__).resolve().parents[2] / page
        return T.CodeDescription(href=f"{doc.as_uri()}#{anchor}") if doc.is_file() else None

    def to_lsp(diag: Diagnostic, text_lines: list[str], uri: str) -> T.Diagnostic:
        message = diag.message + (f"\nhint: {diag.hint}" if diag.hint else "")
        related = [
            T.DiagnosticRelatedInformation(T.Location(uri, rng(text_lines, s)), note)
            for note, s in diag.notes
        ]
        sev = {"error": T.DiagnosticSeverity.Error, "warning": T.DiagnosticSeverity.Warning}.get(
            diag.severity, T.DiagnosticSeverity.Information
        )
        return T.Diagnostic(
            range=rng(text_lines, diag.span),
            message=message,
            severity=sev,
            code=diag.code,
            code_description=code_description(diag.code),
            source="maf",
            related_information=related or None,
        )

    def publish(uri: str, version, idx: SpecIndex, diags: list[Diagnostic]) -> None:
        file = path_of(uri)
        lines = source_lines(idx.text)
        ls.text_document_publish_diagnostics(
            T.PublishDiagnosticsParams(
                uri=uri,
                version=version,
                diagnostics=[to_lsp(d, lines, uri) for d in diags if d.span.file == file],
            )
        )

    def supersede(uri: str) -> None:
        """A newer version of `uri` (or none): count it, and drop the work on the older one
        (its timer, its compile, its checks)."""
        timer = timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        worker.cancel(uri)
        landed(uri)  # whoever waits takes the index there is
        task = check_tasks.pop(uri, None)
        if task is not None:
            task.cancel()
        generation[uri] = generation.get(uri, 0) + 1

    def compile_now(uri: str, checks: bool) -> None:
        timers.pop(uri, None)
        doc = document(uri)
        if doc is None:
            return
        gen, version, text = generation.get(uri, 0), doc.version, doc.source
        loop = asyncio.get_running_loop()
        items = item_caches.setdefault(uri, {})

        def compiled(idx: SpecIndex) -> None:  # in the worker thread: publish, then index
            loop.call_soon_threadsafe(diagnosed, uri, gen, version, idx, checks)

        def done(idx: SpecIndex) -> None:  # in the worker thread
            loop.call_soon_threadsafe(indexed, uri, gen, idx)

        landed(uri)
        pending[uri] = loop.create_future()
        worker.submit(uri, SpecIndex.build, (text, path_of(uri), compiled, items), done)

    def diagnosed(uri: str, gen: int, version, idx: SpecIndex, checks: bool) -> None:
        if idx.program is not None and document(uri) is not None:
            programs[uri] = idx.program  # (kept even if a newer version stops its index)
        if generation.get(uri) != gen or document(uri) is None:
            return  # a newer version is on its way: publish only the newest
        publish(uri, version, idx, idx.diagnostics)
        if checks and not idx.diagnostics and idx.analysis is not None:
            check_tasks[uri] = asyncio.ensure_future(run_checks(uri, gen, version, idx))

    def indexed(uri: str, gen: int, idx: SpecIndex) -> None:
        if document(uri) is None:
            return
        if idx.program is not None:
            programs[uri] = idx.program  # builds end in order: this is the newest that compiled
        if generation.get(uri) != gen and uri in indexes:
            return  # an older version's: the newest one's is on its way
        if idx.program is None:
            # while the text has errors, hover keeps describing the last version that compiled
            idx.program = programs.get(uri)
        indexes[uri] = idx
        if generation.get(uri) == gen:
            landed(uri)

    async def run_checks(uri: str, gen: int, version, idx: SpecIndex) -> None:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            "from maf.compiler.tools.lsp import checks_main; checks_main()",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        try:
            req = json.dumps({"text": idx.text, "file": path_of(uri)}).encode()
            out, _ = await proc.communicate(req)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        if generation.get(uri) != gen:
            return
        try:
            findings = [
                Diagnostic(f["code"], f["message"], Span(*f["span"]), f["hint"], f["severity"])
                for f in json.loads(out or b"[]")
            ]
        except (ValueError, KeyError, TypeError):
            return
        if findings:
            publish(uri, version, idx, idx.diagnostics + findings)

    @ls.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: T.DidOpenTextDocumentParams):
        uri = params.text_document.uri
        supersede(uri)
        compile_now(uri, checks=True)

    @ls.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: T.DidChangeTextDocumentParams):
        # typing: compile once the keys pause for DEBOUNCE; what runs for an older version
        # stops now
        uri = params.text_document.uri
        supersede(uri)
        timers[uri] = asyncio.get_running_loop().call_later(DEBOUNCE, compile_now, uri, False)

    @ls.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: T.DidSaveTextDocumentParams):
        uri = params.text_document.uri
        supersede(uri)
        compile_now(uri, checks=True)

    @ls.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: T.DidCloseTextDocumentParams):
        uri = params.text_document.uri
        supersede(uri)
        indexes.pop(uri, None)
        item_caches.pop(uri, None)  # (a compile still running keeps its own reference)
        programs.pop(uri, None)
        ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    async def occurrence(uri: str, position: T.Position):
        idx = await current(uri)
        if idx is None:
            return None, None
        lines = source_lines(idx.text)
        line = position.line + 1
        src = lines[line - 1] if 0 < line <= len(lines) else ""
        return idx, idx.at(line, from_utf16(src, position.character))

    @ls.feature(T.TEXT_DOCUMENT_HOVER)
    async def hover(params: T.HoverParams):
        idx, occ = await occurrence(params.text_document.uri, params.position)
        if occ is None:
            return None
        return T.Hover(
            contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=idx.hover(occ)),
            range=rng(source_lines(idx.text), occ.span),
        )

    @ls.feature(T.TEXT_DOCUMENT_DEFINITION)
    async def definition(params: T.DefinitionParams):
        idx, occ = await occurrence(params.text_document.uri, params.position)
        span = idx.definition(occ) if occ is not None else None
        if span is None:
            return None
        return T.Location(params.text_document.uri, rng(source_lines(idx.text), span))

    @ls.feature(T.TEXT_DOCUMENT_REFERENCES)
    async def references(params: T.ReferenceParams):
        idx, occ = await occurrence(params.text_document.uri, params.position)
        if occ is None:
            return []
        lines = source_lines(idx.text)
        return [
            T.Location(params.text_document.uri, rng(lines, s))
            for s in idx.references(occ, params.context.include_declaration)
        ]

    kinds = {
        "role": T.CompletionItemKind.Class,
        "ability": T.CompletionItemKind.Method,
        "team": T.CompletionItemKind.Enum,
        "mark": T.CompletionItemKind.EnumMember,
        "cause": T.CompletionItemKind.Constant,
        "card": T.CompletionItemKind.Struct,
        "keyword": T.CompletionItemKind.Keyword,
        "function": T.CompletionItemKind.Function,
    }

    @ls.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["."]))
    async def completion(params: T.CompletionParams):
        uri = params.text_document.uri
        idx, doc = await current(uri), document(uri)
        if idx is None or doc is None:
            return T.CompletionList(is_incomplete=False, items=[])
        from maf.dsl.limits import MAX_SPEC_BYTES

        lines = doc.source.split("\n")
        line = params.position.line
        before = None
        too_big = len(doc.source.encode("utf-8", "surrogatepass")) > MAX_SPEC_BYTES
        if 0 <= line < len(lines) and not too_big:  # past the size limit: nothing is parsed
            src = lines[line]
            before = "\n".join(
                lines[:line] + [src[: from_utf16(src, params.position.character) - 1]]
            )
        items = [
            T.CompletionItem(label=label, kind=kinds.get(kind), detail=kind)
            for label, kind in idx.completions(context(before))
        ]
        return T.CompletionList(is_incomplete=False, items=items)

    sym_kinds = {
        "role": T.SymbolKind.Class,
        "ability": T.SymbolKind.Method,
        "team": T.SymbolKind.Enum,
        "mark": T.SymbolKind.EnumMember,
        "cause": T.SymbolKind.Constant,
        "card": T.SymbolKind.Struct,
    }

    @ls.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def document_symbols(params: T.DocumentSymbolParams):
        idx = await current(params.text_document.uri)
        if idx is None:
            return []
        lines = source_lines(idx.text)

        def sym(kind, name, span, sel, children):
            return T.DocumentSymbol(
                name=name,
                kind=sym_kinds[kind],
                detail=kind,
                range=rng(lines, span),
                selection_range=rng(lines, sel),
                children=[sym(*c) for c in children] or None,
            )

        return [sym(*s) for s in idx.symbols()]

    @ls.feature(T.TEXT_DOCUMENT_FORMATTING)
    def formatting(params: T.DocumentFormattingParams):
        from maf.dsl.format import format_source
        from maf.dsl.limits import MAX_SPEC_BYTES

        doc = document(params.text_document.uri)
        if doc is None or len(doc.source.encode("utf-8", "surrogatepass")) > MAX_SPEC_BYTES:
            return None  # not open, or past the size limit: nothing is parsed
        try:
            out = format_source(doc.source, path_of(params.text_document.uri))
        except Exception:  # a spec that does not parse is left alone
            return None
        if out == doc.source:
            return []
        lines = doc.source.split("\n")
        end = T.Position(len(lines) - 1, len(lines[-1].encode("utf-16-le")) // 2)
        return [T.TextEdit(T.Range(T.Position(0, 0), end), out)]

    return ls


_ITEM_START = re.compile(r"^[a-z]", re.MULTILINE)


def context(before: str | None) -> str | None:
    """The text completion parses to know what can follow: from the start of the top-level
    item the cursor is in (a line starting with a letter), so a long spec costs one item;
    None (no context) past the size limit."""
    from maf.dsl.limits import MAX_SPEC_BYTES

    if before is None or len(before) > MAX_SPEC_BYTES:
        return None
    starts = [m.start() for m in _ITEM_START.finditer(before)]
    return before[starts[-1] :] if starts else before


async def _serve(ls, read, write) -> int:  # pragma: no cover - see main()
    """Read frames (a thread of their own, FrameReader), hand each well-formed message to
    pygls, answer every request: a request that cannot be handled gets an error response.
    Returns the exit status: 0 after shutdown and exit, 1 otherwise."""
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, ctx: _log.error("%s", ctx.get("message")))
    frames: asyncio.Queue = asyncio.Queue()
    room = threading.Semaphore(16)  # frames read ahead of the dispatcher
    reader = FrameReader(read, on_skip=lambda why: _log.info("skipped a malformed frame: %s", why))

    def read_loop() -> None:
        while True:
            room.acquire()
            try:
                item = (reader.next(),)
            except Exception:  # EOFError, or a broken input: its end
                item = None
            try:
                loop.call_soon_threadsafe(frames.put_nowait, item)
            except RuntimeError:  # the loop has closed: the server is exiting
                return
            if item is None:
                return

    threading.Thread(target=read_loop, name="maf-lsp-reader", daemon=True).start()
    proto = ls.protocol
    shutdown = False

    def error(msg_id, code: int, message: str) -> None:
        write(frame({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}))

    while True:
        item = await frames.get()
        room.release()
        if item is None:
            if not shutdown:
                print("maf lsp: the input ended without shutdown and exit", file=sys.stderr)
            return 0 if shutdown else 1
        raw = item[0]
        if not isinstance(raw, dict):
            _log.info("skipped a frame that is not a JSON-RPC message")
            continue
        method, msg_id = raw.get("method"), raw.get("id")
        if isinstance(msg_id, bool) or not isinstance(msg_id, (int, str)):
            msg_id = None
        is_request = "id" in raw and "method" in raw
        try:
            if raw.get("jsonrpc") != "2.0" or not isinstance(method, (str, type(None))):
                if is_request:
                    error(msg_id, -32600, "not a JSON-RPC 2.0 request")
                continue
            if method == "exit":  # a notification; sent as a request, it is answered first
                if is_request:
                    write(frame({"jsonrpc": "2.0", "id": msg_id, "result": None}))
                return 0 if shutdown else 1
            if shutdown and is_request:
                error(msg_id, -32600, "the server is shutting down")
                continue
            if is_request and msg_id is None:
                error(None, -32600, "a request id is a number or a string")
                continue
            try:
                msg = proto.structure_message({"params": None, **raw})
            except Exception:  # params that do not fit the method
                if is_request:
                    error(msg_id, -32602, f"invalid params for {method}")
                continue
            try:
                proto.handle_message(msg)
            except (BrokenPipeError, ConnectionError):
                raise
            except Exception as e:  # a handler never ends the server
                _log.error("%s: %s", method, e)
                if is_request:
                    error(msg_id, -32603, f"internal error in {method}")
                continue
            if method == "shutdown" and is_request:
                shutdown = True
        except (BrokenPipeError, ConnectionError):
            print("maf lsp: the client closed its end of the connection", file=sys.stderr)
            return 1


def main() -> int:  # pragma: no cover - exercised over stdio by tests/test_lsp.py
    """`maf lsp`: the server on stdin/stdout until `exit`, or the end of the input; ends the
    process with status 0 after shutdown and exit, 1 otherwise."""
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print must never corrupt the channel
    _one_line_logs()
    fd = sys.stdin.fileno()

    def read(n: int) -> bytes:
        try:
            return os.read(fd, n)
        except OSError:
            return b""

    def write(data: bytes) -> None:
        out.write(data)
        out.flush()

    class Writer:
        def write(self, data: bytes) -> None:
            write(data)

        def close(self) -> None:
            pass

    ls = server()
    ls.protocol.set_writer(Writer())
    # every stage runs once now (the parser's tables, the first call of each pass), while the
    # editor is still initializing, not when the first document is opened: `maf new`'s spec
    try:
        warm = (Path(__file__).parent / "templates" / "new" / "spec.maf").read_text("utf-8")
    except OSError:
        warm = "game x {}\n"
    job = (warm.replace("{{ID}}", "warmup"), "warmup.maf")
    ls.maf_worker.submit(None, SpecIndex.build, job, lambda _: None)
    try:
        code = asyncio.run(_serve(ls, read, write))
    except KeyboardInterrupt:
        code = 1
    try:
        out.flush()
        sys.stderr.flush()
    except OSError:
        pass
    # everything is written: end now, not after a second of tearing down pygls' thousands of
    # protocol classes (and any compile still running in the worker)
    os._exit(code)


def textmate_grammar() -> dict:
    """A TextMate grammar for syntax colouring (docs/editor/maf.tmLanguage.json), from the
    grammar's keywords: `python -c 'import json, maf.compiler.tools.lsp as l;
    print(json.dumps(l.textmate_grammar(), indent=1))' > docs/editor/maf.tmLanguage.json`, and
    the same file in docs/editor/vscode/syntaxes/ (tests/test_lsp.py fails on drift)."""
    words = keywords()
    decl = [
        w
        for w in (
            "game",
            "team",
            "role",
            "ability",
            "cause",
            "mark",
            "card",
            "setup",
            "win",
            "day",
            "night",
            "order",
            "check",
        )
        if w in words
    ]
    other = [w for w in words if w not in decl and w not in ("and", "or", "not", "in")]
    return {
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
        "name": "maf",
        "scopeName": "source.maf",
        "fileTypes": ["maf"],
        "patterns": [
            {"name": "comment.line.double-slash.maf", "match": "//.*$"},
            {
                "name": "string.quoted.double.maf",
                "begin": '"',
                "end": '"',
                "patterns": [{"name": "constant.character.escape.maf", "match": "\\\\."}],
            },
            {
                "match": "\\b(" + "|".join(decl) + ")\\s+([a-z_][a-z0-9_]*)",
                "captures": {
                    "1": {"name": "storage.type.maf"},
                    "2": {"name": "entity.name.type.maf"},
                },
            },
            {"name": "keyword.control.maf", "match": "\\b(" + "|".join(other) + ")\\b"},
            {"name": "keyword.operator.word.maf", "match": "\\b(and|or|not|in)\\b"},
            {
                "name": "support.function.maf",
                "match": "\\b(" + "|".join(sorted(BUILTIN_FUNCS)) + ")(?=\\s*\\()",
            },
            {"name": "constant.numeric.maf", "match": "\\b[0-9]+\\b"},
            {"name": "keyword.operator.maf", "match": "==|!=|<=|>=|<|>|\\.\\.|[-+*/%=]"},
            {
                "match": "\\b([a-z_][a-z0-9_]*)\\.([a-z_][a-z0-9_]*)\\b",
                "captures": {
                    "1": {"name": "entity.name.type.maf"},
                    "2": {"name": "entity.name.function.maf"},
                },
            },
        ],
    }
