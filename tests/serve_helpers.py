"""Running `lockstep serve` and CARLA's real client (the carla==0.9.16 wheel) from tests.

The server runs as a subprocess on two free ports of 127.0.0.1; each client script runs in
a subprocess of its own with a timeout (CARLA's Traffic Manager aborts its process on any
failed call, which must fail the test, not the suite), and the test asserts on what the
script printed and the files it wrote, never on how CARLA's client library ended the process
(its stream threads abort or crash it now and then after the work is done, whatever the
server did).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
START_TIMEOUT = 120.0  # s for the server to load its first map (a busy CI machine)
CLIENT_TIMEOUT = 120.0


def carla_client_or_skip() -> None:
    """Skips, saying why, where CARLA's wheel is not installed (none exists for this
    platform: it is built for CPython 3.10-3.12 on x86-64 Linux and Windows)."""
    probe = subprocess.run(
        [sys.executable, "-c", "import carla.libcarla"],
        capture_output=True,
        text=True,
        cwd=os.path.dirname(sys.executable),
    )
    if probe.returncode != 0:
        pytest.skip(
            "CARLA's client (carla==0.9.16 from the package index) is not installed here: "
            "its wheels are for CPython 3.10-3.12 on x86-64 Linux and Windows"
        )


def free_ports() -> int:
    """A port P of 127.0.0.1 with P + 1 free too (the RPC and the streaming port)."""
    for _ in range(50):
        with socket.socket() as a, socket.socket() as b:
            a.bind(("127.0.0.1", 0))
            port = a.getsockname()[1]
            if port >= 65535:
                continue
            try:
                b.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
            return port
    raise RuntimeError("no two consecutive free ports on 127.0.0.1")


class ServerProcess:
    """A `lockstep serve` subprocess; `log()` is what it wrote on stderr so far."""

    def __init__(self, folder: Path, *args: str) -> None:
        for _ in range(3):  # another process (a parallel test) may take the ports first
            self.port = free_ports()
            self.log_path = folder / f"serve_{self.port}.log"
            self._log = self.log_path.open("w")
            self.process = subprocess.Popen(
                [sys.executable, "-m", "runner.cli", "serve", "--port", str(self.port), *args],
                cwd=REPO,
                stdout=self._log,
                stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONPATH": str(REPO)},
            )
            deadline = time.monotonic() + START_TIMEOUT
            while "serving" not in self.log():
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    break
                time.sleep(0.05)
            else:
                return
            if "cannot listen on" not in self.log():
                break
        raise RuntimeError(f"lockstep serve did not start:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text()

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()


@contextmanager
def served(folder: Path, *args: str) -> Iterator[ServerProcess]:
    server = ServerProcess(folder, *args)
    try:
        yield server
    finally:
        server.stop()


# CARLA's client tears its stream threads down racily when the interpreter exits right after
# a sensor stops listening (it aborts or crashes in about half of such exits, whatever the
# server): a script's work is done by then, so it leaves without the teardown. Its lines go
# out as printed (unbuffered), so none is lost if the library kills the process first.
_LEAVE = "\nimport os as _os, sys as _sys\n_sys.stdout.flush()\n_sys.stderr.flush()\n_os._exit(0)\n"


def run_client(
    folder: Path, port: int, script: str, *args: str, timeout: float = CLIENT_TIMEOUT
) -> subprocess.CompletedProcess:
    """Runs `script` (its text; its first argument is the server's port) with CARLA's
    client, and then leaves the process without the client's teardown (see _LEAVE)."""
    path = folder / f"client_{abs(hash(script)) % 10**8}.py"
    path.write_text(textwrap.dedent(script) + _LEAVE)
    return subprocess.run(
        [sys.executable, "-u", str(path), str(port), *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(folder)},
    )


def output(done: subprocess.CompletedProcess) -> str:
    """The client's stdout, for the test to judge line by line. A script that failed in
    Python (an exception, a non-zero exit) fails here with its stderr. A process killed by a
    signal (CARLA's client library aborting, "terminate called without an active exception",
    or crashing in its own threads) is judged by what it printed and wrote: its stderr is
    shown with the test's failure, if any."""
    if done.returncode < 0:
        print(
            f"the client was killed by signal {-done.returncode} (CARLA's client library); "
            f"judged by its lines:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
        )
        return done.stdout
    assert done.returncode == 0, (
        f"client exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    )
    return done.stdout
