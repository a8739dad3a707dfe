// One profiled step on the roofline — the one copy, run by the browser (the drop page reads a
// dropped trace) and by the build's JS engine (`roofline profile`, the ```roofline-profile
// fence, through roofline/profile/analyse.py): every op family at its achieved FLOP/s, its share
// of the bound, its verdict, the step's measured MFU, a waterfall of where its wall time went
// and the top three leaks, from a torch.profiler Chrome trace priced by costs.mjs.
//
// Reading the file is the host's (Python's streaming reader, the browser's reader.mjs); from
// an event on, everything is here, in two passes over the events in bounded memory:
//   1. s = newSurvey(); surveyEvents(s, events, meta, i) per chunk i; info = finishSurvey(s)
//   2. w = pickStep(info, step); nodes += stepEvents(w, events) per chunk — only the chunks
//      chunksFor(info, w) names, when the host numbered them in pass 1 (the others hold no
//      event of the step, so a long trace's second pass decodes one step's worth)
//   3. stepReport({ info, window: w, nodes, roof, terms, trace })
// Bad input comes back as { error, field } (the host shows one line); a broken invariant of
// ours (the waterfall not summing to the step) is thrown: a bug stays a bug.
//
// Conventions (stated once):
// - An op's time is its own span on the step's thread. Ops nest (aten::linear runs aten::mm; an
//   autograd node runs its backward ops): the outermost op the cost model prices takes the whole
//   span; an op it does not price is looked into, its own time outside its children counted as
//   dispatch; an op with nothing priced inside it is *unmodelled*, listed with its time and
//   count, never dropped and never guessed.
// - The step's wall time is exactly: useful matrix math at the roof's peak + matrix ops' time
//   beyond that + memory-bound ops' time + dispatch (views, wrappers' own time, the gaps between
//   ops) + communication + unmodelled. The parts are computed separately and their sum is
//   checked against the step's span.
// - A CPU trace (no GPU kernels) ran on the CPU: it is placed on a measured CPU roofline
//   (`roofline measure`), never on a GPU's.
// - Verdicts: *launch-bound* when an op's roofline time is shorter than the trace's own dispatch
//   cost per op (the median span of its view ops, which do no work); else *compute-bound* at or
//   past the ridge and *memory-bound* below it.
import { CAUSAL_AT, FAMILIES, USEFUL, costOf } from "./costs.mjs";

export const STEP = /^ProfilerStep#(\d+)$/;
const META_KEYS = ["roofline_recorded", "deviceProperties", "distributedInfo", "record_shapes",
                   "with_flops"];
// The categories of the Kineto format of torch 1.8–1.10, which this analysis does not read.
const LEGACY = new Set(["Operator", "Kernel", "Runtime", "Memcpy", "Memset"]);
export const ADVICE = {
  matmul: "Matrix math below its roof: larger or better-shaped matmuls, a tensor-core dtype " +
          "(bf16, fp8) on a GPU, and fewer small GEMMs (§2–3).",
  memory: "Memory-bound ops: fuse them into their neighbours so intermediates stay on chip " +
          "(torch.compile, fused norms and FlashAttention; §4 and lesson 07).",
  dispatch: "Dispatch and gaps: each op pays a launch; fewer, larger ops or a captured graph " +
            "(CUDA graphs, torch.compile) remove it (§5).",
  communication: "Communication: overlap it with compute, or move less (§5).",
  unmodelled: "Ops the roofline model does not know: look at them in the trace; the model " +
              "cannot say what they should cost.",
};

// --- pass 1: the steps, what the trace recorded and on which device --------------------------
export function newSurvey() {
  return { steps: {}, events: 0, ops: 0, shaped: 0, kernels: 0, runtime: 0, legacy: 0,
           rocm: false, meta: {}, span: [null, null], chunks: {} };
}

// Counts `events` (and keeps the `meta` [key, value] pairs that matter) into `s`; returns `s`.
// `chunk`: the host's number for this piece of the trace, whose time span is kept (chunksFor).
export function surveyEvents(s, events, meta = [], chunk = null) {
  for (const [k, v] of meta) if (META_KEYS.includes(k)) s.meta[k] = v;
  let lo = Infinity, hi = -Infinity;
  for (const e of events) {
    if (e === null || typeof e !== "object" || Array.isArray(e)) continue;
    s.events += 1;
    if (e.ph !== "X") continue;
    const ts = Number(e.ts || 0), dur = Number(e.dur || 0);
    if (e.cat === "cpu_op" || e.cat === "user_annotation") {
      if (ts < lo) lo = ts;
      if (ts + dur > hi) hi = ts + dur;
    }
    if (e.cat === "cpu_op") {
      s.ops += 1;
      const dims = (e.args || {})["Input Dims"];
      if (Array.isArray(dims) && dims.length) s.shaped += 1;
      s.span = [s.span[0] === null ? ts : Math.min(s.span[0], ts),
                s.span[1] === null ? ts + dur : Math.max(s.span[1], ts + dur)];
    } else if (e.cat === "kernel" || e.cat === "gpu_memcpy" || e.cat === "gpu_memset") {
      s.kernels += 1;
    } else if (e.cat === "cuda_runtime" || e.cat === "cuda_driver") {
      s.runtime += 1;
      if (!s.rocm && String(e.name ?? "").startsWith("hip")) s.rocm = true;
    } else if (LEGACY.has(e.cat)) {
      s.legacy += 1;
    } else if (e.cat === "user_annotation") {
      const m = STEP.exec(String(e.name ?? ""));
      if (m) s.steps[m[1]] = { ts, dur, tid: e.tid ?? null };
    }
  }
  if (chunk !== null && lo <= hi) s.chunks[chunk] = [lo, hi];
  return s;
}

// The chunks (numbered in pass 1) that hold an op or annotation inside the step's window.
export function chunksFor(info, w) {
  const lo = w.ts, hi = w.ts + w.dur + 1e-3;
  return Object.entries(info.chunks || {}).filter(([, [a, b]]) => b >= lo && a <= hi)
    .map(([i]) => Number(i)).sort((x, y) => x - y);
}

// The survey, or { error } for a trace with nothing to analyse.
export function finishSurvey(s) {
  if (!s.events) return { error: "no events: the trace's traceEvents array is empty" };
  if (!s.ops && s.legacy) {
    return { error: 'an older Kineto format (categories "Operator", "Kernel", "Runtime": ' +
                    "torch 1.8 to 1.10), which roofline profile does not read: record the " +
                    "trace again with torch 1.11 or later" };
  }
  if (!s.ops && !s.kernels) {
    return { error: 'no CPU ops (cat "cpu_op"): not a PyTorch profiler trace' };
  }
  if (!s.shaped && !s.kernels) {
    return { error: "no shapes recorded: profile with record_shapes=True, so each op's FLOPs " +
                    "and bytes can be computed" };
  }
  return s;
}

const stepNumbers = (info) => Object.keys(info.steps).map(Number).sort((a, b) => a - b);

// The window of step `step` (null: the last; "all": the whole trace; "N-M": steps N to M), or
// { error, field }.
export function pickStep(info, step = null) {
  const numbers = stepNumbers(info);
  if (step === "all") {
    const [lo, hi] = info.span;
    return { name: "the whole trace", ts: lo ?? 0, dur: (hi ?? 0) - (lo ?? 0), tid: null,
             whole: true };
  }
  if (!numbers.length) {
    if (step !== null) {
      return { error: `no ProfilerStep#${step}: the trace has no ProfilerStep annotations ` +
                      "(profile with a schedule and call prof.step())" };
    }
    const [lo, hi] = info.span;
    return { name: "the whole trace", ts: lo ?? 0, dur: (hi ?? 0) - (lo ?? 0), tid: null,
             whole: true };
  }
  const range = typeof step === "string" ? /^(\d+)-(\d+)$/.exec(step) : null;
  if (range) {   // steps N to M, one window from N's start to M's end
    const [lo, hi] = [Number(range[1]), Number(range[2])];
    const missing = [lo, hi].find((k) => !numbers.includes(k));
    if (missing !== undefined || lo > hi) {
      return { error: `no ProfilerStep#${missing ?? lo}-${hi}; the trace has steps ` +
                      numbers.join(", "), field: "step" };
    }
    const a = info.steps[lo], b = info.steps[hi];
    return { name: `ProfilerStep#${lo}–#${hi}`, ts: a.ts, dur: b.ts + b.dur - a.ts, tid: a.tid };
  }
  const n = step === null ? numbers[numbers.length - 1] : step;
  if (!numbers.includes(n)) {
    return { error: `no ProfilerStep#${n}; the trace has steps ${numbers.join(", ")}`,
             field: "step" };
  }
  return { name: `ProfilerStep#${n}`, ...info.steps[n] };
}

// --- pass 2: the step's ops on its thread ---------------------------------------------------
// The events of `events` inside the step's window, as [name, ts, dur, args] (args: the shapes).
export function stepEvents(w, events) {
  const lo = w.ts, hi = w.ts + w.dur, out = [];
  for (const e of events) {
    if (e === null || typeof e !== "object" || e.ph !== "X" ||
        (e.cat !== "cpu_op" && e.cat !== "user_annotation")) continue;
    if (w.tid !== null && e.tid !== w.tid) continue;
    const ts = Number(e.ts || 0), dur = Number(e.dur || 0);
    const name = String(e.name ?? "");
    if (ts < lo || ts + dur > hi + 1e-3 || STEP.test(name)) continue;
    const a = e.args || {};
    const kept = { "Input Dims": a["Input Dims"], "Input type": a["Input type"] };
    if (Array.isArray(a["Concrete Inputs"]) && CAUSAL_AT[name] !== undefined) {
      kept["Concrete Inputs"] = a["Concrete Inputs"];   // is_causal: costs.mjs reads it
    }
    if (typeof a.flops === "number") kept.flops = a.flops;   // torch's own count, if recorded
    out.push([name, ts, dur, kept]);
  }
  return out;
}

// The step's ops nested by their spans.
export function stepTree(nodes) {
  const found = nodes.map(([name, ts, dur, args]) => ({ name, ts, dur, args, children: [] }));
  found.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const roots = [], stack = [];
  for (const n of found) {
    while (stack.length && n.ts >= stack[stack.length - 1].ts + stack[stack.length - 1].dur - 1e-6) {
      stack.pop();
    }
    (stack.length ? stack[stack.length - 1].children : roots).push(n);
    stack.push(n);
  }
  return roots;
}

// Each op's span to a family, to unmodelled, or (a wrapper's own time) to dispatch.
export function attribute(roots, terms) {
  const fam = Object.fromEntries(FAMILIES.map((f) => [f, { count: 0, time_us: 0, flops: 0,
    bytes: 0, useful_flops: 0, calls: [], torch: { ops: 0, ours: 0, torch: 0, byOp: {} } }]));
  // torch's own FLOP count of an op and everything it ran (aten::linear's is its aten::mm's)
  const torchFlops = (n) => (typeof n.args.flops === "number" ? n.args.flops : 0) +
    n.children.reduce((s, ch) => s + torchFlops(ch), 0);
  const unmodelled = new Map();
  let wrapperUs = 0;
  // each op priced once (walk() and priced() both ask)
  const costFor = (n) => (n._cost !== undefined ? n._cost
    : (n._cost = costOf(n.name, n.args, n.children.length > 0, terms)));
  const priced = (n) => (n._priced ??= costFor(n) !== null || n.children.some(priced));
  const walk = (n) => {
    const c = costFor(n);
    if (c !== null) {
      const f = fam[c.family];
      f.count += 1;
      f.time_us += n.dur;
      f.flops += c.flops;
      f.bytes += c.bytes;
      f.useful_flops += c.useful_flops;
      f.calls.push([n.dur, c.flops, c.bytes]);
      const t = torchFlops(n);
      if (t > 0) {
        f.torch.ops += 1;
        f.torch.ours += c.flops;
        f.torch.torch += t;
        const o = (f.torch.byOp[n.name] ??= { ops: 0, ours: 0, torch: 0 });
        o.ops += 1;
        o.ours += c.flops;
        o.torch += t;
      }
      return;
    }
    if (!n.children.some(priced)) {
      const u = unmodelled.get(n.name) || { count: 0, time_us: 0, torch_flops: 0 };
      u.count += 1;
      u.time_us += n.dur;
      u.torch_flops += torchFlops(n);
      unmodelled.set(n.name, u);
      return;
    }
    wrapperUs += n.dur - n.children.reduce((s, ch) => s + ch.dur, 0);
    n.children.forEach(walk);
  };
  roots.forEach(walk);
  return { families: fam, unmodelled, wrapper_us: wrapperUs,
           covered_us: roots.reduce((s, r) => s + r.dur, 0) };
}

function median(xs) {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const fmt3 = (v) => Number(v.toPrecision(3)).toString();

// The report of one step: see the head of this file. `roof`: { label, peak_flops_per_s,
// bandwidth_bytes_per_s, basis }; `terms`: roofline.profile.terms.
export function stepReport({ info, window: w, nodes, roof, terms, trace }) {
  const a = attribute(stepTree(nodes), terms);
  const wallS = w.dur * 1e-6;
  const fam = a.families;
  const dispatchUs = median(fam.views.calls.map(([d]) => d));
  const peak = roof.peak_flops_per_s, bw = roof.bandwidth_bytes_per_s, ridge = peak / bw;
  const families = {};
  for (const [f, v] of Object.entries(fam)) {
    if (!v.count) continue;
    const t = v.time_us * 1e-6;
    const roofS = v.calls.reduce((s, [, fl, by]) => s + Math.max(fl / peak, by / bw), 0);
    const ai = v.bytes ? v.flops / v.bytes : null;
    const bound = ai !== null ? Math.min(peak, ai * bw) : null;
    const achieved = t ? v.flops / t : 0;
    const perCallRoofUs = roofS / v.count * 1e6;
    const verdict = f === "views" ? "dispatch (no work)"
      : perCallRoofUs < dispatchUs ? "launch-bound"
        : ai !== null && ai >= ridge ? "compute-bound" : "memory-bound";
    families[f] = {
      count: v.count, time_s: t, share_of_step: t / wallS, flops: v.flops, bytes: v.bytes,
      useful_flops: v.useful_flops, intensity_flops_per_byte: ai, achieved_flops_per_s: achieved,
      bound_flops_per_s: bound, share_of_bound: bound ? achieved / bound : null,
      roofline_time_s: roofS, verdict,
      torch_flops: v.torch.ops ? { ops: v.torch.ops, ours: v.torch.ours, torch: v.torch.torch,
                                   ratio: v.torch.ours / v.torch.torch,
                                   by_op: Object.entries(v.torch.byOp)
                                     .map(([name, o]) => ({ name, ...o, ratio: o.ours / o.torch }))
                                     .sort((x, y) => Math.abs(y.ours - y.torch) -
                                                     Math.abs(x.ours - x.torch)) } : null,
      note: bound && achieved > bound
        ? `above the DRAM roof: its ${fmt3(v.bytes / v.count / 1e6)} MB per op fit in the ` +
          "caches, whose roofs are higher (roofline measure's in-cache figures)" : "",
    };
  }
  const sum = (fs, key) => fs.reduce((s, f) => s + (families[f] ? families[f][key] : 0), 0);
  const useful = sum(USEFUL, "useful_flops");
  const matrixS = sum(USEFUL, "time_s");
  const memoryS = Object.entries(families).filter(([f]) => !USEFUL.includes(f) && f !== "views")
    .reduce((s, [, v]) => s + v.time_s, 0);
  const viewsS = families.views ? families.views.time_s : 0;
  const gapsS = wallS - a.covered_us * 1e-6;
  const unmodelledS = [...a.unmodelled.values()].reduce((s, u) => s + u.time_us, 0) * 1e-6;
  const idealS = useful / peak;
  const parts = [["useful matrix math at peak", idealS],
                 ["matrix ops below their roof", matrixS - idealS],
                 ["memory-bound ops", memoryS],
                 ["dispatch and gaps", viewsS + a.wrapper_us * 1e-6 + gapsS],
                 ["communication", 0],
                 ["unmodelled", unmodelledS]];
  const total = parts.reduce((s, [, x]) => s + x, 0);
  if (Math.abs(total - wallS) > 0.01 * wallS) {
    throw new Error(`the waterfall sums to ${total} s, the step is ${wallS} s`);
  }
  const leaks = [["matmul", matrixS - idealS], ["memory", memoryS], ["dispatch", parts[3][1]],
                 ["unmodelled", unmodelledS]]
    .map((kv, i) => [...kv, i]).sort((x, y) => y[1] - x[1] || x[2] - y[2]).slice(0, 3);
  return {
    trace, step: w.name, wall_s: wallS, device: info.kernels ? "cuda" : "cpu",
    recorded: info.meta.roofline_recorded ?? null,
    roof: { label: roof.label, peak_flops_per_s: peak, bandwidth_bytes_per_s: bw,
            ridge_flops_per_byte: ridge, basis: roof.basis },
    steps: stepNumbers(info), dispatch_per_op_s: dispatchUs * 1e-6, families,
    unmodelled: [...a.unmodelled.entries()].sort((x, y) => y[1].time_us - x[1].time_us)
      .map(([name, u]) => ({ name, count: u.count, time_s: u.time_us * 1e-6,
                             torch_flops: u.torch_flops })),
    flops_check: flopsCheck(families, a.unmodelled),
    mfu: useful / (wallS * peak), useful_flops: useful,
    waterfall: parts.map(([part, s]) => ({ part, time_s: s, share: s / wallS })),
    waterfall_sum_s: total,
    leaks: leaks.map(([leak, s]) => ({ leak, time_s: s, share: s / wallS, advice: ADVICE[leak] })),
  };
}

export const FLOPS_TOLERANCE = 0.01;
// Where the trace carries torch's own FLOP counts (args "flops"): per family, the model's FLOPs
// against torch's over the ops torch counted, and whether they differ by more than 1 %; an op
// torch counted but the model does not know is named too. Empty: the trace has no counts.
export function flopsCheck(families, unmodelled) {
  const out = [];
  for (const [family, v] of Object.entries(families)) {
    if (!v.torch_flops) continue;
    const { ops, ours, torch, ratio, by_op: byOp } = v.torch_flops;
    const differs = (r) => Math.abs(r - 1) > FLOPS_TOLERANCE;
    out.push({ family, ops, ours, torch, ratio, differs: differs(ratio),
               where: byOp.filter((o) => differs(o.ratio)) });
  }
  for (const [name, u] of unmodelled) {
    if (u.torch_flops > 0) {
      out.push({ family: `unmodelled: ${name}`, ops: u.count, ours: null,
                 torch: u.torch_flops, ratio: null, differs: true, where: [] });
    }
  }
  return out;
}

// The measured CPU roofline of a `roofline measure` JSON: its DRAM roof and fp32 matmul roof;
// { error } when the file has neither.
export function cpuRoof(measurement) {
  const c = (measurement && measurement.ceilings) || {};
  const bw = (c.bandwidth || []).find((b) => b.level === "DRAM");
  const peak = (c.compute || []).find((p) => p.precision === "fp32");
  if (!bw || !peak) {
    return { error: "not a roofline measure JSON: it needs a DRAM bandwidth and an fp32 " +
                    "compute ceiling" };
  }
  return { label: measurement.label || "measured CPU", peak_flops_per_s: peak.flops_per_s,
           bandwidth_bytes_per_s: bw.bandwidth_bytes_per_s,
           basis: "measured (roofline measure): fp32 matmul roof and DRAM STREAM roof" };
}

// Which analysis a surveyed trace gets: "gpu" (it has GPU kernels: gpu.mjs) or "cpu" (this
// file's, on a measured CPU roofline).
export function deviceOf(info) {
  return info.kernels ? "gpu" : "cpu";
}
