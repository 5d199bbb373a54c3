"""Runs for the view's tests: the quickstart's config driven by an agent that never brakes
(tests/agents/rush_agent.py), so its routes have infractions; and a headless Chromium
(Debian's chromium and chromium-driver, through selenium), or the reason there is none."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import yaml

from runner.cli import main

REPO = Path(__file__).resolve().parent.parent
RUSH_AGENT = REPO / "tests" / "agents" / "rush_agent.py"
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--window-size=1280,800", "--force-device-scale-factor=1",
)  # fmt: skip


def rush_run(folder: Path, routes: str = "0-2", throttle: float | None = None) -> Path:
    """The quickstart's routes `routes` driven by the rushing agent into `folder`/run."""
    config = yaml.safe_load((REPO / "configs" / "quickstart.yaml").read_text(encoding="utf-8"))
    config["map"] = str(REPO / "configs" / "maps" / "town_small.xodr")
    config["agent"] = {"entry": str(RUSH_AGENT), "config": None}
    if throttle is not None:
        setting = folder / "throttle.txt"
        setting.write_text(str(throttle), encoding="utf-8")
        config["agent"]["config"] = str(setting)
    path = folder / "rush.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    out = folder / "run"
    code = main(["run", str(path), "-o", str(out), "--workers", "1", "--routes-subset", routes])
    assert code in (0, 1), f"lockstep run exited {code}"
    return out


def chrome_problem() -> str | None:
    """Why no headless Chromium can be driven here (None: it can)."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install 'lockstep[test]')"
    for program in ("chromium", "chromedriver"):
        if shutil.which(program) is None:
            return f"{program} is not installed (apt-get install chromium chromium-driver)"
    return None


@contextlib.contextmanager
def chrome() -> Iterator:
    """A headless Chromium through chromedriver, with a new empty profile (removed after)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    with tempfile.TemporaryDirectory(prefix="lockstep-chrome-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium")
        for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
        try:
            yield driver
        finally:
            driver.quit()
