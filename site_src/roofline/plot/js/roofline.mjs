// The roofline widget's one callback (CustomJS.from_file) and the pure helpers it uses.
// The named exports mirror roofline.maths / roofline.fmt / roofline.plot.widget and are checked
// by `node --test tests/js/` against tests/cases/roofline_cases.json, which pytest checks
// against the Python side. No Bokeh global, no imports: BokehJS runs this file as a blob module.

export const AI_MIN = 0.01;
export const AI_MAX = 10000;

// ---------------------------------------------------------------- roofline maths (SI units)

export function ridge(peak, bw) { return peak / bw; }

export function attainable(ai, peak, bw) { return Math.min(peak, ai * bw); }

export function timeLowerBound(flops, bytes, peak, bw) {
  return Math.max(flops / peak, bytes / bw);
}

export function bound(ai, ridgeAI) { return ai < ridgeAI ? "memory" : "compute"; }

export function place(cost, peak, bw) {
  const [flops, bytes] = cost;
  const ai = flops / bytes;
  const att = attainable(ai, peak, bw);
  return { ai, attainable: att, fraction: att / peak,
           time: timeLowerBound(flops, bytes, peak, bw), bound: bound(ai, ridge(peak, bw)) };
}

export function roofXY(peak, bw, x0, x1) {
  const r = peak / bw;
  if (r <= x0) return { x: [x0, x1], y: [peak / 1e12, peak / 1e12] };
  if (r >= x1) return { x: [x0, x1], y: [x0 * bw / 1e12, x1 * bw / 1e12] };
  return { x: [x0, r, x1], y: [x0 * bw / 1e12, peak / 1e12, peak / 1e12] };
}

// Labels for the op points (as roofline.plot.widget.point_labels): ops within ×1.1 share one
// label, neighbouring groups (within ×2.5) step down a row, right-aligned near the right edge;
// each label takes the y of its stack's first point (anchor) so rows never cross.
export function pointLabels(ids, ais, xMax) {
  const order = ais.map((a, i) => i).sort((i, j) => (ais[i] - ais[j]) || (i - j));
  const groups = [];
  for (const i of order) {
    const last = groups[groups.length - 1];
    if (last && ais[i] <= ais[last[0]] * 1.1) last.push(i);
    else groups.push([i]);
  }
  const out = { x: [], text: [], dy: [], dx: [], align: [], anchor: [] };
  let anchor = null;
  let level = 0;
  for (const g of groups) {
    const ai = ais[g[0]];
    level = anchor !== null && ai < ais[anchor] * 2.5 ? level + 1 : 0;
    if (level === 0) anchor = g[0];
    const right = ai > xMax / 30;
    out.x.push(ai);
    out.anchor.push(anchor);
    out.text.push(g.map((i) => ids[i]).join(", "));
    out.dy.push(-12 - 13 * level);
    out.dx.push(right ? -7 : 7);
    out.align.push(right ? "right" : "left");
  }
  return out;
}

// ---------------------------------------------------------------- formatting (as roofline.fmt)

// Python's round() (behind roofline.fmt.sig) sends exact ties to the even digit: round(1365, -1)
// is 1360, where toPrecision gives 1370. Spot the tie in the exact decimal expansion.
export function sig(x, digits = 3) {
  if (x === 0 || !Number.isFinite(x)) return x;
  const [mantissa, exponent] = Math.abs(x).toExponential(Math.min(100, digits + 24)).split("e");
  const ds = mantissa.replace(".", "");
  if (ds[digits] === "5" && /^0*$/.test(ds.slice(digits + 1)) && Number(ds[digits - 1]) % 2 === 0) {
    const down = Number(`${ds[0]}.${ds.slice(1, digits)}e${exponent}`);
    return x < 0 ? -down : down;
  }
  return Number(x.toPrecision(digits));
}

function group(text) {
  const neg = text.startsWith("-");
  const body = neg ? text.slice(1) : text;
  const [int, frac] = body.split(".");
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return (neg ? "-" : "") + grouped + (frac !== undefined ? "." + frac : "");
}

export function num(x, digits = 3) {
  if (!Number.isFinite(x)) return x > 0 ? "∞" : "—";
  const v = sig(x, digits);
  if (Math.abs(v) >= 10 ** (digits - 1) || Number.isInteger(v)) return group(v.toFixed(0));
  const decimals = Math.max(0, digits - 1 - Math.floor(Math.log10(Math.abs(v))));
  let s = group(v.toFixed(decimals));
  if (s.includes(".")) s = s.replace(/0+$/, "").replace(/\.$/, "");
  return s;
}

const PREFIXES = [[1e15, "P"], [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"], [1, ""]];

export function si(x, unit, digits = 3) {
  if (x === 0) return `0 ${unit}`;
  for (const [scale, prefix] of PREFIXES) {
    if (Math.abs(x) >= scale) return `${num(x / scale, digits)} ${prefix}${unit}`;
  }
  return `${num(x, digits)} ${unit}`;
}

export function tflops(x, digits = 3) { return `${num(x / 1e12, digits)} TFLOP/s`; }

export function bandwidth(x, digits = 3) { return si(x, "B/s", digits); }

export function percent(fraction, digits = 2) {
  const p = fraction * 100;
  if (p >= 99.95) return "100%";
  return `${num(p, digits)}%`;
}

export function seconds(x, digits = 3) {
  for (const [scale, unit] of [[1, "s"], [1e-3, "ms"], [1e-6, "µs"], [1e-9, "ns"]]) {
    if (x >= scale) return `${num(x / scale, digits)} ${unit}`;
  }
  return `${num(x / 1e-9, digits)} ns`;
}

// ---------------------------------------------------------------- the texts a reader sees

export function readoutText(hw, precision, ai, op, ops) {
  const peak = hw.peaks[precision];
  const att = attainable(ai, peak, hw.bw);
  let text = `AI ${num(ai)} FLOP/byte · best ${tflops(att)} · ` +
             `${percent(att / peak)} of the ${tflops(peak)} peak`;
  if (op !== null && op !== undefined) {
    const t = place(ops[op].cost[precision], peak, hw.bw).time;
    text += ` · ${op} takes ≥ ${seconds(t)}`;
  }
  return text;
}

export function verdictText(hw, precision, ai) {
  const r = hw.peaks[precision] / hw.bw;
  const units = hw.units[precision] === "tensor" ? "tensor cores" : "ALUs";
  if (ai < r) {
    return ["memory", `Memory-bound — the ${units} idle (ridge at ${num(r)} FLOP/byte)`];
  }
  return ["compute", `Compute-bound — at the roof (ridge at ${num(r)} FLOP/byte)`];
}

// ---------------------------------------------------------------- URL state (untrusted input)

// A finite, positive AI clamped into the slider's range; anything else is null (ignored).
export function clampAI(value) {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value <= 0) return null;
    return Math.min(AI_MAX, Math.max(AI_MIN, value));
  }
  if (typeof value !== "string" || !/^\s*[0-9]*\.?[0-9]+([eE][+-]?[0-9]+)?\s*$/.test(value)) {
    return null;
  }
  return clampAI(Number(value));
}

function params(text) {
  const out = {};
  const body = String(text || "").replace(/^[?#]/, "");
  for (const part of body.split("&")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    let key;
    let value;
    try {
      key = decodeURIComponent(part.slice(0, eq).replace(/\+/g, " "));
      value = decodeURIComponent(part.slice(eq + 1).replace(/\+/g, " "));
    } catch (e) {
      continue; // malformed escapes: ignore that pair
    }
    out[key] = value;
  }
  return out;
}

// State from ?query and #hash (the hash wins); only known ids and a sane AI survive.
// known = {hardware: [...ids], precision: [...ids], op: [...ids]}.
export function parseState(search, hash, known) {
  const raw = Object.assign(params(search), params(hash));
  const state = {};
  for (const key of ["hardware", "precision", "op"]) {
    const v = raw[key];
    if (typeof v === "string" && known[key].includes(v)) state[key] = v;
  }
  if (raw.op === "custom") state.op = "custom";
  const ai = clampAI(raw.ai);
  if (ai !== null) state.ai = ai;
  return state;
}

// The query string for a state, keeping unrelated parameters of the page's own URL.
export function stateQuery(search, state) {
  const keep = Object.entries(params(search))
    .filter(([k]) => !["hardware", "precision", "ai", "op"].includes(k));
  const pairs = keep.concat([["hardware", state.hardware], ["precision", state.precision],
                             ["ai", String(sig(state.ai, 4))]]);
  if (state.op && state.op !== "custom") pairs.push(["op", state.op]);
  return "?" + pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join("&");
}

// ---------------------------------------------------------------- drawing

function yRange(hw, prec, P) {
  const x0 = P.x[0];
  const bws = [hw.bw];
  for (const [kind, t] of Object.entries(hw.tiers)) if (P.ceilings.includes(kind)) bws.push(t.bw);
  let top = hw.peaks[prec];
  if (hw.vector) top = Math.max(top, hw.vector.peak);
  return [x0 * Math.min(...bws) / 1e12 / 2, top * 4 / 1e12];
}

function ceilingData(hw, prec, P) {
  const x0 = P.x[0];
  const peak = hw.peaks[prec];
  const out = { xs: [], ys: [], color: [], lx: [], ly: [], text: [] };
  for (const kind of P.ceilings) {
    const tier = hw.tiers[kind];
    if (kind === "vector" || kind === "hbm" || !tier) continue;
    const xEnd = Math.max(peak / tier.bw, x0 * 1.0001);
    out.xs.push([x0, xEnd]);
    out.ys.push([x0 * tier.bw / 1e12, xEnd * tier.bw / 1e12]);
    out.color.push(P.colors[kind]);
    out.lx.push(x0 * 1.3);
    out.ly.push(x0 * 1.3 * tier.bw / 1e12);
    out.text.push(`${P.names[kind]} ${bandwidth(tier.bw)}`);
  }
  return out;
}

const sameAI = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));

let urlTimer = null;

function writeURL(state) {
  if (typeof window === "undefined" || !window.history) return;
  clearTimeout(urlTimer);
  urlTimer = setTimeout(() => {
    const url = stateQuery(window.location.search, state) + window.location.hash;
    try {
      window.history.replaceState(window.history.state, "", url);
    } catch (e) {
      // Some file:// setups refuse history changes; the view still works, it just isn't shared.
    }
  }, 200);
}

// What was last drawn, per figure: a slider move redraws only the marker and texts.
const drawn = new WeakMap();

function restoreFromURL(args) {
  const { payload: P, slider, hardware, precision, presets } = args;
  const known = { hardware: Object.keys(P.hardware), precision: Object.keys(P.precisions),
                  op: Object.keys(P.ops) };
  const st = parseState(window.location.search, window.location.hash, known);
  // Each assignment fires this callback again as a change, which redraws what it needs.
  if (st.hardware) hardware.value = st.hardware;
  if (st.precision && P.hardware[hardware.value].peaks[st.precision] !== undefined) {
    precision.value = st.precision;
  }
  if (st.op) presets.value = st.op;
  if (st.ai !== undefined && (st.op === undefined || st.op === "custom")) {
    slider.value = Math.log10(st.ai);
  }
}

function drawScene(args, hw, prec) {
  const P = args.payload;
  const peak = hw.peaks[prec];
  const bw = hw.bw;
  const r = peak / bw;
  const [x0, x1] = P.x;
  const roof = roofXY(peak, bw, x0, x1);
  args.roof.data = { x: roof.x, y: roof.y };
  args.roof_labels.data = {
    x: [x1, x0 * 1.3], y: [peak / 1e12, x0 * 1.3 * bw / 1e12],
    text: [`${prec.toUpperCase()} roof ${tflops(peak)}`, `${hw.hbm} ${bandwidth(bw)}`],
    align: ["right", "left"], baseline: ["bottom", "top"], dy: [5, -5],
  };
  const [y0, y1] = yRange(hw, prec, P);
  args.fig.y_range.setv({ start: y0, end: y1 });
  args.memory.right = r;
  args.ridge.location = r;
  args.ridge_label.setv({ x: r, y: y0, text: `ridge ${num(r)} FLOP/byte` });
  const reg = { x: [], text: [], align: [], dx: [] };
  if (r > x0 * 8) {
    reg.x.push(r);
    reg.text.push("memory-bound");
    reg.align.push("right");
    reg.dx.push(-6);
  }
  reg.y = reg.x.map(() => y1 / 1.6);
  args.regions.data = reg;
  args.ceilings.data = ceilingData(hw, prec, P);

  const v = hw.vector;
  if (v) {
    const vr = roofXY(v.peak, bw, x0, x1);
    args.vector_src.data = { x: vr.x, y: vr.y };
    args.vector_label_src.data = { x: [x1], y: [v.peak / 1e12],
                                   text: [`${v.label} vector roof ${tflops(v.peak)}`] };
  } else {
    args.vector_src.data = { x: [], y: [] };
    args.vector_label_src.data = { x: [], y: [], text: [] };
  }
  args.vector.disabled = !v;
  args.vector.label = v ? `Show the ${v.label} vector roof` : "No vector roof listed for this chip";
  args.vector_line.visible = !!v && args.vector.active;
  args.vector_label.visible = !!v && args.vector.active;

  const ids = Object.keys(P.ops);
  const placed = ids.map((i) => place(P.ops[i].cost[prec], peak, bw));
  const ys = placed.map((p) => p.attainable / 1e12);
  args.points.data = { x: placed.map((p) => p.ai), y: ys, op: ids };
  const labels = pointLabels(ids, placed.map((p) => p.ai), x1);
  args.point_labels.data = { x: labels.x, y: labels.anchor.map((i) => ys[i]), text: labels.text,
                             dy: labels.dy, dx: labels.dx, align: labels.align };
}

function setIfChanged(model, prop, value) {
  const now = model[prop];
  const same = Array.isArray(value) ? JSON.stringify(now) === JSON.stringify(value) : now === value;
  if (!same) model[prop] = value;
}

export default function (args, obj) {
  const { payload: P, slider, hardware, precision, presets } = args;
  const user = [slider, hardware, precision, presets, args.vector].includes(obj);
  if (!user) {
    // document_ready: Python drew the initial view; only a shared URL can change it.
    if (P.url && typeof window !== "undefined") restoreFromURL(args);
    return;
  }

  const hw = P.hardware[hardware.value];
  // The precision list follows the chip; keep the choice if this chip has it, else bf16 or first.
  setIfChanged(precision, "options", hw.precisions.map((p) => [p, P.precisions[p].label]));
  if (hw.peaks[precision.value] === undefined) {
    precision.value = hw.peaks.bf16 !== undefined ? "bf16" : hw.precisions[0];
  }
  const prec = precision.value;
  const peak = hw.peaks[prec];
  const bw = hw.bw;
  const op = presets.value !== "custom" && P.ops[presets.value] ? presets.value : null;

  // A preset pins the AI to its op's; moving the slider away from it leaves the preset.
  if (op !== null) {
    const opAI = place(P.ops[op].cost[prec], peak, bw).ai;
    const want = Math.log10(Math.min(AI_MAX, Math.max(AI_MIN, opAI)));
    if (obj === slider && !sameAI(slider.value, want)) {
      presets.value = "custom";
      return;
    }
    if (!sameAI(slider.value, want)) slider.value = want;
  }

  const scene = `${hardware.value}|${prec}|${args.vector.active}`;
  if (drawn.get(args.fig) !== scene) {
    drawScene(args, hw, prec);
    drawn.set(args.fig, scene);
  }

  const ai = 10 ** slider.value;
  const [b, verdict] = verdictText(hw, prec, ai);
  args.marker.data = { x: [ai], y: [attainable(ai, peak, bw) / 1e12],
                       color: [b === "memory" ? "#d1352b" : "#2e9e48"] };
  args.ai_line.location = ai;
  setIfChanged(args.readout, "text", readoutText(hw, prec, ai, op, P.ops));
  setIfChanged(args.verdict, "text", verdict);
  setIfChanged(args.verdict, "css_classes", [`rl-${b}`]);

  if (P.url) writeURL({ hardware: hardware.value, precision: prec, ai, op: op || "custom" });
}
