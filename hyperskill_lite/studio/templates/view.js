/* hyperskill_lite memory view: the hypergraph of one run view (build.py run_view, or
   memory_view.py for a memory alone) drawn with vis-network, its filters, the checkpoint
   slider and what maintenance did between two checkpoints, the details of a clicked
   element (a skill's trajectories, gamma / nu / sigma over time, merge history) and a
   task's retrieval as explain() prints it, its chosen skills highlighted.
   One script for both: the studio page (studio.js) and the notebook widget (widget.js)
   build their views with HSL.View and HSL.TaskPanel. Every text of a run goes into the
   page with textContent (el() below), never as HTML. Needs `vis` (vis-network). */
"use strict";
const HSL = (function () {
  const COLORS = { skill: "#1e63c8", mistake: "#e57373", subtask: "#9ecae1",
    ok: "#2e7d32", fail: "#c62828", sig: "#f2a900", link: "#b8c0cc", mark: "#111111" };

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
  function note(text) { return text ? el("p", { class: "note", text }) : null; }
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
  /* An element id as a link; `go(id)` shows it (the view's select). */
  function idLink(id, go) {
    return el("a", { class: "id", "data-id": id, text: id, href: "#", onclick: (ev) => {
      ev.preventDefault();
      if (go) go(id);
    } });
  }
  /* cols: [{h, num, id (an element id: a link), ok (an outcome), d (decimals)}];
     opts: {go (what a link does), csv (a file name: a download button), class} */
  function table(cols, rows, opts) {
    opts = opts || {};
    const head = el("tr", {}, cols.map((c) => el("th", { class: c.num ? "num" : null, text: c.h })));
    const body = rows.map((r) => el("tr", {}, cols.map((c, i) => {
      const v = r[i];
      if (c.id && v) return el("td", {}, idLink(v, opts.go));
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
  const GROUPS = {  // trajectories and subtasks without a border: one stroke less each
    s0: { shape: "dot", color: COLORS.skill }, s1: { shape: "dot", color: COLORS.mistake },
    e0: { shape: "square", color: COLORS.ok, borderWidth: 0 }, e1: { shape: "square", color: COLORS.fail, borderWidth: 0 },
    u: { shape: "dot", color: COLORS.subtask, borderWidth: 0 },
  };
  const KIND = { s: "skill", e: "trajectory", u: "subtask" };
  const BIG = 3000;  // drawn elements past which a drawing is "big" (View.buildNetwork)

  /* ------------------------------------------------------------ the hypergraph view
     View(div, run, opts): opts = {index (the element ids' suffix), go (what an id link
     does; default: select it here), onSelect(id, kind), onCheckpoint(i), onFilters(f),
     onDrawn(ms) (the first drawing, timed from opts.t0 or from when the network is
     made), ask(id) (fetch what the data does not carry; the answer comes to addDetails)} */
  function View(div, run, opts) {
    this.run = run; this.opts = opts || {}; this.div = div;
    this.index = this.opts.index || 0;
    this.network = null; this.ck = 0; this.since = -1; this.selected = ""; this.marked = new Set();
    this.filters = { s0: true, s1: true, u: true, e: true, gamma: 0, degree: 0, text: "", sig: true };
    this.extra = {};  // details answered by ask()
    this.build();
  }
  View.prototype.go = function (id) { (this.opts.go || ((x) => this.select(x)))(id); };
  View.prototype.build = function () {
    const r = this.run, div = this.div;
    if (!r.hypergraph) {
      div.appendChild(el("p", { class: "note", text: "This method (" + (r.method || "?") +
        ") stores no hypergraph: there is nothing to draw. The Run and Retrieval tabs show what applies." }));
      return;
    }
    const g = r.graph, cks = g.checkpoints;
    const label = el("span", { class: "cklabel" });
    const slider = el("input", { type: "range", class: "ck-slider", min: 0, max: cks.length - 1,
      value: cks.length - 1, step: 1, "aria-label": "checkpoint", disabled: cks.length < 2 ? true : null });
    slider.addEventListener("input", () => this.setCheckpoint(+slider.value));
    this.ckLabel = label; this.slider = slider;
    const f = this.filters;
    this.inputs = {};
    const box = (key, text, color, square) => {
      const input = el("input", { type: "checkbox", checked: f[key], "data-filter": key,
        onchange: (e) => { f[key] = e.target.checked; this.filtersChanged(); } });
      this.inputs[key] = input;
      return el("label", {}, input, " ", el("span", { class: square ? "sq" : "dot", style: "background:" + color }), " " + text);
    };
    const gv = el("span", { text: "0.00" });
    const gamma = el("input", { type: "range", min: 0, max: 1, step: 0.05, value: 0, "data-filter": "gamma",
      oninput: (e) => { f.gamma = +e.target.value; gv.textContent = f.gamma.toFixed(2); this.filtersChanged(); } });
    const deg = el("input", { type: "number", min: 0, value: 0, style: "width:4em", "data-filter": "degree",
      oninput: (e) => { f.degree = +e.target.value || 0; this.filtersChanged(); } });
    const txt = el("input", { type: "search", placeholder: "text or id", "data-filter": "text",
      oninput: (e) => { f.text = e.target.value.toLowerCase(); this.filtersChanged(); } });
    this.inputs.gamma = gamma; this.inputs.gammaText = gv; this.inputs.degree = deg; this.inputs.text = txt;
    const hasSig = ((r.significance || {}).rows || []).length > 0;
    div.appendChild(el("div", { class: "controls" },
      el("div", { class: "slider" }, el("span", { text: "checkpoint" }), slider, label),
      box("s0", "strategies", COLORS.skill), box("s1", "mistakes", COLORS.mistake),
      box("u", "subtasks", COLORS.subtask), box("e", "trajectories", COLORS.ok, true),
      el("label", {}, "utility \u03b3 \u2265 ", gamma, " ", gv), el("label", {}, "degree \u2265 ", deg),
      el("label", {}, "text ", txt),
      hasSig ? box("sig", "co-occurrence beyond chance", COLORS.sig) : null));
    this.countLine = el("p", { class: "legend counts" });
    div.appendChild(this.countLine);
    if (g.note) div.appendChild(el("p", { class: "note aggregated", text: g.note }));
    if (r.provenance_note) div.appendChild(note(r.provenance_note));
    this.diffBox = el("div", { class: "diff" });
    div.appendChild(this.diffBox);
    const net = el("div", { class: "network", id: "network-" + this.index });
    this.details = el("div", { class: "details" },
      el("p", { class: "legend", text: "Click a skill for its provenance, a trajectory (square) for its task." }));
    div.appendChild(el("div", { class: "graphwrap" }, net, this.details));
    this.netDiv = net;
    this.setCheckpoint(cks.length - 1, true, true);
    this.buildNetwork();
  };
  /* the state (gamma, nu, degree) of every drawn element at checkpoint i */
  View.prototype.loadCheckpoint = function (i) {
    const ck = this.run.graph.checkpoints[i];
    this.ck = i;
    this.state = new Array(this.run.graph.nodes.length);
    ck.present.forEach((n, k) => { this.state[n] = { gamma: ck.gamma[k], nu: ck.nu[k], degree: ck.degree[k] }; });
  };
  View.prototype.buildNetwork = function () {
    const g = this.run.graph, t0 = this.opts.t0 || performance.now();
    this.big = g.nodes.length > BIG;  // no labels (unreadable at that scale; the tooltip has them), no hover
    const shown = this.shownSet();
    this.drawn = g.nodes.map((n, i) => {
      const st = this.state[i];
      return [shown.has(i), st ? st.gamma + "/" + st.nu + "/" + st.degree : "-"];
    });
    this.nodes = new vis.DataSet(g.nodes.map((n, i) => Object.assign(this.visNode(n, i, this.state[i]), { hidden: !shown.has(i) })));
    this.edges = new vis.DataSet([]);  // the memberships are drawn by drawLinks, not as vis edges
    const sig = (this.run.significance || {}).rows || [];
    const index = this.nodeIndex();
    this.sigEdges = sig.filter((row) => row[0] in index && row[2] in index)
      .map((row, i) => ({ id: "sig" + i, from: index[row[0]], to: index[row[2]], dashes: true, hidden: !this.filters.sig,
        width: 2, color: { color: COLORS.sig }, title: row[1] + " + " + row[3] + ": " + row[4] + " shared (q = " + fmt(row[7], 4) + ")" }));
    this.edges.add(this.sigEdges);
    const big = this.big;
    this.network = new vis.Network(this.netDiv, { nodes: this.nodes, edges: this.edges }, {
      physics: false, autoResize: true, layout: { improvedLayout: false },
      interaction: { hover: !big, tooltipDelay: 120, hideEdgesOnDrag: true, hideEdgesOnZoom: big },
      nodes: { font: { size: 10, color: "#223" }, borderWidth: 1, fixed: true },
      edges: { smooth: false, selectionWidth: 1.5, color: { color: COLORS.link }, width: 0.6 },
      groups: GROUPS,
    });
    this.network.on("click", (p) => { if (p.nodes.length) this.select(g.nodes[p.nodes[0]][0]); });
    this.network.on("beforeDrawing", (ctx) => this.drawLinks(ctx));
    this.network.once("afterDrawing", () => {
      this.drawMs = performance.now() - t0;
      this.netDiv.setAttribute("data-draw-ms", this.drawMs.toFixed(1));
      if (this.opts.onDrawn) this.opts.onDrawn(this.drawMs);
    });
    this.afterRedraw(shown);
  };
  View.prototype.nodeIndex = function () {
    if (!this._index) { this._index = {}; this.run.graph.nodes.forEach((n, i) => { this._index[n[0]] = i; }); }
    return this._index;
  };
  /* sized by utility (gamma), coloured by polarity / outcome (the groups) */
  View.prototype.visNode = function (n, i, st) {
    const [id, kind, x, y, label, code] = n;
    const gm = st ? (st.gamma || 0) : 0;
    const node = { id: i, x, y };
    if (kind === "s") Object.assign(node, { group: code ? "s1" : "s0", size: 5 + 12 * gm, label: this.big ? undefined : label });
    else if (kind === "e") Object.assign(node, { group: code ? "e1" : "e0", size: 3.5 + 6 * gm });
    else Object.assign(node, { group: "u", size: 2 + 3 * gm });
    node.title = id + ": " + label + (st ? " \u00b7 \u03b3 " + fmt(st.gamma) + ", \u03bd " + st.nu + ", degree " + st.degree : "");
    if (this.marked.has(i)) Object.assign(node, { borderWidth: 4, color: { border: COLORS.mark, background: GROUPS[node.group].color } });
    else if (this.wasMarked && this.wasMarked.has(i)) Object.assign(node, { borderWidth: 1, color: null });
    return node;
  };
  View.prototype.setCheckpoint = function (i, quiet, noDraw) {
    const cks = this.run.graph.checkpoints;
    i = Math.max(0, Math.min(cks.length - 1, i | 0));
    const ck = cks[i], prev = this.ck;
    this.loadCheckpoint(i);
    if (this.slider && +this.slider.value !== i) this.slider.value = i;
    this.ckLabel.textContent = (ck.label === "final" ? "final memory" : ck.label) + " \u00b7 after episode " + ck.after +
      " (" + (i + 1) + " of " + cks.length + ")";
    if (this.since < 0 || this.since >= i || noDraw) this.since = i - 1;
    if (prev !== i && this.since >= i) this.since = i - 1;
    this.showDiff();
    if (!noDraw) this.redraw();
    if (!quiet && this.opts.onCheckpoint) this.opts.onCheckpoint(i);
  };
  View.prototype.visible = function (n, i) {
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
  View.prototype.shownSet = function () {
    const shown = new Set();
    this.run.graph.nodes.forEach((n, i) => { if (this.visible(n, i)) shown.add(i); });
    return shown;
  };
  View.prototype.setFilters = function (f) {
    Object.assign(this.filters, f || {});
    const inp = this.inputs || {};
    for (const k of ["s0", "s1", "u", "e", "sig"]) if (inp[k]) inp[k].checked = !!this.filters[k];
    if (inp.gamma) { inp.gamma.value = this.filters.gamma; inp.gammaText.textContent = (+this.filters.gamma).toFixed(2); }
    if (inp.degree) inp.degree.value = this.filters.degree;
    if (inp.text && inp.text.value.toLowerCase() !== this.filters.text) inp.text.value = this.filters.text;
    this.redraw();
  };
  View.prototype.filtersChanged = function () {
    this.redraw();
    if (this.opts.onFilters) this.opts.onFilters(Object.assign({}, this.filters));
  };
  View.prototype.redraw = function () {
    if (!this.network) return;
    const g = this.run.graph, shown = this.shownSet(), was = this.drawn || [];
    const now = new Array(g.nodes.length), changed = [];
    g.nodes.forEach((n, i) => {  // only what changed goes to vis-network: each update costs
      const st = this.state[i], on = shown.has(i);
      const key = st ? st.gamma + "/" + st.nu + "/" + st.degree : "-";
      now[i] = [on, key];
      const old = was[i];
      if (old && old[1] === key) { if (old[0] !== on) changed.push({ id: i, hidden: !on }); }
      else changed.push(Object.assign(this.visNode(n, i, st), { hidden: !on }));
    });
    this.drawn = now;
    if (changed.length) this.nodes.update(changed);
    this.edges.update(this.sigEdges.map((e) => ({ id: e.id,
      hidden: !(this.filters.sig && shown.has(e.from) && shown.has(e.to)) })));
    this.afterRedraw(shown);
  };
  /* A trajectory's memberships (hyperedge square to member node) are drawn on the canvas
     under the nodes in one path, not as vis-network edges: 10,000 vis edges cost seconds
     to make (each its own options and label), one path a few milliseconds. The
     selected element's memberships are drawn darker. */
  View.prototype.drawLinks = function (ctx) {
    const g = this.run.graph, shown = this.visibleLinks || [], sel = this.nodeIndex()[this.selected];
    ctx.save();
    ctx.lineWidth = 0.6; ctx.strokeStyle = COLORS.link;
    ctx.beginPath();
    for (const k of shown) {
      const a = g.nodes[g.links[k][0]], b = g.nodes[g.links[k][1]];
      ctx.moveTo(a[2], a[3]); ctx.lineTo(b[2], b[3]);
    }
    ctx.stroke();
    if (sel !== undefined) {
      ctx.lineWidth = 1.6; ctx.strokeStyle = "#4a5563";
      ctx.beginPath();
      for (const k of shown) {
        const [e, n] = g.links[k];
        if (e !== sel && n !== sel) continue;
        ctx.moveTo(g.nodes[e][2], g.nodes[e][3]); ctx.lineTo(g.nodes[n][2], g.nodes[n][3]);
      }
      ctx.stroke();
    }
    ctx.restore();
  };
  View.prototype.afterRedraw = function (shown) {
    const g = this.run.graph, c = g.checkpoints[this.ck].counts;
    this.visibleLinks = g.checkpoints[this.ck].links.filter((k) => shown.has(g.links[k][0]) && shown.has(g.links[k][1]));
    this.netDiv.setAttribute("data-visible-links", String(this.visibleLinks.length));
    if (this.network) this.network.redraw();
    this.countLine.textContent = "This checkpoint holds " + c.skill + " strategies, " + c.mistake +
      " mistakes, " + c.subtask + " subtask nodes and " + c.hyperedge + " trajectories; " +
      shown.size + " of the " + g.nodes.length + " drawn elements are shown.";
    this.netDiv.setAttribute("data-visible-nodes", String(shown.size));
    this.netDiv.setAttribute("data-checkpoint", g.checkpoints[this.ck].label);
  };
  /* the elements of `ids` drawn with a thick dark border (a task's S_q and E*) */
  View.prototype.mark = function (ids) {
    const index = this.nodeIndex(), before = this.marked;
    this.marked = new Set((ids || []).filter((x) => x in index).map((x) => index[x]));
    if (!this.network) return;
    const g = this.run.graph, touched = new Set([...before, ...this.marked]);
    this.wasMarked = before;  // their own border and colour go back to their group's
    this.nodes.update([...touched].map((i) => this.visNode(g.nodes[i], i, this.state[i])));
    this.wasMarked = null;
    this.netDiv.setAttribute("data-marked", [...this.marked].map((i) => g.nodes[i][0]).sort().join(" "));
  };

  /* ------------------------------------------------------------ between two checkpoints */
  View.prototype.setSince = function (j) { this.since = j; this.showDiff(); };
  View.prototype.showDiff = function () {
    const box = this.diffBox, cks = this.run.graph.checkpoints, i = this.ck;
    if (!box) return;
    box.textContent = "";
    for (const a of ["data-from", "data-to", "data-merged", "data-pruned"]) box.removeAttribute(a);
    if (cks.length < 2) return;
    if (i === 0) { box.appendChild(el("p", { class: "legend", text: "The first checkpoint: move the slider to see what maintenance did after it." })); return; }
    const j = Math.max(0, Math.min(this.since, i - 1));
    const a = cks[j], b = cks[i];
    const sel = el("select", { class: "since", "aria-label": "compare with checkpoint",
      onchange: (e) => this.setSince(+e.target.value) },
      cks.slice(0, i).map((c, k) => el("option", { value: k, selected: k === j ? true : null,
        text: (c.label === "final" ? "final" : c.label) + " (after episode " + c.after + ")" })));
    const cyc = (this.run.cycles || []).filter((c) => c.after > a.after && c.after <= b.after);
    const merges = cyc.flatMap((c) => c.merges.map((m) => [c.after, m]));
    const pruned = cyc.flatMap((c) => c.pruned_nodes.map((p) => [c.after, p]));
    const nodes = this.run.graph.nodes, pa = new Set(a.present), pb = new Set(b.present);
    const gone = a.present.filter((n) => !pb.has(n) && nodes[n][1] === "s").length;
    const born = b.present.filter((n) => !pa.has(n) && nodes[n][1] === "s").length;
    const nMerged = cyc.reduce((s, c) => s + (c.merged || 0), 0), nPruned = cyc.reduce((s, c) => s + (c.pruned || 0), 0);
    box.setAttribute("data-from", a.label); box.setAttribute("data-to", b.label);
    box.setAttribute("data-merged", String(nMerged)); box.setAttribute("data-pruned", String(nPruned));
    const go = (id) => this.go(id);
    const sum = el("summary", {}, "Between ", sel, " and " + (b.label === "final" ? "the final memory" : b.label) + ": " +
      (this.run.cycles && this.run.cycles.length ? cyc.length + " maintenance cycle(s) merged " + nMerged + " pair(s) and pruned " + nPruned + " node(s); " : "") +
      born + " drawn skill node(s) appeared and " + gone + " left.");
    const det = el("details", { class: "between", open: merges.length + pruned.length <= 8 ? true : null }, sum);
    if (merges.length) det.appendChild(el("ul", { class: "merges" }, merges.map(([after, m]) => el("li", { "data-new": m.new_id },
      "after episode " + after + ": ", idLink(m.a, go), " " + (m.a_name ? "\u201c" + m.a_name + "\u201d " : "") + "+ ",
      idLink(m.b, go), " " + (m.b_name ? "\u201c" + m.b_name + "\u201d " : "") + "\u2192 ", idLink(m.new_id, go),
      (m.name ? " \u201c" + m.name + "\u201d" : "") + " (cos " + fmt(m.similarity) + ")"))));
    if (pruned.length) det.appendChild(el("ul", { class: "pruned" }, pruned.map(([after, p]) => el("li", { "data-id": p[0] },
      "after episode " + after + ": pruned ", idLink(p[0], go), " " + (p[3] || "") + " (\u03b3 " + fmt(p[4]) + ", \u03bd " + fmt(p[5]) + ")"))));
    box.appendChild(det);
  };

  /* ------------------------------------------------------------ details of one element */
  View.prototype.kindOf = function (id) {
    const i = this.nodeIndex()[id];
    if (i !== undefined) {
      const n = this.run.graph.nodes[i];
      return n[1] === "s" ? (n[5] ? "mistake" : "skill") : KIND[n[1]];
    }
    if ((this.run.provenance || {})[id]) return this.run.provenance[id].polarity === "failure" ? "mistake" : "skill";
    if ((this.run.edges || {})[id]) return "trajectory";
    return "";
  };
  View.prototype.select = function (id, quiet) {
    const g = this.run.graph;
    this.selected = id || "";
    if (this.network && g) {
      const i = this.nodeIndex()[id];
      if (i !== undefined) this.network.selectNodes([i]); else this.network.unselectAll();
    }
    const d = this.details;
    if (d) {
      d.textContent = "";
      d.removeAttribute("data-skill"); d.removeAttribute("data-edge");
      d.setAttribute("data-selected", this.selected);
      if (!id) d.appendChild(el("p", { class: "legend", text: "Nothing selected." }));
      else if (id[0] === "s") this.skillDetails(d, id);
      else if (id[0] === "e") this.edgeDetails(d, id);
      else {
        const n = g.nodes[this.nodeIndex()[id]];
        d.appendChild(el("h3", { text: "Subtask node " + id }));
        d.appendChild(el("p", { text: n ? n[4] : "" }));
      }
    }
    if (!quiet && this.opts.onSelect) this.opts.onSelect(this.selected, this.kindOf(this.selected));
  };
  View.prototype.addDetails = function (reply) {
    if (!reply || !reply.id) return;
    this.extra[reply.id] = reply;
    if (reply.edge) (this.run.edges = this.run.edges || {})[reply.id] = reply.edge;
    if (this.selected === reply.id) this.select(reply.id, true);
  };
  View.prototype.edgeRow = function (eid) {
    const e = (this.run.edges || {})[eid], go = (id) => this.go(id);
    if (!e) return el("li", { "data-edge": eid }, idLink(eid, go));
    return el("li", { "data-edge": eid }, idLink(eid, go), " \u00b7 episode " + fmt(e[0]) + " \u00b7 task " + fmt(e[1]) + " \u00b7 ",
      el("span", { class: e[2] ? "ok" : "fail", text: e[2] ? "success" : "failure" }), ": " + e[3]);
  };
  View.prototype.edgeDetails = function (d, eid) {
    const e = (this.run.edges || {})[eid], more = this.extra[eid];
    d.setAttribute("data-edge", eid);
    d.appendChild(el("h3", { text: "Trajectory " + eid }));
    if (!e) {
      if (this.opts.ask && !more) { d.appendChild(el("p", { class: "legend", text: "(asking the kernel\u2026)" })); this.opts.ask(eid); }
      else d.appendChild(el("p", { class: "legend", text: "(no text kept for this hyperedge)" }));
      return;
    }
    d.appendChild(el("p", {}, "episode " + fmt(e[0]) + ", task " + fmt(e[1]) + ", ",
      el("span", { class: e[2] ? "ok" : "fail", text: e[2] ? "success" : "failure" })));
    d.appendChild(el("p", { text: "Task: " + e[3] }));
    d.appendChild(el("p", { text: "Lesson: " + e[4] }));
    if (more && more.subtasks && more.subtasks.length) {
      d.appendChild(el("h3", { text: "Subtask nodes" }));
      d.appendChild(el("ul", { class: "subtasks" }, more.subtasks.map((u) => el("li", { "data-id": u[0] }, u[0] + ": " + u[1]))));
    } else if (this.opts.ask && !more && !this.run.graph.totals.rings) this.opts.ask(eid);
  };
  View.prototype.skillDetails = function (d, sid) {
    const p = (this.run.provenance || {})[sid], go = (id) => this.go(id);
    if (!p) { d.appendChild(el("p", { text: sid + ": no provenance kept (see the note above the drawing)." })); return; }
    d.setAttribute("data-skill", sid);
    d.appendChild(el("h3", { text: p.name + " [" + (p.polarity === "failure" ? "mistake" : "strategy") + "] " + sid }));
    d.appendChild(el("p", { text: p.content }));
    const b = p.born;
    d.appendChild(el("h3", { text: "Born" }));
    if (!b) d.appendChild(el("p", { class: "legend", text: this.run.kind === "memory"
      ? "not known from a memory alone (a run's records keep it: show the run folder)"
      : "before the records start, or not recorded" }));
    else if (b.how === "merged") {
      d.appendChild(el("p", { class: "born-merged" }, "merged after episode " + b.after + " from ", idLink(b.a, go), " and ", idLink(b.b, go),
        " (propagated cosine " + fmt(b.similarity) + ", plain cosine " + fmt(b.plain_similarity) + ")"));
      if (b.a_name) d.appendChild(el("ul", {}, el("li", { text: b.a_name + ": " + (b.a_content || "") }),
        el("li", { text: b.b_name + ": " + (b.b_content || "") })));
    } else {
      d.appendChild(el("p", { text: "extracted in episode " + b.episode + " from its trajectory:" }));
      d.appendChild(el("ul", { class: "produced" }, this.edgeRow(b.edge)));
    }
    if (this.run.kind !== "memory") {
      d.appendChild(el("h3", { text: "Reinforced (deduplicated into it at insertion): " + p.n_reinforced }));
      if (p.reinforced.length) d.appendChild(el("ul", {}, p.reinforced.map((r) =>
        el("li", {}, "episode " + r[0] + " ", r[1] ? idLink(r[1], go) : "", " cosine " + fmt(r[2]) + (r[3] ? " (opposite polarity)" : "")))));
    }
    d.appendChild(el("h3", { text: "Trajectories holding it: " + p.n_trajectories }));
    d.appendChild(el("ul", { class: "trajectories" }, p.trajectories.map((e) => this.edgeRow(e))));
    if (p.n_trajectories > p.trajectories.length) d.appendChild(el("p", { class: "legend", text: "(the first and the latest shown)" }));
    d.appendChild(el("h3", { text: "\u03b3 (Eq. 3), \u03bd and \u03c3 over time" }));
    d.appendChild(spark(p.gamma));
    d.appendChild(table([{ h: "after episode", num: 1 }, { h: "\u03b3", num: 1, d: 3 }, { h: "\u03bd", num: 1 }, { h: "\u03c3", num: 1, d: 1 }],
      p.gamma, { class: "history" }));
    if (this.run.kind !== "memory") {
      d.appendChild(el("h3", { text: "Retrieved (in S_q): " + p.n_retrieved + " times" }));
      if (p.retrieved.length) d.appendChild(el("ul", { class: "retrieved" }, p.retrieved.map((r) =>
        el("li", {}, "episode " + r[0] + ", task " + fmt(r[1]) + ": ", el("span", { class: r[2] ? "ok" : "fail", text: r[2] ? "success" : "failure" })))));
    }
    if (p.merged_into) d.appendChild(el("p", { class: "merged-into" }, "Merged into ", idLink(p.merged_into.id, go), " after episode " + p.merged_into.after));
    if (p.pruned) d.appendChild(el("p", { class: "pruned" }, "Pruned after episode " + p.pruned.after + " (\u03b3 " + fmt(p.pruned.gamma) + ", \u03bd " + p.pruned.nu + ")"));
  };

  /* ------------------------------------------------------------ a task's retrieval
     TaskPanel(div, run, opts): opts = {go (what an id link does), onTask(i, task)} */
  function TaskPanel(div, run, opts) {
    this.run = run; this.opts = opts || {}; this.div = div;
    const ts = run.tasks || [];
    div.appendChild(el("h2", { text: "Why a task saw what it saw" }));
    if (run.tasks_note) div.appendChild(note(run.tasks_note));
    if (!ts.length) {
      div.appendChild(el("p", { class: "legend", text: run.kind === "memory"
        ? "No task given: show(memory, tasks=[...]) retrieves for each and shows it here." : "No task recorded." }));
      return;
    }
    const label = (t) => (run.kind === "memory" ? t.task_id : "episode " + t.index + " \u00b7 " + t.task_id +
      " \u00b7 " + (t.success ? "success" : "failure"));
    const sel = el("select", { class: "task-select", "aria-label": "task" },
      ts.map((t, i) => el("option", { value: i, text: label(t) })));
    this.out = el("div", { class: "task-view" });
    sel.addEventListener("change", () => this.show(+sel.value));
    div.appendChild(el("div", { class: "controls" }, el("label", {}, "task ", sel)));
    div.appendChild(this.out);
    this.sel = sel;
  }
  TaskPanel.prototype.find = function (taskId) {
    const ts = this.run.tasks || [];
    for (let i = ts.length - 1; i >= 0; i--) if (ts[i].task_id === taskId) return i;
    return -1;
  };
  TaskPanel.prototype.show = function (i, quiet) {
    const ts = this.run.tasks || [], t = ts[i], out = this.out, go = this.opts.go;
    if (!t || !out) return;
    this.current = i;
    if (+this.sel.value !== i) this.sel.value = i;
    out.textContent = "";
    out.setAttribute("data-index", t.index);
    out.setAttribute("data-task", t.task_id);
    if (t.explain) {
      out.appendChild(el("h3", { text: "The retrieval (R_u, E_sub, E_traj, kappa, S_q), as explain() prints it" }));
      out.appendChild(el("pre", { class: "explain", text: t.explain }));
      const kap = Object.entries(t.kappa || {});
      out.appendChild(el("h3", { text: "kappa of the candidates R_s (Eq. 8), S_q first" }));
      out.appendChild(table([{ h: "skill", id: 1 }, { h: "kappa", num: 1 }, { h: "in S_q" }],
        kap.map(([s, k]) => [s, k, t.S_q.includes(s) ? "yes" : ""]), { go }));
      out.appendChild(el("h3", { text: "The context the agent got" }));
      out.appendChild(el("pre", { class: "context", text: t.context || "(empty: nothing retrieved)" }));
    } else {
      out.appendChild(el("p", { text: "Retrieved ids: " + (t.retrieved.join(", ") || "(none)") }));
    }
    if (!quiet && this.opts.onTask) this.opts.onTask(i, t);
  };

  return { COLORS, el, fmt, note, table, idLink, spark, csvText, download, View, TaskPanel };
})();
