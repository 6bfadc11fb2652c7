"""One registry of codes (issue 25): every code maf reports is in maf.dsl.codes, `maf explain`
works for each, and each explanation's broken example is reported with its code at the marked
line while the fixed one is not."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from maf.compiler.driver import compile_source
from maf.dsl.codes import REGISTRY, Code, examples, explanation, info
from maf.dsl.diagnostics import CompileError

ROOT = Path(__file__).resolve().parents[1]
NO_EXAMPLE = {Code.E000, Code.K000}  # no spec text shows them: an unreadable file, an unknown


def _marked_line(text: str, code: str) -> int:
    lines = [i for i, ln in enumerate(text.split("\n"), 1) if f"expect {code}" in ln]
    assert len(lines) == 1, f"the broken example of {code} marks {len(lines)} lines"
    return lines[0]


def _reported(text: str, code: Code) -> list[tuple[str, int]]:
    """(code, line) of everything reported on `text`: compile diagnostics, or the checks'
    findings when it compiles and `code` is a check's."""
    try:
        compiled = compile_source(text, "example.maf")
    except CompileError as e:
        return [(d.code, d.span.line) for d in e.diagnostics]
    if not code.startswith("K"):
        return []
    from maf.compiler.verify.check import check_program

    return [(f.code, f.span.line) for f in check_program(compiled.program, text, compiled.code)]


def test_every_code_is_registered_and_explained() -> None:
    assert set(REGISTRY) == set(Code)
    for code in Code:
        text = explanation(code)
        assert text.startswith(f"# {code}: {REGISTRY[code].title}"), code
        assert REGISTRY[code].anchor.startswith("docs/"), code
        assert set(examples(code)) == (set() if code in NO_EXAMPLE else {"broken", "fixed"})


def test_info_reads_any_spelling() -> None:
    assert info("e20") is REGISTRY[Code.E020]
    assert info(" K4 ") is REGISTRY[Code.K004]
    assert info("E999") is None and info("X001") is None and info("") is None


@pytest.mark.parametrize("code", [c for c in Code if c not in NO_EXAMPLE and c.startswith("E")])
def test_compile_examples(code: Code) -> None:
    ex = examples(code)
    assert (str(code), _marked_line(ex["broken"], code)) in _reported(ex["broken"], code)
    assert _reported(ex["fixed"], code) == []


@pytest.mark.slow
@pytest.mark.parametrize("code", [c for c in Code if c not in NO_EXAMPLE and c.startswith("K")])
def test_check_examples(code: Code) -> None:
    ex = examples(code)
    assert (str(code), _marked_line(ex["broken"], code)) in _reported(ex["broken"], code)
    assert code not in {c for c, _ in _reported(ex["fixed"], code)}


def test_every_code_literal_is_registered() -> None:
    """A code is spelled `Code.E040` (a typo is then an AttributeError and a mypy error), never
    as a string: every "E0xx"/"K0xx" literal of dsl/ and compiler/ is a registered code."""
    loose = set()
    for path in list((ROOT / "dsl").rglob("*.py")) + list((ROOT / "compiler").rglob("*.py")):
        for m in re.finditer(r"[\"']([EK]\d{3})[\"']", path.read_text(encoding="utf-8")):
            loose.add(m[1])
    assert loose <= {str(c) for c in Code}, sorted(loose - {str(c) for c in Code})


def test_maf_explain() -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "maf.compiler.tools.cli", "explain", *args],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )

    r = run("e20")
    assert r.returncode == 0 and r.stdout.startswith("# E020: undefined name")
    assert "```maf broken" in r.stdout and "```maf fixed" in r.stdout
    r = run("E029")
    assert r.returncode == 2 and "unknown code 'E029'" in r.stderr and "Traceback" not in r.stderr
    r = run()
    assert r.returncode == 0 and all(str(c) in r.stdout for c in Code)


def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_docs_tables_are_the_registrys() -> None:
    from maf.dsl.codes import DOC_TABLES, with_table

    for page, kind in DOC_TABLES.items():
        text = (ROOT / page).read_text(encoding="utf-8")
        assert with_table(text, kind) == text, f"{page}: run python -m maf.dsl.codes --write-docs"


def test_every_anchor_names_a_section() -> None:
    for i in REGISTRY.values():
        page, _, anchor = i.anchor.partition("#")
        headings = re.findall(r"^#+ (.*)$", (ROOT / page).read_text(encoding="utf-8"), re.M)
        assert anchor in {_slug(h) for h in headings}, i.anchor


def test_a_stale_table_is_noticed() -> None:
    from maf.dsl.codes import _BEGIN, _END, with_table

    stale = f"intro\n{_BEGIN}\n| code | meaning |\n| E999 | gone |\n{_END}\nafter\n"
    fresh = with_table(stale, "E")
    assert fresh != stale and "E999" not in fresh and "| E020 |" in fresh
    assert fresh.startswith("intro\n") and fresh.endswith(f"{_END}\nafter\n")
