"""`lockstep serve`: the pieces put together and run until stopped.

One process, one thread: the RPC port, the streaming port (RPC port + 1) and, when
lockstep's own traffic manager is asked for, its port, all in one loop (runner.serve.loop).
"""

from __future__ import annotations

import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path

from runner.carla.client import Client, configure
from runner.serve.dispatch import Dispatcher
from runner.serve.loop import Server
from runner.serve.methods import METHODS, UNSERVED
from runner.serve.session import Session
from runner.serve.traffic_manager import UNSERVED as TM_UNSERVED
from runner.serve.traffic_manager import traffic_manager_methods

__all__ = ["ServeOptions", "log_line", "make_server", "serve"]


def log_line(message: str) -> None:
    """One line on stderr, as everything the server has to say."""
    print(f"lockstep serve: {message}", file=sys.stderr, flush=True)


@dataclass(slots=True)
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 2000
    map: str | None = None  # an OpenDRIVE file or a map name
    maps: list[str] = field(default_factory=list)
    seed: int = 0
    synchronous: bool = False
    delta: float | None = None
    traffic_manager: str = "carla"  # whose traffic manager answers tm_port: carla | lockstep
    tm_port: int = 8000


def make_server(options: ServeOptions, log=log_line) -> tuple[Server, Session]:
    """The server listening on its ports and its session (the first world loaded)."""
    folders = list(options.maps)
    default_map = options.map
    if options.map is not None and Path(options.map).is_file():
        folders.insert(0, str(Path(options.map).resolve().parent))
        default_map = Path(options.map).stem
    configure(folders, default_map)
    client = Client(options.host, options.port)
    delta = options.delta if options.delta is not None else (0.05 if options.synchronous else None)
    session = Session(client, options.host, options.port, log, options.synchronous, delta)
    session.seed = options.seed
    if options.traffic_manager == "lockstep":
        session.traffic_managers[options.tm_port] = (options.host, options.tm_port, None)
    server = Server(session, log)
    try:  # the ports first: a port in use is said before a map is loaded
        dispatch = Dispatcher(session, METHODS, UNSERVED, log)
        server.listen(options.host, options.port, server.rpc_factory(dispatch))
        server.listen(options.host, options.port + 1, server.stream_factory())
        if options.traffic_manager == "lockstep":
            tm = Dispatcher(session, traffic_manager_methods(options.tm_port), TM_UNSERVED, log)
            factory = server.rpc_factory(tm, metadata=False, kind="traffic manager client")
            server.listen(options.host, options.tm_port, factory)
        session.world  # noqa: B018 - loads the first map before anyone connects
    except BaseException:
        server.close()
        raise
    return server, session


def serve(options: ServeOptions) -> int:
    """Serves until interrupted (Ctrl-C or SIGTERM); the recording in progress is closed."""
    server, session = make_server(options)
    mode = "synchronous" if options.synchronous else "asynchronous"
    if options.traffic_manager == "lockstep":
        manager = f"lockstep's traffic manager on port {options.tm_port}"
    else:
        manager = "CARLA's traffic manager (in the client)"
    log_line(
        f"serving {session.map_name()} on {options.host}:{options.port} "
        f"(streams on {options.port + 1}), {mode}, {manager}"
    )
    signal.signal(signal.SIGTERM, _stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        log_line("stopped")
    finally:
        session.client.stop_recorder()
        server.close()
    return 0


def _stop(signum, frame) -> None:
    raise KeyboardInterrupt
