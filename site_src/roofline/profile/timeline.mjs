// A GPU step's kernels on their timeline — the one copy, run by the browser and by the build's
// JS engine through gpu.mjs: interval arithmetic (the union of kernels over streams, the sweep
// that gives each instant to the first class running), kernel names without their argument
// lists and their families by data/kernels.toml's rules, and the step's time account.

// --- interval arithmetic ----------------------------------------------------------------------
// The union of [start, end] intervals, sorted and merged.
export function union(intervals) {
  const s = intervals.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  const out = [];
  for (const [a, b] of s) {
    if (out.length && a <= out[out.length - 1][1]) {
      if (b > out[out.length - 1][1]) out[out.length - 1][1] = b;
    } else {
      out.push([a, b]);
    }
  }
  return out;
}

const covered = (ivs) => ivs.reduce((s, [a, b]) => s + (b - a), 0);

// Each instant covered by some interval, given to the first class (in `order`) running then:
// { class: time }. `items`: [start, end, class]. The values sum to the union's length.
export function sweep(items, order) {
  const rank = new Map(order.map((c, i) => [c, i]));
  const edges = [];
  for (const [a, b, c] of items) {
    if (!(b > a)) continue;
    edges.push([a, 1, rank.get(c)], [b, -1, rank.get(c)]);
  }
  edges.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const active = new Array(order.length).fill(0), out = Object.fromEntries(order.map((c) => [c, 0]));
  let prev = null;
  for (const [t, d, r] of edges) {
    if (prev !== null && t > prev) {
      const top = active.findIndex((n) => n > 0);
      if (top >= 0) out[order[top]] += t - prev;
    }
    active[r] += d;
    prev = t;
  }
  return out;
}

// --- kernel families ------------------------------------------------------------------------
// A classifier from data/kernels.toml's rules: (name, cat) -> family id.
export function classifier(rules) {
  const compiled = rules.map((r) => ({ family: r.family, cats: r.categories || null,
    re: r.pattern ? new RegExp(r.pattern, r.ignore_case === false ? "" : "i") : null }));
  const memo = new Map();
  return (name, cat) => {
    const key = `${cat}\u0000${name}`;
    let f = memo.get(key);
    if (f !== undefined) return f;
    f = "other";
    const bare = bareName(name);
    for (const r of compiled) {
      if (r.cats && !r.cats.includes(cat)) continue;
      if (r.re && !r.re.test(bare)) continue;
      f = r.family;
      break;
    }
    memo.set(key, f);
    return f;
  };
}

// A kernel's name without its return type and its argument list (the last top-level "(…)": a
// template's lambdas have parentheses of their own), for rules and tables.
export function bareName(name) {
  let s = String(name).replace(/^void /, "");
  if (s.endsWith(")")) {
    let depth = 0;
    for (let i = s.length - 1; i >= 0; i--) {
      const c = s[i];
      if (c === ")" || c === ">") depth += 1;
      else if (c === "(" || c === "<") depth -= 1;
      if (depth === 0 && c === "(") {
        s = s.slice(0, i);
        break;
      }
    }
  }
  return s;
}

export function shortName(name) {
  const s = bareName(name);
  return s.length > 96 ? `${s.slice(0, 95)}…` : s;
}

function quantile(xs, q) {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1));
  return s[i];
}

// --- the time account -------------------------------------------------------------------------
// The step's kernels ([ts, dur, stream, corr, ext, name, cat, family, launch]) accounted: busy,
// idle by cause, families, streams, communication exposed and overlapped, launches, top kernels.
export function timeAccount(kernels, families) {
  const span = [Math.min(...kernels.map((k) => k[0])),
                Math.max(...kernels.map((k) => k[0] + k[1]))];
  const spanUs = span[1] - span[0];
  const cls = (f) => (f === "communication" ? "communication" : f === "memory" ? "memory"
    : "compute");
  const parts = sweep(kernels.map((k) => [k[0], k[0] + k[1], cls(k[7])]),
                      ["compute", "communication", "memory"]);
  const busy = union(kernels.map((k) => [k[0], k[0] + k[1]]));
  const busyUs = covered(busy);
  const commUs = covered(union(kernels.filter((k) => k[7] === "communication")
    .map((k) => [k[0], k[0] + k[1]])));
  // idle gaps, each split at the launch of the kernel that ended it
  const firstAt = new Map();
  for (const k of kernels) if (!firstAt.has(k[0]) || firstAt.get(k[0])[8] === null) firstAt.set(k[0], k);
  let hostUs = 0, otherUs = 0;
  for (let i = 1; i < busy.length; i++) {
    const gapStart = busy[i - 1][1], gapEnd = busy[i][0], gap = gapEnd - gapStart;
    const next = firstAt.get(gapEnd);
    const launched = next && next[8] !== null ? next[8][0] : null;
    const host = launched === null ? 0 : Math.min(gap, Math.max(0, launched - gapStart));
    hostUs += host;
    otherUs += gap - host;
  }
  const byFamily = new Map(families.map((f) => [f.id, { count: 0, time_us: 0 }]));
  const byStream = new Map(), byName = new Map();
  const delays = [], calls = [];
  let short = 0;
  for (const k of kernels) {
    const f = byFamily.get(k[7]) || byFamily.get("other");
    f.count += 1;
    f.time_us += k[1];
    const s = byStream.get(k[2]) || { count: 0, ivs: [] };
    s.count += 1;
    s.ivs.push([k[0], k[0] + k[1]]);
    byStream.set(k[2], s);
    const name = shortName(k[5]);
    const n = byName.get(name) || { family: k[7], count: 0, time_us: 0 };
    n.count += 1;
    n.time_us += k[1];
    byName.set(name, n);
    if (k[8] !== null && k[6] === "kernel") {
      delays.push(k[0] - (k[8][0] + k[8][1]));
      calls.push(k[8][1]);
      if (k[1] < k[8][1]) short += 1;
    }
  }
  const s = (us) => us * 1e-6;
  const launchedKernels = delays.length;
  return {
    start_us: span[0], span_s: s(spanUs), busy_s: s(busyUs), idle_s: s(spanUs - busyUs),
    idle_host_s: s(hostUs), idle_other_s: s(otherUs),
    compute_s: s(parts.compute), communication_s: s(commUs),
    communication_exposed_s: s(parts.communication),
    communication_overlapped_s: s(commUs - parts.communication),
    memory_only_s: s(parts.memory),
    families: families.map((f) => ({ family: f.id, label: f.label,
      count: byFamily.get(f.id).count, time_s: s(byFamily.get(f.id).time_us) }))
      .filter((f) => f.count),
    streams: [...byStream.entries()].map(([stream, v]) => ({ stream, count: v.count,
      busy_s: s(covered(union(v.ivs))) })).sort((a, b) => b.busy_s - a.busy_s),
    launch: { kernels: kernels.filter((k) => k[6] === "kernel").length,
              linked: launchedKernels, shorter_than_launch: short,
              launch_call_median_s: calls.length ? s(quantile(calls, 0.5)) : null,
              launch_delay_median_s: delays.length ? s(quantile(delays, 0.5)) : null,
              launch_delay_p90_s: delays.length ? s(quantile(delays, 0.9)) : null },
    top: [...byName.entries()].sort((a, b) => b[1].time_us - a[1].time_us).slice(0, 10)
      .map(([name, v]) => ({ name, family: v.family, count: v.count, time_s: s(v.time_us) })),
  };
}

// Each [name, cat] classed by `rules` (for the data file's test: its examples, its own order).
export function classifierFamilies(rules, kernels) {
  const familyOf = classifier(rules);
  return kernels.map(([name, cat]) => familyOf(name, cat));
}
