"""`maf fmt`: canonical, idempotent, keeps comments, changes no meaning — over every spec."""
import dataclasses
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
