"""The grammar is LALR(1) and strict: no terminal collisions, no conflicts."""
from maf.dsl.parser import strict_parser


def test_grammar_builds_in_strict_lalr_mode():
    parser = strict_parser()
    assert parser.options.parser == "lalr"
    assert parser.options.strict is True
