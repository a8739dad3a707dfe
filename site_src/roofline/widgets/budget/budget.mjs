// "Where the 50 % goes": the budget widget's one callback, its URL state and widget clamps.
// Python (roofline.widgets.budget.payload) precomputes every setting's figures; this file reads
// the controls and draws one setting with budget_view.mjs's selection and sums. The page's
// loader themes the plots (render/js/loader.js), axes and "ink"-tagged labels alike. The named
// exports are checked by `node --test tests/js/` (budget.test.mjs, hostile_urls.test.mjs).
// No Bokeh global: layout.py bundles format.mjs, budget_view.mjs and this file into the one
// blob module BokehJS runs, dropping the import lines (node reads them as they are).

import { sig } from "../../render/js/format.mjs";
import { frameAt, snapIndex } from "./budget_view.mjs";
import { budgetCaption, budgetRecord, staticBudget } from "./static.mjs";
import { queryParams, plainNumber, withQuery, writeURLSoon } from "../../render/js/urlstate.mjs";
import { blockAround, redrawSoon, setBlockTexts, setMarkup } from "../../render/js/markup.mjs";
import { jsonArg } from "../../render/js/jsonarg.mjs";

// ---------------------------------------------------------------- URL state (untrusted input)

// A plain decimal number clamped into [lo, hi]; anything else is null (ignored).
export function clampNumber(value, lo, hi) {
  const x = plainNumber(value);
  return x !== null && Number.isFinite(x) ? Math.min(hi, Math.max(lo, x)) : null;
}

const KEYS = ["model", "phase", "batch", "fuse", "eff", "launch", "dp", "overlap", "zero", "rec"];

// State from ?query and #hash (the hash wins): known ids only, numbers clamped to limits.
// known = {models: [...], phases: [...], batches: {phase: [...]}, fusions: [...], limits}.
export function parseState(search, hash, known) {
  const raw = Object.assign(queryParams(search), queryParams(hash));
  const st = {};
  if (known.models.includes(raw.model)) st.model = raw.model;
  if (known.phases.includes(raw.phase)) st.phase = raw.phase;
  if (typeof raw.batch === "string" && /^[0-9]+$/.test(raw.batch)) st.batch = Number(raw.batch);
  if (typeof raw.fuse === "string") {
    st.fuse = raw.fuse.split(",").filter((f) => known.fusions.includes(f));
  }
  const L = known.limits;
  const eff = clampNumber(raw.eff, L.efficiency[0], L.efficiency[1]);
  if (eff !== null) st.eff = eff;
  const launch = clampNumber(raw.launch, L.launch_us[0], L.launch_us[1]);
  if (launch !== null) st.launch = launch;
  const dp = clampNumber(raw.dp, L.dp[0], L.dp[1]);
  if (dp !== null) st.dp = Math.round(dp);
  const overlap = clampNumber(raw.overlap, L.overlap[0], L.overlap[1]);
  if (overlap !== null) st.overlap = overlap;
  if (["0", "1", "2", "3"].includes(raw.zero)) st.zero = Number(raw.zero);
  if (["none", "selective", "full"].includes(raw.rec)) st.rec = raw.rec;
  return st;
}

// The query string for a state, keeping the page's unrelated parameters.
export function stateQuery(search, st) {
  const pairs = [["model", st.model], ["phase", st.phase], ["batch", String(st.batch)],
                 ["fuse", st.fuse.join(",")], ["eff", String(sig(st.eff, 4))],
                 ["launch", String(sig(st.launch, 4))], ["dp", String(st.dp)],
                 ["overlap", String(sig(st.overlap, 4))]];
  if (st.zero !== undefined) pairs.push(["zero", String(st.zero)], ["rec", st.rec]);
  return withQuery(search, KEYS, pairs);
}

// ---------------------------------------------------------------- the callback

let busy = false;
function writeURL(st) { writeURLSoon((search) => stateQuery(search, st)); }

// The option closest to x on a log scale (the data-parallel degrees are powers of two).
export function nearestOption(options, x) {
  let best = options[0];
  for (const o of options) {
    if (Math.abs(Math.log(o / x)) < Math.abs(Math.log(best / x))) best = o;
  }
  return best;
}

// Snap a slider to its knob's nearest step (a URL may give any number in range).
function snapWidget(w, knob) {
  const x = knob.values[snapIndex(knob, w.value)];
  if (x !== w.value) w.value = x;
  return x;
}

// ---------------------------------------------------------------- the block around the widget

// The block's caption, its record of the settings and its static drawing (what paper prints)
// follow the controls, from the code the build wrote them with (static.mjs). The drawing (12
// SVGs) is laid out after the texts, on a timer, or at once when the page is about to print;
// not at all for the setting the build drew.
const drawnValues = new WeakMap(); // block -> the setting its static drawing shows
function showBudgetInBlock(args, P, values, f, index) {
  const el = blockAround(index, args.readout);
  if (!el) return;
  const record = el.querySelector(":scope > .roofline-record");
  const said = record ? record.textContent : "";
  setBlockTexts(el, budgetCaption(P, values), budgetRecord(P, values));
  const drawing = el.querySelector(":scope > .roofline-static");
  const key = JSON.stringify(values);
  if (!drawing || !args.drawing || drawnValues.get(el) === key) return;
  const text = drawing.querySelector(".roofline-static-text");
  if (drawnValues.get(el) === undefined && said === record.textContent && text &&
      text.textContent === f.readout) {
    drawnValues.set(el, key); // the first pass, on the setting the build drew
    return;
  }
  redrawSoon(el, () => {
    const D = args.drawing;
    const drawn = staticBudget(P, values, D.heights, D.titles, D.x_range);
    const p = document.createElement("p");
    p.className = "roofline-static-text";
    p.textContent = drawn.readout;
    drawing.innerHTML = drawn.svg;
    drawing.prepend(p);
    drawnValues.set(el, key);
  });
}

export default function (args, obj, data, context) {
  if (busy) return; // our own widget updates below re-enter; one pass does everything
  busy = true;
  try {
    update(args, obj, context && context.index);
  } finally {
    busy = false;
  }
}

function update(args, obj, index) {
  const P = jsonArg(args.payload); // JSON text (layout.py), parsed once
  const { model, phase, batch, fusions, efficiency, launch, dp, overlap, zero, recompute } = args;
  const widgets = [model, phase, batch, fusions, efficiency, launch, dp, overlap, zero, recompute];
  const user = widgets.includes(obj);
  const L = P.limits;

  if (!user && P.url && typeof window !== "undefined") {
    const st = parseState(window.location.search, window.location.hash, {
      models: Object.keys(P.models), phases: P.phases, fusions: P.fusions, limits: L });
    if (st.model) model.value = st.model;
    if (st.phase) phase.value = st.phase;
    if (st.batch !== undefined && P.batches[phase.value].includes(st.batch)) {
      batch.value = String(st.batch);
    }
    if (st.fuse) fusions.active = st.fuse.map((f) => P.fusions.indexOf(f));
    if (st.eff !== undefined) efficiency.value = st.eff;
    if (st.launch !== undefined) launch.value = st.launch;
    if (st.dp !== undefined) dp.value = String(nearestOption(P.dp_options, st.dp));
    if (st.overlap !== undefined) overlap.value = st.overlap;
    if (st.zero !== undefined) zero.value = String(st.zero);
    if (st.rec !== undefined) recompute.value = st.rec;
  }

  const ph = P.phases.includes(phase.value) ? phase.value : "train";
  const options = P.batches[ph].map(String);
  if (JSON.stringify(batch.options) !== JSON.stringify(options)) batch.options = options;
  if (!options.includes(batch.value)) batch.value = options[Math.min(1, options.length - 1)];
  batch.title = `Batch (× ${P.seq[ph].toLocaleString("en-US")} tokens)`;
  for (const w of [dp, overlap, zero, recompute]) w.disabled = ph !== "train";

  const values = {
    model: model.value, phase: ph, batch: Number(batch.value), active: fusions.active.slice(),
    efficiency: snapWidget(efficiency, P.knobs.efficiency),
    launch_us: snapWidget(launch, P.knobs.launch_us), dp: Number(dp.value),
    overlap: snapWidget(overlap, P.knobs.overlap), zero: Number(zero.value),
    recompute: recompute.value };
  const f = frameAt(P, values);
  if (!f) return;
  const st = f.st;
  args.waterfall.data = f.bars;
  args.classes.data = f.classes;
  args.points.data = f.points;
  // A step that does not fit says so over its empty plots (titles as [does not fit, fits]).
  (args.titles || []).forEach((t, i) => {
    const text = args.title_text[i][f.fits ? 1 : 0];
    if (t.text !== text) t.text = text;
  });
  // In the views' DOM, not by a re-layout of the whole root (markup.mjs).
  setMarkup(index, args.readout, { text: f.readout });
  setMarkup(index, args.wf_text, { text: f.summary });
  showBudgetInBlock(args, P, values, f, index);

  if (user && P.url) {
    writeURL({ model: model.value, phase: ph, batch: Number(batch.value),
               fuse: fusions.active.slice().sort().map((i) => P.fusions[i]),
               eff: st.efficiency, launch: st.launch_us, dp: st.dp, overlap: st.overlap,
               zero: st.zero, rec: st.recompute });
  }
}
