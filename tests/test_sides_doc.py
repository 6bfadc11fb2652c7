"""Rulebook words for sides made by marks, titles and kinds of role (issue 21): `maf doc` says
who a side's members are, that a title is held rather than dealt, and counts by kind in plain
words in every rulebook language, with no construct left as a literal."""

from pathlib import Path

import pytest

from maf.compiler.tools import doc

ROOT = Path(__file__).resolve().parent.parent
SIDES = ROOT / "tests" / "scenarios" / "features" / "sides.maf"
WEREWOLF = ROOT / "specs" / "werewolf.maf"

WORDS = {
    "en": ("A side made by marks", "a title, held by a player", "the most cards dealt"),
    "fa": ("جبهه‌ای ساخته از نشان‌ها", "یک عنوان", "بیشترین تعداد کارت"),
    "ar": ("جبهة تصنعها العلامات", "لقب يحمله لاعب", "أكبر عدد من بطاقات"),
}


@pytest.mark.parametrize("lang", sorted(WORDS))
@pytest.mark.parametrize("spec", [SIDES, WEREWOLF], ids=["sides", "werewolf"])
def test_sides_titles_and_kinds_in_plain_words(spec, lang):
    book = doc.build(spec.read_text(encoding="utf-8"), str(spec), lang, "md", matrix=False)
    (text,) = [t for name, t in book.files.items() if name.endswith(".md")]
    for words in WORDS[lang]:
        assert words in text, (lang, words)
    assert not [f for f in book.fallbacks if f.startswith(("function", "kind"))], book.fallbacks
