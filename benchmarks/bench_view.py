"""The run page's speed in a real browser: time to the first picture of a 10-minute,
200-actor route and its playback frames per second (`lockstep view`, docs/view.md).

The log is made by lockstep itself, once, and kept in the output folder (default
runs/bench_view/): town_medium with an autopilot hero, 150 autopilot cars and 50 AI walkers
(with their controllers, 250 actors in the log) recorded for 12,000 ticks of 0.05 s with
additional data (bench_render.py's recording). Then
`lockstep view LOG --port 0` serves it (a fresh process), and headless Chromium (Debian's
chromium and chromium-driver, through selenium) opens the route:

- first picture: from the page's navigation start to the route's first frame drawn (the
  page itself, run.json, the route's description, times, map and first chunk fetched and
  parsed), for the first visit after the server starts and for a second visit;
- playback: pictures drawn per second while playing at 1x and at 16x (320 log frames a
  second, so every picture is a new frame), beside the browser's own frame rate (an empty
  requestAnimationFrame loop in the same page: the most any page can draw);
- a jump to the middle of the log: from the seek to the picture drawn (a chunk fetched).

Goals (issue 28): the route opens in under 2 s and plays at the browser's frame rate.
Figures taken while the machine is busy are noisy; the printed load average says how busy.

    python benchmarks/bench_view.py [--out DIR] [--ticks N] [--vehicles N] [--walkers N]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_render import record  # noqa: E402

TOWN = ROOT / "configs" / "maps" / "town_medium.xodr"
DT = 0.05


def record_once(path: Path, ticks: int, vehicles: int, walkers: int) -> None:
    """Records the run into `path` unless it is there (staged, renamed when whole)."""
    if path.is_file():
        return
    print(f"recording {ticks} ticks of town_medium with {vehicles} cars and {walkers} walkers")
    staged = path.with_suffix(".partial")
    begin = time.perf_counter()
    record(staged, ticks, vehicles, walkers, TOWN, debug=False)
    staged.replace(path)
    print(f"recorded in {time.perf_counter() - begin:.0f} s")


def serve(log: Path) -> tuple[subprocess.Popen, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    server = subprocess.Popen(
        [sys.executable, "-m", "runner.cli", "view", str(log), "--map", str(TOWN), "--port", "0"],
        stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    line = server.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:\d+/", line)
    if not found:
        server.kill()
        raise SystemExit(f"lockstep view did not start: {line!r}")
    return server, found.group(0)


def wait(driver, script: str, timeout: float = 120.0):
    end = time.monotonic() + timeout
    while not (value := driver.execute_script(f"return {script}")):
        if time.monotonic() > end:
            errors = driver.execute_script("return window.LS ? LS.state.errors : null")
            raise SystemExit(f"waited {timeout} s for {script}: page errors {errors}")
        time.sleep(0.02)
    return value


def first_picture(driver, url: str) -> float:
    """Seconds from navigation start to the route's first picture."""
    driver.get("about:blank")
    driver.get(url + "#route=0-0")
    return wait(driver, "window.LS && LS.state.firstPictureAt") / 1000.0


def playback(driver, speed: str, seconds: float) -> float:
    driver.execute_script(
        "LS.seek(0); document.getElementById('speed').value = arguments[0];"
        "document.getElementById('speed').dispatchEvent(new Event('change'));", speed
    )  # fmt: skip
    driver.find_element("id", "play").click()
    time.sleep(seconds + 0.5)
    rate = driver.execute_script("return LS.frameRate(arguments[0])", seconds)
    driver.find_element("id", "play").click()
    return rate


def browser_rate(driver, seconds: float) -> float:
    """requestAnimationFrame callbacks per second of an empty loop in the page."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1], until = performance.now() + arguments[0];"
        "let n = 0; const step = (t) => { n += 1; if (t < until) requestAnimationFrame(step);"
        " else done(n / arguments[0] * 1000); }; requestAnimationFrame(step);",
        seconds * 1000.0,
    )


def jump(driver) -> float:
    """Milliseconds from a seek to the log's middle to its picture drawn."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "const n = LS.state.route.n, t0 = performance.now(), drawn = LS.state.drawn;"
        "LS.seek(Math.floor(n / 2));"
        "const check = () => (LS.state.drawn > drawn && !LS.state.dirty)"
        " ? done(performance.now() - t0) : requestAnimationFrame(check); check();"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "runs" / "bench_view"))
    parser.add_argument("--ticks", type=int, default=12_000)
    parser.add_argument("--vehicles", type=int, default=150)
    parser.add_argument("--walkers", type=int, default=50)
    args = parser.parse_args()
    from view_helpers import chrome, chrome_problem

    problem = chrome_problem()
    if problem is not None:
        print(f"bench_view: cannot measure: {problem}")
        return 1
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = out / f"town_medium_{args.vehicles}v_{args.walkers}w_{args.ticks}.log"
    record_once(log, args.ticks, args.vehicles, args.walkers)
    print(f"log: {log} ({log.stat().st_size / 1e6:.0f} MB); load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")  # fmt: skip
    server, url = serve(log)
    try:
        with chrome() as driver:
            cold = first_picture(driver, url)
            meta = driver.execute_script(
                "return [LS.state.route.n, LS.state.route.meta.actors.filter(a => !a.place).length]"
            )
            warm = first_picture(driver, url)
            raf = browser_rate(driver, 3.0)
            at1 = playback(driver, "1", 4.0)
            at16 = playback(driver, "16", 4.0)
            middle = jump(driver)
            errors = driver.execute_script("return LS.state.errors")
    finally:
        server.terminate()
        server.wait(10)
    frames, actors = meta
    print(f"route: {frames} frames ({frames * DT / 60:.1f} min), {actors} actors drawn")
    print(f"first picture, first visit:   {cold:6.2f} s   (goal < 2 s: {cold / 2.0:.2f} of it)")
    print(f"first picture, second visit:  {warm:6.2f} s")
    print(f"browser frame rate (empty requestAnimationFrame loop): {raf:5.1f} /s")
    print(f"playback at 1x:  {at1:5.1f} pictures/s ({at1 / raf:.2f} of the browser's rate)")
    print(f"playback at 16x: {at16:5.1f} pictures/s ({at16 / raf:.2f} of the browser's rate)")
    print(f"jump to the middle: {middle:.0f} ms to its picture")
    if errors:
        print(f"page errors: {errors}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
