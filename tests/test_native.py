"""`maf build --native` (compiler/native.py) around the compile itself: the declarations it
derives, the one-line fallback without a C compiler, the choice of specs. The native engine's
behaviour is tested against the interpreter in tests/test_differential.py."""
import os
import subprocess
import sys
from pathlib import Path

from compiler import native

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
    r = subprocess.run([sys.executable, "-m", "compiler.cli", "build", str(tmp_path), "--no-check",
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
    r = subprocess.run([sys.executable, "-m", "compiler.cli", "build", str(tmp_path), "--no-check",
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
