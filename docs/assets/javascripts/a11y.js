// Accessibility fixes for Material's own markup, which this site does not template:
// - wide tables are wrapped in a scrolling box at runtime: make each box keyboard-reachable;
// - the search overlay is a dialog without a name;
// - the checklist's decorative checkboxes have no label: name them after their item.
(() => {
  "use strict";
  const used = new Set();
  const fix = () => {
    for (const box of document.querySelectorAll(".md-typeset__scrollwrap:not([tabindex])")) {
      box.tabIndex = 0;
      box.setAttribute("role", "region");
      const caption = box.previousElementSibling;
      const text = caption && caption.tagName === "P" && caption.textContent.trim();
      const base = text ? text.slice(0, 120) : "Table";
      let label = base;
      for (let n = 2; used.has(label); n++) label = `${base} (${n})`;  // regions need unique names
      used.add(label);
      box.setAttribute("aria-label", label);
    }
    const search = document.querySelector(".md-search[role=dialog]:not([aria-label])");
    if (search) search.setAttribute("aria-label", "Search");
    for (const box of document.querySelectorAll(".task-list-control input:not([aria-label])")) {
      const item = box.closest("li");
      box.setAttribute("aria-label", item ? item.textContent.trim().slice(0, 120) : "Checklist item");
    }
  };
  fix();
  // Material wraps tables once its bundle has mounted the content; watch only until then.
  const content = document.querySelector(".md-content");
  if (content && "MutationObserver" in window) {
    const watch = new MutationObserver(fix);
    watch.observe(content, { childList: true, subtree: true });
    setTimeout(() => watch.disconnect(), 5000);
  }
  window.addEventListener("load", fix);
})();
