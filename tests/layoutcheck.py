"""The layout gate's checks: each is a JavaScript function run in a loaded page that returns a
list of problems (strings; empty = pass). tests/test_layout_browser.py runs them on every page
of the built site at 1280 px light, 1280 px dark and 412 px, and on small seeded pages that
each hold one defect, to prove every check can fail.

Checks
- hscroll:     the page scrolls sideways.
- clipped:     an element's content is cut by its container (overflow hidden/clip), or a
               scroll box scrolls without a visible cue (a scrollbar that takes space,
               data-scroll-cue, or edge shadows with background-attachment: local), or an
               element outside any scroll box reaches past the viewport.
- punchline:   a priority-1 column of a generated table (.rl-table .rl-p1) is hidden or lies
               outside its table's visible box.
- chart_text:  SVG chart text, or a formula's MathML token (a subscript), renders under 11 px.
- cards:       a generated table shown as cards (a phone) scrolls sideways: a card holds one
               column of values, so a value too wide for it must wrap.
- labels:      two SVG chart labels overlap, or one is cut by its SVG's box.
- live_labels: two labels a live Bokeh plot draws on its canvas overlap, one is cut by the
               plot's frame or crossed by a drawn line (a roof, a slope, the ridge, the AI
               line, a launch or measured roof, another label's leader), or (on a phone) one
               is under 11 px; an axis tick label is cut
               by the canvas or meets a label or another tick, or an axis title is cut; a label naming a point lies
               more than LEADER_FAR_PX from it with no leader line (a Segment from the
               point to its box). The canvas has no DOM text:
               each LabelSet's labels are boxed from BokehJS's own screen positions and
               offsets, each axis's tick labels from its tick coordinates, standoff and
               formatter, and measured with the canvas's measureText in their own font.
- targets:     an interactive control is smaller than 24 × 24 CSS px and a 24 px circle on it
               overlaps another control (WCAG 2.5.8; inline text links are exempt).
- print:       under print media, a generated table hides a column, a static figure is not
               shown, a control is shown, or the page background is not light.
"""

from __future__ import annotations

MIN_TEXT_PX = 11.0
MIN_TARGET_PX = 24.0
# A label farther than this from the point it names needs a leader line (the layout draws one
# from 12 px, labels.mjs LEADER_PX; the gate boxes the glyphs, a little tighter).
LEADER_FAR_PX = 16

_COMMON = r"""
const MAIN = document.querySelector('.md-content') || document.body;
const visible = el => { const s = getComputedStyle(el); const r = el.getBoundingClientRect();
  return s.display !== 'none' && s.visibility !== 'hidden' && r.width > 0 && r.height > 0 &&
    !el.closest('[hidden], details:not([open]) > :not(summary)'); };
const name = el => { let s = el.tagName.toLowerCase(); if (el.id) s += '#' + el.id;
  const c = (el.getAttribute('class') || '').trim().split(/\s+/).filter(Boolean).slice(0, 2);
  if (c.length) s += '.' + c.join('.');
  const t = (el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 40);
  return t ? `${s} "${t}"` : s; };
"""

CHECKS: dict[str, str] = {
    "hscroll": r"""() => {
  const d = document.documentElement;
  return d.scrollWidth > d.clientWidth + 1 ?
    [`page scrolls sideways: ${d.scrollWidth} px of content in ${d.clientWidth} px`] : []; }""",

    "clipped": r"""() => { %s
  const out = [];
  const box = MAIN.querySelector('article') || MAIN;
  const edge = document.documentElement.clientWidth;
  const scroller = el => { for (let a = el.parentElement; a && a !== box; a = a.parentElement)
    if (getComputedStyle(a).overflowX !== 'visible') return a; return null; };
  for (const el of box.querySelectorAll('*')) {
    if (!visible(el) || el.closest('svg, math, .bk-root, .roofline-target, script')) continue;
    if (el.clientWidth <= 1 && el.clientHeight <= 1) continue;  // visually hidden on purpose
    const s = getComputedStyle(el);
    const over = el.scrollWidth > el.clientWidth + 1;
    if (over && (s.overflowX === 'hidden' || s.overflowX === 'clip') && el.clientWidth > 0
        && s.textOverflow !== 'ellipsis') {
      out.push(`clipped: ${name(el)} shows ${el.clientWidth} of ${el.scrollWidth} px`);
    } else if (over && (s.overflowX === 'auto' || s.overflowX === 'scroll')) {
      const bar = el.offsetHeight - el.clientHeight -
        parseFloat(s.borderTopWidth) - parseFloat(s.borderBottomWidth) > 0;
      // A cue: a scrollbar that takes space, or edge shadows that scroll with the content.
      const cue = bar || el.hasAttribute('data-scroll-cue') ||
        /local/.test(s.backgroundAttachment);
      if (!cue) out.push(`scrolls without a cue: ${name(el)} (${el.scrollWidth} > ${el.clientWidth} px)`);
    }
    const r = el.getBoundingClientRect();
    if (r.right > edge + 1 && !scroller(el))
      out.push(`sticks out of the page: ${name(el)} right edge ${Math.round(r.right)} > ${Math.round(edge)}`);
  }
  return [...new Set(out)].slice(0, 20); }""" % _COMMON,

    "punchline": r"""() => { %s
  const out = [];
  for (const t of document.querySelectorAll('.rl-table')) {
    // a table not shown at all (a closed reveal, the answers printed only on paper) hides no
    // column of its own: its columns are judged where it shows
    if (t.closest('details:not([open])') || t.getClientRects().length === 0) continue;
    const box = t.getBoundingClientRect();
    for (const c of t.querySelectorAll('.rl-p1')) {
      const r = c.getBoundingClientRect();
      if (getComputedStyle(c).display === 'none' || r.width === 0)
        out.push(`hidden punchline column "${c.dataset.label || c.textContent.trim()}" in "${t.getAttribute('aria-label')}"`);
      else if (r.left < box.left - 1 || r.right > box.right + 1)
        out.push(`punchline column "${c.dataset.label || c.textContent.trim()}" out of view in "${t.getAttribute('aria-label')}"`);
    }
  }
  return [...new Set(out)]; }""" % _COMMON,

    "chart_text": r"""(minPx) => { %s
  const out = [];
  for (const t of document.querySelectorAll('svg text')) {
    if (!visible(t) || !t.textContent.trim()) continue;
    const svg = t.ownerSVGElement; const m = t.getScreenCTM(); if (!m) continue;
    const px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
    if (px < minPx - 0.05) out.push(`chart text ${px.toFixed(1)} px < ${minPx}: "${t.textContent.trim().slice(0, 30)}"`);
  }
  // Formulas: MathML shrinks each script level (a table's subscripts came out at 9 px).
  for (const t of MAIN.querySelectorAll('math :is(mi, mn, mo, mtext)')) {
    if (!visible(t) || !t.textContent.trim()) continue;
    const px = parseFloat(getComputedStyle(t).fontSize);
    if (px < minPx - 0.05) out.push(`formula text ${px.toFixed(1)} px < ${minPx}: "${t.textContent.trim().slice(0, 30)}"`);
  }
  return [...new Set(out)].slice(0, 20); }""" % _COMMON,

    "cards": r"""() => {
  const out = [];
  for (const t of document.querySelectorAll('.rl-table')) {
    const head = t.querySelector('thead');
    if (!head || t.getClientRects().length === 0 || t.closest('details:not([open])')) continue;
    if (getComputedStyle(head).position !== 'absolute') continue;  // a table, not cards
    if (t.scrollWidth > t.clientWidth + 1)
      out.push(`cards scroll sideways in "${t.getAttribute('aria-label')}": ${t.scrollWidth} px in ${t.clientWidth} px`);
  }
  return out; }""",

    "labels": r"""() => { %s
  const out = [];
  for (const svg of document.querySelectorAll('svg')) {
    if (!visible(svg)) continue;
    const frame = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')].filter(t => visible(t) && t.textContent.trim());
    const boxes = texts.map(t => t.getBoundingClientRect());
    for (let i = 0; i < boxes.length; i++) {
      const a = boxes[i];
      if (a.left < frame.left - 0.5 || a.right > frame.right + 0.5 || a.top < frame.top - 0.5 ||
          a.bottom > frame.bottom + 0.5)
        out.push(`label cut by its chart: "${texts[i].textContent.trim()}"`);
      for (let j = i + 1; j < boxes.length; j++) {
        const b = boxes[j];
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 1 && h > 2) out.push(`labels overlap: "${texts[i].textContent.trim()}" / "${texts[j].textContent.trim()}"`);
      }
    }
  }
  return [...new Set(out)].slice(0, 20); }""" % _COMMON,

    "live_labels": r"""(minPx, farPx = %s) => {
  const out = [];
  const B = window.Bokeh;
  if (!B || !B.index || !B.documents) return out;
  const ctx = document.createElement('canvas').getContext('2d');
  for (const doc of B.documents) {
    for (const m of doc._all_models.values()) {
      if (m.type !== 'Figure' && m.type !== 'Plot') continue;
      const fv = B.index.find_one(m);
      if (!fv || !fv.el || !fv.el.isConnected || !fv.el.getBoundingClientRect().width) continue;
      const f = fv.frame.bbox;
      const boxes = [];
      for (const v of fv.renderer_views.values()) {
        if (v.model.type !== 'LabelSet' || !v.model.visible || !v.sx) continue;
        if ((v.model.tags || []).includes('halo')) continue;  // a label's halo: the label again
        for (let i = 0; i < v.sx.length; i++) {
          const text = String(v.text.get(i) ?? '');
          if (!text.trim() || !isFinite(v.sx[i]) || !isFinite(v.sy[i])) continue;
          v.visuals.text.set_vectorize(ctx, i);
          const px = parseFloat((ctx.font.match(/([\d.]+)px/) || [0, 99])[1]);
          if (px < minPx - 0.05) out.push(`live label ${px} px < ${minPx} in ${m.name}: "${text}"`);
          const t = ctx.measureText(text);
          const x = v.sx[i] + v.x_offset.get(i), y = v.sy[i] - v.y_offset.get(i);
          boxes.push([text, [x - t.actualBoundingBoxLeft, y - t.actualBoundingBoxAscent,
                             x + t.actualBoundingBoxRight, y + t.actualBoundingBoxDescent],
                      [v.sx[i], v.sy[i]]]);
        }
      }
      // A label anchored on a drawn point (Scatter) names it: farther than farPx from it, a
      // Segment must run from the point's edge to the label's box (a leader line).
      const pts = [], segs = [];
      for (const v of fv.renderer_views.values()) {
        const g = v.glyph;
        if (!g || !v.model.visible) continue;
        if (g.model.type === 'Scatter' && g.sx)
          for (let i = 0; i < g.sx.length; i++) pts.push([g.sx[i], g.sy[i]]);
        if (g.model.type === 'Segment' && g.sx0)
          for (let i = 0; i < g.sx0.length; i++) segs.push([g.sx0[i], g.sy0[i], g.sx1[i], g.sy1[i]]);
      }
      const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);
      const toBox = (x, y, p) => Math.hypot(x - clamp(x, p[0], p[2]), y - clamp(y, p[1], p[3]));
      // The drawn lines a label must not be crossed by: every Line and MultiLine glyph (roofs,
      // slopes, ceilings, launch, measured roofs), the Spans (the ridge), the reader's AI line
      // (drawn in the live SVG layer over the canvas) and the leaders (Segments); a label's
      // own leader ends at its box. Sampled every half pixel inside the glyphs' ink.
      const lines = [];
      for (const v of fv.renderer_views.values()) {
        const g = v.glyph;
        if (g && v.model.visible && g.model.type === 'Line' && g.sx)
          for (let i = 1; i < g.sx.length; i++) lines.push(['line', [g.sx[i - 1], g.sy[i - 1], g.sx[i], g.sy[i]]]);
        if (g && v.model.visible && g.model.type === 'MultiLine' && g.sxs) {
          // BokehJS keeps a multi-line's screen coordinates ragged: .get(k) where it has it
          const at = (r, k) => (typeof r.get === 'function' ? r.get(k) : r[k]);
          for (let k = 0; k < g.sxs.length; k++) {
            const xs = at(g.sxs, k), ys = at(g.sys, k);
            for (let i = 1; xs && i < xs.length; i++) lines.push(['line', [xs[i - 1], ys[i - 1], xs[i], ys[i]]]);
          }
        }
        if (g && v.model.visible && g.model.type === 'Segment' && g.sx0)
          for (let i = 0; i < g.sx0.length; i++) lines.push(['leader', [g.sx0[i], g.sy0[i], g.sx1[i], g.sy1[i]]]);
        if (v.model.type === 'Span' && v.model.visible && Number.isFinite(v.model.location)) {
          const x = fv.frame.x_scale.compute(v.model.location);
          if (v.model.dimension === 'height') lines.push(['span', [x, f.top, x, f.bottom]]);
        }
      }
      const cv = fv.canvas_view.el.getBoundingClientRect();
      for (const ln of (fv.canvas_view.overlays_el || fv.el).querySelectorAll('svg.rl-live line')) {
        const r = ln.getBoundingClientRect();
        if (r.height > 0) lines.push(['AI line', [r.left - cv.left, r.top - cv.top, r.left - cv.left, r.bottom - cv.top]]);
      }
      const enters = (g, b) => { const n = Math.max(2, Math.ceil(Math.hypot(g[2] - g[0], g[3] - g[1]) * 2));
        for (let i = 0; i <= n; i++) { const x = g[0] + (g[2] - g[0]) * i / n, y = g[1] + (g[3] - g[1]) * i / n;
          if (x > b[0] + 0.5 && x < b[2] - 0.5 && y > b[1] + 0.5 && y < b[3] - 0.5) return true; }
        return false; };
      for (const [text, p] of boxes) {
        for (const [what, g] of lines) {
          if (what === 'leader' && (toBox(g[0], g[1], p) <= 2 || toBox(g[2], g[3], p) <= 2)) continue;
          if (enters(g, p)) out.push(`live label crossed by a ${what} in ${m.name}: "${text}"`);
        }
      }
      for (const [text, p, a] of boxes) {
        if (!pts.some(q => Math.hypot(q[0] - a[0], q[1] - a[1]) < 0.5)) continue;
        const d = toBox(a[0], a[1], p);
        if (d <= farPx) continue;
        const tied = segs.some(s => (Math.hypot(s[0] - a[0], s[1] - a[1]) <= 8 && toBox(s[2], s[3], p) <= 3) ||
                                    (Math.hypot(s[2] - a[0], s[3] - a[1]) <= 8 && toBox(s[0], s[1], p) <= 3));
        if (!tied) out.push(`live label ${Math.round(d)} px from its point with no leader line in ${m.name}: "${text}"`);
      }
      // Axis tick labels, boxed where BokehJS draws them: beside the axis rule, past the tick
      // and the standoff, centred on their tick (x) or right of it ending there (y).
      const ticks = [];
      for (const v of fv.renderer_views.values()) {
        if (!/Axis$/.test(v.model.type) || !v.model.visible || !v.tick_coords) continue;
        const side = v.panel.side, d = v.dimension;
        const tc = v.tick_coords;
        const items = v.compute_labels(tc.major[d]).items;
        const [sxs, sys] = v.scoords(tc.major);
        v.visuals.major_label_text.set_value(ctx);
        const off = v.model.major_tick_out + v.model.major_label_standoff;
        items.forEach((item, i) => {
          const text = String(item.text ?? '');
          if (!text.trim()) return;
          const t = ctx.measureText(text);
          const tw = t.width, th = t.actualBoundingBoxAscent + t.actualBoundingBoxDescent;
          let b;
          if (side === 'below') b = [sxs[i] - tw / 2, sys[i] + off, sxs[i] + tw / 2, sys[i] + off + th];
          else if (side === 'above') b = [sxs[i] - tw / 2, sys[i] - off - th, sxs[i] + tw / 2, sys[i] - off];
          else if (side === 'left') b = [sxs[i] - off - tw, sys[i] - th / 2, sxs[i] - off, sys[i] + th / 2];
          else b = [sxs[i] + off, sys[i] - th / 2, sxs[i] + off + tw, sys[i] + th / 2];
          ticks.push([`${d ? 'y' : 'x'} tick ${text}`, b]);
        });
        // The axis title, centred on the frame along its axis: cut by the canvas at its ends?
        const title = v.model.axis_label, c = fv.canvas_view.bbox;
        if (typeof title === 'string' && title.trim()) {
          v.visuals.axis_label_text.set_value(ctx);
          const tw = ctx.measureText(title).width;
          const mid = d ? (f.top + f.bottom) / 2 : (f.left + f.right) / 2;
          const [lo, hi] = d ? [c.top, c.bottom] : [c.left, c.right];
          if (mid - tw / 2 < lo - 0.5 || mid + tw / 2 > hi + 0.5)
            out.push(`live axis title cut by its canvas in ${m.name}: "${title}" (${Math.round(mid - tw / 2)}..${Math.round(mid + tw / 2)} of ${Math.round(lo)}..${Math.round(hi)} px)`);
        }
      }
      const c = fv.canvas_view.bbox;  // the plot's own canvas (fv.bbox is in its layout)
      for (let i = 0; i < ticks.length; i++) {
        const [a, p] = ticks[i];
        if (p[0] < c.left - 0.5 || p[2] > c.right + 0.5 || p[1] < c.top - 0.5 || p[3] > c.bottom + 0.5)
          out.push(`live ${a} cut by its canvas in ${m.name} (${Math.round(p[0])}..${Math.round(p[2])} of ${Math.round(c.left)}..${Math.round(c.right)} px)`);
      }
      // Our labels apart from each other and inside the frame; ticks apart from ours and from
      // each other (a tick meeting a tick is Bokeh's to thin, but it is still a collision).
      const all = boxes.concat(ticks);
      for (let i = 0; i < all.length; i++) {
        const [a, p] = all[i];  // (our labels' anchors, third, are not needed here)
        if (i < boxes.length && (p[0] < f.left - 0.5 || p[2] > f.right + 0.5 ||
            p[1] < f.top - 0.5 || p[3] > f.bottom + 0.5))
          out.push(`live label cut by its frame in ${m.name}: "${a}"`);
        for (let j = i + 1; j < all.length; j++) {
          const [b, q] = all[j];
          const w = Math.min(p[2], q[2]) - Math.max(p[0], q[0]);
          const h = Math.min(p[3], q[3]) - Math.max(p[1], q[1]);
          if (w > 1 && h > 1) out.push(`live labels overlap in ${m.name}: "${a}" / "${b}"`);
        }
      }
    }
  }
  return [...new Set(out)].slice(0, 30); }""" % LEADER_FAR_PX,

    "targets": r"""(minPx) => { %s
  const sel = 'button, input:not([type=hidden]), select, summary, [role=slider], [role=button], ' +
              '.noUi-handle, ' +
              'a.md-button, .md-header label.md-header__button, .md-header a.md-header__button';
  // Bokeh draws its widgets in open shadow roots: walk into them too.
  const all = [];
  const walk = root => { all.push(...root.querySelectorAll(sel));
    for (const h of root.querySelectorAll('*')) if (h.shadowRoot) walk(h.shadowRoot); };
  walk(document);
  const els = all.filter(visible)
    .filter(el => !el.closest('.md-sidebar--primary, .md-sidebar--secondary, .md-search__inner, .md-dialog'));
  const rects = els.map(el => el.getBoundingClientRect());
  const out = [];
  els.forEach((el, i) => {
    const r = rects[i];
    if (r.width >= minPx - 0.5 && r.height >= minPx - 0.5) return;
    const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
    // WCAG 2.5.8 spacing exception: a 24 px circle on the target meets no other target.
    const crowded = rects.some((o, j) => j !== i && !els[j].contains(el) && !el.contains(els[j]) &&
      (() => { const dx = Math.max(o.left - cx, 0, cx - o.right);
               const dy = Math.max(o.top - cy, 0, cy - o.bottom);
               return Math.hypot(dx, dy) < minPx / 2; })());
    const label = el.closest('label');
    const lr = label && label.getBoundingClientRect();
    const viaLabel = lr && lr.width >= minPx && lr.height >= minPx;
    if (crowded && !viaLabel)
      out.push(`target ${Math.round(r.width)}×${Math.round(r.height)} px, crowded: ${name(el)}`);
    else if (!viaLabel && (r.width < minPx / 2 || r.height < minPx / 2))
      out.push(`target ${Math.round(r.width)}×${Math.round(r.height)} px: ${name(el)}`);
  });
  return [...new Set(out)].slice(0, 20); }""" % _COMMON,

    "print": r"""() => { %s
  const out = [];
  for (const t of document.querySelectorAll('.rl-table')) {
    const ths = [...t.querySelectorAll('thead th')];
    const shown = ths.filter(th => getComputedStyle(th).display !== 'none');
    if (shown.length !== ths.length || getComputedStyle(t.querySelector('thead')).position === 'absolute')
      out.push(`print hides columns of "${t.getAttribute('aria-label')}": ${ths.filter(th => !shown.includes(th)).map(th => th.textContent).join(', ') || 'header'}`);
  }
  for (const f of document.querySelectorAll('figure, .roofline-static')) {
    const svgs = [...f.querySelectorAll('svg, img')];
    if (svgs.length && !svgs.some(s => s.getBoundingClientRect().width > 0))
      out.push(`print shows no drawing of ${name(f)}`);
  }
  for (const c of document.querySelectorAll('input, select, button, .bk-input-group')) {
    if (c.closest('.md-header, .md-sidebar, .md-search, .md-dialog, .md-footer')) continue;
    const r = c.getBoundingClientRect();
    if (getComputedStyle(c).display !== 'none' && r.width > 0) out.push(`control printed: ${name(c)}`);
  }
  const bg = getComputedStyle(document.body).backgroundColor.match(/[\d.]+/g).map(Number);
  if (bg.length >= 3 && (bg.length < 4 || bg[3] > 0) && (bg[0] + bg[1] + bg[2]) / 3 < 200)
    out.push(`print background is dark: rgb(${bg.slice(0, 3).join(', ')})`);
  return out; }""" % _COMMON,
}

SCREEN_CHECKS = ("hscroll", "clipped", "punchline", "chart_text", "cards", "labels",
                 "live_labels", "targets")


def run(page, check: str, *, phone: bool = True) -> list[str]:
    """Run one named check in a Playwright page; a list of problems, empty when it passes.
    `phone`: hold live chart text to MIN_TEXT_PX too (the size rule is a phone's)."""
    js = CHECKS[check]
    if check == "chart_text":
        return page.evaluate(js, MIN_TEXT_PX)
    if check == "live_labels":
        return page.evaluate(js, MIN_TEXT_PX if phone else 0)
    if check == "targets":
        return page.evaluate(js, MIN_TARGET_PX)
    return page.evaluate(js)


def run_print(page) -> list[str]:
    """The print check under print-media emulation (the page is put back to screen after)."""
    page.emulate_media(media="print")
    try:
        return run(page, "print")
    finally:
        page.emulate_media(media="screen")
