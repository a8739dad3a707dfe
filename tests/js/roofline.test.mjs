// What Python and the browser both compute, against tests/cases/roofline_cases.jsonl (pytest
// checks the same file against roofline.model and roofline.fmt): the roofline arithmetic
// (maths.mjs) and the formatting (format.mjs). Then the widget callback's own helpers (URL
// state) and the texts beside the plot (scene.mjs), which only the browser computes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as rl from "../../site_src/roofline/widgets/roofline/roofline.mjs";
import * as sc from "../../site_src/roofline/widgets/roofline/scene.mjs";
import * as maths from "../../site_src/roofline/render/js/maths.mjs";
import * as fmt from "../../site_src/roofline/render/js/format.mjs";

const lines = (name) => readFileSync(new URL(`../cases/${name}`, import.meta.url), "utf8")
  .split("\n").filter(Boolean).map((l) => JSON.parse(l));
const CASES = lines("roofline_cases.jsonl");
const PAYLOADS = Object.fromEntries(lines("payloads.jsonl").map((r) => [r.name, r.payload]));

function close(actual, expected, what) {
  const tol = 1e-9 * Math.max(Math.abs(expected), Math.abs(actual));
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} != ${expected}`);
}

test("the case file holds places and formats", () => {
  assert.ok(CASES.filter((c) => c.kind === "place").length >= 40);
  assert.ok(CASES.filter((c) => c.kind === "format").length >= 40);
});

test("place: AI, attainable, fraction, time and bound agree with the Python model", () => {
  for (const c of CASES.filter((k) => k.kind === "place")) {
    const p = maths.place(c.cost, c.peak, c.bw);
    const what = `${c.hardware}/${c.precision}/${c.op}`;
    close(p.ai, c.ai, `${what} ai`);
    close(p.attainable, c.attainable, `${what} attainable`);
    close(p.fraction, c.fraction, `${what} fraction`);
    close(p.time, c.time, `${what} time`);
    assert.equal(p.bound, c.bound, `${what} bound`);
  }
});

test("formatting matches roofline.fmt", () => {
  for (const c of CASES.filter((k) => k.kind === "format")) {
    assert.equal(fmt[c.fn](c.x, c.digits), c.expected, `${c.fn}(${c.x}, ${c.digits})`);
  }
});

test("seeded: a formatter that rounds half up instead of to even is caught by a case", () => {
  const halfUp = (x) => fmt.num(x + 1e-9);
  const c = CASES.find((k) => k.kind === "format" && k.fn === "num" && k.x === 1365);
  assert.equal(c.expected, "1,360");
  assert.notEqual(halfUp(c.x), c.expected);
});

test("clampAI: finite positive numbers clamped to 0.01–10,000, anything else ignored", () => {
  for (const [input, expected] of [
    ["2", 2], ["1365", 1365], ["0.5", 0.5], ["1e3", 1000], ["0.0001", 0.01], ["1e9", 10000],
    ["-5", null], ["0", null], ["abc", null], ["2;alert(1)", null], ["<script>", null],
    ["Infinity", null], ["NaN", null], ["", null], [" 7 ", 7]]) {
    const got = rl.clampAI(input);
    if (expected === null) assert.equal(got, null, `clampAI(${JSON.stringify(input)})`);
    else close(got, expected, `clampAI(${JSON.stringify(input)})`);
  }
});

test("parseState keeps only known ids and a sane AI", () => {
  const P = PAYLOADS.zoo;
  const known = { hardware: Object.keys(P.hardware), precision: Object.keys(P.precisions),
                  op: Object.keys(P.ops) };
  for (const [search, hash, expected] of [
    ["?hardware=a100-sxm-80gb&precision=bf16&ai=2", "",
     { hardware: "a100-sxm-80gb", precision: "bf16", ai: 2 }],
    ["", "#hardware=h100-sxm&precision=fp8&op=gemm-train",
     { hardware: "h100-sxm", precision: "fp8", op: "gemm-train" }],
    ["?hardware=h100-sxm", "#hardware=l4", { hardware: "l4" }],
    ["?hardware=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&ai=1e99", "", { ai: 10000 }],
    ["?precision=fp9&op=rm%sn&ai=-3", "", {}],
    ["?foo=bar&ai=0.001", "#section-6", { ai: 0.01 }],
    ["?op=custom&ai=50", "", { op: "custom", ai: 50 }],
    ["", "", {}]]) {
    assert.deepEqual(rl.parseState(search, hash, known), expected, `${search} ${hash}`);
  }
});

test("stateQuery round-trips through parseState and keeps foreign parameters", () => {
  const P = PAYLOADS.zoo;
  const known = { hardware: Object.keys(P.hardware), precision: Object.keys(P.precisions),
                  op: Object.keys(P.ops) };
  const q = rl.stateQuery("?lang=en&ai=3", { hardware: "a100-sxm-80gb", precision: "bf16",
                                              ai: 2, op: "custom" });
  assert.equal(q, "?lang=en&hardware=a100-sxm-80gb&precision=bf16&ai=2");
  assert.deepEqual(rl.parseState(q, "", known),
                   { hardware: "a100-sxm-80gb", precision: "bf16", ai: 2 });
});

// ---------------------------------------------------------------- the texts beside the plot

const H100 = { hardware: "h100-sxm", precision: "bf16", vector: false };
const ops = (P, st) => ({ ...P.ops, ...Object.fromEntries(P.tokens.ops.map((o) => [o.id, {
  label: o.label, short: o.label, cost: { [st.precision]: [o.cost[st.precision][0] +
    o.cost[st.precision][1] * st.tokens, o.cost[st.precision][2] + o.cost[st.precision][3] *
    st.tokens] } }])) });

test("one 'best': the readout prints the op's FLOP/s with its launch, once", () => {
  // The launch model (roofline.model.launch): a gap added to the roofline time,
  // t = max(F/peak, B/BW) + t_launch, so a batch-1 RMSNorm reaches F / t.
  const P = PAYLOADS.lesson;
  const st = { ...H100, op: "input_layernorm", tokens: 1 };
  const [F, B] = ops(P, st).input_layernorm.cost.bf16;
  const ai = F / B;
  const t = Math.max(F / 989.4e12, B / 3.35e12) + P.launch.seconds;
  const text = sc.readoutText(P, st, ai, ops(P, st));
  assert.equal((text.match(/best/g) || []).length, 1, text);
  assert.ok(text.includes(`best ${fmt.tflops(F / t)}`), text);
  assert.ok(text.includes(`takes ≥ ${fmt.seconds(t)}`), text);
  const m = sc.marker(P, st, ai);
  assert.equal(m.bound, "overhead");
  close(m.y * 1e12, F / t, "the marker at the FLOP/s it reaches with its launch");
  assert.match(sc.verdictText(P, st, ai)[1], /^Overhead-bound: /);
});

test("the verdict grades the loss: memory-bound near the ridge never says the cores idle", () => {
  const P = PAYLOADS.zoo;
  const hw = P.hardware["h100-sxm"];
  const ridge = hw.peaks.bf16 / hw.bw;
  for (const ai of [1, 30, 0.5 * ridge, 0.8 * ridge, 0.99 * ridge]) {
    const [bound, text] = sc.verdictText(P, H100, ai);
    const fraction = Math.min(hw.peaks.bf16, ai * hw.bw) / hw.peaks.bf16;
    assert.equal(bound, "memory");
    assert.ok(text.includes(`at most ${fmt.percent(fraction)} of peak`), text);
    if (fraction >= 0.5) assert.doesNotMatch(text, /idle|wait/, text);
    else assert.match(text, /wait on HBM/, text);
  }
  assert.deepEqual(sc.verdictText(P, H100, 2 * ridge)[0], "compute");
});
