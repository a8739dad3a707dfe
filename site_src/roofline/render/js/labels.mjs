// The one label layout of our charts: the roofline's scene (widgets/roofline/scene.mjs), the
// measurement overlay (widgets/measurement/measure.mjs), the budget's roofline and every static
// chart (chart.mjs) place their labels here, in the browser and at build time alike (the build
// runs these very files in an embedded JS engine), so a figure's static first frame and its
// live canvas put each label in the same place.
//
// A label's box comes from the font metrics table (fontmetrics.mjs: per glyph, the widest of the
// fonts our plots render in, DejaVu Sans and Liberation Sans), never from the machine's own
// fonts: the layout is the same on every machine, and the text a reader's browser draws is no
// wider than the box it was given. The rules: a label stays inside the frame, overlaps no point
// and no other label, and is crossed by no drawn line (roofs, the ridge, the AI line, launch
// and measured roofs) nor by another label's leader; a name placed away from its point gets a
// leader line, which itself crosses no label. A label with no such place takes its `alt`
// (or the first of its alternatives that fits: a shorter text, a number the figure's key
// explains), else it is left out (shown: false).
import { CHARS, WIDTHS } from "./fontmetrics.mjs";

export const LINE_H = 1.2;
export const POINT_R = 4; // half the op markers' size (px): labels keep off the points
export const PAD_PX = 2; // clear space kept around every label box, beyond its metrics
export const FONT_STACK = "'DejaVu Sans', 'Liberation Sans', Arial, Helvetica, sans-serif";
// A point's name farther than this from it gets a leader line (px).
export const LEADER_PX = 12;
// Two labels sharing a baseline band closer than this (px) read as one phrase ("BF16 roof 989
// 8"): the layout keeps them this far apart, and the gate reports a pair that is not.
export const READ_GAP_PX = 8;
// Marks whose centres are closer than this (px) overlap (r 4-4.5 markers, 1 px of air): to a
// reader they are one mark, named once (a group's label, budget_labels.mjs) or each from its
// own side.
export const MERGE_PX = 10;
// A point's name is never farther than this from its point (px), leader or not: a reader does
// not follow a leader across the plot (a selected op's name slid 180 px to the frame's edge).
export const FAR_PX = 64;

const GLYPH = new Map([...CHARS].map((ch, i) => [ch, i]));
const WIDEST = { normal: Math.max(...WIDTHS.normal), bold: Math.max(...WIDTHS.bold),
                 italic: Math.max(...WIDTHS.italic) };

// A label's width in px at `size` px: the sum of its glyphs' widths from the metrics table
// (a glyph outside the table counts as the widest one), plus 1 px.
export function textWidth(text, size, style = "normal") {
  const table = WIDTHS[style] || WIDTHS.normal;
  let em = 0;
  for (const ch of String(text)) {
    const i = GLYPH.get(ch);
    em += i === undefined ? WIDEST[style] || WIDEST.normal : table[i];
  }
  return (em / 1000) * size + 1;
}

// The size in px of a Bokeh figure's frame (the w × h the layout works in); before the first
// layout (the loader draws the first frame before any view exists) an estimate, and the frame's
// real size redraws the labels once it is known.
export function frameSize(fig, fallback = [588, 342]) {
  const known = (prop) => {
    try {
      const v = fig[prop];
      return v > 0 ? v : null;
    } catch (e) {
      return null; // unset until the plot is laid out
    }
  };
  return [known("inner_width") || fallback[0], known("inner_height") || fallback[1]];
}

// Pixel position of a data point in a frame of w × h px (y down) over log ranges xr, yr.
export function toPx(x, y, xr, yr, w, h) {
  const fx = (Math.log10(x) - Math.log10(xr[0])) / (Math.log10(xr[1]) - Math.log10(xr[0]));
  const fy = (Math.log10(y) - Math.log10(yr[0])) / (Math.log10(yr[1]) - Math.log10(yr[0]));
  return [fx * w, (1 - fy) * h];
}

// The data point (x, y) at px (sx, sy) of a w × h frame over log ranges xr, yr (toPx inverted).
export function fromPx(sx, sy, xr, yr, w, h) {
  const lx = [Math.log10(xr[0]), Math.log10(xr[1])];
  const ly = [Math.log10(yr[0]), Math.log10(yr[1])];
  return [10 ** (lx[0] + (sx / w) * (lx[1] - lx[0])), 10 ** (ly[0] + (1 - sy / h) * (ly[1] - ly[0]))];
}

// The box [left, top, right, bottom] (px, y down) of one label placed at px (sx, sy) with
// offsets dx (right) and dy (up), as Bokeh's LabelSet and SVG text place it.
export function labelBox(text, size, sx, sy, c, width) {
  const w = width === undefined ? textWidth(text, size) : width;
  const h = size * LINE_H;
  const ax = sx + c.dx;
  const ay = sy - c.dy;
  const left = c.align === "right" ? ax - w : c.align === "center" ? ax - w / 2 : ax;
  const top = c.baseline === "bottom" ? ay - h : c.baseline === "middle" ? ay - h / 2 : ay;
  return [left, top, left + w, top + h];
}

// Whether boxes a and b share a baseline band (they overlap vertically by half the shorter
// one's height) with less than `gap` px between them: side by side, they read as one phrase.
export function readsAsOne(a, b, gap = READ_GAP_PX) {
  const v = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
  if (v < 0.5 * Math.min(a[3] - a[1], b[3] - b[1])) return false;
  return Math.max(a[0], b[0]) - Math.min(a[2], b[2]) < gap;
}

// The distance (px) from point p to box b (0 inside it).
export function boxDistance(p, b) {
  return Math.hypot(p[0] - Math.min(Math.max(p[0], b[0]), b[2]),
                    p[1] - Math.min(Math.max(p[1], b[1]), b[3]));
}

// Whether a mark other than `own` (and the marks overlapping it, within MERGE_PX) lies nearer
// the box than `own` does: a reader would give the label to that mark.
export function nearerOther(own, box, marks, merge = MERGE_PX, slack = 0) {
  const d = boxDistance(own, box);
  return marks.some((m) => Math.hypot(m[0] - own[0], m[1] - own[1]) >= merge
                    && boxDistance(m, box) + slack < d);
}

export function overlaps(a, b, pad = 1) {
  return a[0] < b[2] + pad && b[0] < a[2] + pad && a[1] < b[3] + pad && b[1] < a[3] + pad;
}

// Candidate places: a label above (its bottom dy px over the anchor) or below it, dx px right.
export const ABOVE = (dx, dy, align) => ({ dx, dy, align, baseline: "bottom" });
export const BELOW = (dx, dy, align) => ({ dx, dy: -dy, align, baseline: "top" });

export const namesPoint = (l) => /^(op|proj|measured-op)-/.test(l.key);

// The leader from a point (px, py) to the nearest point of its label's box, as a px segment
// starting at the point's edge; null when the box is within LEADER_PX.
export function leaderOf(px, py, b) {
  const qx = Math.min(Math.max(px, b[0]), b[2]);
  const qy = Math.min(Math.max(py, b[1]), b[3]);
  const d = Math.hypot(qx - px, qy - py);
  if (d <= LEADER_PX) return null;
  const k = (POINT_R + 1) / d;
  return [px + (qx - px) * k, py + (qy - py) * k, qx, qy];
}

const inset = (b, by) => [b[0] + by, b[1] + by, b[2] - by, b[3] - by];

// Greedy placement, in the labels' order: each takes its first candidate (`at`, then for each
// of its `alt` texts in turn, `alt.at` or `at`) whose box is inside the frame, overlaps no point and no label
// placed before it nor reads as one phrase with one (readsAsOne), names its own point (no other
// point nearer it: nearerOther), is crossed by no line of points.lines (nor, for a point's name, of
// points.opLines) and by no leader placed before it, and whose own leader (if it needs one)
// crosses no placed label. `taken`: boxes already placed (a measurement overlay is laid out
// around the scene's labels). Returns each label with its place, `box` and `shown`.
export function layoutLabels(labels, xr, yr, w, h, points = { x: [], y: [] }, taken = []) {
  const boxes = taken.slice();
  const marks = points.x.map((x, i) => toPx(x, points.y[i], xr, yr, w, h));
  const pointBoxes = marks.map(([px, py]) => [px - POINT_R, py - POINT_R, px + POINT_R, py + POINT_R]);
  const lines = segmentsOf(points.lines, xr, yr, w, h);
  const opLines = segmentsOf(points.opLines, xr, yr, w, h);
  const leaders = [];
  return labels.map(({ at, alt, ...l }) => {
    const [px0, py0] = toPx(l.x, l.y, xr, yr, w, h);
    const own = (l.members || []).map((m) => toPx(m.x, m.y, xr, yr, w, h));
    const others = own.length ? marks.filter((m) => !own.some((o) => Math.hypot(m[0] - o[0], m[1] - o[1]) < 0.5))
      : marks;
    const avoid = (namesPoint(l) ? lines.concat(opLines) : lines).concat(leaders);
    const alts = alt === undefined ? [] : Array.isArray(alt) ? alt : [alt];
    const tries = [[l.text, at]].concat(alts.map((a) => [a.text, a.at || at]));
    for (const [text, cands] of tries) {
      const width = textWidth(text, l.size, l.style);
      for (const c of cands) {
        // A candidate may name its own anchor (`ax`, `ay`, data): a line's label can sit at
        // either end of its line.
        const [sx, sy] = c.ax === undefined ? [px0, py0] : toPx(c.ax, c.ay, xr, yr, w, h);
        const box = labelBox(text, l.size, sx, sy, c, width);
        if (!(box[0] >= 0 && box[1] >= 0 && box[2] <= w && box[3] <= h)) continue;
        if (boxes.some((b) => overlaps(b, box, PAD_PX) || readsAsOne(b, box))) continue;
        if (pointBoxes.some((b) => overlaps(b, box, 1))) continue;
        const clear = inset(box, -1); // a line grazing the box's edge still crosses it
        if (avoid.some((g) => crosses(g, clear))) continue;
        // (a group's label: no mark of its own group counts as another's)
        if (namesPoint(l) && (boxDistance([px0, py0], box) > FAR_PX
                              || nearerOther([px0, py0], box, others))) continue;
        // (a leader runs from the point itself, wherever the label is anchored)
        const leader = namesPoint(l) ? leaderOf(px0, py0, box) : null;
        // (the leader starts at its own point's edge, outside that point's inset box)
        // (a box over the point itself, the reader's marker on a selected op, and its own
        // group's points do not count: the leader must start there)
        const under = (b) => b[0] <= px0 && px0 <= b[2] && b[1] <= py0 && py0 <= b[3];
        const mine = (b) => own.some(([ox, oy]) => b[0] <= ox && ox <= b[2] && b[1] <= oy && oy <= b[3]);
        if (leader && (boxes.some((b) => !under(b) && crosses(leader, b))
                       || pointBoxes.some((b) => !mine(b) && crosses(leader, inset(b, 1))))) continue;
        boxes.push(box);
        if (leader) leaders.push(leader);
        const { ax, ay, ...place } = c;
        return { ...l, ...place, x: ax === undefined ? l.x : ax, y: ay === undefined ? l.y : ay,
                 mark: [l.x, l.y], text, box, shown: true, numbered: text !== l.text };
      }
    }
    const { ax, ay, ...first } = at[0];
    return { ...l, ...first, mark: [l.x, l.y], box: null, shown: false, numbered: false };
  });
}

// Point names whose marks overlap in a w × h frame (centres within `merge` px, chained) become
// one label: the first of each group (the layout's order puts the most important first) leads
// it, and join(members) gives its {text, alt, at}; the others are dropped. Labels of lines
// pass through. The one way overlapping marks are named, live and static alike.
export function groupCoincident(labels, xr, yr, w, h, join, merge = MERGE_PX) {
  const px = labels.map((l) => (namesPoint(l) ? toPx(l.x, l.y, xr, yr, w, h) : null));
  const group = labels.map((_, i) => i);
  const root = (i) => (group[i] === i ? i : (group[i] = root(group[i])));
  px.forEach((a, i) => {
    if (!a) return;
    for (let j = 0; j < i; j += 1) {
      const b = px[j];
      if (b && Math.hypot(a[0] - b[0], a[1] - b[1]) < merge) group[root(i)] = root(j);
    }
  });
  const members = new Map();
  labels.forEach((l, i) => {
    const r = root(i);
    if (!members.has(r)) members.set(r, []);
    members.get(r).push(l);
  });
  const out = [];
  labels.forEach((l, i) => {
    const m = members.get(root(i));
    if (m.length === 1) out.push(l);
    else if (m[0] === l) out.push({ ...l, ...join(m), members: m });
  });
  return out;
}

// The lines Bokeh sources draw (x/y columns, or xs/ys of a multi_line) as [[xs, ys], ...].
export function sourceLines(sources) {
  const out = [];
  for (const { data: d } of sources) {
    if (d.xs) d.xs.forEach((xs, i) => out.push([Array.from(xs), Array.from(d.ys[i])]));
    else if (d.x && d.x.length) out.push([Array.from(d.x), Array.from(d.y)]);
  }
  return out;
}

// Polylines [[xs, ys], ...] in data coordinates as px segments [x0, y0, x1, y1].
export function segmentsOf(lines, xr, yr, w, h) {
  const out = [];
  for (const [xs, ys] of lines || []) {
    for (let i = 1; i < xs.length; i += 1) {
      const a = toPx(xs[i - 1], ys[i - 1], xr, yr, w, h);
      const b = toPx(xs[i], ys[i], xr, yr, w, h);
      out.push([a[0], a[1], b[0], b[1]]);
    }
  }
  return out;
}

// Whether segment g [x0, y0, x1, y1] passes through box b (Liang-Barsky clipping).
export function crosses(g, b) {
  const dx = g[2] - g[0], dy = g[3] - g[1];
  const p = [-dx, dx, -dy, dy];
  const q = [g[0] - b[0], b[2] - g[0], g[1] - b[1], b[3] - g[1]];
  let t0 = 0, t1 = 1;
  for (let i = 0; i < 4; i += 1) {
    if (p[i] === 0) {
      if (q[i] < 0) return false;
    } else {
      const r = q[i] / p[i];
      if (p[i] < 0) {
        if (r > t1) return false;
        if (r > t0) t0 = r;
      } else {
        if (r < t0) return false;
        if (r < t1) t1 = r;
      }
    }
  }
  return true;
}

// The leader lines of placed labels as columns {x0, y0, x1, y1} in data coordinates (a Bokeh
// Segment draws them; the static SVG converts back to px).
export function leaderLines(placed, xr, yr, w, h) {
  const out = { x0: [], y0: [], x1: [], y1: [] };
  for (const l of placed) {
    if (!l.shown || !namesPoint(l)) continue;
    const [mx, my] = l.mark || [l.x, l.y]; // the point it names (x, y: where its text is anchored)
    const [px, py] = toPx(mx, my, xr, yr, w, h);
    const g = leaderOf(px, py, l.box);
    if (!g) continue;
    const a = fromPx(g[0], g[1], xr, yr, w, h);
    const z = fromPx(g[2], g[3], xr, yr, w, h);
    out.x0.push(a[0]); out.y0.push(a[1]); out.x1.push(z[0]); out.y1.push(z[1]);
  }
  return out;
}
