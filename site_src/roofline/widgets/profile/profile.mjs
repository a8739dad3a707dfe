// A profile report's markup — the one copy, run by the build (the ```roofline-profile fence,
// through block.py) and by the drop page in the browser: the summary, two figures drawn by the
// static-chart engine (chart.mjs) — the step's op families on the measured roofline (each at
// its arithmetic intensity and achieved FLOP/s, under the roof and the bandwidth slope) and the
// waterfall of the step's wall time — the table of op families, the unmodelled ops and the
// leaks. The figures are roofline/profile/analyse.mjs's report; nothing is computed here but
// places on the page.
import { barChart, decades, drawChart } from "../../render/js/chart.mjs";
import { num, percent, si } from "../../render/js/format.mjs";
import { escapeHtml, htmlTable } from "../../render/js/table.mjs";

export const VARIANTS = [[688, "rl-profile-wide"], [480, "rl-profile-medium"],
                         [320, "rl-profile-narrow"]];
const COLORS = { "compute-bound": "#2e9e48", "memory-bound": "#d1352b",
                 "launch-bound": "#8250df" };

function rooflineSvg(R, width, cls) {
  const fams = Object.entries(R.families).filter(([, f]) => f.intensity_flops_per_byte);
  const ais = fams.map(([, f]) => f.intensity_flops_per_byte);
  const ys = fams.map(([, f]) => f.achieved_flops_per_s).filter((y) => y > 0);
  const peak = R.roof.peak_flops_per_s, bw = R.roof.bandwidth_bytes_per_s;
  const x0 = 10 ** Math.floor(Math.log10(Math.min(...ais, R.roof.ridge_flops_per_byte) / 3));
  const x1 = 10 ** Math.ceil(Math.log10(Math.max(...ais, R.roof.ridge_flops_per_byte) * 3));
  const y0 = 10 ** Math.floor(Math.log10(Math.min(...ys, peak) / 3));
  const y1 = 10 ** Math.ceil(Math.log10(peak * 2));
  const ridge = R.roof.ridge_flops_per_byte;
  const narrow = width < 400;
  return drawChart({
    width, height: narrow ? 260 : 300, margin: [12, narrow ? 10 : 16, 44, narrow ? 56 : 70],
    cls: `rl-chart rl-profile-svg ${cls}`, font: 11,
    title: R.kind === "gpu"
      ? `The step's op families on ${R.roof.label}'s roofline (${R.roof.precision} peak, HBM)`
      : `The step's op families on ${R.roof.label}'s measured roofline`,
    x: { range: [x0, x1], ticks: decades(x0, x1), format: (v) => num(v),
         label: "arithmetic intensity (FLOP/byte)" },
    y: { range: [y0, y1], ticks: decades(y0, y1),
         format: (v) => (v >= 1e12 ? `${num(v / 1e12)}T` : v >= 1e9 ? `${num(v / 1e9)}G`
           : v >= 1e6 ? `${num(v / 1e6)}M` : num(v)),
         label: "FLOP/s" },
    lines: [{ x: [x0, ridge, x1], y: [x0 * bw, peak, peak], color: "roof", width: 2.5,
              label: narrow ? "" : R.kind === "gpu" ? "roof" : "measured roof",
              labelColor: "roof" }],
    points: fams.map(([name, f]) => ({ x: f.intensity_flops_per_byte, y: f.achieved_flops_per_s,
                                       r: 5, color: COLORS[f.verdict] || "point",
                                       label: name, title: `${name}: ${f.verdict}` })),
  });
}

// The waterfall's rows, short enough for a phone's drawing (the report's table names them in full).
export const SHORT = { "useful matrix math at peak": "useful math at peak",
                       "matrix ops below their roof": "matrix ops, rest",
                       "memory-bound ops": "memory-bound ops", "dispatch and gaps": "dispatch, gaps",
                       communication: "communication", unmodelled: "unmodelled",
                       "GPU idle (dispatch and gaps)": "GPU idle",
                       "communication (exposed)": "comm. exposed",
                       "unmodelled kernels": "unmodelled", "compute kernels": "compute",
                       "memcpy and memset (alone)": "memcpy/memset",
                       "GPU idle: waiting for the host": "idle: host",
                       "GPU idle: other": "idle: other" };

function waterfallSvg(R, width, cls) {
  const rows = R.waterfall.map((w) => SHORT[w.part] || w.part);
  let left = 0;
  const bars = [], labels = [];
  for (const w of R.waterfall) {
    const share = w.share * 100;
    const row = SHORT[w.part] || w.part;
    bars.push({ row, left, right: left + share, color: /^(useful|compute)/.test(w.part)
      ? "compute" : /^unmodelled/.test(w.part) ? "point" : "memory" });
    // the share beside its bar, on the side with room for it
    const end = left + share;
    const t = percent(w.share, 3);
    labels.push(end <= 70 ? { row, x: end, text: t, align: "left", dx: 4 }
      : left >= 15 ? { row, x: left, text: t, align: "right", dx: -4 }
        : { row, x: end, text: t, align: "right", dx: -4 });   // inside its own long bar
    left += share;
  }
  const narrow = width < 400;
  return barChart({
    width, height: 30 + 28 * rows.length + 40, margin: [30, narrow ? 12 : 20, 40, narrow ? 118 : 130],
    cls: `rl-chart rl-profile-svg ${cls}`, title: `Where ${R.step}'s ${num(R.wall_s * 1e3)} ms went`,
    rows, x: { range: [0, 100], label: "% of the step's wall time", ticks: [0, 25, 50, 75, 100] },
    bars, labels,
  });
}

// Every width's drawing of both figures.
export function profileFigures(R) {
  return VARIANTS.map(([w, cls]) =>
    `<div class="rl-profile-drawing ${cls}">${rooflineSvg(R, w, cls)}${waterfallSvg(R, w, cls)}</div>`)
    .join("");
}

const g = (x) => num(x, 3);
const basename = (p) => String(p).split(/[\\/]/).pop();

// The families (and the unmodelled ops, one row) as the site's responsive table: detail columns
// step aside, then rows become cards, on narrow screens.
export function familiesTable(R, label) {
  const columns = [{ title: "family", wrap: true, priority: 1 }, { title: "ops", align: "right" },
    { title: "time", align: "right", priority: 1 }, { title: "of step", align: "right" },
    { title: "FLOP/byte", align: "right", priority: 3 }, { title: "GFLOP/s", align: "right" },
    { title: "of bound", align: "right" }, { title: "verdict", wrap: true, priority: 1 }];
  const rows = Object.entries(R.families).map(([f, v]) => [
    escapeHtml(f), String(v.count), `${g(v.time_s * 1e3)} ms`, `${g(v.share_of_step * 100)} %`,
    v.intensity_flops_per_byte === null ? "—" : g(v.intensity_flops_per_byte),
    g(v.achieved_flops_per_s / 1e9),
    v.share_of_bound === null ? "—" : `${g(v.share_of_bound * 100)} %`,
    escapeHtml(v.verdict) + (v.note ? "*" : "")]);
  if (R.unmodelled.length) {   // one row here; each op by name under the table
    const t = R.unmodelled.reduce((s, u) => s + u.time_s, 0);
    rows.push(["unmodelled", String(R.unmodelled.reduce((s, u) => s + u.count, 0)),
               `${g(t * 1e3)} ms`, `${g(t / R.wall_s * 100)} %`, "—", "—", "—",
               "not modelled (below)"]);
  }
  return htmlTable(columns, rows, { label });
}

// The unmodelled ops (or kernels) a report names one by one; the rest are counted in one line.
export const UNMODELLED_SHOWN = 12;

function unmodelledList(R) {
  if (!R.unmodelled.length) return "";
  const shown = R.unmodelled.slice(0, UNMODELLED_SHOWN), rest = R.unmodelled.slice(shown.length);
  let items = shown.map((u) => `<li><code>${escapeHtml(u.name)}</code>: ${u.count} ` +
    `op${u.count !== 1 ? "s" : ""}, ${g(u.time_s * 1e3)} ms</li>`).join("");
  if (rest.length) {
    const t = rest.reduce((s, u) => s + u.time_s, 0), n = rest.reduce((s, u) => s + u.count, 0);
    items += `<li>${rest.length} more names: ${n} op${n !== 1 ? "s" : ""}, ${g(t * 1e3)} ms ` +
      "(<code>roofline profile --format csv</code> lists every one)</li>";
  }
  return "<p>Unmodelled ops (the cost model has no function for them: listed with their " +
    `time, never guessed):</p><ul>${items}</ul>`;
}

// The model's FLOPs against torch's own counts, where the trace has them (args "flops").
export function flopsCheckHtml(R) {
  const checks = R.flops_check || [];
  if (!checks.length) return "";
  const fl = (x) => si(x, "FLOP");
  const items = checks.map((c) => {
    if (c.ours === null) {
      return `<li><code>${escapeHtml(c.family.replace(/^unmodelled: /, ""))}</code>: torch ` +
        `counts ${fl(c.torch)} over ${c.ops} op${c.ops !== 1 ? "s" : ""}; the model does not ` +
        "know the op (unmodelled)</li>";
    }
    const head = `${escapeHtml(c.family)}, ${c.ops} op${c.ops !== 1 ? "s" : ""}: `;
    if (!c.differs) return `<li>${head}${fl(c.ours)}, the same as torch's</li>`;
    const where = c.where.map((o) => `<code>${escapeHtml(o.name)}</code> ${fl(o.ours)} against ` +
                                     `${fl(o.torch)}`).join("; ");
    return `<li>${head}the model counts ${fl(c.ours)}, torch ${fl(c.torch)} ` +
      `(<strong>differs</strong>: ${where})</li>`;
  }).join("");
  return "<p>The model's FLOPs against torch's own counts (<code>with_flops=True</code>), over " +
    `the ops torch counted:</p><ul class="rl-profile-flops">${items}</ul>`;
}

// The report's body (everything inside the block's container).
export function reportHtml(R) {
  if (R.kind === "ranks") return ranksHtml(R);
  if (R.kind === "gpu") return gpuReportHtml(R);
  const roof = R.roof, rec = R.recorded, name = basename(R.trace);
  const origin = rec ? ` Recorded on the ${escapeHtml(String(rec.device ?? "?").toUpperCase())} by ` +
    `<code>${escapeHtml(String(rec.script))}</code> with torch ${escapeHtml(String(rec.torch))}.` : "";
  const leaks = R.leaks.map((l) => `<li>${g(l.share * 100)} % of the step: ${escapeHtml(l.advice)}</li>`)
    .join("");
  return [
    `<p><strong>${escapeHtml(R.step)}</strong> of <code>${escapeHtml(name)}</code>: ${g(R.wall_s * 1e3)} ms ` +
    `on the ${escapeHtml(R.device.toUpperCase())}, measured MFU <strong>${g(R.mfu * 100)} %</strong>. ` +
    `Roofline: ${escapeHtml(roof.label)}, ${g(roof.peak_flops_per_s / 1e9)} GFLOP/s and ` +
    `${g(roof.bandwidth_bytes_per_s / 1e9)} GB/s (ridge ${g(roof.ridge_flops_per_byte)} ` +
    `FLOP/byte).${origin}</p>`,
    `<div class="rl-profile-figure">${profileFigures(R)}</div>`,
    familiesTable(R, `Op families of ${name}`),
    unmodelledList(R),
    flopsCheckHtml(R),
    Object.entries(R.families).filter(([, v]) => v.note)
      .map(([f, v]) => `<p>* ${escapeHtml(f)}: ${escapeHtml(v.note)}.</p>`).join(""),
    `<p>Top leaks:</p><ol>${leaks}</ol>`,
    `<p class="roofline-caption">The op families of ${escapeHtml(R.step)} of ${escapeHtml(name)} on the ` +
    "measured roofline (each at its arithmetic intensity and achieved FLOP/s) and where the " +
    "step's wall time went.</p>",
  ].join("\n");
}

// --- a GPU trace's report ------------------------------------------------------------------------
const ms = (s) => `${g(s * 1e3)} ms`;
const pc = (x, of) => `${g(x / of * 100)} %`;

// The time account: where the step's GPU time went, and the kernel families.
export function accountHtml(R) {
  const a = R.account, w = R.wall_s;
  const rows = [["GPU busy (any stream)", a.busy_s], ["compute kernels", a.compute_s],
    ["communication, exposed", a.communication_exposed_s],
    ["memcpy and memset alone", a.memory_only_s], ["GPU idle", a.idle_s],
    ["waiting for the host", a.idle_host_s], ["idle, other", a.idle_other_s]];
  const account = htmlTable([{ title: "part", wrap: true, priority: 1 },
    { title: "time", align: "right", priority: 1 }, { title: "of step", align: "right" }],
  rows.map(([k, v]) => [escapeHtml(k), ms(v), pc(v, w)]), { label: `Time account of ${R.step}` });
  const families = htmlTable([{ title: "kernel family", wrap: true, priority: 1 },
    { title: "kernels", align: "right" }, { title: "time", align: "right", priority: 1 },
    { title: "of busy", align: "right" }],
  a.families.map((f) => [escapeHtml(f.label), String(f.count), ms(f.time_s),
                          pc(f.time_s, a.busy_s)]), { label: `Kernel families of ${R.step}` });
  const top = htmlTable([{ title: "kernel", wrap: true, priority: 1 },
    { title: "family" }, { title: "count", align: "right" },
    { title: "time", align: "right", priority: 1 }],
  a.top.slice(0, 8).map((k) => [`<code>${escapeHtml(k.name)}</code>`, escapeHtml(k.family),
                                String(k.count), ms(k.time_s)]), { label: `Top kernels of ${R.step}` });
  const la = a.launch;
  const streams = a.streams.slice(0, 6).map((s) => `${escapeHtml(String(s.stream))} ` +
    `(${s.count} kernel${s.count !== 1 ? "s" : ""}, ${ms(s.busy_s)})`).join(", ");
  return [
    account,
    `<p>Communication ${ms(a.communication_s)}: ${ms(a.communication_overlapped_s)} overlapped ` +
    `with compute, ${ms(a.communication_exposed_s)} exposed. Busy per stream: ${streams}` +
    `${a.streams.length > 6 ? ", …" : ""}.</p>`,
    families,
    `<p>Launches: ${la.kernels} kernels, ${la.linked} linked to the call that launched them; ` +
    `${la.shorter_than_launch} ran shorter than that call; launch call median ` +
    `${la.launch_call_median_s === null ? "—" : ms(la.launch_call_median_s)}, launch to start ` +
    `median ${la.launch_delay_median_s === null ? "—" : ms(la.launch_delay_median_s)} (p90 ` +
    `${la.launch_delay_p90_s === null ? "—" : ms(la.launch_delay_p90_s)}).</p>`,
    top,
  ].join("\n");
}

function gpuReportHtml(R) {
  const name = basename(R.trace), chip = R.chip;
  const rank = R.rank !== null ? `, rank ${R.rank} of ${R.world_size}` : "";
  const leaks = R.leaks.map((l) => `<li>${g(l.share * 100)} % of the step: ${escapeHtml(l.advice)}</li>`)
    .join("");
  const head = `<p><strong>${escapeHtml(R.step)}</strong> of <code>${escapeHtml(name)}</code>` +
    `${rank}: ${ms(R.wall_s)} of GPU time on the ${escapeHtml(chip.label)} ` +
    `(${escapeHtml(R.device.toUpperCase())}), GPU busy ${pc(R.account.busy_s, R.wall_s)}` +
    (R.mfu !== null ? `, measured MFU <strong>${g(R.mfu * 100)} %</strong>` : "") +
    `. Chip: ${escapeHtml(chip.source)}.</p>`;
  const roof = R.mfu !== null && Object.keys(R.families).length;
  const drawing = VARIANTS.map(([wd, cls]) => `<div class="rl-profile-drawing ${cls}">` +
    (roof ? rooflineSvg(R, wd, cls) : "") + waterfallSvg(R, wd, cls) + "</div>").join("");
  return [
    head,
    `<div class="rl-profile-figure">${drawing}</div>`,
    accountHtml(R),
    roof ? familiesTable(R, `Op families of ${name}`) + unmodelledList(R) +
      `<p>Precision: ${escapeHtml(R.precision_rule)}.</p>`
      : R.shapes ? "" : "<p>No shapes recorded: the time account only. Record with " +
        "<code>record_shapes=True</code> to place the step's ops on the roofline.</p>",
    `<p>Top leaks:</p><ol>${leaks}</ol>`,
    `<p class="roofline-caption">${roof ? "The op families of the step on its chip's roofline " +
      "and where" : "Where"} ${escapeHtml(R.step)}'s GPU time went (${escapeHtml(name)}).</p>`,
  ].join("\n");
}

// Many ranks: the per-rank table, the slowest rank and the spread, then the slowest rank's report.
export function ranksHtml(M) {
  const table = htmlTable([{ title: "rank", align: "right", priority: 1 },
    { title: "step", align: "right" }, { title: "busy", align: "right" },
    { title: "idle", align: "right" }, { title: "comm.", align: "right" },
    { title: "exposed", align: "right" }, { title: "MFU", align: "right" },
    { title: "trace", wrap: true, priority: 3 }],
  M.ranks.map((r) => [r.rank === null ? "?" : String(r.rank), ms(r.wall_s), ms(r.busy_s),
    ms(r.idle_s), ms(r.communication_s), ms(r.communication_exposed_s),
    r.mfu === null ? "—" : `${g(r.mfu * 100)} %`, `<code>${escapeHtml(basename(r.trace))}</code>`]),
  { label: `${M.ranks.length} ranks` });
  return [
    `<p><strong>${M.ranks.length} ranks</strong> of a job of ${M.world_size ?? "?"}: the slowest ` +
    `is rank ${M.slowest} (${ms(M.slowest_wall_s)}), the fastest ${ms(M.fastest_wall_s)}, the ` +
    `median ${ms(M.median_wall_s)}: a spread of ${g(M.spread * 100)} % of the median.</p>`,
    table,
    `<p>The slowest rank, rank ${M.slowest}:</p>`,
    gpuReportHtml(M.slowest_report),
  ].join("\n");
}
