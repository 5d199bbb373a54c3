"""The manifest writer turns the config's part into YAML once and each route's entry once; the
file is the text yaml.safe_dump gives for the whole manifest, at every rewrite."""

from __future__ import annotations

import yaml
from runner_helpers import write_config

from runner.config import load_config
from runner.execution.manifest import ManifestWriter, read_manifest


def _entry(k: int, **extra) -> dict:
    return {
        "route": str(k),
        "repetition": 0,
        "log": f"RouteScenario_{k}_rep0.log",
        "sensors": [{"type": "sensor.speedometer", "id": "speed", "reading_frequency": 20}],
        "failure": "",
        "ticks": 100 + k,
        "loop_ticks": 100 + k,
        **extra,
    }


def _whole(writer: ManifestWriter, routes: dict) -> str:
    """The manifest as one yaml.safe_dump of all of it."""
    data = {**yaml.safe_load(writer.path.read_text(encoding="utf-8")), "routes": routes}
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def test_each_rewrite_is_the_whole_manifest_dumped_at_once(tmp_path):
    config = load_config(write_config(tmp_path))
    writer = ManifestWriter(tmp_path, config)
    routes: dict[str, dict] = {}
    long_message = "the agent stopped: " + " ".join(["a word"] * 40)  # wraps past 80 columns
    for k, extra in enumerate([{}, {"failure": long_message}, {"note": "a & b"}, {}]):
        writer.write(routes)
        assert writer.path.read_text(encoding="utf-8") == _whole(writer, routes)
        routes[f"RouteScenario_{k}_rep0"] = _entry(k, **extra)
    routes["RouteScenario_0_rep0"] = _entry(0, ticks=7)  # a route merged again, changed
    writer.write(routes)
    assert writer.path.read_text(encoding="utf-8") == _whole(writer, routes)
    assert read_manifest(tmp_path)["routes"]["RouteScenario_0_rep0"]["ticks"] == 7


def test_an_entry_changed_in_place_is_dumped_again(tmp_path):
    writer = ManifestWriter(tmp_path, load_config(write_config(tmp_path)))
    routes = {"RouteScenario_0_rep0": _entry(0)}
    writer.write(routes)
    routes["RouteScenario_0_rep0"]["sensors"].append({"type": "sensor.other.gnss", "id": "gps"})
    writer.write(routes)
    assert len(read_manifest(tmp_path)["routes"]["RouteScenario_0_rep0"]["sensors"]) == 2
