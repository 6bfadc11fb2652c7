"""What a player reads on the rulebook `maf doc` writes: how much spec syntax and how many raw
ids are left in its running text, per shipped spec and language, against the figures of the
rulebook before it was written for players (issue 24 item 3), side by side.

    python bench/doc_counts.py            # every spec in en, fa and ar
    python bench/doc_counts.py --pages    # only the four pages the issue counted

Running text is what the page shows a player, less what is meant to be code: `<code>` and the
`.id` badges (a role's id next to its name), the quoted `// RULING` comments, the interaction
table and the footer. Counted in it:

- expression fragments: comparison operators (`==`, `!=`, `<=`, `>=`, `<`, `>`), call syntax
  (`name(`), set literals (`in {`), `and`/`or` right after a `)`, dotted ids (`role.ability`),
  `=` between words;
- Latin ids (fa and ar pages): every Latin word (`shot`, `negotiated`, the `attack` of `بـattack`);
- raw ids (en pages): spec ids written with `_` or a dot (`mafia_attack`, `godfather.shoot`).

The test (tests/test_doc.py) asserts the same counts are 0 for every spec and language.
"""

from __future__ import annotations

import argparse
import html.parser
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# counted with the rulebook of commit 13a3787 (before issue 24 item 3), by this script
BASELINE = {
    # (spec, lang): (expression fragments, Latin ids in running text (fa/ar) or raw ids (en))
    ("bazpors", "en"): (70, 2),
    ("bazpors", "fa"): (70, 189),
    ("bazpors", "ar"): (70, 343),
    ("classic", "en"): (187, 37),
    ("classic", "fa"): (187, 533),
    ("classic", "ar"): (187, 917),
    ("online", "en"): (29, 0),
    ("online", "fa"): (29, 106),
    ("online", "ar"): (29, 106),
    ("takavar", "en"): (40, 2),
    ("takavar", "fa"): (40, 126),
    ("takavar", "ar"): (40, 267),
    ("tos", "en"): (136, 36),
    ("tos", "fa"): (136, 465),
    ("tos", "ar"): (136, 465),
}

SKIP_TAGS = {"style", "script", "code", "title", "footer"}
SKIP_CLASSES = {"id"}
SKIP_SECTIONS = {"rulings", "interactions"}

FRAGMENT = re.compile(
    r"==|!=|<=|>=|(?<=[\w)] )[<>](?= [\w(])"  # comparisons
    r"|\b[A-Za-z_][A-Za-z0-9_]*\("  # a call
    r"|\bin \{"  # a set literal
    r"|\)\s+(?:and|or)\b"  # a connective after a call
    r"|\b[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*\b"  # a dotted id
    r"|(?<=\w) = (?=\w)"  # an assignment
)
LATIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
RAW_EN = re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b|\b[a-z_]+\.[a-z_]+\b")


class RunningText(html.parser.HTMLParser):
    """The text of a page a player reads as prose (see the module docstring)."""

    VOID = {"meta", "br", "img", "hr", "input", "link", "col", "wbr", "path", "line", "rect"}

    def __init__(self, page: str):
        super().__init__(convert_charrefs=True)
        self.stack: list[bool] = []  # per open element: is its content skipped?
        self.parts: list[str] = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        a = dict(attrs)
        skip = (
            (self.stack and self.stack[-1])
            or tag in SKIP_TAGS
            or bool(SKIP_CLASSES & set((a.get("class") or "").split()))
            or (tag == "section" and a.get("id") in SKIP_SECTIONS)
        )
        self.stack.append(bool(skip))

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if not (self.stack and self.stack[-1]):
            self.parts.append(data)

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.parts).split())


def running_text(page: str) -> str:
    return RunningText(page).text


def fragments(text: str) -> list[str]:
    return [m.group(0) for m in FRAGMENT.finditer(text)]


def latin_ids(text: str) -> list[str]:
    return LATIN.findall(text)


def raw_ids(text: str) -> list[str]:
    return RAW_EN.findall(text)


def counts(spec: Path, lang: str) -> tuple[int, int, str]:
    from maf.compiler.tools import doc  # noqa: PLC0415

    text = spec.read_text(encoding="utf-8")
    (page,) = [v for k, v in doc.build(text, spec.name, lang, matrix=False).files.items()]
    run = running_text(page)
    ids = latin_ids(run) if lang in ("fa", "ar") else raw_ids(run)
    return len(fragments(run)), len(ids), run


PAGES = [("classic", "en"), ("classic", "fa"), ("online", "ar"), ("tos", "en")]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", action="store_true", help="only the four pages of the issue")
    ap.add_argument("--show", metavar="SPEC.LANG", help="print that page's running text")
    args = ap.parse_args(argv)
    specs = sorted((ROOT / "specs").glob("*.maf"))
    todo = (
        PAGES
        if args.pages
        else [(s.stem, lang) for s in specs for lang in ("en", "fa", "ar")]
    )
    print(f"{'page':<14} {'fragments':>18} {'ids':>18}")
    tot = [0, 0, 0, 0]
    for stem, lang in todo:
        f, i, run = counts(ROOT / "specs" / f"{stem}.maf", lang)
        bf, bi = BASELINE.get((stem, lang), (None, None))
        tot[0] += f
        tot[1] += i
        tot[2] += bf or 0
        tot[3] += bi or 0

        def cell(now, before):
            return f"{now}" if before is None else f"{before} -> {now}"

        print(f"{stem + '.' + lang:<14} {cell(f, bf):>18} {cell(i, bi):>18}")
        if args.show == f"{stem}.{lang}":
            print(run, file=sys.stderr)
    print(f"{'total':<14} {cell(tot[0], tot[2] or None):>18} {cell(tot[1], tot[3] or None):>18}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
