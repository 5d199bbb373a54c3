"""A log read packet by packet, as CARLA's replayer reads its file stream.

CARLA reads a packet header, then either the packet's records or a skip of its size.
Reaching the end leaves the last header in place and sets end-of-file; a closed file
reads nothing. This cursor keeps exactly that state over the packet table of a
`LogReader`, so the replayer can follow CARLA's loop step for step without bytes.
"""

from __future__ import annotations

from recorder.logfile.reader import LogReader, RawPacket


class PacketStream:
    """The packets of one log after its header; `header` is the last packet read."""

    def __init__(self, reader: LogReader):
        self.reader = reader
        table = reader.packet_table
        self._offsets = table.offset.tolist()
        self._ids = table.id.tolist()
        self._sizes = table.size.tolist()
        self.pos = 0
        self.closed = False

    def __len__(self) -> int:
        return len(self._ids)

    def rewind(self) -> None:
        """Back to the first packet after the header (CARLA's Rewind)."""
        self.pos = 0

    def at_end(self) -> bool:
        """True once no packet is left to read, or the stream is closed."""
        return self.closed or self.pos >= len(self._ids)

    def next_packet(self) -> RawPacket | None:
        """The next packet, or None at the end (the caller keeps its last header)."""
        if self.at_end():
            return None
        i = self.pos
        self.pos += 1
        offset = self._offsets[i]
        return RawPacket(offset, self._ids[i], offset + 5, self._sizes[i])

    def records(self, packet: RawPacket) -> list:
        return self.reader.records(packet)

    def close(self) -> None:
        self.closed = True
