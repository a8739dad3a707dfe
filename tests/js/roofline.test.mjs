// The widget's JS helpers against the shared case file (pytest checks the same file against the
// Python model): the file the browser runs is the file imported here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as rl from "../../site_src/roofline/widgets/roofline/roofline.mjs";
import * as maths from "../../site_src/roofline/render/js/maths.mjs";
import * as fmt from "../../site_src/roofline/render/js/format.mjs";

const CASES = JSON.parse(readFileSync(new URL("../cases/roofline_cases.json", import.meta.url)));
const { cases, hardware, ops, known } = CASES;

function close(actual, expected, what) {
  const tol = 1e-9 * Math.max(Math.abs(expected), Math.abs(actual));
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} != ${expected}`);
}

test("the case file holds at least 50 cases", () => {
  const n = Object.values(cases).reduce((s, v) => s + v.length, 0);
  assert.ok(n >= 50, `only ${n} cases`);
});

test("place: AI, attainable, fraction, time and bound agree with the Python model", () => {
  for (const c of cases.place) {
    const hw = hardware[c.hardware];
    const p = maths.place(c.cost, hw.peaks[c.precision], hw.bw);
    const what = `${c.hardware}/${c.precision}/${c.op}`;
    close(p.ai, c.ai, `${what} ai`);
    close(p.attainable, c.attainable, `${what} attainable`);
    close(p.fraction, c.fraction, `${what} fraction`);
    close(p.time, c.time, `${what} time`);
    close(maths.ridge(hw.peaks[c.precision], hw.bw), c.ridge, `${what} ridge`);
    assert.equal(p.bound, c.bound, `${what} bound`);
  }
});

test("attainable = min(peak, AI × BW)", () => {
  for (const c of cases.attainable) close(maths.attainable(c.ai, c.peak, c.bw), c.expected, `ai ${c.ai}`);
});

test("formatting matches roofline.fmt", () => {
  for (const c of cases.format) {
    assert.equal(fmt[c.fn](c.x, c.digits), c.expected, `${c.fn}(${c.x}, ${c.digits})`);
  }
});

test("clampAI: finite positive numbers clamped to 0.01–10,000, anything else ignored", () => {
  for (const c of cases.clamp_ai) {
    const got = rl.clampAI(c.input);
    if (c.expected === null) assert.equal(got, null, `clampAI(${JSON.stringify(c.input)})`);
    else close(got, c.expected, `clampAI(${JSON.stringify(c.input)})`);
  }
});

test("parseState keeps only known ids and a sane AI", () => {
  for (const c of cases.parse_state) {
    assert.deepEqual(rl.parseState(c.search, c.hash, known), c.expected, `${c.search} ${c.hash}`);
  }
});

test("stateQuery round-trips through parseState and keeps foreign parameters", () => {
  const q = rl.stateQuery("?lang=en&ai=3", { hardware: "a100-sxm-80gb", precision: "bf16",
                                              ai: 2, op: "custom" });
  assert.equal(q, "?lang=en&hardware=a100-sxm-80gb&precision=bf16&ai=2");
  assert.deepEqual(rl.parseState(q, "", known),
                   { hardware: "a100-sxm-80gb", precision: "bf16", ai: 2 });
});

test("readout and verdict texts are the ones Python renders first", () => {
  for (const c of cases.readout) {
    const hw = hardware[c.hardware];
    assert.equal(rl.readoutText(hw, c.precision, c.ai, c.op, ops), c.readout);
    assert.deepEqual(rl.verdictText(hw, c.precision, c.ai), [c.bound, c.verdict]);
  }
});

test("roofXY bends at the ridge, or is all slope or all roof", () => {
  for (const c of cases.roof_xy) {
    const got = maths.roofXY(c.peak, c.bw, c.x0, c.x1);
    assert.equal(got.x.length, c.expected.x.length);
    got.x.forEach((v, i) => close(v, c.expected.x[i], `x[${i}]`));
    got.y.forEach((v, i) => close(v, c.expected.y[i], `y[${i}]`));
  }
});
