"""`python -m recorder.replay.trace TRACE.jsonl.gz LOG`: lockstep's replay trace of a log.

Reads a golden trace of CARLA's replayer (../shared/carla-replay-golden): its `world`
line, its Set* calls and its ReplayFile / Tick lines. Replays LOG with the same
parameters against a recording stand-in world (recorder.replay.standin) and prints
lockstep's trace in the same line schema: every helper call with its arguments and
return value, the state after each ReplayFile and Tick, and where the replay ended.
The `effects` lists of the golden lines (what CARLA's helper asked its engine to do)
are not produced.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from recorder.replay.pose_math import f32
from recorder.replay.replayer import Replayer
from recorder.replay.standin import RecordingHelper, StandinWorld
from recorder.replay.trace_lines import F32, dumps, f32s


def read_trace(path: str | Path) -> Iterator[dict[str, Any]]:
    """The lines of a trace file (gzip-compressed or plain)."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:  # type: ignore[operator]
        for line in f:
            if line.strip():
                yield json.loads(line)


def _state(replayer: Replayer) -> dict[str, Any]:
    frame = replayer.frame
    return {
        "enabled": replayer.enabled,
        "current_time": float(replayer.current_time),
        "time_to_stop": float(replayer.time_to_stop),
        "total_time": float(replayer.total_time),
        "frame": {
            "id": int(frame.id),
            "elapsed": float(frame.elapsed),
            "duration": float(frame.duration),
        },
    }


class _Offset:
    """A follow offset given in centimetres (the trace's units), as the replayer's Transform."""

    def __init__(self, offset: dict[str, Any]):
        loc, rot = offset["location"], offset["rotation"]
        self.location = _Axes(x=loc[0] / 100.0, y=loc[1] / 100.0, z=loc[2] / 100.0)
        self.rotation = _Axes(roll=rot[0], pitch=rot[1], yaw=rot[2])


class _Axes:
    def __init__(self, **values: float):
        self.__dict__.update(values)


def replay_trace(trace: str | Path, log: str | Path) -> list[str]:
    """Lockstep's trace lines for the inputs of the golden trace `trace`, replaying `log`."""
    out: list[str] = []
    tick = 0
    pending: list[dict[str, Any]] = []

    def emit(fields: dict[str, Any]) -> None:
        pending.append(fields)

    def flush() -> None:
        for fields in pending:
            out.append(dumps({"tick": tick, **fields}))
        pending.clear()

    replayer: Replayer | None = None
    for line in read_trace(trace):
        tick = line["tick"]
        call = line.get("call")
        if "world" in line:
            world = StandinWorld.from_trace(line["world"])
            replayer = Replayer(RecordingHelper(world, emit))
            out.append(json.dumps(line, separators=(",", ":"), ensure_ascii=False))
            continue
        if replayer is None or call is None:
            continue
        if call == "SetTimeFactor":
            replayer.set_time_factor(line["time_factor"])
            emit({"call": call, "time_factor": float(line["time_factor"])})
        elif call == "SetIgnoreHero":
            replayer.set_ignore_hero(line["ignore_hero"])
            emit({"call": call, "ignore_hero": bool(line["ignore_hero"])})
        elif call == "SetIgnoreSpectator":
            replayer.set_ignore_spectator(line["ignore_spectator"])
            emit({"call": call, "ignore_spectator": bool(line["ignore_spectator"])})
        elif call == "ReplayFile":
            flush()
            text = replayer.replay_file(
                None,
                log,
                line["time_start"],
                line["duration"],
                line["follow_id"],
                _Offset(line["offset"]),
                line["replay_sensors"],
                line["replay_weather"],
                name=line["filename"],
            )
            calls = list(pending)
            pending.clear()
            offset = {
                "location": f32s(replayer.follow_location),
                "rotation": f32s(replayer.follow_rotation),
            }
            head = {
                "call": call,
                "filename": line["filename"],
                "time_start": float(line["time_start"]),
                "duration": float(line["duration"]),
                "follow_id": int(line["follow_id"]),
                "offset": offset,
                "replay_sensors": bool(line["replay_sensors"]),
                "replay_weather": bool(line["replay_weather"]),
                "map_override": line.get("map_override", ""),
                "text": text,
            }
            pending.extend([head, *calls, {"state": _state(replayer)}])
            flush()
        elif call == "Tick":
            delta = f32(line["delta"])
            emit({"call": call, "delta": F32(delta)})
            was_enabled = replayer.is_enabled()
            if was_enabled:
                replayer.tick(delta)
            emit({"state": _state(replayer)})
            if was_enabled and not replayer.is_enabled():
                emit({"enabled": False})
            flush()
    flush()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m recorder.replay.trace",
        description="Replay LOG with the parameters of a golden replay trace and print "
        "lockstep's trace lines.",
    )
    parser.add_argument("trace", help="a golden trace (.jsonl or .jsonl.gz)")
    parser.add_argument("log", help="the recorder log it replays")
    args = parser.parse_args(argv)
    for text in replay_trace(args.trace, args.log):
        sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
