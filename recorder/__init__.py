"""CARLA's recorder log format: packets, reader, writer, queries, JSON dump and build."""

from recorder.errors import LogFormatError, RecorderError

__all__ = ["LogFormatError", "RecorderError"]
