// The budget widget's pure half: it adds the overheads the roofline cannot see to one
// precomputed budget, with the arithmetic of roofline.budget.waterfall_terms and
// roofline.memory, and words the result. Checked by `node --test tests/js/budget.test.mjs`
// against tests/cases/budget_cases.json, which pytest checks against the Python model.
// budget.mjs (the callback) imports it; plot/budget.py bundles the two for BokehJS.

import { capacity, num, percent, seconds } from "../../render/js/format.mjs";

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

// The room (in % of peak, of the axis's 0–119) a "−22.7 pt" label needs in a phone's
// ~240 px frame; a label given less would be cut by the frame (the layout gate's live check).
// The axis ends at 119 (budget_widget.WATERFALL_END): room for the peak row's "100%".
export const WATERFALL_LABEL_ROOM = 28;
const WATERFALL_END = 119;

// [x, align, dx] of a waterfall row's label.
export function waterfallLabelAt(drop, lo, hi) {
  if (!drop) return [hi, "left", 4];
  if (lo >= WATERFALL_LABEL_ROOM) return [lo, "right", -4];
  if (WATERFALL_END - hi >= WATERFALL_LABEL_ROOM) return [hi, "left", 4];
  return [(lo + hi) / 2, "center", 0];
}

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
    // A drop's label sits left of it, or right where the left has no room for it on a phone
    // (WATERFALL_LABEL_ROOM), or inside a bar too wide for either; a level's right of its bar.
    const [tx, align, dx] = waterfallLabelAt(color === COLORS.loss, lo, hi);
    out.tx.push(tx);
    out.align.push(align);
    out.dx.push(dx);
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
