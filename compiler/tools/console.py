"""Terminal output for the `maf` command: colours on a terminal only, and a progress line.

Colours follow the usual conventions: never when the stream is not a terminal, never when
NO_COLOR is set (https://no-color.org), always when FORCE_COLOR is set (and NO_COLOR is not).
`--color always|never` (set_mode) overrides all of these; `--color auto` is the default.
"""

from __future__ import annotations

import os
import re
from typing import TextIO

_CODES = {"red": "31", "green": "32", "yellow": "33", "blue": "34", "bold": "1", "dim": "2"}


MODES = ("auto", "always", "never")
_mode = "auto"


def set_mode(mode: str) -> None:
    """`--color`: `always` and `never` override the terminal and the environment."""
    global _mode
    _mode = mode if mode in MODES else "auto"


def use_colour(stream: TextIO) -> bool:
    if _mode != "auto":
        return _mode == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return is_terminal(stream)


def is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # a closed or fake stream
        return False


def paint(text: str, colour: str, stream: TextIO) -> str:
    """`text` in `colour` ("red", "green", "yellow", "blue", "bold", "dim") if `stream` takes
    colours, else unchanged."""
    if not use_colour(stream):
        return text
    return f"\x1b[{_CODES[colour]}m{text}\x1b[0m"


_SEVERITY = re.compile(r"^(\S.*?: )(error|warning|note)(\[\w+\])?(:)", re.MULTILINE)
_COLOURS = {"error": "red", "warning": "yellow", "note": "blue"}


def diagnostics(text: str, stream: TextIO) -> str:
    """Rendered diagnostics (`file:line:col: error[CODE]: ...`) with the severity coloured."""
    if not use_colour(stream):
        return text
    return _SEVERITY.sub(
        lambda m: (
            m.group(1)
            + paint(m.group(2) + (m.group(3) or ""), _COLOURS[m.group(2)], stream)
            + m.group(4)
        ),
        text,
    )


class Progress:
    """One status line rewritten in place on a terminal (`[2/3] checking specs/x.maf`), erased
    when done. Off a terminal it writes nothing, so logs and pipes stay clean."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.live = is_terminal(stream)
        self.shown = False

    def show(self, text: str) -> None:
        if self.live:
            self.stream.write("\r\x1b[K" + text)
            self.stream.flush()
            self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
