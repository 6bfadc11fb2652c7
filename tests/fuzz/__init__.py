"""Fuzzing maf (issue 13): generators, oracles, the CI budget (test_*.py) and a long campaign
(``python -m tests.fuzz.campaign``). docs/security.md describes what the oracles guarantee."""
