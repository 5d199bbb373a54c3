"""Where results.json lives, and its bytes: `json.dump(data, indent=4)` exactly (4 spaces,
insertion order, ASCII, floats as repr, no trailing newline).

A file on disk (ResultsFile) or in memory (MemoryResultsFile, for the golden specs and
tests): both read back as the leaderboard's `fetch_dict` does, {} for a missing or empty
file. Unlike the leaderboard, a file that is not JSON is an error, not an empty file, so a
resume never silently starts over on top of a damaged checkpoint.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Protocol

from runner.scoring.errors import ResultsFileError


def encode_results(data: dict[str, Any]) -> bytes:
    """The file's bytes for `data`, as the leaderboard's save_dict writes them."""
    return json.dumps(data, indent=4).encode("ascii")


def decode_results(raw: bytes, where: str) -> dict[str, Any]:
    """The object in a results file; {} for an empty file."""
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ResultsFileError(f"{where}: not a JSON results file ({exc})") from None
    if not isinstance(data, dict):
        raise ResultsFileError(f"{where}: expected a JSON object, found {type(data).__name__}")
    return data


class ResultsStore(Protocol):
    """A results file: read it, replace it, empty it."""

    name: str

    def load(self) -> dict[str, Any]: ...

    def save(self, data: dict[str, Any]) -> None: ...

    def clear(self) -> None: ...


class ResultsFile:
    """results.json on disk. Each save writes a sibling file and renames it over the old
    one, so an interruption leaves either the previous or the new checkpoint, whole."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.name = str(self.path)

    def load(self) -> dict[str, Any]:
        if not self.path.exists():
            return {}
        return decode_results(self.path.read_bytes(), self.name)

    def save(self, data: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(self.path.name + ".partial")
        partial.write_bytes(encode_results(data))
        os.replace(partial, self.path)

    def clear(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_bytes(b"")


class MemoryResultsFile:
    """A results file kept as bytes in memory."""

    def __init__(self, name: str = "results.json", raw: bytes = b"") -> None:
        self.name = name
        self.raw = raw

    def load(self) -> dict[str, Any]:
        return decode_results(self.raw, self.name)

    def save(self, data: dict[str, Any]) -> None:
        self.raw = encode_results(data)

    def clear(self) -> None:
        self.raw = b""
