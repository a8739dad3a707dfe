// The budget widget's first frame as static SVG: the three figures the live layout draws (the
// waterfall, the time by op class, one layer's ops on the roofline) for the setting the page
// opens on, from the live callback's own frameAt() (budget.mjs), drawn by the static-chart
// engine (chart.mjs). Run at build time (widgets/budget/block.py): a reader sees it before
// BokehJS arrives, without JavaScript, and on paper. The block's caption and its printed record
// of the settings are written here too, once: the build runs them for the first frame, the live
// callback (budget.mjs) again, with the drawing, as the reader moves a control (#49).
import { barChart, svgChart } from "../../render/js/chart.mjs";
import { leaderLines } from "../../render/js/labels.mjs";
import { num, percent, sig } from "../../render/js/format.mjs";
import { frameAt } from "./budget_view.mjs";
import { layoutPoints } from "./budget_labels.mjs";

// (viewBox width, the class the page's CSS shows it by), as the roofline's drawings.
const VARIANTS = [[688, "roofline-svg-wide"], [480, "roofline-svg-medium"],
                  [380, "roofline-svg-narrow"], [320, "roofline-svg-small"]];
const MARGIN = [30, 20, 52, 150];
const NARROW_MARGIN = [30, 12, 52, 124];

function niceTicks(hi) {
  const step = 10 ** Math.floor(Math.log10(hi / 2));
  const k = [1, 2, 5].find((m) => hi / (step * m) <= 6) || 10;
  const out = [];
  for (let v = 0; v <= hi + 1e-9; v += step * k) out.push(Number(v.toPrecision(6)));
  return out;
}

function waterfallSvg(P, f, width, height, cls, titles) {
  const rows = P.rows.map((k) => P.labels[k]);
  const b = f.bars;
  return barChart({
    width, height, margin: width < 400 ? NARROW_MARGIN : MARGIN, cls: `roofline-svg ${cls}`,
    title: titles[f.fits ? 1 : 0], rows, x: { range: [0, P.wf_end], label: "% of peak FLOP/s",
                                               ticks: [0, 20, 40, 60, 80, 100] },
    bars: b.row.map((row, i) => ({ row, left: b.left[i], right: b.right[i], color: b.color[i] })),
    labels: b.row.map((row, i) => ({ row, x: b.tx[i], text: b.text[i], align: b.align[i],
                                      dx: b.dx[i] })),
  });
}

function classes(P, f, width, height, cls, titles) {
  const c = f.classes;
  // room for the longest bar's "656 ms"; a step that does not fit has no time: an axis to 1 ms
  const hi = (Math.max(0, ...c.ms, ...c.ghost) || 1) * 1.8;
  return barChart({
    width, height, margin: width < 400 ? NARROW_MARGIN : MARGIN, cls: `roofline-svg ${cls}`,
    title: titles[f.fits ? 1 : 0], rows: c.cls,
    x: { range: [0, hi], label: "time per step (ms)", ticks: niceTicks(hi / 1.8) },
    bars: c.cls.flatMap((row, i) => [
      { row, left: 0, right: c.ghost[i], color: c.color[i], opacity: 0.22, thick: 0.7,
        outline: true },
      { row, left: 0, right: c.ms[i], color: c.color[i], thick: 0.45 }]),
    labels: c.cls.map((row, i) => ({ row, x: c.tx[i], text: c.text[i], align: "left", dx: 4 })),
  });
}

function layerRoofline(P, f, width, height, cls, xRange) {
  const margin = [12, 36, 52, 78];
  const w = width - margin[1] - margin[3], h = height - margin[0] - margin[2];
  const [x0, x1] = xRange;
  const r = P.peak / P.bw;
  const yr = [x0 * P.bw / 1e12 / 2, P.peak / 1e12 * 3];
  const pts = { x: f.points.x, y: f.points.y, text: f.points.text };
  const roof = [[x0, r, x1], [x0 * P.bw / 1e12, P.peak / 1e12, P.peak / 1e12]];
  // the live plot's own layout (budget_labels.mjs): the same groups and names
  const placed = layoutPoints(pts, xRange, yr, w, h, [roof]);
  return svgChart({
    width, height, margin, cls: `roofline-svg ${cls}`,
    title: "One layer's forward ops on the roofline",
    x: { range: xRange, label: "arithmetic intensity per kernel (FLOP/byte)" },
    y: { range: yr, label: "attainable (TFLOP/s)" },
    lines: [{ x: roof[0], y: roof[1], color: "roof", width: 3, cls: "rl-roof" }],
    points: pts.x.map((x, i) => ({ x, y: pts.y[i], r: 4.5, color: f.points.color[i],
                                   title: pts.text[i] })),
    labels: placed.map((l) => ({ ...l, color: "muted" })),
    leaders: { ...leaderLines(placed, xRange, yr, w, h), color: "muted" },
  });
}

// The three figures, each drawn once per VARIANTS width (the page's CSS shows the one that
// fits its column), for the setting `values` (budget.mjs frameAt's), with the plots' heights
// the live layout gives them, and the readout's sentence.
export function staticBudget(P, values, heights, titles, xRange) {
  const f = frameAt(P, values);
  const svg = [];
  for (const [w, cls] of VARIANTS) {
    svg.push(waterfallSvg(P, f, w, heights.waterfall, cls, titles.waterfall));
  }
  for (const [w, cls] of VARIANTS) svg.push(classes(P, f, w, heights.classes, cls, titles.classes));
  for (const [w, cls] of VARIANTS) svg.push(layerRoofline(P, f, w, heights.roofline, cls, xRange));
  return { svg: svg.join(""), readout: f.readout };
}

const PHASE_WORDS = { train: "training", prefill: "prefill", decode: "decode" };

function stepWords(P, v) {
  const model = (P.models[v.model] || { name: v.model }).name;
  return `one ${PHASE_WORDS[v.phase] || v.phase} step of ${model} at batch ${v.batch} × ` +
    `${num(P.seq[v.phase], 9)} tokens`;
}

// The figure's caption for the setting `values` (frameAt's): what to look at, for the model,
// phase, batch and chip on screen.
export function budgetCaption(P, values) {
  return `Where ${stepWords(P, values)} on the ${P.hardware} spends its time: the waterfall ` +
    "charges each leak its share of step time, from 100 % of peak down to the MFU, the bars " +
    "split the step by op class, and each fusion you tick shrinks the memory-bound bars.";
}

// Every control's value in one line: paper's record of the controls it does not print. The
// data-parallel, overlap, ZeRO and recomputation knobs hold for a training step only.
export function budgetRecord(P, values) {
  const f = frameAt(P, values);
  const st = f ? f.st : values;
  const fused = values.active.slice().sort().map((i) => P.fusions[i]);
  const out = [`Settings: ${stepWords(P, values).replace(/^one /, "")}`,
    `fused: ${fused.length ? fused.join(", ") : "none"}`,
    `GEMM efficiency ${percent(st.efficiency, 2)}`,
    `launch overhead ${sig(st.launch_us, 3)} µs`];
  if (values.phase === "train") {
    out.push(`${st.dp} data-parallel GPUs`, `all-reduce overlap ${percent(st.overlap, 2)}`,
             `ZeRO stage ${st.zero}`, `recomputation ${st.recompute}`);
  }
  return `${out.join(", ")}.`;
}
