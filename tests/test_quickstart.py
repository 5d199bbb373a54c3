"""The log tools' demo: a log from lockstep's writer, read back and rebuilt by the log tools."""

from __future__ import annotations

import log_tools_demo as quickstart

from recorder import open_log


def test_sample_log_round_trips(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert quickstart.main() == 0
    out = capsys.readouterr().out
    assert "rebuilt from it: same bytes" in out
    # The hero (1) touches vehicle 2 at frame 101 (t = 5 s); vehicle 8 parks from then on:
    # 699 frames of 0.05 s plus the last frame's -1 that CARLA's blocked query adds = 34 s.
    assert "       5   v v       1 vehicle.audi.a2" in out
    assert "       5      8 vehicle.audi.a2                             34" in out
    log = open_log(tmp_path / "runs" / "quickstart" / "sample.log")
    # Vehicle 2 drives at 6 m/s: 0.3 m per 0.05 s frame, on the lane 3.5 m to the right.
    t = log.trajectory(2)
    assert len(t) == 800
    assert (t["x"][10], t["y"][10]) == (3.0, 3.5)
    # Elapsed time sums the deltas in double, as CARLA does: ten times 0.05 is just under 0.5.
    assert t["elapsed"][10] == 0.49999999999999994
