"""The error for an unreadable OpenDRIVE file: file, line, element and id, expected vs found."""

from __future__ import annotations

from world.errors import MapError


class OpenDriveError(MapError):
    """An OpenDRIVE document that is not well-formed or has an element lockstep cannot read.

    `source` names the file (or "<string>"), `element` the XML tag and `element_id` its id
    (None when it has none), `within` the enclosing elements that name it, innermost
    first (such as `("lane id='-1'", "road id='7'")`), `line` its line (None when
    unknown); the message says what was expected and what was found.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str = "<string>",
        element: str = "",
        line: int | None = None,
        element_id: str | None = None,
        within: tuple[str, ...] = (),
    ) -> None:
        self.source = source
        self.element = element
        self.element_id = element_id
        self.within = within
        self.line = line
        where = source if line is None else f"{source}:{line}"
        if element:
            where += f": <{element}{'' if element_id is None else f' id={_quote(element_id)}'}>"
            where += "".join(f" in <{outer}>" for outer in within)
        super().__init__(f"{where}: {message}")


def _quote(text: str) -> str:
    """An id as the message shows it: quoted, at most 40 characters."""
    return repr(text if len(text) <= 40 else text[:40] + "...")
