"""Hostile input (issue 13): every reproducer of a silent miscompile, an engine that does not
import, or a traceback, kept as a regression test. The fuzz suite (tests/fuzz/) hunts for new ones.
"""
import keyword

import pytest

from maf.compiler.driver import compile_source, load_engine
from maf.compiler.backend.pycode import const, ident, unident
from maf.dsl.diagnostics import CompileError

from tests.test_diagnostics import BASE  # the same small valid spec


def engine(src: str, name: str = "demo"):
    out = compile_source(src, f"{name}.maf")
    return out, load_engine(out.python, name)


def errors(src: str) -> list:
    with pytest.raises(CompileError) as info:
        compile_source(src, "demo.maf")
    return info.value.diagnostics


# ------------------------------------------------------------------ names are injective
NAMES = ["boss", "if", "if_", "a_b.c", "a.b_c", "", "_", "__", "None", "none", "9lives", "a.",
         "a_0", "a_x41_", "A", "x);import os;(", "رئیس", "__class__", "match", "_e", "e", "type"]


@pytest.mark.parametrize("name", NAMES)
def test_ident_round_trips(name):
    got = ident(name)
    assert got.isidentifier() and got.isascii()
    assert not keyword.iskeyword(got) and not keyword.issoftkeyword(got)
    assert unident(got) == name
    assert const("R", name).isidentifier()


def test_ident_is_injective_on_a_sample():
    seen = {}
    pool = NAMES + [a + sep + b for a in ("a", "a_", "_a", "if", "a.b") for sep in ("_", ".", "__")
                    for b in ("b", "_b", "b_", "0", "if")]
    for n in pool:
        for prefix in ("R", "A"):
            key = const(prefix, n)
            assert seen.setdefault(key, n) == n, (key, n, seen[key])


def test_ability_ids_a_b_dot_c_and_a_dot_b_c_run_their_own_bodies():
    # issue 13: `a_b.c` and `a.b_c` both became `_run_a_b_c`
    src = BASE.replace("""role citizen in city { name fa "شهروند" en "Citizen" }""", """\
role citizen in city { name fa "شهروند" en "Citizen" }
role a_b in city {
  name fa "ا" en "AB"
  ability c at night { target x: alive(x)
    tell "from a_b.c" }
}
role a in city {
  name fa "ب" en "A"
  ability b_c at night { target x: alive(x)
    tell "from a.b_c" }
}""").replace("setup 5..8: godfather, citizen * rest",
              "setup 5..8: godfather, a_b, a, citizen * rest")
    _, mod = engine(src)
    assert len({f.__name__ for f in mod.RUN}) == len(mod.ABILITIES)
    g = mod.Game.new(["godfather", "a_b", "a", "citizen", "citizen"])
    rep = g.resolve_night([[2, "c", 4], [3, "b_c", 4]])
    assert rep["private"] == {2: ["from a_b.c"], 3: ["from a.b_c"]}


def test_roles_if_and_if_underscore_are_distinct():
    # issue 13: roles `if` and `if_` both became R_IF_, so `living_role(if)` never fired
    src = BASE.replace("""role citizen in city { name fa "شهروند" en "Citizen" }""", """\
role citizen in city { name fa "شهروند" en "Citizen" }
role if alone { name fa "ا" en "If" }
role if_ alone { name fa "ب" en "If_" }""").replace(
        "setup 5..8: godfather, citizen * rest", "setup 5..8: godfather, if, if_, citizen * rest"
    ).replace("win city when living(mafia) == 0",
              "win if when living_role(if_) == 0\nwin city when living(mafia) == 0")
    _, mod = engine(src)
    assert mod.R_IF_ != mod.R_IF__
    g = mod.Game.new(["godfather", "if", "if_", "citizen", "citizen"])
    g.resolve_night([[1, "shoot", 3]])
    assert g.winner == "if"


def test_card_id_clash_is_a_diagnostic_naming_both_places():
    # issue 13: role `card` + ability `zap` next to a card `zap` gave two abilities `card.zap`
    src = BASE.replace("""role citizen in city { name fa "شهروند" en "Citizen" }""", """\
role citizen in city { name fa "شهروند" en "Citizen" }
role card in city {
  name fa "ک" en "Card"
  ability zap at night { target x: alive(x)
    tell "role" }
}
card zap {
  name fa "ز" en "Zap"
  tell "card"
}""").replace("setup 5..8: godfather, citizen * rest", "setup 5..8: godfather, card, citizen * rest")
    diags = errors(src)
    clash = [d for d in diags if "card.zap" in d.message]
    assert len(clash) == 1 and clash[0].code == "E010"
    lines = src.splitlines()
    assert lines[clash[0].span.line - 1].startswith("card zap")
    assert "ability zap" in lines[clash[0].notes[0][1].line - 1]


# ------------------------------------------------------------------ what compiles also imports
from maf.dsl import limits# noqa: E402

ABILITY = """\
role citizen in city {
  name fa "شهروند" en "Citizen"
  ability look at night {
    target x: alive(x)
BODY
  }
}"""


def with_body(body: str) -> str:
    return BASE.replace("""role citizen in city { name fa "شهروند" en "Citizen" }""",
                        ABILITY.replace("BODY", body))


def with_win(cond: str) -> str:
    return BASE.replace("win city when living(mafia) == 0", f"win city when {cond}")


def nested_clamp(depth: int) -> str:
    """An int expression `depth` levels deep whose Python code nests two brackets per level."""
    e = "1"
    for _ in range(depth - 1):
        e = f"clamp({e}, 0, 5)"
    return e


def nested_not(depth: int) -> str:
    e = "alive(1)" if False else "true"
    for _ in range(depth - 1):
        e = f"not ({e})"
    return e


def nested_blocks(depth: int, kind: str) -> str:
    lines, var = [], 0
    for k in range(depth):
        if kind == "each":
            lines.append("  " * k + f"each y{k}: alive(y{k}) {{")
        else:
            lines.append("  " * k + "if alive(x) {")
    lines.append("  " * depth + 'tell "deep"')
    lines += ["  " * k + "}" for k in reversed(range(depth))]
    return "\n".join(lines)


def imports(src: str):
    out = compile_source(src, "deep.maf")
    return load_engine(out.python, "deep")


AT_LIMIT = {
    "clamp": lambda n: with_win(f"{nested_clamp(n - 1)} == 0"),
    "not": lambda n: with_win(nested_not(n)),
    "if": lambda n: with_body(nested_blocks(n, "if")),
    "each": lambda n: with_body(nested_blocks(n, "each")),
    "and-chain": lambda n: with_win(" and ".join(["living(mafia) == 0"] * n)),
    "plus-chain": lambda n: with_win(" + ".join(["living(mafia)"] * n) + " == 0"),
    "minus-chain": lambda n: with_win(" - ".join(["living(mafia)"] * n) + " == 0"),
    "div-chain": lambda n: with_win(" / ".join(["living(mafia)"] * n) + " == 0"),
}
LIMIT = {"clamp": limits.MAX_EXPR_DEPTH, "not": limits.MAX_EXPR_DEPTH,
         "if": limits.MAX_BLOCK_DEPTH, "each": limits.MAX_EACH_DEPTH,
         "and-chain": limits.MAX_TREE_DEPTH - 4, "plus-chain": limits.MAX_TREE_DEPTH - 4,
         "minus-chain": limits.MAX_TREE_DEPTH - 4, "div-chain": limits.MAX_EXPR_DEPTH - 2}


@pytest.mark.parametrize("kind", sorted(AT_LIMIT))
def test_nesting_at_the_limit_compiles_checks_and_imports(kind):
    from maf.compiler.verify.check import check_source  # noqa: PLC0415
    src = AT_LIMIT[kind](LIMIT[kind])
    mod = imports(src)
    g = mod.Game.new(["godfather"] + ["citizen"] * 4)
    g.resolve_night([[1, "shoot", 2]])
    check_source(src, "deep.maf")  # the checker walks the same trees: no RecursionError


@pytest.mark.parametrize("kind,over", [("clamp", 1), ("not", 1), ("if", 1), ("each", 1),
                                       ("and-chain", 8), ("plus-chain", 8), ("div-chain", 1),
                                       ("if", 200), ("and-chain", 3000), ("not", 600)])
def test_nesting_past_the_limit_is_e004_with_a_span(kind, over):
    src = AT_LIMIT[kind](LIMIT[kind] + over)
    diags = errors(src)
    assert [d.code for d in diags] == ["E004"]
    assert diags[0].span.line > 1 and diags[0].span.file == "demo.maf"


def test_issue_reproducers_200_deep_expression_and_99_nested_ifs():
    for src in (with_win(nested_not(200)), with_body(nested_blocks(99, "if"))):
        assert errors(src)[0].code == "E004"


def test_card_with_a_parameter_twice_is_e010():
    for params in ("target x: alive(x)\n  target x: alive(x)",
                   "target x: alive(x)\n  choose x: role",
                   "choose r: role\n  choose r: team",
                   "target self: alive(self)"):
        src = BASE + f'card zap {{\n  name fa "ز" en "Zap"\n  {params}\n  tell "z"\n}}\n'
        diags = errors(src)
        assert any(d.code == "E010" for d in diags), (params, diags)


# ------------------------------------------------------------------ `maf run` on hostile files
import io  # noqa: E402
import re  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402

from maf.compiler.tools import cli

from maf.compiler.tools import scenario# noqa: E402

SEATS = ["boss", "nato", "trickster", "doctor", "detective", "bulletproof", "interrogator",
         "researcher", "citizen", "citizen"]
HEAD = "spec: bazpors\nseats: [" + ", ".join(SEATS) + "]\n"
BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n" for p, c in zip("abcdefgh", "bcdefghi"))

HOSTILE_FILES = {
    "seed-word": HEAD + "seed: abc\nsteps: []\n",
    "seed-inf": HEAD + "seed: .inf\nsteps: []\n",
    "seed-list": HEAD + "seed: [1]\nsteps: []\n",
    "seed-date": HEAD + "seed: 2020-01-01\nsteps: []\n",
    "seed-bool": HEAD + "seed: true\nsteps: []\n",
    "seed-5000-digits": HEAD + "seed: " + "9" * 5000 + "\nsteps: []\n",
    "cards-text": HEAD + "cards: maybe\nsteps: []\n",
    "setup-list": HEAD + "setup: [a]\nsteps: []\n",
    "nested-1000": HEAD + "steps: " + "[" * 1000 + "]" * 1000 + "\n",
    "alias-bomb": HEAD + BOMB + "steps: [{night: *i}]\n",
    "alias-self": HEAD + "steps: &s [*s]\n",
    "spec-id-300": "spec: " + "a" * 300 + "\nseats: [x]\nsteps: []\n",
    "spec-id-unicode": "spec: bazpörs\nseats: [x]\nsteps: []\n",
    "spec-number": "spec: 5\nseats: [x]\nsteps: []\n",
    "not-yaml": "spec: [\n",
    "tab-in-yaml": "spec:\tbazpors\n\t- x\n",
    "bad-binary": HEAD + "steps: [{night: !!binary '***'}]\n",
    "bad-timestamp": HEAD + "seed: !!timestamp 'nope'\nsteps: []\n",
    "python-object": HEAD + "steps: !!python/object/apply:os.system ['echo pwned']\n",
    "bom": "\ufeff" + HEAD + "steps: [{kill: 1, expect: {deaths: [1]}}, {kill: 1}]\n",
}


def run_cli(tmp_path, text, *extra):
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = cli.main(["run", str(path), *extra])
    finally:
        sys.stdout, sys.stderr = old
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("name", sorted(HOSTILE_FILES))
@pytest.mark.parametrize("as_json", [False, True])
def test_hostile_scenario_file_is_one_line_and_exit_2(tmp_path, name, as_json):
    code, out, err = run_cli(tmp_path, HOSTILE_FILES[name], *(["--json"] if as_json else []))
    if name == "bom":  # a BOM is just a BOM: the file runs (and its second kill is illegal)
        assert code == 1 and "Traceback" not in err
        return
    assert code == 2, (code, out, err)
    shown = re.sub(r"(?m)^ *\d+ \| .*$", "", out + err)  # less the file's own line under a caret
    assert "Traceback" not in shown and "pwned" not in shown
    if as_json:
        assert json.loads(out)["error"]["reason"]
    else:
        # a diagnostic (issue 24): `FILE: error[Sxxx]: ...` or `FILE:LINE:COL: error[Sxxx]: ...`
        assert re.match(r"\S+?(:\d+:\d+)?: error\[S\d{3}\]: ", err) and len(err) < 2000, err


def test_values_json_cannot_hold_are_written_as_their_repr():
    # issue 13: a YAML date or !!binary bytes reached json.dumps under --json
    import datetime  # noqa: PLC0415
    data = {"error": {"ability": datetime.date(2020, 1, 1), "seat": b"\x00" * 10_000}}
    text = json.dumps(data, default=cli._json_default)
    assert "2020" in text and len(text) < 300


def test_alias_bomb_is_refused_before_it_expands():
    with pytest.raises(scenario.ScenarioError, match="expands to more than"):
        scenario.parse_yaml(BOMB, "bomb.yaml")
    with pytest.raises(scenario.ScenarioError, match="aliases"):
        scenario.parse_yaml("a: &a [1]\nb: [" + ", ".join(["*a"] * 101) + "]\n", "many.yaml")


class _ClosedPipe(io.StringIO):
    def write(self, s):
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self):
        raise io.UnsupportedOperation("no fileno")


@pytest.mark.parametrize("args", [["run", "tests/scenarios/bazpors/night_kill.yaml", "--json"],
                                  ["compile", "specs/online.maf"]])
def test_a_closed_pipe_ends_quietly(args, capsys):
    # issue 13: `maf run --json | head` gave BrokenPipeError
    old = sys.stdout
    sys.stdout = _ClosedPipe()
    try:
        code = cli.main(args)
    finally:
        sys.stdout = old
    assert code == 141
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.slow
def test_a_closed_pipe_in_a_real_pipeline():
    import subprocess  # noqa: PLC0415
    proc = subprocess.Popen([sys.executable, "-m", "maf.compiler.tools.cli", "compile", "specs/classic.maf"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert "Traceback" not in err and "BrokenPipe" not in err, err


@pytest.mark.parametrize("actions", [[[1, ["kill"], 2]], None, 5, "ab", {1: 2}, [None], [[1]],
                                     [[1, {}, 2]], [[1, "x", {}]], [[2 ** 100, "x"]]])
def test_resolve_night_malformed_actions_are_illegal_and_change_nothing(actions):
    from maf.compiler.driver import import_generated  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415
    mod = import_generated(Path("generated/bazpors.py"))
    g = mod.Game.new(SEATS)
    if g.phase == "day":
        g.resolve_day()
    before = g.to_json()
    with pytest.raises(mod.IllegalAction):
        g.resolve_night(actions)
    assert g.to_json() == before


# ------------------------------------------------------------------ positions
TERMINATORS = ["\u2028", "\u2029", "\f", "\v", "\x1c", "\x1d", "\x1e", "\x85"]


@pytest.mark.parametrize("ch", TERMINATORS, ids=[hex(ord(c)) for c in TERMINATORS])
def test_line_terminators_in_comments_keep_diagnostic_lines(ch):
    # issue 13: a U+2028 or form feed inside a comment shifted the quoted source lines
    src = f"// a comment {ch} with a line break the parser does not count\n" + edit_win(
        "win city when living(mafia) == 0", "win city when living(mafai) == 0")
    diags = errors(src)
    text = CompileError(diags, {"demo.maf": src}).render()
    assert "living(mafai)" in text.splitlines()[1], text
    assert diags[0].span.line == src.split("\n").index("win city when living(mafai) == 0") + 1


def edit_win(old, new):
    return BASE.replace(old, new)


@pytest.mark.parametrize("ch", TERMINATORS, ids=[hex(ord(c)) for c in TERMINATORS])
def test_line_terminators_keep_engine_spec_lines(ch):
    src = f"// {ch} {ch}\n" + BASE.replace("team city ", f"// x{ch}y\nteam city ")
    out = compile_source(src, "demo.maf")
    lines = src.split("\n")
    import re  # noqa: PLC0415
    refs = re.findall(r"# demo\.maf:(\d+): (.*)$", out.python, re.M)
    assert refs
    for num, quote in refs:
        assert lines[int(num) - 1].split("//")[0].strip() == quote
    mod = load_engine(out.python, "demo")
    assert mod.FILTER_TEXT[0] == ("target x: alive(x) and team(x) != mafia",)


def test_bom_is_accepted_by_every_command(tmp_path, capsys):
    from maf.compiler.verify.check import run_checks  # noqa: PLC0415
    from maf.compiler.driver import compile_file  # noqa: PLC0415
    # names of one length: the engines' layout (lines wrapped at 100 columns) is then the same
    plain, bom = tmp_path / "pln.maf", tmp_path / "bom.maf"
    plain.write_text(BASE, encoding="utf-8")
    bom.write_text("\ufeff" + BASE, encoding="utf-8")
    assert compile_file(bom).python.replace("bom.maf", "pln.maf") == compile_file(plain).python
    assert compile_source("\ufeff" + BASE, "x.maf").python == compile_source(BASE, "x.maf").python
    # issue 13: `maf check` rejected a BOM with E001; now it reports what it reports without one
    assert run_checks([str(bom)], "text") == run_checks([str(plain)], "text")
    out = capsys.readouterr().out
    assert "E001" not in out
    assert out.replace("bom.maf", "pln.maf").count("K004") == 2
    broken = "\ufeff" + BASE.replace("living(mafia) == 0", "living(mafai) == 0")
    bad = tmp_path / "bad.maf"
    bad.write_text(broken, encoding="utf-8")
    with pytest.raises(CompileError) as info:
        compile_file(bad)
    d = info.value.diagnostics[0]
    assert d.code == "E020" and d.span.col == broken.split("\n")[d.span.line - 1].index("mafai") + 1


@pytest.mark.parametrize("eol", ["\r\n", "\r"])
def test_cr_line_ends_count_alike_from_text_and_from_a_file(tmp_path, eol):
    from maf.compiler.driver import compile_file  # noqa: PLC0415
    src = BASE.replace("living(mafia) == 0", "living(mafai) == 0").replace("\n", eol)
    path = tmp_path / "cr.maf"
    path.write_bytes(src.encode())
    with pytest.raises(CompileError) as a:
        compile_file(path)
    with pytest.raises(CompileError) as b:
        compile_source(src, "demo.maf")
    spans = lambda e: [(d.span.line, d.span.col) for d in e.value.diagnostics]  # noqa: E731
    assert spans(a) == spans(b)
    assert "living(mafai)" in b.value.render().splitlines()[1]


def test_a_number_too_long_is_e005():
    # a 5,000-digit number raised ValueError inside the parser
    diags = errors(BASE.replace("players 5..8", "players 5.." + "9" * 5000))
    assert [d.code for d in diags] == ["E005"] and diags[0].span.line == 3
