// The roofline widget's one callback: it draws every frame of the live plot from scene.mjs (the
// scene, its labels, the texts), the very code the build runs for the static first frame.
// No Bokeh global: render/jsmodule.bundle() joins this file and what it imports into the one
// blob module BokehJS runs, dropping the import lines (node reads them as they are).

import { sig } from "../../render/js/format.mjs";
import { queryParams, plainNumber, withQuery, writeURLSoon } from "../../render/js/urlstate.mjs";
import { place } from "../../render/js/maths.mjs";
import { frameSize, sourceLines } from "../../render/js/labels.mjs";
import { decades } from "../../render/js/chart.mjs";
import { blockAround, redrawSoon, sameValue, setBlockTexts, setMarkup } from "../../render/js/markup.mjs";
import { marker, readoutText, scene, vectorFor, verdictText } from "./scene.mjs";
import { opsWithTokens, parseTokens, tokensAtSlider, tokensNote } from "./scene_tokens.mjs";
import { rooflineCaption, rooflineRecord, staticDrawings } from "./static.mjs";
import { measuredOnPaper } from "./paper.mjs";

export const AI_MIN = 0.01;
export const AI_MAX = 10000;

// ---------------------------------------------------------------- URL state (untrusted input)

// A finite, positive AI clamped into the slider's range; anything else is null (ignored).
export function clampAI(value) {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value <= 0) return null;
    return Math.min(AI_MAX, Math.max(AI_MIN, value));
  }
  const x = plainNumber(value);
  return x === null ? null : clampAI(x);
}

// State from ?query and #hash (the hash wins); only known ids and a sane AI survive.
// known = {hardware: [...ids], precision: [...ids], op: [...ids]}.
export function parseState(search, hash, known) {
  const raw = Object.assign(queryParams(search), queryParams(hash));
  const state = {};
  for (const key of ["hardware", "precision", "op"]) {
    const v = raw[key];
    if (typeof v === "string" && known[key].includes(v)) state[key] = v;
  }
  if (raw.op === "custom") state.op = "custom";
  const ai = clampAI(raw.ai);
  if (ai !== null) state.ai = ai;
  return state;
}

// The query string for a state, keeping unrelated parameters of the page's own URL.
export function stateQuery(search, state) {
  const pairs = [["hardware", state.hardware], ["precision", state.precision],
                 ["ai", String(sig(state.ai, 4))]];
  if (state.op && state.op !== "custom") pairs.push(["op", state.op]);
  if (state.tokens) pairs.push(["tokens", String(state.tokens)]);
  return withQuery(search, ["hardware", "precision", "ai", "op", "tokens"], pairs);
}

const sameAI = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));

function writeURL(state) { writeURLSoon((search) => stateQuery(search, state)); }

// ---------------------------------------------------------------- the live layer (per change)

// A slider tick moves only the reader's point and the AI line. Bokeh repaints its canvas for
// any renderer change, overlay level or not (the whole canvas, each tick), so these two
// are drawn in a small SVG laid over the canvas: a tick sets a few attributes and Bokeh paints
// nothing. The Bokeh models stay the record of what is shown (the `marker` source, the
// `ai-line` Span with its themed colour); positions come from the plot view's own frame
// scales, and every Bokeh repaint (new ranges, a resize, a theme) places the layer again.
const SVG_NS = "http://www.w3.org/2000/svg";
const layers = new WeakMap(); // fig -> { view, svg, frame, line, dot }
const viewIndexes = new WeakMap(); // fig -> BokehJS's view index (the CustomJS context's)

function svgElement(name, attrs) {
  const el = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

// The layer of this figure's current view, made on first need; null until a view exists (the
// loader draws the first frame before embedding; the frame's first layout calls back here).
function liveLayer(fig) {
  const have = layers.get(fig);
  if (have && have.svg.isConnected) return have;
  const index = viewIndexes.get(fig);
  if (!index || typeof document === "undefined" || typeof index.find_one !== "function") {
    return null;
  }
  const view = index.find_one(fig);
  const host = view && view.canvas_view && view.canvas_view.overlays_el;
  if (!host || !view.frame) return null;
  const svg = svgElement("svg", { class: "rl-live", "aria-hidden": "true", focusable: "false" });
  svg.style.cssText = "position:absolute;left:0;top:0;width:100%;height:100%;" +
                      "overflow:hidden;pointer-events:none";
  const frame = svgElement("svg", { overflow: "hidden" }); // clips to the frame, as Bokeh does
  const line = svgElement("line", { "stroke-width": 1, "stroke-dasharray": "2 4" });
  const dot = svgElement("circle", { r: 8, stroke: "#ffffff", "stroke-width": 2 });
  frame.append(line, dot);
  svg.append(frame);
  host.append(svg);
  const layer = { view, svg, frame, line, dot, box: "" };
  layers.set(fig, layer);
  return layer;
}

function setAttrs(el, attrs) {
  for (const k in attrs) {
    const v = String(attrs[k]);
    if (el.getAttribute(k) !== v) el.setAttribute(k, v);
  }
}

function drawLive(args, layer) {
  const { frame } = layer.view;
  const bb = frame.bbox;
  const d = args.marker.data;
  if (!bb || !(bb.width > 0) || !d.x || !d.x.length) return;
  const box = `${bb.left},${bb.top},${bb.width},${bb.height}`;
  if (layer.box !== box) {
    setAttrs(layer.frame, { x: bb.left, y: bb.top, width: bb.width, height: bb.height });
    layer.box = box;
  }
  const color = args.ai_line.line_color;
  const x = frame.x_scale.compute(args.ai_line.location) - bb.left;
  setAttrs(layer.line, { x1: x, x2: x, y1: 0, y2: bb.height,
                         stroke: typeof color === "string" ? color : "#7a8290" });
  setAttrs(layer.dot, { cx: frame.x_scale.compute(d.x[0]) - bb.left,
                        cy: frame.y_scale.compute(d.y[0]) - bb.top, fill: d.color[0] });
}

// The per-change hot path: the models first, then (once the plot has a view) the SVG.
function moveMarker(args, m, ai) {
  args.marker.data = { x: [m.x], y: [m.y], color: [m.color] };
  args.ai_line.location = ai;
  const had = layers.get(args.fig);
  const layer = liveLayer(args.fig);
  if (!layer) return;
  if (layer !== had) layer.view.repainted.connect(() => drawLive(args, layer));
  drawLive(args, layer);
}

// Per figure: what was last drawn, whether the first frame is done, the text timer.
const drawn = new WeakMap();
const lastState = new WeakMap(); // fig -> the state last drawn (a measured-roofs change redraws it)
const started = new WeakSet();
const textTimers = new WeakMap();
export const TEXT_DELAY_MS = 150;

function restoreFromURL(args) {
  const { payload: P, slider, hardware, precision, presets } = args;
  const known = { hardware: Object.keys(P.hardware), precision: Object.keys(P.precisions),
                  op: Object.keys(P.ops).concat(P.tokens ? P.tokens.ops.map((o) => o.id) : []) };
  const st = parseState(window.location.search, window.location.hash, known);
  const tokens = args.tokens && parseTokens(window.location.search, window.location.hash,
                                            P.tokens.max);
  if (tokens) args.tokens.value = Math.log2(tokens);
  // Each assignment fires this callback again as a change, which redraws what it needs.
  if (st.hardware) hardware.value = st.hardware;
  if (st.precision && P.hardware[hardware.value].peaks[st.precision] !== undefined) {
    precision.value = st.precision;
  }
  if (st.op) presets.value = st.op;
  if (st.ai !== undefined && (st.op === undefined || st.op === "custom")) {
    slider.value = Math.log10(st.ai);
  }
}

// Labels go to three sources by colour: the page's ink, its muted ink (both follow the
// palette, see loader.js), and fixed colours.
function labelColumns(labels, role) {
  const out = { x: [], y: [], text: [], dx: [], dy: [], align: [], baseline: [], color: [],
                size: [], style: [] };
  for (const l of labels) {
    const mine = role === "color" ? l.color !== "ink" && l.color !== "muted" : l.color === role;
    if (!l.shown || !mine) continue;
    out.x.push(l.x); out.y.push(l.y); out.text.push(l.text); out.dx.push(l.dx);
    out.dy.push(l.dy); out.align.push(l.align); out.baseline.push(l.baseline);
    out.color.push(role === "color" ? l.color : "#000"); out.size.push(`${l.size}px`);
    out.style.push(l.style);
  }
  return out;
}

// A scene redraw sets only what changed: a tokens-slider tick redraws the scene, but mostly
// only the tokens points and their labels move, and an unchanged model costs Bokeh nothing.
const lastData = new WeakMap();

function setData(src, data) {
  const json = JSON.stringify(data);
  if (lastData.get(src) === json) return;
  lastData.set(src, json);
  src.data = data;
}

function setRange(range, start, end) {
  if (range.start !== start || range.end !== end) range.setv({ start, end });
}

// The frame's size in px: Bokeh's once laid out, else what the figure's borders leave of the
// widest column (the static drawing's frame), so the first frame is laid out as it will show.
function frame(args) {
  const m = args.payload.margin;
  return frameSize(args.fig, [688 - m[1] - m[3], args.fig.height - m[0] - m[2]]);
}

function setTicks(axis, ticks) {
  if (axis && axis.ticker && !sameValue(axis.ticker.ticks, ticks)) axis.ticker.ticks = ticks;
}

function drawScene(args, st) {
  // A measurement overlay's roofs (measure.mjs draws them): the scene's labels keep off them.
  const extra = args.measured_roofs ? sourceLines([args.measured_roofs]) : [];
  const S = scene(args.payload, st, frame(args), extra);
  setRange(args.fig.x_range, S.x[0], S.x[1]);
  setRange(args.fig.y_range, S.y[0], S.y[1]);
  setTicks(args.fig.below[0], decades(...S.x)); // the static drawing's ticks (chart.mjs)
  setTicks(args.fig.left[0], decades(...S.y));
  setData(args.roof, S.roof);
  if (args.memory.left !== S.memory[0] || args.memory.right !== S.memory[1]) {
    args.memory.setv({ left: S.memory[0], right: S.memory[1] });
  }
  setIfChanged(args.ridge, "location", S.ridge);
  setData(args.ceilings, S.ceilings);
  setData(args.vector_src, S.vector);
  setData(args.points, S.points);
  setData(args.labels_color, labelColumns(S.labels, "color"));
  setData(args.labels_ink, labelColumns(S.labels, "ink"));
  setData(args.labels_muted, labelColumns(S.labels, "muted"));
  if (args.leaders) setData(args.leaders, S.leaders);
  drawTokens(args, S);
  const v = vectorFor(args.payload.hardware[st.hardware], st.precision);
  args.vector.disabled = !v;
  setIfChanged(args.vector, "label",
               v ? `Show the ${v.label} vector roof` : "No vector roof listed for this chip");
}

// The tokens slider's ops and the selected op's launch line (sources only a widget with a
// tokens slider has; the floor's source is always there).
function drawTokens(args, S) {
  if (args.launch_src) setData(args.launch_src, S.launch);
  if (args.tokens_src) setData(args.tokens_src, S.projections);
}

// ---------------------------------------------------------------- the block around the plot

// The page's block (embed.block) that holds this plot: up from the figure's view, out of each
// shadow root on the way; null where the plot is not in one (a notebook, file_html).
function blockOf(args) {
  return blockAround(viewIndexes.get(args.fig), args.fig);
}

// The block's caption, its record of the settings and its static drawing (what paper prints)
// follow the view, from the code the build wrote them with (static.mjs). The drawing (some tens
// of ms: three widths) is laid out again only when the view changed, after the texts (a
// timer), or at once when the page is about to print; with a measurement overlay, paper.mjs.
const blockViews = new WeakMap(); // fig -> the view the block's static drawing shows
function showInBlock(args, st) {
  const el = blockOf(args);
  if (!el) return;
  const P = args.payload;
  setBlockTexts(el, rooflineCaption(P, st), rooflineRecord(P, st));
  const drawing = el.querySelector(":scope > .roofline-static");
  const key = JSON.stringify(st);
  if (args.measured_roofs) return measuredOnPaper(el, args.fig, !sameView(P.state, st));
  if (!drawing || blockViews.get(args.fig) === key) return;
  if (blockViews.get(args.fig) === undefined && sameView(P.state, st)) {
    blockViews.set(args.fig, key); // the build's drawing is this view's
    return;
  }
  redrawSoon(el, () => {
    drawing.innerHTML = staticDrawings({ ...P, state: st }, args.fig.height).svg;
    blockViews.set(args.fig, key);
  });
}

// The view the build drew (the payload's state) and `st` are one.
function sameView(a, b) {
  return a.hardware === b.hardware && a.precision === b.precision && !a.vector === !b.vector &&
    (a.op || null) === (b.op || null) && (a.tokens || null) === (b.tokens || null) &&
    sameAI(a.ai, b.ai);
}

function setIfChanged(model, prop, value) {
  if (!sameValue(model[prop], value)) model[prop] = value;
}

function update(args, obj) {
  const { payload: P, slider, hardware, precision, presets } = args;
  const hw = P.hardware[hardware.value];
  // The precision list follows the chip; keep the choice if this chip has it, else bf16, else
  // fp16 (a V100's tensor cores, which have no bf16), else the first.
  setIfChanged(precision, "options", hw.precisions.map((p) => [p, P.precisions[p].label]));
  if (hw.peaks[precision.value] === undefined) {
    precision.value = ["bf16", "fp16"].find((p) => hw.peaks[p] !== undefined) ||
      hw.precisions[0];
  }
  const prec = precision.value;
  const tokens = args.tokens ? tokensAtSlider(args.tokens.value) : null;
  const ops = opsWithTokens(P, prec, tokens);
  const op = presets.value !== "custom" && ops[presets.value] ? presets.value : null;

  // A preset pins the AI to its op's; moving the slider away from it leaves the preset.
  if (op !== null) {
    const opAI = place(ops[op].cost[prec], hw.peaks[prec], hw.bw).ai;
    const want = Math.log10(Math.min(AI_MAX, Math.max(AI_MIN, opAI)));
    if (obj === slider && !sameAI(slider.value, want)) {
      presets.value = "custom";
      return;
    }
    if (!sameAI(slider.value, want)) slider.value = want;
  }

  // The scene is laid out for the reader's AI (labels keep off the marker and its line), but a
  // slider tick only moves the marker and the line: the labels are laid out again once the
  // slider rests (an unchanged layout costs Bokeh nothing, see setData).
  const ai = 10 ** slider.value;
  const st = { hardware: hardware.value, precision: prec, vector: args.vector.active, op, tokens,
               ai };
  const [w, h] = frame(args);
  const key = `${st.hardware}|${prec}|${st.vector}|${op}|${tokens}|${Math.round(w)}|${Math.round(h)}`;
  const ticking = (obj === slider || (obj && obj === args.tokens)) && started.has(args.fig) &&
    typeof setTimeout === "function";
  lastState.set(args.fig, st);
  if (drawn.get(args.fig) !== key) {
    drawScene(args, st);
    drawn.set(args.fig, key);
  }

  // The marker and the AI line are drawn in the live layer: a slider tick repaints only them.
  const m = marker(P, st, ai);
  moveMarker(args, m, ai);
  // The texts and the verdict's class are set in their views' DOM (markup.mjs), not by a
  // re-layout of the whole root; still, they, and the one live region, follow once the slider
  // rests, so a screen reader hears where the reader stopped, not every tick on the way; the
  // marker's colour says the bound at once.
  const readout = readoutText(P, st, ai, ops) + tokensNote(P, st);
  const [bound, verdict] = verdictText(P, st, ai);
  const rest = () => {
    const index = viewIndexes.get(args.fig);
    setMarkup(index, args.verdict, { text: verdict, css_classes: [`rl-${bound}`] });
    setMarkup(index, args.readout, { text: readout });
    if (ticking) drawScene(args, st);
    showInBlock(args, st);
  };
  clearTimeout(textTimers.get(args.fig));
  if (ticking) textTimers.set(args.fig, setTimeout(rest, TEXT_DELAY_MS));
  else rest();

  // The page's own URL stays as it is until the reader changes the view.
  if (P.url && obj !== null && obj !== args.fig) {
    writeURL({ hardware: hardware.value, precision: prec, ai, op: op || "custom", tokens });
  }
}

export default function (args, obj, data, context) {
  if (context && context.index) viewIndexes.set(args.fig, context.index);
  const { slider, hardware, precision, presets } = args;
  const user = [slider, hardware, precision, presets, args.vector, args.tokens]
    .filter((m) => m).includes(obj);
  // New measured roofs (a picked file): lay the scene's labels out again around them.
  if (obj && obj === args.measured_roofs) {
    if (obj.tags.includes("rl-picked")) measuredOnPaper(blockOf(args), args.fig, true, true);
    if (started.has(args.fig)) drawScene(args, lastState.get(args.fig));
    return;
  }
  if (user || (obj === args.fig && started.has(args.fig))) {
    update(args, obj);
    return;
  }
  // First frame (document_ready, or the loader asking): draw it, after a shared URL's view.
  if (started.has(args.fig)) return;
  if (args.payload.url && typeof window !== "undefined") restoreFromURL(args);
  update(args, null);
  started.add(args.fig);
}
