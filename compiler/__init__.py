"""maf compiler: the IR (``ir``), the back end (``backend``), the runtime every engine carries
(``runtime``), the checks and the oracle (``verify``), the user tools (``tools``), and the facade
``driver``."""

from __future__ import annotations


def version() -> str:
    """The installed maf's version (pyproject.toml): what `maf --version`, the language server,
    SARIF reports, every engine and every saved state name. `0+unknown` from a bare checkout."""
    from importlib import metadata  # only when asked

    try:
        return metadata.version("maf")
    except metadata.PackageNotFoundError:  # pragma: no cover - not installed
        return "0+unknown"
