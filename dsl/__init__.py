"""maf language front end: grammar, AST, parser, analysis."""
