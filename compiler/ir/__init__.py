"""The intermediate representation: its nodes (``nodes``) and the lowering from the analysed AST
(``lower``). Every back end, check and oracle reads a program only through these."""
