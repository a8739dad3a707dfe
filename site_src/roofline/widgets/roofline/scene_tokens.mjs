// The tokens-per-step slider and the launch in the roofline widget's scene: the model's
// projection GEMMs and RMSNorm at T tokens per step (costs affine in T, computed in Python by
// widgets/roofline/payload.tokens_ops: the browser only evaluates f0 + f1·T), and the
// selected op with its launch (the payload's launch model). Pure data: scene.mjs, which
// imports it, lays out the labels.
import { seconds, tflops } from "../../render/js/format.mjs";
import { expertsTouched, place } from "../../render/js/maths.mjs";


// [FLOPs, bytes] at `tokens` per step of a tokens op's affine cost [f0, f1, b0, b1]; routed
// experts add [w, E, k]: the weights of all E experts times the share T tokens touch.
export function tokensCost(coeffs, tokens) {
  const [f0, f1, b0, b1, w = 0, e = 1, k = 0] = coeffs;
  return [f0 + f1 * tokens, b0 + b1 * tokens + (w ? w * expertsTouched(e, k, tokens) : 0)];
}

// The tokens slider's ops (the model's projection GEMMs and RMSNorm) at `tokens` per step,
// shaped like P.ops entries.
export function tokensOpsAt(P, prec, tokens) {
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
  const moved = tokensOpsAt(P, st.precision, st.tokens);
  return Object.prototype.hasOwnProperty.call(moved, op) ? moved[op].cost[st.precision] : null;
}

// The launch model (P.launch, roofline.model.launch's one copy, in the payload): a gap of
// P.launch.seconds added to every kernel's roofline time, t = max(FLOPs / peak, bytes / BW) +
// t_launch. The selected op's time, and the FLOP/s it can reach in it: FLOPs / t, under both
// the roofline and FLOPs / t_launch.
export function opTime(P, cost, peak, bw) {
  const roof = Math.max(cost[0] / peak, cost[1] / bw);
  return { roof, launch: P.launch ? P.launch.seconds : 0,
           total: roof + (P.launch ? P.launch.seconds : 0) };
}

// The selected op's place, the launch counted: `best` FLOP/s at `ai` (the op's own AI pins
// the slider while it is selected), which limit binds (`bound`: "overhead" when the launch gap
// outlasts the roofline time, else the roofline's), and `fraction` = best ÷ peak. With no op,
// the roofline alone.
export function attainableOf(P, st, ai, peak, bw) {
  const roof = Math.min(peak, ai * bw);
  const roofBound = ai < peak / bw ? "memory" : "compute";
  const cost = opCost(P, st);
  if (!cost || !P.launch) return { best: roof, bound: roofBound, fraction: roof / peak, roof };
  const t = opTime(P, cost, peak, bw);
  const best = cost[0] / t.total;
  return { best, bound: t.launch > t.roof ? "overhead" : roofBound, fraction: best / peak, roof,
           time: t };
}

export function tokensNote(P, st) {
  const t = P.tokens ? st.tokens : null;
  return t ? ` · ${t.toLocaleString("en-US")} token${t === 1 ? "" : "s"} per step` : "";
}

// With a tokens slider, the y range reaches down to half the lowest FLOP/s its ops reach with
// their launch (at one token), so a batch-1 RMSNorm's place is on the plot (TFLOP/s).
export function launchBottom(P, prec) {
  if (!P.tokens || !P.launch) return Infinity;
  return Math.min(...P.tokens.ops.map((p) => tokensCost(p.cost[prec], 1)[0])) /
    (P.launch.seconds * 1e12 * 2);
}

// The tokens slider's ops at st.tokens as points {x, y, op, color} (coloured by bound), and
// their texts by id; scene.mjs labels them.
export function tokensPoints(P, st, peak, bw) {
  const ops = tokensOpsAt(P, st.precision, st.tokens);
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

// Where the selected op's launch binds (overhead-bound), the FLOP/s it reaches with it, in
// TFLOP/s, drawn as a flat line (scene.mjs) the marker sits on; null when the launch does not
// bind or the line would leave the frame.
export function launchY(P, st, peak, bw, yr) {
  const cost = opCost(P, st);
  if (!cost || !P.launch) return null;
  const a = attainableOf(P, st, cost[0] / cost[1], peak, bw);
  if (a.bound !== "overhead" || !(yr[0] < a.best / 1e12 && a.best / 1e12 < peak / 1e12)) return null;
  return a.best / 1e12;
}

export function launchLabel(P, y) {
  return `with its ${seconds(P.launch.seconds)} launch: ≤ ${tflops(y * 1e12)}`;
}

// ---------------------------------------------------------------- the widget's tokens control

// The slider holds log2 of the tokens; the widget works in whole tokens.
export function tokensAtSlider(value) { return Math.max(1, Math.round(2 ** Number(value))); }

// The zoo's ops and, with a tokens slider, the tokens ops at `tokens` (the presets' costs).
export function opsWithTokens(P, prec, tokens) {
  return Object.assign({}, P.ops, tokensOpsAt(P, prec, tokens));
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
