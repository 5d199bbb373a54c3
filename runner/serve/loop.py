"""The server's one loop: every socket in one selector, on one thread, no sleeps.

Listening sockets accept; an RPC connection's bytes become requests, each answered in
order as soon as it is read; a stream connection names its stream in its first 4 bytes
and then only receives. Writes go straight to the socket and what it does not take waits
in the connection's buffer for the socket to be writable again; a client that lets more
than MAX_BACKLOG bytes pile up is dropped (it reconnects if it wants more). The only
timer is the asynchronous clock: when the client asked for asynchronous mode the loop
steps the world itself (runner.serve.session).

Whatever a client does (bytes that are not msgpack-rpc, a call that fails, going away in
the middle of a reply) costs it its connection at most, with one line on the log; the
server goes on.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import struct
import time
from collections.abc import Callable
from typing import Any

from runner.serve.errors import MalformedStreamError, ServeError
from runner.serve.stream import WORLD_STREAM, frame_message
from runner.serve.wire import RpcReader

__all__ = ["MAX_BACKLOG", "MAX_CONNECTIONS", "Server"]

MAX_BACKLOG = 256 << 20  # bytes waiting to go out on one connection
MAX_CONNECTIONS = 512
_READ = 1 << 18
_CATCH_UP = 5  # steps the asynchronous clock may fall behind before it stops catching up


class Connection:
    """A client socket and what waits to be written to it."""

    kind = "connection"

    def __init__(self, server: Server, sock: socket.socket, peer: str) -> None:
        self.server = server
        self.sock = sock
        self.peer = peer
        self.out = bytearray()
        self.closed = False

    def send(self, data: bytes) -> None:
        """Writes `data` now as far as the socket takes it; the rest waits in order."""
        if self.closed:
            return
        if not self.out:
            try:
                sent = self.sock.send(data)
            except BlockingIOError:
                sent = 0
            except OSError as exc:
                self.close(f"went away ({exc.strerror or exc})")
                return
            if sent == len(data):
                return
            data = memoryview(data)[sent:]
            self.server.want_write(self, True)
        self.out += data
        if len(self.out) > MAX_BACKLOG:
            self.close(f"dropped: it left more than {MAX_BACKLOG >> 20} MiB unread")

    def writable(self) -> None:
        try:
            sent = self.sock.send(self.out)
        except BlockingIOError:
            return
        except OSError as exc:
            self.close(f"went away ({exc.strerror or exc})")
            return
        del self.out[:sent]
        if not self.out:
            self.server.want_write(self, False)

    def readable(self) -> None:
        try:
            data = self.sock.recv(_READ)
        except BlockingIOError:
            return
        except OSError as exc:
            self.close(f"went away ({exc.strerror or exc})")
            return
        if not data:
            self.close(None)
            return
        self.received(data)

    def received(self, data: bytes) -> None:  # pragma: no cover - every kind has one
        raise NotImplementedError

    def close(self, reason: str | None) -> None:
        if self.closed:
            return
        self.closed = True
        if reason:
            self.server.log(f"{self.kind} {self.peer} {reason}")
        self.server.forget(self)
        with contextlib.suppress(OSError):
            self.sock.close()


class RpcConnection(Connection):
    """A client's calls: each request answered in the order it came."""

    kind = "client"

    def __init__(
        self,
        server: Server,
        sock: socket.socket,
        peer: str,
        dispatch: Callable[[Any], bytes | None],
        metadata: bool,
    ) -> None:
        super().__init__(server, sock, peer)
        self.reader = RpcReader(metadata=metadata)
        self.dispatch = dispatch

    def received(self, data: bytes) -> None:
        try:
            items = self.reader.feed(data)
        except MalformedStreamError as exc:
            self.close(f"sent {exc}: connection closed")
            return
        for item in items:
            self.server.session.caller = self
            answer = self.dispatch(item)
            if self.closed:
                return
            if answer is not None:
                self.send(answer)


_STREAM_ID = struct.Struct("<I")


class StreamConnection(Connection):
    """A subscription: 4 bytes naming the stream, then only what the server pushes."""

    kind = "stream client"

    def __init__(self, server: Server, sock: socket.socket, peer: str) -> None:
        super().__init__(server, sock, peer)
        self.head = b""
        self.stream_id: int | None = None

    def received(self, data: bytes) -> None:
        if self.stream_id is not None:
            return  # CARLA's client sends nothing after the stream id
        self.head += data[: _STREAM_ID.size - len(self.head)]
        if len(self.head) == _STREAM_ID.size:
            (self.stream_id,) = _STREAM_ID.unpack(self.head)
            self.server.subscribed(self)

    def close(self, reason: str | None) -> None:
        if not self.closed and self.stream_id is not None:
            self.server.session.streams.unsubscribe(self.stream_id, self)
        if reason and "reset by peer" in reason:
            reason = None  # CARLA's client resets a stream when it stops listening
        super().close(reason)


class Server:
    """The listening sockets of one session and their connections, in one selector."""

    def __init__(self, session: Any, log: Callable[[str], None]) -> None:
        self.session = session
        self.log = log
        self.selector = selectors.DefaultSelector()
        self.connections: list[Connection] = []
        self._listeners: list[socket.socket] = []
        self._next_step: float | None = None

    # sockets ------------------------------------------------------------------------------
    def listen(self, host: str, port: int, factory: Callable[[socket.socket, str], Any]) -> int:
        """Listens on host:port (0: a free port) and returns the port."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            sock.close()
            raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
        sock.listen(64)
        sock.setblocking(False)
        self.selector.register(sock, selectors.EVENT_READ, ("listener", factory))
        self._listeners.append(sock)
        return sock.getsockname()[1]

    def rpc_factory(
        self, dispatch: Callable[[Any], bytes | None], metadata: bool = True, kind: str = "client"
    ) -> Callable[[socket.socket, str], Connection]:
        def make(sock: socket.socket, peer: str) -> Connection:
            connection = RpcConnection(self, sock, peer, dispatch, metadata)
            connection.kind = kind
            self.log(f"{kind} {peer} connected ({len(self._rpc_connections()) + 1} now)")
            return connection

        return make

    def stream_factory(self) -> Callable[[socket.socket, str], Connection]:
        return lambda sock, peer: StreamConnection(self, sock, peer)

    def _accept(self, listener: socket.socket, factory: Callable) -> None:
        try:
            sock, address = listener.accept()
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            self.log(f"accept failed: {exc}")
            return
        peer = f"{address[0]}:{address[1]}"
        if len(self.connections) >= MAX_CONNECTIONS:
            self.log(f"refused {peer}: already {MAX_CONNECTIONS} connections")
            sock.close()
            return
        sock.setblocking(False)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        connection = factory(sock, peer)
        self.connections.append(connection)
        self.selector.register(sock, selectors.EVENT_READ, ("connection", connection))

    def _rpc_connections(self) -> list[Connection]:
        return [c for c in self.connections if isinstance(c, RpcConnection)]

    def want_write(self, connection: Connection, wanted: bool) -> None:
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if wanted else 0)
        self.selector.modify(connection.sock, events, ("connection", connection))

    def forget(self, connection: Connection) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(connection.sock)
        if connection in self.connections:
            self.connections.remove(connection)
        if isinstance(connection, RpcConnection):
            self.session.client_left(connection)
            count = len(self._rpc_connections())
            self.log(f"{connection.kind} {connection.peer} left ({count} now)")

    def subscribed(self, connection: StreamConnection) -> None:
        stream_id = connection.stream_id
        assert stream_id is not None
        if stream_id == WORLD_STREAM:
            connection.send(frame_message(self.session.first_snapshot()))
        self.session.streams.subscribe(stream_id, connection)

    # the loop -----------------------------------------------------------------------------
    def run_once(self, timeout: float | None = None) -> None:
        """Waits for sockets (at most `timeout` s, or until the asynchronous clock's next
        step), handles them, and steps the world when the asynchronous clock says so."""
        wait = self._clock_wait()
        if timeout is not None:
            wait = timeout if wait is None else min(wait, timeout)
        for key, mask in self.selector.select(wait):
            role, target = key.data
            if role == "listener":
                self._accept(key.fileobj, target)  # type: ignore[arg-type]
                continue
            if mask & selectors.EVENT_WRITE and not target.closed:
                target.writable()
            if mask & selectors.EVENT_READ and not target.closed:
                target.readable()
        self._clock_step()

    def serve_forever(self) -> None:
        while True:
            self.run_once()

    def close(self) -> None:
        for connection in list(self.connections):
            connection.close(None)
        for sock in self._listeners:
            self.selector.unregister(sock)
            sock.close()
        self._listeners = []
        self.selector.close()

    # the asynchronous clock ---------------------------------------------------------------
    def _clock_wait(self) -> float | None:
        step = self._step_seconds()
        if step is None:
            self._next_step = None
            return None
        now = time.monotonic()
        if self._next_step is None:
            self._next_step = now + step
        return max(0.0, self._next_step - now)

    def _clock_step(self) -> None:
        step = self._step_seconds()
        if step is None or self._next_step is None:
            return
        now = time.monotonic()
        if now < self._next_step:
            return
        self.session.tick()
        self._next_step += step
        if self._next_step < now - _CATCH_UP * step:
            self._next_step = now + step

    def _step_seconds(self) -> float | None:
        """The asynchronous clock's period, None when it stands (synchronous mode, or no
        client listens to the world)."""
        if not self.session.streams.has_subscribers(WORLD_STREAM):
            return None
        return self.session.step_seconds()
