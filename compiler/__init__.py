"""maf compiler: lowering to IR, code generation, checks, CLI."""
