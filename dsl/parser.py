"""Source text -> AST. Syntax errors become diagnostics (E001-E003), never tracebacks."""

from __future__ import annotations

import difflib
import hashlib
import importlib.resources
import os
import re
from functools import lru_cache
from typing import Any

import lark
from lark import Lark, Token, Transformer_NonRecursive, Tree, v_args
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)

from maf.dsl import ast as A
from maf.dsl.codes import Code
from maf.dsl.diagnostics import Diagnostics, Span, source_lines


def _pos(v: int | None) -> int:
    """A token's line or column: lark types them optional, its lexer always sets them."""
    return 1 if v is None else v


def _cache_file() -> str | None:
    """A per-user cache of the LALR tables: in the user's own cache directory, never in a
    shared temp directory (Lark's cache is a pickle, so it must not be writable by others)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "maf")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if os.stat(folder).st_uid != os.getuid():
            return None
    except (OSError, AttributeError):
        return None
    text = importlib.resources.files("maf.dsl").joinpath("grammar.lark").read_bytes()
    digest = hashlib.sha256(text + lark.__version__.encode()).hexdigest()[:16]
    return os.path.join(folder, f"grammar-{digest}.lalr")


@lru_cache(maxsize=1)
def lark_parser() -> Lark:
    # The LALR tables are built once per user and grammar version (strict: a terminal collision
    # is an error), then loaded from the cache.
    options: dict[str, Any] = dict(
        parser="lalr", strict=True, propagate_positions=True, maybe_placeholders=False
    )
    cache = None if os.environ.get("MAF_NO_CACHE") else _cache_file()
    try:
        return Lark.open_from_package("maf.dsl", "grammar.lark", cache=cache or False, **options)
    except Exception:  # a broken cache file must never stop a compile
        return Lark.open_from_package("maf.dsl", "grammar.lark", **options)


def strict_parser() -> Lark:
    """The grammar built in strict mode: tests assert it has no terminal collisions."""
    return Lark.open_from_package(
        "maf.dsl",
        "grammar.lark",
        parser="lalr",
        strict=True,
        propagate_positions=True,
        maybe_placeholders=False,
    )


_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t"}
_TAKES = object()  # `guard ... takes the attack` (the guard_takes rule's value)


def _unquote(tok: str) -> str:
    """The text of a STRING token: `\\n` and `\\t` are a newline and a tab, `\\x` is `x`
    (one regex pass: memory linear in the string, with a small constant)."""
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m[1], m[1]), tok[1:-1])


# Friendly names for terminals in "expected ..." messages.
_TOKEN_NAMES = {
    "NAME": "a name",
    "INT": "a number",
    "STRING": "a string",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "LPAR": "'('",
    "RPAR": "')'",
    "COMMA": "','",
    "COLON": "':'",
    "CMP": "a comparison",
    "$END": "end of file",
    "DOT": "'.'",
    "EQUAL": "'='",
    "STAR": "'*'",
    "MINUS": "'-'",
    "ADDOP": "'+' or '-'",
    "MULOP": "'*', '/' or '%'",
    "ON_SELF": "'on self'",
    "IN_NIGHTS": "'in N nights'",
    "COMMENT": "a comment",
    "WS": "a space",
}


def _token_text(name: str) -> str:
    if name in _TOKEN_NAMES:
        return _TOKEN_NAMES[name]
    try:
        pattern = lark_parser().get_terminal(name).pattern
    except KeyError:
        return "something else"
    # a keyword or punctuation is shown as written; a terminal without a friendly name above
    # (a new regex in grammar.lark) never shows its internal name
    return repr(pattern.value) if pattern.type == "str" else "something else"


def _describe(expected: set[str]) -> str:
    names = sorted({_token_text(t) for t in expected})
    if len(names) > 8:
        names = names[:8] + ["..."]
    return ", ".join(names)


MAX_DIGITS = 18  # a number in a spec (docs/security.md); longer is E005, not a Python bigint


class _NumberTooLong(Exception):
    def __init__(self, tok: Token):
        super().__init__(str(tok)[:20])
        self.tok = tok


class _Builder(Transformer_NonRecursive):
    """Maps grammar rules to AST nodes. Only shapes here: meaning is checked by analysis."""

    def __init__(self, file: str):
        super().__init__()
        self.file = file

    # -- helpers
    def _span(self, meta) -> Span:
        if getattr(meta, "empty", True):
            return Span(self.file, 1, 1, 1, 1)
        return Span(self.file, meta.line, meta.column, meta.end_line, meta.end_column)

    def _tspan(self, tok: Token) -> Span:
        return Span(
            self.file, _pos(tok.line), _pos(tok.column), _pos(tok.end_line), _pos(tok.end_column)
        )

    def _ident(self, tok: Token) -> A.Ident:
        return A.Ident(self._tspan(tok), str(tok))

    # -- tokens
    def STRING(self, tok):
        return Token.new_borrow_pos("STRING", _unquote(str(tok)), tok)

    def INT(self, tok):
        if len(tok) > MAX_DIGITS:
            raise _NumberTooLong(tok)
        return int(str(tok))

    # keyword-holding rules (declared with ! in the grammar)
    def phase(self, c):
        return str(c[0])

    def per(self, c):
        return str(c[0])

    def lifetime(self, c):
        return str(c[0])

    def lang(self, c):
        return str(c[0])

    def tie_kind(self, c):
        return str(c[0])

    def ballot_kind(self, c):
        return str(c[0])

    def rest(self, c):
        return "rest"

    @v_args(meta=True)
    def start(self, meta, items):
        return A.Module(self._span(meta), self.file, tuple(items))

    @v_args(meta=True)
    def names(self, meta, c):
        return A.Names(self._span(meta), tuple((c[i], str(c[i + 1])) for i in range(0, len(c), 2)))

    @v_args(meta=True)
    def ab_name(self, meta, c):
        return ("#name", self.names(meta, c))

    @v_args(meta=True)
    def doc(self, meta, c):
        return ("@doc", self.names(meta, c))

    @staticmethod
    def _docs(body) -> tuple:
        return tuple(x[1] for x in body if isinstance(x, tuple) and x[0] == "@doc")

    @v_args(meta=True)
    def game(self, meta, c):
        name, rest = c[0], c[1:]
        names = tuple(x for x in rest if isinstance(x, A.Names))
        players = next((x[1] for x in rest if isinstance(x, tuple) and x[0] == "players"), None)
        first = next((x[1] for x in rest if isinstance(x, tuple) and x[0] == "first"), None)
        quiet = tuple(x[1] for x in rest if isinstance(x, tuple) and x[0] == "quiet")
        inv = tuple(x[1] for x in rest if isinstance(x, tuple) and x[0] == "invariant")
        lang = next((x[1] for x in rest if isinstance(x, tuple) and x[0] == "language"), None)
        return A.Game(
            self._span(meta),
            self._ident(name),
            names,
            players,
            first,
            quiet,
            inv,
            lang,
            self._docs(rest),
        )

    @v_args(meta=True)
    def language(self, meta, c):
        return ("language", (self._span(meta), str(c[0])))

    @v_args(meta=True)
    def players(self, meta, c):
        return ("players", (self._span(meta), c[0], c[1]))

    def first(self, c):
        return ("first", c[0])

    @v_args(meta=True)
    def quiet(self, meta, c):
        return ("quiet", (self._span(meta), c[0], tuple(c[1:])))

    def invariant(self, c):
        return ("invariant", c[0])

    @v_args(meta=True)
    def team(self, meta, c):
        return A.Team(
            self._span(meta),
            self._ident(c[0]),
            tuple(x for x in c[1:] if isinstance(x, A.Names)),
            self._docs(c[1:]),
        )

    @v_args(meta=True)
    def cause(self, meta, c):
        return A.CauseDecl(
            self._span(meta), tuple(self._ident(t[0]) for t in c), tuple(t[1] for t in c)
        )

    def cause_name(self, c):
        return (c[0], tuple(x for x in c[1:] if isinstance(x, A.Names)))

    @v_args(meta=True)
    def markdecl(self, meta, c):
        flags = tuple(f for f in c[2:] if isinstance(f, str))
        weighs = next((f[1] for f in c[2:] if isinstance(f, tuple)), None)
        names = tuple(f for f in c[2:] if isinstance(f, A.Names))
        return A.MarkDecl(self._span(meta), self._ident(c[0]), c[1], flags, weighs, names)

    def plain_flag(self, c):
        return str(c[0])

    def weighs(self, c):
        return ("weighs", c[0])

    # -- roles
    def _role(self, meta, name, team, body):
        return A.Role(
            self._span(meta),
            self._ident(name),
            team,
            tuple(x for x in body if isinstance(x, A.Names)),
            tuple(x for x in body if isinstance(x, A.Ability)),
            tuple(x[1] for x in body if isinstance(x, tuple) and x[0] == "immune"),
            tuple(x[1] for x in body if isinstance(x, tuple) and x[0] == "exclusive"),
            tuple(x for x in body if isinstance(x, A.Trigger)),
            tuple(x[1] for x in body if isinstance(x, tuple) and x[0] == "defense"),
            tuple(x for x in body if isinstance(x, A.Reaction)),
            tuple(x for x in body if isinstance(x, A.Hook)),
            tuple(i for x in body if isinstance(x, tuple) and x[0] == "is" for i in x[1]),
            tuple(x for x in body if isinstance(x, A.Alongside)),
            tuple(x for x in body if isinstance(x, A.StartHook)),
            docs=self._docs(body),
            registers=tuple(x for x in body if isinstance(x, A.Registers)),
            votes_with=tuple(x for x in body if isinstance(x, A.VotesWith)),
            kind=next((x[1] for x in body if isinstance(x, tuple) and x[0] == "@kind"), None),
            replacements=tuple(x for x in body if isinstance(x, A.Replacement)),
        )

    def role_kind(self, c):
        return ("@kind", self._ident(c[0]))

    @v_args(meta=True)
    def side(self, meta, c):
        members = next((x[1] for x in c[1:] if isinstance(x, tuple) and x[0] == "@members"), None)
        return A.Team(
            self._span(meta),
            self._ident(c[0]),
            tuple(x for x in c[1:] if isinstance(x, A.Names)),
            self._docs(c[1:]),
            members,
            True,
        )

    def members(self, c):
        return ("@members", (self._ident(c[0]), c[1]))

    @v_args(meta=True)
    def title(self, meta, c):
        rest = c[1:]
        return A.Title(
            self._span(meta),
            self._ident(c[0]),
            tuple(f for f in rest if isinstance(f, str)),
            next((f[1] for f in rest if isinstance(f, tuple) and f[0] == "weighs"), None),
            tuple(x for x in rest if isinstance(x, A.Names)),
            tuple(x for x in rest if isinstance(x, A.Ability)),
            tuple(x for x in rest if isinstance(x, A.Trigger)),
            self._docs(rest),
        )

    @v_args(meta=True)
    def kinddecl(self, meta, c):
        return A.KindDecl(
            self._span(meta),
            self._ident(c[0]),
            tuple(x for x in c[1:] if isinstance(x, A.Names)),
            self._docs(c[1:]),
        )

    @v_args(meta=True)
    def votes_with(self, meta, c):
        return A.VotesWith(self._span(meta), c[0])

    @v_args(meta=True)
    def on_nominated(self, meta, c):
        return A.Reaction(self._span(meta), "nominated", c[0])

    # -- reuse, wins beyond one team, the start of the game
    @v_args(meta=True)
    def trait(self, meta, c):
        return A.Trait(self._span(meta), self._ident(c[0]), self._role(meta, c[0], None, c[1:]))

    def is_(self, c):
        return ("is", tuple(self._ident(t) for t in c))

    @v_args(meta=True)
    def define(self, meta, c):
        params = tuple(self._ident(t) for t in c[1:-1] if t is not None)
        return A.Define(self._span(meta), self._ident(c[0]), params, c[-1])

    @v_args(meta=True)
    def procedure(self, meta, c):
        params = tuple(self._ident(t) for t in c[1:-1] if t is not None)
        return A.Procedure(self._span(meta), self._ident(c[0]), params, c[-1])

    @v_args(meta=True)
    def do_(self, meta, c):
        return A.Do(self._span(meta), self._ident(c[0]), tuple(x for x in c[1:] if x is not None))

    @v_args(meta=True)
    def draw(self, meta, c):
        return A.Draw(self._span(meta), c[0])

    @v_args(meta=True)
    def start_hook(self, meta, c):
        return A.StartHook(self._span(meta), c[0])

    @v_args(meta=True)
    def alongside(self, meta, c):
        return A.Alongside(self._span(meta), c[0])

    @v_args(meta=True)
    def life(self, meta, c):
        # `NAME or dead` with a NAME other than `alive` is reported by analysis
        kind = "dead" if not c else "both" if str(c[0]) == "alive" else f"?{c[0]}"
        return ("@life", (kind, self._span(meta)))

    @v_args(meta=True)
    def role(self, meta, c):
        return self._role(meta, c[0], self._ident(c[1]), c[2:])

    @v_args(meta=True)
    def role_alone(self, meta, c):
        return self._role(meta, c[0], None, c[1:])

    @v_args(meta=True)
    def immune(self, meta, c):
        causes = tuple(self._ident(t) for t in c if isinstance(t, Token))
        unless = next((x[1] for x in c if isinstance(x, tuple) and x[0] == "unless"), None)
        times = next((x[1] for x in c if isinstance(x, tuple) and x[0] == "times"), None)
        return ("immune", A.Immunity(self._span(meta), causes, unless, times))

    def immune_unless(self, c):
        return ("unless", self._ident(c[0]))

    def immune_times(self, c):
        return ("times", c[0])

    def exclusive(self, c):
        return ("exclusive", tuple(self._ident(t) for t in c))

    @v_args(meta=True)
    def trigger(self, meta, c):
        return A.Trigger(self._span(meta), tuple(self._ident(t) for t in c[:-1]), c[-1])

    @v_args(meta=True)
    def any_death(self, meta, c):
        return A.Trigger(self._span(meta), tuple(self._ident(t) for t in c[:-1]), c[-1], True)

    @v_args(meta=True)
    def replacement(self, meta, c):
        causes = tuple(self._ident(t) for t in c if isinstance(t, Token))
        when = next((x[1] for x in c if isinstance(x, tuple) and x[:1] == ("@when",)), None)
        return A.Replacement(self._span(meta), causes, when, c[-1])

    @v_args(meta=True)
    def any_save(self, meta, c):
        return A.AnySave(self._span(meta), tuple(self._ident(t) for t in c[:-1]), c[-1])

    @v_args(meta=True)
    def on_visited(self, meta, c):
        return A.Reaction(self._span(meta), "visited", c[0])

    @v_args(meta=True)
    def on_blocked(self, meta, c):
        return A.Reaction(self._span(meta), "blocked", c[0])

    @v_args(meta=True)
    def hook(self, meta, c):
        return A.Hook(self._span(meta), c[0], c[1])

    def hook_when(self, c):
        return "_".join(str(t) for t in c)

    @v_args(meta=True)
    def defense_level(self, meta, c):
        return ("defense", (self._span(meta), c[0]))

    def astral(self, c):
        return ("@astral", True)

    def unblockable(self, c):
        return ("@unblockable", True)

    @v_args(meta=True)
    def ability(self, meta, c):
        return self._ability(meta, c)

    def _ability(self, meta, c):
        name, phase, body = c[0], c[1], c[2:]
        opts: dict[str, list] = {}
        stmts = []
        reactions, misplaced, names = [], [], []
        for x in body:
            if isinstance(x, tuple) and isinstance(x[0], str) and x[0].startswith("@"):
                opts.setdefault(x[0], []).append(x[1])
            elif isinstance(x, tuple) and x[0] == "#name":
                names.append(x[1])
            elif isinstance(x, A.Reaction):
                reactions.append(x)
            elif isinstance(x, (A.Hook, A.Trigger)):
                misplaced.append(x)
            else:
                stmts.append(x)
        one = lambda k: opts[k][-1] if k in opts else None  # noqa: E731
        return A.Ability(
            self._span(meta),
            self._ident(name),
            phase,
            one("@tier"),
            tuple(r for rs in opts.get("@before", []) for r in rs),
            tuple(r for rs in opts.get("@after", []) for r in rs),
            tuple(opts.get("@uses", [])),
            one("@from"),
            tuple(i for xs in opts.get("@held", []) for i in xs),
            tuple(opts.get("@target", [])),
            tuple(opts.get("@choose", [])),
            one("@norepeat") or "",
            one("@inverted"),
            one("@stolen"),
            one("@when"),
            one("@granted"),
            tuple(stmts),
            bool(one("@astral")),
            bool(one("@unblockable")),
            tuple(reactions),
            tuple(misplaced),
            (one("@life") or ("alive", None))[0],
            (one("@life") or ("alive", None))[1],
            docs=tuple(opts.get("@doc", [])),
            names=tuple(names),
        )

    @v_args(meta=True)
    def ability_call(self, meta, c):
        return self._ability(meta, [c[0], "call", *c[1:]])

    @v_args(meta=True)
    def registers(self, meta, c):
        return A.Registers(self._span(meta), tuple(c))

    def reg_item(self, c):
        return ("", self._ident(c[0]))

    def reg_team(self, c):
        return ("team", self._ident(c[0]))

    def reg_role(self, c):
        return ("role", self._ident(c[0]))

    def reg_kind(self, c):
        return ("kind", self._ident(c[0]))

    @v_args(meta=True)
    def moderator_choice(self, meta, c):
        var, kind, rest = self._ident(c[0]), self._ident(c[1]), list(c[2:])
        last = rest[-1] if rest else None
        orelse = rest.pop()[1] if isinstance(last, tuple) and last and last[0] == "else" else None
        body = rest.pop()
        cond = rest[0] if rest else None
        return A.ModeratorChoice(self._span(meta), var, kind, cond, body, orelse)

    @v_args(meta=True)
    def call_ability(self, meta, c):
        ref, seat = c[0], (c[1] if len(c) > 1 else None)
        if isinstance(ref, A.Ref):
            ident = A.Ident(ref.span, f"{ref.owner}.{ref.name}")
        else:
            ident = self._ident(ref)
        return A.CallAbility(self._span(meta), ident, seat)

    @v_args(meta=True)
    def tier(self, meta, c):
        return ("@tier", (self._span(meta), c[0]))

    def before(self, c):
        return ("@before", tuple(c))

    def after(self, c):
        return ("@after", tuple(c))

    @v_args(meta=True)
    def uses(self, meta, c):
        return ("@uses", A.Uses(self._span(meta), c[0], c[1], len(c) > 2))

    def self_only(self, c):
        return True

    @v_args(meta=True)
    def from_(self, meta, c):
        return ("@from", (self._span(meta), c[0], c[1]))

    def held(self, c):
        return ("@held", tuple(self._ident(t) for t in c))

    @v_args(meta=True)
    def target(self, meta, c):
        return ("@target", A.Target(self._span(meta), self._ident(c[0]), c[1]))

    @v_args(meta=True)
    def choose(self, meta, c):
        return ("@choose", A.Choose(self._span(meta), self._ident(c[0]), self._ident(c[1])))

    def norepeat(self, c):
        return ("@norepeat", "ever" if c else "consecutive")

    def ever(self, c):
        return True

    def inverted(self, c):
        return ("@inverted", c[0])

    def stolen(self, c):
        return ("@stolen", c[0])

    @v_args(meta=True)
    def ref(self, meta, c):
        return A.Ref(self._span(meta), str(c[0]), str(c[1]))

    # -- statements
    def block(self, c):
        return tuple(c)

    @v_args(meta=True)
    def kill(self, meta, c):
        attack = next((x[1] for x in c[2:] if isinstance(x, tuple)), None)
        at_once = "@once" in c[2:]
        return A.Kill(self._span(meta), c[0], self._ident(c[1]), True in c[2:], attack, at_once)

    def at_once(self, c):
        return "@once"

    def attack(self, c):
        return ("attack", c[0])

    def piercing(self, c):
        return True

    @v_args(meta=True)
    def protect(self, meta, c):
        return A.Protect(self._span(meta), c[0], tuple(self._ident(t) for t in c[1:]))

    @v_args(meta=True)
    def protect_level(self, meta, c):
        return A.Protect(self._span(meta), c[0], (), c[1])

    @v_args(meta=True)
    def guard(self, meta, c):
        body = c[-1] if isinstance(c[-1], tuple) else None
        names = c[1:-1] if body is not None else c[1:]
        takes = bool(names) and names[-1] is _TAKES
        if takes:
            names = names[:-1]
        return A.Guard(self._span(meta), c[0], tuple(self._ident(t) for t in names), body, takes)

    def guard_takes(self, c):
        return _TAKES

    @v_args(meta=True)
    def block_stmt(self, meta, c):
        return A.Block(self._span(meta), c[0])

    @v_args(meta=True)
    def visit(self, meta, c):
        return A.Visit(self._span(meta), c[0])

    @v_args(meta=True)
    def delayed(self, meta, c):
        return A.Delayed(self._span(meta), int(str(c[0]).split()[1]), c[1])

    @v_args(meta=True)
    def next_night(self, meta, c):
        return A.Delayed(self._span(meta), 1, c[0])

    @v_args(meta=True)
    def mark(self, meta, c):
        return A.Mark(self._span(meta), c[0], self._ident(c[1]), False)

    @v_args(meta=True)
    def unmark(self, meta, c):
        return A.Mark(self._span(meta), c[0], self._ident(c[1]), True)

    @v_args(meta=True)
    def convert(self, meta, c):
        to = c[1]
        if isinstance(to, A.Name):
            return A.Convert(self._span(meta), c[0], A.Ident(to.span, to.name))
        return A.Convert(self._span(meta), c[0], A.Ident(to.span, ""), to)

    @v_args(meta=True)
    def tell(self, meta, c):
        to = c[-1][1] if c and isinstance(c[-1], tuple) else None
        parts = c[:-1] if to is not None else c
        return A.Tell(self._span(meta), tuple(parts), to)

    def tell_to(self, c):
        return ("to", c[0])

    @v_args(meta=True)
    def skip_night(self, meta, c):
        return A.SkipNight(self._span(meta))

    @v_args(meta=True)
    def cancel_vote(self, meta, c):
        return A.CancelVote(self._span(meta))

    @v_args(meta=True)
    def each(self, meta, c):
        return A.Each(self._span(meta), self._ident(c[0]), c[1], c[2])

    @v_args(meta=True)
    def each_in(self, meta, c):
        return A.Each(
            self._span(meta), self._ident(c[0]), A.Name(self._span(meta), "true"), c[2], c[1]
        )

    def when(self, c):
        return ("@when", c[0])

    def granted(self, c):
        return ("@granted", self._ident(c[0]))

    @v_args(meta=True)
    def card(self, meta, c):
        body = c[1:]
        return A.Card(
            self._span(meta),
            self._ident(c[0]),
            tuple(x for x in body if isinstance(x, A.Names)),
            tuple(x[1] for x in body if isinstance(x, tuple) and x[0] == "@target"),
            tuple(x[1] for x in body if isinstance(x, tuple) and x[0] == "@choose"),
            tuple(x for x in body if not isinstance(x, (A.Names, tuple))),
            docs=self._docs(body),
        )

    @v_args(meta=True)
    def announce(self, meta, c):
        return A.Announce(self._span(meta), tuple(c))

    @v_args(meta=True)
    def remember(self, meta, c):
        return A.Remember(self._span(meta), self._ident(c[0]), c[1])

    @v_args(meta=True)
    def steal(self, meta, c):
        return A.Steal(self._span(meta), c[0], c[1])

    @v_args(meta=True)
    def revive(self, meta, c):
        return A.Revive(self._span(meta), c[0])

    @v_args(meta=True)
    def vote_weight(self, meta, c):
        return A.Weight(self._span(meta), c[0])

    @v_args(meta=True)
    def win_now(self, meta, c):
        return A.WinNow(self._span(meta), self._ident(c[0]))

    @v_args(meta=True)
    def if_(self, meta, c):
        branches = [(c[0], c[1])]
        orelse = None
        for x in c[2:]:
            if x[0] == "elif":
                branches.append((x[1], x[2]))
            else:
                orelse = x[1]
        return A.If(self._span(meta), tuple(branches), orelse)

    def elif_(self, c):
        return ("elif", c[0], c[1])

    def else_(self, c):
        return ("else", c[0])

    @v_args(meta=True)
    def trial(self, meta, c):
        a, b, opts = c[0], c[1], c[2:]
        cancel = next((x for x in opts if x[0] == "cancel"), None)
        return A.Trial(
            self._span(meta),
            a,
            b,
            cancel[1] if cancel else None,
            bool(cancel and cancel[2]),
            any(x[0] == "reveal" for x in opts),
            next((x[1] for x in opts if x[0] == "tie"), "none"),
            any(x[0] == "judgement" for x in opts),
        )

    def cancel_when(self, c):
        return ("cancel", c[0], len(c) > 1)

    def refund(self, c):
        return True

    def reveal(self, c):
        return ("reveal",)

    def tie(self, c):
        return ("tie", c[0])

    def tie_role(self, c):
        return ("tie", self._ident(c[0]))

    # -- top-level rules
    @v_args(meta=True)
    def win(self, meta, c):
        return A.Win(self._span(meta), self._ident(c[0]), c[1])

    @v_args(meta=True)
    def check(self, meta, c):
        return A.Check(self._span(meta), tuple(self._ident(t) for t in c))

    @v_args(meta=True)
    def table_exclusive(self, meta, c):
        return A.TableExclusive(self._span(meta), tuple(c))

    @v_args(meta=True)
    def order(self, meta, c):
        return A.Order(self._span(meta), c[0], c[1])

    @v_args(meta=True)
    def setup(self, meta, c):
        label = None
        if isinstance(c[0], Token) and c[0].type == "STRING":
            label, c = str(c[0]), c[1:]
        lo, hi = c[0]
        middle = next((x[1] for x in c[1:] if isinstance(x, tuple) and x and x[0] == "middle"), ())
        entries = tuple(x for x in c[1:] if not (isinstance(x, tuple) and x and x[0] == "middle"))
        return A.Setup(self._span(meta), label, lo, hi, entries, None, middle)

    def middle(self, c):
        return ("middle", tuple(self._ident(t) for t in c))

    @v_args(meta=True)
    def exchange(self, meta, c):
        to = c[1]
        if isinstance(to, A.Name):
            return A.Exchange(self._span(meta), c[0], A.Ident(to.span, to.name))
        return A.Exchange(self._span(meta), c[0], A.Ident(to.span, ""), to)

    @v_args(meta=True)
    def setup_where(self, meta, c):
        label = None
        if isinstance(c[0], Token) and c[0].type == "STRING":
            label, c = str(c[0]), c[1:]
        lo, hi = c[0]
        middle = c[2][1] if len(c) > 2 else ()  # the cards a custom table lays in the middle
        return A.Setup(self._span(meta), label, lo, hi, (), c[1], middle)

    def size(self, c):
        return (c[0], c[-1])

    @v_args(meta=True)
    def entry(self, meta, c):
        return A.SetupEntry(self._span(meta), self._ident(c[0]), c[1] if len(c) > 1 else None)

    def count(self, c):
        return c[0] if c[0] == "rest" else int(c[0])

    # -- days and nights
    @v_args(meta=True)
    def day(self, meta, c):
        pick = lambda k: next((x[1] for x in c if x[0] == k), None)  # noqa: E731
        return A.Day(
            self._span(meta),
            pick("vote"),
            pick("chaos"),
            pick("inquiry"),
            pick("speaking"),
            tuple(x[1] for x in c if x[0] == "timer"),
            pick("election"),
        )

    @v_args(meta=True)
    def election(self, meta, c):
        title, rest = c[0], c[1:]
        when = (
            rest[0]
            if rest and not (isinstance(rest[0], tuple) and isinstance(rest[0][0], str))
            else None
        )
        opts = rest[1:] if when is not None else rest
        return (
            "election",
            A.Election(self._span(meta), self._ident(title), when, self._votespec(meta, opts)),
        )

    def _votespec(self, meta, opts) -> A.VoteSpec:
        pick = lambda k: next((x[1] for x in opts if x[0] == k), None)  # noqa: E731
        return A.VoteSpec(
            self._span(meta),
            pick("threshold"),
            pick("defense"),
            pick("defenders_vote"),
            pick("tie"),
            pick("ballot"),
            tuple(x[1] for x in opts if x[0] == "timer"),
            pick("rounds") or 2,
            pick("skips") or 0,
            pick("exempt"),
            pick("forced"),
            pick("runoff_tie"),
            pick("split"),
            any(x[0] == "nominations" for x in opts),
            pick("ghost"),
            any(x[0] == "judgement" for x in opts),
        )

    @v_args(meta=True)
    def vote(self, meta, c):
        return ("vote", self._votespec(meta, c))

    @v_args(meta=True)
    def chaos(self, meta, c):
        return ("chaos", A.Chaos(self._span(meta), c[0], self._votespec(meta, c[1:])))

    @v_args(meta=True)
    def inquiry(self, meta, c):
        return (
            "inquiry",
            A.Inquiry(self._span(meta), c[0], c[1], c[2], c[3] if len(c) > 3 else None),
        )

    @v_args(meta=True)
    def speaking(self, meta, c):
        return ("speaking", A.Speaking(self._span(meta), c[0], c[1], c[2]))

    @v_args(meta=True)
    def timer(self, meta, c):
        return ("timer", A.Timer(self._span(meta), self._ident(c[0]), c[1]))

    def threshold(self, c):
        return ("threshold", c[0])

    def defense(self, c):
        return ("defense", c[0])

    def defenders_vote(self, c):
        return ("defenders_vote", c[0])

    def ballot(self, c):
        return ("ballot", c[0])

    def rounds(self, c):
        return ("rounds", c[0])

    def runoff_tie(self, c):
        return ("runoff_tie", "none")

    def split(self, c):
        return ("split", "none")

    def skips(self, c):
        return ("skips", c[0])

    def nominations(self, c):
        return ("nominations", True)

    def ghost(self, c):
        return ("ghost", c[0])

    def judgement(self, c):
        return ("judgement", True)

    def exempt(self, c):
        return ("exempt", self._ident(c[0]))

    def forced(self, c):
        return ("forced", self._ident(c[0]))

    @v_args(meta=True)
    def night(self, meta, c):
        return A.Night(
            self._span(meta),
            tuple(x[1] for x in c if x[0] == "timer"),
            next((x[1] for x in c if x[0] == "calm"), None),
        )

    def calm(self, c):
        return ("calm", str(c[0]))

    # -- expressions
    @v_args(meta=True)
    def or_(self, meta, c):
        return A.Binary(self._span(meta), "or", c[0], c[1])

    @v_args(meta=True)
    def and_(self, meta, c):
        return A.Binary(self._span(meta), "and", c[0], c[1])

    @v_args(meta=True)
    def not_(self, meta, c):
        return A.Unary(self._span(meta), "not", c[0])

    @v_args(meta=True)
    def neg(self, meta, c):
        return A.Unary(self._span(meta), "-", c[0])

    @v_args(meta=True)
    def compare(self, meta, c):
        return A.Binary(self._span(meta), str(c[1]), c[0], c[2])

    @v_args(meta=True)
    def binop(self, meta, c):
        return A.Binary(self._span(meta), str(c[1]), c[0], c[2])

    @v_args(meta=True)
    def member(self, meta, c):
        return A.Member(self._span(meta), c[0], tuple(self._ident(t) for t in c[1:]))

    @v_args(meta=True)
    def quant(self, meta, c):
        return A.Quant(self._span(meta), str(c[0]), self._ident(c[1]), c[2])

    @v_args(meta=True)
    def member_set(self, meta, c):
        return A.InSet(self._span(meta), c[0], c[1])

    @v_args(meta=True)
    def int_lit(self, meta, c):
        return A.Int(self._span(meta), int(c[0]))

    @v_args(meta=True)
    def str_lit(self, meta, c):
        return A.Str(self._span(meta), str(c[0]))

    @v_args(meta=True)
    def call(self, meta, c):
        return A.Call(self._span(meta), str(c[0]), tuple(x for x in c[1:] if x is not None))

    @v_args(meta=True)
    def ability_ref(self, meta, c):
        return A.AbilityRef(self._span(meta), str(c[0]), str(c[1]))

    @v_args(meta=True)
    def name_ref(self, meta, c):
        return A.Name(self._span(meta), str(c[0]))


def parse(source: str, file: str, diags: Diagnostics) -> A.Module | None:
    """Parse one spec. On a syntax error, adds a diagnostic and returns None."""
    try:
        tree: Tree = lark_parser().parse(source)
    except UnexpectedInput as e:
        _syntax_error(e, source, file, diags)
        return None
    try:
        return _Builder(file).transform(tree)
    except VisitError as e:
        if not isinstance(e.orig_exc, _NumberTooLong):
            raise
        tok = e.orig_exc.tok
        diags.error(
            Code.E005,
            f"a number of {len(tok):,} digits is more than maf reads ({MAX_DIGITS})",
            Span(
                file,
                _pos(tok.line),
                _pos(tok.column),
                _pos(tok.line),
                _pos(tok.column) + min(len(tok), 40),
            ),
        )
        return None


def _syntax_error(e: UnexpectedInput, source: str, file: str, diags: Diagnostics) -> None:
    line, col = getattr(e, "line", 1) or 1, getattr(e, "column", 1) or 1
    if line < 1:  # lark reports -1 at end of input
        lines = source_lines(source[:-1] if source.endswith("\n") else source)
        line, col = len(lines), len(lines[-1]) + 1
    span = Span(file, line, col, line, col + 1)
    if isinstance(e, UnexpectedCharacters):
        at = e.pos_in_stream
        ch = source[at] if at is not None and at < len(source) else "?"
        hint = None
        if ch.isalpha() and not ch.isascii():
            hint = 'identifiers are ASCII; put display names in a `name fa "..."` line'
        elif ch.isupper():
            hint = "identifiers are lowercase ASCII (a-z, 0-9, _)"
        elif ch == "#":
            hint = "comments start with //"
        diags.error(Code.E001, f"unexpected character {ch!r}", span, hint)
    elif isinstance(e, UnexpectedEOF) or (
        isinstance(e, UnexpectedToken) and e.token.type == "$END"
    ):
        msg = f"unexpected end of file; expected {_describe(set(e.expected))}"
        opener = _unclosed_opener(source, file, None)
        if opener is None:
            diags.error(Code.E002, msg, span, "a block may be missing its closing '}'")
        else:
            diags.error(Code.E002, msg, span, opener[1], notes=(opener[0],))
    elif isinstance(e, UnexpectedToken):
        tok = e.token
        if tok.type != "$END":
            span = Span(
                file,
                tok.line,
                tok.column,
                tok.end_line or tok.line,
                tok.end_column or tok.column + 1,
            )
        if _negative_number(e, source, file, span, diags):
            return
        got = "end of file" if tok.type == "$END" else repr(str(tok))
        msg = f"unexpected {got}; expected {_describe(set(e.expected))}"
        opener = _unclosed_opener(source, file, tok.start_pos)
        if opener is None:
            line_text = source_lines(source)[span.line - 1] if span.line >= 1 else ""
            hint = _keyword_hint(str(tok), e.expected, line_text)
            diags.error(Code.E003, msg, span, hint)
        else:
            diags.error(Code.E003, msg, span, opener[1], notes=(opener[0],))
    else:  # pragma: no cover - lark has no other kinds today
        diags.error(Code.E001, str(e).splitlines()[0], span)


_CLOSER = {"{": "}", "(": ")"}


def _keywords(names) -> list[str]:
    """The keywords among terminal names (`ability`, `night`), sorted."""
    words = set()
    for name in names:
        try:
            pattern = lark_parser().get_terminal(name).pattern
        except KeyError:
            continue
        if pattern.type == "str" and re.fullmatch(r"[a-z_]+", pattern.value):
            words.add(pattern.value)
    return sorted(words)


def _keyword_hint(word: str, expected, line_text: str) -> str | None:
    """`did you mean `ability`?` for a misspelt keyword: the unexpected word close to a keyword
    expected there, or else the first word of its line close to any keyword (`abilty shoot`:
    the parser read `abilty` as a name and stopped at `shoot`)."""
    if re.fullmatch(r"[a-z_][a-z0-9_]*", word):
        near = difflib.get_close_matches(word, _keywords(expected), n=1, cutoff=0.6)
        if near and near[0] != word:
            return f"did you mean `{near[0]}`?"
    first = re.match(r"\s*([a-z_][a-z0-9_]*)\s", line_text)
    if first is None or first[1] == word:
        return None
    every = _keywords(t.name for t in lark_parser().terminals)
    if first[1] in every:
        return None
    near = difflib.get_close_matches(first[1], every, n=1, cutoff=0.8)
    return f"`{first[1]}` is not a keyword: did you mean `{near[0]}`?" if near else None


def _negative_number(e: UnexpectedToken, source: str, file: str, span: Span, diags) -> bool:
    """`tier -5`, `players -1..5`: a minus where a number is expected is the documented E040
    (numbers in a spec are counts from 0 up), not a bare syntax error."""
    tok = e.token
    if str(tok) != "-" or "INT" not in e.expected or tok.start_pos is None:
        return False
    m = re.match(r"-[ \t]*([0-9]+)", source[tok.start_pos :])
    if m is None:
        return False
    before = re.search(r"([a-z_][a-z0-9_]*)[ \t]*$", source[: tok.start_pos])
    what = f"`{before[1]}`" if before else "this number"
    end = span.col + m.end()
    diags.error(
        Code.E040,
        f"{what} takes a number from 0 up, not -{m[1]}",
        Span(file, span.line, span.col, span.line, end),
        "numbers in a spec are whole numbers >= 0 (docs/language.md)",
    )
    return True


def _unclosed_opener(
    source: str, file: str, stop: int | None
) -> tuple[tuple[str, Span], str] | None:
    """The note and hint for the `{` or `(` a syntax error at offset `stop` (None: the end of
    the file) most likely comes from leaving open, or None when the error does not look like a
    missing closer.

    It does when the parser stopped at the end of the file or at the first token of a line
    indented no deeper than the line of the innermost open bracket (`role` at column 1 inside an
    unclosed `role {`). The culprit is the first bracket closed by a less indented closer (the
    `}` meant for the role closed the ability instead), else the innermost one still open."""
    end = len(source) if stop is None else stop
    stack: list[tuple[str, int, int, int]] = []  # char, line, col, indent of its line
    suspect: tuple[str, int, int, int] | None = None
    suspect_closer = 0  # the line of the less indented closer that closed `suspect`
    ln, line_start, i = 1, 0, 0
    while i < end:
        ch = source[i]
        if ch == "\n":
            ln, line_start = ln + 1, i + 1
        elif ch == '"':
            j = i + 1
            while j < len(source) and source[j] not in '"\n':
                j += 2 if source[j] == "\\" else 1
            i = j
        elif source.startswith("//", i):
            j = source.find("\n", i)
            i = (len(source) if j < 0 else j) - 1
        elif ch in "{(":
            text = source[line_start:i]
            indent = len(text) - len(text.lstrip(" \t"))
            stack.append((ch, ln, i - line_start + 1, indent))
        elif ch in "})" and stack:
            top = stack.pop()
            first = not source[line_start:i].strip()
            if suspect is None and first and i - line_start < top[3]:
                suspect, suspect_closer = top, ln
        i += 1
    if not stack:
        return None
    if stop is not None:
        text = source[source.rfind("\n", 0, stop) + 1 : stop]
        if text.strip() or len(text) > stack[-1][3] or source[stop : stop + 1] in "})":
            return None  # mid-line, deeper than the open block, or a closer out of place
    ch, o_line, o_col, _ = suspect or stack[-1]
    where = Span(file, o_line, o_col, o_line, o_col + 1)
    what = "block" if ch == "{" else "bracket"
    if suspect:
        note = (
            f"this {ch!r} may be missing its {_CLOSER[ch]!r}: the one on line "
            f"{suspect_closer} that closes it is indented as the block around it",
            where,
        )
    else:
        note = (f"this {ch!r} is never closed", where)
    return note, f"a {what} may be missing its closing {_CLOSER[ch]!r}"
