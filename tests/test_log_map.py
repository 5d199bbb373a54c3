"""`lockstep render` and `lockstep replay` take the map from the run's manifest or the log's
header when `--map` is not given; a map that is not the header's town is an error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from runner_helpers import TOWN, write_config

from runner.cli import main
from runner.errors import UsageError
from runner.log_map import map_for_log, same_town

LOG = "RouteScenario_0_rep0.log"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("log_map")
    config = write_config(folder, traffic={"vehicles": 0}, limits={"route_seconds": 0.5})
    assert main(["run", str(config), "-o", str(folder / "run"), "--workers", "1"]) == 0
    return folder / "run"


def test_town_names_compare_as_carla_names_them():
    assert same_town("town_small", Path("maps/town_small.xodr"))
    assert same_town("Carla/Maps/Town10HD_Opt", Path("/x/Town10HD.xodr"))
    assert same_town("Town01", Path("town01.xodr"))
    assert not same_town("Town01", Path("Town02.xodr"))


def test_the_run_s_manifest_names_the_map(run_dir):
    assert map_for_log(run_dir / LOG, None, "render") == TOWN


def test_the_header_s_name_found_in_the_folders(run_dir, tmp_path, monkeypatch):
    log = tmp_path / "alone" / LOG
    log.parent.mkdir()
    shutil.copyfile(run_dir / LOG, log)  # no manifest here
    assert map_for_log(log, None, "replay") == TOWN  # lockstep's own maps hold town_small
    monkeypatch.setattr("runner.log_map.OWN_MAPS", tmp_path / "empty")
    with pytest.raises(UsageError) as err:
        map_for_log(log, None, "replay")
    assert str(err.value).startswith(
        f"replay: {log} was recorded on map 'town_small' (its header); no run manifest"
    )
    elsewhere = tmp_path / "maps"
    elsewhere.mkdir()
    shutil.copyfile(TOWN, elsewhere / "town_small.xodr")
    monkeypatch.setenv("LOCKSTEP_MAPS", f"{tmp_path / 'none'}:{elsewhere}")
    assert map_for_log(log, None, "replay") == elsewhere / "town_small.xodr"
    shutil.copyfile(TOWN, log.parent / "town_small.xodr")
    assert map_for_log(log, None, "replay") == log.parent / "town_small.xodr"  # beside first


def test_a_map_of_another_town_is_an_error(run_dir, tmp_path, capsys):
    other = tmp_path / "Town02.xodr"
    shutil.copyfile(TOWN, other)
    code = main(["replay", "-f", str(run_dir / LOG), "--map", str(other)])
    assert code == 2
    assert capsys.readouterr().err == (
        "lockstep: error: replay: the log was recorded on map 'town_small' (its header), "
        "--map is Town02.xodr: give the map of the run\n"
    )


def test_replay_without_map(run_dir, capsys):
    assert main(["replay", "-f", str(run_dir / LOG)]) == 0
    # 0.5 s of 0.05 s ticks is 10 frames; the log's time runs from its first frame (at 0)
    # over 9 ticks to the tenth
    assert "replayed 0.45 s in 9 ticks" in capsys.readouterr().out


def test_render_without_map(run_dir, tmp_path, capsys):
    pytest.importorskip("PIL", reason="render needs the pictures extra (Pillow)")
    out = tmp_path / "last.png"
    assert main(["render", str(run_dir / LOG), "-o", str(out)]) == 0
    assert out.is_file() and capsys.readouterr().out.startswith(f"wrote {out}: 1 picture(s)")
