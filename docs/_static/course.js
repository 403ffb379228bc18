// The course site's helpers for reading on any screen (docs/conf.py: html_js_files;
// tests/browser/ checks each at 1280 px and at 390 px).
// 1. A monospace diagram (a Markdown code block, such as the home page's pipeline) that is
//    a little wider than the column is set smaller, down to 60 % of its size, so that it
//    fits; a wider one keeps its size and scrolls (course.css).
// 2. Every figure of a page or a slide opens in a full-screen viewer when tapped or
//    clicked, at its own size (1 image pixel to 1 CSS pixel: the text as drawn, 10 pt at
//    100 dpi), scrolled with a finger or the keys, pinch-zoomable, fitted to the screen on
//    a second tap; Esc, the close button or the browser's back closes it. A figure shown
//    smaller than LEGIBLE of its size is marked "zoom" so a reader knows.
// 3. On a narrow screen (NARROW), a figure of panels side by side is shown panel by panel:
//    each panel as wide as the column, its title and legend above and below, reflowed
//    (the pieces were found in the PNG when the site was built: tools/coursebook/panels.py).
//    The pieces are views of the same image (no second download), each opens the viewer.
// 4. A numbered display equation keeps its number in view: MathJax draws "(13)" at the far
//    right of the equation, which a wide equation scrolls out of sight; the number is set
//    beside the equation's box instead, and the equation scrolls alone. An equation a
//    little too wide for its box is set smaller to fit (down to 80 %).
// 5. A box that scrolls sideways (a table, an equation, code) fades at the edge where more
//    is hidden, so a reader knows to swipe.
(() => {
  "use strict";
  const MIN_SCALE = 0.6;
  const LEGIBLE = 0.75;  // 10-pt text at 100 dpi shown at 7.5 pt (hyperskill_lite.plots.style)
  const NARROW = window.matchMedia("(max-width: 720px)");
  const FIGURES = "article.bd-article img, .reveal .slides img";  // pages, slide decks
  const MIN_FIGURE = 64;  // px: a smaller image is an icon, not a figure
  let typeset = false;  // MathJax has typeset the page

  function fitDiagrams() {
    for (const pre of document.querySelectorAll("article.bd-article pre")) {
      if (pre.closest(".cell")) continue;  // code cells and their outputs scroll instead
      pre.style.fontSize = "";
      const style = getComputedStyle(pre);
      const pad = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
      const room = pre.clientWidth - pad, need = pre.scrollWidth - pad;
      if (need <= room + 1 || room <= 0) continue;
      const scale = room / need;
      if (scale >= MIN_SCALE) {
        pre.style.fontSize = `${(parseFloat(style.fontSize) * scale * 0.98).toFixed(2)}px`;
      }
    }
  }

  // --- 2. the viewer -------------------------------------------------------------------
  let viewer = null;

  function buildViewer() {
    const dialog = document.createElement("dialog");
    dialog.className = "course-viewer";
    dialog.setAttribute("aria-label", "The figure at full size");
    dialog.innerHTML =
      '<div class="course-viewer-bar"><span class="course-viewer-title"></span>' +
      '<button type="button" class="course-viewer-fit"></button>' +
      '<button type="button" class="course-viewer-close" aria-label="Close the figure">' +
      "\u2715</button></div><div class=\"course-viewer-body\" tabindex=\"0\"><img alt=\"\"></div>";
    document.body.appendChild(dialog);
    const img = dialog.querySelector("img");
    const fit = dialog.querySelector(".course-viewer-fit");
    const setFit = (on) => {
      dialog.classList.toggle("course-viewer-fitted", on);
      fit.textContent = on ? "Full size" : "Fit to screen";
    };
    fit.addEventListener("click", () => setFit(!dialog.classList.contains("course-viewer-fitted")));
    img.addEventListener("click", () => setFit(!dialog.classList.contains("course-viewer-fitted")));
    dialog.querySelector(".course-viewer-close").addEventListener("click", () => dialog.close());
    dialog.addEventListener("keydown", (e) => {  // the theme's own Esc handler cancels the
      if (e.key === "Escape") {                   // dialog's, and reveal.js's opens its
        e.preventDefault();                       // overview: close it here, alone
        e.stopPropagation();
        dialog.close();
      }
    });
    dialog.addEventListener("close", () => {
      document.documentElement.classList.remove("course-viewer-open");
      if (history.state && history.state.courseViewer) history.back();
    });
    window.addEventListener("popstate", () => { if (dialog.open) dialog.close(); });
    return { dialog, img, setFit };
  }

  function openViewer(source) {
    viewer = viewer || buildViewer();
    const { dialog, img, setFit } = viewer;
    img.src = source.currentSrc || source.src;
    img.alt = source.getAttribute("data-figure-alt") || source.alt || "";
    img.style.setProperty("--course-natural",
                          source.naturalWidth ? `${source.naturalWidth}px` : "auto");
    dialog.querySelector(".course-viewer-title").textContent = img.alt;
    setFit(false);
    history.pushState({ courseViewer: true }, "");
    document.documentElement.classList.add("course-viewer-open");
    dialog.showModal();
    const body = dialog.querySelector(".course-viewer-body");
    body.scrollTo(0, 0);
    body.focus();
  }

  function linkFigure(img) {
    if (img.closest("a")) return img.closest("a");
    const a = document.createElement("a");
    a.href = img.getAttribute("src");
    a.className = "course-figure";
    a.title = "Open the figure at full size";
    img.replaceWith(a);
    a.appendChild(img);
    return a;
  }

  function linkFigures() {
    for (const img of document.querySelectorAll(FIGURES)) {
      if (img.closest(".course-stack") || img.closest("a:not(.course-figure)")) continue;
      if (img.complete && img.naturalWidth && img.naturalWidth < MIN_FIGURE) continue;
      const a = linkFigure(img);
      a.addEventListener("click", (e) => {
        if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;  // a new tab
        e.preventDefault();
        openViewer(img);
      });
    }
  }

  function markShrunk() {
    for (const a of document.querySelectorAll("a.course-figure")) {
      const img = a.querySelector("img");
      const shown = img.getBoundingClientRect().width;
      a.classList.toggle("course-shrunk",
        img.naturalWidth > 0 && shown > 0 && shown < LEGIBLE * img.naturalWidth);
    }
  }

  // --- 3. panel by panel on a narrow screen ----------------------------------------------
  const stacks = [];

  function figureBefore(marker) {
    const [w, h] = marker.dataset.size.split("x").map(Number);
    const cell = marker.closest(".cell_output") || document;
    let found = null;
    for (const img of cell.querySelectorAll("img")) {
      if (img.closest(".course-stack")) continue;
      const before = img.compareDocumentPosition(marker) & Node.DOCUMENT_POSITION_FOLLOWING;
      if (before && (!img.naturalWidth || (img.naturalWidth === w && img.naturalHeight === h))) {
        found = img;
      }
    }
    return found;
  }

  function buildStack(marker) {
    const img = figureBefore(marker);
    if (!img) return;
    const [W, H] = marker.dataset.size.split("x").map(Number);
    const pieces = JSON.parse(marker.dataset.pieces);
    const panels = pieces.filter((p) => p[5]).length;
    const stack = document.createElement("div");
    stack.className = "course-stack";
    stack.setAttribute("role", "group");
    stack.setAttribute("aria-label", `The figure, panel by panel (${panels} panels)`);
    let row = null, rowIndex = -1, panel = 0;
    for (const [x, y, w, h, r, isPanel] of pieces) {
      if (r !== rowIndex) {
        row = document.createElement("div");
        row.className = "course-stack-row";
        stack.appendChild(row);
        rowIndex = r;
      }
      const crop = document.createElement("span");
      crop.className = "course-crop";
      crop.dataset.crop = `${x},${y},${w},${h}`;
      crop.dataset.panel = isPanel ? "1" : "0";
      crop.style.aspectRatio = `${w} / ${h}`;
      const view = document.createElement("img");
      view.src = img.getAttribute("src");
      view.setAttribute("data-figure-alt", img.alt);
      view.alt = isPanel ? `Panel ${++panel} of ${panels} of the figure: ${img.alt}`
        : `A title or legend of the figure: ${img.alt}`;
      view.style.width = `${(100 * W / w).toFixed(4)}%`;
      view.style.marginLeft = `${(-100 * x / w).toFixed(4)}%`;
      view.style.marginTop = `${(-100 * y / w).toFixed(4)}%`;
      view.decoding = "async";
      crop.appendChild(view);
      const a = document.createElement("a");
      a.href = img.getAttribute("src");
      a.className = "course-piece";
      a.title = "Open the figure at full size";
      a.appendChild(crop);
      a.addEventListener("click", (e) => {
        if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        openViewer(img);
      });
      row.appendChild(a);
    }
    const anchor = img.closest("a.course-figure") || img;
    anchor.after(stack);
    stacks.push({ stack, anchor, W, pieces });
  }

  function layoutStacks() {
    for (const { stack, anchor, pieces } of stacks) {
      const on = NARROW.matches;
      stack.hidden = !on;
      anchor.classList.toggle("course-stacked", on);
      if (!on) continue;
      const room = stack.clientWidth;
      const widest = Math.max(...pieces.filter((p) => p[5]).map((p) => p[2]));
      const scale = Math.min(1, room / widest);
      for (const crop of stack.querySelectorAll(".course-crop")) {
        const w = Number(crop.dataset.crop.split(",")[2]);
        crop.style.width = `${Math.min(room, w * scale).toFixed(1)}px`;
      }
    }
  }

  // --- 4. equation numbers beside the equation ---------------------------------------------
  const TAG = /\\tag(\*?)\s*\{([^{}]*)\}/;

  function numberEquations() {
    const doc = window.MathJax && MathJax.startup && MathJax.startup.document;
    if (!doc || !doc.getMathItemsWithin) return;
    for (const item of doc.getMathItemsWithin(document.body)) {
      const m = item.display && TAG.exec(item.math || "");
      const box = item.typesetRoot;
      if (!m || !box || !box.parentElement || box.classList.contains("course-tagged")) continue;
      if (!box.parentElement.matches("div.math")) continue;  // a page's equation, not a slide's
      const number = document.createElement("span");
      number.className = "course-eqno";
      number.textContent = m[1] ? m[2] : `(${m[2]})`;
      number.setAttribute("aria-hidden", "true");  // MathJax's own label is still read
      box.classList.add("course-tagged");
      box.parentElement.classList.add("course-numbered");
      box.before(number);  // div.math is a reversed row (the theme): the number shows right
    }
    typeset = true;
    fitEquations();
    watchScrollers();
  }

  // An equation a little wider than its box (up to 1 / MIN_MATH) is set smaller to fit;
  // a wider one keeps its size and scrolls.
  const MIN_MATH = 0.8;

  function fitEquations() {
    for (const box of document.querySelectorAll("div.math mjx-container[display=\"true\"]")) {
      if (box.dataset.fontSize === undefined) box.dataset.fontSize = box.style.fontSize || "";
      box.style.fontSize = box.dataset.fontSize;
      const room = box.clientWidth, need = box.scrollWidth;
      if (need <= room + 1 || room <= 0) continue;
      const scale = room / need;
      if (scale < MIN_MATH) continue;
      const size = parseFloat(getComputedStyle(box).fontSize);
      box.style.fontSize = `${(size * scale * 0.98).toFixed(2)}px`;
    }
  }

  function whenTypeset(then) {
    const t0 = Date.now();
    const wait = () => {
      if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
        MathJax.startup.promise.then(then);
      } else if (Date.now() - t0 < 15000 && document.querySelector(".math")) {
        setTimeout(wait, 100);
      }
    };
    wait();
  }

  // --- 5. a fade where a box hides more ---------------------------------------------------
  const SCROLLERS = ".pst-scrollable-table-container, div.cell_output .output.text_html, " +
    "div.math mjx-container[display=\"true\"], article pre, table.indextable";
  const watched = new WeakSet();

  function hint(box) {
    const more = box.scrollWidth - box.clientWidth;
    box.classList.toggle("course-more-left", more > 1 && box.scrollLeft > 1);
    box.classList.toggle("course-more-right", more > 1 && box.scrollLeft < more - 1);
  }

  function watchScrollers() {
    for (const box of document.querySelectorAll(SCROLLERS)) {
      if (!watched.has(box)) {
        watched.add(box);
        box.addEventListener("scroll", () => hint(box), { passive: true });
      }
      hint(box);
    }
  }

  function relayout() {
    fitDiagrams();
    if (typeset) fitEquations();
    layoutStacks();
    markShrunk();
    watchScrollers();
  }

  function ready() {
    linkFigures();
    for (const marker of document.querySelectorAll(".course-pieces[data-pieces]")) {
      try { buildStack(marker); } catch (e) { /* a malformed marker: the figure stays whole */ }
    }
    relayout();
    for (const img of document.querySelectorAll(FIGURES)) {
      if (!img.complete) img.addEventListener("load", relayout, { once: true });
    }
    whenTypeset(numberEquations);
    let pending = 0;
    window.addEventListener("resize", () => {
      cancelAnimationFrame(pending);
      pending = requestAnimationFrame(relayout);
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();
