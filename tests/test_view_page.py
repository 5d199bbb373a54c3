"""`lockstep view` in a real browser (Debian's headless Chromium through selenium): the score
table, a route played, a jump to an infraction, the hero clicked, followed, a static folder
opened from disk, two runs overlaid, CARLA's own log. Pixels and texts are checked against
the log, read by the recorder's own reader.

One browser and one `lockstep view` server serve the whole module. The page shows numbers
with JavaScript's toFixed: the exact binary value rounded half away from zero
(`to_fixed` below does the same with Decimal).
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import time
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import numpy as np
import pytest
from view_helpers import REPO, chrome, chrome_problem, rush_run

from recorder import PacketId, open_log
from recorder.picture.palette import NAMED
from runner.cli import main
from runner.log_compare import compare_logs

PROBLEM = chrome_problem()
if PROBLEM is not None:
    print(f"test_view_page: skipped: {PROBLEM}", file=sys.stderr)
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=PROBLEM or "")
VEHICLE_LIGHTS = ["Position", "LowBeam", "HighBeam", "Brake", "RightBlinker", "LeftBlinker",
                  "Reverse", "Fog", "Interior", "Special1", "Special2"]  # fmt: skip


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    return rush_run(tmp_path_factory.mktemp("rush"))


@pytest.fixture(scope="module")
def url(run: Path):
    server = subprocess.Popen(
        [sys.executable, "-m", "runner.cli", "view", str(run), "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
    )  # fmt: skip
    try:
        line = server.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert found, f"no address in {line!r}: {server.stderr.read() if server.poll() else ''}"
        yield found.group(0)
    finally:
        server.terminate()
        server.wait(10)


@pytest.fixture(scope="module")
def browser():
    with chrome() as driver:
        yield driver


def to_fixed(x: float, digits: int) -> str:
    q = Decimal(float(x)).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    return f"{abs(q) if x == 0 else q:f}"


def wait(browser, script: str, timeout: float = 30.0):
    """Polls `return <script>` until it is truthy; its value."""
    end = time.monotonic() + timeout
    while True:
        value = browser.execute_script(f"return {script}")
        if value:
            return value
        if time.monotonic() > end:
            errors = browser.execute_script("return LS.state.errors")
            raise AssertionError(f"waited {timeout} s for {script}; page errors: {errors}")
        time.sleep(0.05)


def open_route(browser, address: str) -> None:
    browser.get(address)
    wait(browser, "window.LS && LS.state.route && LS.state.firstPicture !== null")


def settled(browser) -> None:
    """Waits until the frame on screen is drawn (its chunks loaded, nothing left to draw)."""
    wait(browser, "LS.state.route.has(LS.state.pos) && !LS.state.dirty")


def hero_at(log_path: Path, pos: int) -> dict:
    """The hero's logged values in frame `pos` (an index), from the recorder's reader."""
    log = open_log(log_path)
    hero = next(a for a in log.actors if a.attributes.get("role_name") == "hero")
    frame = log.frames[pos]
    out = {"actor": hero}
    out["pose"] = next(r for r in frame.records(PacketId.Position) if r.id == hero.id)
    out["control"] = next(r for r in frame.records(PacketId.AnimVehicle) if r.id == hero.id)
    out["lights"] = next(r for r in frame.records(PacketId.VehicleLight) if r.id == hero.id)
    t = log.trajectory(hero.id)
    step = [t[f][pos] - t[f][pos - 1] for f in ("x", "y", "z")]
    dt = t["elapsed"][pos] - t["elapsed"][pos - 1]
    out["speed"] = np.float32(np.sqrt(sum(d * d for d in step)) / dt)
    out["xy"] = (out["pose"].location[0] / 100.0, out["pose"].location[1] / 100.0)
    return out


def hero_drawn_at(browser, log_path: Path, pos: int) -> dict:
    """Seeks frame `pos`; asserts the hero's colour at its logged place; its values."""
    browser.execute_script("LS.seek(arguments[0])", pos)
    settled(browser)
    hero = hero_at(log_path, pos)
    assert pixel(browser, *hero["xy"]) == NAMED["hero"]
    return hero


def pixel(browser, x: float, y: float) -> tuple[int, int, int]:
    """The screenshot's colour at world point (x, y) m, projected by the page's view."""
    from PIL import Image

    u, v = browser.execute_script("return LS.project(arguments[0], arguments[1])", x, y)
    shot = Image.open(io.BytesIO(browser.get_screenshot_as_png())).convert("RGB")
    return shot.getpixel((round(u), round(v)))


def no_errors(browser) -> None:
    assert browser.execute_script("return LS.state.errors") == []
    severe = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == []


def test_the_score_table_is_results_json(browser, url, run) -> None:
    browser.get(url)
    wait(browser, "document.querySelectorAll('tr.route').length === 3")
    rows = browser.execute_script(
        "return [...document.querySelectorAll('tr.route')].map("
        "r => [...r.children].slice(0, 5).map(c => c.textContent))"
    )
    records = json.loads((run / "results.json").read_text())["_checkpoint"]["records"]
    assert rows == [
        [r["route_id"], r["status"], f"{r['scores']['score_route']:.2f}",
         f"{r['scores']['score_penalty']:.3f}", f"{r['scores']['score_composed']:.2f}"]
        for r in records
    ]  # fmt: skip
    no_errors(browser)


def test_a_route_opens_plays_and_pauses(browser, url) -> None:
    browser.get(url)
    wait(browser, "document.querySelectorAll('tr.route').length === 3")
    browser.find_element("css selector", "tr.route[data-key='0-0']").click()
    wait(browser, "LS.state.route && LS.state.firstPicture !== null")
    drawn = browser.execute_script("return LS.state.drawn")
    browser.find_element("id", "speed").send_keys("4")
    browser.find_element("id", "play").click()
    wait(browser, "LS.state.pos > 20", 20)
    browser.find_element("id", "play").click()
    pos = browser.execute_script("return LS.state.playing ? -1 : LS.state.pos")
    assert pos > 20 and browser.execute_script("return LS.state.drawn") > drawn
    clock = browser.find_element("id", "clock").text
    frame = browser.execute_script("return LS.state.route.frameIds[LS.state.pos]")
    assert f"frame {int(frame)} ({pos + 1}/" in clock
    no_errors(browser)


def test_an_infraction_mark_shows_the_hero_where_it_hit(browser, url, run) -> None:
    log_path = run / "RouteScenario_0_rep0.log"
    open_route(browser, url + "#route=0-0")
    mark = browser.find_element("css selector", "#marks .mark")
    mark.click()
    settled(browser)
    pos = browser.execute_script("return LS.state.pos")
    hero = hero_at(log_path, pos)
    # the results.json text's place is the hero's logged place in that frame, to 1 mm
    x, y = hero["pose"].location[0] / 100.0, hero["pose"].location[1] / 100.0
    assert (round(x, 3), round(y, 3)) == (167.703, 1.75)
    assert browser.find_element("id", "scrub").get_attribute("value") == str(pos)
    assert pixel(browser, x, y) == NAMED["hero"]
    no_errors(browser)


def test_the_hero_clicked_shows_the_logs_values(browser, url, run) -> None:
    from selenium.webdriver import ActionChains

    log_path = run / "RouteScenario_0_rep0.log"
    open_route(browser, url + "#route=0-0")
    browser.execute_script("LS.seek(150)")
    settled(browser)
    hero = hero_at(log_path, 150)
    x, y = hero["pose"].location[0] / 100.0, hero["pose"].location[1] / 100.0
    canvas = browser.find_element("id", "map")
    u, v = browser.execute_script("return LS.project(arguments[0], arguments[1])", x, y)
    box = browser.execute_script("return arguments[0].getBoundingClientRect().toJSON()", canvas)
    centre = (box["left"] + box["width"] / 2, box["top"] + box["height"] / 2)
    ActionChains(browser).move_to_element_with_offset(
        canvas, round(u - centre[0]), round(v - centre[1])
    ).click().perform()
    wait(browser, "document.getElementById('actor-id').textContent !== ''")
    fields = ("id", "blueprint", "role", "speed", "control", "lights", "position")
    text = {f: browser.find_element("id", f"actor-{f}").text for f in fields}
    c, pose, speed = hero["control"], hero["pose"], hero["speed"]
    on = [n for k, n in enumerate(VEHICLE_LIGHTS) if hero["lights"].state & (1 << k)]
    assert text == {
        "id": str(hero["actor"].id),
        "blueprint": hero["actor"].blueprint,
        "role": "hero",
        "speed": f"{to_fixed(speed, 2)} m/s ({to_fixed(float(speed) * 3.6, 1)} km/h)",
        "control": f"throttle {to_fixed(c.throttle, 3)}, steer {to_fixed(c.steering, 3)}, "
        f"brake {to_fixed(c.brake, 3)}, hand brake {'on' if c.handbrake else 'off'}, "
        f"gear {c.gear}",
        "lights": ", ".join(on) or "none",
        "position": f"x {to_fixed(x, 2)}, y {to_fixed(y, 2)}, "
        f"z {to_fixed(pose.location[2] / 100, 2)} m, yaw {to_fixed(pose.rotation[2], 1)}°",
    }
    assert text["speed"] != "0.00 m/s (0.0 km/h)"  # the rushing hero is moving at frame 150
    no_errors(browser)


def test_follow_keeps_the_hero_in_the_middle(browser, url, run) -> None:
    open_route(browser, url + "#route=0-1")
    browser.find_element("id", "follow").click()
    hero = hero_drawn_at(browser, run / "RouteScenario_1_rep0.log", 200)
    x, y = hero["xy"]
    u, v = browser.execute_script("return LS.project(arguments[0], arguments[1])", x, y)
    box = browser.execute_script(
        "return document.getElementById('map').getBoundingClientRect().toJSON()"
    )
    assert abs(u - (box["left"] + box["width"] / 2)) < 1.0
    assert abs(v - (box["top"] + box["height"] / 2)) < 1.0


def test_a_static_folder_opens_from_disk_with_camera_pictures(browser, run, tmp_path) -> None:
    from PIL import Image

    # a camera's pictures beside the log, named by the log frames they show (docs/view.md):
    # frames 100 and 110 (ids 101 and 111) in two colours
    log = run / "RouteScenario_2_rep0.log"
    folder = log.with_name(log.name + ".images") / "front"
    folder.mkdir(parents=True)
    Image.new("RGB", (64, 48), (0, 200, 0)).save(folder / "000101.png")
    Image.new("RGB", (64, 48), (0, 0, 200)).save(folder / "111.png")
    out = tmp_path / "page"
    try:
        assert main(["view", str(run), "-o", str(out)]) == 0
    finally:
        for picture in folder.iterdir():
            picture.unlink()
        folder.rmdir()
        folder.parent.rmdir()
    open_route(browser, (out / "index.html").as_uri() + "#route=0-2")
    hero_drawn_at(browser, log, 120)
    # frame 121 shows the last picture at or before it: 111's (blue); frame 105, 101's
    shown = "document.querySelector('#camera-list img[data-camera=front]')"
    wait(browser, f"{shown}.complete && {shown}.naturalWidth === 64")
    assert browser.execute_script(f"return {shown}.src").endswith("/img/front/111.png")
    browser.execute_script("LS.seek(104)")
    settled(browser)
    assert browser.execute_script(f"return {shown}.src").endswith("/img/front/101.png")
    marks = browser.execute_script("return document.querySelectorAll('#marks .mark').length")
    assert marks == sum(
        len(v) for v in _record(run, "RouteScenario_2_rep0")["infractions"].values()
    )
    no_errors(browser)


def test_two_runs_overlaid_mark_their_first_divergence(browser, run, tmp_path) -> None:
    other = rush_run(tmp_path, routes="0", throttle=0.5)
    out = tmp_path / "page"
    assert main(["view", str(run), str(other), "-o", str(out)]) == 0
    open_route(browser, (out / "index.html").as_uri() + "#route=0-0")
    wait(browser, "document.querySelector('#marks .divergence') !== null")
    found = compare_logs(run / "RouteScenario_0_rep0.log", other / "RouteScenario_0_rep0.log")
    mark = browser.find_element("css selector", "#marks .divergence")
    pos = int(mark.get_attribute("data-pos"))
    index = open_log(run / "RouteScenario_0_rep0.log").reader.frame_index
    assert int(index.frame_id[pos]) == found.frame
    assert mark.get_attribute("title") == str(found)
    mark.click()
    settled(browser)
    assert browser.execute_script("return LS.state.pos") == pos
    no_errors(browser)


def test_a_carla_log_on_its_town(browser, shared, tmp_path) -> None:
    log = shared / "carla-logs" / "DistanceBetweenVehicles" / "recording.log"
    out = tmp_path / "page"
    town = shared / "maps" / "carla" / "Town01.xodr"
    assert main(["view", str(log), "--map", str(town), "-o", str(out)]) == 0
    open_route(browser, (out / "index.html").as_uri() + "#route=0-0")
    hero_drawn_at(browser, log, 400)
    no_errors(browser)


def _record(run: Path, route_id: str) -> dict:
    records = json.loads((run / "results.json").read_text())["_checkpoint"]["records"]
    return next(r for r in records if r["route_id"] == route_id)
