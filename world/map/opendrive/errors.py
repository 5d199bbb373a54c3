"""The error for an unreadable OpenDRIVE file: file, element, line, expected vs found."""

from __future__ import annotations

from world.errors import MapError


class OpenDriveError(MapError):
    """An OpenDRIVE document that is not well-formed or has an element lockstep cannot read.

    `source` names the file (or "<string>"), `element` the XML tag, `line` its line
    (None when unknown); the message says what was expected and what was found.
    """

    def __init__(
        self, message: str, *, source: str = "<string>", element: str = "", line: int | None = None
    ) -> None:
        self.source = source
        self.element = element
        self.line = line
        where = source if line is None else f"{source}:{line}"
        if element:
            where += f": <{element}>"
        super().__init__(f"{where}: {message}")
