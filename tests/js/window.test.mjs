// The serving window's pure helpers (widgets/window/window.mjs, view.mjs, static.mjs) on a
// small made-up model whose figures can be worked by hand: one kernel reading 1 GB of weights
// per step plus 1 MB of KV cache per sequence per 1,000 tokens of context, 2 GFLOP per token.
import { test } from "node:test";
import assert from "node:assert/strict";

import * as w from "../../site_src/roofline/widgets/window/window.mjs";
import * as v from "../../site_src/roofline/widgets/window/view.mjs";
import { ticks125, windowKey, windowSource } from "../../site_src/roofline/widgets/window/static.mjs";

const kernel = (flops, useful_flops, bytes) => ({ count: 1, launches: 1, flops, useful_flops, bytes });
const M = { label: "toy", moe: null, precisions: { bf16: { bytes_per_element: 2,
  kernels: [kernel([0, 2e9, 0], [0, 2e9, 0], [1e9, 0, 0, 0]),        // weights GEMM
            kernel([0, 0, 4e3], [0, 0, 4e3], [0, 0, 1e3, 0])],       // attention: 1 kB / token
  memory: { weights: 1e9, per_sequence_per_token: 1e3, working_per_sequence: 0 } } } };
const CHIP = { label: "chip", peaks: { bf16: 1e15 }, bandwidth: 1e12, capacity: 2e9 };
const P = { models: { toy: M }, chips: { c: CHIP }, precisions: ["bf16"], tps: [1, 2, 4, 8],
            kv_precisions: { bf16: 2, fp8: 1 }, memory_utilisation: { value: 1, default: 0.9 },
            launch: { graphs: { seconds: 1e-6, label: "CUDA graphs" } },
            prices: { c: { usd_per_hour: 3.6 } }, url_state: true,
            state: { model: "toy", hardware: "c", precision: "bf16", kv_precision: "bf16",
                     context: 1000, tp: 1, launch: "graphs", price: 3.6, latency_ms: 50 } };

test("one step by hand: weights 1 ms, attention B µs, two launches", () => {
  const s = w.stepAt(M, CHIP, "bf16", 10, 1000, 1e-6);
  // GEMM: 20 GFLOP / 1e15 = 20 µs < 1 GB / 1e12 = 1 ms: memory-bound; attention 10 MB: 10 µs
  assert.equal(s.memory_s, 1e-3 + 10e-6);
  assert.equal(s.compute_s, 0);
  assert.equal(s.launch_s, 2e-6);
  assert.equal(s.step_s, 1e-3 + 10e-6 + 2e-6);
  assert.equal(s.tokens_per_s, 10 / s.step_s);
  assert.equal(s.regime, "memory");
});

test("the wall: (2 GB - 1 GB) / 1 MB per sequence = 1,000 sequences", () => {
  assert.equal(w.wallBatch(M, CHIP, "bf16", 1000), 1000);
  assert.equal(w.wallBatch(M, { ...CHIP, capacity: 0.5e9 }, "bf16", 1000), 0);
});

test("the crossover: the GEMM turns compute-bound at 500 tokens (1 GB x 1e15 / (2e9 x 1e12))", () => {
  // past B = 500 the GEMM's 2e9·B / 1e15 exceeds its 1 ms of weights; the step is compute-bound
  // once that exceeds the attention's B µs of memory time: 2B µs > B µs from B = 500 on
  const c = w.computeCrossover(M, CHIP, "bf16", 1000, 0, 1000);
  assert.equal(c.batch, 500);
  assert.equal(c.beyond_wall, false);
  assert.equal(w.stepAt(M, CHIP, "bf16", 499, 1000, 0).regime, "memory");
  // a context so long that attention outweighs the GEMMs at any batch: never
  const never = w.computeCrossover(M, CHIP, "bf16", 1e6, 0, 1000);
  assert.equal(never.batch, null);
  assert.ok(never.ai_limit > 0 && never.ai_limit < 1e3);
});

test("regime bands are exact at their edges", () => {
  const bands = w.regimeBands(M, CHIP, "bf16", 1000, 0, 1024);
  assert.deepEqual(bands.map((b) => [b.from, b.to, b.regime]),
                   [[1, 499, "memory"], [500, 1024, "compute"]]);
  // a big launch gap: launch-bound at small batch
  const launchy = w.regimeBands(M, CHIP, "bf16", 1000, 1e-3, 64);
  assert.equal(launchy[0].regime, "launch");
});

test("price per 1M tokens and the latency limit", () => {
  assert.equal(w.pricePerMillion(3.6, 1000), 1);   // $3.60/h = $0.001/s; 1,000 tokens/s
  // no launch gap: step(B) = 1 ms + B µs up to B = 500, then the GEMM's 2B µs + B µs, so
  // ≤ 2 ms up to B = 666 and ≤ 1.5 ms up to B = 500 exactly
  assert.equal(w.latencyLimit(M, CHIP, "bf16", 1000, 0, 2e-3, 5000), 666);
  assert.equal(w.latencyLimit(M, CHIP, "bf16", 1000, 0, 1.5e-3, 5000), 500);
  assert.equal(w.latencyLimit(M, CHIP, "bf16", 1000, 0, 0.5e-3, 5000), 0);
});

test("the grid reaches every batch up to 32 and steps at most 5 % after", () => {
  const g = w.grid(1, 4096);
  assert.deepEqual(g.slice(0, 32), Array.from({ length: 32 }, (_, i) => i + 1));
  assert.equal(g[g.length - 1], 4096);
  for (let i = 32; i < g.length - 1; i += 1) assert.ok(g[i + 1] / g[i] <= 1.05, g[i]);
});

test("windowAt: the cheapest batch within the budget is the largest that meets it", () => {
  const W = w.windowAt(P, { ...P.state, latency_ms: 1.5 });
  assert.equal(W.latency_limit, 498);              // 1 ms + 498 µs + 2 µs of launches
  assert.equal(W.best.batch, 498);
  const prices = W.series.filter((p) => p.fits).map((p) => p.price_per_million);
  assert.ok(prices.every((x, i) => i === 0 || x <= prices[i - 1]));
});

test("the URL state takes only valid values, key by key", () => {
  const st = v.stateFromQuery(P, P.state, "?wctx=2048&wprice=abc&wlat=none&whw=nope&wmodel=toy");
  assert.equal(st.context, 2048);
  assert.equal(st.price, 3.6);
  assert.equal(st.latency_ms, null);
  assert.equal(st.hardware, "c");
  for (const bad of ["?wctx=-1", "?wctx=1e9", "?wctx=0x10", "?wlat=Infinity", "?wprice=1e4",
                     "?wmodel=__proto__", "?whw=constructor", "?wprec=toString",
                     "?wlaunch=eager", "?wlaunch=__proto__"]) {
    assert.deepEqual(v.stateFromQuery(P, P.state, bad), P.state, bad);
  }
  const back = v.stateFromQuery(P, P.state, "?" + v.queryOf(st).map(([k, x]) => `${k}=${x}`).join("&"));
  assert.deepEqual(back, st);
});

test("a chip change takes the chip's bundled price unless the reader typed one", () => {
  const P2 = { ...P, chips: { c: CHIP, d: { ...CHIP, label: "d" } }, prices: { c: { usd_per_hour: 3.6 } } };
  assert.equal(v.withChip(P2, P.state, "d", false).price, null);
  assert.equal(v.withChip(P2, { ...P.state, price: 9 }, "d", true).price, 9);
});

test("a chip named in the URL without a price has its own bundled price", () => {
  const P2 = { ...P, chips: { c: CHIP, d: { ...CHIP, label: "d" } },
               prices: { c: { usd_per_hour: 3.6 }, d: { usd_per_hour: 2 } } };
  assert.equal(v.stateFromQuery(P2, P2.state, "?whw=d").price, 2);
  assert.equal(v.stateFromQuery({ ...P2, prices: { c: P2.prices.c } }, P2.state, "?whw=d").price,
               null);
  assert.equal(v.stateFromQuery(P2, P2.state, "?whw=d&wprice=7").price, 7);
});

test("a typed price or budget is taken, or refused with a message for the field", () => {
  assert.deepEqual(v.readField("price", " 4.5 "), { value: 4.5 });
  for (const bad of ["0", "-2", "", "abc", "1000", "1e400"]) {
    assert.match(v.readField("price", bad).error, /above \$0/, bad);
  }
  assert.deepEqual(v.readField("latency", ""), { value: null });   // blank: no budget
  assert.deepEqual(v.readField("latency", "20"), { value: 20 });
  for (const bad of ["0", "-1", "60001", "NaN"]) {
    assert.match(v.readField("latency", bad).error, /leave it blank/, bad);
  }
});

test("the key names only the regimes the panels shade", () => {
  const words = (html) => html.replace(/<[^>]*>/g, "");
  const W = { bands: [{ regime: "memory", from: 1, to: 3 }, { regime: "compute", from: 4, to: 9 }],
              wall: 3, x_max: 8 };
  assert.equal(words(windowKey(W)), "Shaded: memory-bound, does not fit.");
  assert.equal(words(windowKey({ ...W, wall: 8 })), "Shaded: memory-bound, compute-bound.");
});

test("the price's source line: bundled, typed, or none", () => {
  const P2 = { ...P, prices: { c: { usd_per_hour: 3.6, range: [3, 4], tier: "t", date: "d",
                                      url: "u", source: "s" } } };
  assert.match(windowSource(P2, P2.state), /^Price: \$3.60 per GPU-hour, the midpoint/);
  assert.match(windowSource(P2, { ...P2.state, price: 5 }), /\$5.00 per GPU-hour, the one typed/);
  assert.match(windowSource(P2, { ...P2.state, price: null }), /^No price/);
});

test("log ticks at 1, 2, 5 per decade", () => {
  assert.deepEqual(ticks125(0.9, 60), [1, 2, 5, 10, 20, 50]);
});

test("the launch mode's gap is the payload's, and the URL keeps the mode", () => {
  const P2 = { ...P, launch: { graphs: { seconds: 1e-6 }, eager: { seconds: 1e-3 } } };
  // eager: two launches × 1 ms outweigh the 1.01 ms of memory time at B = 10: launch-bound
  const W = w.windowAt(P2, { ...P2.state, launch: "eager" });
  assert.equal(W.launch_s, 1e-3);
  assert.equal(W.bands[0].regime, "launch");
  assert.equal(w.windowAt(P2, P2.state).bands[0].regime, "memory");
  assert.equal(v.stateFromQuery(P2, P2.state, "?wlaunch=eager").launch, "eager");
  assert.equal(v.stateFromQuery(P2, P2.state, "?wlaunch=toString").launch, "graphs");
});

test("an fp8 KV cache halves the cache's reads and bytes, not the weights'", () => {
  const W = w.windowAt(P, { ...P.state, kv_precision: "fp8" });
  // (2 GB − 1 GB of weights) / 0.5 MB per sequence = 2,000 sequences
  assert.equal(W.wall, 2000);
  assert.equal(W.memory.per_sequence_per_token, 500);
  const M8 = w.withKvBytes(M, "bf16", 1);
  assert.equal(w.stepAt(M8, CHIP, "bf16", 10, 1000, 0).memory_s, 1e-3 + 5e-6);
  assert.equal(w.withKvBytes(M, "bf16", 2), M);
  assert.equal(v.stateFromQuery(P, P.state, "?wkv=fp8").kv_precision, "fp8");
  assert.equal(v.stateFromQuery(P, P.state, "?wkv=valueOf").kv_precision, "bf16");
});

test("MBU: the weights and the KV cache the step must read, over step × bandwidth", () => {
  // B = 10, C = 1,000: 1 GB of weights + 10 × 1,000 × 1 kB of cache = 1.01 GB must be read;
  // the step is 1.012 ms, so MBU = 1.01e9 / (1.012e-3 × 1e12) = 99.8 %
  const s = w.stepAt(M, CHIP, "bf16", 10, 1000, 1e-6);
  assert.equal(s.must_read_bytes, 1.01e9);
  assert.equal(s.mbu, 1.01e9 / (s.step_s * 1e12));
  assert.ok(Math.abs(s.mbu - 0.998) < 5e-4);
});

test("the wall is drawn against the server's share of the visible HBM", () => {
  // 0.9 × 2 GB = 1.8 GB: (1.8 GB − 1 GB of weights) / 1 MB per sequence = 800 sequences
  const P9 = { ...P, memory_utilisation: { value: 0.9, default: 0.9 } };
  const W = w.windowAt(P9, P9.state);
  assert.equal(W.wall, 800);
  assert.deepEqual(W.capacity, { visible: 2e9, share: 0.9, usable: 1.8e9, workspace: 0 });
  assert.equal(w.usableChip(CHIP, 0.5).capacity, 1e9);
});

test("the named batches and every batch to the wall", () => {
  const W = { wall: 40, x_max: 64, latency_limit: 30, best: { batch: 30 },
              crossover: { batch: 50 }, bands: [{ from: 1, to: 2, regime: "launch" },
                                                 { from: 3, to: 64, regime: "memory" }],
              series: [{ batch: 1 }, { batch: 40 }, { batch: 41 }, { batch: 64 }] };
  assert.deepEqual(w.namedBatches(W), [1, 2, 3, 4, 8, 16, 30, 32, 40, 50, 64]);
  const every = w.everyBatch(W);
  assert.deepEqual(every.slice(0, 40), Array.from({ length: 40 }, (_, i) => i + 1));
  assert.deepEqual(every.slice(40), [41, 64]);
  const big = w.everyBatch({ ...W, wall: 5000, series: [{ batch: 4200 }, { batch: 6000 }] });
  assert.equal(big.length, w.EVERY_MAX + 3);
  assert.deepEqual(big.slice(-3), [4200, 5000, 6000]);
});

test("tensor parallelism: a chip's share, the all-reduces, per chip and per replica", () => {
  // 2 layers of d 1,000 at 2 B, 2 KV heads; a link of 100 GB/s per direction
  const Mt = { ...M, layers: 2, d_model: 1000, kv_heads: 2, mla: false };
  const LINKED = { ...CHIP, link: { name: "link", bandwidth: 1e11 } };
  const M4 = w.withTp(Mt, "bf16", 4);
  // weights ÷ 4; the cache ÷ min(4, 2 KV heads) = 2: each head kept on 2 chips
  assert.equal(M4.precisions.bf16.memory.weights, 0.25e9);
  assert.equal(M4.precisions.bf16.memory.per_sequence_per_token, 500);
  assert.equal(M4.precisions.bf16.kernels[0].bytes[0], 0.25e9);  // b0 ÷ 4
  assert.equal(M4.precisions.bf16.kernels[1].bytes[2], 500);     // b2 ÷ 2
  assert.equal(M4.precisions.bf16.kernels[0].flops[1], 0.5e9);   // f1 ÷ 4
  assert.equal(M4.precisions.bf16.kernels[0].launches, 1);       // launches stay
  assert.equal(w.kvShare({ ...Mt, mla: true }, 8), 1);
  // all-reduces: 2 per layer = 4, each 2 (4 − 1) / 4 × B × 1,000 × 2 B over 1e11 B/s:
  // at B = 10, 4 × 1.5 × 20,000 / 1e11 = 1.2 µs, and 4 more launches
  const ar = w.allReduces(M4, "bf16", LINKED, 4);
  const s = w.stepAt(M4, LINKED, "bf16", 10, 1000, 1e-6, ar);
  assert.ok(Math.abs(s.comm_s - 1.2e-6) < 1e-15);
  assert.equal(s.launches, 2 + 4);
  assert.equal(w.allReduces(M4, "bf16", LINKED, 1), null);
  const P4 = { ...P, models: { toy: Mt }, chips: { c: LINKED } };
  const W = w.windowAt(P4, { ...P4.state, tp: 4 });
  const b = W.series[9];
  assert.equal(b.tokens_per_s * 4, b.tokens_per_s_replica);
  assert.equal(b.price_per_million, w.pricePerMillion(3.6 * 4, b.tokens_per_s_replica));
  assert.equal(v.stateFromQuery(P4, P4.state, "?wtp=4").tp, 4);
  assert.equal(v.stateFromQuery(P4, P4.state, "?wtp=3").tp, 1);
  // a chip without a link keeps tp = 1
  assert.equal(v.validState(P, { ...P.state, tp: 4 }).tp, 1);
});
