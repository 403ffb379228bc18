/* The notebook widget's glue (anywidget; hyperskill_lite/widget/): the model's
   "view_json" (a run view, as the studio page's, as JSON text) drawn by view.js's View and TaskPanel, and the state
   that goes both ways with Python: "selected" (a skill, trajectory, subtask or task id)
   and "selected_kind", "checkpoint" (the slider), "filters"; "draw_ms" (the time to the
   first drawing) goes to Python only. A trajectory's text the data does not carry is
   asked of the kernel ({type: "details", id}) and comes back as a custom message. */
let hslWidgets = 0;

function render({ model, el }) {
  const t0 = performance.now();  // draw_ms: from the data to the first drawing
  const run = JSON.parse(model.get("view_json") || "{}");
  const { el: h } = HSL;
  /* keys pressed in the widget (the slider's arrows, Home, End; typing in the search)
     are its own, not JupyterLab's notebook shortcuts (Lumino skips an element marked so) */
  const root = h("div", { class: "hsl hsl-widget", "data-lm-suppress-shortcuts": "true" });
  root.addEventListener("keydown", (e) => {  // nor the notebook's, which cancels arrow keys
    if (e.target && e.target.matches && e.target.matches("input, select, textarea")) e.stopPropagation();
  });
  el.appendChild(root);
  const counts = (run.graph && run.graph.totals) || {};
  root.appendChild(h("p", { class: "legend hsl-title" },
    h("strong", { text: run.name || "memory" }),
    run.method ? " \u00b7 " + run.method : "",
    run.graph ? " \u00b7 " + (counts.skills_ever || 0) + " skill nodes, " + (counts.hyperedges || 0) + " trajectories" : ""));
  if (run.world === "skillworld") {
    root.appendChild(h("p", { class: "note", text: "SkillWorld runs are an offline simulation: NOT the paper's numbers." }));
  }
  const graphDiv = h("div", { class: "hsl-graph" });
  const taskDiv = h("div", { class: "hsl-tasks" });
  root.appendChild(graphDiv);
  root.appendChild(taskDiv);
  const save = (values) => { for (const [k, v] of Object.entries(values)) model.set(k, v); model.save_changes(); };
  hslWidgets += 1;
  const view = new HSL.View(graphDiv, run, {
    index: "w" + hslWidgets, t0,
    onSelect: (id, kind) => save({ selected: id, selected_kind: kind }),
    onCheckpoint: (i) => save({ checkpoint: i }),
    onFilters: (f) => save({ filters: f }),
    onDrawn: (ms) => save({ draw_ms: Math.round(ms * 10) / 10 }),
    ask: (id) => model.send({ type: "details", id }),
  });
  const tasks = new HSL.TaskPanel(taskDiv, run, {
    go: (id) => view.select(id),
    onTask: (i, t) => {
      view.mark((t.S_q || []).concat(t.E_star || []));
      save({ selected: t.task_id, selected_kind: "task" });
    },
  });
  root.hslView = view;  // for the browser tests (tests/browser/test_widget*.py)
  root.hslTasks = tasks;
  root.setAttribute("data-ready", "1");

  /* a selection made in Python: an element is selected in the drawing, a task shown */
  function apply(id) {
    if (id === view.selected && id) return;
    const kind = view.kindOf(id);
    if (!id || kind) {
      view.select(id, true);
      if (model.get("selected_kind") !== kind) save({ selected_kind: kind });
      return;
    }
    const i = tasks.find(id);
    if (i >= 0) {
      view.selected = id;
      tasks.show(i, true);
      const t = run.tasks[i];
      view.mark((t.S_q || []).concat(t.E_star || []));
      if (model.get("selected_kind") !== "task") save({ selected_kind: "task" });
      return;
    }
    view.select("", true);
    save({ selected_kind: "" });
  }
  const onSelected = () => apply(model.get("selected") || "");
  const onCheckpoint = () => {
    const i = model.get("checkpoint");
    if (run.graph && i !== view.ck && i >= 0) view.setCheckpoint(i, true);
  };
  const onFilters = () => view.setFilters(model.get("filters") || {});
  const onMsg = (msg) => { if (msg && msg.type === "details") view.addDetails(msg); };
  model.on("change:selected", onSelected);
  model.on("change:checkpoint", onCheckpoint);
  model.on("change:filters", onFilters);
  model.on("msg:custom", onMsg);
  if (run.graph) {
    const f = model.get("filters");
    if (f && Object.keys(f).length) view.setFilters(f);
    onCheckpoint();
  }
  if (model.get("selected")) onSelected();
  return () => {
    model.off("change:selected", onSelected);
    model.off("change:checkpoint", onCheckpoint);
    model.off("change:filters", onFilters);
    model.off("msg:custom", onMsg);
    if (view.network) view.network.destroy();
  };
}

export default { render };
