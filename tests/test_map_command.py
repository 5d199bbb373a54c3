"""`lockstep map generate` and `lockstep map info`, with numbers worked by hand."""

from __future__ import annotations

from pathlib import Path

from runner.cli import main
from world.map.towngen import TOWN_PRESETS, generate_town, render_town

REPO = Path(__file__).resolve().parent.parent


def test_generate_writes_the_town_the_api_generates(tmp_path):
    out = tmp_path / "t.xodr"
    assert main(["map", "generate", "--seed", "3", "--blocks", "2x1", "--lanes", "1-2",
                 "--hills", "-o", str(out)]) == 0  # fmt: skip
    assert out.read_text(encoding="utf-8") == generate_town(3, 2, 1, 100.0, (1, 2), hills=True,
                                                             name="t")  # fmt: skip


def test_generate_preset_matches_the_preset(tmp_path):
    out = tmp_path / "small.xodr"
    assert main(["map", "generate", "--preset", "town_small", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == render_town(TOWN_PRESETS["town_small"])


def test_info_on_a_one_block_town_worked_by_hand(tmp_path, capsys):
    # 1x1 block, one lane each way, 100 m blocks (see test_towngen's rules): 4 streets of 82 m
    # and 4 corner junctions with 2 quarter-arc turns of radius 9 m each.
    # roads 4 + 8 = 12; lanes: streets 2 driving + 2 sidewalks each (16), turns 1 driving
    # each, the 4 right turns also a sidewalk: driving 8 + 8 = 16, sidewalk 8 + 4 = 12.
    # signals: one speed-limit sign per street and direction = 8; corners have no control
    # and no crosswalks. Driving length: 8 * 82 + 8 * 9 * pi / 2 = 656 + 113.097 = 769.10 m.
    # Bounds: the outer sidewalk edges, 3.5 + 2 = 5.5 m outside the outer street centre
    # lines at 0 and 100 m: x -5.5 .. 105.5; y_carla = -y_odr gives -105.5 .. 5.5.
    path = tmp_path / "tiny.xodr"
    path.write_text(generate_town(0, 1, 1, 100.0, 1, name="tiny"), encoding="utf-8")
    assert main(["map", "info", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"map: tiny ({path})",
        "roads: 12 (8 in junctions)",
        "lanes: 28 (driving 16, sidewalk 12)",
        "junctions: 4 (controllers: 0)",
        "signals: 8 (speed limit 8)",
        "signal references: 0",
        "crosswalks: 0",
        "driving lanes length: 769.10 m",
        "bounds (CARLA frame): x -5.50 .. 105.50, y -105.50 .. 5.50",
    ]


def test_info_counts_town_small_by_hand(capsys):
    # town_small: 2x2 blocks, one lane each way. 3x3 crossings: 4 corners (2 arms, 2 turns
    # each), 4 T-junctions (3 arms: 2 movements per approach = 6), 1 crossing (4 x 3 = 12):
    # 8 + 24 + 12 = 44 connecting roads plus 12 streets = 56 roads, 9 junctions.
    # 5 controlled junctions: each has a crosswalk per arm, 4 * 3 + 4 = 16.
    path = str(REPO / "configs" / "maps" / "town_small.xodr")
    assert main(["map", "info", path]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "roads: 56 (44 in junctions)"
    assert lines[3].startswith("junctions: 9 ")
    assert lines[6] == "crosswalks: 16"
    assert lines[8] == "bounds (CARLA frame): x -5.50 .. 205.50, y -205.50 .. 5.50"


def test_bad_arguments_are_one_line_errors(tmp_path, capsys):
    out = str(tmp_path / "x.xodr")
    assert main(["map", "generate", "--blocks", "2by2", "-o", out]) == 2
    assert main(["map", "generate", "--lanes", "5", "-o", out]) == 2
    assert main(["map", "generate", "--preset", "nowhere", "-o", out]) == 2
    assert main(["map", "info", str(tmp_path / "missing.xodr")]) == 2
    bad = tmp_path / "bad.xodr"
    bad.write_text("<OpenDRIVE><road", encoding="utf-8")
    assert main(["map", "info", str(bad)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 5
    assert "--blocks: expected WxH" in err[0]
    assert "lanes: expected a count 1..3" in err[1]
    known = "town_medium, town_parking, town_small"
    assert f"--preset: expected one of {known}, found 'nowhere'" in err[2]
    assert "missing.xodr" in err[3]
    assert "bad.xodr" in err[4]
