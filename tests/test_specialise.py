"""The compiled night's settle and hooks are the runtime's own (issue 20 item 2): nightgen takes
Game._settle, Game._die and Game._hooks from compiler/runtime/core.py and specialises them
(compiler/backend/specialise.py). A difference planted in the runtime's source is in the
compiled night, and plays there; the specialiser folds, unrolls and inlines as it says, and
refuses, naming the runtime line, what it does not read."""

from __future__ import annotations

import pytest

from maf.compiler.backend import nightgen
from maf.compiler.backend.specialise import (
    EMPTY,
    SpecialiseError,
    Specialiser,
    known,
    residual,
    row,
    runtime_source,
    table,
    uniform,
    view,
)
from maf.compiler.driver import compile_source, load_engine

SPEC = """\
game planted { name en "Planted" players 4..4 }
team town { name en "Town" }
team mafia { name en "Mafia" }
cause shot
role killer in mafia {
  name en "Killer"
  ability shoot at night {
    target x: alive(x) and x != self
    kill x by shot
  }
}
role doctor in town {
  name en "Doctor"
  ability heal at night {
    target x: alive(x)
    protect x from shot
  }
}
role citizen in town { name en "Citizen" }
setup 4: killer, doctor, citizen, citizen
check wins at dawn
win town when living(mafia) == 0
win mafia when living(mafia) >= alive - living(mafia)
"""
SEATS = ["killer", "doctor", "citizen", "citizen"]


def _night(python: str, actions):
    """Night 1 of SEATS on the engine `python`: (compiled night's report, generic's report)."""
    reports = []
    for compiled in (True, False):
        eng = load_engine(python, f"planted_{compiled}")
        if not compiled:
            eng.FAST_NIGHT = None
        g = eng.Game.new(SEATS, seed=1)
        reports.append(g.resolve_night(actions))
    return reports


def _settle_of(python: str) -> str:
    # (the compiled night past its validation: _night_commit, where the night is cut there)
    fn = "def _night_commit(" if "def _night_commit(" in python else "def _night_fast("
    body = python.split(fn, 1)[1].split("\ndef ", 1)[0]
    return body.split("# Game._settle, Game._die inlined", 1)[1]


def test_the_compiled_settle_follows_a_difference_planted_in_the_runtime(monkeypatch):
    """Two plants in core.py's source, as nightgen reads it: Game._die records each exit as
    a vote, and a protection is dead code in Game._settle. The compiled night holds and plays
    both; the generic resolver (the engine's own runtime, unplanted) does neither: the
    compiled night has no meaning of its own to drift from."""
    core = runtime_source("core")
    fast, generic = _night(compile_source(SPEC, "planted.maf").python, [[1, "shoot", 3]])
    assert fast == generic and fast["deaths"] == [3] and fast["causes"] == {3: "shot"}
    exits = "        self._exits.append((seat, cause))\n"
    assert core.count(exits) == 1
    prot = "                if p is not None and cause in p:\n"
    assert core.count(prot) == 1
    planted = core.replace(exits, "        self._exits.append((seat, C_VOTE))\n").replace(
        prot, "                if p is not None and cause in p and FEATURE_PLANTED:\n"
    )
    monkeypatch.setattr(nightgen, "runtime_source", lambda name="core": planted)
    python = compile_source(SPEC, "planted.maf").python
    settle = _settle_of(python)
    assert "causes[seat] = CAUSES[C_VOTE]" in settle
    assert "cause in p" not in settle  # (FEATURE_PLANTED: a feature this engine lacks)
    fast, generic = _night(python, [[1, "shoot", 3]])
    assert fast["causes"] == {3: "vote"} and generic["causes"] == {3: "shot"}
    # the doctor's protection: the generic resolver keeps it, the planted night lost it
    fast, generic = _night(python, [[1, "shoot", 3], [2, "heal", 3]])
    assert generic["deaths"] == [] and fast["deaths"] == [3]


def _sp(src: str, **kw) -> Specialiser:
    kw.setdefault("consts", {})
    kw.setdefault("features", ())
    kw.setdefault("views", {})
    return Specialiser(src, "t.py", "G", **kw)


SRC = '''
class G:
    def run(self, rows):
        """A docstring: dropped."""
        for role, causes, fn in rows:
            if causes is not None and cause not in causes:
                continue
            if role < 0:
                fn(self, 0)
                continue
            if role not in self.role:
                continue  # nobody
            for s in range(1, self.n + 1):
                if self.role[s] == role and self.alive[s]:
                    fn(self, s)
        if FEATURE_X:
            self.x = 1
        else:
            self.y = 2
        p = self.prot.get(seat)
        if p is not None and cause in p:
            self.saved()
        if TABLE[self.role[seat]] and self.other():
            self.z = 3
'''


def test_rows_unroll_and_continues_become_ifs():
    rows = table(
        "ROWS",
        [
            row(known(-1), known(None), residual("_f0")),
            row(known(2, "R_B"), residual("(C_A,)", truth=True), residual("_f1")),
        ],
        ["# row 0", "# row 1"],
    )
    sp = _sp(
        SRC,
        views={"role": view("role"), "alive": view("alive"), "n": view("n"), "prot": EMPTY},
        consts={"TABLE": uniform("TABLE", known(()))},
    )
    got = sp.method("run", {"rows": rows}, depth=0)
    assert got == [
        "# row 0",
        "_f0(g, 0)",
        "# row 1",
        "if cause in (C_A,):",  # (the `continue` of a row the spec fixes: an `if` around the rest)
        "    if R_B in role:",
        "        for s in range(1, n + 1):",
        "            if role[s] == R_B and alive[s]:",
        "                _f1(g, s)",
        "g.y = 2",  # FEATURE_X: not a feature of this engine
    ]  # an empty `prot`: no save; an empty TABLE row: the `and` is false, `other` never runs


def test_an_inlined_method_returns_by_continue_at_the_end_of_a_loop():
    src = """
class G:
    def outer(self):
        for seat in self.pending:
            if not self.alive[seat]:
                continue
            self.die(seat)

    def die(self, seat, by=0):
        if self.spared(seat):
            return  # spared
        self.alive[seat] = False
        self.log.append((seat, by))
"""
    sp = _sp(src, views={"alive": view("alive"), "pending": view("pending")}, inline=("die",))
    assert sp.method("outer", {}, depth=0) == [
        "for seat in pending:",
        "    if not alive[seat]:",
        "        continue",
        "    if g.spared(seat):",
        "        continue  # spared",
        "    alive[seat] = False",
        "    g.log.append((seat, 0))",
    ]
    # not at the end of a loop: the rest of the body goes into an `if`
    call = "            self.die(seat)"
    src2 = src.replace(call, call + "\n            self.n += 1")
    sp = _sp(src2, views={"alive": view("alive"), "pending": view("pending")}, inline=("die",))
    assert sp.method("outer", {}, depth=0)[3:] == [
        "    if not g.spared(seat):",
        "        alive[seat] = False",
        "        g.log.append((seat, 0))",
        "    g.n += 1",
    ]


def test_a_local_the_branches_bind_differently_is_assigned_on_each_path():
    src = """
class G:
    def m(self):
        t = TRIGGERS[self.role[seat]]
        if self.marks[seat] & MASK:
            t = ()
        for a, fn in t:
            fn(self, a)
"""
    got = _sp(src, views={"role": view("role"), "marks": view("marks")}).method("m", {}, 0)
    assert got == [
        "t = TRIGGERS[role[seat]]",
        "if marks[seat] & MASK:",
        "    t = ()",
        "for a, fn in t:",
        "    fn(g, a)",
    ]


def test_the_output_avoids_the_names_the_night_holds():
    src = """
class G:
    def m(self):
        for causes, fn in self.table:
            fn(self, causes)
"""
    got = _sp(src, reserved={"causes"}).method("m", {}, 0)
    assert got == ["for causes_, fn in g.table:", "    fn(g, causes_)"]


@pytest.mark.parametrize(
    "body, what",
    [
        ("        with x:\n            pass\n", "With"),
        ("        y = lambda: 0\n", "Lambda"),
        ("        return 1\n", "a `return` with a value"),
    ],
)
def test_what_it_does_not_read_is_refused_at_its_line(body, what):
    src = "class G:\n    def m(self):\n" + body
    with pytest.raises(SpecialiseError, match=rf"t\.py:3: .*{what}"):
        _sp(src).method("m", {}, 0)


def test_every_shipped_spec_settles_by_the_runtime_s_code():
    """Each shipped spec's compiled night settles by the specialised runtime (its header), and
    no respelled copy of the settle is left in nightgen."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    src = (root / "compiler" / "backend" / "nightgen.py").read_text(encoding="utf-8")
    assert "alive[seat] = False" not in src and "_FN_IMMUNE" not in src
    for spec in sorted((root / "generated").glob("*.py")):
        text = spec.read_text(encoding="utf-8")
        if "def _night_fast(" in text:
            assert "# Game._settle, Game._die inlined: compiler/runtime/core.py" in text, spec


def test_a_value_read_at_the_next_turn_of_a_loop_is_held():
    """`last = None` at the end of a loop's body, read at its top: the output assigns it (a
    value substituted where it is read would be missing at the next turn)."""
    src = """
class G:
    def m(self):
        last = 0
        for x in self.xs:
            if last is not None:
                self.f(last)
            last = None
"""
    assert _sp(src).method("m", {}, 0) == [
        "last = 0",
        "for x in g.xs:",
        "    if last is not None:",
        "        g.f(last)",
        "    last = None",
    ]
