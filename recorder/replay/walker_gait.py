"""Procedural walker gait on replay: a phase and an amplitude from the logged speeds.

The log holds each walker's speed per frame (AnimWalker, cm/s) but no limb pose. The
replay integrates each recorded speed over the part of its frame that playback has
crossed: the distance walked at time t is the sum of speed * duration over the frames
before t plus speed * (t - t(k)) inside frame k. The sums over whole frames are built
once, in frame order, as playback crosses them, so a seek to t and playing from the start
to t give the same distance, bit for bit. The gait phase is that distance over one
stride; the amplitude grows with the speed up to a full stride at walking speed.
Replay starts from standing; this does not claim the original live limb pose.
"""

from __future__ import annotations

import math

import numpy as np

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.reader import LogReader, RawPacket

STRIDE_CM = 130.0  # one full gait cycle (two steps) at walking pace
FULL_STRIDE_SPEED = 140.0  # cm/s: the speed at which the amplitude reaches 1


class GaitTracker:
    """The gait of a replay's walkers, by log id; `pose_of` answers by world id."""

    def __init__(self) -> None:
        self._reader: LogReader | None = None
        self.stop()

    def start(self, reader: LogReader) -> None:
        """A new replay: the gait history starts again from standing."""
        self.stop()
        self._reader = reader
        index = reader.frame_index
        self._elapsed = index.elapsed.tolist()
        self._duration = index.duration.tolist()
        table = reader.packet_table
        rows = np.flatnonzero(table.id == PacketId.AnimWalker)
        frame_of = np.searchsorted(index.offset, table.offset[rows], side="right") - 1
        self._packets: dict[int, list[RawPacket]] = {}
        for row, k in zip(rows.tolist(), frame_of.tolist(), strict=True):
            offset = int(table.offset[row])
            packet = RawPacket(offset, int(table.id[row]), offset + 5, int(table.size[row]))
            self._packets.setdefault(k, []).append(packet)

    def stop(self) -> None:
        """No gait is owned after a stop or an error."""
        self._done = 0  # frames whose whole interval is summed into `_walked`
        self._walked: dict[int, float] = {}
        self._speeds: dict[int, dict[int, float]] = {}
        self._time = 0.0
        self._world_to_log: dict[int, int] = {}
        self._active = False

    def advance(self, time: float, mapped_ids: dict[int, int]) -> None:
        """Playback is at `time`: sums the frames it has wholly crossed since the last call."""
        if self._reader is None:
            return
        self._active = True
        self._time = time
        self._world_to_log = {w: log for log, w in mapped_ids.items() if w}
        while self._done < len(self._elapsed) and self._frame_end(self._done) <= time:
            for log_id, speed in self._frame_speeds(self._done).items():
                walked = self._walked.get(log_id, 0.0)
                self._walked[log_id] = walked + speed * self._duration[self._done]
            self._speeds.pop(self._done, None)
            self._done += 1

    def pose_of(self, world_id: int) -> tuple[float, float] | None:
        """(phase in [0, 1), amplitude in [0, 1]) of a replayed walker, None if it has no gait."""
        if not self._active:
            return None
        log_id = self._world_to_log.get(int(world_id))
        if log_id is None:
            return None
        walked = self._walked.get(log_id, 0.0)
        speed = 0.0
        k = self._done
        if k < len(self._elapsed) and self._time > self._elapsed[k]:
            speed = self._frame_speeds(k).get(log_id, 0.0)
            walked += speed * (self._time - self._elapsed[k])
        if log_id not in self._walked and speed == 0.0 and not self._known(log_id):
            return None
        phase = math.fmod(abs(walked) / STRIDE_CM, 1.0)
        amplitude = min(abs(speed) / FULL_STRIDE_SPEED, 1.0)
        return phase, amplitude

    def _known(self, log_id: int) -> bool:
        k = self._done
        return k < len(self._elapsed) and log_id in self._frame_speeds(k)

    def _frame_end(self, k: int) -> float:
        duration = self._duration[k]
        return math.inf if duration < 0.0 else self._elapsed[k] + duration

    def _frame_speeds(self, k: int) -> dict[int, float]:
        speeds = self._speeds.get(k)
        if speeds is None:
            speeds = {}
            assert self._reader is not None
            for packet in self._packets.get(k, ()):
                for r in self._reader.records(packet):
                    speeds[r.id] = r.speed
            self._speeds[k] = speeds
        return speeds
