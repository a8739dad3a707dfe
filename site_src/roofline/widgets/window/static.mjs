// The serving window drawn as static SVG (three panels over one batch axis: tokens per second
// per chip, MFU, price per 1M tokens) and its facts as text, from window.mjs's figures. The
// build runs it (roofline.widgets.window.block, through the embedded JS engine) for the first
// frame, on paper and without JavaScript; the page runs it again as the reader moves a control
// (view.mjs). One drawing per column width, as the roofline's (VARIANTS).
import { drawChart } from "../../render/js/chart.mjs";
import { num, percent, seconds } from "../../render/js/format.mjs";
import { escapeHtml } from "../../render/js/table.mjs";
import { windowAt } from "./window.mjs";

// Two drawings: wide, and narrow for columns under 688 px (a phone's, scaled up a little on a
// tablet's: its text only grows). A third, medium one cost the lesson 1.4 KB gzipped.
export const VARIANTS = [[688, "rl-window-wide"], [320, "rl-window-narrow"]];
export const COLORS = { launch: "#8250df", memory: "#d1352b", compute: "#2e9e48",
                        line: "#2f7fd8", mbu: "#0f7b6c", nofit: "muted", latency: "#b35900" };
// The key's entries, in its order: [regime, words, swatch colour, swatch opacity].
export const KEY = [["launch", "launch-bound", COLORS.launch, 0.35],
                    ["memory", "memory-bound", COLORS.memory, 0.35],
                    ["compute", "compute-bound", COLORS.compute, 0.35],
                    ["nofit", "does not fit", "#8c959f", 0.6]];
export const REGIME_NAMES = { launch: "launch-bound", memory: "memory-bound",
                              compute: "compute-bound" };

// Ticks on a log axis at 1, 2 and 5 times each power of ten inside [lo, hi] (powers of ten
// alone where there are more than six of those).
export function ticks125(lo, hi) {
  const out = [];
  for (let k = Math.floor(Math.log10(lo)); k <= Math.ceil(Math.log10(hi)); k += 1) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** k;
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push(Number(v.toPrecision(6)));
    }
  }
  const decades = out.filter((v) => Number.isInteger(Math.log10(v)) ||
                                    Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9);
  return decades.length > 6 ? decades : out.length > 9 ? out.filter((v) => !/^2/.test(String(v))) : out;
}

function batchTicks(hi) {
  const out = [];
  for (let b = 1; b <= hi; b *= 2) out.push(b);
  return out.length > 9 ? out.filter((_, i) => i % 2 === 0) : out;
}

function yRange(values) {
  const v = values.filter((x) => x > 0 && Number.isFinite(x));
  const lo = Math.min(...v), hi = Math.max(...v);
  return [lo / 1.6, hi * 2.2];
}

// Dollars: a price per GPU-hour to the cent, a price per 1M tokens to three figures.
export function hourly(x) { return `$${x.toFixed(2)}`; }
export function money(x) { return `$${num(x, 3)}`; }
// A count written out whole (a context of 4,096 tokens, not 4,100).
export function whole(x) { return num(Math.round(x), 16); }
// Bytes of memory in binary units, as the chips are built (GiB, or MiB under one GiB).
export function binary(x) {
  return x >= 2 ** 30 ? `${num(x / 2 ** 30, 3)} GiB` : `${num(x / 2 ** 20, 3)} MiB`;
}

// The series points a drawing needs: about 40 to each decade of batch (a smooth curve at any
// of the drawing widths), always with the first, the wall and the last point.
export function drawnPoints(series, wall) {
  const out = [];
  let last = 0;
  for (const p of series) {
    const edge = p === series[0] || p === series[series.length - 1] || p.batch === wall ||
      p.batch === wall + 1;
    if (edge || Math.log10(p.batch) - Math.log10(last) >= 1 / 40) {
      out.push(p);
      last = p.batch;
    }
  }
  return out;
}

// What the panels shade, left to right: each regime where it holds inside the window, and
// past the wall "does not fit" ({regime, x: [from, to]} in batch, each of some width).
export function shaded(W) {
  const xr = [0.8, W.x_max * 1.12];
  const end = W.wall >= 1 ? W.wall + 0.5 : xr[0];
  const out = W.bands.filter((b) => b.from - 0.5 < end)
    .map((b) => ({ regime: b.regime, x: [Math.max(xr[0], b.from - 0.5), Math.min(end, b.to + 0.5)] }));
  if (W.wall < W.x_max) out.push({ regime: "nofit", x: [end, xr[1]] });
  return out.filter((r) => r.x[1] > r.x[0]);
}

// The key under the figure: a swatch for each regime the panels shade, and no other (HTML).
export function windowKey(W) {
  const drawn = new Set(shaded(W).map((r) => r.regime));
  const items = KEY.filter(([k]) => drawn.has(k))
    .map(([, words, color, opacity]) => `<span style="background:${color};opacity:${opacity}">` +
      `</span>${escapeHtml(words)}`);
  return `Shaded: ${items.join(", ")}.`;
}

// Where the view's price comes from (HTML): the chip's bundled price and its source, the
// reader's own, or why there is none. `controls`: the page has a price field to type into.
export function windowSource(P, st, controls = true) {
  const price = P.prices[st.hardware];
  const chip = escapeHtml(P.chips[st.hardware].label);
  if (st.price === null) {
    return `No price: the bundled prices have none for the ${chip}` +
      (controls ? "; type one per GPU-hour to draw the price per 1M tokens." : ".");
  }
  if (!price || st.price !== price.usd_per_hour) {
    return `Price: ${hourly(st.price)} per GPU-hour, ` +
      (controls ? "the one typed here" : "as given") +
      (price ? ` (the bundled price for the ${chip} is ${hourly(price.usd_per_hour)}).` : ".");
  }
  const [lo, hi] = price.range;
  return `Price: ${hourly(price.usd_per_hour)} per GPU-hour, the midpoint of ` +
    `${hourly(lo)}–${hourly(hi)} (${escapeHtml(price.tier)}, ${escapeHtml(price.date)}): ` +
    `<a href="${escapeHtml(price.url)}">${escapeHtml(price.source)}</a>. Prices move` +
    (controls ? "; type your own." : " (<code>roofline window --price</code> takes yours).");
}

// The view's settings in one line, for paper (where the controls are not printed).
export function windowRecord(P, st) {
  const parts = [P.models[st.model].label, P.chips[st.hardware].label,
                 `weights in ${st.precision.toUpperCase()}`,
                 `KV cache in ${st.kv_precision.toUpperCase()}`,
                 `${whole(st.context)} tokens of context`,
                 (st.tp || 1) > 1 ? `tensor parallel over ${st.tp} chips` : "one chip per replica",
                 P.launch[st.launch].label,
                 st.price === null ? "no price" : `${hourly(st.price)} per GPU-hour`,
                 st.latency_ms === null ? "no latency budget"
                   : `${num(st.latency_ms)} ms per token budget`];
  return `Settings: ${parts.join(", ")}.`;
}

// One panel: `key` (a series field), its y label and how its best point reads.
function panel(W, width, height, spec) {
  const s = drawnPoints(W.series, W.wall);
  const xr = [0.8, W.x_max * 1.12];
  const also = spec.also || [];
  const yr = yRange(s.flatMap((p) => [p[spec.key], ...also.map((a) => p[a.key])]));
  const fit = s.filter((p) => p.fits), over = s.filter((p) => !p.fits || p.batch === W.wall);
  const end = W.wall >= 1 ? W.wall + 0.5 : xr[0];
  const regions = shaded(W).map((r) => ({ x: r.x, color: COLORS[r.regime],
                                          opacity: r.regime === "nofit" ? 0.22 : 0.1 }));
  const lines = [];
  if (fit.length) {
    lines.push({ x: fit.map((p) => p.batch), y: fit.map((p) => p[spec.key]), color: COLORS.line,
                 width: 2.5, cls: "rl-window-series" });
  }
  for (const a of also) {
    if (fit.length) {
      lines.push({ x: fit.map((p) => p.batch), y: fit.map((p) => p[a.key]), color: a.color,
                   width: 2.5, cls: `rl-window-${a.key}`, label: a.label, labelColor: a.color });
    }
  }
  if (over.length > 1) {
    lines.push({ x: over.map((p) => p.batch), y: over.map((p) => p[spec.key]), color: "muted",
                 width: 1.5, dash: "4 3", cls: "rl-window-nofit" });
  }
  if (W.wall >= 1) {
    lines.push({ x: [end, end], y: yr, color: "ink", width: 1.5, dash: "6 3",
                 cls: "rl-window-wall", label: spec.wallLabel ? `memory wall: B = ${whole(W.wall)}` : "",
                 labelColor: "ink" });
  }
  if (W.latency_limit !== null && W.latency_limit >= 1 && W.latency_limit < W.wall) {
    lines.push({ x: [W.latency_limit + 0.5, W.latency_limit + 0.5], y: yr, color: COLORS.latency,
                 width: 1.5, dash: "2 3", cls: "rl-window-latency",
                 label: spec.wallLabel ? `${num(W.state.latency_ms)} ms/token: B ≤ ${num(W.latency_limit)}` : "",
                 labelColor: COLORS.latency });
  }
  const points = [];
  if (W.best && spec.best(W.best) !== null) {
    points.push({ x: W.best.batch, y: spec.value(W.best), r: 5, color: COLORS.line, ring: 2,
                  cls: "rl-window-best", label: spec.best(W.best) });
  }
  return drawChart({
    width, height, margin: spec.margin, cls: `rl-chart rl-window-svg ${spec.cls}`, font: 11,
    title: spec.title,
    x: { range: xr, ticks: batchTicks(W.x_max), format: (v) => num(v),
         label: spec.xLabel || "" },
    y: { range: yr, ticks: ticks125(...yr), format: spec.format, label: spec.yLabel },
    regions, lines, points,
  });
}

// The price panel's place when there is no price: the same size, so the figure keeps its height
// as the chip or the price changes, saying why it is empty.
function noPrice(width, height, cls) {
  const words = "No price per GPU-hour, so no price per 1M tokens.";
  return `<svg class="rl-chart rl-window-svg rl-window-noprice ${cls}" viewBox="0 0 ${width} ` +
    `${height}" width="${width}" height="${height}" role="img" aria-label="${words}">` +
    `<rect x="0.5" y="0.5" width="${width - 1}" height="${height - 1}" fill="none" ` +
    `stroke="var(--rl-frame,#8c959f)" stroke-dasharray="4 3"/>` +
    `<text x="${width / 2}" y="${height / 2}" text-anchor="middle" font-size="12" ` +
    `fill="var(--rl-muted)">${words}</text></svg>`;
}

// The three panels at one width, as one <div>.
export function windowSvg(P, W, width, cls) {
  const narrow = width < 400;
  const left = narrow ? 60 : 64;
  const top = [10, narrow ? 8 : 16, 24, left];
  const bottom = [10, narrow ? 8 : 16, 44, left];
  const h = narrow ? 150 : 165;
  const st = W.state;
  const parts = [
    panel(W, width, h, { key: "tokens_per_s", value: (b) => b.tokens_per_s, cls, margin: top,
                         yLabel: narrow ? "tokens/s" : "tokens/s per chip", wallLabel: true,
                         format: (v) => (v >= 1000 ? `${num(v / 1000)}k` : num(v)),
                         title: `Decode tokens per second per ${P.chips[st.hardware].label}`,
                         best: (b) => `${num(b.tokens_per_s)} tokens/s at B = ${num(b.batch)}` }),
    panel(W, width, h, { key: "mfu", value: (b) => b.mfu, cls, margin: st.price === null ? bottom : top,
                         yLabel: "MFU, MBU", format: (v) => percent(v, 2),
                         xLabel: st.price === null ? "batch (sequences decoding at once)" : "",
                         also: [{ key: "mbu", color: COLORS.mbu, label: "MBU" }],
                         title: "FLOPs (MFU) and bandwidth (MBU) utilisation",
                         best: (b) => `MFU ${percent(b.mfu, 3)}, MBU ${percent(b.mbu, 3)}` }),
  ];
  if (st.price !== null) {
    parts.push(panel(W, width, h + 20, {
      key: "price_per_million", value: (b) => b.price_per_million, cls, margin: bottom,
      yLabel: narrow ? "$ / 1M" : "$ per 1M tokens", format: (v) => `$${num(v)}`,
      xLabel: "batch (sequences decoding at once)",
      title: `Price per 1M tokens at ${hourly(st.price)} per GPU-hour` +
        (st.tp > 1 ? ` × ${st.tp} chips` : ""),
      best: (b) => `${money(b.price_per_million)} per 1M tokens` }));
  } else {
    parts.push(noPrice(width, h + 20, cls));
  }
  return `<div class="rl-window-drawing ${cls}">${parts.join("")}</div>`;
}

// The launch mode in words: "kernels replayed as CUDA graphs, 0.5 µs per kernel".
export function launchText(P, st) {
  const m = P.launch[st.launch];
  return (st.launch === "graphs" ? "kernels replayed as CUDA graphs" : "kernels launched eagerly") +
    `, ${num(m.seconds * 1e6, 3)} µs per kernel`;
}

// The facts under the figure, as plain sentences (the same on the page, on paper and in the CLI).
export function facts(P, W) {
  const st = W.state, chip = P.chips[st.hardware];
  const mem = W.memory;
  const perSeq = mem.per_sequence_per_token * st.context + mem.working_per_sequence;
  const kv = st.kv_precision.toUpperCase();
  const cap = W.capacity;
  const seen = chip.visible
    ? `the ${binary(cap.visible)} the ${chip.label} leaves to programs`
    : `the ${binary(cap.visible)} the ${chip.label} has as built (the catalog gives no figure ` +
      "for what programs see of it)";
  const share = `${binary(cap.usable)}, ${percent(cap.share, 3)} of ${seen}` +
    (cap.share === P.memory_utilisation.default ? " (vLLM's default share)" : "");
  const tp = W.tp, perChip = tp > 1 ? " per chip" : "";
  const out = [];
  const fix = W.smallest_tp === null
    ? (chip.link ? " Not even 8 chips hold it: take a smaller precision or context."
      : " The catalog gives this chip no scale-up link to split it over: take a smaller " +
        "precision or context.")
    : W.smallest_tp > tp
      ? ` Split over ${W.smallest_tp} chips it fits: choose tensor parallelism ` +
        `${W.smallest_tp} (tp).`
      : " Take a smaller precision or context.";
  out.push(W.wall >= 1
    ? `Memory wall: B = ${num(W.wall)}${tp > 1 ? " per replica" : ""}, a necessary condition, ` +
      `not a sufficient one. The weights (${binary(mem.weights)}${perChip}), each sequence's KV ` +
      `cache for ${whole(st.context)} tokens in ${kv} ` +
      `(${binary(mem.per_sequence_per_token * st.context)}${perChip}) and the batch's ` +
      `activation workspace (${binary(cap.workspace)}) fit in ${share}; fragmentation and ` +
      "a server's own pools can need more."
    : `Does not fit: the weights (${binary(mem.weights)}${perChip}) and one sequence ` +
      `(${binary(perSeq)}) need more than ${share}.${fix}`);
  if (tp > 1) {
    const M = P.models[st.model];
    const split = M.mla ? "whole on every chip (MLA's compressed cache has no heads to split)"
      : M.kv_heads < tp ? `by its ${M.kv_heads} KV heads, each kept on ${tp / M.kv_heads} chips`
        : `by its ${M.kv_heads} KV heads`;
    const at = W.best || W.batch_one;
    out.push(`Tensor parallel over ${tp} chips: the weights split over them, the KV cache ` +
             `${split}, and two all-reduces per layer over ${chip.link.name} at ` +
             `${num(chip.link.bandwidth / 1e9)} GB/s per direction, ${percent(at.comm_share, 3)} ` +
             `of the step at B = ${num(W.best ? W.best.batch : 1)} (the link's latency is not ` +
             "in the catalog and is not counted). A replica rents " +
             `${tp} chips: tokens/s are per chip below, and the price is ${tp} × the chip's.`);
  }
  if (st.kv_precision !== "bf16") {
    out.push(`The KV cache is kept in ${kv}, a choice made here (vLLM: --kv-cache-dtype); ` +
             "servers keep it in BF16 unless told, whatever the weights' precision.");
  }
  const bands = W.bands.filter((b) => b.from <= Math.max(1, W.wall))
    .map((b) => `${REGIME_NAMES[b.regime]} for B ${num(b.from)}–${num(Math.min(b.to, W.wall))}`);
  if (W.wall >= 1) out.push(`Regimes inside the window: ${bands.join("; ")}.`);
  const c = W.crossover;
  const ridge = chip.peaks[st.precision] / chip.bandwidth;
  out.push(c.batch === null
    ? `Never compute-bound at this context: as the batch grows, the step's FLOPs per byte tend ` +
      `to ${num(c.ai_limit)}, below the ridge of ${num(ridge)}, because attention reads each ` +
      "sequence's KV cache every step."
    : c.beyond_wall
      ? `Compute-bound from B = ${num(c.batch)}, past the memory wall: this chip cannot hold ` +
        "that batch."
      : `Compute-bound from B = ${num(c.batch)}.`);
  const one = W.batch_one;
  out.push(`${W.wall < 1 ? "Batch 1, were it to fit" : "Batch 1"}: ${seconds(one.step_s)} per ` +
           `token, ${num(one.tokens_per_s)} tokens/s` +
           (tp > 1 ? ` per chip (${num(one.tokens_per_s_replica)} per replica)` : "") + ", MFU " +
           `${percent(one.mfu, 3)}, MBU ${percent(one.mbu, 3)}; launch gaps are ` +
           `${percent(one.launch_share, 3)} of the step ` +
           `(${launchText(P, st)}).`);
  if (st.latency_ms !== null) {
    out.push(W.latency_limit >= 1
      ? `Within ${num(st.latency_ms)} ms per token: B ≤ ${num(W.latency_limit)}` +
        (W.latency_limit === W.wall ? " (the memory wall binds first)." : ".")
      : W.wall < 1
        ? `No batch fits this chip, so none meets ${num(st.latency_ms)} ms per token.`
        : `No batch meets ${num(st.latency_ms)} ms per token: batch 1, the first that fits, ` +
          `takes ${seconds(one.step_s)}.`);
  }
  if (W.best) {
    const b = W.best;
    const where = st.latency_ms !== null ? "Cheapest within the budget" : "Cheapest that fits";
    out.push(`${where}: B = ${num(b.batch)}, ${seconds(b.step_s)} per token, ` +
             `${num(b.tokens_per_s)} tokens/s` +
             (tp > 1 ? ` per chip (${num(b.tokens_per_s_replica)} per replica)` : "") +
             `, MFU ${percent(b.mfu, 3)}, MBU ${percent(b.mbu, 3)}` +
             (b.price_per_million === null ? "."
               : `, ${money(b.price_per_million)} per 1M tokens at ${hourly(st.price)} per ` +
                 `GPU-hour${tp > 1 ? ` × ${tp} chips` : ""}.`));
  }
  return out;
}

// The figure's caption for one state (block.py writes it at build time, view.mjs as the
// reader moves a control).
export function windowCaption(P, st) {
  return `The serving window of ${P.models[st.model].label} on the ` +
    `${P.chips[st.hardware].label} in ${st.precision} (KV cache in ${st.kv_precision}) with ` +
    `${whole(st.context)} tokens of context` +
    ((st.tp || 1) > 1 ? `, split over ${st.tp} chips (tensor parallel)` : "") +
    ` and ${launchText(P, st)}: ` +
    "decode tokens per second per chip, MFU, MBU and price per 1M tokens against the batch, " +
    "each regime shaded where it holds and the memory wall marked.";
}

// The figures and the facts, without drawing (the CLI's and the markers' answer); `rows` as
// windowAt's.
export function windowFacts(P, st, rows = null) {
  const W = windowAt(P, st, rows);
  return { facts: facts(P, W), figures: W };
}

// The whole figure for one state: every width's drawing, the facts and the key.
export function windowFigure(P, st) {
  const W = windowAt(P, st);
  return { svg: VARIANTS.map(([w, cls]) => windowSvg(P, W, w, cls)).join(""),
           facts: facts(P, W), figures: W, key: windowKey(W) };
}
