"""compiler/ir/semantics.py: one entry per IR construct, and its facts replayed on the engine.

A construct is not finished until the checker knows it: these tests enumerate the IR's
statement and expression kinds, the builtin functions and names, and fail on one without an
entry. The facts are then confirmed by replaying generated engines.
"""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from maf.compiler.driver import compile_source, load_engine
from maf.compiler.ir import nodes as ir
from maf.compiler.ir import semantics as sem
from maf.dsl import analysis

HERE = Path(__file__).parent


def test_every_statement_kind_has_an_entry():
    missing = [t.__name__ for t in typing.get_args(ir.Stmt) if t not in sem.STMT]
    assert not missing, f"statement kinds without a semantics entry: {missing}"
    extra = [t.__name__ for t in sem.STMT if t not in typing.get_args(ir.Stmt)]
    assert not extra


def test_every_expression_kind_has_an_entry():
    missing = [t.__name__ for t in ir.EXPR_NODES if t not in sem.EXPR]
    assert not missing, f"expression kinds without a semantics entry: {missing}"


def test_every_builtin_function_and_name_has_an_entry():
    assert not set(analysis.BUILTIN_FUNCS) - set(sem.CALLS), "builtin functions"
    assert not set(analysis.BUILTIN_NAMES) - set(sem.BUILTINS), "builtin names"


def test_every_fact_names_known_resources():
    for t, f in sem.STMT.items():
        assert set(f.writes) <= set(sem.RESOURCES), t
        for name, _ in f.nested:
            assert name in {x.name for x in __import__("dataclasses").fields(t)}, (t, name)
    for table in (sem.EXPR, sem.CALLS, sem.BUILTINS):
        for k, f in table.items():
            assert set(f.reads) <= set(sem.RESOURCES), k


def test_every_seat_and_tie_fact_names_a_field():
    """StmtFact.seat and .tie name fields of the statement: K004 reads the seat a kill or a
    conversion acts on through them, K005 the tie rule of a vote of its own (a trial)."""
    import dataclasses

    for t, f in sem.STMT.items():
        names = {x.name for x in dataclasses.fields(t)}
        assert f.seat is None or f.seat in names, (t, f.seat)
        assert f.tie is None or f.tie in names, (t, f.tie)
        assert not f.repeats or f.nested, t  # a block run once per seat needs a block
        if f.kills or "role" in f.writes:
            assert f.seat is not None, f"{t.__name__} kills or converts: which seat?"


def test_what_a_statement_does_to_a_seat():
    from maf.dsl.diagnostics import Span

    s = Span("t", 1, 1, 1, 1)
    x = ir.Var(s, "x", "seat")
    kill = sem.kill_of(ir.Kill(s, x, 2, True, 3))
    assert kill == (x, 2, True, 3) and kill.attack == 3
    assert sem.kill_of(ir.Protect(s, x, (2,))) is None
    assert sem.new_role(ir.Convert(s, x, 4)) == 4 and sem.seat_of(ir.Convert(s, x, 4)) is x
    assert sem.new_role(ir.MiddleSwap(s, x, 4)) is None  # the paired Convert changes the role
    assert sem.declared_win(ir.WinNow(s, "team", 1)) == ("team", 1)
    assert sem.tie_rule(ir.Trial(s, x, x, None, False, False, "repeat")) == "repeat"
    assert sem.counts_read([ir.Builtin(s, "alive"), ir.Call(s, "alive", (x,))]) == {"living"}
    assert sem.counts_read([ir.Builtin(s, "players")]) == {"players"}


def test_every_statement_field_holding_statements_is_a_nested_block():
    """A field of statements the table does not list would hide its effects from the checks."""
    import dataclasses

    for t in typing.get_args(ir.Stmt):
        if t is ir.If:
            continue
        hints = typing.get_type_hints(t, vars(ir))
        blocks = {n for n, _ in sem.STMT[t].nested}
        for f in dataclasses.fields(t):
            if "Stmt" in str(hints[f.name]) or "Stmt" in str(f.type):
                assert f.name in blocks, f"{t.__name__}.{f.name} is not a nested block"


def test_walk_sees_nested_blocks_and_their_timing():
    sp = ir.Const.__dataclass_fields__  # noqa: F841 - (spans are not compared)
    from maf.dsl.diagnostics import Span

    s = Span("t", 1, 1, 1, 1)
    seat = ir.Builtin(s, "self")
    kill = ir.Kill(s, seat, 0, False)
    later = ir.Delayed(s, 1, (kill,))
    guard = ir.Guard(s, seat, (0,), (ir.Tell(s, (), None),))
    body = (later, guard)
    assert [type(x).__name__ for x, _ in sem.walk(body)] == ["Delayed", "Kill", "Guard", "Tell"]
    assert [type(x).__name__ for x, _ in sem.walk(body, now_only=True)] == ["Delayed", "Guard"]


def test_commutation_rules():
    assert sem.commutes(("mark", 0, "set"), ("mark", 0, "set"))
    assert not sem.commutes(("mark", 0, "set"), ("mark", 0, "unset"))
    assert sem.commutes(("mark", 0, "set"), ("mark", 1, "unset"))
    assert not sem.commutes(("role", 1), ("role", 2))
    assert sem.commutes(("role", 1), ("role", 1))
    assert not sem.commutes(("guard",), ("guard",))
    assert sem.commutes(("doom",), ("doom",))
    assert sem.commutes(("message",), ("message",))


GAME = """
game t {
  name fa "T" en "T"
  players 4..4
  first night
}
team mafia { name fa "M" en "Mafia" }
team city { name fa "C" en "City" }
cause shot
mark framed until dawn
win city when living(mafia) == 0
win mafia when living(mafia) >= alive - living(mafia)
role boss in mafia {
  name fa "B" en "Boss"
  ability shoot at night {
    tier 10
    target x: alive(x) and x != self
    kill x by shot
  }
}
role nurse in city {
  name fa "N" en "Nurse"
  ability tend at night {
    tier 20
    target x: alive(x)
    if doomed(x) { tell "doomed" } else { tell "fine" }
  }
}
role painter in city {
  name fa "P" en "Painter"
  ability paint at night {
    tier 5
    target x: alive(x)
    mark x as framed
    convert x to citizen
  }
}
role citizen in city { name fa "Z" en "Citizen" }
setup 4: boss, nurse, painter, citizen
day { vote { threshold alive / 2 tie none } }
"""


def _engine():
    c = compile_source(GAME, "sem.maf")
    return c, load_engine(c.python, "sem_replay")


def _seat(g, role):
    return next(s for s in range(1, g.n + 1) if g.role[s] == role)


def test_kill_writes_doom_at_once_and_doomed_reads_it():
    """Kill: `doom`, NOW; doomed(): reads `doom` (a later ability sees the kill pending)."""
    c, m = _engine()
    assert sem.STMT[ir.Kill].writes == ("doom",) and sem.STMT[ir.Kill].when is sem.Timing.NOW
    assert sem.CALLS["doomed"].reads == ("doom",)
    g = m.Game.new(["boss", "nurse", "painter", "citizen"])
    boss, nurse, z = _seat(g, m.ROLES.index("boss")), _seat(g, m.ROLES.index("nurse")), 4
    rep = g.resolve_night([[boss, "boss.shoot", z], [nurse, "nurse.tend", z]])
    assert "doomed" in str(rep["private"])  # tier 10 kill, then tier 20 read: seen
    assert z in [d if isinstance(d, int) else d.get("seat") for d in rep["deaths"]]


def test_doomed_is_false_at_validation_and_a_filter_reading_it_waits_for_the_wake():
    """`at_validation`: doomed() is false while the actions validate; `at_wake`: a night filter
    reading it is read when the ability resolves instead (issue 21): the nurse's tier-20 filter
    sees the boss's tier-10 kill, and refuses a seat nothing dooms (the night is rejected whole,
    the game unchanged)."""
    assert sem.CALLS["doomed"].at_validation is False and sem.CALLS["doomed"].at_wake
    spec = GAME.replace("target x: alive(x)\n    if doomed", "target x: doomed(x)\n    if doomed")
    c = compile_source(spec, "sem2.maf")
    assert [a.id for a in c.program.abilities if sem.read_at_wake(a)] == ["nurse.tend"]
    m = load_engine(c.python, "sem_val")
    g = m.Game.new(["boss", "nurse", "painter", "citizen"])
    boss, nurse = _seat(g, m.ROLES.index("boss")), _seat(g, m.ROLES.index("nurse"))
    before = g.to_json()
    with pytest.raises(m.IllegalAction) as e:  # seat 3 is not doomed when the nurse wakes
        g.resolve_night([[boss, "boss.shoot", 4], [nurse, "nurse.tend", 3]])
    assert e.value.rule == "bad-target" and g.to_json() == before
    rep = g.resolve_night([[boss, "boss.shoot", 4], [nurse, "nurse.tend", 4]])
    assert "doomed" in str(rep["private"])


def test_mark_and_convert_take_effect_at_once():
    """SetMark/Convert: NOW (the rest of the night sees them), not at dawn."""
    c, m = _engine()
    assert sem.STMT[ir.SetMark].when is sem.Timing.NOW
    assert sem.STMT[ir.Convert].converts and sem.STMT[ir.Convert].when is sem.Timing.NOW
    g = m.Game.new(["boss", "nurse", "painter", "citizen"])
    painter = _seat(g, m.ROLES.index("painter"))
    nurse = _seat(g, m.ROLES.index("nurse"))
    g.resolve_night([[painter, "painter.paint", nurse]])
    assert g.role[nurse] == m.ROLES.index("citizen")


def test_dispatch_chains_are_recognised():
    """`convert self to role(x)` lowers to one branch per role at the statement's span."""
    spec = GAME.replace("convert x to citizen", "convert self to role(x)")
    c = compile_source(spec, "sem3.maf")
    paint = next(a for a in c.program.abilities if a.id == "painter.paint")
    ifs = [s for s, _ in sem.walk(paint.body) if isinstance(s, ir.If)]
    assert ifs and all(sem.is_dispatch(s) for s in ifs)
    tend = next(a for a in c.program.abilities if a.id == "nurse.tend")
    assert not any(sem.is_dispatch(s) for s, _ in sem.walk(tend.body) if isinstance(s, ir.If))


ACTED = GAME.replace(
    "    target x: alive(x)\n    if doomed(x)",
    "    when acted(boss.shoot)\n    target x: alive(x)\n    if doomed(x)",
)


def test_acted_at_validation_is_one_meaning():
    """`when acted(boss.shoot)`: while the night's actions validate, `acted` is what was
    submitted tonight, all of it, wherever it stands in the list (the plan the night then
    resolves by): the compiled night and the generic resolver accept the same nights."""
    c = compile_source(ACTED, "acted.maf")
    shoot, tend = [1, "boss.shoot", 4], [2, "nurse.tend", 4]
    for actions, accepted in (([shoot, tend], True), ([tend, shoot], True), ([tend], False)):
        out = []
        for fast in (True, False):
            m = load_engine(c.python, f"acted_{fast}")
            if not fast:
                m.FAST_NIGHT = None
            g = m.Game.new(["boss", "nurse", "painter", "citizen"])
            try:
                rep = g.resolve_night(actions)
                out.append(("accepted", rep["private"]))
            except Exception as e:  # (the IllegalAction of that engine module)
                out.append((type(e).__name__, getattr(e, "rule", None)))
        assert out[0] == out[1], (actions, out)
        assert (out[0][0] == "accepted") is accepted, (actions, out)
    assert sem.CALLS["acted"].at_validation is None  # (a value of the night, not a constant)


CALLER = GAME.replace(
    "role citizen in city {",
    """role deputy in city {
  name fa "D" en "Deputy"
  ability tag on call {
    target y: alive(y)
    mark y as framed
  }
}
role citizen in city {""",
).replace(
    "    if doomed(x) { tell \"doomed\" } else { tell \"fine\" }",
    "    call deputy.tag for x",
).replace("setup 4: boss, nurse, painter, citizen", "setup 4: boss, nurse, painter, deputy")


def test_a_call_brings_the_called_decisions_effects():
    """CallAbility: the called `on call` decision runs at once, as part of the caller: its
    mark is the caller's effect (K001/K002 see it at the caller's place in the night)."""
    from maf.compiler.verify.check.effects import effects

    c = compile_source(CALLER, "call.maf")
    p = c.program
    tend = next(a for a in p.abilities if a.id == "nurse.tend")
    framed = next(m.idx for m in p.marks if m.id == "framed")
    assert not [s for s, _ in sem.walk(tend.body) if isinstance(s, ir.SetMark)]
    assert ("mark", framed, "set") in effects(p, tend).writes


PAIR = """
game t {
  name fa "T" en "T"
  players 5..5
  first night
}
team mafia { name fa "M" en "Mafia" }
team city { name fa "C" en "City" }
cause shot
mark m1 until dusk
win city when living(mafia) == 0
win mafia when living(mafia) >= alive - living(mafia)
role a in city {
  name fa "A" en "A"
  ability act at night {
    tier 10
    target x: alive(x) and x != self
    @A@
  }
}
role b in city {
  name fa "B" en "B"
  ability act at night {
    tier 20
    target x: alive(x) and x != self
    @B@
  }
}
role boss in mafia { name fa "Bo" en "Boss" }
role citizen in city { name fa "Z" en "Citizen" }
setup 5: a, b, boss, citizen * rest
"""

PAIRS = [
    ("kill x by shot", "protect x from shot"),
    ("mark x as m1", "unmark x as m1"),
    ("mark x as m1", 'if has(x, m1) { tell "seen" }'),
    ("convert x to citizen", "convert x to boss"),
    ('tell "a"', 'tell "b"'),
    ("kill x by shot", 'if doomed(x) { tell "doomed" }'),
    ("mark x as m1", "mark x as m1"),
    ("block x", 'if blocked(x) { tell "blocked" }'),
    ("protect x from shot", "protect x from shot"),
]


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a} / {b}" for a, b in PAIRS])
def test_commutation_facts_replay_on_the_engine(a, b):
    """What the table says commutes (effects: no flow, no clash) gives the same night in both
    orders on the generated engine; what it says does not, differs in one of them."""
    from maf.compiler.verify.check.effects import clashes, effects, flows
    from maf.compiler.verify.check.k002_ambiguous import _norm, _state, swapped_engine

    c = compile_source(PAIR.replace("@A@", a).replace("@B@", b), "pair.maf")
    p = c.program
    ea, eb = (effects(p, x) for x in p.abilities)
    commute = not (flows(ea, eb) or flows(eb, ea) or clashes(ea, eb))
    outs = []
    for swap in (False, True):
        m = swapped_engine(c.python, "pair_s", 0, 1) if swap else load_engine(c.python, "pair")
        g = m.Game.new(["a", "b", "boss", "citizen", "citizen"])
        rep = g.resolve_night([[1, "a.act", 4], [2, "b.act", 4]])
        outs.append((_norm(rep), _state(g)))
    assert (outs[0] == outs[1]) is commute, (commute, outs)


def _pair_engine(a, b, name):
    c = compile_source(PAIR.replace("@A@", a).replace("@B@", b), f"{name}.maf")
    return c, load_engine(c.python, name)


def test_delayed_block_runs_at_the_start_of_a_later_night():
    """Delayed: LATER (`in 1 nights`: nothing tonight, the kill at the next night)."""
    assert sem.STMT[ir.Delayed].nested == (("body", sem.Timing.LATER),)
    _, m = _pair_engine("in 1 nights { kill x by shot }", 'tell "b"', "sem_delay")
    g = m.Game.new(["a", "b", "boss", "citizen", "citizen"])
    assert g.resolve_night([[1, "a.act", 4]])["deaths"] == []
    g.resolve_day()
    assert 4 in g.resolve_night([])["deaths"]


def test_guard_reaction_runs_when_the_kills_settle():
    """Guard: its reaction is DAWN: it answers a kill that resolves after the guard did."""
    assert ("body", sem.Timing.DAWN) in sem.STMT[ir.Guard].nested
    _, m = _pair_engine('guard x from shot { tell "took it" }', "kill x by shot", "sem_guard")
    g = m.Game.new(["a", "b", "boss", "citizen", "citizen"])
    rep = g.resolve_night([[1, "a.act", 4], [2, "b.act", 4]])  # the guard first, tier 10
    assert 4 not in rep["deaths"] and 1 in rep["deaths"]
    assert rep["private"].get(1) == ["took it"]


# the declaration fields holding statements (directly or through triggers, hooks, reactions)
# that semantics.sites() walks; a new one must be taught to sites() and listed here
SITE_FIELDS = {
    "Program": {"hooks", "any_deaths", "any_saves", "start"},
    "Role": {"triggers", "reactions", "hooks", "any_deaths", "start", "replacements"},
    "Ability": {"body", "inverted", "stolen", "reactions"},
}


def test_every_block_of_statements_is_a_site():
    import dataclasses

    for cls in (ir.Program, ir.Role, ir.Ability):
        held = {
            f.name
            for f in dataclasses.fields(cls)
            if any(k in str(f.type) for k in ("Stmt", "Trigger", "Hook", "Reaction", "Replacement"))
        }
        assert held == SITE_FIELDS[cls.__name__], (cls.__name__, held)


def test_every_vote_field_has_an_entry():
    """A vote option is not finished until the checks know what it means (the vote checks,
    K005 and K010, read votes through these facts and compiler/verify/check/votes.py)."""
    import dataclasses

    for cls in (ir.Vote, ir.VotesWith):
        missing = [
            f.name for f in dataclasses.fields(cls) if (cls.__name__, f.name) not in sem.VOTE_FIELDS
        ]
        assert not missing, f"{cls.__name__} fields without a semantics entry: {missing}"
    assert {("Trial", "judgement"), ("Role", "votes_with"), ("Reaction", "kind")} <= set(
        sem.VOTE_FIELDS
    )
    for (cls, name), doc in sem.VOTE_FIELDS.items():
        assert name in {f.name for f in dataclasses.fields(getattr(ir, cls))} and doc


def test_every_field_fact_names_a_field():
    import dataclasses

    for (cls, name), doc in sem.FIELDS.items():
        assert name in {f.name for f in dataclasses.fields(getattr(ir, cls))}, (cls, name)
        assert doc


def test_sites_reach_every_statement_of_a_spec():
    """Every statement node of the shipped specs is inside some site (nothing runs unseen)."""
    from maf.compiler.driver import compile_file

    root = HERE.parent.parent
    for spec in sorted((root / "specs").glob("*.maf")):
        p = compile_file(spec).program
        seen = {id(s) for site in sem.sites(p) for s, _ in sem.walk(site.body)}
        stmts = [n for n in ir.nodes(p) if isinstance(n, typing.get_args(ir.Stmt))]
        assert stmts and all(id(s) in seen for s in stmts), spec.name


def _decided_by_the_table(rf) -> bool:
    """A builtin function whose entry says its value: a count of seats, a function of a seat's
    role, a function of its arguments' values."""
    return rf.count in ("team", "role") or rf.of_seat is not None or rf.value is not None


def test_k004_and_z3x_decide_every_builtin_function():
    """K004's evaluator and z3x's translator give every builtin function a meaning: the one its
    semantics entry states, a case of their own (_CALLS), or unknown (UNKNOWN_CALLS), in
    exactly one place; a function added to the table fails here until both say which. (z3x
    translates a function of its arguments' values, ReadFact.value, by a case of its own: Z3
    terms are not Python numbers.)"""
    from maf.compiler.verify.check import aeval as k4
    from maf.compiler.verify.check import z3x

    for f, rf in sem.CALLS.items():
        places = [_decided_by_the_table(rf), f in k4._CALLS, f in k4.UNKNOWN_CALLS]
        assert places.count(True) == 1, ("K004", f, places)
        by_table = rf.count in ("team", "role") or rf.of_seat is not None
        places = [by_table, f in z3x._CALLS, f in z3x.UNKNOWN_CALLS]
        assert places.count(True) == 1, ("z3x", f, places)
        assert rf.value is None or f in z3x._CALLS, f
    for m in (k4, z3x):
        assert set(m._CALLS) | set(m.UNKNOWN_CALLS) <= set(sem.CALLS), m.__name__


def test_z3x_translates_functions_as_the_engine():
    """clamp as the engine computes it (hi when lo > hi), the roundings exactly, a function
    it does not model opaque."""
    import z3

    from maf.compiler.driver import compile_file
    from maf.compiler.verify.check import z3x
    from maf.compiler.verify.check.model import Context
    from maf.dsl.diagnostics import Span

    spec = HERE / "specs" / "k004_ok.maf"
    c = compile_file(spec)
    ctx = Context(c.program, spec.read_text(encoding="utf-8"), c.python)
    tr = z3x.Translator(z3x.State(ctx, "@t"))
    s = Span("t", 1, 1, 1, 1)

    def call(f, *args):
        return ir.Call(s, f, tuple(ir.Const(s, a) if isinstance(a, int) else a for a in args))

    def value(e):
        return z3.simplify(tr.tr(e)).as_long()

    assert value(call("clamp", 5, 3, 1)) == 1 and value(call("clamp", 2, 1, 3)) == 2
    for f, want in (("floor", 2), ("ceil", 3), ("round", 3)):
        assert value(call(f, ir.Binary(s, "/", ir.Const(s, 5), ir.Const(s, 2)))) == want, f
    assert value(call("round", ir.Binary(s, "/", ir.Const(s, -5), ir.Const(s, 2)))) == -2
    assert isinstance(tr.tr(call("used", ir.Sym(s, "ability", 0, "a"))), z3x.Opaque)
    # every builtin name: a term of its type (dsl/builtins.py), within its entry's bounds
    sorts = {"bool": z3.BoolRef, "int": z3.ArithRef, "seat": z3x.SeatVal}
    for name, (typ, _) in analysis.BUILTIN_NAMES.items():
        v = tr.tr(ir.Builtin(s, name))
        assert isinstance(v, sorts[typ]), name
        lo = sem.BUILTINS[name].at_least
        if lo is not None:
            solver = z3.Solver()
            solver.add(*tr.st.side, v < lo)
            assert solver.check() == z3.unsat, name


def test_the_value_of_a_function_is_the_engines():
    """ReadFact.value (what K004 computes min, max, clamp and the roundings with) is what the
    emitted engine computes: its code for the call, run in a generated engine's namespace."""
    from fractions import Fraction

    from maf.compiler.backend import pycode

    root = HERE.parent.parent
    engine = load_engine((root / "generated" / "classic.py").read_text(encoding="utf-8"), "t")
    samples = [-3, -1, 0, 2, 5, Fraction(5, 2), Fraction(-5, 2), Fraction(7, 3)]
    for f, rf in sem.CALLS.items():
        if rf.value is None:
            continue
        n = len(analysis.BUILTIN_FUNCS[f][0])
        code = pycode._CALLS[f].format(*(f"a[{i}]" for i in range(n)))
        for a in __import__("itertools").product(samples, repeat=n):
            if not rf.exact and any(isinstance(x, Fraction) for x in a):
                continue
            assert rf.value(*a) == eval(code, vars(engine), {"a": a}), (f, a)
    assert sem.CALLS["clamp"].value(5, 3, 1) == 1  # lo > hi: the engine gives hi
    # the binary operators: `/` and `%` floor, and by zero give 0, as the engine's _div/_mod
    for a, b in __import__("itertools").product(range(-7, 8), range(-3, 4)):
        assert sem.OPERATORS["/"](a, b) == engine._div(a, b), (a, b)
        assert sem.OPERATORS["%"](a, b) == engine._mod(a, b), (a, b)


def test_z3x_divides_as_the_engine():
    """z3x's `/` and `%` (Z3's integer division differs for a negative divisor and leaves x / 0
    free) take the engine's values, for constant and for unknown operands."""
    import itertools

    import z3

    from maf.compiler.verify.check import z3x

    x, y = z3.Int("x"), z3.Int("y")
    for a, b in itertools.product(range(-7, 8), range(-3, 4)):
        for op in ("/", "%"):
            want = sem.OPERATORS[op](a, b)
            fn = z3x._div if op == "/" else z3x._mod
            assert z3.simplify(fn(z3.IntVal(a), z3.IntVal(b))).as_long() == want, (a, op, b)
            solver = z3.Solver()
            solver.add(x == a, y == b, fn(x, y) != want)
            assert solver.check() == z3.unsat, (a, op, b)


def test_k004_evaluates_functions_as_the_table_says():
    """clamp as the engine (hi when lo > hi), kind(x) of a bound seat, the roundings exactly."""
    from maf.compiler.driver import compile_file
    from maf.compiler.verify.check import aeval as k4
    from maf.compiler.verify.check.model import Context
    from maf.dsl.diagnostics import Span

    spec = HERE / "specs" / "k004_ok.maf"
    c = compile_file(spec)
    ctx = Context(c.program, spec.read_text(encoding="utf-8"), c.python)
    s = Span("t", 1, 1, 1, 1)

    def call(f, *args):
        return ir.Call(s, f, tuple(ir.Const(s, a) if isinstance(a, int) else a for a in args))

    def ev(e, env=None):
        return k4.aeval(ctx, e, env or {}, [1, 4], 5)

    assert ev(call("clamp", 5, 3, 1)) == 1 and ev(call("clamp", 2, 1, 3)) == 2
    assert ev(call("round", ir.Binary(s, "/", ir.Const(s, 5), ir.Const(s, 2)))) == 3
    assert ev(call("ceil", ir.Binary(s, "/", ir.Builtin(s, "alive"), ir.Const(s, 2)))) == 3
    assert ev(call("min", ir.Builtin(s, "players"), ir.Builtin(s, "night"))) is k4.U
    assert ev(ir.Binary(s, "/", ir.Builtin(s, "alive"), ir.Const(s, 0))) == 0  # as the engine
    assert ev(ir.Binary(s, "/", ir.Const(s, -5), ir.Const(s, 2))) == -3  # floor division
    x = ir.Var(s, "x", "seat")
    boss = k4.Seat(0, "x")
    assert ev(call("kind", x), {"x": boss}) == c.program.roles[0].kind
    assert ev(call("role", x), {"x": boss}) == 0 and ev(call("team", x)) is k4.U
    assert ev(call("used", ir.Sym(s, "ability", 0, "a")), {"x": boss}) is k4.U
