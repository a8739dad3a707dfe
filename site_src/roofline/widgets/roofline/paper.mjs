// What paper prints of a roofline block whose static drawing carries a measurement's overlay
// (the measure page): the live plot cannot draw that overlay again for another view (the
// overlay's document is not in its payload, and a picked file replaces it on screen only), so
// once the view on screen or its measured file is not the build's, paper leaves the build's
// drawing out (blockstyle.STATIC_CSS's .rl-stale) and the printed record says so.

export const ON_SCREEN_ONLY = " The drawing of this view, with its measurement, is on screen only.";

const pickedFiles = new WeakSet(); // figs whose measured roofs a picked file replaced

// Mark the block `el` (null: none) of the plot `fig` stale or not on paper; `newFile` when a
// picked file replaced the measured roofs (stale from then on).
export function measuredOnPaper(el, fig, stale, newFile = false) {
  if (newFile) pickedFiles.add(fig);
  if (!el) return;
  const off = stale || pickedFiles.has(fig);
  const drawing = el.querySelector(":scope > .roofline-static");
  if (drawing) drawing.classList.toggle("rl-stale", off);
  const record = el.querySelector(":scope > .roofline-record");
  if (record && off && !record.textContent.endsWith(ON_SCREEN_ONLY)) {
    record.textContent += ON_SCREEN_ONLY;
  }
}
