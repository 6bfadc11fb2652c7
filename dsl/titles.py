"""Titles, desugared before analysis: `title ID [mark flags] { names; abilities; on death }`.

A title is a mark held until forever (an `election ID` gives it, `mark x as ID` too) that
carries abilities and death triggers of its own. The pass rewrites each `title` into what the
rest of the compiler already knows, so analysis, lowering, the engine, the interpreter and the
checker see plain constructs:

- the mark `ID until forever FLAGS { names }`;
- a role `ID` that no seat is dealt (`A.Role.title`: the analysis refuses it in setups, wins,
  conversions and chosen roles, E093; `Game.new` refuses a seat list that deals it). Its
  abilities keep their ids, `ID.ABILITY`: an `on call` decision is asked of the seat a `call`
  names; a night or day ability belongs to whoever carries the title (`granted by ID`);
- each `on death [by CAUSE, ...] { BODY }` becomes a top-level
  `on any death [by CAUSE, ...] { if has(victim, ID) { BODY } }`, in which `self` is the dying
  holder (`victim`) and a bare `call ABILITY` calls the title's own ability for him.
"""

from __future__ import annotations

import dataclasses

from maf.dsl import ast as A


def _subst_self(x, victim_span_of):
    """`x` with every `self` a `victim`, and bare `call ABILITY` of the title qualified."""
    if isinstance(x, tuple):
        return tuple(_subst_self(y, victim_span_of) for y in x)
    if not (dataclasses.is_dataclass(x) and not isinstance(x, type)):
        return x
    if isinstance(x, A.Name) and x.name == "self":
        return A.Name(x.span, "victim")
    changes = {}
    for f in dataclasses.fields(x):
        v = getattr(x, f.name)
        nv = _subst_self(v, victim_span_of)
        if nv is not v:
            changes[f.name] = nv
    out = dataclasses.replace(x, **changes) if changes else x
    if isinstance(out, A.CallAbility):
        qualified = victim_span_of(out.ability)
        seat = out.seat if out.seat is not None else A.Name(out.span, "victim")
        out = dataclasses.replace(out, ability=qualified, seat=seat)
    return out


def expand_titles(module: A.Module) -> A.Module:
    """The module with every `title` rewritten (see the module docstring)."""
    if not any(isinstance(i, A.Title) for i in module.items):
        return module
    items: list = []
    for item in module.items:
        if not isinstance(item, A.Title):
            items.append(item)
            continue
        t = item
        own = {ab.name.name for ab in t.abilities}

        def qualify(ident: A.Ident, t=t, own=own) -> A.Ident:
            if "." not in ident.name and ident.name in own:
                return A.Ident(ident.span, f"{t.name.name}.{ident.name}")
            return ident

        items.append(A.MarkDecl(t.span, t.name, "forever", t.flags, t.weighs, t.names))
        abilities = tuple(
            ab
            if ab.phase == "call" or ab.granted is not None
            else dataclasses.replace(ab, granted=A.Ident(t.name.span, t.name.name))
            for ab in t.abilities
        )
        items.append(
            A.Role(
                t.span,
                t.name,
                None,
                t.names,
                abilities,
                (),
                (),
                (),
                docs=t.docs,
                title=True,
            )
        )
        for tr in t.triggers:
            sp = tr.span
            cond = A.Call(sp, "has", (A.Name(sp, "victim"), A.Name(t.name.span, t.name.name)))
            body = _subst_self(tr.body, qualify)
            items.append(A.Trigger(sp, tr.causes, (A.If(sp, ((cond, body),), None),), True))
    return dataclasses.replace(module, items=tuple(items))
