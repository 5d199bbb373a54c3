"""Every golden trace of CARLA's replayer (../shared/carla-replay-golden) against lockstep's.

`recorder.replay.trace` replays each trace's log with the trace's parameters against the
recording stand-in world; every line must be the golden line without its `effects` list:
the same calls in the same order, the same ids, ticks, return values and text, and the
float32 poses equal (both sides print float32 with %.9g, so equal text is equal bits).
"""

from __future__ import annotations

import csv
import gzip
import json

import pytest
from conftest import find_shared

from recorder.replay.trace import main, replay_trace

GOLDEN = "carla-replay-golden"


def _traces() -> list[str]:
    shared = find_shared()
    index = shared / GOLDEN / "index.csv" if shared else None
    if index is None or not index.is_file():
        return ["(no golden traces)"]
    with open(index, newline="", encoding="utf-8") as f:
        return [row["file"] for row in csv.DictReader(f)]


def _same(a: dict, b: dict) -> bool:
    return a == b or json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)  # NaN


@pytest.mark.parametrize("trace", _traces())
def test_trace_matches_carla(shared, trace):
    folder = shared / GOLDEN
    if not (folder / "index.csv").is_file():
        pytest.skip(f"no {GOLDEN}/index.csv in {shared}")
    with open(folder / "index.csv", newline="", encoding="utf-8") as f:
        row = next(r for r in csv.DictReader(f) if r["file"] == trace)
    mine = [json.loads(line) for line in replay_trace(folder / trace, shared / row["log"])]
    with gzip.open(folder / trace, "rt", encoding="utf-8") as f:
        golden = [json.loads(line) for line in f]
    for i, (ours, theirs) in enumerate(zip(mine, golden, strict=False)):
        theirs.pop("effects", None)
        assert _same(ours, theirs), f"{trace} line {i + 1}:\n ours {ours}\n CARLA {theirs}"
    assert len(mine) == len(golden), f"{trace}: {len(mine)} lines, CARLA's has {len(golden)}"


def test_command_line_prints_the_trace(shared, capsys):
    folder = shared / GOLDEN
    trace = folder / "all_packets__start0_dur0_x1_dt0.05.jsonl.gz"
    if not trace.is_file():
        pytest.skip(f"{trace} not found")
    log = shared / "carla-golden" / "all_packets" / "recording.log"
    assert main([str(trace), str(log)]) == 0
    lines = capsys.readouterr().out.splitlines()
    with gzip.open(trace, "rt", encoding="utf-8") as f:
        assert len(lines) == sum(1 for _ in f)
    replay = json.loads(lines[4])
    assert replay["call"] == "ReplayFile"
    assert replay["text"] == (
        "Replaying File: recording.log\nTotal time recorded: 0.399833\n"
        "Replaying from 0 s - 0.399833 s (0.399833 s) at 1.0x\nIgnoring Spectator camera\n"
    )
