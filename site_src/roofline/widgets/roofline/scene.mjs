// The roofline widget's scene: what the plot shows for one state, as plain data, and the label
// layout. plot/widget.py joins this file and roofline.mjs into the one module BokehJS runs
// (imports dropped); node imports it as is (tests/js/scene.test.mjs).
import { bandwidth, num, tflops } from "../../render/js/format.mjs";
import { attainable, bound, place, roofXY } from "../../render/js/maths.mjs";
import { launchBottom, launchLabel, launchY, tokensPoints } from "./scene_tokens.mjs";
import { layoutLabels, leaderLines, namesPoint, toPx } from "../../render/js/labels.mjs";

// What the plot shows for one state, in data coordinates (AI in FLOP/byte, TFLOP/s), with the
// labels placed in pixels of a frame of the given size. The live plot draws this; the
// build-time SVG (roofline.widgets.roofline.scene, a mirror pinned by tests/cases/scene_cases.json) too.


// TFLOP/s from half the slowest slope's start to 4× the top roof, widened to `extra` (a
// measurement overlay's extent) if given.
// The vector roof for elementwise math in `prec` (fp32's where the chip gives none).
export function vectorFor(hw, prec) {
  return (hw.vectors && hw.vectors[prec]) || hw.vector;
}

export function yRange(hw, prec, ceilings, x0, extra) {
  const bws = [hw.bw];
  for (const [kind, t] of Object.entries(hw.tiers)) if (ceilings.includes(kind)) bws.push(t.bw);
  let top = hw.peaks[prec];
  const v = vectorFor(hw, prec);
  if (v) top = Math.max(top, v.peak);
  const lo = x0 * Math.min(...bws) / 1e12 / 2;
  const hi = top * 4 / 1e12;
  return extra ? [Math.min(lo, extra[0]), Math.max(hi, extra[1])] : [lo, hi];
}

// Ops within ×1.1 of each other share one label ("a, b"), at the first op's point.
export function groupPoints(ais) {
  const order = ais.map((a, i) => i).sort((i, j) => (ais[i] - ais[j]) || (i - j));
  const groups = [];
  for (const i of order) {
    const last = groups[groups.length - 1];
    if (last && ais[i] <= ais[last[0]] * 1.1) last.push(i);
    else groups.push([i]);
  }
  return groups;
}

export const ABOVE = (dx, dy, align) => ({ dx, dy, align, baseline: "bottom" });
export const BELOW = (dx, dy, align) => ({ dx, dy: -dy, align, baseline: "top" });

// st = {hardware, precision, vector}; frame = [w, h] in px.
export function scene(P, st, frame) {
  const hw = P.hardware[st.hardware];
  const prec = st.precision;
  const peak = hw.peaks[prec];
  const bw = hw.bw;
  const r = peak / bw;
  const [x0, x1] = P.x;
  const yr = yRange(hw, prec, P.ceilings, x0, P.y_extra);
  yr[0] = Math.min(yr[0], launchBottom(P, prec));
  const C = P.colors;
  const labels = [];
  const roof = roofXY(peak, bw, x0, x1);
  labels.push({ key: "roof", x: x1, y: peak / 1e12, size: 12, style: "normal", color: C.roof,
                text: `${prec.toUpperCase()} roof ${tflops(peak)}`,
                at: [ABOVE(-4, 6, "right"), BELOW(-4, 6, "right"), ABOVE(-4, 20, "right")] });
  const slope = x0 * 1.3;
  labels.push({ key: "hbm", x: slope, y: slope * bw / 1e12, size: 12, style: "normal",
                color: C.roof, text: `${hw.hbm} ${bandwidth(bw)}`,
                at: [BELOW(2, 5, "left"), BELOW(2, 18, "left"), ABOVE(-10, 5, "left")] });
  labels.push({ key: "ridge", x: r, y: yr[0], size: 12, style: "bold", color: "ink",
                text: `ridge ${num(r)} FLOP/byte`,
                at: [6, 24, 42].map((dy) => ABOVE(-5, dy, "right"))
                  .concat([6, 24, 42].map((dy) => ABOVE(5, dy, "left")))
                  // a narrow frame may have no room on either side: centred on the line
                  .concat([6, 24, 42].map((dy) => ABOVE(0, dy, "center"))) });
  const ceilings = { xs: [], ys: [], color: [] };
  for (const kind of P.ceilings) {
    const tier = hw.tiers[kind];
    if (kind === "vector" || kind === "hbm" || !tier) continue;
    const xEnd = Math.max(peak / tier.bw, x0 * 1.0001);
    ceilings.xs.push([x0, xEnd]);
    ceilings.ys.push([x0 * tier.bw / 1e12, xEnd * tier.bw / 1e12]);
    ceilings.color.push(C[kind]);
    labels.push({ key: `ceiling-${kind}`, x: slope, y: slope * tier.bw / 1e12, size: 11,
                  style: "normal", color: C[kind], text: `${P.names[kind]} ${bandwidth(tier.bw)}`,
                  at: [BELOW(2, 5, "left"), BELOW(2, 17, "left"), ABOVE(-10, 5, "left")] });
  }
  const v = vectorFor(hw, st.precision);
  const vectorOn = !!v && !!st.vector;
  const vector = vectorOn ? roofXY(v.peak, bw, x0, x1) : { x: [], y: [] };
  if (vectorOn) {
    labels.push({ key: "vector", x: x1, y: v.peak / 1e12, size: 12, style: "normal",
                  color: C.vector, text: `${v.label} vector roof ${tflops(v.peak)}`,
                  at: [ABOVE(-4, 6, "right"), BELOW(-4, 6, "right"), BELOW(-4, 20, "right")] });
  }
  if (r > x0 * 8) {
    labels.push({ key: "region", x: r, y: yr[1] / 1.6, size: 12, style: "italic",
                  color: "muted", text: "memory-bound",
                  at: [0, -16, -32, -48].map((dy) => ({ dx: -6, dy, align: "right",
                                                        baseline: "middle" })) });
  }
  const ids = Object.keys(P.ops);
  const placed = ids.map((i) => place(P.ops[i].cost[prec], peak, bw));
  const points = { x: placed.map((p) => p.ai), y: placed.map((p) => p.attainable / 1e12),
                   op: ids };
  for (const g of groupPoints(points.x)) {
    g.forEach((j, rank) => { // ops at one point stack their labels, one row each
      const at = [];
      for (let row = rank; row < rank + 8; row += 1) {
        const dy = 7 + 14 * row;
        at.push(ABOVE(6, dy, "left"), ABOVE(-6, dy, "right"), BELOW(6, dy, "left"),
                BELOW(-6, dy, "right"), ABOVE(0, dy, "center"), BELOW(0, dy, "center"));
      }
      labels.push({ key: `op-${ids[j]}`, x: points.x[g[0]], y: points.y[g[0]], size: 11,
                    style: "normal", color: "muted", text: P.ops[ids[j]].short, at });
    });
  }
  const projections = tokensLabels(P, tokensPoints(P, st, peak, bw), labels);
  const launch = launchLine(P, st, peak, yr, labels);
  const avoid = { x: points.x.concat(projections.x), y: points.y.concat(projections.y),
                  lines: sceneLines(ceilings, vector, launch, roof),
                  opLines: [[[r, r], yr]] }; // op names keep off the ridge line too
  // The selected op's launch floor named first, then the other lines', then the points'
  // around them (a point's name has rows to move to; a line's has two or three places).
  const rank = (l) => (l.key === "launch" ? 0 : namesPoint(l) ? 2 : 1);
  const ordered = labels.map((l, i) => [rank(l), i, l]).sort((a, b) => a[0] - b[0] || a[1] - b[1])
    .map((e) => e[2]);
  const laid = clearOfMarker((taken) => layoutLabels(ordered, [x0, x1], yr, frame[0], frame[1],
                                                     avoid, taken),
                             markerBoxes(P, st, [x0, x1], yr, frame));
  return {
    x: [x0, x1], y: yr, ridge: r, memory: [x0, r],
    roof: { x: roof.x, y: roof.y }, ceilings, vector, points, projections, launch,
    labels: laid, leaders: leaderLines(laid, [x0, x1], yr, frame[0], frame[1]),
  };
}

// The scene's drawn lines as polylines [[xs, ys], ...]: labels keep off them.
export function sceneLines(ceilings, vector, launch, roof) {
  const lines = [[roof.x, roof.y]].concat(ceilings.xs.map((xs, i) => [xs, ceilings.ys[i]]));
  return lines.concat([vector, launch].filter((d) => d.x.length).map((d) => [d.x, d.y]));
}

// The reader's marker is drawn over the canvas (r 8 px and a 2 px white ring): where the
// scene is laid out with the slider's AI known (st.ai), no label goes under it. A slider move
// only slides it over labels until the next layout (a new chip, precision, op or tokens).
export const MARKER_KEEP_PX = 9;

// Labels laid out clear of the marker, unless that leaves a label out that fits beside it:
// a name under the marker (until the slider moves) beats a name missing.
function clearOfMarker(layout, boxes) {
  const laid = layout(boxes);
  if (!boxes.length || laid.every((l) => l.shown)) return laid; // nothing left out: done
  const without = layout([]);
  const shown = (ls) => ls.filter((l) => l.shown).length;
  return shown(laid) >= shown(without) ? laid : without;
}

function markerBoxes(P, st, xr, yr, frame) {
  if (!(st.ai > 0)) return [];
  const m = marker(P, st, st.ai);
  const [px, py] = toPx(m.x, m.y, xr, yr, frame[0], frame[1]);
  const r = MARKER_KEEP_PX;
  return [[px - r, py - r, px + r, py + r]];
}

// The reader's point: where the AI meets the roof, red below the ridge, green at the roof.
export function marker(P, st, ai) {
  const hw = P.hardware[st.hardware];
  const peak = hw.peaks[st.precision];
  const b = bound(ai, peak / hw.bw);
  return { x: ai, y: attainable(ai, peak, hw.bw) / 1e12, bound: b,
           color: b === "memory" ? P.colors.memory : P.colors.compute };
}

// The tokens slider's ops (scene_tokens.mjs) labelled like the zoo's points, a row each where
// they meet; returns the points without their texts.
function tokensLabels(P, pts, labels) {
  for (const g of groupPoints(pts.x)) {
    g.forEach((j, rank) => {
      const at = [];
      for (let row = rank; row < rank + 4; row += 1) {
        const dy = 8 + 14 * row;
        at.push(BELOW(8, dy, "left"), ABOVE(-8, dy, "right"), BELOW(-8, dy, "right"),
                ABOVE(8, dy, "left"));
      }
      labels.push({ key: `proj-${pts.op[j]}`, x: pts.x[g[0]], y: pts.y[g[0]], size: 11,
                    style: "bold", color: P.colors.projection, text: pts.text[j], at });
    });
  }
  return { x: pts.x, y: pts.y, op: pts.op, color: pts.color };
}

// The selected op's launch floor as a flat line across the plot, labelled with its basis.
function launchLine(P, st, peak, yr, labels) {
  const y = launchY(P, st, peak, yr);
  if (y === null) return { x: [], y: [] };
  const [x0, x1] = P.x;
  labels.push({ key: "launch", x: x1, y, size: 11, style: "normal", color: "ink",
                text: launchLabel(P, y),
                at: [BELOW(-4, 4, "right"), ABOVE(-4, 4, "right"), BELOW(-4, 18, "right"),
                     ABOVE(-4, 18, "right")] });
  return { x: [x0, x1], y: [y, y] };
}
