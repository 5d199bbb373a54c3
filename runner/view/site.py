"""The page's addresses and what each one holds: the one way in for the server
(runner/view/server.py) and the static folder (runner/view/static_site.py).

| address | content |
|---|---|
| `index.html`, `view.js`, `view.css` | the page (runner/view/page/) |
| `data/run.json` | the sources, their score tables, the colours |
| `data/map/<m>.bin` | map `m`'s lanes, crosswalks, road paint (recorder/picture/map_layer.py) |
| `data/route/<key>/meta.json` | a route's description (runner/view/route_data.py) |
| `data/route/<key>/times.bin` | its frames' elapsed times and frame ids |
| `data/route/<key>/chunk/<k>.bin` | its frames k * 100 ... (recorder/picture/frame_chunks.py) |
| `data/route/<key>/divergence.json` | where it and its paired route's log first differ |
| `data/route/<key>/img/<camera>/<frame>.png` | a camera picture beside the log |

`.bin` addresses hold recorder/picture/sections.py's blobs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from recorder.picture.map_layer import layer_sections
from recorder.picture.palette import NAMED
from recorder.picture.sections import pack_sections
from runner.errors import ViewError
from runner.view.map_data import map_layer_of
from runner.view.route_data import RouteView
from runner.view.sources import RouteSource, Source

PAGE = Path(__file__).resolve().parent / "page"
PAGE_FILES = {"index.html": "text/html", "view.js": "text/javascript", "view.css": "text/css"}
JSON = "application/json"
BINARY = "application/octet-stream"
PNG = "image/png"


class NotFoundError(ViewError):
    """An address the site does not have."""


@dataclass(frozen=True, slots=True)
class Reply:
    """What an address holds: its bytes and content type."""

    body: bytes
    content_type: str


class Site:
    """The page and the data of one or two sources."""

    def __init__(self, sources: list[Source]):
        self.sources = sources
        self.routes: dict[str, RouteSource] = {r.key: r for s in sources for r in s.routes}
        self._views: dict[str, RouteView] = {}
        maps = sorted({r.map_path for r in self.routes.values()}, key=str)
        self.maps: dict[str, Path] = {f"m{k}": path for k, path in enumerate(maps)}
        self._map_keys = {path: key for key, path in self.maps.items()}
        self._divergences: dict[str, dict] = {}
        self._map_blobs: dict[str, bytes] = {}

    def view(self, key: str) -> RouteView:
        if key not in self.routes:
            raise NotFoundError(f"no route {key!r}")
        if key not in self._views:
            self._views[key] = RouteView(self.routes[key])
        return self._views[key]

    # -- addresses --------------------------------------------------------------------------

    def get(self, address: str) -> Reply:
        """The content of `address` (a path without the leading /); NotFoundError if none."""
        address = address.lstrip("/") or "index.html"
        if address in PAGE_FILES:
            return Reply((PAGE / address).read_bytes(), PAGE_FILES[address])
        parts = address.split("/")
        if parts == ["data", "run.json"]:
            return _json(self.run())
        if len(parts) == 3 and parts[:2] == ["data", "map"] and parts[2].endswith(".bin"):
            return Reply(self.map_bytes(parts[2].removesuffix(".bin")), BINARY)
        if len(parts) >= 4 and parts[:2] == ["data", "route"]:
            return self._route(parts[2], parts[3:])
        raise NotFoundError(f"no address {address!r}")

    def _route(self, key: str, rest: list[str]) -> Reply:
        view = self.view(key)
        if rest == ["meta.json"]:
            meta = view.meta()
            meta["map"] = self._map_keys[view.source.map_path]
            return _json(meta)
        if rest == ["times.bin"]:
            return Reply(view.times(), BINARY)
        if rest == ["divergence.json"]:
            return _json(self.divergence(key))
        if len(rest) == 2 and rest[0] == "chunk" and rest[1].removesuffix(".bin").isdigit():
            k = int(rest[1].removesuffix(".bin"))
            if not 0 <= k < len(view.chunks):
                raise NotFoundError(f"route {key!r} has no chunk {k}")
            return Reply(view.chunk(k), BINARY)
        if len(rest) == 3 and rest[0] == "img" and rest[2].removesuffix(".png").isdigit():
            picture = view.image(rest[1], int(rest[2].removesuffix(".png")))
            return Reply(picture.read_bytes(), PNG)
        raise NotFoundError(f"no address {'/'.join(rest)!r} of route {key!r}")

    def addresses(self) -> list[str]:
        """Every address of the site (the static folder writes them all)."""
        out = [*PAGE_FILES, "data/run.json"]
        out += [f"data/map/{key}.bin" for key in self.maps]
        for key in self.routes:
            view = self.view(key)
            base = f"data/route/{key}"
            out += [f"{base}/meta.json", f"{base}/times.bin"]
            out += [f"{base}/chunk/{k}.bin" for k in range(len(view.chunks))]
            if view.source.pair is not None:
                out.append(f"{base}/divergence.json")
            for camera, frames in view.cameras().items():
                out += [f"{base}/img/{camera}/{frame}.png" for frame in frames]
        return out

    # -- contents ---------------------------------------------------------------------------

    def run(self) -> dict:
        """The sources and their score tables."""
        return {
            "sources": [
                {
                    "name": s.name,
                    "path": str(s.path),
                    "kind": s.kind,
                    "totals": s.totals,
                    "routes": [_route_row(r) for r in s.routes],
                }
                for s in self.sources
            ],
            "colours": {name: list(rgb) for name, rgb in NAMED.items()},
        }

    def map_bytes(self, key: str) -> bytes:
        """The packed map layer of map `key`."""
        if key not in self.maps:
            raise NotFoundError(f"no map {key!r}")
        if key not in self._map_blobs:
            layer, paint = map_layer_of(self.maps[key])
            self._map_blobs[key] = pack_sections(layer_sections(layer, paint))
        return self._map_blobs[key]

    def divergence(self, key: str) -> dict:
        """Where route `key`'s log and its pair's first differ, as `lockstep check` says it:
        {"pos": frame index or null, "frame": log frame id, "text": ...}, or identical."""
        if key not in self._divergences:
            from runner.log_compare import compare_logs

            route = self.routes[key]
            if route.pair is None:
                raise NotFoundError(f"route {key!r} has no paired route")
            found = compare_logs(route.log, route.pair.log)
            if found is None:
                self._divergences[key] = {"pos": None, "frame": None, "text": "identical"}
            else:
                index = self.view(key).chunks.index
                hits = (index.frame_id == found.frame).nonzero()[0] if found.frame else []
                pos = int(hits[0]) if len(hits) else 0
                self._divergences[key] = {"pos": pos, "frame": found.frame, "text": str(found)}
        return self._divergences[key]


def _route_row(route: RouteSource) -> dict:
    record = route.record or {}
    scores = record.get("scores", {})
    return {
        "key": route.key,
        "name": route.name,
        "log": route.log.name,
        "status": record.get("status"),
        "completion": scores.get("score_route"),
        "penalty": scores.get("score_penalty"),
        "score": scores.get("score_composed"),
        "infractions": {k: v for k, v in (record.get("infractions") or {}).items() if v},
        "pair": route.pair.key if route.pair is not None else None,
    }


def _json(data: dict) -> Reply:
    return Reply(json.dumps(data, separators=(",", ":")).encode("utf-8"), JSON)
