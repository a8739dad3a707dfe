// The budget's roofline of one layer's ops: their names laid out by the roofline's own label
// layout (labels.mjs, sized by its font metrics), so no two names overlap and none
// leaves the frame (the old fixed offsets stacked "input_layernorm" on "act_fn"). Ops at one
// point (q/k/v/o_proj share an intensity) take one row each; a name with no free place is left
// out rather than drawn over another. widgets/budget/layout.py runs the default export when
// the points change and when the plot's frame is laid out; node imports the named exports.
import { ABOVE, BELOW, frameSize, layoutLabels, leaderLines } from "../../render/js/labels.mjs";

export const SIZE = 11; // px: chart text on a phone is never under 11 px (issue 14)


// Label specs for points {x, y, text}: in order of intensity, each op of a cluster (within
// ×1.1 in x and y) a row further out than the one before it.
export function pointLabels(points) {
  const n = points.x.length;
  const order = [...Array(n).keys()].sort((i, j) => (points.x[i] - points.x[j]) || (i - j));
  const out = [];
  let lead = null;
  let rank = 0;
  for (const i of order) {
    const near = lead !== null && points.x[i] <= points.x[lead] * 1.1
      && Math.max(points.y[i], points.y[lead]) <= Math.min(points.y[i], points.y[lead]) * 1.1;
    rank = near ? rank + 1 : 0;
    if (!near) lead = i;
    const at = [];
    for (let row = rank; row < rank + 12; row += 1) {
      const dy = 7 + 13 * row;
      at.push(ABOVE(6, dy, "left"), ABOVE(-6, dy, "right"), BELOW(6, dy, "left"),
              BELOW(-6, dy, "right"));
    }
    out.push({ key: `op-${i}`, x: points.x[i], y: points.y[i], size: SIZE, style: "normal",
               text: String(points.text[i]), at });
  }
  return out;
}

// The shown labels as the LabelSet's columns.
export function nameColumns(placed) {
  const cols = { x: [], y: [], text: [], dx: [], dy: [], align: [], baseline: [] };
  for (const l of placed) {
    if (!l.shown) continue;
    for (const k of Object.keys(cols)) cols[k].push(l[k]);
  }
  return cols;
}

// `lines` ([[xs, ys], ...], the roof): names keep off them where they can.
export function layoutPoints(points, xr, yr, w, h, lines = []) {
  return layoutLabels(pointLabels(points), xr, yr, w, h, { x: points.x, y: points.y, lines });
}

export default function (args) {
  const fig = args.fig;
  const d = args.points.data;
  if (!d.x || !d.x.length) {
    args.labels.data = nameColumns([]);
    if (args.leaders) args.leaders.data = { x0: [], y0: [], x1: [], y1: [] };
    return;
  }
  const xr = [fig.x_range.start, fig.x_range.end];
  const yr = [fig.y_range.start, fig.y_range.end];
  const [w, h] = frameSize(fig);
  const points = { x: Array.from(d.x), y: Array.from(d.y), text: Array.from(d.text) };
  const placed = layoutPoints(points, xr, yr, w, h, args.roof ? [[args.roof.x, args.roof.y]] : []);
  args.labels.data = nameColumns(placed);
  // a name moved away from its point is tied to it (q/k/v/o_proj's names stack in rows)
  if (args.leaders) args.leaders.data = leaderLines(placed, xr, yr, w, h);
}
