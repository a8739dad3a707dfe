// The tokens-per-step slider and the launch floor in the roofline widget's scene: the model's
// projection GEMMs and RMSNorm at T tokens per step (costs affine in T, from
// widgets/roofline.tokens_ops), and the selected op's launch floor, attainable ≤ FLOPs / launch
// time (data/overhead.toml). Mirrors roofline.plot.scene's tokens_cost … _launch, pinned by
// tests/cases/scene_cases.json. Joined into the widget's one module with scene.mjs.
import { num, seconds, tflops } from "./format.mjs";
import { place, timeLowerBound } from "./maths.mjs";
import { ABOVE, BELOW, groupPoints } from "./scene.mjs";


// [FLOPs, bytes] at `tokens` per step of a tokens op's affine cost [f0, f1, b0, b1].
export function tokensCost(coeffs, tokens) {
  const [f0, f1, b0, b1] = coeffs;
  return [f0 + f1 * tokens, b0 + b1 * tokens];
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

// FLOP/s the launch floor allows an op of this cost: FLOPs / launch time.
export function launchCap(P, cost) {
  return P.launch && cost ? cost[0] / P.launch.seconds : null;
}

// The readout's launch clause: only when the launch outlasts both roofline floors.
export function launchNote(P, st, peak, bw) {
  const cost = opCost(P, st);
  if (!cost || !P.launch) return "";
  const t = P.launch.seconds;
  if (t <= timeLowerBound(cost[0], cost[1], peak, bw)) return "";
  return ` · launch floor ${seconds(t)} (${P.launch.basis}) binds: overhead-bound, ` +
    `≤ ${tflops(cost[0] / t)}`;
}

export function tokensNote(P, st) {
  const t = P.tokens ? st.tokens : null;
  return t ? ` · ${num(t, 6)} token${t === 1 ? "" : "s"} per step` : "";
}

// With a tokens slider, the y range reaches down to half the smallest launch cap of its ops
// (at one token), so the floor of a batch-1 RMSNorm is on the plot (TFLOP/s).
export function launchBottom(P, prec) {
  if (!P.tokens || !P.launch) return Infinity;
  return Math.min(...P.tokens.ops.map((p) => tokensCost(p.cost[prec], 1)[0])) /
    (P.launch.seconds * 1e12 * 2);
}

export function tokensPoints(P, st, peak, bw, labels) {
  const ops = tokensOps(P, st.precision, st.tokens);
  const out = { x: [], y: [], op: [], color: [] };
  for (const [id, op] of Object.entries(ops)) {
    const pl = place(op.cost[st.precision], peak, bw);
    out.x.push(pl.ai);
    out.y.push(pl.attainable / 1e12);
    out.op.push(id);
    out.color.push(P.colors[pl.bound]);
  }
  for (const g of groupPoints(out.x)) {
    g.forEach((j, rank) => {
      const at = [];
      for (let row = rank; row < rank + 4; row += 1) {
        const dy = 8 + 14 * row;
        at.push(BELOW(8, dy, "left"), ABOVE(-8, dy, "right"), BELOW(-8, dy, "right"),
                ABOVE(8, dy, "left"));
      }
      labels.push({ key: `proj-${out.op[j]}`, x: out.x[g[0]], y: out.y[g[0]], size: 11,
                    style: "bold", color: P.colors.projection, text: ops[out.op[j]].short, at });
    });
  }
  return out;
}

// The selected op's launch floor: attainable ≤ FLOPs / launch time, a flat line across the
// plot where it lies under the roof and inside the frame.
export function launchLine(P, st, peak, yr, labels) {
  const cap = launchCap(P, opCost(P, st));
  const [x0, x1] = P.x;
  if (cap === null || !(yr[0] < cap / 1e12 && cap / 1e12 < peak / 1e12)) return { x: [], y: [] };
  const y = cap / 1e12;
  labels.push({ key: "launch", x: x1, y, size: 11, style: "normal", color: "ink",
                text: `launch floor ${seconds(P.launch.seconds)} (${P.launch.basis}): ` +
                  `≤ ${tflops(cap)}`,
                at: [BELOW(-4, 4, "right"), ABOVE(-4, 4, "right"), BELOW(-4, 18, "right"),
                     ABOVE(-4, 18, "right")] });
  return { x: [x0, x1], y: [y, y] };
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
