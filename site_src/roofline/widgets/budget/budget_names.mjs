// The budget roofline's names callback: widgets/budget/layout.py runs it when the points change
// and when the plot's frame is laid out; the layout is budget_labels.mjs's. Apart from it so
// that budget.mjs (which bundles static.mjs, and so budget_labels.mjs) has one default export.
import { frameSize, leaderLines } from "../../render/js/labels.mjs";
import { layoutPoints, nameColumns } from "./budget_labels.mjs";

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
  // a name moved away from its point is tied to it
  if (args.leaders) args.leaders.data = leaderLines(placed, xr, yr, w, h);
}
