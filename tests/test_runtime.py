"""The runtime package (compiler/runtime/), imported and played directly on its reference spec,
and the preprocessor that folds its features into each engine."""

from __future__ import annotations

import ast
import copy
import symtable
import textwrap
from pathlib import Path

import pytest

from maf.compiler import runtime
from maf.compiler.runtime import spec
from maf.compiler.runtime.api import ABILITY_INFO
from maf.compiler.runtime.core import Game
from maf.compiler.runtime.spec import IllegalAction, IllegalSetup
from maf.compiler.runtime.state import StateError, check_state

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "compiler" / "runtime"


def fresh() -> Game:
    return Game.new(["alpha", "beta", "gamma", "gamma"])


# ---------------------------------------------------------------- construction
def test_new_deals_the_seats() -> None:
    g = fresh()
    assert g.n == 4
    assert [spec.ROLES[r] for r in g.role[1:]] == ["alpha", "beta", "gamma", "gamma"]
    assert [spec.TEAMS[t] for t in g.team[1:]] == ["red", "blue", "blue", "blue"]
    assert g.alive_seats() == [1, 2, 3, 4]
    assert (g.phase, g.night, g.day) == ("night", 1, 0)
    assert g.nteam[spec.T_RED] == 1 and g.nteam[spec.T_BLUE] == 3
    assert g.winner is None and not g.over


@pytest.mark.parametrize(
    "seats, needle",
    [
        (["alpha", "beta", "delta"], "unknown role id(s): delta"),
        (["alpha", "alpha", "beta"], "match no setup"),
        (["alpha", "beta"], "plays with 3..5 players, not 2"),
    ],
)
def test_new_refuses_a_table_no_setup_allows(seats: list[str], needle: str) -> None:
    with pytest.raises(IllegalSetup) as e:
        Game.new(seats)
    assert needle in str(e.value)


def test_bot_api_lists_what_the_engine_accepts() -> None:
    g = fresh()
    assert g.held_abilities(1) == ["alpha.strike"]
    assert g.legal_actions(1) == [[1, "alpha.strike", t] for t in (2, 3, 4)]
    assert g.legal_actions(2) == [[2, "beta.shelter", t] for t in (1, 2, 3, 4)]
    assert g.legal_actions(3) == []
    assert g.waiting() == {
        "step": "resolve_night",
        "phase": "night",
        "number": 1,
        "inputs": ["actions"],
        "actors": [1, 2],
    }
    assert g.next_wake() == {"ability": "beta.shelter", "seats": [2], "slot": 0}
    assert ABILITY_INFO["alpha.strike"]["effects"] == ("kill",)
    assert ABILITY_INFO["beta.shelter"]["self_per_game"] == 1


# ---------------------------------------------------------------- the night
def test_a_kill_resolves_at_dawn() -> None:
    g = fresh()
    rep = g.resolve_night([[1, "strike", 3], [2, "shelter", 4]])
    assert rep["deaths"] == [3]
    assert rep["causes"] == {3: "strike"}
    assert rep["public"] == []  # a night with a death is not calm
    assert g.alive[3] is False and g.death_cause[3] == spec.C_STRIKE
    assert g.departed == [(3, spec.T_BLUE)]
    assert (g.phase, g.day) == ("day", 1)
    assert g.uses == {(1, spec.A_ALPHA_STRIKE): 1, (2, spec.A_BETA_SHELTER): 1}
    assert g.vis_out == {1: [3], 2: [4]}  # both abilities visit


def test_a_protection_saves_the_target() -> None:
    g = fresh()
    rep = g.resolve_night([[1, "alpha.strike", 3], [2, "beta.shelter", 3]])
    assert rep["deaths"] == []
    assert rep["public"] == ["calm"]
    assert g.alive[3] is True
    assert g.prot == {}  # protections last the night


@pytest.mark.parametrize(
    "actions, rule",
    [
        ([[1, "strike", 1]], "bad-target"),  # x != self
        ([[1, "strike", 9]], "bad-target"),
        ([[3, "strike", 2]], "unknown-ability"),  # gamma has no ability
        ([[1, "strike", 2], [1, "strike", 3]], "duplicate"),
        ([[1, "strike"]], "arity"),
        ([[1, "fly", 2]], "unknown-ability"),
        ([["1", "strike", 2]], "bad-seat"),
        ("strike", "malformed"),
    ],
)
def test_an_illegal_night_leaves_the_state_untouched(actions: object, rule: str) -> None:
    g = fresh()
    g.resolve_night([[2, "shelter", 2]])
    g.resolve_day()  # nobody voted: night 2
    before = copy.deepcopy(g.to_json())
    with pytest.raises(IllegalAction) as e:
        g.resolve_night(actions)
    assert e.value.rule == rule
    assert g.to_json() == before
    # the game goes on from where it was
    assert g.resolve_night([[1, "strike", 4]])["deaths"] == [4]


def test_the_self_limit_holds_across_nights() -> None:
    g = fresh()
    g.resolve_night([[2, "shelter", 2]])
    g.resolve_day()
    before = g.to_json()
    with pytest.raises(IllegalAction) as e:
        g.resolve_night([[2, "shelter", 2]])
    assert e.value.rule == "self-limit"
    assert g.to_json() == before
    assert [2, "beta.shelter", 2] not in g.legal_actions(2)


def test_wake_order_plays_the_same_night() -> None:
    g = fresh()
    so_far = g.wake([[2, "shelter", 3]])
    assert so_far["deaths"] == [] and g.alive[3]
    so_far = g.wake([[1, "strike", 3]])
    assert so_far["deaths"] == []  # previewed: the shelter holds
    assert g.next_wake() is None
    assert g.end_night()["deaths"] == []
    assert g.phase == "day"


# ---------------------------------------------------------------- the day
def test_a_day_vote_eliminates_and_ends_the_game() -> None:
    g = fresh()
    g.resolve_night([[1, "strike", 4]])
    with pytest.raises(IllegalAction) as e:
        g.resolve_day(votes={1: [2, 3, 2]})
    assert e.value.rule == "bad-vote"
    rep = g.resolve_day(votes={1: [2, 3]})  # 2 of 3 living: a majority
    assert rep["deaths"] == [1] and rep["causes"] == {1: "vote"}
    assert g.votes == {(2, 1), (3, 1)}  # VOTES_READ: the day's votes are kept
    assert g.winner == "blue" and g.over and rep["winners"] == ["blue"]
    with pytest.raises(IllegalAction) as e:
        g.resolve_night([])
    assert e.value.rule == "game-over"


def test_a_vote_without_a_majority_eliminates_nobody() -> None:
    g = fresh()
    g.resolve_night([])
    rep = g.resolve_day(votes={1: [2], 3: [4]})
    assert rep["deaths"] == [] and g.phase == "night" and g.night == 2


def test_the_red_team_wins_at_parity() -> None:
    g = Game.new(["alpha", "beta", "gamma"])
    rep = g.resolve_night([[1, "strike", 3]])
    assert rep["winner"] == "red"  # 1 red of 2 living


def test_moderator_kill_and_revive() -> None:
    g = fresh()
    g.moderator_kill(4)
    assert not g.alive[4] and g.death_cause[4] == spec.C_MODERATOR
    with pytest.raises(IllegalAction):
        g.moderator_kill(4)
    g.moderator_revive(4)
    assert g.alive[4] and g.departed == []


# ---------------------------------------------------------------- saved states
def test_to_json_round_trip() -> None:
    g = fresh()
    g.resolve_night([[1, "strike", 3], [2, "shelter", 2]])
    d = g.to_json()
    check_state(d)
    h = Game.from_json(copy.deepcopy(d))
    assert h.to_json() == d
    # the restored game plays on exactly like the original
    assert h.resolve_day(votes={1: [2, 4]}) == g.resolve_day(votes={1: [2, 4]})
    assert h.to_json() == g.to_json()


def test_the_day_snapshot_copies_every_piece_of_state_that_a_step_changes() -> None:
    from maf.compiler.runtime.core import _STATE

    g = fresh()
    g.resolve_night([[1, "strike", 3]])
    g._ever = {(1, 0): [3]}
    g.vis_in, g.vis_out = {3: [1]}, {1: [3]}
    snap = g._snapshot()
    assert list(snap) == list(_STATE)
    for k, v in snap.items():
        live = getattr(g, k)
        assert v == live, k
        if isinstance(v, (list, dict, set)):
            assert v is not live, k  # a copy
        inner = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        for x in inner:
            if isinstance(x, (dict, set)) or isinstance(x, list) and k not in ("later", "delayed"):
                assert all(x is not y for y in (live.values() if isinstance(live, dict) else live))
    # a rejected day leaves the game as the snapshot has it
    before = g.to_json()
    with pytest.raises(IllegalAction):
        g.resolve_day(votes={1: [2, 9]})
    assert g.to_json() == before


@pytest.mark.parametrize(
    "tamper, needle",
    [
        (lambda d: d.update(spec="other"), "spec"),
        (lambda d: d["alive"].__setitem__(0, "yes"), "alive[0]"),
        (lambda d: d["teams"].__setitem__(0, "blue"), "teams[0]"),
        (lambda d: d.update(day=5), "day"),
        (lambda d: d.update(extra=1), "unknown key"),
        (lambda d: d["uses"].append([9, "alpha.strike", 1]), "uses"),
        (lambda d: d["departed"].clear(), "departed"),
    ],
)
def test_from_json_refuses_a_tampered_state(tamper, needle: str) -> None:
    g = fresh()
    g.resolve_night([[1, "strike", 3]])
    d = g.to_json()
    tamper(d)
    with pytest.raises(StateError) as e:
        Game.from_json(d)
    assert needle in str(e.value)
    assert str(e.value).startswith("invalid saved state:")


# ---------------------------------------------------------------- the reference spec
def _free_globals(text: str) -> set[str]:
    out: set[str] = set()

    def walk(t: symtable.SymbolTable) -> None:
        for s in t.get_symbols():
            if t.get_type() == "module" and s.is_referenced() or s.is_global():
                out.add(s.get_name())
        for c in t.get_children():
            walk(c)

    walk(symtable.symtable(text, "<runtime>", "exec"))
    return out


def _engine_imports() -> set[str]:
    """The names the engine template imports at its top (stdlib)."""
    text = (ROOT / "compiler" / "backend" / "templates" / "engine.py.j2").read_text()
    lines = [ln for ln in text.splitlines() if ln.startswith(("import ", "from "))]
    tree = ast.parse("\n".join(lines))
    return {
        a.asname or a.name
        for n in tree.body
        if isinstance(n, (ast.Import, ast.ImportFrom))
        for a in n.names
    }


def _module_names(tree: ast.Module) -> set[str]:
    """The names a module binds at its top level (defs, classes, assignments)."""
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.add(node.name)
            continue
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                out.add(sub.id)
    return out


def test_spec_declares_every_global_the_runtime_reads() -> None:
    """Every name the folded runtime reads is defined by the runtime itself or declared in
    spec.py; so the package runs on its own exactly as it runs in an engine."""
    import builtins

    text = runtime.source(runtime.FEATURES)
    defined = _module_names(ast.parse(text))
    wanted = _free_globals(text) - defined - set(dir(builtins)) - _engine_imports()
    missing = sorted(n for n in wanted if not hasattr(spec, n))
    assert not missing, f"spec.py does not declare {missing}"
    assert len(wanted) > 90  # the tables an engine hands its runtime


def test_spec_declares_only_what_engines_define() -> None:
    """Each non-feature name of spec.py that the runtime modules import exists in a real engine:
    the reference spec stays in step with engine.py.j2."""
    from maf.compiler.driver import import_generated

    engines = [import_generated(p) for p in sorted((ROOT / "generated").glob("*.py"))]
    imported: set[str] = set()
    for m in runtime.MODULES:
        for node in ast.parse((PKG / f"{m}.py").read_text()).body:
            if isinstance(node, ast.ImportFrom) and node.module == "maf.compiler.runtime.spec":
                imported |= {a.name for a in node.names}
    absent = sorted(
        n
        for n in imported
        if not n.startswith("FEATURE_") and not any(hasattr(e, n) for e in engines)
    )
    # tables a feature's engines alone carry (emitted only where the spec uses it: the
    # moderator's): an engine of the feature spec that uses it defines them
    from maf.compiler.driver import compile_file, load_engine

    features = ROOT / "tests" / "scenarios" / "features"
    moderator = load_engine(compile_file(features / "moderator.maf").python, "rt_moderator")
    absent = [n for n in absent if not hasattr(moderator, n)]
    assert not absent, f"spec.py declares names no engine defines: {absent}"
    assert len(imported) > 90
    assert not any(hasattr(e, "FEATURE_LEVELS") for e in engines)


# ---------------------------------------------------------------- folding
def fold(text: str, *features: str) -> str:
    return runtime.fold(textwrap.dedent(text).lstrip("\n"), features, "t.py")


def test_fold_keeps_the_taken_branch_dedented_and_drops_the_other() -> None:
    text = """
        def f():
            a = 1
            if FEATURE_LEVELS:
                # kept with its branch
                a += 1
                b = 2
            c = 3
    """
    assert fold(text, "levels") == textwrap.dedent("""\
        def f():
            a = 1
            # kept with its branch
            a += 1
            b = 2
            c = 3
    """)
    assert fold(text) == "def f():\n    a = 1\n    c = 3\n"


def test_fold_else() -> None:
    text = """
        if FEATURE_VISITS:
            x = 1
        else:
            x = 2  # comment kept
        y = x
    """
    assert fold(text, "visits") == "x = 1\ny = x\n"
    assert fold(text) == "x = 2  # comment kept\ny = x\n"


def test_fold_nested_blocks() -> None:
    text = """
        for k in r:
            if FEATURE_BLOCKS:
                a()
                if FEATURE_DELAYS:
                    b()
                else:
                    c()
                d()
            e()
    """
    assert fold(text, "blocks", "delays") == "for k in r:\n    a()\n    b()\n    d()\n    e()\n"
    assert fold(text, "blocks") == "for k in r:\n    a()\n    c()\n    d()\n    e()\n"
    assert fold(text, "delays") == "for k in r:\n    e()\n"


def test_fold_class_body_defs() -> None:
    text = """
        class G:
            if FEATURE_LEVELS:

                def kill(self, seat, attack=1):
                    return attack

            else:

                def kill(self, seat):
                    return 1

            def other(self):
                pass
    """
    with_levels = fold(text, "levels")
    assert "def kill(self, seat, attack=1):\n        return attack\n" in with_levels
    assert "def kill(self, seat):" not in with_levels
    without = fold(text)
    assert "    def kill(self, seat):\n        return 1\n" in without
    assert "attack" not in without
    for out in (with_levels, without):
        ns: dict = {}
        exec(compile(out, "t.py", "exec"), ns)
        assert ns["G"]().kill(1) == 1
        assert "if " not in out and "else" not in out


def test_a_normal_if_else_is_left_alone() -> None:
    text = """
        if x:
            y()
        else:
            z()
    """
    assert fold(text) == textwrap.dedent(text).lstrip("\n")


def test_fold_strips_indented_omit_blocks() -> None:
    text = """
        class G:
            # maf: omit
            n: int
            # maf: end omit
            def f(self):
                pass
    """
    assert fold(text) == "class G:\n    def f(self):\n        pass\n"


def test_fold_strips_omit_blocks() -> None:
    text = """
        # maf: omit
        from maf.compiler.runtime.spec import ROLES
        # maf: end omit
        N = len(ROLES)
    """
    assert fold(text) == "N = len(ROLES)\n"


@pytest.mark.parametrize(
    "text, needle",
    [
        ("if FEATURE_WINGS:\n    x = 1\n", "unknown feature 'wings'"),
        ("if FEATURE_LEVELS:\nx = 1\n", "without a body"),
        ("if FEATURE_LEVELS:\n    x = 1\nelif y:\n    x = 2\n", "only one `else:`"),
        ("if FEATURE_LEVELS:\n    x = 1\nelse:  # no\n    x = 2\n", "only one `else:`"),
        (
            "if FEATURE_LEVELS:\n    x = 1\nelse:\n    x = 2\n\nelse:\n    x = 3\n",
            "only one `else:`",
        ),
        ("if not FEATURE_LEVELS:\n    x = 1\n", "FEATURE_ outside"),
        ("if FEATURE_LEVELS and y:\n    x = 1\n", "FEATURE_ outside"),
        ("if FEATURE_LEVELS:  # why\n    x = 1\n", "FEATURE_ outside"),
        ("x = FEATURE_LEVELS\n", "FEATURE_ outside"),
        ("def f():\n    if FEATURE_LEVELS:\n          x = 1\n      y = 2\n", "indented between"),
        ("# maf: omit\nimport os\n", "never closed"),
        ("# maf: end omit\n", "not opened"),
        ("def f():\n    # maf: omit\n# maf: end omit\n", "another indentation"),
        ("# maf: omit\n# maf: omit\n# maf: end omit\n", "nested omit"),
        ("# maf: keep\n", "unknown maf: marker"),
        ("if FEATURE_LEVELS:\n\tx = 1\n", "tab"),
    ],
)
def test_fold_rejects_what_it_does_not_understand(text: str, needle: str) -> None:
    with pytest.raises(runtime.FoldError) as e:
        runtime.fold(text, runtime.FEATURES, "t.py")
    assert needle in str(e.value)
    assert str(e.value).startswith("t.py:")


def test_fold_rejects_unknown_features() -> None:
    with pytest.raises(runtime.FoldError, match="unknown features"):
        runtime.fold("x = 1\n", {"levels", "wings"})


def test_a_dropped_branch_is_checked_too() -> None:
    with pytest.raises(runtime.FoldError, match="unknown feature 'wings'"):
        runtime.fold("if FEATURE_LEVELS:\n    if FEATURE_WINGS:\n        x = 1\n", set())


# ---------------------------------------------------------------- the source engines carry
@pytest.mark.parametrize(
    "features", [set(), runtime.FEATURES] + [{f} for f in sorted(runtime.FEATURES)]
)
def test_source_is_standalone_python(features: set[str]) -> None:
    text = runtime.source(features)
    compile(text, "<runtime>", "exec")
    assert "FEATURE_" not in text
    assert "maf: omit" not in text and "maf: end omit" not in text
    assert "compiler" not in {
        (n.module or "").split(".")[0]
        for n in ast.walk(ast.parse(text))
        if isinstance(n, ast.ImportFrom)
    }
    assert not any(isinstance(n, ast.Import) for n in ast.walk(ast.parse(text)))
    # the two `kill` signatures: one per engine
    assert text.count("    def kill(") == 1
    kill = text.split("    def kill(")[1].split("\n")[0]
    assert ("attack: int = 1" in kill) == ("levels" in features)
    assert ("ANY_DEATH" in text) == ("any_deaths" in features)
    assert ("HOOKS_DAWN" in text) == ("hook_dawn" in features)


def test_engines_carry_no_compiler_import() -> None:
    for path in sorted((ROOT / "generated").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        mods = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        mods |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not any((m or "").startswith(("maf", "compiler", "dsl")) for m in mods), path
        assert "FEATURE_" not in path.read_text(encoding="utf-8"), path


def test_spec_declares_each_feature_once_and_on() -> None:
    flags = {n: v for n, v in vars(spec).items() if n.startswith("FEATURE_")}
    assert set(flags) == {f"FEATURE_{f.upper()}" for f in runtime.FEATURES}
    assert all(v is True for v in flags.values())  # the package is the largest runtime


def test_engine_annotations_resolve() -> None:
    """The runtime's annotations name only what an engine imports or defines (they are lazy
    strings in an engine, but tools and typing.get_type_hints read them)."""
    import inspect
    import typing

    from maf.compiler.driver import import_generated

    engine = import_generated(ROOT / "generated" / "tos.py")
    hints = 0
    for cls in (engine.Game, engine._BotApi):
        hints += len(typing.get_type_hints(cls))
        for _, fn in inspect.getmembers(cls, inspect.isfunction):
            hints += len(typing.get_type_hints(fn, vars(engine)))
    for name in ("check_state", "expand_action", "_short", "_copy"):
        hints += len(typing.get_type_hints(getattr(engine, name)))
    assert hints > 200
