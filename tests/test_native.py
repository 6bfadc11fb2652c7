"""`maf build --native` (compiler/backend/native.py) around the compile itself: the declarations it
derives, the one-line fallback without a C compiler, the choice of specs. The native engine's
behaviour is tested against the interpreter in tests/test_differential.py."""
import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from maf.compiler.backend import native

ROOT = Path(__file__).resolve().parents[1]


def test_declarations_make_the_game_an_extension_type():
    pxd = native.declarations((ROOT / "generated" / "bazpors.py").read_text(encoding="utf-8"))
    lines = pxd.splitlines()
    assert "cdef class Game(_BotApi):" in lines and "cdef class _BotApi:" in lines
    for slot in ("alive", "role", "pending", "_deaths"):
        assert f"    cdef public object {slot}" in lines
    assert "cpdef _night_fast(Game g, actions, number)" in lines
    assert "cpdef _vote_threshold(Game g, defenders=*)" in lines  # defaults kept
    assert not any("_vote_timers" in line for line in lines)  # called via `(f if c else h)(g)`
    assert "import cython" not in (ROOT / "generated" / "bazpors.py").read_text(encoding="utf-8")


def test_an_unknown_shape_is_compiled_as_python():
    pxd = native.declarations("class Game:\n    pass\n\ndef f(g):\n    return g.x\n")
    assert "cdef" not in pxd and "compiled as Python" in pxd


def test_without_a_c_compiler_one_line_and_the_build_goes_on(tmp_path):
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "rounding.maf").write_text(
        (ROOT / "tests/scenarios/rounding/rounding.maf").read_text(encoding="utf-8"),
        encoding="utf-8")
    env = {**os.environ, "NO_COLOR": "1", "CC": str(tmp_path / "no-such-cc")}
    r = subprocess.run([sys.executable, "-m", "maf.compiler.tools.cli", "build", str(tmp_path), "--no-check",
                        "--native"], capture_output=True, text=True, cwd=ROOT, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "generated" / "rounding.py").is_file()
    said = [line for line in r.stdout.splitlines() if "--native" in line]
    assert len(said) == 1 and said[0].startswith("maf build --native: ")
    assert said[0].endswith("; the pure-Python engines are built")
    if native.unavailable() is None or "Cython" not in native.unavailable():
        assert f"no C compiler found ({tmp_path / 'no-such-cc'})" in said[0]
    assert not list((tmp_path / "generated").glob("*native*"))


def test_asking_for_a_spec_outside_the_project_fails(tmp_path):
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "rounding.maf").write_text(
        (ROOT / "tests/scenarios/rounding/rounding.maf").read_text(encoding="utf-8"),
        encoding="utf-8")
    env = {**os.environ, "NO_COLOR": "1", "CC": str(tmp_path / "no-such-cc")}
    r = subprocess.run([sys.executable, "-m", "maf.compiler.tools.cli", "build", str(tmp_path), "--no-check",
                        "--native", str(tmp_path / "other.maf")], capture_output=True, text=True,
                       cwd=ROOT, env=env, timeout=120)
    assert r.returncode == 1
    assert f"{tmp_path / 'other.maf'} is not a spec of" in r.stderr


def test_the_mixins_type_only_block_is_blanked_and_lines_kept():
    source = (ROOT / "generated" / "bazpors.py").read_text(encoding="utf-8")
    compiled = native.cython_source(source)
    assert compiled.count("\n") == source.count("\n")
    before, after = source.split("\n"), compiled.split("\n")
    changed = [k for k, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    assert changed and all(after[k] == "" for k in changed)
    assert before[changed[0]].strip() == "if TYPE_CHECKING:"
    assert "class _BotApi" in "\n".join(before[changed[0] - 8 : changed[0]])
    # Game's own block stays (each name there is a slot the .pxd declares)
    assert compiled.count("if TYPE_CHECKING:") == source.count("if TYPE_CHECKING:") - 1 >= 1


# ---------------------------------------------------------------- typed integer locals
GAME = "class Game:\n    __slots__ = ('n',)\n\n"
SEATS = "T = (-1, *range(1, 257))\n"


def typed_locals(pxd: str, fn: str) -> set[str] | None:
    """The C-typed locals the .pxd declares for `fn` (None: `fn` is not a cpdef function)."""
    lines = pxd.splitlines()
    for k, line in enumerate(lines):
        if line.startswith(f"cpdef {fn}("):
            above = lines[k - 1] if k else ""
            if not above.startswith("@cython.locals("):
                return set()
            inner = above[len("@cython.locals("):-1]
            decls = [d.split("=") for d in inner.split(", ")]
            assert all(t == native.LOCAL_INT for _, t in decls), above
            return {n for n, _ in decls}
    return None


def typed(body: str, consts: str = SEATS) -> set[str]:
    """The typed locals of `def f(g, xs, c):` with `body` (indented by 4), in a module with the
    game class and `consts`."""
    source = GAME + consts + "\n\ndef f(g, xs, c):\n" + body
    result = typed_locals(native.declarations(source), "f")
    assert result is not None
    return result


def test_the_compiled_night_declares_typed_integer_locals():
    source = (ROOT / "generated" / "bazpors.py").read_text(encoding="utf-8")
    pxd = native.declarations(source)
    assert "cimport cython" in pxd.splitlines()
    night = typed_locals(pxd, "_night_fast")
    assert night is not None
    # each ability's actor and first target tonight, and the dispatched ability's index
    assert {"a0", "t0_0", "a8", "t8_0", "k"} <= night, night
    # near misses, found in the source: a name bound by unpacking an action (checked only
    # after it is bound) or by a call's result (`h0 = _fn_holder(...)`, though it starts as
    # an int constant like the typed ones) stays an object
    fn = next(n for n in ast.parse(source).body
              if isinstance(n, ast.FunctionDef) and n.name == "_night_fast")
    unpacked = {n.id for a in ast.walk(fn)
                if isinstance(a, ast.Assign) and isinstance(a.value, ast.Name)  # `... = raw`
                for t in a.targets if isinstance(t, ast.Tuple)
                for n in ast.walk(t) if isinstance(n, ast.Name)}
    from_calls = {t.id for a in ast.walk(fn) if isinstance(a, ast.Assign)
                  and isinstance(a.value, ast.Call) for t in a.targets if isinstance(t, ast.Name)}
    assert {"t", "t1_1", "c2_0"} <= unpacked and "h0" in from_calls
    assert night.isdisjoint(unpacked | from_calls | {"actor", "raw", "name", "number"})
    # every typed name is a local of the function
    assert night <= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}


def test_a_local_is_typed_only_past_a_check_of_every_value():
    guarded = ("    a = 0\n    for x in xs:\n        if T[x] is not x or c:\n"
               "            return None\n        a = x\n    return a * 5 + 2\n")
    assert typed(guarded) == {"a"}
    # the value before its check
    assert typed("    a = 0\n    for x in xs:\n        a = x\n        if T[x] is not x:\n"
                 "            return None\n    return a\n") == set()
    # checked on one branch only
    assert typed("    a = 0\n    x = xs[0]\n    if c:\n        if T[x] is not x:\n"
                 "            return None\n    a = x\n    return a\n") == set()
    # bound again between the check and the assignment
    assert typed("    a = 0\n    x = xs[0]\n    if T[x] is not x:\n        return None\n"
                 "    x = xs[1]\n    a = x\n    return a\n") == set()
    # bound again in the loop, after the check before it
    assert typed("    a = 0\n    x = xs[0]\n    if T[x] is not x:\n        return None\n"
                 "    for y in xs:\n        a = x\n        x = y\n    return a\n") == set()
    # the guard does not leave on failure
    assert typed("    a = 0\n    x = xs[0]\n    if T[x] is not x:\n        c = 1\n"
                 "    a = x\n    return a\n") == set()
    # a value of no known bounds: an item of the input, a call, True
    assert typed("    a = 0\n    a = xs[0]\n    return a\n") == set()
    assert typed("    a = 0\n    a = len(xs)\n    return a\n") == set()
    assert typed("    a = 0\n    if c:\n        a = True\n    return a\n") == set()


def test_a_typed_local_keeps_python_semantics():
    assert typed("    a = 1\n    b = a\n    return b * 3 - a\n") == {"a", "b"}
    # beyond the small ints CPython shares (a boxed value would be a new object)
    assert typed("    a = 257\n    return a\n") == set()
    # read where it may be unbound (Python raises UnboundLocalError, a C int would not)
    assert typed("    if c:\n        a = 1\n    return a\n") == set()
    assert typed("    for x in xs:\n        if c:\n            return a\n        a = 1\n") == set()
    # an operand of `is`, of `//`, `%`, `/`, `**`, a shift, or of arithmetic with an object
    for expr in ("a is c", "a // 2", "a % 2", "a / 2", "a ** 2", "a << 2", "a + c", "-a * c"):
        assert typed(f"    a = 1\n    return {expr}\n") == set(), expr
    # arithmetic that could leave a C integer's range (bounds 0..256: 256 ** 4 > 2 ** 31)
    assert typed("    a = 256\n    return a * a * a\n") == {"a"}
    assert typed("    a = 256\n    return a * a * a * a\n") == set()
    # a loop's target, an unpacked name, an augmented assignment, a deleted name
    for body in ("    a = 0\n    for a in xs:\n        pass\n    return a\n",
                 "    a = 0\n    a, b = xs\n    return a\n",
                 "    a = 0\n    a += 1\n    return a\n",
                 "    a = 0\n    del a\n    return 1\n"):
        assert typed(body) == set(), body


def test_int_tables_must_be_read_only_down_to_an_int():
    table = "TAB = ({'x': 0, 'y': 3}, {}, {'z': -1})\n"
    read = "    k = 0\n    for x in xs:\n        k = TAB[x][c]\n    return k\n"
    assert typed(read, table) == {"k"}
    assert typed("    k = 0\n    k = TAB[0]\n    return k\n", table) == set()  # a dict
    # the table escapes, is written or rebound somewhere: its values are not known
    for elsewhere in ("def h():\n    return TAB[0]\n", "def h():\n    TAB[0]['x'] = 300\n",
                      "def h():\n    global TAB\n    TAB = ()\n", "TAB = ({'x': 1},)\n",
                      "def h(TAB):\n    return TAB[0]['x']\n"):
        assert typed(read, table + elsewhere) == set(), elsewhere
    # not ints all through: a bool, a string, an int beyond the small ints
    for bad in ("TAB = ({'x': True},)\n", "TAB = ({'x': 'a'},)\n", "TAB = ({'x': 300},)\n"):
        assert typed(read, bad) == set(), bad
    # an identity table must hold small ints too, and be read by item only
    assert typed("    a = 0\n    x = xs[0]\n    if T[x] is not x:\n        return None\n"
                 "    a = x\n    return a\n", "T = tuple(range(300))\n") == set()
    assert typed("    a = 0\n    x = xs[0]\n    if T[x] is not x:\n        return None\n"
                 "    a = x\n    return a\n", SEATS + "U = T\n") == set()


class _Seat(int):
    """An int subclass: `_FN_SEAT[x] is x` refuses it, a C conversion would not."""


class _Index:
    """Not an int, but convertible to one (`__index__`), as a C conversion would take it."""

    def __index__(self) -> int:
        return 2


@pytest.mark.slow
def test_the_typed_native_night_meets_malformed_actions_as_python(tmp_path):
    """The native engine with its typed locals, on nights whose seats are no small int (a
    bool, an int subclass, an `__index__` object, huge or negative numbers, a float, a str):
    the compiled night declines the same nights as the pure-Python one, and the generic
    resolver gives the same report or names the same error. Built here at -O0."""
    import pytest

    from maf.compiler.driver import compile_file, import_generated

    why = native.unavailable()
    if why is not None:
        pytest.skip(f"no native build here: {why}")
    engine = tmp_path / "bazpors.py"
    engine.write_text(compile_file(ROOT / "specs" / "bazpors.maf").python, encoding="utf-8")
    so, _ = native.build(engine, tmp_path / "build", opt="-O0")
    c_source = (tmp_path / "build" / "bazpors_native.c").read_text(encoding="utf-8")
    night_c = c_source[c_source.index("__pyx_f_14bazpors_native__night_fast(struct __pyx_obj_14"
                                       "bazpors_native_Game *__pyx_v_g"):]
    night_c = night_c[: night_c.index("\n}\n")]
    for name in ("a0", "t0_0", "k"):  # the declarations reached the C
        assert f"  Py_ssize_t __pyx_v_{name};" in night_c, name
    assert "  PyObject *__pyx_v_actor = NULL;" in night_c
    engines = {"python": import_generated(engine), "native": native.load(so)}
    assert type(engines["native"].Game.resolve_night).__name__ != "function"
    seats = ["boss", "nato", "trickster", "interrogator", "doctor", "detective", "bulletproof",
             "researcher", "citizen", "citizen"]
    legal = [[1, "shoot", 5], [3, "trick", 6], [5, "save", 5], [6, "inquire", 1],
             [8, "link", 2], [2, "guess", 4, "interrogator"], [4, "interrogate", 2, 3]]
    odd = [True, False, _Seat(3), _Index(), 0, -1, 257, 2**70, -(2**70), 2**63, 3.0, "3", None]
    nights = [legal]
    for k, action in enumerate(legal):
        for pos in range(len(action)):
            if pos == 1:
                continue
            for value in odd:
                bad = [list(a) for a in legal]
                bad[k][pos] = value
                nights.append(bad)
    nights.append([[1, type("Name", (str,), {})("shoot"), 5]])
    outcomes: dict[str, list] = {}
    for which, eng in engines.items():
        declined: list[bool] = []
        fast = eng.FAST_NIGHT
        assert fast is not None

        def counted(g, actions, number, fast=fast, declined=declined):
            report = fast(g, actions, number)
            declined.append(report is None)
            return report

        eng.FAST_NIGHT = counted
        try:
            out = []
            for actions in nights:
                g = eng.Game.new(seats, seed=1)
                g.resolve_day()
                g.resolve_night([])
                g.resolve_day()
                try:
                    out.append(("report", g.resolve_night(actions), g.to_json()))
                except eng.IllegalAction as e:
                    out.append(("illegal", e.seat, e.ability, e.rule, e.reason, g.to_json()))
        finally:
            eng.FAST_NIGHT = fast
        outcomes[which] = [out, declined]
    assert outcomes["native"][1] == outcomes["python"][1]  # the same nights declined
    assert outcomes["native"][0] == outcomes["python"][0]
    python_out = outcomes["python"][0]
    assert python_out[0][0] == "report" and sum(o[0] == "illegal" for o in python_out) > 50


def test_no_local_becomes_a_c_integer_by_cythons_inference_from_a_typed_one():
    # Cython infers a C type for a local assigned only C values: `b` (maybe unbound) would
    # become one from `a`, so `a` stays an object too; a tuple of it is an object
    assert typed("    a = 1\n    if c:\n        b = a\n    return b\n") == set()
    assert typed("    a = 1\n    if c:\n        b = a == 1\n    return b\n") == set()
    assert typed("    a = 1\n    for i in range(a):\n        pass\n    return 0\n") == set()
    assert typed("    a = 1\n    b = (a, 0)\n    for i in sorted(xs[a]):\n        pass\n"
                 "    return b\n") == {"a"}


def test_names_unpacked_from_a_constant_tuple_or_a_display_are_typed_element_by_element():
    assert typed("    a, b = (0,) * 2 + (-1,)\n    return a\n") == set()  # 3 values for 2
    assert typed("    a, b, h = (0,) * 2 + (-1,)\n    xs[a * 5] = h\n    return b\n") == {
        "a", "b", "h"}
    assert typed("    a, b = 0, 1\n    return a - b\n") == {"a", "b"}
    assert typed("    a, b = 0, xs\n    return a\n") == {"a"}
    assert typed("    a, b = (0, 300)\n    return a\n") == {"a"}  # 300: b stays an object


def test_a_local_bound_on_both_branches_is_bound_after_them():
    table = "TAB = ({'x': 0}, {'y': 3})\nDEAD = ({'x': -1}, {})\n"
    both = ("    k = 0\n    for x in xs:\n        if c:\n            k = TAB[x][c]\n"
            "        else:\n            k = DEAD[x][c]\n        if k < 2:\n            return k\n")
    assert typed(both, table) == {"k"}
    first = both.replace("    k = 0\n", "")  # assigned on both branches only: still bound
    assert typed(first, table) == {"k"}
    jump = first.replace("k = DEAD[x][c]", "return None")  # or the branch never falls through
    assert typed(jump, table) == {"k"}
    one = first.replace("        else:\n            k = DEAD[x][c]\n", "")  # one branch only
    assert typed(one, table) == set()
