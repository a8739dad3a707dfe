// Tokens per step and the launch floor: the named exports mirror roofline/tokens.py and are
// checked by `node --test tests/js/` against tests/cases/tokens_cases.json, which pytest checks
// against the Python model. Pure functions, SI units, no imports, no DOM.

// A weight matmul reaches the ridge at peak × bytes per weight / (2 × BW) tokens per step.
export function criticalTokens(peak, bw, bytesPerWeight) {
  return (peak * bytesPerWeight) / (2 * bw);
}

// [T × d] · [d × f]: [FLOPs, bytes]; reads d·f weights and T·d inputs, writes T·f outputs.
export function matmulCost(tokens, d, f, bytesPerWeight, bytesPerActivation) {
  return [2 * tokens * d * f, d * f * bytesPerWeight + tokens * (d + f) * bytesPerActivation];
}

export function matmulIntensity(tokens, d, f, bytesPerWeight, bytesPerActivation) {
  const [flops, bytes] = matmulCost(tokens, d, f, bytesPerWeight, bytesPerActivation);
  return flops / bytes;
}

// Counting activations too; Infinity when no batch reaches the ridge.
export function criticalTokensWithActivations(peak, bw, d, f, bytesPerWeight, bytesPerActivation) {
  const r = peak / bw;
  const denom = 2 * d * f - r * (d + f) * bytesPerActivation;
  if (denom <= 0) return Infinity;
  return (r * d * f * bytesPerWeight) / denom;
}

// The smallest whole number of tokens whose matmul is compute-bound; null when none is.
export function minComputeBoundTokens(peak, bw, d, f, bytesPerWeight, bytesPerActivation) {
  const t = criticalTokensWithActivations(peak, bw, d, f, bytesPerWeight, bytesPerActivation);
  if (!Number.isFinite(t)) return null;
  const r = peak / bw;
  let n = Math.max(1, Math.ceil(t));
  while (n > 1 && matmulIntensity(n - 1, d, f, bytesPerWeight, bytesPerActivation) >= r) n -= 1;
  while (matmulIntensity(n, d, f, bytesPerWeight, bytesPerActivation) < r) n += 1;
  return n;
}

// time ≥ max(FLOPs / peak, bytes / BW, launch)
export function kernelTime(flops, bytes, peak, bw, launch) {
  return Math.max(flops / peak, bytes / bw, launch);
}

export function regime(flops, bytes, peak, bw, launch) {
  if (launch > Math.max(flops / peak, bytes / bw)) return "overhead";
  return flops / bytes < peak / bw ? "memory" : "compute";
}

export function launchShare(launches, launch, stepTime) {
  return (launches * launch) / stepTime;
}
