"""`lockstep view`'s data: the section blobs, the frame chunks against the log, the map
layer's markings against the OpenDRIVE file, the infraction marks against the hero's logged
positions, the site's addresses and the static folder, CARLA's own logs."""

from __future__ import annotations

import json
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from view_helpers import REPO, rush_run

from recorder import PacketId, open_log
from recorder.picture.frame_chunks import CHUNK_FRAMES, FrameChunks
from recorder.picture.map_layer import layer_sections, map_layer, road_paint
from recorder.picture.sections import pack_sections, unpack_sections
from runner.cli import main
from runner.errors import ViewError
from runner.log_compare import compare_logs
from runner.view.site import NotFoundError, Site
from runner.view.sources import open_sources
from world.actors.vehicle_state import CityObjectLabel
from world.map.map import Map
from world.scene.static_scene import static_scene


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    return rush_run(tmp_path_factory.mktemp("rush"))


def _hero(log):
    return next(a for a in log.actors if a.attributes.get("role_name") == "hero")


def test_a_section_blob_is_laid_out_as_its_module_says() -> None:
    blob = pack_sections({"a": np.array([1, 2, 3], "<u2"), "bb": np.array([0.5], "<f8")})
    # magic, version 1, 2 sections; entries of 16 bytes: name, type code, 3 zeros, count
    assert blob[:12] == b"LSVS" + struct.pack("<II", 1, 2)
    assert blob[12:28] == b"a" + b"\0" * 7 + bytes([3, 0, 0, 0]) + struct.pack("<I", 3)
    assert blob[28:44] == b"bb" + b"\0" * 6 + bytes([8, 0, 0, 0]) + struct.pack("<I", 1)
    # data from byte 44 rounded up to 48, then the double at 48 + 6 rounded up to 56
    assert blob[48:54] == struct.pack("<3H", 1, 2, 3)
    assert blob[56:64] == struct.pack("<d", 0.5) and len(blob) == 64
    back = unpack_sections(blob)
    assert back["a"].tolist() == [1, 2, 3] and back["bb"].tolist() == [0.5]


def test_chunks_hold_the_logs_own_numbers(run: Path) -> None:
    log_path = run / "RouteScenario_0_rep0.log"
    log = open_log(log_path)
    chunks = FrameChunks(open_log(log_path))
    assert len(chunks) == -(-len(log.frames) // CHUNK_FRAMES)
    ids = [a.id for a in chunks.actors]
    chunk = chunks.chunk(1)
    for local in (0, 57, CHUNK_FRAMES - 1):
        frame = log.frames[CHUNK_FRAMES + local]
        rows = slice(chunk["p_start"][local], chunk["p_start"][local + 1])
        got = {ids[s]: (x, y, yaw) for s, x, y, yaw in zip(
            chunk["p_slot"][rows].tolist(), chunk["p_x"][rows].tolist(),
            chunk["p_y"][rows].tolist(), chunk["p_yaw"][rows].tolist(), strict=True)}  # fmt: skip
        # every vehicle's Position record, as the log's reader decodes it (cm, degrees)
        want = {r.id: (r.location[0], r.location[1], r.rotation[2])
                for r in frame.records(PacketId.Position) if r.id in ids}  # fmt: skip
        assert got == want
        rows = slice(chunk["v_start"][local], chunk["v_start"][local + 1])
        slots, throttles = chunk["v_slot"][rows].tolist(), chunk["v_throt"][rows].tolist()
        controls = {ids[s]: t for s, t in zip(slots, throttles, strict=True)}
        assert controls == {r.id: r.throttle for r in frame.records(PacketId.AnimVehicle)}


def test_a_poses_speed_is_its_distance_over_the_frames_time(run: Path) -> None:
    log_path = run / "RouteScenario_0_rep0.log"
    log = open_log(log_path)
    hero = _hero(log)
    chunks = FrameChunks(open_log(log_path))
    slot = [a.id for a in chunks.actors].index(hero.id)
    t = log.trajectory(hero.id)
    for pos in (CHUNK_FRAMES, CHUNK_FRAMES + 40):  # the first frame of a chunk needs the last
        chunk = chunks.chunk(pos // CHUNK_FRAMES)  # frame of the one before
        local = pos % CHUNK_FRAMES
        rows = np.arange(chunk["p_start"][local], chunk["p_start"][local + 1])
        speed = chunk["p_speed"][rows[chunk["p_slot"][rows] == slot][0]]
        step = [t[f][pos] - t[f][pos - 1] for f in ("x", "y", "z")]
        want = np.sqrt(sum(d * d for d in step)) / (t["elapsed"][pos] - t["elapsed"][pos - 1])
        assert speed == np.float32(want) and speed > 1.0


def test_the_road_paint_is_the_scenes_road_lines_from_above() -> None:
    path = REPO / "configs" / "maps" / "town_small.xodr"
    town = Map.from_file(path)
    xy, rgb = road_paint(town)
    scene = static_scene(town)
    lines = scene.tag == int(CityObjectLabel.RoadLines)
    assert len(xy) == int(lines.sum()) > 0
    assert np.array_equal(xy, scene.vertices[scene.triangles[lines]][..., :2])
    # town_small's roadMarks are white (solid) and yellow (broken): two paint colours
    colours = {m.get("color") for m in ET.parse(path).getroot().iter("roadMark")
               if m.get("type") not in ("none", "curb")}  # fmt: skip
    assert colours == {"white", "yellow"} and len(np.unique(rgb, axis=0)) == 2
    blob = unpack_sections(pack_sections(layer_sections(map_layer(town), (xy, rgb))))
    assert np.array_equal(blob["paint_xy"], xy.astype(np.float32).reshape(-1))


def test_an_infraction_is_marked_where_the_hero_was(run: Path) -> None:
    site = Site(open_sources([run]))
    meta = json.loads(site.get("data/route/0-0/meta.json").body)
    (mark,) = meta["marks"]
    assert mark["kind"] == "collisions_vehicle" and "(x=167.703, y=1.75, z=0.0)" in mark["text"]
    log = open_log(run / "RouteScenario_0_rep0.log")
    t = log.trajectory(_hero(log).id)
    # the criterion prints the hero's place rounded to 1 mm: the only frame where it was there
    there = np.flatnonzero((np.round(t["x"], 3) == 167.703) & (np.round(t["y"], 3) == 1.75))
    assert [mark["pos"]] == there.tolist()
    # a text with no place (outside the route lanes) is marked at the route's last frame
    meta = json.loads(site.get("data/route/0-2/meta.json").body)
    outside = next(m for m in meta["marks"] if m["kind"] == "outside_route_lanes")
    assert outside["pos"] == meta["frames"] - 1 and "x" not in outside


def test_the_run_and_route_descriptions(run: Path) -> None:
    site = Site(open_sources([run]))
    data = json.loads(site.get("data/run.json").body)
    results = json.loads((run / "results.json").read_text())
    records = results["_checkpoint"]["records"]
    rows = data["sources"][0]["routes"]
    assert [r["name"] for r in rows] == [r["route_id"] for r in records]
    assert [r["score"] for r in rows] == [r["scores"]["score_composed"] for r in records]
    meta = json.loads(site.get("data/route/0-0/meta.json").body)
    log = open_log(run / "RouteScenario_0_rep0.log")
    hero = _hero(log)
    assert meta["actors"][meta["hero"]]["id"] == hero.id
    assert meta["actors"][meta["hero"]]["blueprint"] == hero.blueprint
    # the route's polyline runs from its first key point to its last (quickstart.yaml)
    assert meta["route"][0] == pytest.approx([20.0, 1.75], abs=1.0)
    assert meta["route"][-1] == pytest.approx([180.0, 1.75], abs=1.0)
    times = unpack_sections(site.get("data/route/0-0/times.bin").body)
    assert times["elapsed"].tolist() == log.reader.frame_index.elapsed.tolist()
    with pytest.raises(NotFoundError):
        site.get("data/route/0-0/chunk/99.bin")
    with pytest.raises(NotFoundError):
        site.get("data/route/9-9/meta.json")


def test_two_runs_pair_their_routes_and_mark_the_first_divergence(tmp_path, run) -> None:
    other = rush_run(tmp_path, routes="0", throttle=0.5)
    site = Site(open_sources([run, other]))
    meta = json.loads(site.get("data/route/0-0/meta.json").body)
    assert meta["pair"] == "1-0"
    found = compare_logs(run / "RouteScenario_0_rep0.log", other / "RouteScenario_0_rep0.log")
    divergence = json.loads(site.get("data/route/0-0/divergence.json").body)
    assert divergence["frame"] == found.frame and divergence["text"] == str(found)
    index = open_log(run / "RouteScenario_0_rep0.log").reader.frame_index
    assert index.frame_id[divergence["pos"]] == found.frame


def test_the_static_folder_holds_every_address(tmp_path, run) -> None:
    out = tmp_path / "site"
    assert main(["view", str(run), "-o", str(out)]) == 0
    site = Site(open_sources([run]))
    for address in site.addresses():
        target = out / address
        if address.endswith((".html", ".js", ".css")) and "/" not in address:
            assert target.read_bytes() == site.get(address).body
        else:
            script = target.with_name(target.name + ".js").read_text()
            assert script.startswith(f'LS.deliver("{address}", ')


def test_carla_logs_are_shown_on_their_town(shared: Path) -> None:
    town = shared / "maps" / "carla" / "Town01.xodr"
    for name in ("DistanceBetweenVehicles", "DistanceToLaneCenter_2020"):
        site = Site(open_sources([shared / "carla-logs" / name / "recording.log"], town))
        meta = json.loads(site.get("data/route/0-0/meta.json").body)
        log = open_log(shared / "carla-logs" / name / "recording.log")
        hero = _hero(log)
        assert meta["actors"][meta["hero"]]["id"] == hero.id
        chunk = unpack_sections(site.get("data/route/0-0/chunk/0.bin").body)
        first = log.frames[0].records(PacketId.Position)
        slot = meta["hero"]
        row = chunk["p_slot"][: chunk["p_start"][1]].tolist().index(slot)
        (record,) = [r for r in first if r.id == hero.id]
        assert chunk["p_x"][row] == np.float32(record.location[0])


def test_bad_input_is_refused_in_one_line(tmp_path, capsys) -> None:
    with pytest.raises(ViewError, match="no such run directory or log"):
        open_sources([tmp_path / "nothing"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(ViewError, match="not a run directory"):
        open_sources([tmp_path / "empty"])
    junk = tmp_path / "junk.log"
    junk.write_bytes(b"not a log at all")
    assert main(["view", str(junk), "-o", str(tmp_path / "o")]) == 2
    assert "not a CARLA recorder log" in capsys.readouterr().err
    assert main(["export", str(junk)]) == 2
    assert "--mcap OUT.mcap and/or --rerun OUT.rrd" in capsys.readouterr().err
