/* hyperskill_lite memory studio: the page's glue. Every text from a run goes into the
   page through textContent (el() below), never as HTML. window.studio exposes the panes
   for the browser tests. */
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("studio-data").textContent);
  const RUNS = DATA.runs;
  const COLORS = { skill: "#1e63c8", mistake: "#e57373", subtask: "#9ecae1",
    ok: "#2e7d32", fail: "#c62828", sig: "#f2a900", link: "#b8c0cc" };
  let activeTab = "run";

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = String(v);
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const kid of kids.flat()) {
      if (kid === null || kid === undefined || kid === false) continue;
      e.appendChild(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return e;
  }
  const fmt = (v, d) => (v === null || v === undefined) ? "\u2013"
    : (typeof v === "number" ? (Number.isInteger(v) && d === undefined ? String(v) : v.toFixed(d === undefined ? 3 : d)) : String(v));
  /* ---------------------------------------------------------------- charts (charts.py's data as SVG) */
  const SVG = "http://www.w3.org/2000/svg";
  function sv(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  function niceTicks(lo, hi, n) {  // about n round ticks covering [lo, hi]
    if (!(hi > lo)) hi = lo + 1;
    const raw = (hi - lo) / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = mag * ([1, 2, 2.5, 5, 10].find((m) => m * mag >= raw) || 10);
    const ticks = [];
    for (let t = Math.ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9; t += step) ticks.push(+t.toPrecision(12));
    return ticks;
  }
  function tickText(t) { return Math.abs(t) >= 10000 ? (t / 1000) + "k" : String(+t.toPrecision(6)); }
  function extent(values, lo, hi) {
    let a = Infinity, b = -Infinity;
    for (const v of values) if (v !== null && v !== undefined && isFinite(v)) { if (v < a) a = v; if (v > b) b = v; }
    if (lo !== undefined) a = lo; if (hi !== undefined) b = hi;
    if (!isFinite(a) || !isFinite(b)) return [0, 1];
    return b > a ? [a, b] : [a, a + 1];
  }
  function chart(spec) {
    const W = 620, H = 300, L = 58, R = spec.y2label ? 58 : 16, T = 26, B = 42;
    const svg = sv("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, class: "plot", role: "img",
      "data-kind": spec.kind, "aria-label": spec.title });
    svg.appendChild(sv("text", { x: W / 2, y: 15, "text-anchor": "middle", class: "ptitle" }, spec.title));
    const series = spec.series || [];
    const bars = spec.kind === "bars";
    const xs = bars ? spec.bins : series.flatMap((s) => s.x);
    const [x0, x1] = extent(xs, spec.xmin, spec.xmax);
    const main = series.filter((s) => s.axis !== 2), second = series.filter((s) => s.axis === 2);
    const yv = (ss) => ss.flatMap((s) => (s.y || []).concat(s.lo || [], s.hi || []));
    const [y0, y1] = extent(yv(main).concat(bars ? [0] : []), spec.ymin, spec.ymax);
    const [z0, z1] = extent(yv(second), second.length ? 0 : undefined);
    const px = (x) => L + (W - L - R) * (x - x0) / (x1 - x0);
    const py = (y, a, b) => H - B - (H - T - B) * (y - a) / (b - a);
    const yt = niceTicks(y0, y1, 5), y1n = Math.max(y1, yt[yt.length - 1]);
    const ya = (y) => py(y, y0, y1n);
    for (const t of yt) {
      svg.appendChild(sv("line", { x1: L, x2: W - R, y1: ya(t), y2: ya(t), class: "grid" }));
      svg.appendChild(sv("text", { x: L - 5, y: ya(t) + 3, "text-anchor": "end", class: "tick" }, tickText(t)));
    }
    for (const t of niceTicks(x0, x1, 6).filter((t) => t >= x0 && t <= x1)) {
      svg.appendChild(sv("line", { x1: px(t), x2: px(t), y1: T, y2: H - B, class: "grid" }));
      svg.appendChild(sv("text", { x: px(t), y: H - B + 14, "text-anchor": "middle", class: "tick" }, tickText(t)));
    }
    svg.appendChild(sv("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axis" }));
    svg.appendChild(sv("line", { x1: L, x2: L, y1: T, y2: H - B, class: "axis" }));
    svg.appendChild(sv("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", class: "alabel" }, spec.xlabel));
    svg.appendChild(sv("text", { x: 12, y: (T + H - B) / 2, "text-anchor": "middle", class: "alabel",
      transform: "rotate(-90 12 " + (T + H - B) / 2 + ")" }, spec.ylabel));
    let za = null;
    if (second.length) {
      const zt = niceTicks(z0, z1, 5), z1n = Math.max(z1, zt[zt.length - 1]);
      za = (z) => py(z, z0, z1n);
      svg.appendChild(sv("line", { x1: W - R, x2: W - R, y1: T, y2: H - B, class: "axis" }));
      for (const t of zt) svg.appendChild(sv("text", { x: W - R + 5, y: za(t) + 3, class: "tick" }, tickText(t)));
      svg.appendChild(sv("text", { x: W - 10, y: (T + H - B) / 2, "text-anchor": "middle", class: "alabel",
        transform: "rotate(90 " + (W - 10) + " " + (T + H - B) / 2 + ")" }, spec.y2label));
    }
    for (const v of spec.vlines || []) svg.appendChild(sv("line", { x1: px(v), x2: px(v), y1: T, y2: H - B, class: "vline" }));
    if (spec.empty) svg.appendChild(sv("text", { x: (L + W - R) / 2, y: (T + H - B) / 2, "text-anchor": "middle", class: "tick" }, spec.empty));
    const pts = (x, y, f) => x.map((v, i) => y[i] === null ? null : px(v).toFixed(1) + "," + f(y[i]).toFixed(1)).filter(Boolean).join(" ");
    series.forEach((s, k) => {
      const color = s.color || ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e"][k % 5];
      const f = s.axis === 2 ? za : ya;
      if (bars) {
        const bw = (px(spec.bins[1]) - px(spec.bins[0])) / series.length;
        s.y.forEach((v, i) => { if (v > 0) svg.appendChild(sv("rect", { x: px(spec.bins[i]) + k * bw, y: ya(v), width: Math.max(bw - 0.5, 0.5),
          height: Math.max(H - B - ya(v), 0), fill: color })); });
      } else {
        if (s.lo && s.hi) svg.appendChild(sv("polygon", { points: pts(s.x, s.lo, f) + " " + pts(s.x.slice().reverse(), s.hi.slice().reverse(), f),
          fill: color, "fill-opacity": 0.15, stroke: "none" }));
        svg.appendChild(sv("polyline", { points: pts(s.x, s.y, f), fill: "none", stroke: color, "stroke-width": 1.6,
          "stroke-dasharray": s.dash ? "5 3" : null, "data-series": s.name }));
      }
    });
    if (series.length) {  // the legend, in the corner the spec names
      const right = (spec.legend || "").includes("right"), low = (spec.legend || "").includes("lower");
      const lh = 14, lw = 8 + 7 * Math.max(...series.map((s) => s.name.length)) + 22;
      const lx = right ? W - R - lw - 6 : L + 6, ly = low ? H - B - 6 - lh * series.length - 4 : T + 4;
      const g = sv("g", { class: "legendbox" });
      g.appendChild(sv("rect", { x: lx, y: ly, width: lw, height: lh * series.length + 4, fill: "#fff", "fill-opacity": 0.85, stroke: "#d9dde3" }));
      series.forEach((s, k) => {
        const color = s.color || ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e"][k % 5];
        g.appendChild(sv("line", { x1: lx + 5, x2: lx + 21, y1: ly + 9 + lh * k, y2: ly + 9 + lh * k, stroke: color, "stroke-width": bars ? 7 : 2,
          "stroke-dasharray": s.dash ? "5 3" : null }));
        g.appendChild(sv("text", { x: lx + 25, y: ly + 13 + lh * k, class: "tick" }, s.name));
      });
      svg.appendChild(g);
    }
    return el("div", { class: "chart" }, svg, spec.note ? el("p", { class: "legend", text: spec.note }) : null);
  }
  function note(text) { return text ? el("p", { class: "note", text }) : null; }

  /* ---------------------------------------------------------------- tables and CSV */
  function csvText(header, rows) {
    const q = (v) => {
      const s = v === null || v === undefined ? "" : String(v);
      return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
    };
    return [header, ...rows].map((r) => r.map(q).join(",")).join("\r\n") + "\r\n";
  }
  function download(name, text) {
    const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
    const a = el("a", { href: url, download: name });
    document.body.appendChild(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }
  /* cols: [{h, num, id (a skill/edge id: a link), d (decimals)}] */
  function table(cols, rows, opts) {
    opts = opts || {};
    const head = el("tr", {}, cols.map((c) => el("th", { class: c.num ? "num" : null, text: c.h })));
    const body = rows.map((r) => el("tr", {}, cols.map((c, i) => {
      const v = r[i];
      if (c.id && v) return el("td", {}, idLink(v, opts.pane));
      if (c.ok) return el("td", { class: v ? "ok" : "fail", text: v ? "success" : "failure" });
      return el("td", { class: c.num ? "num" : null, text: c.num ? fmt(v, c.d) : fmt(v) });
    })));
    const t = el("table", { class: opts.class || null }, el("thead", {}, head), el("tbody", {}, body));
    const wrap = el("div", { class: rows.length > 12 ? "scroll" : null }, t);
    if (!opts.csv) return wrap;
    const btn = el("button", { class: "csv", "data-csv": opts.csv, text: "Download CSV",
      onclick: () => download(opts.csv, csvText(cols.map((c) => c.h), rows)) });
    return el("div", {}, btn, wrap);
  }
  function idLink(id, pane) {
    return el("a", { class: "id", "data-id": id, text: id, onclick: (ev) => {
      ev.preventDefault();
      if (pane) { pane.showTab("graph"); pane.select(id); }
    } });
  }

  /* ---------------------------------------------------------------- panes */
  function Pane(index, host) {
    this.index = index;
    this.root = el("div", { class: "pane", id: "pane-" + index });
    host.appendChild(this.root);
    this.network = null;
    this.ck = 0;
    this.filters = { s0: true, s1: true, u: true, e: true, gamma: 0, degree: 0, text: "", sig: true };
  }
  Pane.prototype.show = function (runIndex) {
    this.run = RUNS[runIndex];
    this.runIndex = runIndex;
    this.network = null;
    this.root.textContent = "";
    const sel = el("select", { "aria-label": "run", onchange: (e) => this.show(+e.target.value) },
      RUNS.map((r, i) => el("option", { value: i, selected: i === runIndex, text: r.name })));
    this.root.appendChild(el("div", { class: "head" }, el("strong", { text: "Run" }), sel,
      el("span", { class: "legend", text: this.run.folder })));
    this.tabs = {};
    for (const [key, fn] of [["run", this.runTab], ["graph", this.graphTab], ["cycles", this.cyclesTab],
                             ["tasks", this.tasksTab], ["hygiene", this.hygieneTab]]) {
      const div = el("div", { class: "tab", "data-tab": key });
      this.tabs[key] = { div, fn: fn.bind(this), built: false };
      this.root.appendChild(div);
    }
    this.showTab(activeTab, true);
  };
  Pane.prototype.showTab = function (key, quiet) {
    if (!quiet && key !== activeTab) { selectTab(key); return; }
    for (const [k, t] of Object.entries(this.tabs)) {
      t.div.classList.toggle("shown", k === key);
      if (k === key && !t.built) { t.built = true; t.fn(t.div); }
    }
    if (key === "graph" && this.network) this.network.redraw();
  };

  /* ---------------------------------------------------------------- run tab */
  Pane.prototype.runTab = function (div) {
    const r = this.run, s = r.summary || {}, h = r.health || {};
    div.appendChild(el("h2", { text: "Summary" }));
    if (r.protocol) div.appendChild(el("p", { class: "legend", text: "protocol: " + r.protocol }));
    div.appendChild(table(
      [{ h: "SR (%)", num: 1, d: 2 }, { h: "#Steps", num: 1, d: 2 }, { h: "#Calls", num: 1, d: 2 },
       { h: "tokens / task", num: 1, d: 0 }, { h: "s / task", num: 1, d: 3 }, { h: "mem ms", num: 1, d: 2 },
       { h: "episodes", num: 1 }],
      [[s.SR, s.Steps, s.Calls, s.TotalTokens, s.Latency, s.MemMs, s.N]]));
    div.appendChild(el("h2", { text: "Memory health" }));
    const hk = ["Inserted", "Dedup", "Merged", "Pruned", "NonEmpty", "Injected"];
    div.appendChild(table(
      [{ h: "inserted", num: 1, d: 0 }, { h: "deduplicated", num: 1, d: 0 }, { h: "merged", num: 1, d: 0 },
       { h: "pruned", num: 1, d: 0 }, { h: "retrieval non-empty (%)", num: 1, d: 1 },
       { h: "items injected / episode", num: 1, d: 2 }],
      [hk.map((k) => h[k])], { class: "health" }));
    if (h.EmptyStore) div.appendChild(note("WARNING: this memory stored nothing after the first 10% of the tasks."));
    else if (h.NothingShown) div.appendChild(note("WARNING: this memory showed the agent nothing in the first 10% of the tasks."));
    const charts = el("div", { class: "charts" });
    for (const key of ["sr", "growth", "cost"]) {
      if (r.charts && r.charts[key]) charts.appendChild(chart(r.charts[key]));
    }
    div.appendChild(charts);
    div.appendChild(el("h2", { text: "Protocol and settings (run.json)" }));
    div.appendChild(table([{ h: "setting" }, { h: "value" }], r.settings || [], { class: "kv" }));
  };

  /* ---------------------------------------------------------------- hypergraph tab */
  Pane.prototype.graphTab = function (div) {
    const r = this.run;
    if (!r.hypergraph) {
      div.appendChild(el("p", { class: "note", text: "This method (" + (r.method || "?") +
        ") stores no hypergraph: there is nothing to draw. The Run and Retrieval tabs show what applies." }));
      return;
    }
    const g = r.graph, cks = g.checkpoints;
    const label = el("span", { class: "cklabel" });
    const slider = el("input", { type: "range", class: "ck-slider", min: 0, max: cks.length - 1,
      value: cks.length - 1, step: 1, "aria-label": "checkpoint" });
    slider.addEventListener("input", () => this.setCheckpoint(+slider.value));
    this.ckLabel = label; this.slider = slider;
    const f = this.filters;
    const box = (key, text, color, square) => el("label", {},
      el("input", { type: "checkbox", checked: f[key], "data-filter": key,
        onchange: (e) => { f[key] = e.target.checked; this.redraw(); } }), " ",
      el("span", { class: square ? "sq" : "dot", style: "background:" + color }), " " + text);
    const gamma = el("input", { type: "range", min: 0, max: 1, step: 0.05, value: 0, "data-filter": "gamma",
      oninput: (e) => { f.gamma = +e.target.value; gv.textContent = f.gamma.toFixed(2); this.redraw(); } });
    const gv = el("span", { text: "0.00" });
    const deg = el("input", { type: "number", min: 0, value: 0, style: "width:4em", "data-filter": "degree",
      oninput: (e) => { f.degree = +e.target.value || 0; this.redraw(); } });
    const txt = el("input", { type: "search", placeholder: "text or id", "data-filter": "text",
      oninput: (e) => { f.text = e.target.value.toLowerCase(); this.redraw(); } });
    div.appendChild(el("div", { class: "controls" },
      el("div", { class: "slider" }, el("span", { text: "checkpoint" }), slider, label),
      box("s0", "strategies", COLORS.skill), box("s1", "mistakes", COLORS.mistake),
      box("u", "subtasks", COLORS.subtask), box("e", "trajectories", COLORS.ok, true),
      el("label", {}, "gamma \u2265 ", gamma, " ", gv), el("label", {}, "degree \u2265 ", deg),
      el("label", {}, "text ", txt),
      box("sig", "co-occurrence beyond chance", COLORS.sig)));
    this.countLine = el("p", { class: "legend counts" });
    div.appendChild(this.countLine);
    if (g.note) div.appendChild(note(g.note));
    const net = el("div", { class: "network", id: "network-" + this.index });
    this.details = el("div", { class: "details" },
      el("p", { class: "legend", text: "Click a skill for its provenance, a trajectory (square) for its task." }));
    div.appendChild(el("div", { class: "graphwrap" }, net, this.details));
    this.netDiv = net;
    this.buildNetwork();
    this.setCheckpoint(cks.length - 1);
  };
  Pane.prototype.buildNetwork = function () {
    const g = this.run.graph;
    this.nodes = new vis.DataSet(g.nodes.map((n, i) => this.visNode(n, i, null)));
    this.edges = new vis.DataSet(g.links.map((l, i) => ({ id: "l" + i, from: l[0], to: l[1], hidden: true,
      color: { color: COLORS.link }, width: 0.6 })));
    const sig = (this.run.significance || {}).rows || [];
    const index = {}; g.nodes.forEach((n, i) => { index[n[0]] = i; });
    this.sigEdges = sig.filter((row) => row[0] in index && row[2] in index)
      .map((row, i) => ({ id: "sig" + i, from: index[row[0]], to: index[row[2]], dashes: true, hidden: true,
        width: 2, color: { color: COLORS.sig }, title: row[1] + " + " + row[3] + ": " + row[4] + " shared (q = " + fmt(row[7], 4) + ")" }));
    this.edges.add(this.sigEdges);
    this.network = new vis.Network(this.netDiv, { nodes: this.nodes, edges: this.edges }, {
      physics: false, autoResize: true,
      interaction: { hover: true, tooltipDelay: 120, hideEdgesOnDrag: true },
      nodes: { font: { size: 10, color: "#223" }, borderWidth: 1 },
      edges: { smooth: false, selectionWidth: 1.5 },
    });
    this.network.on("click", (p) => { if (p.nodes.length) this.select(g.nodes[p.nodes[0]][0]); });
    window.requestAnimationFrame(() => this.network.fit({ animation: false }));
  };
  Pane.prototype.visNode = function (n, i, st) {
    const [id, kind, x, y, label, code] = n;
    const node = { id: i, x, y, fixed: true };
    if (kind === "s") {
      const deg = st ? st.degree : 1;
      Object.assign(node, { shape: "dot", size: 5 + 2.2 * Math.sqrt(deg), label,
        color: code ? COLORS.mistake : COLORS.skill });
    } else if (kind === "e") {
      Object.assign(node, { shape: "square", size: 5, color: code ? COLORS.fail : COLORS.ok });
    } else {
      Object.assign(node, { shape: "dot", size: 2.5, color: COLORS.subtask });
    }
    node.title = id + ": " + label + (st ? " \u00b7 gamma " + fmt(st.gamma) + ", nu " + st.nu + ", degree " + st.degree : "");
    return node;
  };
  Pane.prototype.setCheckpoint = function (i) {
    const ck = this.run.graph.checkpoints[i];
    this.ck = i;
    if (this.slider && +this.slider.value !== i) this.slider.value = i;
    this.ckLabel.textContent = (ck.label === "final" ? "final memory" : ck.label) + " \u00b7 after episode " + ck.after +
      " (" + (i + 1) + " of " + this.run.graph.checkpoints.length + ")";
    this.state = {};
    ck.present.forEach((n, k) => { this.state[n] = { gamma: ck.gamma[k], nu: ck.nu[k], degree: ck.degree[k] }; });
    this.links = new Set(ck.links);
    this.redraw();
  };
  Pane.prototype.visible = function (n, i) {
    const st = this.state[i], f = this.filters;
    if (!st) return false;
    const kind = n[1];
    if (kind === "s" && !f[n[5] ? "s1" : "s0"]) return false;
    if ((kind === "u" && !f.u) || (kind === "e" && !f.e)) return false;
    if (st.gamma < f.gamma) return false;
    if (kind === "s" && st.degree < f.degree) return false;
    if (f.text && !(n[0].toLowerCase() === f.text || n[4].toLowerCase().includes(f.text))) return false;
    return true;
  };
  Pane.prototype.redraw = function () {
    if (!this.network) return;
    const g = this.run.graph, shown = new Set();
    const upd = g.nodes.map((n, i) => {
      const vis = this.visible(n, i);
      if (vis) shown.add(i);
      return Object.assign(this.visNode(n, i, this.state[i]), { hidden: !vis });
    });
    this.nodes.update(upd);
    this.edges.update(g.links.map((l, i) => ({ id: "l" + i,
      hidden: !(this.links.has(i) && shown.has(l[0]) && shown.has(l[1])) })));
    this.edges.update(this.sigEdges.map((e) => ({ id: e.id,
      hidden: !(this.filters.sig && shown.has(e.from) && shown.has(e.to)) })));
    const c = g.checkpoints[this.ck].counts;
    this.countLine.textContent = "This checkpoint holds " + c.skill + " strategies, " + c.mistake +
      " mistakes, " + c.subtask + " subtask nodes and " + c.hyperedge + " trajectories; " +
      shown.size + " of the " + g.nodes.length + " drawn elements are shown.";
    this.netDiv.setAttribute("data-visible-nodes", String(shown.size));
    this.netDiv.setAttribute("data-checkpoint", g.checkpoints[this.ck].label);
  };
  Pane.prototype.select = function (id) {
    const g = this.run.graph;
    if (this.network && g) {
      const i = g.nodes.findIndex((n) => n[0] === id);
      if (i >= 0) this.network.selectNodes([i]);
    }
    const d = this.details;
    if (!d) return;
    d.textContent = "";
    if (id[0] === "s") this.skillDetails(d, id);
    else if (id[0] === "e") this.edgeDetails(d, id);
    else {
      const n = g.nodes.find((m) => m[0] === id);
      d.appendChild(el("h3", { text: "Subtask node " + id }));
      d.appendChild(el("p", { text: n ? n[4] : "" }));
    }
  };
  Pane.prototype.edgeRow = function (eid) {
    const e = (this.run.edges || {})[eid];
    if (!e) return el("li", {}, idLink(eid, this));
    return el("li", { "data-edge": eid }, idLink(eid, this), " \u00b7 episode " + fmt(e[0]) + " \u00b7 task " + fmt(e[1]) + " \u00b7 ",
      el("span", { class: e[2] ? "ok" : "fail", text: e[2] ? "success" : "failure" }), ": " + e[3]);
  };
  Pane.prototype.edgeDetails = function (d, eid) {
    const e = (this.run.edges || {})[eid];
    d.appendChild(el("h3", { text: "Trajectory " + eid }));
    if (!e) { d.appendChild(el("p", { class: "legend", text: "(no text kept for this hyperedge)" })); return; }
    d.appendChild(el("p", {}, "episode " + fmt(e[0]) + ", task " + fmt(e[1]) + ", ",
      el("span", { class: e[2] ? "ok" : "fail", text: e[2] ? "success" : "failure" })));
    d.appendChild(el("p", { text: "Task: " + e[3] }));
    d.appendChild(el("p", { text: "Lesson: " + e[4] }));
  };
  Pane.prototype.skillDetails = function (d, sid) {
    const p = (this.run.provenance || {})[sid];
    if (!p) { d.appendChild(el("p", { text: sid + ": no provenance kept (see the note above the drawing)." })); return; }
    d.setAttribute("data-skill", sid);
    d.appendChild(el("h3", { text: p.name + " [" + (p.polarity === "failure" ? "mistake" : "strategy") + "] " + sid }));
    d.appendChild(el("p", { text: p.content }));
    const b = p.born;
    d.appendChild(el("h3", { text: "Born" }));
    if (!b) d.appendChild(el("p", { class: "legend", text: "before the records start, or not recorded" }));
    else if (b.how === "merged") {
      d.appendChild(el("p", {}, "merged after episode " + b.after + " from ", idLink(b.a, this), " and ", idLink(b.b, this),
        " (propagated cosine " + fmt(b.similarity) + ", plain cosine " + fmt(b.plain_similarity) + ")"));
      if (b.a_name) d.appendChild(el("ul", {}, el("li", { text: b.a_name + ": " + (b.a_content || "") }),
        el("li", { text: b.b_name + ": " + (b.b_content || "") })));
    } else {
      d.appendChild(el("p", { text: "extracted in episode " + b.episode + " from its trajectory:" }));
      d.appendChild(el("ul", { class: "produced" }, this.edgeRow(b.edge)));
    }
    d.appendChild(el("h3", { text: "Reinforced (deduplicated into it at insertion): " + p.n_reinforced }));
    if (p.reinforced.length) d.appendChild(el("ul", {}, p.reinforced.map((r) =>
      el("li", {}, "episode " + r[0] + " ", r[1] ? idLink(r[1], this) : "", " cosine " + fmt(r[2]) + (r[3] ? " (opposite polarity)" : "")))));
    d.appendChild(el("h3", { text: "Trajectories holding it: " + p.n_trajectories }));
    d.appendChild(el("ul", { class: "trajectories" }, p.trajectories.map((e) => this.edgeRow(e))));
    if (p.n_trajectories > p.trajectories.length) d.appendChild(el("p", { class: "legend", text: "(the first and the latest shown)" }));
    d.appendChild(el("h3", { text: "gamma over time" }));
    d.appendChild(spark(p.gamma));
    d.appendChild(table([{ h: "after episode", num: 1 }, { h: "gamma", num: 1, d: 3 }, { h: "nu", num: 1 }], p.gamma));
    d.appendChild(el("h3", { text: "Retrieved (in S_q): " + p.n_retrieved + " times" }));
    if (p.retrieved.length) d.appendChild(el("ul", { class: "retrieved" }, p.retrieved.map((r) =>
      el("li", {}, "episode " + r[0] + ", task " + fmt(r[1]) + ": ", el("span", { class: r[2] ? "ok" : "fail", text: r[2] ? "success" : "failure" })))));
    if (p.merged_into) d.appendChild(el("p", {}, "Merged into ", idLink(p.merged_into.id, this), " after episode " + p.merged_into.after));
    if (p.pruned) d.appendChild(el("p", { text: "Pruned after episode " + p.pruned.after + " (gamma " + fmt(p.pruned.gamma) + ", nu " + p.pruned.nu + ")" }));
  };
  function spark(series) {
    const W = 260, H = 46, ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("width", W); svg.setAttribute("height", H); svg.setAttribute("class", "spark");
    if (!series.length) return svg;
    const x0 = series[0][0], x1 = series[series.length - 1][0] || 1;
    const px = (x) => series.length === 1 ? W / 2 : 4 + (W - 8) * (x - x0) / Math.max(x1 - x0, 1);
    const py = (y) => H - 4 - (H - 8) * y;
    const line = document.createElementNS(ns, "polyline");
    line.setAttribute("points", series.map((s) => px(s[0]) + "," + py(s[1])).join(" "));
    line.setAttribute("fill", "none"); line.setAttribute("stroke", COLORS.skill); line.setAttribute("stroke-width", "1.5");
    const base = document.createElementNS(ns, "rect");
    base.setAttribute("x", 0); base.setAttribute("y", 0); base.setAttribute("width", W); base.setAttribute("height", H);
    base.setAttribute("fill", "#f7f8fa");
    svg.appendChild(base); svg.appendChild(line);
    return svg;
  }

  /* ---------------------------------------------------------------- maintenance tab */
  Pane.prototype.cyclesTab = function (div) {
    const cs = this.run.cycles || [];
    div.appendChild(el("h2", { text: "What each maintenance cycle did (" + cs.length + " cycles)" }));
    if (!cs.length) { div.appendChild(note("This run recorded no maintenance cycle.")); return; }
    cs.forEach((c, k) => {
      const sum = el("summary", { text: "after episode " + c.after + ": " + c.pruned + " pruned, " + c.merged +
        " merged, " + c.n_dedups + " deduplicated at insertion since the cycle before" +
        (c.seconds !== null && c.seconds !== undefined ? " (" + fmt(c.seconds, 3) + " s)" : "") + (c.error ? " \u2013 " + c.error : "") });
      const det = el("details", { class: "cycle", "data-after": c.after, open: k === cs.length - 1 ? true : null }, sum);
      if (!c.detailed) det.appendChild(note("This run was recorded before pruned nodes and merge texts were kept: only the counts are known."));
      det.appendChild(el("h3", { text: "Pruned (Eq. 11)" }));
      det.appendChild(table([{ h: "id", id: 1 }, { h: "kind" }, { h: "polarity" }, { h: "text" }, { h: "gamma", num: 1, d: 3 }, { h: "nu", num: 1 }],
        c.pruned_nodes, { pane: this }));
      det.appendChild(el("h3", { text: "Merged (Eqs. 12-14)" }));
      det.appendChild(table([{ h: "a", id: 1 }, { h: "a before" }, { h: "b", id: 1 }, { h: "b before" }, { h: "new", id: 1 }, { h: "after" },
        { h: "propagated cos", num: 1, d: 3 }, { h: "plain cos", num: 1, d: 3 }],
        c.merges.map((m) => [m.a, (m.a_name || "") + (m.a_content ? ": " + m.a_content : ""), m.b,
          (m.b_name || "") + (m.b_content ? ": " + m.b_content : ""), m.new_id, (m.name || "") + (m.content ? ": " + m.content : ""),
          m.similarity, m.plain_similarity]), { pane: this }));
      det.appendChild(el("h3", { text: "Deduplicated at insertion (\u00a73.4)" }));
      det.appendChild(table([{ h: "episode", num: 1 }, { h: "task" }, { h: "extracted" }, { h: "into", id: 1 }, { h: "cosine", num: 1, d: 3 }, { h: "opposite polarity" }],
        c.dedups, { pane: this }));
      div.appendChild(det);
    });
  };

  /* ---------------------------------------------------------------- retrieval tab */
  Pane.prototype.tasksTab = function (div) {
    const ts = this.run.tasks || [];
    div.appendChild(el("h2", { text: "Why a task saw what it saw" }));
    if (this.run.tasks_note) div.appendChild(note(this.run.tasks_note));
    if (!ts.length) return;
    const sel = el("select", { class: "task-select", "aria-label": "task" },
      ts.map((t, i) => el("option", { value: i, text: "episode " + t.index + " \u00b7 " + t.task_id + " \u00b7 " + (t.success ? "success" : "failure") })));
    const out = el("div", { class: "task-view" });
    sel.addEventListener("change", () => this.showTask(+sel.value));
    div.appendChild(el("div", { class: "controls" }, el("label", {}, "task ", sel)));
    div.appendChild(out);
    this.taskOut = out; this.taskSel = sel;
    this.showTask(ts.length - 1);
  };
  Pane.prototype.showTask = function (i) {
    const t = this.run.tasks[i], out = this.taskOut;
    if (+this.taskSel.value !== i) this.taskSel.value = i;
    out.textContent = "";
    out.setAttribute("data-index", t.index);
    if (t.explain) {
      out.appendChild(el("h3", { text: "The retrieval (R_u, E_sub, E_traj, kappa, S_q), as explain() prints it" }));
      out.appendChild(el("pre", { class: "explain", text: t.explain }));
      const kap = Object.entries(t.kappa || {});
      out.appendChild(el("h3", { text: "kappa of the candidates R_s (Eq. 8), S_q first" }));
      out.appendChild(table([{ h: "skill", id: 1 }, { h: "kappa", num: 1 }, { h: "in S_q" }],
        kap.map(([s, k]) => [s, k, t.S_q.includes(s) ? "yes" : ""]), { pane: this }));
      out.appendChild(el("h3", { text: "The context the agent got" }));
      out.appendChild(el("pre", { class: "context", text: t.context || "(empty: nothing retrieved)" }));
    } else {
      out.appendChild(el("p", { text: "Retrieved ids: " + (t.retrieved.join(", ") || "(none)") }));
    }
  };

  /* ---------------------------------------------------------------- hygiene tab */
  Pane.prototype.hygieneTab = function (div) {
    const h = this.run.hygiene, name = this.run.name.replace(/[^A-Za-z0-9_.-]+/g, "_");
    if (!h) { div.appendChild(note("This method stores no hypergraph: no hygiene lists.")); return; }
    const pairCols = [{ h: "a", id: 1 }, { h: "a name" }, { h: "a kind" }, { h: "b", id: 1 }, { h: "b name" }, { h: "b kind" }, { h: "cosine", num: 1, d: 4 }];
    div.appendChild(el("h2", { text: "Near-duplicates: cosine in [" + h.window[0] + ", " + h.window[1] + ") (" + h.n_near_duplicates + ")" }));
    div.appendChild(el("p", { class: "legend", text: "Just under delta_dedup: insertion kept them apart." }));
    div.appendChild(table(pairCols, h.near_duplicates, { csv: "near_duplicates-" + name + ".csv", pane: this }));
    div.appendChild(el("h2", { text: "Contradictions: a strategy and a mistake with cosine \u2265 " + h.contradiction + " (" + h.n_contradictions + ")" }));
    div.appendChild(table(pairCols, h.contradictions, { csv: "contradictions-" + name + ".csv", pane: this }));
    div.appendChild(el("h2", { text: "Never retrieved (nu = 0): " + h.n_never_retrieved }));
    div.appendChild(table([{ h: "id", id: 1 }, { h: "name" }, { h: "kind" }, { h: "born in episode", num: 1 }, { h: "degree", num: 1 }, { h: "gamma", num: 1, d: 3 }],
      h.never_retrieved, { csv: "never_retrieved-" + name + ".csv", pane: this }));
    div.appendChild(el("h2", { text: "Utility (gamma, Eq. 3) of the " + h.n_skills + " skill nodes" }));
    if (this.run.charts.utility) div.appendChild(chart(this.run.charts.utility));
    div.appendChild(table([{ h: "id", id: 1 }, { h: "name" }, { h: "kind" }, { h: "gamma", num: 1, d: 3 }, { h: "nu", num: 1 }, { h: "degree", num: 1 }],
      h.utility, { csv: "utility-" + name + ".csv", pane: this }));
    const sig = this.run.significance || {};
    div.appendChild(el("h2", { text: "Skill pairs that co-occur beyond chance (" + (sig.rows || []).length + " of " + (sig.tested || 0) + " tested)" }));
    div.appendChild(el("p", { class: "legend", text: "Configuration-model permutation test (degrees and trajectory sizes kept; " +
      fmt(sig.samples) + " samples, seed " + fmt(sig.seed) + "), Benjamini-Hochberg at " + fmt(sig.alpha, 2) + "." }));
    if (sig.note) div.appendChild(note(sig.note));
    div.appendChild(table([{ h: "a", id: 1 }, { h: "a name" }, { h: "b", id: 1 }, { h: "b name" }, { h: "shared", num: 1 },
      { h: "expected", num: 1, d: 2 }, { h: "p", num: 1, d: 4 }, { h: "q", num: 1, d: 4 }],
      sig.rows || [], { csv: "cooccurrence-" + name + ".csv", pane: this }));
  };

  /* ---------------------------------------------------------------- page */
  function selectTab(key) {
    activeTab = key;
    document.querySelectorAll("#tabs button").forEach((b) => b.classList.toggle("active", b.dataset.tab === key));
    document.getElementById("overview").hidden = key !== "run";
    for (const p of window.studio.panes) p.showTab(key, true);
  }
  function overview() {
    const o = document.getElementById("overview");
    if (RUNS.length < 2) { o.hidden = true; return; }
    o.appendChild(el("h2", { text: "All runs" }));
    o.appendChild(table([{ h: "run" }, { h: "method" }, { h: "SR (%)", num: 1, d: 2 }, { h: "#Steps", num: 1, d: 2 },
      { h: "tokens / task", num: 1, d: 0 }, { h: "inserted", num: 1, d: 0 }, { h: "merged", num: 1, d: 0 },
      { h: "pruned", num: 1, d: 0 }, { h: "non-empty (%)", num: 1, d: 1 }, { h: "episodes", num: 1 }],
      RUNS.map((r) => [r.name, r.method, r.summary.SR, r.summary.Steps, r.summary.TotalTokens, r.health.Inserted,
        r.health.Merged, r.health.Pruned, r.health.NonEmpty, r.summary.N])));
    if (DATA.overlay) o.appendChild(el("div", { class: "charts" }, chart(DATA.overlay)));
  }
  function main() {
    if (DATA.skillworld) {
      const w = document.getElementById("warning");
      w.hidden = false;
      w.textContent = "SkillWorld runs are an offline simulation: NOT the paper's numbers.";
    }
    overview();
    const host = document.getElementById("panes");
    const n = Math.min(RUNS.length, 2);
    if (n === 2) host.classList.add("two");
    const panes = [];
    for (let i = 0; i < n; i++) {
      const p = new Pane(i, host);
      if (n === 2) p.root.classList.add("narrow");
      panes.push(p);
    }
    window.studio = { data: DATA, panes, selectTab, ready: false };
    const first = Math.max(0, RUNS.findIndex((r) => r.method === "hyperskill"));
    const order = [first, ...RUNS.map((_, i) => i).filter((i) => i !== first)];
    panes.forEach((p, i) => p.show(order[i]));
    document.querySelectorAll("#tabs button").forEach((b) => b.addEventListener("click", () => selectTab(b.dataset.tab)));
    window.studio.ready = true;
    document.body.setAttribute("data-ready", "1");
  }
  main();
})();
