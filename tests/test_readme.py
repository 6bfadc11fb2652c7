"""The README opens with a spec and an excerpt of the engine it compiles to (issue 24 item 8):
the spec compiles, plays every table size and checks clean, as docs/language.md's examples do
(tests/test_language_doc.py), and every chunk of the excerpt is the compiler's output today."""
import re
from pathlib import Path

import test_language_doc as language_doc

from maf.compiler.driver import compile_source

ROOT = Path(__file__).resolve().parent.parent
TEXT = (ROOT / "README.md").read_text(encoding="utf-8")
SPEC = re.search(r"^```maf\n(.*?)^```", TEXT, re.S | re.M)[1]
EXCERPT = re.search(r"^```python\n(.*?)^```", TEXT, re.S | re.M)[1]


def test_the_readme_opens_with_a_spec_and_its_engine():
    assert TEXT.index("```maf") < TEXT.index("```python") < TEXT.index("```sh")
    assert "docs/language.md" in TEXT[: TEXT.index("```sh")]


def test_the_readme_spec_compiles_plays_and_checks_clean():
    language_doc.test_snippet_compiles(1, SPEC)
    language_doc.test_snippet_checks_without_errors(1, SPEC)


def test_the_readme_excerpt_is_what_the_spec_compiles_to():
    engine = compile_source(SPEC, "mini.maf").python
    chunks = [c.strip("\n") for c in EXCERPT.split("# ...\n")]
    assert len(chunks) >= 3
    for chunk in chunks:
        assert chunk + "\n" in engine, f"not in the engine `maf compile mini.maf` writes:\n{chunk}"


def test_the_rulebooks_the_readme_names_are_cited_where_they_are():
    # the seed rulebooks live outside the repo, beside it in ../shared/seeds/
    names = set(re.findall(r"\b\d{3}_[0-9a-f]{16}\.txt\b", TEXT))
    assert names
    for name in names:
        assert f"`../shared/seeds/{name}`" in TEXT and not (ROOT / name).exists()
