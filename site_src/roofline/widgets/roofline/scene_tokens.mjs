// The tokens-per-step slider and the launch ceiling in the roofline widget's scene: the model's
// projection GEMMs and RMSNorm at T tokens per step (costs affine in T, computed in Python by
// widgets/roofline/settings.tokens_ops: the browser only evaluates f0 + f1·T), and the selected
// op's launch ceiling (the payload's launch model, roofline.model's one copy). Pure data:
// scene.mjs, which imports it, lays out the labels.
import { seconds, tflops } from "../../render/js/format.mjs";
import { place } from "../../render/js/maths.mjs";


// [FLOPs, bytes] at `tokens` per step of a tokens op's affine cost [f0, f1, b0, b1]; routed
// experts add [w, E, k]: the weights of all E experts times the share T tokens touch.
export function tokensCost(coeffs, tokens) {
  const [f0, f1, b0, b1, w = 0, e = 1, k = 0] = coeffs;
  return [f0 + f1 * tokens, b0 + b1 * tokens + w * (1 - (1 - k / e) ** tokens)];
}

// The tokens slider's ops (the model's projection GEMMs and RMSNorm) at `tokens` per step,
// shaped like P.ops entries.
export function tokensOps(P, prec, tokens) {
  const out = {};
  if (!P.tokens || !tokens) return out;
  for (const p of P.tokens.ops) {
    out[p.id] = { label: p.label, short: p.label,
                  cost: { [prec]: tokensCost(p.cost[prec], tokens) } };
  }
  return out;
}

// The selected op's [FLOPs, bytes] (a zoo op, or a tokens op at st.tokens); null for none.
export function opCost(P, st) {
  const op = st.op;
  if (!op) return null;
  if (Object.prototype.hasOwnProperty.call(P.ops, op)) return P.ops[op].cost[st.precision];
  const moved = tokensOps(P, st.precision, st.tokens);
  return Object.prototype.hasOwnProperty.call(moved, op) ? moved[op].cost[st.precision] : null;
}

// The FLOP/s the launch allows an op of this cost: its FLOPs over the shortest time a kernel
// can take, the payload's launch time (P.launch.seconds: the launch model's per-kernel floor);
// null without an op or a launch model.
export function launchCeiling(P, cost) {
  return P.launch && cost ? cost[0] / P.launch.seconds : null;
}

// The selected op's place under every ceiling that applies: the roofline's (peak, AI × BW)
// and, for a selected op, its launch ceiling. `best` is the lowest, `bound` the one that binds
// ("overhead" when the launch does), `fraction` best ÷ peak.
export function attainableOf(P, st, ai, peak, bw) {
  const roof = Math.min(peak, ai * bw);
  const launch = launchCeiling(P, opCost(P, st));
  if (launch !== null && launch < roof) {
    return { best: launch, bound: "overhead", fraction: launch / peak, roof, launch };
  }
  return { best: roof, bound: ai < peak / bw ? "memory" : "compute", fraction: roof / peak,
           roof, launch };
}

export function tokensNote(P, st) {
  const t = P.tokens ? st.tokens : null;
  return t ? ` · ${t.toLocaleString("en-US")} token${t === 1 ? "" : "s"} per step` : "";
}

// With a tokens slider, the y range reaches down to half the smallest launch ceiling of its
// ops (at one token), so the ceiling of a batch-1 RMSNorm is on the plot (TFLOP/s).
export function launchBottom(P, prec) {
  if (!P.tokens || !P.launch) return Infinity;
  return Math.min(...P.tokens.ops.map((p) => tokensCost(p.cost[prec], 1)[0])) /
    (P.launch.seconds * 1e12 * 2);
}

// The tokens slider's ops at st.tokens as points {x, y, op, color} (coloured by bound), and
// their texts by id; scene.mjs labels them.
export function tokensPoints(P, st, peak, bw) {
  const ops = tokensOps(P, st.precision, st.tokens);
  const out = { x: [], y: [], op: [], color: [], text: [] };
  for (const [id, op] of Object.entries(ops)) {
    const pl = place(op.cost[st.precision], peak, bw);
    out.x.push(pl.ai);
    out.y.push(pl.attainable / 1e12);
    out.op.push(id);
    out.color.push(P.colors[pl.bound]);
    out.text.push(op.short);
  }
  return out;
}

// The selected op's launch ceiling in TFLOP/s: null unless it lies under the roof and inside
// the frame (then scene.mjs draws it as a flat line).
export function launchY(P, st, peak, yr) {
  const cap = launchCeiling(P, opCost(P, st));
  if (cap === null || !(yr[0] < cap / 1e12 && cap / 1e12 < peak / 1e12)) return null;
  return cap / 1e12;
}

export function launchLabel(P, y) {
  return `launch ceiling: ${seconds(P.launch.seconds)} a kernel, ≤ ${tflops(y * 1e12)}`;
}

// ---------------------------------------------------------------- the widget's tokens control

// The slider holds log2 of the tokens; the widget works in whole tokens.
export function tokensAtSlider(value) { return Math.max(1, Math.round(2 ** Number(value))); }

// The zoo's ops and, with a tokens slider, the tokens ops at `tokens` (the presets' costs).
export function opsWithTokens(P, prec, tokens) {
  return Object.assign({}, P.ops, tokensOps(P, prec, tokens));
}

// `tokens` from the page's #hash or ?query (the hash wins): a whole number from 1 to `max`,
// else null (ignored).
export function parseTokens(search, hash, max) {
  for (const text of [hash, search]) {
    const m = /(?:^|[?#&])tokens=([0-9]{1,8})(?=&|$)/.exec(String(text || ""));
    if (m) {
      const t = Number(m[1]);
      return t >= 1 && t <= max ? t : null;
    }
  }
  return null;
}
