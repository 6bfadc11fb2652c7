"""What proves and cross-examines the rules: the Z3 checks (``check``) and the oracle, the
reference IR interpreter (``interp``) with the differential player (``differential``) and the
``maf fuzz`` command (``fuzz``)."""
