// Label layout from estimated text boxes, shared by the roofline's scene (scene.mjs) and the
// measurement overlay (measure.mjs), so both place labels the same way and around each other.
// No imports: render/jsmodule.bundle() puts it in front of each callback that needs it. The
// Python mirror is roofline.render.labels (to_px, label_box, overlaps, layout_labels, ...).

export const CHAR_W = 0.6; // estimated glyph width / font size (sans-serif; a safe over-estimate)
export const LINE_H = 1.2;
export const POINT_R = 4; // half the op markers' size (px): labels keep off the points

// The size in px of a Bokeh figure's frame (the w × h the layout works in); before the first
// layout (the loader draws the first frame before any view exists) an estimate, and the
// frame's real size redraws the labels once it is known. 588: a 688 px roofline's frame
// (plot/widget.FRAME_BORDER_RIGHT_PX), as the static SVG's (plot/svg.MARGIN).
export function frameSize(fig) {
  const known = (prop) => {
    try {
      const v = fig[prop];
      return v > 0 ? v : null;
    } catch (e) {
      return null; // unset until the plot is laid out
    }
  };
  return [known("inner_width") || 588, known("inner_height") || Math.max(100, fig.height - 58)];
}

// A label's width as a live canvas draws it, in Bokeh's LabelSet font (helvetica unless set):
// the estimate (CHAR_W) runs short for wide fonts (DejaVu Sans: 0.65 em a glyph in bold).
// undefined outside a browser (node, where the mirrors' estimate stands).
let measureCtx = null;
export function textWidth(text, size, style = "normal", font = "helvetica") {
  if (typeof document === "undefined") return undefined;
  measureCtx = measureCtx || document.createElement("canvas").getContext("2d");
  const face = style === "bold" ? "bold " : style === "italic" ? "italic " : "";
  measureCtx.font = `${face}${size}px ${font}`;
  return measureCtx.measureText(text).width;
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

// The estimated box [left, top, right, bottom] (px, y down) of one label placed at px (sx, sy)
// with offsets dx (right) and dy (up), as Bokeh's LabelSet and SVG text place it; `width`, when
// given, is the text's measured width (a live canvas can measure; the mirrors estimate).
export function labelBox(text, size, sx, sy, c, width) {
  const w = width === undefined ? text.length * size * CHAR_W : width;
  const h = size * LINE_H;
  const ax = sx + c.dx;
  const ay = sy - c.dy;
  const left = c.align === "right" ? ax - w : c.align === "center" ? ax - w / 2 : ax;
  const top = c.baseline === "bottom" ? ay - h : c.baseline === "middle" ? ay - h / 2 : ay;
  return [left, top, left + w, top + h];
}

export function overlaps(a, b, pad = 1) {
  return a[0] < b[2] + pad && b[0] < a[2] + pad && a[1] < b[3] + pad && b[1] < a[3] + pad;
}

// Greedy placement: each label, in order, takes its first candidate position whose box stays
// inside the frame, overlaps no point and no label placed before it, and crosses no line of
// points.lines (nor, for a point's name, of points.opLines: the ridge) where it can (else the
// first free place across a line); a label with no free place is left out (shown: false). Boxes are returned so tests can check them. `taken`: boxes already placed
// (a measurement overlay is laid out around the scene's own labels this way).
// `widthOf(label)`: the label's text width in px; by default the canvas's measure in a
// browser (what the live plot draws) and the estimate elsewhere (node, like the Python mirror).
const measuredWidth = (l) => textWidth(l.text, l.size, l.style);

export function layoutLabels(labels, xr, yr, w, h, points = { x: [], y: [] }, taken = [],
                             widthOf = measuredWidth) {
  const placed = taken.concat(points.x.map((x, i) => {
    const [px, py] = toPx(x, points.y[i], xr, yr, w, h);
    return [px - POINT_R, py - POINT_R, px + POINT_R, py + POINT_R];
  }));
  // Lines a label must not cross (points.lines: every label; points.opLines: a point's name).
  const lines = segmentsOf(points.lines, xr, yr, w, h);
  const opLines = segmentsOf(points.opLines, xr, yr, w, h);
  return labels.map(({ at, ...l }) => {
    const [sx, sy] = toPx(l.x, l.y, xr, yr, w, h);
    const width = widthOf ? widthOf(l) : undefined;
    const avoid = namesPoint(l) ? lines.concat(opLines) : lines;
    // Lines are a preference among the first CLEAR_OF_LINES places (a name moved rows away
    // to dodge a line lands on the next one's spot): else the first free place at all.
    const near = at.slice(0, namesPoint(l) ? CLEAR_OF_LINES + 2 : CLEAR_OF_LINES);
    for (const [clear, cands] of [[avoid, near], [[], at]]) {
      for (const c of cands) {
        const box = labelBox(l.text, l.size, sx, sy, c, width);
        const inside = box[0] >= 0 && box[1] >= 0 && box[2] <= w && box[3] <= h;
        if (inside && !placed.some((b) => overlaps(b, box)) && !clear.some((g) => crosses(g, box))) {
          placed.push(box);
          return { ...l, ...c, box, shown: true };
        }
      }
    }
    return { ...l, ...at[0], box: null, shown: false };
  });
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

// 4 (a point's name: 6, the first row of its places, centred ones included)
export const CLEAR_OF_LINES = 4;

// Polylines [[xs, ys], ...] in data coordinates as px segments [x0, y0, x1, y1].
function segmentsOf(lines, xr, yr, w, h) {
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

// A label that names a point (an op's: keys op-, proj-, measured-op-) and sits farther than
// LEADER_PX from it gets a leader line, from the point's edge to the nearest point of its box:
// rows of crowded names can land 20-80 px away, and a reader must see which point is whose.
export const LEADER_PX = 12;
export const namesPoint = (l) => /^(op|proj|measured-op)-/.test(l.key);

// The leader lines of placed labels as columns {x0, y0, x1, y1} in data coordinates (a Bokeh
// Segment draws them; the static SVG converts back to px).
export function leaderLines(placed, xr, yr, w, h) {
  const out = { x0: [], y0: [], x1: [], y1: [] };
  for (const l of placed) {
    if (!l.shown || !namesPoint(l)) continue;
    const [px, py] = toPx(l.x, l.y, xr, yr, w, h);
    const b = l.box;
    const qx = Math.min(Math.max(px, b[0]), b[2]);
    const qy = Math.min(Math.max(py, b[1]), b[3]);
    const d = Math.hypot(qx - px, qy - py);
    if (d <= LEADER_PX) continue;
    const k = (POINT_R + 1) / d;
    const a = fromPx(px + (qx - px) * k, py + (qy - py) * k, xr, yr, w, h);
    const z = fromPx(qx, qy, xr, yr, w, h);
    out.x0.push(a[0]); out.y0.push(a[1]); out.x1.push(z[0]); out.y1.push(z[1]);
  }
  return out;
}
