"""JSON build and dump against CARLA's golden logs and the real CARLA logs."""

from __future__ import annotations

import functools
import json
import struct
from pathlib import Path

import numpy as np
import pytest

from recorder.json_form.codec import build_log, dump_json, dump_log, load_spec
from recorder.json_form.records import centre_of_mass_metres, rich_curve_keys
from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets import PhysicsControlRecord
from recorder.logfile.packets.physics_control import WHEEL_LAYOUTS
from recorder.logfile.writer import LogWriter
from tests.conftest import find_shared

SHARED = find_shared()
GOLDEN_CASES = ["all_packets", "edge_cases", "edge_header_only", "edge_single_frame", "town_drive"]
REAL_LOGS = ["DistanceBetweenVehicles", "DistanceToLaneCenter_2020"]
EXTENSION_KEYS = {"packets", "frame_id", "elapsed", "collisions_as_written", "no_frame_end"}


@functools.cache
def _spec(case: str) -> dict:
    # town_drive's SPEC.json is 7 MB: parsed once per session.
    return load_spec(SHARED / "carla-golden" / case / "SPEC.json")


def _golden(shared: Path, case: str) -> Path:
    return shared / "carla-golden" / case


def test_every_golden_case_is_covered(shared):
    folders = sorted(p.name for p in (shared / "carla-golden").iterdir() if p.is_dir())
    assert folders == GOLDEN_CASES


@pytest.mark.parametrize("case", GOLDEN_CASES)
def test_build_equals_carla_log(shared, case):
    want = (_golden(shared, case) / "recording.log").read_bytes()
    assert build_log(_spec(case)) == want


@pytest.mark.parametrize("case", GOLDEN_CASES)
def test_build_libstdcxx_variant(shared, case):
    # libstdcxx/recording.log exists only where libstdc++'s collision order gives other bytes;
    # elsewhere the libstdc++ build must give the libc++ log itself.
    path = _golden(shared, case) / "libstdcxx" / "recording.log"
    libcxx = (_golden(shared, case) / "recording.log").read_bytes()
    want = path.read_bytes() if path.exists() else libcxx
    if path.exists():
        assert want != libcxx
    assert build_log(_spec(case), library="libstdc++") == want


@pytest.mark.parametrize("case", GOLDEN_CASES)
def test_dump_then_build_golden(shared, case):
    raw = (_golden(shared, case) / "recording.log").read_bytes()
    spec = dump_log(raw)
    # A log made by CARLA's code is said in the plain schema, with no extension key.
    for frame in spec["frames"]:
        assert not EXTENSION_KEYS & set(frame)
    assert build_log(json.loads(dump_json(spec))) == raw


def test_dump_then_build_libstdcxx_log(shared):
    raw = (_golden(shared, "all_packets") / "libstdcxx" / "recording.log").read_bytes()
    spec = dump_log(raw, library="libstdc++")
    assert build_log(json.loads(dump_json(spec)), library="libstdc++") == raw


@pytest.mark.parametrize("folder", REAL_LOGS)
def test_dump_then_build_real_logs(shared, folder):
    raw = (shared / "carla-logs" / folder / "recording.log").read_bytes()
    spec = json.loads(dump_json(dump_log(raw)))
    assert build_log(spec) == raw


def test_old_log_dumps_36_byte_wheels(shared):
    spec = dump_log(shared / "carla-logs" / "DistanceToLaneCenter_2020" / "recording.log")
    controls = [pc for f in spec["frames"] for pc in f.get("physics_control", [])]
    assert controls and all(pc["wheel_size"] == 36 for pc in controls)
    assert all("lat_stiff_value" not in w for pc in controls for w in pc["wheels"])


def test_rich_curve_add_key_order():
    # AddKey puts a key before the first key whose time is >= its own: (5, 3) lands before
    # (5, 1), and (0, 2) before both.
    assert rich_curve_keys([(5.0, 1.0), (0.0, 2.0), (5.0, 3.0), (7.0, 4.0)]) == [
        (0.0, 2.0),
        (5.0, 3.0),
        (5.0, 1.0),
        (7.0, 4.0),
    ]


def test_rich_curve_nan_time_goes_first():
    # AddKey walks past keys whose time is less than the new one; no time is less than NaN,
    # so NaN lands at the front, and later no key is passed while NaN leads:
    # [(5,1)] -> [(nan,2), (5,1)] -> [(3,3), (nan,2), (5,1)].
    keys = rich_curve_keys([(5.0, 1.0), (float("nan"), 2.0), (3.0, 3.0)])
    assert [value for _, value in keys] == [3.0, 2.0, 1.0]


def test_centre_of_mass_as_carla_converts_it(shared):
    # all_packets frame 1's first physics control (actor 24) has centre of mass
    # [45.93916702270508, -0.5, -32.29999923706055] cm. Its record in recording.log starts at
    # byte 1947 + 5 + 2 (packet head, count); the centre of mass follows the id, five floats,
    # the autobox byte and four floats: 4 + 20 + 1 + 16 = 41 bytes in.
    raw = (_golden(shared, "all_packets") / "recording.log").read_bytes()
    stored = struct.unpack_from("<3f", raw, 1947 + 7 + 41)
    cm = (45.93916702270508, -0.5, -32.29999923706055)
    assert centre_of_mass_metres(cm) == stored
    assert stored[1] == float(np.float32(1e-2) * np.float32(-0.5))


def test_bad_spec_names_the_key_path():
    spec = {"version": 1, "map": "m", "date": 0, "frames": [{"position": [{"id": 1}]}]}
    with pytest.raises(Exception, match=r"frames\[0\]\.position\[0\]: missing key 'location'"):
        build_log(spec)
    spec = {"version": 1, "map": "m", "date": 0, "frames": [{"positon": []}]}
    with pytest.raises(Exception, match=r"frames\[0\]: unknown key 'positon'"):
        build_log(spec)


def test_bad_json_file_names_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"version": 1,\n "map": }')
    with pytest.raises(Exception, match=r"bad.json: bad JSON at line 2 column 9"):
        load_spec(path)


@pytest.mark.parametrize("size", [36, 48, 208])
def test_dump_then_build_every_wheel_size(size):
    wheel_type = WHEEL_LAYOUTS[size].record
    if size == 208:
        wheel = wheel_type(wheel_index=1, lateral_slip_graph=(0, 0, 0))
    else:
        wheel = wheel_type(*([2.5] * (len(WHEEL_LAYOUTS[size].names) - 1)), (1.0, -2.0, 0.5))
    record = PhysicsControlRecord(
        3, 5000.0, 1.0, 0.25, 2.0, 0.5, True, 10.0, 4.0, 1500.0, 0.25, (0.5, 0.0, -0.25),
        [(0.0, 400.0), (0.0, 300.0), (5000.0, 500.0)], [], [(0.0, 1.0)], [wheel] * 4, size,
    )  # fmt: skip
    writer = LogWriter(map_name="m", date=0, additional_data=True)
    writer.write_frame(0.05, {PacketId.PhysicsControl: [record]})
    raw = writer.getvalue()
    spec = json.loads(dump_json(dump_log(raw)))
    (control,) = spec["frames"][0]["physics_control"]
    assert control.get("wheel_size", 48) == size and "rpc" not in control
    # Equal times come back in the order AddKey needs to give the stored order.
    assert control["torque_curve"] == [[0.0, 300.0], [0.0, 400.0], [5000.0, 500.0]]
    assert build_log(spec) == raw


def test_raw_bool_bytes_survive_dump_and_build():
    # A State record whose 'frozen' byte is 2 (not a C++ bool value CARLA writes).
    writer = LogWriter(map_name="m", date=0)
    writer.begin_frame(0.0)
    writer.write_raw_packet(PacketId.State, struct.pack("<HIBfb", 1, 5, 2, 1.5, 1))
    writer.end_frame()
    raw = writer.getvalue()
    spec = json.loads(dump_json(dump_log(raw)))
    assert spec["frames"][0]["state"] == [{"id": 5, "frozen": 2, "elapsed": 1.5, "state": 1}]
    assert build_log(spec) == raw
