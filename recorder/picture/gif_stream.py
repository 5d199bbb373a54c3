"""A GIF written picture by picture, so a long run's GIF needs memory for two pictures only.

Pillow's `save(save_all=True)` keeps every picture until the end (a 1-minute GIF of 600
pictures held 600 MB). Here each picture goes to the file as it comes: the first whole,
each later one as the box of pixels that changed since the one before, the unchanged
pixels inside it set to the palette's spare TRANSPARENT index (GIF disposal 1: the
previous picture stays under it). A picture equal to the one before is still written, a
single transparent pixel, so the GIF holds exactly one frame per picture. Pillow's
`GifImagePlugin.getdata` encodes each frame (LZW); the header is written here.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

TRANSPARENT = 255  # a palette index no drawing uses (recorder/picture/palette.py)
_DISPOSAL_KEEP = 1


class GifStream:
    """A GIF file of palette pictures of one size and palette, `delay_ms` apart, looping."""

    def __init__(self, path: str | Path, width: int, height: int, palette: list[int],
                 delay_ms: int) -> None:  # fmt: skip
        from PIL import GifImagePlugin, Image

        self._image, self._encode = Image, GifImagePlugin.getdata
        self._size = (width, height)
        self._delay = int(delay_ms)
        self._previous: np.ndarray | None = None
        self.frames = 0
        table = bytes(palette[: 3 * 256]).ljust(3 * 256, b"\0")
        self._file = open(path, "wb")  # noqa: SIM115  (closed by close())
        self._file.write(
            b"GIF89a"
            + struct.pack("<HHBBB", width, height, 0xF7, 0, 0)  # a global table of 256 colours
            + table
            + b"!\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"  # loop for ever
        )

    def add(self, picture) -> None:
        """Writes the next picture (a "P" image of the stream's size and palette)."""
        if picture.size != self._size:
            raise ValueError(f"picture of {picture.size}, the GIF is {self._size}")
        current = np.asarray(picture, dtype=np.uint8)
        if self._previous is None:
            self._frame(current, (0, 0), transparent=False)
        else:
            changed = current != self._previous
            rows, cols = np.flatnonzero(changed.any(axis=1)), np.flatnonzero(changed.any(axis=0))
            if not len(rows):
                self._frame(np.full((1, 1), TRANSPARENT, np.uint8), (0, 0), transparent=True)
            else:
                box = (slice(rows[0], rows[-1] + 1), slice(cols[0], cols[-1] + 1))
                part = np.where(changed[box], current[box], np.uint8(TRANSPARENT))
                self._frame(part, (int(cols[0]), int(rows[0])), transparent=True)
        self._previous = current
        self.frames += 1

    def _frame(self, pixels: np.ndarray, offset: tuple[int, int], *, transparent: bool) -> None:
        image = self._image.fromarray(np.ascontiguousarray(pixels), mode="P")
        params = {"duration": self._delay, "disposal": _DISPOSAL_KEEP}
        if transparent:
            params["transparency"] = TRANSPARENT
        for chunk in self._encode(image, offset, **params):
            self._file.write(chunk)

    def close(self) -> None:
        """Ends the GIF (its trailer) and closes the file."""
        if not self._file.closed:
            self._file.write(b";")
            self._file.close()
