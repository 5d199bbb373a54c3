"""Writes a sensor's picture to disk as CARLA's save_to_disk does: PNG by default.

The file's extension picks the format, as LibCarla's ImageIO does: ``.png`` (and any other
extension, or none, which gets ``.png`` appended) is a PNG written here with the standard
library's zlib (8-bit grey or RGBA, no filtering), so saving needs no extra package;
``.jpg``/``.jpeg`` and ``.tiff`` go through Pillow (the ``pictures`` extra) when it is
installed, and say so when it is not. The parent folders are made, as CARLA makes them.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

from world.errors import WorldError

__all__ = ["png_bytes", "png_chunk", "save_picture"]

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PILLOW_FORMATS = {".jpg": "JPEG", ".jpeg": "JPEG", ".tiff": "TIFF"}


def png_chunk(kind: bytes, payload: bytes) -> bytes:
    """One PNG chunk: length, kind, payload, CRC."""
    body = kind + payload
    return struct.pack(">I", len(payload)) + body + struct.pack(">I", zlib.crc32(body))


def png_bytes(pixels: np.ndarray) -> bytes:
    """A PNG file of (H, W) grey or (H, W, 4) RGBA uint8 `pixels`."""
    if pixels.dtype != np.uint8 or pixels.ndim not in (2, 3):
        raise WorldError(f"png_bytes: expected uint8 (H, W) or (H, W, 4), got {pixels.dtype}")
    height, width = pixels.shape[:2]
    colour_type = 0 if pixels.ndim == 2 else 6
    rows = np.ascontiguousarray(pixels).reshape(height, -1)
    filtered = np.zeros((height, rows.shape[1] + 1), np.uint8)  # filter byte 0: none
    filtered[:, 1:] = rows
    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return (
        _PNG_SIGNATURE
        + png_chunk(b"IHDR", header)
        + png_chunk(b"IDAT", zlib.compress(filtered.tobytes(), 6))
        + png_chunk(b"IEND", b"")
    )


def save_picture(path: str | Path, pixels: np.ndarray) -> str:
    """Writes (H, W) grey or (H, W, 4) RGBA `pixels` to `path`; returns the path written."""
    target = Path(path)
    if not target.suffix:
        target = target.with_suffix(".png")
    if target.parent != Path(""):
        target.parent.mkdir(parents=True, exist_ok=True)
    pillow_format = _PILLOW_FORMATS.get(target.suffix.lower())
    if pillow_format is None:
        target.write_bytes(png_bytes(pixels))
        return str(target)
    try:
        from PIL import Image as PillowImage
    except ImportError:
        raise WorldError(
            f"save_to_disk: {target.name}: {pillow_format} needs Pillow "
            "(pip install 'lockstep[pictures]'); .png needs nothing"
        ) from None
    picture = PillowImage.fromarray(pixels)
    if pillow_format == "JPEG" and picture.mode == "RGBA":
        picture = picture.convert("RGB")  # JPEG has no alpha: CARLA drops it too
    picture.save(target, format=pillow_format)
    return str(target)
