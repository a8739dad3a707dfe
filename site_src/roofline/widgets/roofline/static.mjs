// The roofline widget's first frame as static SVG: the live plot's scene (scene.mjs), drawn by
// the static-chart engine (chart.mjs) in the live plot's frame, fonts, ticks, colours and label
// places. Run at build time (roofline.widgets.roofline.static, through the embedded JS engine):
// a reader sees it before BokehJS arrives, without JavaScript, and on paper.
import { num } from "../../render/js/format.mjs";
import { svgChart } from "../../render/js/chart.mjs";
import { leaderLines } from "../../render/js/labels.mjs";
import { layoutOverlay, overlayData, yBounds } from "../measurement/measure.mjs";
import { X_PAD, marker, scene, sceneLines } from "./scene.mjs";

// (viewBox width, height as a share of the live plot's, the class the page's CSS shows it by):
// each is shown in columns from its own width up to the next one's, so its text is never
// scaled down (render/blockstyle.py); a narrower drawing is laid out for its own width. The
// narrow one is a 412 px phone's column (380 px) at the live plot's full height: there the
// first frame is the live plot's size, with its labels and axes.
export const VARIANTS = [[688, 1.0, "roofline-svg-wide"], [480, 0.8, "roofline-svg-medium"],
                         [380, 1.0, "roofline-svg-narrow"], [320, 0.85, "roofline-svg-small"]];

// The scene's labels' and points' boxes in frame px, for the overlay to keep off.
function sceneBoxes(S) {
  return S.labels.filter((l) => l.shown).map((l) => l.box);
}

// The y extent a measurement's overlay needs over the plot's x range (the payload's y_extra,
// so the first frame already has room for it).
export function overlayExtent(P, doc) {
  return yBounds(overlayData(doc, P.x[0] / X_PAD, P.x[1] * X_PAD));
}

// One drawing of the initial view (P.state) at width × height px, with the measurement `doc`
// drawn over it if given: its <svg> and its key (the numbered ops' names).
export function staticSvg(P, width, height, cls = "roofline-svg", doc = null) {
  const st = P.state;
  const margin = P.margin; // the live figure's borders too (settings.FRAME_MARGIN_PX)
  const frame = [width - margin[1] - margin[3], height - margin[0] - margin[2]];
  // A measurement's roofs first: the scene's labels keep off them too.
  const ov = doc ? overlayData(doc, P.x[0] / X_PAD, P.x[1] * X_PAD) : null;
  const S = scene(P, st, frame, ov ? ov.roofs.xs.map((xs, i) => [xs, ov.roofs.ys[i]]) : []);
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
  const extraLeaders = [];
  if (ov) {
    ov.roofs.xs.forEach((xs, i) => lines.push({ x: xs, y: ov.roofs.ys[i], color: C.measured,
                                                width: 2.5, dash: "10 4 2 4", cls: "rl-measured" }));
    ov.points.x.forEach((x, i) => points.push({ x, y: ov.points.y[i], r: 6.5, color: C.measured,
                                                shape: "diamond", cls: "rl-measured-op" }));
    const avoid = sceneLines(S.ceilings, S.vector, S.launch, S.roof)
      .concat([[[S.ridge, S.ridge], S.y], [[st.ai, st.ai], S.y]]); // the ridge, the AI line
    const placed = layoutOverlay(ov, S.x, S.y, frame[0], frame[1], sceneBoxes(S), undefined,
                                 avoid, S.points);
    labels = labels.concat(placed.map((l) => ({ ...l, color: C.measured })));
    extraLeaders.push(leaderLines(placed, S.x, S.y, frame[0], frame[1]));
  }
  for (const l of extraLeaders) {
    for (const k of ["x0", "y0", "x1", "y1"]) leaders[k] = leaders[k].concat(l[k]);
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

// The first frame drawn once per VARIANTS width (wide first: it is the one shown where
// container queries are unknown, and in print), and the wide drawing's key.
export function staticFigure(P, heightPx, doc = null) {
  const drawn = VARIANTS.map(([w, share, cls]) => staticSvg(P, w, Math.round(heightPx * share), cls,
                                                              doc));
  // Numbers are the ops' own (the nth op is n in every drawing): one key for all of them.
  const key = new Map(drawn.flatMap((d) => d.key.map((k) => [k.n, k])));
  return { svg: drawn.map((d) => d.svg).join(""),
           key: [...key.values()].sort((a, b) => a.n - b.n) };
}
