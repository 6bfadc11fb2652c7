"""What a player reads on the rulebook `maf doc` writes: how much spec syntax and how many raw
ids are left in its running text, per shipped spec and language, against the figures of the
rulebook before it was written for players (issue 24 item 3), side by side.

    python bench/doc_counts.py            # every spec in en, fa and ar
    python bench/doc_counts.py --pages    # only the four pages the issue counted

Running text is what the page shows a player, less what is meant to be code: `<code>` and the
`.id` badges (a role's id next to its name), the quoted `// RULING` comments, the interaction
table and the footer. Counted in it:

- expression fragments: comparison operators (`==`, `!=`, `<=`, `>=`, `<`, `>`), call syntax
  (`name(`), set literals (`in {`), `and`/`or` right after a `)` or between one-letter
  variables, an id alone in brackets (`(x)`), dotted ids (`role.ability`), `=` between words;
- Latin ids (fa and ar pages): every Latin word (`shot`, `negotiated`, the `attack` of `بـattack`);
- raw ids (en pages): spec ids written with `_` or a dot (`mafia_attack`, `godfather.shoot`);
- unmarked ids: the same, outside the literals the page marks as the spec's own text
  (`<bdi class="lit">`: a quoted message, a timer's name, a name the spec gives only in another
  language).

The test (tests/test_doc.py) asserts that expression fragments and unmarked ids are 0 for every
spec and language.
"""

from __future__ import annotations

import argparse
import html.parser
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# counted by this script on the tree of commit 13a3787 (the rulebook and specs before issue 24
# item 3: `git archive 13a3787`, run with that tree first on PYTHONPATH)
BASELINE = {
    # (spec, lang): (expression fragments, Latin ids in running text (fa/ar) or raw ids (en))
    ("bazpors", "en"): (72, 2),
    ("bazpors", "fa"): (71, 189),
    ("bazpors", "ar"): (71, 343),
    ("classic", "en"): (188, 37),
    ("classic", "fa"): (188, 533),
    ("classic", "ar"): (188, 917),
    ("online", "en"): (29, 0),
    ("online", "fa"): (29, 106),
    ("online", "ar"): (29, 106),
    ("takavar", "en"): (41, 2),
    ("takavar", "fa"): (41, 126),
    ("takavar", "ar"): (41, 267),
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
    r"|\([a-z_][a-z0-9_]*\)"  # an argument list of one id: `(x)`
    r"|\b[a-z]\s+(?:and|or)\s+[a-z]\b"  # a connective between variables: `x and y`
)
LATIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
RAW_EN = re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b|\b[a-z_]+\.[a-z_]+\b")


class RunningText(html.parser.HTMLParser):
    """The text of a page a player reads as prose (see the module docstring); with
    `marked=False`, less the literals the page marks as such (`<bdi class="lit">`: words the
    spec gives none for the page's language, shown as the spec wrote them)."""

    VOID = {"meta", "br", "img", "hr", "input", "link", "col", "wbr", "path", "line", "rect"}
    BLOCK = {"p", "li", "div", "h1", "h2", "h3", "td", "th", "tr", "text", "section", "ul"}

    def __init__(self, page: str, marked: bool = True):
        super().__init__(convert_charrefs=True)
        self.skip_classes = SKIP_CLASSES if marked else SKIP_CLASSES | {"lit"}
        self.stack: list[bool] = []  # per open element: is its content skipped?
        self.parts: list[str] = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        if tag in self.BLOCK:
            self.parts.append(" ")
        if tag in self.VOID:
            return
        a = dict(attrs)
        skip = (
            (self.stack and self.stack[-1])
            or tag in SKIP_TAGS
            or bool(self.skip_classes & set((a.get("class") or "").split()))
            or (tag == "section" and a.get("id") in SKIP_SECTIONS)
        )
        self.stack.append(bool(skip))

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        if tag in self.BLOCK:
            self.parts.append(" ")
        if tag in self.VOID:
            return
        if self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if not (self.stack and self.stack[-1]):
            self.parts.append(data)

    @property
    def text(self) -> str:
        return " ".join("".join(self.parts).split())


def running_text(page: str, marked: bool = True) -> str:
    return RunningText(page, marked).text


def fragments(text: str) -> list[str]:
    return [m.group(0) for m in FRAGMENT.finditer(text)]


def latin_ids(text: str) -> list[str]:
    return LATIN.findall(text)


def raw_ids(text: str) -> list[str]:
    return RAW_EN.findall(text)


def counts(spec: Path, lang: str) -> tuple[int, int, int, int, str]:
    """(expression fragments, ids, ids outside marked literals, names without words of the
    page's language (humanised ids, another language's names), running text) of a page."""
    from maf.compiler.tools import doc  # noqa: PLC0415

    text = spec.read_text(encoding="utf-8")
    book = doc.build(text, spec.name, lang, matrix=False)
    (page,) = book.files.values()
    run = running_text(page)
    bare = running_text(page, marked=False)
    find = latin_ids if lang in ("fa", "ar") else raw_ids
    shown = getattr(book, "fallbacks", ())  # (the rulebook before issue 24 had none)
    names = len({f for f in shown if not f.startswith(LITERAL_KINDS)})
    return len(fragments(run)), len(find(run)), len(find(bare)), names, run


# what a spec has no display names for at all (messages, timers, memory slots, setup labels)
LITERAL_KINDS = ("message", "timer", "memory", "label")


PAGES = [("classic", "en"), ("classic", "fa"), ("online", "ar"), ("tos", "en")]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", action="store_true", help="only the four pages of the issue")
    ap.add_argument("--show", metavar="SPEC.LANG", help="print that page's running text")
    args = ap.parse_args(argv)
    specs = sorted((ROOT / "specs").glob("*.maf"))
    todo = PAGES if args.pages else [(s.stem, lang) for s in specs for lang in ("en", "fa", "ar")]
    print(f"{'page':<14} {'fragments':>14} {'ids':>14} {'unmarked ids':>13} {'no words':>9}")
    tot = [0, 0, 0, 0, 0]

    def cell(now, before):
        return f"{now}" if before is None else f"{before} -> {now}"

    for stem, lang in todo:
        f, i, u, n, run = counts(ROOT / "specs" / f"{stem}.maf", lang)
        bf, bi = BASELINE.get((stem, lang), (None, None))
        for k, v in enumerate((f, i, u, bf or 0, bi or 0)):
            tot[k] += v
        print(f"{stem + '.' + lang:<14} {cell(f, bf):>14} {cell(i, bi):>14} {u:>13} {n:>9}")
        if args.show == f"{stem}.{lang}":
            print(run, file=sys.stderr)
    print(
        f"{'total':<14} {cell(tot[0], tot[3] or None):>14} {cell(tot[1], tot[4] or None):>14}"
        f" {tot[2]:>13}"
    )
    print(
        "ids: Latin words on fa/ar pages, raw ids on en pages; unmarked: outside the literals"
        " the page marks (a quoted message, a timer, a name the spec gives only in another"
        " language); no words: distinct names shown as a humanised id or in another language"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
