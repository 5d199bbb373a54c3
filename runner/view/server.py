"""`lockstep view`'s web server: the site (runner/view/site.py) on 127.0.0.1, one request at
a time (Python's http.server, HTTP/1.0: each answer closes its connection, so one slow
client holds no other up for long), until Ctrl-C."""

from __future__ import annotations

import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import unquote, urlsplit

from runner.view.site import NotFoundError, Site
from world.errors import LockstepError

HOST = "127.0.0.1"


def make_server(site: Site, port: int) -> HTTPServer:
    """A server of `site` on 127.0.0.1:`port` (0: a free port), not yet serving."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            address = unquote(urlsplit(self.path).path)
            try:
                reply = site.get(address)
            except NotFoundError as exc:
                self._send(404, str(exc).encode(), "text/plain; charset=utf-8")
                return
            except (LockstepError, OSError) as exc:
                print(f"lockstep view: {address}: {exc}", file=sys.stderr)
                self._send(500, str(exc).encode(), "text/plain; charset=utf-8")
                return
            self._send(200, reply.body, reply.content_type)

        def _send(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args) -> None:
            pass  # a page asks for hundreds of chunks: no line per request

    return HTTPServer((HOST, port), Handler)


def serve(site: Site, port: int) -> None:
    """Serves `site` until Ctrl-C, having printed its address."""
    server = make_server(site, port)
    print(f"lockstep view: http://{HOST}:{server.server_address[1]}/  (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
