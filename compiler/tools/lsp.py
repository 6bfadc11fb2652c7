"""`maf lsp`: a language server over stdio (pygls), for any editor that speaks LSP.

- diagnostics as you type: the compiler's own (same codes, spans, hints and notes as the CLI);
  on open and save also the consistency checks (`maf check`);
- hover on a role, ability, team, mark or cause; go to definition; find references;
- completion of ids and keywords; document symbols; formatting (`maf fmt`).

The index (`SpecIndex`) is plain Python over the AST and the analysis, testable without pygls.
It walks AST nodes generically (any dataclass with spans), so constructs added to the language
later are indexed by the names their fields carry.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from urllib.parse import unquote, urlparse

from maf.compiler.driver import compile_source
from maf.compiler.ir import nodes as ir
from maf.compiler.tools.describe import Describer, rulings, rulings_within
from maf.dsl import ast as A
from maf.dsl.analysis import BUILTIN_FUNCS, Analysis, analyze
from maf.dsl.diagnostics import CompileError, Diagnostic, Diagnostics, Span, source_lines
from maf.dsl.parser import _lark, parse

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
    def build(cls, text: str, file: str) -> "SpecIndex":
        idx = cls(text, file)
        if text.startswith("\ufeff"):
            text = idx.text = text[1:]
        try:
            idx.program = compile_source(text, file, generate=False).program
        except CompileError as e:
            idx.diagnostics = list(e.diagnostics)
        except Exception:  # noqa: BLE001 - an editor must never lose its server to one input
            idx.diagnostics = []
        diags = Diagnostics()
        try:
            module = parse(text, file, diags)
            if module is not None:
                idx.analysis = analyze(module, diags)
                idx._index(module)
        except Exception:  # noqa: BLE001, S110 - a partial index is better than none
            pass
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

    def completions(self) -> list[tuple[str, str]]:
        """(label, kind) for every id of the spec, keyword of the grammar and builtin."""
        out = [(key, kind) for (kind, key) in self.defs]
        out += [(w, "keyword") for w in keywords()]
        out += [(f, "function") for f in BUILTIN_FUNCS]
        unique: dict[str, str] = {}
        for label, kind in out:
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
        flags = [f for f in ("inverts", "silences", "expels") if getattr(m, f)]
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


def keywords() -> list[str]:
    """The grammar's keywords (its word terminals), for completion and the TextMate grammar."""
    words = set()
    for t in _lark().terminals:
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


# ------------------------------------------------------------------ the server
def server():  # pragma: no cover - exercised over stdio by tests/test_lsp.py
    from lsprotocol import types as T  # noqa: PLC0415
    from pygls.lsp.server import LanguageServer  # noqa: PLC0415

    from maf.compiler.tools.cli import _version  # noqa: PLC0415

    ls = LanguageServer("maf", _version())
    indexes: dict[str, SpecIndex] = {}

    def rng(text_lines: list[str], span: Span) -> T.Range:
        def pos(line: int, col: int) -> T.Position:
            line = max(line, 1)
            src = text_lines[line - 1] if line <= len(text_lines) else ""
            return T.Position(line - 1, utf16_col(src, col))

        end_line, end_col = (
            (span.end_line, span.end_col) if span.end_line else (span.line, span.col + 1)
        )
        return T.Range(pos(span.line, max(span.col, 1)), pos(end_line, max(end_col, 1)))

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
            source="maf",
            related_information=related or None,
        )

    def refresh(uri: str, *, checks: bool) -> None:
        doc = ls.workspace.get_text_document(uri)
        file = path_of(uri)
        idx = SpecIndex.build(doc.source, file)
        if idx.program is None and uri in indexes:
            # while the text has errors, hover keeps describing the last version that compiled
            idx.program = indexes[uri].program
        indexes[uri] = idx
        diags = list(idx.diagnostics)
        if checks and idx.program is not None and not diags:
            try:
                from maf.compiler.verify.check import check_source  # noqa: PLC0415 - z3 loads only here

                diags += [
                    Diagnostic(f.code, f.message, f.span, getattr(f, "hint", None), f.severity)
                    for f in check_source(idx.text, file)
                ]
            except Exception:  # noqa: BLE001, S110 - checks are a bonus, never a crash
                pass
        lines = source_lines(idx.text)
        ls.text_document_publish_diagnostics(
            T.PublishDiagnosticsParams(
                uri=uri,
                version=doc.version,
                diagnostics=[to_lsp(d, lines, uri) for d in diags if d.span.file == file],
            )
        )

    def occurrence(uri: str, position: T.Position):
        idx = indexes.get(uri)
        if idx is None:
            return None, None
        lines = source_lines(idx.text)
        line = position.line + 1
        src = lines[line - 1] if line <= len(lines) else ""
        return idx, idx.at(line, from_utf16(src, position.character))

    @ls.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: T.DidOpenTextDocumentParams):
        refresh(params.text_document.uri, checks=True)

    @ls.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: T.DidChangeTextDocumentParams):
        refresh(params.text_document.uri, checks=False)

    @ls.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: T.DidSaveTextDocumentParams):
        refresh(params.text_document.uri, checks=True)

    @ls.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: T.DidCloseTextDocumentParams):
        indexes.pop(params.text_document.uri, None)
        ls.text_document_publish_diagnostics(
            T.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
        )

    @ls.feature(T.TEXT_DOCUMENT_HOVER)
    def hover(params: T.HoverParams):
        idx, occ = occurrence(params.text_document.uri, params.position)
        if occ is None:
            return None
        return T.Hover(
            contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=idx.hover(occ)),
            range=rng(source_lines(idx.text), occ.span),
        )

    @ls.feature(T.TEXT_DOCUMENT_DEFINITION)
    def definition(params: T.DefinitionParams):
        idx, occ = occurrence(params.text_document.uri, params.position)
        span = idx.definition(occ) if occ is not None else None
        if span is None:
            return None
        return T.Location(params.text_document.uri, rng(source_lines(idx.text), span))

    @ls.feature(T.TEXT_DOCUMENT_REFERENCES)
    def references(params: T.ReferenceParams):
        idx, occ = occurrence(params.text_document.uri, params.position)
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
    def completion(params: T.CompletionParams):
        uri = params.text_document.uri
        idx = indexes.get(uri)
        if idx is None:
            return T.CompletionList(is_incomplete=False, items=[])
        items = [
            T.CompletionItem(label=label, kind=kinds.get(kind), detail=kind)
            for label, kind in idx.completions()
        ]
        # after `role.`: that role's abilities
        lines = source_lines(idx.text)
        src = lines[params.position.line] if params.position.line < len(lines) else ""
        before = src[: from_utf16(src, params.position.character) - 1]
        m = re.search(r"([a-z_][a-z0-9_]*)\.([a-z0-9_]*)$", before)
        if m:
            items = [
                T.CompletionItem(
                    label=k.split(".", 1)[1],
                    kind=kinds["ability"],
                    detail=f"ability of {m.group(1)}",
                )
                for (kd, k) in idx.defs
                if kd == "ability" and k.split(".", 1)[0] == m.group(1)
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
    def document_symbols(params: T.DocumentSymbolParams):
        idx = indexes.get(params.text_document.uri)
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
        from maf.dsl.format import format_source  # noqa: PLC0415

        doc = ls.workspace.get_text_document(params.text_document.uri)
        try:
            out = format_source(doc.source, path_of(params.text_document.uri))
        except Exception:  # noqa: BLE001 - a spec that does not parse is left alone
            return None
        if out == doc.source:
            return []
        lines = doc.source.split("\n")
        end = T.Position(len(lines) - 1, len(lines[-1].encode("utf-16-le")) // 2)
        return [T.TextEdit(T.Range(T.Position(0, 0), end), out)]

    return ls


def main() -> int:  # pragma: no cover - see server()
    server().start_io()
    return 0


def textmate_grammar() -> dict:
    """A TextMate grammar for syntax colouring (docs/editor/maf.tmLanguage.json), from the
    grammar's keywords: `python -c 'import json, compiler.lsp as l;
    print(json.dumps(l.textmate_grammar(), indent=1))' > docs/editor/maf.tmLanguage.json`."""
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
