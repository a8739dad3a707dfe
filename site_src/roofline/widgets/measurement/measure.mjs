// The measurement overlay's callback (CustomJS.from_file, see roofline.widgets.measurement.overlay) and the
// pure helpers it uses. Named exports mirror roofline.widgets.measurement.overlay (overlayData,
// yBounds, summaryText); the file checker, twin of roofline.measure.schema, is schema.mjs
// beside it. node --test checks both against tests/cases/measure_cases.json, which pytest
// checks against the Python side. No Bokeh global: overlay.py bundles format.mjs, labels.mjs,
// schema.mjs and this file into the one blob module BokehJS runs, dropping the import lines
// below (node reads them as they are).

import { si } from "../../render/js/format.mjs";
import { MERGE_PX, POINT_R, frameSize, groupCoincident, labelBox, layoutLabels, leaderLines, sourceLines, textWidth, toPx } from "../../render/js/labels.mjs";
import { decodeBase64, parseMeasurement } from "./schema.mjs";
import { jsonArg } from "../../render/js/jsonarg.mjs";

const CACHE_LEVELS = ["L1", "L2", "L3", "L2-GPU"];

// ---------------------------------------------------------------- the overlay (as measured.py)

export function overlayData(doc, x0, x1) {
  const c = doc.ceilings;
  const byLevel = {};
  for (const b of c.bandwidth) byLevel[b.level] = b.bandwidth_bytes_per_s;
  const memLevel = c.memory_level;
  const levels = [memLevel];
  const caches = Object.keys(byLevel).filter((lv) => CACHE_LEVELS.includes(lv));
  if (caches.length) {
    levels.push(caches.reduce((best, lv) => (byLevel[lv] > byLevel[best]
      || (byLevel[lv] === byLevel[best] && lv > best) ? lv : best)));
  }
  const top = Math.max(...c.compute.map((p) => p.flops_per_s));
  const memBw = byLevel[memLevel];
  const roofs = { xs: [], ys: [] };
  // Each roof's label: its anchor (x, y), text, alignment and side (dy), and the other end of
  // its line (`end`: where a label may sit if the first end is crowded).
  const labels = { x: [], y: [], text: [], align: [], dy: [], end: [] };
  for (const level of levels) {
    const bw = byLevel[level];
    const xEnd = Math.min(Math.max(top / bw, x0), x1);
    roofs.xs.push([x0, xEnd]);
    roofs.ys.push([x0 * bw / 1e12, xEnd * bw / 1e12]);
    // memory at the diagonal's foot, under it; the faster cache near its top end, over it
    // (right-aligned): the two never stack, and the cache's clears the op points
    const mem = level === memLevel;
    const lx = mem ? x0 * 1.3 : xEnd / 1.3;
    labels.x.push(lx);
    labels.y.push(lx * bw / 1e12);
    labels.text.push(`measured ${level} ${si(bw, "B/s")}`);
    labels.align.push(mem ? "left" : "right");
    labels.dy.push(mem ? -15 : 4);
    labels.end.push(null);
  }
  let aboveAt = null; // the last roof labelled above its line: one close under it goes below
  for (const roof of [...c.compute].sort((a, b) => b.flops_per_s - a.flops_per_s)) {
    const peak = roof.flops_per_s;
    const xStart = Math.min(Math.max(peak / memBw, x0), x1);
    roofs.xs.push([xStart, x1]);
    roofs.ys.push([peak / 1e12, peak / 1e12]);
    labels.x.push(x1);
    labels.y.push(peak / 1e12);
    labels.text.push(`measured ${roof.precision.toUpperCase()} ${si(peak, "FLOP/s")}`);
    labels.align.push("right");
    const below = aboveAt !== null && aboveAt / peak < 3;
    labels.dy.push(below ? -15 : 4); // over its roof, or under when crowded
    labels.end.push(xStart);
    aboveAt = below ? null : peak;
  }
  const points = { x: [], y: [], text: [] };
  const seen = new Set();
  for (const op of doc.ops) {  // one label per op family, beside its first point
    points.x.push(op.flops / op.bytes);
    points.y.push(op.flops / op.time_s.median / 1e12);
    points.text.push(seen.has(op.label) ? "" : op.label);
    seen.add(op.label);
  }
  return { roofs, labels, points };
}

// ---------------------------------------------------------------- its labels (as measured.py)

const at = (dx, dy, align, baseline) => ({ dx, dy, align, baseline });

// The overlay's labels as the scene's label layout takes them: each roof's on its preferred
// side first, then the other, then rows further out; each op family's beside its point, then
// in rows over and under it. `narrow`: the roofs' short names in 11 px (NARROW_FRAME_PX).
export const NARROW_FRAME_PX = 300;

export function overlayLabels(overlay, narrow = false) {
  const lab = overlay.labels;
  const out = [];
  lab.x.forEach((x, i) => {
    const align = lab.align[i];
    const over = at(-2, 4, align, "bottom");
    const under = at(-2, -4, align, "top");
    const far = [18, -18, 32, -32].map((d) => at(-2, d, align, d > 0 ? "bottom" : "top"));
    const cands = (lab.dy[i] > 0 ? [over, under] : [under, over]).concat(far);
    // A flat roof's label may also sit at its other (left) end, over or under it.
    const end = lab.end && lab.end[i];
    if (end) {
      for (const d of [4, -4, 18, -18]) {
        cands.push({ ...at(4, d, "left", d > 0 ? "bottom" : "top"), ax: end, ay: lab.y[i] });
      }
    }
    const short = lab.text[i].replace(/^measured /, "");
    out.push({ key: `measured-roof-${i}`, x, y: lab.y[i], size: narrow ? 11 : 12, style: "bold",
               text: narrow ? short : lab.text[i], at: cands,
               alt: narrow ? undefined : { text: short } });
  });
  const pts = overlay.points;
  pts.x.forEach((x, i) => {
    if (!pts.text[i]) return;
    const cands = [at(9, 0, "left", "middle"), at(-9, 0, "right", "middle")];
    for (let row = 0; row < 5; row += 1) {
      const dy = 8 + 13 * row;
      cands.push(at(6, dy, "left", "bottom"), at(-6, dy, "right", "bottom"),
                 at(6, -dy, "left", "top"), at(-6, -dy, "right", "top"));
    }
    out.push({ key: `measured-op-${i}`, x, y: pts.y[i], size: 11, style: "normal",
               text: pts.text[i], at: cands });
  });
  return out;
}

// Placed around `taken` (the scene's label and point boxes) and the overlay's own points.
// Off the scene's `lines` ([[xs, ys], ...]) and the overlay's own roofs where they can; a name
// lies nearer its own point than any other, the scene's op points (`marks` {x, y}) included.
export function layoutOverlay(overlay, xr, yr, w, h, taken = [], widthOf = undefined, lines = [],
                              marks = { x: [], y: [] }) {
  const roofs = overlay.roofs ? overlay.roofs.xs.map((xs, i) => [xs, overlay.roofs.ys[i]]) : [];
  // measured ops whose markers (r 6.5 diamonds) overlap or all but touch get one label
  // (labels.mjs groupCoincident): closer than two markers, no name can sit nearer its own
  const join = (m) => ({ text: m.map((l) => l.text).join(", "),
                         alt: [{ text: `${m[0].text} +${m.length - 1}` }] });
  const specs = groupCoincident(overlayLabels(overlay, w < NARROW_FRAME_PX), xr, yr, w, h, join,
                                MERGE_PX * 1.6);
  return layoutLabels(specs, xr, yr, w, h,
                      { x: overlay.points.x.concat(marks.x), y: overlay.points.y.concat(marks.y),
                        lines: lines.concat(roofs) },
                      taken, widthOf);
}

// The scene's op points (its "op-points" sources) as {x, y}.
function scenePoints(args) {
  const out = { x: [], y: [] };
  for (const src of args.scene_points || []) {
    out.x.push(...Array.from(src.data.x || []));
    out.y.push(...Array.from(src.data.y || []));
  }
  return out;
}


export function labelColumns(placed) {
  const cols = { x: [], y: [], text: [], dx: [], dy: [], align: [], baseline: [], size: [],
                 style: [] };
  for (const l of placed) {
    if (!l.shown) continue;
    for (const k of Object.keys(cols)) cols[k].push(k === "size" ? `${l.size}px` : l[k]);
  }
  return cols;
}

// What the overlay's labels keep off in the live plot: the scene's drawn labels (its three
// label sources) and its op points, in the figure's current ranges and frame.
function takenBoxes(args, xr, yr, w, h) {
  const boxes = [];
  for (const src of args.scene_labels || []) {
    const d = src.data;
    for (let i = 0; i < (d.text || []).length; i += 1) {
      const [sx, sy] = toPx(d.x[i], d.y[i], xr, yr, w, h);
      const size = parseFloat(d.size[i]);
      boxes.push(labelBox(d.text[i], size, sx, sy,
                          { dx: d.dx[i], dy: d.dy[i], align: d.align[i],
                            baseline: d.baseline[i] },
                          textWidth(d.text[i], size, d.style ? d.style[i] : "normal")));
    }
  }
  for (const src of args.scene_points || []) {
    const d = src.data;
    for (let i = 0; i < (d.x || []).length; i += 1) {
      const [px, py] = toPx(d.x[i], d.y[i], xr, yr, w, h);
      boxes.push([px - POINT_R, py - POINT_R, px + POINT_R, py + POINT_R]);
    }
  }
  return boxes;
}

// Lay the overlay's labels out again: after a draw, and whenever the scene redraws its own.
function relayout(args) {
  const overlay = args.labels && args.labels.tags && args.labels.tags[0];
  if (!overlay || !overlay.points) return;
  const fig = args.fig;
  const xr = [fig.x_range.start, fig.x_range.end];
  const yr = [fig.y_range.start, fig.y_range.end];
  const [w, h] = frameSize(fig);
  // The scene's lines (sources) and its vertical ones (the ridge, the AI line: Spans).
  const spans = (args.scene_spans || []).filter((s) => Number.isFinite(s.location))
    .map((s) => [[s.location, s.location], yr]);
  const placed = layoutOverlay(overlay, xr, yr, w, h, takenBoxes(args, xr, yr, w, h),
                               undefined, sourceLines(args.scene_lines || []).concat(spans),
                               scenePoints(args));
  args.labels.data = labelColumns(placed);
  if (args.leaders) args.leaders.data = leaderLines(placed, xr, yr, w, h);
}

export function yBounds(overlay) {
  const ys = overlay.roofs.ys.flat().concat(overlay.points.y);
  return [Math.min(...ys) / 2, Math.max(...ys) * 2];
}

export function summaryText(doc) {
  const c = doc.ceilings;
  const mem = c.bandwidth.find((b) => b.level === c.memory_level);
  const roofs = c.compute.map((p) => `${p.precision.toUpperCase()} ${si(p.flops_per_s, "FLOP/s")}`)
    .join(" · ");
  return `Measured: ${doc.label} — ${doc.machine.description}, ${doc.created_utc.slice(0, 10)} `
    + `(${doc.mode} run). ${c.memory_level} ${si(mem.bandwidth_bytes_per_s, "B/s")} · ${roofs} · `
    + `${doc.ops.length} ops timed.`;
}

// ---------------------------------------------------------------- the callback

function guard(args) {
  // The widget resets its y range on every change; keep the measured roofs and points in view.
  const ys = args.roofs.data.ys.flat().concat(Array.from(args.points.data.y));
  if (!ys.length) return;
  const [lo, hi] = [Math.min(...ys) / 2, Math.max(...ys) * 2];
  const r = args.fig.y_range;
  if (r.start > lo) r.start = lo;
  if (r.end < hi) r.end = hi;
}

function pick(args, obj) {
  const chooser = args.chooser;
  const raw = Array.isArray(chooser.value) ? chooser.value[0] : chooser.value;
  const name = (Array.isArray(chooser.filename) ? chooser.filename[0] : chooser.filename) || "file";
  if (!raw) return;
  let text;
  try {
    text = decodeBase64(raw);
  } catch (e) {
    args.status.text = `Rejected ${name}: cannot read it as text (${e.message}).`;
    return;
  }
  const result = parseMeasurement(text, jsonArg(args.schema), name);
  if (!result.ok) {
    args.status.text = `Rejected — ${result.text}`;
    return;
  }
  args.roofs.tags = ["rl-picked"]; // not the build's file: paper drops its drawing (paper.mjs)
  draw(args, result.doc, `${summaryText(result.doc)} (from ${name}, read in this browser only)`);
}

function draw(args, doc, status) {
  const data = overlayData(doc, args.fig.x_range.start, args.fig.x_range.end);
  args.roofs.data = data.roofs;
  args.labels.tags = [{ roofs: data.roofs, labels: data.labels, points: data.points }];
  args.points.data = data.points;
  args.status.text = status;
  guard(args);
  relayout(args);
}

// The first frame: the measurement the page was built with, or none.
const started = new WeakSet();

function init(args) {
  if (started.has(args.fig)) return;
  started.add(args.fig);
  const initial = jsonArg(args.initial); // JSON text (overlay.py), or null
  if (initial) draw(args, initial, summaryText(initial));
  else args.status.text = "No measurement loaded.";
}

export default function (args, obj) {
  if (args.mode === "pick") pick(args, obj);
  else if (args.mode === "init") init(args);
  else if (args.mode === "layout") relayout(args);
  else {
    guard(args);
    relayout(args);
  }
}
