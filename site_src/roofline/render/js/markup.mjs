// A Div's text and classes, set without laying the whole plot out again.
//
// Any change to a Bokeh markup model (a Div's text, its css_classes) makes its view render
// again and compute the layout of its whole root, canvas included: on the lesson a preset
// change set three such values, two and a half layouts of the root (BENCHMARKS.md has the
// time). Here the model takes the new values silently, so it stays
// the record that any later render (a resize, a new theme) draws from, and each of its views
// gets them in its DOM at once. Should that change the Div's size (a readout that wraps onto
// another line), Bokeh's own resize observer lays the root out again: only then.
//
// Without a view (node's tests, a document not yet shown) or for a Div that renders HTML, the
// plain assignment, which Bokeh renders itself.
export function setMarkup(index, model, props) {
  const changed = {};
  for (const [k, v] of Object.entries(props)) if (!sameValue(model[k], v)) changed[k] = v;
  const keys = Object.keys(changed);
  if (keys.length === 0) return "same";
  const views = index && typeof index.find_all === "function" ? index.find_all(model) : [];
  const direct = views.length > 0 && model.render_as_text === true &&
    typeof model.setv === "function" &&
    views.every((v) => v.markup_el && typeof v._apply_html_attributes === "function");
  if (!direct) {
    for (const k of keys) model[k] = changed[k];
    return "model";
  }
  model.setv(changed, { silent: true });
  for (const view of views) {
    if ("text" in changed) view.markup_el.textContent = model.text;
    if ("css_classes" in changed) view._apply_html_attributes();
  }
  return "direct";
}

// A Bokeh property's value equal to what would be set: lists (options, css_classes) by content.
export function sameValue(now, value) {
  return Array.isArray(value) ? JSON.stringify(now) === JSON.stringify(value) : now === value;
}

// The page's block (embed.block) that holds a widget: up from `model`'s view (found in the
// document's view `index`), out of each shadow root on the way; null where it is not in one
// (a notebook, file_html).
export function blockAround(index, model) {
  const view = index && typeof index.find_one === "function" ? index.find_one(model) : null;
  let node = view && view.el;
  while (node) {
    const found = node.closest && node.closest(".roofline-block");
    if (found) return found;
    const root = node.getRootNode && node.getRootNode();
    node = root && root !== node ? root.host : null;
  }
  return null;
}

// A block's caption and printed record say `caption` and `record` (the caption keeps its
// "Figure n:", captions.py's).
export function setBlockTexts(el, caption, record) {
  const cap = el.querySelector(":scope > .roofline-caption");
  if (cap) {
    const n = cap.querySelector(".rl-fignum");
    cap.textContent = caption;
    if (n) cap.prepend(n, " ");
  }
  const rec = el.querySelector(":scope > .roofline-record");
  if (rec) rec.textContent = record;
}

// Run `draw` (a block's static drawing laid out again) after the texts, on a timer, or at once
// when the page is about to print; a later call for the block replaces a pending one.
const pendingRedraws = new WeakMap(); // block -> the draw waiting for its timer
const printHooked = new WeakSet(); // blocks whose pending draw a print runs first
export function redrawSoon(el, draw) {
  const run = () => {
    if (pendingRedraws.get(el) !== run) return; // a later setting's draw replaced it
    pendingRedraws.delete(el);
    draw();
  };
  if (!printHooked.has(el) && typeof window !== "undefined") {
    printHooked.add(el);
    window.addEventListener("beforeprint", () => { const d = pendingRedraws.get(el); if (d) d(); });
  }
  pendingRedraws.set(el, run);
  setTimeout(run, 0);
}
