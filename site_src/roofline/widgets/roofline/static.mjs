// The roofline widget's first frame as static SVG: the live plot's scene (scene.mjs), drawn by
// the static-chart engine (chart.mjs) in the live plot's frame, fonts, ticks, colours and label
// places. Run at build time (roofline.widgets.roofline.static, through the embedded JS engine):
// a reader sees it before BokehJS arrives, without JavaScript, and on paper; the live plot runs
// it again (roofline.mjs) so that paper prints the view on screen, with its caption and record.
// A measurement's overlay comes in from static_measured.mjs (the live plot does not need it).
import { bandwidth, num, tflops } from "../../render/js/format.mjs";
import { svgChart } from "../../render/js/chart.mjs";
import { marker, scene } from "./scene.mjs";

// (viewBox width, height as a share of the live plot's, the class the page's CSS shows it by):
// each is shown in columns from its own width up to the next one's, so its text is never
// scaled down (render/blockstyle.py); a narrower drawing is laid out for its own width. The
// narrow one is a 412 px phone's column (380 px) at the live plot's full height: there the
// first frame is the live plot's size, with its labels and axes.
export const VARIANTS = [[688, 1.0, "roofline-svg-wide"], [480, 0.8, "roofline-svg-medium"],
                         [380, 1.0, "roofline-svg-narrow"], [320, 0.85, "roofline-svg-small"]];

// One drawing of the initial view (P.state) at width × height px, with an overlay drawn over
// it if given (static_measured.mjs measuredOverlay: its `roofs`, which the scene's labels keep
// off, and draw(S, st, frame), its lines, points, labels and leaders): its <svg> and its key
// (the numbered ops' names).
export function staticSvg(P, width, height, cls = "roofline-svg", overlay = null) {
  const st = P.state;
  const margin = P.margin; // the live figure's borders too (payload.FRAME_MARGIN_PX)
  const frame = [width - margin[1] - margin[3], height - margin[0] - margin[2]];
  const S = scene(P, st, frame, overlay ? overlay.roofs : []);
  const hw = P.hardware[st.hardware];
  const m = marker(P, st, st.ai);
  const C = P.colors;
  const lines = [];
  S.ceilings.xs.forEach((xs, i) => lines.push({ x: xs, y: S.ceilings.ys[i], color: S.ceilings.color[i],
                                                width: 2, dash: "6 4", cls: "rl-ceiling" }));
  if (S.vector.x.length) lines.push({ x: S.vector.x, y: S.vector.y, color: C.vector, width: 2,
                                      dash: "8 3 2 3", cls: "rl-vector" });
  lines.push({ x: S.roof.x, y: S.roof.y, color: C.roof, width: 3, cls: "rl-roof" });
  if (S.launch.x.length) lines.push({ x: S.launch.x, y: S.launch.y, color: "ink", width: 1.5,
                                      dash: "2 3", cls: "rl-launch" });
  const points = S.points.x.map((x, i) => ({ x, y: S.points.y[i], r: 4, color: "#7a8290",
                                             cls: "rl-op" }));
  S.projections.x.forEach((x, i) => points.push({ x, y: S.projections.y[i], r: 6.5,
                                                  color: S.projections.color[i],
                                                  shape: "diamond", cls: "rl-tokens" }));
  let labels = S.labels;
  const leaders = { ...S.leaders, color: "muted" };
  if (overlay) {
    const drawn = overlay.draw(S, st, frame);
    lines.push(...drawn.lines);
    points.push(...drawn.points);
    labels = labels.concat(drawn.labels);
    for (const k of ["x0", "y0", "x1", "y1"]) leaders[k] = leaders[k].concat(drawn.leaders[k]);
  }
  points.push({ x: m.x, y: m.y, r: 8, color: m.color, ring: 2, cls: "rl-marker" });
  const svg = svgChart({
    width, height, margin, cls: `roofline-svg ${cls}`.trim(),
    title: `Roofline of the ${hw.name} at ${st.precision.toUpperCase()}: ridge at ` +
           `${num(S.ridge)} FLOP/byte`,
    x: { range: S.x, label: "arithmetic intensity (FLOP/byte)" },
    y: { range: S.y, label: "attainable (TFLOP/s)" },
    regions: [{ x: S.memory, color: C.memory, opacity: 0.08 }],
    lines,
    vlines: [{ x: S.ridge, color: "muted", width: 1.5, dash: "6 4", cls: "rl-ridge" },
             { x: st.ai, color: "muted", width: 1, dash: "2 4", cls: "rl-ai" }],
    points, leaders, labels, labelCls: "roofline-svg-label",
  });
  return { svg, key: S.key };
}

// The view P.state drawn once per VARIANTS width (wide first: it is the one shown where
// container queries are unknown, and in print), and the wide drawing's key.
export function staticDrawings(P, heightPx, overlay = null) {
  const drawn = VARIANTS.map(([w, share, cls]) => staticSvg(P, w, Math.round(heightPx * share), cls,
                                                              overlay));
  // Numbers are the ops' own (the nth op is n in every drawing): one key for all of them.
  const key = new Map(drawn.flatMap((d) => d.key.map((k) => [k.n, k])));
  return { svg: drawn.map((d) => d.svg).join(""),
           key: [...key.values()].sort((a, b) => a.n - b.n) };
}

// The figure's caption for one view: what to look at, with the chip's own ridge, slope and roof
// (block.py writes it for the first frame, roofline.mjs again as the reader moves a control).
export function rooflineCaption(P, st) {
  const hw = P.hardware[st.hardware];
  const peak = hw.peaks[st.precision];
  return `The roofline of the ${hw.name} in ${st.precision}: an op left of the ridge at ` +
    `${num(peak / hw.bw)} FLOP/byte is held to the ${bandwidth(hw.bw)} bandwidth slope and one ` +
    `right of it to the ${tflops(peak)} roof, so move the AI slider or pick an op to see which ` +
    "of the two holds.";
}

// The view's settings in one line, for paper (where the controls are not printed).
export function rooflineRecord(P, st) {
  const parts = [`Hardware ${P.hardware[st.hardware].name}`,
                 `precision ${P.precisions[st.precision].label}`,
                 `arithmetic intensity ${num(st.ai)} FLOP/byte`];
  const tokenOp = P.tokens && st.op ? P.tokens.ops.find((o) => o.id === st.op) : null;
  const op = st.op && P.ops[st.op] ? P.ops[st.op].label : tokenOp ? tokenOp.label : null;
  if (op) parts.push(`op preset ${op}`);
  if (st.tokens) parts.push(`${num(st.tokens)} token${st.tokens === 1 ? "" : "s"} per step`);
  if (st.vector) parts.push("vector roof shown");
  return `Settings: ${parts.join(", ")}.`;
}
