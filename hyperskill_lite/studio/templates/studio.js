/* hyperskill_lite memory studio: the page's glue (tabs, charts, tables, the maintenance
   and hygiene tabs); the drawing, the details and a task's retrieval are view.js's, which
   the notebook widget shares. Every text from a run goes into the page through
   textContent (HSL.el), never as HTML. window.studio exposes the panes for the browser
   tests. */
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("studio-data").textContent);
  const RUNS = DATA.runs;
  let activeTab = "run";

  const { el, fmt, note } = HSL;
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

  /* ---------------------------------------------------------------- tables (view.js) */
  /* an id in a table of another tab opens it in the pane's drawing */
  function table(cols, rows, opts) {
    opts = opts || {};
    const pane = opts.pane;
    return HSL.table(cols, rows, Object.assign({}, opts, {
      go: pane ? (id) => { pane.showTab("graph"); pane.select(id); } : null }));
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
    this.network = null; this.netDiv = null; this.view = null; this.tasks = null;
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

  /* ---------------------------------------------------------------- hypergraph tab (view.js) */
  Pane.prototype.graphTab = function (div) {
    this.view = new HSL.View(div, this.run, { index: this.index });
    this.network = this.view.network;
    this.netDiv = this.view.netDiv;
  };
  Pane.prototype.select = function (id) {
    if (this.view) this.view.select(id);
  };

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

  /* ---------------------------------------------------------------- retrieval tab (view.js) */
  Pane.prototype.tasksTab = function (div) {
    const go = (id) => { this.showTab("graph"); this.select(id); };
    this.tasks = new HSL.TaskPanel(div, this.run, { go });
    if ((this.run.tasks || []).length) this.tasks.show(this.run.tasks.length - 1);
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
