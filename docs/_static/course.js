// The course site's small helpers (docs/conf.py: html_js_files).
// 1. A monospace diagram (a Markdown code block, such as the home page's pipeline) that is
//    a little wider than the column is set smaller, down to 60 % of its size, so that it
//    fits; a wider one keeps its size and scrolls (course.css).
// 2. Every figure of a notebook output opens full size in a new tab when clicked (on a
//    phone, the way to read a figure drawn for a wider column).
(() => {
  "use strict";
  const MIN_SCALE = 0.6;

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

  function linkFigures() {
    for (const img of document.querySelectorAll("div.cell_output img")) {
      if (img.closest("a")) continue;
      const a = document.createElement("a");
      a.href = img.getAttribute("src");
      a.className = "course-figure";
      a.target = "_blank";
      a.rel = "noopener";
      a.title = "Open the figure full size";
      img.replaceWith(a);
      a.appendChild(img);
    }
  }

  function ready() {
    linkFigures();
    fitDiagrams();
    let pending = 0;
    window.addEventListener("resize", () => {
      cancelAnimationFrame(pending);
      pending = requestAnimationFrame(fitDiagrams);
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();
