// The budget's roofline of one layer's ops: their names laid out by the roofline's own label
// layout (labels.mjs, sized by its font metrics), so no two names overlap, read as one or
// leave the frame, and none lies nearer another op's point than its own. Ops whose markers
// touch in the frame (q/k/v/o_proj share an intensity, gate/up/down_proj sit 5 px from them)
// are one mark to a reader: they get one label, their names joined ("q/k/v/o_proj") or, where
// that does not fit, "9 ops" (each point keeps its own tooltip). A name with no free place is
// left out rather than drawn over another. The live plot's callback (budget_names.mjs) and the
// static drawing (static.mjs, which the live callback bundles too) call layoutPoints, each in
// its own frame: one layout for both. node imports the named exports.
import { ABOVE, BELOW, MERGE_PX, layoutLabels, toPx } from "../../render/js/labels.mjs";

export const SIZE = 11; // px: chart text on a phone is never under 11 px (issue 14)
const JOINED_MAX = 26; // characters: a longer joined name is written "n ops"

// The points whose markers touch in a w × h frame (centres within MERGE_PX, chained), in order
// of intensity: [[i, ...], ...].
export function groupPoints(points, xr, yr, w, h) {
  const px = points.x.map((x, i) => toPx(x, points.y[i], xr, yr, w, h));
  const order = [...px.keys()].sort((i, j) => (points.x[i] - points.x[j]) || (i - j));
  const groups = [];
  for (const i of order) {
    const near = groups.filter((g) => g.some((j) => Math.hypot(px[i][0] - px[j][0],
                                                               px[i][1] - px[j][1]) < MERGE_PX));
    const merged = [i].concat(...near);
    for (const g of near) groups.splice(groups.indexOf(g), 1);
    groups.push(merged.sort((a, b) => a - b));
  }
  return groups.sort((a, b) => points.x[a[0]] - points.x[b[0]] || a[0] - b[0]);
}

// One name for a group: the names themselves ("q_proj" alone), their heads joined over a shared
// "_tail" ("q/k/v/o_proj"), or all joined with "/" where short enough; else "n ops".
export function groupName(names) {
  const uniq = [...new Set(names)];
  if (uniq.length === 1) return uniq[0];
  const tail = (n) => (n.includes("_") ? n.slice(n.lastIndexOf("_")) : null);
  const t = tail(uniq[0]);
  const joined = t && uniq.every((n) => tail(n) === t)
    ? uniq.map((n) => n.slice(0, -t.length)).join("/") + t : uniq.join("/");
  return joined.length <= JOINED_MAX ? joined : `${names.length} ops`;
}

// Label specs for points {x, y, text} in a w × h frame: one per group of touching points, at
// the group's middle (geometric, as the axes are log), beside it or a few rows out; a joined
// name that has no place falls back to "n ops".
export function pointLabels(points, xr, yr, w, h) {
  const at = [];
  for (let row = 0; row < 4; row += 1) {
    const dy = 7 + 13 * row;
    at.push(ABOVE(6, dy, "left"), ABOVE(-6, dy, "right"), BELOW(6, dy, "left"),
            BELOW(-6, dy, "right"));
  }
  const gmean = (v) => 10 ** (v.reduce((a, b) => a + Math.log10(b), 0) / v.length);
  return groupPoints(points, xr, yr, w, h).map((g) => {
    const text = groupName(g.map((i) => String(points.text[i])));
    const n = `${g.length} ops`;
    return { key: `op-${g[0]}`, x: gmean(g.map((i) => points.x[i])),
             y: gmean(g.map((i) => points.y[i])), size: SIZE, style: "normal", text, at,
             members: g.map((i) => ({ x: points.x[i], y: points.y[i] })), alt: g.length > 1 && text !== n ? { text: n } : undefined };
  });
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
  return layoutLabels(pointLabels(points, xr, yr, w, h), xr, yr, w, h,
                      { x: points.x, y: points.y, lines });
}
