// One step of a GPU trace (CUDA or ROCm, torch.profiler / Kineto): the time account, always, and
// the roofline where shapes were recorded — the one copy, run by the browser (the drop page) and
// by the build's JS engine (`roofline profile`, the fence, Sphinx, through analyse.py).
//
// Pass 1 is analyse.mjs's survey. Pass 2 keeps the step's share of the trace in three lists
// (gpuStepEvents, per chunk): the CPU ops and runtime calls inside the step's CPU window, and the
// kernels, memcpys and memsets that started at or after it. gpuReport then:
//   - links each kernel to its launch (the runtime call with its "correlation") and keeps the
//     ones launched inside the step (the whole trace: all of them);
//   - names each kernel's family by the rules of data/kernels.toml (first match wins);
//   - sweeps the kernels' intervals once: GPU busy time is their union over all streams; each
//     instant of it goes to the first of compute > communication > memcpy/memset that is running,
//     so communication *exposed* is communication with no compute beside it, and the parts sum to
//     busy exactly;
//   - splits each idle gap at the next kernel's launch call: the part before the host issued it is
//     "waiting for the host", the rest (launch latency, synchronisation, a dependency) "other";
//   - with shapes: links each kernel to the CPU op that launched it ("External id"), and prices it
//     with the outermost op above that the cost model prices (costs.mjs), at the op's dtype and
//     the chip's peak for it; kernels with no priced op are listed, never guessed.
// Every waterfall's parts are computed separately and must sum to the step within 1 % (thrown
// otherwise: a bug stays a bug).
import { CAUSAL_AT, costOf, USEFUL } from "./costs.mjs";
import { ADVICE, STEP, stepTree } from "./analyse.mjs";
import { classifier, shortName, sweep, timeAccount } from "./timeline.mjs";

const GPU_CATS = new Set(["kernel", "gpu_memcpy", "gpu_memset"]);
const RUNTIME_CATS = new Set(["cuda_runtime", "cuda_driver"]);

// The precision whose peak an op's kernels are held to, by the op's first tensor's dtype. fp32
// is held to the fp32 (non-tensor) peak: torch runs fp32 matmuls without TF32 unless
// torch.backends.cuda.matmul.allow_tf32 (or set_float32_matmul_precision) says otherwise, its
// default since 1.12. fp16 is held to the chip's fp16 peak where the catalog gives one (Volta,
// whose tensor cores have no bf16), else to the bf16 peak: the same tensor-core rate.
export const DTYPE_PRECISION = {
  "c10::BFloat16": "bf16", "c10::Half": "fp16", float: "fp32", double: "fp64",
  "c10::Float8_e4m3fn": "fp8", "c10::Float8_e5m2": "fp8", "c10::Float8_e4m3fnuz": "fp8",
  "c10::Float8_e5m2fnuz": "fp8",
};
export const PRECISION_RULE = "each op is held to the chip's peak at its first tensor's dtype: " +
  "bf16 at the bf16 tensor peak, fp16 at the fp16 peak where the chip has one and the bf16 " +
  "peak elsewhere (the same rate), fp8 at the fp8 peak, fp32 at the fp32 (non-tensor) " +
  "peak (torch's default since 1.12: TF32 off for matmuls) unless its kernels' names say they " +
  "ran in TF32 on the tensor cores (then the tf32 peak); ops in integer or unrecorded dtypes, " +
  "which are memory-bound, at the fp32 peak; a matmul or attention in an unknown dtype is " +
  "not placed";

// --- the chip the trace ran on --------------------------------------------------------------
// The catalog chip for a trace's deviceProperties by the rules of data/devices.toml, or
// { error } naming the device and asking for --hardware.
export function chipFor(props, rules) {
  const d = Array.isArray(props) && props.length ? props[0] : null;
  if (!d) {
    return { error: "the trace has no deviceProperties: name the chip it ran on with " +
                    "--hardware CHIP (roofline hardware lists them)", field: "hardware" };
  }
  const name = String(d.name ?? "");
  for (const r of rules) {
    if (!new RegExp(r.name).test(name)) continue;
    if (r.compute_units !== undefined && Number(d.numSms) !== r.compute_units) continue;
    if (r.compute_capability !== undefined &&
        `${d.computeMajor}.${d.computeMinor}` !== r.compute_capability) continue;
    if (r.memory_bytes !== undefined) {
      const [lo, hi] = r.memory_bytes;
      const m = Number(d.totalGlobalMem);
      if (!(m >= lo && m <= hi)) continue;
    }
    return { chip: r.chip, device: name, rule: r.why };
  }
  const mem = Number(d.totalGlobalMem) ? `, ${(Number(d.totalGlobalMem) / 2 ** 30).toFixed(1)} GiB` : "";
  return { error: `unknown device "${name}" (${d.numSms ?? "?"} compute units${mem}, compute ` +
                  `capability ${d.computeMajor ?? "?"}.${d.computeMinor ?? "?"}): name the chip ` +
                  "it ran on with --hardware CHIP (roofline hardware lists them)",
           field: "hardware" };
}

// --- pass 2 -----------------------------------------------------------------------------------
export function newGpuParts() {
  return { ops: [], runtime: [], kernels: [] };
}

// The step's share of `events` added to `parts` (see the head of this file); returns `parts`.
// ops: [name, ts, dur, tid, external id, args]; runtime: [correlation, ts, dur, external id, tid];
// kernels: [ts, dur, stream, correlation, external id, name, cat].
export function gpuStepEvents(parts, w, events) {
  const lo = w.ts, hi = w.ts + w.dur + 1e-3, whole = w.whole === true;
  for (const e of events) {
    if (e === null || typeof e !== "object" || e.ph !== "X") continue;
    const ts = Number(e.ts || 0), dur = Number(e.dur || 0), a = e.args || {};
    if (GPU_CATS.has(e.cat)) {
      if (!whole && ts < lo) continue;
      parts.kernels.push([ts, dur, a.stream ?? e.tid ?? 0, a.correlation ?? null,
                          a["External id"] ?? null, String(e.name ?? ""), e.cat]);
      continue;
    }
    if (!whole && (ts < lo || ts > hi)) continue;
    if (RUNTIME_CATS.has(e.cat)) {
      if (a.correlation !== undefined) {
        parts.runtime.push([a.correlation, ts, dur, a["External id"] ?? null, e.tid ?? null]);
      }
    } else if (e.cat === "cpu_op" || e.cat === "user_annotation") {
      const name = String(e.name ?? "");
      if (STEP.test(name)) continue;
      const kept = { "Input Dims": a["Input Dims"], "Input type": a["Input type"] };
    if (Array.isArray(a["Concrete Inputs"]) && CAUSAL_AT[name] !== undefined) {
      kept["Concrete Inputs"] = a["Concrete Inputs"];   // is_causal: costs.mjs reads it
    }
      parts.ops.push([name, ts, dur, e.tid ?? null, a["External id"] ?? null, kept]);
    }
  }
  return parts;
}

// --- the roofline where shapes exist ------------------------------------------------------------
// Each launch's priced op: the runtime call runs inside the CPU op that launched it, on the same
// thread; the op priced is the outermost one above it (itself included) that costs.mjs prices.
// Returns correlation -> { node, cost, kernels: [] } (one object per priced op).
function pricedLaunches(ops, runtime, terms) {
  const opsByTid = new Map(), callsByTid = new Map();
  for (const o of ops) {
    const list = opsByTid.get(o[3]) || [];
    list.push([o[0], o[1], o[2], o[5]]);
    opsByTid.set(o[3], list);
  }
  for (const r of runtime) {
    const list = callsByTid.get(r[4]) || [];
    list.push(r);
    callsByTid.set(r[4], list);
  }
  const out = new Map();
  for (const [tid, calls] of callsByTid) {
    // the thread's ops in preorder, each with the priced op above it (or itself)
    const flat = [];
    const visit = (n, priced) => {
      let p = priced;
      if (p === null) {
        // a view does no work: an op the model calls a view that launches a kernel (a cast, a
        // contiguous copy) is unpriced, not free
        const c = costOf(n.name, n.args, n.children.length > 0, terms);
        if (c !== null && c.family !== "views") p = { node: n, cost: c, kernels: [] };
      }
      flat.push([n.ts, n.ts + n.dur, p]);
      n.children.forEach((ch) => visit(ch, p));
    };
    stepTree(opsByTid.get(tid) || []).forEach((r) => visit(r, null));
    calls.sort((a, b) => a[1] - b[1]);
    const stack = [];
    let i = 0;
    for (const c of calls) {
      while (i < flat.length && flat[i][0] <= c[1]) {
        while (stack.length && stack[stack.length - 1][1] <= flat[i][0]) stack.pop();
        stack.push(flat[i]);
        i += 1;
      }
      while (stack.length && stack[stack.length - 1][1] < c[1]) stack.pop();
      const top = stack.length ? stack[stack.length - 1][2] : null;
      if (top !== null) out.set(c[0], top);
    }
  }
  return out;
}

// The precision an op's kernels are held to (PRECISION_RULE), or null: not placed.
function precisionOf(p, tf32, peaks) {
  const types = p.node.args["Input type"] || [];
  let prec = null;
  for (const t of types) {
    if (t in DTYPE_PRECISION) {
      prec = DTYPE_PRECISION[t];
      break;
    }
  }
  if (prec === null) return USEFUL.includes(p.cost.family) ? null : "fp32";
  if (prec === "fp32" && p.kernels.some((k) => tf32.test(k[5]))) return "tf32";
  if (prec === "fp16" && !(prec in peaks)) return "bf16";
  return prec;
}

// The families of the step's priced ops on the chip's roofline, the unpriced kernels, the MFU and
// the waterfall of the step's GPU time in the budget page's categories.
function placeOnRoof(kernels, ops, runtime, chip, kinds, terms, account) {
  const tf32 = new RegExp(kinds.tf32.pattern, "i");
  const byCall = pricedLaunches(ops, runtime, terms);
  const priced = new Map(), unpriced = new Map();
  for (const k of kernels) {
    const p = k[3] !== null && byCall.has(k[3]) ? byCall.get(k[3]) : null;
    if (p && k[6] === "kernel") {
      p.kernels.push(k);
      priced.set(p, true);
      k.push(p);
    } else {
      if (k[7] !== "communication" && k[7] !== "memory") {
        const name = shortName(k[5]);
        const u = unpriced.get(name) || { count: 0, time_us: 0, family: k[7] };
        u.count += 1;
        u.time_us += k[1];
        unpriced.set(name, u);
      }
      k.push(null);
    }
  }
  const bw = chip.bandwidth_bytes_per_s;
  const fam = {};
  const unplaced = new Map();
  let useful = 0, idealS = 0;
  const usefulByPrecision = {};
  for (const p of priced.keys()) {
    const prec = precisionOf(p, tf32, chip.peaks);
    const peak = prec ? chip.peaks[prec] : undefined;
    const timeUs = p.kernels.reduce((s, k) => s + k[1], 0);
    if (!peak) {
      const key = `${p.cost.family} in ${prec || "an unknown dtype"}`;
      const u = unplaced.get(key) || { count: 0, time_us: 0 };
      u.count += 1;
      u.time_us += timeUs;
      unplaced.set(key, u);
      p.placed = false;
      continue;
    }
    p.placed = true;
    p.peak = peak;
    const f = (fam[p.cost.family] ??= { count: 0, kernels: 0, time_us: 0, flops: 0, bytes: 0,
                                        useful_flops: 0, roof_s: 0, precisions: {} });
    f.count += 1;
    f.kernels += p.kernels.length;
    f.time_us += timeUs;
    f.flops += p.cost.flops;
    f.bytes += p.cost.bytes;
    f.useful_flops += p.cost.useful_flops;
    f.roof_s += Math.max(p.cost.flops / peak, p.cost.bytes / bw);
    f.precisions[prec] = (f.precisions[prec] || 0) + p.cost.flops;
    if (USEFUL.includes(p.cost.family)) {
      useful += p.cost.useful_flops;
      idealS += p.cost.useful_flops / peak;
      usefulByPrecision[prec] = (usefulByPrecision[prec] || 0) + p.cost.useful_flops;
    }
  }
  // the MFU's peak: the precision of most of the step's useful FLOPs (bf16 where there are none)
  const mfuPrecision = Object.entries(usefulByPrecision).sort((a, b) => b[1] - a[1])[0]?.[0] ||
    (chip.peaks.bf16 ? "bf16" : Object.keys(chip.peaks)[0]);
  const peak = chip.peaks[mfuPrecision];
  const wallS = account.span_s;
  const families = {};
  for (const [f, v] of Object.entries(fam)) {
    const t = v.time_us * 1e-6;
    const ai = v.bytes ? v.flops / v.bytes : null;
    const bound = v.roof_s ? v.flops / v.roof_s : null;
    const achieved = t ? v.flops / t : 0;
    const precision = Object.entries(v.precisions).sort((a, b) => b[1] - a[1])[0][0];
    families[f] = {
      count: v.count, kernels: v.kernels, time_s: t, share_of_step: t / wallS, flops: v.flops,
      bytes: v.bytes, useful_flops: v.useful_flops, intensity_flops_per_byte: ai,
      achieved_flops_per_s: achieved, bound_flops_per_s: bound,
      share_of_bound: t ? v.roof_s / t : null, roofline_time_s: v.roof_s,
      precision,
      verdict: ai !== null && ai >= chip.peaks[precision] / bw ? "compute-bound" : "memory-bound",
      torch_flops: null, note: "",
    };
  }
  // the waterfall: each instant of the step's GPU time to the first class running then
  const cls = (k) => {
    const p = k[9];
    if (p && p.placed) return USEFUL.includes(p.cost.family) ? "matrix" : "memory";
    if (k[7] === "communication") return "communication";
    if (k[7] === "memory") return "memory";
    return "unmodelled";
  };
  const t = sweep(kernels.map((k) => [k[0], k[0] + k[1], cls(k)]),
                  ["matrix", "memory", "unmodelled", "communication"]);
  const s = (us) => us * 1e-6;
  const parts = [["useful matrix math at peak", idealS],
                 ["matrix ops below their roof", s(t.matrix) - idealS],
                 ["memory-bound ops", s(t.memory)],
                 ["GPU idle (dispatch and gaps)", account.idle_s],
                 ["communication (exposed)", s(t.communication)],
                 ["unmodelled kernels", s(t.unmodelled)]];
  return {
    families, peak, mfuPrecision, useful, parts,
    unmodelled: [...unpriced.entries()].sort((a, b) => b[1].time_us - a[1].time_us)
      .map(([name, u]) => ({ name, family: u.family, count: u.count, time_s: s(u.time_us) })),
    unplaced: [...unplaced.entries()].map(([what, u]) => ({ what, count: u.count,
                                                            time_s: s(u.time_us) })),
  };
}

const GPU_ADVICE = {
  ...ADVICE,
  idle: "GPU idle: the host launched the next kernel late, or the GPU waited on a sync; fewer, " +
        "larger kernels, CUDA graphs or torch.compile, and no host syncs in the step (§5).",
  communication: "Exposed communication: overlap it with compute (bucketed all-reduce, " +
                 "prefetched all-gather), or move less (§5).",
};

// The report of one step of a GPU trace: see the head of this file. `chip`: { id, label,
// peaks: { precision: FLOP/s }, bandwidth_bytes_per_s, basis, source }; `kinds`: the kernels.toml
// rules and families; `terms`: roofline.profile.terms.
export function gpuReport({ info, window: w, parts, chip, kinds, terms, trace }) {
  const launches = new Map(parts.runtime.map((r) => [r[0], [r[1], r[2]]]));
  const familyOf = classifier(kinds.rules);
  let kernels = parts.kernels;
  if (!w.whole) kernels = kernels.filter((k) => k[3] !== null && launches.has(k[3]));
  if (!kernels.length) {
    return { error: `no GPU kernels were launched in ${w.name}` +
                    (w.whole ? "" : "; try another step (--step)"), field: "step" };
  }
  kernels = kernels.map((k) => [...k, familyOf(k[5], k[6]),
                                k[3] !== null && launches.has(k[3]) ? launches.get(k[3]) : null]);
  const account = timeAccount(kernels, kinds.families);
  const wallS = account.span_s;
  const dist = info.meta.distributedInfo || {};
  const base = {
    trace, kind: "gpu", step: w.name, steps: Object.keys(info.steps).map(Number)
      .sort((a, b) => a - b), device: info.rocm ? "rocm" : "cuda",
    chip: { id: chip.id, label: chip.label, source: chip.source },
    rank: Number.isInteger(dist.rank) ? dist.rank : null,
    world_size: Number.isInteger(dist.world_size) ? dist.world_size : null,
    cpu_step_s: w.whole ? null : w.dur * 1e-6, wall_s: wallS, account,
    shapes: info.shaped > 0, precision_rule: PRECISION_RULE,
    roof: { label: chip.label, peak_flops_per_s: null, bandwidth_bytes_per_s:
            chip.bandwidth_bytes_per_s, ridge_flops_per_byte: null, basis: chip.basis },
  };
  let waterfall, leaks, extra;
  if (info.shaped > 0 && parts.ops.length) {
    const r = placeOnRoof(kernels, parts.ops, parts.runtime, chip, kinds, terms, account);
    waterfall = r.parts;
    base.roof.peak_flops_per_s = r.peak;
    base.roof.ridge_flops_per_byte = r.peak / chip.bandwidth_bytes_per_s;
    base.roof.precision = r.mfuPrecision;
    extra = { families: r.families, unmodelled: r.unmodelled, unplaced: r.unplaced,
              mfu: r.useful / (wallS * r.peak), useful_flops: r.useful, flops_check: [] };
    leaks = [["matmul", waterfall[1][1]], ["memory", waterfall[2][1]], ["idle", waterfall[3][1]],
             ["communication", waterfall[4][1]], ["unmodelled", waterfall[5][1]]];
  } else {
    waterfall = [["compute kernels", account.compute_s],
                 ["communication (exposed)", account.communication_exposed_s],
                 ["memcpy and memset (alone)", account.memory_only_s],
                 ["GPU idle: waiting for the host", account.idle_host_s],
                 ["GPU idle: other", account.idle_other_s]];
    extra = { families: {}, unmodelled: [], unplaced: [], mfu: null, useful_flops: null,
              flops_check: [] };
    leaks = [["idle", account.idle_s], ["communication", account.communication_exposed_s]];
  }
  const total = waterfall.reduce((s, [, x]) => s + x, 0);
  if (Math.abs(total - wallS) > 0.01 * wallS) {
    throw new Error(`the GPU waterfall sums to ${total} s, the step is ${wallS} s`);
  }
  return {
    ...base, ...extra,
    waterfall: waterfall.map(([part, s]) => ({ part, time_s: s, share: s / wallS })),
    waterfall_sum_s: total,
    leaks: leaks.map((kv, i) => [...kv, i]).filter(([, s]) => s > 0)
      .sort((x, y) => y[1] - x[1] || x[2] - y[2]).slice(0, 3)
      .map(([leak, s]) => ({ leak, time_s: s, share: s / wallS, advice: GPU_ADVICE[leak] })),
  };
}

// --- many ranks ---------------------------------------------------------------------------------
// Per-rank summaries (each rank's report, reduced) merged: the table, the slowest rank and the
// spread; { error } when the ranks do not belong together.
export function rankSummary(report) {
  const a = report.account;
  return { trace: report.trace, rank: report.rank, world_size: report.world_size,
           step: report.step, wall_s: report.wall_s, busy_s: a.busy_s, idle_s: a.idle_s,
           communication_s: a.communication_s,
           communication_exposed_s: a.communication_exposed_s, mfu: report.mfu };
}

export function mergeRanks(rows) {
  const worlds = new Map();
  for (const r of rows) {
    const k = r.world_size ?? "unknown";
    if (!worlds.has(k)) worlds.set(k, r.trace);
  }
  if (worlds.size > 1) {
    const [[w1, t1], [w2, t2]] = [...worlds.entries()];
    return { error: `ranks of different world sizes: ${t1} has ${w1}, ${t2} has ${w2}: ` +
                    "name the traces of one job" };
  }
  const seen = new Map();
  for (const r of rows) {
    if (r.rank === null) continue;
    if (seen.has(r.rank)) {
      return { error: `rank ${r.rank} twice: ${seen.get(r.rank)} and ${r.trace}` };
    }
    seen.set(r.rank, r.trace);
  }
  const sorted = [...rows].sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0));
  const walls = sorted.map((r) => r.wall_s).sort((a, b) => a - b);
  const slow = sorted.reduce((m, r) => (r.wall_s > m.wall_s ? r : m), sorted[0]);
  const median = walls[(walls.length - 1) >> 1] / 2 + walls[walls.length >> 1] / 2;
  return { ranks: sorted, world_size: sorted[0].world_size, slowest: slow.rank,
           slowest_trace: slow.trace, slowest_wall_s: slow.wall_s,
           fastest_wall_s: walls[0], median_wall_s: median,
           spread: median ? (walls[walls.length - 1] - walls[0]) / median : 0 };
}
