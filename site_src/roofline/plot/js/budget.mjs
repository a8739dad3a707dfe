// "Where the 50 % goes": the budget widget's one callback (CustomJS.from_file) and its pure
// helpers. Python (roofline.plot.budget) precomputes every model/phase/batch × fusion set; this
// file only selects one and adds the overheads the roofline cannot see, with the arithmetic of
// roofline.budget.waterfall_terms. The named exports are checked by `node --test tests/js/`
// against tests/cases/budget_cases.json, which pytest checks against the Python model.
// No Bokeh global: plot/budget.py joins format.mjs and this file into the one blob module
// BokehJS runs, dropping the import line below (node reads them as they are).

import { capacity, num, percent, seconds, sig } from "./format.mjs";

// ---------------------------------------------------------------- the budget arithmetic

// Active checkbox indices -> index of the precomputed fusion combination (bit i = fusion i).
export function maskOf(active) {
  let mask = 0;
  for (const i of active) if (Number.isInteger(i) && i >= 0 && i < 4) mask |= 1 << i;
  return mask;
}

// Ring all-reduce of the gradients: 2 (N - 1) / N × gradient bytes / link bandwidth.
export function allreduceTime(params, gradBytesPerElement, dp, linkBw) {
  if (dp <= 1 || !linkBw) return 0;
  return 2 * (dp - 1) / dp * params * gradBytesPerElement / linkBw;
}

// The step takes T = ideal + the causes' times, so MFU = ideal / T; each cause loses t / T of
// peak whatever the order, and the losses add up to 1 - MFU (as roofline.budget).
export function waterfallTerms(ideal, times) {
  const total = times.reduce((s, [, t]) => s + t, ideal);
  let level = 1;
  const out = [];
  for (const [key, t] of times) {
    const after = level - t / total;
    out.push({ key, time: t, before: level, after });
    level = after;
  }
  return out;
}

// Bytes per GPU of one step (as roofline.memory.step_memory): weights, gradients and AdamW
// state (ZeRO shards them over the data-parallel GPUs), activations (Korthikanti et al. 2022:
// s·b·h·(34 + 5·a·s/h) per layer, 34 without the scores, 2 per layer input with full
// recomputation plus one layer alive) and the KV cache.
export function stepMemory(P, model, phase, batch, flash, dp, zero, recompute) {
  const m = P.models[model];
  const M = P.memory;
  const seq = P.seq[phase];
  const acts = (s, scores) => s * batch * m.d * (M.k + (scores ? M.scores * m.heads * s / m.d : 0));
  const kv = (tokens) => 2 * m.layers * m.kv_heads * m.head_dim * tokens * batch * P.b;
  let w = m.params * P.b, g = 0, o = 0, a = 0, c = 0;
  if (phase === "train") {
    const n = Math.max(1, dp);
    w /= zero >= 3 ? n : 1;
    g = m.params * M.grad / (zero >= 2 ? n : 1);
    o = m.params * M.adam / (zero >= 1 ? n : 1);
    if (recompute === "full") a = 2 * seq * batch * m.d * m.layers + acts(seq, !flash);
    else a = acts(seq, !flash && recompute === "none") * m.layers;
  } else if (phase === "prefill") {
    a = acts(seq, !flash);
    c = kv(seq);
  } else {
    a = acts(1, false);
    c = kv(seq);
  }
  const total = w + g + o + a + c;
  return { weights: w, gradients: g, optimizer: o, activations: a, kv_cache: c, total,
           capacity: P.hbm, fits: total <= P.hbm, overflow: Math.max(0, total - P.hbm) };
}

// The numbers one state of the page shows. e: a precomputed entry ({ideal, step, launches,
// roof: [memory, attention, gemm], fwd: [full, selective]}); st: {model, phase, batch, mask,
// efficiency, launch_s, dp, overlap, zero, recompute}.
export function budgetView(P, e, st) {
  const train = st.phase === "train";
  const linkBw = P.link ? P.link.bw : 0;
  const ar = train ? allreduceTime(P.models[st.model].params, P.grad_bytes_per_element, st.dp,
                                   linkBw) : 0;
  const recompute = train ? st.recompute : "none";
  const rec = { none: 0, full: e.fwd[0], selective: e.fwd[1] }[recompute];
  const terms = waterfallTerms(e.ideal, [
    ["memory", e.roof[0]], ["attention", e.roof[1]], ["gemm", e.roof[2]],
    ["efficiency", e.step * (1 / st.efficiency - 1)], ["launch", e.launches * st.launch_s],
    ["communication", (1 - st.overlap) * ar], ["recompute", rec / st.efficiency]]);
  const flash = ((st.mask >> P.fusions.indexOf("flash")) & 1) === 1;
  const mem = (zero, rc) => stepMemory(P, st.model, st.phase, st.batch, flash,
                                       train ? st.dp : 1, zero, rc);
  const memory = mem(train ? st.zero : 0, recompute);
  let fix = null;
  if (!memory.fits && train) {
    search: for (const rc of P.recompute) {
      for (const z of P.zero) {
        if (mem(z, rc).fits) { fix = { zero: z, recompute: rc }; break search; }
      }
    }
  }
  return { terms, bound: e.ideal / e.step, mfu: terms[terms.length - 1].after, allreduce: ar,
           memory, fits: memory.fits, fix };
}

const COLORS = { loss: "#d1352b", mfu: "#2e9e48", peak: "#7a8290" };

// Horizontal waterfall rows in percent: peak, each cause's loss, the final MFU; a step that
// does not fit in memory gets empty bars and says so.
export function waterfallBars(v, rows, labels) {
  const terms = Object.fromEntries(v.terms.map((t) => [t.key, t]));
  const out = { row: [], left: [], right: [], color: [], text: [], tx: [], align: [], dx: [] };
  for (const key of rows) {
    let lo, hi, color, text;
    if (!v.fits) {
      [lo, hi, color, text] = [0, 0, COLORS.peak, key === "mfu" ? "does not fit" : ""];
    } else if (key === "peak") {
      [lo, hi, color, text] = [0, 100, COLORS.peak, "100%"];
    } else if (key === "mfu") {
      [lo, hi, color, text] = [0, v.mfu * 100, COLORS.mfu, percent(v.mfu, 3)];
    } else {
      const t = terms[key];
      [lo, hi, color] = [t.after * 100, t.before * 100, COLORS.loss];
      const drop = (t.before - t.after) * 100;
      text = drop ? `−${num(drop, 3)} pt` : "0 pt";
    }
    out.row.push(labels[key]);
    out.left.push(lo);
    out.right.push(hi);
    out.color.push(color);
    out.text.push(text);
    // A drop's label sits left of it (room there even on a phone); a level's right of its bar.
    const drop = color === COLORS.loss;
    out.tx.push(drop ? lo : hi);
    out.align.push(drop ? "right" : "left");
    out.dx.push(drop ? -4 : 4);
  }
  return out;
}

export function waterfallText(v, labels) {
  if (!v.fits) return "Does not fit in memory: no time budget.";
  const lines = ["From 100% of peak:"];
  for (const t of v.terms) {
    lines.push(`${labels[t.key]}: −${num((t.before - t.after) * 100, 3)} pt (${seconds(t.time)})`);
  }
  lines.push(`MFU estimate: ${percent(v.mfu, 3)}`);
  return lines.join("\n");
}

const RECOMPUTE_WORDS = { none: "no recomputation", selective: "selective recomputation",
                         full: "full recomputation" };

function fixText(v, phase) {
  const m = v.memory;
  if (phase !== "train") {
    if (m.weights > m.capacity) {
      return `The weights alone are ${capacity(m.weights)}: they need tensor parallelism over ` +
        "more GPUs.";
    }
    return `The KV cache is ${capacity(m.kv_cache)}: a smaller batch or a shorter context ` +
      "would fit.";
  }
  if (!v.fix) {
    return "No ZeRO stage or recomputation fits it on these GPUs: it needs more GPUs or model " +
      "parallelism.";
  }
  const words = RECOMPUTE_WORDS[v.fix.recompute];
  return v.fix.zero ? `ZeRO-${v.fix.zero} with ${words} would fit.`
    : `${words[0].toUpperCase()}${words.slice(1)} would fit.`;
}

export function readoutText(P, e, v, model, phase, batch) {
  const m = v.memory;
  const what = `${P.models[model].name}, ${phase}, batch ${batch} × ${P.seq[phase]} on ` +
    `${P.hardware} (${P.precision_label})`;
  if (!v.fits) {
    return `Does not fit: ${what} needs ${capacity(m.total)} per GPU, ` +
      `${capacity(m.overflow)} more than its ${P.hbm_label} of HBM. ${fixText(v, phase)} ` +
      "No time is shown for a step that cannot run.";
  }
  const saved = e.saved.reduce((s, x) => s + x, 0);
  return `${what}: MFU upper bound ${percent(v.bound, 3)}, after overheads ` +
    `${percent(v.mfu, 3)}. Step ${seconds(e.step)} at the roofline; fusions keep ` +
    `${capacity(saved)} off HBM per step. Memory ${capacity(m.total)} per GPU of ${P.hbm_label}.`;
}

// ---------------------------------------------------------------- URL state (untrusted input)

function params(text) {
  const out = {};
  const body = String(text || "").replace(/^[?#]/, "");
  for (const part of body.split("&")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    try {
      out[decodeURIComponent(part.slice(0, eq).replace(/\+/g, " "))] =
        decodeURIComponent(part.slice(eq + 1).replace(/\+/g, " "));
    } catch (e) {
      // a malformed escape: ignore that pair
    }
  }
  return out;
}

// A plain decimal number clamped into [lo, hi]; anything else is null (ignored).
export function clampNumber(value, lo, hi) {
  if (typeof value !== "string" || !/^\s*[0-9]*\.?[0-9]+([eE][+-]?[0-9]+)?\s*$/.test(value)) {
    return null;
  }
  const x = Number(value);
  return Number.isFinite(x) ? Math.min(hi, Math.max(lo, x)) : null;
}

const KEYS = ["model", "phase", "batch", "fuse", "eff", "launch", "dp", "overlap", "zero", "rec"];

// State from ?query and #hash (the hash wins): known ids only, numbers clamped to limits.
// known = {models: [...], phases: [...], batches: {phase: [...]}, fusions: [...], limits}.
export function parseState(search, hash, known) {
  const raw = Object.assign(params(search), params(hash));
  const st = {};
  if (known.models.includes(raw.model)) st.model = raw.model;
  if (known.phases.includes(raw.phase)) st.phase = raw.phase;
  if (typeof raw.batch === "string" && /^[0-9]+$/.test(raw.batch)) st.batch = Number(raw.batch);
  if (typeof raw.fuse === "string") {
    st.fuse = raw.fuse.split(",").filter((f) => known.fusions.includes(f));
  }
  const L = known.limits;
  const eff = clampNumber(raw.eff, L.efficiency[0], L.efficiency[1]);
  if (eff !== null) st.eff = eff;
  const launch = clampNumber(raw.launch, L.launch_us[0], L.launch_us[1]);
  if (launch !== null) st.launch = launch;
  const dp = clampNumber(raw.dp, L.dp[0], L.dp[1]);
  if (dp !== null) st.dp = Math.round(dp);
  const overlap = clampNumber(raw.overlap, L.overlap[0], L.overlap[1]);
  if (overlap !== null) st.overlap = overlap;
  if (["0", "1", "2", "3"].includes(raw.zero)) st.zero = Number(raw.zero);
  if (["none", "selective", "full"].includes(raw.rec)) st.rec = raw.rec;
  return st;
}

// The query string for a state, keeping the page's unrelated parameters.
export function stateQuery(search, st) {
  const keep = Object.entries(params(search)).filter(([k]) => !KEYS.includes(k));
  const pairs = keep.concat([["model", st.model], ["phase", st.phase], ["batch", String(st.batch)],
                             ["fuse", st.fuse.join(",")], ["eff", String(sig(st.eff, 4))],
                             ["launch", String(sig(st.launch, 4))], ["dp", String(st.dp)],
                             ["overlap", String(sig(st.overlap, 4))]]
    .concat(st.zero !== undefined ? [["zero", String(st.zero)], ["rec", st.rec]] : []));
  return "?" + pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join("&");
}

// ---------------------------------------------------------------- the callback

let busy = false;
let urlTimer = null;

function writeURL(st) {
  if (typeof window === "undefined" || !window.history) return;
  clearTimeout(urlTimer);
  urlTimer = setTimeout(() => {
    try {
      window.history.replaceState(window.history.state, "",
                                  stateQuery(window.location.search, st) + window.location.hash);
    } catch (e) {
      // Some file:// setups refuse history changes; the view still works, it just isn't shared.
    }
  }, 200);
}

// The option closest to x on a log scale (the data-parallel degrees are powers of two).
export function nearestOption(options, x) {
  let best = options[0];
  for (const o of options) {
    if (Math.abs(Math.log(o / x)) < Math.abs(Math.log(best / x))) best = o;
  }
  return best;
}

function clampWidget(w, lo, hi, integer) {
  let x = Number(w.value);
  if (!Number.isFinite(x)) x = lo;
  x = Math.min(hi, Math.max(lo, integer ? Math.round(x) : x));
  if (x !== w.value) w.value = x;
  return x;
}

// The page's loader recolours numeric axes for dark mode; the category axes are ours.
function isDark() {
  const scheme = document.body && document.body.getAttribute("data-md-color-scheme");
  if (scheme) return scheme === "slate";
  return !!(window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
}

function themeAxes(axes) {
  const dark = isDark();
  const ink = dark ? "#e2e4e9" : "#1f2328";
  const muted = dark ? "#a4a9b6" : "#57606a";
  for (const ax of axes) {
    ax.setv({ major_label_text_color: ink, axis_line_color: muted, major_tick_line_color: muted });
  }
}

function watchTheme(axes) {
  if (typeof document === "undefined" || !axes || !axes.length) return;
  themeAxes(axes);
  if (document.body && typeof MutationObserver !== "undefined") {
    new MutationObserver(() => themeAxes(axes))
      .observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  }
  if (window.matchMedia) {
    const mq = window.matchMedia("(prefers-color-scheme: dark)");
    if (mq.addEventListener) mq.addEventListener("change", () => themeAxes(axes));
  }
}

export default function (args, obj) {
  if (busy) return; // our own widget updates below re-enter; one pass does everything
  busy = true;
  try {
    update(args, obj);
  } finally {
    busy = false;
  }
}

function update(args, obj) {
  const P = args.payload;
  const { model, phase, batch, fusions, efficiency, launch, dp, overlap, zero, recompute } = args;
  const widgets = [model, phase, batch, fusions, efficiency, launch, dp, overlap, zero, recompute];
  const user = widgets.includes(obj);
  const L = P.limits;

  if (!user && typeof window !== "undefined") watchTheme(args.axes);
  if (!user && P.url && typeof window !== "undefined") {
    const st = parseState(window.location.search, window.location.hash, {
      models: Object.keys(P.models), phases: P.phases, fusions: P.fusions, limits: L });
    if (st.model) model.value = st.model;
    if (st.phase) phase.value = st.phase;
    if (st.batch !== undefined && P.batches[phase.value].includes(st.batch)) {
      batch.value = String(st.batch);
    }
    if (st.fuse) fusions.active = st.fuse.map((f) => P.fusions.indexOf(f));
    if (st.eff !== undefined) efficiency.value = st.eff;
    if (st.launch !== undefined) launch.value = st.launch;
    if (st.dp !== undefined) dp.value = String(nearestOption(P.dp_options, st.dp));
    if (st.overlap !== undefined) overlap.value = st.overlap;
    if (st.zero !== undefined) zero.value = String(st.zero);
    if (st.rec !== undefined) recompute.value = st.rec;
  }

  const ph = P.phases.includes(phase.value) ? phase.value : "train";
  const options = P.batches[ph].map(String);
  if (JSON.stringify(batch.options) !== JSON.stringify(options)) batch.options = options;
  if (!options.includes(batch.value)) batch.value = options[Math.min(1, options.length - 1)];
  batch.title = `Batch (× ${P.seq[ph].toLocaleString("en-US")} tokens)`;
  for (const w of [dp, overlap, zero, recompute]) w.disabled = ph !== "train";

  const mask = maskOf(fusions.active);
  const st = {
    model: model.value, phase: ph, batch: Number(batch.value), mask,
    efficiency: clampWidget(efficiency, L.efficiency[0], L.efficiency[1], false),
    launch_s: clampWidget(launch, L.launch_us[0], L.launch_us[1], false) * 1e-6,
    dp: P.dp_options.includes(Number(dp.value)) ? Number(dp.value) : P.dp_options[0],
    overlap: clampWidget(overlap, L.overlap[0], L.overlap[1], false),
    zero: P.zero.includes(Number(zero.value)) ? Number(zero.value) : 0,
    recompute: P.recompute.includes(recompute.value) ? recompute.value : "none",
  };
  const key = `${model.value}|${ph}|${batch.value}`;
  const row = P.combos[key];
  if (!row || !P.models[model.value]) return;
  const e = row[mask];
  const base = row[0];
  const v = budgetView(P, e, st);

  args.waterfall.data = waterfallBars(v, P.rows, P.labels);
  // A step that does not fit in memory shows no time.
  const ms = e.classes.map((t) => (v.fits ? t * 1e3 : 0));
  const ghost = base.classes.map((t) => (v.fits ? t * 1e3 : 0));
  args.classes.data = {
    cls: P.classes, ms, ghost, color: P.classes.map((c) => P.colors[c]),
    tx: ms.map((x, i) => Math.max(x, ghost[i])),
    text: e.classes.map((t) => (t && v.fits ? seconds(t) : "—")),
  };
  const right = e.x.map((x) => x > P.peak / P.bw);
  args.points.data = {
    x: e.x, y: e.x.map((x) => Math.min(P.peak, x * P.bw) / 1e12), dy: e.dy, text: P.ops,
    color: P.op_classes.map((c) => P.colors[c]),
    align: right.map((r) => (r ? "right" : "left")), dx: right.map((r) => (r ? -7 : 7)),
  };
  // A step that does not fit says so over its empty plots (titles as [does not fit, fits]).
  (args.titles || []).forEach((t, i) => {
    const text = args.title_text[i][v.fits ? 1 : 0];
    if (t.text !== text) t.text = text;
  });
  args.readout.text = readoutText(P, e, v, model.value, ph, batch.value);
  args.wf_text.text = waterfallText(v, P.labels);

  if (user && P.url) {
    writeURL({ model: model.value, phase: ph, batch: Number(batch.value),
               fuse: fusions.active.slice().sort().map((i) => P.fusions[i]),
               eff: st.efficiency, launch: st.launch_s * 1e6, dp: st.dp, overlap: st.overlap,
               zero: st.zero, rec: st.recompute });
  }
}
