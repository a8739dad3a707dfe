// The one static-chart engine: a chart described as data (log or linear axes, shaded regions,
// polylines, vertical lines, points, labels laid out by labels.mjs) drawn as one inline <svg>
// string. Run at build time (roofline.render.jsengine) for every static figure: the roofline's
// first frame (widgets/roofline/static.mjs), the measurement overlay, the budget's figures and
// the reference pages' charts. Colours are roles ("ink", "muted", "grid", "bg", "frame") drawn
// through CSS custom properties (--rl-ink, ...) with light fallbacks, so a figure follows the
// page's palette on screen and prints light (render/blockstyle.py sets the variables); series
// colours are given as they are. Text uses labels.mjs's FONT_STACK, whose metrics the layout
// used, and every label has a halo: a stroke of the background colour painted under it.
import { num } from "./format.mjs";
import { ABOVE, BELOW, FONT_STACK, LINE_H, layoutLabels, leaderLines, namesPoint, textWidth, toPx } from "./labels.mjs";

// The roles' light colours (the fallbacks of the CSS variables): the page's text, muted text,
// grid, background and frame, and the roofline's series (the widget's palette, settings.py).
const ROLES = { ink: "#1f2328", muted: "#57606a", grid: "#e3e6ea", bg: "#ffffff",
                frame: "#8c959f", roof: "#2f7fd8", memory: "#d1352b", compute: "#2e9e48",
                point: "#7a8290" };

export function color(role) {
  return ROLES[role] ? `var(--rl-${role},${ROLES[role]})` : role;
}

export function esc(text) {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

const f1 = (v) => (Math.round(v * 10) / 10).toFixed(1);

// A title's font size and centre where a drawing is narrow: 13 px, smaller only as far as it
// must to fit the picture (never under 11 px), and moved in from an edge it would pass.
function fitted(body, centre, width, style) {
  const size = Math.max(11, Math.min(13, Math.floor(13 * (width - 8) / textWidth(body, 13, style))));
  const half = textWidth(body, size, style) / 2;
  return [size, Math.max(4 + half, Math.min(width - 4 - half, centre))];
}

// Powers of ten from lo to hi (the ticks and grid of a log axis).
export function decades(lo, hi) {
  const out = [];
  for (let k = Math.ceil(Math.log10(lo) - 1e-9); k <= Math.floor(Math.log10(hi) + 1e-9); k += 1) {
    out.push(10 ** k);
  }
  return out;
}

// Maps data to px of the whole picture for a frame at (left, top) of w × h px.
export function mapper(spec) {
  const [top, , , left] = spec.margin;
  const w = spec.width - spec.margin[1] - left;
  const h = spec.height - top - spec.margin[2];
  const xs = spec.x.log === false
    ? (x) => left + (x - spec.x.range[0]) / (spec.x.range[1] - spec.x.range[0]) * w
    : (x) => left + toPx(x, 1, spec.x.range, [1, 10], w, h)[0];
  const ys = spec.y.log === false
    ? (y) => top + h - (y - spec.y.range[0]) / (spec.y.range[1] - spec.y.range[0]) * h
    : (y) => top + toPx(1, y, [1, 10], spec.y.range, w, h)[1];
  return { w, h, left, top, px: (x, y) => [xs(x), ys(y)], xs, ys };
}

function style(pairs) {
  return Object.entries(pairs).filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `${k}:${v}`).join(";");
}

function text(x, y, body, o = {}) {
  const st = style({ fill: color(o.color || "ink"), "font-size": `${o.size || 11}px`,
                     "font-weight": o.bold ? "bold" : undefined,
                     "font-style": o.italic ? "italic" : undefined,
                     "paint-order": o.halo ? "stroke" : undefined,
                     stroke: o.halo ? color("bg") : undefined,
                     "stroke-width": o.halo ? "3px" : undefined,
                     "stroke-linejoin": o.halo ? "round" : undefined });
  const cls = o.cls ? ` class="${o.cls}"` : "";
  const data = (o.key ? ` data-key="${esc(o.key)}"` : "")
    + (o.mark ? ` data-mark="${o.mark.map(f1).join(" ")}"` : "");
  const anchor = o.anchor && o.anchor !== "start" ? ` text-anchor="${o.anchor}"` : "";
  const tf = o.transform ? ` transform="${o.transform}"` : "";
  return `<text${cls}${data} x="${f1(x)}" y="${f1(y)}"${anchor}${tf} style="${st}">` +
    `${esc(body)}</text>`;
}

// One placed label (labels.mjs: box in frame px) as SVG text on its box's baseline; a point's
// name carries the points it names (`mark`: picture px, x y x y ...) as data-mark, for the
// label gate.
export function labelSvg(lab, left, top, cls, mark = null) {
  const b = lab.box;
  const anchor = lab.align === "right" ? "end" : lab.align === "center" ? "middle" : "start";
  const x = left + (anchor === "end" ? b[2] - 1 : anchor === "middle" ? (b[0] + b[2]) / 2 : b[0]);
  const y = top + b[3] - lab.size * (LINE_H - 1) / 2 - lab.size * 0.2;
  return text(x, y, lab.text, { size: lab.size, color: lab.color, bold: lab.style === "bold",
                                italic: lab.style === "italic", halo: true, anchor, cls,
                                key: lab.key, mark });
}

// The tick labels of an axis, each given its width: a tick whose text would run into the
// previous one's, or off the picture, is skipped (or, at the right end, drawn ending there).
function xTicks(spec, m, ticks, fmt) {
  const out = [];
  let end = -Infinity;
  const bottom = m.top + m.h;
  for (const v of ticks) {
    const x = m.xs(v);
    const half = textWidth(fmt(v), 11) / 2;
    const anchor = x + half > spec.width - 1 ? "end" : "middle";
    const start = anchor === "end" ? x - 2 * half : x - half;
    if (start < end + 4) continue;
    end = anchor === "end" ? x : x + half;
    out.push(text(x, bottom + 17, fmt(v), { anchor, cls: "rl-tick rl-xtick" }));
  }
  return out;
}

// The chart as one <svg> string. spec: {width, height, margin [top, right, bottom, left],
// x/y: {range, log (default true), label, ticks (default: decades), format}, title, cls,
// regions [{x: [a, b], color, opacity}], lines [{x, y, color, width, dash, cls}],
// vlines [{x, color, width, dash, cls}], points [{x, y, r, color, shape, cls, stroke}],
// leaders {x0, y0, x1, y1, color}, labels [placed labels], labelCls}.
export function svgChart(spec) {
  const m = mapper(spec);
  const fmt = (axis) => axis.format || ((v) => num(v, 3));
  // Ticks: values (labelled by the axis's format), or {v, text} pairs labelled as given.
  const tv = (t) => (typeof t === "number" ? t : t.v);
  const tt = (axis) => (t) => (typeof t === "number" ? fmt(axis)(t) : t.text);
  const xt = spec.x.ticks || decades(...spec.x.range);
  const yt = spec.y.ticks || decades(...spec.y.range);
  const fx0 = m.left, fy0 = m.top, fx1 = m.left + m.w, fy1 = m.top + m.h;
  const named = spec.uid
    ? `aria-labelledby="${spec.uid}-t${spec.desc ? ` ${spec.uid}-d` : ""}"`
    : `aria-label="${esc(spec.title || "")}"`;
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" class="${esc(spec.cls || "rl-chart")}" ` +
    `role="img" viewBox="0 0 ${spec.width} ${spec.height}" width="${spec.width}" ` +
    `height="${spec.height}" ${named} ` +
    `data-frame="${[fx0, fy0, m.w, m.h].map(f1).join(" ")}" ` +
    `data-x-range="${spec.x.range.join(" ")}" style="font-family:${FONT_STACK}">`];
  if (spec.uid) {
    out.push(`<title id="${spec.uid}-t">${esc(spec.title || "")}</title>`);
    if (spec.desc) out.push(`<desc id="${spec.uid}-d">${esc(spec.desc)}</desc>`);
  }
  out.push(`<rect width="${spec.width}" height="${spec.height}" style="fill:${color("bg")}"/>`);
  for (const r of spec.regions || []) {
    const a = Math.max(fx0, m.xs(r.x[0])), b = Math.min(fx1, m.xs(r.x[1]));
    out.push(`<rect x="${f1(a)}" y="${f1(fy0)}" width="${f1(b - a)}" height="${f1(m.h)}" ` +
             `style="fill:${color(r.color)};fill-opacity:${r.opacity}"/>`);
  }
  for (const t of xt) {
    const x = m.xs(tv(t));
    out.push(`<line class="rl-grid" x1="${f1(x)}" y1="${f1(fy0)}" x2="${f1(x)}" y2="${f1(fy1)}" ` +
             `style="stroke:${color("grid")}"/>`);
  }
  for (const t of yt) {
    const y = m.ys(tv(t));
    out.push(`<line class="rl-grid" x1="${f1(fx0)}" y1="${f1(y)}" x2="${f1(fx1)}" y2="${f1(y)}" ` +
             `style="stroke:${color("grid")}"/>`);
  }
  out.push(`<rect x="${f1(fx0)}" y="${f1(fy0)}" width="${f1(m.w)}" height="${f1(m.h)}" ` +
           `style="fill:none;stroke:${color("frame")}"/>`);
  out.push(...xTicks(spec, m, xt.map(tv), (v) => tt(spec.x)(xt[xt.map(tv).indexOf(v)])));
  for (const t of yt) {
    out.push(text(fx0 - 7, m.ys(tv(t)) + 4, tt(spec.y)(t), { anchor: "end", cls: "rl-tick" }));
  }
  if (spec.x.label) {
    const [size, cx] = fitted(spec.x.label, (fx0 + fx1) / 2, spec.width, "italic");
    out.push(text(cx, spec.height - 9, spec.x.label,
                  { size, italic: true, anchor: "middle", cls: "rl-axis-label" }));
  }
  if (spec.y.label) {
    out.push(text(0, 0, spec.y.label, { size: 13, italic: true, anchor: "middle",
                                         cls: "rl-axis-label",
                                         transform: `translate(15 ${f1((fy0 + fy1) / 2)}) rotate(-90)` }));
  }
  out.push(`<svg x="${f1(fx0)}" y="${f1(fy0)}" width="${f1(m.w)}" height="${f1(m.h)}" ` +
           `viewBox="${f1(fx0)} ${f1(fy0)} ${f1(m.w)} ${f1(m.h)}" overflow="hidden">`);
  for (const l of spec.lines || []) {
    if (!l.x.length) continue;
    const pts = l.x.map((x, i) => m.px(x, l.y[i]).map(f1).join(",")).join(" ");
    out.push(`<polyline${l.cls ? ` class="${l.cls}"` : ""} points="${pts}" style="${style({
      fill: "none", stroke: color(l.color), "stroke-width": l.width || 2,
      "stroke-dasharray": l.dash })}"/>`);
  }
  for (const l of spec.vlines || []) {
    const x = f1(m.xs(l.x));
    out.push(`<line${l.cls ? ` class="${l.cls}"` : ""} x1="${x}" y1="${f1(fy0)}" x2="${x}" ` +
             `y2="${f1(fy1)}" style="${style({ stroke: color(l.color), "stroke-width": l.width || 1,
                                               "stroke-dasharray": l.dash })}"/>`);
  }
  const ld = spec.leaders;
  for (let i = 0; ld && i < ld.x0.length; i += 1) {
    const [a, b] = m.px(ld.x0[i], ld.y0[i]);
    const [c, d] = m.px(ld.x1[i], ld.y1[i]);
    out.push(`<line class="rl-leader" x1="${f1(a)}" y1="${f1(b)}" x2="${f1(c)}" y2="${f1(d)}" ` +
             `style="stroke:${color(ld.color || "muted")};stroke-width:1"/>`);
  }
  for (const p of spec.points || []) {
    const [cx, cy] = m.px(p.x, p.y);
    const r = p.r || 4;
    const paint = `style="fill:${color(p.color)};stroke:${color(p.stroke || "bg")};` +
      `stroke-width:${p.ring || 1}"`;
    const cls = p.cls ? ` class="${p.cls}"` : "";
    const tip = p.title ? `<title>${esc(p.title)}</title>` : "";
    out.push(p.shape === "diamond"
      ? `<path${cls} d="M${f1(cx)} ${f1(cy - r)}L${f1(cx + r)} ${f1(cy)}L${f1(cx)} ${f1(cy + r)}` +
        `L${f1(cx - r)} ${f1(cy)}Z" ${paint}>${tip}</path>`
      : `<circle${cls} cx="${f1(cx)}" cy="${f1(cy)}" r="${r}" ${paint}>${tip}</circle>`);
  }
  out.push("</svg>");
  for (const lab of spec.labels || []) {
    if (!lab.shown) continue;
    // (a group's label: every point of its group, x y x y ...)
    const mark = lab.mark && namesPoint(lab)
      ? (lab.members || [{ x: lab.mark[0], y: lab.mark[1] }]).flatMap((p) => m.px(p.x, p.y)) : null;
    out.push(labelSvg(lab, m.left, m.top, spec.labelCls || "rl-label", mark));
  }
  out.push("</svg>");
  return out.join("");
}

// ---------------------------------------------------------------- a chart with its labels laid out

// Places for a point's label, nearest first, then rows farther out (tied by a leader).
function pointPlaces() {
  const at = [{ dx: 8, dy: 0, align: "left", baseline: "middle" },
              { dx: -8, dy: 0, align: "right", baseline: "middle" }];
  for (const dy of [6, 19, 32, 45]) {
    at.push(ABOVE(6, dy, "left"), ABOVE(-6, dy, "right"), BELOW(6, dy, "left"),
            BELOW(-6, dy, "right"), ABOVE(0, dy, "center"), BELOW(0, dy, "center"));
  }
  return at;
}

// Places for a line's label: over or under it at each of its points, from its right end back.
function linePlaces(l) {
  const at = [];
  for (let i = l.x.length - 1; i >= 0; i -= 1) {
    for (const dy of [6, 20]) {
      for (const c of [ABOVE(-6, dy, "right"), BELOW(-6, dy, "right")]) {
        at.push({ ...c, ax: l.x[i], ay: l.y[i] });
      }
    }
  }
  return at;
}

// svgChart() for a chart whose point and line labels still need places: spec.lines[].label and
// spec.points[].label are laid out by labels.mjs (off the lines, the points and each other;
// a point's label far from it gets a leader), at spec.font px.
export function drawChart(spec) {
  const m = mapper(spec);
  const size = spec.font || 12;
  const labels = [];
  (spec.lines || []).forEach((l, i) => {
    if (l.label) {
      labels.push({ key: `line-${i}`, x: l.x[l.x.length - 1], y: l.y[l.y.length - 1], size,
                    style: "normal", color: l.labelColor || l.color, text: l.label,
                    at: linePlaces(l) });
    }
  });
  (spec.points || []).forEach((p, i) => {
    if (p.label) {
      labels.push({ key: `op-${i}`, x: p.x, y: p.y, size, style: "normal",
                    color: p.labelColor || "ink", text: p.label, at: pointPlaces() });
    }
  });
  const avoid = { x: (spec.points || []).map((p) => p.x), y: (spec.points || []).map((p) => p.y),
                  lines: (spec.lines || []).map((l) => [l.x, l.y]) };
  const placed = layoutLabels(labels, spec.x.range, spec.y.range, m.w, m.h, avoid);
  return svgChart({ ...spec, labels: placed,
                    leaders: { ...leaderLines(placed, spec.x.range, spec.y.range, m.w, m.h),
                               color: "muted" } });
}

// ---------------------------------------------------------------- horizontal bars

// A chart of horizontal bars on named rows (top to bottom) over a linear x axis: spec {width,
// height, margin, title, cls, rows: [name, ...], x: {range, label, ticks}, bars: [{row, left,
// right, color, opacity, thick}], labels: [{row, x, text, align, dx}]}. Rows are named left of
// the frame; a title sits over it, as Bokeh's figures put theirs.
export function barChart(spec) {
  const [top, , , left] = spec.margin;
  const w = spec.width - spec.margin[1] - left;
  const h = spec.height - top - spec.margin[2];
  const [x0, x1] = spec.x.range;
  const xs = (x) => left + (x - x0) / (x1 - x0) * w;
  const band = h / spec.rows.length;
  const yc = (i) => top + band * (i + 0.5);
  const rowOf = new Map(spec.rows.map((r, i) => [r, i]));
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" class="${esc(spec.cls || "rl-chart")}" ` +
    `role="img" viewBox="0 0 ${spec.width} ${spec.height}" width="${spec.width}" ` +
    `height="${spec.height}" aria-label="${esc(spec.title || "")}" ` +
    `data-frame="${[left, top, w, h].map(f1).join(" ")}" style="font-family:${FONT_STACK}">`,
  `<rect width="${spec.width}" height="${spec.height}" style="fill:${color("bg")}"/>`];
  if (spec.title) {
    // Over the frame, as Bokeh puts it; where the rows' names leave it too little room (a
    // phone's drawing), moved left as far as it needs (fitted).
    const [size, cx] = fitted(spec.title, left + textWidth(spec.title, 13, "bold") / 2,
                              spec.width, "bold");
    out.push(text(cx - textWidth(spec.title, size, "bold") / 2, top - 8, spec.title,
                  { size, bold: true, cls: "rl-title" }));
  }
  for (const v of spec.x.ticks) {
    out.push(`<line class="rl-grid" x1="${f1(xs(v))}" y1="${f1(top)}" x2="${f1(xs(v))}" ` +
             `y2="${f1(top + h)}" style="stroke:${color("grid")}"/>`);
    out.push(text(xs(v), top + h + 17, num(v, 3), { anchor: "middle", cls: "rl-tick" }));
  }
  out.push(`<rect x="${f1(left)}" y="${f1(top)}" width="${f1(w)}" height="${f1(h)}" ` +
           `style="fill:none;stroke:${color("frame")}"/>`);
  spec.rows.forEach((r, i) => out.push(text(left - 7, yc(i) + 4, r, { anchor: "end", cls: "rl-tick" })));
  if (spec.x.label) {
    const [size, cx] = fitted(spec.x.label, left + w / 2, spec.width, "italic");
    out.push(text(cx, spec.height - 9, spec.x.label,
                  { size, italic: true, anchor: "middle", cls: "rl-axis-label" }));
  }
  for (const b of spec.bars) {
    const i = rowOf.get(b.row);
    const th = band * (b.thick || 0.6);
    const a = xs(Math.max(x0, b.left)), z = xs(Math.min(x1, b.right));
    if (!(z > a)) continue;
    out.push(`<rect class="rl-bar" x="${f1(a)}" y="${f1(yc(i) - th / 2)}" width="${f1(z - a)}" ` +
             `height="${f1(th)}" style="fill:${color(b.color)};fill-opacity:${b.opacity ?? 1}` +
             `${b.outline ? `;stroke:${color(b.color)};stroke-opacity:0.5` : ""}"/>`);
  }
  for (const l of spec.labels || []) {
    if (!l.text) continue;
    const anchor = l.align === "right" ? "end" : l.align === "center" ? "middle" : "start";
    out.push(text(xs(l.x) + (l.dx || 0), yc(rowOf.get(l.row)) + 4, l.text,
                  { anchor, halo: true, cls: "rl-label" }));
  }
  out.push("</svg>");
  return out.join("");
}
