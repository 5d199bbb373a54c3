// lockstep view: a run's score table, and a route's log played on its map from above.
// Plain JavaScript and Canvas, no build step, nothing from the internet. The data comes as
// the addresses of runner/view/site.py: fetched from `lockstep view`'s server, or, for a
// folder written by `lockstep view -o DIR` and opened from disk, loaded as scripts that
// hand their content to LS.deliver. World (x, y) in metres is the pixel
// ((x - x0) * scale, (y - y0) * scale) of the map canvas: CARLA's x runs right, y down.
"use strict";

const LS = (() => {
  // -- data ----------------------------------------------------------------------------------
  const fromFile = location.protocol === "file:";
  const waiting = new Map(); // address -> {resolve, reject}
  const TYPES = { 1: Uint8Array, 2: Int8Array, 3: Uint16Array, 4: Int16Array, 5: Uint32Array,
    6: Int32Array, 7: Float32Array, 8: Float64Array };

  function deliver(address, content) {
    const w = waiting.get(address);
    if (!w) return;
    waiting.delete(address);
    w.resolve(content);
  }

  function viaScript(address) {
    return new Promise((resolve, reject) => {
      waiting.set(address, { resolve, reject });
      const s = document.createElement("script");
      s.src = address + ".js";
      s.onerror = () => { waiting.delete(address); reject(new Error("cannot load " + address)); };
      s.onload = () => s.remove();
      document.head.appendChild(s);
    });
  }

  async function loadJSON(address) {
    if (fromFile) return viaScript(address);
    const r = await fetch(address);
    if (!r.ok) throw new Error(address + ": " + r.status + " " + (await r.text()));
    return r.json();
  }

  async function loadBinary(address) {
    let buf;
    if (fromFile) {
      const text = atob(await viaScript(address));
      const bytes = new Uint8Array(text.length);
      for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
      buf = bytes.buffer;
    } else {
      const r = await fetch(address);
      if (!r.ok) throw new Error(address + ": " + r.status + " " + (await r.text()));
      buf = await r.arrayBuffer();
    }
    return sections(buf);
  }

  // recorder/picture/sections.py's blob: named typed arrays, no copy
  function sections(buf) {
    const dv = new DataView(buf);
    const magic = String.fromCharCode(dv.getUint8(0), dv.getUint8(1), dv.getUint8(2), dv.getUint8(3));
    if (magic !== "LSVS" || dv.getUint32(4, true) !== 1) throw new Error("not a section blob");
    const count = dv.getUint32(8, true);
    const out = {};
    let offset = 12 + 16 * count;
    for (let i = 0; i < count; i++) {
      const at = 12 + 16 * i;
      let name = "";
      for (let j = 0; j < 8; j++) {
        const c = dv.getUint8(at + j);
        if (c) name += String.fromCharCode(c);
      }
      const T = TYPES[dv.getUint8(at + 8)];
      const length = dv.getUint32(at + 12, true);
      offset += (8 - (offset % 8)) % 8;
      out[name] = new T(buf, offset, length);
      offset += length * T.BYTES_PER_ELEMENT;
    }
    return out;
  }

  // -- state ---------------------------------------------------------------------------------
  const TIME_SLACK = 1e-6;
  const LIGHT_NAMES = ["Red", "Yellow", "Green", "Off", "Unknown"];
  const VEHICLE_LIGHTS = ["Position", "LowBeam", "HighBeam", "Brake", "RightBlinker",
    "LeftBlinker", "Reverse", "Fog", "Interior", "Special1", "Special2"];
  const KIND_VEHICLE = 1, KIND_WALKER = 2, KIND_LIGHT = 3;
  const COLLISION_SHOW = 1.0; // s

  const state = {
    run: null, colours: {}, maps: {}, route: null, pair: null, divergence: null,
    pos: 0, clock: 0, playing: false, speed: 1, lastNow: null,
    view: { x0: 0, y0: 0, scale: 4 }, follow: false, selected: null,
    mapCache: null, dirty: true, errors: [], firstPicture: null, firstPictureAt: null, openedAt: null,
    drawn: 0, drawTimes: [], waitingChunk: false,
  };

  const $ = (id) => document.getElementById(id);
  const rgb = (name, alpha) => {
    const c = state.colours[name] || [255, 255, 255];
    return alpha === undefined ? `rgb(${c[0]},${c[1]},${c[2]})` : `rgba(${c[0]},${c[1]},${c[2]},${alpha})`;
  };
  const status = (text) => { $("status").textContent = text || ""; };
  const fail = (err) => {
    state.errors.push(String(err && err.stack || err));
    status(String(err && err.message || err));
    console.error(err);
  };

  // -- one route's frames --------------------------------------------------------------------
  class RouteData {
    constructor(meta, times) {
      this.meta = meta;
      this.elapsed = times.elapsed;
      this.frameIds = times.frame;
      this.chunks = new Map();
      this.loading = new Map();
      this.used = [];
    }
    get n() { return this.meta.frames; }
    chunkOf(pos) { return Math.floor(pos / this.meta.chunk); }
    has(pos) { return this.chunks.has(this.chunkOf(pos)); }
    load(k) {
      if (k < 0 || k >= this.meta.chunks) return Promise.resolve(null);
      if (this.chunks.has(k)) return Promise.resolve(this.chunks.get(k));
      if (!this.loading.has(k)) {
        const p = loadBinary(`data/route/${this.meta.key}/chunk/${k}.bin`).then((c) => {
          this.chunks.set(k, c);
          this.loading.delete(k);
          this.used.push(k);
          if (this.used.length > 64) this.chunks.delete(this.used.shift());
          state.dirty = true;
          return c;
        });
        this.loading.set(k, p);
      }
      return this.loading.get(k);
    }
    // the rows of one section group ("p", "v", "l", "s", "w") in frame pos
    rows(pos, group) {
      const c = this.chunks.get(this.chunkOf(pos));
      if (!c) return null;
      const local = pos - this.chunkOf(pos) * this.meta.chunk;
      const start = c[group + "_start"];
      return { c, from: start[local], to: start[local + 1] };
    }
    posAt(t) {
      let lo = 0, hi = this.n; // last frame starting at or before t
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (this.elapsed[mid] <= t + TIME_SLACK) lo = mid + 1; else hi = mid;
      }
      return Math.max(lo - 1, 0);
    }
    // one actor's pose and values in frame pos (null if absent or not loaded)
    actorAt(pos, slot) {
      const p = this.rows(pos, "p");
      if (!p) return null;
      const c = p.c;
      let row = -1;
      for (let i = p.from; i < p.to; i++) if (c.p_slot[i] === slot) { row = i; break; }
      const actor = this.meta.actors[slot];
      const out = { actor, present: row >= 0 || actor.place !== undefined };
      if (row >= 0) {
        out.x = c.p_x[row] / 100; out.y = c.p_y[row] / 100; out.z = c.p_z[row] / 100;
        out.yaw = c.p_yaw[row]; out.speed = c.p_speed[row];
      }
      const find = (group) => {
        const r = this.rows(pos, group);
        for (let i = r.from; i < r.to; i++) if (r.c[group + "_slot"][i] === slot) return i;
        return -1;
      };
      const v = find("v");
      if (v >= 0) out.control = { throttle: c.v_throt[v], steer: c.v_steer[v], brake: c.v_brake[v], hand: c.v_hand[v], gear: c.v_gear[v] };
      const l = find("l");
      if (l >= 0) out.lights = c.l_state[l];
      const s = find("s");
      if (s >= 0) out.lightState = c.s_state[s];
      const w = find("w");
      if (w >= 0) out.walkerSpeed = c.w_speed[w];
      return out;
    }
  }

  // -- the score table -----------------------------------------------------------------------
  const fmt = (x, digits) => (x === null || x === undefined ? "—" : Number(x).toFixed(digits));

  function showTable() {
    $("table-view").hidden = false;
    $("route-view").hidden = true;
    state.playing = false;
    const holder = $("runs");
    holder.textContent = "";
    for (const source of state.run.sources) {
      const h = document.createElement("h2");
      h.textContent = `${source.name} (${source.kind === "run" ? "run" : "log"})`;
      holder.appendChild(h);
      const table = document.createElement("table");
      table.className = "runs";
      table.innerHTML = "<thead><tr><th>route</th><th>status</th><th>completion %</th>" +
        "<th>penalty</th><th>score</th><th>infractions</th></tr></thead>";
      const body = document.createElement("tbody");
      for (const r of source.routes) {
        const tr = document.createElement("tr");
        tr.className = "route";
        tr.dataset.key = r.key;
        const cells = [r.name, r.status || "—", fmt(r.completion, 2), fmt(r.penalty, 3), fmt(r.score, 2)];
        cells.forEach((text, i) => {
          const td = document.createElement("td");
          td.textContent = text;
          if (i >= 2) td.className = "num";
          if (i === 1 && r.status) td.classList.add("status-" + r.status.split(" ")[0]);
          tr.appendChild(td);
        });
        const td = document.createElement("td");
        const ul = document.createElement("ul");
        ul.className = "infr";
        for (const [kind, texts] of Object.entries(r.infractions)) {
          for (const text of texts) {
            const li = document.createElement("li");
            li.textContent = `${kind}: ${text}`;
            ul.appendChild(li);
          }
        }
        td.appendChild(ul);
        tr.appendChild(td);
        tr.addEventListener("click", () => { location.hash = "route=" + r.key; });
        body.appendChild(tr);
      }
      if (source.totals) {
        const t = source.totals, m = t.scores_mean || {};
        const tr = document.createElement("tr");
        tr.className = "totals";
        for (const text of ["all routes", t.status || "", fmt(m.score_route, 2), fmt(m.score_penalty, 3), fmt(m.score_composed, 2), ""]) {
          const td = document.createElement("td");
          td.textContent = text;
          tr.appendChild(td);
        }
        body.appendChild(tr);
      }
      table.appendChild(body);
      holder.appendChild(table);
    }
  }

  // -- opening a route -----------------------------------------------------------------------
  async function openRoute(key) {
    state.openedAt = performance.now();
    state.firstPicture = null;
    state.firstPictureAt = null;
    state.playing = false;
    state.selected = null;
    state.follow = false;
    $("follow").checked = false;
    $("table-view").hidden = true;
    $("route-view").hidden = false;
    status("loading…");
    const [meta, times] = await Promise.all([
      loadJSON(`data/route/${key}/meta.json`), loadBinary(`data/route/${key}/times.bin`)]);
    const route = new RouteData(meta, times);
    const mapLoad = state.maps[meta.map] ? Promise.resolve(state.maps[meta.map]) : loadBinary(`data/map/${meta.map}.bin`);
    let pairLoad = Promise.resolve(null);
    if (meta.pair) {
      pairLoad = Promise.all([loadJSON(`data/route/${meta.pair}/meta.json`), loadBinary(`data/route/${meta.pair}/times.bin`)])
        .then(([m, t]) => new RouteData(m, t));
    }
    const [mapData, pair] = await Promise.all([mapLoad, pairLoad, route.load(0)]);
    state.maps[meta.map] = mapData;
    state.route = route;
    state.pair = pair;
    state.divergence = null;
    state.mapCache = null;
    if (pair) await pair.load(0);
    $("title").textContent = meta.name + (pair ? `  vs  ${pair.meta.name}` : "");
    $("scrub").max = String(route.n - 1);
    fitView();
    buildSide();
    buildMarks();
    seek(0);
    status(meta.warning || "");
    if (pair) {
      loadJSON(`data/route/${key}/divergence.json`).then((d) => { state.divergence = d; buildMarks(); buildSide(); }).catch(fail);
    }
  }

  function fitView() {
    const route = state.route;
    let xs = [], ys = [];
    if (route.meta.route && route.meta.route.length) {
      for (const [x, y] of route.meta.route) { xs.push(x); ys.push(y); }
    } else {
      const p = route.rows(0, "p");
      for (let i = p.from; i < p.to; i++) { xs.push(p.c.p_x[i] / 100); ys.push(p.c.p_y[i] / 100); }
    }
    if (!xs.length) { xs = [-50, 50]; ys = [-50, 50]; }
    const canvas = $("map");
    const w = canvas.clientWidth || 800, h = canvas.clientHeight || 600;
    const margin = 20;
    const x0 = Math.min(...xs) - margin, x1 = Math.max(...xs) + margin;
    const y0 = Math.min(...ys) - margin, y1 = Math.max(...ys) + margin;
    const scale = Math.min(w / Math.max(x1 - x0, 40), h / Math.max(y1 - y0, 40));
    state.view = { scale, x0: (x0 + x1) / 2 - w / 2 / scale, y0: (y0 + y1) / 2 - h / 2 / scale };
    state.dirty = true;
  }

  function centreOn(x, y) {
    const canvas = $("map");
    state.view.x0 = x - canvas.clientWidth / 2 / state.view.scale;
    state.view.y0 = y - canvas.clientHeight / 2 / state.view.scale;
    state.dirty = true;
  }

  // -- the side panel and the timeline marks -------------------------------------------------
  function buildSide() {
    const meta = state.route.meta;
    const info = $("route-info");
    const r = meta.record;
    const lines = [`<h3>${escapeHtml(meta.name)}</h3>`];
    if (r) lines.push(`<div>${escapeHtml(r.status)} · completion ${fmt(r.scores.score_route, 2)} % · penalty ${fmt(r.scores.score_penalty, 3)} · score ${fmt(r.scores.score_composed, 2)}</div>`);
    lines.push(`<div>${meta.frames} frames · map ${escapeHtml(meta.map_file)}</div>`);
    if (state.pair) lines.push(`<div>overlaid: ${escapeHtml(state.pair.meta.name)} (outlines)</div>`);
    if (state.divergence) lines.push(`<div id="divergence-text">${escapeHtml(state.divergence.text)}</div>`);
    info.innerHTML = lines.join("");
    const list = $("infraction-list");
    list.textContent = "";
    for (const m of meta.marks) {
      const li = document.createElement("li");
      li.textContent = `${timeText(state.route.elapsed[m.pos])} s: ${m.text}`;
      li.addEventListener("click", () => jumpTo(m));
      list.appendChild(li);
    }
    if (!meta.marks.length) list.innerHTML = "<li>none</li>";
    const cams = Object.keys(meta.cameras);
    $("cameras").hidden = cams.length === 0;
    const holder = $("camera-list");
    holder.textContent = "";
    for (const name of cams) {
      const fig = document.createElement("figure");
      fig.innerHTML = `<img alt="${escapeHtml(name)}" data-camera="${escapeHtml(name)}"><figcaption>${escapeHtml(name)}</figcaption>`;
      holder.appendChild(fig);
    }
    const legend = [["hero", "hero"], ["vehicle", "vehicle"], ["walker", "walker"], ["prop", "prop"]];
    $("legend").innerHTML = "<h3>Legend</h3>" + legend.map(([c, t]) => `<span><i style="background:${rgb(c)}"></i>${t}</span>`).join("") +
      `<span><i style="background:rgba(80,200,255,0.8)"></i>route</span><span><i style="background:#f90"></i>scenario trigger</span>`;
  }

  function buildMarks() {
    const holder = $("marks");
    holder.textContent = "";
    const n = Math.max(state.route.n - 1, 1);
    const add = (pos, cls, title, onClick) => {
      const b = document.createElement("button");
      b.className = "mark " + cls;
      b.style.left = (100 * pos / n) + "%";
      b.title = title;
      b.dataset.pos = String(pos);
      b.addEventListener("click", onClick);
      holder.appendChild(b);
    };
    for (const m of state.route.meta.marks) add(m.pos, m.kind === "collision" ? "collision" : "infraction", m.text, () => jumpTo(m));
    const d = state.divergence;
    if (d && d.pos !== null) add(d.pos, "divergence", d.text, () => { seek(d.pos); centreOnHero(); });
  }

  function jumpTo(mark) {
    seek(mark.pos);
    if (mark.x !== undefined) centreOn(mark.x, mark.y);
    else centreOnHero();
  }

  function centreOnHero() {
    const route = state.route;
    if (route.meta.hero === null) return;
    const run = () => {
      const a = route.actorAt(state.pos, route.meta.hero);
      if (a && a.x !== undefined) centreOn(a.x, a.y);
    };
    if (route.has(state.pos)) run(); else route.load(route.chunkOf(state.pos)).then(run);
  }

  // -- time ----------------------------------------------------------------------------------
  function seek(pos) {
    const route = state.route;
    pos = Math.max(0, Math.min(route.n - 1, pos));
    state.pos = pos;
    state.clock = route.elapsed[pos];
    $("scrub").value = String(pos);
    ensureLoaded(pos);
    state.dirty = true;
  }

  // The chunk of frame pos and the next ones, before playback reaches them: more ahead the
  // faster it plays (at 16x a chunk of 100 frames of 0.05 s lasts 0.3 s).
  function ensureLoaded(pos) {
    const ahead = 1 + Math.ceil(state.speed / 4);
    for (const data of [state.route, state.pair]) {
      if (!data) continue;
      const k = data.chunkOf(Math.min(pos, data.n - 1));
      for (let j = k; j <= k + ahead; j++) data.load(j).catch(fail);
    }
  }

  function timeText(t) { return (t - state.route.elapsed[0]).toFixed(2); }

  function loop(now) {
    const route = state.route;
    if (route && !$("route-view").hidden) {
      if (state.playing && state.lastNow !== null) {
        const want = state.clock + (now - state.lastNow) / 1000 * state.speed;
        const pos = route.posAt(want);
        if (route.has(pos) && (!state.pair || state.pair.has(Math.min(pos, state.pair.n - 1)))) {
          state.waitingChunk = false;
          state.clock = want;
          state.dirty = true; // the poses move between frames too
          if (pos !== state.pos) { state.pos = pos; $("scrub").value = String(pos); }
          if (pos >= route.n - 1) { state.playing = false; playButton(); }
          ensureLoaded(pos);
        } else {
          state.waitingChunk = true;
          ensureLoaded(pos);
        }
      }
      state.lastNow = now;
      if (state.dirty && route.has(state.pos)) {
        draw();
        state.dirty = false;
      }
    }
    requestAnimationFrame(loop);
  }

  function playButton() { $("play").innerHTML = state.playing ? "&#10074;&#10074;" : "&#9654;"; }

  // -- drawing -------------------------------------------------------------------------------
  function resizeCanvas() {
    const canvas = $("map");
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(canvas.clientWidth * dpr)), h = Math.max(1, Math.round(canvas.clientHeight * dpr));
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; state.dirty = true; }
    return dpr;
  }

  // The map is drawn into a cache canvas twice the view each way, at the view's scale, and
  // copied: drawn again only when the scale changes or the view leaves the cache.
  function mapLayer(w, h, dpr) {
    const v = state.view, c = state.mapCache;
    const wm = w / v.scale, hm = h / v.scale;
    if (c && c.scale === v.scale && c.dpr === dpr && v.x0 >= c.x0 && v.y0 >= c.y0 &&
        v.x0 + wm <= c.x0 + c.w / c.scale && v.y0 + hm <= c.y0 + c.h / c.scale) return c;
    const cw = Math.min(2 * w, 4096), ch = Math.min(2 * h, 4096);
    const cache = { scale: v.scale, dpr, w: cw, h: ch,
      x0: v.x0 - (cw - w) / 2 / v.scale, y0: v.y0 - (ch - h) / 2 / v.scale };
    const canvas = c && c.canvas ? c.canvas : document.createElement("canvas");
    canvas.width = Math.round(cw * dpr); canvas.height = Math.round(ch * dpr);
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr * v.scale, 0, 0, dpr * v.scale, -cache.x0 * v.scale * dpr, -cache.y0 * v.scale * dpr);
    const m = state.maps[state.route.meta.map];
    const polys = (name, fill) => {
      const n = m[name + "_n"], xy = m[name + "_xy"];
      ctx.fillStyle = fill;
      ctx.beginPath();
      let k = 0;
      for (let i = 0; i < n.length; i++) {
        ctx.moveTo(xy[2 * k], xy[2 * k + 1]);
        for (let j = 1; j < n[i]; j++) ctx.lineTo(xy[2 * (k + j)], xy[2 * (k + j) + 1]);
        ctx.closePath();
        k += n[i];
      }
      ctx.fill();
    };
    const lines = (name, which, style, width, dash) => {
      const n = m[name + "_n"], xy = m[name + "_xy"];
      ctx.strokeStyle = style; ctx.lineWidth = width; ctx.setLineDash(dash);
      ctx.beginPath();
      let k = 0;
      for (let i = 0; i < n.length; i++) {
        if (which(i)) {
          ctx.moveTo(xy[2 * k], xy[2 * k + 1]);
          for (let j = 1; j < n[i]; j++) ctx.lineTo(xy[2 * (k + j)], xy[2 * (k + j) + 1]);
        }
        k += n[i];
      }
      ctx.stroke();
      ctx.setLineDash([]);
    };
    for (const [name, colour] of [["other", "other_lane"], ["shld", "shoulder"], ["park", "parking"], ["side", "sidewalk"], ["drv", "driving"]]) polys(name, rgb(colour));
    if (m.paint_xy.length) {
      // the 3-D scene's road lines from above, triangles filled in their colours
      const xy = m.paint_xy, rgbs = m.paint_c, byColour = new Map();
      for (let t = 0; t < rgbs.length / 3; t++) {
        const key = `rgb(${rgbs[3 * t]},${rgbs[3 * t + 1]},${rgbs[3 * t + 2]})`;
        if (!byColour.has(key)) byColour.set(key, []);
        byColour.get(key).push(t);
      }
      for (const [colour, list] of byColour) {
        ctx.beginPath();
        for (const t of list) {
          ctx.moveTo(xy[6 * t], xy[6 * t + 1]);
          ctx.lineTo(xy[6 * t + 2], xy[6 * t + 3]);
          ctx.lineTo(xy[6 * t + 4], xy[6 * t + 5]);
          ctx.closePath();
        }
        ctx.fillStyle = colour;
        ctx.fill();
      }
    } else {
      lines("edge", () => true, rgb("lane_edge"), Math.max(0.12, 1 / v.scale), []);
    }
    cache.canvas = canvas;
    state.mapCache = cache;
    return cache;
  }

  function boxPath(ctx, x, y, yaw, actor, grow) {
    const a = yaw * Math.PI / 180, c = Math.cos(a), s = Math.sin(a);
    const minHalf = 1.5 / state.view.scale;
    const ex = Math.max(actor.extent[0], minHalf) + grow, ey = Math.max(actor.extent[1], minHalf) + grow;
    const cx = actor.centre[0], cy = actor.centre[1];
    ctx.beginPath();
    for (const [sx, sy] of [[1, 1], [1, -1], [-1, -1], [-1, 1]]) {
      const lx = cx + sx * ex, ly = cy + sy * ey;
      ctx.lineTo(x + c * lx - s * ly, y + s * lx + c * ly);
    }
    ctx.closePath();
  }

  function fillOf(actor) {
    if (actor.hero) return rgb("hero");
    if (actor.type === KIND_VEHICLE) return rgb("vehicle");
    if (actor.type === KIND_WALKER) return rgb("walker");
    return rgb("prop");
  }

  // While playing, the poses between two frames: the fraction of the way from the frame on
  // screen to the next at the clock, and where each actor is in the next frame.
  function between(data) {
    const pos = Math.min(state.pos, data.n - 1);
    if (!state.playing || pos + 1 >= data.n) return null;
    const t0 = data.elapsed[pos], t1 = data.elapsed[pos + 1];
    const f = (state.clock - t0) / (t1 - t0);
    const next = data.rows(pos + 1, "p");
    if (!(f > 0 && f < 1) || !next) return null;
    const at = new Map();
    for (let i = next.from; i < next.to; i++) at.set(next.c.p_slot[i], i);
    return { f, c: next.c, at };
  }

  // an actor's values in the frame on screen, its pose moved on as drawActors moves it
  function poseNow(data, slot) {
    const a = data.actorAt(Math.min(state.pos, data.n - 1), slot);
    const lerp = a && a.x !== undefined ? between(data) : null;
    const j = lerp ? lerp.at.get(slot) : undefined;
    if (j !== undefined) [a.x, a.y, a.yaw] = moved(lerp, j, a.x, a.y, a.yaw);
    return a;
  }

  // a pose (m, degrees) moved the fraction lerp.f of the way to row j of the next frame
  function moved(lerp, j, x, y, yaw) {
    const f = lerp.f;
    const turn = ((((lerp.c.p_yaw[j] - yaw) % 360) + 540) % 360) - 180;
    return [x + f * (lerp.c.p_x[j] / 100 - x), y + f * (lerp.c.p_y[j] / 100 - y), yaw + f * turn];
  }

  function drawActors(ctx, data, outlined) {
    const p = data.rows(Math.min(state.pos, data.n - 1), "p");
    if (!p) return;
    const c = p.c, actors = data.meta.actors, scale = state.view.scale;
    const lerp = between(data);
    const order = [];
    for (let i = p.from; i < p.to; i++) {
      const a = actors[c.p_slot[i]];
      order.push([a.hero ? 3 : a.type === KIND_VEHICLE ? 2 : a.type === KIND_WALKER ? 1 : 0, i]);
    }
    order.sort((u, v) => u[0] - v[0] || u[1] - v[1]);
    ctx.lineWidth = Math.max(1, 0.12 * scale) / scale;
    for (const [, i] of order) {
      const a = actors[c.p_slot[i]];
      let x = c.p_x[i] / 100, y = c.p_y[i] / 100, yaw = c.p_yaw[i];
      const j = lerp ? lerp.at.get(c.p_slot[i]) : undefined;
      if (j !== undefined) [x, y, yaw] = moved(lerp, j, x, y, yaw);
      boxPath(ctx, x, y, yaw, a, 0);
      if (outlined) {
        ctx.strokeStyle = a.hero ? rgb("hero") : "rgb(80,220,255)";
        ctx.lineWidth = 2 / scale;
        ctx.stroke();
        continue;
      }
      ctx.fillStyle = fillOf(a);
      ctx.fill();
      ctx.strokeStyle = rgb("outline");
      ctx.lineWidth = 1 / scale;
      ctx.stroke();
      if (a.type === KIND_VEHICLE || a.type === KIND_WALKER) {
        // the heading: the front half of the line from the box's middle to its front
        const r = yaw * Math.PI / 180, co = Math.cos(r), si = Math.sin(r);
        const fx = a.centre[0] + Math.max(a.extent[0], 1.5 / scale), fy = a.centre[1];
        const mx = a.centre[0] + 0.5 * Math.max(a.extent[0], 1.5 / scale);
        ctx.beginPath();
        ctx.moveTo(x + co * mx - si * fy, y + si * mx + co * fy);
        ctx.lineTo(x + co * fx - si * fy, y + si * fx + co * fy);
        ctx.strokeStyle = rgb("heading");
        ctx.lineWidth = Math.max(1, 0.2 * scale) / scale;
        ctx.stroke();
      }
    }
  }

  function draw() {
    const route = state.route;
    const canvas = $("map");
    const dpr = resizeCanvas();
    const w = canvas.clientWidth, h = canvas.clientHeight;
    if (state.follow) followTarget();
    const v = state.view;
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = rgb("background");
    ctx.fillRect(0, 0, w, h);
    const cache = mapLayer(w, h, dpr);
    ctx.drawImage(cache.canvas, (cache.x0 - v.x0) * v.scale, (cache.y0 - v.y0) * v.scale, cache.w, cache.h);
    ctx.setTransform(dpr * v.scale, 0, 0, dpr * v.scale, -v.x0 * v.scale * dpr, -v.y0 * v.scale * dpr);
    const px = 1 / v.scale;
    // the route and the scenarios' triggers
    if (route.meta.route && route.meta.route.length > 1) {
      ctx.beginPath();
      for (const [x, y] of route.meta.route) ctx.lineTo(x, y);
      ctx.strokeStyle = "rgba(80,200,255,0.55)";
      ctx.lineWidth = Math.max(3 * px, 0.8);
      ctx.lineJoin = "round";
      ctx.stroke();
    }
    for (const t of route.meta.triggers) {
      const a = t.yaw * Math.PI / 180, r = Math.max(6 * px, 1.5);
      ctx.beginPath();
      ctx.moveTo(t.x + Math.cos(a) * r * 1.6, t.y + Math.sin(a) * r * 1.6);
      ctx.lineTo(t.x + Math.cos(a + 2.3) * r, t.y + Math.sin(a + 2.3) * r);
      ctx.lineTo(t.x + Math.cos(a - 2.3) * r, t.y + Math.sin(a - 2.3) * r);
      ctx.closePath();
      ctx.fillStyle = "#f90";
      ctx.fill();
      if (v.scale > 2) {
        ctx.save();
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        ctx.fillStyle = "#fc6";
        ctx.font = "11px sans-serif";
        ctx.fillText(t.type, (t.x - v.x0) * v.scale + 10, (t.y - v.y0) * v.scale - 8);
        ctx.restore();
      }
    }
    // traffic lights in their states
    const s = route.rows(state.pos, "s");
    const lightState = new Map();
    if (s) for (let i = s.from; i < s.to; i++) lightState.set(s.c.s_slot[i], s.c.s_state[i]);
    const radius = Math.max(3 * px, 1.0);
    route.meta.actors.forEach((a, slot) => {
      if (a.place === undefined) return;
      const st = lightState.has(slot) ? lightState.get(slot) : 3;
      ctx.beginPath();
      ctx.arc(a.place[0], a.place[1], radius, 0, 2 * Math.PI);
      ctx.fillStyle = rgb(["light_red", "light_yellow", "light_green"][st] || "light_off");
      ctx.fill();
      ctx.strokeStyle = rgb("outline");
      ctx.lineWidth = px;
      ctx.stroke();
    });
    // infraction places
    for (const m of route.meta.marks) {
      if (m.x === undefined) continue;
      const recent = route.elapsed[m.pos] <= state.clock + TIME_SLACK && route.elapsed[m.pos] > state.clock - 3;
      const r = Math.max((recent ? 10 : 5) * px, 1);
      ctx.beginPath();
      ctx.moveTo(m.x - r, m.y - r); ctx.lineTo(m.x + r, m.y + r);
      ctx.moveTo(m.x - r, m.y + r); ctx.lineTo(m.x + r, m.y - r);
      ctx.strokeStyle = recent ? "rgb(255,40,40)" : "rgba(255,60,60,0.6)";
      ctx.lineWidth = (recent ? 3 : 2) * px;
      ctx.stroke();
    }
    collisions(ctx, route);
    // the actors: the paired run's as outlines under this run's boxes
    if (state.pair) drawActors(ctx, state.pair, true);
    drawActors(ctx, route, false);
    selection(ctx);
    state.drawn += 1;
    state.drawTimes.push(performance.now());
    if (state.drawTimes.length > 600) state.drawTimes.shift();
    if (state.firstPicture === null) {
      state.firstPictureAt = performance.now(); // since the page's navigation started
      state.firstPicture = state.firstPictureAt - state.openedAt;
    }
    updateClock();
    updatePanel();
    updateCameras();
  }

  function collisions(ctx, route) {
    const list = route.meta.collisions;
    if (!list.length) return;
    const p = route.rows(state.pos, "p");
    const where = new Map();
    for (let i = p.from; i < p.to; i++) where.set(route.meta.actors[p.c.p_slot[i]].id, [p.c.p_x[i] / 100, p.c.p_y[i] / 100]);
    const px = 1 / state.view.scale;
    for (const c of list) {
      const t = route.elapsed[c.pos];
      if (!(t <= state.clock + TIME_SLACK && t > state.clock - COLLISION_SHOW)) continue;
      const places = c.ids.filter((id) => where.has(id)).map((id) => where.get(id));
      if (!places.length) continue;
      const x = places.reduce((a, b) => a + b[0], 0) / places.length, y = places.reduce((a, b) => a + b[1], 0) / places.length;
      ctx.beginPath();
      ctx.arc(x, y, Math.max(2.5, 8 * px), 0, 2 * Math.PI);
      ctx.strokeStyle = rgb("collision");
      ctx.lineWidth = Math.max(2 * px, 0.3);
      ctx.stroke();
    }
  }

  function selection(ctx) {
    const sel = state.selected;
    if (!sel) return;
    const data = sel.run === 1 ? state.pair : state.route;
    const a = poseNow(data, sel.slot);
    if (!a) return;
    const px = 1 / state.view.scale;
    if (a.x !== undefined) boxPath(ctx, a.x, a.y, a.yaw, a.actor, 0.4 + 2 * px);
    else if (a.actor.place) { ctx.beginPath(); ctx.arc(a.actor.place[0], a.actor.place[1], Math.max(6 * px, 1.5), 0, 2 * Math.PI); }
    else return;
    ctx.strokeStyle = "rgb(255,255,0)";
    ctx.lineWidth = 2 * px;
    ctx.stroke();
  }

  function followTarget() {
    const sel = state.selected;
    const data = sel && sel.run === 1 ? state.pair : state.route;
    const slot = sel ? sel.slot : state.route.meta.hero;
    if (slot === null || slot === undefined) return;
    const a = poseNow(data, slot);
    if (a && a.x !== undefined) centreOn(a.x, a.y);
  }

  function updateClock() {
    const route = state.route;
    $("clock").textContent = `t ${timeText(route.elapsed[state.pos])} s · frame ${route.frameIds[state.pos]} (${state.pos + 1}/${route.n})`;
  }

  // -- the actor panel -----------------------------------------------------------------------
  function lightNames(bits) {
    const on = VEHICLE_LIGHTS.filter((_, i) => bits & (1 << i));
    return on.length ? on.join(", ") : "none";
  }

  function updatePanel() {
    const sel = state.selected;
    $("actor-none").hidden = !!sel;
    $("actor-fields").hidden = !sel;
    if (!sel) { $("actor-run").textContent = ""; return; }
    const data = sel.run === 1 ? state.pair : state.route;
    const pos = Math.min(state.pos, data.n - 1);
    const a = data.actorAt(pos, sel.slot);
    const actor = data.meta.actors[sel.slot];
    $("actor-run").textContent = state.pair ? `(${data.meta.name})` : "";
    $("actor-id").textContent = String(actor.id);
    $("actor-blueprint").textContent = actor.blueprint;
    $("actor-role").textContent = actor.role || "—";
    const present = a && a.present;
    $("actor-speed").textContent = present && a.speed !== undefined ? `${a.speed.toFixed(2)} m/s (${(a.speed * 3.6).toFixed(1)} km/h)` : "—";
    let control = "—";
    if (present && a.control) {
      const k = a.control;
      control = `throttle ${k.throttle.toFixed(3)}, steer ${k.steer.toFixed(3)}, brake ${k.brake.toFixed(3)}, hand brake ${k.hand ? "on" : "off"}, gear ${k.gear}`;
    } else if (present && a.walkerSpeed !== undefined) {
      control = `walking ${a.walkerSpeed.toFixed(3)} m/s`;
    }
    $("actor-control").textContent = control;
    let lights = "—";
    if (present && a.lightState !== undefined) lights = LIGHT_NAMES[a.lightState] || String(a.lightState);
    else if (present && a.lights !== undefined) lights = lightNames(a.lights);
    $("actor-lights").textContent = lights;
    let position = "not in this frame";
    if (a && a.x !== undefined) position = `x ${a.x.toFixed(2)}, y ${a.y.toFixed(2)}, z ${a.z.toFixed(2)} m, yaw ${a.yaw.toFixed(1)}°`;
    else if (actor.place) position = `x ${actor.place[0].toFixed(2)}, y ${actor.place[1].toFixed(2)} m`;
    $("actor-position").textContent = position;
  }

  function updateCameras() {
    const meta = state.route.meta;
    const frame = state.route.frameIds[state.pos];
    for (const img of document.querySelectorAll("#camera-list img")) {
      const frames = meta.cameras[img.dataset.camera];
      let lo = 0, hi = frames.length; // the last picture at or before the frame
      while (lo < hi) { const mid = (lo + hi) >> 1; if (frames[mid] <= frame) lo = mid + 1; else hi = mid; }
      const src = lo > 0 ? `data/route/${meta.key}/img/${encodeURIComponent(img.dataset.camera)}/${frames[lo - 1]}.png` : "";
      if (img.dataset.src !== src) { img.dataset.src = src; if (src) img.src = src; else img.removeAttribute("src"); }
    }
  }

  // -- picking, panning, zooming -------------------------------------------------------------
  function worldAt(ev) {
    const r = $("map").getBoundingClientRect();
    const v = state.view;
    return [v.x0 + (ev.clientX - r.left) / v.scale, v.y0 + (ev.clientY - r.top) / v.scale];
  }

  function pick(x, y) {
    const tries = [[0, state.route]];
    if (state.pair) tries.push([1, state.pair]);
    const slack = 3 / state.view.scale;
    for (const [run, data] of tries) {
      const p = data.rows(Math.min(state.pos, data.n - 1), "p");
      if (!p) continue;
      let best = null;
      for (let i = p.from; i < p.to; i++) {
        const a = data.meta.actors[p.c.p_slot[i]];
        const r = p.c.p_yaw[i] * Math.PI / 180, co = Math.cos(r), si = Math.sin(r);
        const dx = x - p.c.p_x[i] / 100, dy = y - p.c.p_y[i] / 100;
        const lx = co * dx + si * dy - a.centre[0], ly = -si * dx + co * dy - a.centre[1];
        if (Math.abs(lx) <= a.extent[0] + slack && Math.abs(ly) <= a.extent[1] + slack) {
          const rank = (a.hero ? 0 : 1);
          if (!best || rank < best[0]) best = [rank, p.c.p_slot[i]];
        }
      }
      if (best) return { run, slot: best[1] };
      let light = null;
      data.meta.actors.forEach((a, slot) => {
        if (a.place && Math.hypot(x - a.place[0], y - a.place[1]) <= Math.max(1.5, 6 / state.view.scale)) light = slot;
      });
      if (light !== null) return { run, slot: light };
    }
    return null;
  }

  function wireMap() {
    const canvas = $("map");
    let drag = null;
    canvas.addEventListener("mousedown", (ev) => { drag = { x: ev.clientX, y: ev.clientY, moved: false }; });
    window.addEventListener("mousemove", (ev) => {
      if (!drag) return;
      const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
      drag.moved = true;
      state.follow = false; $("follow").checked = false;
      state.view.x0 -= dx / state.view.scale; state.view.y0 -= dy / state.view.scale;
      drag.x = ev.clientX; drag.y = ev.clientY;
      state.dirty = true;
    });
    window.addEventListener("mouseup", (ev) => {
      if (drag && !drag.moved && ev.target === canvas) {
        const [x, y] = worldAt(ev);
        state.selected = pick(x, y);
        state.dirty = true;
      }
      drag = null;
    });
    canvas.addEventListener("dblclick", (ev) => {
      const [x, y] = worldAt(ev);
      const hit = pick(x, y);
      if (hit) { state.selected = hit; state.follow = true; $("follow").checked = true; state.dirty = true; }
    });
    canvas.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      const [x, y] = worldAt(ev);
      const factor = Math.exp(-ev.deltaY * 0.0015);
      const v = state.view;
      const scale = Math.max(0.02, Math.min(200, v.scale * factor));
      const r = canvas.getBoundingClientRect();
      v.x0 = x - (ev.clientX - r.left) / scale;
      v.y0 = y - (ev.clientY - r.top) / scale;
      v.scale = scale;
      state.dirty = true;
    }, { passive: false });
    window.addEventListener("resize", () => { state.dirty = true; });
  }

  function wireTimeline() {
    $("play").addEventListener("click", () => {
      if (!state.route) return;
      if (!state.playing && state.pos >= state.route.n - 1) seek(0);
      state.playing = !state.playing;
      state.lastNow = null;
      playButton();
    });
    $("step-back").addEventListener("click", () => { state.playing = false; playButton(); seek(state.pos - 1); });
    $("step-fwd").addEventListener("click", () => { state.playing = false; playButton(); seek(state.pos + 1); });
    $("speed").addEventListener("change", (ev) => { state.speed = Number(ev.target.value); });
    $("scrub").addEventListener("input", (ev) => { seek(Number(ev.target.value)); });
    $("follow").addEventListener("change", (ev) => { state.follow = ev.target.checked; state.dirty = true; });
    window.addEventListener("keydown", (ev) => {
      if ($("route-view").hidden || ev.target.tagName === "SELECT") return;
      if (ev.key === " ") { ev.preventDefault(); $("play").click(); }
      else if (ev.key === "ArrowLeft") $("step-back").click();
      else if (ev.key === "ArrowRight") $("step-fwd").click();
    });
  }

  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }

  // -- start ---------------------------------------------------------------------------------
  async function route() {
    const m = /^#route=(.+)$/.exec(location.hash);
    if (m) await openRoute(decodeURIComponent(m[1]));
    else showTable();
  }

  async function start() {
    window.addEventListener("error", (ev) => fail(ev.error || ev.message));
    window.addEventListener("unhandledrejection", (ev) => fail(ev.reason));
    wireMap();
    wireTimeline();
    state.run = await loadJSON("data/run.json");
    state.colours = state.run.colours;
    $("title").textContent = state.run.sources.map((s) => s.name).join("  vs  ");
    window.addEventListener("hashchange", () => route().catch(fail));
    await route();
    requestAnimationFrame(loop);
  }

  // what the tests and the benchmark read: the state, and a world point's pixel on the page
  function project(x, y) {
    const r = $("map").getBoundingClientRect(), v = state.view;
    return [r.left + (x - v.x0) * v.scale, r.top + (y - v.y0) * v.scale];
  }

  function frameRate(seconds) {
    const now = performance.now();
    const recent = state.drawTimes.filter((t) => t >= now - seconds * 1000);
    return recent.length / seconds;
  }

  document.addEventListener("DOMContentLoaded", () => { start().catch(fail); });
  return { deliver, state, project, frameRate, seek, openRoute };
})();
window.LS = LS;
