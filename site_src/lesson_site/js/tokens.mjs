// Tokens per step: the named exports mirror roofline/model/tokens.py and are
// checked by `node --test tests/js/` against tests/cases/tokens_cases.json, which pytest checks
// against the Python model. Pure functions, SI units; formatting comes from format.mjs.

import { num, percent } from "../../roofline/render/js/format.mjs";

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

// Each weight shape [d, f] at `tokens` per step: AI, attainable, fraction, bound, min tokens.
export function projectionPoints(tokens, peak, bw, shapes, bytesPerWeight, bytesPerActivation) {
  return shapes.map(([d, f]) => {
    const ai = matmulIntensity(tokens, d, f, bytesPerWeight, bytesPerActivation);
    const att = Math.min(peak, ai * bw);
    return { ai, attainable: att, fraction: att / peak,
             bound: ai < peak / bw ? "memory" : "compute",
             min_tokens: minComputeBoundTokens(peak, bw, d, f, bytesPerWeight,
                                               bytesPerActivation) };
  });
}

// Slider position (log2 of tokens) to whole tokens, and back.
export function tokensAt(position) { return Math.max(1, Math.round(2 ** Number(position))); }
export function positionOf(tokens) { return Math.log2(Math.max(1, tokens)); }

// "1 token per step", "64 tokens per step".
export function perStep(tokens) {
  return `${num(tokens, 6)} token${tokens === 1 ? "" : "s"} per step`;
}

// The sentence the explorer shows and announces for one state.
export function explainTokens(tokens, chipName, families, points) {
  const parts = families.map((fam, i) => {
    const p = points[i];
    return `${fam.label}: AI ${num(p.ai)}, ${p.bound}-bound at ${percent(p.fraction)} of peak`;
  });
  const reach = families.map((fam, i) => (points[i].min_tokens === null ? "never"
    : `${num(points[i].min_tokens, 6)} (${fam.short})`)).join(" and ");
  return `${perStep(tokens)} on the ${chipName}: ${parts.join("; ")}. ` +
    `They reach the roof at ${reach} tokens.`;
}

// ---------------------------------------------------------------- the page (progressive)

const SVG_NS = "http://www.w3.org/2000/svg";

function mapper(g) {
  const [x0, y0, x1, y1] = g.frame;
  const lx = Math.log10(g.x[1] / g.x[0]), ly = Math.log10(g.y[1] / g.y[0]);
  return {
    sx: (v) => x0 + (x1 - x0) * Math.log10(v / g.x[0]) / lx,
    sy: (v) => y1 - (y1 - y0) * Math.log10(v / g.y[0]) / ly,
  };
}

export function enhanceTokens(root) {
  const dataEl = root.querySelector("script.rl-tokens-data");
  const form = root.querySelector("form");
  if (!dataEl || !form || root.dataset.rlReady) return false;
  const data = JSON.parse(dataEl.textContent);
  root.dataset.rlReady = "1";
  form.hidden = false;
  const note = root.querySelector(".rl-tokens-nojs");
  if (note) note.hidden = true;
  const range = form.querySelector("input[type=range]");
  const chip = form.querySelector("select");
  const shown = form.querySelector("output");
  const said = root.querySelector(".rl-tokens-result");
  const charts = [];
  for (const [key, g] of Object.entries(data.charts)) {
    const svg = root.querySelector(`.rl-chart-${key} svg`);
    if (!svg) continue;
    const m = mapper(g);
    const roof = svg.querySelector("polyline.rl-chart-roof");
    const dots = data.families.map((fam) => {
      const c = document.createElementNS(SVG_NS, "circle");
      c.setAttribute("r", "5");
      c.setAttribute("class", "rl-chart-point rl-tokens-dot");
      const t = document.createElementNS(SVG_NS, "text");
      t.setAttribute("class", "rl-chart-label");
      t.setAttribute("font-size", String(g.font));
      t.textContent = fam.short;
      svg.append(c, t);
      return [c, t];
    });
    charts.push({ g, m, roof, dots });
  }
  let timer = 0;
  const draw = (announce) => {
    const tokens = tokensAt(range.value);
    const hw = data.hardware.find((h) => h.id === chip.value) || data.hardware[0];
    const points = projectionPoints(tokens, hw.peak, hw.bw, data.families.map((f) => f.shape),
                                    data.bytes, data.bytes);
    shown.textContent = num(tokens, 6);
    range.setAttribute("aria-valuetext", perStep(tokens));
    for (const { g, m, roof, dots } of charts) {
      const ridge = hw.peak / hw.bw, T = 1e12;
      if (roof) {
        roof.setAttribute("points", [[g.x[0], g.x[0] * hw.bw], [ridge, hw.peak], [g.x[1], hw.peak]]
          .map(([x, y]) => `${m.sx(x).toFixed(1)},${m.sy(y / T).toFixed(1)}`).join(" "));
      }
      dots.forEach(([c, t], i) => {
        const p = points[i];
        const x = m.sx(p.ai), y = m.sy(p.attainable / T);
        c.setAttribute("cx", x.toFixed(1));
        c.setAttribute("cy", y.toFixed(1));
        const tone = p.bound === "memory" ? "rl-mem" : "rl-comp";
        c.setAttribute("class", `rl-chart-point rl-tokens-dot ${tone}`);
        t.setAttribute("x", (x - 8).toFixed(1));
        t.setAttribute("y", (y + (i === 0 ? -10 : 18)).toFixed(1));
        t.setAttribute("text-anchor", "end");
      });
    }
    const text = explainTokens(tokens, hw.name, data.families, points);
    clearTimeout(timer);
    // The live region speaks once the reader pauses, not on every step of the slider.
    if (announce) timer = setTimeout(() => { said.textContent = text; }, 250);
    else said.textContent = text;
  };
  range.addEventListener("input", () => draw(true));
  chip.addEventListener("change", () => draw(true));
  for (const b of form.querySelectorAll("button[data-tokens]")) {
    b.addEventListener("click", () => {
      range.value = String(positionOf(Number(b.dataset.tokens)));
      draw(true);
    });
  }
  form.addEventListener("submit", (ev) => ev.preventDefault());
  draw(false);
  return true;
}

export function enhanceAllTokens(doc) {
  let n = 0;
  for (const root of doc.querySelectorAll("[data-rl-tokens]")) if (enhanceTokens(root)) n += 1;
  return n;
}
