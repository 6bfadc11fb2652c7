"""`maf fmt`: canonical, idempotent, keeps comments, changes no meaning — over every spec."""
import dataclasses
import re
from pathlib import Path

import pytest

from maf.compiler.driver import compile_source
from maf.dsl.diagnostics import CompileError, Span
from maf.dsl.format import _lex, format_source

ROOT = Path(__file__).resolve().parents[1]
SPECS = sorted((ROOT / "specs").glob("*.maf")) + sorted(
    (ROOT / "tests" / "scenarios").rglob("*.maf"))
IDS = [p.relative_to(ROOT).as_posix() for p in SPECS]


def shape(x):
    """An IR value with every span dropped (formatting moves lines, nothing else)."""
    if isinstance(x, Span):
        return None
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return (type(x).__name__,) + tuple(shape(getattr(x, f.name))
                                           for f in dataclasses.fields(x))
    if isinstance(x, dict):
        return tuple(sorted(((repr(shape(k)), shape(v)) for k, v in x.items()), key=repr))
    if isinstance(x, (list, tuple)):
        return tuple(shape(v) for v in x)
    if isinstance(x, (set, frozenset)):
        return tuple(sorted((shape(v) for v in x), key=repr))
    return x


def comments(text):
    return [str(t).rstrip() for t in _lex(text) if t.type == "COMMENT"]


@pytest.mark.parametrize("path", SPECS, ids=IDS)
def test_formatting_is_idempotent_keeps_comments_and_the_ir(path):
    text = path.read_text(encoding="utf-8-sig")
    try:
        before = compile_source(text, "spec.maf", generate=False).program
    except CompileError:
        pytest.skip("a spec that does not compile (a negative test case)")
    once = format_source(text, path.name)
    twice = format_source(once, path.name)
    assert twice == once
    assert comments(once) == comments(text)
    after = compile_source(once, "spec.maf", generate=False).program
    assert shape(after) == shape(before)
    for line in once.splitlines():
        assert line == line.rstrip() and "\t" not in line[: len(line) - len(line.lstrip())]


MESSY = '''// head
game  g{name fa "x" en "y"
players 5 .. 9}


team a{ name fa "a" en "a"}   // trailing
team bb { name fa "b" en "b" } // aligned with the line above
win a when living(a)==0 and
 -1 < 2
cause shot
role r in a {

   name fa "r" en "r"
   ability s at night { target x : alive ( x )
     kill x by shot }


}
'''

CANONICAL = '''// head
game g {
  name fa "x" en "y"
  players 5..9
}

team a { name fa "a" en "a"}    // trailing
team bb { name fa "b" en "b" }  // aligned with the line above
win a when living(a) == 0 and
    -1 < 2
cause shot
role r in a {
  name fa "r" en "r"
  ability s at night {
    target x: alive(x)
    kill x by shot
  }
}
'''


def test_a_messy_spec_gets_the_canonical_layout():
    assert format_source(MESSY) == CANONICAL
    assert format_source(CANONICAL) == CANONICAL


def test_a_spec_that_does_not_parse_is_left_alone():
    with pytest.raises(CompileError) as e:
        format_source("game {", "bad.maf")
    assert e.value.diagnostics[0].code.startswith("E00")


def run(capsys, monkeypatch, *args, stdin=""):
    import io  # noqa: PLC0415

    from maf.compiler.tools import cli# noqa: PLC0415
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = cli.main(["fmt", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_fmt_command_check_then_rewrite(tmp_path, capsys, monkeypatch):
    spec = tmp_path / "messy.maf"
    spec.write_text(MESSY, encoding="utf-8")
    code, out, _ = run(capsys, monkeypatch, "--check", str(tmp_path))
    assert code == 1 and f"would reformat {spec.as_posix()}" in out
    assert spec.read_text(encoding="utf-8") == MESSY
    code, out, _ = run(capsys, monkeypatch, str(spec))
    assert code == 0 and spec.read_text(encoding="utf-8") == CANONICAL
    assert run(capsys, monkeypatch, "--check", str(spec))[0] == 0
    code, out, _ = run(capsys, monkeypatch, "-", stdin=MESSY)
    assert code == 0 and out == CANONICAL


def test_fmt_reports_syntax_errors_like_the_compiler(tmp_path, capsys, monkeypatch):
    bad = tmp_path / "bad.maf"
    bad.write_text("game g {\n  players 5..\n}\n", encoding="utf-8")
    code, _, err = run(capsys, monkeypatch, str(bad))
    assert code == 1 and "error[E00" in err and "Traceback" not in err


# ---------------------------------------------------------------- formatting is a contract
# Every .maf in the repo is what `maf fmt` makes of it (issue 24): specs, test specs, the docs'
# examples and the `maf new` scaffold; .ci/run also runs `maf fmt --check`. The fuzz corpus is
# left out: its files are hostile bytes kept as found (a BOM, lone `\r`, form feeds), and each
# is a test of the compiler's reading of exactly those bytes.
CORPUS = ROOT / "tests" / "fuzz" / "corpus"
REPO_SPECS = sorted(
    p for p in ROOT.rglob("*.maf")
    if CORPUS not in p.parents and not {".git", "build"} & set(p.relative_to(ROOT).parts)
    and p.parent != ROOT / "compiler" / "tools" / "templates" / "new"
)
DOC_BLOCK = re.compile(r"^```maf\n(.*?)^```", re.S | re.M)


def _doc_blocks():
    for doc in sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]:
        text = doc.read_text(encoding="utf-8")
        for m in DOC_BLOCK.finditer(text):
            yield f"{doc.relative_to(ROOT).as_posix()}:{text[: m.start()].count(chr(10)) + 2}", m[1]


DOC_BLOCKS = list(_doc_blocks())


def test_the_contract_covers_the_shipped_specs_and_the_docs():
    names = {p.relative_to(ROOT).as_posix() for p in REPO_SPECS}
    assert {"specs/classic.maf", "specs/tos.maf", "tests/simulate/vanilla.maf"} <= names
    assert len(names) > 100 and len(DOC_BLOCKS) >= 40


@pytest.mark.parametrize("path", REPO_SPECS, ids=[p.relative_to(ROOT).as_posix() for p in REPO_SPECS])
def test_every_spec_in_the_repo_is_formatted(path):
    text = path.read_text(encoding="utf-8")
    assert format_source(text, path.name) == text, f"run `maf fmt {path.relative_to(ROOT)}`"


@pytest.mark.parametrize("where,src", DOC_BLOCKS, ids=[w for w, _ in DOC_BLOCKS])
def test_every_maf_example_in_the_docs_is_formatted(where, src):
    assert format_source(src, where) == src, f"{where}: the example is not as `maf fmt` lays it out"


def test_the_new_scaffold_is_formatted(tmp_path, capsys, monkeypatch):
    from maf.compiler.tools import cli  # noqa: PLC0415

    monkeypatch.chdir(tmp_path)
    assert cli.main(["new", "demo"]) == 0
    capsys.readouterr()
    spec = tmp_path / "demo" / "specs" / "demo.maf"
    text = spec.read_text(encoding="utf-8")
    assert format_source(text) == text


def test_a_minus_after_a_keyword_used_as_a_name_subtracts():
    # `players` is a keyword (`players 5..9`) and a value: the minus after it subtracts, on a
    # line of its own or continued (it came out as `(players -4)`)
    src = CANONICAL.replace("win a when living(a) == 0 and\n    -1 < 2",
                            "win a when living(a) >= (players - 4) and\n"
                            "    living(a) < (players - 4) and -1 < 2 - -1")
    assert "(players - 4) and\n    living(a) < (players - 4) and -1 < 2 - -1" in src
    assert format_source(src) == src
    assert format_source(src.replace("players - 4", "players-4")) == src


@pytest.mark.parametrize("newline", ["\r", "\r\n"], ids=["lone-cr", "crlf"])
def test_cr_line_endings_are_line_ends(newline):
    # a lone `\r` ends a line for the compiler (it used to come out as one line)
    text = CANONICAL.replace("\n", newline)
    assert format_source(text) == CANONICAL


def test_statements_on_one_line_are_two_spaces_apart():
    src = CANONICAL.replace(
        "    target x: alive(x)\n    kill x by shot\n",
        "    target x: alive(x)  kill x by shot\n    if alive(x) { kill x by shot } else { }\n")
    assert format_source(src) == src
    squeezed = src.replace("alive(x)  kill", "alive(x) kill")
    assert format_source(squeezed) == src
    # one statement, or items of one statement (a set, a call), stay one space apart
    one = CANONICAL.replace("living(a) == 0 and", "role(self) in {r, r} and")
    assert format_source(one) == one
