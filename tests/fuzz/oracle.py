"""The oracles: what every input must give, whatever it is.

- a spec: a diagnostic (CompileError) or an engine that imports, whose names are what the spec
  says (no two spec names in one Python name: a silent miscompile), and that plays;
- a scenario file: a result or a ScenarioError (one line, exit 2), and valid JSON under --json;
- the engine API: a report or an IllegalAction that leaves ``to_json()`` unchanged, and a game
  saved and restored mid-way continues exactly as the original.

A broken oracle raises ``Finding`` with its kind; any other exception escaping is a traceback.
"""
from __future__ import annotations

import io
import json
import random
import re
import sys
import tempfile
from pathlib import Path

from maf.compiler.tools import deal
from maf.compiler.driver import compile_source, load_engine
from maf.compiler.backend.pycode import const, ident, unident
from maf.dsl.diagnostics import CompileError

KINDS = ("traceback", "hang", "miscompile", "import", "state")


class Finding(Exception):
    """An input that breaks an oracle. ``kind`` is one of KINDS."""

    def __init__(self, kind: str, detail: str):
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


_DIAG = re.compile(r"^\S.*:\d+:\d+: (error|warning)\[E\d{3}\]: ", re.M)


# ------------------------------------------------------------------ specs
def check_spec(text: str, *, play: bool = True, rng: random.Random | None = None) -> str:
    """The spec oracle. Returns "diagnostic" or "engine"; raises Finding otherwise."""
    try:
        out = compile_source(text, "fuzz.maf")
    except CompileError as e:
        if not e.diagnostics or not any(d.severity == "error" for d in e.diagnostics):
            raise Finding("traceback", "CompileError without an error diagnostic") from None
        rendered = e.render()
        if not _DIAG.search(rendered):
            raise Finding("traceback", f"diagnostic not in file:line:col form: {rendered[:200]}")
        return "diagnostic"
    try:
        mod = load_engine(out.python, "fuzz")
    except Exception as e:  # noqa: BLE001 - the oracle: generated code that Python refuses
        raise Finding("import", f"{type(e).__name__}: {e}") from None
    check_names(mod, out.program)
    if play:
        play_engine(mod, rng or random.Random(0))
    return "engine"


def check_names(mod, prog) -> None:
    """Every spec name reaches the engine as itself: constants, tables and functions agree."""
    def want(cond, what):
        if not cond:
            raise Finding("miscompile", what)

    want(tuple(mod.ROLES) == tuple(r.id for r in prog.roles), "ROLES")
    want(tuple(mod.TEAMS) == tuple(t.id for t in prog.teams), "TEAMS")
    want(tuple(mod.ABILITIES) == tuple(a.id for a in prog.abilities), "ABILITIES")
    for table, prefix in ((mod.ROLES, "R"), (mod.TEAMS, "T"), (mod.MARKS, "M"),
                          (mod.CAUSES, "C"), (mod.ABILITIES, "A")):
        want(len(set(table)) == len(table), f"two {prefix} entries with one id")
        for i, name in enumerate(table):
            want(getattr(mod, const(prefix, name), None) == i,
                 f"{const(prefix, name)} is not {i} ({name!r})")
    for i, aid in enumerate(mod.ABILITIES):
        fn = mod.RUN[i]
        want(fn.__name__ == f"_run_{ident(aid)}" and unident(fn.__name__[5:]) == aid,
             f"RUN[{i}] is {fn.__name__}, not the body of {aid!r}")
    # no generated function was redefined by another of the same name
    fns = [f for group in (mod.RUN, mod.INVERTED, mod.STOLEN, mod.FAST, mod.WHEN) for f in group]
    fns += [f for fs in mod.FILTERS for f in fs]
    fns += [f for per_role in mod.TRIGGERS for _, f in per_role]
    fns += list(getattr(mod, "TRIAL_CANCEL", {}).values())
    for f in fns:
        if f is not None:
            want(getattr(mod, f.__name__, None) is f, f"{f.__name__} is defined twice")


def _seats_of(mod, rng):
    custom = getattr(mod, "CUSTOM_SETUPS", ())
    if custom and mod.SETUPS and rng.random() < 0.5:
        # a custom setup beside the fixed ones (werewolf's `open`): one of its tables, half the time
        label = rng.choice(custom)[0]
        try:
            seats = deal.custom_table(mod, rng, setup=label, tries=200)
        except deal.DealError:  # more tables than the dealer enumerates: a fixed setup instead
            seats = None
        if seats is not None:
            return seats, label
    fixed = deal.fixed_table(mod, rng)
    if fixed is not None:
        return fixed
    if not mod.ROLES:
        return None, None
    # custom setups only (`any where`): a random seat list the engine accepts
    return deal.custom_table(mod, rng), None


def play_engine(mod, rng: random.Random, steps: int = 8) -> None:
    """A short game with random actions: reports or IllegalActions that change nothing."""
    seats, label = _seats_of(mod, rng)
    if seats is None:
        return
    try:
        g = mod.Game.new(seats, setup=label, seed=rng.randrange(1000))
    except mod.IllegalAction:
        return
    for _ in range(steps):
        if g.winner is not None:
            break
        op = random_op(mod, g.n, rng, g.phase, g)
        apply_op(mod, g, op)


def check_names_spec(text: str, expected: dict[str, str]) -> None:
    """A spec from gen.names_spec: it compiles, and each role's ability runs its own body
    (tells its own id) however its names collide once mangled."""
    try:
        out = compile_source(text, "names.maf")
    except CompileError as e:
        raise Finding("miscompile", "a valid spec with colliding names was rejected:\n"
                      + e.render()[:600]) from None
    mod = load_engine(out.python, "names")
    check_names(mod, out.program)
    seats, label = _seats_of(mod, random.Random(0))
    g = mod.Game.new(seats, setup=label)
    if g.phase != "night":
        g.resolve_day()
    acts = []
    for seat, role in enumerate(seats, 1):
        if role in expected and not any(a[0] == seat for a in acts):
            acts.append([seat, expected[role].split(".", 1)[1], 1 if seat != 1 else 2])
    rep = g.resolve_night(acts)
    for seat, name, _ in acts:
        want = [expected[seats[seat - 1]]]
        if rep["private"].get(seat) != want:
            raise Finding("miscompile", f"seat {seat} ({seats[seat - 1]}) used {name} and was "
                          f"told {rep['private'].get(seat)!r}, not {want!r}")


# ------------------------------------------------------------------ engine API
JUNK = [0, -1, 10 ** 30, None, True, False, 1.5, "1", "", "x" * 50, [], [1], {}, {"a": 1},
        float("nan"), (1, 2), b"\x00"]


def _seat(n, rng):
    return rng.randint(1, n) if rng.random() < 0.85 else rng.choice(JUNK + [n + 1])


def _key(n, rng):
    """A seat as a mapping key: junk too, but hashable."""
    s = _seat(n, rng)
    return s if isinstance(s, (int, float, str, bytes, tuple, type(None))) else n + 1


def _ability_names(mod):
    return sorted(set(mod.AB_NAME) | set(mod.ABILITIES)) or ["x"]


def _action(mod, n, rng, g=None):
    if rng.random() < 0.05:
        return rng.choice(JUNK)
    actor = _seat(n, rng)
    own = ()
    if g is not None and actor.__class__ is int and 1 <= actor <= n:
        own = [mod.AB_NAME[a] for a in mod.ROLE_ABILITIES[g.role[actor]]]
    if own and rng.random() < 0.7:  # mostly the actor's own abilities: deeper than the lookup
        name = rng.choice(own)
    else:
        name = rng.choice(_ability_names(mod)) if rng.random() < 0.9 else rng.choice(JUNK)
    args = [_seat(n, rng) for _ in range(rng.choice((0, 1, 1, 1, 2, 3)))]
    if rng.random() < 0.2:
        args.append(rng.choice(list(mod.ROLES) + list(mod.TEAMS) or ["x"]))
    return [actor, name, *args]


def random_op(mod, n: int, rng: random.Random, phase: str | None = None, g=None) -> tuple:
    """One call of the engine API with arguments legal, nearly legal or junk."""
    roll = rng.random()
    if roll < 0.05:
        return ("moderator_kill", _seat(n, rng))
    if roll < 0.08:
        return ("moderator_revive", _seat(n, rng))
    night = phase == "night" if rng.random() < 0.9 else rng.random() < 0.5
    if night and g is not None and hasattr(g, "legal_actions") and rng.random() < 0.5:
        # a night the engine's own lists call legal, one action per actor (they may clash)
        actions = []
        for seat in g.alive_seats():
            legal = g.legal_actions(seat, expand=True)
            if legal and rng.random() < 0.7:
                actions.append(list(rng.choice(legal)))
        return ("resolve_night", actions)
    if night:
        k = rng.choice((0, 1, 2, 3, 4))
        actions = [_action(mod, n, rng, g) for _ in range(k)]
        return ("resolve_night", actions if rng.random() < 0.97 else rng.choice(JUNK))
    kw = {}
    if g is not None and hasattr(g, "alive_seats") and rng.random() < 0.3:
        # a plain day: nobody or one living seat eliminated
        if rng.random() < 0.5 and g.alive_seats():
            kw["eliminate"] = rng.choice(g.alive_seats())
        return ("resolve_day", kw)
    if rng.random() < 0.5:
        kw["eliminate"] = _seat(n, rng)
    elif rng.random() < 0.5:
        kw["votes"] = {_key(n, rng): _seat(n, rng) for _ in range(rng.randint(0, n))}
    for key in ("defense", "trial", "inquiry", "actions", "breach", "card", "runoff"):
        if rng.random() < 0.1:
            kw[key] = rng.choice(JUNK + [[_seat(n, rng)], {_key(n, rng): _seat(n, rng)},
                                         [_action(mod, n, rng, g)],
                                         rng.choice(_ability_names(mod))])
    return ("resolve_day", kw)


def apply_op(mod, g, op):
    """Run one op; returns ("ok", report) or ("illegal", rule). IllegalAction must change
    nothing; anything else escaping is a traceback (Finding)."""
    name, arg = op
    before = g.to_json()
    try:
        if name == "resolve_day":
            rep = g.resolve_day(**arg)
        else:
            rep = getattr(g, name)(arg)
    except mod.IllegalAction as e:
        if g.to_json() != before:
            raise Finding("state", f"{name} raised IllegalAction ({e.rule}) and changed the "
                          f"state: {op!r}") from None
        return ("illegal", e.rule)
    except Finding:
        raise
    except Exception as e:  # noqa: BLE001 - the oracle
        raise Finding("traceback", f"{name}{op[1]!r:.300}: {type(e).__name__}: {e}") from None
    return ("ok", rep)


def check_session(mod, rng: random.Random, steps: int = 25) -> None:
    """The engine-API oracle on one random game: every op gives a report or an IllegalAction
    that changes nothing, and a save + restore at a random step continues identically."""
    seats, label = _seats_of(mod, rng)
    if seats is None:  # no table the random dealer finds (a strict custom setup): nothing to play
        return
    seed = rng.randrange(1 << 16)
    ops = []
    n = len(seats)
    g = mod.Game.new(seats, setup=label, seed=seed)
    record = []
    for _ in range(steps):
        if g.winner is not None:
            break
        op = random_op(mod, n, rng, g.phase, g)
        ops.append(op)
        record.append((apply_op(mod, g, op), g.to_json()))
    if not ops:
        return
    k = rng.randrange(len(ops) + 1)
    g2 = mod.Game.new(seats, setup=label, seed=seed)
    for op in ops[:k]:
        apply_op(mod, g2, op)
    saved = json.loads(json.dumps(g2.to_json()))
    g3 = mod.Game.from_json(saved)
    if g3.to_json() != g2.to_json():
        raise Finding("state", f"from_json(to_json()) differs after {k} ops")
    for j, op in enumerate(ops[k:], k):
        got = (apply_op(mod, g3, op), g3.to_json())
        if got != record[j]:
            raise Finding("state", f"restored after {k} ops, op {j} {op!r:.200} differs")


# ------------------------------------------------------------------ scenarios
def check_scenario(text: str, workdir: Path | None = None) -> int:
    """The scenario oracle: `maf run --json` exits 0, 1 or 2, prints one JSON document, and
    never a traceback. Returns the exit code."""
    from maf.compiler.tools import cli# noqa: PLC0415
    with tempfile.TemporaryDirectory(dir=workdir) as d:
        path = Path(d) / "fuzz.yaml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        out, err = io.StringIO(), io.StringIO()
        old = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = out, err
        try:
            code = cli.main(["run", str(path), "--json"])
        except SystemExit as e:
            code = e.code
        except Exception as e:  # noqa: BLE001 - the oracle
            raise Finding("traceback", f"{type(e).__name__}: {e}"[:500]) from None
        finally:
            sys.stdout, sys.stderr = old
    if code not in (0, 1, 2):
        raise Finding("traceback", f"exit code {code}: {err.getvalue()[:300]}")
    try:
        json.loads(out.getvalue())
    except ValueError:
        raise Finding("traceback", f"--json printed no JSON: {out.getvalue()[:300]!r}") from None
    if "Traceback" in err.getvalue():
        raise Finding("traceback", err.getvalue()[:500])
    return code
