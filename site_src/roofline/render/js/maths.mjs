// The roofline maths in SI units, mirroring roofline.maths: the scene (scene.mjs,
// scene_tokens.mjs) and the callback (roofline.mjs) import it; roofline.render.jsmodule.bundle()
// inlines it for BokehJS. Checked by tests/js/roofline.test.mjs against roofline_cases.json.

export function ridge(peak, bw) { return peak / bw; }

export function attainable(ai, peak, bw) { return Math.min(peak, ai * bw); }

export function timeLowerBound(flops, bytes, peak, bw) {
  return Math.max(flops / peak, bytes / bw);
}

// The share of a mixture of experts' E routed experts that T tokens touch, each token routed
// to k of them uniformly: 1 − (1 − k/E)^T (roofline.model.moe.MoE.expected_experts ÷ E).
export function expertsTouched(experts, topK, tokens) {
  return 1 - (1 - topK / experts) ** tokens;
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
