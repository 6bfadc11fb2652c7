"""Source spans and diagnostics: ``file:line:col: error[CODE]: message``, the line, a caret."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Span:
    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NO_SPAN = Span("<builtin>", 0, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    message: str
    span: Span
    hint: str | None = None
    severity: str = "error"
    notes: tuple[tuple[str, Span], ...] = field(default=())

    def render(self, sources: "dict[str, str] | None" = None) -> str:
        return render(self, sources or {})


def source_lines(text: str) -> list[str]:
    """The lines of a spec exactly as the parser counts them, for every place that turns a line
    number back into text (diagnostics, comments in generated code, the checker).

    Only "\n" ends a line (a "\r" right before it is dropped; the driver turns "\r\n" and a
    lone "\r" into "\n" first, as reading a file does). A form feed, U+2028 and the other
    characters ``str.splitlines`` also breaks at are ordinary characters to the parser (inside
    a comment they do not end it), so they are here too.
    """
    return [ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")]


def _excerpt(span: Span, sources: dict[str, str]) -> list[str]:
    text = sources.get(span.file)
    if text is None or span.line <= 0:
        return []
    lines = source_lines(text)
    if span.line > len(lines):
        return []
    src = lines[span.line - 1]
    width = len(src) - span.col + 1 if span.end_line != span.line else span.end_col - span.col
    width = max(1, min(width, len(src) - span.col + 1))
    col = span.col
    if len(src) > MAX_EXCERPT:  # a very long line: a window around the span, marked with ...
        start = max(0, span.col - 1 - MAX_EXCERPT // 4)
        end = start + MAX_EXCERPT
        cut = ("..." if start else "") + src[start:end] + ("..." if end < len(src) else "")
        col = span.col - start + (3 if start else 0)
        width = max(1, min(width, len(cut) - col + 1))
        src = cut
    gutter = f"{span.line:>4} | "
    return [gutter + src, " " * len(gutter) + " " * (col - 1) + "^" * width]


MAX_EXCERPT = 160  # characters of a source line shown under a diagnostic


def render(d: Diagnostic, sources: dict[str, str]) -> str:
    out = [f"{d.span}: {d.severity}[{d.code}]: {d.message}"]
    out += _excerpt(d.span, sources)
    for note, span in d.notes:
        out.append(f"{span}: note: {note}")
        out += _excerpt(span, sources)
    if d.hint:
        out.append(f"   = hint: {d.hint}")
    return "\n".join(out)


class Diagnostics:
    """Collects diagnostics of one run; passes add to it and never raise."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[Diagnostic] = []

    def error(
        self,
        code: str,
        message: str,
        span: Span,
        hint: str | None = None,
        notes: tuple[tuple[str, Span], ...] = (),
    ) -> None:
        self.items.append(Diagnostic(code, message, span, hint, "error", notes))

    def warning(
        self,
        code: str,
        message: str,
        span: Span,
        hint: str | None = None,
        notes: tuple[tuple[str, Span], ...] = (),
    ) -> None:
        self.items.append(Diagnostic(code, message, span, hint, "warning", notes))

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.items)

    def sorted(self) -> list[Diagnostic]:
        """In source order, each diagnostic once: a trait's line included by several roles is
        checked once per role, and reports the same error each time."""
        unique = list(dict.fromkeys(self.items))
        return sorted(unique, key=lambda d: (d.span.file, d.span.line, d.span.col, d.code))


class CompileError(Exception):
    """Raised by the facade when a spec has errors; carries every diagnostic."""

    def __init__(self, diagnostics: list[Diagnostic], sources: dict[str, str]):
        super().__init__(f"{sum(d.severity == 'error' for d in diagnostics)} error(s)")
        self.diagnostics = diagnostics
        self.sources = sources

    def render(self) -> str:
        return "\n".join(render(d, self.sources) for d in self.diagnostics)
