"""What a server must survive: bytes that are not the protocol, unknown and unserved calls,
bad arguments, a client that goes away in the middle of a call, several clients at once,
and asynchronous mode (CARLA's default: the server steps the world itself).

Each case is one line on the server's log, and the server keeps serving: every test ends
with CARLA's real client doing a round trip on the same server.
"""

from __future__ import annotations

import socket
import time

import msgpack
import pytest
from serve_helpers import carla_client_or_skip, output, run_client, served

from runner.serve.loop import Server, StreamConnection


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    carla_client_or_skip()
    with served(tmp_path_factory.mktemp("serve")) as process:
        yield process


STILL_SERVING = """
import sys, carla
client = carla.Client("127.0.0.1", int(sys.argv[1]))
client.set_timeout(20.0)
world = client.get_world()
before = world.get_snapshot().frame
world.wait_for_tick()
print("ok", world.get_snapshot().frame > before, client.get_server_version())
"""


def _still_serving(server, tmp_path) -> None:
    assert output(run_client(tmp_path, server.port, STILL_SERVING)) == "ok True 0.9.16\n"
    assert server.alive()


def _call(sock: socket.socket, msgid: int, method: str, *args) -> list:
    sock.sendall(msgpack.packb([0, msgid, method, [[False], *args]]))
    unpacker = msgpack.Unpacker(raw=False)
    while True:
        data = sock.recv(65536)
        assert data, "the server closed the connection"
        unpacker.feed(data)
        for message in unpacker:
            return message


def _wait_for_log(server, text: str) -> None:
    deadline = time.monotonic() + 20.0
    while text not in server.log():
        assert time.monotonic() < deadline, f"{text!r} not in the log:\n{server.log()}"
        time.sleep(0.02)


def test_garbage_closes_only_that_connection(server, tmp_path):
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(b"\xc1" * 16)  # 0xc1 is never used in msgpack
        assert sock.recv(16) == b""  # closed by the server
    _wait_for_log(server, "sent not msgpack-rpc")
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(b"\xdd\xff\xff\xff\xff")  # an array of 4,294,967,295 items announced
        assert sock.recv(16) == b""
    _wait_for_log(server, "exceeds max_array_len")
    _still_serving(server, tmp_path)


def test_unknown_unserved_and_bad_calls_answer_errors(server, tmp_path):
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        assert _call(sock, 1, "no_such_call") == [1, 1, "unknown method 'no_such_call'", None]
        message = (
            "lockstep serve does not serve 'get_actor_bone_names' (a CARLA call lockstep lacks)"
        )
        assert _call(sock, 2, "get_actor_bone_names", 1) == [1, 2, None, [[0, [message]]]]
        nan = [[float("nan"), 0.0, 0.0], [0.0, 0.0, 0.0]]
        reply = _call(sock, 3, "set_actor_transform", 1, nan)
        assert reply == [
            1,
            3,
            None,
            [
                [
                    True,
                    [
                        "set_actor_transform: transform.location.x: "
                        "expected a finite number, found nan"
                    ],
                ]
            ],
        ]
        reply = _call(sock, 4, "set_actor_transform", 123456, [[0, 0, 0], [0, 0, 0]])
        assert reply[3] == [
            [
                True,
                [
                    "Responding error from function set_actor_transform: Actor "
                    "could not be found in the registry.  Actor Id: 123456"
                ],
            ]
        ]
        assert _call(sock, 5, "get_episode_settings", 1, 2)[3] == [
            [0, ["get_episode_settings: expected 0 arguments, found 2"]]
        ]
        assert _call(sock, 6, "version") == [1, 6, None, [[1, "0.9.16"]]]
    _wait_for_log(server, "unknown method 'no_such_call'")
    _still_serving(server, tmp_path)


UNSERVED = """
import sys, carla
client = carla.Client("127.0.0.1", int(sys.argv[1]))
client.set_timeout(20.0)
spectator = client.get_world().get_spectator()
try:
    spectator.get_bone_names()
except RuntimeError as exc:
    print(exc)
"""


def test_the_client_raises_carla_s_error_for_a_call_lockstep_lacks(server, tmp_path):
    out = output(run_client(tmp_path, server.port, UNSERVED))
    assert (
        out
        == "lockstep serve does not serve 'get_actor_bone_names' (a CARLA call lockstep lacks)\n"
    )


def test_a_client_that_leaves_in_the_middle_of_a_call(server, tmp_path):
    for _ in range(3):
        sock = socket.create_connection(("127.0.0.1", server.port))
        sock.sendall(msgpack.packb([0, 1, "get_actor_definitions", [[False]]])[:-3])
        sock.close()  # half a request, then gone
        sock = socket.create_connection(("127.0.0.1", server.port))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        sock.sendall(msgpack.packb([0, 1, "get_actor_definitions", [[False]]]))
        sock.close()  # a whole request, gone before the answer (reset)
    _still_serving(server, tmp_path)


TWO_CLIENTS = """
import sys, time, carla
port = int(sys.argv[1])
first = carla.Client("127.0.0.1", port)
second = carla.Client("127.0.0.1", port)
first.set_timeout(20.0)
second.set_timeout(20.0)
world = first.get_world()
other = second.get_world()
settings = world.get_settings()
settings.synchronous_mode = True
settings.fixed_delta_seconds = 0.05
world.apply_settings(settings)
print("second sees", other.get_settings().synchronous_mode)
for _ in range(5):
    frame = world.tick()
deadline = time.time() + 10.0
while other.get_snapshot().frame < frame and time.time() < deadline:
    time.sleep(0.01)
print("same frame", other.get_snapshot().frame == frame)
settings.synchronous_mode = False
settings.fixed_delta_seconds = None
world.apply_settings(settings)
"""


def test_two_clients_share_the_world(server, tmp_path):
    out = output(run_client(tmp_path, server.port, TWO_CLIENTS)).splitlines()
    assert out == ["second sees True", "same frame True"]
    _wait_for_log(server, "connected (2 now)")
    _still_serving(server, tmp_path)


def test_a_client_that_does_not_read_its_stream_is_dropped(monkeypatch):
    said: list[str] = []
    monkeypatch.setattr("runner.serve.loop.MAX_BACKLOG", 1 << 20)
    server = Server(session=None, log=said.append)
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    connection = StreamConnection(server, ours, "test")
    server.connections.append(connection)
    server.selector.register(ours, 1, ("connection", connection))
    chunk = bytes(64 << 10)
    for _ in range(200):  # 12.5 MiB, more than the socket's buffers and the bound
        connection.send(chunk)  # nobody reads `theirs`
    assert connection.closed
    assert said == ["stream client test dropped: it left more than 1 MiB unread"]
    assert server.connections == []
    theirs.close()


def test_bad_options_are_refused_in_one_line(tmp_path, capsys):
    from runner.cli import main

    for argv, text in (
        (["--port", "0"], "serve: --port: expected 1..65534, found 0"),
        (["--host", "localhost"], "serve: --host: expected an IPv4 address, found 'localhost'"),
        (["--maps", str(tmp_path / "nope")], f"serve: --maps {tmp_path / 'nope'}: not a folder"),
        (["--tm-port", "2001"], "serve: --tm-port: expected a free port, found 2001"),
        (["--sync", "--delta", "0"], "serve: --delta: expected seconds in (0, 1], found 0.0"),
    ):
        assert main(["serve", *argv]) == 2
        assert capsys.readouterr().err == f"lockstep: error: {text}\n"
    assert main(["serve", "--map", "NoSuchTown"]) == 2
    assert capsys.readouterr().err == "lockstep: error: Map 'NoSuchTown' not found\n"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    assert capsys.readouterr().err.endswith(
        f"lockstep: error: cannot listen on 127.0.0.1:{port}: Address already in use\n"
    )
