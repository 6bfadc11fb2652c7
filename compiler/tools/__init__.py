"""What designers, players and editors use: the command line (``cli``, ``console``), the scenario
runner (``scenario``), the rulebook (``doc``, ``describe``), the language server (``lsp``), random
tables (``deal``) and the game simulator (``simulate``)."""
