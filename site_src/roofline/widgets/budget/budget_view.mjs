// The budget widget's pure half. Python is the one copy of every formula
// (roofline.widgets.budget.payload carries each setting's figures precomputed by the model);
// this file only selects the figures of one setting, sums them, divides by the total, places
// the waterfall's labels (the one copy of that layout rule) and fills the payload's text
// templates. Checked by `node --test tests/js/budget.test.mjs` against
// tests/cases/budget_cases.jsonl, whose expected figures are roofline.model.budget's.
// budget.mjs (the callback) imports it; layout.py bundles the two for BokehJS.

import { capacity, num, percent, seconds } from "../../render/js/format.mjs";

// Active checkbox indices -> index of the precomputed fusion combination (bit i = fusion i).
export function comboIndex(active) {
  let mask = 0;
  for (const i of active) if (Number.isInteger(i) && i >= 0 && i < 4) mask |= 1 << i;
  return mask;
}

// A slider value's position in its knob's table: the nearest of its values (the steps, and
// a chip's measured GEMM efficiency between them); the first for a value that is no number.
export function snapIndex(knob, x) {
  const v = Number(x);
  if (!Number.isFinite(v)) return 0;
  let best = 0;
  knob.values.forEach((y, i) => { if (Math.abs(y - v) < Math.abs(knob.values[best] - v)) best = i; });
  return best;
}

// [degree, stage, recomputation] indices of a setting; an unsharded (inference) step has one
// of each, whatever the disabled controls say.
function shardAt(P, st) {
  if (!P.sharded[st.phase]) return [0, 0, 0];
  return [Math.max(0, P.dp_options.indexOf(st.dp)), Math.max(0, P.zero.indexOf(st.zero)),
          Math.max(0, P.recompute.indexOf(st.recompute))];
}

// The components of roofline.model.waterfall.WATERFALL_TERMS for one setting: the fusion
// set's (per recomputation where they vary) and the sharding's.
export function partsAt(P, e, st) {
  const [dpi, zi, ri] = shardAt(P, st);
  const parts = {};
  for (const [k, v] of Object.entries(e.c)) parts[k] = Array.isArray(v) ? v[ri] : v;
  const shard = P.shard[`${st.model}|${st.phase}`][dpi][zi];
  P.shard_keys.forEach((k, i) => { parts[k] = shard[i]; });
  return parts;
}

// The factors each slider's position gives (the payload's knob tables).
export function sliderFactors(P, st) {
  const out = {};
  for (const [name, knob] of Object.entries(P.knobs)) {
    out[knob.factor] = knob.table[snapIndex(knob, st[name])];
  }
  return out;
}

// WATERFALL_TERMS over the parts: each cause's seconds, a sum of component × factor.
export function causeTimes(P, parts, factors) {
  return P.terms.map(([key, pairs]) => [key, pairs.reduce(
    (s, [c, f]) => s + parts[c] * (f === null ? 1 : factors[f]), 0)]);
}

// The step takes T = ideal + the causes' times; each cause loses t / T of peak.
export function lossLevels(ideal, times) {
  const total = times.reduce((s, [, t]) => s + t, ideal);
  let level = 1;
  return times.map(([key, t]) => {
    const after = level - t / total;
    const out = { key, time: t, before: level, after };
    level = after;
    return out;
  });
}

// Bytes per GPU of one setting: the sharded state, the activations and the KV cache, summed.
export function memoryAt(P, st) {
  const [dpi, zi, ri] = shardAt(P, st);
  const key = `${st.model}|${st.phase}|${st.batch}`;
  const { weights, gradients, optimizer } = P.state[`${st.model}|${st.phase}`][dpi][zi];
  const activations = P.acts[key][st.flash ? 1 : 0][ri];
  const kv = P.kv[key];
  const total = weights + gradients + optimizer + activations + kv;
  return { weights, gradients, optimizer, activations, kv_cache: kv, total, capacity: P.hbm,
           fits: total <= P.hbm, overflow: total > P.hbm ? total - P.hbm : 0,
           fix: P.fix_texts[P.fix[key][st.flash ? 1 : 0][dpi]] };
}

// Everything one setting shows. e: its precomputed entry; st: {model, phase, batch, flash,
// efficiency, launch_us, dp, overlap, zero, recompute}.
export function viewAt(P, e, st) {
  const parts = partsAt(P, e, st);
  const terms = lossLevels(e.ideal, causeTimes(P, parts, sliderFactors(P, st)));
  const step = P.step_parts.reduce((s, k) => s + parts[k], 0);
  const memory = memoryAt(P, st);
  return { parts, terms, step, bound: e.ideal / step, mfu: terms[terms.length - 1].after,
           memory, fits: memory.fits };
}

const FORMATS = { percent: (x) => percent(x, 3), seconds, capacity, num: (x) => num(x, 3),
                  text: String };

// A payload template with its {name:format} fields filled.
export function fillText(template, values) {
  return template.replace(/\{(\w+)(?::(\w+))?\}/g,
                          (_, name, f) => (FORMATS[f] || String)(values[name]));
}

// [x, align, dx] of a waterfall row's label: a drop's left of it, or right where the left has
// no room on a phone, or inside a bar too wide for either; a level's right of it.
export function labelSpot(drop, lo, hi, P) {
  if (!drop) return [hi, "left", 4];
  if (lo >= P.label_room) return [lo, "right", -4];
  if (P.wf_end - hi >= P.label_room) return [hi, "left", 4];
  return [(lo + hi) / 2, "center", 0];
}

// Horizontal waterfall rows in percent: peak, each cause's loss, the final MFU; a step that
// does not fit in memory gets empty bars and says so.
export function barsAt(v, P) {
  const T = P.texts, C = P.bar_colors;
  const terms = Object.fromEntries(v.terms.map((t) => [t.key, t]));
  const out = { row: [], left: [], right: [], color: [], text: [], tx: [], align: [], dx: [] };
  // A step that does not fit: no bars, and across the middle row of the empty frame, how much
  // memory it lacks (the readout says the rest).
  const middle = P.rows[Math.floor(P.rows.length / 2)];
  for (const key of P.rows) {
    let lo = 0, hi = 0, color = C.peak, text = "";
    if (!v.fits) {
      text = key === middle ? fillText(T.bar_misfit, { overflow: v.memory.overflow }) : "";
    } else if (key === "peak") {
      [hi, text] = [100, T.bar_peak];
    } else if (key === "mfu") {
      [hi, color, text] = [v.mfu * 100, C.mfu, fillText(T.bar_mfu, { mfu: v.mfu })];
    } else {
      const t = terms[key];
      [lo, hi, color] = [t.after * 100, t.before * 100, C.loss];
      const drop = hi - lo;
      text = drop ? fillText(T.bar_drop, { drop }) : T.bar_none;
    }
    const [x, align, dx] = v.fits ? labelSpot(color === C.loss, lo, hi, P)
      : [P.wf_end / 2, "center", 0];
    out.row.push(P.labels[key]);
    out.left.push(lo);
    out.right.push(hi);
    out.color.push(color);
    out.text.push(text);
    out.tx.push(x);
    out.align.push(align);
    out.dx.push(dx);
  }
  return out;
}

export function waterfallLines(v, P) {
  const T = P.texts;
  if (!v.fits) return T.wf_misfit;
  return [T.wf_head,
          ...v.terms.map((t) => fillText(T.wf_line, { label: P.labels[t.key],
                                                       drop: (t.before - t.after) * 100,
                                                       time: t.time })),
          fillText(T.wf_foot, { mfu: v.mfu })].join("\n");
}

// The key to the op-class chart's two bar styles (#49: the pale bar had none), a line of the
// readout when the step fits, so the static first frame, the live one and paper all carry it.
export const CLASS_KEY = "Time by op class: the solid bar is the time with the fusions " +
  "ticked, the pale bar behind it the time with none.";

const WF_ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
const wfEscape = (text) => String(text).replace(/[&<>"]/g, (c) => WF_ESCAPES[c]);

// The waterfall's summary as a small table (the page's type, both palettes: layout.py's
// WF_CSS): its head as the caption, a row per cause (its share of step time, and its time),
// the MFU at its foot; a step that does not fit says so in a sentence.
export function waterfallHtml(v, P) {
  const T = P.texts;
  if (!v.fits) return `<p class="rl-wf-none">${wfEscape(T.wf_misfit)}</p>`;
  const rows = v.terms.map((t) => `<tr><th scope="row">${wfEscape(P.labels[t.key])}</th>` +
    `<td>${wfEscape(num(Math.abs(t.before - t.after) * 100, 3))}%</td>` +
    `<td>${wfEscape(seconds(t.time))}</td></tr>`).join("");
  return `<table class="rl-wf"><caption>${wfEscape(T.wf_head)}</caption>` +
    `<thead><tr><th scope="col">Cause</th><th scope="col">Share of step time</th>` +
    `<th scope="col">Time</th></tr></thead><tbody>${rows}</tbody>` +
    `<tfoot><tr><th scope="row" colspan="3">${wfEscape(fillText(T.wf_foot, { mfu: v.mfu }))}` +
    "</th></tr></tfoot></table>";
}

export function readoutAt(P, e, v, st) {
  const m = v.memory;
  const values = { what: P.what[`${st.model}|${st.phase}|${st.batch}`], bound: v.bound,
                   mfu: v.mfu, step: v.step, saved: e.saved, total: m.total, hbm: P.hbm_label,
                   overflow: m.overflow, fix: m.fix };
  return fillText(v.fits ? P.texts.fits : P.texts.misfit, values);
}

// Each op class's time per step (ms) for the bars: the entry's, plus the sharded component a
// class is (the optimizer's), none when the step does not fit.
export function classMs(P, e, parts, fits) {
  return P.classes.map((c, i) => {
    const part = P.class_parts[c] ? parts[P.class_parts[c]] : 0;
    return fits ? (e.classes[i] + part) * 1e3 : 0;
  });
}

// Everything the widget shows for one setting (values: model, phase, batch, active fusion
// indices, efficiency, launch_us, dp, overlap, zero, recompute): the live callback sets it on
// its sources, and the build draws the static first frame from it (static.mjs). null for a
// setting the payload does not hold.
export function frameAt(P, values) {
  const mask = comboIndex(values.active);
  const st = {
    model: values.model, phase: values.phase, batch: values.batch,
    flash: ((mask >> P.fusions.indexOf("flash")) & 1) === 1,
    efficiency: values.efficiency, launch_us: values.launch_us,
    dp: P.dp_options.includes(values.dp) ? values.dp : P.dp_options[0],
    overlap: values.overlap,
    zero: P.zero.includes(values.zero) ? values.zero : 0,
    recompute: P.recompute.includes(values.recompute) ? values.recompute : "none",
  };
  const row = P.combos[`${st.model}|${st.phase}|${st.batch}`];
  if (!row || !P.models[st.model]) return null;
  const e = row[mask];
  const v = viewAt(P, e, st);
  // A step that does not fit in memory shows no time; the pale bar is the unfused time.
  const ms = classMs(P, e, v.parts, v.fits);
  const ghost = classMs(P, row[0], v.parts, v.fits);
  return {
    st, fits: v.fits, bars: barsAt(v, P),
    classes: { cls: P.classes, ms, ghost, color: P.classes.map((c) => P.colors[c]),
               tx: ms.map((x, i) => Math.max(x, ghost[i])),
               text: ms.map((t, i) => (!v.fits ? (i === Math.floor(ms.length / 2)
                 ? P.texts.class_misfit : "") : t ? seconds(t / 1e3) : P.texts.class_none)) },
    points: { x: e.x, y: e.y, text: P.ops, color: P.op_classes.map((c) => P.colors[c]) },
    readout: v.fits ? `${readoutAt(P, e, v, st)}\n${CLASS_KEY}` : readoutAt(P, e, v, st),
    lines: waterfallLines(v, P),
    summary: waterfallHtml(v, P),
  };
}
