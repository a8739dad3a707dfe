// The serving window's figures: decode throughput, MFU and price against the batch for one
// model on one chip at one context length. The one copy of these rules: the page runs it as
// the reader moves a control, the build runs it (roofline.render.jsengine) for the static
// figure, and `roofline window` runs it for its table. The costs it evaluates come from Python
// (roofline.model.serving: each decode kernel's terms, checked there against the budget's own
// kernel list); nothing here knows a model.
import { bound, expertsTouched, timeLowerBound } from "../../render/js/maths.mjs";

// A model entry M.precisions[p] = { kernels: [{ count, launches, flops: [f0, f1, f2],
// useful_flops: [u0, u1, u2], bytes: [b0, b1, b2, w] }, ...], memory: { weights,
// per_sequence_per_token, working_per_sequence } }, M.moe =
// { experts, top_k } or null. A chip = { peaks: { p: FLOP/s }, bandwidth, capacity }.

// The share of routed experts a batch of B tokens touches under uniform routing: 1 − (1 − k/E)^B.
export function touched(moe, batch) {
  return moe ? expertsTouched(moe.experts, moe.top_k, batch) : 0;
}

// One decode step at batch B and context C: every kernel at its roofline bound plus the one
// launch gap per launch (roofline.model.launch). MFU = useful FLOPs ÷ (step × peak); MBU = the
// bytes the step must read ÷ (step × HBM bandwidth), those bytes being the weights it touches
// (each kernel's b0, and an MoE's touched experts, w·g) and every sequence's KV cache (b2·B·C),
// not the activations it passes between kernels. Times are split by what binds each kernel at
// this batch: `compute_s` in kernels at or past the ridge, `memory_s` in kernels below it,
// `launch_s` the gaps. The step's regime is the largest of the three.
export function stepAt(M, chip, prec, batch, ctx, launchS, ar = null) {
  const peak = chip.peaks[prec], bw = chip.bandwidth;
  const g = touched(M.moe, batch);
  let compute = 0, memory = 0, useful = 0, flops = 0, bytes = 0, launches = 0, must = 0;
  for (const k of M.precisions[prec].kernels) {
    const n = k.count, l = k.launches, [f0, f1, f2] = k.flops, [u0, u1, u2] = k.useful_flops;
    const [b0, b1, b2, w] = k.bytes;
    const f = f0 + f1 * batch + f2 * batch * ctx;
    const y = b0 + b1 * batch + b2 * batch * ctx + w * g;
    const t = n * timeLowerBound(f, y, peak, bw);
    if (bound(f / y, peak / bw) === "compute") compute += t; else memory += t;
    useful += n * (u0 + u1 * batch + u2 * batch * ctx);
    flops += n * f;
    bytes += n * y;
    must += n * (b0 + b2 * batch * ctx + w * g);
    launches += n * l;
  }
  // Tensor parallelism: `ar` = { count, bytes_per_token, bandwidth, tp } (allReduces), each
  // all-reduce a ring over the link, 2 (tp − 1) / tp × its bytes ÷ bandwidth, and one launch.
  let comm = 0;
  if (ar && ar.tp > 1) {
    comm = ar.count * 2 * (ar.tp - 1) / ar.tp * batch * ar.bytes_per_token / ar.bandwidth;
    launches += ar.count;
  }
  const launch = launches * launchS;
  const step = compute + memory + launch + comm;
  const mem = memoryAt(M, prec, batch, ctx);
  const regime = launch >= memory && launch >= compute ? "launch"
    : compute > memory ? "compute" : "memory";
  return { batch, step_s: step, compute_s: compute, memory_s: memory, launch_s: launch,
           comm_s: comm,
           launches, flops, useful_flops: useful, bytes, must_read_bytes: must,
           tokens_per_s: batch / step, mfu: useful / (step * peak), mbu: must / (step * bw),
           memory_bytes: mem, fits: mem <= chip.capacity, regime };
}

// stepAt at one (model, chip, precision, context, launch gap) as a function of the batch, each
// batch computed once: the series, the regime bands, the crossover and the latency limit ask
// for many of the same batches (a figure's ~200 asks are ~80 batches).
export function stepper(M, chip, prec, ctx, launchS, ar = null) {
  const seen = new Map();
  return (batch) => {
    let s = seen.get(batch);
    if (s === undefined) {
      s = stepAt(M, chip, prec, batch, ctx, launchS, ar);
      seen.set(batch, s);
    }
    return s;
  };
}

// Bytes per chip: the weights, and per sequence its KV cache and working set.
export function memoryAt(M, prec, batch, ctx) {
  const m = M.precisions[prec].memory;
  return m.weights + batch * (m.per_sequence_per_token * ctx + m.working_per_sequence);
}

// The memory wall: the largest batch whose weights + KV cache + working set fit (0: not even
// one sequence fits).
export function wallBatch(M, chip, prec, ctx) {
  const m = M.precisions[prec].memory;
  const per = m.per_sequence_per_token * ctx + m.working_per_sequence;
  let b = Math.max(0, Math.floor((chip.capacity - m.weights) / per));
  while (b > 0 && memoryAt(M, prec, b, ctx) > chip.capacity) b -= 1;   // a rounding guard:
  while (memoryAt(M, prec, b + 1, ctx) <= chip.capacity) b += 1;       // the test is the fit
  return b;
}

// The smallest batch in (lo, hi] whose regime differs from lo's (hi's regime differs from lo's).
function firstChange(at, lo, hi) {
  const from = at(lo).regime;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (at(mid).regime === from) lo = mid; else hi = mid;
  }
  return hi;
}

// The batches 1 … hi on a grid fine enough to see every regime change (each grid step is at most
// 5 % of its batch), every change then found exactly by bisection: [{from, to, regime}, ...].
export function regimeBands(M, chip, prec, ctx, launchS, hi,
                            at = stepper(M, chip, prec, ctx, launchS)) {
  const bands = [];
  let start = 1, cur = at(1).regime, prev = 1;
  for (const b of grid(1, hi)) {
    if (b === 1) continue;
    if (at(b).regime !== cur) {
      let lo = prev;
      // more than one change inside one grid step: take them one at a time
      while (at(b).regime !== at(lo).regime) {
        const c = firstChange(at, lo, b);
        bands.push({ from: start, to: c - 1, regime: at(lo).regime });
        start = c;
        lo = c;
      }
      cur = at(b).regime;
    }
    prev = b;
  }
  bands.push({ from: start, to: hi, regime: cur });
  return bands;
}

// Integer batches from lo to hi, every one up to 32 and then about 20 to each doubling.
export function grid(lo, hi) {
  const out = [];
  for (let b = lo; b <= hi; ) {
    out.push(b);
    b = b < 32 ? b + 1 : Math.max(b + 1, Math.round(b * 1.035));
  }
  if (out[out.length - 1] !== hi && hi >= lo) out.push(hi);
  return out;
}

// Where the step turns compute-bound (its compute-bound kernels' time first exceeds both the
// memory-bound kernels' time and the launch gaps), looked for past the wall too (a bigger chip
// would reach it): { batch, beyond_wall } or { batch: null, ai_limit } when it never does —
// the step's FLOPs per byte as B grows without end stay below what that needs (attention reads
// each sequence's KV cache every step, so its bytes grow as fast as the GEMMs' FLOPs).
export function computeCrossover(M, chip, prec, ctx, launchS, wall,
                                 at = stepper(M, chip, prec, ctx, launchS)) {
  const LIMIT = 2 ** 26;
  let lo = 1;
  if (at(1).regime === "compute") return { batch: 1, beyond_wall: wall < 1 };
  let hi = 2;
  while (hi <= LIMIT && at(hi).regime !== "compute") { lo = hi; hi *= 2; }
  if (hi > LIMIT) {
    const big = at(LIMIT);
    return { batch: null, ai_limit: big.flops / big.bytes };
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (at(mid).regime === "compute") hi = mid; else lo = mid;
  }
  return { batch: hi, beyond_wall: hi > wall };
}

// Dollars per million generated tokens at a price per GPU-hour.
export function pricePerMillion(usdPerHour, tokensPerS) {
  return usdPerHour / 3600 / tokensPerS * 1e6;
}

// The largest batch, up to `wall`, whose step (each sequence's time per token) is within the
// budget; 0 when even batch 1 is slower. A step's time only grows with the batch.
export function latencyLimit(M, chip, prec, ctx, launchS, budgetS, wall,
                             at = stepper(M, chip, prec, ctx, launchS)) {
  const step = (b) => at(b).step_s;
  if (wall < 1 || step(1) > budgetS) return 0;
  let lo = 1, hi = wall;
  if (step(hi) <= budgetS) return hi;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (step(mid) <= budgetS) lo = mid; else hi = mid;
  }
  return lo;
}

// The model entry with its KV cache held at `kvBytes` per element instead of the weights'
// precision's: the attention's reads of each sequence's cache (each kernel's b2, the bytes that
// grow with B·C) and the cache's bytes per token scale by kvBytes / bytes per element (payload.py
// checks that b2 is the cache alone: it scales with the precision's bytes exactly). The new
// token's K and V, written once per step (b1), stay at the activations' bytes.
export function withKvBytes(M, prec, kvBytes) {
  const e = M.precisions[prec];
  const s = kvBytes / e.bytes_per_element;
  if (s === 1) return M;
  const kernels = e.kernels.map((k) => ({ ...k,
                                          bytes: k.bytes.map((x, i) => (i === 2 ? x * s : x)) }));
  const memory = { ...e.memory, per_sequence_per_token: e.memory.per_sequence_per_token * s };
  return { ...M, precisions: { ...M.precisions, [prec]: { ...e, kernels, memory } } };
}

// The chip with the memory a server allocates as its capacity: the HBM programs can see times
// the server's share (vLLM's gpu_memory_utilization). Weights, every sequence's KV cache and the
// batch's activation workspace (each sequence's working set) must fit in it: a necessary
// condition, not a sufficient one (fragmentation, CUDA graphs' own pools and prefill's larger
// activations take more).
export function usableChip(chip, share) {
  return { ...chip, visible_bytes: chip.capacity, capacity: chip.capacity * share };
}

// One chip's share of a replica split over `tp` chips (tensor parallelism, as vLLM and
// Megatron split it): every kernel's FLOPs and bytes ÷ tp (the GEMMs by columns or rows, the
// attention by heads, MoE experts by their FFN; the norms and activations too, which flatters
// those small kernels), except the KV cache's reads and bytes, split by KV heads: ÷ min(tp,
// KV heads), since a model with fewer KV heads than chips keeps a copy of each on several, and
// an MLA model's compressed cache (no heads to split) is whole on every chip. The working set
// per sequence is kept whole. Launches stay: every chip launches every kernel.
export function kvShare(M, tp) {
  return M.mla ? 1 : 1 / Math.min(tp, M.kv_heads);
}
export function withTp(M, prec, tp) {
  if (tp === 1) return M;
  const e = M.precisions[prec];
  const kv = kvShare(M, tp);
  const kernels = e.kernels.map((k) => ({
    ...k, flops: k.flops.map((x) => x / tp), useful_flops: k.useful_flops.map((x) => x / tp),
    bytes: k.bytes.map((x, i) => (i === 2 ? x * kv : x / tp)) }));
  const memory = { ...e.memory, weights: e.memory.weights / tp,
                   per_sequence_per_token: e.memory.per_sequence_per_token * kv };
  return { ...M, precisions: { ...M.precisions, [prec]: { ...e, kernels, memory } } };
}

// The all-reduces of a tensor-parallel step: two per layer (after the attention's output
// projection and after the MLP's down projection), each of one hidden state per sequence,
// d_model × bytes per element, over the chip's scale-up link. null at tp = 1.
export function allReduces(M, prec, chip, tp) {
  if (tp === 1) return null;
  return { count: 2 * M.layers, tp, bandwidth: chip.link.bandwidth,
           bytes_per_token: M.d_model * M.precisions[prec].bytes_per_element };
}

// The gap per kernel of the state's launch mode (P.launch: data/overhead.toml's figures).
export function launchSeconds(P, st) {
  return P.launch[st.launch].seconds;
}

// The batches the summary names, as the CLI's text table shows them: batch 1, the memory wall,
// the latency limit (the cheapest batch), the compute crossover where the figure reaches it,
// each regime band's first and last batch inside the window, and the powers of two up to x_max.
export function namedBatches(W) {
  const out = new Set([1, W.wall, W.latency_limit, W.best && W.best.batch]);
  if (W.crossover.batch !== null && W.crossover.batch <= W.x_max) out.add(W.crossover.batch);
  for (const b of W.bands) {
    if (b.from <= Math.max(1, W.wall)) {
      out.add(b.from);
      out.add(Math.min(b.to, Math.max(1, W.wall)));
    }
  }
  for (let b = 1; b <= W.x_max; b *= 2) out.add(b);
  return [...out].filter((b) => Number.isInteger(b) && b >= 1).sort((a, b) => a - b);
}

// Every integer batch from 1 to the memory wall or EVERY_MAX, whichever is less, then the
// figure's batches past it up to x_max (about 20 to each doubling), the wall among them: what
// `roofline window --format json` and `csv` hold. The cap keeps a wall of 10^5 sequences (a
// short context on a big chip) from a 30 MB answer.
export const EVERY_MAX = 4096;
export function everyBatch(W) {
  const out = [];
  const last = Math.min(W.wall, EVERY_MAX);
  for (let b = 1; b <= last; b += 1) out.push(b);
  const past = W.series.map((p) => p.batch).filter((b) => b > last);
  if (W.wall > last && !past.includes(W.wall)) past.push(W.wall);
  return out.concat(past.sort((a, b) => a - b));
}

// Everything the figure, its table and the CLI show for one state {model, hardware, precision,
// kv_precision, context, launch ("graphs" or "eager"), price (USD per GPU-hour, or null),
// latency_ms (or null)}. `rows`: "named" or "every" adds W.rows, those batches (namedBatches,
// everyBatch) in the series' shape.
export function windowAt(P, st, rows = null) {
  const prec = st.precision, ctx = st.context, launchS = launchSeconds(P, st);
  const tp = st.tp || 1;
  const M1 = withKvBytes(P.models[st.model], prec, P.kv_precisions[st.kv_precision]);
  const M = withTp(M1, prec, tp);
  const chip = usableChip(P.chips[st.hardware], P.memory_utilisation.value);
  const wall = wallBatch(M, chip, prec, ctx);
  const hi = Math.max(8, 2 ** Math.ceil(Math.log2(Math.max(1, wall) * 1.5)));
  const at = stepper(M, chip, prec, ctx, launchS, allReduces(M, prec, chip, tp));
  const price = st.price === null || st.price === undefined ? null : st.price;
  // Per chip: tokens/s ÷ tp; per replica: the tp chips' B tokens per step. A replica rents tp
  // chips, so its price per 1M tokens is tp × the price per GPU-hour over its tokens/s.
  const point = (b) => {
    const s = at(b);
    return { batch: b, tokens_per_s: s.tokens_per_s / tp, tokens_per_s_replica: s.tokens_per_s,
             mfu: s.mfu, mbu: s.mbu, step_s: s.step_s, comm_share: s.comm_s / s.step_s,
             fits: b <= wall, regime: s.regime,
             price_per_million: price === null ? null
               : pricePerMillion(price * tp, s.tokens_per_s) };
  };
  // The smallest tp whose wall holds one sequence, on a chip with a link to split over.
  const fitTp = (P.tps || [1]).find((t) => (t === 1 || chip.link) &&
                                          wallBatch(withTp(M1, prec, t), chip, prec, ctx) >= 1);
  const series = grid(1, hi).map(point);
  const budgetS = st.latency_ms === null || st.latency_ms === undefined ? null
    : st.latency_ms / 1e3;
  const limit = budgetS === null ? wall
    : latencyLimit(M, chip, prec, ctx, launchS, budgetS, wall, at);
  const best = limit >= 1 ? at(limit) : null;
  const one = at(1);
  const W = {
    state: st, wall, x_max: hi, launch_s: launchS, memory: M.precisions[prec].memory,
    tp, smallest_tp: fitTp === undefined ? null : fitTp,
    capacity: { visible: chip.visible_bytes, share: P.memory_utilisation.value, usable: chip.capacity,
                workspace: wall * M.precisions[prec].memory.working_per_sequence },
    bands: regimeBands(M, chip, prec, ctx, launchS, hi, at),
    crossover: computeCrossover(M, chip, prec, ctx, launchS, wall, at),
    latency_limit: budgetS === null ? null : limit,
    batch_one: { step_s: one.step_s, tokens_per_s: one.tokens_per_s / tp,
                 tokens_per_s_replica: one.tokens_per_s, mfu: one.mfu, mbu: one.mbu,
                 must_read_bytes: one.must_read_bytes, comm_share: one.comm_s / one.step_s,
                 launch_share: one.launch_s / one.step_s, regime: one.regime },
    best: best && { batch: best.batch, step_s: best.step_s, tokens_per_s: best.tokens_per_s / tp,
                    tokens_per_s_replica: best.tokens_per_s, mfu: best.mfu, mbu: best.mbu,
                    comm_share: best.comm_s / best.step_s, regime: best.regime,
                    price_per_million: price === null ? null
                      : pricePerMillion(price * tp, best.tokens_per_s) },
    series,
  };
  if (rows === "named") W.rows = namedBatches(W).map(point);
  else if (rows === "every") W.rows = everyBatch(W).map(point);
  return W;
}
