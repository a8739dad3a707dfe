// The roofline widget's scene: what the plot shows for one state, as plain data, with its labels
// laid out (labels.mjs), and the texts a reader sees beside it. The one copy: the live plot
// (roofline.mjs, in the browser) and the static first frame (static.mjs, run at build time by
// roofline.render.jsengine) both draw scene().
import { bandwidth, num, percent, seconds, tflops } from "../../render/js/format.mjs";
import { place, roofXY } from "../../render/js/maths.mjs";
import { attainableOf, launchBottom, launchLabel, launchY, tokensPoints } from "./scene_tokens.mjs";
import { ABOVE, BELOW, groupCoincident, layoutLabels, leaderLines, namesPoint, toPx } from "../../render/js/labels.mjs";

// The frame's x range reaches this factor past the slider's ends, so the reader's marker (r 8
// px) is never cut in half at the plot's edge.
export const X_PAD = 1.6;

// The vector roof for elementwise math in `prec` (fp32's where the chip gives none).
export function vectorFor(hw, prec) {
  return (hw.vectors && hw.vectors[prec]) || hw.vector;
}

// TFLOP/s from half the slowest slope's start to 4× the top roof, widened to `extra` (a
// measurement overlay's extent) if given.
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

// Places for a point's name, nearest first: beside the point, then rows farther out (an op's
// name beyond its second row is replaced by its number in the figure's key; the selected op
// and the model's families keep their names, further out on a leader if need be).
function nearPoint(gap, rows = 2) {
  const at = [];
  for (let row = 0; row < rows; row += 1) {
    const dy = gap + 13 * row;
    at.push(ABOVE(6, dy, "left"), ABOVE(-6, dy, "right"), BELOW(6, dy, "left"),
            BELOW(-6, dy, "right"), ABOVE(0, dy, "center"), BELOW(0, dy, "center"));
  }
  return at;
}

// Places for a name slid along its point's height to an edge it can end at: the frame's right
// edge, or just right of the ridge (a point near the edge has no room on either side of it).
function slidPlaces(xr, r, y) {
  const at = [];
  for (const dy of [7, 20]) {
    for (const c of [{ ...ABOVE(-4, dy, "right"), ax: xr[1] }, { ...BELOW(-4, dy, "right"), ax: xr[1] },
                     { ...ABOVE(8, dy, "left"), ax: r }, { ...BELOW(8, dy, "left"), ax: r }]) {
      at.push({ ...c, ay: y });
    }
  }
  return at;
}

// Places for a bandwidth line's label (from the frame's left edge x0 up to x1): beside the
// line at a few points along it, from its foot up, under it first.
function slopePlaces(x0, bw, x1) {
  const at = [];
  for (const k of [1.3, 2.5, 4, 8, 15, 30, 60, 120, 240]) {
    const x = x0 * k;
    if (x >= x1) break;
    for (const c of [BELOW(4, 8, "left"), BELOW(4, 20, "left"), ABOVE(-10, 6, "left"),
                     ABOVE(-10, 18, "left")]) {
      at.push({ ...c, ax: x, ay: x * bw / 1e12 });
    }
  }
  return at;
}

// Places for a flat line's label at height y: over or under it, at its right end, just left of
// the ridge, and at its left end.
function flatPlaces(xr, r, y) {
  const at = [];
  for (const [x, dx, align] of [[xr[1], -4, "right"], [r, -8, "right"], [r, 8, "left"],
                                [xr[0], 4, "left"]]) {
    for (const dy of [4, 18]) {
      at.push({ ...BELOW(dx, dy, align), ax: x, ay: y }, { ...ABOVE(dx, dy, align), ax: x, ay: y });
    }
  }
  return at;
}

// The places of a number (the figure's key names the op): close around the point, then a
// ring farther out (tied to the point by a leader).
const NUMBER_AT = [4, 16, 28, 40, 52].flatMap((d) => [
  ABOVE(d + 1, d, "left"), ABOVE(-d - 1, d, "right"), BELOW(d + 1, d, "left"),
  BELOW(-d - 1, d, "right"), ABOVE(0, d + 3, "center"), BELOW(0, d + 3, "center"),
  { dx: d + 4, dy: 0, align: "left", baseline: "middle" },
  { dx: -d - 4, dy: 0, align: "right", baseline: "middle" }]);

// st = {hardware, precision, vector, op?, tokens?, ai?}; frame = [w, h] in px; `extraLines`
// ([[xs, ys], ...]): lines drawn over the scene that its labels keep off too (a measurement's
// roofs).
export function scene(P, st, frame, extraLines = []) {
  const hw = P.hardware[st.hardware];
  const prec = st.precision;
  const peak = hw.peaks[prec];
  const bw = hw.bw;
  const r = peak / bw;
  const [x0, x1] = P.x;
  const xr = [x0 / X_PAD, x1 * X_PAD];
  const yr = yRange(hw, prec, P.ceilings, xr[0], P.y_extra);
  yr[0] = Math.min(yr[0], launchBottom(P, prec));
  const C = P.colors;
  const labels = [];
  const roof = roofXY(peak, bw, xr[0], xr[1]);
  // The roof's label: left of the ridge, over the roof (the slope is below there: the compute-
  // bound ops' points at the right end keep their room); else at the right end, over or under
  // it; in a narrow frame without its "BF16 roof".
  const roofAt = [6, 22].map((dy) => ({ ...ABOVE(-8, dy, "right"), ax: r, ay: peak / 1e12 }))
    .concat([ABOVE(-4, 6, "right"), BELOW(-4, 6, "right"), ABOVE(-4, 22, "right"),
             BELOW(-4, 22, "right")],
            // a short frame: hugging the roof, over it
            [{ ...ABOVE(-8, 3, "right"), ax: r, ay: peak / 1e12 }, ABOVE(-4, 3, "right")]);
  labels.push({ key: "roof", x: xr[1], y: peak / 1e12, size: 12, style: "normal", color: C.roof,
                text: `${prec.toUpperCase()} roof ${tflops(peak)}`, at: roofAt,
                alt: { text: tflops(peak), at: roofAt } });
  const slope = xr[0] * 1.3;
  const hbmAt = slopePlaces(xr[0], bw, r);
  labels.push({ key: "hbm", x: slope, y: slope * bw / 1e12, size: 12, style: "normal",
                color: C.roof, text: `${hw.hbm} ${bandwidth(bw)}`, at: hbmAt,
                alt: { text: bandwidth(bw), at: hbmAt } });
  const ridgeAt = [6, 24, 42, 60].map((dy) => ABOVE(-5, dy, "right"))
    .concat([6, 24, 42, 60].map((dy) => ABOVE(5, dy, "left")));
  labels.push({ key: "ridge", x: r, y: yr[0], size: 12, style: "bold", color: "ink",
                text: `ridge ${num(r)} FLOP/byte`, at: ridgeAt,
                alt: [{ text: `ridge ${num(r)}` }, { text: num(r) }] });
  const ceilings = { xs: [], ys: [], color: [] };
  for (const kind of P.ceilings) {
    const tier = hw.tiers[kind];
    if (kind === "vector" || kind === "hbm" || !tier) continue;
    const xEnd = Math.max(peak / tier.bw, xr[0] * 1.0001);
    ceilings.xs.push([xr[0], xEnd]);
    ceilings.ys.push([xr[0] * tier.bw / 1e12, xEnd * tier.bw / 1e12]);
    ceilings.color.push(C[kind]);
    const at = slopePlaces(xr[0], tier.bw, xEnd);
    labels.push({ key: `ceiling-${kind}`, x: slope, y: slope * tier.bw / 1e12, size: 11,
                  style: "normal", color: C[kind], text: `${P.names[kind]} ${bandwidth(tier.bw)}`,
                  at, alt: { text: bandwidth(tier.bw), at } });
  }
  const v = vectorFor(hw, st.precision);
  const vectorOn = !!v && !!st.vector;
  const vector = vectorOn ? roofXY(v.peak, bw, xr[0], xr[1]) : { x: [], y: [] };
  if (vectorOn) {
    labels.push({ key: "vector", x: xr[1], y: v.peak / 1e12, size: 12, style: "normal",
                  color: C.vector, text: `${v.label} vector roof ${tflops(v.peak)}`,
                  at: [ABOVE(-4, 6, "right"), BELOW(-4, 6, "right"), BELOW(-4, 22, "right")] });
  }
  if (r > xr[0] * 8) {
    // Inside the shaded region, under the roof: below the slope's line, left of the ridge.
    labels.push({ key: "region", x: r, y: yr[0], size: 12, style: "italic", color: "muted",
                  text: "memory-bound",
                  at: [40, 64, 88, 112, 136].map((dy) => ABOVE(-10, dy, "right")) });
  }
  const ids = Object.keys(P.ops);
  const placed = ids.map((i) => place(P.ops[i].cost[prec], peak, bw));
  const points = { x: placed.map((p) => p.ai), y: placed.map((p) => p.attainable / 1e12),
                   op: ids, n: ids.map((_, i) => i + 1) };
  // The selected op is named first (bold); the others by name where it fits beside them, else
  // by their number in the key.
  const order = ids.map((_, j) => j).sort((a, b) => (ids[b] === st.op) - (ids[a] === st.op));
  for (const j of order) {
    const selected = ids[j] === st.op;
    labels.push({ key: `op-${ids[j]}`, n: j + 1, x: points.x[j], y: points.y[j], size: 11,
                  style: selected ? "bold" : "normal", color: selected ? "ink" : "muted",
                  text: P.ops[ids[j]].short,
                  at: selected ? nearPoint(7, 6).concat(slidPlaces(xr, r, points.y[j]))
                    : nearPoint(7),
                  // the selected op keeps a name: without its parenthesis where it is tight
                  alt: selected ? { text: P.ops[ids[j]].short.split(" (")[0] }
                    : { text: String(j + 1), at: NUMBER_AT } });
  }
  const projections = tokensLabels(P, tokensPoints(P, st, peak, bw), labels, xr, r);
  const launch = launchLine(P, st, peak, xr, yr, labels);
  const aiLine = st.ai > 0 ? [[[st.ai, st.ai], yr]] : [];
  const avoid = { x: points.x.concat(projections.x), y: points.y.concat(projections.y),
                  lines: sceneLines(ceilings, vector, launch, roof).concat([[[r, r], yr]], aiLine,
                                                                          extraLines) };
  // The roof, the slope and the ridge first, then the selected op's launch ceiling, then the
  // selected op's and the model's families' names, then the other lines' (ceilings, vector
  // roof, region), then the other ops'.
  const rank = (l) => (["roof", "hbm", "ridge"].includes(l.key) ? 0 : l.key === "launch" ? 1
    : namesPoint(l) && l.style === "bold" ? 2 : !namesPoint(l) ? 3 : 4);
  const ordered = labels.map((l, i) => [rank(l), i, l]).sort((a, b) => a[0] - b[0] || a[1] - b[1])
    .map((e) => e[2]);
  // Points whose markers overlap get one label (the selected op's or a family's leads it).
  const grouped = groupCoincident(ordered, xr, yr, frame[0], frame[1], joinNames);
  const laid = layoutLabels(grouped, xr, yr, frame[0], frame[1], avoid,
                            markerBoxes(P, st, xr, yr, frame));
  return {
    x: xr, y: yr, ridge: r, memory: [xr[0], r],
    roof: { x: roof.x, y: roof.y }, ceilings, vector, points, projections, launch,
    labels: laid, leaders: leaderLines(laid, xr, yr, frame[0], frame[1]),
    key: laid.filter((l) => l.shown && l.numbered)
      .flatMap((l) => (l.members || [l]).filter((m) => m.n && numbersIn(l.text).has(m.n)))
      .map((m) => ({ n: m.n, text: P.ops[m.key.slice(3)].label }))
      .sort((a, b) => a.n - b.n),
  };
}

// The op numbers a label's text shows ("1", "q/k/v/o_proj, 1, 7").
function numbersIn(text) {
  return new Set(String(text).split(", ").filter((t) => /^[0-9]+$/.test(t)).map(Number));
}

// One label for the names of points that overlap (groupCoincident): all the names, the first
// (the selected op or a family, bold) leading; else the bold names and the others' numbers
// (the key names them); else the lead's name and "+n" (the points' tooltips name them).
function joinNames(m) {
  const lead = m[0];
  const bold = m.filter((l) => l.style === "bold");
  const named = bold.length ? bold : [lead];
  const rest = m.filter((l) => !named.includes(l));
  const nums = rest.filter((l) => l.n).map((l) => String(l.n));
  const others = rest.filter((l) => !l.n).map((l) => l.text);
  const text = m.map((l) => l.text).join(", ");
  // (a shorter text may also sit on the ring around the group, tied by a leader)
  const ring = (lead.style === "bold" ? lead.at : nearPoint(7)).concat(NUMBER_AT);
  const head = named[0].text;
  const alt = [{ text: named.map((l) => l.text).concat(others, nums).join(", "), at: ring },
               { text: `${head} +${m.length - 1}`, at: ring },
               { text: `${head.split(" (")[0]} +${m.length - 1}`, at: ring }];
  if (!bold.length && lead.n) alt.push({ text: m.filter((l) => l.n).map((l) => l.n).join(", "), at: NUMBER_AT });
  return { text, alt: alt.filter((a, i) => a.text !== text && alt.findIndex((b) => b.text === a.text) === i),
           at: lead.style === "bold" ? lead.at : nearPoint(7) };
}

// The scene's drawn lines as polylines [[xs, ys], ...]: labels keep off them.
export function sceneLines(ceilings, vector, launch, roof) {
  const lines = [[roof.x, roof.y]].concat(ceilings.xs.map((xs, i) => [xs, ceilings.ys[i]]));
  return lines.concat([vector, launch].filter((d) => d.x.length).map((d) => [d.x, d.y]));
}

// The reader's marker is drawn over the canvas (r 8 px and a 2 px ring): no label goes under it
// where the scene is laid out with the slider's AI known (st.ai).
export const MARKER_KEEP_PX = 10;

function markerBoxes(P, st, xr, yr, frame) {
  if (!(st.ai > 0)) return [];
  const m = marker(P, st, st.ai);
  const [px, py] = toPx(m.x, m.y, xr, yr, frame[0], frame[1]);
  const r = MARKER_KEEP_PX;
  return [[px - r, py - r, px + r, py + r]];
}

// The reader's point: at the AI, on the lowest ceiling that applies (the roofline, or the
// selected op's launch ceiling); red below the ridge, green at the roof, amber when the launch
// binds.
export function marker(P, st, ai) {
  const hw = P.hardware[st.hardware];
  const peak = hw.peaks[st.precision];
  const a = attainableOf(P, st, ai, peak, hw.bw);
  return { x: ai, y: a.best / 1e12, bound: a.bound, color: P.colors[a.bound] };
}

// The model's families at st.tokens (tokens slider), labelled in bold like the selected op.
function tokensLabels(P, pts, labels, xr, r) {
  pts.x.forEach((x, j) => {
    labels.push({ key: `proj-${pts.op[j]}`, x, y: pts.y[j], size: 11, style: "bold",
                  color: P.colors.projection, text: pts.text[j],
                  at: nearPoint(8, 6).concat(slidPlaces(xr, r, pts.y[j])) });
  });
  return { x: pts.x, y: pts.y, op: pts.op, color: pts.color };
}

// Where the selected op's launch binds: the FLOP/s it reaches with it, a flat line across the
// plot (the marker sits on it), labelled.
function launchLine(P, st, peak, xr, yr, labels) {
  const y = launchY(P, st, peak, P.hardware[st.hardware].bw, yr);
  if (y === null) return { x: [], y: [] };
  const at = flatPlaces(xr, peak / P.hardware[st.hardware].bw, y);
  labels.push({ key: "launch", x: xr[1], y, size: 11, style: "normal", color: "ink",
                text: launchLabel(P, y), at,
                alt: [{ text: `with its launch: ≤ ${tflops(y * 1e12)}` },
                      { text: `≤ ${tflops(y * 1e12)}` }] });
  return { x: [xr[0], xr[1]], y: [y, y] };
}

// ---------------------------------------------------------------- the texts beside the plot

// One "best": the lowest ceiling that applies at this AI (the roofline's, or the selected op's
// launch ceiling), and its share of the peak; with an op, the shortest time it can take.
export function readoutText(P, st, ai, ops) {
  const hw = P.hardware[st.hardware];
  const peak = hw.peaks[st.precision];
  const a = attainableOf(P, st, ai, peak, hw.bw);
  let text = `AI ${num(ai)} FLOP/byte · best ${tflops(a.best)}, ${percent(a.fraction)} of the ` +
             `${tflops(peak)} peak`;
  if (a.time && st.op && ops[st.op]) {
    text += ` · ${ops[st.op].short || st.op} takes ≥ ${seconds(a.time.total)} (` +
      `${seconds(a.time.roof)} at the roofline + its ${seconds(a.time.launch)} launch)`;
  }
  return text;
}

// The verdict: which ceiling binds (binary) and what that costs (graded by the share of peak).
// Returns [class, text]; the class colours the badge (rl-memory, rl-compute, rl-overhead).
export function verdictText(P, st, ai) {
  const hw = P.hardware[st.hardware];
  const peak = hw.peaks[st.precision];
  const a = attainableOf(P, st, ai, peak, hw.bw);
  const r = num(peak / hw.bw);
  const units = hw.units[st.precision] === "tensor" ? "tensor cores" : "ALUs";
  const share = percent(a.fraction);
  if (a.bound === "overhead") {
    return ["overhead", `Overhead-bound: its ${seconds(a.time.launch)} launch outlasts its ` +
            `roofline time of ${seconds(a.time.roof)}, so it reaches at most ${share} of peak`];
  }
  if (a.bound === "compute") return ["compute", `Compute-bound: at the roof (ridge at ${r} FLOP/byte)`];
  if (a.fraction >= 0.5) {
    return ["memory", `Memory-bound, near the ridge: at most ${share} of peak (ridge at ${r} ` +
            "FLOP/byte)"];
  }
  return ["memory", `Memory-bound: at most ${share} of peak; the ${units} wait on HBM ` +
          `${percent(1 - a.fraction)} of the time (ridge at ${r} FLOP/byte)`];
}

