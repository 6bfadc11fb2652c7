"""Reuse, expanded before analysis: traits (`trait` / `is`), named conditions (`define`) and
named statement blocks (`procedure` / `do`).

The pass rewrites the AST so that analysis, lowering, emit and the checker see plain roles,
expressions and statements:

- a role that says `is T` gets the content of trait `T` (and of the traits `T` includes)
  appended to its own: its abilities become `ROLE.ABILITY`, its triggers, immunities, hooks...
  are the role's own;
- a call `NAME(a, b)` of a `define` becomes the definition's expression with its parameters
  replaced by the arguments (the arguments keep their spans, so a type error points at them);
- a statement `do NAME(a, b)` becomes the procedure's statements, parameters replaced likewise.

The rewrite is generic over the node classes (dataclass fields), so constructs added to the AST
later are walked without changes here.

Diagnostics:
  E010 a trait, define or procedure defined twice
  E020 unknown trait / procedure; a name in a define or procedure body that is neither one of
       its parameters nor declared in the spec
  E022 a define or procedure called with the wrong number of arguments
  E080 traits that include each other (a cycle)
  E081 a define or procedure that calls itself (directly or through others)
  E082 a trait with a display name (`name` lines belong to the roles that include it)
  E005 definitions that expand past the size limit
"""

from __future__ import annotations

import dataclasses
import difflib
from typing import Any

from maf.dsl import ast as A
from maf.dsl import builtins
from maf.dsl.builtins import BUILTIN_FUNCS, QUANTIFIERS
from maf.dsl.codes import Code
from maf.dsl.diagnostics import Diagnostics

MAX_EXPANSIONS = 20_000
# a call left in place of a define call that was already reported (analysis types it silently)
ERROR_CALL = "<error>"


def _suggest(name: str, pool) -> str | None:
    close = difflib.get_close_matches(name, list(pool), n=1)
    return f"did you mean `{close[0]}`?" if close else None


def _is_node(x) -> bool:
    return dataclasses.is_dataclass(x) and not isinstance(x, type)


def _children(x):
    """Every AST node directly inside ``x`` (through tuples and tuples of tuples)."""
    stack = [getattr(x, f.name) for f in dataclasses.fields(x)] if _is_node(x) else [x]
    while stack:
        v = stack.pop()
        if isinstance(v, tuple):
            stack.extend(v)
        elif _is_node(v):
            yield v


def _walk(x):
    stack = [x]
    while stack:
        v = stack.pop()
        yield v
        stack.extend(_children(v))


class _Expander:
    def __init__(self, module: A.Module, d: Diagnostics):
        self.m, self.d = module, d
        self.traits: dict[str, A.Trait] = {}
        self.defines: dict[str, A.Define] = {}
        self.procs: dict[str, A.Procedure] = {}
        self.count = 0
        self.too_big = False
        seen: dict[tuple[str, str], A.Ident] = {}
        tables: dict[type, tuple[str, dict[str, Any]]] = {
            A.Trait: ("trait", self.traits),
            A.Define: ("define", self.defines),
            A.Procedure: ("procedure", self.procs),
        }
        for item in module.items:
            if not isinstance(item, (A.Trait, A.Define, A.Procedure)):
                continue
            kind, table = tables[type(item)]
            key = ("def" if kind != "trait" else "trait", item.name.name)
            if key in seen:
                d.error(
                    Code.E010,
                    f"{kind} `{item.name.name}` is defined twice",
                    item.name.span,
                    notes=(("first defined here", seen[key].span),),
                )
                continue
            seen[key] = item.name
            table[item.name.name] = item
        for name, df in list(self.defines.items()):
            if name in BUILTIN_FUNCS or name in QUANTIFIERS:
                d.error(
                    Code.E010,
                    f"`{name}` is a built-in function",
                    df.name.span,
                    "give the definition another name",
                )
                del self.defines[name]
        self.globals = self._global_names()
        self.bad_calls: set[str] = set()
        self._check_bodies()
        self._check_cycles()

    # ------------------------------------------------------------ checks
    def _global_names(self) -> set[str]:
        """Names a define or procedure body may use besides its parameters."""
        names = (
            set(builtins.BUILTIN_NAMES)
            | set(builtins.BUILTIN_CAUSES)
            | set(builtins.REACTION_NAMES)
        )
        for item in self.m.items:
            if isinstance(item, (A.Team, A.Role, A.MarkDecl, A.Card, A.Title, A.KindDecl)):
                names.add(item.name.name)
            elif isinstance(item, A.CauseDecl):
                names.update(c.name for c in item.names)
        for node in _walk(self.m):
            if isinstance(node, A.Remember):
                names.add(node.name.name)
        return names

    def _free_names(self, body, params: set[str]):
        """Name nodes in ``body`` bound neither by a parameter nor by a variable inside it
        (`each v: ...`, `count(v: ...)`, or any node with a `var`)."""
        stack = [(body, frozenset(params))]
        while stack:
            x, bound = stack.pop()
            if isinstance(x, tuple):
                stack.extend((v, bound) for v in x)
                continue
            if not _is_node(x):
                continue
            if isinstance(x, A.Name):
                if x.name not in bound:
                    yield x
                continue
            var = getattr(x, "var", None)
            inner = bound | {var.name} if isinstance(var, A.Ident) else bound
            stack.extend((getattr(x, f.name), inner) for f in dataclasses.fields(x))

    def _check_bodies(self) -> None:
        for kind, table in (("define", self.defines), ("procedure", self.procs)):
            for item in table.values():
                names = [p.name for p in item.params]
                for k, p in enumerate(item.params):
                    if p.name in names[:k]:
                        self.d.error(
                            Code.E010,
                            f"parameter `{p.name}` of `{item.name.name}` is named twice",
                            p.span,
                        )
                for n in self._free_names(item.body, set(names)):
                    if n.name not in self.globals:
                        self.d.error(
                            Code.E020,
                            f"`{n.name}` is not a parameter of `{item.name.name}`",
                            n.span,
                            f"add it: `{kind} {item.name.name}({', '.join(names + [n.name])})`",
                        )

    def _calls_in(self, item) -> list[tuple[str, A.Call | A.Do]]:
        out: list[tuple[str, A.Call | A.Do]] = []
        for node in _walk(item.body):
            if isinstance(node, A.Call) and node.func in self.defines:
                out.append((node.func, node))
            elif isinstance(node, A.Do):
                out.append((node.name.name, node))
        return out

    def _check_cycles(self) -> None:
        # traits including traits
        def trait_edges(name):
            return [i for i in self.traits[name].body.traits]

        self.cyclic_traits = self._cycles(
            self.traits,
            trait_edges,
            Code.E080,
            lambda path: "traits include each other: " + " -> ".join(f"`{n}`" for n in path),
            "a trait cannot include itself, even through others",
        )
        # defines and procedures calling each other
        both = {**self.procs, **self.defines}

        def call_edges(name):
            return [A.Ident(n.span, k) for k, n in self._calls_in(both[name]) if k in both]

        self.cyclic_calls = self._cycles(
            both,
            call_edges,
            Code.E081,
            lambda path: (
                f"`{path[0]}` calls itself"
                + ("" if len(path) == 2 else " through " + ", ".join(f"`{n}`" for n in path[1:-1]))
            ),
            "definitions are inlined: they cannot be recursive",
        )

    def _cycles(self, table, edges, code, message, hint) -> set[str]:
        """Report each cycle once (at the edge that closes it); returns the names on cycles."""
        state: dict[str, int] = {}  # 1: on the stack, 2: done
        bad: set[str] = set()
        for root in table:
            if root in state:
                continue
            stack = [(root, iter(edges(root)))]
            path = [root]
            state[root] = 1
            while stack:
                name, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    stack.pop()
                    path.pop()
                    state[name] = 2
                    continue
                if nxt.name not in table:
                    continue
                if state.get(nxt.name) == 1:
                    cyc = path[path.index(nxt.name) :] + [nxt.name]
                    bad.update(cyc)
                    self.d.error(code, message(cyc), nxt.span, hint)
                elif nxt.name not in state:
                    state[nxt.name] = 1
                    path.append(nxt.name)
                    stack.append((nxt.name, iter(edges(nxt.name))))
        return bad

    # ------------------------------------------------------------ rewriting
    def _grow(self, span) -> bool:
        self.count += 1
        if self.count > MAX_EXPANSIONS and not self.too_big:
            self.too_big = True
            self.d.error(
                Code.E005,
                "definitions expand to too much code",
                span,
                f"a spec inlines at most {MAX_EXPANSIONS} define/procedure calls",
            )
        return not self.too_big

    def rewrite(self, x, subst: dict[str, object] | None = None):
        """``x`` with define calls and `do` statements inlined and, inside a body being inlined,
        its parameters replaced (``subst``)."""
        if isinstance(x, tuple):
            out = []
            for v in x:
                if isinstance(v, A.Do):
                    out.extend(self._do(v, subst))
                else:
                    out.append(self.rewrite(v, subst))
            return tuple(out)
        if not _is_node(x):
            return x
        if isinstance(x, A.Name) and subst and x.name in subst:
            return subst[x.name]
        if isinstance(x, A.Call) and x.func in self.defines:
            return self._define(x, subst)
        if isinstance(x, A.Ident):
            return x
        changes = {}
        for f in dataclasses.fields(x):
            v = getattr(x, f.name)
            if isinstance(v, (tuple,)) or _is_node(v):
                nv = self.rewrite(v, subst)
                if nv is not v:
                    changes[f.name] = nv
        return dataclasses.replace(x, **changes) if changes else x

    def _args(self, name, params, args, span):
        if len(args) != len(params):
            self.d.error(
                Code.E022, f"`{name}` takes {len(params)} argument(s), got {len(args)}", span
            )
            return None
        return args

    def _define(self, call: A.Call, subst):
        df = self.defines[call.func]
        args = tuple(self.rewrite(a, subst) for a in call.args)
        if (
            call.func in self.cyclic_calls
            or self._args(call.func, df.params, args, call.span) is None
        ):
            return A.Call(call.span, ERROR_CALL, ())
        if not self._grow(call.span):
            return A.Call(call.span, ERROR_CALL, ())
        inner = {p.name: a for p, a in zip(df.params, args, strict=True)}
        return self.rewrite(df.body, inner)

    def _do(self, st: A.Do, subst) -> list:
        name = st.name.name
        proc = self.procs.get(name)
        if proc is None:
            if name in self.defines:
                self.d.error(
                    Code.E023,
                    f"`{name}` is a define (a condition), not a procedure",
                    st.name.span,
                    f"call it in an expression: `if {name}(...) {{ }}`",
                )
            else:
                self.d.error(
                    Code.E020,
                    f"undefined procedure `{name}`",
                    st.name.span,
                    _suggest(name, self.procs) or "declare it: `procedure NAME(p) { ... }`",
                )
            return []
        args = tuple(self.rewrite(a, subst) for a in st.args)
        if name in self.cyclic_calls or self._args(name, proc.params, args, st.span) is None:
            return []
        if not self._grow(st.span):
            return []
        inner = {p.name: a for p, a in zip(proc.params, args, strict=True)}
        return list(self.rewrite(proc.body, inner))

    def trait_content(self, name: str, seen: tuple[str, ...] = ()) -> list[A.Role]:
        """The trait's body and those of the traits it includes (included ones first)."""
        t = self.traits[name]
        out = []
        for inc in t.body.traits:
            if (
                inc.name in self.traits
                and inc.name not in seen + (name,)
                and inc.name not in self.cyclic_traits
            ):
                out.extend(self.trait_content(inc.name, seen + (name,)))
        out.append(t.body)
        return out

    def role(self, role: A.Role) -> A.Role:
        if not role.traits:
            return role
        parts = []
        for ident in role.traits:
            if ident.name not in self.traits:
                self.d.error(
                    Code.E020,
                    f"undefined trait `{ident.name}`",
                    ident.span,
                    _suggest(ident.name, self.traits) or "declare it: `trait NAME { ... }`",
                )
                continue
            parts.extend(self.trait_content(ident.name))
        # one copy of each trait even when included twice (through two other traits)
        unique = list({id(p): p for p in parts}.values())
        changes: dict[str, Any] = {}
        for f in dataclasses.fields(A.Role):
            if f.name in ("span", "name", "team", "names", "traits"):
                continue
            own = getattr(role, f.name)
            if isinstance(own, tuple):
                changes[f.name] = own + tuple(x for p in unique for x in getattr(p, f.name))
            elif own in (None, f.default):
                for p in unique:
                    v = getattr(p, f.name)
                    if v not in (None, f.default):
                        changes[f.name] = v
        changes["traits"] = ()
        return dataclasses.replace(role, **changes)

    def module(self) -> A.Module:
        for t in self.traits.values():
            if t.body.names:
                self.d.error(
                    Code.E082,
                    f"trait `{t.name.name}` has a display name",
                    t.body.names[0].span,
                    "display names belong to the roles that include the trait",
                )
        items = []
        for item in self.m.items:
            if isinstance(item, (A.Trait, A.Define, A.Procedure)):
                continue
            if isinstance(item, A.Role):
                item = self.role(item)
            items.append(self.rewrite(item))
        return dataclasses.replace(self.m, items=tuple(items))


def expand(module: A.Module, diags: Diagnostics) -> A.Module:
    """The module with traits, defines and procedures expanded (see the module docstring)."""
    if not any(
        isinstance(i, (A.Trait, A.Define, A.Procedure)) or (isinstance(i, A.Role) and i.traits)
        for i in module.items
    ) and not any(isinstance(n, A.Do) for n in _walk(module)):
        return module
    return _Expander(module, diags).module()
