// A profile report's two figures, drawn at build time by the static-chart engine (chart.mjs):
// the step's op families on the measured roofline (each at its arithmetic intensity and
// achieved FLOP/s, under the roof and the bandwidth slope) and the waterfall of the step's
// wall time. The figures are from roofline.profile.analyse; nothing is computed here but
// places on the page.
import { barChart, decades, drawChart } from "../../render/js/chart.mjs";
import { num, percent } from "../../render/js/format.mjs";

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
    title: `The step's op families on ${R.roof.label}'s measured roofline`,
    x: { range: [x0, x1], ticks: decades(x0, x1), format: (v) => num(v),
         label: "arithmetic intensity (FLOP/byte)" },
    y: { range: [y0, y1], ticks: decades(y0, y1),
         format: (v) => (v >= 1e9 ? `${num(v / 1e9)}G` : v >= 1e6 ? `${num(v / 1e6)}M` : num(v)),
         label: "FLOP/s" },
    lines: [{ x: [x0, ridge, x1], y: [x0 * bw, peak, peak], color: "roof", width: 2.5,
              label: narrow ? "" : "measured roof", labelColor: "roof" }],
    points: fams.map(([name, f]) => ({ x: f.intensity_flops_per_byte, y: f.achieved_flops_per_s,
                                       r: 5, color: COLORS[f.verdict] || "point",
                                       label: name, title: `${name}: ${f.verdict}` })),
  });
}

// The waterfall's rows, short enough for a phone's drawing (the report's table names them in full).
export const SHORT = { "useful matrix math at peak": "useful math at peak",
                       "matrix ops below their roof": "matrix ops, rest",
                       "memory-bound ops": "memory-bound ops", "dispatch and gaps": "dispatch, gaps",
                       communication: "communication", unmodelled: "unmodelled" };

function waterfallSvg(R, width, cls) {
  const rows = R.waterfall.map((w) => SHORT[w.part] || w.part);
  let left = 0;
  const bars = [], labels = [];
  for (const w of R.waterfall) {
    const share = w.share * 100;
    const row = SHORT[w.part] || w.part;
    bars.push({ row, left, right: left + share, color: w.part.startsWith("useful")
      ? "compute" : w.part === "unmodelled" ? "point" : "memory" });
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
