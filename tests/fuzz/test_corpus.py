"""The hostile corpus (tests/fuzz/corpus/): injection payloads and every reproducer of issue 13,
kept as regression tests. `ok_*.maf` must compile to an engine that imports and plays,
`bad_*.maf` must give diagnostics; every scenario file must give a result or one input error.
Add a file here for every new finding of a campaign.
"""
from pathlib import Path

import pytest

from maf.compiler.driver import compile_file
from maf.dsl.diagnostics import CompileError

from . import oracle

CORPUS = Path(__file__).resolve().parent / "corpus"
SPECS = sorted((CORPUS / "specs").glob("*.maf"))
SCENARIOS = sorted((CORPUS / "scenarios").glob("*.yaml"))
# scenario files that are well formed: they run (exit 0) or stop at an illegal step (exit 1)
RUNS = {"bom", "night_malformed_action", "night_null_action", "day_card_date"}


@pytest.mark.parametrize("path", SPECS, ids=[p.name for p in SPECS])
def test_corpus_spec(path):
    text = path.read_text(encoding="utf-8-sig")  # as `maf` reads it (universal newlines)
    got = oracle.check_spec(text)
    assert got == ("engine" if path.name.startswith("ok_") else "diagnostic")
    if "_in_comment" in path.name and path.name.startswith("bad_"):
        with pytest.raises(CompileError) as info:
            compile_file(path)
        d = info.value.diagnostics[0]
        assert "mafai" in text.split("\n")[d.span.line - 1]


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_corpus_scenario(path):
    code = oracle.check_scenario(path.read_text(encoding="utf-8"), None) if False else None
    from maf.compiler.tools import cli# noqa: PLC0415
    import io  # noqa: PLC0415
    import json  # noqa: PLC0415
    import sys  # noqa: PLC0415
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = cli.main(["run", str(path), "--json"])
    finally:
        sys.stdout, sys.stderr = old
    assert "Traceback" not in err.getvalue()
    json.loads(out.getvalue())
    assert code == (1 if path.stem in RUNS else 2), (code, out.getvalue()[:500])
